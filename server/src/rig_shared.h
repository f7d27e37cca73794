/* rig_shared.h - the rig cache's third tier, shared by a fleet of servers through Redis: a lookup
 * that either finds the rig, wins a lease to make it, or waits for whoever holds the lease; and
 * the store + release after a rig. Loop thread only. */
#ifndef TRESS_SERVER_RIG_SHARED_H
#define TRESS_SERVER_RIG_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "log.h"
#include "metrics.h"
#include "redis_link.h"
#include "rig_cache.h"

typedef struct tress_rig_shared_config {
  tress_redis_url url;
  char namespace_[64];  /* key prefix: "<namespace>:rig:<format>:<hex key>" */
  uint32_t timeout_ms;  /* every Redis call's deadline */
  uint32_t lease_ms;    /* the single-flight lease (renewed every lease_ms / 3 while rigging) */
  uint32_t wait_ms;     /* how long a server waits on another's lease before rigging itself */
  uint32_t poll_ms;     /* mean interval between a waiter's looks (jittered 0.5x..1.5x) */
} tress_rig_shared_config;

typedef enum tress_shared_outcome {
  TRESS_SHARED_VALUE,      /* a stored value (not yet verified): parse it */
  TRESS_SHARED_RIG_LEASED, /* this server holds the lease: rig, then tress_rig_shared_end stores */
  TRESS_SHARED_RIG_LOCAL,  /* no lease (Redis failed, or the wait cap passed): rig anyway */
} tress_shared_outcome;

/* value/len: TRESS_SHARED_VALUE only, valid during the call. why: RIG_LOCAL's reason. */
typedef void (*tress_shared_done_fn)(void *owner, tress_shared_outcome outcome, const uint8_t *value, size_t len,
                                     const char *why);

typedef enum tress_flight_state { FLIGHT_IDLE = 0, FLIGHT_ASKING, FLIGHT_WAITING, FLIGHT_LEASED } tress_flight_state;

typedef struct tress_shared_flight {
  struct tress_shared_flight *next; /* the tier's list of live flights */
  struct tress_rig_shared *tier;
  tress_flight_state state;
  char value_key[160], lock_key[168];
  char token[64]; /* this flight's lease value: "pid=<pid> id=<random>" */
  tress_shared_done_fn done;
  void *owner;
  tress_redis_call *call;          /* the one outstanding get-or-lease, if any */
  uint64_t wait_until_ms, next_ms; /* WAITING: the cap and the next look; LEASED: the next renewal */
  bool waited;
} tress_shared_flight;

typedef struct tress_rig_shared {
  uv_loop_t *loop;
  tress_rig_shared_config cfg;
  const tress_log *log;
  tress_metrics *metrics;
  tress_redis_link *link;
  uv_timer_t tick; /* waiters' looks and lease renewals */
  tress_shared_flight *flights;
  uint64_t flight_serial;
} tress_rig_shared;

/* Heap tier (tress_rig_shared_stop frees it), connecting at once; NULL when out of memory. */
tress_rig_shared *tress_rig_shared_start(uv_loop_t *loop, const tress_rig_shared_config *cfg, const tress_log *log,
                                         tress_metrics *metrics);
/* Every flight must have ended. Closes the link and the tier's handles. */
void tress_rig_shared_stop(tress_rig_shared *tier);

/* Starts the lookup of key. false: the tier cannot answer now (Redis down): rig locally, the
 * flight is not started. true: done is called exactly once, later, never from inside this call. */
bool tress_rig_shared_begin(tress_rig_shared *tier, tress_shared_flight *f, const uint8_t key[TRESS_RIG_KEY_BYTES],
                            tress_shared_done_fn done, void *owner);
/* Ends a started flight (done may not have been called yet: a cancel): stores value (when
 * non-NULL) and then releases the lease if the flight holds it, in that order on one connection,
 * so a waiter never sees the lease gone before the value is there. Fire and forget. */
void tress_rig_shared_end(tress_shared_flight *f, const uint8_t *value, size_t len);

/* The tier's Redis connection, which room leases (room_lease.h) share: one link, one degraded gauge. */
tress_redis_link *tress_rig_shared_link(tress_rig_shared *tier);

/* "<namespace>:rig:<format>:<64 hex>" (the value; the lease adds ":lease"). */
void tress_rig_shared_value_key(const char *namespace_, const uint8_t key[TRESS_RIG_KEY_BYTES], char *out, size_t cap);

#endif
