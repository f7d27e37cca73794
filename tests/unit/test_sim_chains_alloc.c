/* test_sim_chains_alloc.c - a frame of bone chains allocates nothing once the batch is laid out:
 * not at 60 fps, not in frames between steps (the render carry), not with colliders, weights,
 * gusts, sleeping and waking chains, or a hitch. Binding and the first frame after it may; within
 * the def's chain_capacity a bind allocates only its chain's own node storage. */
#include "support/alloc_count.h"
#include "support/sim_fixture.h"
#include "support/scene_build.h"

static void test_steady_frames_allocate_nothing(void **state) {
  (void)state;
  alloc_count_install();
  enum { N = 300 };
  tress_scene *scene = th_scene();
  fix_chain *c = calloc(N, sizeof *c);
  tress_sim *sim = fix_sim(scene, N - 20, 40.0f); /* the budget and distance put some to sleep */
  tress_collider_id sphere;
  for (int k = 0; k < N; k++) {
    c[k] = fix_chain_make(scene, (float)(k % 20) * 3.0f, 5, (float)(k / 20) * 3.0f, 2 + k % 7, 0.3f);
    tress_chain_settings s = tress_default_chain_settings();
    if (k % 3 == 0) {
      tress_collider_def d = tress_default_collider_def();
      d.attach = c[k].part;
      d.offset[1] = -0.6f;
      d.radius = 0.3f;
      assert_int_equal(tress_sim_create_collider(sim, &d, &sphere), TRESS_OK);
      s.colliders[s.collider_count++] = sphere;
    }
    if (k % 5 == 0) s.weight = 0.5f;
    if (k % 4 == 0) s.wind_gust = 0.5f;
    assert_int_equal(tress_sim_bind(sim, c[k].part, &s, NULL), TRESS_OK);
  }
  float cam[3] = {0, 5, 0};
  tress_sim_set_camera(sim, cam);
  double t = 0.0;
  const double rates[] = {1.0 / 60.0, 1.0 / 144.0, 1.0 / 100.0, 1.0 / 30.0, 0.2 /* a hitch */};
  for (int pass = 0; pass < 2; pass++) {
    /* pass 0 warms up (the layout and scratch grow once), pass 1 counts */
    if (pass == 1) alloc_count_start();
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
      for (int i = 0; i < 40; i++) {
        t += rates[r];
        for (int k = 0; k < N; k++) {
          tress_xform x = tress_xform_from_pos((float)(k % 20) * 3.0f + (float)sin(t * 4.0 + k), 5,
                                               (float)(k / 20) * 3.0f + (float)(0.5 * t));
          tress_part_set_cframe(scene, c[k].part, x);
        }
        /* the camera sweeps: chains fall asleep and wake */
        cam[0] = (float)(30.0 * sin(t * 0.7));
        tress_sim_set_camera(sim, cam);
        assert_int_equal(tress_sim_step(sim, rates[r]), TRESS_OK);
      }
    }
    if (pass == 1) {
      long calls = alloc_count_stop();
      print_message("allocations in 200 counted frames of %d chains: %ld\n", N, calls);
      assert_int_equal(calls, 0);
    }
  }
  for (int k = 0; k < N; k++) fix_assert_finite(scene, &c[k]);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(c);
}

enum { CAP_CHAINS = 40, CAP_BONES = 5 };

/* A sim of chain_capacity cap over CAP_CHAINS chains made first (so the scene does not grow
 * while binding). The heap calls of each bind, bound last-made first (the first bind sizes the
 * sim's by-root index for every later root), and the sim's bytes right after create. */
static void bind_calls(uint32_t cap, long calls[CAP_CHAINS], size_t *created) {
  tress_scene_def sd = tress_default_scene_def();
  sd.instance_capacity = 1 + CAP_CHAINS * (1 + CAP_BONES);
  sd.part_capacity = sd.listener_capacity = CAP_CHAINS;
  tress_scene *scene = tress_scene_create(&sd);
  assert_non_null(scene);
  fix_chain c[CAP_CHAINS];
  for (int k = 0; k < CAP_CHAINS; k++) c[k] = fix_chain_make(scene, (float)k, 5, 0, CAP_BONES, 0.3f);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = CAP_CHAINS;
  def.max_distance = 1e6f;
  def.chain_capacity = cap;
  tress_sim *sim = tress_sim_create(&def);
  assert_non_null(sim);
  *created = tress_sim_get_memory_bytes(sim);
  for (int k = CAP_CHAINS - 1; k >= 0; k--) {
    alloc_count_start();
    assert_int_equal(tress_sim_bind(sim, c[k].part, NULL, NULL), TRESS_OK);
    calls[CAP_CHAINS - 1 - k] = alloc_count_stop();
  }
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  for (int k = 0; k < CAP_CHAINS; k++) fix_assert_finite(scene, &c[k]);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* chain_capacity: the chain slots and the handle registry for that many chains are made at
 * create (the bytes show it at once: each slot and handle is well over 48 bytes), so every bind
 * within it makes only its own chain's storage, as many heap calls as any other bind; a sim
 * without it regrows both arrays as it fills (at 16 and 32 chains), and those binds take more. */
static void test_chain_capacity_reserves_slots_and_handles(void **state) {
  (void)state;
  alloc_count_install();
  long sized[CAP_CHAINS], grown[CAP_CHAINS];
  size_t sized_bytes, grown_bytes;
  bind_calls(CAP_CHAINS, sized, &sized_bytes);
  bind_calls(0, grown, &grown_bytes);
  assert_true(sized_bytes >= grown_bytes + (size_t)CAP_CHAINS * 48);
  /* the first bind of either may size the by-root index; from the second on a sized sim's binds
   * all cost the same */
  for (int k = 2; k < CAP_CHAINS; k++) assert_int_equal(sized[k], sized[1]);
  long extra = 0;
  for (int k = 1; k < CAP_CHAINS; k++) extra += grown[k] - sized[k];
  assert_true(extra > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steady_frames_allocate_nothing),
      cmocka_unit_test(test_chain_capacity_reserves_slots_and_handles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
