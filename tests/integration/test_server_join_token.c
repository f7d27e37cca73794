/* test_server_join_token.c - signed join tokens on a real tress-server over loopback, with real
 * ENet clients (the codec) and libtress-client: a valid token binds a character; expired, too
 * long-lived, tampered, wrong-key, replayed and wrong-room tokens are each refused with their own
 * REJECT code (AUTH_FAILED to a 1.0 client); the replay set refuses rather than grow; tokens that
 * tress-token and tress-bot --join-key mint are taken; the key and tokens never reach the log;
 * the shared secret still works as the development mode; the client refreshes a spent token
 * through get_token. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "support/client_loop.h"
#include "support/process.h"
#include "support/server_harness.h"
#include "tress/client.h"
#include "tress/join_token.h"

typedef struct fixture {
  th_server server;
  tress_join_key key;
  char key_hex[TRESS_JOIN_KEY_HEX_CAP];
  char key_path[700];
} fixture;

static uint64_t unix_now(void) { return (uint64_t)time(NULL); }

static void write_key(fixture *f) {
  tress_join_key_generate(&f->key);
  tress_join_key_to_hex(&f->key, f->key_hex);
  snprintf(f->key_path, sizeof f->key_path, "%s/join.key", f->server.dir);
  FILE *k = fopen(f->key_path, "w");
  assert_non_null(k);
  fprintf(k, "%s\n", f->key_hex);
  fclose(k);
}

static fixture *start(const char *tag, const char *const *more) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  th_server_init(&f->server, tag);
  write_key(f);
  const char *extra[16] = {"--join-key-file", f->key_path, "--max-token-lifetime-seconds", "600"};
  int n = 4;
  for (int i = 0; more && more[i]; i++) extra[n++] = more[i];
  extra[n] = NULL;
  assert_int_equal(th_server_start(&f->server, extra), 0);
  return f;
}

static void stop(fixture *f) {
  /* neither the key nor any token is ever written to the log */
  assert_int_equal(th_server_log_count(&f->server, f->key_hex), 0);
  assert_int_equal(th_server_stop(&f->server, SIGTERM, 15000), 0);
  th_server_cleanup(&f->server);
  free(f);
}

static void mint(const tress_join_key *key, const char *player, const char *room, uint64_t expires,
                 char out[TRESS_JOIN_TOKEN_CAP]) {
  tress_error err;
  assert_int_equal(tress_join_token_mint(key, player, room, expires, out, &err), TRESS_OK);
}

static th_client *connect_client(const fixture *f) {
  th_client *c = calloc(1, sizeof *c);
  assert_non_null(c);
  assert_int_equal(th_client_connect(c, f->server.udp_port), 0);
  return c;
}

static void drop_client(th_client *c) {
  th_client_close(c);
  free(c);
}

/* HELLO with token at the given minor: the WELCOME or REJECT that answers it. */
static const tress_msg *hello(th_client *c, const char *token, uint16_t minor) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = minor;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "tok");
  snprintf(m.hello.auth_token, sizeof m.hello.auth_token, "%s", token);
  assert_int_equal(th_client_send(c, &m), 0);
  for (int t = 0; t < 5000; t += 10) {
    for (uint32_t i = c->taken; i < c->inbox_count; i++)
      if (c->inbox[i].type == TRESS_MSG_WELCOME || c->inbox[i].type == TRESS_MSG_REJECT) {
        c->taken = i + 1;
        return &c->inbox[i];
      }
    th_client_pump(c, 10);
  }
  fail_msg("no answer to HELLO");
  return NULL;
}

/* A HELLO refused with code, whose reason says `words`, and the connection let go. */
static void expect_reject(const fixture *f, const char *token, uint16_t minor, tress_wire_code code, const char *words) {
  th_client *c = connect_client(f);
  const tress_msg *m = hello(c, token, minor);
  assert_int_equal(m->type, TRESS_MSG_REJECT);
  if (m->reject.code != code) fail_msg("want %s, got %s (%s)", tress_wire_code_name(code),
                                       tress_wire_code_name((tress_wire_code)m->reject.code), m->reject.reason);
  if (words && !strstr(m->reject.reason, words)) fail_msg("reason \"%s\" lacks \"%s\"", m->reject.reason, words);
  for (int i = 0; i < 300 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  drop_client(c);
}

static const tress_msg *join(th_client *c, const char *room) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "%s", room);
  assert_int_equal(th_client_send(c, &m), 0);
  for (int t = 0; t < 5000; t += 10) {
    for (uint32_t i = c->taken; i < c->inbox_count; i++)
      if (c->inbox[i].type == TRESS_MSG_ROOM_JOINED || c->inbox[i].type == TRESS_MSG_REJECT ||
          c->inbox[i].type == TRESS_MSG_ERROR) {
        c->taken = i + 1;
        return &c->inbox[i];
      }
    th_client_pump(c, 10);
  }
  fail_msg("no answer to JOIN_ROOM");
  return NULL;
}

static void test_valid_token_binds(void **state) {
  (void)state;
  fixture *f = start("token_ok", NULL);
  char tok[TRESS_JOIN_TOKEN_CAP];
  mint(&f->key, "player-7", "arena", unix_now() + 120, tok);
  th_client *c = connect_client(f);
  const tress_msg *w = hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR);
  assert_int_equal(w->type, TRESS_MSG_WELCOME);
  assert_int_equal(w->welcome.version_minor, TRESS_PROTOCOL_VERSION_MINOR);
  assert_int_equal(join(c, "arena")->type, TRESS_MSG_ROOM_JOINED);
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 3), 0);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 30000));
  assert_int_equal(th_server_log_count(&f->server, "peer_authenticated"), 1);
  assert_int_equal(th_server_log_count(&f->server, "player=\"player-7\""), 1);
  assert_int_equal(th_server_log_count(&f->server, tok), 0);
  /* the same token again, while the first connection lives and after it left */
  expect_reject(f, tok, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_REPLAYED, "already used");
  drop_client(c);
  expect_reject(f, tok, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_REPLAYED, "already used");
  stop(f);
}

static void test_refusals(void **state) {
  (void)state;
  fixture *f = start("token_refusals", NULL);
  uint64_t now = unix_now();
  char tok[TRESS_JOIN_TOKEN_CAP];

  mint(&f->key, "p", "arena", now - 120, tok); /* past the 30 s skew */
  expect_reject(f, tok, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_EXPIRED, "expired");
  mint(&f->key, "p", "arena", now - 5, tok); /* inside the skew: still good */
  th_client *c = connect_client(f);
  assert_int_equal(hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  drop_client(c);

  mint(&f->key, "p", "arena", now + 100000, tok); /* server accepts 600 s */
  expect_reject(f, tok, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_LIFETIME_TOO_LONG, "600");

  /* one byte of the text changed: the expiry, then the MAC's last character */
  mint(&f->key, "p", "arena", now + 60, tok);
  size_t n = strlen(tok);
  char bad[TRESS_JOIN_TOKEN_CAP];
  memcpy(bad, tok, n + 1);
  bad[12] = bad[12] == 'A' ? 'B' : 'A';
  expect_reject(f, bad, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_BAD_SIGNATURE, "signature");
  memcpy(bad, tok, n + 1);
  bad[n - 2] = bad[n - 2] == 'A' ? 'B' : 'A';
  expect_reject(f, bad, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_BAD_SIGNATURE, "signature");
  /* signed with another key */
  tress_join_key other;
  tress_join_key_generate(&other);
  mint(&other, "p", "arena", now + 60, bad);
  expect_reject(f, bad, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_BAD_SIGNATURE, "signature");
  /* not a token at all, and none */
  expect_reject(f, "sesame", TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_MALFORMED, NULL);
  expect_reject(f, "", TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_TOKEN_MALFORMED, NULL);
  /* a 1.0 client knows none of the TOKEN_ codes: AUTH_FAILED, with the same words */
  mint(&f->key, "p", "arena", now - 120, tok);
  expect_reject(f, tok, 0, TRESS_CODE_AUTH_FAILED, "expired");

  /* a good token still passes after all those refusals */
  mint(&f->key, "p", "arena", now + 60, tok);
  c = connect_client(f);
  assert_int_equal(hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  drop_client(c);
  assert_int_equal(th_metric(f->server.http_port, "tress_auth_refused_total"), 8); /* one per refusal above */
  stop(f);
}

static void test_wrong_room(void **state) {
  (void)state;
  fixture *f = start("token_room", NULL);
  char tok[TRESS_JOIN_TOKEN_CAP];
  mint(&f->key, "p", "arena", unix_now() + 60, tok);
  th_client *c = connect_client(f);
  assert_int_equal(hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  const tress_msg *m = join(c, "lobby");
  assert_int_equal(m->type, TRESS_MSG_REJECT);
  assert_int_equal(m->reject.code, TRESS_CODE_TOKEN_WRONG_ROOM);
  for (int i = 0; i < 300 && !c->disconnected; i++) th_client_pump(c, 10);
  assert_true(c->disconnected);
  drop_client(c);
  assert_int_equal(th_server_log_count(&f->server, "room_joined"), 0);
  stop(f);
}

/* max_token_nonces live tokens fill the set: the next one is refused (SERVER_FULL), never let in
 * by forgetting a live nonce. */
static void test_replay_set_bounded(void **state) {
  (void)state;
  const char *more[] = {"--max-token-nonces", "2", NULL};
  fixture *f = start("token_full", more);
  char tok[TRESS_JOIN_TOKEN_CAP];
  for (int i = 0; i < 2; i++) {
    mint(&f->key, "p", "arena", unix_now() + 60, tok);
    th_client *c = connect_client(f);
    assert_int_equal(hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
    drop_client(c);
  }
  mint(&f->key, "p", "arena", unix_now() + 60, tok);
  expect_reject(f, tok, TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_SERVER_FULL, "join tokens");
  stop(f);
}

/* tress-token keygen / mint / verify, and the server takes what it mints. */
static void test_cli_mints(void **state) {
  (void)state;
  fixture *f = start("token_cli", NULL);
  char bin[1024], out[800];
  snprintf(bin, sizeof bin, "%s/protocol/tress-token", getenv("TRESS_BINARY_DIR"));
  snprintf(out, sizeof out, "%s/token.txt", f->server.dir);
  const char *argv[] = {bin, "mint", "--key", f->key_path, "--player", "cli", "--room", "arena", "--ttl", "60", NULL};
  assert_int_equal(run_to_file(argv, out), 0);
  char tok[TRESS_JOIN_TOKEN_CAP + 2] = {0};
  FILE *t = fopen(out, "r");
  assert_non_null(t);
  assert_non_null(fgets(tok, sizeof tok, t));
  fclose(t);
  tok[strcspn(tok, "\n")] = '\0';
  const char *verify[] = {bin, "verify", "--key", f->key_path, tok, NULL};
  assert_int_equal(run_to_file(verify, out), 0);
  const char *missing[] = {bin, "mint", "--key", f->key_path, "--player", "cli", NULL};
  assert_int_equal(run_to_file(missing, out), 2);
  th_client *c = connect_client(f);
  assert_int_equal(hello(c, tok, TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  assert_int_equal(join(c, "arena")->type, TRESS_MSG_ROOM_JOINED);
  drop_client(c);
  assert_int_equal(run_to_file(verify, out), 0); /* verify does not spend it: only a server keeps nonces */
  const char *keygen[] = {bin, "keygen", NULL};
  assert_int_equal(run_to_file(keygen, out), 0);
  stop(f);
}

/* tress-bot --join-key: every bot mints its own token for its room, and all of them bind. */
static void test_bot_mints(void **state) {
  (void)state;
  fixture *f = start("token_bot", NULL);
  char bin[1024], port[16], out[800];
  snprintf(bin, sizeof bin, "%s/client/bot/tress-bot", getenv("TRESS_BINARY_DIR"));
  snprintf(port, sizeof port, "127.0.0.1:%u", f->server.udp_port);
  snprintf(out, sizeof out, "%s/bot.txt", f->server.dir);
  const char *argv[] = {bin, "--server", port, "--room", "arena", "--bots", "3", "--characters", "1",
                        "--duration", "2", "--join-key", f->key_path, NULL};
  assert_int_equal(run_to_file(argv, out), 0);
  assert_int_equal(th_server_log_count(&f->server, "peer_authenticated"), 3);
  assert_int_equal(th_server_log_count(&f->server, "auth_refused"), 0);
  stop(f);
}

/* The shared secret is still there for development; both at once is a config error. */
static void test_shared_secret_dev_mode(void **state) {
  (void)state;
  fixture *f = calloc(1, sizeof *f);
  th_server_init(&f->server, "token_dev");
  const char *extra[] = {"--auth-token", "sesame", NULL};
  assert_int_equal(th_server_start(&f->server, extra), 0);
  expect_reject(f, "open", TRESS_PROTOCOL_VERSION_MINOR, TRESS_CODE_AUTH_FAILED, "bad auth token");
  th_client *c = connect_client(f);
  assert_int_equal(hello(c, "sesame", TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  assert_int_equal(join(c, "any-room")->type, TRESS_MSG_ROOM_JOINED);
  drop_client(c);
  c = connect_client(f); /* a secret is not single-use */
  assert_int_equal(hello(c, "sesame", TRESS_PROTOCOL_VERSION_MINOR)->type, TRESS_MSG_WELCOME);
  drop_client(c);
  assert_int_equal(th_server_log_count(&f->server, "mode=shared_secret"), 1);
  assert_int_equal(th_server_log_count(&f->server, "sesame"), 0);
  assert_int_equal(th_server_stop(&f->server, SIGTERM, 15000), 0);

  write_key(f);
  unlink(f->server.port_file); /* the first run's: a start must not mistake it for its own */
  const char *both[] = {"--auth-token", "sesame", "--join-key-file", f->key_path, NULL};
  assert_int_not_equal(th_server_start(&f->server, both), 0);
  char missing[800];
  snprintf(missing, sizeof missing, "%s/nope.key", f->server.dir);
  const char *no_file[] = {"--join-key-file", missing, NULL};
  unlink(f->server.port_file);
  assert_int_not_equal(th_server_start(&f->server, no_file), 0);
  th_server_cleanup(&f->server);
  free(f);
}

/* ---- libtress-client --------------------------------------------------------------------------- */

typedef struct token_source {
  const tress_join_key *key;
  char next[TRESS_JOIN_TOKEN_CAP];
  int asked;
  char last_error[256];
} token_source;

static const char *fresh_token(void *user, tress_client *c) {
  (void)c;
  token_source *src = user;
  src->asked++;
  mint(src->key, "client-player", "arena", unix_now() + 60, src->next);
  return src->next;
}

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c, (void)kind;
  snprintf(((token_source *)user)->last_error, sizeof ((token_source *)user)->last_error, "%s", message);
}

static tress_client *lib_client(const fixture *f, token_source *src, bool with_hook, const char *token) {
  tress_client_def def = tress_default_client_def();
  def.sim.max_chains = 100;
  def.backoff_initial_ms = 50;
  def.backoff_max_ms = 100;
  def.connect_timeout_ms = 1000;
  def.callbacks = (tress_client_callbacks){.user = src, .on_error = on_error};
  if (with_hook) {
    def.get_token = fresh_token;
    def.get_token_user = src;
  }
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", f->server.udp_port, token, "arena", NULL), TRESS_OK);
  return c;
}

static tress_client_state wait_settled(tress_client *c, int ms) {
  for (int t = 0; t < ms; t += 10) {
    clients_pump(&c, 1, 10);
    tress_client_state st = tress_client_get_state(c);
    if (st == TRESS_CLIENT_READY || st == TRESS_CLIENT_IDLE) return st;
  }
  return tress_client_get_state(c);
}

static void test_client_token(void **state) {
  (void)state;
  fixture *f = start("token_client", NULL);
  token_source src = {.key = &f->key};
  char tok[TRESS_JOIN_TOKEN_CAP];
  mint(&f->key, "client-player", "arena", unix_now() + 60, tok);

  tress_client *c = lib_client(f, &src, false, tok);
  assert_int_equal(wait_settled(c, 5000), TRESS_CLIENT_READY);
  tress_client_destroy(c);

  /* the spent token again, no hook: refused and the client stops (retrying cannot help) */
  c = lib_client(f, &src, false, tok);
  assert_int_equal(wait_settled(c, 5000), TRESS_CLIENT_IDLE);
  assert_non_null(strstr(src.last_error, "TOKEN_REPLAYED"));
  tress_client_destroy(c);

  /* with the hook: the refusal is retried with a fresh token and the client gets in */
  c = lib_client(f, &src, true, tok);
  assert_int_equal(wait_settled(c, 8000), TRESS_CLIENT_READY);
  assert_int_equal(src.asked, 1);
  tress_client_destroy(c);

  /* a forged token stops the client even with the hook */
  tress_join_key other;
  tress_join_key_generate(&other);
  mint(&other, "client-player", "arena", unix_now() + 60, tok);
  src.asked = 0;
  c = lib_client(f, &src, true, tok);
  assert_int_equal(wait_settled(c, 5000), TRESS_CLIENT_IDLE);
  assert_non_null(strstr(src.last_error, "TOKEN_BAD_SIGNATURE"));
  assert_int_equal(src.asked, 0);
  tress_client_destroy(c);
  stop(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_token_binds), cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_wrong_room),        cmocka_unit_test(test_replay_set_bounded),
      cmocka_unit_test(test_cli_mints),         cmocka_unit_test(test_bot_mints),
      cmocka_unit_test(test_shared_secret_dev_mode),
      cmocka_unit_test(test_client_token),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
