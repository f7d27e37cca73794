/* test_sim_memory.c - the scene's and the sim's byte counts (tress_scene_get_memory_bytes,
 * tress_sim_get_memory_bytes, what bench/solver's bytes per node comes from): zero for NULL, they
 * grow with the instances and chains held, and a frame leaves them unchanged (nothing allocates
 * per frame). */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

enum { CHAINS = 48, BONES = 12 };

static void test_null_holds_nothing(void **state) {
  (void)state;
  assert_int_equal(tress_scene_get_memory_bytes(NULL), 0);
  assert_int_equal(tress_sim_get_memory_bytes(NULL), 0);
}

/* Every bone has an animated input and a transform output (two tress_xform) at least. */
static void test_scene_counts_its_bones(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  size_t empty = tress_scene_get_memory_bytes(scene);
  assert_true(empty > 0);
  for (int c = 0; c < CHAINS; c++) fix_chain_make(scene, (float)c, 5, 0, BONES, 0.3f);
  size_t full = tress_scene_get_memory_bytes(scene);
  assert_true(full - empty >= (size_t)CHAINS * BONES * 2 * sizeof(tress_xform));
  tress_scene_destroy(scene);
}

static void bind_chains(tress_scene *scene, tress_sim *sim, int first) {
  for (int c = first; c < first + CHAINS; c++) {
    fix_chain ch = fix_chain_make(scene, (float)c, 5, 0, BONES, 0.3f);
    assert_int_equal(tress_sim_bind(sim, ch.part, NULL, NULL), TRESS_OK);
  }
}

/* Each bound node keeps at least its verlet state (current and previous position) and its rest
 * pose (a position and a rotation). */
enum { NODE_FLOATS = 6 + 7 };
static void test_sim_counts_its_nodes_and_frames_allocate_nothing(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  size_t empty = tress_sim_get_memory_bytes(sim);
  assert_true(empty > 0);
  bind_chains(scene, sim, 0);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  size_t one = tress_sim_get_memory_bytes(sim);
  assert_true(one - empty >= (size_t)CHAINS * BONES * NODE_FLOATS * sizeof(float));
  bind_chains(scene, sim, CHAINS);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  size_t two = tress_sim_get_memory_bytes(sim);
  assert_true(two - one >= (size_t)CHAINS * BONES * NODE_FLOATS * sizeof(float));
  for (int f = 0; f < 30; f++) assert_int_equal(tress_sim_step(sim, f % 3 ? 1.0 / 144.0 : 1.0 / 30.0), TRESS_OK);
  assert_int_equal(tress_sim_get_memory_bytes(sim), two);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* The sim's bytes for CHAINS chains of one spring model, after a step (the layout is made). */
static size_t bytes_for_model(tress_spring_model model) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  tress_chain_settings settings = tress_default_chain_settings();
  settings.model = model;
  for (int c = 0; c < CHAINS; c++) {
    fix_chain ch = fix_chain_make(scene, (float)c, 5, 0, BONES, 0.3f);
    assert_int_equal(tress_sim_bind(sim, ch.part, &settings, NULL), TRESS_OK);
  }
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  size_t bytes = tress_sim_get_memory_bytes(sim);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return bytes;
}

/* The VRM model's per-tile scratch (12 floats a tile node) is made only when some chain uses
 * the model: pose-model chains hold at least that much less. */
static void test_pose_chains_hold_no_vrm_scratch(void **state) {
  (void)state;
  size_t pose = bytes_for_model(TRESS_SPRING_POSE), vrm = bytes_for_model(TRESS_SPRING_VRM);
  assert_true(vrm >= pose + (size_t)CHAINS * BONES * 12 * sizeof(float));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_holds_nothing),
      cmocka_unit_test(test_scene_counts_its_bones),
      cmocka_unit_test(test_sim_counts_its_nodes_and_frames_allocate_nothing),
      cmocka_unit_test(test_pose_chains_hold_no_vrm_scratch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
