/* test_plan.c - plan(): the seed's worked example, weight invariants, options and bad input; the
 * sector frame from the hair (rotation invariance, mirror symmetry), the scalp on HairRoot, bones
 * inside the hair's bounds, and the strandless-volume warning. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/plan.h"
#include "tress/sample_hair.h"

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

/* Sector 1 is where the hair is densest, whatever the world's axes: four clumps around a down
 * axis, the +X one three times as dense. Turned a quarter, the dense clump is at +Z and sector 1
 * goes with it. The others follow turning toward axis x reference. */
static void test_sector_reference(void **state) {
  (void)state;
  for (int turn = 0; turn < 2; turn++) {
    float dirs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}; /* (x, z) */
    float v[6 * 3];
    uint32_t n = 0;
    for (int c = 0; c < 4; c++)
      for (int copies = 0; copies < (c == 0 ? 3 : 1); copies++) {
        float x = dirs[c][0], z = dirs[c][1];
        v[3 * n] = turn ? -z : x;
        v[3 * n + 1] = -1.0f;
        v[3 * n + 2] = turn ? x : z;
        n++;
      }
    tress_plan_opts o = tress_default_plan_opts();
    o.has_root = true;
    o.sectors = 4;
    o.segments = 1;
    o.max_influences = 1;
    tress_plan_result p;
    assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
    /* The dense clump on S1, then +Z (or -X when turned) on S2, and so on round. */
    for (int i = 0; i < 3; i++) assert_int_equal(p.joints[i], 1);
    for (int c = 1; c < 4; c++) assert_int_equal(p.joints[2 + c], 1 + c);
    assert_float_equal(p.reference[0], turn ? 0.0f : 1.0f, 0.03f);
    assert_float_equal(p.reference[2], turn ? 1.0f : 0.0f, 0.03f);
    tress_plan_result_free(&p);
  }
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
  /* the one error shape: a refused input is an invalid argument, memory is memory */
  assert_int_equal(tress_plan_status_to_result(TRESS_PLAN_OK), TRESS_OK);
  assert_int_equal(tress_plan_status_to_result(TRESS_PLAN_ERR_ABOVE_ROOT), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_plan_status_to_result(TRESS_PLAN_ERR_NO_ROOT), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_plan_status_to_result(TRESS_PLAN_ERR_NO_MEMORY), TRESS_ERR_OUT_OF_MEMORY);
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

/* --- the hair's own frame, the scalp, bounds, strandless volumes (the project's samples) --- */

static tress_plan_opts sample_opts(const tress_mesh *m) {
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  tress_plan_opts o = tress_default_plan_opts();
  o.root[0] = 0.5f * (mn[0] + mx[0]);
  o.root[1] = mx[1];
  o.root[2] = 0.5f * (mn[2] + mx[2]);
  o.has_root = true;
  return o;
}

/* The chain (0-based sector) a vertex's heaviest bone belongs to, -1 for HairRoot. */
static int dominant_chain(const tress_plan_result *p, uint32_t v) {
  uint16_t j = p->joints[p->max_influences * v];
  return j == 0 ? -1 : (int)((j - 1) / p->segments);
}

static void turn_about(const float *in, float *out, uint32_t n, const float centre[3], float angle) {
  float c = cosf(angle), s = sinf(angle);
  for (uint32_t i = 0; i < n; i++) {
    float x = in[3 * i] - centre[0], z = in[3 * i + 2] - centre[2];
    out[3 * i] = centre[0] + c * x + s * z;
    out[3 * i + 1] = in[3 * i + 1];
    out[3 * i + 2] = centre[2] - s * x + c * z;
  }
}

/* The largest distance between a's bones and b's matched chain by chain (each chain of a to the
 * chain of b whose bones are nearest, a bijection: chains are distinct). */
static float chain_distance(const tress_plan_result *a, const tress_plan_result *b) {
  assert_int_equal(a->bone_count, b->bone_count);
  bool used[TRESS_PLAN_MAX_SECTORS] = {false};
  float worst = 0.0f;
  for (uint32_t s = 0; s < a->sectors; s++) {
    int match = -1;
    float match_d = INFINITY;
    for (uint32_t t = 0; t < b->sectors; t++) {
      if (used[t]) continue;
      float far = 0.0f;
      for (uint32_t k = 0; k < a->segments; k++) {
        const float *p = a->bones[1 + s * a->segments + k].position, *q = b->bones[1 + t * b->segments + k].position;
        float d = sqrtf((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
        far = d > far ? d : far;
      }
      if (far < match_d) { match_d = far; match = (int)t; }
    }
    used[match] = true;
    worst = match_d > worst ? match_d : worst;
  }
  return worst;
}

/* The ponytail turned about the growth axis in 15 degree steps: its tail (everything below the tie)
 * stays on one chain, and the rig is the same rig turned. */
static void test_rotation_invariance(void **state) {
  (void)state;
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_PONYTAIL);
  uint32_t n = m->vertex_count;
  tress_plan_opts base = sample_opts(m);
  float *turned = malloc(12 * (size_t)n);
  const uint32_t configs[][2] = {{3, 3}, {4, 4}, {5, 3}};
  for (size_t c = 0; c < 3; c++) {
    tress_plan_result first;
    memset(&first, 0, sizeof first);
    float worst = 0.0f;
    for (int step = 0; step < 24; step++) {
      float angle = (float)step * 3.14159265f / 12.0f;
      turn_about(m->positions, turned, n, base.root, angle);
      tress_plan_opts o = base;
      o.sectors = configs[c][0];
      o.segments = configs[c][1];
      tress_plan_result p;
      assert_int_equal(tress_plan_build(turned, n, &o, &p), TRESS_PLAN_OK);
      /* The tail: below the tie (y ~0.38) by a margin. */
      uint32_t tail = 0, votes[TRESS_PLAN_MAX_SECTORS] = {0};
      for (uint32_t v = 0; v < n; v++) {
        if (m->positions[3 * v + 1] > 0.28f) continue;
        tail++;
        int chain = dominant_chain(&p, v);
        if (chain >= 0) votes[chain]++;
      }
      uint32_t best = 0;
      for (uint32_t s = 0; s < p.sectors; s++) best = votes[s] > best ? votes[s] : best;
      if (best < 0.9 * tail)
        fail_msg("%ux%u at %d degrees: %u of %u tail vertices on one chain", o.sectors, o.segments, step * 15, best, tail);
      /* Turn the bones back: the same chains as in the first orientation. */
      for (uint32_t b = 0; b < p.bone_count; b++) {
        float q[3];
        turn_about(p.bones[b].position, q, 1, base.root, -angle);
        memcpy(p.bones[b].position, q, sizeof q);
      }
      if (step == 0) first = p;
      else {
        float d = chain_distance(&first, &p);
        if (d > worst) worst = d;
        tress_plan_result_free(&p);
      }
    }
    print_message("%ux%u: bones within %.4f of the first orientation's, turned\n", configs[c][0], configs[c][1], worst);
    assert_true(worst <= 0.01f);
    tress_plan_result_free(&first);
  }
  free(turned);
  tress_mesh_release(m);
}

/* A hairstyle that is its own mirror image (the long sample plus its mirror copy about x = root x)
 * gets a mirror-symmetric rig: every bone has a bone at its mirror image. */
static void test_mirror_symmetry(void **state) {
  (void)state;
  for (int style = 0; style < 2; style++) {
    tress_mesh *m = tress_sample_hair_create(style ? TRESS_SAMPLE_HAIR_LONG : TRESS_SAMPLE_HAIR_BOB);
    uint32_t n = m->vertex_count;
    tress_plan_opts o = sample_opts(m);
    float *v = malloc(24 * (size_t)n);
    memcpy(v, m->positions, 12 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
      v[3 * (n + i)] = 2.0f * o.root[0] - m->positions[3 * i];
      v[3 * (n + i) + 1] = m->positions[3 * i + 1];
      v[3 * (n + i) + 2] = m->positions[3 * i + 2];
    }
    for (uint32_t sectors = 2; sectors <= 5; sectors++) {
      o.sectors = sectors;
      tress_plan_result p;
      assert_int_equal(tress_plan_build(v, 2 * n, &o, &p), TRESS_PLAN_OK);
      assert_true(p.symmetric);
      assert_float_equal(fabsf(p.mirror_normal[0]), 1.0f, 1e-3f);
      for (uint32_t b = 1; b < p.bone_count; b++) {
        const float *q = p.bones[b].position;
        float best = INFINITY;
        for (uint32_t c = 1; c < p.bone_count; c++) {
          const float *r = p.bones[c].position;
          float dx = (2.0f * o.root[0] - q[0]) - r[0], dy = q[1] - r[1], dz = q[2] - r[2];
          float d = sqrtf(dx * dx + dy * dy + dz * dz);
          best = d < best ? d : best;
        }
        if (best > 2e-3f) fail_msg("%u sectors: %s has no mirror image (nearest %.4f)", sectors, p.bones[b].name, best);
      }
      tress_plan_result_free(&p);
    }
    free(v);
    tress_mesh_release(m);
  }
}

/* The samples' scalp cap (their first 9 x 25 vertices, the head sphere's shell) binds to HairRoot;
 * strand tips never do. Without scalp_to_root the cap is on chains as in the seed. */
static void test_scalp_on_hair_root(void **state) {
  (void)state;
  const uint32_t cap = 9 * 25;
  for (int style = 0; style < TRESS_SAMPLE_HAIR_STYLE_COUNT; style++) {
    tress_mesh *m = tress_sample_hair_create((tress_sample_hair_style)style);
    tress_plan_opts o = sample_opts(m);
    tress_plan_result p;
    assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
    assert_true(p.head_found);
    assert_float_equal(p.head_centre[1], 0.5f, 0.06f);
    assert_float_equal(p.head_radius, 0.63f, 0.04f);
    for (uint32_t v = 0; v < cap; v++) {
      if (p.joints[p.max_influences * v] != 0) fail_msg("%s: cap vertex %u is not on HairRoot", tress_sample_hair_style_name(style), v);
      assert_true(p.weights[p.max_influences * v] == 1.0f);
    }
    assert_true(p.scalp_vertex_count >= cap);
    /* The deepest vertex swings. */
    uint32_t deepest = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
      if (m->positions[3 * v + 1] < m->positions[3 * deepest + 1]) deepest = v;
    assert_int_not_equal(p.joints[p.max_influences * deepest], 0);
    tress_plan_result_free(&p);
    o.scalp_to_root = false;
    assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
    assert_int_equal(p.scalp_vertex_count, 0);
    uint32_t on_chains = 0;
    for (uint32_t v = 0; v < cap; v++) on_chains += p.joints[p.max_influences * v] != 0;
    assert_true(on_chains > cap / 2);
    tress_plan_result_free(&p);
    tress_mesh_release(m);
  }
}

static void assert_bones_in_bounds(const tress_plan_result *p, const float *v, uint32_t n, const char *what) {
  float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      mn[k] = fminf(mn[k], v[3 * i + k]);
      mx[k] = fmaxf(mx[k], v[3 * i + k]);
    }
  for (uint32_t b = 1; b < p->bone_count; b++) /* the chain bones: HairRoot is the caller's root */
    for (int k = 0; k < 3; k++) {
      float q = p->bones[b].position[k];
      if (q < mn[k] - 1e-5f || q > mx[k] + 1e-5f)
        fail_msg("%s: %s is outside the bounds on axis %d (%.4f not in [%.4f, %.4f])", what, p->bones[b].name, k, q, mn[k], mx[k]);
    }
}

/* No bone outside the vertices' bounds: samples at many sector x band counts (empty bands and
 * scalp-only sectors), and a one-sided cloud whose other sectors are empty. */
static void test_no_bone_outside_bounds(void **state) {
  (void)state;
  const uint32_t configs[][2] = {{3, 3}, {1, 8}, {8, 8}, {3, 12}, {16, 4}};
  for (int style = 0; style < TRESS_SAMPLE_HAIR_STYLE_COUNT; style++) {
    tress_mesh *m = tress_sample_hair_create((tress_sample_hair_style)style);
    for (size_t c = 0; c < 5; c++) {
      tress_plan_opts o = sample_opts(m);
      o.sectors = configs[c][0];
      o.segments = configs[c][1];
      tress_plan_result p;
      assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
      assert_bones_in_bounds(&p, m->positions, m->vertex_count, tress_sample_hair_style_name(style));
      tress_plan_result_free(&p);
    }
    tress_mesh_release(m);
  }
  float side[] = {1, -0.5f, 0, 1, -5.5f, 0, 1, -6, 0, 1.2f, -3, 0.1f};
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true; /* at the origin, off to the side of the hair */
  o.sectors = 3;
  o.segments = 6;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(side, 4, &o, &p), TRESS_PLAN_OK);
  assert_bones_in_bounds(&p, side, 4, "one-sided cloud");
  assert_true(p.warnings & TRESS_PLAN_WARN_EMPTY_SECTOR);
  tress_plan_result_free(&p);
}

/* The afro sample (a volume of curls) is reported as having no strand structure and gets fewer
 * bands; hair with strands is not. */
static void test_strandless_volume_warning(void **state) {
  (void)state;
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_AFRO);
  tress_plan_opts o = sample_opts(m);
  tress_plan_result p;
  assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
  assert_true(p.warnings & TRESS_PLAN_WARN_NO_STRANDS);
  assert_non_null(strstr(p.warning_text, "no strand structure"));
  assert_non_null(strstr(p.warning_text, "2 bands instead of 3"));
  assert_int_equal(p.segments, 2);
  assert_int_equal(p.segments_requested, 3);
  assert_int_equal(p.bone_count, 7);
  check_weights(&p, 2);
  tress_plan_result_free(&p);
  o.fewer_bands_for_volume = false;
  assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
  assert_true(p.warnings & TRESS_PLAN_WARN_NO_STRANDS);
  assert_int_equal(p.segments, 3);
  tress_plan_result_free(&p);
  tress_mesh_release(m);
  for (int style = 0; style < TRESS_SAMPLE_HAIR_AFRO; style++) {
    m = tress_sample_hair_create((tress_sample_hair_style)style);
    o = sample_opts(m);
    assert_int_equal(tress_plan_build(m->positions, m->vertex_count, &o, &p), TRESS_PLAN_OK);
    if (p.warnings & TRESS_PLAN_WARN_NO_STRANDS) fail_msg("%s: %s", tress_sample_hair_style_name(style), p.warning_text);
    assert_int_equal(p.segments, 3);
    tress_plan_result_free(&p);
    tress_mesh_release(m);
  }
}

/* Three locks (at 0, 120 and 240 degrees around a down axis), each 16 strands of 24 points
 * around a centre line that leaves the head, then curves sideways as it falls. */
static void lock_centre(int lock, float t, float out[3]) {
  float a = 2.0943951f * (float)lock, side = 0.35f * sinf(2.5f * t);
  float r = 0.6f + 0.3f * t;
  out[0] = cosf(a) * r - sinf(a) * side;
  out[1] = -2.0f * t;
  out[2] = sinf(a) * r + cosf(a) * side;
}

static void test_strand_mode_three_curved_locks(void **state) {
  (void)state;
  enum { LOCKS = 3, STRANDS = 16, POINTS = 24 };
  float *v = malloc(sizeof(float) * 3 * LOCKS * STRANDS * POINTS);
  uint32_t n = 0, x = 99;
  for (int lock = 0; lock < LOCKS; lock++)
    for (int s = 0; s < STRANDS; s++) {
      x = x * 1664525u + 1013904223u;
      float ox = ((float)(x >> 8) / 16777216.0f - 0.5f) * 0.08f;
      x = x * 1664525u + 1013904223u;
      float oz = ((float)(x >> 8) / 16777216.0f - 0.5f) * 0.08f;
      for (int k = 0; k < POINTS; k++) {
        float c[3];
        lock_centre(lock, 0.02f + (float)k / (float)(POINTS - 1), c);
        v[3 * n] = c[0] + ox; v[3 * n + 1] = c[1]; v[3 * n + 2] = c[2] + oz;
        n++;
      }
    }
  tress_plan_opts o = tress_default_plan_opts();
  o.has_root = true;
  o.mode = TRESS_PLAN_MODE_STRANDS;
  o.segments = 4;
  tress_plan_result p;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.sectors, 3);
  assert_int_equal(p.bone_count, 1 + 3 * 4);
  assert_false(p.warnings & TRESS_PLAN_WARN_NO_GROUPS);
  check_weights(&p, 2);
  /* Every chain follows one lock: each bone within 0.08 of that lock's centre line (the strands
   * spread 0.04 around it), and the three chains on three different locks. */
  bool taken[LOCKS] = {false};
  for (uint32_t g = 0; g < 3; g++) {
    int lock_of_chain = -1;
    for (uint32_t b = 0; b < 4; b++) {
      const float *q = p.bones[1 + g * 4 + b].position;
      int nearest = -1;
      float best = INFINITY;
      for (int lock = 0; lock < LOCKS; lock++)
        for (int k = 0; k <= 200; k++) {
          float c[3];
          lock_centre(lock, 0.02f + (float)k / 200.0f, c);
          float d = sqrtf((q[0] - c[0]) * (q[0] - c[0]) + (q[1] - c[1]) * (q[1] - c[1]) + (q[2] - c[2]) * (q[2] - c[2]));
          if (d < best) { best = d; nearest = lock; }
        }
      if (best > 0.08f) fail_msg("%s is %.3f from every lock", p.bones[1 + g * 4 + b].name, best);
      if (b == 0) lock_of_chain = nearest;
      assert_int_equal(nearest, lock_of_chain);
    }
    assert_false(taken[lock_of_chain]);
    taken[lock_of_chain] = true;
    /* Bones by arc length go down the lock in order, evenly spaced along it (depth bands would
     * space them unevenly: the lock runs more sideways near the top). */
    float gaps[3];
    for (uint32_t b = 1; b < 4; b++) {
      const float *q = p.bones[1 + g * 4 + b].position, *r = p.bones[g * 4 + b].position;
      assert_true(q[1] < r[1]);
      gaps[b - 1] = sqrtf((q[0] - r[0]) * (q[0] - r[0]) + (q[1] - r[1]) * (q[1] - r[1]) + (q[2] - r[2]) * (q[2] - r[2]));
    }
    for (int k = 1; k < 3; k++) assert_float_equal(gaps[k], gaps[0], 0.04f * gaps[0]);
  }
  /* Each lock's vertices are on one chain. */
  for (uint32_t i = 0; i < n; i++) {
    int lock = (int)(i / (STRANDS * POINTS)), chain = dominant_chain(&p, i);
    assert_true(chain >= 0);
    assert_int_equal(chain, dominant_chain(&p, (uint32_t)lock * STRANDS * POINTS));
  }
  tress_plan_result_free(&p);
  /* The cap holds: at most two chains. */
  o.max_chains = 2;
  assert_int_equal(tress_plan_build(v, n, &o, &p), TRESS_PLAN_OK);
  assert_int_equal(p.sectors, 2);
  tress_plan_result_free(&p);
  /* A ring of hair with no gap has no groups: a warning and the seed's sectors. */
  tress_mesh *bob = tress_sample_hair_create(TRESS_SAMPLE_HAIR_AFRO);
  o = sample_opts(bob);
  o.mode = TRESS_PLAN_MODE_STRANDS;
  assert_int_equal(tress_plan_build(bob->positions, bob->vertex_count, &o, &p), TRESS_PLAN_OK);
  assert_true(p.warnings & TRESS_PLAN_WARN_NO_GROUPS);
  assert_int_equal(p.sectors, 3);
  tress_plan_result_free(&p);
  tress_mesh_release(bob);
  free(v);
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
    cmocka_unit_test(test_rotation_invariance),
    cmocka_unit_test(test_mirror_symmetry),
    cmocka_unit_test(test_scalp_on_hair_root),
    cmocka_unit_test(test_no_bone_outside_bounds),
    cmocka_unit_test(test_strandless_volume_warning),
    cmocka_unit_test(test_strand_mode_three_curved_locks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
