/* test_client_bad_server.c - libtress-client against a scripted server (plain ENet + codec):
 * corrupt and out-of-place messages are reported and change nothing; a mesh hash mismatch
 * falls back to the pendulum with a warning; a rig after the bind re-binds bones once. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/client_fake_server.h"
#include "support/alloc_count.h"
#include "tress/client.h"
#include "tress/codec.h"
#include "tress/sample_character.h"

#define HAIR_PATH "assets/meshes/hair_bob.glb"
#define CHARACTER_ID 41

typedef struct counters {
  int errors[4];
  int rigged, bound, removed;
  char last[TRESS_CLIENT_ERROR_MAX];
} counters;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c;
  counters *k = user;
  k->errors[kind]++;
  snprintf(k->last, sizeof k->last, "%s", message);
}
static void on_rigged(void *user, tress_client *c, uint32_t id, tress_id part, const char (*names)[TRESS_NAME_MAX],
                      uint32_t n) {
  (void)c, (void)id, (void)part, (void)names, (void)n;
  ((counters *)user)->rigged++;
}
static void on_bound(void *user, tress_client *c, uint32_t id, uint32_t n) {
  (void)c, (void)id, (void)n;
  ((counters *)user)->bound++;
}
static void on_removed(void *user, tress_client *c, uint32_t id, uint8_t reason) {
  (void)c, (void)id, (void)reason;
  ((counters *)user)->removed++;
}

typedef struct fixture {
  fake_server server;
  tress_client *client;
  counters k;
  tress_sample_character sample;
  fake_rig rig;
  tress_msg rig_msg;
} fixture;

static void connect_client(fixture *f) {
  assert_true(fake_server_start(&f->server));
  tress_client_def def = tress_default_client_def();
  def.client_name = "test";
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.sim.max_distance = 1e5f;
  def.callbacks = (tress_client_callbacks){.user = &f->k, .on_error = on_error, .on_rigged = on_rigged,
                                           .on_bound = on_bound, .on_removed = on_removed};
  f->client = tress_client_create(&def);
  assert_non_null(f->client);
  assert_int_equal(tress_client_connect(f->client, "127.0.0.1", f->server.port, "", "room", NULL), TRESS_OK);
  for (int i = 0; i < 200 && tress_client_get_state(f->client) != TRESS_CLIENT_READY; i++)
    fake_server_pump(&f->server, &f->client, 1, 10);
  assert_int_equal(tress_client_get_state(f->client), TRESS_CLIENT_READY);
  tress_sample_character_init(&f->sample, "Alice", "meshes/hair_bob.glb");
  assert_true(fake_rig_make(HAIR_PATH, CHARACTER_ID, 0, &f->rig, &f->rig_msg));
}

static void send_added(fixture *f) {
  tress_msg m = {.type = TRESS_MSG_CHARACTER_ADDED};
  m.character_added.character_id = CHARACTER_ID;
  m.character_added.owner_peer_id = 99;
  m.character_added.manifest = f->sample.manifest;
  assert_true(fake_server_send(&f->server, &m));
}

static void send_bind_listing(fixture *f, uint32_t character_id, uint8_t *rigged, uint32_t rigged_count) {
  tress_msg m = {.type = TRESS_MSG_BIND};
  m.bind.character_id = character_id;
  m.bind.chain_settings = tress_default_chain_settings();
  m.bind.accessory_settings = tress_default_accessory_settings();
  m.bind.match_policy = TRESS_MATCH_DEFAULT;
  m.bind.rigged_count = rigged_count;
  m.bind.rigged_indices = rigged;
  assert_true(fake_server_send(&f->server, &m));
}

static void send_bind(fixture *f, uint32_t character_id) {
  tress_msg m = {.type = TRESS_MSG_BIND};
  m.bind.character_id = character_id;
  m.bind.chain_settings = tress_default_chain_settings();
  m.bind.accessory_settings = tress_default_accessory_settings();
  m.bind.match_policy = TRESS_MATCH_DEFAULT;
  assert_true(fake_server_send(&f->server, &m));
}

static void settle(fixture *f, int ms) { fake_server_pump(&f->server, &f->client, 1, ms); }

static void teardown_fixture(fixture *f) {
  tress_client_destroy(f->client);
  fake_rig_free(&f->rig);
  fake_server_stop(&f->server);
}

static void test_corrupt_messages_are_reported_and_keep_characters(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  send_added(&f);
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  send_bind(&f, CHARACTER_ID);
  settle(&f, 300);
  tress_client_character_info before;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &before), TRESS_OK);
  assert_true(before.bound);
  assert_int_equal(before.bone_count, 10);
  assert_int_equal(f.k.rigged, 1);
  tress_id bones_before[16];
  assert_int_equal(tress_client_get_bones(f.client, CHARACTER_ID, bones_before, 16), 10);
  for (int i = 0; i < 10; i++) tress_client_step(f.client, 1.0 / 60.0);
  tress_sim_stats sim_before = tress_sim_get_stats(tress_client_get_sim(f.client));
  uint32_t instances_before = tress_scene_get_instance_count(tress_client_get_scene(f.client));
  assert_int_equal(f.k.errors[TRESS_CLIENT_ERROR_PROTOCOL], 0);

  /* 1: bytes that end inside a field; 2: an unknown type byte; 3: a rig result cut in half;
   * 4: a valid BIND for a character that does not exist; 5: a second CHARACTER_ADDED for a
   * known id; 6: a client-to-server message; 7: an empty packet; 8: a rig for accessory 9. */
  const uint8_t truncated[] = {TRESS_MSG_CHARACTER_ADDED, 1, 0};
  const uint8_t unknown[] = {0xEE, 1, 2, 3, 4};
  assert_true(fake_server_send_raw(&f.server, truncated, sizeof truncated, 0));
  assert_true(fake_server_send_raw(&f.server, unknown, sizeof unknown, 0));
  size_t cap = tress_msg_get_encode_bound(&f.rig_msg), len = 0;
  uint8_t *buf = malloc(cap);
  assert_int_equal(tress_msg_encode(&f.rig_msg, buf, cap, &len, NULL), TRESS_WIRE_OK);
  assert_true(fake_server_send_raw(&f.server, buf, len / 2, 1));
  send_bind(&f, 12345);
  send_added(&f);
  tress_msg hello = {.type = TRESS_MSG_HELLO};
  hello.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  assert_true(fake_server_send(&f.server, &hello));
  assert_true(fake_server_send_raw(&f.server, buf, 0, 0));
  f.rig_msg.rig_result.accessory_index = 9;
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  f.rig_msg.rig_result.accessory_index = 0;
  free(buf);
  settle(&f, 300);

  assert_true(f.k.errors[TRESS_CLIENT_ERROR_PROTOCOL] >= 8);
  tress_client_stats st = tress_client_get_stats(f.client);
  assert_int_equal(st.protocol_errors, (uint32_t)f.k.errors[TRESS_CLIENT_ERROR_PROTOCOL]);
  assert_int_equal(tress_client_get_state(f.client), TRESS_CLIENT_READY);
  /* Nothing changed: same character, same bones, same handles, same scene. */
  assert_int_equal(tress_client_get_character_count(f.client), 1);
  tress_client_character_info after;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &after), TRESS_OK);
  assert_true(after.bound);
  assert_int_equal(after.handle_count, before.handle_count);
  tress_id bones_after[16];
  assert_int_equal(tress_client_get_bones(f.client, CHARACTER_ID, bones_after, 16), 10);
  assert_memory_equal(bones_before, bones_after, sizeof(tress_id) * 10);
  assert_int_equal(tress_scene_get_instance_count(tress_client_get_scene(f.client)), instances_before);
  assert_int_equal(f.k.removed, 0);
  assert_int_equal(f.k.bound, 1);
  tress_client_step(f.client, 1.0 / 60.0);
  tress_sim_stats sim_after = tress_sim_get_stats(tress_client_get_sim(f.client));
  assert_int_equal(sim_after.bound, sim_before.bound);
  assert_true(sim_after.simulated > 0);
  teardown_fixture(&f);
}

static void test_mesh_hash_mismatch_falls_back_to_pendulum(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  send_added(&f);
  f.rig_msg.rig_result.mesh_hash[0] ^= 0xFF; /* the server rigged another version of the asset */
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  send_bind(&f, CHARACTER_ID);
  settle(&f, 300);
  assert_true(f.k.errors[TRESS_CLIENT_ERROR_WARNING] >= 1);
  assert_non_null(strstr(f.k.last, "mismatch"));
  assert_int_equal(f.k.errors[TRESS_CLIENT_ERROR_PROTOCOL], 0);
  assert_int_equal(tress_client_get_accessory_rig_state(f.client, CHARACTER_ID, 0), TRESS_RIG_FALLBACK);
  tress_client_character_info info;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_int_equal(info.bone_count, 0);
  assert_true(info.bound);
  assert_int_equal(f.k.rigged, 0);
  /* Hair and hat both swing as pendulums: two handles, and the hair's joint offset moves. */
  assert_int_equal(info.handle_count, 2);
  tress_xform c0_rest, c0_swung;
  assert_int_equal(tress_client_get_accessory_frame(f.client, CHARACTER_ID, 0, NULL, NULL, &c0_rest, NULL), TRESS_OK);
  for (int i = 0; i < 60; i++) {
    tress_client_set_root(f.client, CHARACTER_ID, tress_xform_from_pos(0.1f * (float)i, 0, 0));
    tress_client_step(f.client, 1.0 / 60.0);
  }
  tress_client_get_accessory_frame(f.client, CHARACTER_ID, 0, NULL, NULL, &c0_swung, NULL);
  assert_true(tress_xform_distance(c0_rest, c0_swung) > 1e-4f);
  teardown_fixture(&f);
}

static void test_rig_after_bind_rebinds_bones_once(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  send_added(&f);
  send_bind(&f, CHARACTER_ID);
  settle(&f, 200);
  tress_client_character_info info;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_true(info.bound);
  assert_int_equal(info.handle_count, 2); /* hair pendulum + hat pendulum */
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  settle(&f, 200);
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_int_equal(tress_client_get_accessory_rig_state(f.client, CHARACTER_ID, 0), TRESS_RIG_APPLIED);
  assert_int_equal(info.bone_count, 10);
  /* Bones on the hair handle + the hat pendulum; the hair's pendulum handle is gone. */
  assert_int_equal(info.handle_count, 2);
  assert_int_equal(tress_sim_get_stats(tress_client_get_sim(f.client)).bound, 2);
  tress_id bones[16];
  tress_client_get_bones(f.client, CHARACTER_ID, bones, 16);
  assert_true(tress_bone_is_simulated(tress_client_get_scene(f.client), bones[1]));
  teardown_fixture(&f);
}

static void test_bind_waits_for_the_rigs_it_lists(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  send_added(&f);
  uint8_t rigged[1] = {0};
  send_bind_listing(&f, CHARACTER_ID, rigged, 1); /* BIND (control) overtook the RIG_RESULT (bulk) */
  settle(&f, 200);
  tress_client_character_info info;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_false(info.bound);
  assert_int_equal(tress_sim_get_stats(tress_client_get_sim(f.client)).bound, 0);
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  settle(&f, 200);
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_true(info.bound);
  assert_int_equal(f.k.bound, 1); /* bound once, with bones: never a pendulum on the hair first */
  assert_int_equal(info.bone_count, 10);
  assert_int_equal(info.handle_count, 2);
  teardown_fixture(&f);
}

static void test_rig_before_its_character_is_held(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  settle(&f, 100);
  assert_int_equal(tress_client_get_character_count(f.client), 0);
  send_added(&f);
  uint8_t rigged[1] = {0};
  send_bind_listing(&f, CHARACTER_ID, rigged, 1);
  settle(&f, 200);
  tress_client_character_info info;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_true(info.bound);
  assert_int_equal(info.bone_count, 10);
  assert_int_equal(f.k.errors[TRESS_CLIENT_ERROR_PROTOCOL], 0);
  teardown_fixture(&f);
}

static void test_removed_character_releases_everything(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  uint32_t empty_scene = tress_scene_get_instance_count(tress_client_get_scene(f.client));
  send_added(&f);
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  send_bind(&f, CHARACTER_ID);
  settle(&f, 200);
  assert_int_equal(tress_sim_get_stats(tress_client_get_sim(f.client)).bound, 2);
  for (int i = 0; i < 30; i++) {
    tress_client_set_root(f.client, CHARACTER_ID, tress_xform_from_pos(0.2f * (float)i, 0, 0));
    tress_client_step(f.client, 1.0 / 60.0);
  }
  tress_msg m = {.type = TRESS_MSG_CHARACTER_REMOVED};
  m.character_removed.character_id = CHARACTER_ID;
  m.character_removed.reason = TRESS_REMOVED_DESPAWNED;
  assert_true(fake_server_send(&f.server, &m));
  settle(&f, 200);
  assert_int_equal(f.k.removed, 1);
  assert_int_equal(tress_client_get_character_count(f.client), 0);
  assert_int_equal(tress_sim_get_stats(tress_client_get_sim(f.client)).bound, 0);
  assert_int_equal(tress_scene_get_instance_count(tress_client_get_scene(f.client)), empty_scene);
  assert_int_equal(tress_client_get_bones(f.client, CHARACTER_ID, NULL, 0), 0);
  tress_client_step(f.client, 1.0 / 60.0);
  teardown_fixture(&f);
}

static void test_frames_allocate_nothing(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  send_added(&f);
  assert_true(fake_server_send(&f.server, &f.rig_msg));
  send_bind(&f, CHARACTER_ID);
  settle(&f, 200);
  static float matrices[64 * 16];
  for (int i = 0; i < 5; i++) tress_client_step(f.client, 1.0 / 60.0); /* scratch buffers grow once */
  alloc_count_install();
  alloc_count_start();
  for (int i = 0; i < 240; i++) {
    tress_client_set_root(f.client, CHARACTER_ID, tress_xform_from_pos(0.05f * (float)i, 0, 0));
    tress_client_step(f.client, 1.0 / 60.0);
    assert_int_equal(tress_client_get_bone_matrices(f.client, CHARACTER_ID, matrices, 64), 10);
    assert_int_equal(tress_client_get_skinning_matrices(f.client, CHARACTER_ID, matrices, 64), 10);
  }
  long allocations = alloc_count_stop();
  assert_int_equal(allocations, 0);
  teardown_fixture(&f);
}

/* Runs tress-bot against the fake server; misbehave() runs once the bot has joined. */
static int run_bot(fixture *f, void (*misbehave)(fixture *f)) {
  char bin[600], server[64];
  snprintf(bin, sizeof bin, "%s/client/bot/tress-bot", getenv("TRESS_BINARY_DIR"));
  snprintf(server, sizeof server, "127.0.0.1:%u", f->server.port);
  pid_t pid = fork();
  if (pid == 0) {
    const char *argv[] = {bin, "--server", server, "--room", "r", "--duration", "1.5", "--fps", "30", NULL};
    freopen("/dev/null", "w", stdout);
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  bool done = false;
  int status = 0;
  for (int t = 0; t < 10000 && !done; t++) {
    fake_server_pump(&f->server, NULL, 0, 0);
    if (f->server.spawns == 1 && misbehave) {
      misbehave(f);
      misbehave = NULL;
    }
    done = waitpid(pid, &status, WNOHANG) == pid;
    usleep(1000);
  }
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void answer_spawn_and_corrupt(fixture *f) {
  tress_msg m = {.type = TRESS_MSG_CHARACTER_ADDED};
  m.character_added.character_id = CHARACTER_ID;
  m.character_added.owner_peer_id = 1;
  m.character_added.request_id = f->server.last_spawn.spawn_character.request_id;
  m.character_added.manifest = f->server.last_spawn.spawn_character.manifest;
  fake_server_send(&f->server, &m);
  tress_msg b = {.type = TRESS_MSG_BIND};
  b.bind.character_id = CHARACTER_ID;
  b.bind.chain_settings = tress_default_chain_settings();
  b.bind.accessory_settings = tress_default_accessory_settings();
  fake_server_send(&f->server, &b);
  const uint8_t junk[] = {TRESS_MSG_BIND, 0xFF};
  fake_server_send_raw(&f->server, junk, sizeof junk, 0);
}

static void answer_spawn_without_bind(fixture *f) {
  tress_msg m = {.type = TRESS_MSG_CHARACTER_ADDED};
  m.character_added.character_id = CHARACTER_ID;
  m.character_added.owner_peer_id = 1;
  m.character_added.request_id = f->server.last_spawn.spawn_character.request_id;
  m.character_added.manifest = f->server.last_spawn.spawn_character.manifest;
  fake_server_send(&f->server, &m);
}

static void answer_spawn_properly(fixture *f) {
  answer_spawn_without_bind(f);
  tress_msg b = {.type = TRESS_MSG_BIND};
  b.bind.character_id = CHARACTER_ID;
  b.bind.chain_settings = tress_default_chain_settings();
  b.bind.accessory_settings = tress_default_accessory_settings();
  fake_server_send(&f->server, &b);
}

static void test_bot_exit_status(void **state) {
  (void)state;
  for (int kind = 0; kind < 3; kind++) {
    fixture f;
    memset(&f, 0, sizeof f);
    assert_true(fake_server_start(&f.server));
    void (*script[3])(fixture *) = {answer_spawn_properly, answer_spawn_and_corrupt, answer_spawn_without_bind};
    int status = run_bot(&f, script[kind]);
    /* bound and clean: 0; a protocol error: 1; a character never bound: 1 */
    assert_int_equal(status, kind == 0 ? 0 : 1);
    fake_server_stop(&f.server);
  }
}

typedef struct loop_run {
  fixture *f;
  int ticks;
} loop_run;

static void on_loop_tick(uv_timer_t *t) {
  loop_run *r = t->data;
  fake_server_pump(&r->f->server, NULL, 0, 0); /* the server side only: the loop drives the client */
  tress_client_character_info info;
  bool bound = tress_client_get_character_info(r->f->client, CHARACTER_ID, &info) == TRESS_OK && info.bound;
  if (tress_client_get_state(r->f->client) == TRESS_CLIENT_READY && r->ticks == 0) {
    send_added(r->f);
    assert_true(fake_server_send(&r->f->server, &r->f->rig_msg));
    send_bind(r->f, CHARACTER_ID);
  }
  if (tress_client_get_state(r->f->client) == TRESS_CLIENT_READY) r->ticks++;
  if (bound || r->ticks > 500) uv_stop(t->loop);
}

/* The one error shape: a call that fails says why in the caller's tress_error. */
static void test_failed_calls_say_why(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  connect_client(&f);
  tress_error err;
  assert_int_equal(tress_client_despawn(f.client, 77, &err), TRESS_ERR_NOT_FOUND);
  assert_int_equal(err.code, TRESS_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "character 77"));
  tress_client_pose_map_def md = tress_default_client_pose_map_def();
  md.character_id = 78;
  tress_client_pose_map *map = (tress_client_pose_map *)&f; /* set to NULL on failure */
  assert_int_equal(tress_client_pose_map_create(f.client, &md, &map, &err), TRESS_ERR_NOT_FOUND);
  assert_null(map);
  assert_non_null(strstr(err.message, "no character 78"));
  assert_int_equal(tress_client_connect(f.client, "127.0.0.1", f.server.port, "", "", &err),
                   TRESS_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "room name"));
  /* a manifest that breaks a wire rule is refused with the codec's words and not kept */
  float was = f.sample.manifest.parts[0].cframe.p[1];
  f.sample.manifest.parts[0].cframe.p[1] = NAN;
  assert_int_equal(tress_client_spawn(f.client, &f.sample.manifest, NULL, &err), TRESS_ERR_PROTOCOL);
  assert_non_null(strstr(err.message, "encode SPAWN_CHARACTER"));
  f.sample.manifest.parts[0].cframe.p[1] = was;
  assert_int_equal(tress_client_spawn(f.client, &f.sample.manifest, NULL, NULL), TRESS_OK);
  teardown_fixture(&f);
}

static void test_client_driven_by_a_uv_loop(void **state) {
  (void)state;
  fixture f;
  memset(&f, 0, sizeof f);
  assert_true(fake_server_start(&f.server));
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.callbacks = (tress_client_callbacks){.user = &f.k, .on_error = on_error, .on_bound = on_bound};
  f.client = tress_client_create(&def);
  tress_sample_character_init(&f.sample, "Loopy", "meshes/hair_bob.glb");
  assert_true(fake_rig_make(HAIR_PATH, CHARACTER_ID, 0, &f.rig, &f.rig_msg));
  uv_loop_t loop;
  uv_loop_init(&loop);
  assert_int_equal(tress_client_attach_loop(f.client, &loop), TRESS_OK);
  assert_int_equal(tress_client_connect(f.client, "127.0.0.1", f.server.port, "", "room", NULL), TRESS_OK);
  loop_run r = {&f, 0};
  uv_timer_t tick;
  uv_timer_init(&loop, &tick);
  tick.data = &r;
  uv_timer_start(&tick, on_loop_tick, 1, 1);
  uv_run(&loop, UV_RUN_DEFAULT);
  tress_client_character_info info;
  assert_int_equal(tress_client_get_character_info(f.client, CHARACTER_ID, &info), TRESS_OK);
  assert_true(info.bound);
  assert_int_equal(info.bone_count, 10);
  uv_close((uv_handle_t *)&tick, NULL);
  tress_client_detach_loop(f.client);
  uv_run(&loop, UV_RUN_DEFAULT); /* closes the handles; nothing else keeps the loop alive */
  assert_int_equal(uv_loop_close(&loop), 0);
  teardown_fixture(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corrupt_messages_are_reported_and_keep_characters),
      cmocka_unit_test(test_mesh_hash_mismatch_falls_back_to_pendulum),
      cmocka_unit_test(test_rig_after_bind_rebinds_bones_once),
      cmocka_unit_test(test_bind_waits_for_the_rigs_it_lists),
      cmocka_unit_test(test_rig_before_its_character_is_held),
      cmocka_unit_test(test_client_driven_by_a_uv_loop),
      cmocka_unit_test(test_failed_calls_say_why),
      cmocka_unit_test(test_removed_character_releases_everything),
      cmocka_unit_test(test_frames_allocate_nothing),
      cmocka_unit_test(test_bot_exit_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
