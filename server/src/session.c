/* Character sessions
 * ------------------
 * One session per spawned character, HairKit.server's flow in server terms:
 *   SPAWN -> CHARACTER_ADDED to the room -> for each accessory the match accepts (Hair type or
 *   "hair" in its name) whose handle is a mesh without bones: a rig on the thread pool (or a
 *   cache hit) -> RIG_RESULT or RIG_FAILED to the room -> once no accessory is pending, one BIND.
 *   A pre-skinned accessory (has_bones, a mesh) takes the same road with its file's own skin
 *   read instead of a rig (rig_jobs.c, preskinned.c).
 * A failed rig leaves the accessory untouched (clients sway it as a pendulum); the server never
 * binds or simulates anything itself, and after BIND it sends nothing for this character
 * unless someone changes it (settings update, despawn, disconnect).
 *
 * Invariants: every accessory is marked PENDING before the first rig is requested, so a cache
 * hit that settles synchronously cannot bind early; `pending` counts PENDING accessories; a
 * RIGGED accessory holds one reference on its cache entry; a rig that completes for a session
 * that is gone (or an accessory no longer pending) is ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "tress/hair_manager.h"
#include "tress/wire_attachments.h"
#include "tress/wire_springs.h"

tress_character *tress_session_find(tress_server *s, uint32_t character_id) {
  if (character_id == 0) return NULL;
  for (uint32_t i = 0; i < s->character_cap; i++)
    if (s->characters[i].used && s->characters[i].id == character_id) return &s->characters[i];
  return NULL;
}

static tress_character *alloc_character(tress_server *s) {
  for (uint32_t i = 0; i < s->character_cap; i++)
    if (!s->characters[i].used) return &s->characters[i];
  uint32_t cap = s->character_cap ? s->character_cap * 2 : 64;
  tress_character *n = realloc(s->characters, cap * sizeof *n);
  if (!n) return NULL;
  memset(n + s->character_cap, 0, (cap - s->character_cap) * sizeof *n);
  s->characters = n;
  tress_character *c = &n[s->character_cap];
  s->character_cap = cap;
  return c;
}

/* A one-off message about c to the room, with the same replay rule. */
static void send_room_about(tress_server *s, const tress_character *c, uint32_t step, const tress_msg *m,
                            uint32_t except_slot) {
  ENetPacket *pkt = tress_net_packet_hold(s, m);
  if (!pkt) return;
  tress_replay_send_room(s, c, step, tress_msg_type_get_channel(m->type), pkt, except_slot);
  tress_net_packet_release(pkt);
}

/* The character's packets are encoded once and held (one reference) for every replay: a replay
 * to N joiners is N sends of one packet. */
static ENetPacket *added_packet(tress_server *s, tress_character *c) {
  if (c->added_packet) return c->added_packet;
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_CHARACTER_ADDED;
  m.character_added.character_id = c->id;
  m.character_added.owner_peer_id = c->owner_peer_id;
  m.character_added.request_id = c->request_id;
  m.character_added.manifest = c->spawn.spawn_character.manifest;
  c->added_packet = tress_net_packet_hold(s, &m);
  return c->added_packet;
}

/* Room sends skip members whose JOIN replay has not reached this step of c (replay.c). */
static void send_added(tress_server *s, tress_character *c) {
  ENetPacket *pkt = added_packet(s, c);
  uint8_t channel = tress_msg_type_get_channel(TRESS_MSG_CHARACTER_ADDED);
  if (pkt) tress_replay_send_room(s, c, TRESS_REPLAY_STEP_ADDED, channel, pkt, UINT32_MAX);
}

/* The cached rig for this wearer: the payload the rig job's worker encoded once, with this
 * wearer's ids patched in, so the loop thread copies bytes and never encodes or runs zstd.
 * Kept for late joiners. */
static ENetPacket *rig_packet(tress_server *s, tress_character *c, uint8_t idx) {
  tress_accessory_session *as = &c->acc[idx];
  if (!as->rig_packet) {
    char reason[TRESS_WIRE_TEXT_CAP];
    size_t len = 0;
    uint8_t *bytes = tress_rig_entry_encode_for(as->rig, c->id, idx, &len, reason);
    if (!bytes) {
      char q[300];
      tress_log_event(&s->log, TRESS_LOG_ERROR, "encode_failed", "type=RIG_RESULT reason=%s",
                      tress_log_quote(reason, q, sizeof q));
      return NULL;
    }
    as->rig_packet = tress_net_packet_hold_bytes(bytes, len);
    free(bytes);
    if (!as->rig_packet) return NULL;
    atomic_fetch_add(&s->metrics.messages_encoded, 1);
  }
  return as->rig_packet;
}

static void send_rig_result(tress_server *s, tress_character *c, uint8_t idx) {
  ENetPacket *pkt = rig_packet(s, c, idx);
  if (!pkt) return;
  uint8_t channel = tress_msg_type_get_channel(TRESS_MSG_RIG_RESULT);
  tress_replay_send_room(s, c, TRESS_REPLAY_STEP_ACCESSORY(idx), channel, pkt, UINT32_MAX);
}

static void rig_failed_msg(const tress_character *c, uint8_t idx, tress_msg *out) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_RIG_FAILED;
  m.rig_failed.character_id = c->id;
  m.rig_failed.accessory_index = idx;
  m.rig_failed.code = c->acc[idx].fail_code;
  snprintf(m.rig_failed.reason, sizeof m.rig_failed.reason, "%s", c->acc[idx].fail_reason);
  *out = m;
}

static void send_rig_failed(tress_server *s, const tress_character *c, uint8_t idx) {
  tress_msg m;
  rig_failed_msg(c, idx, &m);
  send_room_about(s, c, TRESS_REPLAY_STEP_ACCESSORY(idx), &m, UINT32_MAX);
}

/* The manifest's springs section (colliders and chain settings), or NULL. */
static const tress_wire_section *manifest_springs(const tress_wire_manifest *mf) {
  for (uint32_t i = 0; i < mf->section_count; i++)
    if (mf->sections[i].tag == TRESS_SECTION_SPRINGS) return &mf->sections[i];
  return NULL;
}

static ENetPacket *bind_packet(tress_server *s, tress_character *c) {
  if (c->bind_packet) return c->bind_packet;
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_BIND;
  m.bind.character_id = c->id;
  m.bind.chain_settings = c->chain_settings;
  m.bind.accessory_settings = c->accessory_settings;
  m.bind.match_policy = TRESS_MATCH_DEFAULT;
  /* the spawn's springs section, checked at spawn, goes out as it came (the session owns it) */
  tress_wire_section springs;
  const tress_wire_section *from = manifest_springs(&c->spawn.spawn_character.manifest);
  if (from) {
    springs = *from;
    m.bind.section_count = 1;
    m.bind.sections = &springs;
  }
  c->bind_packet = tress_net_packet_hold(s, &m);
  return c->bind_packet;
}

static void send_bind(tress_server *s, tress_character *c) {
  ENetPacket *pkt = bind_packet(s, c);
  if (pkt) tress_replay_send_room(s, c, TRESS_REPLAY_STEP_BIND, tress_msg_type_get_channel(TRESS_MSG_BIND), pkt, UINT32_MAX);
}

static void maybe_bind(tress_server *s, tress_character *c) {
  if (c->pending > 0 || c->bound) return;
  c->bound = true;
  send_bind(s, c);
  tress_net_flush(s);
  uint32_t rigged = 0, failed = 0;
  for (uint32_t i = 0; i < c->spawn.spawn_character.manifest.accessory_count; i++) {
    rigged += c->acc[i].state == TRESS_ACC_RIGGED;
    failed += c->acc[i].state == TRESS_ACC_FAILED;
  }
  tress_log_event(&s->log, TRESS_LOG_INFO, "character_bound", "character=%u rigged=%u failed=%u spawn_to_bind_ms=%.3f",
                  c->id, rigged, failed, (double)(tress_server_now_ns() - c->spawn_ns) / 1e6);
}

void tress_session_rig_settled(tress_server *s, uint32_t character_id, uint8_t idx, tress_rig_entry *entry,
                               uint16_t fail_code, const char *fail_reason) {
  tress_character *c = tress_session_find(s, character_id);
  if (!c || idx >= TRESS_WIRE_MAX_ACCESSORIES || c->acc[idx].state != TRESS_ACC_PENDING) return;
  tress_accessory_session *a = &c->acc[idx];
  if (entry) {
    tress_rig_entry_retain(entry);
    tress_rig_cache_pin(&s->cache, entry); /* worn: counted in the memory budget, never evicted */
    tress_rig_jobs_publish_cache(s, 0);
    a->rig = entry;
    a->state = TRESS_ACC_RIGGED;
    send_rig_result(s, c, idx);
  } else {
    a->state = TRESS_ACC_FAILED;
    a->fail_code = fail_code;
    snprintf(a->fail_reason, sizeof a->fail_reason, "%s", fail_reason ? fail_reason : "rig failed");
    send_rig_failed(s, c, idx);
    if (fail_code < TRESS_CODE_COUNT) atomic_fetch_add(&s->metrics.rig_failures[fail_code], 1);
    char q[300];
    tress_log_event(&s->log, TRESS_LOG_WARN, "rig_failed", "character=%u accessory=%u code=%s reason=%s", c->id, idx,
                    tress_wire_code_name((tress_wire_code)fail_code), tress_log_quote(a->fail_reason, q, sizeof q));
  }
  c->pending--;
  maybe_bind(s, c);
}

/* Whether this spawn's CHARACTER_ADDED encodes within the control limit (ids are fixed-width,
 * so placeholders measure the same as the real ones). */
static bool added_encodes(tress_server *s, const tress_peer *p, const tress_msg *spawn) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_CHARACTER_ADDED;
  m.character_added.character_id = UINT32_MAX;
  m.character_added.owner_peer_id = p->peer_id;
  m.character_added.request_id = spawn->spawn_character.request_id;
  m.character_added.manifest = spawn->spawn_character.manifest;
  size_t len = 0;
  tress_wire_error err;
  return tress_msg_encode(&m, s->scratch, TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES, &len, &err) == TRESS_WIRE_OK;
}

void tress_session_spawn(tress_server *s, uint32_t slot, tress_msg *spawn) {
  tress_peer *p = &s->peers[slot];
  const tress_msg_spawn_character *m = &spawn->spawn_character;
  const tress_wire_manifest *mf = &m->manifest;
  if (s->draining) {
    tress_net_send_error(s, slot, TRESS_CODE_SERVER_SHUTTING_DOWN, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                         "server shutting down");
    return;
  }
  if (p->room < 0) {
    tress_net_send_error(s, slot, TRESS_CODE_NOT_IN_ROOM, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0, "join a room first");
    tress_peer_strike(s, slot, "spawn_outside_room");
    return;
  }
  if (p->characters >= s->cfg.max_characters_per_peer) {
    tress_net_send_error(s, slot, TRESS_CODE_CHARACTER_LIMIT, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                         "at most %u live characters per peer", s->cfg.max_characters_per_peer);
    return;
  }
  /* Rigs are the expensive thing a client can ask for: a peer whose spawns already have
   * max_rigs_per_peer rigs running waits (and retries) instead of queueing more. */
  /* The limit follows the client's identity, not the connection (rig_jobs.c counts_against), so
   * disconnect-and-reconnect cannot queue more. */
  uint32_t in_flight = tress_rig_jobs_in_flight_for(s, slot);
  if (in_flight >= s->cfg.max_rigs_per_peer) {
    atomic_fetch_add(&s->metrics.rate_limited, 1);
    tress_net_send_error(s, slot, TRESS_CODE_RATE_LIMITED, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                         "%u rigs already in flight for this client, retry later", in_flight);
    return;
  }
  /* Asset ids are checked before the character exists: an id that tries to leave the store is
   * an attack, not a missing asset, and the room never hears of it. */
  for (uint32_t i = 0; i < mf->accessory_count; i++) {
    const char *id = mf->accessories[i].mesh_asset_id;
    if (id[0] && !tress_asset_id_is_valid(id)) {
      tress_net_send_error(s, slot, TRESS_CODE_ASSET_PATH_REJECTED, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                           "accessory %u: asset id is not a path inside the store", i);
      tress_peer_strike(s, slot, "asset_path");
      return;
    }
  }
  /* A springs section (colliders, chain settings) is relayed in BIND to every client of the
   * room, so it is decoded here first: a bad one never reaches them. */
  const tress_wire_section *springs = manifest_springs(mf);
  if (springs) {
    tress_wire_springs *check = malloc(sizeof *check);
    tress_wire_error werr;
    tress_wire_status st = check ? tress_wire_springs_decode(springs->bytes, springs->length, check, &werr)
                                 : TRESS_WIRE_ERR_OUT_OF_MEMORY;
    free(check);
    if (st != TRESS_WIRE_OK) {
      tress_net_send_error(s, slot, TRESS_CODE_BAD_MANIFEST, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                           "springs section: %s", st == TRESS_WIRE_ERR_OUT_OF_MEMORY ? "no memory" : werr.message);
      return;
    }
  }
  /* Ropes and cloth every client binds from the manifest: decoded, and their parts checked. */
  const tress_wire_section *attachments = tress_wire_manifest_get_attachments(mf);
  if (attachments) {
    tress_wire_attachments *check = malloc(sizeof *check);
    tress_wire_error werr;
    tress_wire_status st = check ? tress_wire_attachments_decode(attachments->bytes, attachments->length, check, &werr)
                                 : TRESS_WIRE_ERR_OUT_OF_MEMORY;
    if (st == TRESS_WIRE_OK) st = tress_wire_attachments_check_parts(check, mf, &werr);
    free(check);
    if (st != TRESS_WIRE_OK) {
      tress_net_send_error(s, slot, TRESS_CODE_BAD_MANIFEST, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                           "attachments section: %s", st == TRESS_WIRE_ERR_OUT_OF_MEMORY ? "no memory" : werr.message);
      return;
    }
  }
  /* Everything the room will hear of this character must encode before any of it is sent: a
   * CHARACTER_ADDED is its SPAWN's manifest plus 8 bytes of ids, so a SPAWN at the control limit
   * would otherwise give the room rig results and a BIND for a character it never saw. (RIG_RESULT
   * is bulk; RIG_FAILED and BIND are small and bounded: a springs section is at most 16 KiB.) */
  if (!added_encodes(s, p, spawn)) {
    atomic_fetch_add(&s->metrics.malformed, 1);
    tress_net_send_error(s, slot, TRESS_CODE_TOO_LARGE, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0,
                         "its CHARACTER_ADDED would be over the %u-byte control limit",
                         TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES);
    return;
  }
  tress_character *c = alloc_character(s);
  if (!c) {
    tress_net_send_error(s, slot, TRESS_CODE_OUT_OF_MEMORY, TRESS_MSG_SPAWN_CHARACTER, m->request_id, 0, "no memory");
    return;
  }
  memset(c, 0, sizeof *c);
  c->used = true;
  c->id = ++s->next_character_id;
  c->owner_slot = slot;
  c->owner_peer_id = p->peer_id;
  c->room = p->room;
  c->request_id = m->request_id;
  c->spawn = *spawn;
  memset(spawn, 0, sizeof *spawn); /* the session owns the manifest now */
  c->spawn_ns = tress_server_now_ns();
  mf = &c->spawn.spawn_character.manifest;
  c->chain_settings = mf->has_chain_settings ? mf->chain_settings : tress_default_chain_settings();
  c->accessory_settings = mf->has_accessory_settings ? mf->accessory_settings : tress_default_accessory_settings();
  p->characters++;
  s->live_characters++;
  atomic_store(&s->metrics.characters, s->live_characters);
  tress_room_add_character(s, c->room, c->id);

  send_added(s, c);

  for (uint32_t i = 0; i < mf->accessory_count; i++) {
    const tress_wire_accessory *a = &mf->accessories[i];
    /* Hair is rigged; a pre-skinned mesh (has_bones) has its own skin read and relayed the same
     * way; a handle without a mesh, or layered, is left for the clients' sim as it is. */
    bool rigged = tress_accessory_is_hair((tress_accessory_type)a->type, a->name) && !a->handle_has_bones;
    bool pre_skinned = a->handle_has_bones && !a->layered;
    if (a->mesh_asset_id[0] && (rigged || pre_skinned)) {
      c->acc[i].state = TRESS_ACC_PENDING;
      c->pending++;
    }
  }
  char q[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "character_spawned", "character=%u peer=%u name=%s accessories=%u to_rig=%u",
                  c->id, p->peer_id, tress_log_quote(mf->character_name, q, sizeof q), mf->accessory_count, c->pending);
  uint32_t id = c->id;
  for (uint32_t i = 0; i < mf->accessory_count; i++) {
    c = tress_session_find(s, id); /* a synchronous settle may not move it, but stay safe */
    if (!c) return;
    if (c->acc[i].state == TRESS_ACC_PENDING) tress_rig_jobs_request(s, c, (uint8_t)i);
  }
  c = tress_session_find(s, id);
  if (c) maybe_bind(s, c);
}

void tress_session_remove(tress_server *s, tress_character *c, tress_removed_reason reason) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_CHARACTER_REMOVED;
  m.character_removed.character_id = c->id;
  m.character_removed.reason = (uint8_t)reason;
  send_room_about(s, c, TRESS_REPLAY_STEP_ADDED, &m, UINT32_MAX); /* to those who saw it added */
  tress_room_remove_character(s, c->room, c->id);
  for (uint32_t i = 0; i < TRESS_WIRE_MAX_ACCESSORIES; i++) {
    if (c->acc[i].rig) {
      tress_rig_jobs_publish_cache(s, tress_rig_cache_unpin(&s->cache, c->acc[i].rig));
      tress_rig_entry_release(c->acc[i].rig);
    }
    tress_net_packet_release(c->acc[i].rig_packet);
  }
  tress_net_packet_release(c->added_packet);
  tress_net_packet_release(c->bind_packet);
  tress_peer *owner = &s->peers[c->owner_slot];
  if (owner->enet && owner->characters) owner->characters--;
  tress_log_event(&s->log, TRESS_LOG_INFO, "character_removed", "character=%u reason=%u", c->id, reason);
  tress_msg_free(&c->spawn);
  memset(c, 0, sizeof *c);
  s->live_characters--;
  atomic_store(&s->metrics.characters, s->live_characters);
}

/* The character a peer's DESPAWN / SETTINGS_UPDATE names, or NULL after the ERROR. The room is
 * checked before the owner: a character in another room is UNKNOWN_CHARACTER exactly like one
 * that does not exist, so NOT_OWNER cannot tell a peer which ids live in rooms it is not in. */
static tress_character *owned_character(tress_server *s, uint32_t slot, uint32_t character_id, uint8_t type) {
  tress_character *c = tress_session_find(s, character_id);
  if (!c || c->room != s->peers[slot].room) {
    tress_net_send_error(s, slot, TRESS_CODE_UNKNOWN_CHARACTER, type, 0, character_id, "no character %u in your room",
                         character_id);
    return NULL;
  }
  if (c->owner_slot != slot) {
    tress_net_send_error(s, slot, TRESS_CODE_NOT_OWNER, type, 0, character_id, "character %u belongs to another peer",
                         character_id);
    tress_peer_strike(s, slot, "not_owner");
    return NULL;
  }
  return c;
}

void tress_session_despawn(tress_server *s, uint32_t slot, const tress_msg_despawn_character *m) {
  tress_character *c = owned_character(s, slot, m->character_id, TRESS_MSG_DESPAWN_CHARACTER);
  if (c) tress_session_remove(s, c, TRESS_REMOVED_DESPAWNED);
}

void tress_session_settings_update(tress_server *s, uint32_t slot, const tress_msg_settings_update *m) {
  tress_character *c = owned_character(s, slot, m->character_id, TRESS_MSG_SETTINGS_UPDATE);
  if (!c) return;
  if (m->has_chain_settings) c->chain_settings = m->chain_settings;
  if (m->has_accessory_settings) c->accessory_settings = m->accessory_settings;
  tress_net_packet_release(c->bind_packet); /* a late joiner's BIND carries the new settings */
  c->bind_packet = NULL;
  tress_msg out;
  memset(&out, 0, sizeof out);
  out.type = TRESS_MSG_SETTINGS_UPDATE;
  out.settings_update = *m;
  send_room_about(s, c, TRESS_REPLAY_STEP_BIND, &out, slot); /* the owner already has them; a replay's BIND carries them */
}

ENetPacket *tress_session_replay_packet(tress_server *s, tress_character *c, uint32_t step, uint8_t *channel) {
  ENetPacket *pkt = NULL;
  tress_msg m;
  if (step == TRESS_REPLAY_STEP_ADDED) {
    pkt = added_packet(s, c);
    *channel = tress_msg_type_get_channel(TRESS_MSG_CHARACTER_ADDED);
  } else if (step == TRESS_REPLAY_STEP_BIND) {
    if (!c->bound) return NULL;
    pkt = bind_packet(s, c);
    *channel = tress_msg_type_get_channel(TRESS_MSG_BIND);
  } else {
    uint8_t idx = (uint8_t)(step - TRESS_REPLAY_STEP_ACCESSORY(0));
    if (idx >= c->spawn.spawn_character.manifest.accessory_count) return NULL;
    if (c->acc[idx].state == TRESS_ACC_RIGGED) {
      pkt = rig_packet(s, c, idx);
      *channel = tress_msg_type_get_channel(TRESS_MSG_RIG_RESULT);
    } else if (c->acc[idx].state == TRESS_ACC_FAILED) {
      rig_failed_msg(c, idx, &m);
      *channel = tress_msg_type_get_channel(TRESS_MSG_RIG_FAILED);
      return tress_net_packet_hold(s, &m); /* not kept: failures are rare and small */
    }
  }
  if (pkt) pkt->referenceCount++;
  return pkt;
}
