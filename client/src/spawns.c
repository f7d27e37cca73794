/* spawns.c - this client's own characters: manifest copies, SPAWN / DESPAWN, re-spawn after a
 * reconnect.
 *
 * The server removes a character when its owner's connection goes (OWNER_LEFT), and a restarted
 * server knows nothing at all. So the client keeps a deep copy of every manifest it spawned and
 * sends them again, under their original request ids, each time it is back in the room. The
 * replica is rebuilt from what the server then announces, never from the copies, so a character
 * appears exactly once per CHARACTER_ADDED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

void tress__manifest_free(tress_wire_manifest *m) {
  if (!m) return;
  free(m->parts);
  free(m->accessories);
  if (m->sections) {
    for (uint32_t i = 0; i < m->section_count; i++) free((void *)m->sections[i].bytes);
    free(m->sections);
  }
  memset(m, 0, sizeof *m);
}

bool tress__manifest_copy(tress_wire_manifest *dst, const tress_wire_manifest *src) {
  memset(dst, 0, sizeof *dst);
  *dst = *src;
  dst->parts = NULL;
  dst->accessories = NULL;
  dst->sections = NULL;
  dst->part_count = dst->accessory_count = dst->section_count = 0;
  if (src->part_count) {
    dst->parts = malloc(src->part_count * sizeof *dst->parts);
    if (!dst->parts) goto fail;
    memcpy(dst->parts, src->parts, src->part_count * sizeof *dst->parts);
    dst->part_count = src->part_count;
  }
  if (src->accessory_count) {
    dst->accessories = malloc(src->accessory_count * sizeof *dst->accessories);
    if (!dst->accessories) goto fail;
    memcpy(dst->accessories, src->accessories, src->accessory_count * sizeof *dst->accessories);
    dst->accessory_count = src->accessory_count;
  }
  if (src->section_count) {
    dst->sections = calloc(src->section_count, sizeof *dst->sections);
    if (!dst->sections) goto fail;
    dst->section_count = src->section_count;
    for (uint32_t i = 0; i < src->section_count; i++) {
      dst->sections[i].tag = src->sections[i].tag;
      dst->sections[i].length = src->sections[i].length;
      if (src->sections[i].length) {
        uint8_t *b = malloc(src->sections[i].length);
        if (!b) goto fail;
        memcpy(b, src->sections[i].bytes, src->sections[i].length);
        dst->sections[i].bytes = b;
      }
    }
  }
  return true;
fail:
  tress__manifest_free(dst);
  return false;
}

owned_spawn *tress__spawn_find_request(tress_client *c, uint32_t request_id) {
  for (uint32_t i = 0; i < c->spawn_count; i++)
    if (c->spawns[i].request_id == request_id) return &c->spawns[i];
  return NULL;
}

static tress_result send_spawn(tress_client *c, const owned_spawn *s, tress_error *err) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_SPAWN_CHARACTER;
  m.spawn_character.request_id = s->request_id;
  m.spawn_character.manifest = s->manifest;
  return tress__client_send(c, &m, err);
}

tress_result tress_client_spawn(tress_client *c, const tress_wire_manifest *manifest, uint32_t *request_id,
                                tress_error *err) {
  if (!c || !manifest) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "spawn needs a client and a manifest");
  /* The server would refuse it (CHARACTER_LIMIT); WELCOME told us its limit. */
  if (c->limits.max_characters_per_peer && c->spawn_count >= c->limits.max_characters_per_peer)
    return tress_error_set(err, TRESS_ERR_LIMIT, "the server allows %u live characters per client",
                           c->limits.max_characters_per_peer);
  if (c->spawn_count == c->spawn_cap) {
    uint32_t cap = c->spawn_cap ? 2 * c->spawn_cap : 8;
    owned_spawn *n = realloc(c->spawns, cap * sizeof *n);
    if (!n) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "no memory for %u spawns", cap);
    c->spawns = n;
    c->spawn_cap = cap;
  }
  owned_spawn *s = &c->spawns[c->spawn_count];
  memset(s, 0, sizeof *s);
  if (!tress__manifest_copy(&s->manifest, manifest))
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "no memory to copy the manifest");
  s->request_id = ++c->next_request_id;
  c->spawn_count++;
  if (request_id) *request_id = s->request_id;
  /* Not in the room yet: tress__spawns_resend sends it once ROOM_JOINED arrives. */
  if (c->state != TRESS_CLIENT_READY) return TRESS_OK;
  tress_result r = send_spawn(c, s, err);
  if (r == TRESS_ERR_PROTOCOL) { /* it would fail every resend too: refused, not kept */
    tress__manifest_free(&s->manifest);
    c->spawn_count--;
  }
  return r;
}

tress_result tress_client_despawn(tress_client *c, uint32_t character_id, tress_error *err) {
  if (!c || character_id == 0)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "despawn needs a client and a character id");
  bool found = false;
  for (uint32_t i = 0; i < c->spawn_count; i++) {
    if (c->spawns[i].character_id != character_id) continue;
    tress__manifest_free(&c->spawns[i].manifest);
    c->spawns[i] = c->spawns[--c->spawn_count];
    found = true;
    break;
  }
  if (!found && !tress__replica_find(c, character_id))
    return tress_error_set(err, TRESS_ERR_NOT_FOUND, "character %u is neither spawned here nor in the replica",
                           character_id);
  if (c->state != TRESS_CLIENT_READY)
    return tress_error_set(err, TRESS_ERR_NOT_CONNECTED, "despawn of character %u needs the room (state %s)",
                           character_id, tress_client_state_name(c->state));
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_DESPAWN_CHARACTER;
  m.despawn_character.character_id = character_id;
  return tress__client_send(c, &m, err);
}

void tress__spawns_resend(tress_client *c) {
  for (uint32_t i = 0; i < c->spawn_count; i++) {
    c->spawns[i].character_id = 0; /* the server will assign a new one */
    send_spawn(c, &c->spawns[i], NULL);
  }
}

void tress__spawns_free(tress_client *c) {
  for (uint32_t i = 0; i < c->spawn_count; i++) tress__manifest_free(&c->spawns[i].manifest);
  free(c->spawns);
  c->spawns = NULL;
  c->spawn_count = c->spawn_cap = 0;
}
