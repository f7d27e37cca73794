/* Metrics
 * -------
 * The loop thread is the only writer; the HTTP thread (libmicrohttpd's) only reads. Scalars are
 * C11 atomics with relaxed ordering: a scrape may see a counter one event stale, never torn.
 * The room list is a string the loop rebuilds when membership changes and swaps in under a
 * mutex, so the HTTP thread never walks loop-owned structures. */
#include "metrics.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const double tress_rig_latency_bounds[TRESS_RIG_LATENCY_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                                     0.5,   1.0,  2.5,   5.0,  10.0, INFINITY};

void tress_metrics_init(tress_metrics *m) {
  memset(m, 0, sizeof *m);
  pthread_mutex_init(&m->rooms_lock, NULL);
  m->rooms_json = strdup("[]");
  atomic_store(&m->started_unix, (uint64_t)time(NULL));
}

void tress_metrics_destroy(tress_metrics *m) {
  pthread_mutex_destroy(&m->rooms_lock);
  free(m->rooms_json);
  m->rooms_json = NULL;
}

void tress_metrics_observe_rig(tress_metrics *m, double seconds) {
  for (int i = 0; i < TRESS_RIG_LATENCY_BUCKETS; i++)
    if (seconds <= tress_rig_latency_bounds[i]) atomic_fetch_add(&m->rig_latency_buckets[i], 1);
  atomic_fetch_add(&m->rig_latency_count, 1);
  atomic_fetch_add(&m->rig_latency_sum_us, (uint64_t)(seconds * 1e6));
}

void tress_metrics_set_rooms(tress_metrics *m, char *json) {
  if (!json) return;
  pthread_mutex_lock(&m->rooms_lock);
  char *old = m->rooms_json;
  m->rooms_json = json;
  pthread_mutex_unlock(&m->rooms_lock);
  free(old);
}

#define LOAD(x) ((unsigned long long)atomic_load_explicit(&m->x, memory_order_relaxed))

typedef struct text_buf {
  char *data;
  size_t len, cap;
} text_buf;

static void tb_printf(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_printf(text_buf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->data && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
    char *d = realloc(b->data, cap);
    if (!d) return;
    b->data = d;
    b->cap = cap;
  }
}

static void metric(text_buf *b, const char *name, const char *type, const char *help, unsigned long long v) {
  tb_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type, name, v);
}

static void shared_tier_prometheus(text_buf *b, tress_metrics *m) {
  if (!atomic_load(&m->cache_shared_enabled)) return;
  metric(b, "tress_cache_shared_degraded", "gauge", "1 while the shared (Redis) tier is down or refusing writes.",
         LOAD(cache_shared_degraded));
  metric(b, "tress_cache_shared_degraded_total", "counter", "Times the shared tier became degraded.",
         LOAD(cache_shared_degraded_total));
  metric(b, "tress_cache_shared_misses_total", "counter", "Shared misses where this server won the lease and rigged.",
         LOAD(cache_shared_misses));
  metric(b, "tress_cache_shared_waits_total", "counter", "Lookups that waited on another server's lease.",
         LOAD(cache_shared_waits));
  metric(b, "tress_cache_shared_wait_timeouts_total", "counter", "Waits that reached cache_wait_ms and rigged here.",
         LOAD(cache_shared_wait_timeouts));
  metric(b, "tress_cache_shared_local_rigs_total", "counter", "Rigs made without the lease (Redis failing, wait cap).",
         LOAD(cache_shared_local_rigs));
  metric(b, "tress_cache_shared_corrupt_total", "counter", "Shared values that did not verify (rebuilt, overwritten).",
         LOAD(cache_shared_corrupt));
  metric(b, "tress_cache_shared_writes_total", "counter", "Values stored in the shared tier.", LOAD(cache_shared_writes));
  metric(b, "tress_cache_shared_write_failures_total", "counter", "Values the shared tier did not take.",
         LOAD(cache_shared_write_failures));
  metric(b, "tress_cache_shared_errors_total", "counter", "Failed Redis calls and connection attempts.",
         LOAD(cache_shared_errors));
  metric(b, "tress_cache_shared_calls_total", "counter", "Redis calls sent (round trips; handshakes included).",
         LOAD(cache_shared_calls));
  metric(b, "tress_cache_shared_lease_lost_total", "counter", "Leases that expired or were taken while rigging.",
         LOAD(cache_shared_lease_lost));
  metric(b, "tress_room_leases_held", "gauge", "Open rooms this server holds the fleet-wide lease of.",
         LOAD(room_leases_held));
  metric(b, "tress_room_redirects_total", "counter", "Joins answered with the address of the room's owner.",
         LOAD(room_redirects));
  metric(b, "tress_room_local_opens_total", "counter", "Rooms opened without a lease (Redis unreachable: standalone).",
         LOAD(room_local_opens));
  metric(b, "tress_room_leases_lost_total", "counter", "Open rooms whose lease another server held at renewal.",
         LOAD(room_leases_lost));
}

char *tress_metrics_prometheus(tress_metrics *m) {
  text_buf b = {0};
  metric(&b, "tress_peers", "gauge", "Connected ENet peers.", LOAD(peers));
  metric(&b, "tress_rooms", "gauge", "Rooms with at least one member.", LOAD(rooms));
  metric(&b, "tress_characters", "gauge", "Live character sessions.", LOAD(characters));
  metric(&b, "tress_rigs_started_total", "counter", "Rigs run on the thread pool (cache misses).", LOAD(rigs_started));
  metric(&b, "tress_rigs_done_total", "counter", "Rigs that succeeded.", LOAD(rigs_done));
  metric(&b, "tress_rigs_failed_total", "counter", "Rig jobs that failed (load, gate or rigger).", LOAD(rigs_failed));
  metric(&b, "tress_rig_failures_remembered_total", "counter",
         "Rig requests answered from a remembered failure (failed_rig_ttl_ms), no job run.", LOAD(rig_failures_remembered));
  tb_printf(&b, "# HELP tress_rig_failures_total Accessories that fell back to a pendulum because their rig failed, "
               "by reason.\n# TYPE tress_rig_failures_total counter\n");
  for (int code = 1; code < TRESS_CODE_COUNT; code++) {
    unsigned long long n = LOAD(rig_failures[code]);
    if (!n && code != TRESS_CODE_RIG_FAILED) continue; /* one series always, the rest once seen */
    char reason[32];
    snprintf(reason, sizeof reason, "%s", tress_wire_code_name((tress_wire_code)code));
    for (char *c = reason; *c; c++) *c = (char)tolower((unsigned char)*c);
    tb_printf(&b, "tress_rig_failures_total{reason=\"%s\"} %llu\n", reason, n);
  }
  metric(&b, "tress_rigs_cancelled_total", "counter", "Queued rig jobs cancelled by shutdown.", LOAD(rigs_cancelled));
  metric(&b, "tress_rig_jobs_in_flight", "gauge", "Rig jobs queued or running.", LOAD(rig_jobs_in_flight));
  metric(&b, "tress_rig_jobs_waiting", "gauge", "Rig jobs in the fair queue, waiting for a worker.",
         LOAD(rig_jobs_waiting));
  tb_printf(&b, "# HELP tress_cache_hits_total Rig cache hits by tier.\n# TYPE tress_cache_hits_total counter\n");
  tb_printf(&b, "tress_cache_hits_total{tier=\"memory\"} %llu\n", LOAD(cache_hits_memory));
  tb_printf(&b, "tress_cache_hits_total{tier=\"disk\"} %llu\n", LOAD(cache_hits_disk));
  tb_printf(&b, "tress_cache_hits_total{tier=\"shared\"} %llu\n", LOAD(cache_hits_shared));
  metric(&b, "tress_cache_misses_total", "counter", "Rig cache misses (a rig was needed).", LOAD(cache_misses));
  metric(&b, "tress_cache_corrupt_total", "counter", "Cache files that failed their checksum or decode.", LOAD(cache_corrupt));
  metric(&b, "tress_cache_evictions_total", "counter", "Entries evicted from memory by the byte budget.", LOAD(cache_evictions));
  metric(&b, "tress_cache_entries", "gauge", "Rig cache entries in memory.", LOAD(cache_entries));
  metric(&b, "tress_cache_bytes", "gauge", "Rig cache bytes in memory (pinned ones included).", LOAD(cache_bytes));
  metric(&b, "tress_cache_disk_bytes", "gauge", "Rig cache bytes on disk.", LOAD(cache_disk_bytes));
  metric(&b, "tress_cache_disk_evictions_total", "counter", "Rig cache files deleted for the disk budget.",
         LOAD(cache_disk_evictions));
  metric(&b, "tress_cache_pinned_bytes", "gauge", "Rig cache bytes live characters wear (never evicted).",
         LOAD(cache_pinned_bytes));
  metric(&b, "tress_cache_disk_writes_total", "counter", "Cache files written (atomically).", LOAD(cache_disk_writes));
  shared_tier_prometheus(&b, m);
  metric(&b, "tress_bytes_in_total", "counter", "Application bytes received.", LOAD(bytes_in));
  metric(&b, "tress_bytes_out_total", "counter", "Application bytes sent (per recipient).", LOAD(bytes_out));
  metric(&b, "tress_messages_in_total", "counter", "Messages received.", LOAD(messages_in));
  metric(&b, "tress_messages_out_total", "counter", "Messages sent (per recipient).", LOAD(messages_out));
  metric(&b, "tress_messages_encoded_total", "counter", "Packets encoded (one goes to every recipient of it).",
         LOAD(messages_encoded));
  metric(&b, "tress_peer_queued_bytes_max", "gauge",
         "Largest unacknowledged bytes one peer had queued after a send (max_peer_queued_bytes bounds replays).",
         LOAD(peer_queued_bytes_max));
  metric(&b, "tress_errors_sent_total", "counter", "ERROR messages sent.", LOAD(errors_sent));
  metric(&b, "tress_malformed_total", "counter", "Messages that failed to decode.", LOAD(malformed));
  metric(&b, "tress_rate_limited_total", "counter", "Messages dropped by per-peer rate limits.", LOAD(rate_limited));
  metric(&b, "tress_auth_refused_total", "counter", "Connections refused for their auth or join token.", LOAD(auth_refused));
  metric(&b, "tress_disconnects_forced_total", "counter", "Peers disconnected for misbehaving.", LOAD(disconnects_forced));
  tb_printf(&b, "# HELP tress_rig_latency_seconds Rig job time, queue to result, cache misses only.\n"
                "# TYPE tress_rig_latency_seconds histogram\n");
  for (int i = 0; i < TRESS_RIG_LATENCY_BUCKETS; i++) {
    if (isinf(tress_rig_latency_bounds[i]))
      tb_printf(&b, "tress_rig_latency_seconds_bucket{le=\"+Inf\"} %llu\n", LOAD(rig_latency_buckets[i]));
    else
      tb_printf(&b, "tress_rig_latency_seconds_bucket{le=\"%g\"} %llu\n", tress_rig_latency_bounds[i],
                LOAD(rig_latency_buckets[i]));
  }
  tb_printf(&b, "tress_rig_latency_seconds_sum %.6f\ntress_rig_latency_seconds_count %llu\n",
            (double)LOAD(rig_latency_sum_us) / 1e6, LOAD(rig_latency_count));
  metric(&b, "tress_http_header_timeouts_total", "counter",
         "Ops HTTP requests cut because their header was not complete within http_header_timeout_ms.",
         LOAD(http_header_timeouts));
  metric(&b, "tress_ready", "gauge", "1 when serving, 0 while starting or draining.",
         atomic_load(&m->ready) && !atomic_load(&m->draining));
  return b.data;
}

static void shared_tier_json(cJSON *o, tress_metrics *m) {
  cJSON_AddBoolToObject(o, "enabled", atomic_load(&m->cache_shared_enabled));
  cJSON_AddBoolToObject(o, "degraded", LOAD(cache_shared_degraded) != 0);
  cJSON_AddNumberToObject(o, "degraded_total", (double)LOAD(cache_shared_degraded_total));
  cJSON_AddNumberToObject(o, "hits", (double)LOAD(cache_hits_shared));
  cJSON_AddNumberToObject(o, "misses", (double)LOAD(cache_shared_misses));
  cJSON_AddNumberToObject(o, "waits", (double)LOAD(cache_shared_waits));
  cJSON_AddNumberToObject(o, "wait_timeouts", (double)LOAD(cache_shared_wait_timeouts));
  cJSON_AddNumberToObject(o, "local_rigs", (double)LOAD(cache_shared_local_rigs));
  cJSON_AddNumberToObject(o, "corrupt", (double)LOAD(cache_shared_corrupt));
  cJSON_AddNumberToObject(o, "writes", (double)LOAD(cache_shared_writes));
  cJSON_AddNumberToObject(o, "write_failures", (double)LOAD(cache_shared_write_failures));
  cJSON_AddNumberToObject(o, "errors", (double)LOAD(cache_shared_errors));
  cJSON_AddNumberToObject(o, "lease_lost", (double)LOAD(cache_shared_lease_lost));
  cJSON_AddNumberToObject(o, "calls", (double)LOAD(cache_shared_calls));
}

static void room_leases_json(cJSON *o, tress_metrics *m) {
  cJSON_AddNumberToObject(o, "held", (double)LOAD(room_leases_held));
  cJSON_AddNumberToObject(o, "redirects", (double)LOAD(room_redirects));
  cJSON_AddNumberToObject(o, "local_opens", (double)LOAD(room_local_opens));
  cJSON_AddNumberToObject(o, "lost", (double)LOAD(room_leases_lost));
}

char *tress_metrics_stats_json(tress_metrics *m, bool with_room_names) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddNumberToObject(root, "uptime_s", (double)((uint64_t)time(NULL) - LOAD(started_unix)));
  cJSON_AddBoolToObject(root, "ready", atomic_load(&m->ready) && !atomic_load(&m->draining));
  cJSON_AddBoolToObject(root, "draining", atomic_load(&m->draining));
  cJSON_AddNumberToObject(root, "peers", (double)LOAD(peers));
  cJSON_AddNumberToObject(root, "rooms", (double)LOAD(rooms));
  cJSON_AddNumberToObject(root, "characters", (double)LOAD(characters));
  cJSON *rigs = cJSON_AddObjectToObject(root, "rigs");
  cJSON_AddNumberToObject(rigs, "started", (double)LOAD(rigs_started));
  cJSON_AddNumberToObject(rigs, "done", (double)LOAD(rigs_done));
  cJSON_AddNumberToObject(rigs, "failed", (double)LOAD(rigs_failed));
  cJSON_AddNumberToObject(rigs, "failures_remembered", (double)LOAD(rig_failures_remembered));
  cJSON_AddNumberToObject(rigs, "cancelled", (double)LOAD(rigs_cancelled));
  cJSON_AddNumberToObject(rigs, "in_flight", (double)LOAD(rig_jobs_in_flight));
  cJSON_AddNumberToObject(rigs, "waiting", (double)LOAD(rig_jobs_waiting));
  uint64_t count = LOAD(rig_latency_count);
  cJSON_AddNumberToObject(rigs, "mean_latency_s", count ? (double)LOAD(rig_latency_sum_us) / 1e6 / (double)count : 0);
  cJSON *cache = cJSON_AddObjectToObject(root, "cache");
  cJSON_AddNumberToObject(cache, "hits_memory", (double)LOAD(cache_hits_memory));
  cJSON_AddNumberToObject(cache, "hits_disk", (double)LOAD(cache_hits_disk));
  cJSON_AddNumberToObject(cache, "hits_shared", (double)LOAD(cache_hits_shared));
  cJSON_AddNumberToObject(cache, "misses", (double)LOAD(cache_misses));
  cJSON_AddNumberToObject(cache, "corrupt", (double)LOAD(cache_corrupt));
  cJSON_AddNumberToObject(cache, "evictions", (double)LOAD(cache_evictions));
  cJSON_AddNumberToObject(cache, "entries", (double)LOAD(cache_entries));
  cJSON_AddNumberToObject(cache, "bytes", (double)LOAD(cache_bytes));
  cJSON_AddNumberToObject(cache, "pinned_bytes", (double)LOAD(cache_pinned_bytes));
  cJSON_AddNumberToObject(cache, "disk_bytes", (double)LOAD(cache_disk_bytes));
  shared_tier_json(cJSON_AddObjectToObject(cache, "shared"), m);
  room_leases_json(cJSON_AddObjectToObject(root, "room_leases"), m);
  cJSON *net = cJSON_AddObjectToObject(root, "net");
  cJSON_AddNumberToObject(net, "bytes_in", (double)LOAD(bytes_in));
  cJSON_AddNumberToObject(net, "bytes_out", (double)LOAD(bytes_out));
  cJSON_AddNumberToObject(net, "messages_in", (double)LOAD(messages_in));
  cJSON_AddNumberToObject(net, "messages_out", (double)LOAD(messages_out));
  cJSON_AddNumberToObject(net, "messages_encoded", (double)LOAD(messages_encoded));
  cJSON_AddNumberToObject(net, "peer_queued_bytes_max", (double)LOAD(peer_queued_bytes_max));
  cJSON_AddNumberToObject(net, "errors_sent", (double)LOAD(errors_sent));
  cJSON_AddNumberToObject(net, "malformed", (double)LOAD(malformed));
  cJSON_AddNumberToObject(net, "rate_limited", (double)LOAD(rate_limited));
  cJSON_AddNumberToObject(net, "disconnects_forced", (double)LOAD(disconnects_forced));
  if (with_room_names) {
    pthread_mutex_lock(&m->rooms_lock);
    cJSON *rooms = cJSON_Parse(m->rooms_json ? m->rooms_json : "[]");
    pthread_mutex_unlock(&m->rooms_lock);
    cJSON_AddItemToObject(root, "room_list", rooms ? rooms : cJSON_CreateArray());
  }
  char *s = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  return s;
}
