/* HTTP ops endpoint
 * -----------------
 * libmicrohttpd serves /healthz, /readyz, /metrics (Prometheus text) and /stats (JSON) on its own
 * threads. They read only tress_metrics (atomics plus one mutex-guarded string), never
 * loop-owned structures, so a scrape can never race a room change.
 *   /healthz  200 while the loop thread keeps coming round (its heartbeat is younger than
 *             healthz_stale_ms), else 503 with the reason: a stuck loop must not look alive;
 *   /readyz   200 once the ENet host is bound and the stores are open, 503 while draining;
 *   /stats    counts for anyone, the room list (names) only with "Authorization: Bearer <ops_token>";
 *   /rigs     the rigs in the cache (rig_glb.h) as JSON, and /rigs/<id>.glb each one's skinned mesh,
 *             read-only and only with the ops token (they are the game's assets). The live tuning
 *             page (client/web/) fetches them from another origin: any origin may, as the token
 *             travels in a header and never in a cookie; OPTIONS answers its preflight.
 * Slow or hostile clients cannot take the port from the healthcheck: an epoll thread pool (no
 * descriptor is ever waited on in a blocking call), a cap per address below the total cap, a
 * short idle timeout, a whole-header deadline (http_deadline.c) and no keep-alive.
 * The --health-check client below is the Docker HEALTHCHECK (the image has no curl). */
#include <arpa/inet.h>
#include <ctype.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "http_deadline.h"
#include "rig_glb.h"
#include "server.h"

/* Two workers: one busy building /metrics or /stats never delays a /healthz on the other. */
#define HTTP_THREADS 2u

struct tress_http {
  struct MHD_Daemon *daemon;
  tress_http_deadlines *deadlines;
  tress_metrics *metrics;
  uint32_t healthz_stale_ms;
  char ops_token[sizeof(((tress_server_config *)0)->ops_token)];
  size_t ops_token_len;
  char cache_dir[sizeof(((tress_server_config *)0)->cache_dir)];
  uint16_t port;
};

const char *tress_http_bind_host(const tress_server_config *cfg) {
  return cfg->http_host[0] ? cfg->http_host : cfg->host;
}

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
  /* One request per connection: a kept-alive connection would restart the header race unwatched. */
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result respond_healthz(struct tress_http *h, struct MHD_Connection *conn) {
  uint64_t beat = atomic_load_explicit(&h->metrics->loop_heartbeat_ms, memory_order_relaxed);
  if (beat == 0) return respond(conn, 503, "text/plain", strdup("loop not started\n"));
  uint64_t now = tress_heartbeat_now_ms();
  uint64_t age = now > beat ? now - beat : 0;
  if (age <= h->healthz_stale_ms) return respond(conn, 200, "text/plain", strdup("ok\n"));
  char body[128];
  snprintf(body, sizeof body, "loop stalled: no iteration for %llu ms (bound %u ms)\n", (unsigned long long)age,
           h->healthz_stale_ms);
  return respond(conn, 503, "text/plain", strdup(body));
}

/* Equal without an early exit: the time taken depends on the configured token's length only,
 * never on how many leading bytes of a guess are right. */
static bool token_matches(const char *want, size_t want_len, const char *got, size_t got_len) {
  volatile unsigned diff = (unsigned)(want_len != got_len);
  for (size_t i = 0; i < want_len; i++)
    diff |= (unsigned)((unsigned char)want[i] ^ (unsigned char)(i < got_len ? got[i] : 0));
  return want_len > 0 && diff == 0;
}

/* "Authorization: Bearer <ops_token>" (scheme case-insensitive, RFC 6750). */
static bool has_ops_token(const struct tress_http *h, struct MHD_Connection *conn) {
  if (h->ops_token_len == 0) return false;
  const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) return false;
  const char *token = auth + 7;
  while (*token == ' ') token++;
  size_t len = strlen(token);
  while (len > 0 && isspace((unsigned char)token[len - 1])) len--;
  return token_matches(h->ops_token, h->ops_token_len, token, len);
}

#define RIGS_PATH "/rigs"

static void allow_any_origin(struct MHD_Response *r) {
  MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
  MHD_add_response_header(r, "Access-Control-Allow-Headers", "Authorization");
  MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
}

/* A /rigs answer: body (taken) as it is, with the cross-origin headers. */
static enum MHD_Result respond_rigs(struct MHD_Connection *conn, unsigned status, const char *type, void *body,
                                   size_t len) {
  if (!body) return MHD_NO;
  struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  allow_any_origin(r);
  enum MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result respond_rigs_text(struct MHD_Connection *conn, unsigned status, const char *text) {
  return respond_rigs(conn, status, "text/plain", strdup(text), strlen(text));
}

/* /rigs and /rigs/<id>.glb (the caller checked the prefix). */
static enum MHD_Result handle_rigs(struct tress_http *h, struct MHD_Connection *conn, const char *url,
                                   const char *method) {
  if (strcmp(method, "OPTIONS") == 0) return respond_rigs(conn, 204, "text/plain", strdup(""), 0);
  if (!has_ops_token(h, conn)) return respond_rigs_text(conn, 403, "the ops token is required\n");
  const char *rest = url + strlen(RIGS_PATH);
  if (*rest == '\0') {
    char *json = tress_rig_glb_list_json(h->cache_dir);
    return respond_rigs(conn, 200, "application/json", json, json ? strlen(json) : 0);
  }
  size_t len = strlen(rest), suffix = strlen(".glb");
  if (rest[0] == '/' && len > suffix && strcmp(rest + len - suffix, ".glb") == 0) {
    size_t size = 0;
    uint8_t *glb = tress_rig_glb_read(h->cache_dir, rest + 1, len - 1 - suffix, &size);
    if (glb) return respond_rigs(conn, 200, "model/gltf-binary", glb, size);
  }
  return respond_rigs_text(conn, 404, "no such rig\n");
}

static bool is_rigs_url(const char *url) {
  size_t n = strlen(RIGS_PATH);
  return strncmp(url, RIGS_PATH, n) == 0 && (url[n] == '\0' || url[n] == '/');
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **con_cls) {
  (void)version;
  (void)upload_data;
  (void)con_cls;
  struct tress_http *h = cls;
  /* libmicrohttpd calls this once the whole request header is in. */
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (info) tress_http_deadlines_header_done(h->deadlines, info->socket_context);
  if (*upload_size) return MHD_NO; /* no bodies here */
  if (is_rigs_url(url) && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 || strcmp(method, "OPTIONS") == 0))
    return handle_rigs(h, conn, url, method);
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return respond(conn, 405, "text/plain", strdup("method not allowed\n"));
  if (strcmp(url, "/healthz") == 0) return respond_healthz(h, conn);
  if (strcmp(url, "/readyz") == 0) {
    bool ready = atomic_load(&h->metrics->ready) && !atomic_load(&h->metrics->draining);
    return respond(conn, ready ? 200 : 503, "text/plain", strdup(ready ? "ready\n" : "not ready\n"));
  }
  if (strcmp(url, "/metrics") == 0)
    return respond(conn, 200, "text/plain; version=0.0.4", tress_metrics_prometheus(h->metrics));
  if (strcmp(url, "/stats") == 0)
    return respond(conn, 200, "application/json", tress_metrics_stats_json(h->metrics, has_ops_token(h, conn)));
  return respond(conn, 404, "text/plain", strdup("not found\n"));
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
  struct tress_http *h = cls;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    *socket_context = info ? tress_http_deadlines_watch(h->deadlines, info->connect_fd) : NULL;
  } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    tress_http_deadlines_forget(h->deadlines, *socket_context); /* before libmicrohttpd closes the fd */
    *socket_context = NULL;
  }
}

static struct MHD_Daemon *start_daemon(struct tress_http *h, const tress_server_config *cfg, struct sockaddr_in *addr) {
  return MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, (uint16_t)cfg->http_port, NULL, NULL, handle, h,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)addr, MHD_OPTION_THREAD_POOL_SIZE, HTTP_THREADS,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->http_max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
      (unsigned)cfg->http_max_connections_per_address, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->http_idle_timeout_s,
      MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_END);
}

struct tress_http *tress_http_start(tress_server *s, char err[256]) {
  const tress_server_config *cfg = &s->cfg;
  const char *host = tress_http_bind_host(cfg);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)cfg->http_port);
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
    snprintf(err, 256, "http host \"%s\" is not an IPv4 address", host);
    return NULL;
  }
  struct tress_http *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->metrics = &s->metrics;
  h->healthz_stale_ms = cfg->healthz_stale_ms;
  memcpy(h->ops_token, cfg->ops_token, sizeof h->ops_token);
  h->ops_token_len = strlen(h->ops_token);
  memcpy(h->cache_dir, cfg->cache_dir, sizeof h->cache_dir);
  /* Twice the cap: a closing connection keeps its slot until libmicrohttpd's cleanup. */
  h->deadlines = tress_http_deadlines_start(2 * cfg->http_max_connections, cfg->http_header_timeout_ms,
                                            &s->metrics.http_header_timeouts);
  h->daemon = h->deadlines ? start_daemon(h, cfg, &addr) : NULL;
  if (!h->daemon) {
    snprintf(err, 256, "cannot start HTTP on %s:%u", host, cfg->http_port);
    tress_http_deadlines_stop(h->deadlines);
    free(h);
    return NULL;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : (uint16_t)cfg->http_port;
  return h;
}

uint16_t tress_http_port(const struct tress_http *http) { return http ? http->port : 0; }

void tress_http_stop(struct tress_http *http) {
  if (!http) return;
  MHD_stop_daemon(http->daemon);
  tress_http_deadlines_stop(http->deadlines);
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
