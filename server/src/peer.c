/* Peers
 * -----
 * Every byte from a peer is untrusted. Before any of it is read, ENet's own limits apply
 * (net.c: packet size, reassembly bytes per peer, connections per address), a connection past
 * max_peers is told REJECT SERVER_FULL, and one that has not sent HELLO within hello_timeout_ms
 * (or never finished ENet's handshake) is dropped by a timer. The first message must be HELLO:
 * anything else is REJECTed. After WELCOME the order of checks on a packet is the order of cost:
 *  1. the peer is not closing, and the packet came on the control channel;
 *  2. rate limits: two token buckets per peer (messages/s and bytes/s, burst of two seconds);
 *     an empty bucket drops the message, answers RATE_LIMITED at most once a second and
 *     counts a strike;
 *  3. size: anything over the control-message limit is TOO_LARGE without decoding;
 *  4. decode with the codec's full validation; failure is MALFORMED / UNKNOWN_TYPE;
 *  5. state and direction: HELLO once, server-to-client types never accepted.
 * Each refusal sends an ERROR (the peer learns what it did) and costs a strike; past
 * cfg.max_strikes the peer is disconnected. None of this touches any other peer's state, so a
 * misbehaving client can only ever lose its own connection. */
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "server.h"

static uint32_t slot_of(tress_server *s, ENetPeer *enet) { return (uint32_t)(enet - s->host->peers); }

static uint64_t now_ms(tress_server *s) { return uv_now(s->loop); }

void tress_peer_reject(tress_server *s, uint32_t slot, tress_wire_code code, const char *reason) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_REJECT;
  m.reject.code = (uint16_t)code;
  m.reject.server_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.reject.server_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.reject.reason, sizeof m.reject.reason, "%s", reason);
  tress_net_send(s, slot, &m);
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_rejected", "peer=%u code=%s", s->peers[slot].peer_id,
                  tress_wire_code_name(code));
  tress_peer_close(s, slot, "rejected");
}

void tress_peer_on_connect(tress_server *s, ENetPeer *enet) {
  uint32_t slot = slot_of(s, enet);
  tress_peer *p = &s->peers[slot];
  memset(p, 0, sizeof *p);
  p->enet = enet;
  p->room = -1;
  p->peer_id = ++s->next_peer_id;
  if (p->peer_id == 0) p->peer_id = ++s->next_peer_id;
  randombytes_buf(&p->session_id, sizeof p->session_id);
  p->msg_tokens = 2.0 * s->cfg.max_messages_per_second;
  p->byte_tokens = 2.0 * s->cfg.max_bytes_per_second;
  p->refill_ms = now_ms(s);
  p->connected_ms = now_ms(s);
  s->handshake_since_ms[slot] = 0;
  bool full = s->live_peers >= s->cfg.max_peers; /* before counting this one: it is in a reserve slot */
  enet_address_get_host_ip(&enet->address, p->addr, sizeof p->addr);
  enet_peer_timeout(enet, 0, 5000, 15000);
  s->live_peers++;
  atomic_store(&s->metrics.peers, s->live_peers);
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_connected", "peer=%u addr=%s:%u", p->peer_id, p->addr,
                  enet->address.port);
  if (s->draining) {
    tress_net_send_error(s, slot, TRESS_CODE_SERVER_SHUTTING_DOWN, 0, 0, 0, "server shutting down");
    tress_peer_close(s, slot, "draining");
  } else if (full) {
    atomic_fetch_add(&s->metrics.disconnects_forced, 1);
    tress_peer_reject(s, slot, TRESS_CODE_SERVER_FULL, "server full, try again later");
  }
}

/* No DISCONNECT event follows enet_peer_disconnect_now, so the slot is cleaned up here. */
static void drop_now(tress_server *s, uint32_t slot, const char *why) {
  tress_peer *p = &s->peers[slot];
  ENetPeer *enet = p->enet;
  atomic_fetch_add(&s->metrics.disconnects_forced, 1);
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_dropped", "peer=%u why=%s", p->peer_id, why);
  tress_peer_on_disconnect(s, enet);
  enet_peer_disconnect_now(enet, 0);
}

static bool is_handshake(const ENetPeer *e) {
  return e->state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT || e->state == ENET_PEER_STATE_CONNECTION_PENDING ||
         e->state == ENET_PEER_STATE_CONNECTION_SUCCEEDED;
}

void tress_peer_sweep_unwelcomed(tress_server *s) {
  uint64_t now = now_ms(s), limit = s->cfg.hello_timeout_ms;
  uint32_t handshakes = 0;
  for (uint32_t slot = 0; slot < s->peer_slots; slot++) {
    tress_peer *p = &s->peers[slot];
    ENetPeer *e = &s->host->peers[slot];
    if (p->enet) {
      /* Rejected peers (closing, never welcomed) go at the same deadline: a client that does not
       * acknowledge the disconnect would otherwise keep its slot until ENet's timeout. */
      if (!p->welcomed && now - p->connected_ms >= limit) drop_now(s, slot, p->closing ? "rejected" : "no_hello");
      continue;
    }
    if (!is_handshake(e)) {
      s->handshake_since_ms[slot] = 0;
      continue;
    }
    /* An ENet handshake nobody finishes (CONNECT sent, VERIFY_CONNECT never acknowledged) holds a
     * slot for ENet's whole retransmit timeout; it gets the HELLO deadline instead. */
    if (s->handshake_since_ms[slot] == 0) s->handshake_since_ms[slot] = now ? now : 1;
    else if (now - s->handshake_since_ms[slot] >= limit) {
      enet_peer_reset(e);
      s->handshake_since_ms[slot] = 0;
      handshakes++;
    }
  }
  if (handshakes) {
    atomic_fetch_add(&s->metrics.disconnects_forced, handshakes);
    tress_log_event(&s->log, TRESS_LOG_INFO, "handshakes_dropped", "count=%u", handshakes);
  }
}

void tress_peer_close(tress_server *s, uint32_t slot, const char *why) {
  tress_peer *p = &s->peers[slot];
  if (!p->enet || p->closing) return;
  p->closing = true;
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_closing", "peer=%u why=%s", p->peer_id, why);
  enet_peer_disconnect_later(p->enet, 0);
}

void tress_peer_strike(tress_server *s, uint32_t slot, const char *why) {
  tress_peer *p = &s->peers[slot];
  p->strikes++;
  if (p->strikes > s->cfg.max_strikes && !p->closing) {
    atomic_fetch_add(&s->metrics.disconnects_forced, 1);
    tress_log_event(&s->log, TRESS_LOG_WARN, "peer_kicked", "peer=%u strikes=%u last=%s", p->peer_id, p->strikes, why);
    tress_peer_close(s, slot, "too_many_bad_messages");
  }
}

void tress_peer_on_disconnect(tress_server *s, ENetPeer *enet) {
  uint32_t slot = slot_of(s, enet);
  tress_peer *p = &s->peers[slot];
  if (!p->enet) return;
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_disconnected", "peer=%u", p->peer_id);
  /* Characters go first so the room still knows who to tell. */
  for (uint32_t i = 0; i < s->character_cap; i++) {
    tress_character *c = &s->characters[i];
    if (c->used && c->owner_slot == slot) tress_session_remove(s, c, TRESS_REMOVED_OWNER_LEFT);
  }
  tress_room_leave(s, slot);
  memset(p, 0, sizeof *p);
  p->room = -1;
  s->live_peers--;
  atomic_store(&s->metrics.peers, s->live_peers);
}

static bool rate_allow(tress_server *s, tress_peer *p, size_t bytes) {
  uint64_t now = now_ms(s);
  double dt = (double)(now - p->refill_ms) / 1000.0;
  p->refill_ms = now;
  double mcap = 2.0 * s->cfg.max_messages_per_second, bcap = 2.0 * s->cfg.max_bytes_per_second;
  p->msg_tokens += dt * s->cfg.max_messages_per_second;
  p->byte_tokens += dt * s->cfg.max_bytes_per_second;
  if (p->msg_tokens > mcap) p->msg_tokens = mcap;
  if (p->byte_tokens > bcap) p->byte_tokens = bcap;
  if (p->msg_tokens < 1.0 || p->byte_tokens < (double)bytes) return false;
  p->msg_tokens -= 1.0;
  p->byte_tokens -= (double)bytes;
  return true;
}

static tress_wire_code code_for_status(tress_wire_status st) {
  switch (st) {
    case TRESS_WIRE_ERR_UNKNOWN_TYPE: return TRESS_CODE_UNKNOWN_TYPE;
    case TRESS_WIRE_ERR_TOO_LARGE: return TRESS_CODE_TOO_LARGE;
    case TRESS_WIRE_ERR_BAD_VERSION: return TRESS_CODE_BAD_VERSION;
    case TRESS_WIRE_ERR_OUT_OF_MEMORY: return TRESS_CODE_OUT_OF_MEMORY;
    default: return TRESS_CODE_MALFORMED;
  }
}

static void on_hello(tress_server *s, uint32_t slot, const tress_msg_hello *h) {
  tress_peer *p = &s->peers[slot];
  if (!tress_auth_check_hello(s, slot, h)) return;
  p->welcomed = true;
  snprintf(p->name, sizeof p->name, "%s", h->client_name);
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_WELCOME;
  m.welcome.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.welcome.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.welcome.server_version, sizeof m.welcome.server_version, "%s", TRESS_SERVER_VERSION);
  m.welcome.session_id = p->session_id;
  m.welcome.peer_id = p->peer_id;
  m.welcome.limits = tress_default_wire_limits();
  m.welcome.limits.max_room_peers = (uint16_t)s->cfg.max_room_peers;
  m.welcome.limits.max_characters_per_peer = (uint16_t)s->cfg.max_characters_per_peer;
  tress_net_send(s, slot, &m);
  char q[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_welcomed", "peer=%u name=%s client_minor=%u", p->peer_id,
                  tress_log_quote(p->name, q, sizeof q), h->version_minor);
}

/* Before WELCOME the first message decides: a HELLO is answered, anything else (another type,
 * garbage, the bulk channel) is REJECTed and the peer let go, as PROTOCOL.md section 6 says. */
static void on_first_message(tress_server *s, uint32_t slot, const ENetPacket *packet, uint8_t channel) {
  size_t len = packet->dataLength;
  if (channel != TRESS_CHANNEL_CONTROL) {
    tress_peer_reject(s, slot, TRESS_CODE_UNEXPECTED_MESSAGE, "HELLO first, on the control channel");
    return;
  }
  if (len > TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES) {
    atomic_fetch_add(&s->metrics.malformed, 1);
    tress_peer_reject(s, slot, TRESS_CODE_TOO_LARGE, "HELLO first; this message is over the control limit");
    return;
  }
  tress_msg msg;
  tress_wire_error err;
  tress_wire_status st = tress_msg_decode(packet->data, len, &msg, &err);
  char reason[TRESS_WIRE_TEXT_CAP];
  if (st == TRESS_WIRE_ERR_BAD_VERSION && len && packet->data[0] == TRESS_MSG_HELLO) {
    snprintf(reason, sizeof reason, "protocol %u.x required, client speaks %u.%u", TRESS_PROTOCOL_VERSION_MAJOR,
             msg.hello.version_major, msg.hello.version_minor);
    tress_peer_reject(s, slot, TRESS_CODE_BAD_VERSION, reason);
    return;
  }
  if (st != TRESS_WIRE_OK) {
    atomic_fetch_add(&s->metrics.malformed, 1);
    snprintf(reason, sizeof reason, "HELLO first; %s: %.180s", tress_wire_status_name(st), err.message);
    tress_peer_reject(s, slot, code_for_status(st), reason);
    return;
  }
  if (msg.type == TRESS_MSG_HELLO) on_hello(s, slot, &msg.hello);
  else {
    snprintf(reason, sizeof reason, "HELLO first, not %s", tress_msg_type_name(msg.type));
    tress_peer_reject(s, slot, TRESS_CODE_UNEXPECTED_MESSAGE, reason);
  }
  tress_msg_free(&msg);
}

void tress_peer_on_receive(tress_server *s, ENetPeer *enet, const ENetPacket *packet, uint8_t channel) {
  uint32_t slot = slot_of(s, enet);
  tress_peer *p = &s->peers[slot];
  if (!p->enet || p->closing) return;
  size_t len = packet->dataLength;
  atomic_fetch_add(&s->metrics.bytes_in, len);
  atomic_fetch_add(&s->metrics.messages_in, 1);
  uint8_t first = len ? packet->data[0] : 0;

  if (!p->welcomed) {
    on_first_message(s, slot, packet, channel);
    return;
  }
  if (!rate_allow(s, p, len)) {
    atomic_fetch_add(&s->metrics.rate_limited, 1);
    uint64_t now = now_ms(s);
    if (p->rate_error_ms == 0 || now - p->rate_error_ms >= 1000) {
      p->rate_error_ms = now;
      tress_net_send_error(s, slot, TRESS_CODE_RATE_LIMITED, first, 0, 0, "over %u messages/s or %u bytes/s",
                           s->cfg.max_messages_per_second, s->cfg.max_bytes_per_second);
    }
    tress_peer_strike(s, slot, "rate_limited");
    return;
  }
  if (channel != TRESS_CHANNEL_CONTROL) {
    tress_net_send_error(s, slot, TRESS_CODE_UNEXPECTED_MESSAGE, first, 0, 0, "clients send on the control channel");
    tress_peer_strike(s, slot, "bulk_channel");
    return;
  }
  if (len > TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES) {
    atomic_fetch_add(&s->metrics.malformed, 1);
    tress_net_send_error(s, slot, TRESS_CODE_TOO_LARGE, first, 0, 0, "%zu bytes, limit %u", len,
                         TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES);
    tress_peer_strike(s, slot, "too_large");
    return;
  }

  tress_msg msg;
  tress_wire_error err;
  tress_wire_status st = tress_msg_decode(packet->data, len, &msg, &err);
  if (st != TRESS_WIRE_OK) {
    atomic_fetch_add(&s->metrics.malformed, 1);
    tress_net_send_error(s, slot, code_for_status(st), first, 0, 0, "%s: %.180s", tress_wire_status_name(st),
                         err.message);
    tress_peer_strike(s, slot, "malformed");
    return;
  }

  switch (msg.type) {
    case TRESS_MSG_JOIN_ROOM: tress_room_join(s, slot, &msg.join_room); break;
    case TRESS_MSG_SPAWN_CHARACTER: tress_session_spawn(s, slot, &msg); break; /* takes ownership */
    case TRESS_MSG_DESPAWN_CHARACTER: tress_session_despawn(s, slot, &msg.despawn_character); break;
    case TRESS_MSG_SETTINGS_UPDATE: tress_session_settings_update(s, slot, &msg.settings_update); break;
    default:
      tress_net_send_error(s, slot, TRESS_CODE_UNEXPECTED_MESSAGE, msg.type, 0, 0, "%s is not accepted from a client in this state",
                           tress_msg_type_name(msg.type));
      tress_peer_strike(s, slot, "unexpected_type");
      break;
  }
  tress_msg_free(&msg); /* no-op after spawn took it */
}
