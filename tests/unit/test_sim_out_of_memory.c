/* test_sim_out_of_memory.c - the sim survives running out of memory anywhere. The library's
 * malloc, calloc and realloc go through this file's wrappers (linked with -Wl,--wrap, so it works
 * under ASan too, whose allocator sits behind __real_*), and the test runs one scene over and over,
 * the Nth allocation failing on run N, until a run makes no more allocations than N. In every run
 * each call either works or says TRESS_ERR_OUT_OF_MEMORY (sim create: NULL), nothing crashes, and
 * once memory is back the same sim binds what it refused, moves every chain, finite, and drops
 * each handle whose root is destroyed. The
 * sanitizer build adds: no leak and no bad access on any of those failure paths. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

#include "tress/rope.h"
#include "tress/spring_import.h"

#include "support/accessory_fixture.h"
#include "support/job_pool.h"
#include "support/sim_fixture.h"
#include "support/scene_build.h"

/* The injection is test state, one per executable. */
static atomic_long alloc_calls; /* allocations seen while armed (workers' too) */
static long alloc_fail_at; /* the one that fails (-1: none) */
static bool alloc_fail_after; /* every one from alloc_fail_at on fails too: memory stays out */
static bool alloc_armed;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static bool alloc_fails(void) {
  if (!alloc_armed) return false;
  long call = atomic_fetch_add(&alloc_calls, 1);
  return alloc_fail_at >= 0 && (call == alloc_fail_at || (alloc_fail_after && call > alloc_fail_at));
}
void *__wrap_malloc(size_t n) { return alloc_fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return alloc_fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return alloc_fails() ? NULL : __real_realloc(p, n); }

static void ok_or_oom_at(tress_result r, const char *call) {
  if (r != TRESS_OK && r != TRESS_ERR_OUT_OF_MEMORY)
    fail_msg("%s: %s (allocation %ld failed%s)", call, tress_result_name(r), alloc_fail_at, alloc_fail_after ? ", and every one after" : "");
}
#define ok_or_oom(call) ok_or_oom_at((call), #call)

enum { CHAINS = 4 };

typedef struct scene_under_test {
  tress_scene *scene;
  fix_chain chain[CHAINS];
  tress_handle_id handle[CHAINS];
  tress_chain_settings settings[CHAINS];
} scene_under_test;

/* Four chains: the pose model with a sphere, the VRM model, the VRM model with a plane and gusts,
 * and a weighted one bound after the second is unbound. */
static void bind_chain(tress_sim *sim, scene_under_test *t, int k) {
  ok_or_oom(tress_sim_bind(sim, t->chain[k].part, &t->settings[k], &t->handle[k]));
}

/* One run with allocation fail_at failing (-1: none), and with after every later one as well;
 * returns the allocations it made. */
static long run_once(long fail_at, bool after) {
  scene_under_test t;
  memset(&t, 0, sizeof t);
  tress_scene_def scene_def = tress_default_scene_def();
  scene_def.listener_capacity = 1; /* the sim's handles grow the listeners: that can fail too */
  t.scene = tress_scene_create(&scene_def);
  assert_non_null(t.scene);
  for (int k = 0; k < CHAINS; k++) {
    t.chain[k] = fix_chain_make(t.scene, (float)k * 2.0f, 5, 0, 3 + k, 0.4f);
    t.settings[k] = tress_default_chain_settings();
  }
  t.settings[1].model = t.settings[2].model = TRESS_SPRING_VRM;
  t.settings[2].wind_gust = 0.5f;
  t.settings[3].weight = 0.5f;
  tress_sim_def def = tress_default_sim_def();
  def.scene = t.scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;

  atomic_store(&alloc_calls, 0);
  alloc_fail_at = fail_at;
  alloc_fail_after = after;
  alloc_armed = true;
  tress_sim *sim = tress_sim_create(&def);
  if (!sim) {
    alloc_armed = false;
    assert_true(fail_at >= 0); /* only an injected failure refuses a sim */
    tress_scene_destroy(t.scene);
    return atomic_load(&alloc_calls);
  }
  tress_collider_def sphere = tress_default_collider_def();
  sphere.attach = t.chain[0].part;
  sphere.offset[1] = -0.5f;
  sphere.radius = 0.3f;
  const float plane_at[3] = {-0.5f, 0.0f, 0.0f}, plane_faces[3] = {1.0f, 0.0f, 0.0f};
  tress_collider_def plane = tress_collider_plane(t.chain[2].part, plane_at, plane_faces);
  tress_collider_id ids[2] = {{0}, {0}};
  ok_or_oom(tress_sim_create_collider(sim, &sphere, &ids[0]));
  ok_or_oom(tress_sim_create_collider(sim, &plane, &ids[1]));
  if (!tress_collider_is_null(ids[0])) t.settings[0].colliders[t.settings[0].collider_count++] = ids[0];
  if (!tress_collider_is_null(ids[1])) t.settings[2].colliders[t.settings[2].collider_count++] = ids[1];
  for (int k = 0; k < 3; k++) bind_chain(sim, &t, k);
  for (int i = 0; i < 5; i++) ok_or_oom(tress_sim_step(sim, 1.0 / 60.0));
  if (!tress_handle_is_null(t.handle[1])) tress_handle_destroy(sim, t.handle[1]);
  t.handle[1] = (tress_handle_id){0};
  bind_chain(sim, &t, 3);
  for (int i = 0; i < 5; i++) ok_or_oom(tress_sim_step(sim, 1.0 / 60.0));
  alloc_armed = false;
  long made = atomic_load(&alloc_calls);

  /* memory is back: what was refused binds now, and every chain moves */
  for (int k = 0; k < CHAINS; k++)
    if (tress_handle_is_null(t.handle[k])) assert_int_equal(tress_sim_bind(sim, t.chain[k].part, &t.settings[k], &t.handle[k]), TRESS_OK);
  for (int k = 0; k < CHAINS; k++) tress_part_set_cframe(t.scene, t.chain[k].part, tress_xform_from_pos((float)k * 2.0f + 1.0f, 5, 0));
  fix_run(sim, 1.0 / 60.0, 20);
  for (int k = 0; k < CHAINS; k++) {
    fix_assert_finite(t.scene, &t.chain[k]);
    assert_true(fix_swung(t.scene, t.chain[k].bones[1]));
  }
  /* every handle hears its root go, however its bind went */
  for (int k = 0; k < CHAINS; k++) {
    tress_instance_destroy(t.scene, t.chain[k].part);
    assert_false(tress_handle_is_valid(sim, t.handle[k]));
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(t.scene);
  return made;
}

/* The other writers on two workers: an accessory pendulum, a rope, a cloth and a chain, the
 * rope unbound halfway. Same rules as run_once. */
static long run_writers_once(long fail_at, bool after) {
  acc_character ch = acc_character_make();
  acc_worn worn = acc_wear(&ch, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  fix_chain chain = fix_chain_make(ch.scene, 4, 5, 0, 4, 0.4f);
  tress_rope_def rope = tress_default_rope_def();
  rope.start = (tress_rope_pin){.pinned = true, .position = {0, 0, 0}};
  rope.end = (tress_rope_pin){.pinned = false, .position = {10, 0, 0}};
  rope.segments = 8;
  const tress_cloth_pin pins[2] = {{0, {0, 0}}, {5, {0, 0}}};
  tress_cloth_def cloth = tress_default_cloth_def();
  cloth.width = cloth.height = 6;
  cloth.pins = pins;
  cloth.pin_count = 2;
  job_pool *pool = job_pool_create(2);
  assert_non_null(pool);
  tress_sim_def def = tress_default_sim_def();
  def.scene = ch.scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  def.jobs = job_pool_jobs(pool);

  atomic_store(&alloc_calls, 0);
  alloc_fail_at = fail_at;
  alloc_fail_after = after;
  alloc_armed = true;
  tress_sim *sim = tress_sim_create(&def);
  tress_handle_id acc = {0}, rh = {0}, ch_h = {0}, cl = {0};
  if (sim) {
    ok_or_oom(tress_sim_bind_accessory(sim, worn.accessory, NULL, &acc));
    ok_or_oom(tress_sim_bind_rope(sim, &rope, &rh, NULL));
    ok_or_oom(tress_sim_bind_cloth(sim, &cloth, &cl, NULL));
    ok_or_oom(tress_sim_bind(sim, chain.part, NULL, &ch_h));
    for (int i = 0; i < 5; i++) ok_or_oom(tress_sim_step(sim, 1.0 / 60.0));
    if (!tress_handle_is_null(rh)) tress_handle_destroy(sim, rh);
    for (int i = 0; i < 5; i++) ok_or_oom(tress_sim_step(sim, 1.0 / 60.0));
  }
  alloc_armed = false;
  long made = atomic_load(&alloc_calls);
  if (!sim) {
    assert_true(fail_at >= 0);
  } else {
    if (tress_handle_is_null(acc)) assert_int_equal(tress_sim_bind_accessory(sim, worn.accessory, NULL, &acc), TRESS_OK);
    if (tress_handle_is_null(cl)) assert_int_equal(tress_sim_bind_cloth(sim, &cloth, &cl, NULL), TRESS_OK);
    if (tress_handle_is_null(ch_h)) assert_int_equal(tress_sim_bind(sim, chain.part, NULL, &ch_h), TRESS_OK);
    assert_int_equal(tress_sim_bind_rope(sim, &rope, &rh, NULL), TRESS_OK);
    tress_part_set_cframe(ch.scene, chain.part, tress_xform_from_pos(5, 5, 0));
    fix_run(sim, 1.0 / 60.0, 20);
    fix_assert_finite(ch.scene, &chain);
    assert_true(fix_swung(ch.scene, chain.bones[1]));
    float points[3 * 9];
    uint32_t n = 0;
    assert_int_equal(tress_rope_get_points(sim, rh, points, 9, &n), TRESS_OK);
    assert_int_equal(n, 9);
    for (uint32_t k = 0; k < 3 * n; k++) assert_true(isfinite(points[k]));
    assert_true(points[3 * 8 + 1] < -0.5f); /* the free end fell */
    tress_sim_destroy(sim);
  }
  job_pool_destroy(pool);
  tress_scene_destroy(ch.scene);
  return made;
}

static void test_writers_on_workers(void **state) {
  (void)state;
  long total = run_writers_once(-1, false);
  assert_true(total > 20);
  for (long n = 0; n < total; n++) {
    run_writers_once(n, false);
    run_writers_once(n, true);
  }
  print_message("%ld allocations, each failed once and for good\n", total);
}

static void count_event(tress_scene *scene, tress_id id, tress_event event, void *user) {
  (void)scene;
  (void)id;
  if (event == TRESS_EVENT_DESTROYING) (*(int *)user)++;
}

/* The scene's events: an instance with more listeners than fit the event's stack snapshot
 * tells every one of them it is going, whichever allocation fails. */
static void test_every_listener_hears_a_destroy(void **state) {
  (void)state;
  enum { LISTENERS = 40 };
  for (long n = 0; n < 8; n++) {
    tress_scene *scene = th_scene();
    tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
    int heard = 0;
    for (int k = 0; k < LISTENERS; k++)
      assert_int_not_equal(tress_instance_connect(scene, part, count_event, &heard).index1, 0);
    atomic_store(&alloc_calls, 0);
    alloc_fail_at = n;
    alloc_fail_after = true;
    alloc_armed = true;
    tress_instance_destroy(scene, part);
    alloc_armed = false;
    /* the subtree list failing destroys nothing; anything else tells all of them */
    if (tress_instance_is_valid(scene, part)) {
      assert_int_equal(heard, 0);
      tress_instance_destroy(scene, part);
    }
    assert_int_equal(heard, LISTENERS);
    tress_scene_destroy(scene);
  }
}

static void test_every_allocation_can_fail(void **state) {
  (void)state;
  long total = run_once(-1, false);
  assert_true(total > 20); /* the scene does allocate: the loop below covers every one */
  for (long n = 0; n < total; n++) run_once(n, false);
  print_message("%ld allocations, each failed once\n", total);
}

/* Memory runs out at allocation n and stays out until the scene's calls are over. */
static void test_memory_that_stays_out(void **state) {
  (void)state;
  long total = run_once(-1, false);
  for (long n = 0; n < total; n++) run_once(n, true);
}

/* ---- a spring import applied to a scene ---- */

static bool count_bone(tress_scene *scene, tress_id id, void *user) {
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE) (*(uint32_t *)user)++;
  return true;
}

/* Bones under `part` with this name. */
typedef struct named {
  const char *name;
  uint32_t count;
} named;

static bool count_named(tress_scene *scene, tress_id id, void *user) {
  named *k = user;
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(scene, id, name);
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE && strcmp(name, k->name) == 0) k->count++;
  return true;
}

enum { IMPORT_NODES = 5 };
static const char *const import_names[IMPORT_NODES] = {"Head", "Hair0", "Hair1", "Hair2", "HeadSphere"};

/* Head (already a bone of the part: the rig has part of the skeleton), a three-joint chain
 * under it and a sphere collider on a node of its own: apply builds four bones and finds one. */
static int apply_once(long fail_at, bool after, long *allocations) {
  tress_scene_def def = tress_default_scene_def();
  def.instance_capacity = 4; /* the bones apply makes grow the scene: that can fail too */
  tress_scene *scene = tress_scene_create(&def);
  assert_non_null(scene);
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Hair", tress_scene_get_root(scene));
  tress_id head = th_instance(scene, TRESS_KIND_BONE, "Head", part);
  tress_spring_node nodes[IMPORT_NODES];
  memset(nodes, 0, sizeof nodes);
  const int32_t parent[IMPORT_NODES] = {-1, 0, 1, 2, 0};
  for (int i = 0; i < IMPORT_NODES; i++) {
    snprintf(nodes[i].name, sizeof nodes[i].name, "%s", import_names[i]);
    nodes[i].parent = parent[i];
    nodes[i].local = tress_xform_from_pos(0.0f, -0.1f, 0.0f);
    nodes[i].scale = 1.0f;
  }
  int32_t joints[3] = {1, 2, 3};
  tress_spring_chain chain = {.root = 1, .joint_count = 3, .joints = joints, .center = -1};
  tress_spring_collider collider = {.shape = TRESS_COLLIDER_SPHERE, .node = 4, .radius = 0.1f};
  tress_spring_import imp = {.nodes = nodes, .node_count = IMPORT_NODES, .chains = &chain, .chain_count = 1,
                             .colliders = &collider, .collider_count = 1, .units_per_metre = 1.0f};
  uint32_t instances = tress_scene_get_instance_count(scene);
  tress_spring_scene ss;
  tress_error err = {0};
  atomic_store(&alloc_calls, 0);
  alloc_fail_at = fail_at;
  alloc_fail_after = after;
  alloc_armed = true;
  int rc = tress_spring_import_apply(&imp, scene, part, &ss, &err);
  alloc_armed = false;
  *allocations = atomic_load(&alloc_calls);
  if (rc != 0) {
    /* out of memory, said so, and the scene as it was */
    assert_int_equal(rc, TRESS_ERR_OUT_OF_MEMORY);
    assert_int_equal(err.code, TRESS_ERR_OUT_OF_MEMORY);
    assert_int_equal(tress_scene_get_instance_count(scene), instances);
    assert_null(ss.node_bones);
    /* with memory back, the same apply works */
    assert_int_equal(tress_spring_import_apply(&imp, scene, part, &ss, &err), 0);
  }
  assert_true(tress_id_is_equal(ss.node_bones[0], head)); /* found, not made again */
  for (int i = 1; i < IMPORT_NODES; i++) assert_false(tress_id_is_null(ss.node_bones[i]));
  assert_true(tress_id_is_equal(ss.colliders[0].attach, ss.node_bones[4]));
  assert_int_equal(tress_scene_get_instance_count(scene), instances + 4);
  uint32_t bones = 0;
  assert_int_equal(tress_instance_visit_descendants(scene, part, count_bone, &bones), TRESS_OK);
  assert_int_equal(bones, IMPORT_NODES);
  for (int i = 0; i < IMPORT_NODES; i++) {
    named k = {import_names[i], 0};
    tress_instance_visit_descendants(scene, part, count_named, &k);
    assert_int_equal(k.count, 1); /* never a second bone of a name */
  }
  tress_spring_scene_free(&ss);
  tress_scene_destroy(scene);
  return rc;
}

/* Every allocation of tress_spring_import_apply fails in turn, once and for good: each failure
 * says out of memory and leaves the scene as it was (the bones it had made are taken back). */
static void test_spring_apply_out_of_memory(void **state) {
  (void)state;
  long total = 0, seen = 0;
  assert_int_equal(apply_once(-1, false, &total), 0);
  assert_true(total >= 4); /* its own buffers, the scene's growth, the name lookups' */
  int failures = 0;
  for (int after = 0; after < 2; after++)
    for (long n = 0; n < total; n++) failures += apply_once(n, after, &seen) != 0;
  assert_true(failures >= (int)total); /* every allocation of the first run was made to fail */
  print_message("%ld allocations in an apply, each failed once and for good\n", total);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_listener_hears_a_destroy),
      cmocka_unit_test(test_every_allocation_can_fail),
      cmocka_unit_test(test_memory_that_stays_out),
      cmocka_unit_test(test_writers_on_workers),
      cmocka_unit_test(test_spring_apply_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
