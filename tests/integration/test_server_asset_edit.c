/* Asset files edited while a real server runs: each rig request stats the file, and a file that
 * differs from the one last read is re-read and re-hashed, so the client gets the new content's
 * rig (the old one stays in the cache under its own hash). Replaced by rename, rewritten in
 * place, rewritten with the same size and its mtime set back, truncated, turned into a
 * directory, deleted: each answered with the new rig or a specific reason, while another asset
 * keeps rigging. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "support/server_harness.h"
#include "support/mesh_hash_hex.h"
#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"

static const tress_msg *spawn_hair(th_client *c, const char *asset, uint32_t request_id, tress_msg_type expect) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "bo.json", request_id), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "%s", asset);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *r = th_client_wait(c, expect, 30000);
  if (!r) fail_msg("request %u for %s: no %s", request_id, asset, expect == TRESS_MSG_RIG_RESULT ? "rig result" : "rig failure");
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 10000));
  return r;
}

/* The rigged mesh's hash (hex) and vertex count of a RIG_RESULT. */
static uint32_t rig_of(const tress_msg *r, char hex[65]) {
  tress_mesh_hash_to_hex(r->rig_result.mesh_hash, hex);
  return r->rig_result.skin.vertex_count;
}

static void copy_file(const char *from, const char *to) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
  assert_int_equal(system(cmd), 0);
}

/* Rewrites `path` in place (same inode: open without O_TRUNC-by-rename) with the bytes of `from`. */
static void write_in_place(const char *path, const void *bytes, size_t len) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  assert_true(fd >= 0);
  assert_int_equal((long)write(fd, bytes, len), (long)len);
  assert_int_equal(close(fd), 0);
}

static void *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

typedef struct fixture {
  th_server s;
  th_client *c;
  char meshes[700];          /* the source tree's sample meshes */
  char hair[700], other[700]; /* store files: the one edited, one left alone */
  uint32_t next_request;
} fixture;

static void start(fixture *fx, const char *tag) {
  memset(fx, 0, sizeof *fx);
  th_server_init(&fx->s, tag);
  snprintf(fx->s.assets, sizeof fx->s.assets, "%s/assets", fx->s.dir);
  snprintf(fx->meshes, sizeof fx->meshes, "%s/assets/meshes", th_source_dir());
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes'", fx->s.assets);
  assert_int_equal(system(cmd), 0);
  snprintf(fx->hair, sizeof fx->hair, "%s/meshes/hair.glb", fx->s.assets);
  snprintf(fx->other, sizeof fx->other, "%s/meshes/other.glb", fx->s.assets);
  char src[800];
  snprintf(src, sizeof src, "%s/hair_bob.glb", fx->meshes);
  copy_file(src, fx->hair);
  snprintf(src, sizeof src, "%s/hair_ponytail.glb", fx->meshes);
  copy_file(src, fx->other);
  const char *const flags[] = {"--max-characters-per-peer", "64", NULL}; /* every spawn stays alive */
  assert_int_equal(th_server_start(&fx->s, flags), 0);
  fx->c = calloc(1, sizeof *fx->c);
  assert_non_null(fx->c);
  assert_int_equal(th_client_connect(fx->c, fx->s.udp_port), 0);
  assert_int_equal(th_client_hello_join(fx->c, tag, "r"), 0);
  fx->next_request = 1;
}

static void stop(fixture *fx) {
  th_client_close(fx->c);
  free(fx->c);
  assert_int_equal(th_server_stop(&fx->s, SIGTERM, 15000), 0);
  th_server_cleanup(&fx->s);
}

static const tress_msg *rig(fixture *fx, const char *asset, tress_msg_type expect) {
  return spawn_hair(fx->c, asset, fx->next_request++, expect);
}

static void test_replaced_by_rename_and_in_place(void **state) {
  (void)state;
  fixture fx;
  start(&fx, "edit");
  char path[800], hex_bob[65], hex_long[65], hex_pony[65], got[65];
  snprintf(path, sizeof path, "%s/hair_bob.glb", fx.meshes);
  mesh_file_hash_hex(path, hex_bob);
  snprintf(path, sizeof path, "%s/hair_long.glb", fx.meshes);
  mesh_file_hash_hex(path, hex_long);
  snprintf(path, sizeof path, "%s/hair_ponytail.glb", fx.meshes);
  mesh_file_hash_hex(path, hex_pony);

  uint32_t v_bob = rig_of(rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT), got);
  assert_string_equal(got, hex_bob);
  /* asked again unchanged: answered from memory, no re-read */
  assert_int_equal(rig_of(rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT), got), v_bob);
  assert_int_equal((int)th_metric(fx.s.http_port, "tress_cache_hits_total{tier=\"memory\"}"), 1);

  /* 1. atomic replace: write a sibling, rename it over (new inode) */
  char tmp[800];
  snprintf(tmp, sizeof tmp, "%s/meshes/.hair.glb.tmp", fx.s.assets);
  snprintf(path, sizeof path, "%s/hair_long.glb", fx.meshes);
  copy_file(path, tmp);
  assert_int_equal(rename(tmp, fx.hair), 0);
  uint32_t v_long = rig_of(rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT), got);
  assert_string_equal(got, hex_long);
  assert_int_not_equal(v_long, v_bob);
  assert_int_equal(th_server_log_count(&fx.s, "asset_changed"), 1);

  /* 2. rewritten in place (same inode) with another mesh, mtime moved on */
  struct stat before, after;
  assert_int_equal(stat(fx.hair, &before), 0);
  size_t len;
  snprintf(path, sizeof path, "%s/hair_ponytail.glb", fx.meshes);
  void *pony = read_whole(path, &len);
  write_in_place(fx.hair, pony, len);
  free(pony);
  struct timespec later[2] = {{before.st_mtim.tv_sec + 5, 0}, {before.st_mtim.tv_sec + 5, 0}};
  assert_int_equal(utimensat(AT_FDCWD, fx.hair, later, 0), 0);
  assert_int_equal(stat(fx.hair, &after), 0);
  assert_true(after.st_ino == before.st_ino);
  uint32_t v_pony = rig_of(rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT), got);
  assert_string_equal(got, hex_pony);
  assert_int_not_equal(v_pony, v_long);

  /* the old rigs stay valid: putting bob back is a cache hit, not a new rig */
  int rigs = (int)th_metric(fx.s.http_port, "tress_rigs_started_total");
  snprintf(path, sizeof path, "%s/hair_bob.glb", fx.meshes);
  copy_file(path, tmp);
  assert_int_equal(rename(tmp, fx.hair), 0);
  assert_int_equal(rig_of(rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT), got), v_bob);
  assert_string_equal(got, hex_bob);
  assert_int_equal((int)th_metric(fx.s.http_port, "tress_rigs_started_total"), rigs);
  stop(&fx);
}

/* Same size, same inode, and the editor sets the mtime back (touch -r, cp -p): only the ctime
 * says the content changed. */
static void test_same_size_edit_with_mtime_restored(void **state) {
  (void)state;
  fixture fx;
  start(&fx, "ctime");
  char obj[800], src[800], hex_old[65], hex_new[65], got[65];
  snprintf(obj, sizeof obj, "%s/meshes/hair.obj", fx.s.assets);
  snprintf(src, sizeof src, "%s/hair_bob.obj", fx.meshes);
  copy_file(src, obj);
  mesh_file_hash_hex(obj, hex_old);
  rig(&fx, "meshes/hair.obj", TRESS_MSG_RIG_RESULT);
  rig_of(rig(&fx, "meshes/hair.obj", TRESS_MSG_RIG_RESULT), got);
  assert_string_equal(got, hex_old);

  struct stat before, after;
  assert_int_equal(stat(obj, &before), 0);
  size_t len;
  char *text = read_whole(obj, &len);
  char *v = strstr(text, "\nv 0 1.12 0\n");
  assert_non_null(v);
  v[8] = '3'; /* 1.12 -> 1.13: one vertex moves, not one byte more or less */
  usleep(20000); /* let the ctime tick on coarse-timestamp file systems */
  write_in_place(obj, text, len);
  free(text);
  struct timespec old_times[2] = {before.st_atim, before.st_mtim};
  assert_int_equal(utimensat(AT_FDCWD, obj, old_times, 0), 0);
  assert_int_equal(stat(obj, &after), 0);
  assert_true(after.st_ino == before.st_ino && after.st_size == before.st_size);
  assert_true(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
  mesh_file_hash_hex(obj, hex_new);
  assert_int_not_equal(strcmp(hex_old, hex_new), 0);
  rig_of(rig(&fx, "meshes/hair.obj", TRESS_MSG_RIG_RESULT), got);
  assert_string_equal(got, hex_new);
  stop(&fx);
}

static void test_truncated_replaced_by_dir_deleted(void **state) {
  (void)state;
  fixture fx;
  start(&fx, "gone");
  uint32_t v_other = rig(&fx, "meshes/other.glb", TRESS_MSG_RIG_RESULT)->rig_result.skin.vertex_count;
  rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT);

  /* truncated to nothing, then to half a file */
  struct stat st;
  assert_int_equal(stat(fx.hair, &st), 0);
  assert_int_equal(truncate(fx.hair, 0), 0);
  const tress_msg *r = rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_RIG_FAILED);
  assert_non_null(strstr(r->rig_failed.reason, "is empty"));
  char src[800];
  snprintf(src, sizeof src, "%s/hair_bob.glb", fx.meshes);
  copy_file(src, fx.hair);
  assert_int_equal(truncate(fx.hair, st.st_size / 2), 0);
  r = rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_RIG_FAILED);
  assert_non_null(strstr(r->rig_failed.reason, "does not load"));
  /* the other asset is untouched and still answered (from memory) */
  assert_int_equal(rig(&fx, "meshes/other.glb", TRESS_MSG_RIG_RESULT)->rig_result.skin.vertex_count, v_other);

  /* readable again, then replaced by a directory */
  copy_file(src, fx.hair);
  rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT);
  assert_int_equal(unlink(fx.hair), 0);
  assert_int_equal(mkdir(fx.hair, 0755), 0);
  r = rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_UNKNOWN_ASSET);
  assert_non_null(strstr(r->rig_failed.reason, "is not a file"));
  assert_int_equal(rmdir(fx.hair), 0);

  /* deleted: its own message; the other asset still rigs, and a never-present id says so */
  r = rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_UNKNOWN_ASSET);
  assert_non_null(strstr(r->rig_failed.reason, "was deleted from the store"));
  r = rig(&fx, "meshes/never.glb", TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_UNKNOWN_ASSET);
  assert_non_null(strstr(r->rig_failed.reason, "the store has no asset"));
  assert_int_equal(rig(&fx, "meshes/other.glb", TRESS_MSG_RIG_RESULT)->rig_result.skin.vertex_count, v_other);

  /* made unreadable: only meaningful when the server does not run as root */
  copy_file(src, fx.hair);
  rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT);
  assert_int_equal(chmod(fx.hair, 0), 0);
  if (geteuid() != 0) {
    r = rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_FAILED);
    assert_int_equal(r->rig_failed.code, TRESS_CODE_RIG_FAILED);
    assert_non_null(strstr(r->rig_failed.reason, "not readable"));
  } else {
    /* root reads it anyway: the chmod is still a change, re-read to the same hash and rig */
    rig(&fx, "meshes/hair.glb", TRESS_MSG_RIG_RESULT);
  }
  assert_int_equal(rig(&fx, "meshes/other.glb", TRESS_MSG_RIG_RESULT)->rig_result.skin.vertex_count, v_other);
  stop(&fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replaced_by_rename_and_in_place),
      cmocka_unit_test(test_same_size_edit_with_mtime_restored),
      cmocka_unit_test(test_truncated_replaced_by_dir_deleted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
