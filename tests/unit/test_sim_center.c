/* test_sim_center.c - center space (tress_chain_settings.center / center_inertia, sim.h): a
 * chain whose center runs 50 units a frame and turns keeps the sway it has on a still
 * character, factor 0 is bit-identical to no center, 0.5 lands in between, frame-rate
 * independence holds, a center gone falls back to world, bad centers are refused, no frame
 * allocates, and an imported VRM spring's `center` binds as its center. Both spring models. */
#include "support/alloc_count.h"
#include "support/sim_fixture.h"
#include "tress/spring_bind.h"
#include "tress/spring_import.h"
#include "support/scene_build.h"

#define DT (1.0 / 60.0)
#define BONES 5
#define LINK 0.3f

/* A character: Root (the center) and Head, a part under it that sways locally, with a chain
 * hanging from Head. Head's cframe is Root's times the sway, set by the test every frame. */
typedef struct rig {
  tress_id root;
  fix_chain chain;
} rig;

static rig rig_make(tress_scene *scene) {
  rig r;
  r.chain = fix_chain_make(scene, 0, 0, 0, BONES, LINK);
  r.root = th_instance(scene, TRESS_KIND_PART, "Root", tress_scene_get_root(scene));
  assert_true(tress_instance_set_parent(scene, r.chain.part, r.root));
  return r;
}

/* Root at time t: `speed` units/s along +z and `turn` radians/s about +y. Head: Root times a
 * local sway (side to side and a nod), the motion the hair should answer to. */
static void rig_pose(tress_scene *scene, const rig *r, double t, float speed, float turn) {
  float up[3] = {0.0f, 1.0f, 0.0f}, side[3] = {0.0f, 0.0f, 1.0f};
  tress_xform root = tress_xform_from_axis_angle(up, turn * (float)t);
  root.p[0] = 0.0f;
  root.p[1] = 5.0f;
  root.p[2] = speed * (float)t;
  tress_xform sway = tress_xform_from_axis_angle(side, 0.4f * (float)sin(t * 5.0));
  sway.p[0] = 0.3f * (float)sin(t * 7.0);
  sway.p[1] = 1.0f;
  tress_part_set_cframe(scene, r->root, root);
  tress_part_set_cframe(scene, r->chain.part, tress_xform_mul(root, sway));
}

static tress_chain_settings model_settings(int model) {
  tress_chain_settings s = tress_default_chain_settings();
  if (model == 1) {
    s.model = TRESS_SPRING_VRM;
    s.stiffness = 1.0f;
    s.damping = 0.6f;
    s.gravity_scale = 1.0f;
  }
  return s;
}

/* Every bone's world position seen from Root. */
static void local_pose(const tress_scene *scene, const rig *r, float out[BONES][3]) {
  tress_xform inv = tress_xform_inverse(tress_part_get_cframe(scene, r->root));
  for (int b = 0; b < BONES; b++) {
    float p[3];
    fix_world_pos(scene, r->chain.bones[b], p);
    tress_xform_point(inv, p, out[b]);
  }
}

static float pose_gap(float a[BONES][3], float b[BONES][3]) {
  float worst = 0.0f;
  for (int k = 0; k < BONES; k++) {
    float d = fix_dist(a[k], b[k]);
    if (d > worst) worst = d;
  }
  return worst;
}

/* Runs one rig for frames60 frames of 60 Hz time at spec->fps, recording its Root-local pose
 * at every 60 Hz frame time that a frame of this rate lands on (poses[n]: 60 Hz frame n + 1). */
typedef struct run_spec {
  int model, fps;
  float speed, turn, inertia;
  bool centered;
} run_spec;

static void run_rig(const run_spec *spec, int frames60, float poses[][BONES][3]) {
  tress_scene *scene = th_scene();
  rig r = rig_make(scene);
  rig_pose(scene, &r, 0.0, spec->speed, spec->turn);
  tress_sim *sim = fix_sim(scene, 10, 1e9f);
  tress_chain_settings s = model_settings(spec->model);
  if (spec->centered) s.center = r.root;
  s.center_inertia = spec->inertia;
  assert_int_equal(tress_sim_bind_bone_chain(sim, r.chain.bones[0], &s, NULL), TRESS_OK);
  assert_int_equal(tress_sim_step(sim, 0.0), TRESS_OK);
  int frames = frames60 * spec->fps / 60;
  for (int i = 1; i <= frames; i++) {
    double t = (double)i / spec->fps;
    rig_pose(scene, &r, t, spec->speed, spec->turn);
    assert_int_equal(tress_sim_step(sim, 1.0 / spec->fps), TRESS_OK);
    /* record on every 60 Hz frame this rate lands on exactly */
    if ((i * 60) % spec->fps == 0) local_pose(scene, &r, poses[i * 60 / spec->fps - 1]);
  }
  fix_assert_finite(scene, &r.chain);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

#define FRAMES 150

/* Root running 50 units a frame and turning 2 degrees a frame: with its center on Root the
 * hair sways as on a still character; in world space it is flung (and the teleport guard
 * snaps it every frame). */
static void test_center_keeps_local_sway(void **state) {
  (void)state;
  static float still[FRAMES][BONES][3], centered[FRAMES][BONES][3], world[FRAMES][BONES][3];
  for (int model = 0; model < 2; model++) {
    run_spec a = {model, 60, 0.0f, 0.0f, 1.0f, true};
    run_spec b = {model, 60, 50.0f * 60.0f, 2.0f * (float)M_PI / 180.0f * 60.0f, 1.0f, true};
    run_spec w = b;
    w.centered = false;
    run_rig(&a, FRAMES, still);
    run_rig(&b, FRAMES, centered);
    run_rig(&w, FRAMES, world);
    float worst = 0.0f, worst_world = 0.0f, sway = 0.0f;
    for (int i = 0; i < FRAMES; i++) {
      float g = pose_gap(still[i], centered[i]), gw = pose_gap(still[i], world[i]);
      if (g > worst) worst = g;
      if (gw > worst_world) worst_world = gw;
      float m = fix_dist(still[i][BONES - 1], still[0][BONES - 1]);
      if (m > sway) sway = m;
    }
    print_message("%s: tip sway on a still character %.3f; running centered: largest gap %.5f, in world %.3f\n",
                  model ? "vrm" : "pose", (double)sway, (double)worst, (double)worst_world);
    assert_true(sway > 0.1f);        /* the still character's hair does sway */
    assert_true(worst < 0.01f);      /* ... and the running one's sways the same way */
    assert_true(worst_world > 0.1f); /* without a center it does not */
  }
}

/* Factor 0 takes nothing out: bit for bit the chain without a center. */
static void test_inertia_zero_is_world(void **state) {
  (void)state;
  static float zero[FRAMES][BONES][3], none[FRAMES][BONES][3];
  for (int model = 0; model < 2; model++) {
    run_spec a = {model, 60, 3.0f, 1.0f, 0.0f, true};
    run_spec b = a;
    b.centered = false;
    b.inertia = 1.0f;
    run_rig(&a, FRAMES, zero);
    run_rig(&b, FRAMES, none);
    assert_memory_equal(zero, none, sizeof zero);
  }
}

/* Factor 0.5: in between world (0) and full center space (1), measured as the gap to the still
 * character's sway. */
static void test_inertia_half_is_between(void **state) {
  (void)state;
  static float still[FRAMES][BONES][3], got[3][FRAMES][BONES][3];
  const float factors[3] = {0.0f, 0.5f, 1.0f};
  for (int model = 0; model < 2; model++) {
    run_spec a = {model, 60, 0.0f, 0.0f, 1.0f, true};
    run_rig(&a, FRAMES, still);
    float gap[3] = {0};
    for (int f = 0; f < 3; f++) {
      run_spec b = {model, 60, 4.0f, 1.5f, factors[f], true};
      run_rig(&b, FRAMES, got[f]);
      for (int i = 0; i < FRAMES; i++) {
        float g = pose_gap(still[i], got[f][i]);
        if (g > gap[f]) gap[f] = g;
      }
    }
    print_message("%s: gap to the still sway at factor 0 / 0.5 / 1: %.4f / %.4f / %.5f\n", model ? "vrm" : "pose",
                  (double)gap[0], (double)gap[1], (double)gap[2]);
    assert_true(gap[2] < 0.01f);
    assert_true(gap[1] > 2.0f * gap[2] && gap[1] < 0.8f * gap[0]);
  }
}

/* 30, 60 and 144 fps agree: the center's motion is taken out per fixed substep, so a centered
 * chain is as independent of the frame rate as the same chain in world space (what remains of
 * the gap in both is the fast local sway's interpolation between 30 fps frames). */
static void test_center_frame_rate_independent(void **state) {
  (void)state;
  static float at[3][FRAMES][BONES][3];
  const int rates[3] = {30, 60, 144};
  for (int model = 0; model < 2; model++) {
    float worst[2] = {0.0f, 0.0f}; /* centered, world */
    for (int centered = 0; centered < 2; centered++) {
      for (int r = 0; r < 3; r++) {
        run_spec s = {model, rates[r], 20.0f, 1.5f, 1.0f, centered == 0};
        run_rig(&s, FRAMES, at[r]);
      }
      /* 60 Hz frames 60 and 120 are frames of all three rates */
      for (int i = 59; i < FRAMES; i += 60)
        for (int r = 0; r < 3; r += 2) {
          float g = pose_gap(at[1][i], at[r][i]);
          if (g > worst[centered]) worst[centered] = g;
        }
    }
    print_message("%s: largest 30/144 fps gap to 60 fps: centered %g, world %g\n", model ? "vrm" : "pose",
                  (double)worst[0], (double)worst[1]);
    assert_true(worst[0] < 2e-3f);
    assert_true(worst[0] < 1.25f * worst[1] + 1e-4f);
  }
}

/* A center destroyed while bound falls back to world inertia: the chain then trails its
 * moving head as an uncentered one does. */
static void test_destroyed_center_falls_back_to_world(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  rig a = rig_make(scene), b = rig_make(scene);
  tress_sim *sim = fix_sim(scene, 10, 1e9f);
  tress_chain_settings s = tress_default_chain_settings();
  s.center = a.root;
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.chain.bones[0], &s, NULL), TRESS_OK);
  s.center = (tress_id){0};
  assert_int_equal(tress_sim_bind_bone_chain(sim, b.chain.bones[0], &s, NULL), TRESS_OK);
  float lag[2][2];
  for (int phase = 0; phase < 2; phase++) {
    if (phase == 1) {
      /* destroying Root would take its descendants along: move the head out first */
      assert_true(tress_instance_set_parent(scene, a.chain.part, tress_scene_get_root(scene)));
      tress_instance_destroy(scene, a.root);
    }
    for (int i = 1; i <= 90; i++) {
      double t = (phase * 90 + i) * DT;
      /* both heads move 6 units/s along +z with no sway; Root (while it lives) moves along */
      tress_xform head = tress_xform_from_pos(0.0f, 6.0f, 6.0f * (float)t);
      if (phase == 0) tress_part_set_cframe(scene, a.root, tress_xform_from_pos(0.0f, 5.0f, 6.0f * (float)t));
      tress_part_set_cframe(scene, a.chain.part, head);
      tress_part_set_cframe(scene, b.chain.part, head);
      assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    }
    const rig *rs[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
      float root[3], tip[3];
      fix_world_pos(scene, rs[k]->chain.bones[0], root);
      fix_world_pos(scene, rs[k]->chain.bones[BONES - 1], tip);
      lag[phase][k] = root[2] - tip[2]; /* how far the tip trails behind along the motion */
    }
  }
  print_message("tip trailing: centered %.4f, world %.4f; center destroyed %.4f, world %.4f\n", (double)lag[0][0],
                (double)lag[0][1], (double)lag[1][0], (double)lag[1][1]);
  assert_true(fabsf(lag[0][0]) < 0.2f * lag[0][1]); /* centered: carried, hardly trailing */
  assert_float_equal(lag[1][0], lag[1][1], 0.1f * lag[1][1]);
  fix_assert_finite(scene, &a.chain);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A center must be the chain's root or an ancestor; refused at bind and at set, as are a
 * destroyed one and a non-finite factor. */
static void test_bad_center_refused(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  rig a = rig_make(scene), b = rig_make(scene);
  tress_sim *sim = fix_sim(scene, 10, 1e9f);
  tress_chain_settings s = tress_default_chain_settings();
  s.center = b.root; /* another character's */
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.chain.bones[0], &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s.center = a.chain.bones[1]; /* below the root */
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.chain.bones[0], &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s.center = a.root;
  s.center_inertia = NAN;
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.chain.bones[0], &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s.center_inertia = 1.0f;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.chain.bones[0], &s, &h), TRESS_OK);
  s.center = b.root;
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_ERR_INVALID_ARGUMENT);
  tress_id gone = th_instance(scene, TRESS_KIND_PART, "Gone", tress_scene_get_root(scene));
  tress_instance_destroy(scene, gone);
  s.center = gone;
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_ERR_INVALID_ARGUMENT);
  s.center = a.chain.part; /* the part the chain hangs from: fine */
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_OK);
  /* part chains: the pin or an ancestor of it */
  tress_instance_def p = tress_default_instance_def();
  p.kind = TRESS_KIND_PART, p.name = "P", p.parent = tress_scene_get_root(scene);
  tress_id parts[2] = {a.root, {0}};
  tress_scene_create_instance(scene, &p, &parts[1]);
  s.center = b.root;
  assert_int_equal(tress_sim_bind_parts(sim, parts, 2, &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s.center = a.root;
  assert_int_equal(tress_sim_bind_parts(sim, parts, 2, &s, NULL), TRESS_OK);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Centered chains of both models (some with partial factors) allocate nothing per frame. */
static void test_center_frames_allocate_nothing(void **state) {
  (void)state;
  alloc_count_install();
  enum { N = 24 };
  tress_scene *scene = th_scene();
  rig *r = calloc(N, sizeof *r);
  tress_sim *sim = fix_sim(scene, N, 1e9f);
  for (int k = 0; k < N; k++) {
    r[k] = rig_make(scene);
    tress_chain_settings s = model_settings(k % 2);
    if (k % 3 != 2) s.center = r[k].root;
    s.center_inertia = k % 4 == 0 ? 0.5f : 1.0f;
    assert_int_equal(tress_sim_bind_bone_chain(sim, r[k].chain.bones[0], &s, NULL), TRESS_OK);
  }
  double t = 0.0;
  const double rates[] = {1.0 / 60.0, 1.0 / 144.0, 1.0 / 30.0, 0.2};
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) alloc_count_start();
    for (size_t q = 0; q < sizeof rates / sizeof rates[0]; q++)
      for (int i = 0; i < 30; i++) {
        t += rates[q];
        for (int k = 0; k < N; k++) rig_pose(scene, &r[k], t, 30.0f, 1.0f);
        assert_int_equal(tress_sim_step(sim, rates[q]), TRESS_OK);
      }
    if (pass == 1) {
      long calls = alloc_count_stop();
      print_message("allocations in 120 counted frames of %d centered chains: %ld\n", N, calls);
      assert_int_equal(calls, 0);
    }
  }
  for (int k = 0; k < N; k++) fix_assert_finite(scene, &r[k].chain);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(r);
}

/* A VRM 1.0 spring running in the space of Hips (its center), with no gravity: carried along
 * by a body moving steadily sideways it hangs as at rest; the same spring in world space
 * (center -1) trails behind. */
static const char CENTERED_VRM[] =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":["
    "{\"name\":\"Hips\",\"children\":[1]},{\"name\":\"T0\",\"translation\":[0,0.5,0],\"children\":[2]},"
    "{\"name\":\"T1\",\"translation\":[0,0,-0.1],\"children\":[3]},{\"name\":\"T2\",\"translation\":[0,0,-0.2]}],"
    "\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\",\"springs\":[{\"name\":\"tail\",\"center\":0,"
    "\"joints\":[{\"node\":1,\"stiffness\":1,\"dragForce\":0.4,\"gravityPower\":0},"
    "{\"node\":2,\"stiffness\":1,\"dragForce\":0.4,\"gravityPower\":0},{\"node\":3}]}]}}}";

static float vrm_tail_trailing(bool keep_center) {
  tress_spring_import_def def = tress_default_spring_import_def();
  def.units_per_metre = 1.0f;
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  assert_int_equal(tress_spring_import_read_memory((const uint8_t *)CENTERED_VRM, strlen(CENTERED_VRM), &def, &imp,
                                                   &err), 0);
  assert_int_equal(imp->chain_count, 1);
  assert_int_equal(imp->chains[0].center, tress_spring_import_find_node(imp, "Hips"));
  if (!keep_center) imp->chains[0].center = -1;
  tress_scene *scene = th_scene();
  tress_id body = th_instance(scene, TRESS_KIND_PART, "Body", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, body, tress_xform_from_pos(0, 5, 0));
  tress_spring_scene ss;
  assert_int_equal(tress_spring_import_apply(imp, scene, body, &ss, &err), 0);
  tress_sim *sim = fix_sim(scene, 10, 1e9f);
  tress_spring_binding b;
  assert_int_equal(tress_spring_bind(sim, imp, &ss, &b), TRESS_OK);
  assert_int_equal(b.bound, 1);
  for (int i = 1; i <= 90; i++) {
    tress_part_set_cframe(scene, body, tress_xform_from_pos(3.0f * (float)(i * DT), 5, 0));
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  }
  float root[3], tip[3];
  fix_world_pos(scene, ss.node_bones[tress_spring_import_find_node(imp, "T0")], root);
  fix_world_pos(scene, ss.node_bones[tress_spring_import_find_node(imp, "T1")], tip);
  tress_spring_binding_free(&b);
  tress_sim_destroy(sim);
  tress_spring_scene_free(&ss);
  tress_scene_destroy(scene);
  tress_spring_import_free(imp);
  return root[0] - tip[0];
}

static void test_vrm_center_is_imported(void **state) {
  (void)state;
  float centered = vrm_tail_trailing(true), world = vrm_tail_trailing(false);
  print_message("vrm spring trailing a body moving 3 units/s: center Hips %.5f, world %.5f\n", (double)centered,
                (double)world);
  assert_true(world > 0.01f);
  assert_true(fabsf(centered) < 0.05f * world);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_center_keeps_local_sway),
      cmocka_unit_test(test_inertia_zero_is_world),
      cmocka_unit_test(test_inertia_half_is_between),
      cmocka_unit_test(test_center_frame_rate_independent),
      cmocka_unit_test(test_destroyed_center_falls_back_to_world),
      cmocka_unit_test(test_bad_center_refused),
      cmocka_unit_test(test_center_frames_allocate_nothing),
      cmocka_unit_test(test_vrm_center_is_imported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
