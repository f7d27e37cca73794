/* test_hair_manager.c - the client manager (HairKit.attach): one deadline per character re-armed
 * by each accessory, rigs on a worker thread, two managers on one character rig once and bind
 * once, failures swing as pendulums, a character destroyed mid-rig drops its result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tress/hair_manager.h"
#include "tress/mesh_file.h"
#include "tress/rig.h"
#include "support/scene_build.h"

typedef struct world {
  tress_scene *scene;
  tress_sim *sim;
  tress_id workspace, model, head;
  tress_mesh *hair;
  int rigged;
} world;

static void world_init(world *w) {
  memset(w, 0, sizeof *w);
  w->scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = w->scene;
  def.device_compute = 1.0f;
  def.max_chains = 100;
  def.max_distance = 1e5f;
  w->sim = tress_sim_create(&def);
  w->workspace = th_instance(w->scene, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(w->scene));
  w->model = th_instance(w->scene, TRESS_KIND_MODEL, "Alice", w->workspace);
  w->head = th_instance(w->scene, TRESS_KIND_PART, "Head", w->model);
  tress_part_set_cframe(w->scene, w->head, tress_xform_from_pos(0, 4.6f, 0));
  tress_error err = {0};
  w->hair = tress_mesh_file_load("assets/meshes/hair_bob.glb", &err);
  assert_non_null(w->hair);
}

static void world_free(world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
  tress_mesh_release(w->hair);
}

/* An accessory worn on the head through a Weld; with_mesh gives its Handle the hair mesh. */
static tress_id add_accessory(world *w, const char *name, tress_accessory_type type, bool with_mesh) {
  tress_id acc = th_instance(w->scene, TRESS_KIND_ACCESSORY, name, w->model);
  tress_accessory_set_type(w->scene, acc, type);
  tress_id handle = th_instance(w->scene, TRESS_KIND_PART, "Handle", acc);
  float size[3] = {1.5f, 1.1f, 1.4f};
  if (with_mesh) {
    tress_part_set_mesh(w->scene, handle, w->hair);
    tress_part_set_asset_id(w->scene, handle, "meshes/hair_bob.glb");
  }
  tress_part_set_size(w->scene, handle, size);
  tress_part_set_cframe(w->scene, handle, tress_xform_from_pos(0, 4.7f, 0));
  tress_id joint = th_instance(w->scene, TRESS_KIND_JOINT, "AccessoryWeld", handle);
  tress_joint j = {.kind = TRESS_JOINT_WELD, .part0 = handle, .part1 = w->head, .enabled = true};
  j.c0 = tress_xform_identity();
  j.c1 = tress_xform_from_pos(0, 0.1f, 0);
  tress_joint_set_def(w->scene, joint, &j);
  return acc;
}

static uint32_t bones_under(world *w, tress_id accessory) {
  tress_id handle = tress_accessory_get_handle(w->scene, accessory);
  uint32_t n = 0;
  for (tress_id b = tress_instance_find_child_of_kind(w->scene, handle, TRESS_KIND_BONE); !tress_id_is_null(b);
       b = tress_instance_find_child_of_kind(w->scene, b, TRESS_KIND_BONE))
    n++; /* the root and the first chain below it */
  return n;
}

static uint32_t count_bones(tress_scene *s, tress_id id) {
  uint32_t n = 0;
  for (tress_id c = tress_instance_get_first_child(s, id); !tress_id_is_null(c); c = tress_instance_get_next_sibling(s, c))
    n += (tress_instance_get_kind(s, c) == TRESS_KIND_BONE) + count_bones(s, c);
  return n;
}

static void on_rigged(void *user, tress_id character, tress_id part, const char (*names)[TRESS_NAME_MAX], uint32_t n) {
  (void)character, (void)part;
  world *w = user;
  assert_int_equal(n, 10);
  assert_string_equal(names[0], "HairRoot");
  w->rigged++;
}

static tress_hair_manager *manager(world *w) {
  tress_hair_manager_def def = tress_default_hair_manager_def();
  def.scene = w->scene;
  def.sim = w->sim;
  def.on_rigged = on_rigged;
  def.user = w;
  tress_hair_manager *m = tress_hair_manager_create(&def);
  assert_non_null(m);
  return m;
}

static void nap(void) {
  struct timespec ts = {0, 1000000};
  nanosleep(&ts, NULL);
}

/* Runs the managers from t0 to t1 in 1/60 s frames (sleeping a little so the worker runs). */
static void run(tress_hair_manager **ms, int n, double t0, double t1) {
  for (double t = t0; t < t1; t += 1.0 / 60.0) {
    for (int i = 0; i < n; i++) tress_hair_manager_update(ms[i], t);
    nap();
  }
}

static void test_two_managers_rig_once_and_bind_once(void **state) {
  (void)state;
  world w;
  world_init(&w);
  tress_id hair = add_accessory(&w, "Hair", TRESS_ACCESSORY_HAIR, true);
  add_accessory(&w, "Hat", TRESS_ACCESSORY_HAT, false);
  tress_hair_manager *ms[2] = {manager(&w), manager(&w)};
  assert_int_equal(tress_hair_manager_watch(ms[0], w.model), TRESS_OK);
  assert_int_equal(tress_hair_manager_watch(ms[1], w.model), TRESS_OK);
  assert_int_equal(tress_hair_manager_watch(ms[1], w.model), TRESS_OK); /* a second watcher call */
  run(ms, 2, 0.0, 3.0);
  assert_false(tress_hair_manager_is_busy(ms[0]));
  assert_int_equal(w.rigged, 1);
  assert_int_equal(count_bones(w.scene, w.model), 10);
  tress_hair_manager_stats a = tress_hair_manager_get_stats(ms[0]), b = tress_hair_manager_get_stats(ms[1]);
  assert_int_equal(a.rigs_started + b.rigs_started, 1);
  assert_int_equal(a.rigs_applied + b.rigs_applied, 1);
  assert_int_equal(b.skipped_in_flight, 1);
  assert_int_equal(a.binds, 1);
  assert_int_equal(b.binds, 1);
  /* Hair bones and a hat pendulum: two handles, not a pendulum on the hair as well. */
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 2);
  assert_true(bones_under(&w, hair) >= 2);
  tress_sim_step(w.sim, 1.0 / 60.0);
  assert_true(tress_sim_get_stats(w.sim).simulated >= 2);
  tress_hair_manager_destroy(ms[0]);
  tress_hair_manager_destroy(ms[1]);
  world_free(&w);
}

static void test_deadline_rearms_after_the_last_accessory(void **state) {
  (void)state;
  world w;
  world_init(&w);
  tress_hair_manager *m = manager(&w);
  add_accessory(&w, "Hair", TRESS_ACCESSORY_HAIR, true);
  tress_hair_manager_watch(m, w.model);
  tress_hair_manager_update(m, 0.0);
  tress_hair_manager_update(m, 0.2);
  add_accessory(&w, "Hat", TRESS_ACCESSORY_HAT, false);
  tress_hair_manager_update(m, 0.2);
  tress_hair_manager_update(m, 0.4);
  add_accessory(&w, "LongHair", TRESS_ACCESSORY_UNKNOWN, true); /* matched by name */
  tress_hair_manager_update(m, 0.4);
  tress_hair_manager_update(m, 0.64);
  assert_int_equal(tress_hair_manager_get_stats(m).passes, 0); /* 0.25 s after 0.4 is 0.65 */
  tress_hair_manager_update(m, 0.66);
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  assert_int_equal(s.passes, 1);
  assert_int_equal(s.rigs_started, 2);
  assert_int_equal(s.binds, 0); /* not while its rigs are in flight */
  run(&m, 1, 0.7, 3.0);
  s = tress_hair_manager_get_stats(m);
  assert_int_equal(s.passes, 1);
  assert_int_equal(s.rigs_applied, 2);
  assert_int_equal(s.binds, 1);
  assert_int_equal(w.rigged, 2);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 3); /* two boned hairs + the hat pendulum */
  tress_hair_manager_destroy(m);
  world_free(&w);
}

static bool owns_nothing(void *user, const char *asset_id) {
  (void)user, (void)asset_id;
  return false;
}

static void test_failed_rigs_swing_as_pendulums(void **state) {
  (void)state;
  world w;
  world_init(&w);
  tress_hair_manager_def def = tress_default_hair_manager_def();
  def.scene = w.scene;
  def.sim = w.sim;
  def.rig.owns_asset = owns_nothing; /* third-party hair: "no permission to load asset" */
  def.on_rigged = on_rigged;
  def.user = &w;
  tress_hair_manager *m = tress_hair_manager_create(&def);
  add_accessory(&w, "Hair", TRESS_ACCESSORY_HAIR, true);
  add_accessory(&w, "Fringe hair", TRESS_ACCESSORY_UNKNOWN, false); /* no mesh at all */
  tress_hair_manager_watch(m, w.model);
  run(&m, 1, 0.0, 1.0);
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  assert_int_equal(s.rigs_failed, 2);
  assert_int_equal(s.rigs_applied, 0);
  assert_int_equal(s.binds, 1);
  assert_int_equal(w.rigged, 0);
  assert_int_equal(count_bones(w.scene, w.model), 0);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 2); /* both as pendulums */
  tress_hair_manager_destroy(m);
  world_free(&w);
}

static void test_character_destroyed_mid_rig_drops_the_result(void **state) {
  (void)state;
  world w;
  world_init(&w);
  tress_hair_manager *m = manager(&w);
  add_accessory(&w, "Hair", TRESS_ACCESSORY_HAIR, true);
  tress_hair_manager_watch(m, w.model);
  tress_hair_manager_update(m, 0.0);
  tress_hair_manager_update(m, 0.3);
  assert_int_equal(tress_hair_manager_get_stats(m).rigs_started, 1);
  tress_instance_destroy(w.scene, w.model);
  run(&m, 1, 0.4, 2.0);
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  assert_int_equal(s.watched, 0);
  assert_int_equal(s.rigs_applied, 0);
  assert_int_equal(s.binds, 0);
  assert_int_equal(w.rigged, 0);
  assert_int_equal(tress_sim_get_stats(w.sim).bound, 0);
  tress_hair_manager_destroy(m);
  world_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_managers_rig_once_and_bind_once),
      cmocka_unit_test(test_deadline_rearms_after_the_last_accessory),
      cmocka_unit_test(test_failed_rigs_swing_as_pendulums),
      cmocka_unit_test(test_character_destroyed_mid_rig_drops_the_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
