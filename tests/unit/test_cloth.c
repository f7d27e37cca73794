/* test_cloth.c - cloth sheets: constraint counts, the parallel Jacobi path on real threads
 * (finite at 1..64 iterations, identical with 1 and 4 workers), pins on parts, cutting, bad input.
 * White-box (particles.h): it checks which path (grid stencils or the generic adjacency lists) a
 * sheet runs, so the comparison of the two compares two paths. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "particles.h" /* tress__particles_of: which path a sheet runs */
#include "tress/rope.h"
#include "support/alloc_count.h"
#include "support/job_pool.h"
#include "support/scene_build.h"

#define W 20
#define H 20
#define N (W * H)

/* ---- helpers ---- */

typedef struct world {
  tress_scene *scene;
  tress_sim *sim;
} world;

/* reference_particle_paths: the sim def's switch to the generic (adjacency) cloth loops. */
static world world_make_paths(job_pool *p, bool reference_particle_paths) {
  world w;
  w.scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = w.scene;
  def.role = TRESS_SIM_SERVER;
  def.gravity[1] = -98.2f;
  def.ambient_wind[0] = 20.0f;
  def.ambient_wind[2] = 35.0f;
  def.jobs = job_pool_jobs(p);
  def.reference_particle_paths = reference_particle_paths;
  w.sim = tress_sim_create(&def);
  assert_non_null(w.sim);
  return w;
}

static world world_make(job_pool *p) { return world_make_paths(p, false); }

static void world_free(world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
}

static const tress_cloth_pin corner_pins[2] = {{0, {0, 0}}, {W - 1, {0, 0}}};

static tress_cloth_def banner_def(int iterations) {
  tress_cloth_def d = tress_default_cloth_def();
  d.width = W;
  d.height = H;
  d.pins = corner_pins;
  d.pin_count = 2;
  d.settings.iterations = iterations;
  return d;
}

static void run(world *w, double seconds) {
  long frames = lround(seconds * 60.0);
  for (long i = 0; i < frames; i++) assert_int_equal(tress_sim_step(w->sim, 1.0 / 60.0), TRESS_OK);
}

static void read_points(world *w, tress_handle_id h, float *xyz) {
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(w->sim, h, xyz, N, &count), TRESS_OK);
  assert_int_equal(count, N);
}

/* ---- tests ---- */

static void test_cloth_constraint_counts(void **state) {
  (void)state;
  world w = world_make(NULL);
  tress_cloth_def d = banner_def(2);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  assert_int_equal(tress_rope_get_constraint_count(w.sim, h), 760 + 722);
  d.width = 3;
  d.height = 2;
  d.pin_count = 0;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  assert_int_equal(tress_rope_get_constraint_count(w.sim, h), 4 + 3 + 4);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 2);
  world_free(&w);
}

static void test_cloth_parallel_path_finite(void **state) {
  (void)state;
  int counts[] = {1, 2, 4, 8, 16, 32, 64};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    world w = world_make(NULL);
    tress_cloth_def d = banner_def(counts[c]);
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
    run(&w, 20.0);
    float p[3 * N], lowest = 0.0f;
    read_points(&w, h, p);
    for (int i = 0; i < 3 * N; i++) {
      assert_true(isfinite(p[i]));
      assert_true(fabsf(p[i]) < 200.0f);
    }
    for (int i = 0; i < N; i++) lowest = fminf(lowest, p[3 * i + 1]);
    print_message("cloth, %2d iterations: lowest point y %.3f after 20 s\n", counts[c], lowest);
    assert_null(tress_rope_get_fault(w.sim, h));
    /* The sheet hangs from its corners (20 units wide, 19 tall): it sags, it does not fall away. */
    assert_true(lowest < -10.0f && lowest > -40.0f);
    world_free(&w);
  }
}

static void simulate_with_workers(int workers, float *out) {
  job_pool *p = job_pool_create((uint32_t)workers);
  assert_non_null(p);
  world w = world_make(p);
  tress_cloth_def d = banner_def(8);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 3.0);
  read_points(&w, h, out);
  world_free(&w);
  if (workers > 1) assert_true(atomic_load(&p->ranges_on_threads) > 0);
  job_pool_destroy(p);
}

static void test_cloth_same_result_with_1_and_4_workers(void **state) {
  (void)state;
  static float one[3 * N], four[3 * N], serial[3 * N];
  simulate_with_workers(1, one);
  simulate_with_workers(4, four);
  world w = world_make(NULL); /* no task callback: the serial default */
  tress_cloth_def d = banner_def(8);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 3.0);
  read_points(&w, h, serial);
  world_free(&w);
  assert_memory_equal(one, four, sizeof one);
  assert_memory_equal(one, serial, sizeof one);
}

static void test_cloth_pins_follow_a_part(void **state) {
  (void)state;
  world w = world_make(NULL);
  tress_id pole = th_instance(w.scene, TRESS_KIND_PART, "Pole", tress_scene_get_root(w.scene));
  tress_part_set_cframe(w.scene, pole, tress_xform_from_pos(5, 2, 0));
  tress_cloth_pin pins[W];
  for (int i = 0; i < W; i++) pins[i] = (tress_cloth_pin){(uint32_t)i, pole};
  tress_cloth_def d = banner_def(2);
  d.pins = pins;
  d.pin_count = W;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 1.0);
  /* Move and turn the pole 90 degrees about Y: the top row follows with its bind offsets. */
  float axis[3] = {0, 1, 0};
  tress_xform moved = tress_xform_from_axis_angle(axis, (float)M_PI / 2.0f);
  moved.p[0] = -3.0f;
  moved.p[1] = 6.0f;
  moved.p[2] = 1.0f;
  tress_part_set_cframe(w.scene, pole, moved);
  run(&w, 1.0);
  float p[3 * N];
  read_points(&w, h, p);
  for (int i = 0; i < W; i++) {
    float local[3] = {(float)i - 5.0f, -2.0f, 0.0f}, expect[3];
    tress_xform_point(moved, local, expect);
    for (int k = 0; k < 3; k++) assert_float_equal(p[3 * i + k], expect[k], 1e-4f);
  }
  /* Destroying the pole destroys the cloth handle. */
  tress_instance_destroy(w.scene, pole);
  assert_false(tress_handle_is_valid(w.sim, h));
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 0);
  world_free(&w);
}

static void test_cloth_cut_tears_without_allocating(void **state) {
  (void)state;
  alloc_count_install();
  void *(*volatile allocate)(size_t) = malloc;
  alloc_count_start();
  free(allocate(32));
  assert_true(alloc_count_stop() >= 1);

  world w = world_make(NULL);
  tress_cloth_def d = banner_def(4);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_OK);
  run(&w, 3.0);
  float before[3 * N], after[3 * N];
  read_points(&w, h, before);
  alloc_count_start();
  /* Tear between rows 9 and 10: every vertical and both shears. */
  for (uint32_t col = 0; col < W; col++) {
    uint32_t a = 9 * W + col, b = 10 * W + col;
    assert_int_equal(tress_cloth_cut(w.sim, h, a, b), TRESS_OK);
    if (col + 1 < W) {
      assert_int_equal(tress_cloth_cut(w.sim, h, b + 1, a), TRESS_OK); /* either order */
      assert_int_equal(tress_cloth_cut(w.sim, h, a + 1, b), TRESS_OK);
    }
  }
  run(&w, 2.0);
  long allocs = alloc_count_stop();
  assert_int_equal(tress_rope_get_constraint_count(w.sim, h), 1482 - 20 - 2 * 19);
  assert_int_equal(tress_cloth_cut(w.sim, h, 9 * W, 10 * W), TRESS_ERR_INVALID_ARGUMENT); /* already cut */
  assert_int_equal(tress_cloth_cut(w.sim, h, 0, 5), TRESS_ERR_INVALID_ARGUMENT);           /* never existed */
  read_points(&w, h, after);
  /* The bottom half fell freely (2 s at 98.2: far below), the top half still hangs. */
  assert_true(after[3 * (15 * W + 10) + 1] < before[3 * (15 * W + 10) + 1] - 50.0f);
  assert_true(after[3 * (5 * W + 10) + 1] > before[3 * (5 * W + 10) + 1] - 5.0f);
  assert_int_equal(allocs, 0);
  world_free(&w);
}

static void test_cloth_bad_input(void **state) {
  (void)state;
  world w = world_make(NULL);
  tress_handle_id h;
  tress_cloth_def d = banner_def(2);
  d.width = 1;
  tress_error err;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(err.code, TRESS_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "2 x 2"));
  d = banner_def(2);
  tress_cloth_pin outside = {N, {0, 0}};
  d.pins = &outside;
  d.pin_count = 1;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  tress_cloth_pin twice[2] = {{3, {0, 0}}, {3, {0, 0}}};
  d.pins = twice;
  d.pin_count = 2;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  d = banner_def(2);
  d.step_v[0] = 1.0f;
  d.step_v[1] = 0.0f; /* parallel to step_u */
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  d = banner_def(2);
  d.origin[2] = NAN;
  assert_int_equal(tress_sim_bind_cloth(w.sim, &d, &h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 0);
  assert_true(tress_handle_is_null(h));
  world_free(&w);
}

/* A sheet of width w, height h pinned at its top corners, a few constraints cut (a tear along a
 * row, an edge, a shear); adjacency true runs the generic CSR Jacobi instead of the stencils. */
static void run_sheet(uint32_t w, uint32_t h, bool adjacency, float *out) {
  world s = world_make_paths(NULL, adjacency);
  tress_cloth_def d = tress_default_cloth_def();
  d.width = w;
  d.height = h;
  tress_cloth_pin pins[2] = {{0, {0, 0}}, {w - 1, {0, 0}}};
  d.pins = pins;
  d.pin_count = 2;
  d.settings.iterations = 3;
  tress_handle_id hd;
  assert_int_equal(tress_sim_bind_cloth(s.sim, &d, &hd, NULL), TRESS_OK);
  tress_particles *ps = tress__particles_of(s.sim, hd);
  assert_non_null(ps);
  assert_int_equal(ps->grid_w, adjacency ? 0 : w); /* cloth runs the stencils unless told not to */
  run(&s, 1.0);
  uint32_t r = h / 2;
  for (uint32_t c = 0; c + 1 < w; c++) assert_int_equal(tress_cloth_cut(s.sim, hd, r * w + c, r * w + c + 1), TRESS_OK);
  assert_int_equal(tress_cloth_cut(s.sim, hd, (h - 1) * w, (h - 2) * w), TRESS_OK);     /* left edge, vertical */
  assert_int_equal(tress_cloth_cut(s.sim, hd, w + 1, 2 * w), TRESS_OK);                  /* a D2 shear */
  assert_int_equal(tress_cloth_cut(s.sim, hd, w * h - 1, w * (h - 1) - 2), TRESS_OK);    /* last D1 shear */
  run(&s, 1.0);
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(s.sim, hd, out, w * h, &count), TRESS_OK);
  assert_int_equal(count, w * h);
  world_free(&s);
}

static void test_cloth_stencil_matches_adjacency_path(void **state) {
  (void)state;
  uint32_t shapes[3][2] = {{W, H}, {13, 7}, {2, 5}};
  for (int k = 0; k < 3; k++) {
    uint32_t w = shapes[k][0], h = shapes[k][1];
    static float stencil[3 * N], adjacency[3 * N];
    run_sheet(w, h, false, stencil);
    run_sheet(w, h, true, adjacency);
    int differ = 0;
    for (uint32_t i = 0; i < 3 * w * h; i++) {
      assert_true(isfinite(stencil[i]));
      differ += stencil[i] != adjacency[i]; /* values, not bits: a zero's sign may differ */
    }
    print_message("%ux%u sheet: %d coordinates differ between stencil and adjacency\n", w, h, differ);
    assert_int_equal(differ, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cloth_constraint_counts),
      cmocka_unit_test(test_cloth_parallel_path_finite),
      cmocka_unit_test(test_cloth_same_result_with_1_and_4_workers),
      cmocka_unit_test(test_cloth_pins_follow_a_part),
      cmocka_unit_test(test_cloth_cut_tears_without_allocating),
      cmocka_unit_test(test_cloth_bad_input),
      cmocka_unit_test(test_cloth_stencil_matches_adjacency_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
