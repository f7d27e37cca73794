/* test_gltf_animation.c - tress_gltf_write_glb_memory_animated: a skinned mesh with one clip (a
 * time accessor with min/max, LINEAR rotation channels on the listed bones, normalized, and a
 * carrier node over the skeleton with its translation and rotation), which the Khronos
 * validator accepts with no error or warning and the reader reads back to the same skin; bad
 * clips are refused with a reason. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "support/gltf_validator.h"
#include "tress/gltf.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"

#define FRAMES 3

static tress_mesh *rigged_ponytail(void) {
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_PONYTAIL);
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(m, NULL, &out, NULL), TRESS_RIG_OK);
  tress_mesh *rigged = out.mesh;
  tress_mesh_retain(rigged);
  tress_rig_output_free(&out);
  tress_mesh_release(m);
  return rigged;
}

typedef struct clip {
  uint32_t bones[2];
  float rotations[2 * FRAMES * 4];
  float head_p[FRAMES * 3], head_q[FRAMES * 4];
  tress_gltf_animation anim;
} clip;

static void clip_make(clip *c) {
  memset(c, 0, sizeof *c);
  c->bones[0] = 1;
  c->bones[1] = 2;
  for (int k = 0; k < 2 * FRAMES; k++) {
    float a = 0.1f * (float)k;
    float q[4] = {sinf(a), 0, 0, cosf(a)};
    memcpy(c->rotations + 4 * k, q, sizeof q);
  }
  c->rotations[3] = 2.0f; /* channel 0, frame 0: (0, 0, 0, 2) is written as identity */
  for (int k = 0; k < FRAMES; k++) {
    c->head_p[3 * k + 2] = 0.5f * (float)k;
    c->head_q[4 * k + 3] = 1.0f;
  }
  c->anim = (tress_gltf_animation){.name = "Sway", .frame_count = FRAMES, .frame_seconds = 1.0f / 60.0f,
                                   .channel_count = 2, .bones = c->bones, .rotations = c->rotations,
                                   .carrier_name = "Head", .carrier_translations = c->head_p,
                                   .carrier_rotations = c->head_q};
}

static cJSON *json_of(const uint8_t *glb, uint32_t *bin_offset) {
  uint32_t len = (uint32_t)glb[12] | (uint32_t)glb[13] << 8 | (uint32_t)glb[14] << 16 | (uint32_t)glb[15] << 24;
  *bin_offset = 20 + len + 8;
  return cJSON_ParseWithLength((const char *)glb + 20, len);
}

static const float *floats_of(const cJSON *doc, const uint8_t *glb, uint32_t bin, int accessor) {
  const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "accessors"), accessor);
  const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "bufferViews"), cJSON_GetObjectItem(acc, "bufferView")->valueint);
  return (const float *)(const void *)(glb + bin + cJSON_GetObjectItem(view, "byteOffset")->valueint);
}

static void test_clip_is_written_as_given(void **state) {
  (void)state;
  tress_mesh *m = rigged_ponytail();
  clip c;
  clip_make(&c);
  uint8_t *glb;
  size_t size;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory_animated(m, NULL, &c.anim, &glb, &size, &err), 0);
  uint32_t bin;
  cJSON *doc = json_of(glb, &bin);
  assert_non_null(doc);
  const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "animations"), 0);
  assert_string_equal(cJSON_GetObjectItem(anim, "name")->valuestring, "Sway");
  const cJSON *channels = cJSON_GetObjectItem(anim, "channels"), *samplers = cJSON_GetObjectItem(anim, "samplers");
  assert_int_equal(cJSON_GetArraySize(channels), 4); /* two bones, the carrier's translation and rotation */
  const cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");
  const cJSON *carrier = cJSON_GetArrayItem(nodes, cJSON_GetArraySize(nodes) - 1);
  assert_string_equal(cJSON_GetObjectItem(carrier, "name")->valuestring, "Head");
  /* the scene: the mesh node and the carrier, which holds the bone root */
  const cJSON *roots = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scenes"), 0), "nodes");
  assert_int_equal(cJSON_GetArraySize(roots), 2);
  assert_int_equal(cJSON_GetArrayItem(roots, 0)->valueint, 0);
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(carrier, "children"), 0)->valueint, 1);
  int input = -1;
  for (int i = 0; i < 4; i++) {
    const cJSON *ch = cJSON_GetArrayItem(channels, i);
    const cJSON *sampler = cJSON_GetArrayItem(samplers, cJSON_GetObjectItem(ch, "sampler")->valueint);
    assert_string_equal(cJSON_GetObjectItem(sampler, "interpolation")->valuestring, "LINEAR");
    if (input < 0) input = cJSON_GetObjectItem(sampler, "input")->valueint;
    assert_int_equal(cJSON_GetObjectItem(sampler, "input")->valueint, input);
    const cJSON *target = cJSON_GetObjectItem(ch, "target");
    const float *out = floats_of(doc, glb, bin, cJSON_GetObjectItem(sampler, "output")->valueint);
    if (i < 2) {
      assert_int_equal(cJSON_GetObjectItem(target, "node")->valueint, 1 + (int)c.bones[i]);
      for (int k = 0; k < 4 * FRAMES; k++) {
        float want = (i == 0 && k == 3) ? 1.0f : c.rotations[4 * FRAMES * i + k];
        assert_true(fabsf(out[k] - want) < 1e-7f);
      }
    } else if (strcmp(cJSON_GetObjectItem(target, "path")->valuestring, "translation") == 0) {
      assert_memory_equal(out, c.head_p, sizeof c.head_p);
    }
  }
  const cJSON *time = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "accessors"), input);
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(time, "min"), 0)->valuedouble == 0.0);
  assert_true(fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(time, "max"), 0)->valuedouble - 2.0 / 60.0) < 1e-7);
  /* the reader sees the same skin */
  tress_mesh *back = tress_gltf_read_memory(glb, size, NULL, &err);
  assert_non_null(back);
  assert_int_equal(back->bone_count, m->bone_count);
  for (uint32_t b = 0; b < m->bone_count; b++) {
    assert_int_equal(back->bones[b].parent, m->bones[b].parent);
    for (int k = 0; k < 3; k++) assert_true(back->bones[b].bind_pos[k] == m->bones[b].bind_pos[k]); /* -0 == 0 */
  }
  tress_mesh_release(back);

  char prefix[1100];
  const char *bin_dir = getenv("TRESS_BINARY_DIR");
  if (bin_dir && gltf_validator_ready(prefix, sizeof prefix)) {
    char path[1200], cmd[3000], line[256] = "";
    snprintf(path, sizeof path, "%s/test_gltf_animation.glb", bin_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(glb, 1, size, f), size);
    fclose(f);
    snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s'", prefix, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(line, sizeof line, p));
    pclose(p);
    remove(path);
    print_message("%s", line);
    assert_int_equal(strncmp(line, "errors=0 warnings=0 ", 20), 0);
  } else {
    print_message("gltf-validator unavailable: validation skipped\n");
  }
  cJSON_Delete(doc);
  free(glb);
  tress_mesh_release(m);
}

static void refused(const tress_mesh *m, const tress_gltf_animation *a, const char *why) {
  uint8_t *glb = NULL;
  size_t size = 0;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory_animated(m, NULL, a, &glb, &size, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_null(glb);
  if (!strstr(err.message, why)) fail_msg("expected \"%s\" in \"%s\"", why, err.message);
}

static void test_bad_clips_are_refused(void **state) {
  (void)state;
  tress_mesh *m = rigged_ponytail();
  clip c;
  clip_make(&c);
  tress_gltf_animation a = c.anim;
  tress_mesh *plain = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  refused(plain, &a, "skinned");
  tress_mesh_release(plain);
  a.frame_count = 1;
  refused(m, &a, "2 or more frames");
  a = c.anim;
  c.bones[1] = 1;
  refused(m, &a, "two channels");
  c.bones[1] = m->bone_count;
  refused(m, &a, "names bone");
  c.bones[1] = 2;
  c.rotations[5] = NAN;
  refused(m, &a, "not finite");
  c.rotations[5] = 0.0f;
  a.channel_count = 0;
  a.carrier_translations = NULL;
  a.carrier_rotations = NULL;
  refused(m, &a, "needs a channel");
  tress_mesh_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clip_is_written_as_given),
      cmocka_unit_test(test_bad_clips_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
