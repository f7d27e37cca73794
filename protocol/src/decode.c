/* decode.c - bytes to tress_msg through a bounded reader.
 *
 * Invariants: no byte is read past len (every read goes through wire_read_*, which checks the
 * remaining count first); every count is checked against its documented limit and against the
 * bytes that remain (count x the smallest encoding of one item) before anything is allocated;
 * strings are length-prefixed, valid UTF-8 without NULs; floats pass the same validators the
 * encoder runs. On any failure the partial message is freed and *out left zeroed, so a caller
 * never owns half a message. */
#include <stdlib.h>

#include "wire_internal.h"

/* Smallest encodings, for "does the count fit in what remains" checks before allocating. */
#define MIN_PART_BYTES (1 + 12 + 28)
#define MIN_ACCESSORY_BYTES (1 + 1 + 1 + 12 + 28 + 1 + 28 + 28 + 1 + 1)
#define MIN_BONE_BYTES (1 + 2 + 28)
#define MIN_PEER_BYTES (4 + 1)
#define MIN_SECTION_BYTES (2 + 4)

typedef struct decoder {
  wire_reader r;
  void **arena;
} decoder;

/* Records the failure as the reader's sticky status; evaluates to the status. */
#define fail(d, st, at, ...) ((d)->r.status = wire_fail((d)->r.err, (st), (at), __VA_ARGS__))

/* Records a validator's verdict as the reader's status. */
static bool ok(decoder *d, tress_wire_status st) {
  if (st) d->r.status = st;
  return st == TRESS_WIRE_OK;
}

static bool read_str(decoder *d, char *dst, size_t max, const char *what) {
  size_t at = wire_reader_offset(&d->r);
  uint8_t n;
  if (!wire_read_u8(&d->r, &n, what)) return false;
  if (n > max) {
    fail(d, TRESS_WIRE_ERR_STRING_TOO_LONG, at, "%s: %u bytes, limit %u", what, n, (unsigned)max);
    return false;
  }
  if (!wire_read_bytes(&d->r, dst, n, what)) return false;
  dst[n] = '\0';
  return ok(d, wire_check_utf8(dst, n, max, what, at, d->r.err));
}

/* Checks a count against its limit and against the bytes left, before any allocation. */
static bool check_count(decoder *d, uint32_t count, uint32_t limit, size_t min_item_bytes, const char *what,
                        size_t at) {
  if (count > limit) {
    fail(d, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "%s: %u, limit %u", what, count, limit);
    return false;
  }
  if ((size_t)count * min_item_bytes > d->r.remaining) {
    fail(d, TRESS_WIRE_ERR_TRUNCATED, at, "%s: %u items cannot fit in %zu bytes left", what, count, d->r.remaining);
    return false;
  }
  return true;
}

static void *alloc(decoder *d, size_t bytes, size_t at) {
  void *p = wire_arena_alloc(d->arena, bytes);
  if (!p) d->r.status = wire_fail(d->r.err, TRESS_WIRE_ERR_OUT_OF_MEMORY, at, "no memory for %zu bytes", bytes);
  return p;
}

static bool read_vec3(decoder *d, float v[3], const char *what) {
  return wire_read_f32(&d->r, &v[0], what) && wire_read_f32(&d->r, &v[1], what) && wire_read_f32(&d->r, &v[2], what);
}

static bool read_xform(decoder *d, tress_xform *x, const char *what) {
  size_t at = wire_reader_offset(&d->r);
  if (!read_vec3(d, x->p, what)) return false;
  for (int i = 0; i < 4; i++)
    if (!wire_read_f32(&d->r, &x->q[i], what)) return false;
  return ok(d, wire_check_xform(x, what, at, d->r.err));
}

static bool read_size(decoder *d, float v[3], const char *what) {
  size_t at = wire_reader_offset(&d->r);
  return read_vec3(d, v, what) && ok(d, wire_check_size(v, what, at, d->r.err));
}

static bool read_bool_flags(decoder *d, uint8_t *flags, uint8_t allowed, const char *what) {
  size_t at = wire_reader_offset(&d->r);
  if (!wire_read_u8(&d->r, flags, what)) return false;
  if (*flags & ~allowed) {
    fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s: undefined bits 0x%02x (allowed 0x%02x)", what, *flags, allowed);
    return false;
  }
  return true;
}

static bool read_chain(decoder *d, tress_chain_settings *s) {
  size_t at = wire_reader_offset(&d->r);
  /* the fields this block does not carry keep their defaults (weight 1, enabled, ...) */
  *s = tress_default_chain_settings();
  return wire_read_f32(&d->r, &s->damping, "chain settings") && wire_read_f32(&d->r, &s->stiffness, "chain settings") &&
         wire_read_f32(&d->r, &s->gravity_scale, "chain settings") &&
         wire_read_f32(&d->r, &s->wind_scale, "chain settings") && ok(d, wire_check_chain_settings(s, at, d->r.err));
}

static bool read_accessory_settings(decoder *d, tress_accessory_settings *s) {
  size_t at = wire_reader_offset(&d->r);
  const char *w = "accessory settings";
  return wire_read_f32(&d->r, &s->damping, w) && wire_read_f32(&d->r, &s->stiffness, w) &&
         wire_read_f32(&d->r, &s->gravity_scale, w) && wire_read_f32(&d->r, &s->wind_scale, w) &&
         wire_read_f32(&d->r, &s->max_swing_degrees, w) && ok(d, wire_check_accessory_settings(s, at, d->r.err));
}

static bool read_rig_options(decoder *d, tress_wire_rig_options *o) {
  size_t at = wire_reader_offset(&d->r);
  const char *w = "rig options";
  uint8_t flags;
  if (!wire_read_u8(&d->r, &o->sectors, w) || !wire_read_u8(&d->r, &o->segments, w) ||
      !wire_read_u8(&d->r, &o->max_influences, w) || !read_vec3(d, o->axis, w) ||
      !read_bool_flags(d, &flags, 1, "rig options flags") || !read_vec3(d, o->root, w))
    return false;
  o->has_root = flags & 1;
  return ok(d, wire_check_rig_options(o, at, d->r.err));
}

static bool read_sections(decoder *d, uint32_t *count, tress_wire_section **sections) {
  size_t at = wire_reader_offset(&d->r);
  uint8_t n;
  if (!wire_read_u8(&d->r, &n, "section count")) return false;
  if (!check_count(d, n, TRESS_WIRE_MAX_SECTIONS, MIN_SECTION_BYTES, "sections", at)) return false;
  *count = n;
  if (!n) return true;
  tress_wire_section *s = alloc(d, sizeof *s * n, at);
  if (!s) return false;
  *sections = s;
  for (uint32_t i = 0; i < n; i++) {
    size_t sat = wire_reader_offset(&d->r);
    if (!wire_read_u16(&d->r, &s[i].tag, "section tag") || !wire_read_u32(&d->r, &s[i].length, "section length"))
      return false;
    if (!check_count(d, s[i].length, TRESS_WIRE_MAX_SECTION_BYTES, 1, "section bytes", sat)) return false;
    uint8_t *bytes = alloc(d, s[i].length, sat);
    if (!bytes || !wire_read_bytes(&d->r, bytes, s[i].length, "section bytes")) return false;
    s[i].bytes = bytes;
  }
  return true;
}

static bool read_manifest(decoder *d, tress_wire_manifest *m) {
  if (!read_str(d, m->character_name, TRESS_WIRE_MAX_NAME_BYTES, "character_name")) return false;
  size_t at = wire_reader_offset(&d->r);
  uint8_t n;
  if (!wire_read_u8(&d->r, &n, "part count")) return false;
  if (!check_count(d, n, TRESS_WIRE_MAX_PARTS, MIN_PART_BYTES, "parts", at)) return false;
  m->part_count = n;
  if (n && !(m->parts = alloc(d, sizeof *m->parts * n, at))) return false;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_part *p = &m->parts[i];
    if (!read_str(d, p->name, TRESS_WIRE_MAX_NAME_BYTES, "part name") || !read_size(d, p->size, "part size") ||
        !read_xform(d, &p->cframe, "part cframe"))
      return false;
  }
  at = wire_reader_offset(&d->r);
  if (!wire_read_u8(&d->r, &n, "accessory count")) return false;
  if (!check_count(d, n, TRESS_WIRE_MAX_ACCESSORIES, MIN_ACCESSORY_BYTES, "accessories", at)) return false;
  m->accessory_count = n;
  if (n && !(m->accessories = alloc(d, sizeof *m->accessories * n, at))) return false;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_accessory *a = &m->accessories[i];
    if (!read_str(d, a->name, TRESS_WIRE_MAX_NAME_BYTES, "accessory name")) return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &a->type, "accessory type")) return false;
    if (a->type >= TRESS_ACCESSORY_TYPE_COUNT)
      return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s %u: type %u", "accessory", i, a->type), false;
    if (!read_str(d, a->mesh_asset_id, TRESS_WIRE_MAX_TEXT_BYTES, "mesh_asset_id") ||
        !read_size(d, a->handle_size, "handle_size") || !read_xform(d, &a->handle_cframe, "handle_cframe"))
      return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &a->joint_kind, "joint kind")) return false;
    if (a->joint_kind > TRESS_JOINT_WELD_CONSTRAINT)
      return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s %u: joint kind %u", "accessory", i, a->joint_kind), false;
    if (!read_xform(d, &a->c0, "joint c0") || !read_xform(d, &a->c1, "joint c1")) return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &a->worn_on, "worn_on")) return false;
    if (a->worn_on >= m->part_count)
      return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "%s: worn_on %u >= %u parts", "accessory", a->worn_on,
                  m->part_count),
             false;
    uint8_t flags;
    if (!read_bool_flags(d, &flags, 3, "accessory flags")) return false;
    a->layered = flags & 1;
    a->handle_has_bones = (flags & 2) != 0;
  }
  uint8_t flags;
  if (!read_bool_flags(d, &flags, 7, "manifest flags")) return false;
  m->has_chain_settings = flags & 1;
  m->has_accessory_settings = (flags & 2) != 0;
  m->has_rig_options = (flags & 4) != 0;
  if (m->has_chain_settings && !read_chain(d, &m->chain_settings)) return false;
  if (m->has_accessory_settings && !read_accessory_settings(d, &m->accessory_settings)) return false;
  if (m->has_rig_options && !read_rig_options(d, &m->rig_options)) return false;
  return read_sections(d, &m->section_count, &m->sections);
}

/* A count byte and distinct accessory indices (explicit match, rigged accessories). */
static bool read_index_set(decoder *d, uint32_t *count, uint8_t **indices, const char *what) {
  size_t at = wire_reader_offset(&d->r);
  uint8_t n;
  if (!wire_read_u8(&d->r, &n, what)) return false;
  if (!check_count(d, n, TRESS_WIRE_MAX_ACCESSORIES, 1, what, at)) return false;
  *count = n;
  if (n && !(*indices = alloc(d, n, at))) return false;
  uint32_t seen = 0;
  for (uint32_t i = 0; i < n; i++) {
    at = wire_reader_offset(&d->r);
    uint8_t idx;
    if (!wire_read_u8(&d->r, &idx, what)) return false;
    if (idx >= TRESS_WIRE_MAX_ACCESSORIES || (seen & (1u << idx)))
      return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "%s index %u out of range or repeated (entry %u)", what, idx, i),
             false;
    seen |= 1u << idx;
    (*indices)[i] = idx;
  }
  return true;
}

static bool read_nonzero_id(decoder *d, uint32_t *id, const char *what) {
  size_t at = wire_reader_offset(&d->r);
  if (!wire_read_u32(&d->r, id, what)) return false;
  if (*id == 0) return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "%s: 0 is not a valid id", what), false;
  return true;
}

static bool read_accessory_index(decoder *d, uint8_t *idx) {
  size_t at = wire_reader_offset(&d->r);
  if (!wire_read_u8(&d->r, idx, "accessory_index")) return false;
  if (*idx >= TRESS_WIRE_MAX_ACCESSORIES)
    return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "%s %u >= %u", "accessory_index", *idx, TRESS_WIRE_MAX_ACCESSORIES),
           false;
  return true;
}

static bool read_version(decoder *d, uint16_t *major, uint16_t *minor) {
  size_t at = wire_reader_offset(&d->r);
  if (!wire_read_u16(&d->r, major, "version major") || !wire_read_u16(&d->r, minor, "version minor")) return false;
  if (*major != TRESS_PROTOCOL_VERSION_MAJOR)
    return fail(d, TRESS_WIRE_ERR_BAD_VERSION, at, "%s %u, this side speaks %u", "protocol major", *major,
                TRESS_PROTOCOL_VERSION_MAJOR),
           false;
  return true;
}

static bool read_rig_result(decoder *d, tress_msg_rig_result *m) {
  if (!read_nonzero_id(d, &m->character_id, "character_id") || !read_accessory_index(d, &m->accessory_index) ||
      !wire_read_bytes(&d->r, m->mesh_hash, 32, "mesh_hash") || !read_rig_options(d, &m->options))
    return false;
  size_t at = wire_reader_offset(&d->r);
  uint16_t n;
  if (!wire_read_u16(&d->r, &n, "bone count")) return false;
  if (n == 0) return fail(d, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "bones: 0, must be 1..%u", TRESS_WIRE_MAX_BONES), false;
  if (!check_count(d, n, TRESS_WIRE_MAX_BONES, MIN_BONE_BYTES, "bones", at)) return false;
  m->bone_count = n;
  if (!(m->bones = alloc(d, sizeof *m->bones * n, at))) return false;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_bone *b = &m->bones[i];
    if (!read_str(d, b->name, TRESS_WIRE_MAX_NAME_BYTES, "bone name")) return false;
    at = wire_reader_offset(&d->r);
    uint16_t parent;
    if (!wire_read_u16(&d->r, &parent, "bone parent")) return false;
    b->parent = (int16_t)parent;
    if (b->parent < -1 || b->parent >= (int32_t)i)
      return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "%s %u: parent must be -1 or below its own index (got %u)", "bone",
                  i, parent),
             false;
    if (!read_xform(d, &b->rest, "bone rest")) return false;
  }
  return wire_skin_read(&d->r, &m->skin, m->bone_count, d->arena) == TRESS_WIRE_OK;
}

static bool read_body(decoder *d, tress_msg *msg) {
  size_t at;
  switch (msg->type) {
  case TRESS_MSG_HELLO: {
    tress_msg_hello *m = &msg->hello;
    return read_version(d, &m->version_major, &m->version_minor) &&
           read_str(d, m->client_name, TRESS_WIRE_MAX_NAME_BYTES, "client_name") &&
           read_str(d, m->auth_token, TRESS_WIRE_MAX_TEXT_BYTES, "auth_token");
  }
  case TRESS_MSG_WELCOME: {
    tress_msg_welcome *m = &msg->welcome;
    tress_wire_limits *l = &m->limits;
    if (!read_version(d, &m->version_major, &m->version_minor) ||
        !read_str(d, m->server_version, TRESS_WIRE_MAX_TEXT_BYTES, "server_version") ||
        !wire_read_u64(&d->r, &m->session_id, "session_id") || !read_nonzero_id(d, &m->peer_id, "peer_id"))
      return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u32(&d->r, &l->max_control_message_bytes, "limits") ||
        !wire_read_u32(&d->r, &l->max_bulk_message_bytes, "limits") || !wire_read_u32(&d->r, &l->max_vertices, "limits") ||
        !wire_read_u16(&d->r, &l->max_bones, "limits") || !wire_read_u16(&d->r, &l->max_parts, "limits") ||
        !wire_read_u16(&d->r, &l->max_accessories, "limits") || !wire_read_u16(&d->r, &l->max_room_peers, "limits") ||
        !wire_read_u16(&d->r, &l->max_characters_per_peer, "limits") ||
        !wire_read_u16(&d->r, &l->max_name_bytes, "limits") || !wire_read_u16(&d->r, &l->max_text_bytes, "limits"))
      return false;
    if (l->max_control_message_bytes > TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES ||
        l->max_bulk_message_bytes > TRESS_WIRE_MAX_BULK_MESSAGE_BYTES || l->max_vertices > TRESS_WIRE_MAX_VERTICES ||
        l->max_bones > TRESS_WIRE_MAX_BONES || l->max_parts > TRESS_WIRE_MAX_PARTS ||
        l->max_accessories > TRESS_WIRE_MAX_ACCESSORIES || l->max_room_peers > TRESS_WIRE_MAX_ROOM_PEERS ||
        l->max_name_bytes > TRESS_WIRE_MAX_NAME_BYTES || l->max_text_bytes > TRESS_WIRE_MAX_TEXT_BYTES)
      return fail(d, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "limits above the protocol maxima"), false;
    return true;
  }
  case TRESS_MSG_REJECT:
    return wire_read_u16(&d->r, &msg->reject.code, "code") &&
           wire_read_u16(&d->r, &msg->reject.server_major, "server_major") &&
           wire_read_u16(&d->r, &msg->reject.server_minor, "server_minor") &&
           read_str(d, msg->reject.reason, TRESS_WIRE_MAX_TEXT_BYTES, "reason");
  case TRESS_MSG_JOIN_ROOM:
    at = wire_reader_offset(&d->r);
    if (!read_str(d, msg->join_room.room, TRESS_WIRE_MAX_NAME_BYTES, "room")) return false;
    if (!msg->join_room.room[0])
      return fail(d, TRESS_WIRE_ERR_EMPTY_STRING, at, "room: empty (must be 1..%u bytes)", TRESS_WIRE_MAX_NAME_BYTES),
             false;
    return true;
  case TRESS_MSG_ROOM_JOINED: {
    tress_msg_room_joined *m = &msg->room_joined;
    if (!read_str(d, m->room, TRESS_WIRE_MAX_NAME_BYTES, "room")) return false;
    at = wire_reader_offset(&d->r);
    uint16_t n;
    if (!wire_read_u16(&d->r, &n, "member count")) return false;
    if (!check_count(d, n, TRESS_WIRE_MAX_ROOM_PEERS, MIN_PEER_BYTES, "members", at)) return false;
    m->member_count = n;
    if (n && !(m->members = alloc(d, sizeof *m->members * n, at))) return false;
    for (uint32_t i = 0; i < n; i++)
      if (!read_nonzero_id(d, &m->members[i].peer_id, "member peer_id") ||
          !read_str(d, m->members[i].name, TRESS_WIRE_MAX_NAME_BYTES, "member name"))
        return false;
    return true;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    return wire_read_u32(&d->r, &msg->spawn_character.request_id, "request_id") &&
           read_manifest(d, &msg->spawn_character.manifest);
  case TRESS_MSG_DESPAWN_CHARACTER: return read_nonzero_id(d, &msg->despawn_character.character_id, "character_id");
  case TRESS_MSG_CHARACTER_ADDED: {
    tress_msg_character_added *m = &msg->character_added;
    return read_nonzero_id(d, &m->character_id, "character_id") &&
           read_nonzero_id(d, &m->owner_peer_id, "owner_peer_id") &&
           wire_read_u32(&d->r, &m->request_id, "request_id") && read_manifest(d, &m->manifest);
  }
  case TRESS_MSG_CHARACTER_REMOVED:
    if (!read_nonzero_id(d, &msg->character_removed.character_id, "character_id")) return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &msg->character_removed.reason, "reason")) return false;
    if (msg->character_removed.reason > TRESS_REMOVED_SERVER)
      return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s %u (max %u)", "removed reason", msg->character_removed.reason,
                  TRESS_REMOVED_SERVER),
             false;
    return true;
  case TRESS_MSG_RIG_RESULT: return read_rig_result(d, &msg->rig_result);
  case TRESS_MSG_RIG_FAILED:
    return read_nonzero_id(d, &msg->rig_failed.character_id, "character_id") &&
           read_accessory_index(d, &msg->rig_failed.accessory_index) &&
           wire_read_u16(&d->r, &msg->rig_failed.code, "code") &&
           read_str(d, msg->rig_failed.reason, TRESS_WIRE_MAX_TEXT_BYTES, "reason");
  case TRESS_MSG_BIND: {
    tress_msg_bind *m = &msg->bind;
    if (!read_nonzero_id(d, &m->character_id, "character_id") || !read_chain(d, &m->chain_settings) ||
        !read_accessory_settings(d, &m->accessory_settings))
      return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &m->match_policy, "match policy")) return false;
    if (m->match_policy > TRESS_MATCH_EXPLICIT)
      return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s %u (max %u)", "match policy", m->match_policy,
                  TRESS_MATCH_EXPLICIT),
             false;
    if (m->match_policy == TRESS_MATCH_EXPLICIT && !read_index_set(d, &m->match_count, &m->match_indices, "match"))
      return false;
    if (!read_index_set(d, &m->rigged_count, &m->rigged_indices, "rigged")) return false;
    return read_sections(d, &m->section_count, &m->sections);
  }
  case TRESS_MSG_SETTINGS_UPDATE: {
    tress_msg_settings_update *m = &msg->settings_update;
    if (!read_nonzero_id(d, &m->character_id, "character_id")) return false;
    at = wire_reader_offset(&d->r);
    uint8_t flags;
    if (!read_bool_flags(d, &flags, 3, "settings flags")) return false;
    if (!flags) return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "settings flags: no settings present"), false;
    m->has_chain_settings = flags & 1;
    m->has_accessory_settings = (flags & 2) != 0;
    if (m->has_chain_settings && !read_chain(d, &m->chain_settings)) return false;
    return !m->has_accessory_settings || read_accessory_settings(d, &m->accessory_settings);
  }
  case TRESS_MSG_ERROR:
    if (!wire_read_u16(&d->r, &msg->error.code, "code")) return false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u8(&d->r, &msg->error.offending_type, "offending_type")) return false;
    if (msg->error.offending_type > TRESS_MSG_TYPE_MAX)
      return fail(d, TRESS_WIRE_ERR_BAD_ENUM, at, "%s %u (max %u)", "offending_type", msg->error.offending_type,
                  TRESS_MSG_TYPE_MAX),
             false;
    return wire_read_u32(&d->r, &msg->error.request_id, "request_id") &&
           wire_read_u32(&d->r, &msg->error.character_id, "character_id") &&
           read_str(d, msg->error.text, TRESS_WIRE_MAX_TEXT_BYTES, "text");
  case TRESS_MSG_REDIRECT: {
    tress_msg_redirect *m = &msg->redirect;
    at = wire_reader_offset(&d->r);
    if (!read_str(d, m->room, TRESS_WIRE_MAX_NAME_BYTES, "room")) return false;
    if (!m->room[0]) return fail(d, TRESS_WIRE_ERR_EMPTY_STRING, at, "redirect room: empty"), false;
    at = wire_reader_offset(&d->r);
    if (!read_str(d, m->host, TRESS_WIRE_MAX_TEXT_BYTES, "host")) return false;
    if (!m->host[0]) return fail(d, TRESS_WIRE_ERR_EMPTY_STRING, at, "redirect host: empty"), false;
    at = wire_reader_offset(&d->r);
    if (!wire_read_u16(&d->r, &m->port, "port")) return false;
    if (m->port == 0) return fail(d, TRESS_WIRE_ERR_BAD_INDEX, at, "redirect port 0"), false;
    return true;
  }
  }
  return false;
}

tress_wire_status tress_msg_decode(const uint8_t *bytes, size_t len, tress_msg *out, tress_wire_error *err) {
  tress_wire_error scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  memset(out, 0, sizeof *out);
  if (!bytes || len == 0) return wire_fail(err, TRESS_WIRE_ERR_TRUNCATED, 0, "empty message: no type byte");
  uint8_t type = bytes[0];
  if (type < TRESS_MSG_HELLO || type > TRESS_MSG_TYPE_MAX)
    return wire_fail(err, TRESS_WIRE_ERR_UNKNOWN_TYPE, 0, "unknown message type %u", type);
  if (len > tress_msg_type_get_max_bytes((tress_msg_type)type))
    return wire_fail(err, TRESS_WIRE_ERR_TOO_LARGE, 0, "%s of %zu bytes, limit %zu",
                     tress_msg_type_name((tress_msg_type)type), len, tress_msg_type_get_max_bytes((tress_msg_type)type));
  out->type = (tress_msg_type)type;
  decoder d = {{bytes + 1, len - 1, len, 0, err, TRESS_WIRE_OK}, &out->arena};
  bool good = read_body(&d, out);
  if (good && d.r.remaining)
    wire_fail(err, TRESS_WIRE_ERR_TRAILING_BYTES, wire_reader_offset(&d.r), "%zu bytes after the last field of %s",
              d.r.remaining, tress_msg_type_name(out->type));
  if (!good || err->status) {
    tress_wire_status st = err->status ? err->status : TRESS_WIRE_ERR_TRUNCATED;
    /* Keep the version of a HELLO / WELCOME from another major so the caller can say which. */
    uint16_t major = 0, minor = 0;
    if (st == TRESS_WIRE_ERR_BAD_VERSION) {
      major = out->type == TRESS_MSG_HELLO ? out->hello.version_major : out->welcome.version_major;
      minor = out->type == TRESS_MSG_HELLO ? out->hello.version_minor : out->welcome.version_minor;
    }
    tress_msg_type t = out->type;
    tress_msg_free(out);
    if (st == TRESS_WIRE_ERR_BAD_VERSION) {
      out->type = t;
      if (t == TRESS_MSG_HELLO) {
        out->hello.version_major = major;
        out->hello.version_minor = minor;
      } else {
        out->welcome.version_major = major;
        out->welcome.version_minor = minor;
      }
    }
    return st;
  }
  return TRESS_WIRE_OK;
}
