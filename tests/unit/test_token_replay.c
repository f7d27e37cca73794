/* test_token_replay.c - the server's replay set. White-box (token_replay.h): the set is
 * tress-server's, with no public header, so its source is compiled in. A nonce passes once while
 * its token lives, passes again after, the table never holds more than its size and refuses rather
 * than forget a live nonce, and backward-shift deletion keeps every live nonce findable (checked
 * against a plain list over many rounds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "token_replay.h"

static void nonce_of(uint32_t n, uint8_t out[TRESS_JOIN_NONCE_BYTES]) {
  memset(out, 0, TRESS_JOIN_NONCE_BYTES); /* sequential, mostly-zero nonces: the hash must spread them */
  memcpy(out, &n, sizeof n);
}

static void test_once_per_lifetime(void **state) {
  (void)state;
  tress_token_replay r;
  assert_int_equal(tress_token_replay_init(&r, 8), 0);
  uint8_t a[16], b[16];
  nonce_of(1, a);
  nonce_of(2, b);
  assert_int_equal(tress_token_replay_add(&r, a, 100, 10), TRESS_TOKEN_REPLAY_ADDED);
  assert_int_equal(tress_token_replay_add(&r, a, 100, 50), TRESS_TOKEN_REPLAY_SEEN);
  assert_int_equal(tress_token_replay_add(&r, a, 100, 100), TRESS_TOKEN_REPLAY_SEEN); /* until is inclusive */
  assert_int_equal(tress_token_replay_add(&r, b, 100, 50), TRESS_TOKEN_REPLAY_ADDED);
  assert_int_equal(tress_token_replay_add(&r, a, 200, 101), TRESS_TOKEN_REPLAY_ADDED); /* old token dead */
  assert_int_equal(tress_token_replay_add(&r, a, 200, 150), TRESS_TOKEN_REPLAY_SEEN);
  assert_int_equal(r.count, 2);
  tress_token_replay_free(&r);
}

static void test_bounded(void **state) {
  (void)state;
  tress_token_replay r;
  assert_int_equal(tress_token_replay_init(&r, 4), 0);
  uint8_t n[16];
  for (uint32_t i = 0; i < 4; i++) {
    nonce_of(i, n);
    assert_int_equal(tress_token_replay_add(&r, n, 100 + i, 10), TRESS_TOKEN_REPLAY_ADDED);
  }
  nonce_of(9, n);
  assert_int_equal(tress_token_replay_add(&r, n, 100, 10), TRESS_TOKEN_REPLAY_FULL); /* all four live */
  assert_int_equal(r.count, 4);
  /* at 102 the first two are dead: room for two more, and the live two are still refused */
  assert_int_equal(tress_token_replay_add(&r, n, 300, 102), TRESS_TOKEN_REPLAY_ADDED);
  assert_int_equal(r.count, 3);
  nonce_of(3, n);
  assert_int_equal(tress_token_replay_add(&r, n, 300, 102), TRESS_TOKEN_REPLAY_SEEN);
  nonce_of(2, n);
  assert_int_equal(tress_token_replay_add(&r, n, 300, 102), TRESS_TOKEN_REPLAY_SEEN);
  nonce_of(0, n);
  assert_int_equal(tress_token_replay_add(&r, n, 300, 102), TRESS_TOKEN_REPLAY_ADDED);
  assert_int_equal(tress_token_replay_sweep(&r, 1000), 0);
  tress_token_replay_free(&r);
}

/* Random adds at a creeping clock, compared with a list of (nonce, until): every answer agrees. */
static void test_matches_reference(void **state) {
  (void)state;
  enum { MAX = 64, ROUNDS = 20000, IDS = 200 };
  tress_token_replay r;
  assert_int_equal(tress_token_replay_init(&r, MAX), 0);
  uint64_t until_of[IDS] = {0};
  uint64_t now = 1;
  srand(7);
  for (int round = 0; round < ROUNDS; round++) {
    if (rand() % 4 == 0) now++;
    uint32_t id = (uint32_t)rand() % IDS;
    uint64_t until = now + 1 + (uint64_t)(rand() % 20);
    uint32_t live = 0;
    for (int i = 0; i < IDS; i++) live += until_of[i] >= now && until_of[i] != 0;
    tress_token_replay_result want;
    if (until_of[id] && until_of[id] >= now) want = TRESS_TOKEN_REPLAY_SEEN;
    else if (live >= MAX) want = TRESS_TOKEN_REPLAY_FULL;
    else want = TRESS_TOKEN_REPLAY_ADDED;
    uint8_t n[16];
    nonce_of(id, n);
    tress_token_replay_result got = tress_token_replay_add(&r, n, until, now);
    assert_int_equal(got, want);
    if (got == TRESS_TOKEN_REPLAY_ADDED) until_of[id] = until;
    assert_true(r.count <= MAX);
  }
  tress_token_replay_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_once_per_lifetime), cmocka_unit_test(test_bounded),
                                     cmocka_unit_test(test_matches_reference)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
