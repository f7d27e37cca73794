/* Network
 * -------
 * ENet owns the UDP socket; libuv owns the waiting. The socket is watched with uv_poll, and a
 * repeating timer services the host as well, because ENet has work to do when nothing arrives
 * (retransmits, pings, timeouts, queued sends). Both paths call the same drain loop:
 * enet_host_service(host, ev, 0) until it reports nothing, never blocking the loop.
 *
 * Sends are encoded once into the server's scratch buffer (control) or a sized heap buffer
 * (bulk rig results) and wrapped in one ENet packet; a room broadcast hands that one packet to
 * every member (ENet reference-counts it), so a rig result is encoded once per room, not per
 * recipient. Counters for /metrics are bumped here, where bytes actually leave. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

static void drain_events(tress_server *s) {
  ENetEvent ev;
  /* Bounded per call so a flood cannot starve timers, signals and rig completions. */
  for (int budget = 0; budget < 4096; budget++) {
    int rc = enet_host_service(s->host, &ev, 0);
    if (rc <= 0) break;
    switch (ev.type) {
      case ENET_EVENT_TYPE_CONNECT: tress_peer_on_connect(s, ev.peer); break;
      case ENET_EVENT_TYPE_RECEIVE:
        tress_peer_on_receive(s, ev.peer, ev.packet, ev.channelID);
        enet_packet_destroy(ev.packet);
        break;
      case ENET_EVENT_TYPE_DISCONNECT: tress_peer_on_disconnect(s, ev.peer); break;
      default: break;
    }
  }
  tress_replay_pump_all(s); /* the pass took in acks: paced replays may send more */
  enet_host_flush(s->host);
}

static void on_poll(uv_poll_t *h, int status, int events) {
  (void)status;
  (void)events;
  drain_events(h->data);
}

static void on_service(uv_timer_t *t) { drain_events(t->data); }

static void on_hello_sweep(uv_timer_t *t) {
  tress_server *s = t->data;
  tress_peer_sweep_unwelcomed(s);
  enet_host_flush(s->host);
}

/* What ENet may hold for one peer. Clients send only control messages (<= 64 KiB); a little
 * more is let through so a slightly oversized one still earns a TOO_LARGE answer, anything
 * larger ENet refuses before reassembly. ENet's defaults (32 MiB packets, 32 MiB of waiting
 * fragments per peer) let 16 unauthenticated peers pin half a gigabyte with partial
 * fragments; two messages' worth of reassembly per peer is all a client ever needs. */
#define TRESS_NET_MAX_PACKET_BYTES (TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES + 8192)
#define TRESS_NET_MAX_WAITING_BYTES (2 * TRESS_NET_MAX_PACKET_BYTES)

int tress_net_start(tress_server *s, char err[256]) {
  ENetAddress addr;
  memset(&addr, 0, sizeof addr);
  if (enet_address_set_host_ip(&addr, s->cfg.host) != 0) {
    snprintf(err, 256, "host \"%s\" is not an IPv4 address", s->cfg.host);
    return -1;
  }
  addr.port = (enet_uint16)s->cfg.udp_port;
  s->host = enet_host_create(&addr, s->peer_slots, TRESS_CHANNEL_COUNT, 0, 0);
  if (!s->host) {
    snprintf(err, 256, "cannot bind UDP %s:%u", s->cfg.host, s->cfg.udp_port);
    return -1;
  }
  s->host->maximumPacketSize = TRESS_NET_MAX_PACKET_BYTES;
  s->host->maximumWaitingData = TRESS_NET_MAX_WAITING_BYTES;
  /* ENet's own per-address cap: it counts every peer from the address that is past its first
   * CONNECT (half-open handshakes included) and ignores further CONNECTs, so one address
   * cannot take the slots another needs. */
  s->host->duplicatePeers = s->cfg.max_peers_per_address;
  /* ENet's socket is non-blocking and a full send buffer silently drops datagrams (ENet then
   * waits out a retransmit timeout). Room broadcasts and drains burst to many peers at once, so
   * ask for large buffers (the kernel caps them at wmem_max / rmem_max). */
  enet_socket_set_option(s->host->socket, ENET_SOCKOPT_SNDBUF, 4 << 20);
  enet_socket_set_option(s->host->socket, ENET_SOCKOPT_RCVBUF, 4 << 20);
  ENetAddress bound;
  if (enet_socket_get_address(s->host->socket, &bound) == 0) s->udp_port = bound.port;
  else s->udp_port = (uint16_t)s->cfg.udp_port;
  uv_poll_init_socket(s->loop, &s->enet_poll, s->host->socket);
  s->enet_poll.data = s;
  uv_poll_start(&s->enet_poll, UV_READABLE, on_poll);
  uv_timer_init(s->loop, &s->service_timer);
  s->service_timer.data = s;
  uv_timer_start(&s->service_timer, on_service, s->cfg.service_interval_ms, s->cfg.service_interval_ms);
  /* A quarter of the deadline (at most 250 ms): a silent peer goes within 1.25 deadlines. */
  uint64_t sweep_ms = s->cfg.hello_timeout_ms / 4;
  if (sweep_ms > 250) sweep_ms = 250;
  if (sweep_ms == 0) sweep_ms = 1;
  uv_timer_init(s->loop, &s->hello_timer);
  s->hello_timer.data = s;
  uv_timer_start(&s->hello_timer, on_hello_sweep, sweep_ms, sweep_ms);
  return 0;
}

void tress_net_flush(tress_server *s) {
  if (s->host) enet_host_flush(s->host);
}

static void closed_noop(uv_handle_t *h) { (void)h; }

void tress_net_stop(tress_server *s) {
  if (!s->host) return;
  uv_poll_stop(&s->enet_poll);
  uv_close((uv_handle_t *)&s->enet_poll, closed_noop);
  uv_timer_stop(&s->service_timer);
  uv_close((uv_handle_t *)&s->service_timer, closed_noop);
  uv_timer_stop(&s->hello_timer);
  uv_close((uv_handle_t *)&s->hello_timer, closed_noop);
}

/* Encodes msg into an ENet packet: control messages through the scratch buffer, bulk ones
 * through a buffer of the bound's size. NULL (logged) when the message does not encode. */
static ENetPacket *make_packet(tress_server *s, const tress_msg *msg) {
  tress_wire_error err;
  size_t len = 0;
  uint8_t *buf = s->scratch;
  size_t cap = TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES;
  uint8_t *heap = NULL;
  if (msg->type == TRESS_MSG_RIG_RESULT) {
    cap = tress_msg_get_encode_bound(msg);
    heap = buf = cap ? malloc(cap) : NULL;
    if (!heap) {
      tress_log_event(&s->log, TRESS_LOG_ERROR, "encode_failed", "type=%s reason=no_memory", tress_msg_type_name(msg->type));
      return NULL;
    }
  }
  if (tress_msg_encode(msg, buf, cap, &len, &err) != TRESS_WIRE_OK) {
    char q[256];
    tress_log_event(&s->log, TRESS_LOG_ERROR, "encode_failed", "type=%s reason=%s", tress_msg_type_name(msg->type),
                    tress_log_quote(err.message, q, sizeof q));
    free(heap);
    return NULL;
  }
  ENetPacket *p = enet_packet_create(buf, len, ENET_PACKET_FLAG_RELIABLE);
  free(heap);
  if (p) atomic_fetch_add(&s->metrics.messages_encoded, 1);
  return p;
}

static void count_out(tress_server *s, size_t bytes) {
  atomic_fetch_add(&s->metrics.bytes_out, bytes);
  atomic_fetch_add(&s->metrics.messages_out, 1);
}

ENetPacket *tress_net_packet_hold(tress_server *s, const tress_msg *msg) {
  ENetPacket *p = make_packet(s, msg);
  if (p) p->referenceCount++; /* ENet destroys a packet when its count returns to zero */
  return p;
}

ENetPacket *tress_net_packet_hold_bytes(const uint8_t *bytes, size_t len) {
  ENetPacket *p = enet_packet_create(bytes, len, ENET_PACKET_FLAG_RELIABLE);
  if (p) p->referenceCount++;
  return p;
}

void tress_net_packet_release(ENetPacket *packet) {
  if (packet && --packet->referenceCount == 0) enet_packet_destroy(packet);
}

void tress_net_send_packet(tress_server *s, uint32_t slot, uint8_t channel, ENetPacket *packet) {
  tress_peer *p = &s->peers[slot];
  if (!p->enet || p->closing) return;
  if (enet_peer_send(p->enet, channel, packet) != 0) return;
  count_out(s, packet->dataLength);
  uint64_t queued = tress_net_peer_queued_bytes(p->enet);
  if (queued > atomic_load(&s->metrics.peer_queued_bytes_max)) atomic_store(&s->metrics.peer_queued_bytes_max, queued);
}

/* ENet reports no per-peer byte count, so its command lists are walked: a fragment command
 * carries its fragment's length, a whole packet's command the packet's. */
static size_t list_bytes(ENetList *list) {
  size_t bytes = 0;
  for (ENetListIterator it = enet_list_begin(list); it != enet_list_end(list); it = enet_list_next(it)) {
    const ENetOutgoingCommand *cmd = (const ENetOutgoingCommand *)it;
    if (cmd->packet) bytes += cmd->fragmentLength;
  }
  return bytes;
}

size_t tress_net_peer_queued_bytes(ENetPeer *peer) {
  return list_bytes(&peer->outgoingCommands) + list_bytes(&peer->sentReliableCommands);
}


int tress_net_send(tress_server *s, uint32_t slot, const tress_msg *msg) {
  if (!s->peers[slot].enet) return -1;
  ENetPacket *pkt = tress_net_packet_hold(s, msg);
  if (!pkt) return -1;
  tress_net_send_packet(s, slot, tress_msg_type_get_channel(msg->type), pkt);
  tress_net_packet_release(pkt);
  return 0;
}

int tress_net_send_room(tress_server *s, int32_t room, const tress_msg *msg, uint32_t except_slot) {
  if (room < 0 || !s->rooms[room].used) return -1;
  tress_room *r = &s->rooms[room];
  ENetPacket *pkt = tress_net_packet_hold(s, msg);
  if (!pkt) return -1;
  uint8_t channel = tress_msg_type_get_channel(msg->type);
  for (uint32_t i = 0; i < r->member_count; i++)
    if (r->members[i] != except_slot) tress_net_send_packet(s, r->members[i], channel, pkt);
  tress_net_packet_release(pkt);
  return 0;
}

void tress_net_send_error(tress_server *s, uint32_t slot, tress_wire_code code, uint8_t offending_type,
                          uint32_t request_id, uint32_t character_id, const char *fmt, ...) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_ERROR;
  m.error.code = (uint16_t)code;
  m.error.offending_type = offending_type <= TRESS_MSG_TYPE_MAX ? offending_type : 0;
  m.error.request_id = request_id;
  m.error.character_id = character_id;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m.error.text, sizeof m.error.text, fmt, ap);
  va_end(ap);
  /* Keep the text valid UTF-8 whatever a formatted value held: anything non-ASCII becomes '?'. */
  for (char *c = m.error.text; *c; c++)
    if ((unsigned char)*c >= 0x80 || (unsigned char)*c < 0x20) *c = '?';
  if (tress_net_send(s, slot, &m) == 0) atomic_fetch_add(&s->metrics.errors_sent, 1);
  char q[300];
  tress_log_event(&s->log, TRESS_LOG_INFO, "error_sent", "peer=%u code=%s offending=%s text=%s", s->peers[slot].peer_id,
                  tress_wire_code_name(code), tress_msg_type_name((tress_msg_type)offending_type),
                  tress_log_quote(m.error.text, q, sizeof q));
}
