/* sim_record.c - runs one recorded scene through the solver and writes every output float's bits,
 * so two builds (x86-64 natively, AArch64 under qemu-user: scripts/test-aarch64) can be compared
 * bit for bit (issue 19 item 4). A plain program on the public API: no test framework, so it
 * cross-builds with nothing but the C library.
 *
 * The scene: four characters, each a moving head part with a sphere, a capsule, a plane and an
 * inside sphere collider; chains of both spring models (pose and VRM with either length rule,
 * rotations-only with a weight, wind gusts, end lengths, center space, cone / hinge / spherical
 * limits, collider sets of mixed shapes); two collision-free ropes per character (the interleaved
 * lane path), one rope with a capsule collider and one with a raycast (the per-rope path), and a
 * cloth sheet (the grid Jacobi path). Frames of mixed lengths (60, 144, 30, 90 Hz, a hitch, a
 * stall) for FRAMES frames.
 *
 * The scene's inputs use + - * / and floor only (no sin or cos), so both builds feed the solver
 * the same bits and a difference can only come from the library.
 *
 * Output (text, one line each): "frame N DIGEST" per frame (FNV-1a over every bone transform
 * and every rope's and sheet's drawn points), then "bone I" with the final transform's seven
 * floats as hex bit patterns, then "rope R" with every drawn point's. Usage: sim_record OUT. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/rope.h"
#include "tress/sim.h"

#define CHARACTERS 4
#define CHAINS_PER_CHARACTER 24
#define FRAMES 300
#define MAX_BONES 4096
#define MAX_ROPES 32
#define MAX_POINTS 400 /* a 20 x 20 sheet */

typedef struct record_world {
  tress_scene *scene;
  tress_sim *sim;
  tress_id heads[CHARACTERS];
  tress_id bones[MAX_BONES];
  uint32_t bone_count;
  tress_handle_id ropes[MAX_ROPES];
  uint32_t rope_count;
} record_world;

static void fail(const char *what) {
  fprintf(stderr, "sim_record: %s\n", what);
  exit(1);
}

static void check(tress_result r, const char *what) {
  if (r != TRESS_OK) fail(what);
}

static tress_id instance(tress_scene *scene, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def def = tress_default_instance_def();
  def.kind = kind;
  def.name = name;
  def.parent = parent;
  tress_id id = {0};
  check(tress_scene_create_instance(scene, &def, &id), "create instance");
  return id;
}

static tress_xform at(float x, float y, float z) {
  tress_xform t = tress_xform_identity();
  t.p[0] = x, t.p[1] = y, t.p[2] = z;
  return t;
}

/* A strand of `count` bones under parent along a tilted axis; `fork` gives the third bone a
 * second child. */
static tress_id strand(record_world *w, tress_id parent, int count, float link, bool fork) {
  tress_id root = {0}, up = parent;
  for (int b = 0; b < count && w->bone_count + 2 < MAX_BONES; b++) {
    tress_id bone = instance(w->scene, TRESS_KIND_BONE, b ? "Hair" : "HairRoot", up);
    tress_bone_set_cframe(w->scene, bone, b ? at(link, -0.2f * link, 0.1f * link) : at(0, 0.5f, 0));
    w->bones[w->bone_count++] = bone;
    if (b == 0) root = bone;
    if (fork && b == 2) {
      tress_id side = instance(w->scene, TRESS_KIND_BONE, "Fork", bone);
      tress_bone_set_cframe(w->scene, side, at(0, -link, link));
      w->bones[w->bone_count++] = side;
    }
    up = bone;
  }
  return root;
}

/* The ground y = -6 as a raycast. */
static bool ground_ray(void *user, const float from[3], const float to[3], float hit[3], float normal[3]) {
  (void)user;
  const float ground = -6.0f;
  if (to[1] >= ground || from[1] < ground) return false;
  float t = (from[1] - ground) / (from[1] - to[1]);
  for (int k = 0; k < 3; k++) hit[k] = from[k] + (to[k] - from[k]) * t;
  normal[0] = 0.0f, normal[1] = 1.0f, normal[2] = 0.0f;
  return true;
}

typedef struct head_colliders {
  tress_collider_id sphere, capsule, plane, inside;
} head_colliders;

static head_colliders make_colliders(record_world *w, tress_id head) {
  head_colliders c;
  tress_collider_def sphere = tress_default_collider_def();
  sphere.attach = head;
  sphere.radius = 0.8f;
  sphere.offset[1] = -0.5f;
  check(tress_sim_create_collider(w->sim, &sphere, &c.sphere), "sphere");
  float capsule_at[3] = {0.5f, -1.0f, 0.0f};
  tress_collider_def capsule = tress_collider_capsule_y(head, capsule_at, 1.5f, 0.4f);
  check(tress_sim_create_collider(w->sim, &capsule, &c.capsule), "capsule");
  float plane_at[3] = {0.0f, -2.5f, 0.0f}, plane_normal[3] = {0.1f, 1.0f, 0.2f};
  tress_collider_def plane = tress_collider_plane(head, plane_at, plane_normal);
  check(tress_sim_create_collider(w->sim, &plane, &c.plane), "plane");
  tress_collider_def inside = tress_default_collider_def();
  inside.shape = TRESS_COLLIDER_INSIDE_SPHERE;
  inside.attach = head;
  inside.radius = 3.5f;
  check(tress_sim_create_collider(w->sim, &inside, &c.inside), "inside sphere");
  return c;
}

static void bind_chains(record_world *w, tress_id head, const head_colliders *hc) {
  static const tress_limit_kind limits[3] = {TRESS_LIMIT_CONE, TRESS_LIMIT_HINGE, TRESS_LIMIT_SPHERICAL};
  for (int k = 0; k < CHAINS_PER_CHARACTER; k++) {
    tress_chain_settings s = tress_default_chain_settings();
    int kind = k % 6;
    s.damping = 0.9f + 0.01f * (float)(k % 5);
    s.wind_gust = k % 4 == 0 ? 0.5f : 0.0f;
    s.end_length = k % 3 == 0 ? 0.3f : 0.0f;
    if (kind >= 3) {
      s.model = TRESS_SPRING_VRM;
      s.stiffness = 1.0f;
      s.damping = 0.6f;
      s.gravity_scale = 2.0f;
      s.vrm_length = kind == 5 ? TRESS_VRM_LENGTH_THREE_VRM : TRESS_VRM_LENGTH_FIXED;
    } else if (kind == 2) {
      s.rotations_only = true;
      s.weight = 0.7f;
    }
    if (k % 2 == 0) {
      s.radius = 0.05f;
      /* every shape, in an order that differs chain to chain */
      tress_collider_id all[4] = {hc->sphere, hc->capsule, hc->plane, hc->inside};
      s.collider_count = 1 + (uint32_t)(k / 2) % 4;
      for (uint32_t i = 0; i < s.collider_count; i++) s.colliders[i] = all[(i + (uint32_t)k / 2) % 4];
    }
    if (k % 7 == 0) {
      s.center = head;
      s.center_inertia = 0.5f;
    }
    tress_id root = strand(w, head, 5 + k % 6, 0.3f + 0.02f * (float)(k % 4), k % 5 == 1);
    tress_handle_id h;
    check(tress_sim_bind_bone_chain(w->sim, root, &s, &h), "bind chain");
    if (k % 5 == 0) {
      tress_joint_settings j = tress_chain_settings_get_joint(&s);
      j.limit.kind = limits[(k / 5) % 3];
      j.limit.angle = 0.4f;
      j.limit.yaw = 0.2f;
      tress_id second = tress_instance_get_first_child(w->scene, root);
      check(tress_handle_set_joint_settings(w->sim, h, second, &j), "joint limit");
    }
  }
}

static void bind_rope(record_world *w, tress_id head, float side, const tress_particle_settings *settings) {
  tress_rope_def d = tress_default_rope_def();
  d.start.pinned = true;
  d.start.instance = head;
  d.start.position[0] = 0.8f * side;
  d.end.pinned = false;
  d.end.position[0] = 5.0f * side;
  d.segments = 12;
  d.length = 6.0f;
  if (settings) d.settings = *settings;
  if (w->rope_count == MAX_ROPES) fail("too many ropes");
  check(tress_sim_bind_rope(w->sim, &d, &w->ropes[w->rope_count++], NULL), "bind rope");
}

static void bind_ropes(record_world *w, tress_id head, const head_colliders *hc, int ci) {
  bind_rope(w, head, -1.0f, NULL);
  bind_rope(w, head, 1.0f, NULL);
  tress_particle_settings s = tress_default_rope_def().settings;
  if (ci % 2 == 0) {
    s.collider_count = 1;
    s.colliders[0] = hc->capsule;
    s.collider_radius = 0.05f;
  } else {
    s.raycast = ground_ray;
  }
  bind_rope(w, head, 0.5f, &s);
}

static void bind_cloth(record_world *w, tress_id head) {
  static tress_cloth_pin pins[2];
  pins[0] = (tress_cloth_pin){0, head};
  pins[1] = (tress_cloth_pin){19, head};
  tress_cloth_def d = tress_default_cloth_def();
  d.origin[0] = -2.0f, d.origin[1] = 4.0f, d.origin[2] = -1.0f;
  d.step_u[0] = 0.2f, d.step_v[1] = -0.2f;
  d.pins = pins;
  d.pin_count = 2;
  d.settings.raycast = ground_ray;
  if (w->rope_count == MAX_ROPES) fail("too many ropes");
  check(tress_sim_bind_cloth(w->sim, &d, &w->ropes[w->rope_count++], NULL), "bind cloth");
}

static void world_make(record_world *w) {
  memset(w, 0, sizeof *w);
  tress_scene_def sd = tress_default_scene_def();
  w->scene = tress_scene_create(&sd);
  if (!w->scene) fail("scene");
  tress_sim_def def = tress_default_sim_def();
  def.scene = w->scene;
  def.max_chains = 100000;
  /* a fixed budget: the device bench would time this CPU (qemu is slower) and cull differently */
  def.device_compute = 1.0f;
  def.max_distance = 200.0f;
  def.ambient_wind[0] = 6.0f;
  def.ambient_wind[2] = 3.0f;
  w->sim = tress_sim_create(&def);
  if (!w->sim) fail("sim");
  tress_id workspace = instance(w->scene, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(w->scene));
  for (int ci = 0; ci < CHARACTERS; ci++) {
    tress_id model = instance(w->scene, TRESS_KIND_MODEL, "Character", workspace);
    tress_id head = instance(w->scene, TRESS_KIND_PART, "Head", model);
    w->heads[ci] = head;
    tress_part_set_cframe(w->scene, head, at(20.0f * (float)ci - 30.0f, 5, 0));
    float size[3] = {2, 1, 1};
    tress_part_set_size(w->scene, head, size);
    head_colliders hc = make_colliders(w, head);
    bind_chains(w, head, &hc);
    bind_ropes(w, head, &hc, ci);
  }
  bind_cloth(w, w->heads[0]);
  float camera[3] = {0, 5, 30};
  tress_sim_set_camera(w->sim, camera);
}

/* A wave in [-1, 1] from floor and arithmetic alone: a triangle smoothed by x (3 - x^2) / 2. */
static float wave(double t, double period, double phase) {
  double u = t / period + phase;
  float f = (float)(u - floor(u));
  float tri = 4.0f * (f < 0.5f ? f : 1.0f - f) - 1.0f;
  return 0.5f * tri * (3.0f - tri * tri);
}

/* Each head swings and turns about a tilted axis: the rotation from the half-angle tangent
 * (exact arithmetic, no sin or cos). */
static void move_heads(record_world *w, double t) {
  for (int ci = 0; ci < CHARACTERS; ci++) {
    double phase = 0.17 * ci;
    float u = 0.4f * wave(t, 3.7, phase); /* tan(angle / 2) */
    float axis[3] = {0.2f, 1.0f, 0.1f};
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    /* half angle h: sin h = u / sqrt(1 + u^2), cos h = 1 / sqrt(1 + u^2) */
    float inv = 1.0f / sqrtf(1.0f + u * u);
    tress_xform pose = tress_xform_identity();
    for (int k = 0; k < 3; k++) pose.q[k] = axis[k] / len * u * inv;
    pose.q[3] = inv;
    pose.p[0] = 20.0f * (float)ci - 30.0f + 6.0f * wave(t, 2.9, phase);
    pose.p[1] = 5.0f + 1.5f * wave(t, 1.3, phase + 0.3);
    pose.p[2] = 3.0f * wave(t, 2.1, phase + 0.6);
    tress_part_set_cframe(w->scene, w->heads[ci], pose);
  }
}

static double frame_dt(int i) {
  static const double pattern[] = {1.0 / 60, 1.0 / 144, 1.0 / 144, 1.0 / 30, 1.0 / 90, 0.004, 1.0 / 60, 0.2};
  if (i == 177) return 0.7; /* a stall: every chain snaps */
  return pattern[i % (int)(sizeof pattern / sizeof pattern[0])];
}

static uint64_t fnv(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static float points[3 * MAX_POINTS];

static uint32_t rope_points(const record_world *w, uint32_t r) {
  uint32_t count = 0;
  check(tress_rope_get_points(w->sim, w->ropes[r], points, MAX_POINTS, &count), "rope points");
  return count < MAX_POINTS ? count : MAX_POINTS;
}

/* Every bone's position and rotation (not the struct: its padding is no output) and every
 * rope's and sheet's drawn points. */
static uint64_t outputs_digest(const record_world *w) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < w->bone_count; i++) {
    tress_xform t = tress_bone_get_transform(w->scene, w->bones[i]);
    h = fnv(fnv(h, t.p, sizeof t.p), t.q, sizeof t.q);
  }
  for (uint32_t r = 0; r < w->rope_count; r++) h = fnv(h, points, rope_points(w, r) * 3 * sizeof(float));
  return h;
}

static void write_bits(FILE *out, const float *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &v[i], sizeof bits);
    fprintf(out, " %08x", (unsigned)bits);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT\n", argv[0]);
    return 2;
  }
  FILE *out = fopen(argv[1], "w");
  if (!out) fail("cannot open the output file");
  static record_world w;
  world_make(&w);
  double t = 0.0;
  for (int i = 0; i < FRAMES; i++) {
    double dt = frame_dt(i);
    t += dt;
    move_heads(&w, t);
    check(tress_sim_step(w.sim, dt), "step");
    fprintf(out, "frame %d %016llx\n", i, (unsigned long long)outputs_digest(&w));
  }
  for (uint32_t i = 0; i < w.bone_count; i++) {
    tress_xform x = tress_bone_get_transform(w.scene, w.bones[i]);
    float v[7] = {x.p[0], x.p[1], x.p[2], x.q[0], x.q[1], x.q[2], x.q[3]};
    fprintf(out, "bone %u", (unsigned)i);
    write_bits(out, v, 7);
    fputc('\n', out);
  }
  for (uint32_t r = 0; r < w.rope_count; r++) {
    uint32_t n = rope_points(&w, r);
    fprintf(out, "rope %u", (unsigned)r);
    write_bits(out, points, 3 * n);
    fputc('\n', out);
  }
  tress_sim_stats stats = tress_sim_get_stats(w.sim);
  fprintf(out, "bones %u ropes %u simulated %u\n", (unsigned)w.bone_count, (unsigned)w.rope_count,
          (unsigned)stats.simulated);
  tress_sim_destroy(w.sim);
  tress_scene_destroy(w.scene);
  if (fclose(out) != 0) fail("cannot write the output file");
  return 0;
}
