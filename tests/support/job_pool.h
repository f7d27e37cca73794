/* job_pool.h - a small real thread pool behind tress_jobs (tress/jobs.h), for tests and bench/:
 * what a game's job system does, in the fewest lines that are still honest about threads.
 *
 * Header-only (static inline) so a test stays one translation unit; bench/ includes it too.
 * worker_count - 1 pthreads wait for tasks; the calling thread is worker 0 and runs ranges itself
 * inside finish_task. A task is cut into ranges of at least min_range items (about four per
 * worker, so a slow range does not hold the others up) that every thread pulls from one atomic
 * cursor: which worker runs which range changes from run to run, as with a real scheduler,
 * which is what the bit-identity tests need to see. One task at a time, as the contract
 * promises. This is test and bench code: the library never creates a thread.
 *
 * As a game's job system does, it keeps the hand-off off the caller's path: a thread that
 * finished a task polls for the next one for a while (JOB_POOL_SPIN) before it sleeps, and
 * finish_task waits for the ranges still running, never for a thread that has not woken yet
 * (with a sleeping pool thread, a task smaller than its wake-up would otherwise cost the caller
 * that whole wake-up). The cursor carries the task's generation in its high half, so a thread
 * that wakes late takes no range of a task it did not read. */
#ifndef TRESS_TEST_JOB_POOL_H
#define TRESS_TEST_JOB_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tress/jobs.h"

#define JOB_POOL_MAX 16
#define JOB_POOL_SPIN 4096 /* polls (each a CPU pause) before a pool thread sleeps */

typedef struct job_pool job_pool;

typedef struct job_pool_thread {
  job_pool *pool;
  uint32_t index; /* worker index, 1.. */
  pthread_t thread;
} job_pool_thread;

struct job_pool {
  uint32_t workers; /* the calling thread included */
  job_pool_thread threads[JOB_POOL_MAX];
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  bool quit;       /* under mu */
  atomic_bool stop; /* quit, for the polling threads */
  /* the task in flight: written under mu, then its generation published */
  tress_task_fn *task;
  void *context;
  uint32_t count, range;
  atomic_uint generation;         /* bumped per task */
  atomic_uint_fast64_t cursor;    /* generation << 32 | first item of the next range */
  atomic_uint finished;           /* items of the current task run */
  atomic_long ranges_on_threads;  /* ranges run by pool threads, not the caller: proof of work */
  atomic_long ranges;             /* every range run, the caller's included */
  atomic_long tasks;
};

static inline void job_pool_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Runs ranges of task `generation` (count items, range apiece) until none is left; returns how
 * many it ran. A cursor of another generation means that task is over: nothing to take. */
static inline long job_pool_drain(job_pool *p, uint32_t worker, uint32_t generation, tress_task_fn *task,
                                  void *context, uint32_t count, uint32_t range) {
  long ran = 0;
  uint_fast64_t cur = atomic_load(&p->cursor);
  for (;;) {
    uint32_t start = (uint32_t)cur;
    if ((uint32_t)(cur >> 32) != generation || start >= count) return ran;
    uint32_t end = count - start < range ? count : start + range;
    uint_fast64_t next = (uint_fast64_t)generation << 32 | end;
    if (!atomic_compare_exchange_weak(&p->cursor, &cur, next)) continue; /* cur reloaded */
    task(start, end, worker, context);
    atomic_fetch_add(&p->ranges, 1);
    ran++;
    if (atomic_fetch_add(&p->finished, end - start) + (end - start) == count) {
      pthread_mutex_lock(&p->mu); /* the caller may be about to wait: signal under the lock */
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->mu);
    }
    cur = atomic_load(&p->cursor);
  }
}

static inline void *job_pool_main(void *arg) {
  job_pool_thread *t = arg;
  job_pool *p = t->pool;
  uint32_t seen = 0;
  for (;;) {
    for (int i = 0; i < JOB_POOL_SPIN && atomic_load(&p->generation) == seen && !atomic_load(&p->stop); i++)
      job_pool_pause();
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->generation) == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
    if (p->quit) break;
    seen = atomic_load(&p->generation);
    tress_task_fn *task = p->task;
    void *context = p->context;
    uint32_t count = p->count, range = p->range;
    pthread_mutex_unlock(&p->mu);
    long ran = job_pool_drain(p, t->index, seen, task, context, count, range);
    atomic_fetch_add(&p->ranges_on_threads, ran);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static inline void *job_pool_enqueue(tress_task_fn *task, uint32_t count, uint32_t min_range, void *context,
                                     void *user) {
  job_pool *p = user;
  uint32_t range = (count + 4 * p->workers - 1) / (4 * p->workers);
  if (range < min_range) range = min_range;
  if (range < 1) range = 1;
  pthread_mutex_lock(&p->mu);
  p->task = task;
  p->context = context;
  p->count = count;
  p->range = range;
  uint32_t generation = atomic_load(&p->generation) + 1;
  atomic_store(&p->finished, 0);
  atomic_store(&p->cursor, (uint_fast64_t)generation << 32);
  atomic_store(&p->generation, generation);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  atomic_fetch_add(&p->tasks, 1);
  return p;
}

static inline void job_pool_finish(void *task, void *user) {
  job_pool *p = user;
  (void)task;
  /* the caller is worker 0; the fields are its own writes */
  job_pool_drain(p, 0, atomic_load(&p->generation), p->task, p->context, p->count, p->range);
  for (int i = 0; i < JOB_POOL_SPIN && atomic_load(&p->finished) < p->count; i++) job_pool_pause();
  pthread_mutex_lock(&p->mu);
  while (atomic_load(&p->finished) < p->count) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

/* workers in [1, JOB_POOL_MAX], the calling thread included. NULL when a thread cannot start. */
static inline job_pool *job_pool_create(uint32_t workers) {
  if (workers < 1 || workers > JOB_POOL_MAX) return NULL;
  job_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->workers = workers;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
  for (uint32_t i = 1; i < workers; i++) {
    p->threads[i] = (job_pool_thread){.pool = p, .index = i};
    if (pthread_create(&p->threads[i].thread, NULL, job_pool_main, &p->threads[i]) != 0) {
      p->workers = i; /* join the ones that started */
      pthread_mutex_lock(&p->mu);
      p->quit = true;
      atomic_store(&p->stop, true);
      pthread_cond_broadcast(&p->go);
      pthread_mutex_unlock(&p->mu);
      for (uint32_t k = 1; k < i; k++) pthread_join(p->threads[k].thread, NULL);
      free(p);
      return NULL;
    }
  }
  return p;
}

static inline void job_pool_destroy(job_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = true;
  atomic_store(&p->stop, true);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t i = 1; i < p->workers; i++) pthread_join(p->threads[i].thread, NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  free(p);
}

/* The interface a sim def or hair manager def takes. NULL pool: the zeros (inline). */
static inline tress_jobs job_pool_jobs(job_pool *p) {
  tress_jobs j = {0};
  if (!p) return j;
  j.enqueue_task = job_pool_enqueue;
  j.finish_task = job_pool_finish;
  j.user = p;
  j.worker_count = p->workers;
  return j;
}

#endif
