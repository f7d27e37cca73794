/* Agones over the SDK sidecar's REST API, end to end: a real tress-server against
 * tests/agones/fake_sdk.py, the sidecar's documented REST API (swagger-checked: paths, methods,
 * JSON bodies). Call order and bodies, a late sidecar, health pings that follow the GameServer's
 * period and stop while the loop is blocked, the `rooms` Counter and List following real ENet
 * joins and leaves, Shutdown after the SIGTERM drain, and no Agones traffic without
 * AGONES_SDK_HTTP_PORT. Skipped (77) without python3 + jsonschema. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/server_harness.h"
#if TRESS_AGONES_TEST_REDIS
#include "support/redis_harness.h"
#endif

#define PERIOD_S 1 /* spec.health.period_seconds the fake starts with: a ping every 500 ms */

typedef struct fake_sdk {
  pid_t pid;
  uint16_t port;
  char port_file[600];
} fake_sdk;

/* One fake for the whole group (reset before each test: python starts slowly on a loaded
 * machine), plus the late sidecar's own. */
typedef struct fixture {
  th_server srv;
  fake_sdk fake, late;
  char dir[64];
} fixture;

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *python(void) {
  const char *p = getenv("TRESS_PYTHON3");
  return p && *p ? p : "python3";
}

/* Starts the fake on port (0: ephemeral) and waits for its port file. */
static int fake_start(fake_sdk *f, const char *dir, uint16_t port) {
  char script[600], port_arg[16], period[16];
  snprintf(script, sizeof script, "%s/tests/agones/fake_sdk.py", th_source_dir());
  snprintf(f->port_file, sizeof f->port_file, "%s/fake-port", dir);
  snprintf(port_arg, sizeof port_arg, "%u", port);
  snprintf(period, sizeof period, "%d", PERIOD_S);
  unlink(f->port_file);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execlp(python(), python(), script, "--port", port_arg, "--port-file", f->port_file, "--health-period", period,
           "--counter", "rooms:100", "--list", "rooms:100", (char *)NULL);
    _exit(127);
  }
  f->pid = pid;
  for (double t0 = mono_s(); mono_s() - t0 < 90;) {
    FILE *pf = fopen(f->port_file, "r");
    unsigned p = 0;
    if (pf && fscanf(pf, "%u", &p) == 1 && p) {
      fclose(pf);
      f->port = (uint16_t)p;
      return 0;
    }
    if (pf) fclose(pf);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      f->pid = 0;
      return -1;
    }
    usleep(20000);
  }
  return -1;
}

static void fake_stop(fake_sdk *f) {
  if (f->pid <= 0) return;
  kill(f->pid, SIGTERM);
  waitpid(f->pid, NULL, 0);
  f->pid = 0;
}

/* The fake's record: {"requests": [...], "violations": [...], "counters", "lists", "gameserver"}. */
static cJSON *fake_log(const fake_sdk *f) {
  char *body = NULL;
  int status = th_http_get(f->port, "/__fake/log", &body);
  cJSON *log = status == 200 && body ? cJSON_Parse(body) : NULL;
  free(body);
  assert_non_null(log);
  return log;
}

/* One raw request to the fake (th_http_request only GETs): the HTTP status, or -1. */
static int fake_send(uint16_t port, const char *method, const char *path, const char *body) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  char req[1024];
  int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n%s",
                   method, path, strlen(body), body);
  int status = -1;
  char resp[512] = {0};
  if (write(fd, req, (size_t)n) == n && read(fd, resp, sizeof resp - 1) > 0) sscanf(resp, "HTTP/1.%*d %d", &status);
  close(fd);
  return status;
}

static const char *str_of(const cJSON *o, const char *key) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Requests with this method and path, in arrival order (a borrowed view into log). */
static int find_requests(const cJSON *log, const char *method, const char *path, const cJSON **out, int cap) {
  int n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(log, "requests")) {
    if (strcmp(str_of(r, "method"), method) == 0 && strcmp(str_of(r, "path"), path) == 0 && n < cap) out[n++] = r;
  }
  return n;
}

static int index_of(const cJSON *log, const char *method, const char *path) {
  int i = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(log, "requests")) {
    if (strcmp(str_of(r, "method"), method) == 0 && strcmp(str_of(r, "path"), path) == 0) return i;
    i++;
  }
  return -1;
}

static double t_of(const cJSON *r) { return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "t")); }
static int status_of(const cJSON *r) { return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "status")); }

static void assert_no_violations(const cJSON *log) {
  const cJSON *v;
  cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(log, "violations")) fail_msg("swagger violation: %s", v->valuestring);
}

/* Waits until the fake has seen at least n requests of method path; 0 or -1 on timeout. */
static int wait_requests(const fake_sdk *f, const char *method, const char *path, int n, double timeout_s) {
  for (double t0 = mono_s(); mono_s() - t0 < timeout_s; usleep(50000)) {
    cJSON *log = fake_log(f);
    const cJSON *found[256];
    int got = find_requests(log, method, path, found, 256);
    cJSON_Delete(log);
    if (got >= n) return 0;
  }
  return -1;
}

static void start_server_with_sdk(fixture *fx, uint16_t sdk_port, const char *const *extra) {
  char port[16];
  snprintf(port, sizeof port, "%u", sdk_port);
  setenv("AGONES_SDK_HTTP_PORT", port, 1);
  int rc = th_server_start(&fx->srv, extra);
  unsetenv("AGONES_SDK_HTTP_PORT");
  assert_int_equal(rc, 0);
}

/* The rooms the fake's List holds, sorted and joined with ',' (count in *count). */
static void fake_rooms(const fake_sdk *f, char *out, size_t cap, int *count) {
  cJSON *log = fake_log(f);
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(log, "lists"), "rooms");
  const cJSON *counter =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(log, "counters"), "rooms");
  *count = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(counter, "count"));
  const char *names[16];
  int n = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(list, "values")) if (n < 16) names[n++] = v->valuestring;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s%s", i ? "," : "", names[i]);
  }
  cJSON_Delete(log);
}

static void wait_rooms(const fake_sdk *f, const char *want, int want_count) {
  char got[256] = "";
  int count = -1;
  for (double t0 = mono_s(); mono_s() - t0 < 10; usleep(50000)) {
    fake_rooms(f, got, sizeof got, &count);
    if (strcmp(got, want) == 0 && count == want_count) return;
  }
  fail_msg("rooms: want list [%s] count %d, the fake holds [%s] count %d", want, want_count, got, count);
}

static th_client *join(const th_server *srv, const char *name, const char *room) {
  th_client *c = calloc(1, sizeof *c);
  assert_non_null(c);
  assert_int_equal(th_client_connect(c, srv->udp_port), 0);
  assert_int_equal(th_client_hello_join(c, name, room), 0);
  return c;
}

static void leave(th_client *c) {
  th_client_close(c);
  free(c);
}

/* The line number of the first log line containing needle, or -1. */
static int log_line_of(const th_server *srv, const char *needle) {
  FILE *f = fopen(srv->log_path, "r");
  if (!f) return -1;
  char line[4096];
  int at = -1;
  for (int i = 0; at < 0 && fgets(line, sizeof line, f); i++)
    if (strstr(line, needle)) at = i;
  fclose(f);
  return at;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_call_order_and_bodies(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-order");
  start_server_with_sdk(fx, fx->fake.port, NULL);
  assert_int_equal(wait_requests(&fx->fake, "POST", "/health", 4, 10), 0);

  cJSON *log = fake_log(&fx->fake);
  assert_no_violations(log);
  const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(log, "requests"), 0);
  assert_string_equal(str_of(first, "method"), "POST"); /* Ready is the first call */
  assert_string_equal(str_of(first, "path"), "/ready");
  assert_string_equal(str_of(first, "body"), "{}");
  assert_int_equal(status_of(first), 200);
  /* Ready only after the ENet bind: the server logged listening (bound) before it enabled Agones. */
  assert_true(log_line_of(&fx->srv, "event=listening") >= 0);
  assert_true(log_line_of(&fx->srv, "event=listening") < log_line_of(&fx->srv, "event=agones_enabled"));

  int ready = index_of(log, "POST", "/ready"), label = index_of(log, "PUT", "/metadata/label");
  int get = index_of(log, "GET", "/gameserver"), watch = index_of(log, "GET", "/watch/gameserver");
  int counter = index_of(log, "PATCH", "/v1beta1/counters/rooms");
  printf("order: ready=%d label=%d gameserver=%d watch=%d counter=%d\n", ready, label, get, watch, counter);
  assert_true(ready == 0 && label > ready && get > label && watch > ready && counter > ready);

  const cJSON *r[64];
  assert_int_equal(find_requests(log, "PUT", "/metadata/label", r, 64), 1);
  cJSON *kv = cJSON_Parse(str_of(r[0], "body"));
  assert_string_equal(str_of(kv, "key"), "tress-version");
  assert_string_equal(str_of(kv, "value"), "0.1.0");
  cJSON_Delete(kv);
  const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(log, "gameserver"), "object_meta"), "labels");
  assert_string_equal(str_of(labels, "agones.dev/sdk-tress-version"), "0.1.0");
  assert_int_equal(find_requests(log, "PATCH", "/v1beta1/counters/rooms", r, 64), 1);
  assert_string_equal(str_of(r[0], "body"), "{\"count\":\"0\"}"); /* int64 as a string, no room yet */
  assert_string_equal(str_of(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(log, "gameserver"), "status"), "state"),
                      "Ready");

  /* Pings: "{}" every half period (period 1 s -> 500 ms). */
  int pings = find_requests(log, "POST", "/health", r, 64);
  double gap_sum = 0;
  for (int i = 0; i < pings; i++) {
    assert_string_equal(str_of(r[i], "body"), "{}");
    assert_int_equal(status_of(r[i]), 200);
    if (i) gap_sum += t_of(r[i]) - t_of(r[i - 1]);
  }
  double mean_gap = gap_sum / (pings - 1);
  printf("health: %d pings, mean gap %.0f ms at period %d s\n", pings, mean_gap * 1000, PERIOD_S);
  assert_true(mean_gap > 0.40 && mean_gap < 0.90); /* not the 2.5 s default: the GameServer's period */
  cJSON_Delete(log);

  /* The GameServer asks for 3 s through the watch stream alone: pings every 1.5 s from then on. */
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/health", "{\"period_seconds\": 3}"), 200);
  double changed = mono_s();
  sleep(5);
  log = fake_log(&fx->fake);
  pings = find_requests(log, "POST", "/health", r, 64);
  int after = 0;
  double last = 0, gap_max = 0, gap_min = 1e9;
  for (int i = 0; i < pings; i++) {
    if (t_of(r[i]) < changed + 0.8) continue; /* the ping timer already armed at the old period */
    if (after++) {
      double g = t_of(r[i]) - last;
      gap_max = g > gap_max ? g : gap_max;
      gap_min = g < gap_min ? g : gap_min;
    }
    last = t_of(r[i]);
  }
  printf("after the watch event (period 3 s): %d pings, gaps %.0f..%.0f ms\n", after, gap_min * 1000, gap_max * 1000);
  assert_true(after >= 2 && after <= 4);
  assert_true(gap_min > 1.3 && gap_max < 2.2);
  assert_int_equal(find_requests(log, "GET", "/gameserver", r, 64), 1); /* the watch, not polling */
  assert_no_violations(log);
  cJSON_Delete(log);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

/* The fake answers as the gateway does: 400 for an empty health body, 405 for a wrong method,
 * 400 for an int64 sent as a number or an undocumented field; each is listed as a violation. */
static void test_fake_rejects_what_the_swagger_does_not_document(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-fake");
  uint16_t p = fx->fake.port;
  assert_int_equal(fake_send(p, "POST", "/health", ""), 400);
  assert_int_equal(fake_send(p, "POST", "/health", "{}"), 200);
  assert_int_equal(fake_send(p, "GET", "/ready", ""), 405);
  assert_int_equal(fake_send(p, "POST", "/nothing", "{}"), 404);
  assert_int_equal(fake_send(p, "PATCH", "/v1beta1/counters/rooms", "{\"count\": 3}"), 400);
  assert_int_equal(fake_send(p, "PATCH", "/v1beta1/counters/rooms", "{\"count\": \"3\", \"extra\": 1}"), 400);
  assert_int_equal(fake_send(p, "PATCH", "/v1beta1/counters/rooms", "{\"count\": \"3\"}"), 200);
  assert_int_equal(fake_send(p, "PATCH", "/v1beta1/counters/nope", "{\"count\": \"3\"}"), 404);
  assert_int_equal(fake_send(p, "POST", "/v1beta1/lists/rooms:addValue", "{\"value\": \"a\"}"), 200);
  assert_int_equal(fake_send(p, "POST", "/v1beta1/lists/rooms:addValue", "{\"value\": \"a\"}"), 409);
  assert_int_equal(fake_send(p, "POST", "/v1beta1/lists/rooms:removeValue", "{\"value\": \"b\"}"), 404);
  assert_int_equal(fake_send(p, "PUT", "/metadata/label", "{\"key\": \"k\", \"value\": \"has space\"}"), 400);
  cJSON *log = fake_log(&fx->fake);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(log, "violations")), 5); /* the label and the unknown counter are answers, not violations */
  cJSON_Delete(log);
}

/* A label the sidecar refuses (a 4xx) is not asked for again, and the rest goes on. */
static void test_refused_label_is_not_retried(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-label");
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/reset", "{\"period_seconds\": 1, \"refuse_labels\": true}"), 200);
  start_server_with_sdk(fx, fx->fake.port, NULL);
  assert_int_equal(wait_requests(&fx->fake, "GET", "/gameserver", 1, 10), 0);
  sleep(1);
  cJSON *log = fake_log(&fx->fake);
  const cJSON *r[8];
  assert_int_equal(find_requests(log, "PUT", "/metadata/label", r, 8), 1);
  assert_int_equal(status_of(r[0]), 400);
  assert_no_violations(log);
  cJSON_Delete(log);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_label_refused status=400"), 1);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

static uint16_t free_tcp_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  socklen_t len = sizeof a;
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  getsockname(fd, (struct sockaddr *)&a, &len);
  close(fd);
  return ntohs(a.sin_port);
}

static void test_late_sidecar(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-late");
  uint16_t port = free_tcp_port();
  start_server_with_sdk(fx, port, NULL);
  sleep(2); /* the server is up and serving; its Ready is refused meanwhile */
  assert_true(th_server_log_count(&fx->srv, "event=agones_retry call=ready") >= 1);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_call_ok call=ready"), 0);
  char *body = NULL;
  assert_int_equal(th_http_get(fx->srv.http_port, "/healthz", &body), 200);
  free(body);
  assert_int_equal(fake_start(&fx->late, fx->srv.dir, port), 0);
  double sidecar_up = mono_s();
  assert_int_equal(wait_requests(&fx->late, "POST", "/ready", 1, 10), 0);
  cJSON *log = fake_log(&fx->late);
  const cJSON *r[4];
  assert_int_equal(find_requests(log, "POST", "/ready", r, 4), 1);
  double delay = t_of(r[0]) - sidecar_up;
  printf("late sidecar: Ready %.0f ms after the sidecar came up (backoff cap 2000 ms)\n", delay * 1000);
  assert_true(delay < 3.0);
  assert_int_equal(wait_requests(&fx->late, "GET", "/gameserver", 1, 5), 0);
  cJSON_Delete(log);
  log = fake_log(&fx->late);
  assert_no_violations(log);
  cJSON_Delete(log);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_call_ok call=ready attempts=1 "), 0);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

static void test_health_stops_while_loop_blocked(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-stall");
  setenv("TRESS_TEST_ONLY_LOOP_STALL_MS", "2500", 1);
  start_server_with_sdk(fx, fx->fake.port, NULL);
  unsetenv("TRESS_TEST_ONLY_LOOP_STALL_MS");
  assert_int_equal(wait_requests(&fx->fake, "POST", "/health", 3, 10), 0);
  double stalled = mono_s();
  assert_int_equal(kill(fx->srv.pid, SIGUSR2), 0);
  sleep(4);
  cJSON *log = fake_log(&fx->fake);
  const cJSON *r[128];
  int pings = find_requests(log, "POST", "/health", r, 128), during = 0, after = 0;
  double gap_max = 0;
  for (int i = 0; i < pings; i++) {
    double t = t_of(r[i]);
    if (t > stalled + 0.2 && t < stalled + 2.3) during++;
    if (t > stalled + 2.5) after++;
    if (i && t - t_of(r[i - 1]) > gap_max) gap_max = t - t_of(r[i - 1]);
  }
  printf("loop blocked 2500 ms: %d pings during, %d after, longest gap %.0f ms\n", during, after, gap_max * 1000);
  assert_int_equal(th_server_log_count(&fx->srv, "event=test_only_loop_stall"), 1);
  assert_int_equal(during, 0);
  assert_true(gap_max > 2.3);
  assert_true(after >= 1); /* and they resume with the loop */
  cJSON_Delete(log);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

static void test_rooms_counter_and_list(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-rooms");
  start_server_with_sdk(fx, fx->fake.port, NULL);
  assert_int_equal(wait_requests(&fx->fake, "POST", "/ready", 1, 10), 0);
  th_client *a = join(&fx->srv, "ann", "alpha");
  wait_rooms(&fx->fake, "alpha", 1);
  th_client *b = join(&fx->srv, "bob", "beta");
  th_client *c = join(&fx->srv, "cid", "alpha"); /* a second member opens no room */
  wait_rooms(&fx->fake, "alpha,beta", 2);
  leave(a);
  usleep(500 * 1000);
  wait_rooms(&fx->fake, "alpha,beta", 2); /* cid is still in alpha */
  leave(c);
  wait_rooms(&fx->fake, "beta", 1);
  leave(b);
  wait_rooms(&fx->fake, "", 0);

  cJSON *log = fake_log(&fx->fake);
  assert_no_violations(log);
  const cJSON *r[64];
  assert_int_equal(find_requests(log, "POST", "/v1beta1/lists/rooms:addValue", r, 64), 2);
  assert_string_equal(str_of(r[0], "body"), "{\"value\":\"alpha\"}");
  assert_string_equal(str_of(r[1], "body"), "{\"value\":\"beta\"}");
  assert_int_equal(find_requests(log, "POST", "/v1beta1/lists/rooms:removeValue", r, 64), 2);
  int counts = find_requests(log, "PATCH", "/v1beta1/counters/rooms", r, 64);
  printf("rooms: %d counter updates, last %s\n", counts, str_of(r[counts - 1], "body"));
  assert_true(counts >= 4 && counts <= 5); /* 0 at start, then 1, 2, 1, 0: absolute counts, coalesced */
  assert_string_equal(str_of(r[counts - 1], "body"), "{\"count\":\"0\"}");
  cJSON_Delete(log);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

static void test_shutdown_after_drain(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-shutdown");
  start_server_with_sdk(fx, fx->fake.port, NULL);
  th_client *c = join(&fx->srv, "gil", "gamma");
  wait_rooms(&fx->fake, "gamma", 1);
  kill(fx->srv.pid, SIGTERM);
  /* The drain tells the client and disconnects it, then the loop ends. */
  for (double t0 = mono_s(); !c->disconnected && mono_s() - t0 < 5;) th_client_pump(c, 20);
  assert_true(c->disconnected);
  assert_int_equal(th_server_stop(&fx->srv, 0, 15000), 0);
  cJSON *log = fake_log(&fx->fake);
  assert_no_violations(log);
  const cJSON *requests = cJSON_GetObjectItemCaseSensitive(log, "requests");
  const cJSON *last = cJSON_GetArrayItem(requests, cJSON_GetArraySize(requests) - 1);
  assert_string_equal(str_of(last, "path"), "/shutdown"); /* the last call: nothing after it */
  assert_string_equal(str_of(last, "body"), "{}");
  assert_int_equal(status_of(last), 200);
  const cJSON *r[4];
  assert_int_equal(find_requests(log, "POST", "/shutdown", r, 4), 1);
  assert_string_equal(str_of(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(log, "gameserver"), "status"), "state"),
                      "Shutdown");
  cJSON_Delete(log);
  /* After the drain: shutdown_complete (no peer, no job left) comes before the call's answer. */
  int drained = log_line_of(&fx->srv, "event=shutdown_complete"), answered = log_line_of(&fx->srv, "event=agones_shutdown status=200");
  printf("shutdown: drain done at log line %d, Shutdown answered at line %d\n", drained, answered);
  assert_true(drained >= 0 && answered > drained);
  leave(c);
}

static int wait_log(const th_server *srv, const char *needle, int n, double timeout_s) {
  for (double t0 = mono_s(); mono_s() - t0 < timeout_s; usleep(50000))
    if (th_server_log_count(srv, needle) >= n) return 0;
  return -1;
}

#if TRESS_AGONES_TEST_REDIS
/* GET key until it equals want (or the timeout): 0 or -1; the last value in got. */
static int wait_value(const th_redis *r, const char *key, const char *want, char *got, size_t cap, double timeout_s) {
  for (double t0 = mono_s(); mono_s() - t0 < timeout_s; usleep(50000)) {
    char *v = th_redis_cmdf(r, "GET %s", key);
    snprintf(got, cap, "%s", v ? v : "(no answer)");
    free(v);
    if (strcmp(got, want) == 0) return 0;
  }
  return -1;
}
#endif

/* Without advertise_address, the GameServer's status.address and the Fleet's port (`enet`, else
 * the first) become the advertised address once they appear; a room lease held under the default
 * is rewritten at its renewal (not lost), a new one is claimed with it. */
static void test_advertises_gameserver_address(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-address");
#if TRESS_AGONES_TEST_REDIS
  th_redis redis = {0};
  bool with_redis = th_redis_server_path() != NULL;
  if (with_redis) {
    th_redis_init(&redis);
    assert_int_equal(th_redis_start(&redis, NULL), 0);
  }
  const char *extra[] = {"--cache-url", redis.url, "--cache-timeout-ms", "1000", "--room-lease-ms", "600", NULL};
  start_server_with_sdk(fx, fx->fake.port, with_redis ? extra : NULL);
#else
  start_server_with_sdk(fx, fx->fake.port, NULL);
#endif
  assert_int_equal(wait_requests(&fx->fake, "GET", "/gameserver", 1, 10), 0);
  th_client *a = join(&fx->srv, "ann", "atlas");
  usleep(300 * 1000);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_advertised"), 0); /* no address yet: the default */
#if TRESS_AGONES_TEST_REDIS
  char got[256];
  if (with_redis) {
    char *v = th_redis_cmdf(&redis, "GET tress:room:atlas");
    assert_non_null(v);
    assert_true(strcmp(v, "(nil)") != 0 && strstr(v, "10.1.2.3") == NULL);
    printf("address: the lease before status.address: %s\n", v);
    free(v);
  }
#endif
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/status",
                             "{\"address\": \"10.1.2.3\", \"ports\": [{\"name\": \"ops\", \"port\": 9000}, "
                             "{\"name\": \"enet\", \"port\": 7654}]}"),
                   200);
  assert_int_equal(wait_log(&fx->srv, "event=agones_advertised address=10.1.2.3:7654", 1, 10), 0);
#if TRESS_AGONES_TEST_REDIS
  if (with_redis) {
    if (wait_value(&redis, "tress:room:atlas", "10.1.2.3:7654", got, sizeof got, 5) != 0)
      fail_msg("the held lease was not rewritten: %s", got);
    th_client *b = join(&fx->srv, "bob", "borealis");
    assert_int_equal(wait_value(&redis, "tress:room:borealis", "10.1.2.3:7654", got, sizeof got, 5), 0);
    leave(b);
    assert_int_equal(th_server_log_count(&fx->srv, "event=room_lease_lost"), 0);
  }
#endif
  /* The same status again (any watch event) logs nothing; only the port named like the Fleet's counts. */
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/health", "{\"period_seconds\": 2}"), 200);
  assert_int_equal(wait_log(&fx->srv, "event=agones_health_period period_s=2", 1, 10), 0);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_advertised"), 1);
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/status", "{\"ports\": [{\"name\": \"other\", \"port\": 8123}]}"), 200);
  assert_int_equal(wait_log(&fx->srv, "event=agones_advertised address=10.1.2.3:8123", 1, 10), 0);
  leave(a);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
  cJSON *log = fake_log(&fx->fake);
  assert_no_violations(log);
  cJSON_Delete(log);
#if TRESS_AGONES_TEST_REDIS
  if (with_redis) th_redis_cleanup(&redis);
#endif
}

/* advertise_address set: it is what clients reach, whatever the GameServer says. */
static void test_explicit_advertise_address_wins(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-address-explicit");
  const char *extra[] = {"--advertise-address", "play.example:7000", NULL};
  start_server_with_sdk(fx, fx->fake.port, extra);
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/status",
                             "{\"address\": \"10.1.2.3\", \"ports\": [{\"name\": \"enet\", \"port\": 7654}]}"),
                   200);
  assert_int_equal(wait_requests(&fx->fake, "GET", "/gameserver", 1, 10), 0);
  assert_int_equal(fake_send(fx->fake.port, "POST", "/__fake/health", "{\"period_seconds\": 2}"), 200);
  assert_int_equal(wait_log(&fx->srv, "event=agones_health_period period_s=2", 1, 10), 0);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones_advertised"), 0);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
}

static void test_standalone_without_env(void **state) {
  fixture *fx = *state;
  th_server_init(&fx->srv, "agones-standalone");
  unsetenv("AGONES_SDK_HTTP_PORT");
  assert_int_equal(th_server_start(&fx->srv, NULL), 0);
  th_client *c = join(&fx->srv, "hal", "delta");
  sleep(1);
  leave(c);
  assert_int_equal(th_server_stop(&fx->srv, SIGTERM, 15000), 0);
  assert_int_equal(th_server_log_count(&fx->srv, "event=agones"), 0);
  cJSON *log = fake_log(&fx->fake);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(log, "requests")), 0);
  cJSON_Delete(log);
}

static int group_setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  if (!fx) return -1;
  snprintf(fx->dir, sizeof fx->dir, "/tmp/tress-it-agones-fake-XXXXXX");
  if (!mkdtemp(fx->dir) || fake_start(&fx->fake, fx->dir, 0) != 0) {
    fprintf(stderr, "the fake SDK sidecar did not start\n");
    free(fx);
    return -1;
  }
  *state = fx;
  return 0;
}

static int group_teardown(void **state) {
  fixture *fx = *state;
  fake_stop(&fx->fake);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", fx->dir);
  free(fx);
  return 0;
}

static int setup(void **state) {
  fixture *fx = *state;
  memset(&fx->srv, 0, sizeof fx->srv);
  memset(&fx->late, 0, sizeof fx->late);
  char reset[64];
  snprintf(reset, sizeof reset, "{\"period_seconds\": %d}", PERIOD_S);
  return fake_send(fx->fake.port, "POST", "/__fake/reset", reset) == 200 ? 0 : -1;
}

static int teardown(void **state) {
  fixture *fx = *state;
  th_server_cleanup(&fx->srv); /* the server first: its watch stream ends with it */
  fake_stop(&fx->late);
  return 0;
}

int main(void) {
  char probe[700];
  snprintf(probe, sizeof probe, "'%s' -c 'import jsonschema' >/dev/null 2>&1", python());
  if (system(probe) != 0) {
    printf("test_server_agones: skipped: %s with the jsonschema module is needed for the fake SDK sidecar\n", python());
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_call_order_and_bodies, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fake_rejects_what_the_swagger_does_not_document, setup, teardown),
      cmocka_unit_test_setup_teardown(test_late_sidecar, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refused_label_is_not_retried, setup, teardown),
      cmocka_unit_test_setup_teardown(test_health_stops_while_loop_blocked, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rooms_counter_and_list, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shutdown_after_drain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_advertises_gameserver_address, setup, teardown),
      cmocka_unit_test_setup_teardown(test_explicit_advertise_address_wins, setup, teardown),
      cmocka_unit_test_setup_teardown(test_standalone_without_env, setup, teardown),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
