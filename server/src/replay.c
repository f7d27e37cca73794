/* JOIN replays, paced
 * -------------------
 * A late joiner gets the room's characters in spawn order, each as ADDED, its accessories'
 * RIG_RESULT / RIG_FAILED, then BIND. A room's replay can be many rig results of up to 8 MiB
 * each, so it is not handed to ENet at once: the peer keeps a cursor (character index, step), and
 * the next message goes only while the peer's unacknowledged bytes plus that message stay within
 * cfg.max_peer_queued_bytes, or when nothing is queued (so a message larger than the cap still
 * goes, alone). The rest follows after later ENet service passes, as acknowledgements come in.
 *
 * While a cursor runs, room broadcasts about the room's characters follow one rule: a step the
 * cursor has passed is sent, a step it has not reached is skipped, because the replay sends that
 * step's current state when it gets there. So nothing overtakes the replay, and nothing is sent
 * twice; a character removed before the cursor reached it is simply never replayed. */
#include "server.h"

_Static_assert(TRESS_CONFIG_LARGEST_CONTROL_MESSAGE == TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES, "config.h's copy");
_Static_assert(TRESS_CONFIG_LARGEST_BULK_MESSAGE == TRESS_WIRE_MAX_BULK_MESSAGE_BYTES, "config.h's copy");

static int32_t character_index(const tress_room *r, uint32_t character_id) {
  for (uint32_t i = 0; i < r->character_count; i++)
    if (r->characters[i] == character_id) return (int32_t)i;
  return -1;
}

static void finish(tress_server *s, tress_peer *p) {
  if (!p->replaying) return;
  p->replaying = false;
  s->replaying_peers--;
}

/* Moves the cursor past its current step. */
static void advance(tress_peer *p) {
  if (p->replay_step == TRESS_REPLAY_STEP_BIND) {
    p->replay_index++;
    p->replay_step = TRESS_REPLAY_STEP_ADDED;
  } else {
    p->replay_step++;
  }
}

static void pump(tress_server *s, uint32_t slot) {
  tress_peer *p = &s->peers[slot];
  if (!p->enet || p->closing || p->room < 0) {
    finish(s, p);
    return;
  }
  tress_room *r = &s->rooms[p->room];
  while (p->replay_index < r->character_count) {
    tress_character *c = tress_session_find(s, r->characters[p->replay_index]);
    if (!c) {
      advance(p);
      continue;
    }
    if (p->replay_step > TRESS_REPLAY_STEP_ADDED && p->replay_step < TRESS_REPLAY_STEP_BIND &&
        p->replay_step >= TRESS_REPLAY_STEP_ACCESSORY(c->spawn.spawn_character.manifest.accessory_count))
      p->replay_step = TRESS_REPLAY_STEP_BIND; /* past its last accessory */
    uint8_t channel = 0;
    ENetPacket *pkt = tress_session_replay_packet(s, c, p->replay_step, &channel);
    if (pkt) {
      size_t queued = tress_net_peer_queued_bytes(p->enet);
      if (queued > 0 && queued + pkt->dataLength > s->cfg.max_peer_queued_bytes) {
        tress_net_packet_release(pkt);
        return; /* the next service pass tries again */
      }
      tress_net_send_packet(s, slot, channel, pkt);
      tress_net_packet_release(pkt);
    }
    advance(p);
  }
  finish(s, p);
}

void tress_replay_start(tress_server *s, uint32_t slot) {
  tress_peer *p = &s->peers[slot];
  if (!p->replaying) s->replaying_peers++;
  p->replaying = true;
  p->replay_index = 0;
  p->replay_step = TRESS_REPLAY_STEP_ADDED;
  pump(s, slot);
}

void tress_replay_stop(tress_server *s, uint32_t slot) { finish(s, &s->peers[slot]); }

void tress_replay_pump_all(tress_server *s) {
  for (uint32_t slot = 0; slot < s->peer_slots && s->replaying_peers > 0; slot++)
    if (s->peers[slot].replaying) pump(s, slot);
}

/* Whether slot's replay has passed step `step` of the character at `index` (no replay: yes). */
static bool passed(const tress_peer *p, int32_t index, uint32_t step) {
  if (!p->replaying || index < 0) return true;
  if ((uint32_t)index != p->replay_index) return (uint32_t)index < p->replay_index;
  return step < p->replay_step;
}

void tress_replay_send_room(tress_server *s, const tress_character *c, uint32_t step, uint8_t channel, ENetPacket *packet,
                            uint32_t except_slot) {
  if (c->room < 0 || !s->rooms[c->room].used) return;
  tress_room *r = &s->rooms[c->room];
  int32_t index = character_index(r, c->id);
  for (uint32_t i = 0; i < r->member_count; i++) {
    uint32_t slot = r->members[i];
    if (slot != except_slot && passed(&s->peers[slot], index, step)) tress_net_send_packet(s, slot, channel, packet);
  }
}

void tress_replay_character_removed(tress_server *s, int32_t room, uint32_t index) {
  tress_room *r = &s->rooms[room];
  for (uint32_t i = 0; i < r->member_count; i++) {
    tress_peer *p = &s->peers[r->members[i]];
    if (!p->replaying) continue;
    if (index < p->replay_index) p->replay_index--;
    else if (index == p->replay_index) p->replay_step = TRESS_REPLAY_STEP_ADDED; /* the next one moved here */
  }
}
