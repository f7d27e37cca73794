/* test_enum_names.c - every public enum's text (docs/API.md, "Enum text"): each value has a name
 * of its own, not "unknown", distinct from its siblings; _from_name gives the value back; a value
 * outside the enum (the one after the last, and 0 where the enum starts at 1) is "unknown"; and
 * _from_name refuses NULL and unknown text without touching *out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tress/codec.h"
#include "tress/collider.h"
#include "tress/debug_draw.h"
#include "tress/msg.h"
#include "tress/plan.h"
#include "tress/pose.h"
#include "tress/result.h"
#include "tress/rig.h"
#include "tress/rope.h"
#include "tress/sample_hair.h"
#include "tress/scene.h"
#include "tress/sim.h"
#include "tress/spring_import.h"
#include "tress/wire_attachments.h"
#ifdef TRESS_TEST_HAVE_CLIENT
#include "tress/client.h"
#endif

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Names are static text: the same pointer's text stays; every value's differs from the others. */
static void check_names(const char *const *names, size_t n, const char *enum_name) {
  for (size_t i = 0; i < n; i++) {
    if (!names[i] || !names[i][0] || strcmp(names[i], "unknown") == 0)
      fail_msg("%s value %zu has no name of its own (\"%s\")", enum_name, i, names[i] ? names[i] : "(null)");
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) fail_msg("%s: two values are both \"%s\"", enum_name, names[i]);
  }
}

/* NAMES(type, fn, outside, values...): names every value, and the value `outside` is "unknown". */
#define NAMES(type, fn, outside, ...)                                                            \
  do {                                                                                           \
    const type all_[] = {__VA_ARGS__};                                                           \
    const char *names_[COUNT(all_)];                                                             \
    for (size_t i_ = 0; i_ < COUNT(all_); i_++) names_[i_] = fn(all_[i_]);                       \
    check_names(names_, COUNT(all_), #type);                                                     \
    assert_string_equal(fn((type)(outside)), "unknown");                                         \
  } while (0)

/* ROUND_TRIP(type, name_fn, from_fn, values...): from_name(name(v)) == v for each value; NULL and
 * unknown text are refused with *out untouched. */
#define ROUND_TRIP(type, name_fn, from_fn, ...)                                                  \
  do {                                                                                           \
    const type all_[] = {__VA_ARGS__};                                                           \
    for (size_t i_ = 0; i_ < COUNT(all_); i_++) {                                                \
      type back_ = all_[(i_ + 1) % COUNT(all_)];                                                 \
      assert_true(from_fn(name_fn(all_[i_]), &back_));                                           \
      assert_int_equal(back_, all_[i_]);                                                         \
    }                                                                                            \
    type kept_ = all_[0];                                                                        \
    assert_false(from_fn("no such name", &kept_));                                               \
    assert_false(from_fn("unknown", &kept_));                                                    \
    assert_false(from_fn(NULL, &kept_));                                                         \
    assert_false(from_fn(name_fn(all_[0]), NULL));                                               \
    assert_int_equal(kept_, all_[0]);                                                            \
  } while (0)

static void test_core_enums(void **state) {
  (void)state;
  NAMES(tress_result, tress_result_name, TRESS_ERR_NON_UNIFORM_SCALE + 1, TRESS_OK, TRESS_ERR_INVALID_ARGUMENT,
        TRESS_ERR_STALE_ID, TRESS_ERR_NOTHING_TO_BIND, TRESS_ERR_TOO_FEW_PARTS, TRESS_ERR_OUT_OF_MEMORY,
        TRESS_ERR_WRONG_OWNER, TRESS_ERR_NOT_CONNECTED, TRESS_ERR_ADDRESS, TRESS_ERR_NETWORK, TRESS_ERR_NOT_FOUND,
        TRESS_ERR_LIMIT, TRESS_ERR_PROTOCOL, TRESS_ERR_UNSUPPORTED, TRESS_ERR_PERMISSION, TRESS_ERR_NON_UNIFORM_SCALE);
  ROUND_TRIP(tress_result, tress_result_name, tress_result_from_name, TRESS_OK, TRESS_ERR_STALE_ID,
             TRESS_ERR_NON_UNIFORM_SCALE);

  NAMES(tress_kind, tress_kind_name, TRESS_KIND_WRAP_LAYER + 1, TRESS_KIND_ROOT, TRESS_KIND_FOLDER, TRESS_KIND_MODEL,
        TRESS_KIND_PART, TRESS_KIND_BONE, TRESS_KIND_ACCESSORY, TRESS_KIND_ATTACHMENT, TRESS_KIND_JOINT,
        TRESS_KIND_WRAP_LAYER);
  assert_string_equal(tress_kind_name(TRESS_KIND_WRAP_LAYER), "wrap_layer");

#define ACCESSORY_TYPES                                                                                        \
  TRESS_ACCESSORY_UNKNOWN, TRESS_ACCESSORY_HAIR, TRESS_ACCESSORY_HAT, TRESS_ACCESSORY_NECK,                     \
      TRESS_ACCESSORY_SHOULDER, TRESS_ACCESSORY_FRONT, TRESS_ACCESSORY_BACK, TRESS_ACCESSORY_WAIST,             \
      TRESS_ACCESSORY_FACE, TRESS_ACCESSORY_SHIRT, TRESS_ACCESSORY_PANTS, TRESS_ACCESSORY_JACKET,               \
      TRESS_ACCESSORY_SWEATER, TRESS_ACCESSORY_SHORTS, TRESS_ACCESSORY_LEFT_SHOE, TRESS_ACCESSORY_RIGHT_SHOE,   \
      TRESS_ACCESSORY_DRESS_SKIRT, TRESS_ACCESSORY_EYEBROW, TRESS_ACCESSORY_EYELASH
  NAMES(tress_accessory_type, tress_accessory_type_name, TRESS_ACCESSORY_TYPE_COUNT, ACCESSORY_TYPES);
  ROUND_TRIP(tress_accessory_type, tress_accessory_type_name, tress_accessory_type_from_name, ACCESSORY_TYPES);
  assert_string_equal(tress_accessory_type_name(TRESS_ACCESSORY_LEFT_SHOE), "LeftShoe"); /* the engine's spelling */

#define JOINT_KINDS TRESS_JOINT_WELD, TRESS_JOINT_MOTOR6D, TRESS_JOINT_RIGID_CONSTRAINT, TRESS_JOINT_WELD_CONSTRAINT
  NAMES(tress_joint_kind, tress_joint_kind_name, TRESS_JOINT_WELD_CONSTRAINT + 1, JOINT_KINDS);
  ROUND_TRIP(tress_joint_kind, tress_joint_kind_name, tress_joint_kind_from_name, JOINT_KINDS);
  assert_string_equal(tress_joint_kind_name(TRESS_JOINT_MOTOR6D), "Motor6D");

  NAMES(tress_event, tress_event_name, TRESS_EVENT_ANCESTRY_CHANGED + 1, TRESS_EVENT_DESTROYING,
        TRESS_EVENT_ANCESTRY_CHANGED);
  assert_string_equal(tress_event_name((tress_event)0), "unknown");
}

static void test_sim_enums(void **state) {
  (void)state;
  NAMES(tress_sim_role, tress_sim_role_name, TRESS_SIM_SERVER + 1, TRESS_SIM_CLIENT, TRESS_SIM_SERVER);
  NAMES(tress_spring_model, tress_spring_model_name, TRESS_SPRING_VRM + 1, TRESS_SPRING_POSE, TRESS_SPRING_VRM);
  NAMES(tress_vrm_length, tress_vrm_length_name, TRESS_VRM_LENGTH_THREE_VRM + 1, TRESS_VRM_LENGTH_FIXED,
        TRESS_VRM_LENGTH_THREE_VRM);
  ROUND_TRIP(tress_vrm_length, tress_vrm_length_name, tress_vrm_length_from_name, TRESS_VRM_LENGTH_FIXED,
             TRESS_VRM_LENGTH_THREE_VRM);
#define LIMIT_KINDS TRESS_LIMIT_NONE, TRESS_LIMIT_CONE, TRESS_LIMIT_HINGE, TRESS_LIMIT_SPHERICAL
  NAMES(tress_limit_kind, tress_limit_kind_name, TRESS_LIMIT_SPHERICAL + 1, LIMIT_KINDS);
  ROUND_TRIP(tress_limit_kind, tress_limit_kind_name, tress_limit_kind_from_name, LIMIT_KINDS);
  NAMES(tress_collider_shape, tress_collider_shape_name, TRESS_COLLIDER_INSIDE_CAPSULE + 1, TRESS_COLLIDER_SPHERE,
        TRESS_COLLIDER_CAPSULE, TRESS_COLLIDER_PLANE, TRESS_COLLIDER_INSIDE_SPHERE, TRESS_COLLIDER_INSIDE_CAPSULE);
  NAMES(tress_bone_pose_space, tress_bone_pose_space_name, TRESS_BONE_POSE_LOCAL + 1, TRESS_BONE_POSE_ANIMATED,
        TRESS_BONE_POSE_LOCAL);
  NAMES(tress_relax_mode, tress_relax_mode_name, TRESS_RELAX_JACOBI + 1, TRESS_RELAX_DIRECT,
        TRESS_RELAX_GAUSS_SEIDEL, TRESS_RELAX_JACOBI);
  NAMES(tress_rope_lod, tress_rope_lod_name, TRESS_ROPE_FROZEN + 1, TRESS_ROPE_FULL, TRESS_ROPE_REDUCED,
        TRESS_ROPE_FROZEN);
  NAMES(tress_debug_shape_kind, tress_debug_shape_kind_name, TRESS_DEBUG_PLANE + 1, TRESS_DEBUG_LINE,
        TRESS_DEBUG_POINT, TRESS_DEBUG_SPHERE, TRESS_DEBUG_CAPSULE, TRESS_DEBUG_PLANE);
  NAMES(tress_debug_role, tress_debug_role_name, TRESS_DEBUG_PENDULUM + 1, TRESS_DEBUG_BONE_ANIMATED,
        TRESS_DEBUG_BONE_SIMULATED, TRESS_DEBUG_STRAND_RADIUS, TRESS_DEBUG_END_TIP, TRESS_DEBUG_COLLIDER,
        TRESS_DEBUG_ROPE, TRESS_DEBUG_CLOTH, TRESS_DEBUG_PENDULUM);
  NAMES(tress_spring_source, tress_spring_source_name, TRESS_SPRING_FROM_NAME + 1, TRESS_SPRING_FROM_VRM1,
        TRESS_SPRING_FROM_VRM0, TRESS_SPRING_FROM_EXTRAS, TRESS_SPRING_FROM_NAME);
}

static void test_rig_enums(void **state) {
  (void)state;
  NAMES(tress_plan_status, tress_plan_status_name, TRESS_PLAN_ERR_NO_MEMORY + 1, TRESS_PLAN_OK,
        TRESS_PLAN_ERR_EMPTY, TRESS_PLAN_ERR_NOT_FINITE, TRESS_PLAN_ERR_ABOVE_ROOT, TRESS_PLAN_ERR_OPTIONS,
        TRESS_PLAN_ERR_NO_ROOT, TRESS_PLAN_ERR_NO_MEMORY);
  NAMES(tress_plan_mode, tress_plan_mode_name, TRESS_PLAN_MODE_STRANDS + 1, TRESS_PLAN_MODE_SECTORS,
        TRESS_PLAN_MODE_STRANDS);
  ROUND_TRIP(tress_plan_mode, tress_plan_mode_name, tress_plan_mode_from_name, TRESS_PLAN_MODE_SECTORS,
             TRESS_PLAN_MODE_STRANDS);
  /* flags: each one has a name; the next bit and a combination of two are "unknown" */
  NAMES(tress_plan_warning, tress_plan_warning_name, TRESS_PLAN_WARN_OPTION_CLAMPED << 1, TRESS_PLAN_WARN_NO_STRANDS,
        TRESS_PLAN_WARN_EMPTY_SECTOR, TRESS_PLAN_WARN_EMPTY_BANDS, TRESS_PLAN_WARN_NO_GROUPS,
        TRESS_PLAN_WARN_OPTION_CLAMPED);
  assert_string_equal(tress_plan_warning_name((tress_plan_warning)(TRESS_PLAN_WARN_NO_STRANDS | TRESS_PLAN_WARN_NO_GROUPS)),
                      "unknown");
  NAMES(tress_rig_status, tress_rig_status_name, TRESS_RIG_ERR_BAD_PART + 1, TRESS_RIG_OK, TRESS_RIG_ERR_NO_MESH,
        TRESS_RIG_ERR_NO_PERMISSION, TRESS_RIG_ERR_BUDGET, TRESS_RIG_ERR_PLAN, TRESS_RIG_ERR_BAKE,
        TRESS_RIG_ERR_NO_MEMORY, TRESS_RIG_ERR_BAD_PART);
#define HAIR_STYLES TRESS_SAMPLE_HAIR_BOB, TRESS_SAMPLE_HAIR_PONYTAIL, TRESS_SAMPLE_HAIR_LONG, TRESS_SAMPLE_HAIR_AFRO
  NAMES(tress_sample_hair_style, tress_sample_hair_style_name, TRESS_SAMPLE_HAIR_STYLE_COUNT, HAIR_STYLES);
  ROUND_TRIP(tress_sample_hair_style, tress_sample_hair_style_name, tress_sample_hair_style_from_name, HAIR_STYLES);
}

static void test_protocol_enums(void **state) {
  (void)state;
  NAMES(tress_channel, tress_channel_name, TRESS_CHANNEL_COUNT, TRESS_CHANNEL_CONTROL, TRESS_CHANNEL_BULK);
  NAMES(tress_msg_type, tress_msg_type_name, TRESS_MSG_TYPE_MAX + 1, TRESS_MSG_HELLO, TRESS_MSG_WELCOME,
        TRESS_MSG_REJECT, TRESS_MSG_JOIN_ROOM, TRESS_MSG_ROOM_JOINED, TRESS_MSG_SPAWN_CHARACTER,
        TRESS_MSG_DESPAWN_CHARACTER, TRESS_MSG_CHARACTER_ADDED, TRESS_MSG_CHARACTER_REMOVED, TRESS_MSG_RIG_RESULT,
        TRESS_MSG_RIG_FAILED, TRESS_MSG_BIND, TRESS_MSG_SETTINGS_UPDATE, TRESS_MSG_ERROR, TRESS_MSG_REDIRECT);
  assert_string_equal(tress_msg_type_name((tress_msg_type)0), "unknown");
  NAMES(tress_wire_code, tress_wire_code_name, TRESS_CODE_COUNT, TRESS_CODE_NONE, TRESS_CODE_MALFORMED,
        TRESS_CODE_UNKNOWN_TYPE, TRESS_CODE_TOO_LARGE, TRESS_CODE_BAD_VERSION, TRESS_CODE_AUTH_FAILED,
        TRESS_CODE_UNEXPECTED_MESSAGE, TRESS_CODE_NOT_IN_ROOM, TRESS_CODE_ALREADY_IN_ROOM, TRESS_CODE_ROOM_FULL,
        TRESS_CODE_UNKNOWN_CHARACTER, TRESS_CODE_NOT_OWNER, TRESS_CODE_RATE_LIMITED, TRESS_CODE_UNKNOWN_ASSET,
        TRESS_CODE_ASSET_PATH_REJECTED, TRESS_CODE_RIG_FAILED, TRESS_CODE_SERVER_SHUTTING_DOWN,
        TRESS_CODE_SERVER_FULL, TRESS_CODE_CHARACTER_LIMIT, TRESS_CODE_BAD_MANIFEST, TRESS_CODE_INTERNAL,
        TRESS_CODE_OUT_OF_MEMORY);
  NAMES(tress_wire_status, tress_wire_status_name, TRESS_WIRE_ERR_EMPTY_STRING + 1, TRESS_WIRE_OK,
        TRESS_WIRE_ERR_TRUNCATED, TRESS_WIRE_ERR_TRAILING_BYTES, TRESS_WIRE_ERR_UNKNOWN_TYPE, TRESS_WIRE_ERR_TOO_LARGE,
        TRESS_WIRE_ERR_COUNT_OVER_LIMIT, TRESS_WIRE_ERR_STRING_TOO_LONG, TRESS_WIRE_ERR_BAD_UTF8,
        TRESS_WIRE_ERR_EMBEDDED_NUL, TRESS_WIRE_ERR_BAD_FLOAT, TRESS_WIRE_ERR_BAD_QUATERNION, TRESS_WIRE_ERR_BAD_ENUM,
        TRESS_WIRE_ERR_BAD_INDEX, TRESS_WIRE_ERR_BAD_WEIGHTS, TRESS_WIRE_ERR_BAD_VERSION,
        TRESS_WIRE_ERR_BAD_COMPRESSION, TRESS_WIRE_ERR_UNSUPPORTED, TRESS_WIRE_ERR_OUT_OF_MEMORY,
        TRESS_WIRE_ERR_BUFFER_TOO_SMALL, TRESS_WIRE_ERR_INVALID_MESSAGE, TRESS_WIRE_ERR_EMPTY_STRING);
  NAMES(tress_weight_format, tress_weight_format_name, TRESS_WEIGHTS_U16 + 1, TRESS_WEIGHTS_U8, TRESS_WEIGHTS_U16);
  assert_string_equal(tress_weight_format_name((tress_weight_format)0), "unknown");
  NAMES(tress_compression, tress_compression_name, TRESS_COMPRESSION_ZSTD + 1, TRESS_COMPRESSION_NONE,
        TRESS_COMPRESSION_ZSTD);
  NAMES(tress_removed_reason, tress_removed_reason_name, TRESS_REMOVED_SERVER + 1, TRESS_REMOVED_DESPAWNED,
        TRESS_REMOVED_OWNER_LEFT, TRESS_REMOVED_SERVER);
  NAMES(tress_match_policy, tress_match_policy_name, TRESS_MATCH_EXPLICIT + 1, TRESS_MATCH_DEFAULT,
        TRESS_MATCH_HAIR_ONLY, TRESS_MATCH_EXPLICIT);
#define CLOTH_EDGES TRESS_CLOTH_EDGE_TOP, TRESS_CLOTH_EDGE_BOTTOM, TRESS_CLOTH_EDGE_LEFT, TRESS_CLOTH_EDGE_RIGHT
  NAMES(tress_wire_cloth_edge, tress_wire_cloth_edge_name, TRESS_CLOTH_EDGE_RIGHT + 1, CLOTH_EDGES);
  ROUND_TRIP(tress_wire_cloth_edge, tress_wire_cloth_edge_name, tress_wire_cloth_edge_from_name, CLOTH_EDGES);
}

#ifdef TRESS_TEST_HAVE_CLIENT
static void test_client_enums(void **state) {
  (void)state;
  NAMES(tress_client_state, tress_client_state_name, TRESS_CLIENT_BACKOFF + 1, TRESS_CLIENT_IDLE,
        TRESS_CLIENT_CONNECTING, TRESS_CLIENT_HELLO_SENT, TRESS_CLIENT_JOINING, TRESS_CLIENT_READY,
        TRESS_CLIENT_BACKOFF);
  NAMES(tress_client_error_kind, tress_client_error_kind_name, TRESS_CLIENT_ERROR_WARNING + 1,
        TRESS_CLIENT_ERROR_PROTOCOL, TRESS_CLIENT_ERROR_SERVER, TRESS_CLIENT_ERROR_WARNING);
  assert_string_equal(tress_client_error_kind_name((tress_client_error_kind)0), "unknown");
  NAMES(tress_client_rig_state, tress_client_rig_state_name, TRESS_RIG_FALLBACK + 1, TRESS_RIG_NONE,
        TRESS_RIG_PENDING, TRESS_RIG_APPLIED, TRESS_RIG_FALLBACK);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_core_enums),
      cmocka_unit_test(test_sim_enums),
      cmocka_unit_test(test_rig_enums),
      cmocka_unit_test(test_protocol_enums),
#ifdef TRESS_TEST_HAVE_CLIENT
      cmocka_unit_test(test_client_enums),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
