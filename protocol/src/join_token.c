/* Join tokens
 * -----------
 * Binary form (little-endian), then base64url without padding (PROTOCOL.md 5.1):
 *   u8 version (1) | u8 len + player_id | u8 len + room | u64 expires_at | 16-byte nonce | 32-byte MAC
 * MAC = HMAC-SHA-256(key, "tress-join-v1" || every byte before the MAC). The context string keeps a
 * key that is (wrongly) reused for something else from ever signing a valid token by accident.
 * Verification checks the form first, then the MAC, and trusts no field before the MAC matched:
 * a forged token is BAD_SIGNATURE whatever its expiry says. */
#include "tress/join_token.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "wire_internal.h"

#define MAC_CONTEXT "tress-join-v1"
#define MIN_RAW_BYTES (1 + 2 + 2 + 8 + TRESS_JOIN_NONCE_BYTES + TRESS_JOIN_MAC_BYTES)
#define MAX_RAW_BYTES (1 + 2 * (1 + TRESS_WIRE_MAX_NAME_BYTES) + 8 + TRESS_JOIN_NONCE_BYTES + TRESS_JOIN_MAC_BYTES)
#define KEY_FILE_MAX_BYTES 4096

tress_join_token_opts tress_default_join_token_opts(void) {
  tress_join_token_opts o;
  o.clock_skew_seconds = 30;
  o.max_lifetime_seconds = 3600;
  return o;
}

const char *tress_join_token_status_name(tress_join_token_status status) {
  switch (status) {
  case TRESS_JOIN_TOKEN_OK: return "OK";
  case TRESS_JOIN_TOKEN_MALFORMED: return "MALFORMED";
  case TRESS_JOIN_TOKEN_BAD_SIGNATURE: return "BAD_SIGNATURE";
  case TRESS_JOIN_TOKEN_EXPIRED: return "EXPIRED";
  case TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG: return "LIFETIME_TOO_LONG";
  case TRESS_JOIN_TOKEN_STATUS_COUNT: break;
  }
  return "UNKNOWN";
}

tress_result tress_join_token_status_to_result(tress_join_token_status status) {
  switch (status) {
  case TRESS_JOIN_TOKEN_OK: return TRESS_OK;
  case TRESS_JOIN_TOKEN_MALFORMED: return TRESS_ERR_PROTOCOL;
  case TRESS_JOIN_TOKEN_BAD_SIGNATURE: return TRESS_ERR_PERMISSION;
  case TRESS_JOIN_TOKEN_EXPIRED:
  case TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG: return TRESS_ERR_LIMIT;
  case TRESS_JOIN_TOKEN_STATUS_COUNT: break;
  }
  return TRESS_ERR_INVALID_ARGUMENT;
}

tress_wire_code tress_join_token_status_to_code(tress_join_token_status status) {
  switch (status) {
  case TRESS_JOIN_TOKEN_OK: return TRESS_CODE_NONE;
  case TRESS_JOIN_TOKEN_MALFORMED: return TRESS_CODE_TOKEN_MALFORMED;
  case TRESS_JOIN_TOKEN_BAD_SIGNATURE: return TRESS_CODE_TOKEN_BAD_SIGNATURE;
  case TRESS_JOIN_TOKEN_EXPIRED: return TRESS_CODE_TOKEN_EXPIRED;
  case TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG: return TRESS_CODE_TOKEN_LIFETIME_TOO_LONG;
  case TRESS_JOIN_TOKEN_STATUS_COUNT: break;
  }
  return TRESS_CODE_AUTH_FAILED;
}

/* ---- keys ------------------------------------------------------------------------------------ */

void tress_join_key_generate(tress_join_key *key) {
  if (sodium_init() < 0) abort(); /* no entropy source: nothing safe to hand back */
  randombytes_buf(key->bytes, sizeof key->bytes);
}

void tress_join_key_to_hex(const tress_join_key *key, char out[TRESS_JOIN_KEY_HEX_CAP]) {
  sodium_bin2hex(out, TRESS_JOIN_KEY_HEX_CAP, key->bytes, sizeof key->bytes);
}

tress_result tress_join_key_from_hex(tress_join_key *key, const char *text, size_t len, tress_error *err) {
  while (len && isspace((unsigned char)text[0])) text++, len--;
  while (len && isspace((unsigned char)text[len - 1])) len--;
  size_t got = 0;
  const char *end = NULL;
  if (len != 2 * TRESS_JOIN_KEY_BYTES ||
      sodium_hex2bin(key->bytes, sizeof key->bytes, text, len, NULL, &got, &end) != 0 || got != sizeof key->bytes) {
    sodium_memzero(key, sizeof *key);
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "a join key is %d hex digits", 2 * TRESS_JOIN_KEY_BYTES);
  }
  return TRESS_OK;
}

tress_result tress_join_key_read(tress_join_key *key, const char *path, tress_error *err) {
  size_t len = 0;
  tress_error read_err;
  char *text = (char *)tress_file_read(path, KEY_FILE_MAX_BYTES, &len, &read_err);
  if (!text) return tress_error_set(err, TRESS_ERR_NOT_FOUND, "join key %s: %s", path, read_err.message);
  tress_result r = tress_join_key_from_hex(key, text, len, err);
  sodium_memzero(text, len);
  free(text);
  if (r != TRESS_OK) return tress_error_set(err, r, "join key %s: not %d hex digits", path, 2 * TRESS_JOIN_KEY_BYTES);
  return TRESS_OK;
}

void tress_join_key_wipe(tress_join_key *key) { sodium_memzero(key, sizeof *key); }

/* ---- encode ---------------------------------------------------------------------------------- */

static void compute_mac(const tress_join_key *key, const uint8_t *body, size_t len, uint8_t mac[TRESS_JOIN_MAC_BYTES]) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key->bytes, sizeof key->bytes);
  crypto_auth_hmacsha256_update(&st, (const uint8_t *)MAC_CONTEXT, sizeof MAC_CONTEXT - 1);
  crypto_auth_hmacsha256_update(&st, body, len);
  crypto_auth_hmacsha256_final(&st, mac);
  sodium_memzero(&st, sizeof st);
}

static tress_result check_name(const char *s, const char *what, tress_error *err) {
  size_t n = strnlen(s, TRESS_WIRE_NAME_CAP);
  tress_wire_error werr;
  if (n == 0) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%s is empty", what);
  if (wire_check_utf8(s, n, TRESS_WIRE_MAX_NAME_BYTES, what, 0, &werr) != TRESS_WIRE_OK)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%s", werr.message);
  return TRESS_OK;
}

tress_result tress_join_token_encode(const tress_join_key *key, const tress_join_claims *claims,
                                     char out[TRESS_JOIN_TOKEN_CAP], tress_error *err) {
  if (!key || !claims || !out) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "encode needs a key, claims and out");
  out[0] = '\0';
  tress_result r = check_name(claims->player_id, "player_id", err);
  if (r == TRESS_OK) r = check_name(claims->room, "room", err);
  if (r != TRESS_OK) return r;
  if (sodium_init() < 0) return tress_error_set(err, TRESS_ERR_UNSUPPORTED, "libsodium failed to start");
  uint8_t raw[MAX_RAW_BYTES];
  wire_writer w = {raw, sizeof raw, 0, false};
  wire_write_u8(&w, TRESS_JOIN_TOKEN_VERSION);
  size_t pn = strlen(claims->player_id), rn = strlen(claims->room);
  wire_write_u8(&w, (uint8_t)pn);
  wire_write_bytes(&w, claims->player_id, pn);
  wire_write_u8(&w, (uint8_t)rn);
  wire_write_bytes(&w, claims->room, rn);
  wire_write_u64(&w, claims->expires_at);
  wire_write_bytes(&w, claims->nonce, TRESS_JOIN_NONCE_BYTES);
  compute_mac(key, raw, w.len, raw + w.len);
  size_t raw_len = w.len + TRESS_JOIN_MAC_BYTES;
  sodium_bin2base64(out, TRESS_JOIN_TOKEN_CAP, raw, raw_len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return TRESS_OK;
}

tress_result tress_join_token_mint(const tress_join_key *key, const char *player_id, const char *room,
                                   uint64_t expires_at, char out[TRESS_JOIN_TOKEN_CAP], tress_error *err) {
  if (!player_id || !room) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "mint needs a player id and a room");
  if (strlen(player_id) > TRESS_WIRE_MAX_NAME_BYTES || strlen(room) > TRESS_WIRE_MAX_NAME_BYTES)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "player id and room are at most %d bytes",
                           TRESS_WIRE_MAX_NAME_BYTES);
  if (sodium_init() < 0) return tress_error_set(err, TRESS_ERR_UNSUPPORTED, "libsodium failed to start");
  tress_join_claims c;
  memset(&c, 0, sizeof c);
  memcpy(c.player_id, player_id, strlen(player_id));
  memcpy(c.room, room, strlen(room));
  c.expires_at = expires_at;
  randombytes_buf(c.nonce, sizeof c.nonce);
  return tress_join_token_encode(key, &c, out, err);
}

/* ---- verify ---------------------------------------------------------------------------------- */

static tress_join_token_status refuse(tress_join_claims *claims, tress_join_token_status st, tress_error *err,
                                      const char *why) {
  memset(claims, 0, sizeof *claims);
  tress_error_set(err, tress_join_token_status_to_result(st), "join token %s: %s", tress_join_token_status_name(st), why);
  return st;
}

static bool read_token_name(wire_reader *r, char dst[TRESS_WIRE_NAME_CAP]) {
  uint8_t n = 0;
  if (!wire_read_u8(r, &n, "name length") || n == 0 || n > TRESS_WIRE_MAX_NAME_BYTES || n > r->remaining) return false;
  memcpy(dst, r->p, n);
  dst[n] = '\0';
  r->p += n;
  r->remaining -= n;
  tress_wire_error werr;
  return wire_check_utf8(dst, n, TRESS_WIRE_MAX_NAME_BYTES, "name", 0, &werr) == TRESS_WIRE_OK;
}

/* The layout alone, no trust yet: version, two names, the fixed tail, nothing after the MAC. */
static bool parse_raw(const uint8_t *raw, size_t len, tress_join_claims *c, size_t *body_len, char *why, size_t why_cap) {
  tress_wire_error werr;
  wire_reader r = {raw, len, len, 0, &werr, TRESS_WIRE_OK};
  uint8_t version = 0;
  if (!wire_read_u8(&r, &version, "version")) return snprintf(why, why_cap, "empty"), false;
  if (version != TRESS_JOIN_TOKEN_VERSION)
    return snprintf(why, why_cap, "version %u, this verifier reads %d", version, TRESS_JOIN_TOKEN_VERSION), false;
  if (!read_token_name(&r, c->player_id)) return snprintf(why, why_cap, "bad player_id"), false;
  if (!read_token_name(&r, c->room)) return snprintf(why, why_cap, "bad room"), false;
  if (!wire_read_u64(&r, &c->expires_at, "expires_at") || !wire_read_bytes(&r, c->nonce, TRESS_JOIN_NONCE_BYTES, "nonce"))
    return snprintf(why, why_cap, "cut short"), false;
  if (r.remaining != TRESS_JOIN_MAC_BYTES)
    return snprintf(why, why_cap, "%zu bytes after the nonce, want a %d-byte MAC", r.remaining, TRESS_JOIN_MAC_BYTES),
           false;
  *body_len = len - TRESS_JOIN_MAC_BYTES;
  return true;
}

tress_join_token_status tress_join_token_verify(const tress_join_key *key, const char *token, uint64_t now,
                                                const tress_join_token_opts *opts, tress_join_claims *claims,
                                                tress_error *err) {
  tress_join_claims scratch;
  if (!claims) claims = &scratch;
  tress_join_token_opts o = opts ? *opts : tress_default_join_token_opts();
  if (!key || !token) return refuse(claims, TRESS_JOIN_TOKEN_MALFORMED, err, "no key or no token");
  if (sodium_init() < 0) return refuse(claims, TRESS_JOIN_TOKEN_MALFORMED, err, "libsodium failed to start");
  size_t text_len = strnlen(token, TRESS_JOIN_TOKEN_CAP);
  uint8_t raw[MAX_RAW_BYTES];
  size_t raw_len = 0;
  const char *end = NULL;
  /* the alphabet checked first: libsodium 1.0.18's decoder takes some bytes >= 0x80 for alphabet
   * characters (a signed char compared in its constant-time table), so one token would have many
   * spellings */
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  if (text_len >= TRESS_JOIN_TOKEN_CAP || strspn(token, alphabet) != text_len ||
      sodium_base642bin(raw, sizeof raw, token, text_len, NULL, &raw_len, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != token + text_len)
    return refuse(claims, TRESS_JOIN_TOKEN_MALFORMED, err, "not base64url (no padding) of at most 185 bytes");
  if (raw_len < MIN_RAW_BYTES) return refuse(claims, TRESS_JOIN_TOKEN_MALFORMED, err, "too short");
  char why[96];
  size_t body_len = 0;
  memset(claims, 0, sizeof *claims);
  if (!parse_raw(raw, raw_len, claims, &body_len, why, sizeof why))
    return refuse(claims, TRESS_JOIN_TOKEN_MALFORMED, err, why);
  uint8_t mac[TRESS_JOIN_MAC_BYTES];
  compute_mac(key, raw, body_len, mac);
  if (sodium_memcmp(mac, raw + body_len, sizeof mac) != 0)
    return refuse(claims, TRESS_JOIN_TOKEN_BAD_SIGNATURE, err, "signature does not match this server's key");
  if (claims->expires_at < now && now - claims->expires_at > o.clock_skew_seconds) {
    snprintf(why, sizeof why, "expired %llu s ago", (unsigned long long)(now - claims->expires_at));
    return refuse(claims, TRESS_JOIN_TOKEN_EXPIRED, err, why);
  }
  uint64_t horizon = now + (uint64_t)o.max_lifetime_seconds + o.clock_skew_seconds;
  if (claims->expires_at > horizon) {
    snprintf(why, sizeof why, "expires %llu s from now, over the %u s this server accepts",
             (unsigned long long)(claims->expires_at - now), o.max_lifetime_seconds);
    return refuse(claims, TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG, err, why);
  }
  tress_error_clear(err);
  return TRESS_JOIN_TOKEN_OK;
}
