/* Redis link
 * ----------
 * hiredis 0.14's async API on the server's own libuv loop (its libuv adapter: one uv_poll on the
 * socket), so no call ever blocks the loop. hiredis has no timeouts of its own, so the link keeps
 * every call in a list with a deadline and a 20 ms timer checks them: replies come back in order
 * on one connection, so a call past its deadline means the connection is stuck (Redis stopped,
 * overloaded, a dead peer behind a silent network) and the whole connection is dropped, which
 * fails every pending call at once. The timer also bounds the connect + AUTH + SELECT + PING
 * handshake and retries after a failure with a backoff from 100 ms doubling to 2 s.
 *
 * A host name is resolved with uv_getaddrinfo (hiredis would call getaddrinfo on the loop), and
 * hiredis gets the address. Degraded = the link is not up, or Redis refused the last write: shown
 * as a gauge, and each change logged once (event=cache_shared_degraded / cache_shared_recovered),
 * not once per failed retry. Passwords never reach a log line. */
#include "redis_link.h"

#include <arpa/inet.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/adapters/libuv.h>

#define TICK_MS 20
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 2000

typedef enum link_state { LINK_DOWN = 0, LINK_RESOLVING, LINK_CONNECTING, LINK_UP } link_state;

struct tress_redis_call {
  tress_redis_call *prev, *next;
  tress_redis_link *link;
  tress_redis_reply_fn fn; /* NULL: forgotten */
  void *user;
  uint64_t deadline_ms;
};

struct tress_redis_link {
  uv_loop_t *loop;
  tress_redis_url url;
  uint32_t timeout_ms;
  const tress_log *log;
  tress_metrics *metrics;
  redisAsyncContext *ac;
  link_state state;
  uint64_t attempt_deadline_ms, retry_at_ms, degraded_since_ms;
  uint32_t backoff_ms;
  uint32_t attempt; /* a resolve answer for an abandoned attempt is dropped */
  uv_getaddrinfo_t resolve;
  bool resolving;
  uv_timer_t tick;
  bool tick_open;
  tress_redis_call *calls, *calls_tail; /* pending, oldest first */
  bool announced, write_refused, stopping; /* announced: this degraded episode was logged */
  char reason[160];
};

static uint64_t now_ms(const tress_redis_link *l) { return uv_now(l->loop); }

/* The gauge follows the state at once; the log and the counter speak once per episode (a link
 * that comes up on its first try never announced anything, so it has nothing to take back). */
static void publish_degraded(tress_redis_link *l) {
  bool degraded = l->state != LINK_UP || l->write_refused;
  atomic_store(&l->metrics->cache_shared_degraded, degraded);
  char q[200];
  if (degraded && !l->announced) {
    l->announced = true;
    l->degraded_since_ms = now_ms(l);
    atomic_fetch_add(&l->metrics->cache_shared_degraded_total, 1);
    tress_log_event(l->log, TRESS_LOG_WARN, "cache_shared_degraded", "host=%s port=%u reason=%s action=rig_locally",
                    l->url.host, l->url.port, tress_log_quote(l->reason, q, sizeof q));
  } else if (!degraded && l->announced) {
    l->announced = false;
    tress_log_event(l->log, TRESS_LOG_INFO, "cache_shared_recovered", "host=%s port=%u degraded_ms=%llu", l->url.host,
                    l->url.port, (unsigned long long)(now_ms(l) - l->degraded_since_ms));
  }
}

static void call_unlink(tress_redis_link *l, tress_redis_call *c) {
  if (c->prev) c->prev->next = c->next;
  else l->calls = c->next;
  if (c->next) c->next->prev = c->prev;
  else l->calls_tail = c->prev;
}

static void on_reply(redisAsyncContext *ac, void *r, void *priv) {
  tress_redis_call *c = priv;
  tress_redis_link *l = c->link;
  const redisReply *reply = r;
  const char *error = NULL;
  if (!reply) error = ac->err ? ac->errstr : l->reason[0] ? l->reason : "connection closed";
  else if (reply->type == REDIS_REPLY_ERROR) error = reply->str;
  call_unlink(l, c);
  tress_redis_reply_fn fn = c->fn;
  void *user = c->user;
  free(c);
  if (fn) fn(user, reply, error);
}

/* Any state: the handshake's calls go out before the link is up. */
static tress_redis_call *send_call(tress_redis_link *l, tress_redis_reply_fn fn, void *user, int argc, const char **argv,
                                   const size_t *argvlen) {
  tress_redis_call *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->link = l;
  c->fn = fn;
  c->user = user;
  c->deadline_ms = now_ms(l) + l->timeout_ms;
  if (redisAsyncCommandArgv(l->ac, on_reply, c, argc, argv, argvlen) != REDIS_OK) {
    free(c);
    return NULL;
  }
  c->prev = l->calls_tail;
  if (l->calls_tail) l->calls_tail->next = c;
  else l->calls = c;
  l->calls_tail = c;
  return c;
}

/* Drops the connection (failing its pending calls) and schedules the next attempt. `ac_gone`:
 * hiredis is already freeing the context (connect failed, connection lost). */
static void link_down(tress_redis_link *l, const char *why, bool ac_gone) {
  snprintf(l->reason, sizeof l->reason, "%s", why);
  bool was_up = l->state == LINK_UP;
  l->state = LINK_DOWN;
  l->attempt++;
  l->retry_at_ms = now_ms(l) + l->backoff_ms;
  l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
  atomic_fetch_add(&l->metrics->cache_shared_errors, 1);
  if (!was_up && l->announced) { /* a retry that failed again: already reported */
    char q[200];
    tress_log_event(l->log, TRESS_LOG_DEBUG, "cache_shared_retry_failed", "reason=%s retry_ms=%u",
                    tress_log_quote(why, q, sizeof q), (unsigned)(l->retry_at_ms - now_ms(l)));
  }
  redisAsyncContext *ac = l->ac;
  l->ac = NULL;
  publish_degraded(l); /* before the calls fail, so the log line says why they did */
  if (ac && !ac_gone) redisAsyncFree(ac); /* deferred by hiredis when inside one of its callbacks */
}

static void on_connect(const redisAsyncContext *ac, int status) {
  tress_redis_link *l = ac->data;
  if (status != REDIS_OK && l->ac == ac) {
    char why[160];
    snprintf(why, sizeof why, "connect: %s", ac->errstr);
    link_down(l, why, true);
  }
}

static void on_disconnect(const redisAsyncContext *ac, int status) {
  tress_redis_link *l = ac->data;
  if (l->ac != ac) return; /* we dropped it ourselves */
  char why[160];
  snprintf(why, sizeof why, "connection lost: %s", status == REDIS_OK ? "closed" : ac->errstr);
  link_down(l, why, true);
}

static void on_handshake_step(void *user, const redisReply *reply, const char *error) {
  tress_redis_link *l = user;
  if (!reply || l->state != LINK_CONNECTING) return; /* the connection failed: already handled */
  if (error) {
    char why[160];
    snprintf(why, sizeof why, "handshake refused: %.120s", error); /* Redis never echoes the password */
    link_down(l, why, false);
  }
}

static void on_handshake_ping(void *user, const redisReply *reply, const char *error) {
  tress_redis_link *l = user;
  if (!reply || l->state != LINK_CONNECTING) return;
  if (error) {
    on_handshake_step(user, reply, error);
    return;
  }
  l->state = LINK_UP;
  l->backoff_ms = BACKOFF_FIRST_MS;
  l->reason[0] = '\0';
  tress_log_event(l->log, TRESS_LOG_INFO, "cache_shared_connected", "host=%s port=%u db=%u", l->url.host, l->url.port,
                  l->url.db);
  publish_degraded(l);
}

static void connect_to(tress_redis_link *l, const char *ip) {
  redisAsyncContext *ac = redisAsyncConnect(ip, l->url.port);
  if (!ac || ac->err) {
    char why[160];
    snprintf(why, sizeof why, "connect: %s", ac ? ac->errstr : "out of memory");
    if (ac) redisAsyncFree(ac);
    link_down(l, why, true);
    return;
  }
  ac->data = l;
  if (redisLibuvAttach(ac, l->loop) != REDIS_OK) {
    redisAsyncFree(ac);
    link_down(l, "cannot attach to the loop", true);
    return;
  }
  redisAsyncSetConnectCallback(ac, on_connect);
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
  l->ac = ac;
  l->state = LINK_CONNECTING;
  l->attempt_deadline_ms = now_ms(l) + l->timeout_ms;
  bool ok = true;
  if (l->url.password[0]) {
    const char *argv[3] = {"AUTH", l->url.user, l->url.password};
    size_t len[3] = {4, strlen(l->url.user), strlen(l->url.password)};
    ok = l->url.user[0] ? send_call(l, on_handshake_step, l, 3, argv, len) != NULL
                        : send_call(l, on_handshake_step, l, 2, (const char *[]){"AUTH", l->url.password},
                                    (size_t[]){4, len[2]}) != NULL;
  }
  if (ok && l->url.db) {
    char db[16];
    int n = snprintf(db, sizeof db, "%u", l->url.db);
    ok = send_call(l, on_handshake_step, l, 2, (const char *[]){"SELECT", db}, (size_t[]){6, (size_t)n}) != NULL;
  }
  if (ok) ok = send_call(l, on_handshake_ping, l, 1, (const char *[]){"PING"}, (size_t[]){4}) != NULL;
  if (!ok) link_down(l, "cannot queue the handshake", false);
}

static void link_free_if_closed(tress_redis_link *l) {
  if (!l->tick_open && !l->resolving) free(l);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
  tress_redis_link *l = req->data;
  l->resolving = false;
  uint32_t attempt = (uint32_t)(uintptr_t)req->reserved[0];
  if (l->stopping) {
    if (res) uv_freeaddrinfo(res);
    link_free_if_closed(l);
    return;
  }
  if (attempt != l->attempt || l->state != LINK_RESOLVING) { /* abandoned at its deadline */
    if (res) uv_freeaddrinfo(res);
    return;
  }
  char ip[INET6_ADDRSTRLEN] = {0};
  if (status == 0 && res) {
    const void *addr = res->ai_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                                                  : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, addr, ip, sizeof ip);
  }
  if (res) uv_freeaddrinfo(res);
  if (!ip[0]) {
    char why[160];
    snprintf(why, sizeof why, "cannot resolve %.60s: %s", l->url.host, status ? uv_strerror(status) : "no address");
    link_down(l, why, true);
    return;
  }
  connect_to(l, ip);
}

static void start_attempt(tress_redis_link *l) {
  l->attempt++;
  unsigned char addr[sizeof(struct in6_addr)];
  if (inet_pton(AF_INET, l->url.host, addr) == 1 || inet_pton(AF_INET6, l->url.host, addr) == 1) {
    connect_to(l, l->url.host);
    return;
  }
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  l->resolve.data = l;
  l->resolve.reserved[0] = (void *)(uintptr_t)l->attempt;
  if (uv_getaddrinfo(l->loop, &l->resolve, on_resolved, l->url.host, NULL, &hints) != 0) {
    link_down(l, "cannot start name resolution", true);
    return;
  }
  l->resolving = true;
  l->state = LINK_RESOLVING;
  l->attempt_deadline_ms = now_ms(l) + l->timeout_ms;
}

static void on_tick(uv_timer_t *t) {
  tress_redis_link *l = t->data;
  uint64_t now = now_ms(l);
  if (l->ac) {
    const tress_redis_call *late = NULL;
    for (const tress_redis_call *c = l->calls; c && !late; c = c->next)
      if (now >= c->deadline_ms) late = c;
    if (late || (l->state == LINK_CONNECTING && now >= l->attempt_deadline_ms)) {
      char why[160];
      snprintf(why, sizeof why, "%s within %u ms", late ? "no answer" : "no handshake", l->timeout_ms);
      link_down(l, why, false);
    }
  } else if (l->state == LINK_RESOLVING && now >= l->attempt_deadline_ms) {
    link_down(l, "name resolution timed out", true);
  }
  if (l->state == LINK_DOWN && now >= l->retry_at_ms && !l->resolving) start_attempt(l);
}

tress_redis_link *tress_redis_link_start(uv_loop_t *loop, const tress_redis_url *url, uint32_t timeout_ms,
                                         const tress_log *log, tress_metrics *metrics) {
  tress_redis_link *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->loop = loop;
  l->url = *url;
  l->timeout_ms = timeout_ms;
  l->log = log;
  l->metrics = metrics;
  l->backoff_ms = BACKOFF_FIRST_MS;
  atomic_store(&metrics->cache_shared_degraded, true); /* until the first handshake */
  snprintf(l->reason, sizeof l->reason, "not connected yet");
  uv_timer_init(loop, &l->tick);
  l->tick.data = l;
  l->tick_open = true;
  uv_timer_start(&l->tick, on_tick, TICK_MS, TICK_MS);
  start_attempt(l);
  return l;
}

static void on_tick_closed(uv_handle_t *h) {
  tress_redis_link *l = h->data;
  l->tick_open = false;
  link_free_if_closed(l);
}

void tress_redis_link_stop(tress_redis_link *l) {
  if (!l) return;
  l->stopping = true;
  snprintf(l->reason, sizeof l->reason, "server stopping");
  l->state = LINK_DOWN;
  redisAsyncContext *ac = l->ac;
  l->ac = NULL;
  if (ac) redisAsyncFree(ac); /* every pending call fails now */
  uv_timer_stop(&l->tick);
  uv_close((uv_handle_t *)&l->tick, on_tick_closed);
  if (l->resolving) uv_cancel((uv_req_t *)&l->resolve);
}

bool tress_redis_link_up(const tress_redis_link *l) { return l && l->state == LINK_UP && l->ac; }

void tress_redis_link_set_write_refused(tress_redis_link *l, bool refused, const char *why) {
  if (refused == l->write_refused) return;
  l->write_refused = refused;
  if (refused) snprintf(l->reason, sizeof l->reason, "write refused: %.130s", why ? why : "");
  publish_degraded(l);
}

tress_redis_call *tress_redis_link_call(tress_redis_link *l, tress_redis_reply_fn fn, void *user, int argc,
                                        const char **argv, const size_t *argvlen) {
  if (!tress_redis_link_up(l)) return NULL;
  return send_call(l, fn, user, argc, argv, argvlen);
}

void tress_redis_call_forget(tress_redis_call *call) {
  if (call) call->fn = NULL;
}
