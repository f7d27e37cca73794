/* json.c - a cJSON rendering of any message, for logs and `tress-bot --dump`. Field names match
 * PROTOCOL.md; skin arrays are summarized (counts, sizes, a weight checksum), never listed. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire_internal.h"

static void add_vec(cJSON *o, const char *key, const float *v, int n) {
  cJSON *a = cJSON_AddArrayToObject(o, key);
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
}

static void add_xform(cJSON *o, const char *key, const tress_xform *x) {
  cJSON *t = cJSON_AddObjectToObject(o, key);
  add_vec(t, "p", x->p, 3);
  add_vec(t, "q", x->q, 4);
}

static void add_chain(cJSON *o, const char *key, const tress_chain_settings *s) {
  cJSON *t = cJSON_AddObjectToObject(o, key);
  cJSON_AddNumberToObject(t, "damping", s->damping);
  cJSON_AddNumberToObject(t, "stiffness", s->stiffness);
  cJSON_AddNumberToObject(t, "gravity_scale", s->gravity_scale);
  cJSON_AddNumberToObject(t, "wind_scale", s->wind_scale);
}

static void add_accessory_settings(cJSON *o, const char *key, const tress_accessory_settings *s) {
  cJSON *t = cJSON_AddObjectToObject(o, key);
  cJSON_AddNumberToObject(t, "damping", s->damping);
  cJSON_AddNumberToObject(t, "stiffness", s->stiffness);
  cJSON_AddNumberToObject(t, "gravity_scale", s->gravity_scale);
  cJSON_AddNumberToObject(t, "wind_scale", s->wind_scale);
  cJSON_AddNumberToObject(t, "max_swing_degrees", s->max_swing_degrees);
}

static void add_rig_options(cJSON *o, const char *key, const tress_wire_rig_options *r) {
  cJSON *t = cJSON_AddObjectToObject(o, key);
  cJSON_AddNumberToObject(t, "sectors", r->sectors);
  cJSON_AddNumberToObject(t, "segments", r->segments);
  cJSON_AddNumberToObject(t, "max_influences", r->max_influences);
  add_vec(t, "axis", r->axis, 3);
  if (r->has_root) add_vec(t, "root", r->root, 3);
}

static void add_sections(cJSON *o, uint32_t n, const tress_wire_section *s) {
  cJSON *a = cJSON_AddArrayToObject(o, "sections");
  for (uint32_t i = 0; i < n; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "tag", s[i].tag);
    cJSON_AddNumberToObject(e, "length", s[i].length);
    cJSON_AddItemToArray(a, e);
  }
}

static void add_manifest(cJSON *o, const tress_wire_manifest *m) {
  cJSON *t = cJSON_AddObjectToObject(o, "manifest");
  cJSON_AddStringToObject(t, "character_name", m->character_name);
  cJSON *parts = cJSON_AddArrayToObject(t, "parts");
  for (uint32_t i = 0; i < m->part_count; i++) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", m->parts[i].name);
    add_vec(p, "size", m->parts[i].size, 3);
    add_xform(p, "cframe", &m->parts[i].cframe);
    cJSON_AddItemToArray(parts, p);
  }
  cJSON *accs = cJSON_AddArrayToObject(t, "accessories");
  for (uint32_t i = 0; i < m->accessory_count; i++) {
    const tress_wire_accessory *a = &m->accessories[i];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", a->name);
    cJSON_AddStringToObject(e, "type", tress_accessory_type_name((tress_accessory_type)a->type));
    cJSON_AddStringToObject(e, "mesh_asset_id", a->mesh_asset_id);
    add_vec(e, "handle_size", a->handle_size, 3);
    add_xform(e, "handle_cframe", &a->handle_cframe);
    cJSON_AddStringToObject(e, "joint_kind", tress_joint_kind_name((tress_joint_kind)a->joint_kind));
    add_xform(e, "c0", &a->c0);
    add_xform(e, "c1", &a->c1);
    cJSON_AddNumberToObject(e, "worn_on", a->worn_on);
    cJSON_AddBoolToObject(e, "layered", a->layered);
    cJSON_AddBoolToObject(e, "handle_has_bones", a->handle_has_bones);
    cJSON_AddItemToArray(accs, e);
  }
  if (m->has_chain_settings) add_chain(t, "chain_settings", &m->chain_settings);
  if (m->has_accessory_settings) add_accessory_settings(t, "accessory_settings", &m->accessory_settings);
  if (m->has_rig_options) add_rig_options(t, "rig_options", &m->rig_options);
  add_sections(t, m->section_count, m->sections);
}

static void add_code(cJSON *o, uint16_t code) {
  cJSON_AddNumberToObject(o, "code", code);
  cJSON_AddStringToObject(o, "code_name", tress_wire_code_name((tress_wire_code)code));
}

static void add_rig_result(cJSON *o, const tress_msg_rig_result *m) {
  cJSON_AddNumberToObject(o, "character_id", m->character_id);
  cJSON_AddNumberToObject(o, "accessory_index", m->accessory_index);
  char hex[65];
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", m->mesh_hash[i]);
  cJSON_AddStringToObject(o, "mesh_hash", hex);
  add_rig_options(o, "options", &m->options);
  cJSON *bones = cJSON_AddArrayToObject(o, "bones");
  for (uint32_t i = 0; i < m->bone_count; i++) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "name", m->bones[i].name);
    cJSON_AddNumberToObject(b, "parent", m->bones[i].parent);
    add_xform(b, "rest", &m->bones[i].rest);
    cJSON_AddItemToArray(bones, b);
  }
  const tress_wire_skin *s = &m->skin;
  cJSON *skin = cJSON_AddObjectToObject(o, "skin");
  cJSON_AddNumberToObject(skin, "vertex_count", s->vertex_count);
  cJSON_AddNumberToObject(skin, "influences", s->influences);
  cJSON_AddStringToObject(skin, "weight_format", tress_weight_format_name((tress_weight_format)s->weight_format));
  cJSON_AddStringToObject(skin, "compression", tress_compression_name((tress_compression)s->compression));
  cJSON_AddNumberToObject(skin, "raw_bytes", (double)wire_skin_raw_bytes(s->vertex_count, s->influences, s->weight_format));
  /* A checksum lets two dumps be compared without listing a million weights. */
  uint32_t sum = 2166136261u;
  if (s->joints && s->weights)
    for (size_t i = 0; i < (size_t)s->vertex_count * 4; i++) {
      sum = (sum ^ s->joints[i]) * 16777619u;
      sum = (sum ^ s->weights[i]) * 16777619u;
    }
  char hx[9];
  snprintf(hx, sizeof hx, "%08x", sum);
  cJSON_AddStringToObject(skin, "fnv1a", hx);
}

cJSON *tress_msg_to_json(const tress_msg *msg) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "type", tress_msg_type_name(msg->type));
  switch (msg->type) {
  case TRESS_MSG_HELLO:
    cJSON_AddNumberToObject(o, "version_major", msg->hello.version_major);
    cJSON_AddNumberToObject(o, "version_minor", msg->hello.version_minor);
    cJSON_AddStringToObject(o, "client_name", msg->hello.client_name);
    /* The token is a credential: logs get its length only. */
    cJSON_AddNumberToObject(o, "auth_token_bytes", (double)strlen(msg->hello.auth_token));
    break;
  case TRESS_MSG_WELCOME: {
    const tress_msg_welcome *m = &msg->welcome;
    cJSON_AddNumberToObject(o, "version_major", m->version_major);
    cJSON_AddNumberToObject(o, "version_minor", m->version_minor);
    cJSON_AddStringToObject(o, "server_version", m->server_version);
    char sid[17];
    snprintf(sid, sizeof sid, "%016llx", (unsigned long long)m->session_id);
    cJSON_AddStringToObject(o, "session_id", sid);
    cJSON_AddNumberToObject(o, "peer_id", m->peer_id);
    cJSON *l = cJSON_AddObjectToObject(o, "limits");
    cJSON_AddNumberToObject(l, "max_control_message_bytes", m->limits.max_control_message_bytes);
    cJSON_AddNumberToObject(l, "max_bulk_message_bytes", m->limits.max_bulk_message_bytes);
    cJSON_AddNumberToObject(l, "max_vertices", m->limits.max_vertices);
    cJSON_AddNumberToObject(l, "max_bones", m->limits.max_bones);
    cJSON_AddNumberToObject(l, "max_parts", m->limits.max_parts);
    cJSON_AddNumberToObject(l, "max_accessories", m->limits.max_accessories);
    cJSON_AddNumberToObject(l, "max_room_peers", m->limits.max_room_peers);
    cJSON_AddNumberToObject(l, "max_characters_per_peer", m->limits.max_characters_per_peer);
    cJSON_AddNumberToObject(l, "max_name_bytes", m->limits.max_name_bytes);
    cJSON_AddNumberToObject(l, "max_text_bytes", m->limits.max_text_bytes);
    break;
  }
  case TRESS_MSG_REJECT:
    add_code(o, msg->reject.code);
    cJSON_AddNumberToObject(o, "server_major", msg->reject.server_major);
    cJSON_AddNumberToObject(o, "server_minor", msg->reject.server_minor);
    cJSON_AddStringToObject(o, "reason", msg->reject.reason);
    break;
  case TRESS_MSG_JOIN_ROOM: cJSON_AddStringToObject(o, "room", msg->join_room.room); break;
  case TRESS_MSG_ROOM_JOINED: {
    cJSON_AddStringToObject(o, "room", msg->room_joined.room);
    cJSON *a = cJSON_AddArrayToObject(o, "members");
    for (uint32_t i = 0; i < msg->room_joined.member_count; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddNumberToObject(e, "peer_id", msg->room_joined.members[i].peer_id);
      cJSON_AddStringToObject(e, "name", msg->room_joined.members[i].name);
      cJSON_AddItemToArray(a, e);
    }
    break;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    cJSON_AddNumberToObject(o, "request_id", msg->spawn_character.request_id);
    add_manifest(o, &msg->spawn_character.manifest);
    break;
  case TRESS_MSG_DESPAWN_CHARACTER: cJSON_AddNumberToObject(o, "character_id", msg->despawn_character.character_id); break;
  case TRESS_MSG_CHARACTER_ADDED:
    cJSON_AddNumberToObject(o, "character_id", msg->character_added.character_id);
    cJSON_AddNumberToObject(o, "owner_peer_id", msg->character_added.owner_peer_id);
    cJSON_AddNumberToObject(o, "request_id", msg->character_added.request_id);
    add_manifest(o, &msg->character_added.manifest);
    break;
  case TRESS_MSG_CHARACTER_REMOVED:
    cJSON_AddNumberToObject(o, "character_id", msg->character_removed.character_id);
    cJSON_AddStringToObject(o, "reason", tress_removed_reason_name((tress_removed_reason)msg->character_removed.reason));
    break;
  case TRESS_MSG_RIG_RESULT: add_rig_result(o, &msg->rig_result); break;
  case TRESS_MSG_RIG_FAILED:
    cJSON_AddNumberToObject(o, "character_id", msg->rig_failed.character_id);
    cJSON_AddNumberToObject(o, "accessory_index", msg->rig_failed.accessory_index);
    add_code(o, msg->rig_failed.code);
    cJSON_AddStringToObject(o, "reason", msg->rig_failed.reason);
    break;
  case TRESS_MSG_BIND: {
    const tress_msg_bind *m = &msg->bind;
    cJSON_AddNumberToObject(o, "character_id", m->character_id);
    add_chain(o, "chain_settings", &m->chain_settings);
    add_accessory_settings(o, "accessory_settings", &m->accessory_settings);
    cJSON_AddStringToObject(o, "match_policy", tress_match_policy_name((tress_match_policy)m->match_policy));
    if (m->match_policy == TRESS_MATCH_EXPLICIT) {
      cJSON *a = cJSON_AddArrayToObject(o, "match_indices");
      for (uint32_t i = 0; i < m->match_count; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(m->match_indices[i]));
    }
    cJSON *rigged = cJSON_AddArrayToObject(o, "rigged_indices");
    for (uint32_t i = 0; i < m->rigged_count; i++) cJSON_AddItemToArray(rigged, cJSON_CreateNumber(m->rigged_indices[i]));
    add_sections(o, m->section_count, m->sections);
    break;
  }
  case TRESS_MSG_SETTINGS_UPDATE:
    cJSON_AddNumberToObject(o, "character_id", msg->settings_update.character_id);
    if (msg->settings_update.has_chain_settings) add_chain(o, "chain_settings", &msg->settings_update.chain_settings);
    if (msg->settings_update.has_accessory_settings)
      add_accessory_settings(o, "accessory_settings", &msg->settings_update.accessory_settings);
    break;
  case TRESS_MSG_ERROR:
    add_code(o, msg->error.code);
    if (msg->error.offending_type)
      cJSON_AddStringToObject(o, "offending_type", tress_msg_type_name((tress_msg_type)msg->error.offending_type));
    cJSON_AddNumberToObject(o, "request_id", msg->error.request_id);
    cJSON_AddNumberToObject(o, "character_id", msg->error.character_id);
    cJSON_AddStringToObject(o, "text", msg->error.text);
    break;
  case TRESS_MSG_REDIRECT:
    cJSON_AddStringToObject(o, "room", msg->redirect.room);
    cJSON_AddStringToObject(o, "host", msg->redirect.host);
    cJSON_AddNumberToObject(o, "port", msg->redirect.port);
    break;
  }
  return o;
}

char *tress_msg_to_json_string(const tress_msg *msg) {
  cJSON *o = tress_msg_to_json(msg);
  if (!o) return NULL;
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}
