/* test_sim_scale.c - uniform scale at run time (sim.h "Scale"): a character at scale 2 moved
 * along twice the scripted path traces exactly twice the scale-1 path (both spring models, end
 * tips, wind, a collider on the head scaled with it), a scale changed mid-run keeps the chain
 * whole at its new size, and a non-uniform scale is refused at bind and reported later. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

#define DT (1.0 / 60.0)
#define BONES 5
#define LINK 0.3f
#define FRAMES 240

static const float COLLIDER_AT[3] = {0.55f, 0.1f, 0.0f}; /* on the head, below the strand */
#define COLLIDER_RADIUS 0.25f
#define STRAND_RADIUS 0.05f

typedef struct rig {
  tress_scene *scene;
  tress_sim *sim;
  tress_id model;
  fix_chain chain;
  tress_handle_id handle;
} rig;

static tress_chain_settings model_settings(int model) {
  tress_chain_settings s = tress_default_chain_settings();
  if (model == 1) {
    s.model = TRESS_SPRING_VRM;
    s.stiffness = 1.0f;
    s.damping = 0.6f;
    s.gravity_scale = 1.0f;
  }
  s.end_length = 0.2f;
  s.radius = STRAND_RADIUS;
  return s;
}

/* A Model scaled `scale` holding Head with a hanging chain, a sphere on Head, wind. */
static tress_result rig_make(rig *r, int model, const float scale[3]) {
  r->scene = th_scene();
  r->model = th_instance(r->scene, TRESS_KIND_MODEL, "Character", tress_scene_get_root(r->scene));
  assert_true(tress_instance_set_scale(r->scene, r->model, scale));
  r->chain = fix_chain_make(r->scene, 0, 0, 0, BONES, LINK);
  assert_true(tress_instance_set_parent(r->scene, r->chain.part, r->model));
  tress_sim_def def = tress_default_sim_def();
  def.scene = r->scene;
  def.max_chains = 4;
  def.max_distance = 1e6f;
  def.ambient_wind[0] = 3.0f;
  def.ambient_wind[2] = 2.0f;
  r->sim = tress_sim_create(&def);
  assert_non_null(r->sim);
  tress_chain_settings s = model_settings(model);
  tress_collider_def d = tress_default_collider_def();
  d.attach = r->chain.part;
  memcpy(d.offset, COLLIDER_AT, sizeof d.offset);
  memcpy(d.tail, COLLIDER_AT, sizeof d.tail);
  d.radius = COLLIDER_RADIUS;
  tress_result cr = tress_sim_create_collider(r->sim, &d, &s.colliders[0]);
  if (cr != TRESS_OK) return cr;
  s.collider_count = 1;
  return tress_sim_bind(r->sim, r->chain.part, &s, &r->handle);
}

static void rig_free(rig *r) {
  tress_sim_destroy(r->sim);
  tress_scene_destroy(r->scene);
}

/* The head at time t, everything in units times k: a figure eight, a nod and a turn. */
static void rig_pose(rig *r, double t, float k) {
  float up[3] = {0.0f, 1.0f, 0.0f};
  tress_xform head = tress_xform_from_axis_angle(up, 0.5f * (float)sin(t * 3.0));
  head.p[0] = k * (0.6f * (float)sin(t * 4.0));
  head.p[1] = k * (5.0f + 0.2f * (float)sin(t * 8.0));
  head.p[2] = k * (0.4f * (float)cos(t * 4.0));
  tress_part_set_cframe(r->scene, r->chain.part, head);
}

static float bone_link(const rig *r, int b) {
  float a[3], c[3];
  fix_world_pos(r->scene, r->chain.bones[b - 1], a);
  fix_world_pos(r->scene, r->chain.bones[b], c);
  return fix_dist(a, c);
}

static void traces_twice_the_path(int model) {
  rig one, two;
  const float unit[3] = {1.0f, 1.0f, 1.0f}, twice[3] = {2.0f, 2.0f, 2.0f};
  assert_int_equal(rig_make(&one, model, unit), TRESS_OK);
  assert_int_equal(rig_make(&two, model, twice), TRESS_OK);
  float worst = 0.0f, worst_turn = 0.0f, nearest = 1e9f, travel = 0.0f, last_tip[3] = {0};
  double t = 0.0;
  for (int f = 0; f < FRAMES; f++) {
    t += DT;
    rig_pose(&one, t, 1.0f);
    rig_pose(&two, t, 2.0f);
    assert_int_equal(tress_sim_step(one.sim, DT), TRESS_OK);
    assert_int_equal(tress_sim_step(two.sim, DT), TRESS_OK);
    tress_xform head = tress_part_get_cframe(one.scene, one.chain.part);
    for (int b = 0; b < BONES; b++) {
      tress_xform a = tress_bone_get_world(one.scene, one.chain.bones[b]);
      tress_xform c = tress_bone_get_world(two.scene, two.chain.bones[b]);
      float scaled[3] = {2.0f * a.p[0], 2.0f * a.p[1], 2.0f * a.p[2]};
      float d = fix_dist(scaled, c.p);
      if (d > worst) worst = d;
      /* rotations are the same (the tips turn the last bone the same way) */
      float dot = fabsf(a.q[0] * c.q[0] + a.q[1] * c.q[1] + a.q[2] * c.q[2] + a.q[3] * c.q[3]);
      if (1.0f - dot > worst_turn) worst_turn = 1.0f - dot;
      float on_head[3];
      tress_xform_point(head, COLLIDER_AT, on_head);
      float gap = fix_dist(a.p, on_head);
      if (gap < nearest) nearest = gap;
    }
    float tip[3];
    fix_world_pos(one.scene, one.chain.bones[BONES - 1], tip);
    if (f > 0) travel += fix_dist(tip, last_tip);
    memcpy(last_tip, tip, sizeof tip);
  }
  /* float noise of a 10-unit scene over 240 frames, not a different motion */
  assert_true(worst < 2e-4f);
  assert_true(worst_turn < 1e-5f);
  /* the strand really swung and really met the collider (held at its surface) */
  assert_true(travel > 2.0f);
  assert_true(nearest < COLLIDER_RADIUS + STRAND_RADIUS + 0.02f);
  assert_true(nearest > COLLIDER_RADIUS + STRAND_RADIUS - 0.02f);
  rig_free(&one);
  rig_free(&two);
}

static void test_pose_model_traces_twice_the_path(void **state) {
  (void)state;
  traces_twice_the_path(0);
}

static void test_vrm_model_traces_twice_the_path(void **state) {
  (void)state;
  traces_twice_the_path(1);
}

/* Scale 1 -> 2 mid-run, the head on its path: the chain is at its new size at once (links twice
 * as long), keeps swinging and never jumps far in a frame. */
static void scale_changes_mid_run(int model) {
  rig r;
  const float unit[3] = {1.0f, 1.0f, 1.0f}, twice[3] = {2.0f, 2.0f, 2.0f};
  assert_int_equal(rig_make(&r, model, unit), TRESS_OK);
  double t = 0.0;
  float last[BONES][3], worst_jump = 0.0f, travel = 0.0f;
  for (int f = 0; f < 2 * FRAMES; f++) {
    t += DT;
    if (f == FRAMES / 2) assert_true(tress_instance_set_scale(r.scene, r.model, twice));
    rig_pose(&r, t, 1.0f); /* the head keeps its path: the character grows where it stands */
    assert_int_equal(tress_sim_step(r.sim, DT), TRESS_OK);
    fix_assert_finite(r.scene, &r.chain);
    for (int b = 0; b < BONES; b++) {
      float p[3];
      fix_world_pos(r.scene, r.chain.bones[b], p);
      if (f > FRAMES / 2) {
        float d = fix_dist(p, last[b]);
        if (d > worst_jump) worst_jump = d;
        travel += d;
      }
      memcpy(last[b], p, sizeof p);
    }
    if (f >= FRAMES / 2)
      for (int b = 1; b < BONES; b++) assert_float_equal(bone_link(&r, b), 2.0f * LINK, 2e-3f);
  }
  assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_OK);
  /* the roots move out to their scaled offsets in one frame (0.5 units): nothing whips past */
  assert_true(worst_jump < 0.5f);
  assert_true(travel > 5.0f);
  rig_free(&r);
}

static void test_pose_model_scale_changes_mid_run(void **state) {
  (void)state;
  scale_changes_mid_run(0);
}

static void test_vrm_model_scale_changes_mid_run(void **state) {
  (void)state;
  scale_changes_mid_run(1);
}

static void test_non_uniform_scale_refused_at_bind(void **state) {
  (void)state;
  const float squashed[3] = {1.0f, 2.0f, 1.0f};
  for (int model = 0; model < 2; model++) {
    rig r;
    /* the collider on the squashed head is refused first */
    assert_int_equal(rig_make(&r, model, squashed), TRESS_ERR_NON_UNIFORM_SCALE);
    assert_string_equal(tress_result_name(TRESS_ERR_NON_UNIFORM_SCALE), "non_uniform_scale");
    tress_chain_settings s = model_settings(model);
    tress_handle_id h;
    assert_int_equal(tress_sim_bind(r.sim, r.chain.part, &s, &h), TRESS_ERR_NON_UNIFORM_SCALE);
    assert_true(tress_handle_is_null(h));
    assert_int_equal(tress_sim_bind_bone_chain(r.sim, r.chain.bones[0], &s, &h), TRESS_ERR_NON_UNIFORM_SCALE);
    tress_character_def cd = tress_default_character_def();
    cd.model = r.model;
    cd.chains = s;
    uint32_t count = 7;
    assert_int_equal(tress_sim_bind_character(r.sim, &cd, &h, 1, &count), TRESS_ERR_NON_UNIFORM_SCALE);
    assert_int_equal(count, 0);
    rig_free(&r);
  }
}

/* Bound at scale 1, squashed later: held at its animated pose and reported, then back. */
static void test_non_uniform_scale_reported_later(void **state) {
  (void)state;
  const float unit[3] = {1.0f, 1.0f, 1.0f}, squashed[3] = {2.0f, 1.0f, 2.0f}, twice[3] = {2.0f, 2.0f, 2.0f};
  for (int model = 0; model < 2; model++) {
    rig r;
    assert_int_equal(rig_make(&r, model, unit), TRESS_OK);
    double t = 0.0;
    for (int f = 0; f < 30; f++) {
      rig_pose(&r, t += DT, 1.0f);
      tress_sim_step(r.sim, DT);
    }
    assert_true(fix_swung(r.scene, r.chain.bones[BONES - 1]));
    assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_OK);
    assert_true(tress_instance_set_scale(r.scene, r.model, squashed));
    rig_pose(&r, t += DT, 1.0f);
    tress_sim_step(r.sim, DT);
    assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_ERR_NON_UNIFORM_SCALE);
    for (int b = 0; b < BONES; b++)
      assert_true(fix_xform_equal(tress_bone_get_transform(r.scene, r.chain.bones[b]),
                                  tress_bone_get_animated(r.scene, r.chain.bones[b])));
    assert_true(tress_instance_set_scale(r.scene, r.model, twice));
    for (int f = 0; f < 30; f++) {
      rig_pose(&r, t += DT, 2.0f);
      tress_sim_step(r.sim, DT);
    }
    assert_int_equal(tress_handle_get_status(r.sim, r.handle), TRESS_OK);
    assert_true(fix_swung(r.scene, r.chain.bones[BONES - 1]));
    rig_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pose_model_traces_twice_the_path),
      cmocka_unit_test(test_vrm_model_traces_twice_the_path),
      cmocka_unit_test(test_pose_model_scale_changes_mid_run),
      cmocka_unit_test(test_vrm_model_scale_changes_mid_run),
      cmocka_unit_test(test_non_uniform_scale_refused_at_bind),
      cmocka_unit_test(test_non_uniform_scale_reported_later),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
