/* test_pendulum.c - accessory pendulums: every joint kind sways and is restored bit for bit, the
 * swing clamp under strong wind and a whipping body, the synthetic lever, rebinding, bad input,
 * joints destroyed mid-sim, and the budget/culling rules. Real scene, real sim. */
#include "support/accessory_fixture.h"
#include "support/scene_build.h"


typedef struct kind_case {
  tress_joint_kind kind;
  bool side0;
} kind_case;

static const kind_case KIND_CASES[] = {
    {TRESS_JOINT_WELD, false},          {TRESS_JOINT_WELD, true},
    {TRESS_JOINT_MOTOR6D, false},       {TRESS_JOINT_MOTOR6D, true},
    {TRESS_JOINT_RIGID_CONSTRAINT, false}, {TRESS_JOINT_RIGID_CONSTRAINT, true},
    {TRESS_JOINT_WELD_CONSTRAINT, false},  {TRESS_JOINT_WELD_CONSTRAINT, true},
};
#define KIND_CASE_COUNT (sizeof KIND_CASES / sizeof KIND_CASES[0])

/* The joint the pendulum writes: the worn joint, or the CKSwayWeld that replaced a WeldConstraint. */
static tress_id steered_joint(const acc_character *c, const acc_worn *w) {
  if (w->kind != TRESS_JOINT_WELD_CONSTRAINT) return w->joint;
  return tress_instance_find_child(c->scene, tress_instance_get_parent(c->scene, w->joint), "CKSwayWeld");
}

/* Swing now, in degrees: the steered handle-side offset against the one captured at bind. */
static float swing_deg(const acc_character *c, const acc_worn *w, tress_xform orig) {
  tress_xform now = acc_handle_offset(c->scene, steered_joint(c, w), w->handle_attachment, w->handle_is_side0);
  return acc_quat_angle_deg(now.q, orig.q);
}

static void test_default_settings_match_the_seed(void **state) {
  (void)state;
  tress_accessory_settings s = tress_default_accessory_settings();
  assert_true(s.damping == 0.9f && s.stiffness == 0.08f && s.gravity_scale == 0.4f && s.wind_scale == 1.0f &&
              s.max_swing_degrees == 25.0f);
}

static void test_each_joint_kind_sways_and_destroy_restores(void **state) {
  (void)state;
  for (size_t i = 0; i < KIND_CASE_COUNT; i++) {
    acc_character c = acc_character_make();
    acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, KIND_CASES[i].kind, KIND_CASES[i].side0, false);
    acc_scene_state before = acc_state(c.scene, &w);
    tress_xform wc_before = tress_joint_get_weld_constraint_offset(c.scene, w.joint);
    float wind[3] = {40, 0, 10};
    tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_OK);
    tress_id steered = steered_joint(&c, &w);
    assert_true(tress_instance_is_valid(c.scene, steered));
    if (w.kind == TRESS_JOINT_WELD_CONSTRAINT) {
      /* swapped: an equivalent Weld holds the handle, the constraint is disabled */
      tress_joint sw_copy;
      const tress_joint *sw = tress_joint_get_def(c.scene, steered, &sw_copy) ? &sw_copy : NULL;
      assert_int_equal(sw->kind, TRESS_JOINT_WELD);
      assert_false(acc_joint(c.scene, w.joint).enabled);
      tress_xform a = tress_xform_mul(tress_part_get_cframe(c.scene, sw->part0), sw->c0);
      tress_xform b = tress_xform_mul(tress_part_get_cframe(c.scene, sw->part1), sw->c1);
      assert_true(tress_xform_distance(a, b) < 1e-5f);
    }
    tress_xform orig = acc_handle_offset(c.scene, steered, w.handle_attachment, w.handle_is_side0);
    float most = 0;
    for (int f = 0; f < 90; f++) {
      assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
      float a = swing_deg(&c, &w, orig);
      if (a > most) most = a;
    }
    assert_true(most > 3.0f);
    /* the handle part follows the joint: it moved away from its worn pose */
    assert_true(tress_xform_distance(tress_part_get_cframe(c.scene, w.handle), before.handle_cframe) > 1e-3f);
    tress_handle_destroy(sim, h);
    assert_false(tress_handle_is_valid(sim, h));
    assert_int_equal(tress_sim_get_stats(sim).bound, 0);
    acc_scene_state after = acc_state(c.scene, &w);
    if (w.kind == TRESS_JOINT_WELD_CONSTRAINT) {
      /* the swap weld is gone and the constraint holds the worn pose again */
      assert_false(tress_instance_is_valid(c.scene, steered));
      assert_true(acc_joint(c.scene, w.joint).enabled);
      assert_int_equal(after.instances, before.instances);
      assert_true(tress_xform_distance(after.handle_cframe, before.handle_cframe) < 1e-5f);
      tress_xform held = tress_joint_get_weld_constraint_offset(c.scene, w.joint);
      assert_true(acc_xform_bits_equal(held, wc_before)); /* the captured offset, bit for bit */
    } else {
      /* both offsets (or the attachment cframe) bit for bit */
      assert_true(acc_xform_bits_equal(after.joint.c0, before.joint.c0));
      assert_true(acc_xform_bits_equal(after.joint.c1, before.joint.c1));
      assert_true(acc_xform_bits_equal(after.handle_attachment, before.handle_attachment));
      assert_true(acc_xform_bits_equal(after.body_attachment, before.body_attachment));
      assert_int_equal(after.instances, before.instances);
      assert_true(tress_xform_distance(after.handle_cframe, before.handle_cframe) < 1e-5f);
      if (!w.handle_is_side0) assert_true(acc_xform_bits_equal(after.handle_cframe, before.handle_cframe));
    }
    tress_sim_destroy(sim);
    tress_scene_destroy(c.scene);
  }
}

/* No wind and no gravity: only the body's motion can swing the accessory. */
static void test_body_motion_sways_the_accessory(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  tress_sim *sim = acc_sim(c.scene, NULL, NULL, 20, 1000);
  tress_accessory_settings s = tress_default_accessory_settings();
  s.gravity_scale = 0;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, &s, NULL), TRESS_OK);
  tress_xform orig = acc_handle_offset(c.scene, w.joint, w.handle_attachment, false);
  for (int f = 0; f < 30; f++) {
    assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    assert_true(swing_deg(&c, &w, orig) < 0.01f);
  }
  float most = 0;
  for (int f = 1; f <= 30; f++) {
    tress_part_set_cframe(c.scene, c.head, tress_xform_from_pos(0.3f * (float)f, 5, 0)); /* 18 units/s */
    assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    float a = swing_deg(&c, &w, orig);
    if (a > most) most = a;
  }
  assert_true(most > 3.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

/* The hinge's world frame the test expects (body side), and the handle's worn pose from it. */
static tress_xform expected_joint_world(const acc_character *c, const acc_worn *w) {
  (void)w; /* every fixture joint sits at acc_body_side() on the head */
  return tress_xform_mul(tress_part_get_cframe(c->scene, c->head), acc_body_side());
}

static void test_swing_never_exceeds_the_clamp(void **state) {
  (void)state;
  for (size_t i = 0; i < KIND_CASE_COUNT; i++) {
    acc_character c = acc_character_make();
    acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, KIND_CASES[i].kind, KIND_CASES[i].side0, false);
    float wind[3] = {400, 0, 150};
    tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
    tress_accessory_settings s = tress_default_accessory_settings();
    s.max_swing_degrees = 20;
    assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, &s, NULL), TRESS_OK);
    tress_id steered = steered_joint(&c, &w);
    tress_xform orig = acc_handle_offset(c.scene, steered, w.handle_attachment, w.handle_is_side0);
    /* the worn handle seen from the hinge frame */
    tress_xform worn_local = tress_xform_inverse(orig);
    static const double dts[] = {1.0 / 30, 1.0 / 144, 1.0 / 60, 1.0 / 45, 1.0 / 240, 0.25};
    double t = 0;
    float most = 0;
    for (int f = 0; f < 600; f++) {
      double dt = dts[f % 6];
      t += dt;
      /* whipping body: spinning +-70 degrees about z at 3 Hz while lurching along x at 2 Hz */
      tress_xform head = acc_rot(0, 0, 1, (float)(70.0 * sin(2 * M_PI * 3 * t)), (float)(3.0 * sin(2 * M_PI * 2 * t)), 5, 0);
      tress_part_set_cframe(c.scene, c.head, head);
      if (f == 300) wind[0] = -400; /* and the wind turns round */
      assert_int_equal(tress_sim_step(sim, dt), TRESS_OK);
      float a = swing_deg(&c, &w, orig);
      assert_true(a <= 20.0f + 0.01f);
      if (a > most) most = a;
      /* the handle the renderer draws: rotated about the hinge by no more than the clamp */
      tress_xform worn = tress_xform_mul(expected_joint_world(&c, &w), worn_local);
      tress_xform drawn = tress_part_get_cframe(c.scene, w.handle);
      assert_true(acc_quat_angle_deg(worn.q, drawn.q) <= 20.0f + 0.01f);
      float lever_worn[3], lever_drawn[3];
      tress_xform J = expected_joint_world(&c, &w);
      for (int k = 0; k < 3; k++) {
        lever_worn[k] = worn.p[k] - J.p[k];
        lever_drawn[k] = drawn.p[k] - J.p[k];
      }
      float lw = sqrtf(lever_worn[0] * lever_worn[0] + lever_worn[1] * lever_worn[1] + lever_worn[2] * lever_worn[2]);
      float ld = sqrtf(lever_drawn[0] * lever_drawn[0] + lever_drawn[1] * lever_drawn[1] + lever_drawn[2] * lever_drawn[2]);
      assert_true(fabsf(lw - ld) < 1e-4f); /* rotated about the hinge, never stretched */
    }
    assert_true(most > 19.0f); /* the wind really pushed it to the clamp */
    tress_sim_destroy(sim);
    tress_scene_destroy(c.scene);
  }
}

static void test_rebind_returns_the_handle_and_never_recaptures_rest(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_MOTOR6D, false, false);
  acc_scene_state before = acc_state(c.scene, &w);
  float wind[3] = {60, 0, 0};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
  tress_handle_id a, b;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &a), TRESS_OK);
  for (int round = 0; round < 5; round++) {
    acc_run(sim, 1.0 / 60, 40);
    assert_true(swing_deg(&c, &w, before.joint.c1) > 3.0f); /* swung when rebinding */
    assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &b), TRESS_OK);
    assert_true(a.index1 == b.index1 && a.generation == b.generation);
    assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  }
  tress_handle_destroy(sim, a);
  acc_scene_state after = acc_state(c.scene, &w);
  assert_true(acc_xform_bits_equal(after.joint.c0, before.joint.c0));
  assert_true(acc_xform_bits_equal(after.joint.c1, before.joint.c1));
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

static void test_centred_handle_swings_on_a_synthetic_lever(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_WELD, false, true);
  float wind[3] = {60, 0, 0};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, NULL), TRESS_OK);
  tress_xform orig = acc_handle_offset(c.scene, w.joint, (tress_id){0}, false);
  tress_xform hinge = expected_joint_world(&c, &w);
  acc_run(sim, 1.0 / 60, 120);
  tress_xform drawn = tress_part_get_cframe(c.scene, w.handle);
  /* it turned, about its own centre (the hinge), without NaNs */
  assert_true(tress_xform_is_finite(drawn));
  assert_true(swing_deg(&c, &w, orig) > 3.0f);
  for (int k = 0; k < 3; k++) assert_true(fabsf(drawn.p[k] - hinge.p[k]) < 1e-4f);
  /* the synthetic bob hangs down the handle's up vector, so wind along +x tips the up vector
   * toward -x: the handle's bottom swings downwind */
  const float up[3] = {0, 1, 0};
  float worn_up[3], drawn_up[3];
  tress_xform worn = tress_xform_mul(hinge, tress_xform_inverse(orig));
  tress_quat_rotate(worn.q, up, worn_up);
  tress_quat_rotate(drawn.q, up, drawn_up);
  assert_true(drawn_up[0] < worn_up[0] - 0.05f);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

/* The worn pose follows the body (rotation and motion), and a teleport snaps instead of whipping. */
static void test_follows_animation_and_snaps_on_teleport(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  tress_sim *sim = acc_sim(c.scene, NULL, NULL, 20, 100000);
  tress_accessory_settings s = tress_default_accessory_settings();
  s.gravity_scale = 0;
  s.stiffness = 0.3f;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, &s, NULL), TRESS_OK);
  tress_xform orig = tress_attachment_get_cframe(c.scene, w.handle_attachment);
  acc_run(sim, 1.0 / 60, 5);
  /* turn the head 90 degrees and hold: the accessory settles back onto its worn pose */
  tress_part_set_cframe(c.scene, c.head, acc_rot(0, 1, 0, 90, 0, 5, 0));
  acc_run(sim, 1.0 / 60, 240);
  assert_true(swing_deg(&c, &w, orig) < 0.05f);
  tress_xform worn = tress_xform_mul(expected_joint_world(&c, &w), tress_xform_inverse(orig));
  assert_true(tress_xform_distance(tress_part_get_cframe(c.scene, w.handle), worn) < 1e-3f);
  /* teleport 200 units: the next frame shows the worn pose, no whip */
  tress_part_set_cframe(c.scene, c.head, acc_rot(0, 1, 0, 90, 200, 5, 0));
  assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
  assert_true(swing_deg(&c, &w, orig) < 0.05f);
  /* while a 1-unit step in one frame is motion, and swings it */
  tress_part_set_cframe(c.scene, c.head, acc_rot(0, 1, 0, 90, 201, 5, 0));
  assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
  assert_true(swing_deg(&c, &w, orig) > 1.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

/* A game-marked teleport (tress_sim_reset's writer part) snaps a swinging accessory bound under
 * the root to its worn pose on the next frame; without it the swing carries on. */
static void test_reset_under_root_snaps_the_pendulum(void **state) {
  (void)state;
  for (int marked = 0; marked < 2; marked++) {
    acc_character c = acc_character_make();
    acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
    tress_sim *sim = acc_sim(c.scene, NULL, NULL, 20, 100000);
    tress_accessory_settings s = tress_default_accessory_settings();
    s.gravity_scale = 0;
    assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, &s, NULL), TRESS_OK);
    tress_xform orig = acc_handle_offset(c.scene, w.joint, w.handle_attachment, false);
    for (int f = 1; f <= 20; f++) { /* whip the head sideways: the accessory swings */
      tress_part_set_cframe(c.scene, c.head, tress_xform_from_pos(0.3f * (float)f, 5, 0));
      assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    }
    assert_true(swing_deg(&c, &w, orig) > 1.0f);
    tress_id root = tress_instance_get_parent(c.scene, w.accessory); /* the accessory lies under it */
    if (marked) tress_sim_reset(sim, root);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    float after = swing_deg(&c, &w, orig);
    if (marked) assert_true(after < 0.05f);
    else assert_true(after > 1.0f);
    tress_sim_destroy(sim);
    tress_scene_destroy(c.scene);
  }
}

static void test_bad_input_is_refused_and_changes_nothing(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  tress_sim *sim = acc_sim(c.scene, NULL, NULL, 20, 1000);
  tress_handle_id h;

  /* no Handle */
  tress_id bare = th_instance(c.scene, TRESS_KIND_ACCESSORY, "Bare", c.model);
  uint32_t n = tress_scene_get_instance_count(c.scene);
  assert_int_equal(tress_sim_bind_accessory(sim, bare, NULL, &h), TRESS_ERR_NOTHING_TO_BIND);
  assert_true(tress_handle_is_null(h));
  assert_int_equal(tress_scene_get_instance_count(c.scene), n);

  /* a Handle but no joint holding it on; a disabled joint holds nothing */
  acc_worn loose = acc_wear(&c, "Loose", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  tress_joint_set_enabled(c.scene, loose.joint, false);
  acc_scene_state st = acc_state(c.scene, &loose);
  assert_int_equal(tress_sim_bind_accessory(sim, loose.accessory, NULL, &h), TRESS_ERR_NOTHING_TO_BIND);
  acc_scene_state st2 = acc_state(c.scene, &loose);
  acc_assert_state_equal(&st, &st2);

  /* a joint pointing at a destroyed body part */
  acc_worn stale = acc_wear(&c, "Stale", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  tress_id old_head = th_instance(c.scene, TRESS_KIND_PART, "OldHead", c.model);
  tress_joint jd = acc_joint(c.scene, stale.joint);
  jd.part0 = old_head;
  tress_joint_set_def(c.scene, stale.joint, &jd);
  tress_instance_destroy(c.scene, old_head);
  st = acc_state(c.scene, &stale);
  assert_int_equal(tress_sim_bind_accessory(sim, stale.accessory, NULL, &h), TRESS_ERR_STALE_ID);
  st2 = acc_state(c.scene, &stale);
  acc_assert_state_equal(&st, &st2);
  assert_string_not_equal(tress_result_name(TRESS_ERR_STALE_ID), "");

  /* a RigidConstraint whose body attachment is gone */
  acc_worn rigid = acc_wear(&c, "Rigid", TRESS_ACCESSORY_HAT, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  tress_instance_destroy(c.scene, rigid.body_attachment);
  st = acc_state(c.scene, &rigid);
  assert_int_equal(tress_sim_bind_accessory(sim, rigid.accessory, NULL, &h), TRESS_ERR_STALE_ID);
  st2 = acc_state(c.scene, &rigid);
  acc_assert_state_equal(&st, &st2);

  /* NaN in a joint offset, on either side, for Weld and Motor6D */
  for (int kind = 0; kind < 2; kind++) {
    for (int side = 0; side < 2; side++) {
      acc_worn nan_w = acc_wear(&c, "NaN", TRESS_ACCESSORY_HAIR, kind ? TRESS_JOINT_MOTOR6D : TRESS_JOINT_WELD, false, false);
      jd = acc_joint(c.scene, nan_w.joint);
      if (side) jd.c1.p[1] = NAN;
      else jd.c0.q[2] = NAN;
      tress_joint_set_def(c.scene, nan_w.joint, &jd);
      st = acc_state(c.scene, &nan_w);
      assert_int_equal(tress_sim_bind_accessory(sim, nan_w.accessory, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
      st2 = acc_state(c.scene, &nan_w);
      acc_assert_state_equal(&st, &st2);
    }
  }
  /* NaN in the handle attachment of a RigidConstraint and of a WeldConstraint (no swap made) */
  acc_worn nan_r = acc_wear(&c, "NaNRigid", TRESS_ACCESSORY_HAT, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  tress_xform bad = tress_attachment_get_cframe(c.scene, nan_r.handle_attachment);
  bad.q[0] = NAN;
  tress_attachment_set_cframe(c.scene, nan_r.handle_attachment, bad);
  st = acc_state(c.scene, &nan_r);
  assert_int_equal(tress_sim_bind_accessory(sim, nan_r.accessory, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  st2 = acc_state(c.scene, &nan_r);
  acc_assert_state_equal(&st, &st2);
  acc_worn nan_wc = acc_wear(&c, "NaNWC", TRESS_ACCESSORY_HAT, TRESS_JOINT_WELD_CONSTRAINT, false, false);
  tress_attachment_set_cframe(c.scene, nan_wc.handle_attachment, bad);
  st = acc_state(c.scene, &nan_wc);
  assert_int_equal(tress_sim_bind_accessory(sim, nan_wc.accessory, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  st2 = acc_state(c.scene, &nan_wc);
  acc_assert_state_equal(&st, &st2);
  assert_true(acc_joint(c.scene, nan_wc.joint).enabled);

  /* bad settings, wrong kinds, stale ids */
  acc_worn good = acc_wear(&c, "Good", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  st = acc_state(c.scene, &good);
  tress_accessory_settings s = tress_default_accessory_settings();
  s.max_swing_degrees = NAN;
  assert_int_equal(tress_sim_bind_accessory(sim, good.accessory, &s, &h), TRESS_ERR_INVALID_ARGUMENT);
  s = tress_default_accessory_settings();
  s.damping = INFINITY;
  assert_int_equal(tress_sim_bind_accessory(sim, good.accessory, &s, &h), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_bind_accessory(sim, good.handle, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_bind_accessory(NULL, good.accessory, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  tress_id gone = th_instance(c.scene, TRESS_KIND_ACCESSORY, "Gone", c.model);
  tress_instance_destroy(c.scene, gone);
  assert_int_equal(tress_sim_bind_accessory(sim, gone, NULL, &h), TRESS_ERR_STALE_ID);
  st2 = acc_state(c.scene, &good);
  acc_assert_state_equal(&st, &st2);
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);

  /* out-of-range settings clamp instead: a 500-degree swing is a 180-degree one */
  s = tress_default_accessory_settings();
  s.max_swing_degrees = 500;
  s.damping = 3;
  assert_int_equal(tress_sim_bind_accessory(sim, good.accessory, &s, &h), TRESS_OK);
  acc_run(sim, 1.0 / 60, 30);
  assert_true(tress_xform_is_finite(tress_part_get_cframe(c.scene, good.handle)));
  /* live settings: NaN refused, wrong handle kind refused */
  assert_int_equal(tress_handle_set_accessory_settings(sim, h, &(tress_accessory_settings){NAN, 0, 0, 0, 0}),
                   TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_handle_set_accessory_settings(sim, h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  tress_handle_destroy(sim, h);
  assert_int_equal(tress_handle_set_accessory_settings(sim, h, &s), TRESS_ERR_STALE_ID);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

static void test_live_settings_retune_the_clamp(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, true, false);
  float wind[3] = {300, 0, 0};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_OK);
  tress_xform orig = acc_handle_offset(c.scene, w.joint, (tress_id){0}, true);
  acc_run(sim, 1.0 / 60, 60);
  assert_true(swing_deg(&c, &w, orig) > 20.0f);
  tress_accessory_settings s = tress_default_accessory_settings();
  s.max_swing_degrees = 5;
  assert_int_equal(tress_handle_set_accessory_settings(sim, h, &s), TRESS_OK);
  for (int f = 0; f < 60; f++) {
    assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    assert_true(swing_deg(&c, &w, orig) <= 5.01f);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

static void test_joint_destroyed_mid_sim_releases_the_handle(void **state) {
  (void)state;
  /* 0: the joint itself, 1: the body part it points at, 2: the accessory, 3 (WeldConstraint
   * only): the swap weld destroyed by someone else */
  for (size_t i = 0; i < KIND_CASE_COUNT; i++) {
    for (int what = 0; what < 4; what++) {
      if (what == 3 && KIND_CASES[i].kind != TRESS_JOINT_WELD_CONSTRAINT) continue;
      acc_character c = acc_character_make();
      acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, KIND_CASES[i].kind, KIND_CASES[i].side0, false);
      float wind[3] = {50, 0, 0};
      tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
      tress_handle_id h;
      assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_OK);
      tress_id weld = steered_joint(&c, &w);
      acc_run(sim, 1.0 / 60, 30);
      if (what == 0) tress_instance_destroy(c.scene, w.joint);
      if (what == 1) tress_instance_destroy(c.scene, c.head);
      if (what == 2) tress_instance_destroy(c.scene, w.accessory);
      if (what == 3) tress_instance_destroy(c.scene, weld);
      /* a destroyed joint is heard at once (listener); destroyed parts are found by the next frame */
      if (what != 1) assert_false(tress_handle_is_valid(sim, h));
      acc_run(sim, 1.0 / 60, 2);
      assert_false(tress_handle_is_valid(sim, h));
      assert_int_equal(tress_sim_get_stats(sim).bound, 0);
      if (w.kind == TRESS_JOINT_WELD_CONSTRAINT) {
        /* whatever went, the swap weld went with the handle */
        assert_false(tress_instance_is_valid(c.scene, weld));
        if (tress_instance_is_valid(c.scene, w.joint)) assert_true(acc_joint(c.scene, w.joint).enabled);
      }
      acc_run(sim, 1.0 / 60, 2);
      tress_sim_destroy(sim);
      tress_scene_destroy(c.scene);
    }
  }
}

/* Pendulums sit outside max_chains (0 here), count in stats, and only distance-cull. */
static void test_pendulums_skip_the_budget_but_distance_cull(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  acc_worn w2 = acc_wear(&c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  tress_id cape = th_instance(c.scene, TRESS_KIND_PART, "Cape", c.model);
  tress_part_set_cframe(c.scene, cape, tress_xform_from_pos(0, 4, 0));
  tress_id b0 = th_instance(c.scene, TRESS_KIND_BONE, "Root", cape);
  tress_id b1 = th_instance(c.scene, TRESS_KIND_BONE, "Tip", b0);
  tress_bone_set_cframe(c.scene, b1, tress_xform_from_pos(0.5f, 0, 0));
  float wind[3] = {50, 0, 0};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 0, 50);
  float near[3] = {0, 5, 10};
  tress_sim_set_camera(sim, near);
  tress_handle_id ha, hb, hc;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &ha), TRESS_OK);
  assert_int_equal(tress_sim_bind_accessory(sim, w2.accessory, NULL, &hb), TRESS_OK);
  assert_int_equal(tress_sim_bind(sim, cape, NULL, &hc), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).bound, 3);
  tress_xform orig = acc_handle_offset(c.scene, w.joint, (tress_id){0}, false);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
  tress_sim_stats st = tress_sim_get_stats(sim);
  assert_int_equal(st.substeps, 1);
  assert_int_equal(st.simulated, 2); /* two pendulums, one substep each; the chain is over budget */
  assert_true(tress_handle_is_awake(sim, ha) && tress_handle_is_awake(sim, hb));
  assert_false(tress_handle_is_awake(sim, hc));
  acc_run(sim, 1.0 / 60, 30);
  assert_true(swing_deg(&c, &w, orig) > 3.0f);
  /* a hitch: three substeps each */
  assert_int_equal(tress_sim_step(sim, 0.5), TRESS_OK);
  st = tress_sim_get_stats(sim);
  assert_int_equal(st.substeps, 3);
  assert_int_equal(st.simulated, 6);
  /* camera far away: culled, frozen where they were, no writes */
  float far[3] = {0, 5, 1000};
  tress_sim_set_camera(sim, far);
  tress_xform frozen = acc_handle_offset(c.scene, w.joint, (tress_id){0}, false);
  tress_xform frozen_handle = tress_part_get_cframe(c.scene, w.handle);
  for (int f = 0; f < 20; f++) {
    assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    assert_int_equal(tress_sim_get_stats(sim).simulated, 0);
  }
  assert_false(tress_handle_is_awake(sim, ha));
  assert_true(acc_xform_bits_equal(acc_handle_offset(c.scene, w.joint, (tress_id){0}, false), frozen));
  assert_true(acc_xform_bits_equal(tress_part_get_cframe(c.scene, w.handle), frozen_handle));
  /* back in range: awake again */
  tress_sim_set_camera(sim, near);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).simulated, 2);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

/* Joints are searched under the handle, then under the accessory, then anywhere in the model. */
static void test_joint_search_order(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  float wind[3] = {60, 0, 0};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
  /* a weld moved under the Head (model tier) plus a rigid constraint moved under the accessory
   * (accessory tier): the accessory tier wins */
  acc_worn w = acc_wear(&c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  assert_true(tress_instance_set_parent(c.scene, w.joint, c.head));
  tress_id weld = w.joint;
  tress_xform weld_c1 = acc_joint(c.scene, weld).c1;
  tress_id ha = th_instance(c.scene, TRESS_KIND_ATTACHMENT, "HairAttachment", w.handle);
  tress_attachment_set_cframe(c.scene, ha, acc_handle_side(false));
  tress_id ba = th_instance(c.scene, TRESS_KIND_ATTACHMENT, "HairAttachment", c.head);
  tress_attachment_set_cframe(c.scene, ba, acc_body_side());
  tress_id rigid = th_instance(c.scene, TRESS_KIND_JOINT, "Rigid", w.accessory);
  tress_joint def;
  memset(&def, 0, sizeof def);
  def.kind = TRESS_JOINT_RIGID_CONSTRAINT;
  def.attachment0 = ba;
  def.attachment1 = ha;
  def.enabled = true;
  tress_joint_set_def(c.scene, rigid, &def);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_OK);
  tress_xform ha_orig = tress_attachment_get_cframe(c.scene, ha);
  acc_run(sim, 1.0 / 60, 30);
  tress_xform ha_now = tress_attachment_get_cframe(c.scene, ha);
  assert_true(acc_quat_angle_deg(ha_now.q, ha_orig.q) > 3.0f); /* the rigid constraint steers */
  assert_true(acc_xform_bits_equal(acc_joint(c.scene, weld).c1, weld_c1)); /* the weld does not */
  tress_handle_destroy(sim, h);
  /* without the accessory-tier joint, the weld under the Head (model tier) is found */
  tress_instance_destroy(c.scene, rigid);
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_OK);
  acc_run(sim, 1.0 / 60, 30);
  assert_true(acc_quat_angle_deg(acc_joint(c.scene, weld).c1.q, weld_c1.q) > 3.0f);
  tress_handle_destroy(sim, h);
  assert_true(acc_xform_bits_equal(acc_joint(c.scene, weld).c1, weld_c1));
  /* outside any model there is no model tier: a loose accessory's weld under a folder is not found */
  tress_id folder = th_instance(c.scene, TRESS_KIND_FOLDER, "Props", c.workspace);
  assert_true(tress_instance_set_parent(c.scene, w.accessory, folder));
  assert_true(tress_instance_set_parent(c.scene, weld, folder));
  assert_int_equal(tress_sim_bind_accessory(sim, w.accessory, NULL, &h), TRESS_ERR_NOTHING_TO_BIND);
  tress_sim_destroy(sim);
  tress_scene_destroy(c.scene);
}

static void test_sim_destroy_restores_every_accessory(void **state) {
  (void)state;
  acc_character c = acc_character_make();
  acc_worn w[KIND_CASE_COUNT];
  acc_scene_state before[KIND_CASE_COUNT];
  for (size_t i = 0; i < KIND_CASE_COUNT; i++) {
    w[i] = acc_wear(&c, "Acc", TRESS_ACCESSORY_HAIR, KIND_CASES[i].kind, KIND_CASES[i].side0, false);
    before[i] = acc_state(c.scene, &w[i]);
  }
  float wind[3] = {80, 0, 30};
  tress_sim *sim = acc_sim(c.scene, acc_wind, wind, 20, 1000);
  for (size_t i = 0; i < KIND_CASE_COUNT; i++)
    assert_int_equal(tress_sim_bind_accessory(sim, w[i].accessory, NULL, NULL), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).bound, KIND_CASE_COUNT);
  acc_run(sim, 1.0 / 60, 60);
  tress_sim_destroy(sim);
  for (size_t i = 0; i < KIND_CASE_COUNT; i++) {
    acc_scene_state after = acc_state(c.scene, &w[i]);
    assert_true(acc_xform_bits_equal(after.joint.c0, before[i].joint.c0));
    assert_true(acc_xform_bits_equal(after.joint.c1, before[i].joint.c1));
    assert_true(acc_xform_bits_equal(after.handle_attachment, before[i].handle_attachment));
    assert_int_equal(after.joint.enabled, true);
    assert_true(tress_xform_distance(after.handle_cframe, before[i].handle_cframe) < 1e-5f);
  }
  assert_int_equal(tress_scene_get_instance_count(c.scene), before[KIND_CASE_COUNT - 1].instances);
  tress_scene_destroy(c.scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_settings_match_the_seed),
      cmocka_unit_test(test_each_joint_kind_sways_and_destroy_restores),
      cmocka_unit_test(test_body_motion_sways_the_accessory),
      cmocka_unit_test(test_swing_never_exceeds_the_clamp),
      cmocka_unit_test(test_rebind_returns_the_handle_and_never_recaptures_rest),
      cmocka_unit_test(test_centred_handle_swings_on_a_synthetic_lever),
      cmocka_unit_test(test_follows_animation_and_snaps_on_teleport),
      cmocka_unit_test(test_bad_input_is_refused_and_changes_nothing),
      cmocka_unit_test(test_reset_under_root_snaps_the_pendulum),
      cmocka_unit_test(test_live_settings_retune_the_clamp),
      cmocka_unit_test(test_joint_destroyed_mid_sim_releases_the_handle),
      cmocka_unit_test(test_pendulums_skip_the_budget_but_distance_cull),
      cmocka_unit_test(test_joint_search_order),
      cmocka_unit_test(test_sim_destroy_restores_every_accessory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
