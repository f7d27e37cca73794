/* The JSON character manifests: the sample characters load, survive a save/load round trip, and
 * bad files are refused with a reason that names the JSON path (or, for syntax, line and column). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "support/server_harness.h"
#include "tress/file_read.h"
#include "tress/manifest_json.h"
#include "tress/wire_springs.h"

static void test_samples_load_and_round_trip(void **state) {
  (void)state;
  const char *files[] = {"ava.json", "kit.json", "bo.json"};
  for (int i = 0; i < 3; i++) {
    tress_msg a, b;
    assert_int_equal(th_spawn_load(&a, files[i], 1), 0);
    assert_true(a.spawn_character.manifest.accessory_count >= 1);
    char path[] = "/tmp/tress-manifest-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    tress_error err = {0};
    assert_int_equal(tress_manifest_json_save(path, &a.spawn_character.manifest, &err), 0);
    memset(&b, 0, sizeof b);
    b.type = TRESS_MSG_SPAWN_CHARACTER;
    b.spawn_character.request_id = 1;
    assert_int_equal(tress_manifest_json_load(path, &b.spawn_character.manifest, &err), 0);
    assert_true(tress_msg_is_equal(&a, &b));
    unlink(path);
    th_spawn_free(&a);
    th_spawn_free(&b);
  }
  tress_msg ava;
  assert_int_equal(th_spawn_load(&ava, "ava.json", 1), 0);
  const tress_wire_manifest *m = &ava.spawn_character.manifest;
  assert_string_equal(m->character_name, "Ava");
  assert_int_equal(m->accessories[0].type, TRESS_ACCESSORY_HAIR);
  assert_string_equal(m->accessories[0].mesh_asset_id, "meshes/hair_long.glb");
  assert_int_equal(m->accessories[1].type, TRESS_ACCESSORY_HAT);
  assert_int_equal(m->accessories[2].type, TRESS_ACCESSORY_FACE);
  assert_int_equal(m->accessories[2].joint_kind, TRESS_JOINT_RIGID_CONSTRAINT);
  th_spawn_free(&ava);
}

static void test_bad_manifests_refused(void **state) {
  (void)state;
  const char *bad[] = {
      "[]",
      "{\"parts\": []}",                                                       /* no character */
      "{\"character\": \"x\", \"accessories\": [{\"name\": \"h\", \"worn_on\": \"Nope\"}]}",
      "{\"character\": \"x\", \"parts\": [{\"name\": \"Head\", \"size\": [1, 2]}]}",
      "{\"character\": \"x\", \"parts\": [{\"name\": \"Head\", \"rotation\": [0, 0, 0, 5]}]}", /* not unit */
      "{\"character\": \"x\", \"parts\": [{\"name\": \"Head\"}], \"accessories\": [{\"name\": \"h\", "
      "\"type\": \"Cape\", \"worn_on\": \"Head\"}]}",
      "{\"character\": \"x\", \"chain_settings\": {\"damping\": \"a\"}}",
      "not json",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tress_wire_manifest m;
    tress_error err = {0};
    { /* fails with a code, and err carries the same one */
      int rc = tress_manifest_json_parse(bad[i], strlen(bad[i]), &m, &err);
      assert_int_not_equal(rc, 0);
      assert_int_equal(rc, err.code);
    }
    assert_true(err.message[0] != '\0');
    assert_null(m.parts);
  }
}

static const char *KIT_SPRINGS_HEAD =
    "{\"character\": \"x\", \"parts\": [{\"name\": \"Head\"}], \"springs\": ";

/* kit.json's springs section decodes to what the file says and survives print/parse. */
static void test_springs_section_round_trip(void **state) {
  (void)state;
  tress_wire_manifest m;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_load("assets/characters/kit.json", &m, &err), 0);
  assert_int_equal(m.section_count, 1);
  assert_int_equal(m.sections[0].tag, TRESS_SECTION_SPRINGS);
  tress_wire_springs *s = malloc(sizeof *s), *t = malloc(sizeof *t);
  assert_non_null(s);
  assert_non_null(t);
  tress_wire_error werr;
  assert_int_equal(tress_wire_springs_decode(m.sections[0].bytes, m.sections[0].length, s, &werr), TRESS_WIRE_OK);
  assert_int_equal(s->collider_count, 2);
  assert_int_equal(s->colliders[0].shape, TRESS_COLLIDER_SPHERE);
  assert_string_equal(s->colliders[0].attach, "Head");
  assert_float_equal(s->colliders[0].radius, 0.6f, 1e-6);
  assert_int_equal(s->colliders[1].shape, TRESS_COLLIDER_CAPSULE);
  assert_float_equal(s->colliders[1].tail[1], -2.6f, 1e-6);
  assert_int_equal(s->chain_count, 1);
  assert_string_equal(s->chains[0].root, "");
  assert_float_equal(s->chains[0].settings.radius, 0.05f, 1e-6);
  assert_float_equal(s->chains[0].settings.end_length, 0.1f, 1e-6);
  assert_float_equal(s->chains[0].settings.wind_gust, 0.3f, 1e-6);
  assert_true(s->chains[0].settings.enabled);
  assert_int_equal(s->chains[0].collider_count, 2);
  assert_int_equal(s->chains[0].colliders[1], 1);

  /* every field, non-default, through print and parse */
  s->chains[0].settings.enabled = false;
  s->chains[0].settings.weight = 0.25f;
  s->chains[0].settings.wind_frequency = 2.5f;
  s->chains[0].collider_count = 1;
  s->chains[0].colliders[0] = 1;
  snprintf(s->chains[0].root, sizeof s->chains[0].root, "Hair_Ponytail_00");
  s->chains[0].limit = (tress_joint_limit){TRESS_LIMIT_SPHERICAL, 0.5f, 0.25f, {0.0f, 0.6f, 0.0f, 0.8f}};
  s->chains[0].joint_limit_count = 2;
  snprintf(s->chains[0].joint_limits[0].bone, sizeof s->chains[0].joint_limits[0].bone, "Hair_Ponytail_01");
  s->chains[0].joint_limits[0].limit = (tress_joint_limit){TRESS_LIMIT_CONE, 0.2f, 0.0f, {0.0f, 0.0f, 0.0f, 1.0f}};
  snprintf(s->chains[0].joint_limits[1].bone, sizeof s->chains[0].joint_limits[1].bone, "Hair_Ponytail_03");
  s->chains[0].joint_limits[1].limit = (tress_joint_limit){TRESS_LIMIT_HINGE, 0.7f, 0.0f, {0.6f, 0.0f, 0.0f, 0.8f}};
  size_t n = 0;
  static uint8_t bytes[TRESS_WIRE_MAX_SECTION_BYTES];
  assert_int_equal(tress_wire_springs_encode(s, bytes, sizeof bytes, &n, &werr), TRESS_WIRE_OK);
  const tress_wire_section section = {.tag = TRESS_SECTION_SPRINGS, .length = (uint32_t)n, .bytes = bytes};
  tress_wire_manifest edited = m;
  edited.sections = (tress_wire_section *)&section;
  char *text = tress_manifest_json_print(&edited);
  assert_non_null(text);
  tress_wire_manifest back;
  assert_int_equal(tress_manifest_json_parse(text, strlen(text), &back, &err), 0);
  free(text);
  assert_int_equal(back.section_count, 1);
  assert_int_equal(tress_wire_springs_decode(back.sections[0].bytes, back.sections[0].length, t, &werr), TRESS_WIRE_OK);
  assert_true(tress_wire_springs_is_equal(s, t));
  assert_false(t->chains[0].settings.enabled);
  assert_int_equal(t->chains[0].limit.kind, TRESS_LIMIT_SPHERICAL);
  assert_float_equal(t->chains[0].limit.yaw, 0.25f, 1e-6);
  /* and the per-joint limits, by bone, as printed ("joints": [{"bone", "limit"}]) */
  assert_int_equal(t->chains[0].joint_limit_count, 2);
  assert_string_equal(t->chains[0].joint_limits[1].bone, "Hair_Ponytail_03");
  assert_int_equal(t->chains[0].joint_limits[1].limit.kind, TRESS_LIMIT_HINGE);
  assert_float_equal(t->chains[0].joint_limits[0].limit.angle, 0.2f, 1e-6);
  tress_manifest_json_free(&back);
  free(s);
  free(t);
  tress_manifest_json_free(&m);
}

/* Bad springs are refused with the reason (the codec's rules), nothing half-loaded. */
static void test_bad_springs_refused(void **state) {
  (void)state;
  const struct {
    const char *springs, *reason;
  } bad[] = {
      {"[]", "$.springs: must be an object"},
      {"{\"colliders\": [{\"shape\": \"cube\", \"radius\": 1}]}", "$.springs.colliders[0].shape: \"cube\""},
      {"{\"colliders\": [{\"shape\": \"sphere\", \"radius\": -1}]}", "not in [0"},
      {"{\"colliders\": [{\"shape\": \"capsule\", \"radius\": 1}]}", "needs \"tail\""},
      {"{\"colliders\": [{\"shape\": \"capsule\", \"tail\": [0, 0, 0], \"radius\": 1}]}", "no length"},
      {"{\"chains\": [{\"wind_gust\": 2}]}", "wind_gust"},
      {"{\"chains\": [{\"weight\": -0.5}]}", "weight"},
      {"{\"chains\": [{\"radius\": 5000}]}", "radius"},
      {"{\"chains\": [{\"end_length\": \"long\"}]}", "$.springs.chains[0].end_length: must be a number"},
      {"{\"chains\": [{\"enabled\": 1}]}", "$.springs.chains[0].enabled: must be true or false"},
      {"{\"chains\": [{\"colliders\": [0]}]}", "not an index"},
      {"{\"chains\": [{\"root\": \"H\", \"limit\": {\"kind\": \"twist\", \"angle\": 1}}]}", "\"twist\" is not"},
      {"{\"chains\": [{\"root\": \"H\", \"limit\": {\"kind\": \"cone\"}}]}", "missing \"angle\""},
      {"{\"chains\": [{\"root\": \"H\", \"limit\": {\"kind\": \"cone\", \"angle\": 4}}]}", "limit angle"},
      {"{\"chains\": [{\"root\": \"H\", \"limit\": {\"kind\": \"hinge\", \"angle\": 1, \"yaw\": 1}}]}",
       "only a spherical"},
      {"{\"chains\": [{\"root\": \"H\", \"limit\": {\"kind\": \"cone\", \"angle\": 1, \"rotation\": [0, 0, 0, 0.5]}}]}",
       "not a unit quaternion"},
      {"{\"chains\": [{\"limit\": {\"kind\": \"cone\", \"angle\": 1}}]}", "needs a named \"root\""},
      {"{\"chains\": [{\"joints\": [{\"bone\": \"B\", \"limit\": {\"kind\": \"cone\", \"angle\": 1}}]}]}",
       "joint limits need a named \"root\""},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": {}}]}", "$.springs.chains[0].joints: must be an array"},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": [{\"limit\": {\"kind\": \"cone\", \"angle\": 1}}]}]}",
       "$.springs.chains[0].joints[0]: missing \"bone\""},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": [{\"bone\": \"B\"}]}]}", "joints[0]: missing \"limit\""},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": [{\"bone\": \"B\", \"limt\": {}}]}]}", "joints[0].limt: unknown key"},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": [{\"bone\": \"B\", \"limit\": {\"kind\": \"cone\", \"angle\": 9}}]}]}",
       "limit angle"},
      {"{\"chains\": [{\"root\": \"H\", \"joints\": [{\"bone\": \"B\", \"limit\": {\"kind\": \"cone\", \"angle\": 1}}, "
       "{\"bone\": \"B\", \"limit\": {\"kind\": \"hinge\", \"angle\": 1}}]}]}",
       "joint 'B' limited twice"},
      {"{\"colliders\": [{\"shape\": \"sphere\", \"radius\": 1}], \"chains\": [{\"colliders\": [0, 0]}]}",
       "listed twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s}", KIT_SPRINGS_HEAD, bad[i].springs);
    tress_wire_manifest m;
    tress_error err = {0};
    { /* fails with a code, and err carries the same one */
      int rc = tress_manifest_json_parse(text, strlen(text), &m, &err);
      assert_int_not_equal(rc, 0);
      assert_int_equal(rc, err.code);
    }
    if (!strstr(err.message, bad[i].reason)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.message, bad[i].reason);
    assert_null(m.sections);
    assert_int_equal(m.section_count, 0);
  }
  /* the same shapes with good values load */
  char text[512];
  snprintf(text, sizeof text, "%s%s}", KIT_SPRINGS_HEAD,
           "{\"colliders\": [{\"shape\": \"sphere\", \"radius\": 1}], \"chains\": [{\"colliders\": [0]}]}");
  tress_wire_manifest m;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_parse(text, strlen(text), &m, &err), 0);
  assert_int_equal(m.section_count, 1);
  tress_manifest_json_free(&m);
}

/* Every key of every object in the samples, misspelled one at a time, is refused with its path. */
static int typo_sweep(cJSON *root, cJSON *obj, const char *path, int *checked) {
  int failures = 0;
  int index = 0;
  for (cJSON *c = obj->child; c; c = c->next, index++) {
    char child[128];
    if (cJSON_IsArray(obj)) snprintf(child, sizeof child, "%s[%d]", path, index);
    else snprintf(child, sizeof child, "%s.%s", path, c->string);
    if (cJSON_IsObject(obj) && strcmp(c->string, "$schema") != 0) {
      char *key = c->string, typo[96];
      size_t n = strlen(key);
      snprintf(typo, sizeof typo, "%.*s%c", (int)(n - 1), key, key[n - 1] == 'e' ? 'a' : 'e'); /* last letter changed */
      c->string = typo;
      char *text = cJSON_PrintUnformatted(root);
      c->string = key;
      tress_wire_manifest m;
      tress_error err = {0};
      char want[160];
      snprintf(want, sizeof want, "%s.%s: unknown key", path, typo);
      int rc = tress_manifest_json_parse(text, strlen(text), &m, &err);
      if (rc == 0 || !strstr(err.message, want)) {
        print_error("typo %s -> %s: rc %d, \"%s\" (wanted \"%s\")\n", child, typo, rc, err.message, want);
        failures++;
        if (rc == 0) tress_manifest_json_free(&m);
      }
      free(text);
      ++*checked;
    }
    if (cJSON_IsObject(c) || cJSON_IsArray(c)) failures += typo_sweep(root, c, child, checked);
  }
  return failures;
}

static void test_every_misspelled_key_refused_with_its_path(void **state) {
  (void)state;
  const char *files[] = {"assets/characters/ava.json", "assets/characters/kit.json", "assets/characters/bo.json"};
  int checked = 0, failures = 0;
  for (int i = 0; i < 3; i++) {
    size_t len = 0;
    uint8_t *text = tress_file_read(files[i], 1u << 20, &len, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_ParseWithLength((const char *)text, len);
    free(text);
    assert_non_null(root);
    failures += typo_sweep(root, root, "$", &checked);
    cJSON_Delete(root);
  }
  print_message("%d misspelled keys checked\n", checked);
  assert_true(checked > 60);
  assert_int_equal(failures, 0);
}

/* Errors name the JSON path of the value; syntax errors name line and column. */
static void test_errors_name_path_line_and_column(void **state) {
  (void)state;
  const struct {
    const char *text, *reason;
  } bad[] = {
      {"{\"character\": \"x\", \"accessories\": [{\"name\": \"h\", \"worn_on\": \"Nope\"}]}",
       "$.accessories[0].worn_on: names no part"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"Head\", \"size\": [1, 2]}]}", "$.parts[0].size: expected 3"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"Head\", \"rotation\": [0, 0, 0, 5]}]}",
       "$.parts[0].rotation: value: quaternion length 5 is not 1"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"Head\", \"size\": [1, -2, 1]}]}",
       "$.parts[0].size: value[1]: -2 is not in [0"},
      {"{\"character\": \"x\", \"chain_settings\": {\"damping\": 1.5}}", "$.chain_settings: chain damping: 1.5"},
      {"{\"character\": \"x\", \"chain_settings\": {\"radius\": 1}}", "$.chain_settings.radius: unknown key"},
      {"{\"character\": \"x\", \"rig\": {\"sectors\": 3.5}}", "$.rig.sectors: must be a whole number in 1..64"},
      {"{\"character\": \"x\", \"rig\": {\"sector\": 3}}", "$.rig.sector: unknown key (did you mean \"sectors\"?)"},
      {"{\"character\": \"x\", \"character\": \"y\"}", "$.character: key given twice"},
      {"{\"character\": \"x\", \"hair\": 1}", "$.hair: unknown key (known here: $schema, character, parts"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"Head\"}], \"accessories\": [{\"name\": \"h\", "
       "\"worn_on\": \"Head\", \"c0\": {\"position\": [0, 0, 0], \"rotaton\": [0, 0, 0, 1]}}]}",
       "$.accessories[0].c0.rotaton: unknown key (did you mean \"rotation\"?)"},
      {"{\"character\": 7}", "$.character: must be a string"},
      {"[]", "$: a manifest is a JSON object"},
      {"{\n  \"character\": \"x\",\n  \"parts\": [}\n", "line 3, column 13: not valid JSON near \"}\""},
      {"{\n  \"character\": \"x\",\n", "line 3, column 1: not valid JSON (the text ends early)"},
      {"{\"character\": \"x\"} {}", "line 1, column 20: text after the manifest's end near \"{}\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tress_wire_manifest m;
    tress_error err = {0};
    assert_int_not_equal(tress_manifest_json_parse(bad[i].text, strlen(bad[i].text), &m, &err), 0);
    if (!strstr(err.message, bad[i].reason)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.message, bad[i].reason);
    assert_null(m.parts);
  }
  /* a file's errors carry its name */
  tress_wire_manifest m;
  tress_error err = {0};
  assert_int_not_equal(tress_manifest_json_load("tests/manifests/bad/typo_handle_size.json", &m, &err), 0);
  assert_non_null(strstr(err.message, "typo_handle_size.json: $.accessories[0].handle_sise: unknown key"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_samples_load_and_round_trip),
                                     cmocka_unit_test(test_bad_manifests_refused),
                                     cmocka_unit_test(test_every_misspelled_key_refused_with_its_path),
                                     cmocka_unit_test(test_errors_name_path_line_and_column),
                                     cmocka_unit_test(test_springs_section_round_trip),
                                     cmocka_unit_test(test_bad_springs_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
