/* jobs.c - how the sim hands work to the game's job system (tress/jobs.h): one fork-join call,
 * inline when the game gave none. */
#include "sim_internal.h"

uint32_t tress__jobs_worker_count(const tress_jobs *jobs) {
  if (!jobs || !jobs->enqueue_task || !jobs->finish_task || jobs->worker_count < 1) return 1;
  return jobs->worker_count > TRESS_JOBS_MAX_WORKERS ? TRESS_JOBS_MAX_WORKERS : jobs->worker_count;
}

void tress__jobs_run(const tress_jobs *jobs, tress_task_fn *fn, uint32_t count, uint32_t min_range, void *context) {
  if (count == 0) return;
  /* one worker, or a single range: no hand-off to pay for */
  if (tress__jobs_worker_count(jobs) == 1 || count <= min_range) {
    fn(0, count, 0, context);
    return;
  }
  void *task = jobs->enqueue_task(fn, count, min_range ? min_range : 1, context, jobs->user);
  if (task) jobs->finish_task(task, jobs->user);
}
