/* SIGTERM while a rig is running: clients are told, the queued job is cancelled, the running
 * one finishes and persists, the process exits 0, and the cache holds only whole files (a
 * restart reads the persisted rig back as a clean disk hit). */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <math.h>
#include <time.h>

#include "support/server_harness.h"

/* A dense hair curtain (cols x rows vertices) as OBJ: big enough that rigging takes a while. */
static void write_big_hair(const char *path, int cols, int rows) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int r = 0; r < rows; r++) {
    float y = 1.2f - 2.7f * (float)r / (float)(rows - 1);
    for (int c = 0; c < cols; c++) {
      float a = 6.2831853f * (float)c / (float)cols;
      fprintf(f, "v %.5f %.5f %.5f\n", 0.7f * cosf(a), y, 0.7f * sinf(a));
    }
  }
  for (int r = 0; r + 1 < rows; r++)
    for (int c = 0; c + 1 < cols; c++) {
      int i = r * cols + c + 1;
      fprintf(f, "f %d %d %d\nf %d %d %d\n", i, i + cols, i + 1, i + 1, i + cols, i + cols + 1);
    }
  fclose(f);
}

static void build_spawn(tress_msg *m, const char *asset, uint32_t request_id, tress_wire_part *part,
                        tress_wire_accessory *acc) {
  memset(m, 0, sizeof *m);
  memset(part, 0, sizeof *part);
  memset(acc, 0, sizeof *acc);
  m->type = TRESS_MSG_SPAWN_CHARACTER;
  m->spawn_character.request_id = request_id;
  tress_wire_manifest *mf = &m->spawn_character.manifest;
  snprintf(mf->character_name, sizeof mf->character_name, "Big");
  snprintf(part->name, sizeof part->name, "Head");
  part->size[0] = part->size[1] = part->size[2] = 1.2f;
  part->cframe = tress_xform_from_pos(0, 4.5f, 0);
  snprintf(acc->name, sizeof acc->name, "BigHair");
  acc->type = TRESS_ACCESSORY_HAIR;
  snprintf(acc->mesh_asset_id, sizeof acc->mesh_asset_id, "%s", asset);
  acc->handle_size[0] = 1.4f;
  acc->handle_size[1] = 2.7f;
  acc->handle_size[2] = 1.4f;
  acc->handle_cframe = tress_xform_from_pos(0, 4.5f, 0);
  acc->c0 = acc->c1 = tress_xform_identity();
  mf->part_count = 1;
  mf->parts = part;
  mf->accessory_count = 1;
  mf->accessories = acc;
}

static int count_files(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strstr(e->d_name, needle) != NULL;
  closedir(d);
  return n;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_sigterm_mid_rig(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "shutdown");
  snprintf(s.assets, sizeof s.assets, "%s/assets", s.dir);
  char path[700];
  snprintf(path, sizeof path, "%s/meshes", s.assets);
  assert_int_equal(mkdir(s.assets, 0755), 0);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/meshes/big.obj", s.assets);
  write_big_hair(path, 400, 400);
  char copy[1600];
  snprintf(copy, sizeof copy, "cp '%s' '%s/meshes/big2.obj'", path, s.assets);
  assert_int_equal(system(copy), 0);

  /* One worker thread: the first rig runs, the second waits in the queue (and is cancelled). */
  setenv("UV_THREADPOOL_SIZE", "1", 1);
  const char *extra[] = {"--shutdown-timeout-ms", "120000", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  unsetenv("UV_THREADPOOL_SIZE");
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "big", "r"), 0);
  tress_msg spawn;
  tress_wire_part part;
  tress_wire_accessory acc;
  build_spawn(&spawn, "meshes/big.obj", 1, &part, &acc);
  assert_int_equal(th_client_send(c, &spawn), 0);
  build_spawn(&spawn, "meshes/big2.obj", 2, &part, &acc);
  assert_int_equal(th_client_send(c, &spawn), 0);

  /* Wait until the first job is past loading and inside the rigger, then SIGTERM. */
  double t0 = seconds_now();
  while (th_metric(s.http_port, "tress_rigs_started_total") < 1 && seconds_now() - t0 < 60) th_client_pump(c, 2);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_rig_jobs_in_flight"), 2);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_done_total"), 0);
  double t_term = seconds_now();
  kill(s.pid, SIGTERM);

  /* The client hears why, then is disconnected. */
  const tress_msg *err = th_client_wait(c, TRESS_MSG_ERROR, 10000);
  assert_non_null(err);
  assert_int_equal(err->error.code, TRESS_CODE_SERVER_SHUTTING_DOWN);
  while (!c->disconnected && seconds_now() - t_term < 10) th_client_pump(c, 10);
  assert_true(c->disconnected);
  int code = th_server_stop(&s, 0 /* already signalled */, 120000);
  printf("exit %d, %.2f s after SIGTERM\n", code, seconds_now() - t_term);
  assert_int_equal(code, 0);
  assert_int_equal(count_files(s.cache, ".tmp."), 0);
  assert_int_equal(count_files(s.cache, ".rig"), 1); /* the running rig persisted, the queued one never ran */
  assert_int_equal(th_server_log_count(&s, "event=rig_cancelled"), 1);
  assert_int_equal(th_server_log_count(&s, "event=shutdown_complete"), 1);
  th_client_close(c);

  /* Restart: the persisted file is whole (a disk hit, nothing corrupt). */
  assert_int_equal(th_server_start(&s, NULL), 0);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "big", "r"), 0);
  build_spawn(&spawn, "meshes/big.obj", 3, &part, &acc);
  assert_int_equal(th_client_send(c, &spawn), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 60000));
  assert_int_equal(th_client_count(c, TRESS_MSG_RIG_RESULT), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_cache_hits_total{tier=\"disk\"}"), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_cache_corrupt_total"), 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 0);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGINT, 30000), 0); /* SIGINT drains the same way */
  th_server_cleanup(&s);
}

/* A drain deadline shorter than the running rig: the process still exits 0 at the deadline, and
 * whatever the interrupted worker left is never taken for a cache entry (stray tmp files are
 * swept at the next start, and the rig is simply redone). */
static void test_deadline_before_rig_ends(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "deadline");
  snprintf(s.assets, sizeof s.assets, "%s/assets", s.dir);
  char path[700];
  snprintf(path, sizeof path, "%s/meshes", s.assets);
  assert_int_equal(mkdir(s.assets, 0755), 0);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/meshes/big.obj", s.assets);
  write_big_hair(path, 400, 400);
  const char *extra[] = {"--shutdown-timeout-ms", "30", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "big", "r"), 0);
  tress_msg spawn;
  tress_wire_part part;
  tress_wire_accessory acc;
  build_spawn(&spawn, "meshes/big.obj", 1, &part, &acc);
  assert_int_equal(th_client_send(c, &spawn), 0);
  double t0 = seconds_now();
  while (th_metric(s.http_port, "tress_rigs_started_total") < 1 && seconds_now() - t0 < 60) th_client_pump(c, 2);
  bool rig_running = th_metric(s.http_port, "tress_rigs_done_total") == 0;
  double t_term = seconds_now();
  int code = th_server_stop(&s, SIGTERM, 60000);
  printf("exit %d, %.3f s after SIGTERM (rig was %s)\n", code, seconds_now() - t_term, rig_running ? "running" : "done");
  assert_int_equal(code, 0);
  if (rig_running) assert_int_equal(th_server_log_count(&s, "event=exit_with_running_rig"), 1);
  th_client_close(c);

  assert_int_equal(th_server_start(&s, NULL), 0);
  assert_int_equal(count_files(s.cache, ".tmp."), 0);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "big", "r"), 0);
  build_spawn(&spawn, "meshes/big.obj", 2, &part, &acc);
  assert_int_equal(th_client_send(c, &spawn), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 60000));
  assert_int_equal(th_client_count(c, TRESS_MSG_RIG_RESULT), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_cache_corrupt_total"), 0);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 30000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_sigterm_mid_rig),
                                     cmocka_unit_test(test_deadline_before_rig_ends)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
