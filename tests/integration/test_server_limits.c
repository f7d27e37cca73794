/* test_server_limits.c - unauthenticated peers cannot exhaust a real tress-server: partial ENet
 * fragments do not pin memory, peers that never say HELLO (and ENet handshakes nobody
 * finishes) are dropped at the HELLO deadline, one address cannot take another's slots, a full
 * server says SERVER_FULL, and a first message that is not HELLO gets the REJECT PROTOCOL.md
 * promises. Attackers are real ENet hosts on loopback (127.0.0.0/8 gives each its own address);
 * the fragment attacker writes ENet's own SEND_FRAGMENT commands from its connected socket.
 *
 * Built twice: test_server_limits (CI: short deadlines) and test_server_limits_slow
 * (TRESS_LIMITS_SLOW: the default deadline and caps, label slow). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <enet/enet.h>

#include "support/server_harness.h"

#ifdef TRESS_LIMITS_SLOW
#define HELLO_TIMEOUT_MS 5000 /* the server's default: no flag passed */
#else
#define HELLO_TIMEOUT_MS 1500
#endif

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int start_server(th_server *s, const char *tag, const char *const *more) {
  th_server_init(s, tag);
  const char *extra[24];
  int n = 0;
#ifndef TRESS_LIMITS_SLOW
  static char timeout[16];
  snprintf(timeout, sizeof timeout, "%d", HELLO_TIMEOUT_MS);
  extra[n++] = "--hello-timeout-ms";
  extra[n++] = timeout;
#endif
  for (int i = 0; more && more[i] && n < 22; i++) extra[n++] = more[i];
  extra[n] = NULL;
  return th_server_start(s, extra);
}

/* The server's resident set, from /proc. */
static long rss_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long kib = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  fclose(f);
  return kib;
}

/* An ENet host bound to ip (port 0) with `peers` connections under way to the server. */
static ENetHost *flood_host(const char *ip, size_t peers, uint16_t server_port) {
  ENetAddress bind_to, server;
  enet_address_set_host_ip(&bind_to, ip);
  bind_to.port = 0;
  ENetHost *h = enet_host_create(&bind_to, peers, TRESS_CHANNEL_COUNT, 0, 0);
  assert_non_null(h);
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = server_port;
  for (size_t i = 0; i < peers; i++) assert_non_null(enet_host_connect(h, &server, TRESS_CHANNEL_COUNT, 0));
  return h;
}

typedef struct flood_counts {
  uint32_t connects, disconnects;
} flood_counts;

static void pump_hosts(ENetHost **hosts, size_t count, flood_counts *fc, int ms) {
  uint64_t until = now_ms() + (uint64_t)ms;
  do {
    for (size_t i = 0; i < count; i++) {
      ENetEvent ev;
      while (enet_host_service(hosts[i], &ev, 0) > 0) {
        if (ev.type == ENET_EVENT_TYPE_CONNECT) fc->connects++;
        else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) fc->disconnects++;
        else if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
      }
    }
    usleep(2000);
  } while (now_ms() < until);
}

/* A th_client whose socket is bound to ip, so the server sees another address. */
static int connect_from(th_client *c, const char *ip, uint16_t port, int timeout_ms) {
  memset(c, 0, sizeof *c);
  ENetAddress bind_to, server;
  enet_address_set_host_ip(&bind_to, ip);
  bind_to.port = 0;
  c->host = enet_host_create(&bind_to, 1, TRESS_CHANNEL_COUNT, 0, 0);
  if (!c->host) return -1;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = port;
  c->peer = enet_host_connect(c->host, &server, TRESS_CHANNEL_COUNT, 0);
  uint64_t until = now_ms() + (uint64_t)timeout_ms;
  while (c->peer && !c->connected && now_ms() < until) th_client_pump(c, 10);
  return c->connected ? 0 : -1;
}

static int send_hello(th_client *c) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "victim");
  return th_client_send(c, &m);
}

/* Connects (retrying while the server is full or silent) until WELCOME, then joins, spawns the
 * sample character and waits for its BIND. Returns 0 once bound; *rejected_full counts the
 * SERVER_FULL answers on the way. */
static int client_binds(th_client *c, const char *ip, uint16_t port, int budget_ms, uint32_t *rejected_full) {
  uint64_t until = now_ms() + (uint64_t)budget_ms;
  while (now_ms() < until) {
    if (connect_from(c, ip, port, 3000) == 0) {
      if (send_hello(c) == 0) { /* fails when the server has already let us go */
        uint64_t wait_until = now_ms() + 3000;
        while (now_ms() < wait_until && !c->disconnected && th_client_count(c, TRESS_MSG_WELCOME) == 0 &&
               th_client_count(c, TRESS_MSG_REJECT) == 0)
          th_client_pump(c, 10);
        if (th_client_count(c, TRESS_MSG_WELCOME) == 1) break;
      }
      for (uint32_t i = 0; i < c->inbox_count; i++)
        if (c->inbox[i].type == TRESS_MSG_REJECT && c->inbox[i].reject.code == TRESS_CODE_SERVER_FULL)
          (*rejected_full)++;
    }
    th_client_close(c);
    usleep(100000);
  }
  if (th_client_count(c, TRESS_MSG_WELCOME) != 1) return -1;
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "victims");
  if (th_client_send(c, &m) != 0 || !th_client_wait(c, TRESS_MSG_ROOM_JOINED, 5000)) return -1;
  tress_msg spawn;
  if (th_spawn_load(&spawn, "ava.json", 1) != 0) return -1;
  int rc = th_client_send(c, &spawn);
  th_spawn_free(&spawn);
  return rc == 0 && th_client_wait(c, TRESS_MSG_BIND, 30000) ? 0 : -1;
}

/* ---- partial fragments --------------------------------------------------------------------- */

#define FRAGMENT_PEERS 16
#define FRAGMENT_PACKET_BYTES 73728 /* the largest packet the server takes (net.c) */
#define FRAGMENTS_PER_PACKET 18     /* one byte per page; the 19th fragment never comes */
#define PACKETS_PER_PEER 450        /* 450 x 72 KiB = ENet's default 32 MiB of waiting data */

typedef struct fragment_peer {
  ENetHost *host;
  ENetPeer *peer;
} fragment_peer;

/* One datagram of SEND_FRAGMENT commands for packet `seq` (each 1 byte, one per 4 KiB page) in
 * ENet's wire format, from the peer's own socket with its peer id and session. */
static void send_partial_packet(fragment_peer *fp, uint16_t seq) {
  uint8_t buf[4 + FRAGMENTS_PER_PACKET * (sizeof(ENetProtocolSendFragment) + 1)];
  size_t len = 0;
  ENetPeer *p = fp->peer;
  uint16_t peer_id = (uint16_t)(p->outgoingPeerID | ENET_PROTOCOL_HEADER_FLAG_SENT_TIME |
                                (p->outgoingSessionID << ENET_PROTOCOL_HEADER_SESSION_SHIFT));
  ENetProtocolHeader header = {ENET_HOST_TO_NET_16(peer_id), ENET_HOST_TO_NET_16((uint16_t)now_ms())};
  memcpy(buf, &header, sizeof header);
  len = sizeof header;
  for (uint32_t f = 0; f < FRAGMENTS_PER_PACKET; f++) {
    ENetProtocolSendFragment cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.header.command = ENET_PROTOCOL_COMMAND_SEND_FRAGMENT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    cmd.header.channelID = TRESS_CHANNEL_CONTROL;
    cmd.header.reliableSequenceNumber = ENET_HOST_TO_NET_16(seq);
    cmd.startSequenceNumber = ENET_HOST_TO_NET_16(seq);
    cmd.dataLength = ENET_HOST_TO_NET_16(1);
    cmd.fragmentCount = ENET_HOST_TO_NET_32(FRAGMENTS_PER_PACKET + 1);
    cmd.fragmentNumber = ENET_HOST_TO_NET_32(f);
    cmd.totalLength = ENET_HOST_TO_NET_32(FRAGMENT_PACKET_BYTES);
    cmd.fragmentOffset = ENET_HOST_TO_NET_32(f * 4096);
    memcpy(buf + len, &cmd, sizeof cmd);
    len += sizeof cmd;
    buf[len++] = 0xAB;
  }
  ENetBuffer b = {.data = buf, .dataLength = len};
  enet_socket_send(fp->host->socket, &p->address, &b, 1);
}

static void test_partial_fragments_do_not_pin_memory(void **state) {
  (void)state;
  th_server s;
#ifdef TRESS_LIMITS_SLOW
  const int deadline_ms = HELLO_TIMEOUT_MS;
  assert_int_equal(start_server(&s, "frag", NULL), 0);
#else
  /* Long enough for the whole attack to land before the peers are dropped. */
  const int deadline_ms = 4000;
  const char *more[] = {"--hello-timeout-ms", "4000", NULL};
  assert_int_equal(start_server(&s, "frag", more), 0);
#endif
  usleep(300000);
  long idle = rss_kib(s.pid);
  assert_true(idle > 0);

  fragment_peer peers[FRAGMENT_PEERS];
  ENetHost *hosts[FRAGMENT_PEERS];
  flood_counts fc = {0, 0};
  for (int i = 0; i < FRAGMENT_PEERS; i++) {
    peers[i].host = hosts[i] = flood_host("127.0.0.1", 1, s.udp_port);
    peers[i].peer = &hosts[i]->peers[0];
  }
  pump_hosts(hosts, FRAGMENT_PEERS, &fc, 500);
  assert_int_equal(fc.connects, FRAGMENT_PEERS);

  uint64_t sent_bytes = 0;
  long peak = idle;
  for (uint16_t seq = 1; seq <= PACKETS_PER_PEER; seq++) {
    for (int i = 0; i < FRAGMENT_PEERS; i++) send_partial_packet(&peers[i], seq);
    sent_bytes += FRAGMENT_PEERS * (4 + FRAGMENTS_PER_PACKET * (sizeof(ENetProtocolSendFragment) + 1));
    pump_hosts(hosts, FRAGMENT_PEERS, &fc, 0); /* paced (the server's socket buffer), acks read */
    if (seq % 16 == 0) {
      long r = rss_kib(s.pid);
      if (r > peak) peak = r;
    }
  }
  for (int i = 0; i < 20; i++) { /* the server may still be working through its socket */
    pump_hosts(hosts, FRAGMENT_PEERS, &fc, 50);
    long r = rss_kib(s.pid);
    if (r > peak) peak = r;
  }
  assert_int_equal(fc.disconnects, 0); /* still connected: the memory is measured while held */
  print_message("fragment attack: %d peers sent %.2f MiB; server RSS idle %.1f MiB, under attack %.1f MiB (+%.1f)\n",
                FRAGMENT_PEERS, (double)sent_bytes / (1 << 20), idle / 1024.0, peak / 1024.0, (peak - idle) / 1024.0);
  assert_true(peak - idle < 64 * 1024);

  /* Never welcomed: dropped at the deadline, and what they held is given back. */
  pump_hosts(hosts, FRAGMENT_PEERS, &fc, deadline_ms + 500);
  assert_int_equal(fc.disconnects, FRAGMENT_PEERS);
  long after = rss_kib(s.pid);
  print_message("after the drop: %.1f MiB (+%.1f over idle)\n", after / 1024.0, (after - idle) / 1024.0);
  assert_true(after - idle < 16 * 1024);
  assert_true(after <= peak + 1024); /* nothing more is held once they are gone */
  assert_int_equal(th_server_log_count(&s, "why=no_hello"), FRAGMENT_PEERS);

  for (int i = 0; i < FRAGMENT_PEERS; i++) enet_host_destroy(hosts[i]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* ---- 600 peers that never say HELLO ------------------------------------------------------ */

#define SILENT_ADDRESSES 40
#define SILENT_PER_ADDRESS 15 /* 600 in all; under the per-address cap, over max_peers (512) */

static void test_silent_peers_dropped_and_a_client_binds(void **state) {
  (void)state;
  th_server s;
  assert_int_equal(start_server(&s, "silent", NULL), 0);
  ENetHost *hosts[SILENT_ADDRESSES];
  flood_counts fc = {0, 0};
  for (int i = 0; i < SILENT_ADDRESSES; i++) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.1.%d", i + 1);
    hosts[i] = flood_host(ip, SILENT_PER_ADDRESS, s.udp_port);
  }
  pump_hosts(hosts, SILENT_ADDRESSES, &fc, HELLO_TIMEOUT_MS / 2);
  double held = th_metric(s.http_port, "tress_peers");
  print_message("%u of %d silent peers connected; the server holds %.0f\n", fc.connects,
                SILENT_ADDRESSES * SILENT_PER_ADDRESS, held);
  assert_true(held >= 500); /* the server is (about) full of peers that will never speak */

  /* A real client started now binds: it gets in once the silent ones are dropped. */
  th_client *victim = calloc(1, sizeof *victim);
  uint32_t full = 0;
  uint64_t t0 = now_ms();
  assert_int_equal(client_binds(victim, "127.0.0.2", s.udp_port, 4 * HELLO_TIMEOUT_MS + 10000, &full), 0);
  uint64_t bound_ms = now_ms() - t0;
  print_message("the client bound %.1f s after starting (SERVER_FULL answers on the way: %u)\n",
                (double)bound_ms / 1000.0, full);
  assert_true(bound_ms < HELLO_TIMEOUT_MS + 4000); /* once the deadline passes, not at ENet's timeout */

  /* Every silent peer that got in is dropped: stop the ones still trying, then wait a deadline. */
  for (int i = 0; i < SILENT_ADDRESSES; i++)
    for (size_t k = 0; k < hosts[i]->peerCount; k++)
      if (hosts[i]->peers[k].state == ENET_PEER_STATE_CONNECTING) enet_peer_reset(&hosts[i]->peers[k]);
  for (uint64_t until = now_ms() + HELLO_TIMEOUT_MS + 1500; now_ms() < until;) {
    pump_hosts(hosts, SILENT_ADDRESSES, &fc, 50);
    th_client_pump(victim, 5); /* the bound client stays responsive (ENet pings) */
  }
  print_message("silent peers: %u connects, %u dropped\n", fc.connects, fc.disconnects);
  assert_true(fc.connects >= 500);
  assert_int_equal(fc.disconnects, fc.connects);
  assert_int_equal((int)th_metric(s.http_port, "tress_peers"), 1); /* the client alone */
  assert_false(victim->disconnected);

  th_client_close(victim);
  free(victim);
  for (int i = 0; i < SILENT_ADDRESSES; i++) enet_host_destroy(hosts[i]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* ---- a half-open flood from one socket ----------------------------------------------------- */

#define HALF_OPEN 600 /* more than every ENet slot (512 + the SERVER_FULL reserve) */

static void test_half_open_flood_does_not_lock_out_another_address(void **state) {
  (void)state;
  th_server s;
  /* A long deadline: the victim must get in while the flood still stands, not after it. */
  const char *more[] = {"--hello-timeout-ms", "6000", NULL};
  th_server_init(&s, "halfopen");
  assert_int_equal(th_server_start(&s, more), 0);
  ENetAddress bind_to, server;
  enet_address_set_host_ip(&bind_to, "127.0.0.1");
  bind_to.port = 0;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = s.udp_port;
  ENetHost *flood = enet_host_create(&bind_to, HALF_OPEN, TRESS_CHANNEL_COUNT, 0, 0);
  assert_non_null(flood);
  /* CONNECTs flushed in batches and never serviced: nobody acknowledges VERIFY_CONNECT. */
  for (int batch = 0; batch < HALF_OPEN / 50; batch++) {
    for (int i = 0; i < 50; i++) assert_non_null(enet_host_connect(flood, &server, TRESS_CHANNEL_COUNT, 0));
    enet_host_flush(flood);
    usleep(10000);
  }
  usleep(200000);

  th_client *victim = calloc(1, sizeof *victim);
  uint64_t t0 = now_ms();
  assert_int_equal(connect_from(victim, "127.0.0.2", s.udp_port, 2000), 0);
  assert_int_equal(send_hello(victim), 0);
  assert_non_null(th_client_wait(victim, TRESS_MSG_WELCOME, 2000));
  print_message("with %d half-open CONNECTs from 127.0.0.1, 127.0.0.2 was welcomed in %.0f ms\n", HALF_OPEN,
                (double)(now_ms() - t0));
  th_client_close(victim);
  free(victim);

  /* The half-open handshakes that did take slots are dropped at the deadline. */
  uint64_t until = now_ms() + 6000 + 2000;
  while (now_ms() < until && th_server_log_count(&s, "event=handshakes_dropped") == 0) usleep(100000);
  assert_true(th_server_log_count(&s, "event=handshakes_dropped") > 0);
  enet_host_destroy(flood);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* ---- SERVER_FULL ----------------------------------------------------------------------------- */

static void test_full_server_says_server_full(void **state) {
  (void)state;
  th_server s;
  const char *more[] = {"--max-peers", "2", NULL};
  assert_int_equal(start_server(&s, "full", more), 0);
  th_client *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(a, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(a, "a", "r"), 0);
  assert_int_equal(th_client_connect(b, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(b, "b", "r"), 0);

  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  const tress_msg *rej = th_client_wait(c, TRESS_MSG_REJECT, 2000);
  assert_non_null(rej);
  assert_int_equal(rej->reject.code, TRESS_CODE_SERVER_FULL);
  for (int i = 0; i < 200 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  th_client_close(c);

  /* Once a slot frees, the next one is welcomed. */
  th_client_close(a);
  th_client_pump(b, 200);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "c", "r"), 0);
  assert_int_equal(th_client_count(c, TRESS_MSG_REJECT), 0);

  th_client_close(b);
  th_client_close(c);
  free(a);
  free(b);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* ---- the first message ------------------------------------------------------------------- */

/* A fresh connection sends bytes first; it must get REJECT `code` and be disconnected. */
static void expect_first_message_rejected(uint16_t port, const void *bytes, size_t len, uint8_t channel, int code) {
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, port), 0);
  assert_int_equal(th_client_send_raw(c, bytes, len, channel), 0);
  const tress_msg *rej = th_client_wait(c, TRESS_MSG_REJECT, 3000);
  assert_non_null(rej);
  assert_int_equal(rej->reject.code, code);
  assert_int_equal(th_client_count(c, TRESS_MSG_ERROR), 0);
  for (int i = 0; i < 300 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  th_client_close(c);
  free(c);
}

static void test_first_message_not_hello_is_rejected(void **state) {
  (void)state;
  th_server s;
  assert_int_equal(start_server(&s, "first", NULL), 0);
  tress_msg join;
  memset(&join, 0, sizeof join);
  join.type = TRESS_MSG_JOIN_ROOM;
  snprintf(join.join_room.room, sizeof join.join_room.room, "r");
  uint8_t buf[256];
  size_t len = 0;
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(&join, buf, sizeof buf, &len, &err), TRESS_WIRE_OK);
  expect_first_message_rejected(s.udp_port, buf, len, TRESS_CHANNEL_CONTROL, TRESS_CODE_UNEXPECTED_MESSAGE);
  uint8_t garbage[40];
  memset(garbage, 0xA5, sizeof garbage);
  garbage[0] = TRESS_MSG_JOIN_ROOM;
  expect_first_message_rejected(s.udp_port, garbage, sizeof garbage, TRESS_CHANNEL_CONTROL, TRESS_CODE_MALFORMED);
  expect_first_message_rejected(s.udp_port, buf, len, TRESS_CHANNEL_BULK, TRESS_CODE_UNEXPECTED_MESSAGE);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  assert_int_equal(enet_initialize(), 0);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_message_not_hello_is_rejected),
      cmocka_unit_test(test_full_server_says_server_full),
      cmocka_unit_test(test_partial_fragments_do_not_pin_memory),
      cmocka_unit_test(test_half_open_flood_does_not_lock_out_another_address),
      cmocka_unit_test(test_silent_peers_dropped_and_a_client_binds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
