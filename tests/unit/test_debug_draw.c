/* test_debug_draw.c - tress_sim_debug_draw on a scene with one of everything: a bone chain with
 * a strand radius and an end tip, a culled (sleeping) chain, a collider of every shape, a rope,
 * a cloth sheet and an accessory pendulum. Every collider and bone is listed where the sim has
 * it, sleeping chains are marked, the order repeats, and a frame's call allocates nothing. */
#include "support/alloc_count.h"
#include "support/accessory_fixture.h"
#include "support/sim_fixture.h"
#include "tress/debug_draw.h"
#include "tress/rope.h"

#define MAX_SHAPES 512
#define RADIUS 0.05f
#define END_LENGTH 0.3f
#define BONES 4

typedef struct world {
  acc_character c;
  tress_sim *sim;
  fix_chain near, far;
  tress_handle_id near_h, far_h, rope_h, cloth_h, hat_h;
  tress_collider_id colliders[5];
  tress_collider_shape shapes[5];
  tress_debug_shape out[MAX_SHAPES];
  uint32_t count;
} world;

static void make_colliders(world *w) {
  const tress_collider_shape shapes[5] = {TRESS_COLLIDER_SPHERE, TRESS_COLLIDER_CAPSULE, TRESS_COLLIDER_PLANE,
                                          TRESS_COLLIDER_INSIDE_SPHERE, TRESS_COLLIDER_INSIDE_CAPSULE};
  for (int i = 0; i < 5; i++) {
    tress_collider_def d = tress_default_collider_def();
    d.shape = shapes[i];
    d.attach = w->c.head;
    d.offset[1] = -0.8f - (float)i;
    d.tail[1] = d.offset[1] - 0.5f;
    d.radius = shapes[i] == TRESS_COLLIDER_INSIDE_SPHERE || shapes[i] == TRESS_COLLIDER_INSIDE_CAPSULE ? 50.0f : 0.2f;
    d.normal[1] = 1.0f; /* the plane faces up, far below the chain */
    d.offset[1] = shapes[i] == TRESS_COLLIDER_PLANE ? -40.0f : d.offset[1];
    w->shapes[i] = shapes[i];
    assert_int_equal(tress_sim_create_collider(w->sim, &d, &w->colliders[i]), TRESS_OK);
  }
}

static void make_world_model(world *w, tress_spring_model model) {
  memset(w, 0, sizeof *w);
  w->c = acc_character_make();
  w->sim = acc_sim(w->c.scene, NULL, NULL, 20, 100.0f);
  make_colliders(w);
  w->near = fix_chain_make(w->c.scene, 0, 5, 0, BONES, 0.3f);
  w->far = fix_chain_make(w->c.scene, 1000, 5, 0, BONES, 0.3f); /* beyond max_distance: culled */
  tress_chain_settings s = tress_default_chain_settings();
  s.model = model;
  s.radius = RADIUS;
  s.end_length = END_LENGTH;
  s.colliders[s.collider_count++] = w->colliders[0];
  assert_int_equal(tress_sim_bind(w->sim, w->near.part, &s, &w->near_h), TRESS_OK);
  assert_int_equal(tress_sim_bind(w->sim, w->far.part, &s, &w->far_h), TRESS_OK);
  tress_rope_def rope = tress_default_rope_def();
  rope.segments = 6;
  rope.length = 6.0f;
  rope.start = (tress_rope_pin){.pinned = true, .position = {3, 8, 0}};
  rope.end = (tress_rope_pin){.pinned = false, .position = {9, 8, 0}};
  assert_int_equal(tress_sim_bind_rope(w->sim, &rope, &w->rope_h, NULL), TRESS_OK);
  tress_cloth_def cloth = tress_default_cloth_def();
  cloth.width = 4;
  cloth.height = 3;
  cloth.origin[0] = -5;
  cloth.origin[1] = 8;
  tress_cloth_pin pins[2] = {{.particle = 0}, {.particle = 3}};
  cloth.pins = pins;
  cloth.pin_count = 2;
  assert_int_equal(tress_sim_bind_cloth(w->sim, &cloth, &w->cloth_h, NULL), TRESS_OK);
  acc_worn hat = acc_wear(&w->c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_WELD, false, false);
  assert_int_equal(tress_sim_bind_accessory(w->sim, hat.accessory, NULL, &w->hat_h), TRESS_OK);
  float camera[3] = {0, 5, 0};
  tress_sim_set_camera(w->sim, camera);
  for (int i = 0; i < 30; i++) {
    tress_part_set_cframe(w->c.scene, w->near.part, tress_xform_from_pos(0.05f * (float)i, 5, 0));
    tress_part_set_cframe(w->c.scene, w->c.head, tress_xform_from_pos(0.05f * (float)i, 5, 0));
    assert_int_equal(tress_sim_step(w->sim, 1.0 / 60.0), TRESS_OK);
  }
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, w->out, MAX_SHAPES, &w->count), TRESS_OK);
  assert_true(w->count > 0 && w->count <= MAX_SHAPES);
}

static void make_world(world *w) { make_world_model(w, TRESS_SPRING_POSE); }

static void free_world(world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->c.scene);
}

static bool same_handle(tress_handle_id a, tress_handle_id b) {
  return a.index1 == b.index1 && a.generation == b.generation && a.owner == b.owner;
}

static uint32_t count_of(const world *w, tress_handle_id h, tress_debug_role role) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < w->count; i++) n += same_handle(w->out[i].handle, h) && w->out[i].role == role;
  return n;
}

static void assert_near3(const float a[3], const float b[3], float tol) {
  for (int k = 0; k < 3; k++) assert_true(fabsf(a[k] - b[k]) <= tol);
}

static void test_every_collider_listed_first_in_id_order(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  make_world(w);
  const tress_debug_shape_kind kinds[5] = {TRESS_DEBUG_SPHERE, TRESS_DEBUG_CAPSULE, TRESS_DEBUG_PLANE,
                                           TRESS_DEBUG_SPHERE, TRESS_DEBUG_CAPSULE};
  for (int i = 0; i < 5; i++) {
    const tress_debug_shape *s = &w->out[i];
    assert_int_equal(s->role, TRESS_DEBUG_COLLIDER);
    assert_int_equal(s->kind, kinds[i]);
    assert_int_equal(s->collider.index1, w->colliders[i].index1);
    assert_int_equal(s->collider.generation, w->colliders[i].generation);
    assert_int_equal(s->inside, w->shapes[i] == TRESS_COLLIDER_INSIDE_SPHERE ||
                                    w->shapes[i] == TRESS_COLLIDER_INSIDE_CAPSULE);
    tress_collider_world cw;
    assert_int_equal(tress_collider_get_world(w->sim, w->colliders[i], &cw), TRESS_OK);
    float a[3] = {cw.ax, cw.ay, cw.az}, b[3] = {cw.bx, cw.by, cw.bz};
    assert_near3(s->a, a, 0.0f);
    assert_near3(s->b, b, 0.0f);
    assert_true(s->radius == (w->shapes[i] == TRESS_COLLIDER_PLANE ? 0.0f : cw.radius));
  }
  uint32_t colliders = 0;
  for (uint32_t i = 0; i < w->count; i++) colliders += w->out[i].role == TRESS_DEBUG_COLLIDER;
  assert_int_equal(colliders, 5);
  /* a destroyed collider is no longer drawn */
  tress_collider_destroy(w->sim, w->colliders[1]);
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, w->out, MAX_SHAPES, &w->count), TRESS_OK);
  assert_int_equal(w->out[1].collider.index1, w->colliders[2].index1);
  free_world(w);
  free(w);
}

/* Every bone of the awake chain: the root starts the first link, every other bone ends one in
 * both poses at the scene's animated and drawn positions; the tip is a point and every node has
 * its radius. */
/* Every link where the sim has it, the animated ones where the animation has them. The VRM
 * model's tiles compose the animated pose past the roots only when they read it, so its debug
 * draw composes it there (the near chain's part moved every frame since its first). */
static void bones_listed(tress_spring_model model) {
  world *w = calloc(1, sizeof *w);
  make_world_model(w, model);
  assert_true(tress_handle_is_awake(w->sim, w->near_h));
  const uint32_t nodes = BONES + 1; /* the leaf's end tip */
  assert_int_equal(count_of(w, w->near_h, TRESS_DEBUG_BONE_SIMULATED), nodes - 1);
  assert_int_equal(count_of(w, w->near_h, TRESS_DEBUG_BONE_ANIMATED), nodes - 1);
  assert_int_equal(count_of(w, w->near_h, TRESS_DEBUG_STRAND_RADIUS), nodes);
  assert_int_equal(count_of(w, w->near_h, TRESS_DEBUG_END_TIP), 1);
  const tress_scene *scene = w->c.scene;
  bool seen[BONES] = {false};
  bool root_starts = false;
  for (uint32_t i = 0; i < w->count; i++) {
    const tress_debug_shape *s = &w->out[i];
    if (!same_handle(s->handle, w->near_h)) continue;
    assert_false(s->asleep);
    if (s->role == TRESS_DEBUG_STRAND_RADIUS) assert_true(fabsf(s->radius - RADIUS) < 1e-6f);
    if (s->role == TRESS_DEBUG_END_TIP) assert_true(tress_id_is_null(s->instance));
    if (s->role != TRESS_DEBUG_BONE_SIMULATED && s->role != TRESS_DEBUG_BONE_ANIMATED) continue;
    assert_int_equal(s->kind, TRESS_DEBUG_LINE);
    bool animated = s->role == TRESS_DEBUG_BONE_ANIMATED;
    tress_xform root = animated ? tress_bone_get_world_animated(scene, w->near.bones[0])
                                : tress_bone_get_world(scene, w->near.bones[0]);
    if (s->index == 1) {
      assert_near3(s->a, root.p, 1e-4f);
      root_starts = true;
    }
    if (tress_id_is_null(s->instance)) {
      /* the tip hangs end_length beyond the leaf */
      tress_xform leaf = animated ? tress_bone_get_world_animated(scene, w->near.bones[BONES - 1])
                                  : tress_bone_get_world(scene, w->near.bones[BONES - 1]);
      assert_near3(s->a, leaf.p, 1e-4f);
      float dx = s->b[0] - s->a[0], dy = s->b[1] - s->a[1], dz = s->b[2] - s->a[2];
      assert_true(fabsf(sqrtf(dx * dx + dy * dy + dz * dz) - END_LENGTH) < 1e-3f);
      continue;
    }
    int bone = -1;
    for (int b = 0; b < BONES; b++)
      if (tress_id_is_equal(s->instance, w->near.bones[b])) bone = b;
    assert_true(bone > 0);
    assert_int_equal(s->index, (uint32_t)bone);
    tress_xform world = animated ? tress_bone_get_world_animated(scene, s->instance) : tress_bone_get_world(scene, s->instance);
    assert_near3(s->b, world.p, 1e-4f);
    if (!animated) seen[bone] = true;
  }
  assert_true(root_starts);
  for (int b = 1; b < BONES; b++) assert_true(seen[b]);
  /* the chain swung: its simulated tip is not where the animation has it */
  float sway = 0.0f;
  for (uint32_t i = 0; i + 1 < w->count; i++)
    if (same_handle(w->out[i].handle, w->near_h) && w->out[i].role == TRESS_DEBUG_BONE_ANIMATED &&
        w->out[i + 1].role == TRESS_DEBUG_BONE_SIMULATED)
      sway = fmaxf(sway, fabsf(w->out[i].b[1] - w->out[i + 1].b[1]));
  assert_true(sway > 1e-3f);
  free_world(w);
  free(w);
}

static void test_every_bone_listed_where_the_sim_has_it(void **state) {
  (void)state;
  bones_listed(TRESS_SPRING_POSE);
}

static void test_every_vrm_bone_listed_where_the_sim_has_it(void **state) {
  (void)state;
  bones_listed(TRESS_SPRING_VRM);
}

static void test_sleeping_chains_are_marked(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  make_world(w);
  assert_false(tress_handle_is_awake(w->sim, w->far_h));
  uint32_t far = 0;
  for (uint32_t i = 0; i < w->count; i++) {
    const tress_debug_shape *s = &w->out[i];
    if (same_handle(s->handle, w->far_h)) {
      assert_true(s->asleep);
      far++;
    } else if (s->role != TRESS_DEBUG_COLLIDER) {
      assert_int_equal(s->asleep, !tress_handle_is_awake(w->sim, s->handle));
    }
  }
  /* never stepped: drawn from the scene, its 3 bone links twice and 4 radii, no tip yet */
  assert_int_equal(far, 2 * (BONES - 1) + BONES);
  /* left out on request; brought near the camera it wakes and is drawn awake */
  tress_debug_draw_opts o = tress_default_debug_draw_opts();
  o.include_asleep = false;
  assert_int_equal(tress_sim_debug_draw(w->sim, &o, w->out, MAX_SHAPES, &w->count), TRESS_OK);
  assert_int_equal(count_of(w, w->far_h, TRESS_DEBUG_BONE_SIMULATED), 0);
  tress_part_set_cframe(w->c.scene, w->far.part, tress_xform_from_pos(2, 5, 0));
  assert_int_equal(tress_sim_step(w->sim, 1.0 / 60.0), TRESS_OK);
  assert_int_equal(tress_sim_debug_draw(w->sim, &o, w->out, MAX_SHAPES, &w->count), TRESS_OK);
  assert_int_equal(count_of(w, w->far_h, TRESS_DEBUG_BONE_SIMULATED), BONES);
  for (uint32_t i = 0; i < w->count; i++)
    if (same_handle(w->out[i].handle, w->far_h)) assert_false(w->out[i].asleep);
  free_world(w);
  free(w);
}

static void test_ropes_cloth_and_pendulums(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  make_world(w);
  assert_int_equal(count_of(w, w->rope_h, TRESS_DEBUG_ROPE), 6);
  assert_int_equal(count_of(w, w->cloth_h, TRESS_DEBUG_CLOTH), tress_rope_get_constraint_count(w->sim, w->cloth_h));
  assert_int_equal(count_of(w, w->cloth_h, TRESS_DEBUG_CLOTH), 3 * 3 + 4 * 2 + 2 * 3 * 2);
  assert_int_equal(count_of(w, w->hat_h, TRESS_DEBUG_PENDULUM), 1);
  /* the rope's segments chain its points end to end, as tress_rope_get_points has them */
  float points[3 * 7];
  uint32_t n;
  assert_int_equal(tress_rope_get_points(w->sim, w->rope_h, points, 7, &n), TRESS_OK);
  for (uint32_t i = 0; i < w->count; i++) {
    const tress_debug_shape *s = &w->out[i];
    if (s->role != TRESS_DEBUG_ROPE) continue;
    assert_near3(s->a, points + 3 * s->index, 1e-5f);
    assert_near3(s->b, points + 3 * (s->index + 1), 1e-5f);
  }
  /* a cut segment is not drawn */
  assert_int_equal(tress_rope_cut(w->sim, w->rope_h, 2), TRESS_OK);
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, w->out, MAX_SHAPES, &w->count), TRESS_OK);
  assert_int_equal(count_of(w, w->rope_h, TRESS_DEBUG_ROPE), 5);
  free_world(w);
  free(w);
}

static void test_order_repeats_and_truncation_counts(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  make_world(w);
  uint32_t total;
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, NULL, 0, &total), TRESS_OK);
  assert_int_equal(total, w->count);
  tress_debug_shape few[7];
  uint32_t n;
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, few, 7, &n), TRESS_OK);
  assert_int_equal(n, total);
  for (int i = 0; i < 7; i++) {
    assert_int_equal(few[i].role, w->out[i].role);
    assert_int_equal(few[i].handle.index1, w->out[i].handle.index1);
    assert_memory_equal(few[i].a, w->out[i].a, sizeof few[i].a);
  }
  tress_debug_draw_opts o = tress_default_debug_draw_opts();
  o.bones_animated = false;
  o.colliders = false;
  assert_int_equal(tress_sim_debug_draw(w->sim, &o, w->out, MAX_SHAPES, &n), TRESS_OK);
  for (uint32_t i = 0; i < n; i++) {
    assert_int_not_equal(w->out[i].role, TRESS_DEBUG_BONE_ANIMATED);
    assert_int_not_equal(w->out[i].role, TRESS_DEBUG_COLLIDER);
  }
  assert_int_equal(n, total - 5 - BONES - (BONES - 1)); /* the near chain's links and the far one's bones */
  assert_int_equal(tress_sim_debug_draw(NULL, NULL, w->out, MAX_SHAPES, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_sim_debug_draw(w->sim, NULL, NULL, 3, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(n, 0);
  free_world(w);
  free(w);
}

/* A chain bound since the last step has no solver state: it is drawn from the scene, and the
 * other chains (whose layout the bind made stale) too, until the next step. */
static void test_new_chain_drawn_from_the_scene_until_it_steps(void **state) {
  (void)state;
  world *w = calloc(1, sizeof *w);
  make_world(w);
  fix_chain late = fix_chain_make(w->c.scene, 1, 5, 1, 3, 0.3f);
  tress_handle_id h;
  assert_int_equal(tress_sim_bind(w->sim, late.part, NULL, &h), TRESS_OK);
  for (int pass = 0; pass < 2; pass++) {
    assert_int_equal(tress_sim_debug_draw(w->sim, NULL, w->out, MAX_SHAPES, &w->count), TRESS_OK);
    assert_int_equal(count_of(w, h, TRESS_DEBUG_BONE_SIMULATED), 2);
    assert_int_equal(count_of(w, w->near_h, TRESS_DEBUG_BONE_SIMULATED), pass == 0 ? BONES - 1 : BONES);
    for (uint32_t i = 0; i < w->count; i++) {
      const tress_debug_shape *s = &w->out[i];
      if (!same_handle(s->handle, h) || s->role != TRESS_DEBUG_BONE_SIMULATED) continue;
      assert_near3(s->b, tress_bone_get_world(w->c.scene, s->instance).p, 1e-5f);
    }
    assert_int_equal(tress_sim_step(w->sim, 1.0 / 60.0), TRESS_OK);
  }
  free_world(w);
  free(w);
}

static void test_a_frame_allocates_nothing(void **state) {
  (void)state;
  alloc_count_install();
  world *w = calloc(1, sizeof *w);
  make_world(w);
  long calls = 0;
  for (int i = 0; i < 120; i++) {
    float x = 0.5f * sinf(0.1f * (float)i);
    tress_part_set_cframe(w->c.scene, w->near.part, tress_xform_from_pos(x, 5, 0));
    tress_part_set_cframe(w->c.scene, w->c.head, tress_xform_from_pos(x, 5, 0));
    assert_int_equal(tress_sim_step(w->sim, i % 3 ? 1.0 / 60.0 : 1.0 / 144.0), TRESS_OK);
    alloc_count_start();
    tress_result r = tress_sim_debug_draw(w->sim, NULL, w->out, MAX_SHAPES, &w->count);
    calls += alloc_count_stop();
    assert_int_equal(r, TRESS_OK);
  }
  assert_int_equal(calls, 0);
  free_world(w);
  free(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_collider_listed_first_in_id_order),
      cmocka_unit_test(test_every_bone_listed_where_the_sim_has_it),
      cmocka_unit_test(test_every_vrm_bone_listed_where_the_sim_has_it),
      cmocka_unit_test(test_sleeping_chains_are_marked),
      cmocka_unit_test(test_ropes_cloth_and_pendulums),
      cmocka_unit_test(test_order_repeats_and_truncation_counts),
      cmocka_unit_test(test_new_chain_drawn_from_the_scene_until_it_steps),
      cmocka_unit_test(test_a_frame_allocates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
