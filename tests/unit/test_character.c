/* test_character.c - bind_character: boned parts then matching accessories, the default match,
 * match predicates, layered clothing, idempotence over 100 calls, and release when the character
 * is destroyed or leaves the scene. Real scene, real sim. White-box (sim_internal.h): it checks
 * which kind of handle each root got and which character a handle remembers, which the public
 * API does not expose. */
#include "support/accessory_fixture.h"

#include "sim_internal.h"
#include "support/scene_build.h"

/* The def from the old positional form: NULL settings or match keep the defaults. */
static tress_result bind_character(tress_sim *sim, tress_id model, const tress_chain_settings *chains,
                                   const tress_accessory_settings *accessories, tress_accessory_match_fn match,
                                   void *match_user, tress_handle_id *out, uint32_t max_out, uint32_t *count) {
  tress_character_def def = tress_default_character_def();
  def.model = model;
  if (chains) def.chains = *chains;
  if (accessories) def.accessories = *accessories;
  def.match = match;
  def.match_user = match_user;
  return tress_sim_bind_character(sim, &def, out, max_out, count);
}

/* A character with one of everything bind_character must tell apart. */
typedef struct full_character {
  acc_character c;
  tress_id hair_mesh;         /* a part with bones under the model */
  acc_worn hair, hat, back, neck, waist, unknown; /* swing by default */
  acc_worn face, shirt;       /* Face and a layered-only type without a wrap layer */
  acc_worn layered_hair;      /* type Hair but its handle has a WrapLayer */
  acc_worn jacket;            /* layered type with a WrapLayer */
  acc_worn boned;             /* type Hair, its handle carries bones */
  acc_worn boned_layered;     /* a layered jacket whose handle carries bones */
  tress_id no_handle;         /* type Hat, no Handle */
} full_character;

static tress_id add_bones(tress_scene *s, tress_id part) {
  tress_id b0 = th_instance(s, TRESS_KIND_BONE, "HairRoot", part);
  tress_bone_set_cframe(s, b0, tress_xform_from_pos(0, 0.5f, 0));
  tress_id b1 = th_instance(s, TRESS_KIND_BONE, "Hair_S1_B1", b0);
  tress_bone_set_cframe(s, b1, tress_xform_from_pos(0.4f, -0.2f, 0));
  return b0;
}

static full_character full_make(void) {
  full_character f;
  memset(&f, 0, sizeof f);
  f.c = acc_character_make();
  tress_scene *s = f.c.scene;
  f.hair_mesh = th_instance(s, TRESS_KIND_PART, "HairMesh", f.c.model);
  tress_part_set_cframe(s, f.hair_mesh, tress_xform_from_pos(0, 5.5f, 0));
  add_bones(s, f.hair_mesh);
  f.hair = acc_wear(&f.c, "Hair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  f.hat = acc_wear(&f.c, "Hat", TRESS_ACCESSORY_HAT, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  f.back = acc_wear(&f.c, "Cape", TRESS_ACCESSORY_BACK, TRESS_JOINT_WELD_CONSTRAINT, false, false);
  f.neck = acc_wear(&f.c, "Scarf", TRESS_ACCESSORY_NECK, TRESS_JOINT_MOTOR6D, true, false);
  f.waist = acc_wear(&f.c, "Belt", TRESS_ACCESSORY_WAIST, TRESS_JOINT_WELD, true, false);
  f.unknown = acc_wear(&f.c, "Thing", TRESS_ACCESSORY_UNKNOWN, TRESS_JOINT_WELD, false, true);
  f.face = acc_wear(&f.c, "Glasses", TRESS_ACCESSORY_FACE, TRESS_JOINT_WELD, false, false);
  f.shirt = acc_wear(&f.c, "Shirt", TRESS_ACCESSORY_SHIRT, TRESS_JOINT_WELD, false, false);
  f.layered_hair = acc_wear(&f.c, "LayeredHair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  (void)th_instance(s, TRESS_KIND_WRAP_LAYER, "WrapLayer", f.layered_hair.handle);
  f.jacket = acc_wear(&f.c, "Jacket", TRESS_ACCESSORY_JACKET, TRESS_JOINT_RIGID_CONSTRAINT, false, false);
  (void)th_instance(s, TRESS_KIND_WRAP_LAYER, "WrapLayer", f.jacket.handle);
  f.boned = acc_wear(&f.c, "BonedHair", TRESS_ACCESSORY_HAIR, TRESS_JOINT_WELD, false, false);
  add_bones(s, f.boned.handle);
  f.boned_layered = acc_wear(&f.c, "SkinnedJacket", TRESS_ACCESSORY_JACKET, TRESS_JOINT_WELD, false, false);
  add_bones(s, f.boned_layered.handle);
  (void)th_instance(s, TRESS_KIND_WRAP_LAYER, "WrapLayer", f.boned_layered.handle);
  f.no_handle = th_instance(s, TRESS_KIND_ACCESSORY, "Bare", f.c.model);
  tress_accessory_set_type(s, f.no_handle, TRESS_ACCESSORY_HAT);
  return f;
}

static bool accessory_bound(tress_sim *sim, const acc_worn *w) {
  return !tress_handle_is_null(tress__handle_find(sim, TRESS_HANDLE_ACCESSORY, w->accessory));
}

static bool bones_bound(tress_sim *sim, tress_id part) {
  return !tress_handle_is_null(tress__handle_find(sim, TRESS_HANDLE_BONES, part));
}

static void test_default_match_is_the_seed_list(void **state) {
  (void)state;
  tress_scene *s = th_scene();
  tress_id a = th_instance(s, TRESS_KIND_ACCESSORY, "A", tress_scene_get_root(s));
  for (int t = 0; t < TRESS_ACCESSORY_TYPE_COUNT; t++) {
    tress_accessory_set_type(s, a, (tress_accessory_type)t);
    bool expect = t == TRESS_ACCESSORY_HAIR || t == TRESS_ACCESSORY_HAT || t == TRESS_ACCESSORY_NECK ||
                  t == TRESS_ACCESSORY_SHOULDER || t == TRESS_ACCESSORY_FRONT || t == TRESS_ACCESSORY_BACK ||
                  t == TRESS_ACCESSORY_WAIST || t == TRESS_ACCESSORY_UNKNOWN;
    assert_int_equal(tress_default_accessory_match(NULL, s, a), expect);
  }
  tress_scene_destroy(s);
}

static void test_binds_boned_parts_then_matching_accessories(void **state) {
  (void)state;
  full_character f = full_make();
  tress_sim *sim = acc_sim(f.c.scene, NULL, NULL, 20, 1000);
  tress_handle_id out[16];
  uint32_t n = 0;
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, out, 16, &n), TRESS_OK);
  /* HairMesh and the boned handle (bones), then Hair, Hat, Cape, Scarf, Belt, Thing */
  assert_int_equal(n, 8);
  assert_int_equal(tress_sim_get_stats(sim).bound, 8);
  assert_true(bones_bound(sim, f.hair_mesh));
  assert_true(bones_bound(sim, f.boned.handle));
  for (uint32_t i = 0; i < 2; i++) assert_int_equal(tress__handle_get(sim, out[i])->kind, TRESS_HANDLE_BONES);
  for (uint32_t i = 2; i < n; i++) assert_int_equal(tress__handle_get(sim, out[i])->kind, TRESS_HANDLE_ACCESSORY);
  const acc_worn *swing[] = {&f.hair, &f.hat, &f.back, &f.neck, &f.waist, &f.unknown};
  for (size_t i = 0; i < 6; i++) assert_true(accessory_bound(sim, swing[i]));
  /* face items and layered-only types sit on the body; layered clothing never swings; an
   * accessory whose handle has bones is already a bone chain */
  assert_false(accessory_bound(sim, &f.face));
  assert_false(accessory_bound(sim, &f.shirt));
  assert_false(accessory_bound(sim, &f.layered_hair));
  assert_false(accessory_bound(sim, &f.jacket));
  assert_false(accessory_bound(sim, &f.boned));
  assert_false(accessory_bound(sim, &f.boned_layered));
  assert_false(bones_bound(sim, f.boned_layered.handle)); /* layered: not even its bones */
  /* every returned handle knows its character */
  for (uint32_t i = 0; i < n; i++) assert_true(tress_id_is_equal(tress__handle_get(sim, out[i])->character, f.c.model));
  /* max_out smaller than the total: the first max_out handles, the full count */
  tress_handle_id few[3];
  uint32_t m = 0;
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, few, 3, &m), TRESS_OK);
  assert_int_equal(m, 8);
  for (int i = 0; i < 3; i++) assert_true(few[i].index1 == out[i].index1 && few[i].generation == out[i].generation);
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, NULL, 0, &m), TRESS_OK);
  assert_int_equal(m, 8);
  tress_sim_destroy(sim);
  tress_scene_destroy(f.c.scene);
}

/* Everything the accessories' rest poses depend on, to compare bit for bit. */
typedef struct rest_record {
  acc_scene_state st[6];
} rest_record;

static void record_rest(const full_character *f, rest_record *r) {
  const acc_worn *swing[] = {&f->hair, &f->hat, &f->back, &f->neck, &f->waist, &f->unknown};
  for (int i = 0; i < 6; i++) r->st[i] = acc_state(f->c.scene, swing[i]);
}

static void test_100_calls_same_handles_and_no_rest_drift(void **state) {
  (void)state;
  full_character f = full_make();
  rest_record before;
  record_rest(&f, &before);
  tress_xform wc_before = tress_joint_get_weld_constraint_offset(f.c.scene, f.back.joint);
  float wind[3] = {70, 0, 20};
  tress_sim *sim = acc_sim(f.c.scene, acc_wind, wind, 20, 1000);
  tress_chain_settings cs = tress_default_chain_settings();
  tress_accessory_settings as = tress_default_accessory_settings();
  tress_handle_id first[16], again[16];
  uint32_t n = 0, m = 0;
  assert_int_equal(bind_character(sim, f.c.model, &cs, &as, NULL, NULL, first, 16, &n), TRESS_OK);
  assert_int_equal(n, 8);
  double t = 0;
  for (int call = 0; call < 100; call++) {
    for (int k = 0; k < 3; k++) {
      t += 1.0 / 60;
      tress_part_set_cframe(f.c.scene, f.c.head, acc_rot(0, 0, 1, (float)(40 * sin(2 * M_PI * 2 * t)), 0, 5, 0));
      assert_int_equal(tress_sim_step(sim, 1.0 / 60), TRESS_OK);
    }
    assert_int_equal(bind_character(sim, f.c.model, &cs, &as, NULL, NULL, again, 16, &m), TRESS_OK);
    assert_int_equal(m, n);
    for (uint32_t i = 0; i < n; i++)
      assert_true(again[i].index1 == first[i].index1 && again[i].generation == first[i].generation);
    assert_int_equal(tress_sim_get_stats(sim).bound, 8);
  }
  /* they were swinging while rebound */
  tress_xform hair_now = acc_joint(f.c.scene, f.hair.joint).c1;
  assert_true(acc_quat_angle_deg(hair_now.q, before.st[0].joint.c1.q) > 1.0f);
  /* exactly one CKSwayWeld despite 100 binds */
  int welds = 0;
  for (tress_id ch = tress_instance_get_first_child(f.c.scene, f.back.handle); !tress_id_is_null(ch);
       ch = tress_instance_get_next_sibling(f.c.scene, ch)) {
    char name[TRESS_NAME_MAX];
    tress_instance_get_name(f.c.scene, ch, name);
    if (strcmp(name, "CKSwayWeld") == 0) welds++;
  }
  assert_int_equal(welds, 1);
  /* releasing gives back the rest captured at the first bind, bit for bit: no drift */
  tress_sim_destroy(sim);
  rest_record after;
  record_rest(&f, &after);
  for (int i = 0; i < 6; i++) {
    assert_true(acc_xform_bits_equal(after.st[i].joint.c0, before.st[i].joint.c0));
    assert_true(acc_xform_bits_equal(after.st[i].joint.c1, before.st[i].joint.c1));
    assert_true(acc_xform_bits_equal(after.st[i].handle_attachment, before.st[i].handle_attachment));
    assert_int_equal(after.st[i].instances, before.st[i].instances);
  }
  tress_xform wc_after = tress_joint_get_weld_constraint_offset(f.c.scene, f.back.joint);
  assert_true(tress_xform_distance(wc_after, wc_before) < 1e-5f);
  tress_scene_destroy(f.c.scene);
}

typedef struct match_log {
  tress_accessory_type accept;
  bool accept_all;
  int calls;
  tress_id asked[32];
} match_log;

static bool match_only(void *user, const tress_scene *scene, tress_id accessory) {
  match_log *log = user;
  if (log->calls < 32) log->asked[log->calls] = accessory;
  log->calls++;
  return log->accept_all || tress_accessory_get_type(scene, accessory) == log->accept;
}

static bool was_asked(const match_log *log, tress_id accessory) {
  for (int i = 0; i < log->calls && i < 32; i++)
    if (tress_id_is_equal(log->asked[i], accessory)) return true;
  return false;
}

static void test_match_predicate_replaces_the_default(void **state) {
  (void)state;
  full_character f = full_make();
  tress_sim *sim = acc_sim(f.c.scene, NULL, NULL, 20, 1000);
  /* only Face items: the default's Hair/Hat/... stay rigid, the glasses swing */
  match_log log = {.accept = TRESS_ACCESSORY_FACE};
  uint32_t n = 0;
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, match_only, &log, NULL, 0, &n), TRESS_OK);
  assert_int_equal(n, 3); /* two bone chains + the glasses */
  assert_true(accessory_bound(sim, &f.face));
  assert_false(accessory_bound(sim, &f.hair));
  assert_false(accessory_bound(sim, &f.hat));
  /* layered clothing and boned handles are never even offered */
  assert_false(was_asked(&log, f.layered_hair.accessory));
  assert_false(was_asked(&log, f.jacket.accessory));
  assert_false(was_asked(&log, f.boned.accessory));
  assert_false(was_asked(&log, f.boned_layered.accessory));
  assert_true(was_asked(&log, f.hair.accessory));
  tress_sim_destroy(sim);

  /* accept everything: the shirt (a layered-only type without a wrap layer) swings, but wrap
   * layers still never do */
  sim = acc_sim(f.c.scene, NULL, NULL, 20, 1000);
  match_log all = {.accept_all = true};
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, match_only, &all, NULL, 0, &n), TRESS_OK);
  assert_int_equal(n, 10);
  assert_true(accessory_bound(sim, &f.shirt));
  assert_true(accessory_bound(sim, &f.face));
  assert_false(accessory_bound(sim, &f.layered_hair));
  assert_false(accessory_bound(sim, &f.jacket));
  assert_false(bones_bound(sim, f.boned_layered.handle));
  tress_sim_destroy(sim);
  tress_scene_destroy(f.c.scene);
}

static void test_handles_release_when_the_character_leaves_the_scene(void **state) {
  (void)state;
  full_character f = full_make();
  rest_record before;
  record_rest(&f, &before);
  /* a second character that stays */
  tress_id other = th_instance(f.c.scene, TRESS_KIND_MODEL, "Other", f.c.workspace);
  tress_id other_hair = th_instance(f.c.scene, TRESS_KIND_PART, "HairMesh", other);
  add_bones(f.c.scene, other_hair);
  float wind[3] = {70, 0, 0};
  tress_sim *sim = acc_sim(f.c.scene, acc_wind, wind, 20, 1000);
  /* one accessory bound on its own first: bind_character claims it */
  tress_handle_id solo;
  assert_int_equal(tress_sim_bind_accessory(sim, f.hair.accessory, NULL, &solo), TRESS_OK);
  uint32_t n = 0, m = 0;
  tress_handle_id out[16];
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, out, 16, &n), TRESS_OK);
  assert_int_equal(bind_character(sim, other, NULL, NULL, NULL, NULL, NULL, 0, &m), TRESS_OK);
  assert_int_equal(m, 1);
  assert_int_equal(tress_sim_get_stats(sim).bound, 9);
  acc_run(sim, 1.0 / 60, 30);
  /* moving between folders inside the scene keeps everything */
  tress_id lobby = th_instance(f.c.scene, TRESS_KIND_FOLDER, "Lobby", tress_scene_get_root(f.c.scene));
  assert_true(tress_instance_set_parent(f.c.scene, f.c.model, lobby));
  assert_int_equal(tress_sim_get_stats(sim).bound, 9);
  acc_run(sim, 1.0 / 60, 5);
  /* detached from the root without being destroyed: released at once, joints restored */
  assert_true(tress_instance_set_parent(f.c.scene, f.c.model, (tress_id){0}));
  assert_int_equal(tress_sim_get_stats(sim).bound, 1);
  assert_false(tress_handle_is_valid(sim, solo));
  for (uint32_t i = 0; i < n; i++) assert_false(tress_handle_is_valid(sim, out[i]));
  rest_record after;
  record_rest(&f, &after);
  for (int i = 0; i < 6; i++) {
    assert_true(acc_xform_bits_equal(after.st[i].joint.c0, before.st[i].joint.c0));
    assert_true(acc_xform_bits_equal(after.st[i].joint.c1, before.st[i].joint.c1));
    assert_true(acc_xform_bits_equal(after.st[i].handle_attachment, before.st[i].handle_attachment));
  }
  acc_run(sim, 1.0 / 60, 5);

  /* the other character leaves with its ancestor folder: released too */
  assert_true(tress_instance_set_parent(f.c.scene, f.c.workspace, (tress_id){0}));
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);

  /* back in the scene, bound again, then destroyed: released */
  assert_true(tress_instance_set_parent(f.c.scene, f.c.model, lobby));
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, NULL, 0, &n), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(sim).bound, 8);
  acc_run(sim, 1.0 / 60, 5);
  tress_instance_destroy(f.c.scene, f.c.model);
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  acc_run(sim, 1.0 / 60, 2);
  tress_sim_destroy(sim);
  tress_scene_destroy(f.c.scene);
}

static void test_bad_input_binds_nothing(void **state) {
  (void)state;
  full_character f = full_make();
  tress_sim *sim = acc_sim(f.c.scene, NULL, NULL, 20, 1000);
  uint32_t instances = tress_scene_get_instance_count(f.c.scene);
  uint32_t n = 99;
  tress_chain_settings cs = tress_default_chain_settings();
  cs.stiffness = NAN;
  assert_int_equal(bind_character(sim, f.c.model, &cs, NULL, NULL, NULL, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(n, 0);
  tress_accessory_settings as = tress_default_accessory_settings();
  as.max_swing_degrees = NAN;
  assert_int_equal(bind_character(sim, f.c.model, NULL, &as, NULL, NULL, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(bind_character(sim, f.c.head, NULL, NULL, NULL, NULL, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(bind_character(NULL, f.c.model, NULL, NULL, NULL, NULL, NULL, 0, &n), TRESS_ERR_INVALID_ARGUMENT);
  tress_handle_id out[2];
  assert_int_equal(bind_character(sim, f.c.model, NULL, NULL, NULL, NULL, NULL, 2, &n), TRESS_ERR_INVALID_ARGUMENT);
  tress_id gone = th_instance(f.c.scene, TRESS_KIND_MODEL, "Gone", f.c.workspace);
  tress_instance_destroy(f.c.scene, gone);
  assert_int_equal(bind_character(sim, gone, NULL, NULL, NULL, NULL, out, 2, &n), TRESS_ERR_STALE_ID);
  assert_int_equal(tress_sim_get_stats(sim).bound, 0);
  assert_int_equal(tress_scene_get_instance_count(f.c.scene), instances);
  tress_joint back;
  assert_true(tress_joint_get_def(f.c.scene, f.back.joint, &back));
  assert_true(back.enabled); /* no swap happened */
  tress_sim_destroy(sim);
  tress_scene_destroy(f.c.scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_match_is_the_seed_list),
      cmocka_unit_test(test_binds_boned_parts_then_matching_accessories),
      cmocka_unit_test(test_100_calls_same_handles_and_no_rest_drift),
      cmocka_unit_test(test_match_predicate_replaces_the_default),
      cmocka_unit_test(test_handles_release_when_the_character_leaves_the_scene),
      cmocka_unit_test(test_bad_input_binds_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
