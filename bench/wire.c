/* bench/wire.c - what the wire costs: bytes per vertex of rig payloads (u8 / u16 weights, raw /
 * zstd) for a synthetic 10k-vertex HairKit rig and for the sample meshes in assets/meshes/, the
 * bytes one character session costs a client, and encode / decode times. Prints, never asserts. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/fuzz/samples.h"
#include "tress/codec.h"
#include "tress/gltf.h"
#include "tress/mesh_hash.h"
#include "tress/rig.h"
#include "tress/rig_payload.h"
#include "bench_env.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Encodes msg; returns its size and the seconds one encode and one decode take. */
static size_t measure(const tress_msg *msg, double *enc_s, double *dec_s) {
  size_t bound = tress_msg_get_encode_bound(msg), len = 0;
  uint8_t *buf = malloc(bound);
  tress_wire_error err;
  double t0 = now_s();
  if (tress_msg_encode(msg, buf, bound, &len, &err)) {
    fprintf(stderr, "encode: %s\n", err.message);
    exit(1);
  }
  double t1 = now_s();
  tress_msg back;
  int reps = 0;
  do {
    if (tress_msg_decode(buf, len, &back, &err)) {
      fprintf(stderr, "decode: %s\n", err.message);
      exit(1);
    }
    tress_msg_free(&back);
    reps++;
  } while (now_s() - t1 < 0.05 && reps < 1000);
  double t2 = now_s();
  if (enc_s) *enc_s = t1 - t0;
  if (dec_s) *dec_s = (t2 - t1) / reps;
  free(buf);
  return len;
}

/* Size of the message without its skin: the fixed part plus bones. */
static size_t skin_bytes(tress_msg *msg, size_t total) {
  tress_wire_skin keep = msg->rig_result.skin;
  msg->rig_result.skin.vertex_count = 0;
  msg->rig_result.skin.compression = TRESS_COMPRESSION_NONE;
  size_t without = tress_msg_get_encoded_size(msg);
  msg->rig_result.skin = keep;
  return total - without;
}

static void table(const char *label, tress_msg *msg) {
  uint32_t n = msg->rig_result.skin.vertex_count;
  printf("%s: %u vertices, %u bones, %u influences\n", label, n, msg->rig_result.bone_count,
         msg->rig_result.skin.influences);
  printf("  %-5s %-5s %10s %12s %10s %10s\n", "wts", "comp", "message", "skin B/vtx", "encode", "decode");
  for (int fmt = TRESS_WEIGHTS_U8; fmt <= TRESS_WEIGHTS_U16; fmt++) {
    /* Requantize from the u8 / u16 values (exact: the rescale is by 257). */
    for (int c = TRESS_COMPRESSION_NONE; c <= TRESS_COMPRESSION_ZSTD; c++) {
      msg->rig_result.skin.compression = (uint8_t)c;
      double enc, dec;
      size_t total = measure(msg, &enc, &dec);
      printf("  %-5s %-5s %10zu %12.3f %8.2fms %8.2fms\n", fmt == TRESS_WEIGHTS_U8 ? "u8" : "u16",
             c ? "zstd" : "raw", total, n ? (double)skin_bytes(msg, total) / n : 0.0, enc * 1e3, dec * 1e3);
    }
    if (fmt == TRESS_WEIGHTS_U8) {
      uint16_t *w = msg->rig_result.skin.weights;
      for (size_t i = 0; i < (size_t)n * 4; i++) w[i] = (uint16_t)(w[i] * 257u);
      msg->rig_result.skin.weight_format = TRESS_WEIGHTS_U16;
    }
  }
  /* back to u8 for the caller */
  uint16_t *w = msg->rig_result.skin.weights;
  for (size_t i = 0; i < (size_t)n * 4; i++) w[i] = (uint16_t)(w[i] / 257u);
  msg->rig_result.skin.weight_format = TRESS_WEIGHTS_U8;
}

/* A scalp of strands: 625 strands x 16 vertices hanging from a cap, slightly curled, in strand
 * order as a strip mesh stores them. */
static tress_mesh *synthetic_hair(uint32_t strands, uint32_t per) {
  tress_mesh *m = tress_mesh_create(&(tress_mesh_def){.vertex_count = strands * per});
  uint32_t seed = 99;
  for (uint32_t s = 0; s < strands; s++) {
    seed = seed * 1664525u + 1013904223u;
    float az = (float)s * 2.399963f; /* golden angle */
    float el = 0.15f + 0.8f * (float)(seed >> 8) / 16777216.0f;
    float x0 = cosf(az) * cosf(el), z0 = sinf(az) * cosf(el), y0 = sinf(el);
    for (uint32_t k = 0; k < per; k++) {
      float t = (float)k / (float)(per - 1);
      float *p = m->positions + 3 * (size_t)(s * per + k);
      p[0] = x0 * (1.0f + 0.2f * t) + 0.05f * sinf(9.0f * t + az);
      p[1] = y0 - 3.0f * t;
      p[2] = z0 * (1.0f + 0.2f * t);
    }
  }
  return m;
}

static size_t rig_and_measure(const char *label, const tress_mesh *mesh, tress_msg *keep) {
  tress_rig_opts opts = tress_default_rig_opts();
  tress_rig_output out;
  tress_error err = {0};
  if (tress_rig_mesh(mesh, &opts, &out, &err) != TRESS_RIG_OK) {
    printf("%s: rig failed: %s\n", label, err.message);
    return 0;
  }
  uint8_t hash[32];
  tress_mesh_get_content_hash(mesh, hash);
  tress_wire_rig_options used = tress_default_wire_rig_options();
  tress_msg msg;
  if (tress_rig_payload_build(&out, 1, 0, hash, &used, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_ZSTD, &msg)) {
    printf("%s: payload build failed\n", label);
    tress_rig_output_free(&out);
    return 0;
  }
  table(label, &msg);
  msg.rig_result.skin.compression = TRESS_COMPRESSION_ZSTD;
  size_t sent = tress_msg_get_encoded_size(&msg);
  tress_rig_output_free(&out);
  if (keep) *keep = msg;
  else tress_msg_free(&msg);
  return sent;
}

int main(void) {
  bench_env_print(stdout, "bench/wire");
  bench_env_print_yardstick(stdout);
  printf("== rig payloads (RIG_RESULT; skin B/vtx excludes the bone list and header) ==\n");
  sample_store st = {0};
  tress_msg synth = {.type = TRESS_MSG_RIG_RESULT};
  sample_rig_result(&synth.rig_result, &st, SAMPLE_MAX, 10000, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_NONE);
  /* Two-influence HairKit blends over the default 10-bone skeleton. */
  sample_rig_result(&synth.rig_result, &st, SAMPLE_TYPICAL, 0, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_NONE);
  free(st.joints), free(st.weights);
  {
    uint32_t n = 10000;
    st.joints = calloc((size_t)n * 4, 1);
    st.weights = calloc((size_t)n * 4, 2);
    float *w = calloc((size_t)n * 4, sizeof(float));
    sample_hair_weights(n, 3, 3, w, st.joints);
    tress_skin_quantize(w, n, 2, TRESS_WEIGHTS_U8, st.weights);
    free(w);
    synth.rig_result.skin = (tress_wire_skin){n, 2, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_NONE, st.joints, st.weights};
  }
  table("synthetic HairKit weights (10k, strands of 16)", &synth);

  tress_mesh *cloud = synthetic_hair(625, 16);
  size_t rig_bytes = rig_and_measure("synthetic hair cloud rigged by tress_rig_mesh (10k)", cloud, NULL);
  tress_mesh_release(cloud);

  const char *src = getenv("TRESS_SOURCE_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/assets/meshes", src ? src : ".");
  DIR *d = opendir(dir);
  size_t asset_rig_bytes = 0;
  int assets = 0;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      size_t l = strlen(e->d_name);
      if (l < 5 || strcmp(e->d_name + l - 4, ".glb")) continue;
      char path[2048];
      tress_error err = {0};
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      tress_mesh *m = tress_gltf_load(path, &err);
      if (!m) {
        printf("%s: %s\n", path, err.message);
        continue;
      }
      size_t b = rig_and_measure(e->d_name, m, NULL);
      if (b > asset_rig_bytes) asset_rig_bytes = b;
      assets++;
      tress_mesh_release(m);
    }
    closedir(d);
  }
  if (!assets) printf("(no .glb under %s: run from the source dir or set TRESS_SOURCE_DIR)\n", dir);

  printf("\n== one character session, as a client receives it ==\n");
  tress_msg added;
  sample_message(TRESS_MSG_CHARACTER_ADDED, SAMPLE_TYPICAL, &added, &st, 0);
  /* An R15-sized body: 15 parts, hair + a cape + a hat. */
  tress_wire_part parts[15];
  static const char *const names[15] = {"Head", "UpperTorso", "LowerTorso", "LeftUpperArm", "LeftLowerArm",
                                        "LeftHand", "RightUpperArm", "RightLowerArm", "RightHand", "LeftUpperLeg",
                                        "LeftLowerLeg", "LeftFoot", "RightUpperLeg", "RightLowerLeg", "RightFoot"};
  for (int i = 0; i < 15; i++) {
    parts[i] = st.parts[i % 3];
    snprintf(parts[i].name, sizeof parts[i].name, "%s", names[i]);
  }
  tress_wire_accessory accs[3] = {st.accessories[0], st.accessories[1], st.accessories[1]};
  snprintf(accs[2].name, sizeof accs[2].name, "TopHat");
  accs[2].type = TRESS_ACCESSORY_HAT;
  snprintf(accs[2].mesh_asset_id, sizeof accs[2].mesh_asset_id, "hats/top_hat.glb");
  added.character_added.manifest.parts = parts;
  added.character_added.manifest.part_count = 15;
  added.character_added.manifest.accessories = accs;
  added.character_added.manifest.accessory_count = 3;
  size_t added_bytes = tress_msg_get_encoded_size(&added);
  tress_msg bind;
  sample_message(TRESS_MSG_BIND, SAMPLE_MIN, &bind, &st, 0);
  uint8_t rigged_hair = 0;
  bind.bind.rigged_count = 1;
  bind.bind.rigged_indices = &rigged_hair;
  size_t bind_bytes = tress_msg_get_encoded_size(&bind);
  size_t rig = asset_rig_bytes ? asset_rig_bytes : rig_bytes;
  printf("CHARACTER_ADDED (15 parts, 3 accessories)   %6zu bytes\n", added_bytes);
  printf("RIG_RESULT (hair, u8 + zstd, %s)   %6zu bytes\n", asset_rig_bytes ? "largest sample mesh" : "synthetic 10k", rig);
  printf("BIND (default match, 1 rigged accessory)    %6zu bytes\n", bind_bytes);
  printf("session total                               %6zu bytes (+ ENet headers; no per-frame traffic)\n",
         added_bytes + rig + bind_bytes);
  sample_store_free(&st);
  return 0;
}
