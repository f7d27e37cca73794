/* sim_uv.c - drives a sim from a libuv timer that lives only while something is bound.
 *
 * The sim reports "first handle bound" / "last handle gone" through its loop hook; this file
 * turns that into uv_timer_start / uv_timer_stop + uv_close, so an idle sim holds no handle and
 * an idle loop can exit. The timer measures real elapsed time with uv_now and feeds step(dt).
 * The adapter state is heap-owned and freed in the close callback.
 */
#include <stdlib.h>

#include "sim_internal.h"
#include "tress/sim_uv.h"

typedef struct sim_uv {
  uv_loop_t *loop;
  uv_timer_t *timer; /* NULL while nothing is bound */
  unsigned interval_ms;
  uint64_t last_ms;
  tress_sim *sim;
} sim_uv;

static void on_close(uv_handle_t *h) { free(h); }

static void on_tick(uv_timer_t *t) {
  sim_uv *a = t->data;
  uint64_t now = uv_now(a->loop);
  double dt = (double)(now - a->last_ms) / 1000.0;
  a->last_ms = now;
  tress_sim_step(a->sim, dt);
}

static void stop_timer(sim_uv *a) {
  if (!a->timer) return;
  uv_timer_stop(a->timer);
  uv_close((uv_handle_t *)a->timer, on_close);
  a->timer = NULL;
}

static void on_needed(void *user, tress_sim *sim, bool needed) {
  sim_uv *a = user;
  (void)sim;
  if (needed && !a->timer) {
    a->timer = malloc(sizeof *a->timer);
    if (!a->timer) return;
    uv_timer_init(a->loop, a->timer);
    a->timer->data = a;
    a->last_ms = uv_now(a->loop);
    uv_timer_start(a->timer, on_tick, a->interval_ms, a->interval_ms);
  } else if (!needed) {
    stop_timer(a);
  }
}

/* The sim is destroyed while still attached: its hook already stopped the timer. */
static void release(void *user) {
  sim_uv *a = user;
  stop_timer(a);
  free(a);
}

tress_result tress_sim_attach_loop(tress_sim *sim, uv_loop_t *loop, unsigned interval_ms) {
  if (!sim || !loop) return TRESS_ERR_INVALID_ARGUMENT;
  tress_sim_detach_loop(sim);
  sim_uv *a = calloc(1, sizeof *a);
  if (!a) return TRESS_ERR_OUT_OF_MEMORY;
  a->loop = loop;
  a->sim = sim;
  a->interval_ms = interval_ms ? interval_ms : (unsigned)(1000.0f / sim->def.fixed_hz);
  if (a->interval_ms == 0) a->interval_ms = 1;
  tress_sim_set_loop_hook(sim, on_needed, a);
  sim->loop_release = release;
  return TRESS_OK;
}

void tress_sim_detach_loop(tress_sim *sim) {
  if (!sim || sim->loop_fn != on_needed) return;
  sim_uv *a = sim->loop_user;
  tress_sim_set_loop_hook(sim, NULL, NULL);
  stop_timer(a);
  free(a);
}

bool tress_sim_is_loop_active(const tress_sim *sim) {
  if (!sim || sim->loop_fn != on_needed) return false;
  const sim_uv *a = sim->loop_user;
  return a->timer != NULL;
}
