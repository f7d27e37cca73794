/* encode.c - tress_msg to bytes. Every field is validated with the decoder's own rules before it
 * is written, so the encoder never produces a message a conforming decoder rejects.
 *
 * One writer routine per message serves three purposes: measuring (buf NULL), measuring an upper
 * bound (compressed payloads counted at their worst case), and writing. The writer stores bytes
 * only while they fit and always counts, so a too-small buffer is detected without a second
 * pass and nothing is ever written past cap. */
#include <stdlib.h>

#include "wire_internal.h"

static tress_wire_status write_str(wire_writer *w, const char *s, size_t max, const char *what, tress_wire_error *err) {
  size_t n = strnlen(s, max + 1);
  tress_wire_status st = wire_check_utf8(s, n, max, what, w->len, err);
  if (st) return st;
  wire_write_u8(w, (uint8_t)n);
  wire_write_bytes(w, s, n);
  return TRESS_WIRE_OK;
}

static void write_vec3(wire_writer *w, const float v[3]) {
  for (int i = 0; i < 3; i++) wire_write_f32(w, v[i]);
}

static tress_wire_status write_xform(wire_writer *w, const tress_xform *x, const char *what, tress_wire_error *err) {
  tress_wire_status st = wire_check_xform(x, what, w->len, err);
  if (st) return st;
  write_vec3(w, x->p);
  for (int i = 0; i < 4; i++) wire_write_f32(w, x->q[i]);
  return TRESS_WIRE_OK;
}

static tress_wire_status write_size(wire_writer *w, const float v[3], const char *what, tress_wire_error *err) {
  tress_wire_status st = wire_check_size(v, what, w->len, err);
  if (st) return st;
  write_vec3(w, v);
  return TRESS_WIRE_OK;
}

static tress_wire_status write_chain(wire_writer *w, const tress_chain_settings *s, tress_wire_error *err) {
  tress_wire_status st = wire_check_chain_settings(s, w->len, err);
  if (st) return st;
  wire_write_f32(w, s->damping);
  wire_write_f32(w, s->stiffness);
  wire_write_f32(w, s->gravity_scale);
  wire_write_f32(w, s->wind_scale);
  return TRESS_WIRE_OK;
}

static tress_wire_status write_accessory_settings(wire_writer *w, const tress_accessory_settings *s,
                                                  tress_wire_error *err) {
  tress_wire_status st = wire_check_accessory_settings(s, w->len, err);
  if (st) return st;
  wire_write_f32(w, s->damping);
  wire_write_f32(w, s->stiffness);
  wire_write_f32(w, s->gravity_scale);
  wire_write_f32(w, s->wind_scale);
  wire_write_f32(w, s->max_swing_degrees);
  return TRESS_WIRE_OK;
}

static tress_wire_status write_rig_options(wire_writer *w, const tress_wire_rig_options *o, tress_wire_error *err) {
  tress_wire_status st = wire_check_rig_options(o, w->len, err);
  if (st) return st;
  wire_write_u8(w, o->sectors);
  wire_write_u8(w, o->segments);
  wire_write_u8(w, o->max_influences);
  write_vec3(w, o->axis);
  wire_write_u8(w, o->has_root ? 1 : 0);
  write_vec3(w, o->root);
  return TRESS_WIRE_OK;
}

static tress_wire_status write_sections(wire_writer *w, uint32_t count, const tress_wire_section *sections,
                                        tress_wire_error *err) {
  if (count > TRESS_WIRE_MAX_SECTIONS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u sections, limit %d", count,
                     TRESS_WIRE_MAX_SECTIONS);
  wire_write_u8(w, (uint8_t)count);
  for (uint32_t i = 0; i < count; i++) {
    const tress_wire_section *s = &sections[i];
    if (s->length > TRESS_WIRE_MAX_SECTION_BYTES)
      return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "section %u: %u bytes, limit %u", i, s->length,
                       TRESS_WIRE_MAX_SECTION_BYTES);
    if (s->length && !s->bytes)
      return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "section %u: no bytes", i);
    wire_write_u16(w, s->tag);
    wire_write_u32(w, s->length);
    wire_write_bytes(w, s->bytes, s->length);
  }
  return TRESS_WIRE_OK;
}

/* A count byte and distinct accessory indices. */
static tress_wire_status write_index_set(wire_writer *w, uint32_t count, const uint8_t *indices, const char *what,
                                         tress_wire_error *err) {
  if (count > TRESS_WIRE_MAX_ACCESSORIES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u %s indices, limit %d", count, what,
                     TRESS_WIRE_MAX_ACCESSORIES);
  if (count && !indices) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "%s indices missing", what);
  uint32_t seen = 0;
  wire_write_u8(w, (uint8_t)count);
  for (uint32_t i = 0; i < count; i++) {
    if (indices[i] >= TRESS_WIRE_MAX_ACCESSORIES || (seen & (1u << indices[i])))
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "%s index %u out of range or repeated", what, indices[i]);
    seen |= 1u << indices[i];
    wire_write_u8(w, indices[i]);
  }
  return TRESS_WIRE_OK;
}

static tress_wire_status write_manifest(wire_writer *w, const tress_wire_manifest *m, tress_wire_error *err) {
  tress_wire_status st;
  if ((st = write_str(w, m->character_name, TRESS_WIRE_MAX_NAME_BYTES, "character_name", err))) return st;
  if (m->part_count > TRESS_WIRE_MAX_PARTS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u parts, limit %d", m->part_count,
                     TRESS_WIRE_MAX_PARTS);
  if (m->part_count && !m->parts) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "parts missing");
  wire_write_u8(w, (uint8_t)m->part_count);
  for (uint32_t i = 0; i < m->part_count; i++) {
    const tress_wire_part *p = &m->parts[i];
    if ((st = write_str(w, p->name, TRESS_WIRE_MAX_NAME_BYTES, "part name", err))) return st;
    if ((st = write_size(w, p->size, "part size", err))) return st;
    if ((st = write_xform(w, &p->cframe, "part cframe", err))) return st;
  }
  if (m->accessory_count > TRESS_WIRE_MAX_ACCESSORIES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u accessories, limit %d", m->accessory_count,
                     TRESS_WIRE_MAX_ACCESSORIES);
  if (m->accessory_count && !m->accessories)
    return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "accessories missing");
  wire_write_u8(w, (uint8_t)m->accessory_count);
  for (uint32_t i = 0; i < m->accessory_count; i++) {
    const tress_wire_accessory *a = &m->accessories[i];
    if ((st = write_str(w, a->name, TRESS_WIRE_MAX_NAME_BYTES, "accessory name", err))) return st;
    if (a->type >= TRESS_ACCESSORY_TYPE_COUNT)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "accessory %u: type %u", i, a->type);
    wire_write_u8(w, a->type);
    if ((st = write_str(w, a->mesh_asset_id, TRESS_WIRE_MAX_TEXT_BYTES, "mesh_asset_id", err))) return st;
    if ((st = write_size(w, a->handle_size, "handle_size", err))) return st;
    if ((st = write_xform(w, &a->handle_cframe, "handle_cframe", err))) return st;
    if (a->joint_kind > TRESS_JOINT_WELD_CONSTRAINT)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "accessory %u: joint kind %u", i, a->joint_kind);
    wire_write_u8(w, a->joint_kind);
    if ((st = write_xform(w, &a->c0, "joint c0", err))) return st;
    if ((st = write_xform(w, &a->c1, "joint c1", err))) return st;
    if (a->worn_on >= m->part_count)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "accessory %u: worn_on %u >= %u parts", i, a->worn_on,
                       m->part_count);
    wire_write_u8(w, a->worn_on);
    wire_write_u8(w, (uint8_t)((a->layered ? 1 : 0) | (a->handle_has_bones ? 2 : 0)));
  }
  wire_write_u8(w, (uint8_t)((m->has_chain_settings ? 1 : 0) | (m->has_accessory_settings ? 2 : 0) |
                             (m->has_rig_options ? 4 : 0)));
  if (m->has_chain_settings && (st = write_chain(w, &m->chain_settings, err))) return st;
  if (m->has_accessory_settings && (st = write_accessory_settings(w, &m->accessory_settings, err))) return st;
  if (m->has_rig_options && (st = write_rig_options(w, &m->rig_options, err))) return st;
  return write_sections(w, m->section_count, m->sections, err);
}

/* The wearer's part of a RIG_RESULT, right after the type byte: the only bytes that differ
 * between two wearers of one rig (bones travel in mesh space), so tress_rig_result_set_ids can
 * rewrite them in place. */
static tress_wire_status write_rig_ids(wire_writer *w, uint32_t character_id, uint8_t accessory_index,
                                       tress_wire_error *err) {
  if (character_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
  wire_write_u32(w, character_id);
  if (accessory_index >= TRESS_WIRE_MAX_ACCESSORIES)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "accessory_index %u", accessory_index);
  wire_write_u8(w, accessory_index);
  return TRESS_WIRE_OK;
}

#define RIG_IDS_BYTES 5 /* u32 character_id + u8 accessory_index */

tress_wire_status tress_rig_result_set_ids(uint8_t *encoded, size_t len, uint32_t character_id,
                                           uint8_t accessory_index) {
  if (!encoded || len < 1 + RIG_IDS_BYTES || encoded[0] != TRESS_MSG_RIG_RESULT) return TRESS_WIRE_ERR_INVALID_MESSAGE;
  if (character_id == 0 || accessory_index >= TRESS_WIRE_MAX_ACCESSORIES) return TRESS_WIRE_ERR_BAD_INDEX;
  wire_writer w = {encoded + 1, RIG_IDS_BYTES, 0, false};
  return write_rig_ids(&w, character_id, accessory_index, NULL);
}

static tress_wire_status write_rig_result(wire_writer *w, const tress_msg_rig_result *m, tress_wire_error *err) {
  tress_wire_status st;
  if ((st = write_rig_ids(w, m->character_id, m->accessory_index, err))) return st;
  wire_write_bytes(w, m->mesh_hash, 32);
  if ((st = write_rig_options(w, &m->options, err))) return st;
  if (m->bone_count < 1 || m->bone_count > TRESS_WIRE_MAX_BONES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u bones, must be 1..%d", m->bone_count,
                     TRESS_WIRE_MAX_BONES);
  if (!m->bones) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "bones missing");
  wire_write_u16(w, (uint16_t)m->bone_count);
  for (uint32_t i = 0; i < m->bone_count; i++) {
    const tress_wire_bone *b = &m->bones[i];
    if ((st = write_str(w, b->name, TRESS_WIRE_MAX_NAME_BYTES, "bone name", err))) return st;
    if (b->parent < -1 || b->parent >= (int32_t)i)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "bone %u: parent %d must be -1 or below %u", i,
                       b->parent, i);
    wire_write_u16(w, (uint16_t)b->parent);
    if ((st = write_xform(w, &b->rest, "bone rest", err))) return st;
  }
  if ((st = wire_skin_check(&m->skin, m->bone_count, w->len, err))) return st;
  return wire_skin_write(w, &m->skin, err);
}

static tress_wire_status write_message(wire_writer *w, const tress_msg *msg, tress_wire_error *err) {
  tress_wire_status st = TRESS_WIRE_OK;
  if (msg->type < TRESS_MSG_HELLO || msg->type > TRESS_MSG_TYPE_MAX)
    return wire_fail(err, TRESS_WIRE_ERR_UNKNOWN_TYPE, 0, "message type %d", (int)msg->type);
  wire_write_u8(w, (uint8_t)msg->type);
  switch (msg->type) {
  case TRESS_MSG_HELLO: {
    const tress_msg_hello *m = &msg->hello;
    wire_write_u16(w, m->version_major);
    wire_write_u16(w, m->version_minor);
    if ((st = write_str(w, m->client_name, TRESS_WIRE_MAX_NAME_BYTES, "client_name", err))) return st;
    return write_str(w, m->auth_token, TRESS_WIRE_MAX_TEXT_BYTES, "auth_token", err);
  }
  case TRESS_MSG_WELCOME: {
    const tress_msg_welcome *m = &msg->welcome;
    const tress_wire_limits *l = &m->limits;
    wire_write_u16(w, m->version_major);
    wire_write_u16(w, m->version_minor);
    if ((st = write_str(w, m->server_version, TRESS_WIRE_MAX_TEXT_BYTES, "server_version", err))) return st;
    wire_write_u64(w, m->session_id);
    if (m->peer_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "peer_id 0");
    wire_write_u32(w, m->peer_id);
    if (l->max_control_message_bytes > TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES ||
        l->max_bulk_message_bytes > TRESS_WIRE_MAX_BULK_MESSAGE_BYTES || l->max_vertices > TRESS_WIRE_MAX_VERTICES ||
        l->max_bones > TRESS_WIRE_MAX_BONES || l->max_parts > TRESS_WIRE_MAX_PARTS ||
        l->max_accessories > TRESS_WIRE_MAX_ACCESSORIES || l->max_room_peers > TRESS_WIRE_MAX_ROOM_PEERS ||
        l->max_name_bytes > TRESS_WIRE_MAX_NAME_BYTES || l->max_text_bytes > TRESS_WIRE_MAX_TEXT_BYTES)
      return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "limits above the protocol maxima");
    wire_write_u32(w, l->max_control_message_bytes);
    wire_write_u32(w, l->max_bulk_message_bytes);
    wire_write_u32(w, l->max_vertices);
    wire_write_u16(w, l->max_bones);
    wire_write_u16(w, l->max_parts);
    wire_write_u16(w, l->max_accessories);
    wire_write_u16(w, l->max_room_peers);
    wire_write_u16(w, l->max_characters_per_peer);
    wire_write_u16(w, l->max_name_bytes);
    wire_write_u16(w, l->max_text_bytes);
    return TRESS_WIRE_OK;
  }
  case TRESS_MSG_REJECT:
    wire_write_u16(w, msg->reject.code);
    wire_write_u16(w, msg->reject.server_major);
    wire_write_u16(w, msg->reject.server_minor);
    return write_str(w, msg->reject.reason, TRESS_WIRE_MAX_TEXT_BYTES, "reason", err);
  case TRESS_MSG_JOIN_ROOM:
    if (!msg->join_room.room[0]) return wire_fail(err, TRESS_WIRE_ERR_EMPTY_STRING, w->len, "room name empty");
    return write_str(w, msg->join_room.room, TRESS_WIRE_MAX_NAME_BYTES, "room", err);
  case TRESS_MSG_ROOM_JOINED: {
    const tress_msg_room_joined *m = &msg->room_joined;
    if ((st = write_str(w, m->room, TRESS_WIRE_MAX_NAME_BYTES, "room", err))) return st;
    if (m->member_count > TRESS_WIRE_MAX_ROOM_PEERS)
      return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, w->len, "%u members, limit %d", m->member_count,
                       TRESS_WIRE_MAX_ROOM_PEERS);
    if (m->member_count && !m->members) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "members missing");
    wire_write_u16(w, (uint16_t)m->member_count);
    for (uint32_t i = 0; i < m->member_count; i++) {
      if (m->members[i].peer_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "member %u: peer_id 0", i);
      wire_write_u32(w, m->members[i].peer_id);
      if ((st = write_str(w, m->members[i].name, TRESS_WIRE_MAX_NAME_BYTES, "member name", err))) return st;
    }
    return TRESS_WIRE_OK;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    wire_write_u32(w, msg->spawn_character.request_id);
    return write_manifest(w, &msg->spawn_character.manifest, err);
  case TRESS_MSG_DESPAWN_CHARACTER:
    if (msg->despawn_character.character_id == 0)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
    wire_write_u32(w, msg->despawn_character.character_id);
    return TRESS_WIRE_OK;
  case TRESS_MSG_CHARACTER_ADDED: {
    const tress_msg_character_added *m = &msg->character_added;
    if (m->character_id == 0 || m->owner_peer_id == 0)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id or owner_peer_id 0");
    wire_write_u32(w, m->character_id);
    wire_write_u32(w, m->owner_peer_id);
    wire_write_u32(w, m->request_id);
    return write_manifest(w, &m->manifest, err);
  }
  case TRESS_MSG_CHARACTER_REMOVED:
    if (msg->character_removed.character_id == 0)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
    if (msg->character_removed.reason > TRESS_REMOVED_SERVER)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "removed reason %u", msg->character_removed.reason);
    wire_write_u32(w, msg->character_removed.character_id);
    wire_write_u8(w, msg->character_removed.reason);
    return TRESS_WIRE_OK;
  case TRESS_MSG_RIG_RESULT: return write_rig_result(w, &msg->rig_result, err);
  case TRESS_MSG_RIG_FAILED: {
    const tress_msg_rig_failed *m = &msg->rig_failed;
    if (m->character_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
    if (m->accessory_index >= TRESS_WIRE_MAX_ACCESSORIES)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "accessory_index %u", m->accessory_index);
    wire_write_u32(w, m->character_id);
    wire_write_u8(w, m->accessory_index);
    wire_write_u16(w, m->code);
    return write_str(w, m->reason, TRESS_WIRE_MAX_TEXT_BYTES, "reason", err);
  }
  case TRESS_MSG_BIND: {
    const tress_msg_bind *m = &msg->bind;
    if (m->character_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
    wire_write_u32(w, m->character_id);
    if ((st = write_chain(w, &m->chain_settings, err))) return st;
    if ((st = write_accessory_settings(w, &m->accessory_settings, err))) return st;
    if (m->match_policy > TRESS_MATCH_EXPLICIT)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "match policy %u", m->match_policy);
    wire_write_u8(w, m->match_policy);
    if (m->match_policy == TRESS_MATCH_EXPLICIT) {
      if ((st = write_index_set(w, m->match_count, m->match_indices, "match", err))) return st;
    } else if (m->match_count) {
      return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, w->len, "match indices with a non-explicit policy");
    }
    if ((st = write_index_set(w, m->rigged_count, m->rigged_indices, "rigged", err))) return st;
    return write_sections(w, m->section_count, m->sections, err);
  }
  case TRESS_MSG_SETTINGS_UPDATE: {
    const tress_msg_settings_update *m = &msg->settings_update;
    if (m->character_id == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "character_id 0");
    if (!m->has_chain_settings && !m->has_accessory_settings)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "settings update carries no settings");
    wire_write_u32(w, m->character_id);
    wire_write_u8(w, (uint8_t)((m->has_chain_settings ? 1 : 0) | (m->has_accessory_settings ? 2 : 0)));
    if (m->has_chain_settings && (st = write_chain(w, &m->chain_settings, err))) return st;
    if (m->has_accessory_settings && (st = write_accessory_settings(w, &m->accessory_settings, err))) return st;
    return TRESS_WIRE_OK;
  }
  case TRESS_MSG_ERROR:
    if (msg->error.offending_type > TRESS_MSG_TYPE_MAX)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, w->len, "offending type %u", msg->error.offending_type);
    wire_write_u16(w, msg->error.code);
    wire_write_u8(w, msg->error.offending_type);
    wire_write_u32(w, msg->error.request_id);
    wire_write_u32(w, msg->error.character_id);
    return write_str(w, msg->error.text, TRESS_WIRE_MAX_TEXT_BYTES, "text", err);
  case TRESS_MSG_REDIRECT: {
    const tress_msg_redirect *m = &msg->redirect;
    if (!m->room[0] || !m->host[0])
      return wire_fail(err, TRESS_WIRE_ERR_EMPTY_STRING, w->len, "redirect %s empty", m->room[0] ? "host" : "room");
    if (m->port == 0) return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, w->len, "redirect port 0");
    if ((st = write_str(w, m->room, TRESS_WIRE_MAX_NAME_BYTES, "room", err))) return st;
    if ((st = write_str(w, m->host, TRESS_WIRE_MAX_TEXT_BYTES, "host", err))) return st;
    wire_write_u16(w, m->port);
    return TRESS_WIRE_OK;
  }
  }
  return st;
}

/* Runs the writer and applies the per-type size limit. */
static tress_wire_status run(wire_writer *w, const tress_msg *msg, tress_wire_error *err) {
  tress_wire_status st = write_message(w, msg, err);
  if (st) return st;
  if (!w->bound && w->len > tress_msg_type_get_max_bytes(msg->type))
    return wire_fail(err, TRESS_WIRE_ERR_TOO_LARGE, 0, "%s is %zu bytes, limit %zu", tress_msg_type_name(msg->type),
                     w->len, tress_msg_type_get_max_bytes(msg->type));
  return TRESS_WIRE_OK;
}

size_t tress_msg_get_encoded_size(const tress_msg *msg) {
  wire_writer w = {0};
  return run(&w, msg, NULL) ? 0 : w.len;
}

size_t tress_msg_get_encode_bound(const tress_msg *msg) {
  wire_writer w = {0};
  w.bound = true;
  return run(&w, msg, NULL) ? 0 : w.len;
}

tress_wire_status tress_msg_encode(const tress_msg *msg, uint8_t *buf, size_t cap, size_t *out_len,
                                   tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out_len) *out_len = 0;
  wire_writer w = {buf, cap, 0, false};
  tress_wire_status st = run(&w, msg, err);
  if (st) return st;
  if (w.len > cap || !buf)
    return wire_fail(err, TRESS_WIRE_ERR_BUFFER_TOO_SMALL, cap, "%s needs %zu bytes, buffer holds %zu",
                     tress_msg_type_name(msg->type), w.len, cap);
  if (out_len) *out_len = w.len;
  return TRESS_WIRE_OK;
}
