/* test_sim_cull.c - who simulates: camera distance, the should_simulate override, the max_chains
 * budget (nearest win), sleep without writes, wake and teleport snaps, device budgets.
 * White-box (sim_internal.h): it reads the budget and cull distance a role and device resolve to. */
#include "support/sim_fixture.h"

#include "sim_internal.h"
#include "support/scene_build.h"

/* Two 4-bone chains on the x axis (near at x = near_x, far at x = far_x), a sim keeping `keep`
 * chains within `distance`, the camera at the origin, both chains bound with defaults. */
typedef struct pair {
  tress_scene *scene;
  tress_sim *sim;
  fix_chain near, far;
  tress_handle_id hn, hf;
} pair;

static pair pair_make(float near_x, float far_x, int keep, float distance) {
  pair p;
  p.scene = th_scene();
  p.near = fix_chain_make(p.scene, near_x, 5, 0, 4, 0.5f);
  p.far = fix_chain_make(p.scene, far_x, 5, 0, 4, 0.5f);
  p.sim = fix_sim(p.scene, keep, distance);
  float cam[3] = {0, 5.5f, 0};
  tress_sim_set_camera(p.sim, cam);
  assert_int_equal(tress_sim_bind(p.sim, p.near.part, NULL, &p.hn), TRESS_OK);
  assert_int_equal(tress_sim_bind(p.sim, p.far.part, NULL, &p.hf), TRESS_OK);
  return p;
}

static void pair_free(pair *p) {
  tress_sim_destroy(p->sim);
  tress_scene_destroy(p->scene);
}

static void test_distance_cull(void **state) {
  (void)state;
  pair p = pair_make(10, 60, 10, 40.0f);
  tress_scene *scene = p.scene;
  tress_sim *sim = p.sim;
  fix_chain near = p.near, far = p.far;
  tress_handle_id hn = p.hn, hf = p.hf;
  float cam[3] = {0, 5.5f, 0};
  fix_run(sim, 1.0 / 60.0, 30);
  assert_true(tress_handle_is_awake(sim, hn));
  assert_false(tress_handle_is_awake(sim, hf));
  assert_int_equal(tress_sim_get_stats(sim).simulated, 1);
  assert_true(fix_swung(scene, near.bones[1]));
  assert_true(fix_xform_is_identity(tress_bone_get_transform(scene, far.bones[1])));
  /* the camera walks over: the far chain wakes, the near one (now 50 away) sleeps */
  cam[0] = 55.0f;
  tress_sim_set_camera(sim, cam);
  fix_run(sim, 1.0 / 60.0, 30);
  assert_false(tress_handle_is_awake(sim, hn));
  assert_true(tress_handle_is_awake(sim, hf));
  assert_true(fix_swung(scene, far.bones[1]));
  /* exactly at the boundary still simulates */
  cam[0] = 10.0f + 40.0f;
  cam[1] = 5.5f;
  tress_sim_set_camera(sim, cam);
  fix_run(sim, 1.0 / 60.0, 1);
  assert_true(tress_handle_is_awake(sim, hn));
  pair_free(&p);
}

typedef struct gate {
  bool answer;
  int calls;
  tress_id last_root;
} gate;

static bool gate_fn(void *user, const tress_scene *scene, tress_id root) {
  (void)scene;
  gate *g = user;
  g->calls++;
  g->last_root = root;
  return g->answer;
}

static void test_should_simulate_replaces_the_distance_check(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 500, 5, 0, 4, 0.5f);
  gate g = {true, 0, (tress_id){0}};
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 10.0f;
  def.should_simulate = gate_fn;
  def.should_simulate_user = &g;
  tress_sim *sim = tress_sim_create(&def);
  float cam[3] = {0, 0, 0};
  tress_sim_set_camera(sim, cam);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  /* 500 away, far past max_distance, yet it simulates: the override owns the decision */
  fix_run(sim, 1.0 / 60.0, 5);
  assert_true(tress_handle_is_awake(sim, h));
  assert_int_equal(tress_sim_get_stats(sim).simulated, 1);
  assert_int_equal(g.calls, 5); /* once per frame */
  assert_true(tress_id_is_equal(g.last_root, c.part));
  /* next to the camera, but the override says no */
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(0, 0, 0));
  g.answer = false;
  fix_run(sim, 1.0 / 60.0, 5);
  assert_false(tress_handle_is_awake(sim, h));
  assert_int_equal(tress_sim_get_stats(sim).simulated, 0);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Deterministic pseudo-random numbers (no global state). */
static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static void test_budget_keeps_the_nearest(void **state) {
  (void)state;
  enum { N = 24 };
  tress_scene *scene = th_scene();
  fix_chain c[N];
  uint32_t seed = 12345;
  for (int i = 0; i < N; i++) {
    float x = (float)(lcg(&seed) % 2000) / 10.0f - 100.0f;
    float z = (float)(lcg(&seed) % 2000) / 10.0f - 100.0f;
    c[i] = fix_chain_make(scene, x, 5, z, 3, 0.5f);
  }
  for (int keep = 1; keep <= 9; keep += 4) {
    tress_sim *sim = fix_sim(scene, keep, 1e6f);
    tress_handle_id h[N];
    for (int i = 0; i < N; i++) assert_int_equal(tress_sim_bind(sim, c[i].part, NULL, &h[i]), TRESS_OK);
    for (int round = 0; round < 6; round++) {
      float cam[3] = {(float)(lcg(&seed) % 200) - 100.0f, 5.5f, (float)(lcg(&seed) % 200) - 100.0f};
      tress_sim_set_camera(sim, cam);
      fix_run(sim, 1.0 / 60.0, 1);
      float dist[N];
      int awake = 0;
      for (int i = 0; i < N; i++) {
        float p[3];
        fix_world_pos(scene, c[i].bones[0], p);
        dist[i] = fix_dist(p, cam);
        awake += tress_handle_is_awake(sim, h[i]);
      }
      assert_int_equal(awake, keep);
      assert_int_equal(tress_sim_get_stats(sim).simulated, keep);
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          if (tress_handle_is_awake(sim, h[i]) && !tress_handle_is_awake(sim, h[j])) assert_true(dist[i] <= dist[j]);
    }
    tress_sim_destroy(sim);
  }
  tress_scene_destroy(scene);
}

/* Enough chains for several of the culling's 64-slot blocks, every seventh unbound so blocks
 * hold unused slots: each bound chain is awake exactly when its root is within max_distance, and
 * under a budget exactly the nearest ones are. */
static void test_cull_across_slot_blocks(void **state) {
  (void)state;
  enum { N = 150 };
  tress_scene *scene = th_scene();
  fix_chain c[N];
  for (int i = 0; i < N; i++) c[i] = fix_chain_make(scene, (float)i * 1.5f, 5, (float)(i % 3), 3, 0.5f);
  const float cam[3] = {0, 5.5f, 0};
  for (int keep = 1000; keep >= 40; keep -= 960) {
    float distance = keep == 1000 ? 120.0f : 1e6f;
    tress_sim *sim = fix_sim(scene, keep, distance);
    tress_sim_set_camera(sim, cam);
    tress_handle_id h[N];
    for (int i = 0; i < N; i++) assert_int_equal(tress_sim_bind(sim, c[i].part, NULL, &h[i]), TRESS_OK);
    for (int i = 0; i < N; i += 7) tress_handle_destroy(sim, h[i]);
    fix_run(sim, 1.0 / 60.0, 2);
    float dist[N];
    int awake = 0, within = 0;
    for (int i = 0; i < N; i++) {
      float p[3];
      fix_world_pos(scene, c[i].bones[0], p);
      dist[i] = fix_dist(p, cam);
      if (i % 7 == 0) continue;
      awake += tress_handle_is_awake(sim, h[i]);
      within += dist[i] <= distance;
      if (keep == 1000) assert_int_equal(tress_handle_is_awake(sim, h[i]), dist[i] <= distance);
    }
    if (keep == 1000) assert_true(within > 64 && within < 120); /* the distance splits the blocks' chains */
    assert_int_equal(awake, keep == 1000 ? within : keep);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        if (i % 7 && j % 7 && tress_handle_is_awake(sim, h[i]) && !tress_handle_is_awake(sim, h[j]))
          assert_true(dist[i] <= dist[j]);
    tress_sim_destroy(sim);
  }
  tress_scene_destroy(scene);
}

/* The culling reads each chain's anchor straight from where the scene keeps the part; that
 * place moves when the scene's storage grows, and a slot bound again hangs from another part. */
static void test_cull_reads_the_part_where_it_is_now(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 10, 5, 0, 3, 0.5f), b = fix_chain_make(scene, 80, 5, 0, 3, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 40.0f);
  const float cam[3] = {0, 5.5f, 0};
  tress_sim_set_camera(sim, cam);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 3);
  assert_true(tress_handle_is_awake(sim, h));
  /* the scene's instance storage grows (moves), then the part walks out of range */
  for (int i = 0; i < 3000; i++) th_instance(scene, TRESS_KIND_PART, "Filler", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, a.part, tress_xform_from_pos(90, 5, 0));
  fix_run(sim, 1.0 / 60.0, 3);
  assert_false(tress_handle_is_awake(sim, h));
  tress_part_set_cframe(scene, a.part, tress_xform_from_pos(10, 5, 0));
  fix_run(sim, 1.0 / 60.0, 3);
  assert_true(tress_handle_is_awake(sim, h));
  /* the slot is freed and bound again to a chain out of range: it reads its own part */
  tress_handle_destroy(sim, h);
  assert_int_equal(tress_sim_bind(sim, b.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 3);
  assert_false(tress_handle_is_awake(sim, h));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_sleeping_chain_writes_nothing(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 20.0f);
  float cam[3] = {0, 5, 0};
  tress_sim_set_camera(sim, cam);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 20);
  cam[0] = 100.0f;
  tress_sim_set_camera(sim, cam);
  /* a sentinel in every output slot: a sleeping chain must leave it alone */
  tress_xform sentinel = tress_xform_from_pos(7, 8, 9);
  for (int b = 0; b < c.count; b++) tress_bone_set_transform(scene, c.bones[b], sentinel);
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(1, 5, 0)); /* the root moves meanwhile */
  fix_run(sim, 1.0 / 60.0, 30);
  assert_false(tress_handle_is_awake(sim, h));
  assert_int_equal(tress_sim_get_stats(sim).simulated, 0);
  for (int b = 0; b < c.count; b++) assert_true(fix_xform_equal(tress_bone_get_transform(scene, c.bones[b]), sentinel));
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_wake_snaps_to_the_animated_pose(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 20.0f);
  float cam[3] = {0, 5, 0};
  tress_sim_set_camera(sim, cam);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 30);
  cam[0] = -100.0f;
  tress_sim_set_camera(sim, cam);
  fix_run(sim, 1.0 / 60.0, 5);
  assert_false(tress_handle_is_awake(sim, h));
  /* while asleep the root crosses 30 units (under the teleport distance), then the camera follows */
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(30, 5, 0));
  fix_run(sim, 1.0 / 60.0, 5);
  cam[0] = 30.0f;
  tress_sim_set_camera(sim, cam);
  fix_run(sim, 1.0 / 60.0, 1);
  assert_true(tress_handle_is_awake(sim, h));
  for (int b = 0; b < c.count; b++) {
    float p[3];
    fix_world_pos(scene, c.bones[b], p);
    tress_xform want = tress_bone_get_world_animated(scene, c.bones[b]);
    if (fix_dist(p, want.p) > 0.05f) fail_msg("bone %d whipped: %.3f from its animated pose", b, (double)fix_dist(p, want.p));
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* How far (worst bone) the chain is from its animated pose one frame after its root jumps by
 * `jump` units along x. The chain first hangs straight down (stiffness 0), far from that pose.
 * Its links are 5 units (20 in all), so the chain-length reset (3 x 20 = 60 units, see
 * test_sim_springs) stays out of the way and only the 50-stud teleport guard decides. */
static float teleport_offset(float units_per_stud, float jump) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 5.0f);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1e6f;
  def.units_per_stud = units_per_stud;
  tress_sim *sim = tress_sim_create(&def);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.0f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 300);
  float tip[3], root[3];
  fix_world_pos(scene, c.bones[0], root);
  fix_world_pos(scene, c.bones[4], tip);
  if (!(root[1] - tip[1] > 5.0f)) fail_msg("not sagging: sag %.3f (ups %.2f)", (double)(root[1] - tip[1]), (double)units_per_stud);
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(jump, 5, 0));
  fix_run(sim, 1.0 / 60.0, 1);
  float worst = 0.0f;
  for (int b = 0; b < c.count; b++) {
    float p[3];
    fix_world_pos(scene, c.bones[b], p);
    float d = fix_dist(p, tress_bone_get_world_animated(scene, c.bones[b]).p);
    if (d > worst) worst = d;
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return worst;
}

static void test_teleport_snaps_past_50_units(void **state) {
  (void)state;
  /* past 50 the chain snaps to its animated pose (then one substep of gravity) */
  assert_true(teleport_offset(1.0f, 51.0f) < 0.05f);
  assert_true(teleport_offset(1.0f, -80.0f) < 0.05f);
  /* at 49 it integrates the jump: the strand is dragged behind the root */
  assert_true(teleport_offset(1.0f, 49.0f) > 0.5f);
  /* the distance scales with units_per_stud: 50 studs at 0.28 units each is 14 units */
  assert_true(teleport_offset(0.28f, 20.0f) < 0.05f);
  assert_true(teleport_offset(1.0f, 20.0f) > 0.5f);
  assert_true(teleport_offset(0.28f, 13.0f) > 0.5f);
}

static void test_device_budget_formulas(void **state) {
  (void)state;
  assert_int_equal(tress_device_get_max_chains(0.25f), 3);
  assert_int_equal(tress_device_get_max_chains(1.0f), 10);
  assert_int_equal(tress_device_get_max_chains(4.0f), 40);
  assert_int_equal(tress_device_get_max_chains(1.26f), 13);
  assert_int_equal(tress_device_get_max_chains(0.01f), 1);
  assert_true(tress_device_get_max_distance(0.25f) == 20.0f);
  assert_true(tress_device_get_max_distance(1.0f) == 80.0f);
  assert_true(tress_device_get_max_distance(4.0f) == 320.0f);
  assert_true(tress_device_get_max_distance(1.26f) == 101.0f);
  float c = tress_device_measure_compute();
  assert_true(c >= 0.25f && c <= 4.0f);
}

static void test_role_defaults(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.role = TRESS_SIM_SERVER;
  tress_sim *sim = tress_sim_create(&def);
  assert_int_equal(sim->max_chains, 20);
  assert_true(sim->max_distance == 100.0f);
  tress_sim_destroy(sim);
  /* client: from the device profile */
  def = tress_default_sim_def();
  def.scene = scene;
  def.device_compute = 2.0f;
  sim = tress_sim_create(&def);
  assert_int_equal(sim->max_chains, 20);
  assert_true(sim->max_distance == 160.0f);
  tress_sim_destroy(sim);
  def.device_compute = 9.0f; /* clamped into [0.25, 4] */
  sim = tress_sim_create(&def);
  assert_int_equal(sim->max_chains, 40);
  assert_true(sim->max_distance == 320.0f);
  tress_sim_destroy(sim);
  /* unset compute runs the bench once; whatever it says lands in range */
  def.device_compute = 0.0f;
  sim = tress_sim_create(&def);
  const tress_sim_def *got = tress_sim_get_def(sim);
  assert_true(got->device_compute >= 0.25f && got->device_compute <= 4.0f);
  assert_int_equal(sim->max_chains, tress_device_get_max_chains(got->device_compute));
  tress_sim_destroy(sim);
  /* explicit values win over the profile; lengths scale with units_per_stud */
  def.device_compute = 1.0f;
  def.max_chains = 7;
  def.units_per_stud = 0.5f;
  sim = tress_sim_create(&def);
  assert_int_equal(sim->max_chains, 7);
  assert_true(sim->max_distance == 40.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A disabled chain takes no max_chains slot: with a budget of one, a disabled chain next to the
 * camera does not put an enabled one further off (but within max_distance) to sleep, takes no
 * substeps (stats count only the enabled one), and shows its animated pose exactly. */
static void test_disabled_chain_takes_no_budget(void **state) {
  (void)state;
  pair p = pair_make(1, 30, 1, 100.0f);
  tress_scene *scene = p.scene;
  tress_sim *sim = p.sim;
  fix_chain near = p.near, far = p.far;
  tress_handle_id hn = p.hn, hf = p.hf;
  tress_chain_settings off = tress_default_chain_settings();
  off.enabled = false;
  assert_int_equal(tress_handle_set_chain_settings(sim, hn, &off), TRESS_OK);
  for (int frame = 0; frame < 30; frame++) {
    /* the near chain's animation moves every frame; it must be shown exactly */
    for (int b = 1; b < near.count; b++) {
      tress_xform a = tress_xform_from_pos(0.01f * (float)frame, 0.02f * (float)b, 0);
      tress_bone_set_animated(scene, near.bones[b], a);
    }
    fix_run(sim, 1.0 / 60.0, 1);
    assert_true(tress_handle_is_awake(sim, hf));
    assert_int_equal(tress_sim_get_stats(sim).simulated, tress_sim_get_stats(sim).substeps);
    for (int b = 0; b < near.count; b++)
      assert_true(fix_xform_equal(tress_bone_get_transform(scene, near.bones[b]), tress_bone_get_animated(scene, near.bones[b])));
  }
  assert_true(fix_swung(scene, far.bones[1]));
  float tip[3];
  fix_world_pos(scene, far.bones[far.count - 1], tip);
  if (!(tip[1] < 5.5f - 0.01f)) fail_msg("far tip at y %.4f: did not drop under gravity", (double)tip[1]);
  /* enabled again, the near chain takes the one slot back and the far one sleeps */
  tress_chain_settings on = tress_default_chain_settings();
  assert_int_equal(tress_handle_set_chain_settings(sim, hn, &on), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 2);
  assert_true(tress_handle_is_awake(sim, hn));
  assert_false(tress_handle_is_awake(sim, hf));
  pair_free(&p);
}

/* A chain held at its animated pose by a non-uniform scale steps no more than a disabled one, so
 * it takes no max_chains slot either: the enabled chain further off stays awake and swings. */
static void test_refused_scale_takes_no_budget(void **state) {
  (void)state;
  pair p = pair_make(1, 30, 1, 100.0f);
  tress_scene *scene = p.scene;
  tress_sim *sim = p.sim;
  fix_chain near = p.near, far = p.far;
  tress_handle_id hn = p.hn, hf = p.hf;
  const float squashed[3] = {1.0f, 2.0f, 1.0f};
  assert_true(tress_instance_set_scale(scene, near.part, squashed));
  fix_run(sim, 1.0 / 60.0, 30);
  assert_int_equal(tress_handle_get_status(sim, hn), TRESS_ERR_NON_UNIFORM_SCALE);
  assert_true(tress_handle_is_awake(sim, hf));
  assert_true(fix_swung(scene, far.bones[1]));
  pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_distance_cull),
      cmocka_unit_test(test_should_simulate_replaces_the_distance_check),
      cmocka_unit_test(test_budget_keeps_the_nearest),
      cmocka_unit_test(test_disabled_chain_takes_no_budget),
      cmocka_unit_test(test_refused_scale_takes_no_budget),
      cmocka_unit_test(test_sleeping_chain_writes_nothing),
      cmocka_unit_test(test_wake_snaps_to_the_animated_pose),
      cmocka_unit_test(test_teleport_snaps_past_50_units),
      cmocka_unit_test(test_cull_across_slot_blocks),
      cmocka_unit_test(test_cull_reads_the_part_where_it_is_now),
      cmocka_unit_test(test_device_budget_formulas),
      cmocka_unit_test(test_role_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
