/* test_sim_vrm.c - the VRM spring model (TRESS_SPRING_VRM, sim.h): first joints turn, a chain
 * held out sideways curls, per-joint settings, a chain started by a zero step, frame-rate
 * independence, no allocation per frame, and a check against a plain scalar re-implementation of VRMC_springBone-1.0. */
#include "support/alloc_count.h"
#include "support/sim_fixture.h"
#include "support/scene_build.h"

#define DT (1.0 / 60.0)

static tress_chain_settings vrm_settings(float stiffness, float drag, float power) {
  tress_chain_settings s = tress_default_chain_settings();
  s.model = TRESS_SPRING_VRM;
  s.stiffness = stiffness;
  s.damping = 1.0f - drag;
  s.gravity_scale = power;
  return s;
}

/* Angle (degrees) of the segment a -> b below the horizontal. */
static float droop_degrees(const float a[3], const float b[3]) {
  float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  return (float)(atan2(-dy, sqrt(dx * dx + dz * dz)) * 180.0 / M_PI);
}

static float quat_angle_degrees(const float q[4]) {
  float w = fabsf(q[3]) > 1.0f ? 1.0f : fabsf(q[3]);
  return (float)(2.0 * acos(w) * 180.0 / M_PI);
}

/* VRM 0.x hair: two joints, skin weights on the first. The first joint has to turn toward its
 * tail (the second joint), and no joint's position is written. */
static void test_first_joint_turns(void **state) {
  (void)state;
  for (int model = 0; model < 2; model++) {
    tress_scene *scene = th_scene();
    fix_chain c = fix_chain_make(scene, 0, 5, 0, 2, 0.3f);
    tress_sim *sim = fix_sim(scene, 10, 1000.0f);
    tress_chain_settings s = vrm_settings(1.0f, 0.4f, 2.0f);
    s.end_length = 0.1f; /* VRM 0.x's end tip */
    if (model == 0) s = tress_default_chain_settings();
    assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
    for (int i = 0; i < 120; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    tress_xform root = tress_bone_get_transform(scene, c.bones[0]);
    float turn = quat_angle_degrees(root.q);
    if (model == 1) {
      print_message("VRM first joint turned %.1f degrees\n", (double)turn);
      assert_true(turn > 20.0f);
      /* positions are never written: every bone keeps its animated (identity) translation */
      for (int b = 0; b < 2; b++) {
        tress_xform t = tress_bone_get_transform(scene, c.bones[b]);
        assert_true(t.p[0] == 0.0f && t.p[1] == 0.0f && t.p[2] == 0.0f);
      }
      /* the second joint turned as well (toward its end tip), and hangs below the first */
      assert_true(quat_angle_degrees(tress_bone_get_transform(scene, c.bones[1]).q) > 1.0f);
      float p0[3], p1[3];
      fix_world_pos(scene, c.bones[0], p0);
      fix_world_pos(scene, c.bones[1], p1);
      assert_true(droop_degrees(p0, p1) > 20.0f);
      assert_float_equal(fix_dist(p0, p1), 0.3f, 1e-4f);
    } else {
      assert_true(turn < 1e-3f); /* the pose model pins its root, unswung */
    }
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
}

/* A chain held out sideways under gravity: VRM pushes each tail toward its rest direction
 * under the parent's current rotation, so every link droops more than the one above it (it
 * curls); the pose model pulls every node toward its animated world position, so it keeps
 * its shape and drops as a block. */
static void test_sideways_chain_curls(void **state) {
  (void)state;
  float curl[2];
  for (int model = 0; model < 2; model++) {
    tress_scene *scene = th_scene();
    fix_chain c = fix_chain_make(scene, 0, 5, 0, 6, 0.3f);
    tress_sim *sim = fix_sim(scene, 10, 1000.0f);
    tress_chain_settings s = model ? vrm_settings(1.0f, 0.4f, 0.5f) : tress_default_chain_settings();
    assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
    for (int i = 0; i < 300; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    float p[6][3];
    for (int b = 0; b < 6; b++) fix_world_pos(scene, c.bones[b], p[b]);
    float first = droop_degrees(p[0], p[1]), last = droop_degrees(p[4], p[5]);
    curl[model] = last - first;
    print_message("%s: first link %.1f, last link %.1f degrees below horizontal\n", model ? "vrm" : "pose",
                  (double)first, (double)last);
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
  assert_true(curl[1] > 30.0f);
  assert_true(curl[0] < 0.5f * curl[1] - 20.0f);
}

/* Per-joint values are honoured per node: a chain whose joints each carry the chain's values
 * moves exactly as the chain; changing one joint's values moves only what hangs below it. */
static void test_joint_settings_per_node(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 0, 5, 0, 4, 0.3f), b = fix_chain_make(scene, 10, 5, 0, 4, 0.3f),
            d = fix_chain_make(scene, 20, 5, 0, 4, 0.3f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 1.0f);
  s.gravity_dir[0] = 0.3f; /* sideways too */
  s.gravity_dir[1] = -1.0f;
  tress_handle_id ha, hb, hd;
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.bones[0], &s, &ha), TRESS_OK);
  tress_chain_settings off = vrm_settings(0.0f, 0.9f, 0.0f);
  assert_int_equal(tress_sim_bind_bone_chain(sim, b.bones[0], &off, &hb), TRESS_OK);
  assert_int_equal(tress_sim_bind_bone_chain(sim, d.bones[0], &s, &hd), TRESS_OK);
  tress_joint_settings j = tress_default_joint_settings();
  j.stiffness = s.stiffness;
  j.damping = s.damping;
  j.gravity_scale = s.gravity_scale;
  memcpy(j.gravity_dir, s.gravity_dir, sizeof j.gravity_dir);
  for (int k = 0; k < 4; k++) assert_int_equal(tress_handle_set_joint_settings(sim, hb, b.bones[k], &j), TRESS_OK);
  /* chain d: its third joint pulls hard the other way */
  tress_joint_settings odd = j;
  odd.gravity_dir[0] = -1.0f;
  odd.gravity_dir[1] = 0.0f;
  odd.gravity_scale = 3.0f;
  assert_int_equal(tress_handle_set_joint_settings(sim, hd, d.bones[2], &odd), TRESS_OK);
  /* bones outside the chain and bad values are refused */
  assert_int_equal(tress_handle_set_joint_settings(sim, hd, a.bones[1], &odd), TRESS_ERR_INVALID_ARGUMENT);
  odd.stiffness = NAN;
  assert_int_equal(tress_handle_set_joint_settings(sim, hd, d.bones[1], &odd), TRESS_ERR_INVALID_ARGUMENT);
  for (int i = 0; i < 120; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  for (int k = 0; k < 4; k++) {
    float pa[3], pb[3], pd[3];
    fix_world_pos(scene, a.bones[k], pa);
    fix_world_pos(scene, b.bones[k], pb);
    fix_world_pos(scene, d.bones[k], pd);
    pb[0] -= 10.0f;
    pd[0] -= 20.0f;
    assert_true(fix_dist(pa, pb) < 1e-4f);
    if (k <= 2) assert_true(fix_dist(pa, pd) < 1e-4f); /* above the odd joint's tail: unchanged */
    else assert_true(fix_dist(pa, pd) > 0.05f);       /* its tail went the other way */
  }
  /* NULL gives the joint back to the chain: d moves as a again from rest */
  assert_int_equal(tress_handle_set_joint_settings(sim, hd, d.bones[2], NULL), TRESS_OK);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Where the head is at time t: along a path of straight pieces that turn every 0.5 s (so every
 * frame rate samples the same path), turning about +y at a steady rate. */
static tress_xform head_at(double t) {
  static const float keys[5][3] = {{0, 5, 0}, {1.0f, 5.2f, 0}, {1.0f, 4.6f, 0.8f}, {-0.5f, 5, 0.8f}, {0, 5, 0}};
  int k = (int)(t / 0.5);
  if (k > 3) k = 3;
  float u = (float)((t - 0.5 * k) / 0.5);
  float axis[3] = {0, 1, 0};
  tress_xform x = tress_xform_from_axis_angle(axis, (float)(1.5 * t));
  for (int a = 0; a < 3; a++) x.p[a] = keys[k][a] + (keys[k + 1][a] - keys[k][a]) * u;
  return x;
}

/* The same pose at the same sim time whether the game draws at 30, 60 or 144 fps: the solver
 * steps at its fixed 60 Hz and frames between steps only carry the drawing. */
/* A chain starts on its first frame even when that frame runs no substep (a zero step, or a
 * 144 Hz frame before the first 60 Hz slice): it snaps where it is drawn then, so the first
 * substep swings it from that pose, as three-vrm's setInitState does. Without it the chain
 * would start (snap) at the first substep's pose instead and show no lag after a move. */
static void test_zero_step_starts_the_chain(void **state) {
  (void)state;
  for (int model = 0; model < 2; model++) {
    float tip_z[2];
    for (int started = 0; started < 2; started++) {
      tress_scene *scene = th_scene();
      fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.2f);
      tress_sim *sim = fix_sim(scene, 10, 1000.0f);
      tress_chain_settings s = model ? vrm_settings(1.0f, 0.4f, 0.0f) : tress_default_chain_settings();
      s.gravity_scale = 0.0f;
      assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
      if (started) assert_int_equal(tress_sim_step(sim, 0.0), TRESS_OK);
      tress_part_set_cframe(scene, c.part, tress_xform_from_pos(0, 5, 0.1f));
      assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
      float tip[3];
      fix_world_pos(scene, c.bones[3], tip);
      tip_z[started] = tip[2];
      tress_sim_destroy(sim);
      tress_scene_destroy(scene);
    }
    print_message("%s model: tip z after a 0.1 move, started at the first pose %.4f, not %.4f\n",
                  model ? "VRM" : "pose", (double)tip_z[1], (double)tip_z[0]);
    assert_float_equal(tip_z[0], 0.1f, 1e-4f); /* snapped at the moved pose: no lag */
    assert_true(tip_z[1] < 0.09f);             /* started before the move: the tip lags */
  }
}

/* Where a weight-0.5 VRM chain is drawn after `walk` frames of its head walking +x and 300
 * frames holding still at x = 10: its tip's world position. */
static void weighted_tip(int walk, float tip[3]) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, walk ? 0.0f : 10.0f, 5, 0, 4, 0.2f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 1.0f);
  s.weight = 0.5f;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
  for (int i = 1; i <= walk; i++) {
    tress_part_set_cframe(scene, c.part, tress_xform_from_pos(10.0f * (float)i / (float)walk, 5, 0));
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  }
  for (int i = 0; i < 300; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  fix_world_pos(scene, c.bones[3], tip);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A weighted VRM chain blends toward this frame's animated pose, wherever the head has gone:
 * settled at x = 10 it is drawn as one bound there (its tiles compose the animated pose past
 * the roots for the blend). */
static void test_weighted_blends_toward_this_frames_pose(void **state) {
  (void)state;
  float walked[3], placed[3];
  weighted_tip(200, walked);
  weighted_tip(0, placed);
  print_message("weighted tip after the walk (%.4f %.4f %.4f), bound there (%.4f %.4f %.4f)\n", (double)walked[0],
                (double)walked[1], (double)walked[2], (double)placed[0], (double)placed[1], (double)placed[2]);
  assert_true(fix_dist(walked, placed) < 1e-3f);
}

static void test_frame_rate_independent(void **state) {
  (void)state;
  const int rates[3] = {30, 60, 144};
  float pose[3][3][5][3]; /* rate, checkpoint (1, 1.5, 2 s), bone */
  for (int r = 0; r < 3; r++) {
    tress_scene *scene = th_scene();
    fix_chain c = fix_chain_make(scene, 0, 5, 0, 5, 0.3f);
    tress_part_set_cframe(scene, c.part, head_at(0.0));
    tress_sim *sim = fix_sim(scene, 10, 1000.0f);
    tress_chain_settings s = vrm_settings(1.0f, 0.3f, 1.0f);
    assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
    assert_int_equal(tress_sim_step(sim, 0.0), TRESS_OK);
    int frames = 2 * rates[r], substeps = 0;
    for (int i = 1; i <= frames; i++) {
      tress_part_set_cframe(scene, c.part, head_at((double)i / rates[r]));
      assert_int_equal(tress_sim_step(sim, 1.0 / rates[r]), TRESS_OK);
      substeps += (int)tress_sim_get_stats(sim).substeps;
      int check = i * 2 == rates[r] * 2 ? 0 : i * 2 == rates[r] * 3 ? 1 : i == frames ? 2 : -1;
      if (check >= 0)
        for (int b = 0; b < 5; b++) fix_world_pos(scene, c.bones[b], pose[r][check][b]);
    }
    assert_int_equal(substeps, 120);
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
  float worst = 0.0f, swing = 0.0f;
  for (int k = 0; k < 3; k++)
    for (int b = 0; b < 5; b++) {
      for (int r = 0; r < 3; r += 2) {
        float d = fix_dist(pose[1][k][b], pose[r][k][b]);
        if (d > worst) worst = d;
      }
    }
  /* the chain did swing (the tip is far from where it started) */
  float start[3] = {0.0f + 4 * 0.3f, 5.5f, 0.0f};
  swing = fix_dist(pose[1][2][4], start);
  print_message("largest 30/144 fps deviation from 60 fps: %g units (tip moved %.2f)\n", (double)worst, (double)swing);
  assert_true(swing > 0.2f);
  assert_true(worst < 2e-4f);
}

/* A plain scalar VRMC_springBone-1.0 (the spec's update, as three-vrm runs it) for one linear
 * chain under a moving head, one update per 60 Hz frame, doubles throughout. */
typedef struct ref_chain {
  int joints;
  double local[8][3]; /* each joint's rest offset from its parent (joint 0: from the head) */
  double stiffness[8], drag[8], power[8], dir[8][3], hit[8];
  double cur[8][3], prev[8][3]; /* tail of joint k (= joint k + 1) */
  double world[8][3];
  double sphere[3], sphere_radius; /* offset on the head, radius */
  /* three-vrm's lengths: each joint's length measured every update from its head now to its
   * child's world matrix, which still holds the last update's local rotations (lrot) under the
   * head where it is now; false keeps the rest length (the spec's) */
  bool three_vrm;
  double lrot[8][4]; /* each joint's local rotation last update (zero: identity, as at init) */
} ref_chain;

static void rq_rot(const double q[4], const double v[3], double r[3]) {
  double tx = 2 * (q[1] * v[2] - q[2] * v[1]), ty = 2 * (q[2] * v[0] - q[0] * v[2]), tz = 2 * (q[0] * v[1] - q[1] * v[0]);
  r[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
  r[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
  r[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}
static void rq_mul(const double a[4], const double b[4], double r[4]) {
  double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  r[0] = x; r[1] = y; r[2] = z; r[3] = w;
}
static double rv_len(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
/* The rotation taking unit a to unit b (three.js setFromUnitVectors). */
static void rq_from_to(const double a[3], const double b[3], double q[4]) {
  double w = 1 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  q[0] = a[1] * b[2] - a[2] * b[1];
  q[1] = a[2] * b[0] - a[0] * b[2];
  q[2] = a[0] * b[1] - a[1] * b[0];
  q[3] = w;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

/* World position of every joint for the head at (hp, hq); init puts the tails at rest. */
static void ref_update(ref_chain *c, const double hp[3], const double hq[4], double dt, bool init) {
  double pp[3] = {hp[0], hp[1], hp[2]}, pq[4] = {hq[0], hq[1], hq[2], hq[3]};
  if (init) { /* every tail where the rest pose has it (joint k + 1), not moving */
    double at[3] = {hp[0], hp[1], hp[2]};
    for (int k = 0; k < c->joints; k++) {
      double o[3];
      rq_rot(hq, c->local[k], o);
      for (int a = 0; a < 3; a++) at[a] += o[a];
      if (k > 0)
        for (int a = 0; a < 3; a++) c->cur[k - 1][a] = c->prev[k - 1][a] = at[a];
    }
  }
  double sc[3];
  rq_rot(hq, c->sphere, sc);
  for (int a = 0; a < 3; a++) sc[a] += hp[a];
  double stale[8][3], sp[3] = {hp[0], hp[1], hp[2]}, sq[4] = {hq[0], hq[1], hq[2], hq[3]};
  for (int k = 0; k < c->joints; k++) { /* where each joint's bone was last drawn, head now */
    double o[3], q[4], l[4] = {c->lrot[k][0], c->lrot[k][1], c->lrot[k][2], c->lrot[k][3]};
    if (l[0] == 0 && l[1] == 0 && l[2] == 0 && l[3] == 0) l[3] = 1;
    rq_rot(sq, c->local[k], o);
    for (int a = 0; a < 3; a++) sp[a] = stale[k][a] = sp[a] + o[a];
    rq_mul(sq, l, q);
    memcpy(sq, q, sizeof sq);
  }
  for (int k = 0; k < c->joints; k++) {
    double o[3], pos[3];
    rq_rot(pq, c->local[k], o);
    for (int a = 0; a < 3; a++) pos[a] = c->world[k][a] = pp[a] + o[a];
    if (k == c->joints - 1) break; /* the last joint is only a tail */
    double rest = rv_len(c->local[k + 1]), axis[3], dir[3];
    double gap[3] = {stale[k + 1][0] - pos[0], stale[k + 1][1] - pos[1], stale[k + 1][2] - pos[2]};
    double len = c->three_vrm ? rv_len(gap) : rest;
    for (int a = 0; a < 3; a++) axis[a] = c->local[k + 1][a] / rest;
    /* A: the parent's current rotation times the joint's initial local rotation (identity) */
    rq_rot(pq, axis, dir);
    double next[3];
    for (int a = 0; a < 3; a++)
      next[a] = c->cur[k][a] + (c->cur[k][a] - c->prev[k][a]) * (1 - c->drag[k]) + dir[a] * c->stiffness[k] * dt +
                c->dir[k][a] * c->power[k] * dt;
    double d[3] = {next[0] - pos[0], next[1] - pos[1], next[2] - pos[2]}, l = rv_len(d);
    for (int a = 0; a < 3; a++) next[a] = pos[a] + d[a] / l * len;
    double e[3] = {next[0] - sc[0], next[1] - sc[1], next[2] - sc[2]}, el = rv_len(e);
    double reach = c->sphere_radius + c->hit[k];
    if (el < reach) {
      for (int a = 0; a < 3; a++) next[a] = sc[a] + e[a] / el * reach;
      double f[3] = {next[0] - pos[0], next[1] - pos[1], next[2] - pos[2]}, fl = rv_len(f);
      for (int a = 0; a < 3; a++) next[a] = pos[a] + f[a] / fl * len;
    }
    for (int a = 0; a < 3; a++) {
      c->prev[k][a] = c->cur[k][a];
      c->cur[k][a] = next[a];
    }
    /* the joint aims at its tail: fromTo(axis, A^-1 (next - pos)) on its initial rotation */
    double to[3] = {next[0] - pos[0], next[1] - pos[1], next[2] - pos[2]}, inv[4] = {-pq[0], -pq[1], -pq[2], pq[3]};
    double local_to[3], turn[4], q[4];
    rq_rot(inv, to, local_to);
    double tl = rv_len(local_to);
    for (int a = 0; a < 3; a++) local_to[a] /= tl;
    rq_from_to(axis, local_to, turn);
    memcpy(c->lrot[k], turn, sizeof turn);
    rq_mul(pq, turn, q);
    memcpy(pp, pos, sizeof pp);
    memcpy(pq, q, sizeof pq);
  }
}

/* How deep joint position p is inside the sphere (reach = radius + hit radius), 0 outside. */
static double sphere_depth(const float p[3], const double c[3], double reach) {
  double e[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  double d = reach - rv_len(e);
  return d > 0.0 ? d : 0.0;
}

typedef struct ref_run {
  float worst;                    /* largest joint distance tress vs the reference */
  double tress_depth, ref_depth;  /* deepest any joint got inside the sphere */
} ref_run;

/* One chain of per-joint values under a head that moves and turns, tress's kernel and the
 * scalar spec side by side, every joint's world position every frame. */
static ref_run run_against_reference(bool sphere_on, tress_vrm_length tress_length, bool ref_three_vrm) {
  enum { N = 5, FRAMES = 240 };
  ref_run out = {0};
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, N, 0.3f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  ref_chain ref;
  memset(&ref, 0, sizeof ref);
  ref.joints = N;
  ref.three_vrm = ref_three_vrm;
  ref.local[0][1] = 0.5;
  for (int k = 1; k < N; k++) ref.local[k][0] = 0.3;
  ref.sphere[0] = 0.6;
  ref.sphere_radius = 0.25;
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 0.0f);
  s.vrm_length = tress_length;
  if (sphere_on) {
    tress_collider_def cd = tress_default_collider_def();
    cd.attach = c.part;
    cd.offset[0] = (float)ref.sphere[0];
    cd.radius = (float)ref.sphere_radius;
    tress_collider_id sphere;
    assert_int_equal(tress_sim_create_collider(sim, &cd, &sphere), TRESS_OK);
    s.colliders[s.collider_count++] = sphere;
  } else {
    ref.sphere_radius = -1.0; /* never reached */
  }
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, &h), TRESS_OK);
  for (int k = 0; k < N - 1; k++) {
    tress_joint_settings j = tress_default_joint_settings();
    j.stiffness = 0.5f + 0.4f * (float)k;
    j.damping = 1.0f - (0.2f + 0.1f * (float)k);
    j.gravity_scale = 1.5f - 0.2f * (float)k;
    j.gravity_dir[0] = 0.2f * (float)(k % 2);
    j.gravity_dir[1] = -1.0f;
    j.radius = sphere_on ? 0.02f * (float)(k + 1) : 0.0f;
    assert_int_equal(tress_handle_set_joint_settings(sim, h, c.bones[k], &j), TRESS_OK);
    double dl = sqrt((double)j.gravity_dir[0] * j.gravity_dir[0] + 1.0);
    ref.stiffness[k] = j.stiffness;
    ref.drag[k] = 1.0 - (double)j.damping;
    ref.power[k] = j.gravity_scale;
    ref.dir[k][0] = j.gravity_dir[0] / dl;
    ref.dir[k][1] = -1.0 / dl;
    ref.hit[k] = j.radius;
  }
  for (int i = 1; i <= FRAMES; i++) {
    tress_xform head = head_at(i * DT);
    tress_part_set_cframe(scene, c.part, head);
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    double hp[3] = {head.p[0], head.p[1], head.p[2]}, hq[4] = {head.q[0], head.q[1], head.q[2], head.q[3]};
    ref_update(&ref, hp, hq, DT, i == 1);
    double sc[3];
    rq_rot(hq, ref.sphere, sc);
    for (int a = 0; a < 3; a++) sc[a] += hp[a];
    for (int k = 0; k < N; k++) {
      float p[3], r[3] = {(float)ref.world[k][0], (float)ref.world[k][1], (float)ref.world[k][2]};
      fix_world_pos(scene, c.bones[k], p);
      float d = fix_dist(p, r);
      if (d > out.worst) out.worst = d;
      if (k == 0 || !sphere_on) continue;
      double reach = ref.sphere_radius + ref.hit[k - 1], td = sphere_depth(p, sc, reach), rd = sphere_depth(r, sc, reach);
      if (td > out.tress_depth) out.tress_depth = td;
      if (rd > out.ref_depth) out.ref_depth = rd;
    }
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return out;
}

/* The batched kernel against the scalar spec with per-joint values: every joint's world
 * position every frame within 1e-4, without colliders and with a sphere the chain swings into
 * (the VRM model pushes radially and restores the length as the spec does, which leaves a
 * joint inside by as much as the spec's; the pose model's push, kept on the link's circle,
 * was 0.027 units off here). */
static void test_matches_scalar_reference(void **state) {
  (void)state;
  ref_run free_run = run_against_reference(false, TRESS_VRM_LENGTH_FIXED, false);
  print_message("no collider: largest deviation from the scalar reference %g units\n", (double)free_run.worst);
  assert_true(free_run.worst < 1e-4f);
  ref_run hit = run_against_reference(true, TRESS_VRM_LENGTH_FIXED, false);
  print_message("sphere: largest deviation %g units, deepest joint inside: tress %g, reference %g\n",
                (double)hit.worst, hit.tress_depth, hit.ref_depth);
  assert_true(hit.ref_depth > 1e-3); /* the chain does swing into the sphere */
  assert_true(hit.tress_depth <= hit.ref_depth + 1e-5);
  assert_true(hit.worst < 1e-4f);
}

/* TRESS_VRM_LENGTH_THREE_VRM: the scalar spec with three-vrm's re-measured lengths (from each
 * joint's head now to where its child was last drawn under the head now) matches the kernel in
 * that mode within 1e-4, with a sphere too (both push then restore, as three-vrm does);
 * the lengths do change the motion (the fixed mode is centimetres off that reference, and the
 * three-vrm mode as far off the fixed one). */
static void test_three_vrm_length(void **state) {
  (void)state;
  for (int sphere = 0; sphere < 2; sphere++) {
    ref_run same = run_against_reference(sphere, TRESS_VRM_LENGTH_THREE_VRM, true);
    ref_run fixed = run_against_reference(sphere, TRESS_VRM_LENGTH_FIXED, true);
    ref_run cross = run_against_reference(sphere, TRESS_VRM_LENGTH_THREE_VRM, false);
    print_message("%s: three-vrm lengths vs their reference %g units (depth %g vs %g); fixed vs it %g; "
                  "three-vrm vs the fixed reference %g\n", sphere ? "sphere" : "free", (double)same.worst,
                  same.tress_depth, same.ref_depth, (double)fixed.worst, (double)cross.worst);
    assert_true(same.worst < 1e-4f);
    assert_true(same.tress_depth <= same.ref_depth + 1e-5);
    if (sphere) continue;
    assert_true(fixed.worst > 0.01f);
    assert_true(cross.worst > 0.01f);
  }
  assert_string_equal(tress_vrm_length_name(TRESS_VRM_LENGTH_THREE_VRM), "three-vrm");
  tress_vrm_length m = TRESS_VRM_LENGTH_FIXED;
  assert_true(tress_vrm_length_from_name("three-vrm", &m) && m == TRESS_VRM_LENGTH_THREE_VRM);
  assert_true(tress_vrm_length_from_name("fixed", &m) && m == TRESS_VRM_LENGTH_FIXED);
  assert_false(tress_vrm_length_from_name("stretchy", &m));
}

/* VRM chains allocate nothing per frame: colliders, weights, frame rates, sleep and a hitch. */
static void test_vrm_frames_allocate_nothing(void **state) {
  (void)state;
  alloc_count_install();
  enum { N = 120 };
  tress_scene *scene = th_scene();
  fix_chain *c = calloc(N, sizeof *c);
  tress_sim *sim = fix_sim(scene, N - 20, 40.0f);
  for (int k = 0; k < N; k++) {
    c[k] = fix_chain_make(scene, (float)(k % 20) * 3.0f, 5, (float)(k / 20) * 3.0f, 2 + k % 6, 0.3f);
    tress_chain_settings s = k % 4 == 3 ? tress_default_chain_settings() : vrm_settings(1.0f, 0.4f, 1.0f);
    if (k % 3 == 0) {
      tress_collider_def d = tress_default_collider_def();
      d.attach = c[k].part;
      d.offset[1] = -0.6f;
      d.radius = 0.3f;
      tress_collider_id sphere;
      assert_int_equal(tress_sim_create_collider(sim, &d, &sphere), TRESS_OK);
      s.colliders[s.collider_count++] = sphere;
    }
    if (k % 5 == 0) s.weight = 0.5f;
    if (k % 7 == 0) s.end_length = 0.1f;
    assert_int_equal(tress_sim_bind_bone_chain(sim, c[k].bones[0], &s, NULL), TRESS_OK);
  }
  float cam[3] = {0, 5, 0};
  double t = 0.0;
  const double rates[] = {1.0 / 60.0, 1.0 / 144.0, 1.0 / 30.0, 0.2};
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) alloc_count_start();
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
      for (int i = 0; i < 30; i++) {
        t += rates[r];
        for (int k = 0; k < N; k++)
          tress_part_set_cframe(scene, c[k].part,
                                tress_xform_from_pos((float)(k % 20) * 3.0f + (float)sin(t * 4.0 + k), 5,
                                                     (float)(k / 20) * 3.0f));
        cam[0] = (float)(30.0 * sin(t * 0.7));
        tress_sim_set_camera(sim, cam);
        assert_int_equal(tress_sim_step(sim, rates[r]), TRESS_OK);
      }
    if (pass == 1) {
      long calls = alloc_count_stop();
      print_message("allocations in 120 counted frames of %d chains: %ld\n", N, calls);
      assert_int_equal(calls, 0);
    }
  }
  for (int k = 0; k < N; k++) fix_assert_finite(scene, &c[k]);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(c);
}

/* The model is a bone-chain setting: part chains refuse it, a bad value is refused. */
static void test_model_refused_where_it_cannot_run(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_id parts[2];
  for (int k = 0; k < 2; k++) parts[k] = th_instance(scene, TRESS_KIND_PART, "P", tress_scene_get_root(scene));
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 1.0f);
  assert_int_equal(tress_sim_bind_parts(sim, parts, 2, &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s.model = (tress_spring_model)7;
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 3, 0.3f);
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_ERR_INVALID_ARGUMENT);
  assert_string_equal(tress_spring_model_name(TRESS_SPRING_VRM), "vrm");
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* rotations_only on the pose model (the spring-bones seed's output): the same motion as the
 * pose model, but every bone, the root included, is turned to aim at its child and no position
 * is written. */
static void test_pose_rotations_only(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain a = fix_chain_make(scene, 0, 5, 0, 5, 0.3f), b = fix_chain_make(scene, 10, 5, 0, 5, 0.3f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = tress_default_chain_settings();
  assert_int_equal(tress_sim_bind_bone_chain(sim, a.bones[0], &s, NULL), TRESS_OK);
  s.rotations_only = true;
  assert_int_equal(tress_sim_bind_bone_chain(sim, b.bones[0], &s, NULL), TRESS_OK);
  for (int i = 1; i <= 90; i++) {
    tress_part_set_cframe(scene, a.part, tress_xform_from_pos((float)sin(i * 0.1), 5, 0));
    tress_part_set_cframe(scene, b.part, tress_xform_from_pos(10.0f + (float)sin(i * 0.1), 5, 0));
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  }
  for (int k = 0; k < 5; k++) {
    float pa[3], pb[3];
    fix_world_pos(scene, a.bones[k], pa);
    fix_world_pos(scene, b.bones[k], pb);
    pb[0] -= 10.0f;
    assert_true(fix_dist(pa, pb) < 1e-4f);
    tress_xform t = tress_bone_get_transform(scene, b.bones[k]);
    assert_true(t.p[0] == 0.0f && t.p[1] == 0.0f && t.p[2] == 0.0f);
  }
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, a.bones[0]).q) < 1e-3f);
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, b.bones[0]).q) > 5.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* A joint with two children aims at its first; the second is carried by that rotation and
 * swings on its own below it (the gathered, non-linear path of the VRM substep). */
static void test_vrm_branch(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 3, 0.3f);
  tress_id extra = th_instance(scene, TRESS_KIND_BONE, "Hair", c.bones[1]);
  tress_bone_set_cframe(scene, extra, tress_xform_from_pos(0, 0, 0.3f));
  tress_id extra_tip = th_instance(scene, TRESS_KIND_BONE, "Hair", extra);
  tress_bone_set_cframe(scene, extra_tip, tress_xform_from_pos(0, 0, 0.3f));
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 2.0f);
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
  float before[3];
  fix_world_pos(scene, extra_tip, before);
  for (int i = 0; i < 120; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  fix_assert_finite(scene, &c);
  float tip[3], joint[3];
  fix_world_pos(scene, extra_tip, tip);
  fix_world_pos(scene, extra, joint);
  assert_true(tip[1] < before[1] - 0.2f);
  assert_float_equal(fix_dist(tip, joint), 0.3f, 1e-4f);
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, extra).q) > 5.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Switching a bound chain between models re-lays the batch out and keeps running. */
static void test_model_switch_live(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.3f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], NULL, &h), TRESS_OK);
  for (int i = 0; i < 30; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, c.bones[0]).q) < 1e-3f);
  tress_chain_settings s = vrm_settings(1.0f, 0.4f, 2.0f);
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_OK);
  for (int i = 0; i < 60; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, c.bones[0]).q) > 10.0f);
  assert_int_equal(tress_handle_set_chain_settings(sim, h, NULL), TRESS_ERR_INVALID_ARGUMENT);
  s = tress_default_chain_settings();
  assert_int_equal(tress_handle_set_chain_settings(sim, h, &s), TRESS_OK);
  assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  assert_true(quat_angle_degrees(tress_bone_get_transform(scene, c.bones[0]).q) < 1e-3f);
  fix_assert_finite(scene, &c);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_joint_turns),
      cmocka_unit_test(test_sideways_chain_curls),
      cmocka_unit_test(test_joint_settings_per_node),
      cmocka_unit_test(test_zero_step_starts_the_chain),
      cmocka_unit_test(test_weighted_blends_toward_this_frames_pose),
      cmocka_unit_test(test_frame_rate_independent),
      cmocka_unit_test(test_matches_scalar_reference),
      cmocka_unit_test(test_three_vrm_length),
      cmocka_unit_test(test_vrm_frames_allocate_nothing),
      cmocka_unit_test(test_model_refused_where_it_cannot_run),
      cmocka_unit_test(test_pose_rotations_only),
      cmocka_unit_test(test_vrm_branch),
      cmocka_unit_test(test_model_switch_live),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
