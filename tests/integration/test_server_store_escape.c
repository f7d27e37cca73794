/* test_server_store_escape.c - a real server loads store assets through the hardened glTF reader:
 *  - a glTF whose buffer is a symlink out of the store, a link to /dev/zero, the absolute path
 *    /dev/zero or a FIFO is refused (the FIFO without hanging a worker) with a RIG_FAILED that
 *    names the asset and the buffer URI and no server path, and the server keeps rigging a good
 *    asset for another client meanwhile;
 *  - a 564-byte sparse-accessor bomb (16.7 M vertices) is refused from its count, before rigging
 *    and quickly;
 *  - a failed rig is remembered for failed_rig_ttl_ms: a repeat spawn gets the same answer with
 *    no new job (tress_rigs_failed_total stays, tress_rig_failures_remembered_total counts it),
 *    and after the TTL, or with the TTL off, the asset is read again. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support/glb_build.h"
#include "support/server_harness.h"

static th_client *joined(th_server *s, const char *name, const char *room) {
  th_client *c = th_client_joined(s, name, room);
  assert_non_null(c);
  return c;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void write_at(const char *dir, const char *name, const void *data, size_t size) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
}

static const float TRIANGLE[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

/* One triangle whose 36 bytes of positions are the external buffer at `uri`. */
static void write_triangle_gltf(const char *dir, const char *name, const char *uri) {
  char text[1024];
  int n = snprintf(text, sizeof text,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"%s\",\"byteLength\":36}],"
                   "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                   "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                   "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],"
                   "\"scenes\":[{\"nodes\":[0]}]}",
                   uri);
  assert_true(n > 0 && (size_t)n < (int)sizeof text);
  write_at(dir, name, text, (size_t)n);
}

/* The bomb as a GLB (support/glb_build.h): POSITION sparse over zeros with 16,777,215
 * elements. */
static void write_sparse_bomb(const char *dir, const char *name) {
  size_t total;
  uint8_t *g = th_glb_sparse_bomb(&total);
  assert_true(total < 700);
  write_at(dir, name, g, total);
  free(g);
}

/* dir/assets: the sample meshes, and next to them every store escape and the bomb; a file the
 * escapes point at sits outside the store, in dir. */
static void make_store(th_server *s) {
  snprintf(s->assets, sizeof s->assets, "%s/assets", s->dir);
  char cmd[2048], path[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes' && cp '%s/assets/meshes/hair_bob.glb' '%s/meshes/'", s->assets,
           th_source_dir(), s->assets);
  assert_int_equal(system(cmd), 0);
  write_at(s->dir, "outside.bin", TRIANGLE, sizeof TRIANGLE);
  write_at(s->assets, "meshes/tri.bin", TRIANGLE, sizeof TRIANGLE);
  write_triangle_gltf(s->assets, "meshes/escape.gltf", "escape.bin");
  snprintf(path, sizeof path, "%s/meshes/escape.bin", s->assets);
  assert_int_equal(symlink("../../outside.bin", path), 0);
  write_triangle_gltf(s->assets, "meshes/zero_link.gltf", "zero.bin");
  snprintf(path, sizeof path, "%s/meshes/zero.bin", s->assets);
  assert_int_equal(symlink("/dev/zero", path), 0);
  write_triangle_gltf(s->assets, "meshes/zero_abs.gltf", "/dev/zero");
  write_triangle_gltf(s->assets, "meshes/fifo.gltf", "fifo.bin");
  snprintf(path, sizeof path, "%s/meshes/fifo.bin", s->assets);
  assert_int_equal(mkfifo(path, 0644), 0);
  write_sparse_bomb(s->assets, "meshes/bomb.glb");
  /* a buffer linked from elsewhere in the store is fine: the store, not the file's directory, is
   * the root */
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes/sub'", s->assets);
  assert_int_equal(system(cmd), 0);
  write_triangle_gltf(s->assets, "meshes/sub/shared.gltf", "tri_link.bin");
  snprintf(path, sizeof path, "%s/meshes/sub/tri_link.bin", s->assets);
  assert_int_equal(symlink("../tri.bin", path), 0);
  /* 36 bytes of triangle in a 4 KiB buffer: over a small max_asset_bytes with the .gltf small */
  uint8_t big[4096] = {0};
  memcpy(big, TRIANGLE, sizeof TRIANGLE);
  write_at(s->assets, "meshes/big.bin", big, sizeof big);
  write_triangle_gltf(s->assets, "meshes/big.gltf", "big.bin");
}

/* Spawns the sample character with `asset` as its hair; the RIG_RESULT / RIG_FAILED it gets. */
static const tress_msg *spawn_hair(th_client *c, const char *asset, uint32_t request_id, tress_msg_type expect) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", request_id), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "%s", asset);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *r = th_client_wait(c, expect, 30000);
  if (!r) fail_msg("%s: no %s", asset, expect == TRESS_MSG_RIG_FAILED ? "RIG_FAILED" : "RIG_RESULT");
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 10000));
  return r;
}

/* A refusal that names the asset and `says`, and carries no path of the server's. */
static void expect_refused(const th_server *s, th_client *c, const char *asset, uint32_t request_id, const char *says) {
  double t0 = now_s();
  const tress_msg *r = spawn_hair(c, asset, request_id, TRESS_MSG_RIG_FAILED);
  double took = now_s() - t0;
  print_message("%s: %s (%s, %.3f s)\n", asset, r->rig_failed.reason,
                tress_wire_code_name((tress_wire_code)r->rig_failed.code), took);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_RIG_FAILED);
  if (!strstr(r->rig_failed.reason, asset)) fail_msg("\"%s\" does not name %s", r->rig_failed.reason, asset);
  if (!strstr(r->rig_failed.reason, says)) fail_msg("\"%s\" does not say \"%s\"", r->rig_failed.reason, says);
  if (strstr(r->rig_failed.reason, s->dir)) fail_msg("\"%s\" carries a server path", r->rig_failed.reason);
  assert_true(took < 5.0); /* refused at once: nothing hangs on a FIFO or reads /dev/zero */
}

/* No log line about a rig names the scratch directory (the store's absolute path). */
static void expect_log_without_paths(const th_server *s) {
  FILE *f = fopen(s->log_path, "r");
  assert_non_null(f);
  char line[4096];
  int rig_lines = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strstr(line, "rig")) continue;
    rig_lines++;
    if (strstr(line, s->dir)) fail_msg("log line carries a server path: %s", line);
  }
  fclose(f);
  assert_true(rig_lines > 0);
}

static void test_store_escapes_refused_server_keeps_serving(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "store-escape");
  make_store(&s);
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client *attacker = joined(&s, "attacker", "r1"), *player = joined(&s, "player", "r2");

  expect_refused(&s, attacker, "meshes/escape.gltf", 1, "'escape.bin' leaves the asset directory");
  expect_refused(&s, attacker, "meshes/zero_link.gltf", 2, "'zero.bin' leaves the asset directory");
  expect_refused(&s, attacker, "meshes/zero_abs.gltf", 3, "/dev/zero");
  expect_refused(&s, attacker, "meshes/fifo.gltf", 4, "'fifo.bin' is not a regular file");
  expect_refused(&s, attacker, "meshes/bomb.glb", 5, "sparse over 16777215 elements, more than the 1000000 allowed");
  /* none of them reached the rigger */
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 5);

  /* a triangle rigs: its buffer is a link out of the file's directory, but still inside the store */
  const tress_msg *shared = spawn_hair(attacker, "meshes/sub/shared.gltf", 7, TRESS_MSG_RIG_RESULT);
  assert_int_equal(shared->rig_result.skin.vertex_count, 3);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 1);
  /* another client, meanwhile, gets its good asset rigged */
  const tress_msg *ok = spawn_hair(player, "meshes/hair_bob.glb", 6, TRESS_MSG_RIG_RESULT);
  assert_true(ok->rig_result.bone_count > 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 2);
  expect_log_without_paths(&s);

  th_client_drop(attacker);
  th_client_drop(player);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_failed_rigs_remembered_for_the_ttl(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "store-negative");
  make_store(&s);
  const char *extra[] = {"--failed-rig-ttl-ms", "1500", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  th_client *c = joined(&s, "again", "r");

  expect_refused(&s, c, "meshes/escape.gltf", 1, "leaves the asset directory");
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 1);
  /* the repeat: the same answer, no job */
  expect_refused(&s, c, "meshes/escape.gltf", 2, "'escape.bin' leaves the asset directory");
  expect_refused(&s, c, "meshes/escape.gltf", 3, "'escape.bin' leaves the asset directory");
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_rig_failures_remembered_total"), 2);
  /* a different asset is its own entry */
  expect_refused(&s, c, "meshes/bomb.glb", 4, "sparse over");
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 2);
  /* past the TTL the asset is read again */
  usleep(1700 * 1000);
  expect_refused(&s, c, "meshes/escape.gltf", 5, "leaves the asset directory");
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 3);
  assert_int_equal((int)th_metric(s.http_port, "tress_rig_failures_remembered_total"), 2);
  /* an edit of the asset file misses the entry at once: fixed, it rigs */
  char path[1200];
  snprintf(path, sizeof path, "%s/meshes/escape.gltf", s.assets);
  write_triangle_gltf(s.assets, "meshes/escape.gltf", "tri.bin");
  const tress_msg *r = spawn_hair(c, "meshes/escape.gltf", 6, TRESS_MSG_RIG_RESULT);
  (void)r;
  assert_int_equal((int)th_metric(s.http_port, "tress_rig_failures_remembered_total"), 2);
  th_client_drop(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);

  /* TTL 0: nothing is remembered, every spawn is a job */
  th_server_init(&s, "store-negative-off");
  make_store(&s);
  const char *off[] = {"--failed-rig-ttl-ms", "0", NULL};
  assert_int_equal(th_server_start(&s, off), 0);
  c = joined(&s, "again", "r");
  expect_refused(&s, c, "meshes/escape.gltf", 1, "leaves the asset directory");
  expect_refused(&s, c, "meshes/escape.gltf", 2, "leaves the asset directory");
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_failed_total"), 2);
  assert_int_equal((int)th_metric(s.http_port, "tress_rig_failures_remembered_total"), 0);
  th_client_drop(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* max_asset_bytes counts the file and its buffers together, before the buffer is read. */
static void test_buffers_count_against_max_asset_bytes(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "store-bytes");
  make_store(&s);
  const char *extra[] = {"--max-asset-bytes", "3000", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  th_client *c = joined(&s, "bytes", "r");
  expect_refused(&s, c, "meshes/big.gltf", 1, "'big.bin' is 4096 bytes, more than the read may still load");
  /* the small buffer fits the same limit */
  const tress_msg *r = spawn_hair(c, "meshes/sub/shared.gltf", 2, TRESS_MSG_RIG_RESULT);
  assert_int_equal(r->rig_result.skin.vertex_count, 3);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 1);
  th_client_drop(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_store_escapes_refused_server_keeps_serving),
      cmocka_unit_test(test_failed_rigs_remembered_for_the_ttl),
      cmocka_unit_test(test_buffers_count_against_max_asset_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
