/* test_plan.c - plan(): the seed's worked example, weight invariants, options and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/plan.h"

/* The seed's cloud: one scalp vertex at (0, 10, 0), strands at x = 2 and x = -2 down to y = 4. */
static uint32_t seed_cloud(float v[13 * 3]) {
  uint32_t n = 0;
  v[3 * n] = 0; v[3 * n + 1] = 10; v[3 * n + 2] = 0; n++;
  for (int step = 1; step <= 6; step++) {
    v[3 * n] = 2; v[3 * n + 1] = 10.0f - (float)step; v[3 * n + 2] = 0; n++;
    v[3 * n] = -2; v[3 * n + 1] = 10.0f - (float)step; v[3 * n + 2] = 0; n++;
  }
  return n;
}

static tress_plan_opts seed_opts(void) {
  tress_plan_opts o = tress_default_plan_opts();
  o.root[0] = 0; o.root[1] = 10; o.root[2] = 0;
  o.has_root = true;
  o.sectors = 2;
  o.segments = 3;
  return o;
}

static void test_defaults(void **state) {
  (void)state;
  tress_plan_opts o = tress_default_plan_opts();
  assert_int_equal(o.sectors, 3);
  assert_int_equal(o.segments, 3);
  assert_int_equal(o.max_influences, 2);
  assert_true(o.axis[0] == 0.0f && o.axis[1] == -1.0f && o.axis[2] == 0.0f);
  assert_false(o.has_root);
}

static void test_seed_worked_example(void **state) {
  (void)state;
  float v[13 * 3];
  uint32_t n = seed_cloud(v);
  assert_int_equal(n, 13);
  tress_plan_opts o = seed_opts();
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.bone_count, 7);
  /* The seed's table, 1-based parents mapped to 0-based (-1 = none). */
  const char *names[7] = {"HairRoot", "Hair_S1_B1", "Hair_S1_B2", "Hair_S1_B3", "Hair_S2_B1", "Hair_S2_B2", "Hair_S2_B3"};
  const int parents[7] = {-1, 0, 1, 2, 0, 4, 5};
  for (int b = 0; b < 7; b++) {
    assert_string_equal(p.bones[b].name, names[b]);
    assert_int_equal(p.bones[b].parent, parents[b]);
  }
  /* Every chain bone within 0.5 of its strand (x = +2 or -2, z = 0, y in [4, 9]). Each sector
   * must sit on exactly one strand, and the two sectors on different strands. */
  for (int s = 0; s < 2; s++) {
    float strand_x = p.bones[1 + 3 * s].position[0] > 0 ? 2.0f : -2.0f;
    for (int b = 0; b < 3; b++) {
      const float *q = p.bones[1 + 3 * s + b].position;
      float dy = q[1] > 9.0f ? q[1] - 9.0f : q[1] < 4.0f ? 4.0f - q[1] : 0.0f;
      float dist = sqrtf((q[0] - strand_x) * (q[0] - strand_x) + dy * dy + q[2] * q[2]);
      assert_true(dist <= 0.5f);
    }
  }
  assert_true(p.bones[1].position[0] * p.bones[4].position[0] < 0.0f);
  /* Chains go down the axis. */
  for (int s = 0; s < 2; s++) {
    assert_true(p.bones[1 + 3 * s].position[1] > p.bones[2 + 3 * s].position[1]);
    assert_true(p.bones[2 + 3 * s].position[1] > p.bones[3 + 3 * s].position[1]);
  }
  /* The scalp vertex: { HairRoot, 1 }. */
  assert_int_equal(p.influence_count[0], 1);
  assert_int_equal(p.joints[0], 0);
  assert_true(p.weights[0] == 1.0f);
  /* The deepest vertices (y = 4) weight mostly to a _B3 bone. */
  for (uint32_t i = 0; i < n; i++) {
    if (v[3 * i + 1] != 4.0f) continue;
    assert_non_null(strstr(p.bones[p.joints[2 * i]].name, "_B3"));
    assert_true(p.weights[2 * i] > 0.5f);
  }
  tress_plan_result_free(&p);
  assert_null(p.bones);
}

/* A deterministic hair-like cloud: strands around a cap, some vertices above the root. */
static float *hair_cloud(uint32_t n, uint32_t seed) {
  float *v = malloc(3 * sizeof(float) * n);
  uint32_t x = seed * 2654435761u + 1;
  for (uint32_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    float a = (float)(x >> 8) / 16777216.0f * 6.2831853f;
    x = x * 1664525u + 1013904223u;
    float d = (float)(x >> 8) / 16777216.0f;
    v[3 * i] = cosf(a) * (0.5f + d * 0.2f);
    v[3 * i + 1] = 1.1f - d * 3.0f;
    v[3 * i + 2] = sinf(a) * (0.5f + d * 0.2f);
  }
  return v;
}

static void check_weights(const tress_plan_result *p, uint32_t max_inf) {
  for (uint32_t i = 0; i < p->vertex_count; i++) {
    const uint16_t *joint = p->joints + max_inf * i;
    const float *weight = p->weights + max_inf * i;
    uint32_t c = p->influence_count[i];
    assert_true(c >= 1 && c <= max_inf);
    double sum = 0;
    for (uint32_t k = 0; k < c; k++) {
      assert_true(joint[k] < p->bone_count);
      assert_true(weight[k] > 0.0f);
      if (k > 0) assert_true(weight[k - 1] >= weight[k]);
      sum += weight[k];
    }
    for (uint32_t k = c; k < max_inf; k++) assert_true(weight[k] == 0.0f && joint[k] == 0);
    assert_true(fabs(sum - 1.0) <= 1e-6);
    if (max_inf == 1) assert_true(weight[0] == 1.0f);
  }
}

static void test_weights_sum_sorted_and_bounded(void **state) {
  (void)state;
  uint32_t n = 5000;
  float *v = hair_cloud(n, 7);
  bool saw_two = false;
  for (uint32_t mi = 0; mi <= 6; mi++) {
    tress_plan_opts o = tress_default_plan_opts();
    o.root[1] = 1.0f;
    o.has_root = true;
    o.max_influences = mi;
    tress_plan_result p;
    assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
    uint32_t clamped = mi < 1 ? 1 : mi > 4 ? 4 : mi;
    assert_int_equal(p.max_influences, clamped);
    check_weights(&p, clamped);
    for (uint32_t i = 0; i < n && clamped > 1; i++) saw_two |= p.influence_count[i] == 2;
    /* Vertices above the root plane are on HairRoot alone. */
    for (uint32_t i = 0; i < n; i++)
      if (v[3 * i + 1] >= 1.0f) {
        assert_int_equal(p.joints[clamped * i], 0);
        assert_true(p.weights[clamped * i] == 1.0f);
      }
    tress_plan_result_free(&p);
  }
  assert_true(saw_two);
  free(v);
}

/* The seed's blend: |fraction - 0.5| * 0.8 toward the neighbouring band. */
static void test_blend_values(void **state) {
  (void)state;
  /* One strand at x = 1, root at y = 0, depth 3 with segments 3: bands of height 1. */
  float v[] = {1, -0.25f, 0, 1, -1.75f, 0, 1, -3, 0};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.sectors = 1;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, 3, &o, &p), TRESS_PLAN_OK);
  /* v0: band 1, fraction .25, leans up but B1 has no chain bone above: B1 alone. */
  assert_int_equal(p.influence_count[0], 1);
  assert_int_equal(p.joints[0], 1);
  /* v1: band 2, fraction .75: B2 0.8, B3 0.2. */
  assert_int_equal(p.influence_count[1], 2);
  assert_int_equal(p.joints[2], 2);
  assert_float_equal(p.weights[2], 0.8f, 1e-5f);
  assert_int_equal(p.joints[3], 3);
  assert_float_equal(p.weights[3], 0.2f, 1e-5f);
  /* Band 1 (B1) holds only v0, band 3 only v2: centroids sit on them. */
  assert_float_equal(p.bones[1].position[1], -0.25f, 1e-5f);
  assert_float_equal(p.bones[3].position[1], -3.0f, 1e-5f);
  tress_plan_result_free(&p);
}

/* Vertices above the root never pull centroids. */
static void test_above_root_does_not_pull(void **state) {
  (void)state;
  float v[] = {1, -0.5f, 0, 1, -1.5f, 0, 1, -3, 0, 50, 5, 50, -50, 0, -50};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.sectors = 1;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, 5, &o, &p), TRESS_PLAN_OK);
  for (uint32_t b = 1; b < p.bone_count; b++) {
    assert_float_equal(p.bones[b].position[0], 1.0f, 1e-5f);
    assert_float_equal(p.bones[b].position[2], 0.0f, 1e-5f);
  }
  assert_int_equal(p.joints[2 * 3], 0);
  assert_int_equal(p.joints[2 * 4], 0);
  tress_plan_result_free(&p);
}

/* Empty bands and empty sectors still get bones, every chain the same length. */
static void test_empty_bands_interpolated(void **state) {
  (void)state;
  /* Only vertices at depth 0.5 and 5.5 (bands 1 and 6 of 6), only on +X. */
  float v[] = {1, -0.5f, 0, 1, -5.5f, 0, 1, -6, 0};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.sectors = 3;
  o.segments = 6;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, 3, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.bone_count, 19);
  /* Sector 1 bands 2..5 are between the two filled bands, strictly descending. */
  for (int b = 1; b < 6; b++) assert_true(p.bones[1 + b].position[1] < p.bones[b].position[1]);
  assert_float_equal(p.bones[1].position[1], -0.5f, 1e-5f);
  assert_float_equal(p.bones[6].position[1], -5.75f, 1e-5f);
  assert_float_equal(p.bones[3].position[1], -0.5f + (-5.75f + 0.5f) * 2.0f / 5.0f, 1e-4f);
  /* Sectors 2 and 3 are empty: they hang down the axis, finite, descending. */
  for (int s = 1; s < 3; s++)
    for (int b = 0; b < 6; b++) {
      const float *q = p.bones[1 + 6 * s + b].position;
      assert_true(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]));
      if (b > 0) assert_true(q[1] < p.bones[6 * s + b].position[1]);
    }
  tress_plan_result_free(&p);
}

static void test_sector_reference(void **state) {
  (void)state;
  /* Sector 1 is centred on +X; with 4 sectors going toward axis x X = +Z for a down axis:
   * +X -> S1, +Z -> S2, -X -> S3, -Z -> S4. */
  float v[] = {1, -1, 0, 0, -1, 1, -1, -1, 0, 0, -1, -1};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.sectors = 4;
  o.segments = 1;
  o.max_influences = 1;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, 4, &o, &p), TRESS_PLAN_OK);
  for (int i = 0; i < 4; i++) assert_int_equal(p.joints[i], 1 + i);
  assert_float_equal(p.reference[0], 1.0f, 1e-6f);
  tress_plan_result_free(&p);
}

static void test_bad_input(void **state) {
  (void)state;
  tress_plan_result p;
  tress_plan_opts o = seed_opts();
  float v[13 * 3];
  uint32_t n = seed_cloud(v);
  assert_int_equal(tress_plan_build(v, 0, &o, &p), TRESS_PLAN_ERR_EMPTY);
  assert_null(p.bones);
  assert_int_equal(tress_plan_build(NULL, 5, &o, &p), TRESS_PLAN_ERR_EMPTY);
  /* All vertices at or above the root plane. */
  o.root[1] = 10.0f;
  float above[] = {0, 10, 0, 1, 11, 0, -3, 12, 2};
  assert_int_equal(tress_plan_build(above, 3, &o, &p), TRESS_PLAN_ERR_ABOVE_ROOT);
  /* NaN and infinity anywhere. */
  float bad[13 * 3];
  for (int k = 0; k < 3; k++) {
    memcpy(bad, v, sizeof v);
    bad[3 * 7 + k] = NAN;
    assert_int_equal(tress_plan_build(bad, n, &o, &p), TRESS_PLAN_ERR_NOT_FINITE);
    bad[3 * 7 + k] = INFINITY;
    assert_int_equal(tress_plan_build(bad, n, &o, &p), TRESS_PLAN_ERR_NOT_FINITE);
  }
  /* Sectors / segments 0 or absurd; zero or NaN axis; no root. */
  uint32_t counts[] = {0, TRESS_PLAN_MAX_SECTORS + 1, 1000000, UINT32_MAX};
  for (int i = 0; i < 4; i++) {
    o = seed_opts();
    o.sectors = counts[i];
    assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_ERR_OPTIONS);
    o = seed_opts();
    o.segments = counts[i];
    assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_ERR_OPTIONS);
  }
  o = seed_opts();
  o.axis[1] = 0.0f;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_ERR_OPTIONS);
  o.axis[1] = NAN;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_ERR_OPTIONS);
  o = seed_opts();
  o.has_root = false;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_ERR_NO_ROOT);
  assert_string_equal(tress_plan_status_name(TRESS_PLAN_ERR_ABOVE_ROOT), "every vertex is at or above the root plane");
  /* The caps themselves are allowed. */
  o = seed_opts();
  o.sectors = TRESS_PLAN_MAX_SECTORS;
  o.segments = TRESS_PLAN_MAX_SEGMENTS;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.bone_count, 1 + 64 * 64);
  assert_string_equal(p.bones[p.bone_count - 1].name, "Hair_S64_B64");
  check_weights(&p, 2);
  tress_plan_result_free(&p);
}

static void test_one_vertex(void **state) {
  (void)state;
  float v[] = {0.3f, -2.0f, 0.1f};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, 1, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.bone_count, 10);
  assert_int_equal(p.influence_count[0], 1);
  assert_true(p.weights[0] == 1.0f);
  for (uint32_t b = 0; b < p.bone_count; b++)
    for (int k = 0; k < 3; k++) assert_true(isfinite(p.bones[b].position[k]));
  tress_plan_result_free(&p);
  /* The single vertex at the root: nothing below the root plane. */
  float at_root[] = {0, 0, 0};
  assert_int_equal(tress_plan_build(at_root, 1, &o, &p), TRESS_PLAN_ERR_ABOVE_ROOT);
}

/* Any axis works: a sideways axis along +X is planned like a down axis turned. */
static void test_other_axis(void **state) {
  (void)state;
  uint32_t n = 2000;
  float *v = hair_cloud(n, 3);
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.root[1] = 1.0f;
  tress_plan_result down;
  assert_int_equal(tress_plan_build(v, n, &o, &down), TRESS_PLAN_OK);
  /* Rotate the cloud so down becomes +X: (x, y, z) -> (-y, x, z)... and the root with it. */
  float *r = malloc(3 * sizeof(float) * n);
  for (uint32_t i = 0; i < n; i++) {
    r[3 * i] = -v[3 * i + 1];
    r[3 * i + 1] = v[3 * i];
    r[3 * i + 2] = v[3 * i + 2];
  }
  o.root[0] = -1.0f; o.root[1] = 0.0f;
  o.axis[0] = 1.0f; o.axis[1] = 0.0f;
  tress_plan_result side;
  assert_int_equal(tress_plan_build(r, n, &o, &side), TRESS_PLAN_OK);
  assert_float_equal(side.depth, down.depth, 1e-4f);
  check_weights(&side, 2);
  tress_plan_result_free(&down);
  tress_plan_result_free(&side);
  free(v);
  free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_seed_worked_example),
    cmocka_unit_test(test_weights_sum_sorted_and_bounded),
    cmocka_unit_test(test_blend_values),
    cmocka_unit_test(test_above_root_does_not_pull),
    cmocka_unit_test(test_empty_bands_interpolated),
    cmocka_unit_test(test_sector_reference),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_one_vertex),
    cmocka_unit_test(test_other_axis),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
