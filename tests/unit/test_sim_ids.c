/* test_sim_ids.c - ids carry the sim that made them: two sims built the same way hand out ids
 * with the same index and generation, and each refuses the other's (handles, colliders, ropes)
 * with TRESS_ERR_WRONG_OWNER without touching its own object of that index. Also the one error
 * shape (result names, tress_error) and the character def. */
#include "support/sim_fixture.h"

#include "tress/rope.h"
#include "support/scene_build.h"

/* One scene + sim holding a bone chain with one collider and a rope: built twice, the two
 * worlds' ids agree in everything but the owner tag. */
typedef struct world {
  tress_scene *scene;
  tress_sim *sim;
  fix_chain chain;
  tress_collider_id collider;
  tress_handle_id chain_handle, rope;
} world;

static world world_make(void) {
  world w;
  memset(&w, 0, sizeof w);
  w.scene = th_scene();
  w.chain = fix_chain_make(w.scene, 0, 5, 0, 4, 0.3f);
  w.sim = fix_sim(w.scene, 10, 1e6f);
  tress_collider_def d = tress_default_collider_def();
  d.attach = w.chain.part;
  d.radius = 0.2f;
  assert_int_equal(tress_sim_create_collider(w.sim, &d, &w.collider), TRESS_OK);
  tress_chain_settings s = tress_default_chain_settings();
  s.colliders[s.collider_count++] = w.collider;
  assert_int_equal(tress_sim_bind(w.sim, w.chain.part, &s, &w.chain_handle), TRESS_OK);
  tress_rope_def r = tress_default_rope_def();
  r.start.pinned = true;
  r.start.position[1] = 10.0f;
  assert_int_equal(tress_sim_bind_rope(w.sim, &r, &w.rope, NULL), TRESS_OK);
  return w;
}

static void world_free(world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
}

static void test_ids_are_small_and_differ_only_by_owner(void **state) {
  (void)state;
  assert_true(sizeof(tress_handle_id) <= 12);
  assert_true(sizeof(tress_collider_id) <= 12);
  world a = world_make(), b = world_make();
  assert_int_equal(a.chain_handle.index1, b.chain_handle.index1);
  assert_int_equal(a.chain_handle.generation, b.chain_handle.generation);
  assert_int_equal(a.collider.index1, b.collider.index1);
  assert_int_not_equal(a.chain_handle.owner, b.chain_handle.owner);
  assert_int_equal(a.chain_handle.owner, a.collider.owner); /* one tag per sim */
  world_free(&a);
  world_free(&b);
}

static void test_another_sims_handle_is_refused(void **state) {
  (void)state;
  world a = world_make(), b = world_make();
  assert_false(tress_handle_is_valid(b.sim, a.chain_handle));
  assert_false(tress_handle_is_awake(b.sim, a.chain_handle));
  tress_chain_settings s = tress_default_chain_settings();
  assert_int_equal(tress_handle_set_chain_settings(b.sim, a.chain_handle, &s), TRESS_ERR_WRONG_OWNER);
  tress_accessory_settings as = tress_default_accessory_settings();
  assert_int_equal(tress_handle_set_accessory_settings(b.sim, a.chain_handle, &as), TRESS_ERR_WRONG_OWNER);
  /* destroy through the wrong sim acts on nothing: b's handle of the same index lives on */
  tress_handle_destroy(b.sim, a.chain_handle);
  assert_true(tress_handle_is_valid(b.sim, b.chain_handle));
  assert_true(tress_handle_is_valid(a.sim, a.chain_handle));
  assert_int_equal(tress_sim_get_stats(b.sim).bound, 2);
  /* a stale id of the right sim is still told apart from a foreign one */
  tress_handle_destroy(b.sim, b.chain_handle);
  assert_int_equal(tress_handle_set_chain_settings(b.sim, b.chain_handle, &s), TRESS_ERR_STALE_ID);
  world_free(&a);
  world_free(&b);
}

static void test_another_sims_collider_is_refused(void **state) {
  (void)state;
  world a = world_make(), b = world_make();
  assert_false(tress_collider_is_valid(b.sim, a.collider));
  tress_collider_def d;
  tress_collider_world cw;
  assert_int_equal(tress_collider_get_def(b.sim, a.collider, &d), TRESS_ERR_WRONG_OWNER);
  assert_int_equal(tress_collider_get_world(b.sim, a.collider, &cw), TRESS_ERR_WRONG_OWNER);
  tress_collider_destroy(b.sim, a.collider);
  assert_true(tress_collider_is_valid(b.sim, b.collider));
  /* a chain in b may not list a's collider */
  fix_chain other = fix_chain_make(b.scene, 3, 5, 0, 3, 0.3f);
  tress_chain_settings s = tress_default_chain_settings();
  s.colliders[s.collider_count++] = a.collider;
  tress_handle_id h = {0};
  assert_int_equal(tress_sim_bind(b.sim, other.part, &s, &h), TRESS_ERR_WRONG_OWNER);
  assert_true(tress_handle_is_null(h));
  assert_int_equal(tress_handle_set_chain_settings(b.sim, b.chain_handle, &s), TRESS_ERR_WRONG_OWNER);
  /* the right sim's own id reads fine, and a destroyed one is stale */
  assert_int_equal(tress_collider_get_def(b.sim, b.collider, &d), TRESS_OK);
  assert_true(d.radius == 0.2f);
  tress_collider_destroy(b.sim, b.collider);
  assert_int_equal(tress_collider_get_def(b.sim, b.collider, &d), TRESS_ERR_STALE_ID);
  tress_collider_id null_id = {0};
  assert_int_equal(tress_collider_get_def(b.sim, null_id, &d), TRESS_ERR_STALE_ID);
  world_free(&a);
  world_free(&b);
}

/* A sim holds TRESS_SIM_COLLIDERS_MAX colliders (its collider sets index them in 16 bits): the
 * next create is refused as out of memory, and destroying one makes room again. */
static void test_collider_count_is_bounded(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 4, 100.0f);
  tress_collider_def d = tress_default_collider_def();
  d.radius = 0.1f;
  tress_collider_id first = {0}, id;
  for (uint32_t i = 0; i < TRESS_SIM_COLLIDERS_MAX; i++) {
    assert_int_equal(tress_sim_create_collider(sim, &d, &id), TRESS_OK);
    if (i == 0) first = id;
  }
  assert_int_equal(tress_sim_create_collider(sim, &d, &id), TRESS_ERR_OUT_OF_MEMORY);
  assert_true(tress_collider_is_null(id));
  tress_collider_destroy(sim, first);
  assert_int_equal(tress_sim_create_collider(sim, &d, &id), TRESS_OK);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_another_sims_rope_is_refused(void **state) {
  (void)state;
  world a = world_make(), b = world_make();
  float xyz[3 * 32];
  uint32_t n = 99;
  assert_int_equal(tress_rope_get_points(b.sim, a.rope, xyz, 32, &n), TRESS_ERR_WRONG_OWNER);
  assert_int_equal(n, 0);
  assert_int_equal(tress_rope_cut(b.sim, a.rope, 0), TRESS_ERR_WRONG_OWNER);
  assert_int_equal(tress_rope_get_constraint_count(b.sim, a.rope), 0);
  assert_int_equal(tress_rope_get_constraint_count(b.sim, b.rope), 20); /* b's rope is uncut */
  assert_int_equal(tress_rope_get_points(b.sim, b.rope, xyz, 32, &n), TRESS_OK);
  assert_int_equal(n, 21);
  world_free(&a);
  world_free(&b);
}

/* A sim created after another was destroyed (often at the same address) refuses the old ids. */
static void test_a_destroyed_sims_ids_are_refused_by_its_successor(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 4, 0.3f);
  for (int round = 0; round < 8; round++) {
    tress_sim *old_sim = fix_sim(scene, 10, 1e6f);
    tress_handle_id old_h;
    assert_int_equal(tress_sim_bind(old_sim, c.part, NULL, &old_h), TRESS_OK);
    tress_sim_destroy(old_sim);
    tress_sim *sim = fix_sim(scene, 10, 1e6f);
    tress_handle_id h;
    assert_int_equal(tress_sim_bind(sim, c.part, NULL, &h), TRESS_OK);
    assert_int_equal(h.index1, old_h.index1);
    assert_int_equal(h.generation, old_h.generation);
    assert_false(tress_handle_is_valid(sim, old_h));
    assert_true(tress_handle_is_valid(sim, h));
    tress_sim_destroy(sim);
  }
  tress_scene_destroy(scene);
}

static void test_result_names_round_trip(void **state) {
  (void)state;
  const tress_result all[] = {TRESS_OK, TRESS_ERR_INVALID_ARGUMENT, TRESS_ERR_STALE_ID, TRESS_ERR_NOTHING_TO_BIND,
                              TRESS_ERR_TOO_FEW_PARTS, TRESS_ERR_OUT_OF_MEMORY, TRESS_ERR_WRONG_OWNER,
                              TRESS_ERR_NOT_CONNECTED, TRESS_ERR_ADDRESS, TRESS_ERR_NETWORK, TRESS_ERR_NOT_FOUND,
                              TRESS_ERR_LIMIT, TRESS_ERR_PROTOCOL, TRESS_ERR_UNSUPPORTED, TRESS_ERR_PERMISSION,
                              TRESS_ERR_NON_UNIFORM_SCALE};
  /* every value up to the last one has a name of its own (a new code without one fails here) */
  assert_int_equal(sizeof all / sizeof all[0], TRESS_ERR_NON_UNIFORM_SCALE + 1);
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    tress_result back = TRESS_OK;
    assert_string_not_equal(tress_result_name(all[i]), "unknown");
    assert_true(tress_result_from_name(tress_result_name(all[i]), &back));
    assert_int_equal(back, all[i]);
  }
  assert_string_equal(tress_result_name(TRESS_ERR_WRONG_OWNER), "wrong_owner");
  assert_string_equal(tress_result_name((tress_result)999), "unknown");
  tress_result untouched = TRESS_ERR_STALE_ID;
  assert_false(tress_result_from_name("no_such_code", &untouched));
  assert_int_equal(untouched, TRESS_ERR_STALE_ID);
  /* the values are stable */
  assert_int_equal(TRESS_OK, 0);
  assert_int_equal(TRESS_ERR_OUT_OF_MEMORY, 5);
  assert_int_equal(TRESS_ERR_NOT_CONNECTED, 7);
  assert_string_equal(tress_result_name(TRESS_ERR_NOT_CONNECTED), "not_connected");
  assert_string_equal(tress_result_name(TRESS_ERR_PERMISSION), "permission");
  assert_string_equal(tress_rope_lod_name(TRESS_ROPE_REDUCED), "reduced");
}

static void test_error_set_fills_and_truncates(void **state) {
  (void)state;
  assert_int_equal(tress_error_set(NULL, TRESS_ERR_STALE_ID, "ignored %d", 1), TRESS_ERR_STALE_ID);
  tress_error err;
  assert_int_equal(tress_error_set(&err, TRESS_ERR_INVALID_ARGUMENT, "bad %s at %d", "pin", 3),
                   TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(err.code, TRESS_ERR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "bad pin at 3");
  char long_text[400];
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  tress_error_set(&err, TRESS_ERR_INVALID_ARGUMENT, "%s", long_text);
  assert_int_equal(strlen(err.message), TRESS_ERROR_MESSAGE_MAX - 1);
  tress_error_clear(&err);
  assert_int_equal(err.code, TRESS_OK);
  assert_string_equal(err.message, "");
  tress_error_clear(NULL);
}

static void test_character_def_defaults_and_refusals(void **state) {
  (void)state;
  tress_character_def d = tress_default_character_def();
  tress_chain_settings cs = tress_default_chain_settings();
  tress_accessory_settings as = tress_default_accessory_settings();
  assert_true(tress_id_is_null(d.model));
  assert_memory_equal(&d.chains, &cs, sizeof cs);
  assert_memory_equal(&d.accessories, &as, sizeof as);
  assert_null(d.match);
  world w = world_make();
  uint32_t n = 7;
  assert_int_equal(tress_sim_bind_character(w.sim, NULL, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(n, 0);
  d.model = w.chain.part; /* a part, not a model */
  assert_int_equal(tress_sim_bind_character(w.sim, &d, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  world_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_are_small_and_differ_only_by_owner),
      cmocka_unit_test(test_another_sims_handle_is_refused),
      cmocka_unit_test(test_another_sims_collider_is_refused),
      cmocka_unit_test(test_collider_count_is_bounded),
      cmocka_unit_test(test_another_sims_rope_is_refused),
      cmocka_unit_test(test_a_destroyed_sims_ids_are_refused_by_its_successor),
      cmocka_unit_test(test_result_names_round_trip),
      cmocka_unit_test(test_error_set_fills_and_truncates),
      cmocka_unit_test(test_character_def_defaults_and_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
