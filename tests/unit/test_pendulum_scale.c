/* test_pendulum_scale.c - accessory pendulums under uniform scale at run time (sim.h "Scale"):
 * an accessory built at scale 2 (twice the joint offsets, the head on twice the path) traces
 * exactly twice the scale-1 path about its hinge, on a real lever and on the synthetic one; one
 * bound at scale 1 and scaled to 2 does the same; a non-uniform scale is refused at bind (the
 * scene untouched, bind_character says so) and, appearing later, holds the accessory at its worn
 * pose with tress_handle_get_status reporting it until the scale is uniform again. */
#include "support/accessory_fixture.h"

#define DT (1.0 / 60.0)
#define FRAMES 240

typedef struct rig {
  acc_character c;
  acc_worn w;
  tress_sim *sim;
  tress_handle_id handle;
  float wind[3];
} rig;

/* The fixture's joint offsets with their positions times geom, the handle placed by the joint. */
static void scale_offsets(rig *r, float geom) {
  tress_joint j = acc_joint(r->c.scene, r->w.joint);
  for (int k = 0; k < 3; k++) {
    j.c0.p[k] *= geom;
    j.c1.p[k] *= geom;
  }
  tress_joint_set_def(r->c.scene, r->w.joint, &j);
  assert_true(tress_joint_solve(r->c.scene, r->w.joint));
}

/* Character scaled `scale`, joint offsets times geom, head placed at geom x its rest. */
static void rig_make(rig *r, const float scale[3], float geom, bool centred) {
  memset(r, 0, sizeof *r);
  r->c = acc_character_make();
  assert_true(tress_instance_set_scale(r->c.scene, r->c.model, scale));
  tress_part_set_cframe(r->c.scene, r->c.head, tress_xform_from_pos(0, 5 * geom, 0));
  r->w = acc_wear(&r->c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, centred);
  scale_offsets(r, geom);
  r->wind[0] = 6.0f;
  r->wind[2] = 3.0f;
  r->sim = acc_sim(r->c.scene, acc_wind, r->wind, 20, 1e6f);
}

static tress_result rig_bind(rig *r) {
  tress_accessory_settings s = tress_default_accessory_settings();
  s.max_swing_degrees = 70.0f; /* wide enough that the clamp does not shape the path */
  return tress_sim_bind_accessory(r->sim, r->w.accessory, &s, &r->handle);
}

static void rig_free(rig *r) {
  tress_sim_destroy(r->sim);
  tress_scene_destroy(r->c.scene);
}

/* The head at time t, in units times k: a figure eight, a bob and a turn. */
static void rig_pose(rig *r, double t, float k) {
  float up[3] = {0.0f, 1.0f, 0.0f};
  tress_xform head = tress_xform_from_axis_angle(up, 0.6f * (float)sin(t * 3.0));
  head.p[0] = k * (0.8f * (float)sin(t * 4.0));
  head.p[1] = k * (5.0f + 0.3f * (float)sin(t * 7.0));
  head.p[2] = k * (0.5f * (float)cos(t * 4.0));
  tress_part_set_cframe(r->c.scene, r->c.head, head);
}

/* The hinge: the joint's frame from the head (body) side. */
static tress_xform hinge_of(const rig *r) {
  tress_joint j = acc_joint(r->c.scene, r->w.joint);
  return tress_xform_mul(tress_part_get_cframe(r->c.scene, r->c.head), j.c0);
}

/* The angle between two rotations, in degrees, from their normalized dot (the drawn frames are
 * products of joint offsets, a few ulps off unit length). */
static float turn_deg(const float a[4], const float b[4]) {
  double na = 0, nb = 0, d = 0;
  for (int k = 0; k < 4; k++) {
    na += (double)a[k] * a[k];
    nb += (double)b[k] * b[k];
    d += (double)a[k] * b[k];
  }
  d = fabs(d) / sqrt(na * nb);
  return (float)(2.0 * acos(d > 1.0 ? 1.0 : d) * 180.0 / M_PI);
}

static float dist3(const float a[3], const float b[3]) {
  float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

typedef struct compare {
  float worst_rel, worst_abs, worst_turn_deg, travel, most_swing_deg;
} compare;

/* Both rigs on the path (two at twice the units) for FRAMES frames: how far two's handle is
 * from twice one's, about the hinge and absolutely, and how far their turns differ. */
static compare run_both(rig *one, rig *two) {
  compare m = {0};
  tress_xform worn = tress_part_get_cframe(one->c.scene, one->w.handle);
  tress_xform worn_local = tress_xform_inv_mul(hinge_of(one), worn);
  float last[3] = {0};
  double t = 0.0;
  for (int f = 0; f < FRAMES; f++) {
    t += DT;
    rig_pose(one, t, 1.0f);
    rig_pose(two, t, 2.0f);
    assert_int_equal(tress_sim_step(one->sim, DT), TRESS_OK);
    assert_int_equal(tress_sim_step(two->sim, DT), TRESS_OK);
    tress_xform a = tress_part_get_cframe(one->c.scene, one->w.handle);
    tress_xform b = tress_part_get_cframe(two->c.scene, two->w.handle);
    tress_xform ha = hinge_of(one), hb = hinge_of(two);
    float rel_a[3], rel_b[3], twice_rel[3], twice_abs[3];
    for (int k = 0; k < 3; k++) {
      rel_a[k] = a.p[k] - ha.p[k];
      rel_b[k] = b.p[k] - hb.p[k];
      twice_rel[k] = 2.0f * rel_a[k];
      twice_abs[k] = 2.0f * a.p[k];
    }
    m.worst_rel = fmaxf(m.worst_rel, dist3(twice_rel, rel_b));
    m.worst_abs = fmaxf(m.worst_abs, dist3(twice_abs, b.p));
    m.worst_turn_deg = fmaxf(m.worst_turn_deg, turn_deg(a.q, b.q));
    /* how far one's handle turned from its worn pose about the hinge */
    tress_xform now_worn = tress_xform_mul(ha, worn_local);
    m.most_swing_deg = fmaxf(m.most_swing_deg, turn_deg(now_worn.q, a.q));
    if (f > 0) m.travel += dist3(rel_a, last);
    memcpy(last, rel_a, sizeof last);
  }
  print_message("twice the path: %.2g about the hinge, %.2g absolute, turns %.2g deg apart; swung %.1f deg, "
                "travel %.2f\n",
                (double)m.worst_rel, (double)m.worst_abs, (double)m.worst_turn_deg, (double)m.most_swing_deg,
                (double)m.travel);
  return m;
}

static void built_at_twice_traces_twice(bool centred) {
  const float unit[3] = {1, 1, 1}, twice[3] = {2, 2, 2};
  rig one, two;
  rig_make(&one, unit, 1.0f, centred);
  rig_make(&two, twice, 2.0f, centred);
  assert_int_equal(rig_bind(&one), TRESS_OK);
  assert_int_equal(rig_bind(&two), TRESS_OK);
  compare m = run_both(&one, &two);
  /* float noise of a 10-unit scene, not another motion (scale-1 gravity at scale 2 is 3 deg) */
  assert_true(m.worst_rel < 2e-4f);
  assert_true(m.worst_abs < 5e-4f);
  assert_true(m.worst_turn_deg < 0.02f);
  /* it really swung */
  assert_true(m.most_swing_deg > 5.0f);
  if (!centred) assert_true(m.travel > 0.5f);
  rig_free(&one);
  rig_free(&two);
}

static void test_built_at_scale_two_traces_twice_the_path(void **state) {
  (void)state;
  built_at_twice_traces_twice(false);
}

/* A centred handle swings on the synthetic lever, 0.75 studs at scale 1: 1.5 at scale 2. */
static void test_synthetic_lever_follows_the_scale(void **state) {
  (void)state;
  built_at_twice_traces_twice(true);
}

/* Bound at scale 1, then the game scales the character to 2 (and its body-side offset with it,
 * the game's geometry) before the first frame: the lever follows, and so does the path. */
static void test_scaled_after_bind_traces_twice_the_path(void **state) {
  (void)state;
  const float unit[3] = {1, 1, 1}, twice[3] = {2, 2, 2};
  rig one, two;
  rig_make(&one, unit, 1.0f, false);
  rig_make(&two, unit, 1.0f, false);
  assert_int_equal(rig_bind(&one), TRESS_OK);
  assert_int_equal(rig_bind(&two), TRESS_OK);
  tress_xform orig = acc_handle_offset(two.c.scene, two.w.joint, two.w.handle_attachment, false);
  assert_true(tress_instance_set_scale(two.c.scene, two.c.model, twice));
  tress_joint j = acc_joint(two.c.scene, two.w.joint);
  for (int k = 0; k < 3; k++) j.c0.p[k] *= 2.0f;
  tress_joint_set_offsets(two.c.scene, two.w.joint, j.c0, j.c1);
  compare m = run_both(&one, &two);
  assert_true(m.worst_rel < 2e-4f);
  assert_true(m.worst_turn_deg < 0.02f);
  assert_true(m.most_swing_deg > 5.0f);
  /* unbinding gives the game its own offset back, bit for bit */
  tress_handle_destroy(two.sim, two.handle);
  assert_true(acc_xform_bits_equal(acc_handle_offset(two.c.scene, two.w.joint, two.w.handle_attachment, false), orig));
  rig_free(&one);
  rig_free(&two);
}

static void test_non_uniform_scale_refused_at_bind(void **state) {
  (void)state;
  const float unit[3] = {1, 1, 1}, squashed[3] = {1, 2, 1};
  rig r;
  rig_make(&r, unit, 1.0f, false);
  assert_true(tress_instance_set_scale(r.c.scene, r.w.accessory, squashed));
  acc_scene_state before = acc_state(r.c.scene, &r.w);
  assert_int_equal(rig_bind(&r), TRESS_ERR_NON_UNIFORM_SCALE);
  assert_true(tress_handle_is_null(r.handle));
  acc_scene_state after = acc_state(r.c.scene, &r.w);
  acc_assert_state_equal(&before, &after);
  /* through bind_character: the model is uniform, the accessory in it is not */
  tress_character_def cd = tress_default_character_def();
  cd.model = r.c.model;
  tress_handle_id out[4];
  uint32_t count = 9;
  assert_int_equal(tress_sim_bind_character(r.sim, &cd, out, 4, &count), TRESS_ERR_NON_UNIFORM_SCALE);
  assert_int_equal(count, 0);
  /* uniform again: it binds */
  assert_true(tress_instance_set_scale(r.c.scene, r.w.accessory, unit));
  assert_int_equal(rig_bind(&r), TRESS_OK);
  assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_OK);
  rig_free(&r);
}

/* Bound at 1 and swinging, then squashed: held at the worn pose and reported; uniform again it
 * swings at its new size. */
static void test_non_uniform_scale_later_holds_the_worn_pose(void **state) {
  (void)state;
  const float unit[3] = {1, 1, 1}, squashed[3] = {2, 1, 2}, twice[3] = {2, 2, 2};
  rig r;
  rig_make(&r, unit, 1.0f, false);
  assert_int_equal(rig_bind(&r), TRESS_OK);
  tress_xform orig = acc_handle_offset(r.c.scene, r.w.joint, r.w.handle_attachment, false);
  double t = 0.0;
  for (int f = 0; f < 30; f++) {
    rig_pose(&r, t += DT, 1.0f);
    assert_int_equal(tress_sim_step(r.sim, DT), TRESS_OK);
  }
  assert_true(acc_quat_angle_deg(acc_handle_offset(r.c.scene, r.w.joint, r.w.handle_attachment, false).q, orig.q) > 3.0f);
  assert_true(tress_instance_set_scale(r.c.scene, r.c.model, squashed));
  for (int f = 0; f < 3; f++) {
    rig_pose(&r, t += DT, 1.0f);
    assert_int_equal(tress_sim_step(r.sim, DT), TRESS_OK);
    assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_ERR_NON_UNIFORM_SCALE);
    assert_true(acc_xform_bits_equal(acc_handle_offset(r.c.scene, r.w.joint, r.w.handle_attachment, false), orig));
  }
  assert_true(tress_instance_set_scale(r.c.scene, r.c.model, twice));
  float most = 0.0f, lever = 0.0f;
  for (int f = 0; f < 60; f++) {
    rig_pose(&r, t += DT, 1.0f);
    assert_int_equal(tress_sim_step(r.sim, DT), TRESS_OK);
    tress_xform off = acc_handle_offset(r.c.scene, r.w.joint, r.w.handle_attachment, false);
    most = fmaxf(most, acc_quat_angle_deg(off.q, orig.q));
    tress_xform h = tress_part_get_cframe(r.c.scene, r.w.handle);
    lever = dist3(h.p, hinge_of(&r).p);
  }
  assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_OK);
  assert_true(most > 3.0f);
  /* the handle hangs twice as far from its hinge as it was worn */
  float worn_lever = sqrtf(orig.p[0] * orig.p[0] + orig.p[1] * orig.p[1] + orig.p[2] * orig.p[2]);
  assert_float_equal(lever, 2.0f * worn_lever, 1e-4f);
  rig_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_built_at_scale_two_traces_twice_the_path),
      cmocka_unit_test(test_synthetic_lever_follows_the_scale),
      cmocka_unit_test(test_scaled_after_bind_traces_twice_the_path),
      cmocka_unit_test(test_non_uniform_scale_refused_at_bind),
      cmocka_unit_test(test_non_uniform_scale_later_holds_the_worn_pose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
