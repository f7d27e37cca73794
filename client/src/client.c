/* client.c - libtress-client's connection: ENet host, the HELLO / JOIN state machine, message
 * dispatch into the replica, reconnect with backoff, counters.
 *
 * States: IDLE -> CONNECTING (ENet handshake) -> HELLO_SENT (waiting WELCOME) -> JOINING
 * (waiting ROOM_JOINED) -> READY. A lost connection (or a handshake that times out) goes to
 * BACKOFF and the next attempt starts after backoff_ms, doubling up to backoff_max_ms; READY
 * resets it. REJECT for a bad token or version stops retrying: trying again cannot help.
 * REDIRECT (a fleet: another server hosts the room) while JOINING moves the attempt to the
 * owner at once, at most TRESS_CLIENT_MAX_REDIRECTS times and never back to a server the attempt
 * already visited (a loop is reported and ends the connection); a lost connection starts over
 * at connect()'s address, so a room whose owner died is found wherever the fleet rehomed it.
 *
 * Invariants:
 * - the replica is the server's state, not ours: on a lost connection every character is
 *   removed (handles destroyed, poses restored) and the server's CHARACTER_ADDED / RIG_RESULT /
 *   BIND rebuild it after the next ROOM_JOINED, so nothing is bound twice or leaked;
 * - our own spawns are re-sent after every ROOM_JOINED (spawns.c): the server dropped them;
 * - a message that fails to decode or does not fit the state is reported as a protocol error
 *   and dropped; the connection and every existing character stay as they were;
 * - service() never blocks and allocates only when a message builds something (a character,
 *   a rig), never per frame.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"

#define MAX_EVENTS_PER_SERVICE 4096

const char *tress_client_state_name(tress_client_state s) {
  switch (s) {
  case TRESS_CLIENT_IDLE: return "idle";
  case TRESS_CLIENT_CONNECTING: return "connecting";
  case TRESS_CLIENT_HELLO_SENT: return "hello-sent";
  case TRESS_CLIENT_JOINING: return "joining";
  case TRESS_CLIENT_READY: return "ready";
  case TRESS_CLIENT_BACKOFF: return "backoff";
  }
  return "unknown";
}

const char *tress_client_error_kind_name(tress_client_error_kind kind) {
  switch (kind) {
  case TRESS_CLIENT_ERROR_PROTOCOL: return "protocol";
  case TRESS_CLIENT_ERROR_SERVER: return "server";
  case TRESS_CLIENT_ERROR_WARNING: return "warning";
  }
  return "unknown";
}

const char *tress_client_rig_state_name(tress_client_rig_state state) {
  switch (state) {
  case TRESS_RIG_NONE: return "none";
  case TRESS_RIG_PENDING: return "pending";
  case TRESS_RIG_APPLIED: return "applied";
  case TRESS_RIG_FALLBACK: return "fallback";
  }
  return "unknown";
}

tress_client_def tress_default_client_def(void) {
  tress_client_def d;
  memset(&d, 0, sizeof d);
  d.client_name = "tress-client";
  d.sim = tress_default_sim_def();
  d.sim.role = TRESS_SIM_CLIENT;
  d.asset_root = "assets";
  d.reconnect = true;
  d.backoff_initial_ms = 250;
  d.backoff_max_ms = 5000;
  d.connect_timeout_ms = 3000;
  return d;
}

double tress_client_get_now(const tress_client *c) {
  (void)c;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tress__client_report(tress_client *c, tress_client_error_kind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->last_error, sizeof c->last_error, fmt, ap);
  va_end(ap);
  if (kind == TRESS_CLIENT_ERROR_PROTOCOL) c->stats.protocol_errors++;
  else if (kind == TRESS_CLIENT_ERROR_SERVER) c->stats.server_errors++;
  else c->stats.warnings++;
  if (c->def.callbacks.on_error) c->def.callbacks.on_error(c->def.callbacks.user, c, kind, c->last_error);
}

tress_client *tress_client_create(const tress_client_def *def_in) {
  tress_client_def def = def_in ? *def_in : tress_default_client_def();
  if (enet_initialize() != 0) return NULL;
  tress_client *c = calloc(1, sizeof *c);
  if (!c) {
    enet_deinitialize();
    return NULL;
  }
  c->def = def;
  snprintf(c->client_name, sizeof c->client_name, "%s", def.client_name ? def.client_name : "tress-client");
  snprintf(c->asset_root, sizeof c->asset_root, "%s", def.asset_root ? def.asset_root : "assets");
  c->def.client_name = c->client_name;
  c->def.asset_root = c->asset_root;
  if (c->def.backoff_initial_ms == 0) c->def.backoff_initial_ms = 250;
  if (c->def.backoff_max_ms < c->def.backoff_initial_ms) c->def.backoff_max_ms = c->def.backoff_initial_ms;
  if (c->def.connect_timeout_ms == 0) c->def.connect_timeout_ms = 3000;
  c->backoff_ms = c->def.backoff_initial_ms;
  tress_scene_def scene_def = tress_default_scene_def();
  c->scene = tress_scene_create(&scene_def);
  c->send_cap = TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES;
  c->send_buf = malloc(c->send_cap);
  if (c->scene) {
    tress_instance_def workspace = tress_default_instance_def(); /* a folder */
    workspace.name = "Workspace";
    workspace.parent = tress_scene_get_root(c->scene);
    tress_scene_create_instance(c->scene, &workspace, &c->workspace); /* null on failure, checked below */
  }
  c->def.sim.scene = c->scene;
  c->sim = c->scene ? tress_sim_create(&c->def.sim) : NULL;
  if (!c->scene || !c->sim || !c->send_buf || tress_id_is_null(c->workspace)) {
    tress_client_destroy(c);
    return NULL;
  }
  c->limits = tress_default_wire_limits();
  return c;
}

static void held_rigs_clear(tress_client *c) {
  for (uint32_t i = 0; i < c->held_count; i++) tress_msg_free(&c->held_rigs[i]);
  c->held_count = 0;
}

/* Keeps a decoded RIG_RESULT whose character is not here yet; the oldest goes when full. */
static void hold_rig(tress_client *c, tress_msg *m) {
  if (c->held_count == TRESS_CLIENT_HELD_RIGS) {
    tress_msg_free(&c->held_rigs[0]);
    memmove(&c->held_rigs[0], &c->held_rigs[1], (TRESS_CLIENT_HELD_RIGS - 1) * sizeof c->held_rigs[0]);
    c->held_count--;
  }
  c->held_rigs[c->held_count++] = *m;
  memset(m, 0, sizeof *m);
}

static void replay_held_rigs(tress_client *c, uint32_t character_id) {
  for (uint32_t i = 0; i < c->held_count;) {
    if (c->held_rigs[i].rig_result.character_id != character_id) {
      i++;
      continue;
    }
    tress_msg m = c->held_rigs[i];
    memmove(&c->held_rigs[i], &c->held_rigs[i + 1], (c->held_count - i - 1) * sizeof c->held_rigs[0]);
    c->held_count--;
    tress__apply_rig_result(c, &m.rig_result);
    tress_msg_free(&m);
  }
}

static void drop_peer(tress_client *c) {
  if (c->peer) enet_peer_reset(c->peer);
  c->peer = NULL;
  c->peer_id = 0;
}

void tress_client_destroy(tress_client *c) {
  if (!c) return;
  tress_client_detach_loop(c);
  if (c->peer && c->host) {
    enet_peer_disconnect_now(c->peer, 0);
    enet_host_flush(c->host);
  }
  c->peer = NULL;
  if (c->sim) {
    c->def.callbacks.on_removed = NULL; /* the game is tearing down; nobody is listening */
    tress__replica_clear(c, TRESS_REMOVED_SERVER);
  }
  free(c->characters);
  tress__pose_maps_detach_all(c);
  held_rigs_clear(c);
  tress__spawns_free(c);
  if (c->sim) tress_sim_destroy(c->sim);
  if (c->scene) tress_scene_destroy(c->scene);
  tress__client_mesh_cache_clear(c);
  if (c->host) enet_host_destroy(c->host);
  free(c->send_buf);
  free(c);
  enet_deinitialize();
}

tress_sim *tress_client_get_sim(tress_client *c) { return c ? c->sim : NULL; }
tress_scene *tress_client_get_scene(tress_client *c) { return c ? c->scene : NULL; }
tress_client_state tress_client_get_state(const tress_client *c) { return c ? c->state : TRESS_CLIENT_IDLE; }
const char *tress_client_get_last_error(const tress_client *c) { return c ? c->last_error : ""; }
uint32_t tress_client_get_peer_id(const tress_client *c) { return c ? c->peer_id : 0; }
tress_client_stats tress_client_get_stats(const tress_client *c) {
  tress_client_stats s;
  memset(&s, 0, sizeof s);
  return c ? c->stats : s;
}
int tress_client_get_socket(const tress_client *c) { return c && c->host ? (int)c->host->socket : -1; }

/* ---- connecting ---------------------------------------------------------------------------- */

static tress_result start_attempt(tress_client *c, tress_error *err) {
  if (!c->host) {
    c->host = enet_host_create(NULL, 1, TRESS_CHANNEL_COUNT, 0, 0);
    if (!c->host) return tress_error_set(err, TRESS_ERR_NETWORK, "ENet could not create a client host");
  }
  ENetAddress address;
  if (enet_address_set_host(&address, c->server_host) != 0)
    return tress_error_set(err, TRESS_ERR_ADDRESS, "host name '%s' did not resolve", c->server_host);
  address.port = c->server_port;
  c->peer = enet_host_connect(c->host, &address, TRESS_CHANNEL_COUNT, 0);
  if (!c->peer)
    return tress_error_set(err, TRESS_ERR_NETWORK, "ENet could not make a peer for %s:%u", c->server_host,
                           c->server_port);
  c->state = TRESS_CLIENT_CONNECTING;
  c->state_since = tress_client_get_now(c);
  return TRESS_OK;
}

tress_result tress_client_connect(tress_client *c, const char *host, uint16_t port, const char *token,
                                  const char *room, tress_error *err) {
  if (!c || !host || !room)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "connect needs a client, a host and a room");
  if (!room[0] || strlen(room) > TRESS_WIRE_MAX_NAME_BYTES)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "room name must be 1 to %u bytes",
                           (unsigned)TRESS_WIRE_MAX_NAME_BYTES);
  if (token && strlen(token) > TRESS_WIRE_MAX_TEXT_BYTES)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "token is over %u bytes",
                           (unsigned)TRESS_WIRE_MAX_TEXT_BYTES);
  if (strlen(host) >= sizeof c->server_host)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "host name is over %zu bytes",
                           sizeof c->server_host - 1);
  if (c->peer) drop_peer(c);
  snprintf(c->server_host, sizeof c->server_host, "%s", host);
  snprintf(c->origin_host, sizeof c->origin_host, "%s", host);
  c->origin_port = port;
  c->visited_count = 0;
  snprintf(c->token, sizeof c->token, "%s", token ? token : "");
  c->token_sent = false;
  snprintf(c->room, sizeof c->room, "%s", room);
  c->server_port = port;
  c->want_connection = true;
  c->backoff_ms = c->def.backoff_initial_ms;
  tress_result r = start_attempt(c, err);
  if (r != TRESS_OK) {
    c->state = TRESS_CLIENT_IDLE;
    c->want_connection = false;
  }
  return r;
}

void tress_client_disconnect(tress_client *c) {
  if (!c) return;
  c->want_connection = false;
  if (c->peer) {
    enet_peer_disconnect_now(c->peer, 0);
    enet_host_flush(c->host);
  }
  c->peer = NULL;
  c->peer_id = 0;
  c->state = TRESS_CLIENT_IDLE;
}

/* The connection is gone: the replica goes with it, and a retry is scheduled if wanted. */
static void connection_lost(tress_client *c, const char *why) {
  bool was_ready = c->state == TRESS_CLIENT_READY;
  drop_peer(c);
  tress__replica_clear(c, TRESS_REMOVED_SERVER);
  held_rigs_clear(c);
  if (was_ready) c->stats.disconnects++;
  /* the next attempt asks the game's address again: the room may live elsewhere by now */
  snprintf(c->server_host, sizeof c->server_host, "%s", c->origin_host);
  c->server_port = c->origin_port;
  c->visited_count = 0;
  bool retry = c->want_connection && c->def.reconnect;
  if (retry) {
    c->state = TRESS_CLIENT_BACKOFF;
    c->retry_at = tress_client_get_now(c) + c->backoff_ms / 1000.0;
    c->backoff_ms = c->backoff_ms * 2 > c->def.backoff_max_ms ? c->def.backoff_max_ms : c->backoff_ms * 2;
  } else {
    c->state = TRESS_CLIENT_IDLE;
  }
  if (why) snprintf(c->last_error, sizeof c->last_error, "%s", why);
  if (c->def.callbacks.on_disconnected) c->def.callbacks.on_disconnected(c->def.callbacks.user, c, retry);
}

tress_result tress__client_send(tress_client *c, const tress_msg *msg, tress_error *err) {
  const char *type = tress_msg_type_name(msg->type);
  if (!c->peer || c->state < TRESS_CLIENT_HELLO_SENT || c->state == TRESS_CLIENT_BACKOFF)
    return tress_error_set(err, TRESS_ERR_NOT_CONNECTED, "%s needs a connection (state %s)", type,
                           tress_client_state_name(c->state));
  size_t len = 0;
  tress_wire_error wire;
  size_t need = tress_msg_get_encode_bound(msg);
  if (need == 0) { /* invalid: the encoder validates before it writes, so it says which rule */
    tress_wire_status status = tress_msg_encode(msg, c->send_buf, 0, &len, &wire);
    return tress_error_set(err, TRESS_ERR_PROTOCOL, "encode %s: %s", type,
                           status == TRESS_WIRE_OK ? "breaks a wire rule" : wire.message);
  }
  if (need > c->send_cap) {
    uint8_t *n = realloc(c->send_buf, need);
    if (!n) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes", type, need);
    c->send_buf = n;
    c->send_cap = need;
  }
  tress_wire_status status = tress_msg_encode(msg, c->send_buf, c->send_cap, &len, &wire);
  if (status != TRESS_WIRE_OK)
    return tress_error_set(err, tress_wire_status_to_result(status), "encode %s: %s", type, wire.message);
  ENetPacket *p = enet_packet_create(c->send_buf, len, ENET_PACKET_FLAG_RELIABLE);
  if (!p) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "%s: ENet could not make a packet", type);
  if (enet_peer_send(c->peer, tress_msg_type_get_channel(msg->type), p) != 0) {
    enet_packet_destroy(p);
    return tress_error_set(err, TRESS_ERR_NETWORK, "%s: ENet refused the packet", type);
  }
  return TRESS_OK;
}

/* A signed token was spent by the last HELLO; the game's hook may hand over the next one. */
static void refresh_token(tress_client *c) {
  if (!c->token_sent || !c->def.get_token) return;
  const char *next = c->def.get_token(c->def.get_token_user, c);
  if (!next) return;
  if (strlen(next) > TRESS_WIRE_MAX_TEXT_BYTES) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "get_token gave %zu bytes, over %u: the old token goes",
                         strlen(next), (unsigned)TRESS_WIRE_MAX_TEXT_BYTES);
    return;
  }
  snprintf(c->token, sizeof c->token, "%s", next);
}

static void send_hello(tress_client *c) {
  refresh_token(c);
  c->token_sent = true;
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "%s", c->client_name);
  snprintf(m.hello.auth_token, sizeof m.hello.auth_token, "%s", c->token);
  tress__client_send(c, &m, NULL);
}

static void send_join(tress_client *c) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "%s", c->room);
  tress__client_send(c, &m, NULL);
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static bool visited(const tress_client *c, const char *where) {
  for (uint32_t i = 0; i < c->visited_count; i++)
    if (strcmp(c->visited[i], where) == 0) return true;
  return false;
}

/* REDIRECT while JOINING: leave this server and join the same room at the owner's address. */
static void follow_redirect(tress_client *c, const tress_msg_redirect *m) {
  if (c->state != TRESS_CLIENT_JOINING || strcmp(m->room, c->room) != 0) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "REDIRECT for room %s while %s in room %s", m->room,
                         tress_client_state_name(c->state), c->room);
    return;
  }
  char here[270], there[270];
  snprintf(here, sizeof here, "%s:%u", c->server_host, c->server_port);
  snprintf(there, sizeof there, "%s:%u", m->host, m->port);
  if (c->visited_count == 0) snprintf(c->visited[c->visited_count++], sizeof c->visited[0], "%s", here);
  const char *why = visited(c, there) ? "a loop" : c->visited_count > TRESS_CLIENT_MAX_REDIRECTS ? "too many" : NULL;
  if (why || strlen(m->host) >= sizeof c->server_host) {
    tress__client_report(c, TRESS_CLIENT_ERROR_SERVER,
                         "room %s: %s sent us to %s, %s (%u servers visited, at most %d redirects): the fleet "
                         "disagrees on who hosts the room; giving up",
                         c->room, here, there, why ? why : "a host name too long", c->visited_count,
                         TRESS_CLIENT_MAX_REDIRECTS);
    c->want_connection = false;
    if (c->peer) enet_peer_disconnect_now(c->peer, 0);
    c->peer = NULL;
    connection_lost(c, NULL); /* last_error already says why */
    return;
  }
  snprintf(c->visited[c->visited_count++], sizeof c->visited[0], "%s", there);
  c->stats.redirects++;
  if (c->peer) enet_peer_disconnect_now(c->peer, 0); /* the server need not wait for a timeout */
  c->peer = NULL;
  c->peer_id = 0;
  snprintf(c->server_host, sizeof c->server_host, "%s", m->host);
  c->server_port = m->port;
  tress_error err;
  if (start_attempt(c, &err) != TRESS_OK) connection_lost(c, err.message);
}

static bool expect_ready(tress_client *c, const tress_msg *m) {
  if (c->state == TRESS_CLIENT_READY) return true;
  tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "%s while %s", tress_msg_type_name(m->type),
                       tress_client_state_name(c->state));
  return false;
}

static void forget_spawn(tress_client *c, uint32_t request_id) {
  for (uint32_t i = 0; i < c->spawn_count; i++) {
    if (c->spawns[i].request_id != request_id) continue;
    tress__manifest_free(&c->spawns[i].manifest);
    c->spawns[i] = c->spawns[--c->spawn_count];
    return;
  }
}

/* Whether retrying after this REJECT can succeed. An expired or spent join token can, if the game
 * gives a new one (get_token); a token that is forged, malformed or for another room cannot. */
static bool reject_may_pass_later(const tress_client *c, uint16_t code) {
  switch (code) {
  case TRESS_CODE_TOKEN_EXPIRED:
  case TRESS_CODE_TOKEN_REPLAYED: return c->def.get_token != NULL;
  case TRESS_CODE_AUTH_FAILED:
  case TRESS_CODE_BAD_VERSION:
  case TRESS_CODE_TOKEN_MALFORMED:
  case TRESS_CODE_TOKEN_BAD_SIGNATURE:
  case TRESS_CODE_TOKEN_LIFETIME_TOO_LONG:
  case TRESS_CODE_TOKEN_WRONG_ROOM: return false;
  default: return true;
  }
}

static void dispatch(tress_client *c, const tress_msg *m) {
  switch (m->type) {
  case TRESS_MSG_WELCOME:
    if (c->state != TRESS_CLIENT_HELLO_SENT) {
      tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "WELCOME while %s", tress_client_state_name(c->state));
      return;
    }
    c->peer_id = m->welcome.peer_id;
    c->limits = m->welcome.limits;
    c->state = TRESS_CLIENT_JOINING;
    send_join(c);
    return;
  case TRESS_MSG_REJECT: {
    tress__client_report(c, TRESS_CLIENT_ERROR_SERVER, "server rejected the connection: %s: %s",
                         tress_wire_code_name((tress_wire_code)m->reject.code), m->reject.reason);
    /* A bad token or version will be rejected again; anything else (full, shutting down) may pass later. */
    if (!reject_may_pass_later(c, m->reject.code)) c->want_connection = false;
    return;
  }
  case TRESS_MSG_ROOM_JOINED:
    if (c->state != TRESS_CLIENT_JOINING) {
      tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "ROOM_JOINED while %s", tress_client_state_name(c->state));
      return;
    }
    c->state = TRESS_CLIENT_READY;
    c->visited_count = 0;
    c->joined_at = tress_client_get_now(c);
    c->backoff_ms = c->def.backoff_initial_ms;
    c->stats.connects++;
    tress__spawns_resend(c);
    if (c->def.callbacks.on_connected) c->def.callbacks.on_connected(c->def.callbacks.user, c);
    return;
  case TRESS_MSG_CHARACTER_ADDED:
    if (expect_ready(c, m) && tress__replica_add(c, &m->character_added) == TRESS_OK)
      replay_held_rigs(c, m->character_added.character_id);
    return;
  case TRESS_MSG_CHARACTER_REMOVED:
    if (expect_ready(c, m)) tress__replica_remove(c, m->character_removed.character_id, m->character_removed.reason);
    return;
  case TRESS_MSG_RIG_RESULT:
    if (expect_ready(c, m)) tress__apply_rig_result(c, &m->rig_result);
    return;
  case TRESS_MSG_RIG_FAILED:
    if (expect_ready(c, m)) tress__apply_rig_failed(c, &m->rig_failed);
    return;
  case TRESS_MSG_BIND: {
    if (!expect_ready(c, m)) return;
    replica_character *ch = tress__replica_find(c, m->bind.character_id);
    if (!ch) {
      tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "BIND for unknown character %u", m->bind.character_id);
      return;
    }
    c->stats.binds++;
    tress__replica_bind(c, ch, &m->bind);
    return;
  }
  case TRESS_MSG_SETTINGS_UPDATE: {
    if (!expect_ready(c, m)) return;
    replica_character *ch = tress__replica_find(c, m->settings_update.character_id);
    if (ch) tress__replica_apply_settings(c, ch, &m->settings_update);
    return;
  }
  case TRESS_MSG_ERROR:
    tress__client_report(c, TRESS_CLIENT_ERROR_SERVER, "server error %s (request %u, character %u): %s",
                         tress_wire_code_name((tress_wire_code)m->error.code), m->error.request_id,
                         m->error.character_id, m->error.text);
    /* A refused spawn would be refused again after every reconnect. */
    if (m->error.request_id) forget_spawn(c, m->error.request_id);
    /* A draining server closes every connection next; leaving now does not wait on a disconnect
     * that a server exiting under load may never finish (ENet would time out after seconds). */
    if (m->error.code == TRESS_CODE_SERVER_SHUTTING_DOWN && !m->error.request_id && !m->error.character_id)
      connection_lost(c, "the server is shutting down");
    return;
  case TRESS_MSG_REDIRECT: follow_redirect(c, &m->redirect); return;
  case TRESS_MSG_HELLO:
  case TRESS_MSG_JOIN_ROOM:
  case TRESS_MSG_SPAWN_CHARACTER:
  case TRESS_MSG_DESPAWN_CHARACTER:
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "the server sent %s, a client-to-server message",
                         tress_msg_type_name(m->type));
    return;
  }
  tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "message type %d not handled", (int)m->type);
}

static bool rig_phase_type(tress_msg_type t) {
  return t == TRESS_MSG_CHARACTER_ADDED || t == TRESS_MSG_RIG_RESULT || t == TRESS_MSG_RIG_FAILED || t == TRESS_MSG_BIND;
}

static void receive(tress_client *c, const uint8_t *data, size_t len) {
  c->stats.bytes_received += len;
  c->stats.messages_received++;
  bool settling = c->state != TRESS_CLIENT_READY || tress__replica_settling(c);
  tress_msg m;
  tress_wire_error err;
  memset(&err, 0, sizeof err);
  tress_wire_status st = tress_msg_decode(data, len, &m, &err);
  if (st != TRESS_WIRE_OK) {
    c->stats.bytes_rig_phase += settling ? len : 0;
    c->stats.bytes_steady += settling ? 0 : len;
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "undecodable message (%zu bytes, type byte %u): %s: %s", len,
                         len ? data[0] : 0, tress_wire_status_name(st), err.message);
    return;
  }
  if (settling || rig_phase_type(m.type)) c->stats.bytes_rig_phase += len;
  else c->stats.bytes_steady += len;
  if ((unsigned)m.type <= TRESS_MSG_TYPE_MAX) c->stats.messages_by_type[m.type]++;
  if (c->def.callbacks.on_message) c->def.callbacks.on_message(c->def.callbacks.user, c, &m, len);
  if (m.type == TRESS_MSG_RIG_RESULT && c->state == TRESS_CLIENT_READY &&
      !tress__replica_find(c, m.rig_result.character_id)) {
    /* Bulk overtook control (PROTOCOL.md 6.3): keep it until CHARACTER_ADDED arrives. */
    hold_rig(c, &m);
    return;
  }
  dispatch(c, &m);
  tress_msg_free(&m);
}

static void handle_event(tress_client *c, ENetEvent *ev) {
  switch (ev->type) {
  case ENET_EVENT_TYPE_CONNECT:
    if (ev->peer != c->peer) return;
    c->state = TRESS_CLIENT_HELLO_SENT;
    c->state_since = tress_client_get_now(c);
    send_hello(c);
    return;
  case ENET_EVENT_TYPE_RECEIVE:
    if (ev->peer == c->peer) receive(c, ev->packet->data, ev->packet->dataLength);
    enet_packet_destroy(ev->packet);
    return;
  case ENET_EVENT_TYPE_DISCONNECT:
    if (ev->peer != c->peer) return;
    c->peer = NULL; /* ENet has reset it already */
    connection_lost(c, "the server closed the connection");
    return;
  case ENET_EVENT_TYPE_NONE: return;
  }
}

static void tick(tress_client *c) {
  double now = tress_client_get_now(c);
  if (c->state == TRESS_CLIENT_BACKOFF && now >= c->retry_at) {
    if (start_attempt(c, NULL) != TRESS_OK) connection_lost(c, "reconnect attempt failed");
  } else if (c->state == TRESS_CLIENT_CONNECTING && now - c->state_since > c->def.connect_timeout_ms / 1000.0) {
    connection_lost(c, "connect timed out");
  }
}

static int pump(tress_client *c, uint32_t first_timeout_ms) {
  tick(c);
  if (!c->host) return 0;
  int handled = 0;
  ENetEvent ev;
  uint32_t timeout = first_timeout_ms;
  while (handled < MAX_EVENTS_PER_SERVICE) {
    int r = enet_host_service(c->host, &ev, timeout);
    if (r <= 0) break;
    timeout = 0;
    handle_event(c, &ev);
    handled++;
  }
  enet_host_flush(c->host);
  return handled;
}

int tress_client_service(tress_client *c) { return c ? pump(c, 0) : 0; }
int tress_client_service_wait(tress_client *c, uint32_t timeout_ms) { return c ? pump(c, timeout_ms) : 0; }
