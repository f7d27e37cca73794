/* bench/fleet_storm.c - the shared rig cache under a spawn storm: rigs per asset across a fleet.
 *
 * Starts a real redis-server (on a free loopback port) and a fleet of real tress-servers (4 by
 * default) with cache_url pointing at it, each with its own empty cache dir, and connects
 * BOTS bots to every server. Then every bot spawns at once one of KEYS distinct rigs (3 sample
 * hairs x rig option variants), each key requested by bots on every server. Reports, once every
 * bot is bound: rigs run fleet-wide (the servers' /stats rig counters summed) per distinct key,
 * which single-flight must hold at exactly 1; spawn-to-bind p50/p99; shared hits, waits and
 * local rigs; Redis round trips per spawn (the servers' cache.shared.calls: lookups, waiters'
 * looks, lease renewals, stores, releases, each server's 2-call handshake, and since rooms are
 * leased one claim per bot's room). Then, one spawn at a time, a
 * newcomer server on an empty disk (every key a shared hit: spawn-to-bind and round trips per spawn)
 * against a server without the shared tier (every key a rig). And join-to-bind into a room another
 * server owns (one room on one server): connecting to the owner directly against connecting to
 * another server of the fleet, getting REDIRECT and following it (the rig a memory hit on the
 * owner, so the redirect's cost shows). Figures are printed, never asserted.
 * Needs redis-server; says so and exits 0 without it. Usage: fleet_storm [--servers N] [--bots N]
 */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_env.h"
#include "support/redis_harness.h"
#include "support/server_harness.h"

#define MAX_SERVERS 8
#define MAX_BOTS 16
static const char *const characters[] = {"ava.json", "kit.json", "bo.json"};
#define VARIANTS 2 /* rig option variants per hair: a distinct key each */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double stat_of(const th_server *s, const char *group, const char *sub, const char *key) {
  char *body = NULL;
  double v = -1;
  if (th_http_get(s->http_port, "/stats", &body) == 200 && body) {
    cJSON *root = cJSON_Parse(body);
    const cJSON *n = cJSON_GetObjectItem(root, group);
    if (sub) n = cJSON_GetObjectItem(n, sub);
    n = cJSON_GetObjectItem(n, key);
    if (cJSON_IsNumber(n)) v = n->valuedouble;
    cJSON_Delete(root);
  }
  free(body);
  return v;
}

static int load_spawn(tress_msg *spawn, int key) {
  if (th_spawn_load(spawn, characters[key / VARIANTS], 1) != 0) return -1;
  tress_wire_manifest *mf = &spawn->spawn_character.manifest;
  mf->has_rig_options = true;
  mf->rig_options = tress_default_wire_rig_options();
  mf->rig_options.segments = (uint8_t)(mf->rig_options.segments + key % VARIANTS);
  return 0;
}

/* A fresh server (empty disk; cache_url when url is set) where one bot spawns every key in turn,
 * each waited for: spawn-to-bind per key into ms[], and the Redis round trips they cost. */
static int one_by_one(const char *url, int keys, double *ms, double *calls) {
  th_server s;
  th_server_init(&s, "storm-one");
  const char *with[] = {"--cache-url", url, NULL};
  if (th_server_start(&s, url ? with : NULL) != 0) return -1;
  static th_client c;
  memset(&c, 0, sizeof c);
  if (th_client_connect(&c, s.udp_port) != 0 || th_client_hello_join(&c, "one", "one") != 0) return -1;
  if (url) th_client_pump(&c, 300); /* connected to Redis */
  double before = url ? stat_of(&s, "cache", "shared", "calls") : 0;
  for (int k = 0; k < keys; k++) {
    tress_msg spawn;
    if (load_spawn(&spawn, k) != 0) return -1;
    double t0 = now_ms();
    th_client_send(&c, &spawn);
    th_spawn_free(&spawn);
    if (!th_client_wait(&c, TRESS_MSG_BIND, 60000)) return -1;
    ms[k] = now_ms() - t0;
  }
  if (url) th_client_pump(&c, 100); /* the last store's reply */
  *calls = url ? stat_of(&s, "cache", "shared", "calls") - before : 0;
  th_client_close(&c);
  th_server_stop(&s, SIGTERM, 15000);
  th_server_cleanup(&s);
  return 0;
}

/* Connect at port, HELLO, JOIN_ROOM room (following one REDIRECT when follow), SPAWN key, BIND:
 * the milliseconds from the first connect to the BIND, or -1. */
static double join_to_bind(uint16_t port, const char *room, int key, bool follow) {
  static th_client c;
  tress_msg hello, join;
  memset(&hello, 0, sizeof hello);
  hello.type = TRESS_MSG_HELLO;
  hello.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  hello.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(hello.hello.client_name, sizeof hello.hello.client_name, "joiner");
  memset(&join, 0, sizeof join);
  join.type = TRESS_MSG_JOIN_ROOM;
  snprintf(join.join_room.room, sizeof join.join_room.room, "%s", room);
  double t0 = now_ms(), result = -1;
  for (int hop = 0; hop < 2; hop++) {
    memset(&c, 0, sizeof c);
    if (th_client_connect(&c, port) != 0 || th_client_send(&c, &hello) != 0 || !th_client_wait(&c, TRESS_MSG_WELCOME, 5000) ||
        th_client_send(&c, &join) != 0)
      break;
    const tress_msg *answer = NULL;
    for (double until = now_ms() + 5000; !answer && now_ms() < until;) {
      th_client_pump(&c, 1);
      for (uint32_t i = 0; i < c.inbox_count && !answer; i++)
        if (c.inbox[i].type == TRESS_MSG_ROOM_JOINED || c.inbox[i].type == TRESS_MSG_REDIRECT) answer = &c.inbox[i];
    }
    if (answer && answer->type == TRESS_MSG_REDIRECT && follow && hop == 0) {
      port = answer->redirect.port; /* the fleet runs on loopback: the host is 127.0.0.1 */
      th_client_close(&c);
      continue;
    }
    tress_msg spawn;
    if (answer && answer->type == TRESS_MSG_ROOM_JOINED && load_spawn(&spawn, key) == 0) {
      th_client_send(&c, &spawn);
      th_spawn_free(&spawn);
      if (th_client_wait(&c, TRESS_MSG_BIND, 60000)) result = now_ms() - t0;
    }
    break;
  }
  th_client_close(&c);
  return result;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int servers = 4, bots = 8;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--servers") == 0) servers = atoi(argv[++i]);
    else if (strcmp(argv[i], "--bots") == 0) bots = atoi(argv[++i]);
  }
  if (servers < 1 || servers > MAX_SERVERS || bots < 1 || bots > MAX_BOTS) {
    fprintf(stderr, "usage: fleet_storm [--servers 1..%d] [--bots 1..%d]\n", MAX_SERVERS, MAX_BOTS);
    return 2;
  }
  setenv("TRESS_SERVER_BIN", TRESS_SERVER_BIN_DEFAULT, 0); /* the built server unless told otherwise */
  setenv("TRESS_SOURCE_DIR", TRESS_SOURCE_DIR_DEFAULT, 0);
  bench_env_print(stdout, "fleet_storm");
  bench_env_print_yardstick(stdout);
  if (!th_redis_server_path()) {
    printf("fleet_storm: redis-server is not installed; nothing measured\n");
    return 0;
  }
  th_redis redis;
  th_redis_init(&redis);
  if (th_redis_start(&redis, NULL) != 0) return 1;
  static th_server fleet[MAX_SERVERS];
  static th_client clients[MAX_SERVERS][MAX_BOTS];
  for (int s = 0; s < servers; s++) {
    th_server_init(&fleet[s], "storm");
    const char *extra[] = {"--cache-url", redis.url, "--max-peers-per-address", "64", NULL};
    if (th_server_start(&fleet[s], extra) != 0) return 1;
  }
  /* clients only once every server is up (an idle ENet client is not serviced: it would time out),
   * each in a room of its own, so a bot sees its own character's BIND only */
  for (int s = 0; s < servers; s++) {
    for (int b = 0; b < bots; b++) {
      char room[32];
      snprintf(room, sizeof room, "storm-%d-%d", s, b);
      if (th_client_connect(&clients[s][b], fleet[s].udp_port) != 0 ||
          th_client_hello_join(&clients[s][b], "storm", room) != 0)
        return 1;
      for (int t = 0; t <= s; t++) /* keep the ones already joined serviced */
        for (int k = 0; k < (t < s ? bots : b); k++) th_client_pump(&clients[t][k], 0);
    }
  }
  const int keys = (int)(sizeof characters / sizeof characters[0]) * VARIANTS;
  double start = now_ms();
  for (int s = 0; s < servers; s++) {
    for (int b = 0; b < bots; b++) {
      int key = (s + b) % keys; /* every key on every server (when bots >= keys) */
      tress_msg spawn;
      if (load_spawn(&spawn, key) != 0) return 1;
      th_client_send(&clients[s][b], &spawn);
      th_spawn_free(&spawn);
    }
  }
  static double bind_ms[MAX_SERVERS * MAX_BOTS];
  int bound = 0, total = servers * bots;
  static bool done[MAX_SERVERS][MAX_BOTS];
  while (bound < total && now_ms() - start < 120000) {
    for (int s = 0; s < servers; s++) {
      for (int b = 0; b < bots; b++) {
        th_client_pump(&clients[s][b], 1);
        if (!done[s][b] && th_client_count(&clients[s][b], TRESS_MSG_BIND) > 0) {
          done[s][b] = true;
          bind_ms[bound++] = now_ms() - start;
        }
      }
    }
  }
  double rigs = 0, hits = 0, waits = 0, local = 0, calls = 0;
  for (int s = 0; s < servers; s++) {
    rigs += stat_of(&fleet[s], "rigs", NULL, "started");
    hits += stat_of(&fleet[s], "cache", "shared", "hits");
    waits += stat_of(&fleet[s], "cache", "shared", "waits");
    local += stat_of(&fleet[s], "cache", "shared", "local_rigs");
    calls += stat_of(&fleet[s], "cache", "shared", "calls");
  }
  qsort(bind_ms, (size_t)bound, sizeof bind_ms[0], cmp_double);
  printf("fleet of %d servers, %d bots each, %d spawns at once over %d distinct rigs: %d bound\n", servers, bots,
         total, keys, bound);
  printf("rigs fleet-wide %.0f, rigs per distinct rig %.2f (single flight: 1.00)\n", rigs, rigs / keys);
  printf("shared hits %.0f, spawns that waited on a lease %.0f, local rigs (no lease) %.0f\n", hits, waits, local);
  if (bound)
    printf("spawn-to-bind: p50 %.0f ms, p99 %.0f ms, last %.0f ms\n", bind_ms[bound / 2],
           bind_ms[(int)((bound - 1) * 0.99)], bind_ms[bound - 1]);
  printf("Redis round trips per spawn: %.2f (%.0f calls for %d spawns, %d handshakes of 1-2 calls and the %d rooms' "
         "lease claims included)\n",
         calls / total, calls, total, servers, total);
  /* A room on server 0 (held open by one member); joiners come in directly or through server 1. */
  if (servers >= 2) {
    static th_client holder;
    enum { JOINS = 9 };
    double direct[JOINS], redirected[JOINS];
    int ok = th_client_connect(&holder, fleet[0].udp_port) == 0 && th_client_hello_join(&holder, "holder", "owned") == 0;
    for (int i = 0; ok && i < JOINS; i++) {
      direct[i] = join_to_bind(fleet[0].udp_port, "owned", 0, false);
      th_client_pump(&holder, 1);
      redirected[i] = join_to_bind(fleet[1].udp_port, "owned", 0, true);
      th_client_pump(&holder, 1);
      ok = direct[i] >= 0 && redirected[i] >= 0;
    }
    if (ok) {
      qsort(direct, JOINS, sizeof direct[0], cmp_double);
      qsort(redirected, JOINS, sizeof redirected[0], cmp_double);
      printf("join-to-bind into a room server 0 owns (connect to BIND, rig a memory hit, %d joins each): direct "
             "median %.1f ms (max %.1f), through server 1 and a REDIRECT median %.1f ms (max %.1f)\n",
             JOINS, direct[JOINS / 2], direct[JOINS - 1], redirected[JOINS / 2], redirected[JOINS - 1]);
    } else {
      printf("join-to-bind with a redirect: a join failed\n");
    }
    th_client_close(&holder);
  }
  for (int s = 0; s < servers; s++) {
    for (int b = 0; b < bots; b++) th_client_close(&clients[s][b]);
    th_server_stop(&fleet[s], SIGTERM, 15000);
    if (!getenv("FLEET_STORM_KEEP")) th_server_cleanup(&fleet[s]);
  }
  /* Then one spawn at a time on a newcomer: every key a shared hit, against a server with no
   * shared tier, where every key is a local miss (a rig). */
  double hit_ms[8], miss_ms[8];
  double hit_calls = 0, miss_calls = 0;
  if (one_by_one(redis.url, keys, hit_ms, &hit_calls) == 0 && one_by_one(NULL, keys, miss_ms, &miss_calls) == 0) {
    qsort(hit_ms, (size_t)keys, sizeof hit_ms[0], cmp_double);
    qsort(miss_ms, (size_t)keys, sizeof miss_ms[0], cmp_double);
    printf("one spawn at a time, %d keys: shared-tier hit spawn-to-bind median %.1f ms (max %.1f), "
           "local miss median %.1f ms (max %.1f)\n",
           keys, hit_ms[keys / 2], hit_ms[keys - 1], miss_ms[keys / 2], miss_ms[keys - 1]);
    printf("Redis round trips per shared-hit spawn: %.2f\n", hit_calls / keys);
  }
  th_redis_cleanup(&redis);
  return bound == total ? 0 : 1;
}
