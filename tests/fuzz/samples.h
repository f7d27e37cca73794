/* fuzz/samples.h - valid messages of every type at extreme and typical values, shared by the
 * protocol unit tests, the fuzz seed-corpus generator and bench/wire.c. Header-only. */
#ifndef TRESS_TEST_SAMPLES_H
#define TRESS_TEST_SAMPLES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/msg.h"
#include "tress/wire_springs.h"

/* Every array a sample message points into. Free with sample_store_free. */
typedef struct sample_store {
  tress_wire_part parts[TRESS_WIRE_MAX_PARTS];
  tress_wire_accessory accessories[TRESS_WIRE_MAX_ACCESSORIES];
  tress_wire_bone bones[TRESS_WIRE_MAX_BONES];
  tress_wire_peer members[TRESS_WIRE_MAX_ROOM_PEERS];
  tress_wire_section sections[TRESS_WIRE_MAX_SECTIONS];
  uint8_t section_bytes[TRESS_WIRE_MAX_SECTIONS][40];
  uint8_t match[TRESS_WIRE_MAX_ACCESSORIES];
  uint8_t rigged[TRESS_WIRE_MAX_ACCESSORIES];
  uint8_t *joints;
  uint16_t *weights;
} sample_store;

static inline void sample_store_free(sample_store *st) {
  free(st->joints);
  free(st->weights);
  st->joints = NULL;
  st->weights = NULL;
}

/* A string of exactly `bytes` bytes (two-byte UTF-8 'é' pairs, padded with 'x'). */
static inline void sample_long_name(char *dst, size_t bytes) {
  size_t i = 0;
  while (i + 2 <= bytes) {
    dst[i++] = (char)0xC3;
    dst[i++] = (char)0xA9;
  }
  while (i < bytes) dst[i++] = 'x';
  dst[i] = '\0';
}

static inline tress_xform sample_xform(float x, float y, float z, float angle) {
  tress_xform t = tress_xform_from_pos(x, y, z);
  t.q[1] = sinf(angle * 0.5f);
  t.q[3] = cosf(angle * 0.5f);
  return t;
}

/* HairKit-style weights: strands of 16 vertices hang down in `sectors` chains of `segments`
 * bands; each vertex blends its own band bone with the neighbour it leans toward by
 * |fraction - 0.5| * 0.8, and the first vertex of each strand sits on the scalp (HairRoot). */
static inline void sample_hair_weights(uint32_t n, uint32_t sectors, uint32_t segments, float *weights4,
                                       uint8_t *joints4) {
  const uint32_t strand_len = 16;
  for (uint32_t v = 0; v < n; v++) {
    uint32_t strand = v / strand_len, step = v % strand_len;
    uint32_t sector = (strand * 7919u) % sectors;
    float *w = weights4 + (size_t)v * 4;
    uint8_t *j = joints4 + (size_t)v * 4;
    memset(w, 0, 4 * sizeof(float));
    memset(j, 0, 4);
    if (step == 0) {
      w[0] = 1.0f;
      continue;
    }
    float depth = (float)(step - 1) / (float)(strand_len - 1) * (float)segments; /* 0..segments */
    uint32_t band = (uint32_t)depth;
    if (band >= segments) band = segments - 1;
    float frac = depth - (float)band;
    uint32_t primary = 1 + sector * segments + band;
    int neighbour = frac >= 0.5f ? (int)band + 1 : (int)band - 1;
    float blend = fabsf(frac - 0.5f) * 0.8f;
    j[0] = (uint8_t)primary;
    if (neighbour < 0 || neighbour >= (int)segments || blend <= 0.0f) {
      w[0] = 1.0f;
      continue;
    }
    w[0] = 1.0f - blend;
    w[1] = blend;
    j[1] = (uint8_t)(1 + sector * segments + (uint32_t)neighbour);
  }
}

/* The variants every type is built in. */
enum { SAMPLE_MIN = 0, SAMPLE_TYPICAL = 1, SAMPLE_MAX = 2, SAMPLE_VARIANTS = 3 };

static inline tress_wire_manifest sample_manifest(sample_store *st, int variant) {
  tress_wire_manifest m;
  memset(&m, 0, sizeof m);
  if (variant == SAMPLE_MIN) return m;
  bool max = variant == SAMPLE_MAX;
  uint32_t parts = max ? TRESS_WIRE_MAX_PARTS : 3, accs = max ? TRESS_WIRE_MAX_ACCESSORIES : 2;
  if (max) sample_long_name(m.character_name, TRESS_WIRE_MAX_NAME_BYTES);
  else strcpy(m.character_name, "Avery");
  static const char *const body[] = {"Head", "UpperTorso", "LowerTorso"};
  for (uint32_t i = 0; i < parts; i++) {
    tress_wire_part *p = &st->parts[i];
    memset(p, 0, sizeof *p);
    if (max) sample_long_name(p->name, TRESS_WIRE_MAX_NAME_BYTES);
    else strcpy(p->name, body[i]);
    if (max) p->name[0] = (char)('A' + i % 26), p->name[1] = (char)('a' + i / 26); /* keep them unique */
    p->size[0] = max ? TRESS_WIRE_MAX_SIZE : 2.0f;
    p->size[1] = 1.0f;
    p->size[2] = 1.0f;
    p->cframe = sample_xform(0.0f, 4.5f - (float)i, max ? -TRESS_WIRE_MAX_COORD : 0.0f, 0.3f * (float)i);
  }
  for (uint32_t i = 0; i < accs; i++) {
    tress_wire_accessory *a = &st->accessories[i];
    memset(a, 0, sizeof *a);
    if (max) {
      sample_long_name(a->name, TRESS_WIRE_MAX_NAME_BYTES);
      sample_long_name(a->mesh_asset_id, TRESS_WIRE_MAX_TEXT_BYTES);
    } else {
      snprintf(a->name, sizeof a->name, i == 0 ? "LongHair" : "Cape");
      snprintf(a->mesh_asset_id, sizeof a->mesh_asset_id, i == 0 ? "hair/long_wavy.glb" : "capes/cape.glb");
    }
    a->type = (uint8_t)(i == 0 ? TRESS_ACCESSORY_HAIR : (max ? i % TRESS_ACCESSORY_TYPE_COUNT : TRESS_ACCESSORY_BACK));
    a->handle_size[0] = 1.5f;
    a->handle_size[1] = 2.0f;
    a->handle_size[2] = 1.0f;
    a->handle_cframe = sample_xform(0.0f, 5.0f, 0.2f, 0.1f);
    a->joint_kind = (uint8_t)(i % 4);
    a->c0 = sample_xform(0.0f, -0.6f, 0.0f, 0.0f);
    a->c1 = sample_xform(0.0f, 0.5f, 0.0f, 0.0f);
    if (a->joint_kind == TRESS_JOINT_WELD_CONSTRAINT) a->c0 = a->c1 = tress_xform_identity();
    a->worn_on = (uint8_t)(i % parts);
    a->layered = max && (i & 1);
    a->handle_has_bones = max && (i & 2);
  }
  m.part_count = parts;
  m.parts = st->parts;
  m.accessory_count = accs;
  m.accessories = st->accessories;
  m.has_chain_settings = true;
  m.chain_settings = tress_default_chain_settings();
  m.has_accessory_settings = max;
  m.accessory_settings = tress_default_accessory_settings();
  if (max) m.accessory_settings.max_swing_degrees = 180.0f;
  m.has_rig_options = true;
  m.rig_options = tress_default_wire_rig_options();
  if (max) {
    m.rig_options.sectors = 15;
    m.rig_options.segments = 17; /* 1 + 255 = 256 bones */
    m.rig_options.max_influences = 4;
    m.rig_options.has_root = true;
    m.rig_options.root[1] = 0.9f;
    m.section_count = TRESS_WIRE_MAX_SECTIONS;
    for (uint32_t i = 0; i < TRESS_WIRE_MAX_SECTIONS; i++) {
      memset(st->section_bytes[i], (int)i, sizeof st->section_bytes[i]);
      st->sections[i].tag = (uint16_t)(0x8000 + i);
      st->sections[i].length = i == 0 ? 0 : (uint32_t)sizeof st->section_bytes[i];
      st->sections[i].bytes = st->section_bytes[i];
    }
    m.sections = st->sections;
  }
  return m;
}

/* Builds the rig result for a variant; vertices caps the MAX variant (1,000,000 is the limit). */
static inline bool sample_rig_result(tress_msg_rig_result *m, sample_store *st, int variant, uint32_t vertices,
                                     uint8_t weight_format, uint8_t compression) {
  memset(m, 0, sizeof *m);
  m->character_id = variant == SAMPLE_MAX ? 0xFFFFFFFFu : 7;
  m->accessory_index = variant == SAMPLE_MAX ? TRESS_WIRE_MAX_ACCESSORIES - 1 : 0;
  for (int i = 0; i < 32; i++) m->mesh_hash[i] = (uint8_t)(i * 37 + 1);
  m->options = tress_default_wire_rig_options();
  uint32_t sectors = 3, segments = 3;
  if (variant == SAMPLE_MAX) {
    sectors = 15;
    segments = 17;
    m->options.sectors = 15;
    m->options.segments = 17;
    m->options.max_influences = 4;
  }
  uint32_t bones = variant == SAMPLE_MIN ? 1 : 1 + sectors * segments;
  for (uint32_t b = 0; b < bones; b++) {
    tress_wire_bone *bone = &st->bones[b];
    memset(bone, 0, sizeof *bone);
    if (b == 0) {
      strcpy(bone->name, "HairRoot");
      bone->parent = -1;
      bone->rest = tress_xform_from_pos(0.0f, 0.9f, 0.0f);
    } else {
      uint32_t s = (b - 1) / segments, band = (b - 1) % segments;
      snprintf(bone->name, sizeof bone->name, "Hair_S%u_B%u", s + 1, band + 1);
      if (variant == SAMPLE_MAX && b == bones - 1) sample_long_name(bone->name, TRESS_WIRE_MAX_NAME_BYTES);
      bone->parent = (int16_t)(band == 0 ? 0 : b - 1);
      bone->rest = tress_xform_from_pos(0.1f * (float)s, -0.4f, 0.0f);
    }
  }
  m->bone_count = bones;
  m->bones = st->bones;
  uint32_t n = variant == SAMPLE_MIN ? 0 : (variant == SAMPLE_TYPICAL ? 2000 : vertices);
  m->skin.vertex_count = n;
  m->skin.influences = variant == SAMPLE_MAX ? 4 : 2;
  m->skin.weight_format = weight_format;
  m->skin.compression = compression;
  sample_store_free(st);
  st->joints = calloc((size_t)n * 4 + 4, 1);
  st->weights = calloc((size_t)n * 4 + 4, sizeof(uint16_t));
  float *w = calloc((size_t)n * 4 + 4, sizeof(float));
  if (!st->joints || !st->weights || !w) {
    free(w);
    return false;
  }
  sample_hair_weights(n, sectors, segments, w, st->joints);
  if (variant == SAMPLE_MAX) /* spread some weight over all four slots */
    for (uint32_t v = 0; v < n; v += 3) {
      float *x = w + (size_t)v * 4;
      uint8_t *j = st->joints + (size_t)v * 4;
      x[0] = 0.4f, x[1] = 0.3f, x[2] = 0.2f, x[3] = 0.1f;
      j[0] = (uint8_t)(bones - 1), j[1] = (uint8_t)(bones - 2), j[2] = 1, j[3] = 0;
    }
  tress_skin_quantize(w, n, m->skin.influences, (tress_weight_format)weight_format, st->weights);
  free(w);
  m->skin.joints = st->joints;
  m->skin.weights = st->weights;
  return true;
}

/* One message of `type` in `variant`. vertices caps the MAX rig result. */
static inline bool sample_message(tress_msg_type type, int variant, tress_msg *msg, sample_store *st,
                                  uint32_t vertices) {
  memset(msg, 0, sizeof *msg);
  msg->type = type;
  bool max = variant == SAMPLE_MAX, min = variant == SAMPLE_MIN;
  switch (type) {
  case TRESS_MSG_HELLO:
    msg->hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
    msg->hello.version_minor = max ? 0xFFFF : TRESS_PROTOCOL_VERSION_MINOR;
    if (max) {
      sample_long_name(msg->hello.client_name, TRESS_WIRE_MAX_NAME_BYTES);
      sample_long_name(msg->hello.auth_token, TRESS_WIRE_MAX_TEXT_BYTES);
    } else if (!min) {
      strcpy(msg->hello.client_name, "tress-bot");
      strcpy(msg->hello.auth_token, "dev-token");
    }
    return true;
  case TRESS_MSG_WELCOME:
    msg->welcome.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
    msg->welcome.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
    if (max) sample_long_name(msg->welcome.server_version, TRESS_WIRE_MAX_TEXT_BYTES);
    else if (!min) strcpy(msg->welcome.server_version, "tress-server 0.1.0");
    msg->welcome.session_id = max ? UINT64_MAX : 0x0123456789abcdefull;
    msg->welcome.peer_id = max ? UINT32_MAX : 1;
    msg->welcome.limits = tress_default_wire_limits();
    if (min) memset(&msg->welcome.limits, 0, sizeof msg->welcome.limits);
    return true;
  case TRESS_MSG_REJECT:
    msg->reject.code = max ? 0xFFFF : TRESS_CODE_BAD_VERSION;
    msg->reject.server_major = TRESS_PROTOCOL_VERSION_MAJOR;
    if (max) sample_long_name(msg->reject.reason, TRESS_WIRE_MAX_TEXT_BYTES);
    else if (!min) strcpy(msg->reject.reason, "protocol major 2 is not supported; this server speaks 1");
    return true;
  case TRESS_MSG_JOIN_ROOM:
    if (max) sample_long_name(msg->join_room.room, TRESS_WIRE_MAX_NAME_BYTES);
    else strcpy(msg->join_room.room, min ? "a" : "lobby");
    return true;
  case TRESS_MSG_ROOM_JOINED: {
    uint32_t n = min ? 0 : (max ? TRESS_WIRE_MAX_ROOM_PEERS : 2);
    if (max) sample_long_name(msg->room_joined.room, TRESS_WIRE_MAX_NAME_BYTES);
    else if (!min) strcpy(msg->room_joined.room, "lobby");
    for (uint32_t i = 0; i < n; i++) {
      st->members[i].peer_id = max ? UINT32_MAX - i : i + 1;
      if (max) sample_long_name(st->members[i].name, TRESS_WIRE_MAX_NAME_BYTES);
      else snprintf(st->members[i].name, sizeof st->members[i].name, "bot-%u", i);
    }
    msg->room_joined.member_count = n;
    msg->room_joined.members = st->members;
    return true;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    msg->spawn_character.request_id = max ? UINT32_MAX : (min ? 0 : 42);
    msg->spawn_character.manifest = sample_manifest(st, variant);
    return true;
  case TRESS_MSG_DESPAWN_CHARACTER:
    msg->despawn_character.character_id = max ? UINT32_MAX : 1;
    return true;
  case TRESS_MSG_CHARACTER_ADDED:
    msg->character_added.character_id = max ? UINT32_MAX : 1;
    msg->character_added.owner_peer_id = max ? UINT32_MAX : 1;
    msg->character_added.request_id = max ? UINT32_MAX : 42;
    msg->character_added.manifest = sample_manifest(st, variant);
    return true;
  case TRESS_MSG_CHARACTER_REMOVED:
    msg->character_removed.character_id = max ? UINT32_MAX : 1;
    msg->character_removed.reason = (uint8_t)(max ? TRESS_REMOVED_SERVER : TRESS_REMOVED_DESPAWNED);
    return true;
  case TRESS_MSG_RIG_RESULT:
    return sample_rig_result(&msg->rig_result, st, variant, vertices, TRESS_WEIGHTS_U8,
                             variant == SAMPLE_TYPICAL ? TRESS_COMPRESSION_ZSTD : TRESS_COMPRESSION_NONE);
  case TRESS_MSG_RIG_FAILED:
    msg->rig_failed.character_id = max ? UINT32_MAX : 1;
    msg->rig_failed.accessory_index = max ? TRESS_WIRE_MAX_ACCESSORIES - 1 : 0;
    msg->rig_failed.code = TRESS_CODE_UNKNOWN_ASSET;
    if (max) sample_long_name(msg->rig_failed.reason, TRESS_WIRE_MAX_TEXT_BYTES);
    else if (!min) strcpy(msg->rig_failed.reason, "no permission to load asset");
    return true;
  case TRESS_MSG_BIND:
    msg->bind.character_id = max ? UINT32_MAX : 1;
    msg->bind.chain_settings = tress_default_chain_settings();
    msg->bind.accessory_settings = tress_default_accessory_settings();
    msg->bind.match_policy = (uint8_t)(min ? TRESS_MATCH_DEFAULT : TRESS_MATCH_EXPLICIT);
    if (!min) {
      uint32_t n = max ? TRESS_WIRE_MAX_ACCESSORIES : 2;
      for (uint32_t i = 0; i < n; i++) st->match[i] = (uint8_t)(n - 1 - i);
      msg->bind.match_count = n;
      msg->bind.match_indices = st->match;
      for (uint32_t i = 0; i < n; i++) st->rigged[i] = (uint8_t)i;
      msg->bind.rigged_count = max ? n : 1;
      msg->bind.rigged_indices = st->rigged;
    }
    if (max) {
      tress_wire_manifest m = sample_manifest(st, SAMPLE_MAX);
      msg->bind.section_count = m.section_count;
      msg->bind.sections = m.sections;
      msg->bind.chain_settings.damping = 1.0f;
      msg->bind.chain_settings.gravity_scale = -TRESS_WIRE_MAX_SCALE;
    }
    return true;
  case TRESS_MSG_SETTINGS_UPDATE:
    msg->settings_update.character_id = max ? UINT32_MAX : 1;
    msg->settings_update.has_chain_settings = true;
    msg->settings_update.chain_settings = tress_default_chain_settings();
    msg->settings_update.has_accessory_settings = max;
    msg->settings_update.accessory_settings = tress_default_accessory_settings();
    if (min) msg->settings_update.chain_settings.stiffness = 0.0f;
    return true;
  case TRESS_MSG_ERROR:
    msg->error.code = max ? 0xFFFF : TRESS_CODE_NOT_OWNER;
    msg->error.offending_type = (uint8_t)(min ? 0 : TRESS_MSG_DESPAWN_CHARACTER);
    msg->error.request_id = max ? UINT32_MAX : 0;
    msg->error.character_id = max ? UINT32_MAX : 3;
    if (max) sample_long_name(msg->error.text, TRESS_WIRE_MAX_TEXT_BYTES);
    else if (!min) strcpy(msg->error.text, "character 3 belongs to peer 2");
    return true;
  case TRESS_MSG_REDIRECT:
    if (max) {
      sample_long_name(msg->redirect.room, TRESS_WIRE_MAX_NAME_BYTES);
      sample_long_name(msg->redirect.host, TRESS_WIRE_MAX_TEXT_BYTES);
    } else {
      strcpy(msg->redirect.room, min ? "r" : "arena-7");
      strcpy(msg->redirect.host, min ? "h" : "tress-2.tress.svc.cluster.local");
    }
    msg->redirect.port = max ? 0xFFFF : min ? 1 : 7777;
    return true;
  }
  return false;
}

/* A springs section (BIND tag 1): typical = a head sphere, a torso capsule and the default chain
 * entry using both; max = every collider and chain at its limits (long names, full sets, edge
 * values). Not in sample_store: tress_wire_springs is ~15 KiB, the caller owns it. */
static inline void sample_springs(tress_wire_springs *s, int variant) {
  memset(s, 0, sizeof *s);
  bool max = variant == SAMPLE_MAX;
  s->collider_count = max ? TRESS_WIRE_MAX_COLLIDERS : 2;
  for (uint32_t i = 0; i < s->collider_count; i++) {
    tress_wire_collider *c = &s->colliders[i];
    c->shape = (uint8_t)(i % 2 ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE);
    if (max) sample_long_name(c->attach, TRESS_WIRE_MAX_NAME_BYTES);
    else strcpy(c->attach, i ? "UpperTorso" : "Head");
    c->offset[1] = max ? -TRESS_WIRE_MAX_COORD : 0.25f * (float)i;
    if (c->shape == TRESS_COLLIDER_CAPSULE) c->tail[1] = max ? TRESS_WIRE_MAX_COORD : -1.5f;
    c->radius = max ? (i % 3 ? TRESS_WIRE_MAX_RADIUS : 0.0f) : 0.6f;
  }
  s->chain_count = max ? TRESS_WIRE_MAX_SPRING_CHAINS : 1;
  for (uint32_t i = 0; i < s->chain_count; i++) {
    tress_wire_spring_chain *c = &s->chains[i];
    if (max) snprintf(c->root, sizeof c->root, "Hair_Ponytail_%02u", i);
    c->settings = tress_default_chain_settings();
    c->settings.radius = max ? TRESS_WIRE_MAX_RADIUS : 0.05f;
    c->settings.end_length = max ? TRESS_WIRE_MAX_RADIUS : 0.1f;
    c->settings.wind_gust = max ? 1.0f : 0.3f;
    c->settings.wind_frequency = max ? TRESS_WIRE_MAX_GUST_HZ : 0.5f;
    c->settings.weight = max ? (float)(i % 2) : 1.0f;
    c->settings.enabled = !max || i % 3 != 0;
    c->collider_count = (uint8_t)(max ? TRESS_CHAIN_COLLIDERS_MAX : 2);
    for (uint32_t k = 0; k < c->collider_count; k++) c->colliders[k] = (uint8_t)((k + i) % s->collider_count);
  }
}

#endif
