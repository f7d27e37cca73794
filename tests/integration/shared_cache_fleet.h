/* shared_cache_fleet.h - what the shared rig cache tests share: a fleet of real tress-servers on
 * one real redis-server, one ENet client per server, /stats read as numbers, spawns sent to every
 * server at once and waited for together. Header-only (static), one test file includes it. */
#ifndef TRESS_SHARED_CACHE_FLEET_H
#define TRESS_SHARED_CACHE_FLEET_H

#include <cjson/cJSON.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "support/redis_harness.h"
#include "support/server_harness.h"

#define FLEET_MAX 4
#define LEASE_MS 1500

typedef struct fleet {
  th_redis redis;
  int n;
  th_server s[FLEET_MAX];
  th_client *c[FLEET_MAX];
} fleet;

static inline uint64_t fleet_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A number from /stats by dotted path ("rigs.started", "cache.shared.hits"); booleans are 0/1. */
static inline double stat_of(const th_server *s, const char *path) {
  char *body = NULL;
  if (th_http_get(s->http_port, "/stats", &body) != 200 || !body) {
    free(body);
    fail_msg("no /stats from the server on http port %u", s->http_port);
  }
  cJSON *root = cJSON_Parse(body);
  free(body);
  const cJSON *node = root;
  char part[64];
  for (const char *p = path; node && *p;) {
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    snprintf(part, sizeof part, "%.*s", (int)n, p);
    node = cJSON_GetObjectItemCaseSensitive(node, part);
    p += n + (dot ? 1 : 0);
  }
  double v = cJSON_IsBool(node) ? (cJSON_IsTrue(node) ? 1 : 0) : cJSON_IsNumber(node) ? node->valuedouble : -1;
  cJSON_Delete(root);
  if (v < 0) fail_msg("/stats has no %s", path);
  return v;
}

static inline double fleet_sum(const fleet *f, const char *path) {
  double sum = 0;
  for (int i = 0; i < f->n; i++)
    if (f->s[i].pid > 0) sum += stat_of(&f->s[i], path);
  return sum;
}

/* Services every client of the fleet for about ms: an ENet client left alone for seconds (while
 * the test sleeps or polls /stats) would time out. */
static inline void fleet_pump(fleet *f, int ms) {
  uint64_t until = fleet_now_ms() + (uint64_t)ms;
  do {
    for (int i = 0; i < f->n; i++)
      if (f->c[i]) th_client_pump(f->c[i], 1);
  } while (fleet_now_ms() < until);
}

/* Polls until server i's /stats path equals want or timeout, keeping the clients serviced. */
static inline bool stat_becomes(fleet *f, int i, const char *path, double want, int timeout_ms) {
  uint64_t deadline = fleet_now_ms() + (uint64_t)timeout_ms;
  do {
    if (stat_of(&f->s[i], path) == want) return true;
    fleet_pump(f, 20);
  } while (fleet_now_ms() < deadline);
  return false;
}

static inline void fleet_launch(fleet *f, int i, const char *tag, const char *redis_url) {
  th_server_init(&f->s[i], tag);
  /* a deadline well above a loaded sanitizer build's round trip, well below the 5 s Redis stop */
  const char *extra[] = {"--cache-url", redis_url, "--cache-lease-ms", "1500", "--cache-poll-ms", "40",
                         "--cache-timeout-ms", "1000", NULL};
  assert_int_equal(th_server_start(&f->s[i], extra), 0);
}

static inline void fleet_connect(fleet *f, int i) {
  f->c[i] = calloc(1, sizeof *f->c[i]);
  assert_int_equal(th_client_connect(f->c[i], f->s[i].udp_port), 0);
  /* a room of each server's own: rooms are leased fleet-wide (room_lease.c), and a room named
   * after a dead server's would be redirected to it until its lease ran out */
  char room[32];
  snprintf(room, sizeof room, "r%d-%ld", i, (long)f->s[i].pid);
  assert_int_equal(th_client_hello_join(f->c[i], "shared-cache-test", room), 0);
}

static inline void fleet_start_server(fleet *f, int i, const char *tag, const char *redis_url) {
  fleet_launch(f, i, tag, redis_url);
  fleet_connect(f, i);
}

/* n servers (each a fresh cache dir) on the fleet's Redis, each connected to Redis before it
 * returns. All servers start before any client connects: a client is not serviced while the
 * harness waits for a server to start, and would time out. */
static inline void fleet_start(fleet *f, int n) {
  f->n = n;
  for (int i = 0; i < n; i++) fleet_launch(f, i, "shared", f->redis.url);
  for (int i = 0; i < n; i++) {
    fleet_connect(f, i);
    assert_true(stat_becomes(f, i, "cache.shared.degraded", 0, 10000));
  }
}

static inline void fleet_drop_client(fleet *f, int i) {
  if (!f->c[i]) return;
  th_client_close(f->c[i]);
  free(f->c[i]);
  f->c[i] = NULL;
}

/* Stops every server with sig (SIGKILL: the whole fleet dies at once) and removes their dirs. */
static inline void fleet_stop(fleet *f, int sig) {
  for (int i = 0; i < f->n; i++) {
    fleet_drop_client(f, i);
    if (f->s[i].pid > 0) {
      int status = th_server_stop(&f->s[i], sig, 15000);
      if (sig == SIGTERM && status != 0) fail_msg("server %d exited with %d on SIGTERM; log %s", i, status, f->s[i].log_path);
    }
    th_server_cleanup(&f->s[i]);
  }
}

/* The same character spawned on every listed server's client, all sent before any is waited on. */
static inline void spawn_on(fleet *f, const int *which, int count, const char *character_file, uint32_t request_id) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, character_file, request_id), 0);
  for (int k = 0; k < count; k++) assert_int_equal(th_client_send(f->c[which[k]], &spawn), 0);
  th_spawn_free(&spawn);
}

/* Pumps every listed client until each has a new RIG_RESULT and BIND; out[k] = its RIG_RESULT
 * (in the client's inbox). Returns the wall time from the call to the last BIND. */
static inline uint64_t wait_rigs(fleet *f, const int *which, int count, const tress_msg **out, int timeout_ms) {
  uint64_t start = fleet_now_ms(), deadline = start + (uint64_t)timeout_ms, last = start;
  bool done[FLEET_MAX] = {false};
  int left = count;
  while (left > 0) {
    if (fleet_now_ms() >= deadline) fail_msg("%d of %d clients got no rig within %d ms", left, count, timeout_ms);
    for (int k = 0; k < count; k++) {
      th_client *c = f->c[which[k]];
      th_client_pump(c, 2);
      if (done[k]) continue;
      uint32_t taken = c->taken;
      const tress_msg *r = th_client_wait(c, TRESS_MSG_RIG_RESULT, 0);
      const tress_msg *b = r ? th_client_wait(c, TRESS_MSG_BIND, 0) : NULL;
      if (!r || !b) {
        c->taken = taken; /* look again next round */
        continue;
      }
      out[k] = r;
      done[k] = true;
      left--;
      last = fleet_now_ms();
    }
  }
  return last - start;
}

/* Same bones and skin, whichever character wears it: the payload every client got. */
static inline bool same_rig(const tress_msg *a, const tress_msg *b) {
  tress_msg x = *a, y = *b;
  y.rig_result.character_id = x.rig_result.character_id;
  y.rig_result.accessory_index = x.rig_result.accessory_index;
  return tress_msg_is_equal(&x, &y);
}

/* Keys matching pattern, '\n'-joined (malloc'd; "" when none). */
static inline char *redis_keys(const fleet *f, const char *pattern) {
  char *k = th_redis_cmdf(&f->redis, "KEYS %s", pattern);
  assert_non_null(k);
  return k;
}

static inline int count_lines(const char *s) {
  if (!s[0]) return 0;
  int n = 1;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static inline int skip_without_redis(void) {
  if (th_redis_server_path()) return 0;
  fprintf(stderr, "SKIP: redis-server is not installed (apt-get install redis-server; scripts/setup does)\n");
  return 77;
}

#endif
