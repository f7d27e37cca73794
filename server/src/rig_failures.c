/* Failed rigs as negative cache entries: a small flat table, searched linearly (it holds at most
 * TRESS_RIG_FAILURES_CAP entries and is consulted once per rig request that missed the cache). */
#include "rig_failures.h"

#include <stdlib.h>
#include <string.h>

void tress_rig_failures_init(tress_rig_failures *f, uint64_t ttl_ms) {
  memset(f, 0, sizeof *f);
  f->ttl_ms = ttl_ms;
}

void tress_rig_failures_free(tress_rig_failures *f) {
  free(f->entries);
  memset(f, 0, sizeof *f);
}

bool tress_rig_failure_is_cacheable(uint16_t code) {
  return code == TRESS_CODE_RIG_FAILED || code == TRESS_CODE_TOO_LARGE || code == TRESS_CODE_ASSET_PATH_REJECTED ||
         code == TRESS_CODE_UNKNOWN_ASSET;
}

static bool options_equal(const tress_wire_rig_options *a, const tress_wire_rig_options *b) {
  return a->sectors == b->sectors && a->segments == b->segments && a->max_influences == b->max_influences &&
         memcmp(a->axis, b->axis, sizeof a->axis) == 0 && a->has_root == b->has_root &&
         (!a->has_root || memcmp(a->root, b->root, sizeof a->root) == 0);
}

static bool same_key(const tress_rig_failure *e, const char *asset_id, bool pre_skinned,
                     const tress_wire_rig_options *options, const tress_asset_file_id *file) {
  return e->pre_skinned == pre_skinned && strcmp(e->asset_id, asset_id) == 0 &&
         (pre_skinned || options_equal(&e->options, options)) && tress_asset_file_id_equal(&e->file, file);
}

static void drop_at(tress_rig_failures *f, uint32_t i) { f->entries[i] = f->entries[--f->count]; }

/* A slot for a new entry: a free one, else the one that expires first. NULL without memory. */
static tress_rig_failure *slot_for_new(tress_rig_failures *f) {
  if (f->count < f->cap) return &f->entries[f->count++];
  if (f->cap < TRESS_RIG_FAILURES_CAP) {
    uint32_t cap = f->cap ? f->cap * 2 : 16;
    if (cap > TRESS_RIG_FAILURES_CAP) cap = TRESS_RIG_FAILURES_CAP;
    tress_rig_failure *n = realloc(f->entries, cap * sizeof *n);
    if (!n) return NULL;
    f->entries = n;
    f->cap = cap;
    return &f->entries[f->count++];
  }
  uint32_t soonest = 0;
  for (uint32_t i = 1; i < f->count; i++)
    if (f->entries[i].expires_ms < f->entries[soonest].expires_ms) soonest = i;
  return &f->entries[soonest];
}

void tress_rig_failures_put(tress_rig_failures *f, const tress_rig_failure *failure, uint64_t now_ms) {
  if (f->ttl_ms == 0 || !tress_rig_failure_is_cacheable(failure->code)) return;
  tress_rig_failure *e = NULL;
  for (uint32_t i = 0; i < f->count && !e; i++)
    if (same_key(&f->entries[i], failure->asset_id, failure->pre_skinned, &failure->options, &failure->file))
      e = &f->entries[i];
  if (!e) e = slot_for_new(f);
  if (!e) return; /* no memory: the next request simply re-reads */
  *e = *failure;
  e->expires_ms = now_ms + f->ttl_ms;
}

const tress_rig_failure *tress_rig_failures_find(tress_rig_failures *f, const char *asset_id, bool pre_skinned,
                                                 const tress_wire_rig_options *options,
                                                 const tress_asset_file_id *file, uint64_t now_ms) {
  for (uint32_t i = 0; i < f->count; i++) {
    if (!same_key(&f->entries[i], asset_id, pre_skinned, options, file)) continue;
    if (f->entries[i].expires_ms <= now_ms) {
      drop_at(f, i);
      return NULL;
    }
    return &f->entries[i];
  }
  return NULL;
}
