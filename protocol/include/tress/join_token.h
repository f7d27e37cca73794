/* tress/join_token.h - signed join tokens: the game's backend mints one per player and room with a
 * key it shares with tress-server; the server checks it in HELLO and JOIN_ROOM (PROTOCOL.md 5.1). */
#ifndef TRESS_JOIN_TOKEN_H
#define TRESS_JOIN_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/msg.h"
#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_JOIN_TOKEN_VERSION 1
#define TRESS_JOIN_KEY_BYTES 32   /* HMAC-SHA-256 key */
#define TRESS_JOIN_NONCE_BYTES 16
#define TRESS_JOIN_MAC_BYTES 32
/* The text form fits HELLO's auth_token (TRESS_WIRE_MAX_TEXT_BYTES) even with both names at 63 bytes. */
#define TRESS_JOIN_TOKEN_CAP TRESS_WIRE_TEXT_CAP
/* A key file holds the key as 64 hex digits (surrounding whitespace ignored). */
#define TRESS_JOIN_KEY_HEX_CAP (2 * TRESS_JOIN_KEY_BYTES + 1)

typedef struct tress_join_key {
  uint8_t bytes[TRESS_JOIN_KEY_BYTES];
} tress_join_key;

/* What a token says. player_id and room are 1..63 bytes of UTF-8 (the wire's name rules). */
typedef struct tress_join_claims {
  char player_id[TRESS_WIRE_NAME_CAP];
  char room[TRESS_WIRE_NAME_CAP];
  uint64_t expires_at; /* unix seconds */
  uint8_t nonce[TRESS_JOIN_NONCE_BYTES];
} tress_join_claims;

/* Why a token was refused. The server maps each to its own wire code (tress_join_token_status_to_code). */
typedef enum tress_join_token_status {
  TRESS_JOIN_TOKEN_OK = 0,
  TRESS_JOIN_TOKEN_MALFORMED,       /* not base64url, wrong length, bad names, another version */
  TRESS_JOIN_TOKEN_BAD_SIGNATURE,   /* the MAC does not match: tampered, or another key */
  TRESS_JOIN_TOKEN_EXPIRED,         /* expires_at + clock skew is past */
  TRESS_JOIN_TOKEN_LIFETIME_TOO_LONG, /* expires_at is further ahead than the verifier accepts */
  TRESS_JOIN_TOKEN_STATUS_COUNT
} tress_join_token_status;

typedef struct tress_join_token_opts {
  uint32_t clock_skew_seconds;   /* a token is still good this long past expires_at (30) */
  uint32_t max_lifetime_seconds; /* expires_at may be at most this far ahead of now (+ skew) (3600) */
} tress_join_token_opts;

tress_join_token_opts tress_default_join_token_opts(void);

const char *tress_join_token_status_name(tress_join_token_status status); /* "BAD_SIGNATURE", ...; "UNKNOWN" */
/* OK -> TRESS_OK, MALFORMED -> _PROTOCOL, BAD_SIGNATURE -> _PERMISSION, EXPIRED and
 * LIFETIME_TOO_LONG -> _LIMIT. */
tress_result tress_join_token_status_to_result(tress_join_token_status status);
/* The REJECT / ERROR code a server sends for it (TRESS_CODE_TOKEN_...; NONE for OK). */
tress_wire_code tress_join_token_status_to_code(tress_join_token_status status);

/* A fresh random key. */
void tress_join_key_generate(tress_join_key *key);
/* The key as 64 lowercase hex digits, the key file's form. */
void tress_join_key_to_hex(const tress_join_key *key, char out[TRESS_JOIN_KEY_HEX_CAP]);
/* Parses 64 hex digits (surrounding whitespace ignored). TRESS_ERR_INVALID_ARGUMENT otherwise. */
tress_result tress_join_key_from_hex(tress_join_key *key, const char *text, size_t len, tress_error *err);
/* Reads a key file. TRESS_ERR_NOT_FOUND (cannot read) or _INVALID_ARGUMENT; err names the path, never the key. */
tress_result tress_join_key_read(tress_join_key *key, const char *path, tress_error *err);
/* Overwrites the key (before freeing memory that held it). */
void tress_join_key_wipe(tress_join_key *key);

/* Encodes and signs claims as they are (nonce included): the deterministic half of minting, for
 * test vectors. TRESS_ERR_INVALID_ARGUMENT when a name breaks the rules. out gets the text form. */
tress_result tress_join_token_encode(const tress_join_key *key, const tress_join_claims *claims,
                                     char out[TRESS_JOIN_TOKEN_CAP], tress_error *err);
/* What a backend calls: a token for player_id in room, good until expires_at (unix seconds), with
 * a fresh random nonce (so every minted token can be used once). */
tress_result tress_join_token_mint(const tress_join_key *key, const char *player_id, const char *room,
                                   uint64_t expires_at, char out[TRESS_JOIN_TOKEN_CAP], tress_error *err);
/* Checks a token's form, signature (constant time) and times against now (unix seconds). On OK
 * claims holds what it says; on failure claims is zeroed. A failure's words go to err (may be NULL),
 * err->code being tress_join_token_status_to_result of the status. Replay is the caller's to check
 * (claims.nonce until claims.expires_at + skew): the server keeps that set. */
tress_join_token_status tress_join_token_verify(const tress_join_key *key, const char *token, uint64_t now,
                                                const tress_join_token_opts *opts, tress_join_claims *claims,
                                                tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
