/* test_protocol_rig_payload.c - a real rig (tress_rig_mesh on a strand cloud) becomes a
 * RIG_RESULT whose bones are the rigger's, in mesh space, and whose quantized skin survives the
 * wire within one step of the rigger's weights; patching an encoded one's ids gives the bytes
 * an encode with those ids gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/mesh_hash.h"
#include "tress/rig.h"
#include "tress/rig_payload.h"

/* 40 strands of 12 vertices hanging from a ring at y = 1. */
static tress_mesh *strand_cloud(void) {
  tress_mesh *m = tress_mesh_create(&(tress_mesh_def){.vertex_count = 40 * 12});
  for (uint32_t s = 0; s < 40; s++)
    for (uint32_t k = 0; k < 12; k++) {
      float *p = m->positions + 3 * (size_t)(s * 12 + k);
      float a = (float)s * 0.157f;
      p[0] = cosf(a);
      p[1] = 1.0f - 0.25f * (float)k;
      p[2] = sinf(a);
    }
  return m;
}

/* The strand cloud rigged with the defaults, and its content hash. */
static tress_mesh *rigged_cloud(tress_rig_output *out, uint8_t hash[32]) {
  tress_mesh *mesh = strand_cloud();
  tress_rig_opts opts = tress_default_rig_opts();
  assert_int_equal(tress_rig_mesh(mesh, &opts, out, NULL), TRESS_RIG_OK);
  assert_int_equal(tress_mesh_get_content_hash(mesh, hash), 0);
  return mesh;
}

static void test_rig_output_to_wire_and_back(void **state) {
  (void)state;
  tress_rig_output out;
  uint8_t hash[32];
  tress_mesh *mesh = rigged_cloud(&out, hash);
  tress_wire_rig_options used = tress_default_wire_rig_options();
  for (int fmt = TRESS_WEIGHTS_U8; fmt <= TRESS_WEIGHTS_U16; fmt++) {
    tress_msg msg;
    assert_int_equal(tress_rig_payload_build(&out, 9, 2, hash, &used, (tress_weight_format)fmt,
                                             TRESS_COMPRESSION_ZSTD, &msg),
                     TRESS_WIRE_OK);
    size_t bound = tress_msg_get_encode_bound(&msg), len;
    uint8_t *buf = malloc(bound);
    assert_int_equal(tress_msg_encode(&msg, buf, bound, &len, NULL), TRESS_WIRE_OK);
    tress_msg back;
    assert_int_equal(tress_msg_decode(buf, len, &back, NULL), TRESS_WIRE_OK);
    const tress_msg_rig_result *r = &back.rig_result;
    assert_int_equal(r->character_id, 9);
    assert_int_equal(r->accessory_index, 2);
    assert_memory_equal(r->mesh_hash, hash, 32);
    assert_int_equal(r->bone_count, out.bone_count);
    assert_string_equal(r->bones[0].name, "HairRoot");
    for (uint32_t b = 0; b < r->bone_count; b++) {
      assert_string_equal(r->bones[b].name, out.bones[b].name);
      assert_int_equal(r->bones[b].parent, out.bones[b].parent);
      /* Mesh space: the rigger's rests to the bit (the receiver scales them to its handle). */
      assert_memory_equal(&r->bones[b].rest, &out.bones[b].rest, sizeof out.bones[b].rest);
    }
    uint32_t n = r->skin.vertex_count;
    assert_int_equal(n, mesh->vertex_count);
    float *w = malloc(sizeof(float) * 4 * n);
    tress_skin_dequantize(r->skin.weights, n, (tress_weight_format)fmt, w);
    float step = 1.0f / (float)tress_weight_unit((tress_weight_format)fmt);
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t s = 0; s < r->skin.influences; s++) {
        float orig = out.mesh->weights[v * 4 + s];
        assert_true(fabsf(w[v * 4 + s] - orig) <= step + 1e-6f);
        if (r->skin.weights[v * 4 + s]) assert_int_equal(r->skin.joints[v * 4 + s], out.mesh->joints[v * 4 + s]);
      }
    free(w);
    free(buf);
    tress_msg_free(&back);
    tress_msg_free(&msg);
  }
  tress_rig_output_free(&out);
  tress_mesh_release(mesh);
}

static uint8_t *encode(const tress_msg *msg, size_t *len) {
  size_t bound = tress_msg_get_encode_bound(msg);
  uint8_t *buf = malloc(bound);
  assert_int_equal(tress_msg_encode(msg, buf, bound, len, NULL), TRESS_WIRE_OK);
  return buf;
}

static void test_set_ids_gives_the_bytes_of_an_encode_with_those_ids(void **state) {
  (void)state;
  tress_rig_output out;
  uint8_t hash[32];
  tress_mesh *mesh = rigged_cloud(&out, hash);
  tress_wire_rig_options used = tress_default_wire_rig_options();
  tress_msg once, direct;
  assert_int_equal(tress_rig_payload_build(&out, 1, 0, hash, &used, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_ZSTD, &once),
                   TRESS_WIRE_OK);
  assert_int_equal(tress_rig_payload_build(&out, 70000, 31, hash, &used, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_ZSTD,
                                           &direct),
                   TRESS_WIRE_OK);
  size_t len = 0, direct_len = 0;
  uint8_t *bytes = encode(&once, &len), *want = encode(&direct, &direct_len);
  assert_int_equal(tress_rig_result_set_ids(bytes, len, 70000, 31), TRESS_WIRE_OK);
  assert_int_equal(len, direct_len);
  assert_memory_equal(bytes, want, len);

  /* refused ids and bytes that are not a RIG_RESULT change nothing */
  assert_int_equal(tress_rig_result_set_ids(bytes, len, 0, 1), TRESS_WIRE_ERR_BAD_INDEX);
  assert_int_equal(tress_rig_result_set_ids(bytes, len, 5, TRESS_WIRE_MAX_ACCESSORIES), TRESS_WIRE_ERR_BAD_INDEX);
  assert_memory_equal(bytes, want, len);
  bytes[0] = TRESS_MSG_RIG_FAILED;
  assert_int_equal(tress_rig_result_set_ids(bytes, len, 5, 1), TRESS_WIRE_ERR_INVALID_MESSAGE);
  bytes[0] = TRESS_MSG_RIG_RESULT;
  assert_memory_equal(bytes, want, len);
  assert_int_equal(tress_rig_result_set_ids(bytes, 5, 5, 1), TRESS_WIRE_ERR_INVALID_MESSAGE);
  free(bytes);
  free(want);
  tress_msg_free(&once);
  tress_msg_free(&direct);
  tress_rig_output_free(&out);
  tress_mesh_release(mesh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rig_output_to_wire_and_back),
      cmocka_unit_test(test_set_ids_gives_the_bytes_of_an_encode_with_those_ids),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
