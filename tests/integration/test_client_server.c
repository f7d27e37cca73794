/* test_client_server.c - libtress-client, tress-bot and the game_loop example against a real
 * tress-server on loopback: identical sway at 30 and 240 fps with no pose traffic, late
 * joiners get the same bones, a server restart re-binds without duplicates. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "support/client_loop.h"
#include "support/server_harness.h"
#include "support/process.h"
#include "support/scene_names.h"
#include "tress/client.h"
#include "tress/mesh_file.h"
#include "tress/rig.h"
#include "tress/sample_character.h"
#include "tress/wire_springs.h"
#include "support/scene_build.h"

#define HAIR "meshes/hair_long.glb"

typedef struct counted {
  int protocol_errors, removed, bound;
} counted;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c;
  if (kind == TRESS_CLIENT_ERROR_PROTOCOL) ((counted *)user)->protocol_errors++;
  fprintf(stderr, "client: %s\n", message);
}
static void on_removed(void *user, tress_client *c, uint32_t id, uint8_t reason) {
  (void)c, (void)id, (void)reason;
  ((counted *)user)->removed++;
}
static void on_bound(void *user, tress_client *c, uint32_t id, uint32_t n) {
  (void)c, (void)id, (void)n;
  ((counted *)user)->bound++;
}

static tress_client *client(th_server *s, const char *room, counted *k) {
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.sim.max_distance = 1e5f;
  def.backoff_initial_ms = 100;
  def.backoff_max_ms = 400;
  def.connect_timeout_ms = 1000;
  def.callbacks = (tress_client_callbacks){.user = k, .on_error = on_error, .on_removed = on_removed, .on_bound = on_bound};
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", s->udp_port, "", room, NULL), TRESS_OK);
  return c;
}

/* The first character of c, bound with bones; 0 while there is none. */
static uint32_t bound_character(tress_client *c) {
  uint32_t id = 0;
  if (tress_client_get_character_ids(c, &id, 1) == 0) return 0;
  tress_client_character_info info;
  if (tress_client_get_character_info(c, id, &info) != TRESS_OK || !info.bound || info.bone_count == 0) return 0;
  return id;
}

static bool all_bound(tress_client **cs, int n) {
  for (int i = 0; i < n; i++)
    if (!bound_character(cs[i])) return false;
  return true;
}

static bool pump_until_bound(tress_client **cs, int n, int timeout_ms) {
  for (int t = 0; t < timeout_ms && !all_bound(cs, n); t += 10) clients_pump(cs, n, 10);
  return all_bound(cs, n);
}

static void start_server(th_server *s, const char *tag) {
  th_server_init(s, tag);
  assert_int_equal(th_server_start(s, NULL), 0);
}

/* The root walks at (WALK_X t, 0, WALK_Z t) studs: a function of time. */
#define WALK_X 4.0
#define WALK_Z 1.5

static void test_30_and_240_fps_clients_sway_identically(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-fps");
  counted ka = {0}, kb = {0};
  tress_client *cs[2] = {client(&s, "fps", &ka), client(&s, "fps", &kb)};
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Walker", HAIR);
  assert_int_equal(tress_client_spawn(cs[0], &sample.manifest, NULL, NULL), TRESS_OK);
  assert_true(pump_until_bound(cs, 2, 20000));
  uint32_t a = bound_character(cs[0]), b = bound_character(cs[1]);
  assert_int_equal(a, b);
  tress_client_stats before = tress_client_get_stats(cs[1]);

  client_walk(cs[0], a, 30, 2.0, WALK_X, WALK_Z);
  client_walk(cs[1], b, 240, 2.0, WALK_X, WALK_Z);

  float ma[64 * 16], mb[64 * 16];
  uint32_t na = tress_client_get_bone_matrices(cs[0], a, ma, 64), nb = tress_client_get_bone_matrices(cs[1], b, mb, 64);
  assert_int_equal(na, 10);
  assert_int_equal(na, nb);
  float worst = 0.0f;
  for (uint32_t i = 0; i < 16 * na; i++) worst = fmaxf(worst, fabsf(ma[i] - mb[i]));
  printf("30 vs 240 fps: largest bone matrix difference after 2 s: %.3g\n", worst);
  assert_true(worst < 1e-4f);
  /* ... and they did sway: the tips hang off the animated pose. */
  tress_id bones[64];
  tress_client_get_bones(cs[0], a, bones, 64);
  float sway = 0.0f;
  for (uint32_t i = 0; i < na; i++)
    sway = fmaxf(sway, tress_xform_distance(tress_bone_get_world(tress_client_get_scene(cs[0]), bones[i]),
                                            tress_bone_get_world_animated(tress_client_get_scene(cs[0]), bones[i])));
  assert_true(sway > 0.01f);
  /* The pendulum hat too. */
  tress_xform ca, cb;
  tress_client_get_accessory_frame(cs[0], a, 1, NULL, &ca, NULL, NULL);
  tress_client_get_accessory_frame(cs[1], b, 1, NULL, &cb, NULL, NULL);
  assert_true(tress_xform_distance(ca, cb) < 1e-4f);
  /* No pose traffic: stepping for 2 s received nothing. */
  clients_pump(cs, 2, 200);
  tress_client_stats after = tress_client_get_stats(cs[1]);
  assert_int_equal(after.bytes_received, before.bytes_received);
  assert_int_equal(ka.protocol_errors + kb.protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* A manifest's springs section (a head sphere, a torso capsule, the default chain entry with
 * both) reaches every client in BIND: both clients add the same colliders, attached to their
 * own Head / UpperTorso, give the hair chains the strand radius, tip and collider set, and sway
 * identically. */
static void test_springs_reach_every_client(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-springs");
  counted ka = {0}, kb = {0};
  tress_client *cs[2] = {client(&s, "springs", &ka), client(&s, "springs", &kb)};
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Springy", HAIR);
  static tress_wire_springs sp;
  memset(&sp, 0, sizeof sp);
  sp.collider_count = 2;
  snprintf(sp.colliders[0].attach, sizeof sp.colliders[0].attach, "Head");
  sp.colliders[0].shape = TRESS_COLLIDER_SPHERE;
  sp.colliders[0].offset[1] = 0.1f;
  sp.colliders[0].radius = 0.6f;
  snprintf(sp.colliders[1].attach, sizeof sp.colliders[1].attach, "UpperTorso");
  sp.colliders[1].shape = TRESS_COLLIDER_CAPSULE;
  sp.colliders[1].offset[0] = -0.6f;
  sp.colliders[1].tail[0] = 0.6f;
  sp.colliders[1].radius = 0.5f;
  sp.chain_count = 1;
  sp.chains[0].settings = tress_default_chain_settings();
  sp.chains[0].settings.radius = 0.05f;
  sp.chains[0].settings.end_length = 0.2f;
  sp.chains[0].collider_count = 2;
  sp.chains[0].colliders[0] = 0;
  sp.chains[0].colliders[1] = 1;
  uint8_t bytes[TRESS_WIRE_MAX_SECTION_BYTES];
  size_t len = 0;
  tress_wire_error err;
  assert_int_equal(tress_wire_springs_encode(&sp, bytes, sizeof bytes, &len, &err), TRESS_WIRE_OK);
  tress_wire_section section = {TRESS_SECTION_SPRINGS, (uint32_t)len, bytes};
  sample.manifest.section_count = 1;
  sample.manifest.sections = &section;
  assert_int_equal(tress_client_spawn(cs[0], &sample.manifest, NULL, NULL), TRESS_OK);
  assert_true(pump_until_bound(cs, 2, 20000));
  uint32_t a = bound_character(cs[0]), b = bound_character(cs[1]);
  client_walk(cs[0], a, 60, 1.0, WALK_X, WALK_Z);
  client_walk(cs[1], b, 60, 1.0, WALK_X, WALK_Z);
  tress_collider_def da[4], db[4];
  tress_collider_world wa[4], wb[4];
  uint32_t na = tress_client_get_colliders(cs[0], a, da, wa, 4), nb = tress_client_get_colliders(cs[1], b, db, wb, 4);
  printf("colliders: client 0 has %u, client 1 has %u\n", na, nb);
  assert_int_equal(na, 2);
  assert_int_equal(nb, 2);
  const char *names[2] = {"Head", "UpperTorso"};
  for (uint32_t i = 0; i < 2; i++) {
    assert_int_equal(da[i].shape, db[i].shape);
    assert_int_equal(da[i].shape, sp.colliders[i].shape);
    assert_true(da[i].radius == sp.colliders[i].radius && db[i].radius == sp.colliders[i].radius);
    assert_memory_equal(da[i].offset, db[i].offset, sizeof da[i].offset);
    char na[TRESS_NAME_MAX], nb[TRESS_NAME_MAX];
    tress_instance_get_name(tress_client_get_scene(cs[0]), da[i].attach, na);
    tress_instance_get_name(tress_client_get_scene(cs[1]), db[i].attach, nb);
    assert_string_equal(na, names[i]);
    assert_string_equal(nb, names[i]);
    /* the same body pose on both clients: the same world colliders */
    assert_true(fabsf(wa[i].ax - wb[i].ax) < 1e-4f && fabsf(wa[i].ay - wb[i].ay) < 1e-4f &&
                fabsf(wa[i].az - wb[i].az) < 1e-4f && fabsf(wa[i].bx - wb[i].bx) < 1e-4f);
  }
  /* ... which follow the body: the head sphere sits on the walked Head */
  tress_id head = da[0].attach;
  tress_xform hw = tress_instance_get_world(tress_client_get_scene(cs[0]), head);
  assert_true(fabsf(wa[0].ax - hw.p[0]) < 1e-3f && fabsf(wa[0].az - hw.p[2]) < 1e-3f);
  /* both clients collide the same way: identical hair */
  float ma[64 * 16], mb[64 * 16];
  uint32_t nma = tress_client_get_bone_matrices(cs[0], a, ma, 64), nmb = tress_client_get_bone_matrices(cs[1], b, mb, 64);
  assert_int_equal(nma, nmb);
  float worst = 0.0f;
  for (uint32_t i = 0; i < 16 * nma; i++) worst = fmaxf(worst, fabsf(ma[i] - mb[i]));
  printf("springs: largest bone matrix difference between the clients: %.3g\n", worst);
  assert_true(worst < 1e-4f);
  assert_int_equal(ka.protocol_errors + kb.protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* Bones travel in mesh space and the client scales them to its handle: they land where a local
 * rig() of the same mesh on a part of the same size puts its bones, on a handle that is not
 * the mesh's size (x doubled, y halved). */
static void test_server_rig_bones_match_a_local_rig(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-local-rig");
  counted k = {0};
  tress_client *c = client(&s, "local-rig", &k);
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Lone", HAIR);
  sample.manifest.accessories[0].handle_size[0] *= 2.0f;
  sample.manifest.accessories[0].handle_size[1] *= 0.5f;
  tress_client_spawn(c, &sample.manifest, NULL, NULL);
  assert_true(pump_until_bound(&c, 1, 20000));
  uint32_t id = bound_character(c);
  tress_id bones[64], handle;
  uint32_t n = tress_client_get_bones(c, id, bones, 64);
  assert_int_equal(n, 10);
  tress_scene *cs = tress_client_get_scene(c);
  tress_client_get_accessory_frame(c, id, 0, &handle, NULL, NULL, NULL);
  float size[3];
  tress_part_get_size(cs, handle, size);

  tress_mesh *mesh = tress_mesh_file_load("assets/" HAIR, NULL);
  assert_non_null(mesh);
  tress_scene *local = th_scene();
  tress_id part = th_instance(local, TRESS_KIND_PART, "Handle", tress_scene_get_root(local));
  tress_part_set_mesh(local, part, mesh);
  tress_part_set_size(local, part, size);
  tress_rig_result r;
  assert_int_equal(tress_rig_part(local, part, NULL, &r, NULL), TRESS_RIG_OK);
  assert_int_equal(r.bone_count, n);
  float worst = 0.0f;
  for (uint32_t i = 0; i < n; i++) {
    assert_string_equal(name_of(cs, bones[i]).s, r.bone_names[i]);
    worst = fmaxf(worst, tress_xform_distance(tress_bone_get_cframe(cs, bones[i]), tress_bone_get_cframe(local, r.bone_ids[i])));
  }
  const tress_mesh *theirs = tress_part_get_mesh(cs, handle), *ours = tress_part_get_mesh(local, part);
  for (uint32_t b = 0; b < n; b++)
    for (int k3 = 0; k3 < 3; k3++)
      worst = fmaxf(worst, fabsf(theirs->bones[b].bind_pos[k3] - ours->bones[b].bind_pos[k3]));
  printf("server rig vs local rig: largest bone rest or bind difference %.3g\n", (double)worst);
  assert_true(worst < 1e-5f);
  tress_rig_result_free(&r);
  tress_mesh_release(mesh);
  tress_scene_destroy(local);
  assert_int_equal(k.protocol_errors, 0);
  tress_client_destroy(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_late_joiner_gets_the_same_bones(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-late");
  counted ka = {0}, kc = {0};
  tress_client *owner = client(&s, "late", &ka);
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Early", HAIR);
  tress_client_spawn(owner, &sample.manifest, NULL, NULL);
  assert_true(pump_until_bound(&owner, 1, 20000));
  tress_client *cs[2] = {owner, client(&s, "late", &kc)};
  assert_true(pump_until_bound(cs, 2, 20000));
  uint32_t a = bound_character(cs[0]), c = bound_character(cs[1]);
  assert_int_equal(a, c);
  tress_id ba[64], bc[64];
  uint32_t na = tress_client_get_bones(cs[0], a, ba, 64), nc = tress_client_get_bones(cs[1], c, bc, 64);
  assert_int_equal(na, 10);
  assert_int_equal(na, nc);
  tress_scene *sa = tress_client_get_scene(cs[0]), *sc = tress_client_get_scene(cs[1]);
  for (uint32_t i = 0; i < na; i++) {
    char na[TRESS_NAME_MAX], nc[TRESS_NAME_MAX];
    tress_instance_get_name(sa, ba[i], na);
    tress_instance_get_name(sc, bc[i], nc);
    assert_string_equal(na, nc);
    tress_xform ra = tress_bone_get_cframe(sa, ba[i]), rc = tress_bone_get_cframe(sc, bc[i]);
    assert_memory_equal(&ra, &rc, sizeof ra);
  }
  tress_id ha, hc;
  tress_client_get_accessory_frame(cs[0], a, 0, &ha, NULL, NULL, NULL);
  tress_client_get_accessory_frame(cs[1], c, 0, &hc, NULL, NULL, NULL);
  const tress_mesh *ma = tress_part_get_mesh(sa, ha), *mc = tress_part_get_mesh(sc, hc);
  assert_true(tress_mesh_is_skinned(ma) && tress_mesh_is_skinned(mc));
  assert_int_equal(ma->vertex_count, mc->vertex_count);
  assert_memory_equal(ma->joints, mc->joints, 4 * sizeof *ma->joints * ma->vertex_count);
  assert_memory_equal(ma->weights, mc->weights, 4 * sizeof *ma->weights * ma->vertex_count);
  assert_int_equal(ka.protocol_errors + kc.protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_server_restart_rebinds_without_duplicates(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-restart");
  counted ka = {0}, kb = {0};
  tress_client *cs[2] = {client(&s, "restart", &ka), client(&s, "restart", &kb)};
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Phoenix", HAIR);
  tress_client_spawn(cs[0], &sample.manifest, NULL, NULL);
  assert_true(pump_until_bound(cs, 2, 20000));
  uint32_t instances[2], handles[2];
  for (int i = 0; i < 2; i++) {
    instances[i] = tress_scene_get_instance_count(tress_client_get_scene(cs[i]));
    handles[i] = tress_sim_get_stats(tress_client_get_sim(cs[i])).bound;
    assert_int_equal(handles[i], 2); /* hair bones + hat pendulum */
  }

  uint16_t port = s.udp_port;
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  for (int t = 0; t < 10000 && (tress_client_get_state(cs[0]) == TRESS_CLIENT_READY ||
                                 tress_client_get_state(cs[1]) == TRESS_CLIENT_READY); t += 10)
    clients_pump(cs, 2, 10);
  for (int i = 0; i < 2; i++) {
    assert_int_not_equal(tress_client_get_state(cs[i]), TRESS_CLIENT_READY);
    assert_int_equal(tress_client_get_character_count(cs[i]), 0);
    assert_int_equal(tress_sim_get_stats(tress_client_get_sim(cs[i])).bound, 0);
  }
  char port_text[16];
  snprintf(port_text, sizeof port_text, "%u", port);
  const char *extra[] = {"--port", port_text, NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  assert_int_equal(s.udp_port, port);
  bool rebound = pump_until_bound(cs, 2, 30000);
  clients_pump(cs, 2, 300); /* anything duplicated would arrive now */
  for (int i = 0; i < 2; i++) {
    tress_client_stats st = tress_client_get_stats(cs[i]);
    printf("client %d after restart: %s, connects %u, characters %u, handles %u, bound callbacks %d, last error '%s'\n",
           i, tress_client_state_name(tress_client_get_state(cs[i])), st.connects,
           tress_client_get_character_count(cs[i]), tress_sim_get_stats(tress_client_get_sim(cs[i])).bound,
           i ? kb.bound : ka.bound, tress_client_get_last_error(cs[i]));
  }
  assert_true(rebound);
  for (int i = 0; i < 2; i++) {
    tress_client_stats st = tress_client_get_stats(cs[i]);
    assert_int_equal(st.connects, 2);
    assert_int_equal(tress_client_get_character_count(cs[i]), 1);
    assert_int_equal(tress_sim_get_stats(tress_client_get_sim(cs[i])).bound, handles[i]);
    assert_int_equal(tress_scene_get_instance_count(tress_client_get_scene(cs[i])), instances[i]);
    tress_client_character_info info;
    assert_int_equal(tress_client_get_character_info(cs[i], bound_character(cs[i]), &info), TRESS_OK);
    assert_int_equal(info.bone_count, 10);
    assert_int_equal(st.protocol_errors, 0);
  }
  assert_int_equal(ka.bound, 2);
  assert_int_equal(kb.bound, 2);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_despawn_removes_the_character_everywhere(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-despawn");
  counted ka = {0}, kb = {0};
  tress_client *cs[2] = {client(&s, "despawn", &ka), client(&s, "despawn", &kb)};
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Brief", HAIR);
  tress_client_spawn(cs[0], &sample.manifest, NULL, NULL);
  assert_true(pump_until_bound(cs, 2, 20000));
  uint32_t id = bound_character(cs[0]);
  assert_int_equal(tress_client_despawn(cs[0], id, NULL), TRESS_OK);
  for (int t = 0; t < 5000 && (tress_client_get_character_count(cs[0]) || tress_client_get_character_count(cs[1])); t += 10)
    clients_pump(cs, 2, 10);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(tress_client_get_character_count(cs[i]), 0);
    assert_int_equal(tress_sim_get_stats(tress_client_get_sim(cs[i])).bound, 0);
  }
  assert_int_equal(ka.removed, 1);
  assert_int_equal(kb.removed, 1);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_game_loop_example_runs(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-example");
  char bin[600], port[16], out[700];
  snprintf(bin, sizeof bin, "%s/client/examples/game_loop", getenv("TRESS_BINARY_DIR"));
  snprintf(port, sizeof port, "%u", s.udp_port);
  snprintf(out, sizeof out, "%s/game_loop.out", s.dir);
  const char *argv[] = {bin, "127.0.0.1", port, "example", "1.0", NULL};
  assert_int_equal(run_to_file(argv, out), 0);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static void test_bot_reports_and_exits_zero(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-bot");
  char bin[600], server[64], out[700];
  snprintf(bin, sizeof bin, "%s/client/bot/tress-bot", getenv("TRESS_BINARY_DIR"));
  snprintf(server, sizeof server, "127.0.0.1:%u", s.udp_port);
  snprintf(out, sizeof out, "%s/bot.json", s.dir);
  const char *argv[] = {bin, "--server", server, "--room", "load", "--bots", "3", "--characters", "2",
                        "--manifest", "assets/characters/ava.json", "--fps", "60", "--duration", "3", "--json", NULL};
  assert_int_equal(run_to_file(argv, out), 0);
  FILE *f = fopen(out, "r");
  assert_non_null(f);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cJSON *report = cJSON_Parse(text);
  assert_non_null(report);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  cJSON *bot;
  cJSON_ArrayForEach(bot, cJSON_GetObjectItem(report, "bots")) {
    assert_int_equal(cJSON_GetObjectItem(bot, "characters_seen")->valueint, 6);
    assert_int_equal(cJSON_GetObjectItem(bot, "rigs_applied")->valueint, 6);
    assert_int_equal(cJSON_GetObjectItem(bot, "bones_bound")->valueint, 60);
    /* Ava: long hair (rigged) + hat (pendulum) + glasses (Face: does not swing), 6 characters. */
    assert_int_equal(cJSON_GetObjectItem(bot, "handles_bound_max")->valueint, 12);
    double rig = cJSON_GetObjectItem(bot, "bytes_rig_bind_phase")->valuedouble;
    double steady = cJSON_GetObjectItem(bot, "bytes_steady_state")->valuedouble;
    printf("bot %d: join-to-bind mean %.1f ms, bytes rig/bind %.0f, steady %.0f\n",
           cJSON_GetObjectItem(bot, "bot")->valueint, cJSON_GetObjectItem(bot, "join_to_bind_ms_mean")->valuedouble,
           rig, steady);
    assert_true(rig > 0);
    assert_true(steady == 0); /* no pose traffic once everyone is bound */
  }
  cJSON_Delete(report);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* kit.json carries a springs section (a head sphere and a torso capsule for its ponytail):
 * the bot's characters bind with both colliders on every client. */
static void test_bot_with_springs_manifest_binds_colliders(void **state) {
  (void)state;
  th_server s;
  start_server(&s, "client-bot-springs");
  char bin[600], server[64], out[700];
  snprintf(bin, sizeof bin, "%s/client/bot/tress-bot", getenv("TRESS_BINARY_DIR"));
  snprintf(server, sizeof server, "127.0.0.1:%u", s.udp_port);
  snprintf(out, sizeof out, "%s/bot.json", s.dir);
  const char *argv[] = {bin, "--server", server, "--room", "kit", "--bots", "2", "--characters", "1",
                        "--manifest", "assets/characters/kit.json", "--fps", "60", "--duration", "2", "--json", NULL};
  assert_int_equal(run_to_file(argv, out), 0);
  FILE *f = fopen(out, "r");
  assert_non_null(f);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cJSON *report = cJSON_Parse(text);
  assert_non_null(report);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  cJSON *bot;
  int bots = 0;
  cJSON_ArrayForEach(bot, cJSON_GetObjectItem(report, "bots")) {
    bots++;
    assert_int_equal(cJSON_GetObjectItem(bot, "characters_now")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(bot, "protocol_errors")->valueint, 0);
    /* two characters, each with the head sphere and the torso capsule */
    assert_int_equal(cJSON_GetObjectItem(bot, "colliders")->valueint, 4);
  }
  assert_int_equal(bots, 2);
  cJSON_Delete(report);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_30_and_240_fps_clients_sway_identically),
      cmocka_unit_test(test_late_joiner_gets_the_same_bones),
      cmocka_unit_test(test_server_rig_bones_match_a_local_rig),
      cmocka_unit_test(test_springs_reach_every_client),
      cmocka_unit_test(test_server_restart_rebinds_without_duplicates),
      cmocka_unit_test(test_despawn_removes_the_character_everywhere),
      cmocka_unit_test(test_game_loop_example_runs),
      cmocka_unit_test(test_bot_reports_and_exits_zero),
      cmocka_unit_test(test_bot_with_springs_manifest_binds_colliders),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
