/* test_scene.c - the instance tree: the scene def's capacities, generational ids, subtree destroy
 * with callbacks, reparenting and "left the scene", bone slots (cframe / animated / transform),
 * world poses and joints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tress/mesh.h"
#include "tress/scene.h"
#include "support/alloc_count.h"
#include "support/scene_build.h"

static tress_xform pos(float x, float y, float z) { return tress_xform_from_pos(x, y, z); }

static void no_op_listener(tress_scene *s, tress_id id, tress_event ev, void *user) {
  (void)s, (void)id, (void)ev, (void)user;
}

/* Builds `n` instances under the root, every third a joint, each with a listener, then solves the
 * joints twice; returns the heap allocations that took. */
static long allocations_to_build(tress_scene *s, uint32_t n) {
  alloc_count_start();
  for (uint32_t i = 0; i < n; i++) {
    tress_id id = th_instance(s, i % 3 ? TRESS_KIND_PART : TRESS_KIND_JOINT, "I", tress_scene_get_root(s));
    assert_false(tress_id_is_null(id));
    assert_true(tress_instance_connect(s, id, no_op_listener, NULL).index1 != 0);
  }
  tress_scene_solve_joints(s);
  tress_scene_solve_joints(s);
  return alloc_count_stop();
}

/* The scene def: defaults, refusal of NULL, and capacities that keep building and the per-frame
 * joint solve off the heap (the default 64 does not hold 299 instances: that scene grows). */
static void test_scene_def_capacities(void **state) {
  (void)state;
  alloc_count_install();
  tress_scene_def d = tress_default_scene_def();
  assert_int_equal(d.instance_capacity, 64);
  assert_int_equal(d.listener_capacity, 64);
  assert_null(tress_scene_create(NULL));

  assert_int_equal(d.joint_capacity, 16);
  assert_int_equal(d.part_capacity, 16);
  d.instance_capacity = 300; /* the root and 299 more */
  d.listener_capacity = 299;
  d.joint_capacity = 100; /* every third of the 299 */
  d.part_capacity = 199;  /* the other two thirds */
  tress_scene *sized = tress_scene_create(&d);
  assert_non_null(sized);
  assert_int_equal(allocations_to_build(sized, 299), 0);
  assert_int_equal(tress_scene_get_instance_count(sized), 300);
  tress_scene_destroy(sized);

  tress_scene *grown = th_scene();
  assert_true(allocations_to_build(grown, 299) > 0);
  assert_int_equal(tress_scene_get_instance_count(grown), 300);
  tress_scene_destroy(grown);

  tress_scene_def zero = {0, 0}; /* the root alone fits; everything else grows */
  tress_scene *small = tress_scene_create(&zero);
  assert_non_null(small);
  assert_true(allocations_to_build(small, 10) > 0);
  assert_int_equal(tress_scene_get_instance_count(small), 11);
  tress_scene_destroy(small);
}

/* The part pool is made at part_capacity, not for every instance the scene may hold: N parts are
 * created off the heap, the N + 1st grows the pool, and a scene of many instances but few parts
 * holds less than one with a part entry for each (a part entry is a mesh pointer, an asset id and
 * two sizes: well over 32 bytes). */
static void test_part_capacity(void **state) {
  (void)state;
  alloc_count_install();
  enum { N = 40, INSTANCES = 1001 };
  tress_scene_def d = tress_default_scene_def();
  d.instance_capacity = INSTANCES;
  d.part_capacity = N;
  tress_scene *s = tress_scene_create(&d);
  assert_non_null(s);
  tress_id root = tress_scene_get_root(s);
  alloc_count_start();
  for (int i = 0; i < N; i++) assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_PART, "P", root)));
  assert_int_equal(alloc_count_stop(), 0);
  alloc_count_start();
  assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_PART, "P", root)));
  assert_true(alloc_count_stop() > 0);
  tress_scene_destroy(s);

  d.part_capacity = tress_default_scene_def().part_capacity;
  tress_scene *few = tress_scene_create(&d);
  d.part_capacity = INSTANCES - 1;
  tress_scene *every = tress_scene_create(&d);
  assert_non_null(few);
  assert_non_null(every);
  assert_true(tress_scene_get_memory_bytes(every) >=
              tress_scene_get_memory_bytes(few) + (size_t)(INSTANCES - 1 - tress_default_scene_def().part_capacity) * 32);
  tress_scene_destroy(few);
  tress_scene_destroy(every);
}

/* Bones' entries (animated input, transform output) are made at bone_capacity: N bones are
 * created off the heap, the N + 1st grows them, and a scene of many instances but few bones
 * holds less than one with an entry for each (two 32-byte xforms and an owner). */
static void test_bone_capacity(void **state) {
  (void)state;
  alloc_count_install();
  enum { N = 40, INSTANCES = 1001 };
  tress_scene_def d = tress_default_scene_def();
  assert_int_equal(d.bone_capacity, 64);
  d.instance_capacity = INSTANCES;
  d.bone_capacity = N;
  tress_scene *s = tress_scene_create(&d);
  assert_non_null(s);
  tress_id part = th_instance(s, TRESS_KIND_PART, "P", tress_scene_get_root(s));
  alloc_count_start();
  for (int i = 0; i < N; i++) assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_BONE, "B", part)));
  assert_int_equal(alloc_count_stop(), 0);
  alloc_count_start();
  assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_BONE, "B", part)));
  assert_true(alloc_count_stop() > 0);
  tress_scene_destroy(s);

  d.bone_capacity = 1;
  tress_scene *few = tress_scene_create(&d);
  d.bone_capacity = INSTANCES - 1;
  tress_scene *every = tress_scene_create(&d);
  assert_non_null(few);
  assert_non_null(every);
  assert_true(tress_scene_get_memory_bytes(every) >= tress_scene_get_memory_bytes(few) + (size_t)(INSTANCES - 2) * 64);
  tress_scene_destroy(few);
  tress_scene_destroy(every);
}

/* What one instance of the side-table churn has: its scale (x only: y and z are 1) and its live
 * listeners; `heard` counts the events they were called with. */
enum { SIDE_INSTANCES = 600, SIDE_LISTENERS = 4 };
typedef struct side_model {
  tress_id id;
  float scale_x;
  tress_connection listeners[SIDE_LISTENERS];
  int live, heard;
} side_model;

static void count_heard(tress_scene *s, tress_id id, tress_event ev, void *user) {
  (void)s, (void)id;
  if (ev == TRESS_EVENT_DESTROYING) ((side_model *)user)->heard++;
}

/* The few instances with a scale or listeners keep them beside the instance array (one table,
 * entries made and dropped as they come and go): random scales, resets to (1, 1, 1), connects and
 * disconnects over many instances read back right throughout, and each destroyed instance calls
 * exactly its live listeners. */
static void test_scales_and_listeners_beside_the_slots(void **state) {
  (void)state;
  static side_model model[SIDE_INSTANCES];
  memset(model, 0, sizeof model);
  tress_scene *s = th_scene();
  tress_id root = tress_scene_get_root(s);
  for (int i = 0; i < SIDE_INSTANCES; i++) {
    model[i].id = th_instance(s, i % 2 ? TRESS_KIND_BONE : TRESS_KIND_FOLDER, "I", root);
    model[i].scale_x = 1.0f;
  }
  uint32_t rng = 12345u;
  for (int step = 0; step < 20000; step++) {
    rng = rng * 1664525u + 1013904223u;
    side_model *m = &model[(rng >> 8) % SIDE_INSTANCES];
    switch ((rng >> 24) % 4) {
    case 0: { /* a scale, or back to none */
      float x = (rng >> 20) % 3 ? 1.0f + (float)((rng >> 12) % 7) : 1.0f;
      const float k[3] = {x, 1.0f, 1.0f};
      assert_true(tress_instance_set_scale(s, m->id, k));
      m->scale_x = x;
      break;
    }
    case 1:
    case 2: /* a listener more */
      if (m->live == SIDE_LISTENERS) break;
      m->listeners[m->live] = tress_instance_connect(s, m->id, count_heard, m);
      assert_int_not_equal(m->listeners[m->live].index1, 0);
      m->live++;
      break;
    default: /* the oldest goes */
      if (m->live == 0) break;
      tress_connection_disconnect(s, m->listeners[0]);
      memmove(m->listeners, m->listeners + 1, (size_t)(m->live - 1) * sizeof *m->listeners);
      m->live--;
      break;
    }
    const side_model *check = &model[(rng >> 4) % SIDE_INSTANCES];
    float got[3];
    tress_instance_get_scale(s, check->id, got);
    assert_float_equal(got[0], check->scale_x, 0.0f);
    assert_float_equal(got[1], 1.0f, 0.0f);
  }
  for (int i = 0; i < SIDE_INSTANCES; i++) {
    tress_instance_destroy(s, model[i].id);
    assert_int_equal(model[i].heard, model[i].live);
  }
  tress_scene_destroy(s);
}

/* The joint solve order grows with the joint pool, not on the first solve after joints were added:
 * a scene that grew to 200 joints solves them, the first time included, without the heap. */
static void test_first_joint_solve_allocates_nothing(void **state) {
  (void)state;
  alloc_count_install();
  tress_scene *s = th_scene(); /* default capacities: 64 instances, 16 joints */
  for (uint32_t i = 0; i < 200; i++)
    assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_JOINT, "J", tress_scene_get_root(s))));
  alloc_count_start();
  tress_scene_solve_joints(s);
  assert_int_equal(alloc_count_stop(), 0);
  tress_scene_destroy(s);
}

/* Names and asset ids are kept in the instance up to 15 bytes and on the heap past that: either
 * way they read back whole (cut to the buffer the API gives), rename in both directions, are
 * found by find_child, and the heap copies count in the memory figure until they go. */
static void test_long_and_short_texts(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id root = tress_scene_get_root(s);
  char longest[200];
  memset(longest, 'n', sizeof longest - 1);
  longest[sizeof longest - 1] = '\0';
  const char *names[] = {"", "Hair", "Hair_S123_B1234", "HumanoidRootPart", longest}; /* 15 and 16 bytes */
  size_t before = tress_scene_get_memory_bytes(s);
  tress_id ids[5];
  for (int k = 0; k < 5; k++) {
    ids[k] = th_instance(s, TRESS_KIND_PART, names[k], root);
    char out[TRESS_NAME_MAX];
    tress_instance_get_name(s, ids[k], out);
    size_t n = strlen(names[k]) < TRESS_NAME_MAX ? strlen(names[k]) : TRESS_NAME_MAX - 1;
    assert_int_equal(strlen(out), n);
    assert_memory_equal(out, names[k], n);
    if (k > 0 && k < 4) assert_true(tress_id_is_equal(tress_instance_find_child(s, root, names[k]), ids[k]));
  }
  size_t with_long = tress_scene_get_memory_bytes(s);
  assert_true(with_long > before); /* two names past 15 bytes are on the heap */
  /* long -> short -> long, the text passed being the one it holds */
  char out[TRESS_NAME_MAX];
  tress_instance_set_name(s, ids[3], "Short");
  tress_instance_get_name(s, ids[3], out);
  assert_string_equal(out, "Short");
  assert_true(tress_scene_get_memory_bytes(s) < with_long);
  tress_instance_set_name(s, ids[3], names[3]);
  tress_instance_get_name(s, ids[3], out);
  tress_instance_set_name(s, ids[3], out);
  tress_instance_get_name(s, ids[3], out);
  assert_string_equal(out, names[3]);
  assert_int_equal(tress_scene_get_memory_bytes(s), with_long);
  /* asset ids the same way, cut to TRESS_ASSET_ID_MAX - 1 */
  char asset[TRESS_ASSET_ID_MAX];
  tress_part_set_asset_id(s, ids[1], longest);
  tress_part_get_asset_id(s, ids[1], asset);
  assert_int_equal(strlen(asset), TRESS_ASSET_ID_MAX - 1);
  tress_part_set_asset_id(s, ids[1], "meshes/bob.glb");
  tress_part_get_asset_id(s, ids[1], asset);
  assert_string_equal(asset, "meshes/bob.glb");
  tress_part_set_asset_id(s, ids[2], longest);
  for (int k = 0; k < 5; k++) tress_instance_destroy(s, ids[k]);
  assert_int_equal(tress_scene_get_memory_bytes(s), before);
  tress_scene_destroy(s);
}

/* Joints live in a pool of their own: a destroyed joint's place is reused, and each keeps its
 * own def. */
static void test_joint_pool_reuses_places(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id root = tress_scene_get_root(s);
  tress_id keep = th_instance(s, TRESS_KIND_JOINT, "Keep", root);
  tress_joint def;
  assert_true(tress_joint_get_def(s, keep, &def));
  def.c0 = pos(1, 2, 3);
  tress_joint_set_def(s, keep, &def);
  size_t bytes = 0;
  for (int round = 0; round < 40; round++) {
    tress_id j = th_instance(s, TRESS_KIND_JOINT, "J", root);
    tress_joint fresh;
    assert_true(tress_joint_get_def(s, j, &fresh));
    assert_float_equal(fresh.c0.p[0], 0.0f, 0.0f); /* a reused place starts clean */
    fresh.c0 = pos(9, 9, 9);
    tress_joint_set_def(s, j, &fresh);
    tress_instance_destroy(s, j);
    if (round == 0) bytes = tress_scene_get_memory_bytes(s);
    assert_int_equal(tress_scene_get_memory_bytes(s), bytes);
  }
  assert_true(tress_joint_get_def(s, keep, &def));
  assert_float_equal(def.c0.p[1], 2.0f, 0.0f);
  tress_scene_destroy(s);
}

/* A part's cold fields (mesh, size, mesh size, asset id) live in a part pool, so a bone's slot is
 * the instance's hot part alone: 4096 instances (a part and bones filling the slots exactly) hold
 * under 156 bytes each, where one slot plus its two bone xforms used to take 240. The pool's
 * entries survive slot growth and the destruction of other parts, a reused entry starts clean,
 * and churn reuses entries instead of growing the pool. */
static void test_part_pool_keeps_bones_small(void **state) {
  (void)state;
  tress_scene *s = th_scene(); /* 64 slots: doubling reaches 4096 exactly */
  tress_id root = tress_scene_get_root(s);
  tress_mesh_def md = tress_default_mesh_def();
  md.vertex_count = 2;
  tress_mesh *m = tress_mesh_create(&md);
  assert_non_null(m);
  m->positions[3] = 1.0f, m->positions[4] = 2.0f, m->positions[5] = 3.0f;
  enum { PARTS = 8 };
  tress_id parts[PARTS];
  for (int k = 0; k < PARTS; k++) {
    parts[k] = th_instance(s, TRESS_KIND_PART, "P", root);
    const float size[3] = {(float)k, 1, 2};
    tress_part_set_size(s, parts[k], size);
    tress_part_set_cframe(s, parts[k], pos((float)k, 0, 0));
    char asset[64];
    snprintf(asset, sizeof asset, k % 2 ? "rbxassetid://%d" : "a much longer asset id past 15 bytes %d", k);
    tress_part_set_asset_id(s, parts[k], asset);
    if (k % 2) tress_part_set_mesh(s, parts[k], m);
  }
  for (uint32_t i = tress_scene_get_instance_count(s); i < 4096; i++)
    assert_false(tress_id_is_null(th_instance(s, TRESS_KIND_BONE, "Hair", parts[0])));
  assert_int_equal(tress_scene_get_instance_count(s), 4096);
  size_t bytes = tress_scene_get_memory_bytes(s);
  /* a slot: 80 bytes (a subtree walk needs no scratch); a bone's entry: its two xforms 64 and its
   * owner 4 */
  assert_true(bytes < 156u * 4096u);
  assert_true(bytes > 148u * 4096u); /* the slots and bone entries are counted */
  /* every other part goes; the rest keep their fields through the growth and the frees */
  for (int k = 0; k < PARTS; k += 2) tress_instance_destroy(s, parts[k]);
  for (int round = 0; round < 40; round++) {
    tress_id fresh = th_instance(s, TRESS_KIND_PART, "Q", root);
    float size[3], mesh_size[3];
    char asset[TRESS_ASSET_ID_MAX];
    tress_part_get_size(s, fresh, size);
    assert_true(size[0] == 1.0f && size[1] == 1.0f && size[2] == 1.0f); /* the def's, not a reused entry's */
    tress_part_get_mesh_size(s, fresh, mesh_size);
    assert_true(mesh_size[0] == 0.0f && mesh_size[1] == 0.0f && mesh_size[2] == 0.0f);
    assert_null(tress_part_get_mesh(s, fresh));
    tress_part_get_asset_id(s, fresh, asset);
    assert_string_equal(asset, "");
    tress_part_set_mesh(s, fresh, m);
    tress_part_set_asset_id(s, fresh, "another asset id well past 23 bytes");
    tress_instance_destroy(s, fresh);
    if (round == 0) bytes = tress_scene_get_memory_bytes(s);
    assert_int_equal(tress_scene_get_memory_bytes(s), bytes); /* the pool does not grow on churn */
  }
  assert_int_equal(m->refcount, 1 + PARTS / 2); /* the test's and the surviving odd parts' */
  for (int k = 1; k < PARTS; k += 2) {
    float size[3], mesh_size[3];
    char asset[TRESS_ASSET_ID_MAX], want[32];
    tress_part_get_size(s, parts[k], size);
    assert_true(size[0] == (float)k && size[1] == 1.0f && size[2] == 2.0f);
    tress_part_get_mesh_size(s, parts[k], mesh_size);
    assert_true(mesh_size[0] == 1.0f && mesh_size[1] == 2.0f && mesh_size[2] == 3.0f);
    assert_ptr_equal(tress_part_get_mesh(s, parts[k]), m);
    tress_part_get_asset_id(s, parts[k], asset);
    snprintf(want, sizeof want, "rbxassetid://%d", k);
    assert_string_equal(asset, want);
    assert_true(tress_xform_distance(tress_part_get_cframe(s, parts[k]), pos((float)k, 0, 0)) == 0.0f);
  }
  tress_scene_destroy(s); /* releases the surviving parts' mesh references */
  assert_int_equal(m->refcount, 1);
  tress_mesh_release(m);
}

/* The def: defaults, what each kind keeps of it, and the results of refused defs. */
static void test_instance_def(void **state) {
  (void)state;
  tress_instance_def d = tress_default_instance_def();
  assert_int_equal(d.kind, TRESS_KIND_FOLDER);
  assert_null(d.name);
  assert_true(tress_id_is_null(d.parent));
  assert_true(tress_xform_distance(d.cframe, tress_xform_identity()) == 0.0f);
  assert_true(d.size[0] == 1.0f && d.size[1] == 1.0f && d.size[2] == 1.0f);
  tress_scene *s = th_scene();
  tress_id folder;
  assert_int_equal(tress_scene_create_instance(s, &d, &folder), TRESS_OK);
  assert_int_equal(tress_instance_get_kind(s, folder), TRESS_KIND_FOLDER);
  assert_true(tress_id_is_equal(tress_instance_get_parent(s, folder), (tress_id){0})); /* detached */
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(s, folder, name);
  assert_string_equal(name, "");
  /* a part keeps cframe and size, a bone and an attachment their cframe */
  d.kind = TRESS_KIND_PART, d.name = "Head", d.parent = tress_scene_get_root(s);
  d.cframe = pos(1, 2, 3);
  d.size[1] = 4.0f;
  tress_id part;
  assert_int_equal(tress_scene_create_instance(s, &d, &part), TRESS_OK);
  assert_true(tress_xform_distance(tress_part_get_cframe(s, part), pos(1, 2, 3)) == 0.0f);
  float size[3];
  tress_part_get_size(s, part, size);
  assert_true(size[0] == 1.0f && size[1] == 4.0f && size[2] == 1.0f);
  d.kind = TRESS_KIND_BONE, d.name = "Bone", d.parent = part, d.cframe = pos(0, -1, 0);
  tress_id bone;
  assert_int_equal(tress_scene_create_instance(s, &d, &bone), TRESS_OK);
  assert_true(tress_xform_distance(tress_bone_get_cframe(s, bone), pos(0, -1, 0)) == 0.0f);
  assert_true(tress_xform_distance(tress_bone_get_animated(s, bone), tress_xform_identity()) == 0.0f);
  assert_true(tress_xform_distance(tress_bone_get_world_rest(s, bone), pos(1, 1, 3)) < 1e-6f);
  d.kind = TRESS_KIND_ATTACHMENT, d.cframe = pos(0, 0, 5);
  tress_id att;
  assert_int_equal(tress_scene_create_instance(s, &d, &att), TRESS_OK);
  assert_true(tress_xform_distance(tress_attachment_get_cframe(s, att), pos(0, 0, 5)) == 0.0f);
  /* out may be NULL */
  uint32_t before = tress_scene_get_instance_count(s);
  assert_int_equal(tress_scene_create_instance(s, &d, NULL), TRESS_OK);
  assert_int_equal(tress_scene_get_instance_count(s), before + 1);
  /* refused: *out is null and nothing is made */
  before = tress_scene_get_instance_count(s);
  tress_id refused = part;
  d.kind = TRESS_KIND_ROOT;
  assert_int_equal(tress_scene_create_instance(s, &d, &refused), TRESS_ERR_INVALID_ARGUMENT);
  assert_true(tress_id_is_null(refused));
  d.kind = (tress_kind)99;
  assert_int_equal(tress_scene_create_instance(s, &d, &refused), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_scene_create_instance(s, NULL, &refused), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_scene_create_instance(NULL, &d, &refused), TRESS_ERR_INVALID_ARGUMENT);
  d.kind = TRESS_KIND_BONE;
  tress_instance_destroy(s, att);
  d.parent = att;
  assert_int_equal(tress_scene_create_instance(s, &d, &refused), TRESS_ERR_STALE_ID);
  assert_true(tress_id_is_null(refused));
  assert_int_equal(tress_scene_get_instance_count(s), before - 1); /* only the destroy */
  tress_scene_destroy(s);
}

static void test_stale_ids_are_detected(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id a = th_instance(s, TRESS_KIND_PART, "A", tress_scene_get_root(s));
  assert_true(tress_instance_is_valid(s, a));
  tress_instance_destroy(s, a);
  assert_false(tress_instance_is_valid(s, a));
  /* the slot is reused with a new generation: the old id stays dead */
  tress_id b = th_instance(s, TRESS_KIND_PART, "B", tress_scene_get_root(s));
  assert_int_equal(a.index1, b.index1);
  assert_int_not_equal(a.generation, b.generation);
  assert_false(tress_instance_is_valid(s, a));
  char name[TRESS_NAME_MAX] = "x";
  tress_instance_get_name(s, a, name);
  assert_string_equal(name, "");
  tress_part_set_cframe(s, a, pos(1, 2, 3)); /* a write through a stale id is ignored */
  assert_true(tress_xform_distance(tress_part_get_cframe(s, b), tress_xform_identity()) == 0.0f);
  tress_id zero = {0};
  assert_false(tress_instance_is_valid(s, zero));
  tress_scene_destroy(s);
}

/* Two scenes hand out ids for the same slots; each refuses the other's, so a call never reaches
 * the instance that happens to live in that slot here. */
static void test_ids_from_another_scene_are_refused(void **state) {
  (void)state;
  tress_scene *a = th_scene();
  tress_scene *b = th_scene();
  tress_id pa = th_instance(a, TRESS_KIND_PART, "PA", tress_scene_get_root(a));
  tress_id pb = th_instance(b, TRESS_KIND_PART, "PB", tress_scene_get_root(b));
  assert_int_equal(pa.index1, pb.index1); /* same slot, same generation: only the owner differs */
  assert_int_equal(pa.generation, pb.generation);
  assert_int_not_equal(pa.owner, pb.owner);
  assert_false(tress_id_is_equal(pa, pb));
  assert_true(tress_instance_is_valid(a, pa));
  assert_false(tress_instance_is_valid(a, pb));
  assert_false(tress_instance_is_valid(b, pa));
  assert_false(tress_instance_is_valid(a, tress_scene_get_root(b)));

  /* reads through a foreign id see nothing; writes change nothing */
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(a, pb, name);
  assert_string_equal(name, "");
  tress_part_set_cframe(a, pb, pos(5, 6, 7));
  tress_instance_set_name(a, pb, "Renamed");
  assert_true(tress_xform_distance(tress_part_get_cframe(a, pa), tress_xform_identity()) == 0.0f);
  tress_instance_get_name(a, pa, name);
  assert_string_equal(name, "PA");
  assert_true(tress_xform_distance(tress_part_get_cframe(b, pb), tress_xform_identity()) == 0.0f);

  /* no parenting, child lookups or connections across scenes */
  tress_instance_def across = tress_default_instance_def();
  across.kind = TRESS_KIND_BONE;
  across.parent = pb;
  tress_id refused = tress_scene_get_root(a);
  assert_int_equal(tress_scene_create_instance(a, &across, &refused), TRESS_ERR_WRONG_OWNER);
  assert_true(tress_id_is_null(refused));
  assert_false(tress_instance_set_parent(a, pa, tress_scene_get_root(b)));
  assert_true(tress_id_is_null(tress_instance_get_parent(a, pb)));
  tress_connection c = tress_instance_connect(a, pb, NULL, NULL);
  assert_int_equal(c.index1, 0);

  /* destroying through a foreign id leaves both instances alive */
  uint32_t before = tress_scene_get_instance_count(a);
  tress_instance_destroy(a, pb);
  assert_int_equal(tress_scene_get_instance_count(a), before);
  assert_true(tress_instance_is_valid(a, pa));
  assert_true(tress_instance_is_valid(b, pb));

  /* a joint in a that names b's parts solves nothing */
  tress_id joint = th_instance(a, TRESS_KIND_JOINT, "W", pa);
  tress_joint def = {.kind = TRESS_JOINT_WELD, .part0 = pa, .part1 = pb, .c0 = pos(0, 1, 0),
                     .c1 = tress_xform_identity(), .enabled = true};
  tress_joint_set_def(a, joint, &def);
  assert_false(tress_joint_solve(a, joint));
  tress_joint got;
  assert_false(tress_joint_get_def(b, joint, &got));
  assert_true(tress_joint_get_def(a, joint, &got));
  assert_true(tress_id_is_equal(got.part1, pb));
  assert_true(tress_xform_distance(tress_part_get_cframe(b, pb), tress_xform_identity()) == 0.0f);
  tress_scene_destroy(a);
  tress_scene_destroy(b);
}

/* A scene made where a destroyed one lived gets a new tag: ids kept from the old scene fail. */
static void test_ids_kept_from_a_destroyed_scene_are_refused(void **state) {
  (void)state;
  tress_scene *old = th_scene();
  tress_id kept = th_instance(old, TRESS_KIND_PART, "Old", tress_scene_get_root(old));
  tress_scene_destroy(old);
  tress_scene *s = th_scene();
  tress_id fresh = th_instance(s, TRESS_KIND_PART, "New", tress_scene_get_root(s));
  assert_int_equal(kept.index1, fresh.index1);
  assert_false(tress_instance_is_valid(s, kept));
  assert_true(tress_instance_is_valid(s, fresh));
  tress_scene_destroy(s);
}

typedef struct {
  int destroying;
  int ancestry;
  tress_id seen[8];
} events;

static void count_events(tress_scene *s, tress_id id, tress_event ev, void *user) {
  (void)s;
  events *e = user;
  if (ev == TRESS_EVENT_DESTROYING) {
    if (e->destroying < 8) e->seen[e->destroying] = id;
    e->destroying++;
  } else {
    e->ancestry++;
  }
}

static void test_destroy_fires_on_the_whole_subtree(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id model = th_instance(s, TRESS_KIND_MODEL, "M", tress_scene_get_root(s));
  tress_id part = th_instance(s, TRESS_KIND_PART, "P", model);
  tress_id bone = th_instance(s, TRESS_KIND_BONE, "B", part);
  events e = {0};
  tress_instance_connect(s, model, count_events, &e);
  tress_instance_connect(s, bone, count_events, &e);
  uint32_t before = tress_scene_get_instance_count(s);
  tress_instance_destroy(s, model);
  assert_int_equal(e.destroying, 2);
  assert_true(tress_id_is_equal(e.seen[0], model));
  assert_true(tress_id_is_equal(e.seen[1], bone));
  assert_false(tress_instance_is_valid(s, part));
  assert_false(tress_instance_is_valid(s, bone));
  assert_int_equal(tress_scene_get_instance_count(s), before - 3);
  tress_scene_destroy(s);
}

static void test_disconnected_listener_is_silent(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id a = th_instance(s, TRESS_KIND_PART, "A", tress_scene_get_root(s));
  events e = {0};
  tress_connection c = tress_instance_connect(s, a, count_events, &e);
  tress_connection_disconnect(s, c);
  tress_connection_disconnect(s, c); /* twice is harmless */
  tress_instance_destroy(s, a);
  assert_int_equal(e.destroying, 0);
  tress_scene_destroy(s);
}

static void test_left_the_scene(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id folder = th_instance(s, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(s));
  tress_id model = th_instance(s, TRESS_KIND_MODEL, "M", folder);
  tress_id part = th_instance(s, TRESS_KIND_PART, "P", model);
  events e = {0};
  tress_instance_connect(s, part, count_events, &e);
  assert_true(tress_instance_is_in_scene(s, part));
  /* an ancestor detaches: the part left the scene without being destroyed */
  assert_true(tress_instance_set_parent(s, folder, (tress_id){0}));
  assert_int_equal(e.ancestry, 1);
  assert_false(tress_instance_is_in_scene(s, part));
  assert_true(tress_instance_is_valid(s, part));
  assert_true(tress_instance_set_parent(s, folder, tress_scene_get_root(s)));
  assert_true(tress_instance_is_in_scene(s, part));
  /* cycles and the root are refused */
  assert_false(tress_instance_set_parent(s, folder, part));
  assert_false(tress_instance_set_parent(s, tress_scene_get_root(s), folder));
  tress_scene_destroy(s);
}

static void test_bone_slots_and_world_poses(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id part = th_instance(s, TRESS_KIND_PART, "Head", tress_scene_get_root(s));
  tress_part_set_cframe(s, part, pos(0, 10, 0));
  tress_id b1 = th_instance(s, TRESS_KIND_BONE, "B1", part);
  tress_id b2 = th_instance(s, TRESS_KIND_BONE, "B2", b1);
  tress_bone_set_cframe(s, b1, pos(0, -1, 0));
  tress_bone_set_cframe(s, b2, pos(0, -1, 0));
  /* animated shows in transform while no solver owns the bone */
  float axis[3] = {0, 0, 1};
  tress_xform turn = tress_xform_from_axis_angle(axis, 1.5707963f);
  tress_bone_set_animated(s, b1, turn);
  assert_true(tress_xform_distance(tress_bone_get_transform(s, b1), turn) == 0.0f);
  tress_xform rest = tress_bone_get_world_rest(s, b2);
  assert_true(tress_xform_distance(rest, pos(0, 8, 0)) < 1e-6f);
  tress_xform drawn = tress_bone_get_world(s, b2);
  /* b1 turned 90 degrees about z: b2 hangs along +x */
  assert_true(fabsf(drawn.p[0] - 1.0f) < 1e-5f && fabsf(drawn.p[1] - 9.0f) < 1e-5f);
  /* a simulated bone keeps its transform: animation is input only */
  tress_bone_set_simulated(s, b1, true);
  tress_bone_set_transform(s, b1, tress_xform_identity());
  tress_bone_set_animated(s, b1, turn);
  assert_true(tress_xform_distance(tress_bone_get_transform(s, b1), tress_xform_identity()) == 0.0f);
  assert_true(tress_xform_distance(tress_bone_get_animated(s, b1), turn) == 0.0f);
  tress_xform anim = tress_bone_get_world_animated(s, b2);
  assert_true(fabsf(anim.p[0] - 1.0f) < 1e-5f);
  tress_scene_destroy(s);
}

static void test_joints_place_part1(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id head = th_instance(s, TRESS_KIND_PART, "Head", tress_scene_get_root(s));
  tress_id handle = th_instance(s, TRESS_KIND_PART, "Handle", tress_scene_get_root(s));
  tress_part_set_cframe(s, head, pos(0, 5, 0));
  tress_id weld = th_instance(s, TRESS_KIND_JOINT, "Weld", handle);
  tress_joint j = {.kind = TRESS_JOINT_WELD, .part0 = head, .part1 = handle, .c0 = pos(0, 1, 0), .c1 = pos(0, -0.5f, 0), .enabled = true};
  tress_joint_set_def(s, weld, &j);
  assert_true(tress_joint_solve(s, weld));
  /* part0 * c0 == part1 * c1 */
  tress_xform lhs = tress_xform_mul(tress_part_get_cframe(s, head), j.c0);
  tress_xform rhs = tress_xform_mul(tress_part_get_cframe(s, handle), j.c1);
  assert_true(tress_xform_distance(lhs, rhs) < 1e-6f);
  /* a WeldConstraint keeps the offset captured when it was enabled */
  tress_id other = th_instance(s, TRESS_KIND_PART, "Other", tress_scene_get_root(s));
  tress_part_set_cframe(s, other, pos(3, 5, 0));
  tress_id wc = th_instance(s, TRESS_KIND_JOINT, "WC", other);
  tress_joint wj = {.kind = TRESS_JOINT_WELD_CONSTRAINT, .part0 = head, .part1 = other, .enabled = true};
  tress_joint_set_def(s, wc, &wj);
  tress_part_set_cframe(s, head, pos(0, 7, 0));
  tress_scene_solve_joints(s);
  assert_true(tress_xform_distance(tress_part_get_cframe(s, other), pos(3, 7, 0)) < 1e-6f);
  /* disabled joints move nothing */
  tress_joint_set_enabled(s, weld, false);
  tress_xform held = tress_part_get_cframe(s, handle);
  tress_part_set_cframe(s, head, pos(0, 0, 0));
  assert_false(tress_joint_solve(s, weld));
  assert_true(tress_xform_distance(tress_part_get_cframe(s, handle), held) == 0.0f);
  tress_scene_destroy(s);
}

/* tress_scene_solve_joints runs joints in creation order, which their pool order is not: a joint
 * made after another takes the pool entry (and slot) that an earlier, destroyed one left. Here
 * P2 hangs from P1 by a weld made first and P1 from P0 by one made second, so one solve leaves P2
 * a frame behind P1; remade, the P1-P2 weld is the newer one and P2 follows in the same solve. */
static void test_joints_solve_in_creation_order(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id root = tress_scene_get_root(s);
  tress_id p0 = th_instance(s, TRESS_KIND_PART, "P0", root), p1 = th_instance(s, TRESS_KIND_PART, "P1", root),
           p2 = th_instance(s, TRESS_KIND_PART, "P2", root);
  tress_joint to_p2 = {.kind = TRESS_JOINT_WELD, .part0 = p1, .part1 = p2, .c0 = pos(0, -1, 0), .c1 = pos(0, 0, 0), .enabled = true};
  tress_joint to_p1 = {.kind = TRESS_JOINT_WELD, .part0 = p0, .part1 = p1, .c0 = pos(0, -1, 0), .c1 = pos(0, 0, 0), .enabled = true};
  tress_id first = th_instance(s, TRESS_KIND_JOINT, "W12", root);
  tress_joint_set_def(s, first, &to_p2);
  tress_id second = th_instance(s, TRESS_KIND_JOINT, "W01", root);
  tress_joint_set_def(s, second, &to_p1);
  tress_scene_solve_joints(s); /* P1 at -1, P2 at -2 */
  tress_part_set_cframe(s, p0, pos(0, 10, 0));
  tress_scene_solve_joints(s); /* P2 from P1's old place, then P1 */
  assert_true(tress_xform_distance(tress_part_get_cframe(s, p1), pos(0, 9, 0)) < 1e-6f);
  assert_true(tress_xform_distance(tress_part_get_cframe(s, p2), pos(0, -2, 0)) < 1e-6f);
  tress_instance_destroy(s, first);
  tress_id remade = th_instance(s, TRESS_KIND_JOINT, "W12", root); /* first's pool entry and slot */
  assert_int_equal(remade.index1, first.index1);
  tress_joint_set_def(s, remade, &to_p2);
  tress_part_set_cframe(s, p0, pos(0, 20, 0));
  tress_scene_solve_joints(s); /* P1, then P2 from P1's new place */
  assert_true(tress_xform_distance(tress_part_get_cframe(s, p1), pos(0, 19, 0)) < 1e-6f);
  assert_true(tress_xform_distance(tress_part_get_cframe(s, p2), pos(0, 18, 0)) < 1e-6f);
  tress_scene_destroy(s);
}

static void test_part_owns_its_mesh(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id part = th_instance(s, TRESS_KIND_PART, "P", tress_scene_get_root(s));
  assert_null(tress_mesh_create(NULL));
  tress_mesh_def def = tress_default_mesh_def();
  def.vertex_count = 2;
  tress_mesh *m = tress_mesh_create(&def);
  assert_int_equal(m->vertex_count, 2);
  assert_null(m->normals); /* the defaults ask for positions only */
  assert_null(m->indices);
  m->positions[3] = 2.0f; m->positions[4] = 4.0f; m->positions[5] = 6.0f;
  tress_part_set_mesh(s, part, m);
  assert_int_equal(m->refcount, 2);
  float size[3];
  tress_part_get_mesh_size(s, part, size);
  assert_true(size[0] == 2.0f && size[1] == 4.0f && size[2] == 6.0f);
  tress_instance_destroy(s, part); /* the part's reference goes with it */
  assert_int_equal(m->refcount, 1);
  tress_mesh_release(m);
  tress_scene_destroy(s);
}

/* Scale: a Model at scale 2 places its part's bones and attachments at twice their offsets (the
 * part's own cframe stays world), composed scales multiply, non-uniform ones are reported, and
 * bad values are refused. */
static void test_scale_places_bones_at_size(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id model = th_instance(s, TRESS_KIND_MODEL, "Character", tress_scene_get_root(s));
  tress_id part = th_instance(s, TRESS_KIND_PART, "Head", model);
  tress_part_set_cframe(s, part, tress_xform_from_pos(1, 2, 3));
  tress_id bone = th_instance(s, TRESS_KIND_BONE, "Hair", part);
  tress_bone_set_cframe(s, bone, tress_xform_from_pos(0, 0.5f, 0));
  tress_id tip = th_instance(s, TRESS_KIND_BONE, "Tip", bone);
  tress_bone_set_cframe(s, tip, tress_xform_from_pos(0.3f, 0, 0));
  tress_bone_set_transform(s, tip, tress_xform_from_pos(0.1f, 0, 0));
  tress_id att = th_instance(s, TRESS_KIND_ATTACHMENT, "Hat", part);
  tress_attachment_set_cframe(s, att, tress_xform_from_pos(0, 1, 0));
  const float twice[3] = {2, 2, 2}, squashed[3] = {1, 3, 1}, bad[3] = {1, 0, 1};
  assert_true(tress_instance_set_scale(s, model, twice));
  assert_false(tress_instance_set_scale(s, model, bad));
  tress_xform w = tress_bone_get_world(s, tip);
  assert_float_equal(w.p[0], 1.0f + 2.0f * 0.4f, 1e-6f);
  assert_float_equal(w.p[1], 2.0f + 2.0f * 0.5f, 1e-6f);
  assert_float_equal(tress_attachment_get_world(s, att).p[1], 2.0f + 2.0f, 1e-6f);
  assert_float_equal(tress_part_get_cframe(s, part).p[1], 2.0f, 0.0f);
  /* a bone's own scale scales what hangs below it */
  assert_true(tress_instance_set_scale(s, bone, twice));
  float k[3];
  assert_true(tress_instance_get_world_scale(s, tip, k));
  assert_float_equal(k[0], 4.0f, 0.0f);
  assert_float_equal(tress_bone_get_world(s, tip).p[0], 1.0f + 4.0f * 0.4f, 1e-6f);
  assert_true(tress_instance_set_scale(s, bone, squashed));
  assert_false(tress_instance_get_world_scale(s, tip, k));
  tress_scene_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stale_ids_are_detected),   cmocka_unit_test(test_ids_from_another_scene_are_refused),
      cmocka_unit_test(test_ids_kept_from_a_destroyed_scene_are_refused),   cmocka_unit_test(test_destroy_fires_on_the_whole_subtree),
      cmocka_unit_test(test_disconnected_listener_is_silent), cmocka_unit_test(test_left_the_scene),
      cmocka_unit_test(test_bone_slots_and_world_poses), cmocka_unit_test(test_joints_place_part1),
      cmocka_unit_test(test_joints_solve_in_creation_order), cmocka_unit_test(test_part_owns_its_mesh), cmocka_unit_test(test_scale_places_bones_at_size),
      cmocka_unit_test(test_instance_def), cmocka_unit_test(test_scene_def_capacities),
      cmocka_unit_test(test_part_capacity),
      cmocka_unit_test(test_bone_capacity),
      cmocka_unit_test(test_scales_and_listeners_beside_the_slots),
      cmocka_unit_test(test_first_joint_solve_allocates_nothing),
      cmocka_unit_test(test_long_and_short_texts), cmocka_unit_test(test_joint_pool_reuses_places),
      cmocka_unit_test(test_part_pool_keeps_bones_small),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
