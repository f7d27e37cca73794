/* token_replay.h - the nonces of join tokens already used, each kept until its token's expiry, in
 * a fixed-size table: a token is good once, and the set never grows past its configured size. */
#ifndef TRESS_SERVER_TOKEN_REPLAY_H
#define TRESS_SERVER_TOKEN_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/join_token.h"

typedef struct tress_token_replay_entry {
  uint8_t nonce[TRESS_JOIN_NONCE_BYTES];
  uint64_t until; /* unix seconds after which the nonce's token is dead anyway; 0 = free slot */
} tress_token_replay_entry;

typedef struct tress_token_replay {
  tress_token_replay_entry *slots; /* power-of-two table, linear probing, at most half full */
  uint32_t mask;
  uint32_t count, max_entries;
  uint8_t hash_key[16];            /* SipHash key: a minter's sequential nonces still spread */
} tress_token_replay;

typedef enum tress_token_replay_result {
  TRESS_TOKEN_REPLAY_ADDED = 0, /* first use: remembered until `until` */
  TRESS_TOKEN_REPLAY_SEEN,      /* used before and not yet expired: refuse */
  TRESS_TOKEN_REPLAY_FULL,      /* max_entries live nonces: refuse (never forget a live one) */
} tress_token_replay_result;

/* 0, or -1 when out of memory (max_entries 1..2^30). */
int tress_token_replay_init(tress_token_replay *r, uint32_t max_entries);
void tress_token_replay_free(tress_token_replay *r);
/* Records a nonce used at `now` (unix seconds) whose token dies after `until`. Expired nonces
 * are dropped when the table is full, so a nonce is forgotten only once its token cannot pass. */
tress_token_replay_result tress_token_replay_add(tress_token_replay *r, const uint8_t nonce[TRESS_JOIN_NONCE_BYTES],
                                                 uint64_t until, uint64_t now);
/* Drops every nonce whose until is before now; returns how many remain. */
uint32_t tress_token_replay_sweep(tress_token_replay *r, uint64_t now);

#endif
