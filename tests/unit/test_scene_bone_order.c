/* test_scene_bone_order.c - the scene's bone entries: dense (a destroyed bone's entry takes the
 * last one), ordered on request with every bone's values kept, and ordered by the sim after each
 * layout so that its scene reads and writes run through consecutive entries.
 * White-box (scene_slots.h): the entries are the solver's batch access, not public API. */
#include "support/sim_fixture.h"

#include "scene_slots.h"

enum { BONES = 6 };

/* A part with BONES bones right under it, bone k animated to (k, 0, 0) and drawn at (0, k, 0). */
static tress_scene *bones_scene(tress_id *part, tress_id *bones) {
  tress_scene *s = th_scene();
  assert_non_null(s);
  *part = th_instance(s, TRESS_KIND_PART, "Head", tress_scene_get_root(s));
  for (int k = 0; k < BONES; k++) {
    bones[k] = th_instance(s, TRESS_KIND_BONE, "Hair", *part);
    tress_bone_set_animated(s, bones[k], tress_xform_from_pos((float)k, 0, 0));
    tress_bone_set_transform(s, bones[k], tress_xform_from_pos(0, (float)k, 0));
  }
  return s;
}

/* Bone k's values, read through the public calls and through its entry in the arrays. */
static void check_values(tress_scene *s, const tress_id *bones) {
  tress_xform *animated, *transform;
  tress__bone_slot_arrays(s, &animated, &transform);
  for (int k = 0; k < BONES; k++) {
    uint32_t e = tress__bone_slot(s, bones[k]);
    assert_true(e > 0);
    assert_float_equal(tress_bone_get_animated(s, bones[k]).p[0], (float)k, 0.0f);
    assert_float_equal(tress_bone_get_transform(s, bones[k]).p[1], (float)k, 0.0f);
    assert_float_equal(animated[e].p[0], (float)k, 0.0f);
    assert_float_equal(transform[e].p[1], (float)k, 0.0f);
  }
  /* entry 0 stays the root's identity */
  const float identity[7] = {0, 0, 0, 0, 0, 0, 1};
  const float entry0[7] = {animated[0].p[0], animated[0].p[1], animated[0].p[2], animated[0].q[0],
                           animated[0].q[1], animated[0].q[2], animated[0].q[3]};
  assert_memory_equal(entry0, identity, sizeof identity);
}

/* Listed bones take entries 1, 2, ... in list order; a stale id, a part and a bone listed twice are
 * skipped; the others follow in their old order. Ordering again the same way moves nothing. */
static void test_listed_bones_come_first(void **state) {
  (void)state;
  tress_id part, bones[BONES];
  tress_scene *s = bones_scene(&part, bones);
  for (int k = 0; k < BONES; k++) assert_int_equal(tress__bone_slot(s, bones[k]), k + 1);
  tress_id gone = th_instance(s, TRESS_KIND_BONE, "Gone", part);
  tress_instance_destroy(s, gone);
  uint64_t before = tress__scene_layout_epoch(s);
  const tress_id list[] = {bones[4], bones[2], gone, bones[2], part};
  assert_true(tress__scene_order_bones(s, list, 5));
  assert_true(tress__scene_layout_epoch(s) != before);
  const uint32_t expect[BONES] = {3, 4, 2, 5, 1, 6};
  for (int k = 0; k < BONES; k++) assert_int_equal(tress__bone_slot(s, bones[k]), expect[k]);
  check_values(s, bones);
  uint64_t ordered = tress__scene_layout_epoch(s);
  assert_true(tress__scene_order_bones(s, list, 5));
  assert_int_equal(tress__scene_layout_epoch(s), ordered);
  assert_false(tress__scene_order_bones(NULL, list, 5));
  tress_scene_destroy(s);
}

/* A destroyed bone's entry is taken by the last entry's bone, which keeps its values; a new bone
 * takes the entry after the last. */
static void test_entries_stay_dense(void **state) {
  (void)state;
  tress_id part, bones[BONES];
  tress_scene *s = bones_scene(&part, bones);
  tress_instance_destroy(s, bones[BONES - 1]); /* the last: nothing moves */
  bones[BONES - 1] = th_instance(s, TRESS_KIND_BONE, "Hair", part);
  tress_bone_set_animated(s, bones[BONES - 1], tress_xform_from_pos((float)(BONES - 1), 0, 0));
  tress_bone_set_transform(s, bones[BONES - 1], tress_xform_from_pos(0, (float)(BONES - 1), 0));
  assert_int_equal(tress__bone_slot(s, bones[BONES - 1]), BONES);
  tress_id extra = th_instance(s, TRESS_KIND_BONE, "Extra", part);
  assert_int_equal(tress__bone_slot(s, extra), BONES + 1);
  tress_instance_destroy(s, bones[1]); /* entry 2 */
  assert_int_equal(tress__bone_slot(s, extra), 2);
  assert_int_equal(tress__bone_slot(s, bones[1]), 0);
  tress_id fresh = th_instance(s, TRESS_KIND_BONE, "Fresh", part);
  assert_int_equal(tress__bone_slot(s, fresh), BONES + 1);
  tress_id tip = th_instance(s, TRESS_KIND_BONE, "Tip", bones[2]);
  assert_int_equal(tress__bone_slot(s, tip), BONES + 2);
  tress_instance_destroy(s, bones[2]); /* and its subtree, the tip: entries 3 and 8 */
  assert_int_equal(tress__bone_slot(s, tip), 0);
  uint32_t seen = 0; /* the six bones left hold entries 1 to 6, each once */
  const tress_id left[] = {bones[0], extra, bones[3], bones[4], bones[5], fresh};
  for (int k = 0; k < 6; k++) {
    uint32_t e = tress__bone_slot(s, left[k]);
    assert_true(e >= 1 && e <= 6);
    seen |= 1u << e;
  }
  assert_int_equal(seen, 0x7eu);
  /* the bones that moved kept their values */
  for (int k = 3; k < BONES; k++) {
    assert_float_equal(tress_bone_get_animated(s, bones[k]).p[0], (float)k, 0.0f);
    assert_float_equal(tress_bone_get_transform(s, bones[k]).p[1], (float)k, 0.0f);
  }
  tress_scene_destroy(s);
}

/* After a step, the sim has ordered the bones of its chains as it reads them: level by level
 * (every chain's first bone, then every second bone, ...), chains in bind order. The scene made
 * them chain by chain. */
static void test_sim_orders_bones_by_level(void **state) {
  (void)state;
  enum { CHAINS = 3, CHAIN_BONES = 4 };
  tress_scene *s = th_scene();
  tress_sim *sim = fix_sim(s, CHAINS, 1e6f);
  fix_chain chains[CHAINS];
  for (int c = 0; c < CHAINS; c++) {
    chains[c] = fix_chain_make(s, (float)c, 5, 0, CHAIN_BONES, 0.3f);
    assert_int_equal(tress__bone_slot(s, chains[c].bones[0]), 1 + c * CHAIN_BONES);
    assert_int_equal(tress_sim_bind(sim, chains[c].part, NULL, NULL), TRESS_OK);
  }
  float before[3];
  fix_world_pos(s, chains[1].bones[2], before);
  for (int f = 0; f < 10; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  for (int c = 0; c < CHAINS; c++)
    for (int k = 0; k < CHAIN_BONES; k++)
      assert_int_equal(tress__bone_slot(s, chains[c].bones[k]), 1 + k * CHAINS + c);
  /* and it still drives them: the chain swings under gravity */
  float after[3];
  fix_world_pos(s, chains[1].bones[2], after);
  assert_true(after[1] < before[1] - 1e-3f);
  tress_sim_destroy(sim);
  tress_scene_destroy(s);
}

/* The scene counts the bones whose animated local is not bit for bit the identity (what lets
 * the sim skip its read when there is none): through sets, a -0 (not the identity's bits),
 * destroys of counted and uncounted bones, and an ordering. */
static void test_animated_bones_are_counted(void **state) {
  (void)state;
  tress_id part, bones[BONES];
  tress_scene *s = bones_scene(&part, bones); /* bone k at (k, 0, 0): bone 0 is the identity */
  assert_int_equal(tress__scene_animated_bones(s), BONES - 1);
  tress_bone_set_animated(s, bones[1], tress_xform_identity());
  assert_int_equal(tress__scene_animated_bones(s), BONES - 2);
  tress_bone_set_animated(s, bones[0], tress_xform_from_pos(-0.0f, 0, 0));
  assert_int_equal(tress__scene_animated_bones(s), BONES - 1);
  tress_bone_set_animated(s, bones[0], tress_xform_from_pos(-0.0f, 0, 0)); /* again: no change */
  assert_int_equal(tress__scene_animated_bones(s), BONES - 1);
  tress_instance_destroy(s, bones[3]); /* counted */
  tress_instance_destroy(s, bones[1]); /* not counted */
  assert_int_equal(tress__scene_animated_bones(s), BONES - 2);
  const tress_id order[3] = {bones[5], bones[0], bones[2]};
  assert_true(tress__scene_order_bones(s, order, 3));
  assert_int_equal(tress__scene_animated_bones(s), BONES - 2);
  const int left[] = {0, 2, 4, 5};
  for (int k = 0; k < 4; k++) tress_bone_set_animated(s, bones[left[k]], tress_xform_identity());
  assert_int_equal(tress__scene_animated_bones(s), 0);
  tress_instance_destroy(s, part); /* the rest go with their part */
  assert_int_equal(tress__scene_animated_bones(s), 0);
  tress_scene_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_listed_bones_come_first),
      cmocka_unit_test(test_entries_stay_dense),
      cmocka_unit_test(test_sim_orders_bones_by_level),
      cmocka_unit_test(test_animated_bones_are_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
