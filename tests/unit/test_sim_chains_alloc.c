/* test_sim_chains_alloc.c - a frame of bone chains allocates nothing once the batch is laid out:
 * not at 60 fps, not in frames between steps (the render carry), not with colliders, weights,
 * gusts, sleeping and waking chains, or a hitch. Binding and the first frame after it may. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steady_frames_allocate_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
