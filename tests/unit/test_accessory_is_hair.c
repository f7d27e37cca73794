/* test_accessory_is_hair.c - tress_accessory_is_hair, HairKit's default match that the hair
 * manager, the rig server (what it rigs) and the client (what it waits for) share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tress/hair_manager.h"

static void test_hair_type_matches_whatever_the_name(void **state) {
  (void)state;
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAIR, "Ponytail"));
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAIR, ""));
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAIR, NULL));
}

static void test_hair_in_the_name_matches_in_any_case(void **state) {
  (void)state;
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "Hair"));
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "LongHAIRAccessory"));
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "bob_hair"));
  assert_true(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "Chair")); /* a substring match, as HairKit's */
}

static void test_other_names_do_not_match(void **state) {
  (void)state;
  assert_false(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "Hat"));
  assert_false(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "hai"));
  assert_false(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, "h-a-i-r"));
  assert_false(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, ""));
  assert_false(tress_accessory_is_hair(TRESS_ACCESSORY_HAT, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hair_type_matches_whatever_the_name),
      cmocka_unit_test(test_hair_in_the_name_matches_in_any_case),
      cmocka_unit_test(test_other_names_do_not_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
