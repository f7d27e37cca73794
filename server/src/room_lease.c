/* Room leases
 * -----------
 * A fleet of servers behind one address (a load balancer, a matchmaker handing out any server)
 * must not host one room id twice: the room's members would sit in two rooms that never see
 * each other. So an open room holds a lease in the fleet's Redis, next to the rig cache:
 *
 *   key   "<cache_namespace>:room:<room name>"
 *   value this server's advertised "host:port" (advertise_address, or the bind)
 *
 * A JOIN_ROOM for a room not open here runs CLAIM (one round trip, atomic): SET NX PX wins a
 * free lease; a lease whose value is our own address is ours (this server, or its previous
 * life at the same address after a crash: the clients it redirected come back to the same
 * place) and is extended; any other value is the owner, and the joiner gets REDIRECT to it.
 * While the call is out the peer waits; the answer joins it (tress_room_join again, admitted).
 *
 * An open room renews every room_lease_ms / 3 with the same CLAIM, so a lease that expired while
 * this server was stalled is taken back when nobody else took it. If someone else did (LOST),
 * the room stays for its members and new joiners are redirected to the new owner: the fleet
 * converges on one owner without kicking anyone. On close the lease is released with a
 * compare-and-delete, so a server never deletes another's lease. When the owner dies without
 * closing, its leases expire after at most room_lease_ms and the next join anywhere claims the
 * room; the rigs come back from the shared rig cache, not from the rigger.
 *
 * Redis failing (no link, an error, a call past its deadline: redis_link.c) never holds a join
 * longer than cache_timeout_ms: the room opens here as in a standalone server (LOCAL), the
 * degraded gauge says so, and the renewal claims it once Redis is back. */
#include "room_lease.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_port.h"
#include "server.h"

static const char CLAIM[] =
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end "
    "local v = redis.call('GET', KEYS[1]) "
    "if v == ARGV[1] or v == ARGV[3] or not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end "
    "return v";
static const char RELEASE[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if v == ARGV[1] or v == ARGV[3] then return redis.call('DEL', KEYS[1]) end return 0";

typedef enum lease_state {
  LEASE_NONE = 0, /* no room open in this slot */
  LEASE_HELD,     /* the fleet's lease is ours */
  LEASE_LOCAL,    /* opened without Redis (standalone); claimed at the next renewal Redis answers */
  LEASE_LOST,     /* another server holds it: members stay, new joiners go there */
} lease_state;

typedef struct lease_room {
  struct tress_room_lease *lease;
  int32_t index;
  lease_state state;
  char owner_host[TRESS_WIRE_TEXT_CAP]; /* LOST: where new joiners go */
  uint16_t owner_port;
  tress_redis_call *call; /* the renewal in flight */
} lease_room;

typedef struct pending_join {
  struct tress_room_lease *lease;
  uint32_t slot;
  uint64_t session_id; /* the peer the answer is for (a slot is reused by the next connection) */
  tress_redis_call *call;
  char room[TRESS_WIRE_NAME_CAP];
  bool granted; /* the answer came: the next admit for this room lets it in */
} pending_join;

struct tress_room_lease {
  tress_server *s;
  tress_redis_link *link;
  char address[TRESS_WIRE_TEXT_CAP + 8]; /* the lease value: "host:port" */
  char previous[TRESS_WIRE_TEXT_CAP + 8]; /* the value before the last set_advertised: still ours */
  char host[TRESS_WIRE_TEXT_CAP];
  uint16_t port;
  char lease_ms[16];
  lease_room *rooms;   /* cfg.max_peers, like s->rooms */
  pending_join *joins; /* peer_slots, like s->peers */
  lease_state opening; /* what the next tress_room_lease_opened records */
  uv_timer_t renew;
};

static void room_key(const tress_room_lease *l, const char *room, char *out, size_t cap) {
  snprintf(out, cap, "%s:room:%s", l->s->cfg.cache_namespace, room);
}

/* ARGV: our address, the TTL, the address before the last change (a lease under it is ours too). */
static tress_redis_call *eval(tress_room_lease *l, const char *script, const char *room, tress_redis_reply_fn fn,
                              void *user) {
  char key[TRESS_CONFIG_PATH_MAX];
  room_key(l, room, key, sizeof key);
  const char *argv[7] = {"EVAL", script, "1", key, l->address, l->lease_ms, l->previous};
  size_t len[7];
  int argc = 7;
  for (int i = 0; i < argc; i++) len[i] = strlen(argv[i]);
  return tress_redis_link_call(l->link, fn, user, argc, argv, len);
}

static void set_state(lease_room *r, lease_state next) {
  tress_metrics *m = &r->lease->s->metrics;
  if (r->state == LEASE_HELD && next != LEASE_HELD) atomic_fetch_sub(&m->room_leases_held, 1);
  if (r->state != LEASE_HELD && next == LEASE_HELD) atomic_fetch_add(&m->room_leases_held, 1);
  r->state = next;
}

/* What a CLAIM answer means: 1 = ours; a string = the owner's address (parsed into host/port);
 * anything else (an error, a lost link, a value that is not host:port) = Redis cannot say. */
typedef enum claim_answer { CLAIM_OURS, CLAIM_OTHER, CLAIM_UNKNOWN } claim_answer;

static claim_answer read_claim(const redisReply *reply, const char *error, char *host, size_t cap, uint16_t *port) {
  if (error || !reply) return CLAIM_UNKNOWN;
  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 1) return CLAIM_OURS;
  if (reply->type != REDIS_REPLY_STRING || reply->len >= 300) return CLAIM_UNKNOWN;
  char value[300];
  memcpy(value, reply->str, reply->len);
  value[reply->len] = '\0';
  return tress_host_port_parse(value, host, cap, port) == 0 ? CLAIM_OTHER : CLAIM_UNKNOWN;
}

static void send_redirect(tress_server *s, uint32_t slot, const char *room, const char *host, uint16_t port) {
  tress_peer *p = &s->peers[slot];
  atomic_fetch_add(&s->metrics.room_redirects, 1);
  char q[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "room_redirect", "peer=%u room=%s owner=%s:%u", p->peer_id,
                  tress_log_quote(room, q, sizeof q), host, port);
  if (p->client_minor < TRESS_PROTOCOL_MINOR_REDIRECT) { /* a 1.0/1.1 client cannot follow: it is told where */
    tress_net_send_error(s, slot, TRESS_CODE_SERVER_FULL, TRESS_MSG_JOIN_ROOM, 0, 0,
                         "room %s is hosted by the server at %s:%u (a 1.2 client follows REDIRECT)", room, host, port);
    return;
  }
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_REDIRECT;
  snprintf(m.redirect.room, sizeof m.redirect.room, "%s", room);
  snprintf(m.redirect.host, sizeof m.redirect.host, "%s", host);
  m.redirect.port = port;
  tress_net_send(s, slot, &m);
}

static int32_t open_room(const tress_server *s, const char *name) {
  for (uint32_t i = 0; i < s->cfg.max_peers; i++)
    if (s->rooms[i].used && strcmp(s->rooms[i].name, name) == 0) return (int32_t)i;
  return -1;
}

/* The answer for a waiting join: let it in (opening as `state`) through tress_room_join. */
static void grant(pending_join *j, lease_state state) {
  tress_room_lease *l = j->lease;
  tress_server *s = l->s;
  j->granted = true;
  l->opening = state;
  tress_msg_join_room m;
  snprintf(m.room, sizeof m.room, "%s", j->room);
  tress_room_join(s, j->slot, &m);
  j->granted = false;
  l->opening = LEASE_NONE;
  /* refused after all (draining, full, out of memory): no room here, so no lease either */
  if (state == LEASE_HELD && open_room(s, m.room) < 0) eval(l, RELEASE, m.room, NULL, NULL);
}

static void on_join_claim(void *user, const redisReply *reply, const char *error) {
  pending_join *j = user;
  tress_room_lease *l = j->lease;
  tress_server *s = l->s;
  j->call = NULL;
  const tress_peer *p = &s->peers[j->slot];
  if (!p->enet || p->closing || p->session_id != j->session_id) return;
  char host[TRESS_WIRE_TEXT_CAP];
  uint16_t port = 0;
  claim_answer a = read_claim(reply, error, host, sizeof host, &port);
  if (a == CLAIM_OTHER) {
    send_redirect(s, j->slot, j->room, host, port);
    return;
  }
  if (a == CLAIM_UNKNOWN) {
    char q[96], w[200];
    tress_log_event(&s->log, TRESS_LOG_WARN, "room_lease_unavailable", "room=%s reason=%s action=open_locally",
                    tress_log_quote(j->room, q, sizeof q), tress_log_quote(error ? error : "unreadable lease value", w, sizeof w));
  }
  grant(j, a == CLAIM_OURS ? LEASE_HELD : LEASE_LOCAL);
}

bool tress_room_lease_admit(tress_server *s, uint32_t slot, const char *room) {
  tress_room_lease *l = s->room_lease;
  if (!l) return true; /* no cache_url: a standalone server owns every room */
  pending_join *j = &l->joins[slot];
  if (j->granted && strcmp(j->room, room) == 0) return true;
  l->opening = LEASE_NONE;
  if (j->call) {
    tress_net_send_error(s, slot, TRESS_CODE_UNEXPECTED_MESSAGE, TRESS_MSG_JOIN_ROOM, 0, 0, "a join is under way");
    return false;
  }
  int32_t ri = open_room(s, room);
  if (ri >= 0) {
    const lease_room *r = &l->rooms[ri];
    if (r->state != LEASE_LOST) return true;
    send_redirect(s, slot, room, r->owner_host, r->owner_port);
    return false;
  }
  memset(j, 0, sizeof *j);
  j->lease = l;
  j->slot = slot;
  j->session_id = s->peers[slot].session_id;
  snprintf(j->room, sizeof j->room, "%s", room);
  j->call = eval(l, CLAIM, room, on_join_claim, j);
  if (j->call) return false;
  l->opening = LEASE_LOCAL; /* the link is down: standalone, at once */
  return true;
}

void tress_room_lease_opened(tress_server *s, int32_t room) {
  tress_room_lease *l = s->room_lease;
  if (!l || room < 0) return;
  lease_room *r = &l->rooms[room];
  memset(r, 0, sizeof *r);
  r->lease = l;
  r->index = room;
  set_state(r, l->opening == LEASE_HELD ? LEASE_HELD : LEASE_LOCAL);
  if (r->state == LEASE_LOCAL) atomic_fetch_add(&s->metrics.room_local_opens, 1);
  l->opening = LEASE_NONE;
  char q[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "room_opened", "room=%s lease=%s", tress_log_quote(s->rooms[room].name, q, sizeof q),
                  r->state == LEASE_HELD ? "held" : "local");
}

void tress_room_lease_closed(tress_server *s, int32_t room) {
  tress_room_lease *l = s->room_lease;
  if (!l || room < 0) return;
  lease_room *r = &l->rooms[room];
  tress_redis_call_forget(r->call);
  r->call = NULL;
  /* LOCAL too: Redis may have come back and a renewal taken it since; the compare keeps
   * another server's lease safe either way */
  if (r->state != LEASE_LOST) eval(l, RELEASE, s->rooms[room].name, NULL, NULL);
  set_state(r, LEASE_NONE);
}

void tress_room_lease_forget_join(tress_server *s, uint32_t slot) {
  tress_room_lease *l = s->room_lease;
  if (!l) return;
  pending_join *j = &l->joins[slot];
  tress_redis_call_forget(j->call);
  memset(j, 0, sizeof *j);
}

static void on_renewed(void *user, const redisReply *reply, const char *error) {
  lease_room *r = user;
  tress_server *s = r->lease->s;
  r->call = NULL;
  char host[TRESS_WIRE_TEXT_CAP];
  uint16_t port = 0;
  claim_answer a = read_claim(reply, error, host, sizeof host, &port);
  if (a == CLAIM_UNKNOWN) return; /* Redis cannot say: keep serving, try again next time */
  lease_state before = r->state;
  char q[96];
  const char *name = tress_log_quote(s->rooms[r->index].name, q, sizeof q);
  if (a == CLAIM_OURS) {
    set_state(r, LEASE_HELD);
    if (before != LEASE_HELD) tress_log_event(&s->log, TRESS_LOG_INFO, "room_lease_acquired", "room=%s", name);
    return;
  }
  snprintf(r->owner_host, sizeof r->owner_host, "%s", host);
  r->owner_port = port;
  set_state(r, LEASE_LOST);
  if (before != LEASE_LOST) {
    atomic_fetch_add(&s->metrics.room_leases_lost, 1);
    tress_log_event(&s->log, TRESS_LOG_WARN, "room_lease_lost", "room=%s owner=%s:%u members=%u action=redirect_new_joins",
                    name, host, port, s->rooms[r->index].member_count);
  }
}

static void on_renew_tick(uv_timer_t *t) {
  tress_room_lease *l = t->data;
  for (uint32_t i = 0; i < l->s->cfg.max_peers; i++) {
    lease_room *r = &l->rooms[i];
    if (r->state == LEASE_NONE || r->call) continue;
    r->call = eval(l, CLAIM, l->s->rooms[i].name, on_renewed, r);
  }
}

static void format_address(tress_room_lease *l) {
  bool v6 = strchr(l->host, ':') != NULL;
  snprintf(l->address, sizeof l->address, v6 ? "[%s]:%u" : "%s:%u", l->host, l->port);
}

/* advertise_address, else the bind host (a wildcard: this machine's name) and the bound port. */
static int make_address(tress_room_lease *l, char err[256]) {
  const tress_server_config *cfg = &l->s->cfg;
  if (cfg->advertise_address[0]) {
    if (tress_host_port_parse(cfg->advertise_address, l->host, sizeof l->host, &l->port) != 0) {
      snprintf(err, 256, "advertise_address is not host:port");
      return -1;
    }
  } else {
    const char *h = cfg->host;
    bool wildcard = !h[0] || strcmp(h, "0.0.0.0") == 0 || strcmp(h, "::") == 0;
    if (wildcard && gethostname(l->host, sizeof l->host) != 0) {
      snprintf(err, 256, "cannot read the host name for advertise_address: set it");
      return -1;
    }
    if (!wildcard) snprintf(l->host, sizeof l->host, "%s", h);
    l->host[sizeof l->host - 1] = '\0';
    l->port = l->s->udp_port;
  }
  format_address(l);
  snprintf(l->previous, sizeof l->previous, "%s", l->address);
  return 0;
}

void tress_room_lease_set_advertised(tress_room_lease *l, const char *host, uint16_t port) {
  if (!l || (strcmp(host, l->host) == 0 && port == l->port)) return;
  snprintf(l->previous, sizeof l->previous, "%s", l->address);
  snprintf(l->host, sizeof l->host, "%s", host);
  l->port = port;
  format_address(l);
}

tress_room_lease *tress_room_lease_start(tress_server *s, tress_redis_link *link, char err[256]) {
  tress_room_lease *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->s = s;
  l->link = link;
  l->rooms = calloc(s->cfg.max_peers, sizeof *l->rooms);
  l->joins = calloc(s->peer_slots, sizeof *l->joins);
  if (!l->rooms || !l->joins || make_address(l, err) != 0) {
    if (!l->rooms || !l->joins) snprintf(err, 256, "out of memory");
    free(l->rooms);
    free(l->joins);
    free(l);
    return NULL;
  }
  snprintf(l->lease_ms, sizeof l->lease_ms, "%u", s->cfg.room_lease_ms);
  uv_timer_init(s->loop, &l->renew);
  l->renew.data = l;
  uint32_t every = s->cfg.room_lease_ms / 3;
  uv_timer_start(&l->renew, on_renew_tick, every, every);
  tress_log_event(&s->log, TRESS_LOG_INFO, "room_leases_enabled", "advertise=%s lease_ms=%u", l->address,
                  s->cfg.room_lease_ms);
  return l;
}

const char *tress_room_lease_address(const tress_room_lease *l) { return l ? l->address : ""; }

static void on_renew_closed(uv_handle_t *h) {
  tress_room_lease *l = h->data;
  free(l->rooms);
  free(l->joins);
  free(l);
}

void tress_room_lease_stop(tress_room_lease *l) {
  if (!l) return;
  for (uint32_t i = 0; i < l->s->cfg.max_peers; i++) {
    lease_room *r = &l->rooms[i];
    if (r->state == LEASE_NONE) continue; /* never opened: r->lease is not set */
    tress_redis_call_forget(r->call);
    if (r->state == LEASE_HELD || r->state == LEASE_LOCAL) eval(l, RELEASE, l->s->rooms[i].name, NULL, NULL);
    set_state(r, LEASE_NONE);
  }
  for (uint32_t i = 0; i < l->s->peer_slots; i++) tress_redis_call_forget(l->joins[i].call);
  l->s->room_lease = NULL;
  uv_timer_stop(&l->renew);
  uv_close((uv_handle_t *)&l->renew, on_renew_closed);
}
