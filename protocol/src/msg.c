/* msg.c - names, defaults and limits of the wire messages, the decoder's arena, and equality.
 *
 * Decoded messages own their variable-length arrays through a tiny arena: a chain of calloc'd
 * blocks hung off msg->arena, one per array, released together by tress_msg_free. Caller-built
 * messages leave arena NULL, so tress_msg_free never touches a caller's arrays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire_internal.h"

const char *tress_msg_type_name(tress_msg_type type) {
  switch (type) {
  case TRESS_MSG_HELLO: return "HELLO";
  case TRESS_MSG_WELCOME: return "WELCOME";
  case TRESS_MSG_REJECT: return "REJECT";
  case TRESS_MSG_JOIN_ROOM: return "JOIN_ROOM";
  case TRESS_MSG_ROOM_JOINED: return "ROOM_JOINED";
  case TRESS_MSG_SPAWN_CHARACTER: return "SPAWN_CHARACTER";
  case TRESS_MSG_DESPAWN_CHARACTER: return "DESPAWN_CHARACTER";
  case TRESS_MSG_CHARACTER_ADDED: return "CHARACTER_ADDED";
  case TRESS_MSG_CHARACTER_REMOVED: return "CHARACTER_REMOVED";
  case TRESS_MSG_RIG_RESULT: return "RIG_RESULT";
  case TRESS_MSG_RIG_FAILED: return "RIG_FAILED";
  case TRESS_MSG_BIND: return "BIND";
  case TRESS_MSG_SETTINGS_UPDATE: return "SETTINGS_UPDATE";
  case TRESS_MSG_ERROR: return "ERROR";
  case TRESS_MSG_REDIRECT: return "REDIRECT";
  }
  return "unknown";
}

const char *tress_wire_code_name(tress_wire_code code) {
  static const char *const names[TRESS_CODE_COUNT] = {
      "NONE", "MALFORMED", "UNKNOWN_TYPE", "TOO_LARGE", "BAD_VERSION", "AUTH_FAILED",
      "UNEXPECTED_MESSAGE", "NOT_IN_ROOM", "ALREADY_IN_ROOM", "ROOM_FULL", "UNKNOWN_CHARACTER",
      "NOT_OWNER", "RATE_LIMITED", "UNKNOWN_ASSET", "ASSET_PATH_REJECTED", "RIG_FAILED",
      "SERVER_SHUTTING_DOWN", "SERVER_FULL", "CHARACTER_LIMIT", "BAD_MANIFEST", "INTERNAL",
      "OUT_OF_MEMORY", "TOKEN_MALFORMED", "TOKEN_BAD_SIGNATURE", "TOKEN_EXPIRED", "TOKEN_LIFETIME_TOO_LONG",
      "TOKEN_REPLAYED", "TOKEN_WRONG_ROOM",
  };
  if ((unsigned)code < TRESS_CODE_COUNT) return names[code];
  return "unknown";
}

const char *tress_wire_status_name(tress_wire_status s) {
  switch (s) {
  case TRESS_WIRE_OK: return "OK";
  case TRESS_WIRE_ERR_TRUNCATED: return "TRUNCATED";
  case TRESS_WIRE_ERR_TRAILING_BYTES: return "TRAILING_BYTES";
  case TRESS_WIRE_ERR_UNKNOWN_TYPE: return "UNKNOWN_TYPE";
  case TRESS_WIRE_ERR_TOO_LARGE: return "TOO_LARGE";
  case TRESS_WIRE_ERR_COUNT_OVER_LIMIT: return "COUNT_OVER_LIMIT";
  case TRESS_WIRE_ERR_STRING_TOO_LONG: return "STRING_TOO_LONG";
  case TRESS_WIRE_ERR_BAD_UTF8: return "BAD_UTF8";
  case TRESS_WIRE_ERR_EMBEDDED_NUL: return "EMBEDDED_NUL";
  case TRESS_WIRE_ERR_BAD_FLOAT: return "BAD_FLOAT";
  case TRESS_WIRE_ERR_BAD_QUATERNION: return "BAD_QUATERNION";
  case TRESS_WIRE_ERR_BAD_ENUM: return "BAD_ENUM";
  case TRESS_WIRE_ERR_BAD_INDEX: return "BAD_INDEX";
  case TRESS_WIRE_ERR_BAD_WEIGHTS: return "BAD_WEIGHTS";
  case TRESS_WIRE_ERR_BAD_VERSION: return "BAD_VERSION";
  case TRESS_WIRE_ERR_BAD_COMPRESSION: return "BAD_COMPRESSION";
  case TRESS_WIRE_ERR_UNSUPPORTED: return "UNSUPPORTED";
  case TRESS_WIRE_ERR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
  case TRESS_WIRE_ERR_BUFFER_TOO_SMALL: return "BUFFER_TOO_SMALL";
  case TRESS_WIRE_ERR_INVALID_MESSAGE: return "INVALID_MESSAGE";
  case TRESS_WIRE_ERR_EMPTY_STRING: return "EMPTY_STRING";
  }
  return "unknown";
}

const char *tress_channel_name(tress_channel channel) {
  switch (channel) {
  case TRESS_CHANNEL_CONTROL: return "control";
  case TRESS_CHANNEL_BULK: return "bulk";
  case TRESS_CHANNEL_COUNT: break;
  }
  return "unknown";
}

const char *tress_weight_format_name(tress_weight_format format) {
  switch (format) {
  case TRESS_WEIGHTS_U8: return "u8";
  case TRESS_WEIGHTS_U16: return "u16";
  }
  return "unknown";
}

const char *tress_compression_name(tress_compression compression) {
  switch (compression) {
  case TRESS_COMPRESSION_NONE: return "none";
  case TRESS_COMPRESSION_ZSTD: return "zstd";
  }
  return "unknown";
}

const char *tress_removed_reason_name(tress_removed_reason reason) {
  switch (reason) {
  case TRESS_REMOVED_DESPAWNED: return "despawned";
  case TRESS_REMOVED_OWNER_LEFT: return "owner_left";
  case TRESS_REMOVED_SERVER: return "server";
  }
  return "unknown";
}

const char *tress_match_policy_name(tress_match_policy policy) {
  switch (policy) {
  case TRESS_MATCH_DEFAULT: return "default";
  case TRESS_MATCH_HAIR_ONLY: return "hair_only";
  case TRESS_MATCH_EXPLICIT: return "explicit";
  }
  return "unknown";
}

tress_result tress_wire_status_to_result(tress_wire_status s) {
  switch (s) {
  case TRESS_WIRE_OK: return TRESS_OK;
  case TRESS_WIRE_ERR_OUT_OF_MEMORY: return TRESS_ERR_OUT_OF_MEMORY;
  case TRESS_WIRE_ERR_UNSUPPORTED: return TRESS_ERR_UNSUPPORTED;
  case TRESS_WIRE_ERR_BUFFER_TOO_SMALL: return TRESS_ERR_INVALID_ARGUMENT;
  default: return TRESS_ERR_PROTOCOL;
  }
}

tress_wire_status wire_fail(tress_wire_error *err, tress_wire_status status, size_t offset, const char *fmt, ...) {
  if (err && err->status == TRESS_WIRE_OK) {
    err->status = status;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

tress_wire_rig_options tress_default_wire_rig_options(void) {
  tress_wire_rig_options o = {0};
  o.sectors = 3;
  o.segments = 3;
  o.max_influences = 2;
  o.axis[1] = -1.0f;
  return o;
}

tress_wire_limits tress_default_wire_limits(void) {
  tress_wire_limits l = {0};
  l.max_control_message_bytes = TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES;
  l.max_bulk_message_bytes = TRESS_WIRE_MAX_BULK_MESSAGE_BYTES;
  l.max_vertices = TRESS_WIRE_MAX_VERTICES;
  l.max_bones = TRESS_WIRE_MAX_BONES;
  l.max_parts = TRESS_WIRE_MAX_PARTS;
  l.max_accessories = TRESS_WIRE_MAX_ACCESSORIES;
  l.max_room_peers = TRESS_WIRE_MAX_ROOM_PEERS;
  l.max_characters_per_peer = 8;
  l.max_name_bytes = TRESS_WIRE_MAX_NAME_BYTES;
  l.max_text_bytes = TRESS_WIRE_MAX_TEXT_BYTES;
  return l;
}

tress_channel tress_msg_type_get_channel(tress_msg_type type) {
  return type == TRESS_MSG_RIG_RESULT ? TRESS_CHANNEL_BULK : TRESS_CHANNEL_CONTROL;
}

size_t tress_msg_type_get_max_bytes(tress_msg_type type) {
  return type == TRESS_MSG_RIG_RESULT ? TRESS_WIRE_MAX_BULK_MESSAGE_BYTES : TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES;
}

/* ---- arena --------------------------------------------------------------------------------- */

typedef struct wire_block {
  struct wire_block *next;
  max_align_t data[];
} wire_block;

void *wire_arena_alloc(void **arena, size_t bytes) {
  if (bytes > SIZE_MAX - sizeof(wire_block)) return NULL;
  wire_block *b = calloc(1, sizeof(wire_block) + (bytes ? bytes : 1));
  if (!b) return NULL;
  b->next = *arena;
  *arena = b;
  return b->data;
}

void wire_arena_release(void **arena) {
  wire_block *b = *arena;
  while (b) {
    wire_block *next = b->next;
    free(b);
    b = next;
  }
  *arena = NULL;
}

void tress_msg_free(tress_msg *msg) {
  if (!msg) return;
  wire_arena_release(&msg->arena);
  memset(msg, 0, sizeof *msg);
}

/* ---- equality ------------------------------------------------------------------------------ */

static bool floats_equal(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

static bool xform_equal(const tress_xform *a, const tress_xform *b) {
  return floats_equal(a->p, b->p, 3) && floats_equal(a->q, b->q, 4);
}

static bool chain_equal(const tress_chain_settings *a, const tress_chain_settings *b) {
  return a->damping == b->damping && a->stiffness == b->stiffness && a->gravity_scale == b->gravity_scale &&
         a->wind_scale == b->wind_scale;
}

static bool accessory_settings_equal(const tress_accessory_settings *a, const tress_accessory_settings *b) {
  return a->damping == b->damping && a->stiffness == b->stiffness && a->gravity_scale == b->gravity_scale &&
         a->wind_scale == b->wind_scale && a->max_swing_degrees == b->max_swing_degrees;
}

static bool rig_options_equal(const tress_wire_rig_options *a, const tress_wire_rig_options *b) {
  return a->sectors == b->sectors && a->segments == b->segments && a->max_influences == b->max_influences &&
         floats_equal(a->axis, b->axis, 3) && a->has_root == b->has_root && floats_equal(a->root, b->root, 3);
}

static bool sections_equal(uint32_t na, const tress_wire_section *a, uint32_t nb, const tress_wire_section *b) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++) {
    if (a[i].tag != b[i].tag || a[i].length != b[i].length) return false;
    if (a[i].length && memcmp(a[i].bytes, b[i].bytes, a[i].length) != 0) return false;
  }
  return true;
}

static bool manifest_equal(const tress_wire_manifest *a, const tress_wire_manifest *b) {
  if (strcmp(a->character_name, b->character_name) || a->part_count != b->part_count ||
      a->accessory_count != b->accessory_count)
    return false;
  for (uint32_t i = 0; i < a->part_count; i++) {
    const tress_wire_part *pa = &a->parts[i], *pb = &b->parts[i];
    if (strcmp(pa->name, pb->name) || !floats_equal(pa->size, pb->size, 3) || !xform_equal(&pa->cframe, &pb->cframe))
      return false;
  }
  for (uint32_t i = 0; i < a->accessory_count; i++) {
    const tress_wire_accessory *x = &a->accessories[i], *y = &b->accessories[i];
    if (strcmp(x->name, y->name) || x->type != y->type || strcmp(x->mesh_asset_id, y->mesh_asset_id) ||
        !floats_equal(x->handle_size, y->handle_size, 3) || !xform_equal(&x->handle_cframe, &y->handle_cframe) ||
        x->joint_kind != y->joint_kind || !xform_equal(&x->c0, &y->c0) || !xform_equal(&x->c1, &y->c1) ||
        x->worn_on != y->worn_on || x->layered != y->layered || x->handle_has_bones != y->handle_has_bones)
      return false;
  }
  if (a->has_chain_settings != b->has_chain_settings ||
      (a->has_chain_settings && !chain_equal(&a->chain_settings, &b->chain_settings)))
    return false;
  if (a->has_accessory_settings != b->has_accessory_settings ||
      (a->has_accessory_settings && !accessory_settings_equal(&a->accessory_settings, &b->accessory_settings)))
    return false;
  if (a->has_rig_options != b->has_rig_options ||
      (a->has_rig_options && !rig_options_equal(&a->rig_options, &b->rig_options)))
    return false;
  return sections_equal(a->section_count, a->sections, b->section_count, b->sections);
}

static bool skin_equal(const tress_wire_skin *a, const tress_wire_skin *b) {
  if (a->vertex_count != b->vertex_count || a->influences != b->influences || a->weight_format != b->weight_format)
    return false;
  for (uint32_t v = 0; v < a->vertex_count; v++) {
    for (uint32_t s = 0; s < a->influences; s++) {
      size_t i = (size_t)v * 4 + s;
      if (a->joints[i] != b->joints[i] || a->weights[i] != b->weights[i]) return false;
    }
  }
  return true;
}

bool tress_msg_is_equal(const tress_msg *a, const tress_msg *b) {
  if (a->type != b->type) return false;
  switch (a->type) {
  case TRESS_MSG_HELLO:
    return a->hello.version_major == b->hello.version_major && a->hello.version_minor == b->hello.version_minor &&
           !strcmp(a->hello.client_name, b->hello.client_name) && !strcmp(a->hello.auth_token, b->hello.auth_token);
  case TRESS_MSG_WELCOME: {
    const tress_msg_welcome *x = &a->welcome, *y = &b->welcome;
    const tress_wire_limits *l = &x->limits, *m = &y->limits;
    return x->version_major == y->version_major && x->version_minor == y->version_minor &&
           !strcmp(x->server_version, y->server_version) && x->session_id == y->session_id &&
           x->peer_id == y->peer_id && l->max_control_message_bytes == m->max_control_message_bytes &&
           l->max_bulk_message_bytes == m->max_bulk_message_bytes && l->max_vertices == m->max_vertices &&
           l->max_bones == m->max_bones && l->max_parts == m->max_parts && l->max_accessories == m->max_accessories &&
           l->max_room_peers == m->max_room_peers && l->max_characters_per_peer == m->max_characters_per_peer &&
           l->max_name_bytes == m->max_name_bytes && l->max_text_bytes == m->max_text_bytes;
  }
  case TRESS_MSG_REJECT:
    return a->reject.code == b->reject.code && a->reject.server_major == b->reject.server_major &&
           a->reject.server_minor == b->reject.server_minor && !strcmp(a->reject.reason, b->reject.reason);
  case TRESS_MSG_JOIN_ROOM: return !strcmp(a->join_room.room, b->join_room.room);
  case TRESS_MSG_ROOM_JOINED: {
    const tress_msg_room_joined *x = &a->room_joined, *y = &b->room_joined;
    if (strcmp(x->room, y->room) || x->member_count != y->member_count) return false;
    for (uint32_t i = 0; i < x->member_count; i++)
      if (x->members[i].peer_id != y->members[i].peer_id || strcmp(x->members[i].name, y->members[i].name))
        return false;
    return true;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    return a->spawn_character.request_id == b->spawn_character.request_id &&
           manifest_equal(&a->spawn_character.manifest, &b->spawn_character.manifest);
  case TRESS_MSG_DESPAWN_CHARACTER: return a->despawn_character.character_id == b->despawn_character.character_id;
  case TRESS_MSG_CHARACTER_ADDED: {
    const tress_msg_character_added *x = &a->character_added, *y = &b->character_added;
    return x->character_id == y->character_id && x->owner_peer_id == y->owner_peer_id &&
           x->request_id == y->request_id && manifest_equal(&x->manifest, &y->manifest);
  }
  case TRESS_MSG_CHARACTER_REMOVED:
    return a->character_removed.character_id == b->character_removed.character_id &&
           a->character_removed.reason == b->character_removed.reason;
  case TRESS_MSG_RIG_RESULT: {
    const tress_msg_rig_result *x = &a->rig_result, *y = &b->rig_result;
    if (x->character_id != y->character_id || x->accessory_index != y->accessory_index ||
        memcmp(x->mesh_hash, y->mesh_hash, 32) || !rig_options_equal(&x->options, &y->options) ||
        x->bone_count != y->bone_count)
      return false;
    for (uint32_t i = 0; i < x->bone_count; i++)
      if (strcmp(x->bones[i].name, y->bones[i].name) || x->bones[i].parent != y->bones[i].parent ||
          !xform_equal(&x->bones[i].rest, &y->bones[i].rest))
        return false;
    return skin_equal(&x->skin, &y->skin);
  }
  case TRESS_MSG_RIG_FAILED:
    return a->rig_failed.character_id == b->rig_failed.character_id &&
           a->rig_failed.accessory_index == b->rig_failed.accessory_index &&
           a->rig_failed.code == b->rig_failed.code && !strcmp(a->rig_failed.reason, b->rig_failed.reason);
  case TRESS_MSG_BIND: {
    const tress_msg_bind *x = &a->bind, *y = &b->bind;
    if (x->character_id != y->character_id || !chain_equal(&x->chain_settings, &y->chain_settings) ||
        !accessory_settings_equal(&x->accessory_settings, &y->accessory_settings) ||
        x->match_policy != y->match_policy || x->match_count != y->match_count)
      return false;
    if (x->match_count && memcmp(x->match_indices, y->match_indices, x->match_count)) return false;
    if (x->rigged_count != y->rigged_count ||
        (x->rigged_count && memcmp(x->rigged_indices, y->rigged_indices, x->rigged_count)))
      return false;
    return sections_equal(x->section_count, x->sections, y->section_count, y->sections);
  }
  case TRESS_MSG_SETTINGS_UPDATE: {
    const tress_msg_settings_update *x = &a->settings_update, *y = &b->settings_update;
    if (x->character_id != y->character_id || x->has_chain_settings != y->has_chain_settings ||
        x->has_accessory_settings != y->has_accessory_settings)
      return false;
    if (x->has_chain_settings && !chain_equal(&x->chain_settings, &y->chain_settings)) return false;
    return !x->has_accessory_settings || accessory_settings_equal(&x->accessory_settings, &y->accessory_settings);
  }
  case TRESS_MSG_ERROR:
    return a->error.code == b->error.code && a->error.offending_type == b->error.offending_type &&
           a->error.request_id == b->error.request_id && a->error.character_id == b->error.character_id &&
           !strcmp(a->error.text, b->error.text);
  case TRESS_MSG_REDIRECT:
    return !strcmp(a->redirect.room, b->redirect.room) && !strcmp(a->redirect.host, b->redirect.host) &&
           a->redirect.port == b->redirect.port;
  }
  return false;
}
