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

/* The sim's bytes after a step (the layout is made) for CHAINS chains of one spring model, of
 * BONES bones but the last, which has last_bones (CHAINS is a multiple of the level padding, so
 * a shorter last chain's level pads to the same width). */
static size_t bytes_after_step(tress_spring_model model, int last_bones) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  tress_chain_settings settings = tress_default_chain_settings();
  settings.model = model;
  for (int c = 0; c < CHAINS; c++) {
    fix_chain ch = fix_chain_make(scene, (float)c, 5, 0, c < CHAINS - 1 ? BONES : last_bones, 0.3f);
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
  size_t pose = bytes_after_step(TRESS_SPRING_POSE, BONES), vrm = bytes_after_step(TRESS_SPRING_VRM, BONES);
  assert_true(vrm >= pose + (size_t)CHAINS * BONES * 12 * sizeof(float));
}

/* Uniform chains sit at constant shifts from their parents and children, level by level, so the
 * layout holds no per-node link arrays (two int32 a node); one shorter chain among them breaks a
 * level's shift and brings them back (at least for the other chains' nodes: it has one fewer). */
static void test_uniform_chains_hold_no_link_arrays(void **state) {
  (void)state;
  size_t uniform = bytes_after_step(TRESS_SPRING_POSE, BONES), ragged = bytes_after_step(TRESS_SPRING_POSE, BONES - 1);
  assert_true(ragged >= uniform + (size_t)(CHAINS - 1) * BONES * 2 * sizeof(int32_t));
}

/* CHAINS chains with default settings, bound; their bones and handles kept. */
static void bind_kept(tress_scene *scene, tress_sim *sim, fix_chain *chains, tress_handle_id *handles) {
  for (int c = 0; c < CHAINS; c++) {
    chains[c] = fix_chain_make(scene, (float)c, 5, 0, BONES, 0.3f);
    assert_int_equal(tress_sim_bind(sim, chains[c].part, NULL, &handles[c]), TRESS_OK);
  }
}

/* Pose chains, 30 frames, then (late) joint settings js on chain 0's third bone, 60 frames more.
 * held: chain 1 has js from the start, so what js needs exists before chain 0 needs it.
 * Gives the sim's bytes before and after the late joint and chain 0's tip. */
enum { LATE_NONE, LATE_JOINT, LATE_JOINT_HELD };
static void run_late_joint(int mode, const tress_joint_settings *js, size_t *before, size_t *after, float tip[3]) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  tress_handle_id handles[CHAINS];
  fix_chain chains[CHAINS];
  bind_kept(scene, sim, chains, handles);
  if (mode == LATE_JOINT_HELD)
    assert_int_equal(tress_handle_set_joint_settings(sim, handles[1], chains[1].bones[2], js), TRESS_OK);
  for (int f = 0; f < 30; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  *before = tress_sim_get_memory_bytes(sim);
  if (mode != LATE_NONE)
    assert_int_equal(tress_handle_set_joint_settings(sim, handles[0], chains[0].bones[2], js), TRESS_OK);
  for (int f = 0; f < 60; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  *after = tress_sim_get_memory_bytes(sim);
  fix_world_pos(scene, chains[0].bones[BONES - 1], tip);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A joint setting made late (js) costs `floats` per node from the next frame on, and the chain
 * then moves bit for bit as in a sim that held them all along (and unlike no joint settings). */
static void check_late_joint(const tress_joint_settings *js, size_t floats) {
  size_t none0, none1, late0, late1, held0, held1;
  float none_tip[3], late_tip[3], held_tip[3];
  run_late_joint(LATE_NONE, js, &none0, &none1, none_tip);
  run_late_joint(LATE_JOINT, js, &late0, &late1, late_tip);
  run_late_joint(LATE_JOINT_HELD, js, &held0, &held1, held_tip);
  assert_int_equal(none0, none1);
  assert_int_equal(late0, none0);
  size_t copies = (size_t)CHAINS * BONES * floats * sizeof(float);
  assert_true(late1 >= late0 + copies);
  /* held from the start, the copies are there before the late joint, which adds only chain 0's
   * own joint values */
  assert_true(held0 >= none0 + copies);
  assert_true(held1 - held0 < copies / 4);
  assert_memory_equal(late_tip, held_tip, sizeof late_tip);
  assert_memory_not_equal(late_tip, none_tip, sizeof late_tip);
}

/* The rotation-limit copies (8 floats a node), the bone axis (3) and the joint values (4) are
 * held only once some chain has a limit: a cone limit on the third bone, turned a quarter turn
 * off the chain so that it acts at once. */
static void test_limit_copies_only_once_limited(void **state) {
  (void)state;
  tress_joint_settings js = {0.1f, 0.92f, 1.0f, {0, 0, 0}, 0.0f, {TRESS_LIMIT_CONE, 0.2f, 0.0f, {0, 0, 0.70710678f, 0.70710678f}}};
  check_late_joint(&js, 15);
}

/* A chain's damping, stiffness, gravity scale and radius are held once per chain: per-node copies
 * (4 floats a node) exist only once some joint sets its own (here without a limit). */
static void test_joint_values_only_once_set(void **state) {
  (void)state;
  tress_joint_settings js = {0.6f, 0.5f, 3.0f, {0, 0, 0}, 0.0f, {TRESS_LIMIT_NONE, 0.0f, 0.0f, {0, 0, 0, 1}}};
  check_late_joint(&js, 4);
}

/* CHAINS bound chains, each centered on its own part (center) or not; after `clear` frames the
 * centers are taken away again. The sim's bytes after a step, then after the clearing. */
static void centered_bytes(bool center, size_t *bytes, size_t *cleared) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  tress_handle_id handles[CHAINS];
  tress_chain_settings settings = tress_default_chain_settings();
  for (int c = 0; c < CHAINS; c++) {
    fix_chain ch = fix_chain_make(scene, (float)c, 5, 0, BONES, 0.3f);
    settings.center = center ? ch.part : (tress_id){0};
    assert_int_equal(tress_sim_bind(sim, ch.part, &settings, &handles[c]), TRESS_OK);
  }
  for (int f = 0; f < 10; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  *bytes = tress_sim_get_memory_bytes(sim);
  settings.center = (tress_id){0};
  for (int c = 0; c < CHAINS; c++) assert_int_equal(tress_handle_set_chain_settings(sim, handles[c], &settings), TRESS_OK);
  for (int f = 0; f < 10; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  *cleared = tress_sim_get_memory_bytes(sim);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A center's state (three poses) is held only by chains whose settings name one, and let go when
 * the settings stop naming it: chains without a center do not pay for the feature. */
static void test_center_state_only_while_centered(void **state) {
  (void)state;
  size_t plain, plain_cleared, centered, centered_cleared;
  centered_bytes(false, &plain, &plain_cleared);
  centered_bytes(true, &centered, &centered_cleared);
  assert_int_equal(plain_cleared, plain);
  assert_true(centered >= plain + (size_t)CHAINS * 3 * sizeof(tress_xform));
  assert_int_equal(centered_cleared, plain);
}

/* The collider sets (two per chain slot) are made when a first chain is given colliders, not
 * before: a sim of collider-free chains holds none. The late set then works at once: chain 0's
 * tip, with a sphere put where it hangs, ends outside it. */
static void test_collider_sets_only_once_colliding(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4 * CHAINS, 1e6f);
  tress_handle_id handles[CHAINS];
  fix_chain chains[CHAINS];
  bind_kept(scene, sim, chains, handles);
  for (int f = 0; f < 120; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  size_t before = tress_sim_get_memory_bytes(sim);
  float tip[3];
  fix_world_pos(scene, chains[0].bones[BONES - 1], tip);
  tress_collider_def sphere = tress_default_collider_def();
  memcpy(sphere.offset, tip, sizeof tip);
  sphere.radius = 0.5f;
  tress_collider_id id;
  assert_int_equal(tress_sim_create_collider(sim, &sphere, &id), TRESS_OK);
  tress_chain_settings settings = tress_default_chain_settings();
  settings.colliders[0] = id;
  settings.collider_count = 1;
  assert_int_equal(tress_handle_set_chain_settings(sim, handles[0], &settings), TRESS_OK);
  assert_true(tress_sim_get_memory_bytes(sim) >= before + (size_t)CHAINS * 2 * sizeof(tress_collider_set));
  for (int f = 0; f < 30; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  float now[3];
  fix_world_pos(scene, chains[0].bones[BONES - 1], now);
  float d[3] = {now[0] - tip[0], now[1] - tip[1], now[2] - tip[2]};
  assert_true(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) >= 0.5f * 0.999f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_holds_nothing),
      cmocka_unit_test(test_scene_counts_its_bones),
      cmocka_unit_test(test_sim_counts_its_nodes_and_frames_allocate_nothing),
      cmocka_unit_test(test_pose_chains_hold_no_vrm_scratch),
      cmocka_unit_test(test_uniform_chains_hold_no_link_arrays),
      cmocka_unit_test(test_limit_copies_only_once_limited),
    cmocka_unit_test(test_joint_values_only_once_set),
      cmocka_unit_test(test_center_state_only_while_centered),
      cmocka_unit_test(test_collider_sets_only_once_colliding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
