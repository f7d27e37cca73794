/* test_server_replay.c - a late joiner's replay on a real server: every joiner gets the room's
 * characters (CHARACTER_ADDED, RIG_RESULT, BIND, in spawn order), and the server encodes each of
 * those once per room state, not once per joiner: N joiners cost N ROOM_JOINED encodes and
 * nothing else (the same ENet packets, reference counted, go to each); a SETTINGS_UPDATE changes
 * the state, so the next joiner costs one BIND re-encode, and its BIND carries the new settings. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/server_harness.h"

#define JOINERS 4

static th_client *joined(th_server *s, const char *name) {
  th_client *c = th_client_joined(s, name, "r");
  assert_non_null(c);
  return c;
}

static const char *const characters[] = {"ava.json", "kit.json", "ava.json"};
#define CHARACTERS 3

static double encoded(const th_server *s) { return th_metric(s->http_port, "tress_messages_encoded_total"); }

/* Waits for the whole replay and checks its order: each character's ADDED, then its results, then
 * its BIND, characters in spawn order. Returns the last BIND. */
static const tress_msg *whole_replay(th_client *c, const uint32_t ids[CHARACTERS]) {
  for (int t = 0; t < 1000 && th_client_count(c, TRESS_MSG_BIND) < CHARACTERS; t++) th_client_pump(c, 10);
  assert_int_equal(th_client_count(c, TRESS_MSG_BIND), CHARACTERS);
  int next = 0;
  const tress_msg *bind = NULL;
  for (uint32_t i = 0; i < c->inbox_count; i++) {
    const tress_msg *m = &c->inbox[i];
    if (m->type == TRESS_MSG_CHARACTER_ADDED) assert_int_equal(m->character_added.character_id, ids[next]);
    if (m->type == TRESS_MSG_RIG_RESULT) assert_int_equal(m->rig_result.character_id, ids[next]);
    if (m->type == TRESS_MSG_BIND) {
      assert_int_equal(m->bind.character_id, ids[next]);
      bind = m;
      next++;
    }
  }
  assert_int_equal(next, CHARACTERS);
  assert_int_equal(th_client_count(c, TRESS_MSG_CHARACTER_ADDED), CHARACTERS);
  assert_int_equal(th_client_count(c, TRESS_MSG_RIG_RESULT), CHARACTERS);
  return bind;
}

static void test_replays_share_encoded_packets(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "replay-share");
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client *owner = joined(&s, "owner");
  uint32_t ids[CHARACTERS];
  for (int i = 0; i < CHARACTERS; i++) {
    tress_msg spawn;
    assert_int_equal(th_spawn_load(&spawn, characters[i], (uint32_t)i + 1), 0);
    assert_int_equal(th_client_send(owner, &spawn), 0);
    th_spawn_free(&spawn);
    const tress_msg *b = th_client_wait(owner, TRESS_MSG_BIND, 30000);
    assert_non_null(b);
    ids[i] = b->bind.character_id;
  }

  double before = encoded(&s);
  th_client *joiner[JOINERS];
  for (int j = 0; j < JOINERS; j++) {
    char name[16];
    snprintf(name, sizeof name, "late%d", j);
    joiner[j] = joined(&s, name);
    whole_replay(joiner[j], ids);
  }
  printf("replay: %d joiners x %d characters cost %.0f encodes\n", JOINERS, CHARACTERS, encoded(&s) - before);
  assert_int_equal((int)(encoded(&s) - before), 2 * JOINERS); /* their WELCOMEs and ROOM_JOINEDs, nothing else */

  /* New settings for the second character: one SETTINGS_UPDATE to the room, and the next
   * joiner's replay re-encodes that one BIND, which carries them. */
  tress_msg update;
  memset(&update, 0, sizeof update);
  update.type = TRESS_MSG_SETTINGS_UPDATE;
  update.settings_update.character_id = ids[1];
  update.settings_update.has_chain_settings = true;
  update.settings_update.chain_settings = tress_default_chain_settings();
  update.settings_update.chain_settings.stiffness = 0.625f;
  assert_int_equal(th_client_send(owner, &update), 0);
  assert_non_null(th_client_wait(joiner[0], TRESS_MSG_SETTINGS_UPDATE, 5000));
  before = encoded(&s);
  th_client *last = joined(&s, "last");
  whole_replay(last, ids);
  assert_int_equal((int)(encoded(&s) - before), 3); /* WELCOME, ROOM_JOINED + the one changed BIND */
  const tress_msg *changed = NULL;
  for (uint32_t i = 0; i < last->inbox_count; i++)
    if (last->inbox[i].type == TRESS_MSG_BIND && last->inbox[i].bind.character_id == ids[1]) changed = &last->inbox[i];
  assert_non_null(changed);
  assert_true(changed->bind.chain_settings.stiffness == 0.625f);

  th_client_drop(last);
  for (int j = 0; j < JOINERS; j++) th_client_drop(joiner[j]);
  th_client_drop(owner);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replays_share_encoded_packets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
