/* The ops HTTP port under attack and the truth of /healthz, against a real tress-server on
 * loopback with raw-socket HTTP clients:
 * - a 64-connection slowloris (64 source addresses, so the per-address cap does not save it:
 *   the total cap and the header deadline must) while /healthz keeps answering 200 within a
 *   bound, and every slow connection is cut at the header deadline although it never goes idle;
 * - the per-address cap: one address gets no more than its share, another still gets /healthz;
 * - a loop stalled through the test-only hook turns /healthz to 503 with a reason, and back;
 * - /stats shows room names only with "Authorization: Bearer <ops_token>";
 * - http_host and host really are separate binds. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "support/server_harness.h"

#define SLOW_CONNECTIONS 64
#define HEADER_TIMEOUT_MS 1500
/* A /healthz round trip on loopback takes well under 10 ms; a loaded 2-core box can add a few
 * hundred. A starved port answers never (refused or reset), so this bound cannot hide it. */
#define HEALTHZ_BOUND_MS 1000.0

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A TCP connection from source address `from` to to:port, non-blocking once connected; -1 when
 * connect fails. */
static int connect_from(const char *from, const char *to, uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct sockaddr_in src = {.sin_family = AF_INET};
  assert_int_equal(inet_pton(AF_INET, from, &src.sin_addr), 1);
  assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof src), 0);
  struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(port)};
  assert_int_equal(inet_pton(AF_INET, to, &dst.sin_addr), 1);
  if (connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

/* Has the server closed (or reset) this connection? Reads nothing an open one would not send. */
static bool closed_by_server(int fd) {
  char byte;
  ssize_t r = recv(fd, &byte, 1, MSG_DONTWAIT);
  return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* One more header byte; false when the server has closed the connection. */
static bool trickle(int fd) {
  if (closed_by_server(fd)) return false;
  ssize_t w = send(fd, "a", 1, MSG_NOSIGNAL);
  return w == 1;
}

static int healthz_timed(uint16_t port, double *ms, char **body) {
  double t0 = now_ms();
  int status = th_http_get(port, "/healthz", body);
  *ms = now_ms() - t0;
  return status;
}

static void test_slowloris_does_not_starve_healthz(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "ops-slowloris");
  char timeout[16];
  snprintf(timeout, sizeof timeout, "%d", HEADER_TIMEOUT_MS);
  const char *extra[] = {"--http-header-timeout-ms", timeout, NULL};
  assert_int_equal(th_server_start(&s, extra), 0);

  int fds[SLOW_CONNECTIONS];
  bool open_[SLOW_CONNECTIONS];
  double opened = now_ms();
  for (int i = 0; i < SLOW_CONNECTIONS; i++) {
    char from[32];
    snprintf(from, sizeof from, "127.0.1.%d", i + 1); /* 64 attackers, one connection each */
    fds[i] = connect_from(from, "127.0.0.1", s.http_port);
    assert_true(fds[i] >= 0);
    const char start[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    assert_int_equal(send(fds[i], start, sizeof start - 1, MSG_NOSIGNAL), (ssize_t)(sizeof start - 1));
    open_[i] = true;
  }

  int probes = 0, healthy = 0, still_open_early = SLOW_CONNECTIONS;
  double worst = 0;
  /* Trickle a byte on every slow connection each 100 ms (never idle, never done) and probe
   * /healthz from 127.0.0.1 in between, well past the header deadline. */
  while (now_ms() - opened < HEADER_TIMEOUT_MS + 1500) {
    for (int i = 0; i < SLOW_CONNECTIONS; i++)
      if (open_[i]) open_[i] = trickle(fds[i]);
    if (now_ms() - opened < HEADER_TIMEOUT_MS - 500) {
      still_open_early = 0;
      for (int i = 0; i < SLOW_CONNECTIONS; i++) still_open_early += open_[i];
    }
    double ms;
    char *body = NULL;
    int status = healthz_timed(s.http_port, &ms, &body);
    probes++;
    if (status == 200 && ms < HEALTHZ_BOUND_MS) healthy++;
    else fprintf(stderr, "healthz probe %d: status %d in %.0f ms\n", probes, status, ms);
    if (ms > worst) worst = ms;
    free(body);
    usleep(100 * 1000);
  }
  int still_open = 0;
  for (int i = 0; i < SLOW_CONNECTIONS; i++) still_open += open_[i] && !closed_by_server(fds[i]);
  printf("slowloris: %d slow connections held %d before the deadline, %d after; /healthz %d/%d healthy, "
         "worst %.1f ms\n",
         SLOW_CONNECTIONS, still_open_early, still_open, healthy, probes, worst);
  assert_int_equal(still_open_early, SLOW_CONNECTIONS); /* the attack really held its connections */
  assert_int_equal(healthy, probes);
  assert_int_equal(still_open, 0); /* cut at the header deadline although never idle */
  assert_true(th_metric(s.http_port, "tress_http_header_timeouts_total") >= SLOW_CONNECTIONS);
  for (int i = 0; i < SLOW_CONNECTIONS; i++) close(fds[i]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

static void test_per_address_cap(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "ops-per-address");
  const char *extra[] = {"--http-max-connections-per-address", "4", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  enum { TRIES = 20 };
  int fds[TRIES];
  for (int i = 0; i < TRIES; i++) {
    fds[i] = connect_from("127.0.0.2", "127.0.0.1", s.http_port);
    assert_true(fds[i] >= 0); /* the kernel accepts; the server then closes the excess */
    assert_int_equal(send(fds[i], "GET /", 5, MSG_NOSIGNAL), 5);
  }
  usleep(300 * 1000);
  int held = 0;
  for (int i = 0; i < TRIES; i++) held += !closed_by_server(fds[i]);
  printf("per-address cap 4: %d of %d connections from 127.0.0.2 held\n", held, TRIES);
  assert_int_equal(held, 4);
  char *body = NULL;
  assert_int_equal(th_http_get(s.http_port, "/healthz", &body), 200); /* another address */
  free(body);
  for (int i = 0; i < TRIES; i++) close(fds[i]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

static void test_stalled_loop_answers_503(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "ops-stall");
  const char *extra[] = {"--healthz-stale-ms", "300", NULL};
  setenv("TRESS_TEST_ONLY_LOOP_STALL_MS", "2500", 1);
  int started = th_server_start(&s, extra);
  unsetenv("TRESS_TEST_ONLY_LOOP_STALL_MS");
  assert_int_equal(started, 0);
  char *body = NULL;
  assert_int_equal(th_http_get(s.http_port, "/healthz", &body), 200);
  free(body);

  double t0 = now_ms(), ms, worst = 0;
  assert_int_equal(kill(s.pid, SIGUSR2), 0);
  int status = 200;
  double first_503 = -1, back_200 = -1;
  while (now_ms() - t0 < 8000 && back_200 < 0) {
    status = healthz_timed(s.http_port, &ms, &body);
    if (ms > worst) worst = ms;
    if (status == 503 && first_503 < 0) {
      first_503 = now_ms() - t0;
      assert_non_null(body);
      assert_non_null(strstr(body, "loop stalled: no iteration for "));
      assert_non_null(strstr(body, "(bound 300 ms)"));
    }
    if (status == 200 && first_503 >= 0) back_200 = now_ms() - t0;
    if (status != 200 && status != 503) fail_msg("healthz answered %d", status);
    free(body);
    usleep(50 * 1000);
  }
  printf("stalled loop (2500 ms, bound 300 ms): 503 after %.0f ms, 200 again after %.0f ms, worst probe %.1f ms\n",
         first_503, back_200, worst);
  assert_true(first_503 >= 250 && first_503 < 2000); /* not before the bound, well before the stall ends */
  assert_true(back_200 >= 2400);                      /* healthy again only when the loop is */
  assert_true(worst < HEALTHZ_BOUND_MS);              /* the HTTP side answered throughout */
  assert_int_equal(th_server_log_count(&s, "event=test_only_loop_stall"), 1);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

/* The room names /stats shows for these request headers ("" when none, "-" when no room_list). */
static void stats_rooms(uint16_t port, const char *headers, char *out, size_t cap) {
  char *body = NULL;
  assert_int_equal(th_http_request("127.0.0.1", port, "/stats", headers, &body), 200);
  cJSON *stats = cJSON_Parse(body);
  free(body);
  assert_non_null(stats);
  assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(stats, "rooms")), 1); /* counts for all */
  const cJSON *list = cJSON_GetObjectItem(stats, "room_list");
  snprintf(out, cap, "%s", list ? "" : "-");
  const cJSON *room;
  cJSON_ArrayForEach(room, list) {
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s;", cJSON_GetStringValue(cJSON_GetObjectItem(room, "name")));
  }
  cJSON_Delete(stats);
}

static void test_stats_room_names_need_the_ops_token(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "ops-token");
  const char *extra[] = {"--ops-token", "s3cret-ops", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "ops", "private-match-7"), 0);
  char rooms[256];
  stats_rooms(s.http_port, NULL, rooms, sizeof rooms);
  assert_string_equal(rooms, "-");
  stats_rooms(s.http_port, "Authorization: Bearer wrong\r\n", rooms, sizeof rooms);
  assert_string_equal(rooms, "-");
  stats_rooms(s.http_port, "Authorization: Bearer s3cret-op\r\n", rooms, sizeof rooms); /* a prefix */
  assert_string_equal(rooms, "-");
  stats_rooms(s.http_port, "Authorization: Bearer s3cret-opsX\r\n", rooms, sizeof rooms); /* longer */
  assert_string_equal(rooms, "-");
  stats_rooms(s.http_port, "Authorization: Basic s3cret-ops\r\n", rooms, sizeof rooms); /* another scheme */
  assert_string_equal(rooms, "-");
  stats_rooms(s.http_port, "Authorization: Bearer s3cret-ops\r\n", rooms, sizeof rooms);
  assert_string_equal(rooms, "private-match-7;");
  stats_rooms(s.http_port, "authorization: bearer s3cret-ops\r\n", rooms, sizeof rooms); /* case-insensitive */
  assert_string_equal(rooms, "private-match-7;");
  /* Room names appear nowhere else without the token either. */
  char *body = NULL;
  assert_int_equal(th_http_get(s.http_port, "/metrics", &body), 200);
  assert_null(strstr(body, "private-match-7"));
  free(body);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);

  /* No ops_token configured: nobody sees names, not even with an empty bearer. */
  th_server_init(&s, "ops-notoken");
  assert_int_equal(th_server_start(&s, NULL), 0);
  c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "ops", "private-match-8"), 0);
  stats_rooms(s.http_port, "Authorization: Bearer \r\n", rooms, sizeof rooms);
  assert_string_equal(rooms, "-");
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

/* Exit status of `tress-server args...` (stdout and stderr to /dev/null). */
static int run_server(const char *const *args) {
  pid_t pid = fork();
  if (pid == 0) {
    const char *argv[16];
    int n = 0;
    argv[n++] = getenv("TRESS_SERVER_BIN");
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_enet_and_ops_bind_separately(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "ops-binds");
  const char *extra[] = {"--http-host", "127.0.0.3", NULL}; /* the harness binds ENet on 127.0.0.1 */
  assert_int_equal(th_server_start(&s, extra), 0);
  char *body = NULL;
  assert_int_equal(th_http_request("127.0.0.3", s.http_port, "/healthz", NULL, &body), 200);
  free(body);
  assert_int_equal(th_http_request("127.0.0.1", s.http_port, "/healthz", NULL, &body), -1); /* not bound there */
  free(body);
  /* The ENet port is UDP on 127.0.0.1 only: no HTTP over TCP there, no answer to HTTP over UDP. */
  assert_int_equal(th_http_request("127.0.0.1", s.udp_port, "/healthz", NULL, &body), -1);
  free(body);
  int udp = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(s.udp_port)};
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  const char get[] = "GET /healthz HTTP/1.0\r\n\r\n";
  assert_int_equal(sendto(udp, get, sizeof get - 1, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)(sizeof get - 1));
  struct timeval tv = {0, 300 * 1000};
  setsockopt(udp, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char reply[64];
  assert_true(recv(udp, reply, sizeof reply, 0) < 0);
  close(udp);
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "bind", "room"), 0);
  th_client_close(c);
  free(c);
  /* --health-check probes the ops address, not the ENet one. */
  char port[16];
  snprintf(port, sizeof port, "%u", s.http_port);
  const char *hc_ops[] = {"--health-check", "--http-port", port, "--host", "127.0.0.1", "--http-host", "127.0.0.3", NULL};
  assert_int_equal(run_server(hc_ops), 0);
  const char *hc_enet[] = {"--health-check", "--http-port", port, "--host", "127.0.0.1", NULL};
  assert_int_equal(run_server(hc_enet), 1);
  assert_int_equal(th_server_log_count(&s, "http_host=127.0.0.3"), 1);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slowloris_does_not_starve_healthz),
      cmocka_unit_test(test_per_address_cap),
      cmocka_unit_test(test_stalled_loop_answers_503),
      cmocka_unit_test(test_stats_room_names_need_the_ops_token),
      cmocka_unit_test(test_enet_and_ops_bind_separately),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
