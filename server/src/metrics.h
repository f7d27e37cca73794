/* metrics.h - the server's counters and gauges, written by the loop thread and read by the HTTP
 * thread: every field is an atomic, and the one non-scalar (the room list) sits behind a mutex. */
#ifndef TRESS_SERVER_METRICS_H
#define TRESS_SERVER_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tress/msg.h" /* TRESS_CODE_COUNT */

#define TRESS_RIG_LATENCY_BUCKETS 12

typedef struct tress_metrics {
  atomic_uint_fast64_t peers, rooms, characters; /* gauges */
  atomic_uint_fast64_t rigs_started, rigs_done, rigs_failed, rigs_cancelled, rig_jobs_in_flight;
  atomic_uint_fast64_t rig_jobs_waiting; /* gauge: in the fair queue, not yet on the pool */
  atomic_uint_fast64_t rig_failures_remembered; /* requests answered from a remembered failure */
  /* Accessories whose rig a character session gave up on (RIG_FAILED sent), by wire code. */
  atomic_uint_fast64_t rig_failures[TRESS_CODE_COUNT];
  atomic_uint_fast64_t cache_hits_memory, cache_hits_disk, cache_misses, cache_corrupt, cache_evictions;
  atomic_uint_fast64_t cache_entries, cache_bytes, cache_disk_writes;
  atomic_uint_fast64_t cache_disk_bytes, cache_disk_evictions; /* the disk tier under cache_disk_bytes */
  atomic_uint_fast64_t cache_pinned_bytes; /* of cache_bytes: entries live characters wear */
  /* The shared tier (cache_url; rig_shared.c): hits, lease won (misses), waits on another
   * server's lease and waits that hit the cap, values that did not verify, writes and refused
   * writes, failed calls, the degraded gauge and how often it rose, leases lost mid-rig, and
   * rigs made without a lease (Redis failing or the wait cap). */
  atomic_bool cache_shared_enabled;
  atomic_uint_fast64_t cache_hits_shared, cache_shared_misses, cache_shared_waits, cache_shared_wait_timeouts;
  atomic_uint_fast64_t cache_shared_corrupt, cache_shared_writes, cache_shared_write_failures, cache_shared_errors;
  atomic_uint_fast64_t cache_shared_degraded, cache_shared_degraded_total, cache_shared_lease_lost;
  atomic_uint_fast64_t cache_shared_local_rigs, cache_shared_calls; /* calls: Redis round trips sent */
  /* Room leases (room_lease.c, with cache_url): rooms held under a lease (gauge), JOIN_ROOMs
   * answered with the owner's address, rooms opened without a lease (Redis down: standalone),
   * leases found held by another server while this one had the room open. */
  atomic_uint_fast64_t room_leases_held, room_redirects, room_local_opens, room_leases_lost;
  atomic_uint_fast64_t bytes_in, bytes_out, messages_in, messages_out;
  atomic_uint_fast64_t messages_encoded; /* packets encoded (one may go to many peers) */
  atomic_uint_fast64_t peer_queued_bytes_max; /* gauge: the most one peer had unacknowledged after a send */
  atomic_uint_fast64_t errors_sent, malformed, rate_limited, disconnects_forced;
  atomic_uint_fast64_t auth_refused; /* HELLOs and JOINs refused for their token */
  atomic_uint_fast64_t rig_latency_buckets[TRESS_RIG_LATENCY_BUCKETS]; /* cumulative le buckets */
  atomic_uint_fast64_t rig_latency_count, rig_latency_sum_us;
  atomic_bool ready, draining;
  /* CLOCK_MONOTONIC ms at the loop thread's last iteration (heartbeat.c); /healthz reads its age. */
  atomic_uint_fast64_t loop_heartbeat_ms;
  atomic_uint_fast64_t http_header_timeouts; /* written by the HTTP side: requests cut by http_header_timeout_ms */
  atomic_uint_fast64_t started_unix;
  pthread_mutex_t rooms_lock;
  char *rooms_json; /* "[{...},...]", rebuilt by the loop when rooms change */
} tress_metrics;

extern const double tress_rig_latency_bounds[TRESS_RIG_LATENCY_BUCKETS]; /* seconds; last is +Inf */

void tress_metrics_init(tress_metrics *m);
void tress_metrics_destroy(tress_metrics *m);
void tress_metrics_observe_rig(tress_metrics *m, double seconds);
/* Takes ownership of json (malloc'd). */
void tress_metrics_set_rooms(tress_metrics *m, char *json);
/* Prometheus text exposition / the /stats JSON; malloc'd strings. The room list (names, members,
 * characters per room) is in the JSON only with_room_names (the caller showed the ops token). */
char *tress_metrics_prometheus(tress_metrics *m);
char *tress_metrics_stats_json(tress_metrics *m, bool with_room_names);

#endif
