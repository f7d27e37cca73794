/* test_server_replay_paced.c - a JOIN replay larger than the per-peer cap is paced, not dropped:
 * with max_peer_queued_bytes at 256 KiB and a room whose replay is several times that, a late
 * joiner that services its connection slowly still receives every CHARACTER_ADDED, RIG_RESULT and
 * BIND, in spawn order, and the most the server ever had queued for one peer
 * (tress_peer_queued_bytes_max) stays within the cap plus one message. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "support/server_harness.h"

#define CAP_BYTES (256 * 1024)
#define CHARACTERS 80

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static th_client *owner_with_room(th_server *s, uint32_t *ids);

/* The late joiner's inbox, in order: for each of ids, ADDED, RIG_RESULT(s), BIND. */
static void assert_replay_order(const th_client *late, const uint32_t *ids, int count) {
  int next = 0, step = 0; /* step: 0 expects ADDED, 1 a RIG_RESULT, 2 a RIG_RESULT or BIND */
  for (uint32_t i = 0; i < late->inbox_count; i++) {
    const tress_msg *m = &late->inbox[i];
    if (m->type == TRESS_MSG_CHARACTER_ADDED) {
      assert_int_equal(step, 0);
      assert_int_equal(m->character_added.character_id, ids[next]);
      step = 1;
    } else if (m->type == TRESS_MSG_RIG_RESULT) {
      assert_true(step >= 1);
      assert_int_equal(m->rig_result.character_id, ids[next]);
      step = 2;
    } else if (m->type == TRESS_MSG_BIND) {
      assert_int_equal(step, 2);
      assert_int_equal(m->bind.character_id, ids[next]);
      next++;
      step = 0;
    }
  }
  assert_int_equal(next, count);
  assert_int_equal(th_client_count(late, TRESS_MSG_CHARACTER_ADDED), count);
  assert_int_equal(th_client_count(late, TRESS_MSG_RIG_RESULT), count);
}

static void pump_slowly_until_binds(th_client *late, uint32_t binds) {
  /* Slow: a short service, then a long pause, so acknowledgements lag behind the server's sends. */
  for (int t = 0; t < 3000 && th_client_count(late, TRESS_MSG_BIND) < binds; t++) {
    th_client_pump(late, 1);
    sleep_ms(20);
  }
}

static void test_replay_larger_than_cap_is_paced(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "replay-paced");
  uint32_t ids[CHARACTERS];
  th_client *owner = owner_with_room(&s, ids);
  double out_before = th_metric(s.http_port, "tress_bytes_out_total");

  th_client *late = th_client_joined(&s, "late", "r");
  assert_non_null(late);
  pump_slowly_until_binds(late, CHARACTERS);
  double replay_bytes = th_metric(s.http_port, "tress_bytes_out_total") - out_before;
  double queued_max = th_metric(s.http_port, "tress_peer_queued_bytes_max");
  assert_replay_order(late, ids, CHARACTERS);
  printf("paced replay: %d characters, %.0f bytes out (%.1fx the cap), largest peer queue %.0f bytes\n", CHARACTERS,
         replay_bytes, replay_bytes / CAP_BYTES, queued_max);
  assert_true(replay_bytes > 3.0 * CAP_BYTES); /* the replay really is several times the cap */
  /* within the cap plus one message (a control message is the largest that is not a RIG_RESULT;
   * a RIG_RESULT here is far smaller than the cap) */
  assert_true(queued_max <= CAP_BYTES + 64 * 1024);

  th_client_drop(late);
  th_client_drop(owner);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

/* A dense hair mesh: its RIG_RESULT (skin weights for every vertex, 256 bones) is ~12.8 KB. Every
 * character wears it, so it is rigged once and the rest are cache hits. */
static uint32_t spawn_dense(th_client *owner, uint32_t request_id) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", request_id), 0);
  tress_wire_manifest *mf = &spawn.spawn_character.manifest;
  snprintf(mf->accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "meshes/dense_hair.obj");
  mf->has_rig_options = true;
  mf->rig_options = tress_default_wire_rig_options();
  mf->rig_options.sectors = 15; /* 1 + 15 x 17 = 256 bones, the most */
  mf->rig_options.segments = 17;
  assert_int_equal(th_client_send(owner, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *b = th_client_wait(owner, TRESS_MSG_BIND, 30000);
  assert_non_null(b);
  return b->bind.character_id;
}

/* A server capped at CAP_BYTES and an owner whose room holds CHARACTERS dense characters. */
static th_client *owner_with_room(th_server *s, uint32_t *ids) {
  char cmd[2048], path[1200];
  snprintf(s->assets, sizeof s->assets, "%s/assets", s->dir);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes'", s->assets);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/meshes/dense_hair.obj", s->assets);
  assert_int_equal(th_write_hair_tube_obj(path, 200, 200), 0);
  const char *const extra[] = {"--max-peer-queued-bytes", "262144", "--max-characters-per-peer", "128",
                               "--max-messages-per-second", "1000", NULL};
  assert_int_equal(th_server_start(s, extra), 0);
  th_client *owner = th_client_joined(s, "owner", "r");
  assert_non_null(owner);
  for (int i = 0; i < CHARACTERS; i++) ids[i] = spawn_dense(owner, (uint32_t)i + 1);
  return owner;
}

/* Changes during a replay do not overtake it: with the joiner not servicing (so its replay is
 * held at the cap), the owner changes the settings of a character the replay has not reached,
 * despawns the last one and spawns a new one. The joiner then gets no SETTINGS_UPDATE and no
 * CHARACTER_REMOVED: the changed character's BIND carries the settings, the despawned one never
 * appears, and the new one comes last. */
static void test_changes_during_replay_do_not_overtake_it(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "replay-paced-changes");
  uint32_t ids[CHARACTERS + 1];
  th_client *owner = owner_with_room(&s, ids);
  /* HELLO, then JOIN_ROOM sent and not serviced: the server replays up to the cap and waits. */
  th_client *late = calloc(1, sizeof *late);
  assert_non_null(late);
  assert_int_equal(th_client_connect(late, s.udp_port), 0);
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "late");
  assert_int_equal(th_client_send(late, &m), 0);
  assert_non_null(th_client_wait(late, TRESS_MSG_WELCOME, 5000));
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "r");
  assert_int_equal(th_client_send(late, &m), 0);
  sleep_ms(50); /* the JOIN is handled before the owner's changes */

  tress_msg update;
  memset(&update, 0, sizeof update);
  update.type = TRESS_MSG_SETTINGS_UPDATE;
  update.settings_update.character_id = ids[CHARACTERS - 2];
  update.settings_update.has_chain_settings = true;
  update.settings_update.chain_settings = tress_default_chain_settings();
  update.settings_update.chain_settings.stiffness = 0.625f;
  assert_int_equal(th_client_send(owner, &update), 0);
  tress_msg despawn;
  memset(&despawn, 0, sizeof despawn);
  despawn.type = TRESS_MSG_DESPAWN_CHARACTER;
  despawn.despawn_character.character_id = ids[CHARACTERS - 1];
  assert_int_equal(th_client_send(owner, &despawn), 0);
  assert_non_null(th_client_wait(owner, TRESS_MSG_CHARACTER_REMOVED, 5000));
  ids[CHARACTERS - 1] = spawn_dense(owner, 1000);

  pump_slowly_until_binds(late, CHARACTERS);
  assert_int_equal(th_client_count(late, TRESS_MSG_ROOM_JOINED), 1);
  assert_replay_order(late, ids, CHARACTERS);
  assert_int_equal(th_client_count(late, TRESS_MSG_CHARACTER_REMOVED), 0);
  assert_int_equal(th_client_count(late, TRESS_MSG_SETTINGS_UPDATE), 0);
  bool changed = false;
  for (uint32_t i = 0; i < late->inbox_count; i++)
    if (late->inbox[i].type == TRESS_MSG_BIND && late->inbox[i].bind.character_id == ids[CHARACTERS - 2])
      changed = late->inbox[i].bind.chain_settings.stiffness == 0.625f;
  assert_true(changed);

  th_client_drop(late);
  th_client_drop(owner);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replay_larger_than_cap_is_paced),
      cmocka_unit_test(test_changes_during_replay_do_not_overtake_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
