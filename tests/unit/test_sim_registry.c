/* test_sim_registry.c - the handle registry: bind's dedupe and a root's destruction find the
 * handles on one root through a per-root list, whatever else is bound, in any bind/destroy order. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

static bool handle_equal(tress_handle_id a, tress_handle_id b) {
  return a.index1 == b.index1 && a.generation == b.generation;
}

static void test_one_part_roots_several_handle_kinds(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.3f);
  tress_id tail = th_instance(scene, TRESS_KIND_PART, "Tail", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, tail, tress_xform_from_pos(0, 4, 0));
  tress_sim *sim = fix_sim(scene, 10, 1e6f);
  tress_handle_id bones, parts, again;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &bones), TRESS_OK);
  tress_id pair[2] = {c.part, tail};
  assert_int_equal(tress_sim_bind_parts(sim, pair, 2, NULL, &parts), TRESS_OK);
  assert_false(handle_equal(bones, parts));
  /* the bones handle is found among the handles on the same root */
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &again), TRESS_OK);
  assert_true(handle_equal(again, bones));
  assert_int_equal(tress_sim_get_stats(sim).bound, 2);
  /* the root goes: every handle on it goes */
  tress_instance_destroy(scene, c.part);
  assert_false(tress_handle_is_valid(sim, bones));
  assert_false(tress_handle_is_valid(sim, parts));
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_lookups_stay_right_through_binds_and_destroys(void **state) {
  (void)state;
  enum { N = 600 };
  tress_scene *scene = th_scene();
  fix_chain *c = calloc(N, sizeof *c);
  tress_handle_id *h = calloc(N, sizeof *h);
  for (int k = 0; k < N; k++) c[k] = fix_chain_make(scene, (float)k, 5, 0, 2 + k % 3, 0.3f);
  tress_sim *sim = fix_sim(scene, N, 1e6f);
  for (int k = 0; k < N; k++) assert_int_equal(tress_sim_bind(sim, c[k].part, NULL, &h[k]), TRESS_OK);
  /* every third handle destroyed (its entry is reused by later binds) */
  for (int k = 0; k < N; k += 3) tress_handle_destroy(sim, h[k]);
  assert_int_equal(tress_sim_get_stats(sim).bound, N - N / 3);
  for (int k = N - 1; k >= 0; k--) {
    tress_handle_id got;
    assert_int_equal(tress_sim_bind(sim, c[k].part, NULL, &got), TRESS_OK);
    if (k % 3 == 0) {
      assert_false(handle_equal(got, h[k])); /* a new handle, the old one stays dead */
      assert_false(tress_handle_is_valid(sim, h[k]));
      h[k] = got;
    } else {
      assert_true(handle_equal(got, h[k]));
    }
  }
  assert_int_equal(tress_sim_get_stats(sim).bound, N);
  /* destroying the parts of every other chain drops exactly their handles */
  for (int k = 0; k < N; k += 2) tress_instance_destroy(scene, c[k].part);
  for (int k = 0; k < N; k++) assert_int_equal(tress_handle_is_valid(sim, h[k]), k % 2 == 1);
  assert_int_equal(tress_sim_get_stats(sim).bound, N / 2);
  fix_run(sim, 1.0 / 60.0, 3);
  for (int k = 1; k < N; k += 2) fix_assert_finite(scene, &c[k]);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(c);
  free(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_part_roots_several_handle_kinds),
      cmocka_unit_test(test_lookups_stay_right_through_binds_and_destroys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
