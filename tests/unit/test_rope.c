/* test_rope.c - ropes in the sim: catenary, hanging chain, frame-rate and LOD invariance, swept
 * collision on a thin slab, cutting without allocation, pins, part output and bad input.
 * White-box (particles.h): it checks which internal path (grouped lanes or not) a rope runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "particles.h" /* tress__particles_of: which path a rope runs */
#include "tress/rope.h"
#include "support/alloc_count.h"
#include "support/rope_world.h"
#include "support/scene_build.h"

#define SEGMENTS 20
#define NPTS (SEGMENTS + 1)

static tress_rope_def catenary_def(void) {
  tress_rope_def d = tress_default_rope_def();
  d.segments = SEGMENTS;
  d.length = 20.0f;
  d.start = (tress_rope_pin){.pinned = true, .position = {0, 0, 0}};
  d.end = (tress_rope_pin){.pinned = true, .position = {16, 0, 0}};
  return d;
}

static void run(rope_world *w, double host_hz, double seconds) {
  long frames = lround(seconds * host_hz);
  for (long i = 0; i < frames; i++) assert_int_equal(tress_sim_step(w->sim, 1.0 / host_hz), TRESS_OK);
}

static void points(rope_world *w, tress_handle_id h, float *xyz, uint32_t expect) {
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(w->sim, h, xyz, expect, &count), TRESS_OK);
  assert_int_equal(count, expect);
}

static float max_strain(const float *p, uint32_t npts, float seg) {
  float worst = 0.0f;
  for (uint32_t i = 0; i + 1 < npts; i++) {
    float dx = p[3 * i + 3] - p[3 * i], dy = p[3 * i + 4] - p[3 * i + 1], dz = p[3 * i + 5] - p[3 * i + 2];
    float e = fabsf(sqrtf(dx * dx + dy * dy + dz * dz) - seg) / seg;
    if (e > worst) worst = e;
  }
  return worst;
}

static bool all_finite(const float *p, uint32_t n) {
  for (uint32_t i = 0; i < 3 * n; i++)
    if (!isfinite(p[i])) return false;
  return true;
}

/* Solve L = 2a sinh(D / 2a) for a by bisection; sag = a (cosh(D / 2a) - 1). */
static double catenary_sag(double length, double span) {
  double lo = 0.01, hi = 1000.0;
  for (int i = 0; i < 200; i++) {
    double a = 0.5 * (lo + hi);
    double l = 2.0 * a * sinh(span / (2.0 * a));
    if (l > length) lo = a; /* too short a: too long a curve */
    else hi = a;
  }
  double a = 0.5 * (lo + hi);
  return a * (cosh(span / (2.0 * a)) - 1.0);
}

static float mid_sag(rope_world *w, tress_handle_id h) {
  float p[3 * NPTS];
  points(w, h, p, NPTS);
  return -p[3 * (SEGMENTS / 2) + 1];
}

static void test_catenary_settles(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_rope_def d = catenary_def();
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 60.0, 10.0);
  float p[3 * NPTS], q[3 * NPTS];
  points(&w, h, p, NPTS);
  assert_true(all_finite(p, NPTS));
  float strain = max_strain(p, NPTS, 1.0f);
  double analytic = catenary_sag(20.0, 16.0);
  assert_true(fabs(analytic - 5.309) < 0.01);
  float sag = mid_sag(&w, h);
  print_message("catenary: strain %.4f%% sag %.4f analytic %.4f (%+.2f%%)\n", strain * 100.0f, sag, analytic,
                (sag / analytic - 1.0) * 100.0);
  assert_true(strain <= 0.01f);
  assert_true(sag >= analytic && sag <= analytic * 1.03);
  /* Rest jitter: the largest move of any point over one step, for a second. */
  float jitter = 0.0f;
  for (int s = 0; s < 60; s++) {
    points(&w, h, p, NPTS);
    tress_sim_step(w.sim, 1.0 / 60.0);
    points(&w, h, q, NPTS);
    for (int i = 0; i < 3 * NPTS; i++) jitter = fmaxf(jitter, fabsf(q[i] - p[i]));
  }
  print_message("catenary: rest jitter %.2e per step\n", jitter);
  assert_true(jitter <= 1e-4f);
  rope_world_free(&w);
}

static void test_hanging_chain_strain(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_rope_def d = tress_default_rope_def();
  d.start = (tress_rope_pin){.pinned = true, .position = {0, 0, 0}};
  /* Laid out horizontally so it swings down and has to hold the whole fall. */
  d.end = (tress_rope_pin){.pinned = false, .position = {20, 0, 0}};
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  float p[3 * NPTS], worst = 0.0f;
  for (int s = 0; s < 600; s++) {
    tress_sim_step(w.sim, 1.0 / 60.0);
    points(&w, h, p, NPTS);
    if (s >= 300) worst = fmaxf(worst, max_strain(p, NPTS, 1.0f));
  }
  print_message("hanging chain: max strain %.4f%%, tip y %.3f\n", worst * 100.0f, p[3 * SEGMENTS + 1]);
  assert_true(worst <= 0.01f);
  assert_true(p[3 * SEGMENTS + 1] < -19.5f && p[3 * SEGMENTS + 1] > -20.3f);
  rope_world_free(&w);
}

static float settled_sag_at(double host_hz) {
  rope_world w = rope_world_make();
  tress_rope_def d = catenary_def();
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, host_hz, 10.0);
  float sag = mid_sag(&w, h);
  rope_world_free(&w);
  return sag;
}

static void test_frame_rate_invariance(void **state) {
  (void)state;
  float s30 = settled_sag_at(30.0), s60 = settled_sag_at(60.0), s144 = settled_sag_at(144.0);
  print_message("sag at 30/60/144 Hz: %.5f %.5f %.5f\n", s30, s60, s144);
  assert_true(fabsf(s30 - s60) <= 0.001f * s60);
  assert_true(fabsf(s144 - s60) <= 0.001f * s60);
}

static void test_lod_switch_keeps_sag(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_rope_def d = catenary_def();
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  float near[3] = {8, 0, 10}, far[3] = {8, 0, 300}, farther[3] = {8, 0, 1000};
  tress_sim_set_camera(w.sim, near);
  run(&w, 60.0, 10.0);
  assert_int_equal(tress_rope_get_lod(w.sim, h), TRESS_ROPE_FULL);
  float full = mid_sag(&w, h);
  tress_sim_set_camera(w.sim, far);
  /* Across the switch and after: the sag never pops more than 2%. */
  uint32_t ticks = 0;
  float worst = 0.0f;
  for (int s = 0; s < 600; s++) {
    tress_sim_step(w.sim, 1.0 / 60.0);
    ticks += tress_sim_get_stats(w.sim).simulated;
    worst = fmaxf(worst, fabsf(mid_sag(&w, h) - full) / full);
  }
  assert_int_equal(tress_rope_get_lod(w.sim, h), TRESS_ROPE_REDUCED);
  print_message("LOD: full sag %.5f, reduced %.5f, worst %.3f%%, %u ticks in 600 steps\n", full, mid_sag(&w, h),
                worst * 100.0f, ticks);
  assert_true(worst <= 0.02f);
  assert_int_equal(ticks, 150); /* 15 Hz */
  /* Farther still it freezes: nothing moves, nothing is simulated. */
  tress_sim_set_camera(w.sim, farther);
  tress_sim_step(w.sim, 1.0 / 60.0);
  float a[3 * NPTS], b[3 * NPTS];
  points(&w, h, a, NPTS);
  run(&w, 60.0, 0.5);
  points(&w, h, b, NPTS);
  assert_int_equal(tress_rope_get_lod(w.sim, h), TRESS_ROPE_FROZEN);
  assert_int_equal(tress_sim_get_stats(w.sim).simulated, 0);
  assert_memory_equal(a, b, sizeof a);
  /* Back near: full rate again. */
  tress_sim_set_camera(w.sim, near);
  run(&w, 60.0, 2.0);
  assert_int_equal(tress_rope_get_lod(w.sim, h), TRESS_ROPE_FULL);
  assert_true(fabsf(mid_sag(&w, h) - full) <= 0.02f * full);
  rope_world_free(&w);
}

/* A 0.05-thick slab, top at y = 0, x in [-5, 25], z in [-5, 5]: segment vs box (slabs method). */
typedef struct slab {
  float lo[3], hi[3];
  long casts;
} slab;

static bool slab_raycast(void *user, const float from[3], const float to[3], float hit[3], float normal[3]) {
  slab *s = user;
  s->casts++;
  float t0 = 0.0f, t1 = 1.0f;
  int axis = -1;
  float sign = 0.0f;
  for (int k = 0; k < 3; k++) {
    float d = to[k] - from[k];
    if (fabsf(d) < 1e-12f) {
      if (from[k] < s->lo[k] || from[k] > s->hi[k]) return false;
      continue;
    }
    float ta = (s->lo[k] - from[k]) / d, tb = (s->hi[k] - from[k]) / d;
    float sg = -1.0f;
    if (ta > tb) {
      float t = ta;
      ta = tb;
      tb = t;
      sg = 1.0f;
    }
    if (ta > t0) {
      t0 = ta;
      axis = k;
      sign = sg;
    }
    if (tb < t1) t1 = tb;
    if (t0 > t1) return false;
  }
  for (int k = 0; k < 3; k++) {
    hit[k] = from[k] + (to[k] - from[k]) * t0;
    normal[k] = 0.0f;
  }
  if (axis < 0) { /* started inside: out through the top */
    hit[1] = s->hi[1];
    normal[1] = 1.0f;
  } else {
    normal[axis] = sign;
  }
  return true;
}

static void test_rope_rests_on_thin_slab(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  slab s = {{-5, -0.05f, -5}, {25, 0, 5}, 0};
  tress_rope_def d = tress_default_rope_def();
  d.start = (tress_rope_pin){.pinned = false, .position = {0, 10, 0}};
  d.end = (tress_rope_pin){.pinned = false, .position = {20, 10, 0}};
  d.settings.raycast = slab_raycast;
  d.settings.raycast_user = &s;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  float p[3 * NPTS], lowest = 1e9f;
  for (int step = 0; step < 300; step++) {
    tress_sim_step(w.sim, 1.0 / 60.0);
    points(&w, h, p, NPTS);
    for (int i = 0; i < NPTS; i++) lowest = fminf(lowest, p[3 * i + 1]);
  }
  print_message("slab: lowest y %.5f over 5 s, %ld raycasts\n", lowest, s.casts);
  assert_true(lowest >= 0.0f);
  for (int i = 0; i < NPTS; i++) assert_true(p[3 * i + 1] < 0.05f); /* resting on it, not floating */
  assert_null(tress_rope_get_fault(w.sim, h));
  rope_world_free(&w);
}

static void test_cut_settled_catenary(void **state) {
  (void)state;
  alloc_count_install();
  /* The hook must see allocations, or a zero below proves nothing. */
  void *(*volatile allocate)(size_t) = malloc; /* not elided by the compiler */
  alloc_count_start();
  void *probe = allocate(64);
  assert_true(alloc_count_stop() >= 1);
  free(probe);

  rope_world w = rope_world_make();
  tress_rope_def d = catenary_def();
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 60.0, 10.0);
  assert_int_equal(tress_rope_get_constraint_count(w.sim, h), 20);
  assert_int_equal(tress_rope_cut(w.sim, h, 10), TRESS_OK);
  assert_int_equal(tress_rope_get_constraint_count(w.sim, h), 19);
  assert_int_equal(tress_rope_cut(w.sim, h, 10), TRESS_ERR_INVALID_ARGUMENT); /* already cut */
  assert_int_equal(tress_rope_cut(w.sim, h, 20), TRESS_ERR_INVALID_ARGUMENT); /* out of range */
  alloc_count_start();
  run(&w, 60.0, 10.0);
  long allocs = alloc_count_stop();
  float p[3 * NPTS];
  points(&w, h, p, NPTS);
  assert_true(all_finite(p, NPTS));
  print_message("cut: tips (%.3f, %.3f) and (%.3f, %.3f), %ld allocations in 600 steps\n", p[30], p[31], p[33], p[34],
                allocs);
  assert_true(fabsf(p[3 * 10]) <= 0.2f && fabsf(p[3 * 10 + 1] + 10.0f) <= 0.2f);
  assert_true(fabsf(p[3 * 11] - 16.0f) <= 0.2f && fabsf(p[3 * 11 + 1] + 9.0f) <= 0.2f);
  assert_int_equal(allocs, 0);
  rope_world_free(&w);
}

static void test_stats_count_rope_steps(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_rope_def d = catenary_def();
  tress_handle_id a, b;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &a, NULL), TRESS_OK);
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &b, NULL), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 2);
  tress_sim_step(w.sim, 1.0 / 60.0);
  assert_int_equal(tress_sim_get_stats(w.sim).simulated, 2);
  tress_sim_step(w.sim, 2.0 / 60.0); /* two fixed steps each */
  assert_int_equal(tress_sim_get_stats(w.sim).simulated, 4);
  tress_handle_destroy(w.sim, a);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 1);
  rope_world_free(&w);
}

static tress_id make_part(tress_scene *scene, float x, float y, float z) {
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Post", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, part, tress_xform_from_pos(x, y, z));
  return part;
}

static void test_pins_follow_parts_and_write_parts(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_id left = make_part(w.scene, 0, 0, 0), right = make_part(w.scene, 16, 0, 0);
  tress_id links[SEGMENTS];
  for (int i = 0; i < SEGMENTS; i++) links[i] = make_part(w.scene, 0, 0, 0);
  tress_rope_def d = catenary_def();
  d.start = (tress_rope_pin){.pinned = true, .instance = left, .position = {0, -1, 0}};
  d.end = (tress_rope_pin){.pinned = true, .instance = right, .position = {0, -1, 0}};
  d.output_parts = links;
  d.output_part_count = SEGMENTS;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 60.0, 2.0);
  tress_part_set_cframe(w.scene, right, tress_xform_from_pos(16, 4, 3));
  run(&w, 60.0, 1.0);
  float p[3 * NPTS];
  points(&w, h, p, NPTS);
  assert_float_equal(p[0], 0.0f, 1e-5f);
  assert_float_equal(p[1], -1.0f, 1e-5f);
  assert_float_equal(p[3 * SEGMENTS], 16.0f, 1e-5f);
  assert_float_equal(p[3 * SEGMENTS + 1], 3.0f, 1e-5f);
  assert_float_equal(p[3 * SEGMENTS + 2], 3.0f, 1e-5f);
  for (int s = 0; s < SEGMENTS; s++) {
    tress_xform t = tress_part_get_cframe(w.scene, links[s]);
    for (int k = 0; k < 3; k++) assert_float_equal(t.p[k], 0.5f * (p[3 * s + k] + p[3 * s + 3 + k]), 1e-4f);
    float up[3] = {0, 1, 0}, axis[3];
    tress_quat_rotate(t.q, up, axis);
    float d3[3] = {p[3 * s + 3] - p[3 * s], p[3 * s + 4] - p[3 * s + 1], p[3 * s + 5] - p[3 * s + 2]};
    float len = sqrtf(d3[0] * d3[0] + d3[1] * d3[1] + d3[2] * d3[2]);
    for (int k = 0; k < 3; k++) assert_float_equal(axis[k], d3[k] / len, 1e-3f);
  }
  rope_world_free(&w);
}

static void test_bad_input(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_handle_id h;
  tress_error err;
  tress_rope_def d = catenary_def();
  d.segments = 0;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_true(tress_handle_is_null(h));
  assert_int_equal(err.code, TRESS_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "segment"));
  float lengths[] = {0.0f, -3.0f, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    d = catenary_def();
    d.length = lengths[i];
    assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, &err), TRESS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "length"));
  }
  d = catenary_def();
  d.end.position[1] = NAN;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, &err), TRESS_ERR_INVALID_ARGUMENT);
  tress_id gone = make_part(w.scene, 0, 0, 0);
  tress_instance_destroy(w.scene, gone);
  d = catenary_def();
  d.start.instance = gone;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "stale"));
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 0);
  assert_int_equal(tress_sim_bind_rope(w.sim, NULL, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  /* NULL err is fine on a refusal; a good bind empties err. */
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  d = catenary_def();
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, &err), TRESS_OK);
  assert_int_equal(err.code, TRESS_OK);
  assert_string_equal(err.message, "");
  rope_world_free(&w);
}

/* Decision: a rope or cloth handle destroys itself when an instance it is pinned to goes,
 * whichever end it is (the sim does this for every handle's root). */
static void test_pins_destroyed_while_bound(void **state) {
  (void)state;
  for (int which = 0; which < 2; which++) {
    rope_world w = rope_world_make();
    tress_id left = make_part(w.scene, 0, 0, 0), right = make_part(w.scene, 16, 0, 0);
    tress_rope_def d = catenary_def();
    d.start = (tress_rope_pin){.pinned = true, .instance = left};
    d.end = (tress_rope_pin){.pinned = true, .instance = right};
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
    run(&w, 60.0, 0.5);
    tress_instance_destroy(w.scene, which ? right : left);
    assert_false(tress_handle_is_valid(w.sim, h));
    assert_int_equal(tress_sim_get_stats(w.sim).bound, 0);
    float p[3];
    uint32_t count = 7;
    assert_int_equal(tress_rope_get_points(w.sim, h, p, 1, &count), TRESS_ERR_STALE_ID);
    assert_int_equal(count, 0);
    assert_int_equal(tress_rope_cut(w.sim, h, 3), TRESS_ERR_STALE_ID);
    run(&w, 60.0, 0.5); /* stepping afterwards is fine */
    tress_instance_destroy(w.scene, which ? left : right);
    rope_world_free(&w);
  }
}

static bool nan_raycast(void *user, const float from[3], const float to[3], float hit[3], float normal[3]) {
  (void)from;
  (void)to;
  int *calls = user;
  ++*calls;
  hit[0] = hit[1] = hit[2] = NAN;
  normal[0] = 0.0f;
  normal[1] = 1.0f;
  normal[2] = 0.0f;
  return true;
}

static void test_raycast_returning_nan_stops_collision(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  int calls = 0;
  tress_rope_def d = catenary_def();
  d.settings.raycast = nan_raycast;
  d.settings.raycast_user = &calls;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 60.0, 10.0);
  float p[3 * NPTS];
  points(&w, h, p, NPTS);
  assert_true(all_finite(p, NPTS));
  assert_int_equal(calls, 1); /* the first bad answer turns collision off for the handle */
  const char *fault = tress_rope_get_fault(w.sim, h);
  assert_non_null(fault);
  assert_non_null(strstr(fault, "raycast"));
  /* The rope keeps simulating without collision: it still settles into the catenary. */
  assert_true(fabsf(mid_sag(&w, h) - (float)catenary_sag(20.0, 16.0)) < 0.2f);
  rope_world_free(&w);
}

/* Never hits: a rope with a raycast callback runs the per-rope path, and a collision that never
 * hits changes nothing, so these ropes are the reference for the interleaved path. */
static bool never_hits(void *user, const float from[3], const float to[3], float hit[3], float normal[3]) {
  (void)from;
  (void)to;
  (void)hit;
  (void)normal;
  ++*(long *)user;
  return false;
}

#define MIX 14

/* Ropes of two lengths, both relaxations, one or two pins, a pin on a moving part, different
 * damping, gravity scale and tethers, spread along z so the camera puts some at 15 Hz LOD. */
static void bind_rope_mix(rope_world *w, tress_id post, tress_handle_id *h, long *casts, bool grouped) {
  for (int r = 0; r < MIX; r++) {
    tress_rope_def d = catenary_def();
    d.start.position[2] = d.end.position[2] = (float)(r * 40);
    switch (r % 5) {
    case 1: d.end.pinned = false; break;
    case 2: d.end = (tress_rope_pin){.pinned = true, .instance = post}; break;
    case 3:
      d.settings.damping = 0.95f;
      d.settings.gravity_scale = 0.5f;
      d.settings.tethers = false;
      break;
    case 4: d.start.pinned = false; break;
    }
    if (r == 6 || r == 7) d.settings.relax = TRESS_RELAX_GAUSS_SEIDEL;
    if (r == 8 || r == 9) d.segments = 12;
    if (casts) {
      d.settings.raycast = never_hits;
      d.settings.raycast_user = casts;
    }
    assert_int_equal(tress_sim_bind_rope(w->sim, &d, &h[r], NULL), TRESS_OK);
    assert_int_equal(tress__particles_of(w->sim, h[r])->group != NULL, grouped);
  }
}

static void run_rope_mix(rope_world *w, tress_id post, tress_handle_id *h) {
  float near[3] = {8, 0, 0}, far[3] = {8, 0, 2000};
  tress_sim_set_camera(w->sim, near);
  run(w, 60.0, 1.0);
  tress_part_set_cframe(w->scene, post, tress_xform_from_pos(14, 3, 2));
  assert_int_equal(tress_rope_cut(w->sim, h[0], 5), TRESS_OK);
  assert_int_equal(tress_rope_cut(w->sim, h[6], 3), TRESS_OK);
  assert_int_equal(tress_rope_cut(w->sim, h[8], 11), TRESS_OK);
  run(w, 144.0, 1.0);
  tress_sim_set_camera(w->sim, far); /* all frozen, then back: LOD switches inside groups */
  run(w, 60.0, 0.25);
  float middle[3] = {8, 0, 280}; /* the near ropes tick at 15 Hz, then full rate again */
  tress_sim_set_camera(w->sim, middle);
  run(w, 60.0, 1.0);
  tress_sim_set_camera(w->sim, near);
  run(w, 30.0, 2.0);
}

/* The reference is reached two ways: ropes with a raycast callback (b), and the sim def's
 * reference_particle_paths (c), which keeps every rope out of the lane groups. */
static void test_interleaved_ropes_match_per_rope_path(void **state) {
  (void)state;
  rope_world a = rope_world_make(), b = rope_world_make(), c = rope_world_make_paths(true);
  tress_id post_a = make_part(a.scene, 16, 0, 0), post_b = make_part(b.scene, 16, 0, 0);
  tress_id post_c = make_part(c.scene, 16, 0, 0);
  tress_handle_id ha[MIX], hb[MIX], hc[MIX];
  long casts = 0;
  bind_rope_mix(&a, post_a, ha, NULL, true);
  bind_rope_mix(&b, post_b, hb, &casts, false);
  bind_rope_mix(&c, post_c, hc, NULL, false);
  run_rope_mix(&a, post_a, ha);
  run_rope_mix(&b, post_b, hb);
  run_rope_mix(&c, post_c, hc);
  assert_true(casts > 0);
  int reduced = 0;
  for (int r = 0; r < MIX; r++) {
    float pa[3 * NPTS], pb[3 * NPTS], pc[3 * NPTS];
    uint32_t ca = 0, cb = 0, cc = 0;
    assert_int_equal(tress_rope_get_points(a.sim, ha[r], pa, NPTS, &ca), TRESS_OK);
    assert_int_equal(tress_rope_get_points(b.sim, hb[r], pb, NPTS, &cb), TRESS_OK);
    assert_int_equal(tress_rope_get_points(c.sim, hc[r], pc, NPTS, &cc), TRESS_OK);
    assert_int_equal(ca, cb);
    assert_int_equal(ca, cc);
    assert_true(all_finite(pa, ca));
    assert_memory_equal(pa, pb, 3 * ca * sizeof(float));
    assert_memory_equal(pa, pc, 3 * ca * sizeof(float));
    reduced += tress_rope_get_lod(a.sim, ha[r]) == TRESS_ROPE_REDUCED;
  }
  assert_true(reduced > 0 && reduced < MIX); /* some lanes ran 15 Hz ticks while others ran full */
  rope_world_free(&a);
  rope_world_free(&b);
  rope_world_free(&c);
}

/* A game-marked teleport (tress_sim_reset's writer part) moves a settled rope with its pin, at
 * rest: one frame later it hangs exactly as before, shifted. Unmarked, a 20-unit jump swings it. */
static void test_reset_moves_the_rope_with_its_pin(void **state) {
  (void)state;
  for (int marked = 0; marked < 2; marked++) {
    rope_world w = rope_world_make();
    tress_id post = th_instance(w.scene, TRESS_KIND_PART, "Post", tress_scene_get_root(w.scene));
    tress_part_set_cframe(w.scene, post, tress_xform_from_pos(0, 30, 0));
    tress_rope_def d = tress_default_rope_def();
    d.segments = SEGMENTS;
    d.length = 10.0f;
    d.start = (tress_rope_pin){.pinned = true, .instance = post, .position = {0, 0, 0}};
    d.end = (tress_rope_pin){.pinned = false};
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
    run(&w, 60, 4.0);
    float before[3 * NPTS], after[3 * NPTS];
    points(&w, h, before, NPTS);
    tress_part_set_cframe(w.scene, post, tress_xform_from_pos(20, 30, 0));
    if (marked) tress_sim_reset(w.sim, post);
    assert_int_equal(tress_sim_step(w.sim, 1.0 / 60), TRESS_OK);
    points(&w, h, after, NPTS);
    float worst = 0;
    for (uint32_t i = 0; i < NPTS; i++) {
      float dx = after[3 * i] - (before[3 * i] + 20), dy = after[3 * i + 1] - before[3 * i + 1];
      float dz = after[3 * i + 2] - before[3 * i + 2];
      float e = sqrtf(dx * dx + dy * dy + dz * dz);
      if (e > worst) worst = e;
    }
    printf("rope reset %s: worst offset from the shifted rope %.4f units\n", marked ? "marked" : "unmarked", worst);
    if (marked) assert_true(worst < 0.05f);
    else assert_true(worst > 1.0f);
    rope_world_free(&w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_catenary_settles),
      cmocka_unit_test(test_hanging_chain_strain),
      cmocka_unit_test(test_frame_rate_invariance),
      cmocka_unit_test(test_lod_switch_keeps_sag),
      cmocka_unit_test(test_rope_rests_on_thin_slab),
      cmocka_unit_test(test_cut_settled_catenary),
      cmocka_unit_test(test_stats_count_rope_steps),
      cmocka_unit_test(test_pins_follow_parts_and_write_parts),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_pins_destroyed_while_bound),
      cmocka_unit_test(test_raycast_returning_nan_stops_collision),
      cmocka_unit_test(test_interleaved_ropes_match_per_rope_path),
      cmocka_unit_test(test_reset_moves_the_rope_with_its_pin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
