/* test_collider.c - sphere/capsule colliders: strands dropped onto a sphere and a capsule end
 * outside them by the strand radius with link lengths kept; batch == scalar; collider sets.
 * White-box (collider_lanes.h): the push kernels are the solver's internals, tested here apart
 * from a sim so batch and scalar can be compared bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collider_lanes.h"
#include "tress/collider.h"
#include "tress/scene.h"
#include "support/scene_build.h"

/* A level-batched verlet strand set, the same integrate/link math as chains.c's substep, with
 * the collider push after the link constraint. Level 0 holds the pinned roots. */
enum { MAX_CHAINS = 16, MAX_LEVELS = 12 };
typedef struct strands {
  uint32_t chains, levels;
  float x[MAX_LEVELS][MAX_CHAINS], y[MAX_LEVELS][MAX_CHAINS], z[MAX_LEVELS][MAX_CHAINS];
  float ox[MAX_LEVELS][MAX_CHAINS], oy[MAX_LEVELS][MAX_CHAINS], oz[MAX_LEVELS][MAX_CHAINS];
  float rest[MAX_LEVELS][MAX_CHAINS];
  float strand_radius[MAX_CHAINS];
} strands;

static void strands_step(strands *s, const tress_collider_lanes *lanes, float dt, float damping, float gravity_y) {
  float gy = gravity_y * dt * dt;
  for (uint32_t l = 1; l < s->levels; l++) {
    for (uint32_t j = 0; j < s->chains; j++) {
      float cx = s->x[l][j], cy = s->y[l][j], cz = s->z[l][j];
      float nx = cx + (cx - s->ox[l][j]) * damping;
      float ny = cy + (cy - s->oy[l][j]) * damping + gy;
      float nz = cz + (cz - s->oz[l][j]) * damping;
      float dx = nx - s->x[l - 1][j], dy = ny - s->y[l - 1][j], dz = nz - s->z[l - 1][j];
      float len = sqrtf(dx * dx + dy * dy + dz * dz);
      float k = len > 1e-12f ? s->rest[l][j] / len : 0.0f;
      s->ox[l][j] = cx; s->oy[l][j] = cy; s->oz[l][j] = cz;
      s->x[l][j] = s->x[l - 1][j] + dx * k;
      s->y[l][j] = s->y[l - 1][j] + dy * k;
      s->z[l][j] = s->z[l - 1][j] + dz * k;
    }
    if (lanes)
      tress__collider_push_level(s->x[l], s->y[l], s->z[l], s->x[l - 1], s->y[l - 1], s->z[l - 1], s->rest[l],
                                s->strand_radius, s->chains, lanes, TRESS_COLLIDER_KEEP_LINK);
  }
}

/* Chains start horizontal from their roots, fanned around +Y. */
static void strands_init(strands *s, uint32_t chains, uint32_t levels, const float root[3], float fan_radius,
                         float link, float strand_radius) {
  memset(s, 0, sizeof *s);
  s->chains = chains;
  s->levels = levels;
  for (uint32_t j = 0; j < chains; j++) {
    float a = 6.2831853f * (float)j / (float)chains;
    float dx = cosf(a), dz = sinf(a);
    s->strand_radius[j] = strand_radius;
    for (uint32_t l = 0; l < levels; l++) {
      s->x[l][j] = s->ox[l][j] = root[0] + dx * (fan_radius + link * (float)l);
      s->y[l][j] = s->oy[l][j] = root[1];
      s->z[l][j] = s->oz[l][j] = root[2] + dz * (fan_radius + link * (float)l);
      s->rest[l][j] = l == 0 ? 0.0f : link;
    }
  }
}

static float segment_distance(const tress_collider_world *c, float x, float y, float z) {
  float abx = c->bx - c->ax, aby = c->by - c->ay, abz = c->bz - c->az;
  float apx = x - c->ax, apy = y - c->ay, apz = z - c->az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float t = ab2 > 0.0f ? (apx * abx + apy * aby + apz * abz) / ab2 : 0.0f;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  float dx = apx - abx * t, dy = apy - aby * t, dz = apz - abz * t;
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* Drops the strands onto one collider and checks: outside by the strand radius, links kept,
 * and resting on it (some node touches). Also checks the same drop without the collider does
 * go through it, so the test cannot pass by geometry alone. */
static void drop_onto(const tress_collider_world *col, const float root[3], float fan_radius) {
  const uint32_t chains = 8, levels = 8;
  const float link = 0.3f, strand_radius = 0.1f;
  tress_collider_set set = {0};
  assert_true(tress_collider_set_add(&set, 0));
  tress_collider_set sets[MAX_CHAINS];
  for (uint32_t j = 0; j < chains; j++) sets[j] = set;
  tress_collider_lanes lanes;
  assert_true(tress__collider_lanes_init(&lanes, 4, MAX_CHAINS));
  tress__collider_lanes_gather(&lanes, col, 1, sets, chains, NULL, chains);
  assert_int_equal(lanes.slots, 1);

  strands s;
  strands_init(&s, chains, levels, root, fan_radius, link, strand_radius);
  for (int i = 0; i < 900; i++) strands_step(&s, &lanes, 1.0f / 60.0f, 0.9f, -30.0f);
  float min_clear = 1e9f;
  uint32_t touching = 0;
  for (uint32_t l = 1; l < levels; l++) {
    for (uint32_t j = 0; j < chains; j++) {
      float d = segment_distance(col, s.x[l][j], s.y[l][j], s.z[l][j]);
      float clear = d - (col->radius + strand_radius);
      if (clear < min_clear) min_clear = clear;
      if (clear < 1e-3f) touching++;
      float dx = s.x[l][j] - s.x[l - 1][j], dy = s.y[l][j] - s.y[l - 1][j], dz = s.z[l][j] - s.z[l - 1][j];
      assert_float_equal(sqrtf(dx * dx + dy * dy + dz * dz), link, 1e-4f);
    }
  }
  assert_true(min_clear > -2e-3f);
  assert_true(touching >= chains); /* it rests on the collider, not beside it */

  /* The same drop with no collider passes through the shape. */
  strands_init(&s, chains, levels, root, fan_radius, link, strand_radius);
  for (int i = 0; i < 900; i++) strands_step(&s, NULL, 1.0f / 60.0f, 0.9f, -30.0f);
  float min_free = 1e9f;
  for (uint32_t l = 1; l < levels; l++)
    for (uint32_t j = 0; j < chains; j++) {
      float clear = segment_distance(col, s.x[l][j], s.y[l][j], s.z[l][j]) - (col->radius + strand_radius);
      if (clear < min_free) min_free = clear;
    }
  assert_true(min_free < -0.1f);
  tress__collider_lanes_free(&lanes);
}

static void test_strand_dropped_onto_sphere(void **state) {
  (void)state;
  tress_collider_def def = tress_default_collider_def();
  def.radius = 1.0f;
  tress_collider_world w = tress_collider_resolve(NULL, &def);
  float root[3] = {0.0f, 1.3f, 0.0f};
  drop_onto(&w, root, 0.1f);
}

static void test_strand_dropped_onto_capsule(void **state) {
  (void)state;
  /* A capsule lying along X: the seed's +Y capsule turned by a bone rotated 90 degrees about Z. */
  tress_scene *scene = th_scene();
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_id bone = th_instance(scene, TRESS_KIND_BONE, "Neck", part);
  float zaxis[3] = {0.0f, 0.0f, 1.0f};
  tress_bone_set_cframe(scene, bone, tress_xform_from_axis_angle(zaxis, 1.5707963f));
  float off[3] = {0.0f, 0.0f, 0.0f};
  tress_collider_def def = tress_collider_capsule_y(bone, off, 2.0f, 0.5f);
  assert_true(tress_collider_def_is_valid(&def));
  assert_float_equal(tress_collider_def_get_height(&def), 2.0f, 1e-6f);
  tress_collider_world w = tress_collider_resolve(scene, &def);
  assert_float_equal(fabsf(w.ax - w.bx), 2.0f, 1e-5f);
  assert_float_equal(w.ay, w.by, 1e-5f);
  float root[3] = {0.0f, 0.8f, 0.0f};
  drop_onto(&w, root, 0.05f);
  tress_scene_destroy(scene);
}

static float frand(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (float)(*seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
}

/* The vectorized batch gives what the scalar routine gives, node by node, with sets of
 * different sizes (and an empty one) in one level, every shape mixed in one set (extended:
 * planes and inside shapes too), for either response. */
static void batch_matches_scalar(tress_collider_response response, bool extended) {
  enum { N = 37, C = 6 };
  uint32_t seed = 12345u;
  tress_collider_world world[C];
  memset(world, 0, sizeof world);
  for (int c = 0; c < C; c++) {
    world[c].ax = frand(&seed); world[c].ay = frand(&seed); world[c].az = frand(&seed);
    bool capsule = c % 3 == 2;
    world[c].bx = world[c].ax + (capsule ? frand(&seed) : 0.0f);
    world[c].by = world[c].ay + (capsule ? frand(&seed) : 0.0f);
    world[c].bz = world[c].az + (capsule ? frand(&seed) : 0.0f);
    world[c].radius = 0.3f + 0.2f * fabsf(frand(&seed));
    world[c].shape = capsule ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE;
  }
  if (extended) {
    world[1].shape = TRESS_COLLIDER_INSIDE_SPHERE;
    world[1].radius = 0.9f;
    world[2].shape = TRESS_COLLIDER_INSIDE_CAPSULE;
    world[2].radius = 0.8f;
    float n[3] = {0.3f, 0.8f, -0.2f}, l = sqrtf(0.3f * 0.3f + 0.8f * 0.8f + 0.2f * 0.2f);
    world[3].shape = TRESS_COLLIDER_PLANE;
    world[3].bx = n[0] / l; world[3].by = n[1] / l; world[3].bz = n[2] / l;
    world[3].radius = 0.0f;
  }
  tress_collider_set sets[3] = {{0}, {0}, {0}};
  for (uint16_t c = 0; c < C; c++) tress_collider_set_add(&sets[0], c);
  tress_collider_set_add(&sets[1], 2);
  tress_collider_set_add(&sets[1], 4);
  /* sets[2] stays empty: a tail that tests nothing */
  uint32_t set_of_node[N];
  float x[N], y[N], z[N], px[N], py[N], pz[N], rest[N], sr[N];
  for (int j = 0; j < N; j++) {
    set_of_node[j] = (uint32_t)j % 3;
    x[j] = frand(&seed); y[j] = frand(&seed); z[j] = frand(&seed);
    px[j] = x[j] + 0.2f * frand(&seed); py[j] = y[j] + 0.5f; pz[j] = z[j] + 0.2f * frand(&seed);
    rest[j] = 0.4f + 0.1f * frand(&seed);
    sr[j] = 0.05f;
  }
  tress_collider_lanes lanes;
  assert_true(tress__collider_lanes_init(&lanes, 8, N));
  tress__collider_lanes_gather(&lanes, world, C, sets, 3, set_of_node, N);
  assert_int_equal(lanes.slots, C);
  /* which slots take the general kernels (a plane or inside shape for some node: set 1's slot
   * 0 is world[2]) and which hold a segment (b != a: capsules, and the plane's normal) */
  assert_int_equal(lanes.shaped_slots, extended ? 0x0Fu : 0u);
  assert_int_equal(lanes.capsule_slots, extended ? 0x2Du : 0x25u);
  float bx[N], by[N], bz[N];
  memcpy(bx, x, sizeof x); memcpy(by, y, sizeof y); memcpy(bz, z, sizeof z);
  tress__collider_push_level(bx, by, bz, px, py, pz, rest, sr, N, &lanes, response);
  int moved_with_set = 0;
  for (int j = 0; j < N; j++) {
    float p[3] = {x[j], y[j], z[j]};
    float parent[3] = {px[j], py[j], pz[j]};
    tress_collider_world mine[C];
    uint32_t n = 0;
    const tress_collider_set *s = &sets[set_of_node[j]];
    for (uint32_t k = 0; k < s->count; k++) mine[n++] = world[s->index[k]];
    bool hit = tress__collider_push_point(p, parent, rest[j], sr[j], mine, n, response);
    assert_float_equal(bx[j], p[0], 1e-4f);
    assert_float_equal(by[j], p[1], 1e-4f);
    assert_float_equal(bz[j], p[2], 1e-4f);
    if (set_of_node[j] == 2) assert_false(hit);
    if (hit) moved_with_set++;
  }
  assert_true(moved_with_set > 0);
  tress__collider_lanes_free(&lanes);

  /* through set lanes (one lane per set, nodes read it by index): the same positions */
  tress_collider_lanes set_lanes;
  assert_true(tress__collider_lanes_init(&set_lanes, 8, 3));
  tress__collider_lanes_gather(&set_lanes, world, C, sets, 3, NULL, 3);
  float sx[N], sy[N], sz[N];
  memcpy(sx, x, sizeof x); memcpy(sy, y, sizeof y); memcpy(sz, z, sizeof z);
  tress__collider_push_level_sets(sx, sy, sz, px, py, pz, rest, sr, N, &set_lanes, set_of_node, response);
  for (int j = 0; j < N; j++) {
    assert_float_equal(sx[j], bx[j], 1e-6f);
    assert_float_equal(sy[j], by[j], 1e-6f);
    assert_float_equal(sz[j], bz[j], 1e-6f);
  }
  tress__collider_lanes_free(&set_lanes);

  /* a view into a larger block reads the nodes from its first one on */
  tress_collider_lanes block;
  uint32_t set_of_two[2 * N];
  for (int j = 0; j < 2 * N; j++) set_of_two[j] = j < N ? 2u : set_of_node[j - N];
  assert_true(tress__collider_lanes_init(&block, 8, 2 * N));
  tress__collider_lanes_gather(&block, world, C, sets, 3, set_of_two, 2 * N);
  tress_collider_lanes view = tress__collider_lanes_view(&block, N);
  memcpy(sx, x, sizeof x); memcpy(sy, y, sizeof y); memcpy(sz, z, sizeof z);
  tress__collider_push_level(sx, sy, sz, px, py, pz, rest, sr, N, &view, response);
  for (int j = 0; j < N; j++) assert_float_equal(sx[j], bx[j], 1e-6f);
  tress__collider_lanes_free(&block);
}

static void test_batch_matches_scalar(void **state) {
  (void)state;
  batch_matches_scalar(TRESS_COLLIDER_KEEP_LINK, false);
  batch_matches_scalar(TRESS_COLLIDER_PUSH_THEN_RESTORE, false);
  batch_matches_scalar(TRESS_COLLIDER_KEEP_LINK, true);
  batch_matches_scalar(TRESS_COLLIDER_PUSH_THEN_RESTORE, true);
}

/* Hair tests the head, a tail in the same level does not: the set decides, not the level. */
static void test_collider_set_separates_chains(void **state) {
  (void)state;
  tress_collider_def head = tress_default_collider_def();
  head.radius = 1.0f;
  tress_collider_world w = tress_collider_resolve(NULL, &head);
  tress_collider_set sets[2] = {{0}, {0}};
  tress_collider_set_add(&sets[0], 0); /* hair */
  tress_collider_lanes lanes;
  assert_true(tress__collider_lanes_init(&lanes, 2, 2));
  tress__collider_lanes_gather(&lanes, &w, 1, sets, 2, NULL, 2);
  /* both nodes 0.5 inside the head, parents above */
  float x[2] = {0.5f, 0.5f}, y[2] = {0.0f, 0.0f}, z[2] = {0.0f, 0.0f};
  float px[2] = {0.5f, 0.5f}, py[2] = {2.0f, 2.0f}, pz[2] = {0.0f, 0.0f};
  float rest[2] = {2.0f, 2.0f}, sr[2] = {0.0f, 0.0f}; /* the link holds while the push moves it */
  tress__collider_push_level(x, y, z, px, py, pz, rest, sr, 2, &lanes, TRESS_COLLIDER_KEEP_LINK);
  float d0 = sqrtf(x[0] * x[0] + y[0] * y[0] + z[0] * z[0]);
  float d1 = sqrtf(x[1] * x[1] + y[1] * y[1] + z[1] * z[1]);
  assert_true(d0 > 0.99f);
  assert_float_equal(d1, 0.5f, 1e-6f);
  /* set add refuses duplicates and overflow */
  assert_false(tress_collider_set_add(&sets[0], 0));
  for (uint16_t i = 1; i < TRESS_COLLIDER_SET_MAX; i++) assert_true(tress_collider_set_add(&sets[0], i));
  assert_false(tress_collider_set_add(&sets[0], 99));
  tress__collider_lanes_free(&lanes);
}

/* A node at a collider's centre has no normal: it still gets out, with its link kept when the
 * link allows, the same way every time; a link too short to reach the surface is pushed up
 * along +Y and the link wins. */
static void test_point_on_axis_gets_out(void **state) {
  (void)state;
  tress_collider_world c = {0, 0, 0, 0, 0, 0, 1.0f, TRESS_COLLIDER_SPHERE};
  float p[3] = {0.0f, 0.0f, 0.0f}, parent[3] = {0.0f, 3.0f, 0.0f};
  assert_true(tress__collider_push_point(p, parent, 3.0f, 0.25f, &c, 1, TRESS_COLLIDER_KEEP_LINK));
  assert_float_equal(sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 1.25f, 1e-4f);
  float dy = p[1] - 3.0f;
  assert_float_equal(sqrtf(p[0] * p[0] + dy * dy + p[2] * p[2]), 3.0f, 1e-4f);
  float again[3] = {0.0f, 0.0f, 0.0f};
  tress__collider_push_point(again, parent, 3.0f, 0.25f, &c, 1, TRESS_COLLIDER_KEEP_LINK);
  assert_memory_equal(p, again, sizeof p);
  float q[3] = {0.0f, 0.0f, 0.0f};
  assert_true(tress__collider_push_point(q, parent, 1.0f, 0.25f, &c, 1, TRESS_COLLIDER_KEEP_LINK));
  assert_float_equal(q[0], 0.0f, 1e-6f);
  assert_float_equal(q[1], 2.0f, 1e-5f);
}

/* A collider follows its part/bone, offset in the bone's frame. */
static void test_collider_follows_attach(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, part, tress_xform_from_pos(10.0f, 0.0f, 0.0f));
  tress_id bone = th_instance(scene, TRESS_KIND_BONE, "Skull", part);
  float yaxis[3] = {0.0f, 1.0f, 0.0f};
  tress_xform cf = tress_xform_from_axis_angle(yaxis, 1.5707963f); /* +X -> -Z */
  cf.p[1] = 2.0f;
  tress_bone_set_cframe(scene, bone, cf);
  tress_collider_def def = tress_default_collider_def();
  def.attach = bone;
  def.offset[0] = 1.0f;
  def.radius = 0.5f;
  tress_collider_world w = tress_collider_resolve(scene, &def);
  assert_float_equal(w.ax, 10.0f, 1e-5f);
  assert_float_equal(w.ay, 2.0f, 1e-5f);
  assert_float_equal(w.az, -1.0f, 1e-5f);
  assert_float_equal(w.bx, w.ax, 0.0f);
  tress_part_set_cframe(scene, part, tress_xform_from_pos(0.0f, 5.0f, 0.0f));
  w = tress_collider_resolve(scene, &def);
  assert_float_equal(w.ax, 0.0f, 1e-5f);
  assert_float_equal(w.ay, 7.0f, 1e-5f);
  /* a destroyed attach resolves in world space, never dereferenced */
  tress_instance_destroy(scene, part);
  w = tress_collider_resolve(scene, &def);
  assert_float_equal(w.ax, 1.0f, 1e-6f);
  tress_scene_destroy(scene);
}

static void test_def_validation(void **state) {
  (void)state;
  tress_collider_def d = tress_default_collider_def();
  assert_int_equal(d.shape, TRESS_COLLIDER_SPHERE);
  assert_float_equal(d.radius, 10.0f, 0.0f);
  assert_true(tress_collider_def_is_valid(&d));
  d.radius = -1.0f;
  assert_false(tress_collider_def_is_valid(&d));
  d.radius = NAN;
  assert_false(tress_collider_def_is_valid(&d));
  float off[3] = {0.0f, 1.0f, 0.0f};
  tress_collider_def cap = tress_collider_capsule_y((tress_id){0}, off, 0.0f, 1.0f);
  assert_false(tress_collider_def_is_valid(&cap)); /* a capsule with no length */
  cap = tress_collider_capsule_y((tress_id){0}, off, 4.0f, 1.0f);
  assert_true(tress_collider_def_is_valid(&cap));
  assert_float_equal(cap.offset[1], -1.0f, 1e-6f);
  assert_float_equal(cap.tail[1], 3.0f, 1e-6f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strand_dropped_onto_sphere),
      cmocka_unit_test(test_strand_dropped_onto_capsule),
      cmocka_unit_test(test_batch_matches_scalar),
      cmocka_unit_test(test_collider_set_separates_chains),
      cmocka_unit_test(test_point_on_axis_gets_out),
      cmocka_unit_test(test_collider_follows_attach),
      cmocka_unit_test(test_def_validation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
