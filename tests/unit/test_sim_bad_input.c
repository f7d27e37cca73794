/* test_sim_bad_input.c - what the solver does with bad input: a clear error or a documented clamp,
 * and never a NaN written to a bone. Settings: damping and stiffness are clamped into [0, 1];
 * a non-finite setting is rejected with TRESS_ERR_INVALID_ARGUMENT; out-of-range sim
 * definitions (fixed_hz, max_substeps, units_per_stud, NaN gravity/wind) are clamped. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"
#include "tress/debug_draw.h"


static void test_bad_dt_is_rejected_and_changes_nothing(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  tress_xform before[4];
  for (int b = 0; b < 4; b++) before[b] = tress_bone_get_transform(scene, c.bones[b]);
  const double bad[] = {NAN, INFINITY, -INFINITY, -1.0 / 60.0};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tress_sim_step(sim, bad[i]), TRESS_ERR_INVALID_ARGUMENT);
    assert_int_equal(tress_sim_get_stats(sim).substeps, 0);
  }
  for (int b = 0; b < 4; b++) assert_true(fix_xform_equal(tress_bone_get_transform(scene, c.bones[b]), before[b]));
  /* the accumulator was not poisoned: the next good frame runs exactly one substep */
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).substeps, 1);
  fix_assert_finite(scene, &c);
  assert_int_equal(tress_sim_step(NULL, 1.0 / 60.0), TRESS_ERR_INVALID_ARGUMENT);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_nan_part_cframe_never_reaches_a_bone(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  float cam[3] = {0, 5, 0};
  tress_sim_set_camera(sim, cam);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  tress_xform bad = tress_xform_from_pos(NAN, 5, 0);
  tress_part_set_cframe(scene, c.part, bad);
  fix_run(sim, 1.0 / 60.0, 5);
  for (int b = 0; b < c.count; b++) assert_true(fix_xform_finite(tress_bone_get_transform(scene, c.bones[b])));
  bad = tress_xform_from_pos(0, 5, 0);
  bad.q[1] = INFINITY;
  tress_part_set_cframe(scene, c.part, bad);
  fix_run(sim, 1.0 / 60.0, 5);
  for (int b = 0; b < c.count; b++) assert_true(fix_xform_finite(tress_bone_get_transform(scene, c.bones[b])));
  /* recovers once the part is sane again */
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(1, 5, 0));
  fix_run(sim, 1.0 / 60.0, 30);
  fix_assert_finite(scene, &c);
  float root[3];
  fix_world_pos(scene, c.bones[0], root);
  assert_true(fabsf(root[0] - 1.0f) < 1e-5f);
  /* a chain bound while its part is NaN stays finite too */
  fix_chain d = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_part_set_cframe(scene, d.part, tress_xform_from_pos(NAN, NAN, NAN));
  assert_int_equal(tress_sim_bind(sim, d.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 5);
  for (int b = 0; b < d.count; b++) assert_true(fix_xform_finite(tress_bone_get_transform(scene, d.bones[b])));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_nan_animated_value_never_reaches_a_bone(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  tress_xform bad = tress_xform_identity();
  bad.q[2] = NAN;
  tress_bone_set_animated(scene, c.bones[0], bad); /* the pinned root */
  bad = tress_xform_from_pos(INFINITY, 0, 0);
  tress_bone_set_animated(scene, c.bones[2], bad); /* a simulated node */
  fix_run(sim, 1.0 / 60.0, 20);
  for (int b = 0; b < c.count; b++) assert_true(fix_xform_finite(tress_bone_get_transform(scene, c.bones[b])));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_zero_length_links_stay_finite(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.0f); /* every link zero length */
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.ambient_wind[0] = 30.0f;
  tress_sim *sim = tress_sim_create(&def);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  for (int i = 0; i < 60; i++) {
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos((float)sin(i * 0.5), 5, 0));
    fix_run(sim, 1.0 / 60.0, 1);
    fix_assert_finite(scene, &c);
  }
  float root[3], tip[3];
  fix_world_pos(scene, c.bones[0], root);
  fix_world_pos(scene, c.bones[4], tip);
  assert_true(fix_dist(root, tip) < 1e-4f); /* zero rest length is kept */
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_destroyed_root_destroys_the_handle(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  fix_chain other = fix_chain_make(scene, 2, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h, ho;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  assert_int_equal(tress_sim_bind(sim, other.part, NULL, &ho), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  assert_int_equal(tress_sim_get_stats(sim).bound, 2);
  tress_id dead = c.part;
  tress_instance_destroy(scene, dead);
  assert_false(tress_handle_is_valid(sim, h));
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  fix_run(sim, 1.0 / 60.0, 10); /* the survivor keeps stepping */
  assert_int_equal(tress_sim_get_stats(sim).simulated, 1);
  fix_assert_finite(scene, &other);
  /* the stale id is refused, the stale handle is harmless */
  assert_int_equal(tress_sim_bind(sim, dead, NULL, &h), TRESS_ERR_STALE_ID);
  assert_true(tress_handle_is_null(h));
  tress_handle_destroy(sim, h);
  assert_int_equal(tress_handle_set_chain_settings(sim, h, NULL), TRESS_ERR_STALE_ID);
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  /* a bone destroyed under a live chain: no crash, the rest keeps its rest lengths */
  tress_instance_destroy(scene, other.bones[3]);
  fix_run(sim, 1.0 / 60.0, 10);
  float p0[3], p1[3];
  fix_world_pos(scene, other.bones[1], p0);
  fix_world_pos(scene, other.bones[2], p1);
  assert_true(fabsf(fix_dist(p0, p1) - 0.5f) < 1e-4f);
  /* a part that is not a part */
  assert_int_equal(tress_sim_bind(sim, other.bones[0], NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_bind(NULL, other.part, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Tip position after a second with these settings (static root, default sim). */
static void tip_after(const tress_chain_settings *s, float out[3]) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, s, NULL), TRESS_OK);
  for (int i = 0; i < 60; i++) {
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos((float)sin(i * 0.3), 5, 0));
    fix_run(sim, 1.0 / 60.0, 1);
  }
  fix_world_pos(scene, c.bones[4], out);
  fix_assert_finite(scene, &c);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_out_of_range_settings_are_clamped(void **state) {
  (void)state;
  float a[3], b[3];
  tress_chain_settings s = tress_default_chain_settings();
  tress_chain_settings t = s;
  s.stiffness = 5.0f;
  t.stiffness = 1.0f;
  tip_after(&s, a);
  tip_after(&t, b);
  assert_true(fix_dist(a, b) == 0.0f);
  s = t = tress_default_chain_settings();
  s.stiffness = -3.0f;
  t.stiffness = 0.0f;
  tip_after(&s, a);
  tip_after(&t, b);
  assert_true(fix_dist(a, b) == 0.0f);
  s = t = tress_default_chain_settings();
  s.damping = 2.5f;
  t.damping = 1.0f;
  tip_after(&s, a);
  tip_after(&t, b);
  assert_true(fix_dist(a, b) == 0.0f);
  s = t = tress_default_chain_settings();
  s.damping = -1.0f;
  t.damping = 0.0f;
  tip_after(&s, a);
  tip_after(&t, b);
  assert_true(fix_dist(a, b) == 0.0f);
  /* absurd but finite scales are kept: the output is still finite */
  s = tress_default_chain_settings();
  s.gravity_scale = 3e38f;
  s.wind_scale = -3e38f;
  tip_after(&s, a);
  assert_true(isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]));
}

/* Finite but absurd gravity times an absurd scale overflows inside the solver (inf, then
 * inf * 0 = NaN in the link): the chain falls back to its animated pose, nothing non-finite is
 * written, and a sane chain next to it keeps simulating. */
static void test_overflow_never_reaches_a_bone(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  fix_chain sane = fix_chain_make(scene, 3, 5, 0, 5, 0.5f);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.gravity[1] = -3e38f;
  tress_sim *sim = tress_sim_create(&def);
  tress_chain_settings s = tress_default_chain_settings();
  s.gravity_scale = 3e38f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  tress_chain_settings calm = tress_default_chain_settings();
  calm.gravity_scale = 1e-37f; /* -30 units/s^2 after the absurd sim gravity */
  assert_int_equal(tress_sim_bind(sim, sane.part, &calm, NULL), TRESS_OK);
  for (int i = 0; i < 30; i++) {
    fix_run(sim, 1.0 / 60.0, 1);
    fix_assert_finite(scene, &c);
    fix_assert_finite(scene, &sane);
  }
  /* the overflowing chain shows its animated pose (identity transforms) */
  for (int b = 0; b < c.count; b++)
    assert_true(tress_xform_distance(tress_bone_get_transform(scene, c.bones[b]), tress_xform_identity()) <= 1e-5f);
  assert_true(fix_swung(scene, sane.bones[1]));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A VRM chain that overflows (an absurd stiffness times its part's scale: inf, then NaN in the
 * length) falls back to its animated pose where that pose is now. Its output writes rotations
 * only, and a non-finite aim must not pass for a zero one (which turns nothing and would leave the
 * chain NaN for good); its tile composes the animated world below the roots only when something
 * reads it, and the recovery does. So the simulated links the debug draw shows lie on the
 * animated bones, though the head moved 0.8 units since the chain last snapped (at its bind). */
static void test_vrm_overflow_recovers_where_the_animation_is(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.05f);
  const float ten[3] = {10.0f, 10.0f, 10.0f};
  assert_true(tress_instance_set_scale(scene, c.part, ten));
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  s.model = TRESS_SPRING_VRM;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, &h), TRESS_OK);
  for (int f = 0; f <= 40; f++) {
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos(0.02f * (float)f, 5, 0));
    fix_run(sim, 1.0 / 60.0, 1);
  }
  s.stiffness = 3e38f; /* x the scale of 10: inf */
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 1);
  fix_assert_finite(scene, &c);
  tress_debug_shape shapes[64];
  uint32_t count = 0;
  tress_debug_draw_opts o = tress_default_debug_draw_opts();
  assert_int_equal(tress_sim_debug_draw(sim, &o, shapes, 64, &count), TRESS_OK);
  assert_true(count <= 64);
  int links = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (shapes[i].role != TRESS_DEBUG_BONE_SIMULATED) continue;
    tress_xform animated = tress_bone_get_world_animated(scene, shapes[i].instance);
    float d[3] = {shapes[i].b[0] - animated.p[0], shapes[i].b[1] - animated.p[1], shapes[i].b[2] - animated.p[2]};
    assert_true(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < 1e-3f);
    links++;
  }
  assert_int_equal(links, 3);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A gravity direction (the VRM model's) is only a direction: one too long to square (|v| >
 * 1.8e19) still gives it, and the chain hangs as it does with the same direction at length 1. */
static void test_huge_gravity_direction_keeps_its_direction(void **state) {
  (void)state;
  const float dirs[2][3] = {{0.6f, -0.8f, 0.0f}, {0.6e20f, -0.8e20f, 0.0f}};
  float tip[2][3];
  for (int i = 0; i < 2; i++) {
    tress_scene *scene = th_scene();
    fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
    tress_sim *sim = fix_sim(scene, 10, 1000.0f);
    tress_chain_settings s = tress_default_chain_settings();
    s.model = TRESS_SPRING_VRM;
    memcpy(s.gravity_dir, dirs[i], sizeof s.gravity_dir);
    assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
    fix_run(sim, 1.0 / 60.0, 90);
    fix_assert_finite(scene, &c);
    fix_world_pos(scene, c.bones[c.count - 1], tip[i]);
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
  assert_true(tip[0][0] > 0.1f); /* it swung toward +x, so the direction reached the solver */
  assert_true(fix_dist(tip[0], tip[1]) < 1e-4f);
}

static void test_non_finite_settings_are_rejected(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  const float bad[] = {NAN, INFINITY, -INFINITY};
  for (int field = 0; field < 4; field++) {
    for (size_t i = 0; i < 3; i++) {
      tress_chain_settings s = tress_default_chain_settings();
      float *f = field == 0 ? &s.damping : field == 1 ? &s.stiffness : field == 2 ? &s.gravity_scale : &s.wind_scale;
      *f = bad[i];
      tress_handle_id h;
      assert_int_equal(tress_sim_bind(sim, c.part, &s, &h), TRESS_ERR_INVALID_ARGUMENT);
      assert_true(tress_handle_is_null(h));
    }
  }
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  tress_chain_settings s = tress_default_chain_settings();
  s.damping = NAN;
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_handle_set_chain_settings(sim, h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  fix_run(sim, 1.0 / 60.0, 30);
  fix_assert_finite(scene, &c);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_non_finite_bone_rest_is_rejected(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_bone_set_cframe(scene, c.bones[2], tress_xform_from_pos(NAN, 0, 0));
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  assert_true(tress_handle_is_null(h));
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  assert_false(tress_bone_is_simulated(scene, c.bones[0]));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_out_of_range_sim_def_is_clamped(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 4;
  def.max_distance = 10.0f;
  def.fixed_hz = 0.0f;
  def.max_substeps = 0;
  def.units_per_stud = -2.0f;
  def.gravity[1] = NAN;
  def.ambient_wind[0] = INFINITY;
  tress_sim *sim = tress_sim_create(&def);
  assert_non_null(sim);
  const tress_sim_def *d = tress_sim_get_def(sim);
  assert_true(d->fixed_hz == 1.0f);
  assert_int_equal(d->max_substeps, 1);
  assert_true(d->units_per_stud == 1.0f);
  assert_true(d->gravity[1] == 0.0f);
  assert_true(d->ambient_wind[0] == 0.0f);
  tress_sim_destroy(sim);
  def.fixed_hz = NAN;
  def.max_substeps = 1000;
  sim = tress_sim_create(&def);
  assert_true(tress_sim_get_def(sim)->fixed_hz == 60.0f);
  assert_int_equal(tress_sim_get_def(sim)->max_substeps, 64);
  tress_sim_destroy(sim);
  def.scene = NULL;
  assert_null(tress_sim_create(&def));
  assert_null(tress_sim_create(NULL));
  tress_scene_destroy(scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_dt_is_rejected_and_changes_nothing),
      cmocka_unit_test(test_nan_part_cframe_never_reaches_a_bone),
      cmocka_unit_test(test_nan_animated_value_never_reaches_a_bone),
      cmocka_unit_test(test_zero_length_links_stay_finite),
      cmocka_unit_test(test_destroyed_root_destroys_the_handle),
      cmocka_unit_test(test_out_of_range_settings_are_clamped),
      cmocka_unit_test(test_overflow_never_reaches_a_bone),
      cmocka_unit_test(test_vrm_overflow_recovers_where_the_animation_is),
      cmocka_unit_test(test_huge_gravity_direction_keeps_its_direction),
      cmocka_unit_test(test_non_finite_settings_are_rejected),
      cmocka_unit_test(test_non_finite_bone_rest_is_rejected),
      cmocka_unit_test(test_out_of_range_sim_def_is_clamped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
