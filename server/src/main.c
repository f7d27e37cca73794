/* tress-server
 * ------------
 * One libuv loop owns everything: the ENet host (uv_poll + service timer), rig jobs (thread
 * pool), signals and timers, and stamps a heartbeat every iteration (heartbeat.c). The only other
 * threads are the ops endpoint's (libmicrohttpd's pool and a header-deadline watchdog), which
 * read atomics.
 *
 * Lifecycle: config -> open asset store and cache dir (sweeping stray *.tmp.* files a crash may
 * have left) -> bind UDP and HTTP -> log "listening" with the bound ports (and write the port
 * file) -> run. SIGTERM/SIGINT start a drain: every peer gets ERROR SERVER_SHUTTING_DOWN and a
 * graceful disconnect, queued rig jobs are cancelled, running ones finish and persist, and the
 * loop ends once no job is in flight and every peer is gone, or at shutdown_timeout_ms. Exit 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agones.h"
#include "file_util.h"
#include "rig_shared.h"
#include "room_lease.h"
#include "server.h"

uint64_t tress_server_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void closed_noop(uv_handle_t *h) { (void)h; }

static void finish(tress_server *s) {
  tress_log_event(&s->log, TRESS_LOG_INFO, "shutdown_complete", "jobs_left=%u peers_left=%u", s->jobs.count,
                  s->live_peers);
  /* Peers still connected at the deadline are dropped without ceremony. */
  for (uint32_t i = 0; i < s->peer_slots; i++)
    if (s->peers[i].enet) enet_peer_reset(s->peers[i].enet);
  enet_host_flush(s->host);
  uv_timer_stop(&s->drain_timer);
  uv_close((uv_handle_t *)&s->drain_timer, closed_noop);
  uv_close((uv_handle_t *)&s->sigterm, closed_noop);
  uv_close((uv_handle_t *)&s->sigint, closed_noop);
  tress_heartbeat_stop(s);
  tress_room_lease_stop(s->room_lease);
  tress_rig_shared_stop(s->shared);
  s->shared = NULL;
  tress_agones_shutdown(s->agones); /* its handles keep the loop until the sidecar has answered */
  s->agones = NULL;
  tress_net_stop(s);
}

/* The Redis tier, when cache_url is set. It connects in the background: a Redis that is down at
 * startup makes the server degraded (rigging locally), not unable to start. */
static int start_shared_cache(tress_server *s) {
  if (!s->cfg.cache_url[0]) return 0;
  tress_rig_shared_config sc;
  memset(&sc, 0, sizeof sc);
  char err[256];
  if (tress_redis_url_parse(s->cfg.cache_url, &sc.url, err) != 0) return -1; /* config load checked it */
  snprintf(sc.namespace_, sizeof sc.namespace_, "%s", s->cfg.cache_namespace);
  sc.timeout_ms = s->cfg.cache_timeout_ms;
  sc.lease_ms = s->cfg.cache_lease_ms;
  sc.wait_ms = s->cfg.cache_wait_ms;
  sc.poll_ms = s->cfg.cache_poll_ms;
  s->shared = tress_rig_shared_start(s->loop, &sc, &s->log, &s->metrics);
  if (!s->shared) return -1;
  s->room_lease = tress_room_lease_start(s, tress_rig_shared_link(s->shared), err); /* one link for both */
  if (!s->room_lease)
    tress_log_event(&s->log, TRESS_LOG_ERROR, "room_leases_unavailable", "reason=%s action=standalone_rooms",
                    tress_log_quote(err, (char[300]){0}, 300));
  return 0;
}

static void on_drain_tick(uv_timer_t *t) {
  tress_server *s = t->data;
  bool timed_out = uv_now(s->loop) >= s->drain_deadline_ms;
  if ((s->jobs.count == 0 && s->live_peers == 0) || timed_out) {
    if (timed_out)
      tress_log_event(&s->log, TRESS_LOG_WARN, "shutdown_timeout", "jobs_left=%u peers_left=%u", s->jobs.count,
                      s->live_peers);
    if (s->jobs.count == 0) {
      finish(s);
    } else if (timed_out) {
      /* A rig still running past the deadline: its cache file is written atomically or not at
       * all, so leaving now cannot half-write the cache. The loop cannot end while the worker
       * holds the request, so stop it. */
      finish(s);
      uv_stop(s->loop);
    }
  }
}

static void start_drain(tress_server *s, const char *why) {
  if (s->draining) return;
  s->draining = true;
  atomic_store(&s->metrics.draining, true);
  tress_log_event(&s->log, TRESS_LOG_INFO, "shutdown_started", "signal=%s peers=%u jobs=%u", why, s->live_peers,
                  s->jobs.count);
  for (uint32_t i = 0; i < s->peer_slots; i++) {
    if (!s->peers[i].enet || s->peers[i].closing) continue;
    tress_net_send_error(s, i, TRESS_CODE_SERVER_SHUTTING_DOWN, 0, 0, 0, "server shutting down");
    tress_peer_close(s, i, "shutdown");
  }
  enet_host_flush(s->host);
  tress_rig_jobs_cancel_all(s);
  s->drain_deadline_ms = uv_now(s->loop) + s->cfg.shutdown_timeout_ms;
  uv_timer_start(&s->drain_timer, on_drain_tick, 10, 10);
}

static void on_signal(uv_signal_t *h, int signum) {
  start_drain(h->data, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

static int write_port_file(tress_server *s) {
  if (!s->cfg.port_file[0]) return 0;
  char line[64];
  int n = snprintf(line, sizeof line, "udp=%u http=%u\n", s->udp_port, s->http_port);
  return tress_file_write_atomic(s->cfg.port_file, line, (size_t)n, NULL, 0);
}

/* The port --health-check probes: http_port, or with http_port 0 (ephemeral) the one the running
 * server wrote to port_file, so a container started with ephemeral ports still has a healthcheck. */
static int health_check_port(const tress_server *s) {
  if (s->cfg.http_port != 0 || !s->cfg.port_file[0]) return (int)s->cfg.http_port;
  FILE *f = fopen(s->cfg.port_file, "r");
  if (!f) return -1;
  char line[64] = {0};
  const char *http = fgets(line, sizeof line, f) ? strstr(line, "http=") : NULL;
  fclose(f);
  long port = http ? strtol(http + 5, NULL, 10) : 0;
  return port > 0 && port <= 65535 ? (int)port : -1;
}

int main(int argc, char **argv) {
  extern char **environ;
  tress_server *s = calloc(1, sizeof *s);
  if (!s) return 1;
  char err[256];
  tress_config_action action = tress_server_config_load(&s->cfg, argc, argv, environ, err);
  switch (action) {
    case TRESS_CONFIG_HELP: tress_server_config_print_help(stdout); free(s); return 0;
    case TRESS_CONFIG_ERROR: fprintf(stderr, "tress-server: %s\n", err); free(s); return 2;
    case TRESS_CONFIG_PRINT: {
      char *json = tress_server_config_to_json(&s->cfg);
      puts(json ? json : "{}");
      free(json);
      free(s);
      return 0;
    }
    case TRESS_CONFIG_HEALTH_CHECK: {
      int port = health_check_port(s);
      int rc = port > 0 ? tress_http_health_check(tress_http_bind_host(&s->cfg), (uint16_t)port) : 1;
      free(s);
      return rc;
    }
    default: break;
  }
  signal(SIGPIPE, SIG_IGN);
  tress_log_init(&s->log, stderr, s->cfg.log_format, s->cfg.log_level);
  tress_metrics_init(&s->metrics);
  int rc = 1;

  if (tress_asset_store_open(&s->store, s->cfg.assets_dir, err) != 0) {
    tress_log_event(&s->log, TRESS_LOG_ERROR, "startup_failed", "reason=%s", tress_log_quote(err, (char[300]){0}, 300));
    goto out;
  }
  if (tress_file_mkdirs(s->cfg.cache_dir) != 0) {
    tress_log_event(&s->log, TRESS_LOG_ERROR, "startup_failed", "reason=cache_dir_unusable dir=%s",
                    tress_log_quote(s->cfg.cache_dir, (char[300]){0}, 300));
    goto out;
  }
  int swept = tress_file_remove_stray_tmp(s->cfg.cache_dir);
  if (swept) tress_log_event(&s->log, TRESS_LOG_WARN, "cache_tmp_swept", "files=%d", swept);
  tress_rig_cache_init(&s->cache, s->cfg.cache_dir, s->cfg.cache_memory_bytes);
  tress_rig_failures_init(&s->rig_failures, s->cfg.failed_rig_ttl_ms);
  if (tress_auth_start(s, err) != 0) {
    tress_log_event(&s->log, TRESS_LOG_ERROR, "startup_failed", "reason=%s", tress_log_quote(err, (char[300]){0}, 300));
    goto out;
  }

  s->peer_slots = s->cfg.max_peers + TRESS_CONFIG_FULL_RESERVE;
  s->peers = calloc(s->peer_slots, sizeof *s->peers);
  s->handshake_since_ms = calloc(s->peer_slots, sizeof *s->handshake_since_ms);
  s->rooms = calloc(s->cfg.max_peers, sizeof *s->rooms);
  s->scratch = malloc(TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES);
  if (!s->peers || !s->handshake_since_ms || !s->rooms || !s->scratch || enet_initialize() != 0) goto out;
  for (uint32_t i = 0; i < s->peer_slots; i++) s->peers[i].room = -1;

  s->loop = uv_default_loop();
  if (tress_net_start(s, err) != 0) {
    tress_log_event(&s->log, TRESS_LOG_ERROR, "startup_failed", "reason=%s", tress_log_quote(err, (char[300]){0}, 300));
    goto out_enet;
  }
  s->http = tress_http_start(s, err);
  if (!s->http) {
    tress_log_event(&s->log, TRESS_LOG_ERROR, "startup_failed", "reason=%s", tress_log_quote(err, (char[300]){0}, 300));
    tress_net_stop(s);
    uv_run(s->loop, UV_RUN_DEFAULT);
    enet_host_destroy(s->host);
    goto out_enet;
  }
  s->http_port = tress_http_port(s->http);
  tress_heartbeat_start(s);
  uv_signal_init(s->loop, &s->sigterm);
  uv_signal_init(s->loop, &s->sigint);
  s->sigterm.data = s->sigint.data = s;
  uv_signal_start(&s->sigterm, on_signal, SIGTERM);
  uv_signal_start(&s->sigint, on_signal, SIGINT);
  uv_timer_init(s->loop, &s->drain_timer);
  s->drain_timer.data = s;

  if (start_shared_cache(s) != 0)
    tress_log_event(&s->log, TRESS_LOG_ERROR, "cache_shared_unavailable", "reason=out_of_memory action=rig_locally");

  atomic_store(&s->metrics.ready, true);
  tress_log_event(&s->log, TRESS_LOG_INFO, "listening",
                  "udp=%u http=%u host=%s http_host=%s assets=%s cache=%s manifest=%s", s->udp_port, s->http_port,
                  s->cfg.host, tress_http_bind_host(&s->cfg), s->store.root, s->cfg.cache_dir,
                  s->store.has_manifest ? "yes" : "no");
  /* After the log line, so whoever waits on the file also finds the line. */
  if (write_port_file(s) != 0)
    tress_log_event(&s->log, TRESS_LOG_WARN, "port_file_failed", "path=%s", s->cfg.port_file);
  s->agones = tress_agones_start(s); /* Ready only now that ENet is bound */

  uv_run(s->loop, UV_RUN_DEFAULT);

  tress_http_stop(s->http);
  if (s->jobs.count > 0) {
    /* The drain deadline passed with a rig still running on a worker that holds pointers into
     * this server: leave without freeing anything. Its cache write is atomic, and a stray tmp
     * file is swept at the next start. */
    tress_log_event(&s->log, TRESS_LOG_WARN, "exit_with_running_rig", "jobs=%u", s->jobs.count);
    fflush(NULL);
    _exit(0);
  }
  for (uint32_t i = 0; i < s->character_cap; i++)
    if (s->characters[i].used) tress_session_remove(s, &s->characters[i], TRESS_REMOVED_SERVER);
  enet_host_destroy(s->host);
  uv_loop_close(s->loop);
  rc = 0;
out_enet:
  enet_deinitialize();
out:
  for (uint32_t i = 0; s->rooms && i < s->cfg.max_peers; i++) {
    free(s->rooms[i].members);
    free(s->rooms[i].characters);
  }
  tress_rig_cache_destroy(&s->cache);
  tress_rig_failures_free(&s->rig_failures);
  tress_auth_stop(s);
  tress_asset_store_close(&s->store);
  tress_metrics_destroy(&s->metrics);
  free(s->characters);
  free(s->peers);
  free(s->handshake_since_ms);
  free(s->rooms);
  free(s->scratch);
  free(s);
  return rc;
}
