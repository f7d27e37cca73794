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

static void test_replay_larger_than_cap_is_paced(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "replay-paced");
  /* A dense hair mesh: its RIG_RESULT (skin weights for every vertex) is tens of KiB. Every
   * character wears it, so it is rigged once and the rest are cache hits. */
  char cmd[2048], path[1200];
  snprintf(s.assets, sizeof s.assets, "%s/assets", s.dir);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes'", s.assets);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/meshes/dense_hair.obj", s.assets);
  assert_int_equal(th_write_hair_tube_obj(path, 200, 200), 0);
  const char *const extra[] = {"--max-peer-queued-bytes", "262144", "--max-characters-per-peer", "128", "--max-messages-per-second", "1000", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  th_client *owner = th_client_joined(&s, "owner", "r");
  assert_non_null(owner);
  uint32_t ids[CHARACTERS];
  for (int i = 0; i < CHARACTERS; i++) {
    tress_msg spawn;
    assert_int_equal(th_spawn_load(&spawn, "ava.json", (uint32_t)i + 1), 0);
    snprintf(spawn.spawn_character.manifest.accessories[0].mesh_asset_id, TRESS_WIRE_TEXT_CAP, "meshes/dense_hair.obj");
    spawn.spawn_character.manifest.has_rig_options = true;
    spawn.spawn_character.manifest.rig_options = tress_default_wire_rig_options();
    spawn.spawn_character.manifest.rig_options.sectors = 15; /* 1 + 15 x 17 = 256 bones, the most */
    spawn.spawn_character.manifest.rig_options.segments = 17;
    assert_int_equal(th_client_send(owner, &spawn), 0);
    th_spawn_free(&spawn);
    const tress_msg *b = th_client_wait(owner, TRESS_MSG_BIND, 30000);
    assert_non_null(b);
    ids[i] = b->bind.character_id;
  }
  double out_before = th_metric(s.http_port, "tress_bytes_out_total");

  th_client *late = th_client_joined(&s, "late", "r");
  assert_non_null(late);
  /* Slow: a short service, then a long pause, so acknowledgements lag behind the server's sends. */
  for (int t = 0; t < 3000 && th_client_count(late, TRESS_MSG_BIND) < CHARACTERS; t++) {
    th_client_pump(late, 1);
    sleep_ms(20);
  }
  double replay_bytes = th_metric(s.http_port, "tress_bytes_out_total") - out_before;
  double queued_max = th_metric(s.http_port, "tress_peer_queued_bytes_max");

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
  assert_int_equal(next, CHARACTERS);
  assert_int_equal(th_client_count(late, TRESS_MSG_CHARACTER_ADDED), CHARACTERS);
  assert_int_equal(th_client_count(late, TRESS_MSG_RIG_RESULT), CHARACTERS);
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replay_larger_than_cap_is_paced),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
