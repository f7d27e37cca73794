/* test_sim_jobs.c - one sim on the game's job system (tress/jobs.h), here a real pthread pool
 * (support/job_pool.h): 1, 2 and 4 workers give bit-identical chains (both spring models,
 * colliders, limits, rotations-only), pendulums, ropes and cloth over 600 frames of mixed
 * lengths, with characters moving in and out of the cull distance and a teleport reset, and
 * enough colliders that their resolve to world runs on the workers too; and a steady frame
 * allocates nothing with workers either. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/rope.h"
#include "tress/sim.h"
#include "support/accessory_fixture.h"
#include "support/alloc_count.h"
#include "support/job_pool.h"
#include "support/scene_build.h"

#define CHARACTERS 12
#define CHAINS_PER_CHARACTER 120 /* 1440 chains, about 10000 nodes: several tiles of each kind */
#define ROPES_PER_CHARACTER 2
#define FRAMES 600
#define MAX_POINTS 400 /* a 20 x 20 cloth sheet */
#define FILLER_COLLIDERS 1100 /* unused, made first: 1124 colliders in all */

typedef struct mixed_world {
  tress_scene *scene;
  tress_sim *sim;
  job_pool *pool;
  acc_character characters[CHARACTERS];
  tress_id *bones;
  uint32_t bone_count, bone_cap;
  tress_id handles[CHARACTERS * 2]; /* accessory handles the pendulums place */
  uint32_t handle_count;
  tress_handle_id ropes[CHARACTERS * ROPES_PER_CHARACTER + 2];
  uint32_t rope_count;
} mixed_world;

static void keep_bone(mixed_world *w, tress_id bone) {
  if (w->bone_count == w->bone_cap) {
    w->bone_cap = w->bone_cap ? w->bone_cap * 2 : 1024;
    w->bones = realloc(w->bones, w->bone_cap * sizeof *w->bones);
    assert_non_null(w->bones);
  }
  w->bones[w->bone_count++] = bone;
}

/* A strand of `count` bones under parent, every link along a tilted axis; `fork` gives the third
 * bone a second child, so some levels gather instead of reading in place. */
static tress_id strand(mixed_world *w, tress_id parent, int count, float link, bool fork) {
  tress_id root = {0}, at = parent;
  for (int b = 0; b < count; b++) {
    tress_id bone = th_instance(w->scene, TRESS_KIND_BONE, b ? "Hair" : "HairRoot", at);
    tress_bone_set_cframe(w->scene, bone, b ? tress_xform_from_pos(link, -0.2f * link, 0.1f * link)
                                            : tress_xform_from_pos(0, 0.5f, 0));
    keep_bone(w, bone);
    if (b == 0) root = bone;
    if (fork && b == 2) {
      tress_id side = th_instance(w->scene, TRESS_KIND_BONE, "Fork", bone);
      tress_bone_set_cframe(w->scene, side, tress_xform_from_pos(0, -link, link));
      keep_bone(w, side);
    }
    at = bone;
  }
  return root;
}

/* A pure raycast against the ground plane y = -6: safe to call from any worker. */
static bool ground_ray(void *user, const float from[3], const float to[3], float hit[3], float normal[3]) {
  (void)user;
  const float ground = -6.0f;
  if (to[1] >= ground || from[1] < ground) return false;
  float t = (from[1] - ground) / (from[1] - to[1]);
  for (int k = 0; k < 3; k++) hit[k] = from[k] + (to[k] - from[k]) * t;
  normal[0] = 0.0f, normal[1] = 1.0f, normal[2] = 0.0f;
  return true;
}

static void bind_chains(mixed_world *w, const acc_character *c, const tress_collider_id colliders[2]) {
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
      s.collider_count = 2;
      s.colliders[0] = colliders[0];
      s.colliders[1] = colliders[1];
    }
    if (k % 7 == 0) {
      s.center = c->head; /* center space: the head's motion partly taken out */
      s.center_inertia = 0.5f;
    }
    tress_id root = strand(w, c->head, 5 + k % 6, 0.3f + 0.02f * (float)(k % 4), k % 5 == 1);
    tress_handle_id h;
    assert_int_equal(tress_sim_bind_bone_chain(w->sim, root, &s, &h), TRESS_OK);
    if (k % 5 == 0) {
      /* a cone on the second joint: the limit pass runs on this chain's tile */
      tress_joint_settings j = tress_chain_settings_get_joint(&s);
      j.limit.kind = TRESS_LIMIT_CONE;
      j.limit.angle = 0.4f;
      tress_id second = tress_instance_get_first_child(w->scene, root);
      assert_int_equal(tress_handle_set_joint_settings(w->sim, h, second, &j), TRESS_OK);
    }
  }
}

static void bind_ropes(mixed_world *w, const acc_character *c) {
  for (int k = 0; k < ROPES_PER_CHARACTER; k++) {
    tress_rope_def d = tress_default_rope_def();
    d.start.pinned = true;
    d.start.instance = c->head;
    d.start.position[0] = k ? 0.8f : -0.8f;
    d.end.pinned = false;
    d.end.position[0] = k ? 5.0f : -5.0f;
    d.segments = 12;
    d.length = 6.0f;
    d.settings.raycast = ground_ray;
    assert_int_equal(tress_sim_bind_rope(w->sim, &d, &w->ropes[w->rope_count++], NULL), TRESS_OK);
  }
}

static void bind_cloth(mixed_world *w, const acc_character *c) {
  static tress_cloth_pin pins[2];
  pins[0] = (tress_cloth_pin){0, c->head};
  pins[1] = (tress_cloth_pin){19, c->head};
  tress_cloth_def d = tress_default_cloth_def();
  d.width = d.height = 20;
  d.origin[0] = -2.0f, d.origin[1] = 4.0f, d.origin[2] = -1.0f;
  d.step_u[0] = 0.2f, d.step_v[1] = -0.2f;
  d.pins = pins;
  d.pin_count = 2;
  d.settings.raycast = ground_ray;
  assert_int_equal(tress_sim_bind_cloth(w->sim, &d, &w->ropes[w->rope_count++], NULL), TRESS_OK);
}

static mixed_world world_make(uint32_t workers) {
  mixed_world w;
  memset(&w, 0, sizeof w);
  w.scene = th_scene();
  assert_non_null(w.scene);
  if (workers > 1) {
    w.pool = job_pool_create(workers);
    assert_non_null(w.pool);
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = w.scene;
  def.max_chains = 100000;
  def.max_distance = 60.0f; /* characters wander across it: chains sleep and wake */
  def.ambient_wind[0] = 6.0f;
  def.ambient_wind[2] = 3.0f;
  def.jobs = job_pool_jobs(w.pool);
  w.sim = tress_sim_create(&def);
  assert_non_null(w.sim);
  assert_int_equal(tress_sim_get_def(w.sim)->jobs.worker_count, workers);
  tress_id workspace = th_instance(w.scene, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(w.scene));
  for (int ci = 0; ci < CHARACTERS; ci++) {
    acc_character *c = &w.characters[ci];
    c->scene = w.scene;
    c->workspace = workspace;
    c->model = th_instance(w.scene, TRESS_KIND_MODEL, "Character", workspace);
    c->head = th_instance(w.scene, TRESS_KIND_PART, "Head", c->model);
    tress_part_set_cframe(w.scene, c->head, tress_xform_from_pos(20.0f * (float)ci - 110.0f, 5, 0));
    float size[3] = {2, 1, 1};
    tress_part_set_size(w.scene, c->head, size);
    tress_collider_def sphere = tress_default_collider_def();
    sphere.attach = c->head;
    sphere.radius = 0.8f;
    sphere.offset[1] = -0.5f;
    float capsule_at[3] = {0.5f, -1.0f, 0.0f};
    tress_collider_def capsule = tress_collider_capsule_y(c->head, capsule_at, 1.5f, 0.4f);
    tress_collider_id colliders[2];
    /* colliders nothing lists, out of reach, before any listed one: over 1024, so the frame's
     * resolve of the colliders to world splits into job ranges and every listed one is
     * resolved in a later range than the first */
    for (int k = 0; ci == 0 && k < FILLER_COLLIDERS; k++) {
      tress_collider_def far = sphere;
      far.offset[1] = 100.0f + (float)k;
      tress_collider_id unused;
      assert_int_equal(tress_sim_create_collider(w.sim, &far, &unused), TRESS_OK);
    }
    assert_int_equal(tress_sim_create_collider(w.sim, &sphere, &colliders[0]), TRESS_OK);
    assert_int_equal(tress_sim_create_collider(w.sim, &capsule, &colliders[1]), TRESS_OK);
    bind_chains(&w, c, colliders);
    /* two pendulums per character, through two joint kinds */
    acc_worn hat = acc_wear(c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_WELD, ci % 2 == 0, false);
    acc_worn bag = acc_wear(c, "Back", TRESS_ACCESSORY_BACK, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
    tress_handle_id ph;
    assert_int_equal(tress_sim_bind_accessory(w.sim, hat.accessory, NULL, &ph), TRESS_OK);
    assert_int_equal(tress_sim_bind_accessory(w.sim, bag.accessory, NULL, &ph), TRESS_OK);
    w.handles[w.handle_count++] = hat.handle;
    w.handles[w.handle_count++] = bag.handle;
    bind_ropes(&w, c);
  }
  bind_cloth(&w, &w.characters[0]);
  bind_cloth(&w, &w.characters[CHARACTERS - 1]);
  float camera[3] = {0, 5, 30};
  tress_sim_set_camera(w.sim, camera);
  return w;
}

static void world_free(mixed_world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
  job_pool_destroy(w->pool);
  free(w->bones);
}

/* Frame lengths a game really hands in: 60, 144, 30 and 90 Hz, a hitch, and now and then a
 * frame between fixed steps or a stall (dt > TRESS_STALL_SECONDS snaps every chain). */
static double frame_dt(int i) {
  static const double pattern[] = {1.0 / 60, 1.0 / 144, 1.0 / 144, 1.0 / 30, 1.0 / 90, 0.004, 1.0 / 60, 0.2};
  if (i == 377) return 0.7;
  return pattern[i % (int)(sizeof pattern / sizeof pattern[0])];
}

/* Every character runs its own loop, fast enough to swing the hair and far enough to cross the
 * cull distance; one of them teleports half way. */
static void move_characters(mixed_world *w, int frame, double t) {
  for (int ci = 0; ci < CHARACTERS; ci++) {
    float phase = 0.7f * (float)ci;
    float x = 20.0f * (float)ci - 110.0f + 35.0f * sinf(0.9f * (float)t + phase);
    float y = 5.0f + 1.5f * sinf(2.3f * (float)t + phase);
    float z = 10.0f * cosf(1.3f * (float)t + phase);
    float axis[3] = {0.2f, 1.0f, 0.1f};
    tress_xform pose = tress_xform_from_axis_angle(axis, 0.8f * sinf(1.7f * (float)t + phase));
    pose.p[0] = x, pose.p[1] = y, pose.p[2] = z;
    if (ci == 3 && frame >= 300) pose.p[1] += 80.0f;
    tress_part_set_cframe(w->scene, w->characters[ci].head, pose);
  }
  if (frame == 300) assert_int_equal(tress_sim_reset(w->sim, w->characters[3].model), TRESS_OK);
}

static uint64_t fnv(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* position and rotation, not the struct: its padding is no output */
static uint64_t fnv_xform(uint64_t h, tress_xform t) { return fnv(fnv(h, t.p, sizeof t.p), t.q, sizeof t.q); }

/* Everything the sim writes or hands out: every bone's transform, the accessory handles, every
 * rope's and sheet's drawn points. */
static uint64_t outputs_digest(const mixed_world *w) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < w->bone_count; i++) {
    h = fnv_xform(h, tress_bone_get_transform(w->scene, w->bones[i]));
  }
  for (uint32_t i = 0; i < w->handle_count; i++) {
    h = fnv_xform(h, tress_part_get_cframe(w->scene, w->handles[i]));
  }
  static float xyz[3 * MAX_POINTS];
  for (uint32_t r = 0; r < w->rope_count; r++) {
    uint32_t count = 0;
    assert_int_equal(tress_rope_get_points(w->sim, w->ropes[r], xyz, MAX_POINTS, &count), TRESS_OK);
    h = fnv(h, xyz, count * 3 * sizeof(float));
  }
  return h;
}

typedef struct run_record {
  uint64_t digest[FRAMES];
  uint32_t simulated[FRAMES]; /* handle-steps per frame */
  float final_bones[8192][7];
  long ranges_on_threads;
} run_record;

static void simulate(uint32_t workers, run_record *out) {
  mixed_world w = world_make(workers);
  double t = 0.0;
  for (int i = 0; i < FRAMES; i++) {
    double dt = frame_dt(i);
    t += dt;
    move_characters(&w, i, t);
    assert_int_equal(tress_sim_step(w.sim, dt), TRESS_OK);
    out->digest[i] = outputs_digest(&w);
    out->simulated[i] = tress_sim_get_stats(w.sim).simulated;
  }
  for (uint32_t i = 0; i < w.bone_count && i < 8192; i++) {
    tress_xform x = tress_bone_get_transform(w.scene, w.bones[i]);
    /* component by component: the struct may hold padding, which is no output */
    float *o = out->final_bones[i];
    o[0] = x.p[0], o[1] = x.p[1], o[2] = x.p[2], o[3] = x.q[0], o[4] = x.q[1], o[5] = x.q[2], o[6] = x.q[3];
  }
  out->ranges_on_threads = w.pool ? atomic_load(&w.pool->ranges_on_threads) : 0;
  world_free(&w);
}

static void test_one_two_and_four_workers_give_the_same_bits(void **state) {
  (void)state;
  static run_record one, two, four;
  simulate(1, &one);
  simulate(2, &two);
  simulate(4, &four);
  /* the scene moved: chains swung, some slept and woke (the stats differ frame to frame) */
  uint32_t least = UINT32_MAX, most = 0;
  for (int i = 0; i < FRAMES; i++) {
    least = one.simulated[i] < least ? one.simulated[i] : least;
    most = one.simulated[i] > most ? one.simulated[i] : most;
  }
  assert_true(most > least);
  /* the pool threads really ran ranges */
  assert_true(two.ranges_on_threads > 0);
  assert_true(four.ranges_on_threads > 0);
  assert_memory_equal(one.digest, two.digest, sizeof one.digest);
  assert_memory_equal(one.digest, four.digest, sizeof one.digest);
  assert_memory_equal(one.simulated, two.simulated, sizeof one.simulated);
  assert_memory_equal(one.simulated, four.simulated, sizeof one.simulated);
  assert_memory_equal(one.final_bones, two.final_bones, sizeof one.final_bones);
  assert_memory_equal(one.final_bones, four.final_bones, sizeof one.final_bones);
}

static void test_a_frame_allocates_nothing_with_workers(void **state) {
  (void)state;
  alloc_count_install();
  void *(*volatile allocate)(size_t) = malloc;
  alloc_count_start();
  free(allocate(32));
  assert_true(alloc_count_stop() >= 1); /* the counter sees this executable's allocations */

  mixed_world w = world_make(4);
  double t = 0.0;
  /* the first frames grow the layout, lanes and every worker's scratch */
  for (int i = 0; i < 40; i++) {
    t += frame_dt(i);
    move_characters(&w, i, t);
    assert_int_equal(tress_sim_step(w.sim, frame_dt(i)), TRESS_OK);
  }
  long ranges_before = atomic_load(&w.pool->ranges_on_threads);
  alloc_count_start();
  for (int i = 40; i < 160; i++) {
    t += frame_dt(i);
    move_characters(&w, i, t);
    assert_int_equal(tress_sim_step(w.sim, frame_dt(i)), TRESS_OK);
  }
  long allocs = alloc_count_stop();
  assert_true(atomic_load(&w.pool->ranges_on_threads) > ranges_before);
  world_free(&w);
  assert_int_equal(allocs, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_two_and_four_workers_give_the_same_bits),
      cmocka_unit_test(test_a_frame_allocates_nothing_with_workers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
