/* job_pool.h - a small real thread pool behind tress_jobs (tress/jobs.h), for tests and bench/:
 * what a game's job system does, in the fewest lines that are still honest about threads.
 *
 * Header-only (static inline) so a test stays one translation unit; bench/ includes it too.
 * worker_count - 1 pthreads wait on a condition variable; the calling thread is worker 0 and
 * runs ranges itself inside finish_task. A task is cut into ranges of at least min_range items
 * (about four per worker, so a slow range does not hold the others up) that every thread pulls
 * from one atomic counter: which worker runs which range changes from run to run, as with a
 * real scheduler, which is what the bit-identity tests need to see. One task at a time, as the
 * contract promises. This is test and bench code: the library never creates a thread. */
#ifndef TRESS_TEST_JOB_POOL_H
#define TRESS_TEST_JOB_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tress/jobs.h"

#define JOB_POOL_MAX 16

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
  uint64_t generation; /* bumped per task: a waiting thread wakes once per task */
  uint32_t busy;       /* pool threads still inside the current task */
  bool quit;
  /* the task in flight */
  tress_task_fn *task;
  void *context;
  uint32_t count, range;
  atomic_uint next;               /* first item of the next range to hand out */
  atomic_long ranges_on_threads;  /* ranges run by pool threads, not the caller: proof of work */
  atomic_long ranges;             /* every range run, the caller's included */
  atomic_long tasks;
};

/* Runs ranges of the current task until none is left; returns how many it ran. */
static inline long job_pool_drain(job_pool *p, uint32_t worker) {
  long ran = 0;
  for (;;) {
    uint32_t start = atomic_fetch_add(&p->next, p->range);
    if (start >= p->count) return ran;
    uint32_t end = p->count - start < p->range ? p->count : start + p->range;
    p->task(start, end, worker, p->context);
    atomic_fetch_add(&p->ranges, 1);
    ran++;
  }
}

static inline void *job_pool_main(void *arg) {
  job_pool_thread *t = arg;
  job_pool *p = t->pool;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->generation == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
    if (p->quit) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    long ran = job_pool_drain(p, t->index);
    atomic_fetch_add(&p->ranges_on_threads, ran);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
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
  atomic_store(&p->next, 0);
  p->busy = p->workers - 1;
  p->generation++;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  atomic_fetch_add(&p->tasks, 1);
  return p;
}

static inline void job_pool_finish(void *task, void *user) {
  job_pool *p = user;
  (void)task;
  job_pool_drain(p, 0); /* the caller is worker 0 */
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
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
