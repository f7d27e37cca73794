/* test_rope_frame_rate.c - ropes and cloth on moving parts take the same fixed steps whatever the
 * host's frame rate, including frames that hold two or more fixed steps (30 fps on a 60 Hz sim).
 * White-box (particles.h): it checks which path (lane group or per-rope) each rope runs.
 *
 * The scene is tests/integration/test_client_attachments.c's without the network: a body part
 * walking at constant velocity (x = 3t, z = t) carries two hand parts, a jump rope pinned to both
 * hands, a rope hanging from one hand and a cloth sheet pinned along its top edge to the body.
 * Each host frame places the parts at the frame's end time, then steps. Two ropes or more share a
 * lane group (rope_lanes.c); a lone rope takes the per-rope path (relax.c); both are covered. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "particles.h" /* which path a rope runs: grouped lanes or not */
#include "tress/rope.h"
#include "support/rope_world.h"
#include "support/scene_build.h"

#define SEGMENTS 16
#define NPTS (SEGMENTS + 1)
#define CLOTH_W 8
#define CLOTH_H 6
#define CLOTH_N (CLOTH_W * CLOTH_H)
#define SECONDS 2.0
/* Ropes: what bone chains agree to at 30 vs 240 fps. Cloth: its floor from rounding alone - a
 * sheet walked twice at 60 fps, once with the body's x one float step (ulp) off, ends 6e-4 apart -
 * so it cannot agree closer across rates whose pin lerps round differently. */
#define ROPE_TOLERANCE 1e-4f
#define CLOTH_TOLERANCE 1e-3f

typedef struct walker {
  rope_world w;
  tress_id body, left, right;
  tress_handle_id jump, hang, solo, cloth;
} walker;

typedef enum { SCENE_GROUPED, SCENE_SOLO, SCENE_CLOTH } scene_kind;

static tress_id make_part(tress_scene *scene, const char *name) {
  tress_id created = th_instance(scene, TRESS_KIND_PART, name, tress_scene_get_root(scene));
  return created;
}

/* The parts at time t: the body at (3t, 10, t), the hands rigidly offset from it. */
static void place(walker *k, double t) {
  float x = (float)(3.0 * t), z = (float)t;
  tress_part_set_cframe(k->w.scene, k->body, tress_xform_from_pos(x, 10.0f, z));
  tress_part_set_cframe(k->w.scene, k->left, tress_xform_from_pos(x - 4.0f, 12.0f, z));
  tress_part_set_cframe(k->w.scene, k->right, tress_xform_from_pos(x + 4.0f, 12.0f, z));
}

static tress_rope_def rope_between(tress_id a, tress_id b, float length) {
  tress_rope_def d = tress_default_rope_def();
  d.segments = SEGMENTS;
  d.length = length;
  d.start = (tress_rope_pin){.pinned = true, .instance = a};
  d.end = (tress_rope_pin){.pinned = b.index1 != 0, .instance = b};
  return d;
}

static walker walker_make(scene_kind kind) {
  walker k = {0};
  k.w = rope_world_make();
  k.body = make_part(k.w.scene, "Body");
  k.left = make_part(k.w.scene, "LeftHand");
  k.right = make_part(k.w.scene, "RightHand");
  place(&k, 0.0);
  if (kind == SCENE_GROUPED) {
    tress_rope_def jump = rope_between(k.left, k.right, 12.0f);
    tress_rope_def hang = rope_between(k.right, (tress_id){0}, 6.0f);
    assert_int_equal(tress_sim_bind_rope(k.w.sim, &jump, &k.jump, NULL), TRESS_OK);
    assert_int_equal(tress_sim_bind_rope(k.w.sim, &hang, &k.hang, NULL), TRESS_OK);
    assert_non_null(tress__particles_of(k.w.sim, k.jump)->group);
    assert_int_equal(tress__particles_of(k.w.sim, k.jump)->group->used, 2);
  } else if (kind == SCENE_SOLO) {
    tress_rope_def jump = rope_between(k.left, k.right, 12.0f);
    assert_int_equal(tress_sim_bind_rope(k.w.sim, &jump, &k.solo, NULL), TRESS_OK);
    const tress_particles *ps = tress__particles_of(k.w.sim, k.solo);
    assert_true(!ps->group || ps->group->used < ROPE_GROUP_MIN_USED);
  } else {
    tress_cloth_def d = tress_default_cloth_def();
    d.width = CLOTH_W;
    d.height = CLOTH_H;
    d.origin[0] = -3.5f;
    d.origin[1] = 11.0f;
    tress_cloth_pin pins[CLOTH_W];
    for (uint32_t i = 0; i < CLOTH_W; i++) pins[i] = (tress_cloth_pin){i, k.body};
    d.pins = pins;
    d.pin_count = CLOTH_W;
    assert_int_equal(tress_sim_bind_cloth(k.w.sim, &d, &k.cloth, NULL), TRESS_OK);
  }
  return k;
}

/* SECONDS of host frames at host_hz; frame i places the parts at its end time (i + 1) / host_hz. */
static void walk(walker *k, int host_hz) {
  long frames = lround(SECONDS * host_hz);
  for (long i = 0; i < frames; i++) {
    place(k, (double)(i + 1) / host_hz);
    assert_int_equal(tress_sim_step(k->w.sim, 1.0 / host_hz), TRESS_OK);
  }
}

static void read_points(walker *k, tress_handle_id h, float *xyz, uint32_t n) {
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(k->w.sim, h, xyz, n, &count), TRESS_OK);
  assert_int_equal(count, n);
}

static float max_gap(const float *a, const float *b, uint32_t n) {
  float worst = 0.0f;
  for (uint32_t i = 0; i < n; i++) {
    float dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1], dz = a[3 * i + 2] - b[3 * i + 2];
    float d = sqrtf(dx * dx + dy * dy + dz * dz);
    if (d > worst) worst = d;
  }
  return worst;
}

/* The largest distance between matching points of the scene's handles after walks at hz_a and hz_b. */
static float gap_between(scene_kind kind, int hz_a, int hz_b) {
  float pa[3 * CLOTH_N], pb[3 * CLOTH_N], worst = 0.0f;
  walker a = walker_make(kind), b = walker_make(kind);
  walk(&a, hz_a);
  walk(&b, hz_b);
  tress_handle_id ha[2] = {a.jump, a.hang}, hb[2] = {b.jump, b.hang};
  uint32_t n = NPTS, count = 2;
  if (kind == SCENE_SOLO) ha[0] = a.solo, hb[0] = b.solo, count = 1;
  if (kind == SCENE_CLOTH) ha[0] = a.cloth, hb[0] = b.cloth, count = 1, n = CLOTH_N;
  for (uint32_t h = 0; h < count; h++) {
    read_points(&a, ha[h], pa, n);
    read_points(&b, hb[h], pb, n);
    /* the walk moved the pins by 6 units: a rope left behind would agree trivially */
    assert_true(pa[0] > 1.0f);
    float g = max_gap(pa, pb, n);
    if (g > worst) worst = g;
  }
  rope_world_free(&a.w);
  rope_world_free(&b.w);
  return worst;
}

static void check(scene_kind kind, const char *what) {
  const int pairs[][2] = {{30, 60}, {20, 60}, {60, 144}, {30, 240}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    float g = gap_between(kind, pairs[i][0], pairs[i][1]);
    print_message("%s, %d vs %d fps: points at most %.3g apart after %.0f s\n", what, pairs[i][0], pairs[i][1],
                  (double)g, SECONDS);
    assert_true(g <= (kind == SCENE_CLOTH ? CLOTH_TOLERANCE : ROPE_TOLERANCE));
  }
}

static void test_grouped_ropes_agree_across_frame_rates(void **state) {
  (void)state;
  check(SCENE_GROUPED, "two ropes (lane group)");
}

static void test_lone_rope_agrees_across_frame_rates(void **state) {
  (void)state;
  check(SCENE_SOLO, "one rope (per-rope path)");
}

static void test_cloth_agrees_across_frame_rates(void **state) {
  (void)state;
  check(SCENE_CLOTH, "cloth (Jacobi)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grouped_ropes_agree_across_frame_rates),
      cmocka_unit_test(test_lone_rope_agrees_across_frame_rates),
      cmocka_unit_test(test_cloth_agrees_across_frame_rates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
