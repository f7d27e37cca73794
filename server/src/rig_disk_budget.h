/* rig_disk_budget.h - the disk rig cache's byte budget (cache_disk_bytes): an index of the cache
 * files with their last use, and LRU eviction by deleting files. Loop thread only. */
#ifndef TRESS_SERVER_RIG_DISK_BUDGET_H
#define TRESS_SERVER_RIG_DISK_BUDGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "rig_cache.h"

typedef struct tress_rig_disk_file {
  uint8_t key[TRESS_RIG_KEY_BYTES];
  uint64_t bytes;
  int64_t used_ns; /* last write or hit (the file's mtime, which a hit refreshes) */
} tress_rig_disk_file;

typedef struct tress_rig_disk_budget {
  char dir[PATH_MAX];
  uint64_t budget; /* 0 = no limit */
  uint64_t used;
  tress_rig_disk_file *files;
  uint32_t count, cap;
} tress_rig_disk_budget;

/* Indexes the .rig files already in dir (their mtimes as last use) and evicts down to the budget.
 * Returns how many files it deleted. */
uint32_t tress_rig_disk_budget_init(tress_rig_disk_budget *b, const char *dir, uint64_t budget);
void tress_rig_disk_budget_destroy(tress_rig_disk_budget *b);
/* The file of key was just written or hit: it becomes the most recently used (a hit also
 * refreshes the file's mtime, so the order outlives a restart), and least recently used files are
 * deleted until the rest fit the budget. Returns how many. */
uint32_t tress_rig_disk_budget_used(tress_rig_disk_budget *b, const uint8_t key[TRESS_RIG_KEY_BYTES], bool hit);

#endif
