/* test_still_levels.c - levels whose animated locals are all the identity (hair no animation
 * drives) take a shorter output and animated-pose form with the products by the identity left
 * out (chains_frame.c, chains_vrm.c: c->still). It must give the poses the general form gives:
 * chain A runs alone (its levels still) and beside chain B whose bones are animated (the shared
 * levels take the general form); A's bones match component by component (==, so a zero's sign
 * may differ) every frame, in both spring models. Also: once animation starts on a still chain
 * mid-run, the next frame's output shows it. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

enum { BONES = 7, FRAMES = 90 };

/* A's bone transforms for every frame, with (animated_neighbour) or without chain B beside it. */
static void run(tress_spring_model model, bool animated_neighbour, tress_xform *out) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 16, 1e6f);
  fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.3f), b = fix_chain_make(scene, 3, 5, 0, BONES, 0.3f);
  tress_chain_settings st = tress_default_chain_settings();
  st.model = model;
  assert_int_equal(tress_sim_bind(sim, a.part, &st, NULL), TRESS_OK);
  if (animated_neighbour) assert_int_equal(tress_sim_bind(sim, b.part, &st, NULL), TRESS_OK);
  for (int f = 0; f < FRAMES; f++) {
    float t = 0.05f * (float)f;
    tress_part_set_cframe(scene, a.part, tress_xform_from_pos(0.5f * sinf(2.0f * t), 5, 0.3f * cosf(3.0f * t)));
    for (int k = 0; animated_neighbour && k < BONES; k++) {
      tress_xform anim = tress_xform_from_pos(0.01f * (float)k, 0, 0);
      float half = 0.1f * sinf(t + (float)k);
      anim.q[2] = sinf(half);
      anim.q[3] = cosf(half);
      tress_bone_set_animated(scene, b.bones[k], anim);
    }
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    for (int k = 0; k < BONES; k++) out[f * BONES + k] = tress_bone_get_transform(scene, a.bones[k]);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void assert_same_poses(const tress_xform *x, const tress_xform *y) {
  for (int i = 0; i < FRAMES * BONES; i++) {
    for (int k = 0; k < 3; k++) assert_true(x[i].p[k] == y[i].p[k]);
    for (int k = 0; k < 4; k++) assert_true(x[i].q[k] == y[i].q[k]);
  }
}

static void same_in_model(tress_spring_model model) {
  static tress_xform alone[FRAMES * BONES], beside[FRAMES * BONES];
  run(model, false, alone);
  run(model, true, beside);
  assert_same_poses(alone, beside);
  /* and it swung: the tip's pose changed over the run */
  assert_true(alone[BONES - 2].q[0] != alone[(FRAMES - 1) * BONES + BONES - 2].q[0] ||
              alone[BONES - 2].q[2] != alone[(FRAMES - 1) * BONES + BONES - 2].q[2]);
}

static void test_still_levels_pose_model(void **state) {
  (void)state;
  same_in_model(TRESS_SPRING_POSE);
}

static void test_still_levels_vrm_model(void **state) {
  (void)state;
  same_in_model(TRESS_SPRING_VRM);
}

/* A still chain whose root bone starts being animated (a quarter turn) shows it on that frame:
 * the pose written for it is no longer the one a still run writes. */
static void test_animation_starting_shows_at_once(void **state) {
  (void)state;
  for (int m = 0; m < 2; m++) {
    tress_xform first[2];
    for (int animate = 0; animate < 2; animate++) {
      tress_scene *scene = th_scene();
      tress_sim *sim = fix_sim(scene, 16, 1e6f);
      fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.3f);
      tress_chain_settings st = tress_default_chain_settings();
      st.model = m ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
      assert_int_equal(tress_sim_bind(sim, a.part, &st, NULL), TRESS_OK);
      for (int f = 0; f < 30; f++) assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
      if (animate) {
        tress_xform q = tress_xform_identity();
        q.q[1] = 0.70710678f;
        q.q[3] = 0.70710678f;
        tress_bone_set_animated(scene, a.bones[1], q);
      }
      assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
      first[animate] = tress_bone_get_transform(scene, a.bones[1]);
      tress_sim_destroy(sim);
      tress_scene_destroy(scene);
    }
    assert_memory_not_equal(first[0].q, first[1].q, sizeof first[0].q);
  }
}

/* A's bone transforms for every frame, alone; A's second bone animated (a small turn) over
 * frames 30..44 and back at the identity after. `elsewhere`: a bone no chain holds is animated
 * too, so the scene always has an animated bone and the sim reads every animated local; without
 * it the scene has none outside those frames and the sim writes the identity instead of reading
 * it (c->animated_identity). */
static void run_pulse(tress_spring_model model, bool elsewhere, tress_xform *out) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 16, 1e6f);
  fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.3f), b = fix_chain_make(scene, 3, 5, 0, BONES, 0.3f);
  tress_chain_settings st = tress_default_chain_settings();
  st.model = model;
  assert_int_equal(tress_sim_bind(sim, a.part, &st, NULL), TRESS_OK);
  if (elsewhere) tress_bone_set_animated(scene, b.bones[2], tress_xform_from_pos(0.1f, 0, 0));
  for (int f = 0; f < FRAMES; f++) {
    float t = 0.05f * (float)f;
    tress_part_set_cframe(scene, a.part, tress_xform_from_pos(0.5f * sinf(2.0f * t), 5, 0.3f * cosf(3.0f * t)));
    tress_xform anim = tress_xform_identity();
    if (f >= 30 && f < 45) {
      anim.q[2] = sinf(0.2f);
      anim.q[3] = cosf(0.2f);
    }
    tress_bone_set_animated(scene, a.bones[1], anim);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    for (int k = 0; k < BONES; k++) out[f * BONES + k] = tress_bone_get_transform(scene, a.bones[k]);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* With no animated bone in the whole scene the sim skips the scene read: the poses are bit for
 * bit those of a run that reads every animated local (an animated bone elsewhere), before,
 * during and after A's own animation, in both spring models. */
static void test_no_animated_bone_skips_the_read_exactly(void **state) {
  (void)state;
  static tress_xform skipped[FRAMES * BONES], read[FRAMES * BONES];
  for (int m = 0; m < 2; m++) {
    tress_spring_model model = m ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
    run_pulse(model, false, skipped);
    run_pulse(model, true, read);
    for (int i = 0; i < FRAMES * BONES; i++) {
      assert_memory_equal(skipped[i].p, read[i].p, sizeof skipped[i].p);
      assert_memory_equal(skipped[i].q, read[i].q, sizeof skipped[i].q);
    }
    /* the pulse showed: bone 1 turned while animated */
    assert_memory_not_equal(skipped[29 * BONES + 1].q, skipped[40 * BONES + 1].q, sizeof skipped[0].q);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_still_levels_pose_model),
      cmocka_unit_test(test_still_levels_vrm_model),
      cmocka_unit_test(test_animation_starting_shows_at_once),
      cmocka_unit_test(test_no_animated_bone_skips_the_read_exactly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
