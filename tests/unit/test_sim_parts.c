/* test_sim_parts.c - part chains (bind_parts): parts[0] is the pin the body moves, the rest are
 * written through their world cframe, links are inextensible, and binds are not deduplicated. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

typedef struct tail {
  tress_id parts[4];
} tail;

static tail tail_make(tress_scene *scene, float x) {
  tail t;
  for (int i = 0; i < 4; i++) {
    t.parts[i] = th_instance(scene, TRESS_KIND_PART, i == 0 ? "TailRoot" : "Segment", tress_scene_get_root(scene));
    tress_part_set_cframe(scene, t.parts[i], tress_xform_from_pos(x + 0.5f * (float)i, 5, 0));
  }
  return t;
}

static float part_dist(const tress_scene *scene, tress_id a, tress_id b) {
  tress_xform pa = tress_part_get_cframe(scene, a), pb = tress_part_get_cframe(scene, b);
  return fix_dist(pa.p, pb.p);
}

static void test_part_chain_of_four(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tail t = tail_make(scene, 0);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.0f; /* the seed: things that hang bind with stiffness 0 */
  s.damping = 0.85f;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 4, &s, &h), TRESS_OK);
  assert_false(tress_handle_is_null(h));
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  /* the body walks and turns: the pin is moved by the game, the segments follow */
  float axis[3] = {0, 1, 0};
  for (int i = 0; i < 180; i++) {
    tress_xform pin = tress_xform_from_axis_angle(axis, (float)(0.02 * i));
    pin.p[0] = (float)(0.04 * i);
    pin.p[1] = 5.0f + (float)(0.3 * sin(i * 0.4));
    pin.p[2] = 0.0f;
    tress_part_set_cframe(scene, t.parts[0], pin);
    fix_run(sim, 1.0 / 60.0, 1);
    assert_true(fix_xform_equal(tress_part_get_cframe(scene, t.parts[0]), pin)); /* the pin is never written */
    for (int k = 1; k < 4; k++) {
      float d = part_dist(scene, t.parts[k - 1], t.parts[k]);
      if (fabsf(d - 0.5f) > 1e-4f) fail_msg("frame %d link %d: %.6f", i, k, (double)d);
      assert_true(fix_xform_finite(tress_part_get_cframe(scene, t.parts[k])));
    }
  }
  /* gravity owns the segments: they hang below the pin, and they moved with the body */
  tress_xform pin = tress_part_get_cframe(scene, t.parts[0]);
  tress_xform end = tress_part_get_cframe(scene, t.parts[3]);
  assert_true(end.p[1] < pin.p[1] - 0.3f);
  assert_true(fix_dist(end.p, pin.p) <= 1.5f + 1e-4f);
  assert_true(end.p[0] > 5.0f);
  /* the segments turn with the chain: unit rotations */
  for (int k = 1; k < 4; k++) {
    tress_xform x = tress_part_get_cframe(scene, t.parts[k]);
    float n = x.q[0] * x.q[0] + x.q[1] * x.q[1] + x.q[2] * x.q[2] + x.q[3] * x.q[3];
    assert_true(fabsf(n - 1.0f) < 1e-4f);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_bind_parts_is_not_deduplicated(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tail t = tail_make(scene, 0);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id a, b;
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 4, NULL, &a), TRESS_OK);
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 4, NULL, &b), TRESS_OK);
  assert_false(a.index1 == b.index1 && a.generation == b.generation);
  assert_int_equal(tress_sim_get_stats(sim).bound, 2);
  fix_run(sim, 1.0 / 60.0, 1);
  assert_int_equal(tress_sim_get_stats(sim).simulated, 2);
  tress_handle_destroy(sim, a);
  assert_true(tress_handle_is_valid(sim, b));
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  /* destroying the pin destroys the handle */
  tress_instance_destroy(scene, t.parts[0]);
  assert_false(tress_handle_is_valid(sim, b));
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_bind_parts_needs_a_pin_and_a_link(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tail t = tail_make(scene, 0);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 1, NULL, &h), TRESS_ERR_TOO_FEW_PARTS);
  assert_true(tress_handle_is_null(h));
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 0, NULL, &h), TRESS_ERR_TOO_FEW_PARTS);
  assert_int_equal(tress_sim_bind_parts(sim, NULL, 3, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  tress_instance_def folder = tress_default_instance_def();
  folder.name = "x", folder.parent = tress_scene_get_root(scene);
  tress_id mixed[2] = {t.parts[0], {0}};
  tress_scene_create_instance(scene, &folder, &mixed[1]);
  assert_int_equal(tress_sim_bind_parts(sim, mixed, 2, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  tress_id gone = th_instance(scene, TRESS_KIND_PART, "gone", tress_scene_get_root(scene));
  tress_instance_destroy(scene, gone);
  tress_id stale[2] = {t.parts[0], gone};
  assert_int_equal(tress_sim_bind_parts(sim, stale, 2, NULL, &h), TRESS_ERR_STALE_ID);
  tress_part_set_cframe(scene, t.parts[2], tress_xform_from_pos(NAN, 0, 0));
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 4, NULL, &h), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* What lets every chain be simulated, as the distance test would: only its presence matters. */
static bool always_simulate(void *user, const tress_scene *scene, tress_id root) {
  (void)user, (void)scene, (void)root;
  return true;
}

enum { HAIR_BONES = 5, TAIL_FRAMES = 60, FILLER_CHAINS = 400 };

/* A tail (a part chain, bound first) with hair bound on its third segment, bound last, after
 * FILLER_CHAINS chains of 8 bones (3200 nodes: the hair lands in a later tile than the tail).
 * The hair's bone transforms for every frame while the tail's pin moves. hooked: a
 * should_simulate hook, under which the culling reads every chain's anchor before the frame. */
static void run_hair_on_tail(bool hooked, tress_xform *out) {
  tress_scene *scene = th_scene();
  tail t = tail_make(scene, 0);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 2 + FILLER_CHAINS;
  def.max_distance = 1000.0f;
  if (hooked) def.should_simulate = always_simulate;
  tress_sim *sim = tress_sim_create(&def);
  assert_non_null(sim);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.0f;
  assert_int_equal(tress_sim_bind_parts(sim, t.parts, 4, &s, NULL), TRESS_OK);
  for (int c = 0; c < FILLER_CHAINS; c++) {
    fix_chain f = fix_chain_make(scene, 3.0f + (float)(c % 20), 5, (float)(c / 20), 8, 0.3f);
    assert_int_equal(tress_sim_bind(sim, f.part, NULL, NULL), TRESS_OK);
  }
  tress_id hair[HAIR_BONES], parent = t.parts[2];
  for (int b = 0; b < HAIR_BONES; b++) {
    hair[b] = th_instance(scene, TRESS_KIND_BONE, "Hair", parent);
    tress_bone_set_cframe(scene, hair[b], tress_xform_from_pos(b == 0 ? 0.0f : 0.2f, b == 0 ? 0.3f : 0.0f, 0));
    parent = hair[b];
  }
  assert_int_equal(tress_sim_bind(sim, t.parts[2], NULL, NULL), TRESS_OK);
  float axis[3] = {0, 1, 0};
  for (int f = 0; f < TAIL_FRAMES; f++) {
    tress_xform pin = tress_xform_from_axis_angle(axis, 0.05f * (float)f);
    pin.p[0] = 0.1f * (float)f;
    pin.p[1] = 5.0f + 0.3f * sinf(0.4f * (float)f);
    tress_part_set_cframe(scene, t.parts[0], pin);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    for (int b = 0; b < HAIR_BONES; b++) out[f * HAIR_BONES + b] = tress_bone_get_transform(scene, hair[b]);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A chain hangs from the pose its part had when the step began, even when that part is a
 * segment another chain writes during the step and the two sit in different tiles: the same
 * bits as under a should_simulate hook, whose culling reads every anchor before the frame. */
static void test_hair_on_a_tail_hangs_from_the_pose_before_the_step(void **state) {
  (void)state;
  static tress_xform plain[TAIL_FRAMES * HAIR_BONES], hooked[TAIL_FRAMES * HAIR_BONES];
  run_hair_on_tail(false, plain);
  run_hair_on_tail(true, hooked);
  for (int i = 0; i < TAIL_FRAMES * HAIR_BONES; i++) {
    assert_memory_equal(plain[i].p, hooked[i].p, sizeof plain[i].p);
    assert_memory_equal(plain[i].q, hooked[i].q, sizeof plain[i].q);
  }
  /* and the hair swung with the tail */
  assert_memory_not_equal(plain[HAIR_BONES + 2].q, plain[(TAIL_FRAMES - 1) * HAIR_BONES + 2].q, sizeof plain[0].q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_part_chain_of_four),
      cmocka_unit_test(test_hair_on_a_tail_hangs_from_the_pose_before_the_step),
      cmocka_unit_test(test_bind_parts_is_not_deduplicated),
      cmocka_unit_test(test_bind_parts_needs_a_pin_and_a_link),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
