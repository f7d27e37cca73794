/* Disk cache budget
 * -----------------
 * The disk tier would otherwise grow with every distinct (mesh, options) ever rigged. The loop
 * thread keeps an index of the cache files (key, size, last use) and, after each write or hit,
 * deletes the least recently used files until the rest fit cache_disk_bytes. A file's mtime is
 * its last use: writes set it, hits refresh it (utimensat), and the startup scan reads it, so the
 * order survives restarts. A worker reading a file that is deleted meanwhile gets either the
 * whole file or ENOENT (a miss: it re-rigs); files are written by atomic rename, so nothing is
 * ever seen half-deleted. The index is a flat array: eviction is a linear scan, which is cheap
 * next to the unlink and the rig that filled the slot. A key's ops view "<key>.glb" (rig_glb.h)
 * is counted with its ".rig" and deleted with it, so the budget bounds both. */
#include "rig_disk_budget.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "rig_glb.h"

static int64_t wall_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int hex_nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* "<64 lowercase hex>.rig" -> key; false for any other name (tmp files, strangers). */
static bool key_from_name(const char *name, uint8_t key[TRESS_RIG_KEY_BYTES]) {
  if (strlen(name) != 2 * TRESS_RIG_KEY_BYTES + 4 || strcmp(name + 2 * TRESS_RIG_KEY_BYTES, ".rig") != 0) return false;
  for (int i = 0; i < TRESS_RIG_KEY_BYTES; i++) {
    int hi = hex_nibble(name[2 * i]), lo = hex_nibble(name[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    key[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

/* The bytes of a key's ops view beside its rig file, 0 when there is none. */
static uint64_t glb_bytes(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES]) {
  char path[PATH_MAX];
  struct stat st;
  tress_rig_glb_path(dir, key, path, sizeof path);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static tress_rig_disk_file *find(tress_rig_disk_budget *b, const uint8_t key[TRESS_RIG_KEY_BYTES]) {
  for (uint32_t i = 0; i < b->count; i++)
    if (memcmp(b->files[i].key, key, TRESS_RIG_KEY_BYTES) == 0) return &b->files[i];
  return NULL;
}

static tress_rig_disk_file *add(tress_rig_disk_budget *b, const uint8_t key[TRESS_RIG_KEY_BYTES]) {
  if (b->count == b->cap) {
    uint32_t cap = b->cap ? b->cap * 2 : 64;
    tress_rig_disk_file *n = realloc(b->files, cap * sizeof *n);
    if (!n) return NULL;
    b->files = n;
    b->cap = cap;
  }
  tress_rig_disk_file *f = &b->files[b->count++];
  memset(f, 0, sizeof *f);
  memcpy(f->key, key, TRESS_RIG_KEY_BYTES);
  return f;
}

/* Deletes least recently used files (never `keep`) until the rest fit the budget. */
static uint32_t enforce(tress_rig_disk_budget *b, const tress_rig_disk_file *keep_file) {
  uint8_t keep[TRESS_RIG_KEY_BYTES] = {0};
  bool has_keep = keep_file != NULL;
  if (has_keep) memcpy(keep, keep_file->key, sizeof keep);
  uint32_t evicted = 0;
  while (b->budget && b->used > b->budget) {
    tress_rig_disk_file *oldest = NULL;
    for (uint32_t i = 0; i < b->count; i++) {
      tress_rig_disk_file *f = &b->files[i];
      if (has_keep && memcmp(f->key, keep, sizeof keep) == 0) continue;
      if (!oldest || f->used_ns < oldest->used_ns) oldest = f;
    }
    if (!oldest) break;
    char path[PATH_MAX];
    tress_rig_cache_file_path(b->dir, oldest->key, path, sizeof path);
    unlink(path); /* already gone (an operator cleaned up) is as good */
    tress_rig_glb_path(b->dir, oldest->key, path, sizeof path);
    unlink(path);
    b->used -= oldest->bytes;
    *oldest = b->files[--b->count];
    evicted++;
  }
  return evicted;
}

uint32_t tress_rig_disk_budget_init(tress_rig_disk_budget *b, const char *dir, uint64_t budget) {
  memset(b, 0, sizeof *b);
  snprintf(b->dir, sizeof b->dir, "%s", dir);
  b->budget = budget;
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    uint8_t key[TRESS_RIG_KEY_BYTES];
    struct stat st;
    if (!key_from_name(e->d_name, key) || fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
    tress_rig_disk_file *f = add(b, key);
    if (!f) break;
    f->bytes = (uint64_t)st.st_size + glb_bytes(dir, key);
    f->used_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    b->used += f->bytes;
  }
  closedir(d);
  return enforce(b, NULL);
}

void tress_rig_disk_budget_destroy(tress_rig_disk_budget *b) {
  free(b->files);
  memset(b, 0, sizeof *b);
}

uint32_t tress_rig_disk_budget_used(tress_rig_disk_budget *b, const uint8_t key[TRESS_RIG_KEY_BYTES], bool hit) {
  char path[PATH_MAX];
  tress_rig_cache_file_path(b->dir, key, path, sizeof path);
  struct stat st;
  if (stat(path, &st) != 0) return 0; /* deleted meanwhile: nothing to count */
  if (hit) utimensat(AT_FDCWD, path, NULL, 0); /* the hit is its new last use, on disk too */
  tress_rig_disk_file *f = find(b, key);
  if (!f && !(f = add(b, key))) return 0;
  uint64_t bytes = (uint64_t)st.st_size + glb_bytes(b->dir, key);
  b->used = b->used - f->bytes + bytes;
  f->bytes = bytes;
  f->used_ns = wall_ns();
  return enforce(b, f);
}
