/* HTTP header deadline
 * --------------------
 * A fixed table of watched connections under one mutex, filled and emptied from libmicrohttpd's
 * connection notifications and scanned by one watchdog thread. The watchdog never closes a
 * socket, it only shuts it down: libmicrohttpd then reads end-of-file and closes the connection
 * itself, on its own thread. A slot is forgotten (under the mutex) before libmicrohttpd closes
 * the descriptor, so the watchdog can never shut down a descriptor that has been reused. */
#include "http_deadline.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

struct tress_http_deadline_slot {
  int fd;
  bool used, header_done, cut;
  uint64_t accepted_ms;
};

struct tress_http_deadlines {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* on CLOCK_MONOTONIC; signalled by stop */
  pthread_t watchdog;
  bool stopping;
  uint32_t header_timeout_ms, scan_period_ms;
  atomic_uint_fast64_t *cut_count;
  uint32_t capacity;
  tress_http_deadline_slot *slots;
};

static uint64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

static void cut_overdue(tress_http_deadlines *d, uint64_t now) {
  for (uint32_t i = 0; i < d->capacity; i++) {
    tress_http_deadline_slot *slot = &d->slots[i];
    if (!slot->used || slot->header_done || slot->cut || now - slot->accepted_ms < d->header_timeout_ms) continue;
    shutdown(slot->fd, SHUT_RDWR);
    slot->cut = true;
    atomic_fetch_add_explicit(d->cut_count, 1, memory_order_relaxed);
  }
}

static void *watchdog_main(void *arg) {
  tress_http_deadlines *d = arg;
  pthread_mutex_lock(&d->lock);
  while (!d->stopping) {
    cut_overdue(d, monotonic_ms());
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += (long)d->scan_period_ms * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&d->wake, &d->lock, &until);
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

static void release(tress_http_deadlines *d) {
  pthread_cond_destroy(&d->wake);
  pthread_mutex_destroy(&d->lock);
  free(d->slots);
  free(d);
}

tress_http_deadlines *tress_http_deadlines_start(uint32_t capacity, uint32_t header_timeout_ms,
                                                 atomic_uint_fast64_t *cut_count) {
  tress_http_deadlines *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->slots = calloc(capacity, sizeof *d->slots);
  d->capacity = capacity;
  d->header_timeout_ms = header_timeout_ms;
  /* A cut lands within a tenth of the deadline (10..100 ms) of it. */
  d->scan_period_ms = header_timeout_ms / 10 < 10 ? 10 : header_timeout_ms / 10 > 100 ? 100 : header_timeout_ms / 10;
  d->cut_count = cut_count;
  pthread_mutex_init(&d->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&d->wake, &attr);
  pthread_condattr_destroy(&attr);
  if (!d->slots || pthread_create(&d->watchdog, NULL, watchdog_main, d) != 0) {
    release(d);
    return NULL;
  }
  return d;
}

void tress_http_deadlines_stop(tress_http_deadlines *d) {
  if (!d) return;
  pthread_mutex_lock(&d->lock);
  d->stopping = true;
  pthread_cond_signal(&d->wake);
  pthread_mutex_unlock(&d->lock);
  pthread_join(d->watchdog, NULL);
  release(d);
}

tress_http_deadline_slot *tress_http_deadlines_watch(tress_http_deadlines *d, int fd) {
  tress_http_deadline_slot *found = NULL;
  pthread_mutex_lock(&d->lock);
  for (uint32_t i = 0; i < d->capacity && !found; i++) {
    if (d->slots[i].used) continue;
    found = &d->slots[i];
    *found = (tress_http_deadline_slot){.fd = fd, .used = true, .accepted_ms = monotonic_ms()};
  }
  pthread_mutex_unlock(&d->lock);
  return found;
}

void tress_http_deadlines_header_done(tress_http_deadlines *d, tress_http_deadline_slot *slot) {
  if (!slot) return;
  pthread_mutex_lock(&d->lock);
  slot->header_done = true;
  pthread_mutex_unlock(&d->lock);
}

void tress_http_deadlines_forget(tress_http_deadlines *d, tress_http_deadline_slot *slot) {
  if (!slot) return;
  pthread_mutex_lock(&d->lock);
  slot->used = false;
  pthread_mutex_unlock(&d->lock);
}
