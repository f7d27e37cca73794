/* test_client_preskinned.c - a pre-skinned accessory over the network: a real tress-server and
 * real clients. The sample character Cora (assets/characters/cape.json) wears a cape that
 * carries its own skin (has_bones); the server verifies the file and relays its bones in a
 * RIG_RESULT, rigging nothing, and every client binds the cape's own joints as chains: the same
 * bone names and the same drawn poses after the same root motion, with nothing on the wire
 * after bind. Files that are not a usable skin get RIG_FAILED with a reason that says why. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "support/client_loop.h"
#include "support/server_harness.h"
#include "support/scene_names.h"
#include "tress/client.h"
#include "tress/gltf.h"

#define CAPE_FILE "cape.json"
#define CAPE_ASSET "meshes/cape_skinned.glb"
#define CAPE_BONES 13

static int protocol_errors;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c, (void)user;
  if (kind == TRESS_CLIENT_ERROR_PROTOCOL) protocol_errors++;
  fprintf(stderr, "client: %s\n", message);
}

static tress_client *client(th_server *s, const char *room) {
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.sim.max_distance = 1e5f;
  def.connect_timeout_ms = 1000;
  def.callbacks = (tress_client_callbacks){.on_error = on_error};
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", s->udp_port, "", room, NULL), TRESS_OK);
  return c;
}

/* The first character of c once it is bound with the cape's bones; 0 before. */
static uint32_t bound_with_bones(tress_client *c) {
  uint32_t id = 0;
  tress_client_character_info info;
  if (tress_client_get_character_ids(c, &id, 1) == 0 || tress_client_get_character_info(c, id, &info) != TRESS_OK)
    return 0;
  return info.bound && info.bone_count > 0 ? id : 0;
}

static void pump(tress_client **cs, int n, th_client *observer, int ms) {
  for (int t = 0; t < ms; t += 2) {
    for (int i = 0; i < n; i++) tress_client_service_wait(cs[i], i == 0 ? 2 : 0);
    th_client_pump(observer, 0);
  }
}

/* The root walks at (WALK_X t, 0, WALK_Z t) studs: a function of time. */
#define WALK_X 4.0
#define WALK_Z -1.5

static void test_two_clients_bind_the_capes_own_bones_and_nothing_follows(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "preskinned");
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client observer;
  assert_int_equal(th_client_connect(&observer, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(&observer, "observer", "capes"), 0);
  tress_client *cs[2] = {client(&s, "capes"), client(&s, "capes")};
  pump(cs, 2, &observer, 300);

  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, CAPE_FILE, 1), 0);
  assert_true(spawn.spawn_character.manifest.accessories[0].handle_has_bones);
  assert_int_equal(tress_client_spawn(cs[0], &spawn.spawn_character.manifest, NULL, NULL), TRESS_OK);
  th_spawn_free(&spawn);
  for (int t = 0; t < 20000 && !(bound_with_bones(cs[0]) && bound_with_bones(cs[1])); t += 10) pump(cs, 2, &observer, 10);
  uint32_t a = bound_with_bones(cs[0]), b = bound_with_bones(cs[1]);
  assert_true(a != 0 && a == b);

  /* What the server sent: the file's own joints, parents first, its four-joint skin. */
  const tress_msg *r = th_client_wait(&observer, TRESS_MSG_RIG_RESULT, 2000);
  assert_non_null(r);
  const tress_msg_rig_result *rr = &r->rig_result;
  assert_int_equal(rr->bone_count, CAPE_BONES);
  assert_string_equal(rr->bones[0].name, "CapeRoot");
  assert_int_equal(rr->bones[0].parent, -1);
  for (uint32_t i = 1; i < rr->bone_count; i++) assert_true(rr->bones[i].parent >= 0 && rr->bones[i].parent < (int)i);
  assert_int_equal(rr->skin.vertex_count, 99);
  assert_int_equal(rr->skin.influences, 4);
  tress_wire_error err;
  size_t cap = tress_msg_get_encode_bound(r), len = 0;
  uint8_t *bytes = malloc(cap);
  assert_int_equal(tress_msg_encode(r, bytes, cap, &len, &err), TRESS_WIRE_OK);
  free(bytes);
  printf("cape RIG_RESULT: %zu bytes (%u bones, %u vertices, %u influences, compression %u)\n", len, rr->bone_count,
         rr->skin.vertex_count, rr->skin.influences, rr->skin.compression);
  assert_int_equal(th_client_count(&observer, TRESS_MSG_RIG_FAILED), 0);

  /* Both clients: the same bones by name, from the server's rig result. */
  assert_int_equal(tress_client_get_accessory_rig_state(cs[0], a, 0), TRESS_RIG_APPLIED);
  assert_int_equal(tress_client_get_accessory_rig_state(cs[1], b, 0), TRESS_RIG_APPLIED);
  tress_id ba[64], bb[64];
  assert_int_equal(tress_client_get_bones(cs[0], a, ba, 64), CAPE_BONES);
  assert_int_equal(tress_client_get_bones(cs[1], b, bb, 64), CAPE_BONES);
  for (uint32_t i = 0; i < CAPE_BONES; i++) {
    assert_string_equal(name_of(tress_client_get_scene(cs[0]), ba[i]).s, rr->bones[i].name);
    assert_string_equal(name_of(tress_client_get_scene(cs[1]), bb[i]).s, rr->bones[i].name);
  }

  /* The same root motion gives the same drawn bones; and they did swing as chains. */
  tress_client_stats before = tress_client_get_stats(cs[1]);
  uint64_t observer_before = observer.bytes_received;
  client_walk(cs[0], a, 60, 1.5, WALK_X, WALK_Z);
  client_walk(cs[1], b, 60, 1.5, WALK_X, WALK_Z);
  float ma[64 * 16], mb[64 * 16];
  assert_int_equal(tress_client_get_bone_matrices(cs[0], a, ma, 64), CAPE_BONES);
  assert_int_equal(tress_client_get_bone_matrices(cs[1], b, mb, 64), CAPE_BONES);
  float worst = 0.0f;
  for (uint32_t i = 0; i < 16 * CAPE_BONES; i++) worst = fmaxf(worst, fabsf(ma[i] - mb[i]));
  float sway = 0.0f;
  for (uint32_t i = 0; i < CAPE_BONES; i++)
    sway = fmaxf(sway, tress_xform_distance(tress_bone_get_world(tress_client_get_scene(cs[0]), ba[i]),
                                            tress_bone_get_world_animated(tress_client_get_scene(cs[0]), ba[i])));
  printf("cape: largest bone matrix difference between the clients %.3g, largest swing off the animated pose %.3f\n",
         worst, sway);
  assert_true(worst < 1e-4f);
  assert_true(sway > 0.01f);

  /* After bind the server sends nothing for the character, to either client or the observer. */
  pump(cs, 2, &observer, 500);
  tress_client_stats after = tress_client_get_stats(cs[1]);
  printf("after bind: client %llu bytes, observer %llu bytes\n",
         (unsigned long long)(after.bytes_received - before.bytes_received),
         (unsigned long long)(observer.bytes_received - observer_before));
  assert_int_equal(after.bytes_received, before.bytes_received);
  assert_int_equal(observer.bytes_received, observer_before);
  assert_int_equal(protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  th_client_close(&observer);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* ---- files that are not a usable skin ------------------------------------------------------ */

static void write_bytes(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  fclose(f);
}

static void copy_file(const char *from, const char *to) {
  FILE *f = fopen(from, "rb");
  assert_non_null(f);
  static uint8_t buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  write_bytes(to, buf, n);
}

/* The sample cape, edited, written to the store. */
static void write_cape_variant(const char *store, const char *name, void (*edit)(tress_mesh *)) {
  char path[900];
  tress_error err;
  tress_mesh *m = tress_gltf_load("assets/" CAPE_ASSET, &err);
  assert_non_null(m);
  edit(m);
  snprintf(path, sizeof path, "%s/meshes/%s", store, name);
  assert_int_equal(tress_gltf_write_glb(m, path, &err), 0);
  tress_mesh_release(m);
}

static void halve_weights_of_vertex_7(tress_mesh *m) {
  for (int k = 0; k < 4; k++) m->weights[4 * 7 + k] *= 0.5f;
}

static void name_joint_5_capeRoot(tress_mesh *m) { snprintf(m->bones[5].name, sizeof m->bones[5].name, "CapeRoot"); }

/* Spawns Cora wearing `asset` as her pre-skinned cape; returns the first RIG_RESULT or
 * RIG_FAILED for it. */
static const tress_msg *spawn_wearing(th_client *c, const char *asset, uint32_t request_id) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, CAPE_FILE, request_id), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "%s", asset);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *added = th_client_wait(c, TRESS_MSG_CHARACTER_ADDED, 5000);
  assert_non_null(added);
  uint32_t id = added->character_added.character_id;
  const tress_msg *bind = th_client_wait(c, TRESS_MSG_BIND, 10000);
  assert_non_null(bind);
  assert_int_equal(bind->bind.character_id, id);
  th_client_pump(c, 200); /* the bulk channel may deliver after BIND */
  for (uint32_t i = 0; i < c->inbox_count; i++) {
    const tress_msg *m = &c->inbox[i];
    if ((m->type == TRESS_MSG_RIG_FAILED && m->rig_failed.character_id == id) ||
        (m->type == TRESS_MSG_RIG_RESULT && m->rig_result.character_id == id))
      return m;
  }
  return NULL;
}

static void expect_failure(th_client *c, const char *asset, uint32_t request_id, const char *reason) {
  const tress_msg *m = spawn_wearing(c, asset, request_id);
  assert_non_null(m);
  print_message("%s: %s\n", asset, m->type == TRESS_MSG_RIG_FAILED ? m->rig_failed.reason : "(a RIG_RESULT)");
  assert_int_equal(m->type, TRESS_MSG_RIG_FAILED);
  assert_int_equal(m->rig_failed.code, TRESS_CODE_RIG_FAILED);
  assert_non_null(strstr(m->rig_failed.reason, reason));
}

static void test_unusable_files_fail_with_their_reason(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "preskinned-bad");
  char path[900], from[900];
  snprintf(s.assets, sizeof s.assets, "%s/store", s.dir);
  mkdir(s.assets, 0755);
  snprintf(path, sizeof path, "%s/meshes", s.assets);
  mkdir(path, 0755);
  snprintf(from, sizeof from, "%s/assets/" CAPE_ASSET, th_source_dir());
  snprintf(path, sizeof path, "%s/" CAPE_ASSET, s.assets);
  copy_file(from, path);
  snprintf(from, sizeof from, "%s/assets/meshes/hair_bob.glb", th_source_dir());
  snprintf(path, sizeof path, "%s/meshes/unskinned.glb", s.assets);
  copy_file(from, path);
  snprintf(path, sizeof path, "%s/meshes/corrupt.glb", s.assets);
  write_bytes(path, "glTF\x02\x00\x00\x00 not a binary glTF body", 30);
  write_cape_variant(s.assets, "cape_weights.glb", halve_weights_of_vertex_7);
  write_cape_variant(s.assets, "cape_names.glb", name_joint_5_capeRoot);
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client c;
  assert_int_equal(th_client_connect(&c, s.udp_port), 0);
  assert_int_equal(th_client_hello_join(&c, "spawner", "bad-capes"), 0);

  expect_failure(&c, "meshes/unskinned.glb", 1, "the mesh has no skin");
  expect_failure(&c, "meshes/corrupt.glb", 2, "does not load");
  expect_failure(&c, "meshes/cape_weights.glb", 3, "vertex 7's weights sum to 0.5000, not 1");
  expect_failure(&c, "meshes/cape_names.glb", 4, "two joints are named \"CapeRoot\"");
  /* the intact cape in the same store still relays */
  const tress_msg *ok = spawn_wearing(&c, CAPE_ASSET, 5);
  assert_non_null(ok);
  assert_int_equal(ok->type, TRESS_MSG_RIG_RESULT);
  assert_int_equal(ok->rig_result.bone_count, CAPE_BONES);
  th_client_close(&c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_clients_bind_the_capes_own_bones_and_nothing_follows),
      cmocka_unit_test(test_unusable_files_fail_with_their_reason),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
