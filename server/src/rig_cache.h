/* rig_cache.h - content-addressed rig results (key = mesh content hash + rig options): an LRU
 * in memory under a byte budget, and one checksummed file per key on disk, written atomically. */
#ifndef TRESS_SERVER_RIG_CACHE_H
#define TRESS_SERVER_RIG_CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/mesh_hash.h"
#include "tress/msg.h"
#include "tress/rig.h"

#define TRESS_RIG_KEY_BYTES 32
/* Part of every key: bump it when tress_rig_mesh's output for the same mesh and options changes,
 * so no tier (memory, disk, shared) serves a rig the current rigger would not make. */
#define TRESS_RIGGER_VERSION 1u

/* One rig, shared by every character wearing the same hair with the same options. `payload` is
 * its RIG_RESULT, encoded once on a worker thread (as stored on disk): bones in mesh space, the
 * compressed skin, and placeholder ids (character 1, accessory 0), which are all that differs
 * between wearers, so a send is a copy with the wearer's ids patched in. */
typedef struct tress_rig_entry {
  int32_t refs; /* loop thread only */
  uint8_t key[TRESS_RIG_KEY_BYTES];
  float mesh_size[3];    /* the rigged mesh's bounds size, recorded in the cache file's header */
  uint32_t bone_count;   /* of the payload, for logs */
  uint32_t vertex_count;
  uint8_t *payload;
  size_t encoded_bytes; /* payload length */
  size_t bytes;         /* what the memory budget is charged */
  bool in_cache;
  uint32_t pins; /* live characters wearing it: a pinned entry is never evicted (that frees nothing) */
  struct tress_rig_entry *lru_prev, *lru_next; /* prev = more recently used */
} tress_rig_entry;

typedef struct tress_rig_cache {
  char dir[PATH_MAX];
  uint64_t budget, used; /* used: every entry in the cache, pinned ones included */
  uint64_t pinned;       /* bytes of the entries in the cache that live characters wear */
  uint32_t count;
  tress_rig_entry *mru, *lru;
} tress_rig_cache;

void tress_rig_cache_key(const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES], const tress_wire_rig_options *opts,
                         uint8_t key[TRESS_RIG_KEY_BYTES]);

/* Loop thread. */
void tress_rig_cache_init(tress_rig_cache *cache, const char *dir, uint64_t budget);
void tress_rig_cache_destroy(tress_rig_cache *cache);
/* A new reference to the entry (and it becomes most recently used), or NULL. */
tress_rig_entry *tress_rig_cache_get(tress_rig_cache *cache, const uint8_t key[TRESS_RIG_KEY_BYTES]);
/* The cache takes its own reference; least recently used unpinned entries leave until it fits the
 * budget (pinned ones count against it but stay: evicting them would free nothing). Returns how
 * many were evicted. */
uint32_t tress_rig_cache_put(tress_rig_cache *cache, tress_rig_entry *entry);
/* A live character starts / stops wearing the entry. Unpinning can evict (returned count): the
 * bytes a pin held over the budget are given back. */
void tress_rig_cache_pin(tress_rig_cache *cache, tress_rig_entry *entry);
uint32_t tress_rig_cache_unpin(tress_rig_cache *cache, tress_rig_entry *entry);
void tress_rig_entry_retain(tress_rig_entry *e);
void tress_rig_entry_release(tress_rig_entry *e);

/* Any thread (pure functions of their arguments). */
/* Builds an entry (refs 1) from the rigger's output. NULL with a reason. */
tress_rig_entry *tress_rig_entry_from_output(const tress_rig_output *out, const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES],
                                             const tress_wire_rig_options *opts, char reason[TRESS_WIRE_TEXT_CAP]);
typedef enum tress_cache_read {
  TRESS_CACHE_READ_OK = 0,
  TRESS_CACHE_READ_MISSING,
  TRESS_CACHE_READ_CORRUPT, /* wrong size, magic, checksum, or a payload that does not decode */
} tress_cache_read;
tress_cache_read tress_rig_cache_read_file(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], tress_rig_entry **out,
                                           char reason[TRESS_WIRE_TEXT_CAP]);
/* The reading half of read_file, on bytes already read: header, checksum, payload decode. */
tress_cache_read tress_rig_cache_parse_file(const uint8_t key[TRESS_RIG_KEY_BYTES], const uint8_t *data, size_t len,
                                            tress_rig_entry **out, char reason[TRESS_WIRE_TEXT_CAP]);
/* A cache file's header (magic, version, length, mesh size, checksum) for this payload. */
#define TRESS_RIG_CACHE_HEADER_BYTES 60
void tress_rig_cache_file_header(const uint8_t key[TRESS_RIG_KEY_BYTES], const float mesh_size[3],
                                 const uint8_t *payload, size_t len, uint8_t header[TRESS_RIG_CACHE_HEADER_BYTES]);
int tress_rig_cache_write_file(const char *dir, const tress_rig_entry *e, char reason[TRESS_WIRE_TEXT_CAP]);
/* This wearer's RIG_RESULT bytes (malloc'd): a copy of the entry's payload with the given ids.
 * Costs one copy, no encoding. NULL with a reason. */
uint8_t *tress_rig_entry_encode_for(const tress_rig_entry *e, uint32_t character_id, uint8_t accessory_index,
                                    size_t *len, char reason[TRESS_WIRE_TEXT_CAP]);
/* The shared tier's value (Redis): "TRESSRDS" | u32 version | key | u32 payload length
 * | f32 mesh_size[3] | BLAKE2b-256(key | mesh_size | payload) | payload. The value names its own
 * key, so a value stored under another key is told apart from a damaged one. */
#define TRESS_RIG_SHARED_FORMAT_VERSION 1u
#define TRESS_RIG_SHARED_HEADER_BYTES 92
/* The entry's shared value (malloc'd, *len set), or NULL when out of memory. */
uint8_t *tress_rig_cache_shared_value(const tress_rig_entry *e, size_t *len);
/* OK, or CORRUPT with a reason (bad header, another key's value, checksum, payload). */
tress_cache_read tress_rig_cache_parse_shared(const uint8_t key[TRESS_RIG_KEY_BYTES], const uint8_t *data, size_t len,
                                              tress_rig_entry **out, char reason[TRESS_WIRE_TEXT_CAP]);
/* "<dir>/<64 hex>.rig" */
void tress_rig_cache_file_path(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], char *out, size_t cap);

#endif
