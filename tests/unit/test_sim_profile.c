/* test_sim_profile.c - the sim's per-phase profile: all zero unless the def asks for it; when
 * asked, every phase of a step that ran chains is timed, the chain phases fit inside the chains'
 * time and everything inside the step's, and the results of the step do not change. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

enum { CHAINS = 64, BONES = 8 };

typedef struct rig {
  tress_scene *scene;
  tress_sim *sim;
  fix_chain chains[CHAINS];
} rig;

static void rig_make(rig *r, bool profile) {
  r->scene = th_scene();
  for (int c = 0; c < CHAINS; c++) r->chains[c] = fix_chain_make(r->scene, (float)c, 5, 0, BONES, 0.3f);
  tress_sim_def def = tress_default_sim_def();
  def.scene = r->scene;
  def.max_chains = CHAINS;
  def.max_distance = 1e6f;
  def.enable_profile = profile;
  r->sim = tress_sim_create(&def);
  assert_non_null(r->sim);
  for (int c = 0; c < CHAINS; c++) assert_int_equal(tress_sim_bind(r->sim, r->chains[c].part, NULL, NULL), TRESS_OK);
}

static void rig_free(rig *r) {
  tress_sim_destroy(r->sim);
  tress_scene_destroy(r->scene);
}

static void step_moving(rig *r, int frames) {
  for (int f = 0; f < frames; f++) {
    for (int c = 0; c < CHAINS; c++)
      tress_part_set_cframe(r->scene, r->chains[c].part, tress_xform_from_pos((float)c + 0.3f * sinf((float)f * 0.2f), 5, 0));
    assert_int_equal(tress_sim_step(r->sim, 1.0 / 60.0), TRESS_OK);
  }
}

static void test_profile_is_zero_unless_asked(void **state) {
  (void)state;
  rig r;
  rig_make(&r, false);
  step_moving(&r, 5);
  tress_sim_profile p = tress_sim_get_profile(r.sim);
  tress_sim_profile zero;
  memset(&zero, 0, sizeof zero);
  assert_memory_equal(&p, &zero, sizeof p);
  rig_free(&r);
  p = tress_sim_get_profile(NULL);
  assert_memory_equal(&p, &zero, sizeof p);
}

static void test_profile_times_every_phase(void **state) {
  (void)state;
  rig r;
  rig_make(&r, true);
  step_moving(&r, 5);
  tress_sim_profile p = tress_sim_get_profile(r.sim);
  assert_true(p.chain_prepare > 0.0 && p.chain_substep > 0.0 && p.chain_output > 0.0);
  assert_true(p.cull >= 0.0 && p.pendulums >= 0.0 && p.ropes >= 0.0);
  assert_true(p.chain_prepare + p.chain_substep + p.chain_output <= p.chains);
  assert_true(p.cull + p.chains + p.pendulums + p.ropes <= p.step);
  /* a step with nothing bound leaves nothing from the last one behind */
  for (int c = 0; c < CHAINS; c++) tress_instance_destroy(r.scene, r.chains[c].part);
  assert_int_equal(tress_sim_step(r.sim, 1.0 / 60.0), TRESS_OK);
  p = tress_sim_get_profile(r.sim);
  assert_true(p.chains == 0.0 && p.chain_substep == 0.0);
  rig_free(&r);
}

/* Profiling reads clocks and nothing else: the poses come out bit for bit the same. */
static void test_profiling_changes_no_result(void **state) {
  (void)state;
  rig plain, timed;
  rig_make(&plain, false);
  rig_make(&timed, true);
  step_moving(&plain, 20);
  step_moving(&timed, 20);
  for (int c = 0; c < CHAINS; c++)
    for (int b = 0; b < BONES; b++) {
      tress_xform x = tress_bone_get_world(plain.scene, plain.chains[c].bones[b]);
      tress_xform y = tress_bone_get_world(timed.scene, timed.chains[c].bones[b]);
      assert_memory_equal(&x, &y, sizeof x);
    }
  rig_free(&plain);
  rig_free(&timed);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_profile_is_zero_unless_asked),
      cmocka_unit_test(test_profile_times_every_phase),
      cmocka_unit_test(test_profiling_changes_no_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
