/* Token replay set
 * ----------------
 * Open addressing with linear probing over a table twice max_entries (rounded up to a power of
 * two), so probe runs stay short. Deletion is backward-shift (no tombstones), so a sweep leaves
 * the table as if the expired nonces had never been added. A sweep runs only when the table is
 * full: only tokens with a good signature reach it, so its O(table) cost is paid for by the
 * backend's own tokens, never by an unauthenticated peer. */
#include "token_replay.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

static uint32_t home_of(const tress_token_replay *r, const uint8_t nonce[TRESS_JOIN_NONCE_BYTES]) {
  uint8_t h[crypto_shorthash_BYTES];
  crypto_shorthash(h, nonce, TRESS_JOIN_NONCE_BYTES, r->hash_key);
  uint32_t v;
  memcpy(&v, h, sizeof v);
  return v & r->mask;
}

int tress_token_replay_init(tress_token_replay *r, uint32_t max_entries) {
  memset(r, 0, sizeof *r);
  if (max_entries == 0 || max_entries > (1u << 30) || sodium_init() < 0) return -1;
  uint32_t cap = 2;
  while (cap < 2u * max_entries) cap <<= 1;
  r->slots = calloc(cap, sizeof *r->slots);
  if (!r->slots) return -1;
  r->mask = cap - 1;
  r->max_entries = max_entries;
  crypto_shorthash_keygen(r->hash_key);
  return 0;
}

void tress_token_replay_free(tress_token_replay *r) {
  free(r->slots);
  memset(r, 0, sizeof *r);
}

/* Empties slot i and pulls later entries of its probe run back so every lookup still finds them. */
static void delete_at(tress_token_replay *r, uint32_t i) {
  uint32_t j = i;
  for (;;) {
    j = (j + 1) & r->mask;
    if (r->slots[j].until == 0) break;
    uint32_t k = home_of(r, r->slots[j].nonce);
    bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j); /* k cyclically in (i, j] */
    if (stays) continue;
    r->slots[i] = r->slots[j];
    i = j;
  }
  memset(&r->slots[i], 0, sizeof r->slots[i]);
  r->count--;
}

uint32_t tress_token_replay_sweep(tress_token_replay *r, uint64_t now) {
  /* A deletion may pull an entry into slot i, so i advances only past a slot that stays. */
  for (uint32_t i = 0; i <= r->mask;) {
    if (r->slots[i].until != 0 && r->slots[i].until < now) delete_at(r, i);
    else i++;
  }
  return r->count;
}

tress_token_replay_result tress_token_replay_add(tress_token_replay *r, const uint8_t nonce[TRESS_JOIN_NONCE_BYTES],
                                                 uint64_t until, uint64_t now) {
  if (until == 0) until = 1;
  uint32_t i = home_of(r, nonce);
  for (; r->slots[i].until != 0; i = (i + 1) & r->mask) {
    if (sodium_memcmp(r->slots[i].nonce, nonce, TRESS_JOIN_NONCE_BYTES) != 0) continue;
    if (r->slots[i].until >= now) return TRESS_TOKEN_REPLAY_SEEN;
    r->slots[i].until = until; /* the old token is dead: this is a new one that drew the same nonce */
    return TRESS_TOKEN_REPLAY_ADDED;
  }
  if (r->count >= r->max_entries) {
    if (tress_token_replay_sweep(r, now) >= r->max_entries) return TRESS_TOKEN_REPLAY_FULL;
    return tress_token_replay_add(r, nonce, until, now); /* the sweep moved entries: probe again */
  }
  memcpy(r->slots[i].nonce, nonce, TRESS_JOIN_NONCE_BYTES);
  r->slots[i].until = until;
  r->count++;
  return TRESS_TOKEN_REPLAY_ADDED;
}
