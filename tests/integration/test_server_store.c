/* The asset store's optional manifest on a real server: only listed ids are in the store, and a
 * listed asset whose content no longer matches its mesh_hash is refused instead of rigged. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/server_harness.h"
#include "support/mesh_hash_hex.h"
#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"

static const tress_msg *spawn_hair(th_client *c, const char *file, const char *asset, uint32_t request_id,
                                   tress_msg_type expect) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, file, request_id), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "%s", asset);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *r = th_client_wait(c, expect, 30000);
  assert_non_null(r);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 10000));
  return r;
}

static void test_store_manifest(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "store");
  snprintf(s.assets, sizeof s.assets, "%s/assets", s.dir);
  char cmd[2048], bob[700], hex_bob[65], hex_long[65];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes' && cp '%s/assets/meshes/'*.glb '%s/meshes/'", s.assets, th_source_dir(),
           s.assets);
  assert_int_equal(system(cmd), 0);
  snprintf(bob, sizeof bob, "%s/meshes/hair_bob.glb", s.assets);
  mesh_file_hash_hex(bob, hex_bob);
  snprintf(cmd, sizeof cmd, "%s/meshes/hair_long.glb", s.assets);
  mesh_file_hash_hex(cmd, hex_long);
  /* Listed: bob (true hash), ponytail (no hash: learned on load), long (someone else's hash). */
  char manifest[1024], path[700];
  snprintf(manifest, sizeof manifest,
           "{\"assets\": {\"meshes/hair_bob.glb\": {\"mesh_hash\": \"%s\"}, \"meshes/hair_ponytail.glb\": {}, "
           "\"meshes/hair_long.glb\": {\"mesh_hash\": \"%s\"}}}",
           hex_bob, hex_bob);
  snprintf(path, sizeof path, "%s/manifest.json", s.assets);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(manifest, f);
  fclose(f);
  assert_int_not_equal(strcmp(hex_bob, hex_long), 0);

  assert_int_equal(th_server_start(&s, NULL), 0);
  assert_int_equal(th_server_log_count(&s, "manifest=yes"), 1);
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "store", "r"), 0);

  const tress_msg *r = spawn_hair(c, "bo.json", "meshes/hair_bob.glb", 1, TRESS_MSG_RIG_RESULT);
  char got[65];
  tress_mesh_hash_to_hex(r->rig_result.mesh_hash, got);
  assert_string_equal(got, hex_bob); /* the hash the client checks its own copy against */
  spawn_hair(c, "kit.json", "meshes/hair_ponytail.glb", 2, TRESS_MSG_RIG_RESULT);
  /* long's content does not match what the manifest says: refused, not rigged */
  r = spawn_hair(c, "ava.json", "meshes/hair_long.glb", 3, TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_RIG_FAILED);
  assert_non_null(strstr(r->rig_failed.reason, "mesh_hash"));
  /* present on disk but not listed: the store does not have it */
  snprintf(cmd, sizeof cmd, "cp '%s' '%s/meshes/unlisted.glb'", bob, s.assets);
  assert_int_equal(system(cmd), 0);
  r = spawn_hair(c, "bo.json", "meshes/unlisted.glb", 4, TRESS_MSG_RIG_FAILED);
  assert_int_equal(r->rig_failed.code, TRESS_CODE_UNKNOWN_ASSET);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 2);

  /* With the hash known from the manifest, a restarted server answers bob from memory only
   * after one load: first spawn is a disk hit, the second a memory hit, nothing rigged. */
  th_client_close(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  assert_int_equal(th_server_start(&s, NULL), 0);
  assert_int_equal(th_client_connect(c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "store", "r"), 0);
  spawn_hair(c, "bo.json", "meshes/hair_bob.glb", 5, TRESS_MSG_RIG_RESULT);
  spawn_hair(c, "bo.json", "meshes/hair_bob.glb", 6, TRESS_MSG_RIG_RESULT);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_cache_hits_total{tier=\"disk\"}"), 1);
  assert_int_equal((int)th_metric(s.http_port, "tress_cache_hits_total{tier=\"memory\"}"), 1);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);

  /* A manifest that names a path outside the store stops the server at startup. */
  f = fopen(path, "w");
  fputs("{\"assets\": {\"../escape.glb\": {}}}", f);
  fclose(f);
  assert_int_not_equal(th_server_start(&s, NULL), 0);
  assert_true(th_server_log_count(&s, "startup_failed") >= 1);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_store_manifest)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
