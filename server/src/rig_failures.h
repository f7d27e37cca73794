/* rig_failures.h - failed rigs remembered for a while (negative cache entries), so a client that
 * spawns the same broken asset again and again costs a table look-up, not a re-read and re-rig.
 * An entry is the failure of one (asset id, pre-skinned or not, rig options, file stat): an edit
 * of the asset file changes its stat and misses the entry at once; an edit only a glTF's external
 * buffer sees (the .gltf's own stat unchanged) waits for the TTL. Loop thread only. */
#ifndef TRESS_SERVER_RIG_FAILURES_H
#define TRESS_SERVER_RIG_FAILURES_H

#include <stdbool.h>
#include <stdint.h>

#include "asset_store.h"
#include "tress/msg.h"

/* Entries at most: a flood of distinct bad ids evicts the entry closest to expiry, never grows. */
#define TRESS_RIG_FAILURES_CAP 1024u

typedef struct tress_rig_failure {
  char asset_id[TRESS_WIRE_TEXT_CAP];
  bool pre_skinned;
  tress_wire_rig_options options; /* ignored for a pre-skinned entry (the file's skin is used) */
  tress_asset_file_id file;
  uint64_t expires_ms;
  uint16_t code;
  char reason[TRESS_WIRE_TEXT_CAP];
} tress_rig_failure;

typedef struct tress_rig_failures {
  uint64_t ttl_ms; /* 0: nothing is remembered */
  tress_rig_failure *entries;
  uint32_t count, cap;
} tress_rig_failures;

void tress_rig_failures_init(tress_rig_failures *f, uint64_t ttl_ms);
void tress_rig_failures_free(tress_rig_failures *f);
/* Whether a failure with this code says something about the file (a refusal, a rig the rigger
 * turned down), not about the server's state (memory, queue, shutdown): only those are kept. */
bool tress_rig_failure_is_cacheable(uint16_t code);
/* Remembers a failure until now_ms + ttl (replacing one with the same key). */
void tress_rig_failures_put(tress_rig_failures *f, const tress_rig_failure *failure, uint64_t now_ms);
/* The live failure of exactly this key, or NULL (an expired one is dropped). */
const tress_rig_failure *tress_rig_failures_find(tress_rig_failures *f, const char *asset_id, bool pre_skinned,
                                                 const tress_wire_rig_options *options,
                                                 const tress_asset_file_id *file, uint64_t now_ms);

#endif
