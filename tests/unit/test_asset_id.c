/* test_asset_id.c - tress_asset_id_is_valid, the one asset-id rule of the server's store and the
 * client's local copies. The server used to accept ids the client refused ("hair..v2.glb") and
 * the client ids the server refused ("a//b", "a/./b", spaces, UTF-8): those cases first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tress/msg.h"

static void test_ids_the_two_ends_disagreed_on(void **state) {
  (void)state;
  /* the client refused any "..", though only a ".." component leaves the folder */
  assert_true(tress_asset_id_is_valid("hair..v2.glb"));
  assert_true(tress_asset_id_is_valid("meshes/bob...obj"));
  /* the client accepted these; each names a folder, an empty component or bytes outside the alphabet */
  assert_false(tress_asset_id_is_valid("meshes//bob.glb"));
  assert_false(tress_asset_id_is_valid("meshes/./bob.glb"));
  assert_false(tress_asset_id_is_valid("./bob.glb"));
  assert_false(tress_asset_id_is_valid("meshes/"));
  assert_false(tress_asset_id_is_valid("meshes/bob hair.glb"));
  assert_false(tress_asset_id_is_valid("meshes/b\xc3\xb6" "b.glb"));
  assert_false(tress_asset_id_is_valid("meshes/bob\t.glb"));
  assert_false(tress_asset_id_is_valid("meshes/bob.glb\n"));
}

static void test_ids_both_ends_refused(void **state) {
  (void)state;
  assert_false(tress_asset_id_is_valid(NULL));
  assert_false(tress_asset_id_is_valid(""));
  assert_false(tress_asset_id_is_valid("/etc/passwd"));
  assert_false(tress_asset_id_is_valid("../secret.glb"));
  assert_false(tress_asset_id_is_valid("meshes/../../secret.glb"));
  assert_false(tress_asset_id_is_valid(".."));
  assert_false(tress_asset_id_is_valid("meshes\\bob.glb"));
  assert_false(tress_asset_id_is_valid("C:bob.glb"));
}

static void test_plain_ids_are_valid(void **state) {
  (void)state;
  assert_true(tress_asset_id_is_valid("bob.glb"));
  assert_true(tress_asset_id_is_valid("meshes/bob.glb"));
  assert_true(tress_asset_id_is_valid("a/b-c/D_9.obj"));
  assert_true(tress_asset_id_is_valid(".hidden/x.glb")); /* a dot file is a name, not a folder */
}

static void test_length_limit_is_the_wire_text_limit(void **state) {
  (void)state;
  char id[TRESS_WIRE_TEXT_CAP + 8];
  memset(id, 'a', sizeof id);
  id[TRESS_WIRE_MAX_TEXT_BYTES] = '\0'; /* the longest id the wire carries */
  assert_true(tress_asset_id_is_valid(id));
  id[TRESS_WIRE_MAX_TEXT_BYTES] = 'a';
  id[TRESS_WIRE_MAX_TEXT_BYTES + 1] = '\0';
  assert_false(tress_asset_id_is_valid(id));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_the_two_ends_disagreed_on),
      cmocka_unit_test(test_ids_both_ends_refused),
      cmocka_unit_test(test_plain_ids_are_valid),
      cmocka_unit_test(test_length_limit_is_the_wire_text_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
