/* Loop heartbeat
 * --------------
 * /healthz must say whether the loop thread is alive, not whether the HTTP thread is. A uv_check
 * handle runs once per loop iteration (after I/O) and stores the monotonic time in
 * metrics.loop_heartbeat_ms; the service timer wakes the loop every service_interval_ms, so an
 * idle healthy loop still beats that often, and /healthz answers 503 once the beat is older
 * than healthz_stale_ms.
 *
 * Test-only hook: with TRESS_TEST_ONLY_LOOP_STALL_MS=N in the environment, SIGUSR2 makes the loop
 * thread sleep N ms, which is the only honest way for a test to show a stuck loop from outside
 * the process. Without the variable SIGUSR2 is not handled at all (its default action stays). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server.h"

#define TEST_STALL_ENV "TRESS_TEST_ONLY_LOOP_STALL_MS"

uint64_t tress_heartbeat_now_ms(void) { return tress_server_now_ns() / 1000000ull; }

static void beat(uv_check_t *h) {
  tress_server *s = h->data;
  atomic_store_explicit(&s->metrics.loop_heartbeat_ms, tress_heartbeat_now_ms(), memory_order_relaxed);
}

static void stall_loop(uv_signal_t *h, int signum) {
  (void)signum;
  tress_server *s = h->data;
  tress_log_event(&s->log, TRESS_LOG_WARN, "test_only_loop_stall", "ms=%u", s->test_stall_ms);
  struct timespec left = {(time_t)(s->test_stall_ms / 1000), (long)(s->test_stall_ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

/* N from the environment, 0 when unset or not a positive integer below a minute. */
static uint32_t test_stall_ms_from_env(void) {
  const char *v = getenv(TEST_STALL_ENV);
  if (!v || !*v) return 0;
  char *end = NULL;
  unsigned long ms = strtoul(v, &end, 10);
  return (*end == '\0' && ms > 0 && ms <= 60000) ? (uint32_t)ms : 0;
}

void tress_heartbeat_start(tress_server *s) {
  atomic_store(&s->metrics.loop_heartbeat_ms, tress_heartbeat_now_ms()); /* healthy before the first turn */
  uv_check_init(s->loop, &s->heartbeat_check);
  s->heartbeat_check.data = s;
  uv_check_start(&s->heartbeat_check, beat);
  s->test_stall_ms = test_stall_ms_from_env();
  if (!s->test_stall_ms) return;
  uv_signal_init(s->loop, &s->test_stall_signal);
  s->test_stall_signal.data = s;
  uv_signal_start(&s->test_stall_signal, stall_loop, SIGUSR2);
  tress_log_event(&s->log, TRESS_LOG_WARN, "test_only_hook_armed", "hook=%s ms=%u signal=SIGUSR2", TEST_STALL_ENV,
                  s->test_stall_ms);
}

static void closed_noop(uv_handle_t *h) { (void)h; }

void tress_heartbeat_stop(tress_server *s) {
  uv_check_stop(&s->heartbeat_check);
  uv_close((uv_handle_t *)&s->heartbeat_check, closed_noop);
  if (!s->test_stall_ms) return;
  uv_signal_stop(&s->test_stall_signal);
  uv_close((uv_handle_t *)&s->test_stall_signal, closed_noop);
}
