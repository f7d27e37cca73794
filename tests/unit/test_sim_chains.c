/* test_sim_chains.c - bone chains: fixed step, hitch clamp, rest lengths, pinned roots that follow
 * animation, animated input kept apart from the output slot, destroy giving the skeleton back. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"


static void test_defaults_match_the_seed(void **state) {
  (void)state;
  tress_sim_def d = tress_default_sim_def();
  assert_true(d.gravity[0] == 0.0f && d.gravity[1] == -30.0f && d.gravity[2] == 0.0f);
  assert_true(d.fixed_hz == 60.0f);
  assert_int_equal(d.max_substeps, 3);
  assert_true(d.units_per_stud == 1.0f);
  assert_null(d.wind);
  assert_null(d.should_simulate);
  tress_chain_settings s = tress_default_chain_settings();
  assert_true(s.damping == 0.92f && s.stiffness == 0.1f && s.gravity_scale == 1.0f && s.wind_scale == 1.0f);
}

/* Positions of every bone after `seconds` of frames at `fps`. With velocity_x the root part
 * starts walking at constant velocity at t = 1/3 s (a frame boundary at 30, 45 and 240 fps), so
 * the substeps inside long frames need the interpolated pin to agree with short frames. */
static void sag_at(int fps, double seconds, float velocity_x, float stiffness, float out[][3], int bones) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, bones, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = stiffness;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  int frames = (int)lround(seconds * fps);
  for (int i = 1; i <= frames; i++) {
    double t = (double)i / fps;
    double walk = t > 1.0 / 3.0 ? t - 1.0 / 3.0 : 0.0;
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos((float)(velocity_x * walk), 5, 0));
    assert_int_equal(tress_sim_step(sim, 1.0 / fps), TRESS_OK);
  }
  for (int b = 0; b < bones; b++) fix_world_pos(scene, c.bones[b], out[b]);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_30_and_240_fps_settle_into_the_same_sag(void **state) {
  (void)state;
  float a[6][3], b[6][3];
  const float stiffness[2] = {0.1f, 0.0f}; /* the default, and a strand gravity owns */
  for (int k = 0; k < 2; k++) {
    sag_at(30, 2.0, 0.0f, stiffness[k], a, 6);
    sag_at(240, 2.0, 0.0f, stiffness[k], b, 6);
    for (int i = 0; i < 6; i++) assert_true(fix_dist(a[i], b[i]) <= 1e-4f);
    /* the chain did sag: the tip is below the root */
    assert_true(a[5][1] < a[0][1] - (k == 0 ? 0.05f : 2.0f));
    /* and with a root moving at constant speed the interpolated pins agree too */
    sag_at(30, 2.0, 3.0f, stiffness[k], a, 6);
    sag_at(240, 2.0, 3.0f, stiffness[k], b, 6);
    for (int i = 0; i < 6; i++) assert_true(fix_dist(a[i], b[i]) <= 1e-4f);
    sag_at(45, 2.0, 3.0f, stiffness[k], b, 6); /* frames that straddle substeps */
    for (int i = 0; i < 6; i++) assert_true(fix_dist(a[i], b[i]) <= 1e-4f);
  }
}

static void test_destroy_restores_identity_and_world_poses(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 1, 5, 2, 5, 0.4f);
  tress_xform before[5];
  for (int b = 0; b < c.count; b++) before[b] = tress_bone_get_world(scene, c.bones[b]);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 60);
  /* simulated: the chain moved away from its rest pose */
  assert_true(fix_swung(scene, c.bones[1]));
  tress_handle_destroy(sim, h);
  assert_false(tress_handle_is_valid(sim, h));
  for (int b = 0; b < c.count; b++) {
    assert_true(fix_xform_is_identity(tress_bone_get_transform(scene, c.bones[b])));
    assert_false(tress_bone_is_simulated(scene, c.bones[b]));
    assert_true(tress_xform_distance(tress_bone_get_world(scene, c.bones[b]), before[b]) <= 1e-6f);
  }
  /* sim_destroy gives bones back too, and an animated bone gets its animated value */
  tress_xform anim = tress_xform_from_pos(0.1f, 0.2f, 0.3f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  tress_bone_set_animated(scene, c.bones[2], anim);
  fix_run(sim, 1.0 / 60.0, 30);
  tress_sim_destroy(sim);
  for (int b = 0; b < c.count; b++) {
    if (b == 2) assert_true(fix_xform_equal(tress_bone_get_transform(scene, c.bones[b]), anim));
    else assert_true(fix_xform_is_identity(tress_bone_get_transform(scene, c.bones[b])));
  }
  tress_scene_destroy(scene);
}

/* A branching hierarchy (HairRoot with two strands) plus a linear one, under gravity, a gusting
 * wind callback and a root part whipped around a fast circle while it spins. */
static void gusty_wind(void *user, double t, float out[3]) {
  (void)user;
  out[0] = (float)(40.0 * sin(t * 9.0));
  out[1] = 5.0f;
  out[2] = (float)(25.0 * cos(t * 5.0));
}

static void whip(tress_scene *scene, tress_id part, double t) {
  float axis[3] = {0.3f, 1.0f, 0.2f};
  tress_xform x = tress_xform_from_axis_angle(axis, (float)(3.0 * sin(t * 11.0)));
  x.p[0] = (float)(2.0 * cos(t * 25.0));
  x.p[1] = 5.0f + (float)(1.0 * sin(t * 31.0));
  x.p[2] = (float)(2.0 * sin(t * 25.0));
  tress_part_set_cframe(scene, part, x);
}

static void assert_links_keep_rest_length(const tress_scene *scene, const tress_id *bones, const int *parent,
                                          const float *rest, int n) {
  for (int b = 0; b < n; b++) {
    if (parent[b] < 0) continue;
    float p[3], q[3];
    fix_world_pos(scene, bones[b], p);
    fix_world_pos(scene, bones[parent[b]], q);
    float d = fix_dist(p, q);
    if (fabsf(d - rest[b]) > 1e-4f) fail_msg("bone %d: link %.6f, rest %.6f", b, (double)d, (double)rest[b]);
  }
}

static void test_links_keep_rest_length_under_gravity_wind_and_whip(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.wind = gusty_wind;
  tress_sim *sim = tress_sim_create(&def);
  /* branching: root, then strand A (3 bones) and strand B (3 bones) */
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_id bones[7];
  int parent[7] = {-1, 0, 1, 2, 0, 4, 5};
  float rest[7];
  const float offs[7][3] = {{0, 0.5f, 0}, {0.4f, 0, 0}, {0.3f, -0.1f, 0}, {0.5f, 0, 0.1f},
                            {-0.4f, 0, 0}, {-0.2f, -0.2f, 0}, {0, -0.6f, 0.2f}};
  for (int b = 0; b < 7; b++) {
    bones[b] = th_instance(scene, TRESS_KIND_BONE, "Hair", parent[b] < 0 ? part : bones[parent[b]]);
    tress_bone_set_cframe(scene, bones[b], tress_xform_from_pos(offs[b][0], offs[b][1], offs[b][2]));
    rest[b] = sqrtf(offs[b][0] * offs[b][0] + offs[b][1] * offs[b][1] + offs[b][2] * offs[b][2]);
  }
  fix_chain lin = fix_chain_make(scene, 3, 5, 0, 8, 0.3f);
  int lin_parent[8];
  float lin_rest[8];
  for (int b = 0; b < 8; b++) {
    lin_parent[b] = b - 1;
    lin_rest[b] = 0.3f;
  }
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.05f;
  assert_int_equal(tress_sim_bind(sim, part, &s, NULL), TRESS_OK);
  assert_int_equal(tress_sim_bind(sim, lin.part, &s, NULL), TRESS_OK);
  double t = 0;
  /* one substep per frame: every substep is checked */
  for (int i = 0; i < 240; i++) {
    t += 1.0 / 60.0;
    whip(scene, part, t);
    whip(scene, lin.part, t + 0.5);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    assert_int_equal(tress_sim_get_stats(sim).substeps, 1);
    assert_links_keep_rest_length(scene, bones, parent, rest, 7);
    assert_links_keep_rest_length(scene, lin.bones, lin_parent, lin_rest, 8);
  }
  /* three substeps per frame */
  for (int i = 0; i < 40; i++) {
    t += 3.0 / 60.0;
    whip(scene, part, t);
    whip(scene, lin.part, t + 0.5);
    assert_int_equal(tress_sim_step(sim, 3.0 / 60.0), TRESS_OK);
    assert_links_keep_rest_length(scene, bones, parent, rest, 7);
    assert_links_keep_rest_length(scene, lin.bones, lin_parent, lin_rest, 8);
  }
  /* the whip did swing the strands off their rest pose */
  float tip[3];
  fix_world_pos(scene, bones[3], tip);
  tress_xform rest_tip = tress_xform_mul(tress_part_get_cframe(scene, part), tress_xform_from_pos(1.2f, 0.4f, 0.1f));
  assert_true(fix_dist(tip, rest_tip.p) > 0.05f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_hitch_runs_at_most_max_substeps(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  assert_int_equal(tress_sim_step(sim, 5.0), TRESS_OK);
  tress_sim_stats st = tress_sim_get_stats(sim);
  assert_int_equal(st.substeps, 3);
  assert_int_equal(st.simulated, 3);
  assert_int_equal(st.bound, 1);
  /* the accumulator was clamped too: the next ordinary frame runs one substep, not a backlog */
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).substeps, 1);
  assert_int_equal(tress_sim_get_stats(sim).simulated, 1);
  /* max_substeps is the sim's setting, not a constant */
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.max_substeps = 5;
  tress_sim *sim5 = tress_sim_create(&def);
  fix_chain c2 = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  assert_int_equal(tress_sim_bind(sim5, c2.part, NULL, NULL), TRESS_OK);
  assert_int_equal(tress_sim_step(sim5, 5.0), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim5).substeps, 5);
  assert_int_equal(tress_sim_get_stats(sim5).simulated, 5);
  tress_sim_destroy(sim5);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_bind_twice_returns_the_same_handle(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id a, b;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &a), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 5);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &b), TRESS_OK);
  assert_true(a.index1 == b.index1 && a.generation == b.generation);
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  fix_run(sim, 1.0 / 60.0, 1);
  assert_int_equal(tress_sim_get_stats(sim).simulated, 1);
  /* a part with no bones binds nothing */
  tress_id bare = th_instance(scene, TRESS_KIND_PART, "Bare", tress_scene_get_root(scene));
  assert_int_equal(tress_sim_bind(sim, bare, NULL, &b), TRESS_ERR_NOTHING_TO_BIND);
  assert_true(tress_handle_is_null(b));
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* The seed's point: the root pins to TransformedWorldCFrame (part * cframe * animated). */
static void test_root_bone_follows_its_animated_transform(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  float axis[3] = {0, 0, 1};
  tress_xform anim = tress_xform_from_axis_angle(axis, 0.7f);
  anim.p[0] = 3.0f;
  tress_bone_set_animated(scene, c.bones[0], anim);
  fix_run(sim, 1.0 / 60.0, 90);
  /* the root shows its animated pose */
  tress_xform root_world = tress_bone_get_world(scene, c.bones[0]);
  tress_xform expect = tress_bone_get_world_animated(scene, c.bones[0]);
  assert_true(tress_xform_distance(root_world, expect) <= 1e-5f);
  assert_true(fabsf(root_world.p[0] - 3.0f) <= 1e-5f);
  /* and the strand hangs from that pose: the first link is 0.5 from the animated root, where a
   * chain pinned to the rest pose (WorldCFrame) would hang from x = 0 */
  float p1[3];
  fix_world_pos(scene, c.bones[1], p1);
  assert_true(fabsf(fix_dist(p1, expect.p) - 0.5f) <= 1e-4f);
  assert_true(p1[0] > 2.4f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* The solver reads `animated` and writes `transform`; it never springs toward its own output. */
static void test_animated_input_is_separate_from_output(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 1.0f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  float axis[3] = {0, 0, 1};
  for (int i = 0; i < 120; i++) {
    /* animation swings bone 1 back and forth; with stiffness 1 the output must track it */
    tress_xform anim = tress_xform_from_axis_angle(axis, (float)(0.8 * sin(i * 0.1)));
    tress_bone_set_animated(scene, c.bones[1], anim);
    fix_run(sim, 1.0 / 60.0, 1);
    assert_true(fix_xform_equal(tress_bone_get_animated(scene, c.bones[1]), anim)); /* input untouched */
    for (int b = 0; b < c.count; b++) {
      tress_xform drawn = tress_bone_get_world(scene, c.bones[b]);
      tress_xform want = tress_bone_get_world_animated(scene, c.bones[b]);
      if (fix_dist(drawn.p, want.p) > 1e-4f) fail_msg("frame %d bone %d off its animated pose", i, b);
    }
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_stiffness_one_pins_to_the_animated_pose(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 6, 0.5f);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.ambient_wind[0] = 20.0f;
  tress_sim *sim = tress_sim_create(&def);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 1.0f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  for (int i = 0; i < 120; i++) {
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos((float)(0.05 * i), 5, 0)); /* root motion */
    fix_run(sim, 1.0 / 60.0, 1);
  }
  for (int b = 0; b < c.count; b++) {
    tress_xform t = tress_bone_get_transform(scene, c.bones[b]);
    assert_true(tress_xform_distance(t, tress_xform_identity()) <= 1e-4f);
    assert_true(tress_xform_distance(tress_bone_get_world(scene, c.bones[b]), tress_bone_get_world_rest(scene, c.bones[b])) <= 1e-4f);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_stiffness_zero_hangs_straight_down(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 6, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.0f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 60 * 20);
  float root[3];
  fix_world_pos(scene, c.bones[0], root);
  for (int b = 1; b < c.count; b++) {
    float p[3];
    fix_world_pos(scene, c.bones[b], p);
    assert_true(fabsf(p[0] - root[0]) <= 1e-3f);
    assert_true(fabsf(p[2] - root[2]) <= 1e-3f);
    assert_true(fabsf((root[1] - p[1]) - 0.5f * (float)b) <= 1e-3f);
  }
  /* with the default stiffness the same chain holds part of its pose instead */
  tress_handle_id h;
  fix_chain d = fix_chain_make(scene, 10, 5, 0, 6, 0.5f);
  assert_int_equal(tress_sim_bind(sim, d.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 60 * 20);
  float droot[3], dtip[3];
  fix_world_pos(scene, d.bones[0], droot);
  fix_world_pos(scene, d.bones[5], dtip);
  assert_true(dtip[0] - droot[0] > 0.1f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

typedef struct wind_count {
  int calls;
  double last_time;
} wind_count;

static void counting_wind(void *user, double t, float out[3]) {
  wind_count *w = user;
  w->calls++;
  w->last_time = t;
  out[0] = 0;
  out[1] = 0;
  out[2] = 60.0f;
}

static void test_wind_callback_is_sampled_once_per_step(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
  wind_count wc = {0, 0};
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.wind = counting_wind;
  def.wind_user = &wc;
  tress_sim *sim = tress_sim_create(&def);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 0.0f;
  assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  assert_int_equal(tress_sim_step(sim, 3.0 / 60.0), TRESS_OK); /* three substeps, one sample */
  assert_int_equal(tress_sim_get_stats(sim).substeps, 3);
  assert_int_equal(wc.calls, 1);
  assert_int_equal(tress_sim_step(sim, 1.0 / 240.0), TRESS_OK); /* no substep, still one call */
  assert_int_equal(wc.calls, 2);
  fix_run(sim, 1.0 / 60.0, 58);
  assert_int_equal(wc.calls, 60);
  /* the wind blows the chain along +z */
  float root[3], tip[3];
  fix_world_pos(scene, c.bones[0], root);
  fix_world_pos(scene, c.bones[3], tip);
  assert_true(tip[2] - root[2] > 0.2f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Ambient gusts are a function of sim time: two sims agree, and the wind does move chains. */
static void test_ambient_wind_gusts_deterministically(void **state) {
  (void)state;
  float tips[2][3];
  for (int run = 0; run < 2; run++) {
    tress_scene *scene = th_scene();
    fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.5f);
    tress_sim_def def = tress_default_sim_def();
    def.scene = scene;
    def.max_chains = 10;
    def.max_distance = 1000.0f;
    def.ambient_wind[2] = 40.0f;
    tress_sim *sim = tress_sim_create(&def);
    tress_chain_settings s = tress_default_chain_settings();
    s.stiffness = 0.0f;
    assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
    fix_run(sim, run == 0 ? 1.0 / 60.0 : 1.0 / 120.0, run == 0 ? 120 : 240);
    fix_world_pos(scene, c.bones[3], tips[run]);
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
  assert_true(tips[0][2] > 0.2f);
  assert_true(fix_dist(tips[0], tips[1]) <= 1e-4f);
}

/* A new chain starts where it is drawn: bound under a rotated, animated root it does not fling. */
static void test_new_chain_starts_where_it_is_drawn(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  float axis[3] = {0, 1, 0};
  tress_xform anim = tress_xform_from_axis_angle(axis, 1.5f);
  tress_bone_set_animated(scene, c.bones[0], anim);
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(30, 5, 0)); /* far from the origin */
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, NULL), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 1);
  for (int b = 0; b < c.count; b++) {
    float p[3];
    fix_world_pos(scene, c.bones[b], p);
    tress_xform want = tress_bone_get_world_animated(scene, c.bones[b]);
    assert_true(fix_dist(p, want.p) <= 0.05f); /* one substep of gravity, no more */
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_settings_retune_live(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.5f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 10);
  tress_chain_settings s = tress_default_chain_settings();
  s.stiffness = 1.0f;
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_OK);
  fix_run(sim, 1.0 / 60.0, 2);
  for (int b = 0; b < c.count; b++)
    assert_true(tress_xform_distance(tress_bone_get_transform(scene, c.bones[b]), tress_xform_identity()) <= 1e-4f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Thousands of chains of mixed lengths share one batched layout (levels, tiles, gathers): each
 * one must move exactly as the same chain simulated alone. */
static void run_relative(tress_scene *scene, tress_sim *sim, const fix_chain *c, int n, const float (*base)[3],
                         int frames) {
  float axis[3] = {0.2f, 1.0f, 0.1f};
  for (int i = 1; i <= frames; i++) {
    double t = i / 60.0;
    for (int k = 0; k < n; k++) {
      tress_xform x = tress_xform_from_axis_angle(axis, (float)(0.8 * sin(t * 7.0)));
      x.p[0] = base[k][0] + (float)(0.5 * sin(t * 9.0));
      x.p[1] = base[k][1];
      x.p[2] = base[k][2] + (float)(0.4 * cos(t * 5.0));
      tress_part_set_cframe(scene, c[k].part, x);
    }
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  }
}

static void test_many_chains_match_a_lone_chain(void **state) {
  (void)state;
  enum { N = 900, LENGTHS = 10 };
  tress_scene *scene = th_scene();
  fix_chain *c = calloc(N, sizeof *c);
  float(*base)[3] = calloc(N, sizeof *base);
  for (int k = 0; k < N; k++) {
    base[k][0] = (float)(k % 30) * 2.0f;
    base[k][1] = 5.0f;
    base[k][2] = (float)(k / 30) * 2.0f;
    c[k] = fix_chain_make(scene, base[k][0], base[k][1], base[k][2], 3 + k % LENGTHS, 0.3f);
  }
  tress_sim *sim = fix_sim(scene, N, 1e6f);
  for (int k = 0; k < N; k++) assert_int_equal(tress_sim_bind(sim, c[k].part, NULL, NULL), TRESS_OK);
  run_relative(scene, sim, c, N, (const float(*)[3])base, 90);
  assert_int_equal(tress_sim_get_stats(sim).simulated, N);
  /* the lone references, one per length */
  for (int len = 0; len < LENGTHS; len++) {
    tress_scene *rs = th_scene();
    float rb[1][3] = {{0, 5, 0}};
    fix_chain r = fix_chain_make(rs, 0, 5, 0, 3 + len, 0.3f);
    tress_sim *rsim = fix_sim(rs, 1, 1e6f);
    assert_int_equal(tress_sim_bind(rsim, r.part, NULL, NULL), TRESS_OK);
    run_relative(rs, rsim, &r, 1, (const float(*)[3])rb, 90);
    for (int k = len; k < N; k += LENGTHS) {
      for (int b = 0; b < r.count; b++) {
        float p[3], q[3];
        fix_world_pos(scene, c[k].bones[b], p);
        fix_world_pos(rs, r.bones[b], q);
        for (int a = 0; a < 3; a++) {
          p[a] -= base[k][a];
          q[a] -= rb[0][a];
        }
        if (fix_dist(p, q) > 1e-4f) fail_msg("chain %d bone %d differs by %g", k, b, (double)fix_dist(p, q));
      }
    }
    tress_sim_destroy(rsim);
    tress_scene_destroy(rs);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(c);
  free(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_match_the_seed),
      cmocka_unit_test(test_30_and_240_fps_settle_into_the_same_sag),
      cmocka_unit_test(test_destroy_restores_identity_and_world_poses),
      cmocka_unit_test(test_links_keep_rest_length_under_gravity_wind_and_whip),
      cmocka_unit_test(test_hitch_runs_at_most_max_substeps),
      cmocka_unit_test(test_bind_twice_returns_the_same_handle),
      cmocka_unit_test(test_root_bone_follows_its_animated_transform),
      cmocka_unit_test(test_animated_input_is_separate_from_output),
      cmocka_unit_test(test_stiffness_one_pins_to_the_animated_pose),
      cmocka_unit_test(test_stiffness_zero_hangs_straight_down),
      cmocka_unit_test(test_wind_callback_is_sampled_once_per_step),
      cmocka_unit_test(test_ambient_wind_gusts_deterministically),
      cmocka_unit_test(test_new_chain_starts_where_it_is_drawn),
      cmocka_unit_test(test_settings_retune_live),
      cmocka_unit_test(test_many_chains_match_a_lone_chain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
