/* test_sim_loop.c - loop ownership on a real libuv loop: the sim's timer handle exists only while
 * something is bound (the seed's Heartbeat connection); the last destroy clears the accumulator.
 * White-box (sim_internal.h): it plants a pending accumulator slice to see the last destroy clear it. */
#include "support/sim_fixture.h"

#include "sim_internal.h"
#include "tress/sim_uv.h"
#include "support/scene_build.h"

static void test_loop_handle_exists_only_while_bound(void **state) {
  (void)state;
  uv_loop_t loop;
  assert_int_equal(uv_loop_init(&loop), 0);
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  fix_chain b = fix_chain_make(scene, 3, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_attach_loop(sim, &loop, 0), 0);
  /* nothing bound: no handle, the loop has nothing to keep it alive */
  assert_false(tress_sim_is_loop_active(sim));
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_false(uv_loop_alive(&loop));

  tress_handle_id ha, hb;
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &ha), TRESS_OK); /* first bind starts it */
  assert_true(tress_sim_is_loop_active(sim));
  assert_true(uv_loop_alive(&loop));
  assert_int_equal(tress_sim_bind(sim, b.part, NULL, &hb), TRESS_OK);
  assert_true(tress_sim_is_loop_active(sim));

  /* the timer steps the sim by itself: the horizontal strand starts to sag */
  for (int i = 0; i < 40 && !fix_swung(scene, a.bones[1]); i++) uv_run(&loop, UV_RUN_ONCE);
  assert_true(fix_swung(scene, a.bones[1]));

  tress_handle_destroy(sim, ha);
  assert_true(tress_sim_is_loop_active(sim)); /* one still bound */
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_true(uv_loop_alive(&loop));
  sim->accumulator = 0.01; /* pretend a partial slice is pending */
  tress_handle_destroy(sim, hb); /* last destroy stops it and clears the accumulator */
  assert_false(tress_sim_is_loop_active(sim));
  assert_true(sim->accumulator == 0.0);
  uv_run(&loop, UV_RUN_NOWAIT); /* let the close callback run */
  assert_false(uv_loop_alive(&loop));

  /* binding again starts it again; destroying the root instance (not the handle) stops it */
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &ha), TRESS_OK);
  assert_true(tress_sim_is_loop_active(sim));
  assert_true(uv_loop_alive(&loop));
  tress_instance_destroy(scene, a.part);
  assert_false(tress_handle_is_valid(sim, ha));
  assert_false(tress_sim_is_loop_active(sim));
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_false(uv_loop_alive(&loop));

  /* detaching with something bound closes the timer */
  assert_int_equal(tress_sim_bind(sim, b.part, NULL, &hb), TRESS_OK);
  assert_true(uv_loop_alive(&loop));
  tress_sim_detach_loop(sim);
  assert_false(tress_sim_is_loop_active(sim));
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_false(uv_loop_alive(&loop));
  tress_sim_destroy(sim);
  assert_int_equal(uv_loop_close(&loop), 0); /* no handle leaked */
  tress_scene_destroy(scene);
}

static void test_attach_while_bound_starts_at_once(void **state) {
  (void)state;
  uv_loop_t loop;
  assert_int_equal(uv_loop_init(&loop), 0);
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, NULL), TRESS_OK);
  assert_int_equal(tress_sim_attach_loop(sim, &loop, 5), 0);
  assert_true(tress_sim_is_loop_active(sim));
  assert_true(uv_loop_alive(&loop));
  tress_sim_destroy(sim); /* destroys every handle, which stops the timer */
  uv_run(&loop, UV_RUN_NOWAIT);
  assert_false(uv_loop_alive(&loop));
  assert_int_equal(uv_loop_close(&loop), 0);
  tress_scene_destroy(scene);
}

/* Without a loop (the seed's SkipLoop) the last destroy still clears the accumulator: a partial
 * slice left over from before must not fire a substep after the next bind. */
static void test_last_destroy_clears_the_accumulator(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &h), TRESS_OK);
  assert_int_equal(tress_sim_step(sim, 0.012), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).substeps, 0);
  tress_handle_destroy(sim, h);
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &h), TRESS_OK);
  assert_int_equal(tress_sim_step(sim, 0.012), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).substeps, 0); /* 0.024 would have run one */
  assert_int_equal(tress_sim_step(sim, 0.012), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).substeps, 1);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loop_handle_exists_only_while_bound),
      cmocka_unit_test(test_attach_while_bound_starts_at_once),
      cmocka_unit_test(test_last_destroy_clears_the_accumulator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
