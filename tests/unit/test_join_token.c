/* test_join_token.c - signed join tokens (tress/join_token.h): mint and verify round trip, each
 * refusal (expired, lifetime, tampered byte, wrong key, malformed, another version), the clock
 * skew boundary, key files, and the byte layout PROTOCOL.md 5.1 documents (rebuilt here with
 * libsodium directly, so a change of format fails this test, not only a third-party minter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sodium.h>
#include <unistd.h>

#include "tress/join_token.h"

#define NOW 1800000000ull

static tress_join_key test_key(uint8_t seed) {
  tress_join_key k;
  for (int i = 0; i < TRESS_JOIN_KEY_BYTES; i++) k.bytes[i] = (uint8_t)(seed + i);
  return k;
}

static tress_join_claims test_claims(void) {
  tress_join_claims c;
  memset(&c, 0, sizeof c);
  snprintf(c.player_id, sizeof c.player_id, "player-42");
  snprintf(c.room, sizeof c.room, "lobby");
  c.expires_at = NOW + 300;
  for (int i = 0; i < TRESS_JOIN_NONCE_BYTES; i++) c.nonce[i] = (uint8_t)(0xA0 + i);
  return c;
}

static void test_round_trip(void **state) {
  (void)state;
  tress_join_key key = test_key(1);
  char tok[TRESS_JOIN_TOKEN_CAP];
  tress_error err;
  assert_int_equal(tress_join_token_mint(&key, "player-42", "lobby", NOW + 300, tok, &err), TRESS_OK);
  tress_join_claims got;
  assert_int_equal(tress_join_token_verify(&key, tok, NOW, NULL, &got, &err), TRESS_JOIN_TOKEN_OK);
  assert_string_equal(got.player_id, "player-42");
  assert_string_equal(got.room, "lobby");
  assert_int_equal(got.expires_at, NOW + 300);
  /* two mints differ by their random nonce */
  char tok2[TRESS_JOIN_TOKEN_CAP];
  tress_join_claims got2;
  assert_int_equal(tress_join_token_mint(&key, "player-42", "lobby", NOW + 300, tok2, &err), TRESS_OK);
  assert_string_not_equal(tok, tok2);
  assert_int_equal(tress_join_token_verify(&key, tok2, NOW, NULL, &got2, &err), TRESS_JOIN_TOKEN_OK);
  assert_memory_not_equal(got.nonce, got2.nonce, TRESS_JOIN_NONCE_BYTES);
  /* printable: base64url only */
  for (const char *p = tok; *p; p++) assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", *p));
}

static void test_longest_names_fit_hello(void **state) {
  (void)state;
  tress_join_key key = test_key(2);
  char name[64];
  memset(name, 'x', 63);
  name[63] = '\0';
  char tok[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(tress_join_token_mint(&key, name, name, NOW + 1, tok, NULL), TRESS_OK);
  assert_true(strlen(tok) <= TRESS_WIRE_MAX_TEXT_BYTES);
  assert_int_equal(strlen(tok), 247); /* 185 bytes of base64url without padding */
  tress_error err;
  assert_int_equal(tress_join_token_mint(&key, "", "lobby", NOW + 1, tok, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_join_token_mint(&key, "p", "\xC0\x80", NOW + 1, tok, &err), TRESS_ERR_INVALID_ARGUMENT);
  char too_long[65];
  memset(too_long, 'y', 64);
  too_long[64] = '\0';
  assert_int_equal(tress_join_token_mint(&key, too_long, "lobby", NOW + 1, tok, &err), TRESS_ERR_INVALID_ARGUMENT);
}

static void test_expiry_and_skew(void **state) {
  (void)state;
  tress_join_key key = test_key(3);
  tress_join_claims c = test_claims();
  char tok[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(tress_join_token_encode(&key, &c, tok, NULL), TRESS_OK);
  tress_join_token_opts o = tress_default_join_token_opts();
  assert_int_equal(o.clock_skew_seconds, 30);
  tress_join_claims got;
  tress_error err;
  /* good up to expiry + skew, refused one second later */
  assert_int_equal(tress_join_token_verify(&key, tok, c.expires_at + 30, &o, &got, &err), TRESS_JOIN_TOKEN_OK);
  assert_int_equal(tress_join_token_verify(&key, tok, c.expires_at + 31, &o, &got, &err), TRESS_JOIN_TOKEN_EXPIRED);
  assert_int_equal(err.code, TRESS_ERR_LIMIT);
  assert_non_null(strstr(err.message, "expired 31 s ago"));
  assert_string_equal(got.player_id, ""); /* zeroed on failure */
  o.clock_skew_seconds = 0;
  assert_int_equal(tress_join_token_verify(&key, tok, c.expires_at + 1, &o, &got, &err), TRESS_JOIN_TOKEN_EXPIRED);
  /* lifetime: expiry at most max_lifetime + skew ahead */
  o = tress_default_join_token_opts();
  o.max_lifetime_seconds = 100;
  uint64_t now = c.expires_at - 130;
  assert_int_equal(tress_join_token_verify(&key, tok, now, &o, &got, &err), TRESS_JOIN_TOKEN_OK);
  assert_int_equal(tress_join_token_verify(&key, tok, now - 1, &o, &got, &err), TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG);
  assert_int_equal(tress_join_token_status_to_code(TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG), TRESS_CODE_TOKEN_LIFETIME_TOO_LONG);
}

/* Every single-character change of the text form is refused: as BAD_SIGNATURE when it still
 * decodes to the layout, MALFORMED otherwise; never OK. */
static void test_tampered_characters(void **state) {
  (void)state;
  tress_join_key key = test_key(4);
  tress_join_claims c = test_claims();
  char tok[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(tress_join_token_encode(&key, &c, tok, NULL), TRESS_OK);
  size_t n = strlen(tok);
  uint32_t bad_sig = 0;
  for (size_t i = 0; i < n; i++) {
    char t[TRESS_JOIN_TOKEN_CAP];
    memcpy(t, tok, n + 1);
    t[i] = t[i] == 'A' ? 'B' : 'A';
    tress_join_token_status st = tress_join_token_verify(&key, t, NOW, NULL, NULL, NULL);
    assert_int_not_equal(st, TRESS_JOIN_TOKEN_OK);
    assert_true(st == TRESS_JOIN_TOKEN_BAD_SIGNATURE || st == TRESS_JOIN_TOKEN_MALFORMED);
    bad_sig += st == TRESS_JOIN_TOKEN_BAD_SIGNATURE;
  }
  assert_true(bad_sig > n / 2); /* most bytes are names, expiry, nonce and MAC: only the MAC catches them */
  /* changing the expiry alone (a forged extension) is a signature failure, not "expired" */
  tress_join_claims longer = c;
  longer.expires_at += 3000;
  char forged[TRESS_JOIN_TOKEN_CAP], honest_other_key[TRESS_JOIN_TOKEN_CAP];
  tress_join_key other = test_key(99);
  assert_int_equal(tress_join_token_encode(&other, &longer, honest_other_key, NULL), TRESS_OK);
  /* splice: the body signed by other, MAC from the real key's token */
  memcpy(forged, honest_other_key, strlen(honest_other_key) + 1);
  memcpy(forged + strlen(forged) - 43, tok + n - 43, 43); /* last 43 chars = the 32-byte MAC */
  assert_int_equal(tress_join_token_verify(&key, forged, NOW, NULL, NULL, NULL), TRESS_JOIN_TOKEN_BAD_SIGNATURE);
}

/* Only the base64url alphabet is read: libsodium 1.0.18's decoder takes some bytes >= 0x80 for
 * alphabet characters (found by fuzz_join_token: 0x83 decoded as '_'), which would let one token
 * have many spellings. Every byte 0x80-0xff in place of every character is refused. */
static void test_non_alphabet_bytes(void **state) {
  (void)state;
  tress_join_key key = test_key(8);
  char tok[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(tress_join_token_mint(&key, "player-42", "lobby", NOW + 60, tok, NULL), TRESS_OK);
  size_t n = strlen(tok);
  for (size_t i = 0; i < n; i++) {
    for (int b = 0x80; b <= 0xff; b++) {
      char t[TRESS_JOIN_TOKEN_CAP];
      memcpy(t, tok, n + 1);
      t[i] = (char)b;
      tress_error err;
      assert_int_equal(tress_join_token_verify(&key, t, NOW, NULL, NULL, &err), TRESS_JOIN_TOKEN_MALFORMED);
    }
  }
}

static void test_wrong_key(void **state) {
  (void)state;
  tress_join_key key = test_key(5), other = test_key(6);
  char tok[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(tress_join_token_mint(&other, "p", "lobby", NOW + 60, tok, NULL), TRESS_OK);
  tress_error err;
  tress_join_claims got;
  assert_int_equal(tress_join_token_verify(&key, tok, NOW, NULL, &got, &err), TRESS_JOIN_TOKEN_BAD_SIGNATURE);
  assert_int_equal(err.code, TRESS_ERR_PERMISSION);
  assert_int_equal(tress_join_token_verify(&other, tok, NOW, NULL, &got, &err), TRESS_JOIN_TOKEN_OK);
}

static void test_malformed(void **state) {
  (void)state;
  tress_join_key key = test_key(7);
  const char *bad[] = {"", "!!!!", "AAAA", "sesame", "AAAA=", /* padding is not allowed */
                       "AQFwAWwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tress_error err;
    assert_int_equal(tress_join_token_verify(&key, bad[i], NOW, NULL, NULL, &err), TRESS_JOIN_TOKEN_MALFORMED);
    assert_int_equal(err.code, TRESS_ERR_PROTOCOL);
  }
  char huge[400];
  memset(huge, 'A', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  assert_int_equal(tress_join_token_verify(&key, huge, NOW, NULL, NULL, NULL), TRESS_JOIN_TOKEN_MALFORMED);
}

/* The PROTOCOL.md 5.1 layout, built by hand: version byte, names, expiry, nonce, HMAC-SHA-256 over
 * "tress-join-v1" + body. The library must accept it byte for byte, and refuse version 2. */
static size_t build_by_hand(const tress_join_key *key, uint8_t version, char out[TRESS_JOIN_TOKEN_CAP]) {
  tress_join_claims c = test_claims();
  uint8_t raw[256];
  size_t n = 0;
  raw[n++] = version;
  raw[n++] = (uint8_t)strlen(c.player_id);
  memcpy(raw + n, c.player_id, strlen(c.player_id));
  n += strlen(c.player_id);
  raw[n++] = (uint8_t)strlen(c.room);
  memcpy(raw + n, c.room, strlen(c.room));
  n += strlen(c.room);
  for (int i = 0; i < 8; i++) raw[n++] = (uint8_t)(c.expires_at >> (8 * i));
  memcpy(raw + n, c.nonce, TRESS_JOIN_NONCE_BYTES);
  n += TRESS_JOIN_NONCE_BYTES;
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key->bytes, TRESS_JOIN_KEY_BYTES);
  crypto_auth_hmacsha256_update(&st, (const uint8_t *)"tress-join-v1", 13);
  crypto_auth_hmacsha256_update(&st, raw, n);
  crypto_auth_hmacsha256_final(&st, raw + n);
  n += 32;
  sodium_bin2base64(out, TRESS_JOIN_TOKEN_CAP, raw, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return n;
}

static void test_documented_layout(void **state) {
  (void)state;
  assert_true(sodium_init() >= 0);
  tress_join_key key = test_key(8);
  char by_hand[TRESS_JOIN_TOKEN_CAP], by_lib[TRESS_JOIN_TOKEN_CAP];
  assert_int_equal(build_by_hand(&key, 1, by_hand), 1 + 10 + 6 + 8 + 16 + 32);
  tress_join_claims c = test_claims();
  assert_int_equal(tress_join_token_encode(&key, &c, by_lib, NULL), TRESS_OK);
  assert_string_equal(by_hand, by_lib);
  /* PROTOCOL.md 5.1's test vector (key bytes 0x08..0x27, these claims), for other implementations */
  assert_string_equal(by_lib, "AQlwbGF5ZXItNDIFbG9iYnks00lrAAAAAKChoqOkpaanqKmqq6ytrq9BMI04on_QowPm_Rlh-a4grU_jnWCJ9qYx6De8HPJR_A");
  build_by_hand(&key, 2, by_hand);
  tress_error err;
  assert_int_equal(tress_join_token_verify(&key, by_hand, NOW, NULL, NULL, &err), TRESS_JOIN_TOKEN_MALFORMED);
  assert_non_null(strstr(err.message, "version 2"));
}

static void test_key_hex_and_files(void **state) {
  (void)state;
  tress_join_key k, back;
  tress_join_key_generate(&k);
  char hex[TRESS_JOIN_KEY_HEX_CAP];
  tress_join_key_to_hex(&k, hex);
  assert_int_equal(strlen(hex), 64);
  char path[] = "/tmp/tress_join_key_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "  %s\n", hex);
  fclose(f);
  tress_error err;
  assert_int_equal(tress_join_key_read(&back, path, &err), TRESS_OK);
  assert_memory_equal(k.bytes, back.bytes, TRESS_JOIN_KEY_BYTES);
  f = fopen(path, "w");
  fprintf(f, "%.63s\n", hex); /* one digit short */
  fclose(f);
  assert_int_equal(tress_join_key_read(&back, path, &err), TRESS_ERR_INVALID_ARGUMENT);
  assert_null(strstr(err.message, hex)); /* never echo key material */
  unlink(path);
  assert_int_equal(tress_join_key_read(&back, path, &err), TRESS_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, path));
  assert_int_equal(tress_join_key_from_hex(&back, "zz", 2, &err), TRESS_ERR_INVALID_ARGUMENT);
  tress_join_key_wipe(&k);
  tress_join_key zero;
  memset(&zero, 0, sizeof zero);
  assert_memory_equal(k.bytes, zero.bytes, TRESS_JOIN_KEY_BYTES);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),       cmocka_unit_test(test_longest_names_fit_hello),
      cmocka_unit_test(test_expiry_and_skew),  cmocka_unit_test(test_tampered_characters),
      cmocka_unit_test(test_non_alphabet_bytes),
      cmocka_unit_test(test_wrong_key),        cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_documented_layout), cmocka_unit_test(test_key_hex_and_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
