/* test_sim_limits.c - rotation limits on joints (tress_joint_limit, sim.h; the
 * VRMC_springBone_limit-1.0 draft): every limit kind holds through a violent 600-frame head
 * motion in both spring models, the same scene unlimited leaves those limits far behind, an
 * unlimited chain sharing the sim is untouched, limit frames allocate nothing, and bad limits
 * are refused. */
#include "support/alloc_count.h"
#include "support/sim_fixture.h"

#include "tress/math.h"
#include "support/scene_build.h"

#define DT (1.0 / 60.0)
#define BONES 5
#define PI_F 3.14159265358979f
#define SLACK 2e-3f /* radians: float round-off between the solver's frame and this test's */

static tress_chain_settings model_settings(int vrm) {
  tress_chain_settings s = tress_default_chain_settings();
  if (vrm) {
    s.model = TRESS_SPRING_VRM;
    s.stiffness = 0.5f;
    s.damping = 0.8f;
    s.gravity_scale = 1.0f;
  } else {
    s.stiffness = 0.02f;
    s.damping = 0.98f;
  }
  return s;
}

static void axis_angle(float x, float y, float z, float angle, float q[4]) {
  float s = sinf(angle * 0.5f);
  q[0] = x * s; q[1] = y * s; q[2] = z * s; q[3] = cosf(angle * 0.5f);
}

/* The head: thrown sideways and up, spun about two axes, every frame a new pose. */
static void move_head(tress_scene *scene, tress_id part, int frame) {
  float t = (float)(frame * DT);
  tress_xform x = tress_xform_identity();
  x.p[0] = 0.8f * sinf(2.0f * PI_F * 2.0f * t);
  x.p[1] = 5.0f + 0.4f * sinf(2.0f * PI_F * 3.0f * t);
  x.p[2] = 0.5f * sinf(2.0f * PI_F * 1.3f * t);
  float a[4], b[4];
  axis_angle(0, 0, 1, 1.4f * sinf(2.0f * PI_F * 1.5f * t), a);
  axis_angle(1, 0, 0, 1.0f * sinf(2.0f * PI_F * 2.5f * t), b);
  tress_quat_mul(a, b, x.q);
  tress_part_set_cframe(scene, part, x);
}

/* How far the link from bone k to bone k+1 is outside joint k's limit (radians, <= 0 inside),
 * in the frame sim.h defines, rebuilt here from the drawn and animated poses. */
static float excess(const tress_scene *scene, const fix_chain *c, int k, const tress_joint_limit *lim, int vrm) {
  tress_xform part = tress_part_get_cframe(scene, c->part);
  tress_xform anim[BONES];
  anim[0] = tress_xform_mul(part, tress_bone_get_cframe(scene, c->bones[0]));
  for (int b = 1; b < BONES; b++) anim[b] = tress_xform_mul(anim[b - 1], tress_bone_get_cframe(scene, c->bones[b]));
  float frame[4];
  if (k == 0) {
    memcpy(frame, anim[0].q, sizeof frame); /* a pinned or first joint: under the unswung part */
  } else if (vrm) {
    /* the parent as solved (drawn) times the joint's rest rotation */
    tress_xform parent = tress_bone_get_world(scene, c->bones[k - 1]);
    tress_quat_mul(parent.q, tress_bone_get_cframe(scene, c->bones[k]).q, frame);
  } else {
    /* the animated rotation turned by the arc from the animated incoming link to the drawn one */
    float pa[3], pb[3], from[3], to[3], arc[4];
    fix_world_pos(scene, c->bones[k - 1], pa);
    fix_world_pos(scene, c->bones[k], pb);
    for (int i = 0; i < 3; i++) {
      from[i] = anim[k].p[i] - anim[k - 1].p[i];
      to[i] = pb[i] - pa[i];
    }
    tress_quat_from_to(from, to, arc);
    tress_quat_mul(arc, anim[k].q, frame);
  }
  /* then the arc from +Y to the tail's rest direction, then the limit's own rotation */
  tress_xform rest = tress_bone_get_cframe(scene, c->bones[k + 1]);
  float up[3] = {0, 1, 0}, axis[4], lf[4], full[4];
  tress_quat_from_to(up, rest.p, axis);
  tress_quat_mul(axis, lim->rotation, lf);
  tress_quat_mul(frame, lf, full);
  float p0[3], p1[3], d[3], v[3];
  fix_world_pos(scene, c->bones[k], p0);
  fix_world_pos(scene, c->bones[k + 1], p1);
  float len = fix_dist(p0, p1);
  for (int i = 0; i < 3; i++) d[i] = (p1[i] - p0[i]) / len;
  tress_quat_rotate_inv(full, d, v);
  float y = v[1] > 1.0f ? 1.0f : (v[1] < -1.0f ? -1.0f : v[1]);
  switch (lim->kind) {
  case TRESS_LIMIT_CONE: return acosf(y) - lim->angle;
  case TRESS_LIMIT_HINGE: {
    float off_plane = asinf(fabsf(v[0]) > 1.0f ? 1.0f : fabsf(v[0]));
    float swing = fabsf(atan2f(v[2], v[1])) - lim->angle;
    return off_plane > swing ? off_plane : swing;
  }
  case TRESS_LIMIT_SPHERICAL: {
    float yaw = asinf(fabsf(v[0]) > 1.0f ? 1.0f : fabsf(v[0])) - lim->yaw;
    float pitch = fabsf(atan2f(v[2], v[1])) - lim->angle;
    return yaw > pitch ? yaw : pitch;
  }
  default: return 0.0f;
  }
}

/* One chain of BONES bones (joints 0..3 have tails) through 600 frames of head motion; the
 * worst excess over every joint and frame. limited false binds the same chain unlimited. */
static float worst_excess(const tress_joint_limit *lim, int vrm, bool limited) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, BONES, 0.2f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = model_settings(vrm);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, &h), TRESS_OK);
  tress_joint_settings j = tress_chain_settings_get_joint(&s);
  j.limit = *lim;
  for (int k = 0; limited && k < BONES - 1; k++)
    assert_int_equal(tress_handle_set_joint_settings(sim, h, c.bones[k], &j), TRESS_OK);
  float worst = -10.0f;
  for (int f = 0; f < 600; f++) {
    move_head(scene, c.part, f);
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    for (int k = 0; k < BONES - 1; k++) {
      float e = excess(scene, &c, k, lim, vrm);
      if (e > worst) worst = e;
    }
  }
  fix_assert_finite(scene, &c);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return worst;
}

static tress_joint_limit limit_of(tress_limit_kind kind, float angle, float yaw) {
  tress_joint_limit l = {kind, angle, yaw, {0, 0, 0, 1}};
  return l;
}

static void check_kind(const tress_joint_limit *lim) {
  for (int vrm = 0; vrm < 2; vrm++) {
    float free_run = worst_excess(lim, vrm, false), held = worst_excess(lim, vrm, true);
    print_message("%s %s: unlimited exceeds by %.3f rad, limited by %.5f rad\n", tress_limit_kind_name(lim->kind),
                  vrm ? "vrm" : "pose", (double)free_run, (double)held);
    assert_true(free_run > 0.2f); /* the motion is violent enough to need the limit */
    assert_true(held <= SLACK);
  }
}

static void test_cone_holds(void **state) {
  (void)state;
  tress_joint_limit l = limit_of(TRESS_LIMIT_CONE, 0.35f, 0.0f);
  check_kind(&l);
}

static void test_hinge_holds(void **state) {
  (void)state;
  tress_joint_limit l = limit_of(TRESS_LIMIT_HINGE, 0.5f, 0.0f);
  check_kind(&l);
}

static void test_spherical_holds(void **state) {
  (void)state;
  tress_joint_limit l = limit_of(TRESS_LIMIT_SPHERICAL, 0.6f, 0.2f);
  check_kind(&l);
}

/* A turned limit: a cone tilted 40 degrees about the limit frame's X holds around its new axis
 * (and the rest pose itself lies outside it, so the chain has to sit on the rim). */
static void test_rotated_cone_holds(void **state) {
  (void)state;
  tress_joint_limit l = limit_of(TRESS_LIMIT_CONE, 0.25f, 0.0f);
  axis_angle(1, 0, 0, 0.7f, l.rotation);
  check_kind(&l);
}

/* A chain without limits in a tile with a limited one moves exactly as it does alone. */
static void test_unlimited_chain_untouched(void **state) {
  (void)state;
  for (int vrm = 0; vrm < 2; vrm++) {
    tress_xform alone[BONES], shared[BONES];
    for (int pass = 0; pass < 2; pass++) {
      tress_scene *scene = th_scene();
      fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.2f), b = fix_chain_make(scene, 3, 5, 0, BONES, 0.2f);
      tress_sim *sim = fix_sim(scene, 10, 1000.0f);
      tress_chain_settings s = model_settings(vrm);
      tress_handle_id ha;
      assert_int_equal(tress_sim_bind_bone_chain(sim, a.bones[0], &s, NULL), TRESS_OK);
      if (pass == 1) {
        assert_int_equal(tress_sim_bind_bone_chain(sim, b.bones[0], &s, &ha), TRESS_OK);
        tress_joint_settings j = tress_chain_settings_get_joint(&s);
        j.limit = limit_of(TRESS_LIMIT_CONE, 0.1f, 0.0f);
        assert_int_equal(tress_handle_set_joint_settings(sim, ha, b.bones[1], &j), TRESS_OK);
      }
      for (int f = 0; f < 200; f++) {
        move_head(scene, a.part, f);
        move_head(scene, b.part, f);
        assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
      }
      for (int k = 0; k < BONES; k++) (pass ? shared : alone)[k] = tress_bone_get_transform(scene, a.bones[k]);
      tress_sim_destroy(sim);
      tress_scene_destroy(scene);
    }
    for (int k = 0; k < BONES; k++) assert_true(fix_xform_equal(alone[k], shared[k]));
  }
}

/* Limited chains, either model, with colliders: no allocation per frame. */
static void test_limited_frames_allocate_nothing(void **state) {
  (void)state;
  alloc_count_install();
  tress_scene *scene = th_scene();
  fix_chain c[8];
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  for (int k = 0; k < 8; k++) {
    c[k] = fix_chain_make(scene, (float)k * 3.0f, 5, 0, BONES, 0.2f);
    tress_chain_settings s = model_settings(k % 2);
    if (k % 4 < 2) {
      tress_collider_def d = tress_default_collider_def();
      d.attach = c[k].part;
      d.offset[1] = -0.3f;
      d.radius = 0.2f;
      tress_collider_id sphere;
      assert_int_equal(tress_sim_create_collider(sim, &d, &sphere), TRESS_OK);
      s.colliders[s.collider_count++] = sphere;
    }
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_bone_chain(sim, c[k].bones[0], &s, &h), TRESS_OK);
    tress_joint_settings j = tress_chain_settings_get_joint(&s);
    j.limit = limit_of((tress_limit_kind)(1 + k % 3), 0.4f, 0.2f);
    for (int b = 0; b < BONES - 1; b++)
      assert_int_equal(tress_handle_set_joint_settings(sim, h, c[k].bones[b], &j), TRESS_OK);
  }
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) alloc_count_start();
    for (int f = 0; f < 60; f++) {
      for (int k = 0; k < 8; k++) move_head(scene, c[k].part, f);
      assert_int_equal(tress_sim_step(sim, f % 3 ? DT : DT * 2.5), TRESS_OK);
    }
    if (pass == 1) assert_int_equal(alloc_count_stop(), 0);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_bad_limits_refused(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 3, 0.2f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], NULL, &h), TRESS_OK);
  tress_joint_settings j = tress_default_joint_settings();
  j.limit = limit_of((tress_limit_kind)7, 0.3f, 0.0f);
  assert_int_equal(tress_handle_set_joint_settings(sim, h, c.bones[0], &j), TRESS_ERR_INVALID_ARGUMENT);
  j.limit = limit_of(TRESS_LIMIT_CONE, NAN, 0.0f);
  assert_int_equal(tress_handle_set_joint_settings(sim, h, c.bones[0], &j), TRESS_ERR_INVALID_ARGUMENT);
  j.limit = limit_of(TRESS_LIMIT_CONE, 0.3f, 0.0f);
  j.limit.rotation[3] = INFINITY;
  assert_int_equal(tress_handle_set_joint_settings(sim, h, c.bones[0], &j), TRESS_ERR_INVALID_ARGUMENT);
  tress_limit_kind k = TRESS_LIMIT_NONE;
  assert_true(tress_limit_kind_from_name("spherical", &k));
  assert_int_equal(k, TRESS_LIMIT_SPHERICAL);
  assert_false(tress_limit_kind_from_name("twist", &k));
  assert_string_equal(tress_limit_kind_name(TRESS_LIMIT_HINGE), "hinge");
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cone_holds),
      cmocka_unit_test(test_hinge_holds),
      cmocka_unit_test(test_spherical_holds),
      cmocka_unit_test(test_rotated_cone_holds),
      cmocka_unit_test(test_unlimited_chain_untouched),
      cmocka_unit_test(test_limited_frames_allocate_nothing),
      cmocka_unit_test(test_bad_limits_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
