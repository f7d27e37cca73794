/* The JSON character manifests: the sample characters load, survive a save/load round trip, and
 * bad files are refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "server_harness.h"
#include "tress/manifest_json.h"

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
    char err[TRESS_MANIFEST_JSON_ERROR_MAX];
    assert_int_equal(tress_manifest_json_save(path, &a.spawn_character.manifest, err), 0);
    memset(&b, 0, sizeof b);
    b.type = TRESS_MSG_SPAWN_CHARACTER;
    b.spawn_character.request_id = 1;
    assert_int_equal(tress_manifest_json_load(path, &b.spawn_character.manifest, err), 0);
    assert_true(tress_msg_equal(&a, &b));
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
    char err[TRESS_MANIFEST_JSON_ERROR_MAX] = "";
    assert_int_equal(tress_manifest_json_parse(bad[i], strlen(bad[i]), &m, err), -1);
    assert_true(err[0] != '\0');
    assert_null(m.parts);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_samples_load_and_round_trip),
                                     cmocka_unit_test(test_bad_manifests_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
