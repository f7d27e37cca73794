/* Untrusted input on a real server: every message type as garbage, truncated and oversized;
 * asset ids that try to leave the store (by path and by symlink); ownership; state errors; a
 * flood. Each gets an ERROR back, the offender is eventually disconnected, and a well-behaved
 * client in the same room sees nothing at all change, and is still served afterwards. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/server_harness.h"

static th_client *client(th_server *s, const char *name, const char *room) {
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s->udp_port), 0);
  if (room) assert_int_equal(th_client_hello_join(c, name, room), 0);
  return c;
}

/* Sends bytes and expects an ERROR (any code but NONE) for it; returns the code. */
static int expect_error(th_client *c, const void *bytes, size_t len, uint8_t channel) {
  assert_int_equal(th_client_send_raw(c, bytes, len, channel), 0);
  const tress_msg *e = th_client_wait(c, TRESS_MSG_ERROR, 3000);
  if (!e) fail_msg("no ERROR for a %zu-byte message of type %u", len, len ? ((const uint8_t *)bytes)[0] : 0);
  assert_int_not_equal(e->error.code, TRESS_CODE_NONE);
  return e->error.code;
}

static int expect_error_msg(th_client *c, const tress_msg *m) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  uint8_t *buf = malloc(cap);
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(m, buf, cap, &len, &err), TRESS_WIRE_OK);
  int code = expect_error(c, buf, len, TRESS_CHANNEL_CONTROL);
  free(buf);
  return code;
}

static size_t encode(const tress_msg *m, uint8_t **out) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  *out = malloc(cap);
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(m, *out, cap, &len, &err), TRESS_WIRE_OK);
  return len;
}

static void spawn_with_asset(tress_msg *m, const char *asset, tress_wire_part *part, tress_wire_accessory *acc) {
  memset(m, 0, sizeof *m);
  memset(part, 0, sizeof *part);
  memset(acc, 0, sizeof *acc);
  m->type = TRESS_MSG_SPAWN_CHARACTER;
  m->spawn_character.request_id = 9;
  tress_wire_manifest *mf = &m->spawn_character.manifest;
  snprintf(mf->character_name, sizeof mf->character_name, "Evil");
  snprintf(part->name, sizeof part->name, "Head");
  part->size[0] = part->size[1] = part->size[2] = 1;
  part->cframe = tress_xform_identity();
  snprintf(acc->name, sizeof acc->name, "EvilHair");
  acc->type = TRESS_ACCESSORY_HAIR;
  snprintf(acc->mesh_asset_id, sizeof acc->mesh_asset_id, "%s", asset);
  acc->handle_size[0] = acc->handle_size[1] = acc->handle_size[2] = 1;
  acc->handle_cframe = acc->c0 = acc->c1 = tress_xform_identity();
  mf->part_count = 1;
  mf->parts = part;
  mf->accessory_count = 1;
  mf->accessories = acc;
}

static void test_bad_input(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "bad");
  /* A private store: the sample hair, plus a symlink that points out of the store. */
  snprintf(s.assets, sizeof s.assets, "%s/assets", s.dir);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/meshes' && cp '%s/assets/meshes/'*.glb '%s/meshes/' && ln -s /etc/passwd '%s/meshes/evil.glb'",
           s.assets, th_source_dir(), s.assets, s.assets);
  assert_int_equal(system(cmd), 0);
  const char *extra[] = {"--max-strikes", "150", "--max-messages-per-second", "100",
                         "--max-bytes-per-second", "4000000", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);

  /* The well-behaved client: in room r with a rigged character. */
  th_client *good = client(&s, "good", "r");
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 1), 0);
  assert_int_equal(th_client_send(good, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(good, TRESS_MSG_BIND, 30000));
  const tress_msg *added = th_client_wait(good, TRESS_MSG_CHARACTER_ADDED, 0);
  assert_null(added); /* already taken by the BIND wait; find it by scanning */
  uint32_t good_character = 0;
  for (uint32_t i = 0; i < good->inbox_count; i++)
    if (good->inbox[i].type == TRESS_MSG_CHARACTER_ADDED) good_character = good->inbox[i].character_added.character_id;
  assert_int_not_equal(good_character, 0);
  uint32_t good_inbox = good->inbox_count;

  th_client *bad = client(&s, "bad", "r");

  /* Templates of every type: some from what the good client received, some built here. */
  tress_msg tmpl[TRESS_MSG_TYPE_MAX + 1];
  memset(tmpl, 0, sizeof tmpl);
  for (uint32_t i = 0; i < good->inbox_count; i++) tmpl[good->inbox[i].type] = good->inbox[i];
  tmpl[TRESS_MSG_HELLO].type = TRESS_MSG_HELLO;
  tmpl[TRESS_MSG_HELLO].hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  snprintf(tmpl[TRESS_MSG_HELLO].hello.client_name, TRESS_WIRE_NAME_CAP, "again");
  tmpl[TRESS_MSG_REJECT].type = TRESS_MSG_REJECT;
  tmpl[TRESS_MSG_REJECT].reject.code = TRESS_CODE_AUTH_FAILED;
  tmpl[TRESS_MSG_JOIN_ROOM].type = TRESS_MSG_JOIN_ROOM;
  snprintf(tmpl[TRESS_MSG_JOIN_ROOM].join_room.room, TRESS_WIRE_NAME_CAP, "elsewhere");
  tress_msg ava;
  assert_int_equal(th_spawn_load(&ava, "ava.json", 2), 0);
  tmpl[TRESS_MSG_SPAWN_CHARACTER] = ava;
  tmpl[TRESS_MSG_DESPAWN_CHARACTER].type = TRESS_MSG_DESPAWN_CHARACTER;
  tmpl[TRESS_MSG_DESPAWN_CHARACTER].despawn_character.character_id = good_character;
  tmpl[TRESS_MSG_CHARACTER_REMOVED].type = TRESS_MSG_CHARACTER_REMOVED;
  tmpl[TRESS_MSG_CHARACTER_REMOVED].character_removed.character_id = good_character;
  tmpl[TRESS_MSG_RIG_FAILED].type = TRESS_MSG_RIG_FAILED;
  tmpl[TRESS_MSG_RIG_FAILED].rig_failed.character_id = good_character;
  tmpl[TRESS_MSG_RIG_FAILED].rig_failed.code = TRESS_CODE_RIG_FAILED;
  tmpl[TRESS_MSG_SETTINGS_UPDATE].type = TRESS_MSG_SETTINGS_UPDATE;
  tmpl[TRESS_MSG_SETTINGS_UPDATE].settings_update.character_id = good_character;
  tmpl[TRESS_MSG_SETTINGS_UPDATE].settings_update.has_chain_settings = true;
  tmpl[TRESS_MSG_SETTINGS_UPDATE].settings_update.chain_settings = tress_default_chain_settings();
  tmpl[TRESS_MSG_ERROR].type = TRESS_MSG_ERROR;
  tmpl[TRESS_MSG_ERROR].error.code = TRESS_CODE_INTERNAL;
  tmpl[TRESS_MSG_REDIRECT].type = TRESS_MSG_REDIRECT;
  snprintf(tmpl[TRESS_MSG_REDIRECT].redirect.room, TRESS_WIRE_NAME_CAP, "r");
  snprintf(tmpl[TRESS_MSG_REDIRECT].redirect.host, TRESS_WIRE_TEXT_CAP, "127.0.0.1");
  tmpl[TRESS_MSG_REDIRECT].redirect.port = 7777;

  int errors = 0;
  uint8_t garbage[64], *big = malloc(70000);
  for (int t = 1; t <= TRESS_MSG_TYPE_MAX; t++) {
    assert_int_equal(tmpl[t].type, t);
    /* garbage */
    memset(garbage, 0xA5, sizeof garbage);
    garbage[0] = (uint8_t)t;
    int code = expect_error(bad, garbage, 38, TRESS_CHANNEL_CONTROL);
    assert_true(code == TRESS_CODE_MALFORMED || code == TRESS_CODE_TOO_LARGE ||
                ((t == TRESS_MSG_HELLO || t == TRESS_MSG_WELCOME) && code == TRESS_CODE_BAD_VERSION));
    /* truncated: a valid encoding cut in half */
    uint8_t *bytes;
    size_t len = encode(&tmpl[t], &bytes);
    code = expect_error(bad, bytes, len / 2, TRESS_CHANNEL_CONTROL);
    assert_int_equal(code, TRESS_CODE_MALFORMED);
    /* oversized: over the control limit (a rig result is even over it as a whole) */
    memset(big, 0x11, 70000);
    big[0] = (uint8_t)t;
    code = expect_error(bad, big, 70000, TRESS_CHANNEL_CONTROL);
    assert_int_equal(code, TRESS_CODE_TOO_LARGE);
    /* whole and valid, but not something a client may send (or not now) */
    if (t != TRESS_MSG_RIG_RESULT && t != TRESS_MSG_SPAWN_CHARACTER) {
      code = expect_error(bad, bytes, len, TRESS_CHANNEL_CONTROL);
      if (t == TRESS_MSG_JOIN_ROOM) assert_int_equal(code, TRESS_CODE_ALREADY_IN_ROOM);
      else if (t == TRESS_MSG_DESPAWN_CHARACTER || t == TRESS_MSG_SETTINGS_UPDATE)
        assert_int_equal(code, TRESS_CODE_NOT_OWNER); /* the good client's character */
      else
        assert_int_equal(code, TRESS_CODE_UNEXPECTED_MESSAGE);
      errors++;
    }
    free(bytes);
    errors += 3;
  }
  /* Unknown type bytes, an empty packet, and the bulk channel. */
  garbage[0] = 0;
  assert_int_equal(expect_error(bad, garbage, 5, TRESS_CHANNEL_CONTROL), TRESS_CODE_UNKNOWN_TYPE);
  garbage[0] = 200;
  assert_int_equal(expect_error(bad, garbage, 5, TRESS_CHANNEL_CONTROL), TRESS_CODE_UNKNOWN_TYPE);
  assert_int_not_equal(expect_error(bad, garbage, 0, TRESS_CHANNEL_CONTROL), TRESS_CODE_NONE);
  {
    uint8_t *bytes;
    size_t len = encode(&tmpl[TRESS_MSG_DESPAWN_CHARACTER], &bytes);
    assert_int_equal(expect_error(bad, bytes, len, TRESS_CHANNEL_BULK), TRESS_CODE_UNEXPECTED_MESSAGE);
    free(bytes);
  }
  free(big);
  th_spawn_free(&ava);

  /* Asset ids that try to leave the store never create a character. */
  const char *escapes[] = {"../../etc/passwd", "/etc/passwd", "meshes/../../../etc/passwd", "meshes\\..\\x.glb",
                           "meshes//hair_bob.glb", "./meshes/hair_bob.glb", "meshes/hair_bob.glb/..", "C:/x.glb"};
  tress_wire_part part;
  tress_wire_accessory acc;
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
    tress_msg m;
    spawn_with_asset(&m, escapes[i], &part, &acc);
    assert_int_equal(expect_error_msg(bad, &m), TRESS_CODE_ASSET_PATH_REJECTED);
  }

  /* Despawning a character that does not exist. */
  tress_msg d;
  memset(&d, 0, sizeof d);
  d.type = TRESS_MSG_DESPAWN_CHARACTER;
  d.despawn_character.character_id = 999999;
  assert_int_equal(expect_error_msg(bad, &d), TRESS_CODE_UNKNOWN_CHARACTER);

  /* Through all of that, the good client heard nothing, and its character is intact. */
  th_client_pump(good, 300);
  assert_int_equal(good->inbox_count, good_inbox);
  assert_int_equal((int)th_metric(s.http_port, "tress_characters"), 1);

  /* Protocol state: messages before HELLO, a HELLO of another major, spawning outside a room. */
  th_client *fresh = client(&s, NULL, NULL);
  {
    uint8_t *bytes;
    size_t len = encode(&tmpl[TRESS_MSG_JOIN_ROOM], &bytes);
    assert_int_equal(th_client_send_raw(fresh, bytes, len, TRESS_CHANNEL_CONTROL), 0);
    free(bytes);
    const tress_msg *r = th_client_wait(fresh, TRESS_MSG_REJECT, 3000); /* PROTOCOL.md 6: REJECT, disconnect */
    assert_non_null(r);
    assert_int_equal(r->reject.code, TRESS_CODE_UNEXPECTED_MESSAGE);
    for (int i = 0; i < 300 && !fresh->disconnected; i++) th_client_pump(fresh, 10);
    assert_true(fresh->disconnected);
    th_client_close(fresh);
    free(fresh);
  }
  fresh = client(&s, NULL, NULL);
  tress_msg hello = tmpl[TRESS_MSG_HELLO];
  assert_int_equal(th_client_send(fresh, &hello), 0);
  assert_non_null(th_client_wait(fresh, TRESS_MSG_WELCOME, 3000));
  tress_msg kit;
  assert_int_equal(th_spawn_load(&kit, "kit.json", 3), 0);
  assert_int_equal(expect_error_msg(fresh, &kit), TRESS_CODE_NOT_IN_ROOM);
  th_client_close(fresh);
  free(fresh);
  th_client *old = client(&s, NULL, NULL);
  uint8_t *hb;
  size_t hl = encode(&hello, &hb);
  hb[1] = (uint8_t)(TRESS_PROTOCOL_VERSION_MAJOR + 1); /* u16 major, little-endian, right after the type */
  assert_int_equal(th_client_send_raw(old, hb, hl, TRESS_CHANNEL_CONTROL), 0);
  free(hb);
  const tress_msg *rej = th_client_wait(old, TRESS_MSG_REJECT, 3000);
  assert_non_null(rej);
  assert_int_equal(rej->reject.code, TRESS_CODE_BAD_VERSION);
  for (int i = 0; i < 200 && !old->disconnected; i++) th_client_pump(old, 10);
  assert_true(old->disconnected);
  th_client_close(old);
  free(old);

  /* In another room: a symlink out of the store fails the rig (the room hears RIG_FAILED), and
   * the per-peer character limit holds. The good client's room hears nothing of it. */
  th_client *other = client(&s, "other", "elsewhere");
  tress_msg m;
  spawn_with_asset(&m, "meshes/evil.glb", &part, &acc);
  assert_int_equal(th_client_send(other, &m), 0);
  const tress_msg *rf = th_client_wait(other, TRESS_MSG_RIG_FAILED, 10000);
  assert_non_null(rf);
  assert_int_equal(rf->rig_failed.code, TRESS_CODE_ASSET_PATH_REJECTED);
  assert_non_null(th_client_wait(other, TRESS_MSG_BIND, 3000)); /* it still binds: pendulum fallback */
  spawn_with_asset(&m, "meshes/no_such.glb", &part, &acc);
  assert_int_equal(th_client_send(other, &m), 0);
  rf = th_client_wait(other, TRESS_MSG_RIG_FAILED, 10000);
  assert_non_null(rf);
  assert_int_equal(rf->rig_failed.code, TRESS_CODE_UNKNOWN_ASSET);
  for (int i = 0; i < 6; i++) { /* 2 live; the default limit is 8 */
    kit.spawn_character.request_id = 100 + (uint32_t)i;
    assert_int_equal(th_client_send(other, &kit), 0);
  }
  th_client_pump(other, 500);
  kit.spawn_character.request_id = 200;
  assert_int_equal(expect_error_msg(other, &kit), TRESS_CODE_CHARACTER_LIMIT);
  th_client_close(other);
  free(other);

  /* A flood from one peer: rate limited, then disconnected. */
  uint32_t bad_errors_before = th_client_count(bad, TRESS_MSG_ERROR);
  uint8_t *despawn;
  size_t dl = encode(&d, &despawn);
  for (int i = 0; i < 3000 && !bad->disconnected; i++) {
    th_client_send_raw(bad, despawn, dl, TRESS_CHANNEL_CONTROL);
    if (i % 50 == 0) th_client_pump(bad, 1);
  }
  free(despawn);
  for (int i = 0; i < 500 && !bad->disconnected; i++) th_client_pump(bad, 10);
  assert_true(bad->disconnected);
  bool rate_limited = false;
  for (uint32_t i = 0; i < bad->inbox_count; i++)
    if (bad->inbox[i].type == TRESS_MSG_ERROR && bad->inbox[i].error.code == TRESS_CODE_RATE_LIMITED) rate_limited = true;
  assert_true(rate_limited);
  assert_true(th_client_count(bad, TRESS_MSG_ERROR) > bad_errors_before);
  assert_true(th_metric(s.http_port, "tress_rate_limited_total") > 0);
  assert_true(th_metric(s.http_port, "tress_disconnects_forced_total") >= 1);
  printf("errors checked: %d per-type cases; flood disconnected the offender\n", errors);

  /* The good client: still connected, heard nothing, and is still served. */
  th_client_pump(good, 300);
  assert_false(good->disconnected);
  assert_int_equal(good->inbox_count, good_inbox);
  kit.spawn_character.request_id = 300;
  assert_int_equal(th_client_send(good, &kit), 0);
  assert_non_null(th_client_wait(good, TRESS_MSG_RIG_RESULT, 30000));
  assert_non_null(th_client_wait(good, TRESS_MSG_BIND, 10000));
  th_spawn_free(&kit);
  th_client_close(bad);
  free(bad);
  th_client_close(good);
  free(good);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

/* Default strikes: repeated malformed messages end the connection; a byte-rate limit holds even
 * when the message count is low; a wrong auth token is rejected. Others stay served. */
static void test_strikes_bytes_auth(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "strikes");
  const char *extra[] = {"--max-bytes-per-second", "20000", "--auth-token", "sesame", "--max-rigs-per-peer", "1", NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  tress_msg hello;
  memset(&hello, 0, sizeof hello);
  hello.type = TRESS_MSG_HELLO;
  hello.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  snprintf(hello.hello.client_name, sizeof hello.hello.client_name, "x");

  /* wrong token */
  th_client *c = client(&s, NULL, NULL);
  snprintf(hello.hello.auth_token, sizeof hello.hello.auth_token, "open");
  assert_int_equal(th_client_send(c, &hello), 0);
  const tress_msg *rej = th_client_wait(c, TRESS_MSG_REJECT, 3000);
  assert_non_null(rej);
  assert_int_equal(rej->reject.code, TRESS_CODE_AUTH_FAILED);
  for (int i = 0; i < 200 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  th_client_close(c);
  free(c);

  /* right token; then malformed messages, slowly (no rate limit involved): 8 strikes allowed */
  snprintf(hello.hello.auth_token, sizeof hello.hello.auth_token, "sesame");
  th_client *good = client(&s, NULL, NULL);
  assert_int_equal(th_client_send(good, &hello), 0);
  assert_non_null(th_client_wait(good, TRESS_MSG_WELCOME, 3000));
  c = client(&s, NULL, NULL);
  assert_int_equal(th_client_send(c, &hello), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_WELCOME, 3000));
  uint8_t junk[8] = {TRESS_MSG_JOIN_ROOM, 200, 1, 2, 3, 4, 5, 6};
  int sent = 0;
  while (!c->disconnected && sent < 20) {
    th_client_send_raw(c, junk, sizeof junk, TRESS_CHANNEL_CONTROL);
    sent++;
    th_client_pump(c, 60);
  }
  for (int i = 0; i < 100 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  assert_int_equal(sent, 9); /* the ninth malformed message is one too many */
  assert_int_equal(th_client_count(c, TRESS_MSG_ERROR), 9);
  th_client_close(c);
  free(c);

  /* bytes per second: 20000/s with a 40000 burst; five 10000-byte messages trip it */
  c = client(&s, NULL, NULL);
  assert_int_equal(th_client_send(c, &hello), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_WELCOME, 3000));
  uint8_t *big = calloc(1, 10000);
  big[0] = TRESS_MSG_JOIN_ROOM;
  for (int i = 0; i < 5; i++) th_client_send_raw(c, big, 10000, TRESS_CHANNEL_CONTROL);
  free(big);
  bool limited = false;
  for (int i = 0; i < 100 && !limited; i++) {
    th_client_pump(c, 10);
    for (uint32_t k = 0; k < c->inbox_count; k++)
      if (c->inbox[k].type == TRESS_MSG_ERROR && c->inbox[k].error.code == TRESS_CODE_RATE_LIMITED) limited = true;
  }
  assert_true(limited);
  th_client_close(c);
  free(c);

  /* the good client is still there and served */
  tress_msg join;
  memset(&join, 0, sizeof join);
  join.type = TRESS_MSG_JOIN_ROOM;
  snprintf(join.join_room.room, sizeof join.join_room.room, "ok");
  assert_int_equal(th_client_send(good, &join), 0);
  assert_non_null(th_client_wait(good, TRESS_MSG_ROOM_JOINED, 3000));

  /* one rig in flight per peer here: a second spawn needing a new rig waits its turn */
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 1), 0);
  assert_int_equal(th_client_send(good, &spawn), 0);
  spawn.spawn_character.request_id = 2;
  spawn.spawn_character.manifest.has_rig_options = true;
  spawn.spawn_character.manifest.rig_options = tress_default_wire_rig_options();
  spawn.spawn_character.manifest.rig_options.segments = 5; /* another cache key: another rig */
  assert_int_equal(th_client_send(good, &spawn), 0);
  const tress_msg *limited_spawn = th_client_wait(good, TRESS_MSG_ERROR, 5000);
  assert_non_null(limited_spawn);
  assert_int_equal(limited_spawn->error.code, TRESS_CODE_RATE_LIMITED);
  assert_int_equal(limited_spawn->error.request_id, 2);
  assert_non_null(th_client_wait(good, TRESS_MSG_BIND, 30000)); /* the first goes through */
  spawn.spawn_character.request_id = 3;                         /* and now the retry does too */
  assert_int_equal(th_client_send(good, &spawn), 0);
  const tress_msg *added = th_client_wait(good, TRESS_MSG_CHARACTER_ADDED, 5000);
  assert_non_null(added);
  assert_int_equal(added->character_added.request_id, 3);
  assert_non_null(th_client_wait(good, TRESS_MSG_BIND, 30000));
  th_spawn_free(&spawn);
  assert_false(good->disconnected);
  th_client_close(good);
  free(good);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bad_input), cmocka_unit_test(test_strikes_bytes_auth)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
