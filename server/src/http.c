/* HTTP ops endpoint
 * -----------------
 * libmicrohttpd serves /healthz, /readyz, /metrics (Prometheus text) and /stats (JSON) from
 * its own thread. That thread reads only tress_metrics (atomics plus one mutex-guarded
 * string), never loop-owned structures, so a scrape can never race a room change.
 *   /healthz  200 while the process runs its loop (liveness);
 *   /readyz   200 once the ENet host is bound and the stores are open, 503 while draining.
 * The --health-check client below is the Docker HEALTHCHECK (the image has no curl). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server.h"

struct tress_http {
  struct MHD_Daemon *daemon;
  tress_metrics *metrics;
  uint16_t port;
};

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type, char *body) {
  if (!body) body = strdup("");
  if (!body) return MHD_NO;
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  enum MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **con_cls) {
  (void)version;
  (void)upload_data;
  (void)con_cls;
  struct tress_http *h = cls;
  if (*upload_size) return MHD_NO; /* no bodies here */
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return respond(conn, 405, "text/plain", strdup("method not allowed\n"));
  if (strcmp(url, "/healthz") == 0) return respond(conn, 200, "text/plain", strdup("ok\n"));
  if (strcmp(url, "/readyz") == 0) {
    bool ready = atomic_load(&h->metrics->ready) && !atomic_load(&h->metrics->draining);
    return respond(conn, ready ? 200 : 503, "text/plain", strdup(ready ? "ready\n" : "not ready\n"));
  }
  if (strcmp(url, "/metrics") == 0)
    return respond(conn, 200, "text/plain; version=0.0.4", tress_metrics_prometheus(h->metrics));
  if (strcmp(url, "/stats") == 0) return respond(conn, 200, "application/json", tress_metrics_stats_json(h->metrics));
  return respond(conn, 404, "text/plain", strdup("not found\n"));
}

struct tress_http *tress_http_start(tress_server *s, char err[256]) {
  struct tress_http *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->metrics = &s->metrics;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)s->cfg.http_port);
  if (inet_pton(AF_INET, s->cfg.host, &addr.sin_addr) != 1) {
    snprintf(err, 256, "host \"%s\" is not an IPv4 address", s->cfg.host);
    free(h);
    return NULL;
  }
  h->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)s->cfg.http_port, NULL,
                               NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                               MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                               MHD_OPTION_END);
  if (!h->daemon) {
    snprintf(err, 256, "cannot start HTTP on %s:%u", s->cfg.host, s->cfg.http_port);
    free(h);
    return NULL;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : (uint16_t)s->cfg.http_port;
  return h;
}

uint16_t tress_http_port(const struct tress_http *http) { return http ? http->port : 0; }

void tress_http_stop(struct tress_http *http) {
  if (!http) return;
  MHD_stop_daemon(http->daemon);
  free(http);
}

int tress_http_health_check(const char *host, uint16_t port) {
  const char *target = strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, target, &addr.sin_addr) != 1) return 1;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 1;
  struct timeval tv = {3, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int ok = 1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
    const char req[] = "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
      char buf[64] = {0};
      ssize_t n = read(fd, buf, sizeof buf - 1);
      if (n >= 12 && strncmp(buf, "HTTP/1.", 7) == 0 && strncmp(buf + 9, "200", 3) == 0) ok = 0;
    }
  }
  close(fd);
  return ok;
}
