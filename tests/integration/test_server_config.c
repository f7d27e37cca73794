/* tress-server's configuration and ops surface as an operator meets it: --help, defaults with no
 * file, file < environment < flags, bad settings refused, --health-check against a live and a
 * dead port, JSON logs, /healthz /readyz /stats, and a port file tests (and Docker) can read. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "support/server_harness.h"

/* Runs the server binary with args and env additions; captures stdout. Returns exit status. */
static int run(const char *const *args, const char *const *env, char *out, size_t cap) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    for (int i = 0; env && env[i]; i += 2) setenv(env[i], env[i + 1], 1);
    const char *argv[32];
    int n = 0;
    argv[n++] = getenv("TRESS_SERVER_BIN");
    for (int i = 0; args && args[i]; i++) argv[n++] = args[i];
    argv[n] = NULL;
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(fds[1]);
  size_t len = 0;
  ssize_t r;
  while (len + 1 < cap && (r = read(fds[0], out + len, cap - len - 1)) > 0) len += (size_t)r;
  out[len] = '\0';
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static cJSON *print_config(const char *const *args, const char *const *env) {
  static char out[8192];
  const char *argv[32];
  int n = 0;
  argv[n++] = "--print-config";
  for (int i = 0; args && args[i]; i++) argv[n++] = args[i];
  argv[n] = NULL;
  assert_int_equal(run(argv, env, out, sizeof out), 0);
  cJSON *j = cJSON_Parse(out);
  assert_non_null(j);
  return j;
}

static double num(cJSON *j, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItem(j, key)); }
static const char *str(cJSON *j, const char *key) { return cJSON_GetStringValue(cJSON_GetObjectItem(j, key)); }

static void test_help_and_defaults(void **state) {
  (void)state;
  char out[16384];
  const char *help[] = {"--help", NULL};
  assert_int_equal(run(help, NULL, out, sizeof out), 0);
  assert_non_null(strstr(out, "--udp-port"));
  assert_non_null(strstr(out, "TRESS_CACHE_DIR"));
  assert_non_null(strstr(out, "--health-check"));

  unsetenv("TRESS_CONFIG");
  cJSON *j = print_config(NULL, NULL);
  assert_int_equal((int)num(j, "udp_port"), 7777);
  assert_int_equal((int)num(j, "http_port"), 8080);
  assert_string_equal(str(j, "assets_dir"), "./assets");
  assert_string_equal(str(j, "cache_dir"), "./.tress-cache");
  cJSON_Delete(j);
}

static void test_precedence_file_env_flags(void **state) {
  (void)state;
  char path[] = "/tmp/tress-config-XXXXXX";
  int fd = mkstemp(path);
  const char *json = "{\"udp_port\": 9001, \"http_port\": 9002, \"max_peers\": 100, \"log_format\": \"json\"}";
  assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
  close(fd);
  /* file only */
  const char *args_file[] = {"--config", path, NULL};
  cJSON *j = print_config(args_file, NULL);
  assert_int_equal((int)num(j, "udp_port"), 9001);
  assert_int_equal((int)num(j, "max_peers"), 100);
  assert_string_equal(str(j, "log_format"), "json");
  cJSON_Delete(j);
  /* env beats file; the file may also come from TRESS_CONFIG */
  const char *env[] = {"TRESS_CONFIG", path, "TRESS_UDP_PORT", "9101", "TRESS_MAX_PEERS", "50", NULL};
  j = print_config(NULL, env);
  assert_int_equal((int)num(j, "udp_port"), 9101);
  assert_int_equal((int)num(j, "http_port"), 9002);
  assert_int_equal((int)num(j, "max_peers"), 50);
  cJSON_Delete(j);
  /* flags beat env */
  const char *args_flags[] = {"--port", "9201", "--max-peers=25", "--assets", "/srv/a", NULL};
  j = print_config(args_flags, env);
  assert_int_equal((int)num(j, "udp_port"), 9201);
  assert_int_equal((int)num(j, "max_peers"), 25);
  assert_string_equal(str(j, "assets_dir"), "/srv/a");
  cJSON_Delete(j);
  unlink(path);

  /* Refused: unknown flag, bad number, unknown file key, missing file, bad log format. */
  char out[4096];
  const char *bad1[] = {"--no-such-flag", "1", NULL};
  const char *bad2[] = {"--port", "70000", NULL};
  const char *bad3[] = {"--config", "/nonexistent/tress.json", NULL};
  const char *bad4[] = {"--log-format", "xml", NULL};
  const char *bad5[] = {"--max-peers", "-3", NULL};
  assert_int_equal(run(bad1, NULL, out, sizeof out), 2);
  assert_int_equal(run(bad2, NULL, out, sizeof out), 2);
  assert_int_equal(run(bad3, NULL, out, sizeof out), 2);
  assert_int_equal(run(bad4, NULL, out, sizeof out), 2);
  assert_int_equal(run(bad5, NULL, out, sizeof out), 2);
  char path2[] = "/tmp/tress-config-XXXXXX";
  fd = mkstemp(path2);
  const char *typo = "{\"udp_prot\": 1}";
  assert_int_equal(write(fd, typo, strlen(typo)), (ssize_t)strlen(typo));
  close(fd);
  const char *bad6[] = {"--config", path2, NULL};
  assert_int_equal(run(bad6, NULL, out, sizeof out), 2);
  unlink(path2);
}

static void test_ops_endpoint_and_health_check(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "config");
  const char *extra[] = {"--log-format", "json", "--ops-token", "ops-secret", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  char port[16], out[256];
  snprintf(port, sizeof port, "%u", s.http_port);
  const char *hc[] = {"--health-check", "--http-port", port, NULL};
  assert_int_equal(run(hc, NULL, out, sizeof out), 0);
  char *body = NULL;
  assert_int_equal(th_http_get(s.http_port, "/healthz", &body), 200);
  free(body);
  assert_int_equal(th_http_get(s.http_port, "/readyz", &body), 200);
  free(body);
  assert_int_equal(th_http_get(s.http_port, "/nope", &body), 404);
  free(body);
  assert_int_equal(th_http_get(s.http_port, "/stats", &body), 200);
  cJSON *stats = cJSON_Parse(body);
  free(body);
  assert_non_null(stats);
  assert_non_null(cJSON_GetObjectItem(stats, "cache"));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(stats, "ready")));
  cJSON_Delete(stats);
  assert_int_equal(th_http_get(s.http_port, "/metrics", &body), 200);
  assert_non_null(strstr(body, "# TYPE tress_rig_latency_seconds histogram"));
  assert_non_null(strstr(body, "tress_rig_latency_seconds_bucket{le=\"+Inf\"}"));
  assert_non_null(strstr(body, "tress_bytes_in_total"));
  free(body);
  /* a peer shows up in the gauges */
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "ops", "room-a"), 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_peers"), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_rooms"), 1);
  /* room names only to the ops token (test_server_ops has the refusals) */
  int stats_status = th_http_request("127.0.0.1", s.http_port, "/stats", "Authorization: Bearer ops-secret\r\n", &body);
  assert_non_null(strstr(stats_status == 200 ? body : "", "room-a"));
  free(body);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  /* The log is JSON, one object per line, with the listening event carrying the ports. */
  FILE *f = fopen(s.log_path, "r");
  assert_non_null(f);
  char line[4096];
  int lines = 0, listening = 0;
  while (fgets(line, sizeof line, f)) {
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "event")), "listening") == 0) {
      listening++;
      assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "udp")), s.udp_port);
    }
    cJSON_Delete(o);
    lines++;
  }
  fclose(f);
  assert_true(lines > 3);
  assert_int_equal(listening, 1);
  /* The server is gone: the health check fails. */
  assert_int_equal(run(hc, NULL, out, sizeof out), 1);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_help_and_defaults),
                                     cmocka_unit_test(test_precedence_file_env_flags),
                                     cmocka_unit_test(test_ops_endpoint_and_health_check)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
