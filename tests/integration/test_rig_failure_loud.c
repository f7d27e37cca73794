/* test_rig_failure_loud.c - a rig that fails is heard everywhere it matters: the client's on_error
 * (tress-bot prints it as a warning), the server log at warn level, /metrics by reason, and
 * tress-bot's exit status (1 unless --allow-fallback). A real tress-server whose store holds a
 * hair file that does not load, and the real tress-bot spawning a character wearing it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "support/server_harness.h"

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

/* Runs tress-bot against s with manifest plus extra flags; stdout and stderr to files in s->dir. */
static int run_bot(const th_server *s, const char *manifest, const char *extra) {
  char cmd[2400];
  snprintf(cmd, sizeof cmd,
           "'%s/client/bot/tress-bot' --server 127.0.0.1:%u --room broken --manifest '%s' --duration 1.5 --json %s "
           ">'%s/bot.json' 2>'%s/bot.err'",
           getenv("TRESS_BINARY_DIR"), s->udp_port, manifest, extra, s->dir, s->dir);
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_rig_failure_reaches_on_error_log_metrics_and_exit_status(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "rig-failure");
  /* a store of one hair file that claims to be a GLB and is not */
  snprintf(s.assets, sizeof s.assets, "%s/store", s.dir);
  char path[700], manifest[700];
  mkdir(s.assets, 0755);
  snprintf(path, sizeof path, "%s/meshes", s.assets);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/meshes/broken.glb", s.assets);
  write_file(path, "glTF\x02\x00\x00\x00 this is not a binary glTF body");
  snprintf(manifest, sizeof manifest, "%s/broken.json", s.dir);
  write_file(manifest, "{\"character\": \"Broke\", \"parts\": [{\"name\": \"Head\", \"position\": [0, 4.5, 0]}],"
                       " \"accessories\": [{\"name\": \"Hair\", \"type\": \"Hair\", \"mesh\": \"meshes/broken.glb\","
                       " \"worn_on\": \"Head\"}]}");
  assert_int_equal(th_server_start(&s, NULL), 0);

  assert_int_equal(run_bot(&s, manifest, ""), 1);
  char err_path[700], json_path[700];
  snprintf(err_path, sizeof err_path, "%s/bot.err", s.dir);
  snprintf(json_path, sizeof json_path, "%s/bot.json", s.dir);
  const char *err = read_text(err_path);
  assert_non_null(err);
  print_message("%s", err);
  assert_non_null(strstr(err, "warning: character 1 accessory 0 ('Hair'): the server could not rig 'meshes/broken.glb'"));
  assert_non_null(strstr(err, "1 rig(s) fell back to a pendulum"));
  cJSON *report = cJSON_Parse(read_text(json_path));
  assert_non_null(report);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  assert_int_equal(cJSON_GetObjectItem(report, "rigs_fallback")->valueint, 1);
  cJSON_Delete(report);

  assert_int_equal(th_server_log_count(&s, "level=warn event=rig_failed"), 1);
  assert_true(th_metric(s.http_port, "tress_rig_failures_total{reason=\"rig_failed\"}") == 1.0);

  /* a load test that accepts fallbacks says so and passes; the failure is still counted */
  assert_int_equal(run_bot(&s, manifest, "--allow-fallback"), 0);
  assert_true(th_metric(s.http_port, "tress_rig_failures_total{reason=\"rig_failed\"}") == 2.0);
  assert_int_equal(th_server_log_count(&s, "level=warn event=rig_failed"), 2);

  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rig_failure_reaches_on_error_log_metrics_and_exit_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
