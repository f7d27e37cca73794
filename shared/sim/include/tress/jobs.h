/* tress/jobs.h - the game's job system as tress sees it: one fork-join callback pair (Box2D v3's
 * enqueueTask / finishTask, Jolt's JobSystem in spirit) that a sim and the hair manager share. */
#ifndef TRESS_JOBS_H
#define TRESS_JOBS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most workers tress keeps scratch for (as Box2D's B2_MAX_WORKERS). */
#define TRESS_JOBS_MAX_WORKERS 64

/* One range of a task: items [start, end), run by worker `worker` (< worker_count). */
typedef void tress_task_fn(uint32_t start, uint32_t end, uint32_t worker, void *context);
/* Runs task over [0, item_count) and returns a handle for finish_task, or NULL when every range
 * already ran before it returned (inline). */
typedef void *(*tress_enqueue_task_fn)(tress_task_fn *task, uint32_t item_count, uint32_t min_range, void *context,
                                       void *user);
/* Returns once every range of the task enqueue_task returned has run. */
typedef void (*tress_finish_task_fn)(void *task, void *user);

/*
 * The contract. tress creates no thread: every parallel piece of work goes through these.
 * - worker_count (1..TRESS_JOBS_MAX_WORKERS) is how many distinct worker indices the host
 *   passes. tress keeps one set of scratch per index, made when the sim is created (and grown
 *   with the chains at binds), never during a frame; so the host must never run two ranges at
 *   once with the same index. The thread that calls tress (the game thread) may run ranges
 *   too, under an index of its own.
 * - enqueue_task splits [0, item_count) into disjoint ranges of at least min_range items (the
 *   last may be shorter; one range of everything is fine), runs each exactly once on any of
 *   its workers and returns. It is called only on the thread that called tress
 *   (tress_sim_step), never from inside a task, and finish_task follows before the next
 *   enqueue: one task is in flight at a time, so a host with a plain queue cannot deadlock.
 * - Results never depend on the split, on which worker runs a range or in what order: every
 *   range writes only its own items and its worker's scratch. One worker, two or sixty-four
 *   give the same bits.
 * - enqueue_task NULL (the default): everything runs inline on the calling thread as worker 0,
 *   whatever worker_count says.
 * - Callbacks the game gives tress for per-item work (a rope's raycast) are called from the
 *   workers, for different items at once, when the jobs are set.
 */
typedef struct tress_jobs {
  tress_enqueue_task_fn enqueue_task; /* NULL: inline, one worker */
  tress_finish_task_fn finish_task;
  void *user;            /* passed to both */
  uint32_t worker_count; /* 1: worker indices the host uses, 0..worker_count - 1 */
} tress_jobs;

#ifdef __cplusplus
}
#endif

#endif
