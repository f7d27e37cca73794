/* test_server_spawn_rules.c - a real server keeps a room's view whole and private:
 *  - a SPAWN at the control limit, whose CHARACTER_ADDED (8 bytes of ids more) cannot be
 *    encoded, is refused with TOO_LARGE before anything happens: the room hears nothing, no
 *    character exists, no rig starts;
 *  - DESPAWN / SETTINGS_UPDATE of a character in another room is UNKNOWN_CHARACTER, the same
 *    answer as an id that does not exist (no existence oracle across rooms); in the same room
 *    it is NOT_OWNER;
 *  - the per-peer rig limit follows the client's address across reconnects: a rig a departed
 *    connection left running still counts, while another address is not held back;
 *  - with signed join tokens it follows the token's player id instead: the same player back from
 *    another address is held back, another player from the first address is not. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "support/server_harness.h"
#include "tress/join_token.h"

static th_client *joined(th_server *s, const char *name, const char *room) {
  th_client *c = th_client_joined(s, name, room);
  assert_non_null(c);
  return c;
}

static size_t encoded_size(const tress_msg *m) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  uint8_t *buf = malloc(cap);
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(m, buf, cap, &len, &err), TRESS_WIRE_OK);
  free(buf);
  return len;
}

static void test_spawn_whose_added_cannot_encode_is_refused_whole(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "spawn-size");
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client *owner = joined(&s, "owner", "r"), *bystander = joined(&s, "bystander", "r");
  th_client_pump(bystander, 200);
  uint32_t bystander_inbox = bystander->inbox_count;

  /* The sample character padded with sections of a tag nobody knows (receivers skip them) to
   * exactly the control limit. */
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 5), 0);
  tress_wire_manifest *mf = &spawn.spawn_character.manifest;
  static uint8_t pad[TRESS_WIRE_MAX_SECTION_BYTES];
  memset(pad, 0x42, sizeof pad);
  tress_wire_section sections[TRESS_WIRE_MAX_SECTIONS];
  uint32_t kept = mf->section_count;
  if (kept) memcpy(sections, mf->sections, kept * sizeof *sections);
  tress_wire_section *own = mf->sections;
  mf->sections = sections;
  while (encoded_size(&spawn) < TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES) {
    tress_wire_section *p = &sections[mf->section_count++];
    p->tag = 0x7A7A;
    p->bytes = pad;
    p->length = 0;
    size_t now = encoded_size(&spawn), room = TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES - now;
    p->length = (uint32_t)(room < sizeof pad ? room : sizeof pad);
  }
  assert_int_equal(encoded_size(&spawn), TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES);
  assert_int_equal(th_client_send(owner, &spawn), 0);
  mf->sections = own;
  mf->section_count = kept;
  th_spawn_free(&spawn);

  const tress_msg *e = th_client_wait(owner, TRESS_MSG_ERROR, 5000);
  assert_non_null(e);
  assert_int_equal(e->error.code, TRESS_CODE_TOO_LARGE);
  assert_int_equal(e->error.offending_type, TRESS_MSG_SPAWN_CHARACTER);
  assert_int_equal(e->error.request_id, 5);
  /* Long enough for a rig of the sample hair to have come back, had one started. */
  th_client_pump(bystander, 3000);
  th_client_pump(owner, 10);
  assert_int_equal(bystander->inbox_count, bystander_inbox);
  assert_int_equal(th_client_count(owner, TRESS_MSG_CHARACTER_ADDED) + th_client_count(owner, TRESS_MSG_RIG_RESULT) +
                       th_client_count(owner, TRESS_MSG_BIND),
                   0);
  assert_int_equal((int)th_metric(s.http_port, "tress_characters"), 0);
  assert_int_equal((int)th_metric(s.http_port, "tress_rigs_started_total"), 0);

  /* The same peer's ordinary spawn still works. */
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 6), 0);
  assert_int_equal(th_client_send(owner, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(bystander, TRESS_MSG_BIND, 30000));

  th_client_drop(owner);
  th_client_drop(bystander);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static int error_code_for(th_client *c, const tress_msg *m) {
  assert_int_equal(th_client_send(c, m), 0);
  const tress_msg *e = th_client_wait(c, TRESS_MSG_ERROR, 3000);
  assert_non_null(e);
  return e->error.code;
}

static void test_no_character_oracle_across_rooms(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "oracle");
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client *owner = joined(&s, "owner", "a"), *neighbour = joined(&s, "neighbour", "a"),
            *outsider = joined(&s, "outsider", "b");
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 1), 0);
  assert_int_equal(th_client_send(owner, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *added = th_client_wait(owner, TRESS_MSG_CHARACTER_ADDED, 5000);
  assert_non_null(added);
  uint32_t id = added->character_added.character_id;

  tress_msg despawn, settings, missing;
  memset(&despawn, 0, sizeof despawn);
  despawn.type = TRESS_MSG_DESPAWN_CHARACTER;
  despawn.despawn_character.character_id = id;
  memset(&settings, 0, sizeof settings);
  settings.type = TRESS_MSG_SETTINGS_UPDATE;
  settings.settings_update.character_id = id;
  settings.settings_update.has_chain_settings = true;
  settings.settings_update.chain_settings = tress_default_chain_settings();
  missing = despawn;
  missing.despawn_character.character_id = id + 1000;

  /* From another room: the same answer as for an id nobody has. */
  assert_int_equal(error_code_for(outsider, &missing), TRESS_CODE_UNKNOWN_CHARACTER);
  assert_int_equal(error_code_for(outsider, &despawn), TRESS_CODE_UNKNOWN_CHARACTER);
  assert_int_equal(error_code_for(outsider, &settings), TRESS_CODE_UNKNOWN_CHARACTER);
  /* From the same room (who can see the character): not theirs. */
  assert_int_equal(error_code_for(neighbour, &despawn), TRESS_CODE_NOT_OWNER);
  assert_int_equal(error_code_for(neighbour, &settings), TRESS_CODE_NOT_OWNER);
  /* The character is untouched, and its owner can still remove it. */
  assert_int_equal((int)th_metric(s.http_port, "tress_characters"), 1);
  assert_int_equal(th_client_send(owner, &despawn), 0);
  assert_non_null(th_client_wait(owner, TRESS_MSG_CHARACTER_REMOVED, 3000));

  th_client_drop(owner);
  th_client_drop(neighbour);
  th_client_drop(outsider);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

static th_client *connected_from(th_server *s, const char *ip) {
  th_client *c = calloc(1, sizeof *c);
  ENetAddress bind_to, server;
  enet_address_set_host_ip(&bind_to, ip);
  bind_to.port = 0;
  c->host = enet_host_create(&bind_to, 1, TRESS_CHANNEL_COUNT, 0, 0);
  assert_non_null(c->host);
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = s->udp_port;
  c->peer = enet_host_connect(c->host, &server, TRESS_CHANNEL_COUNT, 0);
  for (int i = 0; i < 500 && !c->connected; i++) th_client_pump(c, 10);
  assert_true(c->connected);
  return c;
}

static th_client *joined_from(th_server *s, const char *ip, const char *name) {
  th_client *c = connected_from(s, ip);
  assert_int_equal(th_client_hello_join(c, name, "r"), 0);
  return c;
}

/* A store with the sample meshes and big_hair.obj, whose rig is still running a moment later. */
static void big_hair_store(th_server *s) {
  char cmd[2048], path[1200];
  snprintf(s->assets, sizeof s->assets, "%s/assets", s->dir);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes' && cp '%s/assets/meshes/'*.glb '%s/meshes/'", s->assets,
           th_source_dir(), s->assets);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/meshes/big_hair.obj", s->assets);
  assert_int_equal(th_write_hair_tube_obj(path, 300, 300), 0); /* 90k vertices: still rigging a moment later */
}

/* The sample character wearing big_hair.obj; the answer to it is the caller's to wait for. */
static void spawn_big_hair(th_client *c, uint32_t request_id) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", request_id), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "meshes/big_hair.obj");
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
}

static void test_rig_limit_survives_a_reconnect(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "rig-limit");
  big_hair_store(&s);
  const char *extra[] = {"--max-rigs-per-peer", "1", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);

  /* One connection starts the long rig and leaves at once. */
  th_client *first = joined_from(&s, "127.0.0.1", "first");
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 1), 0);
  snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "meshes/big_hair.obj");
  assert_int_equal(th_client_send(first, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(first, TRESS_MSG_CHARACTER_ADDED, 5000));
  th_client_drop(first);

  /* Back at once from the same address: that rig still counts. */
  th_client *again = joined_from(&s, "127.0.0.1", "again");
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 2), 0);
  assert_int_equal(th_client_send(again, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *e = th_client_wait(again, TRESS_MSG_ERROR, 5000);
  assert_non_null(e);
  assert_int_equal(e->error.code, TRESS_CODE_RATE_LIMITED);
  assert_int_equal(e->error.request_id, 2);
  assert_true((int)th_metric(s.http_port, "tress_rig_jobs_in_flight") >= 1); /* the check ran while it ran */

  /* Another address is not held back by it. */
  th_client *other = joined_from(&s, "127.0.0.3", "other");
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 3), 0);
  assert_int_equal(th_client_send(other, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(other, TRESS_MSG_BIND, 60000));
  assert_int_equal(th_client_count(other, TRESS_MSG_ERROR), 0);

  th_client_drop(again);
  th_client_drop(other);
  assert_int_equal(th_server_stop(&s, SIGTERM, 30000), 0);
  th_server_cleanup(&s);
}

/* HELLO with a signed token for (player, room "r") from ip, then JOIN "r". */
static th_client *joined_as(th_server *s, const tress_join_key *key, const char *ip, const char *player) {
  char token[TRESS_JOIN_TOKEN_CAP];
  tress_error err;
  assert_int_equal(tress_join_token_mint(key, player, "r", (uint64_t)time(NULL) + 300, token, &err), TRESS_OK);
  th_client *c = connected_from(s, ip);
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "%s", player);
  snprintf(m.hello.auth_token, sizeof m.hello.auth_token, "%s", token);
  assert_int_equal(th_client_send(c, &m), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_WELCOME, 5000));
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "r");
  assert_int_equal(th_client_send(c, &m), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_ROOM_JOINED, 5000));
  return c;
}

static void test_rig_limit_follows_the_token_player(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "rig-limit-player");
  big_hair_store(&s);
  tress_join_key key;
  char key_hex[TRESS_JOIN_KEY_HEX_CAP], key_path[700];
  tress_join_key_generate(&key);
  tress_join_key_to_hex(&key, key_hex);
  snprintf(key_path, sizeof key_path, "%s/join.key", s.dir);
  FILE *k = fopen(key_path, "w");
  assert_non_null(k);
  fprintf(k, "%s\n", key_hex);
  assert_int_equal(fclose(k), 0);
  const char *extra[] = {"--max-rigs-per-peer", "1", "--join-key-file", key_path, NULL};
  assert_int_equal(th_server_start(&s, extra), 0);

  /* Player p1 starts the long rig from one address and leaves. */
  th_client *first = joined_as(&s, &key, "127.0.0.1", "p1");
  spawn_big_hair(first, 1);
  assert_non_null(th_client_wait(first, TRESS_MSG_CHARACTER_ADDED, 5000));
  th_client_drop(first);

  /* p1 again, with a fresh token, from another address: still p1's rig. */
  th_client *moved = joined_as(&s, &key, "127.0.0.2", "p1");
  spawn_big_hair(moved, 2);
  const tress_msg *e = th_client_wait(moved, TRESS_MSG_ERROR, 5000);
  assert_non_null(e);
  assert_int_equal(e->error.code, TRESS_CODE_RATE_LIMITED);
  assert_int_equal(e->error.request_id, 2);
  assert_true((int)th_metric(s.http_port, "tress_rig_jobs_in_flight") >= 1); /* the check ran while it ran */

  /* Another player from p1's first address is not p1. */
  th_client *other = joined_as(&s, &key, "127.0.0.1", "p2");
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 3), 0);
  assert_int_equal(th_client_send(other, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(other, TRESS_MSG_BIND, 60000));
  assert_int_equal(th_client_count(other, TRESS_MSG_ERROR), 0);

  th_client_drop(moved);
  th_client_drop(other);
  assert_int_equal(th_server_stop(&s, SIGTERM, 30000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spawn_whose_added_cannot_encode_is_refused_whole),
      cmocka_unit_test(test_no_character_oracle_across_rooms),
      cmocka_unit_test(test_rig_limit_survives_a_reconnect),
      cmocka_unit_test(test_rig_limit_follows_the_token_player),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
