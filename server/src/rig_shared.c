/* Shared rig tier
 * ---------------
 * Behind memory and disk, a fleet's servers share rigs through one Redis. Keys are content
 * addresses: "<namespace>:rig:<value format>:<hex of the rig cache key>", and the cache key already
 * hashes the mesh content, the rig options and the rigger version, so a server never needs to
 * agree with another about anything but bytes. Values verify themselves (rig_cache.c); one that
 * does not is a miss the rigging server overwrites, never an error anyone sees.
 *
 * Single flight across servers. A miss runs one Lua script (one round trip, atomic):
 *   value there  -> {1, value}                       the rig, to verify
 *   else SET lease token NX PX lease_ms succeeds -> {2}   this server rigs
 *   else                                        -> {0, pttl}  another server is rigging
 * The lease holder renews it every lease_ms/3 (compare-and-PEXPIRE), then SETs the value and
 * releases the lease (compare-and-DEL) on the same connection, in that order, so a waiter never
 * finds both gone. A waiter looks again every poll_ms (jittered, so a storm of waiters does not
 * arrive in step) with the same script: it finds the value, or the lease free (its holder died:
 * lease_ms at most after its last renewal) and takes it, or after wait_ms gives up and rigs
 * itself. Redis failing at any point (redis_link.c fails a call at its deadline) ends the
 * flight with RIG_LOCAL: the rig is made here, and the server says it is degraded. */
#include "rig_shared.h"

#include <hiredis/hiredis.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tress/mesh_hash.h"

#define TICK_MS 10

static const char GET_OR_LEASE[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if v then return {1, v} end "
    "if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2, ''} end "
    "return {0, tostring(redis.call('PTTL', KEYS[2]))}";
static const char RENEW_LEASE[] =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";
static const char RELEASE_LEASE[] =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

static uint64_t now_ms(const tress_rig_shared *t) { return uv_now(t->loop); }

void tress_rig_shared_value_key(const char *ns, const uint8_t key[TRESS_RIG_KEY_BYTES], char *out, size_t cap) {
  char hex[2 * TRESS_RIG_KEY_BYTES + 1];
  tress_mesh_hash_to_hex(key, hex);
  snprintf(out, cap, "%s:rig:%u:%s", ns, TRESS_RIG_SHARED_FORMAT_VERSION, hex);
}

/* EVAL script nkeys args... (keys first). */
static tress_redis_call *eval(tress_rig_shared *t, tress_redis_reply_fn fn, void *user, const char *script, int nkeys,
                              int nargs, const char *const *args) {
  char nk[4];
  snprintf(nk, sizeof nk, "%d", nkeys);
  const char *argv[8] = {"EVAL", script, nk};
  size_t len[8];
  int argc = 3 + nargs;
  for (int i = 0; i < nargs; i++) argv[3 + i] = args[i];
  for (int i = 0; i < argc; i++) len[i] = strlen(argv[i]);
  return tress_redis_link_call(t->link, fn, user, argc, argv, len);
}

static void lease_ms_text(const tress_rig_shared *t, char out[16]) { snprintf(out, 16, "%u", t->cfg.lease_ms); }

static void flight_unlink(tress_shared_flight *f) {
  for (tress_shared_flight **pp = &f->tier->flights; *pp; pp = &(*pp)->next) {
    if (*pp == f) {
      *pp = f->next;
      break;
    }
  }
  f->next = NULL;
}

/* Ends the lookup with an outcome; f may be gone when this returns (the owner's callback). */
static void settle(tress_shared_flight *f, tress_shared_outcome outcome, const uint8_t *value, size_t len,
                   const char *why) {
  f->call = NULL;
  if (outcome == TRESS_SHARED_RIG_LOCAL) atomic_fetch_add(&f->tier->metrics->cache_shared_local_rigs, 1);
  f->done(f->owner, outcome, value, len, why);
}

static void on_lookup(void *user, const redisReply *reply, const char *error);

static bool ask(tress_shared_flight *f) {
  char lease[16];
  lease_ms_text(f->tier, lease);
  f->call = eval(f->tier, on_lookup, f, GET_OR_LEASE, 2, 4, (const char *[]){f->value_key, f->lock_key, f->token, lease});
  if (f->call) f->state = FLIGHT_ASKING;
  return f->call != NULL;
}

static uint64_t jittered(uint32_t mean_ms) {
  uint32_t span = mean_ms ? mean_ms : 1;
  return mean_ms / 2 + randombytes_uniform(span); /* 0.5x .. 1.5x */
}

static void on_lookup(void *user, const redisReply *reply, const char *error) {
  tress_shared_flight *f = user;
  tress_rig_shared *t = f->tier;
  f->call = NULL;
  char why[200];
  if (error || !reply) {
    if (reply) atomic_fetch_add(&t->metrics->cache_shared_errors, 1); /* an error reply; lost links count themselves */
    snprintf(why, sizeof why, "redis: %.150s", error ? error : "no reply");
    f->state = FLIGHT_IDLE;
    settle(f, TRESS_SHARED_RIG_LOCAL, NULL, 0, why);
    return;
  }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 || reply->element[0]->type != REDIS_REPLY_INTEGER) {
    atomic_fetch_add(&t->metrics->cache_shared_errors, 1);
    f->state = FLIGHT_IDLE;
    settle(f, TRESS_SHARED_RIG_LOCAL, NULL, 0, "redis: unexpected reply to the lookup");
    return;
  }
  long long kind = reply->element[0]->integer;
  const redisReply *second = reply->element[1];
  uint64_t now = now_ms(t);
  if (kind == 1 && second->type == REDIS_REPLY_STRING) {
    f->state = FLIGHT_IDLE;
    settle(f, TRESS_SHARED_VALUE, (const uint8_t *)second->str, second->len, NULL);
  } else if (kind == 2) {
    f->state = FLIGHT_LEASED;
    f->next_ms = now + t->cfg.lease_ms / 3;
    atomic_fetch_add(&t->metrics->cache_shared_misses, 1);
    settle(f, TRESS_SHARED_RIG_LEASED, NULL, 0, NULL);
  } else {
    if (!f->waited) {
      f->waited = true;
      f->wait_until_ms = now + t->cfg.wait_ms;
      atomic_fetch_add(&t->metrics->cache_shared_waits, 1);
    }
    if (now >= f->wait_until_ms) {
      atomic_fetch_add(&t->metrics->cache_shared_wait_timeouts, 1);
      snprintf(why, sizeof why, "waited %u ms on another server's lease", t->cfg.wait_ms);
      f->state = FLIGHT_IDLE;
      settle(f, TRESS_SHARED_RIG_LOCAL, NULL, 0, why);
      return;
    }
    f->state = FLIGHT_WAITING;
    f->next_ms = now + jittered(t->cfg.poll_ms);
  }
}

static void on_renewed(void *user, const redisReply *reply, const char *error) {
  tress_shared_flight *f = user;
  f->call = NULL;
  if (error || !reply) return; /* the next renewal tries again; a lost link is handled there */
  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 0) {
    /* expired (this server was stalled past lease_ms) or taken: keep rigging, the value is the same
     * bytes whoever stores it; the release will not delete another holder's lease */
    atomic_fetch_add(&f->tier->metrics->cache_shared_lease_lost, 1);
    tress_log_event(f->tier->log, TRESS_LOG_WARN, "cache_shared_lease_lost", "key=%s", f->value_key);
  }
}

static void on_stored(void *user, const redisReply *reply, const char *error) {
  tress_rig_shared *t = user;
  if (!error && reply) {
    atomic_fetch_add(&t->metrics->cache_shared_writes, 1);
    tress_redis_link_set_write_refused(t->link, false, NULL);
    return;
  }
  atomic_fetch_add(&t->metrics->cache_shared_write_failures, 1);
  if (reply) tress_redis_link_set_write_refused(t->link, true, error); /* e.g. OOM under maxmemory */
}

static void on_released(void *user, const redisReply *reply, const char *error) {
  (void)user, (void)reply, (void)error; /* a lease not released expires by itself */
}

static void on_tick(uv_timer_t *timer) {
  tress_rig_shared *t = timer->data;
  uint64_t now = now_ms(t);
  tress_shared_flight *next;
  for (tress_shared_flight *f = t->flights; f; f = next) {
    next = f->next;
    if (f->call || now < f->next_ms) continue;
    if (f->state == FLIGHT_WAITING) {
      if (!ask(f)) {
        f->state = FLIGHT_IDLE;
        settle(f, TRESS_SHARED_RIG_LOCAL, NULL, 0, "redis: link down while waiting on a lease");
      }
    } else if (f->state == FLIGHT_LEASED) {
      char lease[16];
      lease_ms_text(t, lease);
      f->call = eval(t, on_renewed, f, RENEW_LEASE, 1, 3, (const char *[]){f->lock_key, f->token, lease});
      f->next_ms = now + t->cfg.lease_ms / 3;
    }
  }
  if (!t->flights) uv_timer_stop(&t->tick);
}

tress_rig_shared *tress_rig_shared_start(uv_loop_t *loop, const tress_rig_shared_config *cfg, const tress_log *log,
                                         tress_metrics *metrics) {
  tress_rig_shared *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->loop = loop;
  t->cfg = *cfg;
  t->log = log;
  t->metrics = metrics;
  t->link = tress_redis_link_start(loop, &cfg->url, cfg->timeout_ms, log, metrics);
  if (!t->link) {
    free(t);
    return NULL;
  }
  uv_timer_init(loop, &t->tick);
  t->tick.data = t;
  atomic_store(&metrics->cache_shared_enabled, true);
  return t;
}

static void on_tick_closed(uv_handle_t *h) { free(h->data); }

void tress_rig_shared_stop(tress_rig_shared *t) {
  if (!t) return;
  while (t->flights) tress_rig_shared_end(t->flights, NULL, 0);
  tress_redis_link_stop(t->link);
  uv_timer_stop(&t->tick);
  uv_close((uv_handle_t *)&t->tick, on_tick_closed);
}

tress_redis_link *tress_rig_shared_link(tress_rig_shared *t) { return t ? t->link : NULL; }

bool tress_rig_shared_begin(tress_rig_shared *t, tress_shared_flight *f, const uint8_t key[TRESS_RIG_KEY_BYTES],
                            tress_shared_done_fn done, void *owner) {
  memset(f, 0, sizeof *f);
  f->tier = t;
  f->done = done;
  f->owner = owner;
  tress_rig_shared_value_key(t->cfg.namespace_, key, f->value_key, sizeof f->value_key);
  snprintf(f->lock_key, sizeof f->lock_key, "%s:lease", f->value_key);
  uint8_t id[8];
  randombytes_buf(id, sizeof id);
  snprintf(f->token, sizeof f->token, "pid=%ld id=%02x%02x%02x%02x%02x%02x%02x%02x-%llu", (long)getpid(), id[0], id[1],
           id[2], id[3], id[4], id[5], id[6], id[7], (unsigned long long)++t->flight_serial);
  if (!ask(f)) return false;
  f->next = t->flights;
  t->flights = f;
  if (!uv_is_active((uv_handle_t *)&t->tick)) uv_timer_start(&t->tick, on_tick, TICK_MS, TICK_MS);
  return true;
}

void tress_rig_shared_end(tress_shared_flight *f, const uint8_t *value, size_t len) {
  tress_rig_shared *t = f->tier;
  if (!t) return; /* never started */
  tress_redis_call_forget(f->call);
  f->call = NULL;
  if (value) {
    const char *argv[3] = {"SET", f->value_key, (const char *)value};
    size_t lens[3] = {3, strlen(f->value_key), len};
    if (!tress_redis_link_call(t->link, on_stored, t, 3, argv, lens))
      atomic_fetch_add(&t->metrics->cache_shared_write_failures, 1);
  }
  if (f->state == FLIGHT_LEASED) eval(t, on_released, NULL, RELEASE_LEASE, 1, 2, (const char *[]){f->lock_key, f->token});
  f->state = FLIGHT_IDLE;
  flight_unlink(f);
  f->tier = NULL;
}
