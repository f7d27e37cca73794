/* server.h - tress-server's internal state: the one struct the libuv loop owns (peers, rooms,
 * characters, rig jobs, cache, asset store, metrics) and the functions its files share. */
#ifndef TRESS_SERVER_H
#define TRESS_SERVER_H

#include <enet/enet.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "asset_store.h"
#include "auth.h"
#include "config.h"
#include "log.h"
#include "metrics.h"
#include "rig_cache.h"
#include "rig_disk_budget.h"
#include "rig_failures.h"
#include "tress/codec.h"
#include "tress/msg.h"

#define TRESS_SERVER_VERSION "tress-server 0.1.0"

/* ---- peers ---------------------------------------------------------------------------------- */

typedef struct tress_peer {
  ENetPeer *enet;         /* NULL: the slot is free */
  uint32_t peer_id;       /* wire id, non-zero */
  uint64_t session_id;
  bool welcomed;
  uint64_t connected_ms;  /* loop time of the ENet connect: the HELLO deadline counts from it */
  bool closing;           /* a disconnect is under way: ignore further input */
  char name[TRESS_WIRE_NAME_CAP];
  uint16_t client_minor;  /* HELLO's version_minor: which codes the peer knows */
  char player_id[TRESS_WIRE_NAME_CAP];  /* signed tokens: who the token says this is ("" otherwise) */
  char token_room[TRESS_WIRE_NAME_CAP]; /* signed tokens: the one room JOIN_ROOM may name */
  char addr[48];
  int32_t room;           /* index into server->rooms, -1 when in none */
  uint32_t characters;    /* live characters this peer owns */
  double msg_tokens, byte_tokens;
  uint64_t refill_ms;
  uint64_t rate_error_ms; /* when the last RATE_LIMITED went out (one per second at most) */
  uint32_t strikes;
  /* A JOIN's replay in progress (replay.c): the next message is step replay_step of the room's
   * character at replay_index. */
  bool replaying;
  uint32_t replay_index, replay_step;
} tress_peer;

/* ---- rooms ---------------------------------------------------------------------------------- */

typedef struct tress_room {
  bool used;
  char name[TRESS_WIRE_NAME_CAP];
  uint32_t member_count;
  uint32_t *members;        /* peer slots, capacity cfg.max_room_peers */
  uint32_t character_count, character_cap;
  uint32_t *characters;     /* character ids in spawn order (late joiners replay this order) */
  uint32_t rig_last_slot;   /* the peer slot whose rig job this room sent to the pool last */
} tress_room;

/* ---- character sessions ------------------------------------------------------------------- */

typedef enum tress_accessory_state {
  TRESS_ACC_IGNORED = 0, /* not matched, or already boned, or no mesh: left alone */
  TRESS_ACC_PENDING,     /* a rig job (or a cache lookup) is under way */
  TRESS_ACC_RIGGED,
  TRESS_ACC_FAILED,      /* the accessory stays untouched; clients sway it as a pendulum */
} tress_accessory_state;

typedef struct tress_accessory_session {
  uint8_t state;
  tress_rig_entry *rig; /* RIGGED: one reference */
  ENetPacket *rig_packet; /* RIGGED: this wearer's encoded RIG_RESULT, held (one reference) for replays */
  uint16_t fail_code;
  char fail_reason[TRESS_WIRE_TEXT_CAP];
} tress_accessory_session;

typedef struct tress_character {
  bool used;
  uint32_t id;
  uint32_t owner_slot;
  uint32_t owner_peer_id;
  int32_t room;
  uint32_t request_id;
  tress_msg spawn; /* the decoded SPAWN_CHARACTER; owns the manifest */
  tress_accessory_session acc[TRESS_WIRE_MAX_ACCESSORIES];
  uint32_t pending;
  bool bound;
  /* Encoded once and held (one reference each) for every late joiner's replay: the same ENet
   * packet goes to each of them. The BIND is re-encoded after a SETTINGS_UPDATE changes it. */
  ENetPacket *added_packet, *bind_packet;
  tress_chain_settings chain_settings;         /* current (SETTINGS_UPDATE changes them) */
  tress_accessory_settings accessory_settings;
  uint64_t spawn_ns;
} tress_character;

/* ---- rig jobs ------------------------------------------------------------------------------- */

typedef struct tress_rig_waiter {
  uint32_t character_id;
  uint8_t accessory_index;
} tress_rig_waiter;

typedef struct tress_rig_job tress_rig_job;

typedef struct tress_rig_jobs {
  tress_rig_job *head; /* in flight: waiting, on the pool, or asking the shared tier */
  uint32_t count;
  uint32_t waiting;    /* in the fair queue (rig_jobs.c dispatch) */
  uint32_t on_pool;    /* handed to libuv's pool (queued there or running) */
  uint32_t workers;    /* libuv's pool size (UV_THREADPOOL_SIZE), read at the first dispatch */
  uint32_t last_room;  /* the room whose job went to the pool last (round robin) */
} tress_rig_jobs;

/* ---- the server ----------------------------------------------------------------------------- */

typedef struct tress_server {
  uv_loop_t *loop;
  tress_server_config cfg;
  tress_log log;
  tress_metrics metrics;
  tress_asset_store store;
  tress_rig_cache cache;
  tress_rig_disk_budget disk; /* cfg.cache_disk_bytes over the cache files (rig_disk_budget.c) */
  struct tress_rig_shared *shared; /* the Redis tier (rig_shared.h); NULL without cache_url */
  struct tress_room_lease *room_lease; /* one room on one server (room_lease.h); NULL without cache_url */
  tress_rig_jobs jobs;
  tress_rig_failures rig_failures; /* failed rigs remembered for cfg.failed_rig_ttl_ms */
  tress_auth auth;

  ENetHost *host;
  uv_poll_t enet_poll;
  uv_timer_t service_timer;
  uv_timer_t hello_timer;  /* drops peers and ENet handshakes past cfg.hello_timeout_ms */
  uint32_t peer_slots;     /* ENet peers: cfg.max_peers + the SERVER_FULL reserve */
  uint64_t *handshake_since_ms; /* per slot: when a half-open ENet handshake was first seen, 0 = none */
  uint16_t udp_port, http_port; /* as bound */

  tress_peer *peers; /* peer_slots slots, indexed like host->peers */
  tress_room *rooms; /* cfg.max_peers slots (a room needs a member) */
  tress_character *characters;
  uint32_t character_cap;
  uint32_t live_characters, live_rooms, live_peers;
  uint32_t next_character_id, next_peer_id;
  uint32_t replaying_peers; /* peers with a replay in progress (replay.c) */

  uint8_t *scratch; /* control-message encode buffer, TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES */

  struct tress_http *http;
  struct tress_agones *agones; /* agones.h; NULL unless AGONES_SDK_HTTP_PORT is set */
  uv_check_t heartbeat_check;    /* refreshes metrics.loop_heartbeat_ms every iteration */
  uv_signal_t test_stall_signal; /* armed only by TRESS_TEST_ONLY_LOOP_STALL_MS (heartbeat.c) */
  uint32_t test_stall_ms;
  uv_signal_t sigterm, sigint;
  uv_timer_t drain_timer;
  bool draining;
  uint64_t drain_deadline_ms;
  int exit_code;
} tress_server;

uint64_t tress_server_now_ns(void);

/* net.c: the ENet host on the loop. */
int tress_net_start(tress_server *s, char err[256]);
void tress_net_stop(tress_server *s);
void tress_net_flush(tress_server *s);
/* Encodes and sends one message to one peer slot. 0 or -1 (encode failed, logged). */
int tress_net_send(tress_server *s, uint32_t slot, const tress_msg *msg);
/* One encode, one packet shared by every member of the room except `except_slot` (UINT32_MAX: none). */
int tress_net_send_room(tress_server *s, int32_t room, const tress_msg *msg, uint32_t except_slot);
/* Encoded packet with one reference held by the caller (tress_net_packet_release drops it);
 * NULL (logged) when msg does not encode. Lets a message be encoded once and sent many times. */
ENetPacket *tress_net_packet_hold(tress_server *s, const tress_msg *msg);
/* The same for bytes already encoded (copied into the packet); NULL when ENet has no memory. */
ENetPacket *tress_net_packet_hold_bytes(const uint8_t *bytes, size_t len);
void tress_net_packet_release(ENetPacket *packet);
void tress_net_send_packet(tress_server *s, uint32_t slot, uint8_t channel, ENetPacket *packet);
/* Bytes ENet holds for the peer and has not had acknowledged (queued or in flight). */
size_t tress_net_peer_queued_bytes(ENetPeer *peer);
void tress_net_send_error(tress_server *s, uint32_t slot, tress_wire_code code, uint8_t offending_type,
                          uint32_t request_id, uint32_t character_id, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* peer.c: connection lifecycle, limits and message dispatch. */
void tress_peer_on_connect(tress_server *s, ENetPeer *enet);
void tress_peer_on_receive(tress_server *s, ENetPeer *enet, const ENetPacket *packet, uint8_t channel);
void tress_peer_on_disconnect(tress_server *s, ENetPeer *enet);
/* A bad message: one strike, and past cfg.max_strikes a disconnect. */
void tress_peer_strike(tress_server *s, uint32_t slot, const char *why);
void tress_peer_close(tress_server *s, uint32_t slot, const char *why);
/* REJECT with code and reason, then close. */
void tress_peer_reject(tress_server *s, uint32_t slot, tress_wire_code code, const char *reason);
/* Drops, at once, peers that sent no HELLO and ENet handshakes that never completed within
 * cfg.hello_timeout_ms. Called from a timer. */
void tress_peer_sweep_unwelcomed(tress_server *s);

/* auth.c: the key and the replay set (0, or -1 with err), then the HELLO and JOIN_ROOM checks.
 * A check that fails has sent the REJECT and closed the peer, and returns false. */
int tress_auth_start(tress_server *s, char err[256]);
void tress_auth_stop(tress_server *s);
bool tress_auth_check_hello(tress_server *s, uint32_t slot, const tress_msg_hello *h);
bool tress_auth_check_join(tress_server *s, uint32_t slot, const char *room);

/* room.c */
void tress_room_join(tress_server *s, uint32_t slot, const tress_msg_join_room *m);
void tress_room_leave(tress_server *s, uint32_t slot);
void tress_room_add_character(tress_server *s, int32_t room, uint32_t character_id);
void tress_room_remove_character(tress_server *s, int32_t room, uint32_t character_id);

/* session.c: characters from spawn to removal. */
void tress_session_spawn(tress_server *s, uint32_t slot, tress_msg *spawn); /* takes ownership of *spawn */
void tress_session_despawn(tress_server *s, uint32_t slot, const tress_msg_despawn_character *m);
void tress_session_settings_update(tress_server *s, uint32_t slot, const tress_msg_settings_update *m);
void tress_session_remove(tress_server *s, tress_character *c, tress_removed_reason reason);
tress_character *tress_session_find(tress_server *s, uint32_t character_id);
/* The packet of one replay step of c (a reference the caller releases) and its channel, or NULL
 * when that step has nothing to send (an accessory not matched or still pending, not bound). */
ENetPacket *tress_session_replay_packet(tress_server *s, tress_character *c, uint32_t step, uint8_t *channel);

/* replay.c: a JOIN replays the room's characters in spawn order, paced by cfg.max_peer_queued_bytes.
 * Steps of one character: ADDED, each accessory's RIG_RESULT / RIG_FAILED, BIND. */
#define TRESS_REPLAY_STEP_ADDED 0u
#define TRESS_REPLAY_STEP_ACCESSORY(i) (1u + (uint32_t)(i))
#define TRESS_REPLAY_STEP_BIND (1u + TRESS_WIRE_MAX_ACCESSORIES)
/* Starts slot's replay of its room and sends what the cap lets through now. */
void tress_replay_start(tress_server *s, uint32_t slot);
void tress_replay_stop(tress_server *s, uint32_t slot);
/* Sends more of every replay in progress: after each ENet service pass, as acks free the queues. */
void tress_replay_pump_all(tress_server *s);
/* A room broadcast of step `step` of c: a member whose replay has not passed that step is
 * skipped, because its replay sends c's current state when it gets there. */
void tress_replay_send_room(tress_server *s, const tress_character *c, uint32_t step, uint8_t channel, ENetPacket *packet,
                            uint32_t except_slot);
/* The room dropped its character at index: cursors past it move back one. */
void tress_replay_character_removed(tress_server *s, int32_t room, uint32_t index);
/* A rig settled (entry non-NULL) or failed, for one accessory of one character. */
void tress_session_rig_settled(tress_server *s, uint32_t character_id, uint8_t accessory_index,
                               tress_rig_entry *entry, uint16_t fail_code, const char *fail_reason);

/* rig_jobs.c */
/* Starts (or joins) the rig of one accessory. Settles immediately on a memory cache hit. */
void tress_rig_jobs_request(tress_server *s, tress_character *c, uint8_t accessory_index);
void tress_rig_jobs_cancel_all(tress_server *s);
/* The memory cache's gauges (entries, bytes, pinned bytes) and `evicted` more evictions. */
void tress_rig_jobs_publish_cache(tress_server *s, uint32_t evicted);
/* Rig jobs in flight that count against this peer's max_rigs_per_peer: those of the same
 * identity (the join token's player id, else this connection and the departed connections of its
 * address), so reconnecting does not reset the limit. */
uint32_t tress_rig_jobs_in_flight_for(const tress_server *s, uint32_t slot);

/* heartbeat.c: the loop's liveness for /healthz, and the test-only loop stall hook. */
uint64_t tress_heartbeat_now_ms(void); /* CLOCK_MONOTONIC, the clock both threads compare */
void tress_heartbeat_start(tress_server *s);
void tress_heartbeat_stop(tress_server *s);

/* http.c */
struct tress_http *tress_http_start(tress_server *s, char err[256]);
void tress_http_stop(struct tress_http *http);
uint16_t tress_http_port(const struct tress_http *http);
/* GET /healthz on host:port (0.0.0.0 probes 127.0.0.1): 0 on 200, else 1. */
int tress_http_health_check(const char *host, uint16_t port);
/* The ops endpoint's bind address: http_host, or host when that is empty. */
const char *tress_http_bind_host(const tress_server_config *cfg);

#endif
