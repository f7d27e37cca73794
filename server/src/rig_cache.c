/* Rig cache
 * ---------
 * Rigging a hair mesh costs milliseconds to seconds; the same hair is worn by many characters
 * and comes back after every restart. So results are keyed by content, not by asset id:
 * key = BLAKE2b-256("tress-rig-v1" | mesh content hash | rig options | u32 rigger version).
 * Renaming an asset, or two ids naming identical bytes, still hits; a new rigger misses.
 *
 * Memory: a doubly linked LRU list charged in bytes against a budget. Entries are reference
 * counted, and an entry live characters wear is pinned: it stays in the cache and counts against
 * the budget, since evicting it would free nothing (the characters keep it alive) while hiding
 * real memory from the budget and the metrics. Eviction takes the least recently used unpinned
 * entries; when the last wearer goes, the entry becomes evictable and the budget is enforced.
 *
 * Disk: one file per key, "<hex key>.rig":
 *   "TRESSRIG" | u32 version (2) | u32 payload length | f32 mesh_size[3]
 *   | BLAKE2b-256(key | mesh_size | payload) | payload (an encoded RIG_RESULT)
 * written with tress_file_write_atomic (tmp + fsync + rename + dir fsync). A reader checks the
 * length, the checksum (which also binds the file to its name's key) and that the payload
 * decodes with the full codec validation; anything else is "corrupt", and the caller re-rigs
 * and overwrites it. Version 2: weights are u8 (version 1 stored u16); a version 1 file is
 * reported as corrupt and rebuilt, never read.
 *
 * Everything that costs time per byte (quantize, zstd, encode, a disk file's decode) runs on the
 * rig job's worker, once per rig: an entry keeps its encoded payload, and since bones travel in
 * mesh space (PROTOCOL.md 4.10) a send is a copy with the wearer's ids patched in
 * (tress_rig_result_set_ids). */
#include "rig_cache.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "tress/file_read.h"
#include "tress/codec.h"
#include "tress/rig_payload.h"

/* u8 + zstd encodes the sample meshes smaller than u16 + zstd (measured: see the commit). */
#define STORED_WEIGHTS TRESS_WEIGHTS_U8

#define FILE_MAGIC "TRESSRIG"
#define FILE_VERSION 2u
#define HEADER_BYTES (8 + 4 + 4 + 12 + 32)
_Static_assert(HEADER_BYTES == TRESS_RIG_CACHE_HEADER_BYTES, "rig_cache.h states the header size");

void tress_rig_cache_key(const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES], const tress_wire_rig_options *o,
                         uint8_t key[TRESS_RIG_KEY_BYTES]) {
  uint8_t buf[12 + TRESS_MESH_HASH_BYTES + 3 + 12 + 1 + 12 + 4];
  size_t n = 0;
  memcpy(buf, "tress-rig-v1", 12);
  n = 12;
  memcpy(buf + n, mesh_hash, TRESS_MESH_HASH_BYTES);
  n += TRESS_MESH_HASH_BYTES;
  buf[n++] = o->sectors;
  buf[n++] = o->segments;
  buf[n++] = o->max_influences;
  float root[3] = {0, 0, 0};
  if (o->has_root) memcpy(root, o->root, sizeof root);
  memcpy(buf + n, o->axis, 12); /* host floats are little-endian IEEE on every target we build */
  n += 12;
  buf[n++] = o->has_root ? 1 : 0;
  memcpy(buf + n, root, 12);
  n += 12;
  uint32_t rigger = TRESS_RIGGER_VERSION;
  memcpy(buf + n, &rigger, 4);
  n += 4;
  crypto_generichash(key, TRESS_RIG_KEY_BYTES, buf, n, NULL, 0);
}

void tress_rig_cache_init(tress_rig_cache *cache, const char *dir, uint64_t budget) {
  memset(cache, 0, sizeof *cache);
  snprintf(cache->dir, sizeof cache->dir, "%s", dir);
  cache->budget = budget;
}

static void lru_unlink(tress_rig_cache *c, tress_rig_entry *e) {
  if (e->lru_prev) e->lru_prev->lru_next = e->lru_next;
  else c->mru = e->lru_next;
  if (e->lru_next) e->lru_next->lru_prev = e->lru_prev;
  else c->lru = e->lru_prev;
  e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(tress_rig_cache *c, tress_rig_entry *e) {
  e->lru_prev = NULL;
  e->lru_next = c->mru;
  if (c->mru) c->mru->lru_prev = e;
  c->mru = e;
  if (!c->lru) c->lru = e;
}

static void evict(tress_rig_cache *c, tress_rig_entry *e) {
  lru_unlink(c, e);
  e->in_cache = false;
  c->used -= e->bytes;
  if (e->pins) c->pinned -= e->bytes;
  c->count--;
  tress_rig_entry_release(e);
}

void tress_rig_cache_destroy(tress_rig_cache *cache) {
  while (cache->mru) evict(cache, cache->mru);
}

tress_rig_entry *tress_rig_cache_get(tress_rig_cache *cache, const uint8_t key[TRESS_RIG_KEY_BYTES]) {
  for (tress_rig_entry *e = cache->mru; e; e = e->lru_next) {
    if (memcmp(e->key, key, TRESS_RIG_KEY_BYTES) != 0) continue;
    lru_unlink(cache, e);
    lru_push_front(cache, e);
    tress_rig_entry_retain(e);
    return e;
  }
  return NULL;
}

/* Evicts least recently used unpinned entries (never `keep`) until the cache fits its budget. */
static uint32_t enforce_budget(tress_rig_cache *c, const tress_rig_entry *keep) {
  uint32_t evicted = 0;
  tress_rig_entry *e = c->lru;
  while (e && c->used > c->budget) {
    tress_rig_entry *newer = e->lru_prev;
    if (!e->pins && e != keep) {
      evict(c, e);
      evicted++;
    }
    e = newer;
  }
  return evicted;
}

uint32_t tress_rig_cache_put(tress_rig_cache *cache, tress_rig_entry *entry) {
  for (tress_rig_entry *e = cache->mru; e; e = e->lru_next) {
    if (memcmp(e->key, entry->key, TRESS_RIG_KEY_BYTES) == 0) {
      evict(cache, e); /* replaced by the newer result */
      break;
    }
  }
  if (entry->bytes > cache->budget) return 0; /* larger than the whole budget: not kept */
  tress_rig_entry_retain(entry);
  entry->in_cache = true;
  lru_push_front(cache, entry);
  cache->used += entry->bytes;
  if (entry->pins) cache->pinned += entry->bytes;
  cache->count++;
  return enforce_budget(cache, entry);
}

void tress_rig_cache_pin(tress_rig_cache *cache, tress_rig_entry *entry) {
  if (entry->pins++ == 0 && entry->in_cache) cache->pinned += entry->bytes;
}

uint32_t tress_rig_cache_unpin(tress_rig_cache *cache, tress_rig_entry *entry) {
  if (!entry->pins || --entry->pins > 0 || !entry->in_cache) return 0;
  cache->pinned -= entry->bytes;
  return enforce_budget(cache, NULL);
}

void tress_rig_entry_retain(tress_rig_entry *e) { e->refs++; }

void tress_rig_entry_release(tress_rig_entry *e) {
  if (!e || --e->refs > 0) return;
  free(e->payload);
  free(e);
}

static uint8_t *encode_payload(const tress_msg *msg, size_t *len, char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_wire_error err;
  size_t cap = tress_msg_get_encode_bound(msg);
  if (cap == 0) { /* invalid: let the encoder say why */
    uint8_t one;
    tress_msg_encode(msg, &one, 1, len, &err);
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "not encodable: %.200s", err.message);
    return NULL;
  }
  uint8_t *buf = malloc(cap);
  if (!buf) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
    return NULL;
  }
  if (tress_msg_encode(msg, buf, cap, len, &err) != TRESS_WIRE_OK) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "encode: %.200s", err.message);
    free(buf);
    return NULL;
  }
  return buf;
}

/* A fresh entry (refs 1) that takes the payload; r is the message the payload encodes. */
static tress_rig_entry *entry_new(uint8_t *payload, size_t len, const float mesh_size[3], const tress_msg_rig_result *r,
                                  char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_rig_entry *e = calloc(1, sizeof *e);
  if (!e) {
    free(payload);
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
    return NULL;
  }
  e->refs = 1;
  e->payload = payload;
  e->encoded_bytes = len;
  e->bone_count = r->bone_count;
  e->vertex_count = r->skin.vertex_count;
  memcpy(e->mesh_size, mesh_size, sizeof e->mesh_size);
  tress_rig_cache_key(r->mesh_hash, &r->options, e->key);
  e->bytes = sizeof *e + len;
  return e;
}

/* An entry from stored bytes: the codec's full validation is their integrity check. */
static tress_rig_entry *entry_from_stored(const uint8_t *payload, size_t len, const float mesh_size[3],
                                          char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_msg msg;
  tress_wire_error err;
  if (tress_msg_decode(payload, len, &msg, &err) != TRESS_WIRE_OK || msg.type != TRESS_MSG_RIG_RESULT) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "payload does not decode: %.200s", err.message);
    tress_msg_free(&msg);
    return NULL;
  }
  uint8_t *copy = malloc(len ? len : 1);
  tress_rig_entry *e = NULL;
  if (!copy) snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
  else {
    memcpy(copy, payload, len);
    e = entry_new(copy, len, mesh_size, &msg.rig_result, reason);
  }
  tress_msg_free(&msg);
  return e;
}

uint8_t *tress_rig_entry_encode_for(const tress_rig_entry *e, uint32_t character_id, uint8_t accessory_index,
                                    size_t *len, char reason[TRESS_WIRE_TEXT_CAP]) {
  uint8_t *out = malloc(e->encoded_bytes);
  if (!out) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
    return NULL;
  }
  memcpy(out, e->payload, e->encoded_bytes);
  if (tress_rig_result_set_ids(out, e->encoded_bytes, character_id, accessory_index) != TRESS_WIRE_OK) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "ids %u/%u do not fit a RIG_RESULT", character_id, accessory_index);
    free(out);
    return NULL;
  }
  *len = e->encoded_bytes;
  return out;
}

tress_rig_entry *tress_rig_entry_from_output(const tress_rig_output *out, const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES],
                                             const tress_wire_rig_options *opts, char reason[TRESS_WIRE_TEXT_CAP]) {
  if (out->mesh && out->mesh->vertex_count > TRESS_WIRE_MAX_VERTICES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "%u vertices, the wire carries at most %u", out->mesh->vertex_count,
             TRESS_WIRE_MAX_VERTICES);
    return NULL;
  }
#ifdef TRESS_HAVE_ZSTD
  tress_compression compression = TRESS_COMPRESSION_ZSTD;
#else
  tress_compression compression = TRESS_COMPRESSION_NONE;
#endif
  /* character 1 is a placeholder: each send patches in its wearer */
  tress_msg msg;
  tress_wire_status st = tress_rig_payload_build(out, 1, 0, mesh_hash, opts, STORED_WEIGHTS, compression, &msg);
  if (st != TRESS_WIRE_OK) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "%s (%u bones, the wire carries 1..%d)",
             st == TRESS_WIRE_ERR_OUT_OF_MEMORY ? "out of memory" : "the bake has no skin or does not fit the wire",
             out->bone_count, TRESS_WIRE_MAX_BONES);
    return NULL;
  }
  size_t len = 0;
  tress_rig_entry *e = NULL;
  uint8_t *payload = encode_payload(&msg, &len, reason);
  if (payload) e = entry_new(payload, len, out->mesh_size, &msg.rig_result, reason);
  tress_msg_free(&msg);
  return e;
}

void tress_rig_cache_file_path(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], char *out, size_t cap) {
  char hex[2 * TRESS_RIG_KEY_BYTES + 1];
  tress_mesh_hash_to_hex(key, hex);
  snprintf(out, cap, "%s/%s.rig", dir, hex);
}

static void file_checksum(const uint8_t key[TRESS_RIG_KEY_BYTES], const float mesh_size[3], const uint8_t *payload,
                          size_t len, uint8_t out[32]) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, NULL, 0, 32);
  crypto_generichash_update(&st, key, TRESS_RIG_KEY_BYTES);
  crypto_generichash_update(&st, (const uint8_t *)mesh_size, 12);
  crypto_generichash_update(&st, payload, len);
  crypto_generichash_final(&st, out, 32);
}

void tress_rig_cache_file_header(const uint8_t key[TRESS_RIG_KEY_BYTES], const float mesh_size[3],
                                 const uint8_t *payload, size_t len, uint8_t header[TRESS_RIG_CACHE_HEADER_BYTES]) {
  uint32_t version = FILE_VERSION, plen = (uint32_t)len;
  memcpy(header, FILE_MAGIC, 8);
  memcpy(header + 8, &version, 4);
  memcpy(header + 12, &plen, 4);
  memcpy(header + 16, mesh_size, 12);
  file_checksum(key, mesh_size, payload, len, header + 28);
}

int tress_rig_cache_write_file(const char *dir, const tress_rig_entry *e, char reason[TRESS_WIRE_TEXT_CAP]) {
  const uint8_t *payload = e->payload;
  size_t len = e->encoded_bytes;
  uint8_t header[HEADER_BYTES];
  tress_rig_cache_file_header(e->key, e->mesh_size, payload, len, header);
  char path[PATH_MAX];
  tress_rig_cache_file_path(dir, e->key, path, sizeof path);
  int rc = tress_file_write_atomic(path, header, sizeof header, payload, len);
  if (rc != 0) snprintf(reason, TRESS_WIRE_TEXT_CAP, "write %.120s: %s", path, strerror(errno));
  return rc;
}

tress_cache_read tress_rig_cache_read_file(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], tress_rig_entry **out,
                                           char reason[TRESS_WIRE_TEXT_CAP]) {
  *out = NULL;
  char path[PATH_MAX];
  tress_rig_cache_file_path(dir, key, path, sizeof path);
  size_t len = 0;
  uint8_t *data = tress_file_read(path, HEADER_BYTES + (size_t)TRESS_WIRE_MAX_BULK_MESSAGE_BYTES, &len, NULL);
  if (!data) {
    if (errno == ENOENT) return TRESS_CACHE_READ_MISSING;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "read: %s", strerror(errno));
    return TRESS_CACHE_READ_CORRUPT;
  }
  tress_cache_read result = tress_rig_cache_parse_file(key, data, len, out, reason);
  free(data);
  return result;
}

/* The part a disk file and a shared value verify alike: the checksum over the payload, then the
 * payload itself, which must decode and name the key it was stored under. */
static tress_cache_read verified_entry(const uint8_t key[TRESS_RIG_KEY_BYTES], const float mesh_size[3],
                                       const uint8_t *payload, uint32_t plen, const uint8_t stored_sum[32],
                                       tress_rig_entry **out, char reason[TRESS_WIRE_TEXT_CAP]) {
  uint8_t sum[32];
  file_checksum(key, mesh_size, payload, plen, sum);
  if (sodium_memcmp(sum, stored_sum, 32) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "checksum mismatch");
    return TRESS_CACHE_READ_CORRUPT;
  }
  tress_rig_entry *e = entry_from_stored(payload, plen, mesh_size, reason);
  if (!e) return TRESS_CACHE_READ_CORRUPT;
  if (memcmp(e->key, key, TRESS_RIG_KEY_BYTES) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "payload belongs to another key");
    tress_rig_entry_release(e);
    return TRESS_CACHE_READ_CORRUPT;
  }
  *out = e;
  return TRESS_CACHE_READ_OK;
}

tress_cache_read tress_rig_cache_parse_file(const uint8_t key[TRESS_RIG_KEY_BYTES], const uint8_t *data, size_t len,
                                            tress_rig_entry **out, char reason[TRESS_WIRE_TEXT_CAP]) {
  *out = NULL;
  uint32_t version, plen;
  float mesh_size[3];
  if (len < HEADER_BYTES || memcmp(data, FILE_MAGIC, 8) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "bad header");
    return TRESS_CACHE_READ_CORRUPT;
  }
  memcpy(&version, data + 8, 4);
  memcpy(&plen, data + 12, 4);
  memcpy(mesh_size, data + 16, 12);
  if (version != FILE_VERSION || (size_t)plen != len - HEADER_BYTES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "version %u or length %u does not match the file (%zu bytes)", version, plen, len);
    return TRESS_CACHE_READ_CORRUPT;
  }
  return verified_entry(key, mesh_size, data + HEADER_BYTES, plen, data + 28, out, reason);
}

/* ---- the shared tier's value -------------------------------------------------------------- */

#define SHARED_MAGIC "TRESSRDS"
_Static_assert(8 + 4 + TRESS_RIG_KEY_BYTES + 4 + 12 + 32 == TRESS_RIG_SHARED_HEADER_BYTES, "shared header size");

uint8_t *tress_rig_cache_shared_value(const tress_rig_entry *e, size_t *len) {
  size_t total = TRESS_RIG_SHARED_HEADER_BYTES + e->encoded_bytes;
  uint8_t *v = malloc(total);
  if (!v) return NULL;
  uint32_t version = TRESS_RIG_SHARED_FORMAT_VERSION, plen = (uint32_t)e->encoded_bytes;
  memcpy(v, SHARED_MAGIC, 8);
  memcpy(v + 8, &version, 4);
  memcpy(v + 12, e->key, TRESS_RIG_KEY_BYTES);
  memcpy(v + 44, &plen, 4);
  memcpy(v + 48, e->mesh_size, 12);
  file_checksum(e->key, e->mesh_size, e->payload, e->encoded_bytes, v + 60);
  memcpy(v + TRESS_RIG_SHARED_HEADER_BYTES, e->payload, e->encoded_bytes);
  *len = total;
  return v;
}

tress_cache_read tress_rig_cache_parse_shared(const uint8_t key[TRESS_RIG_KEY_BYTES], const uint8_t *data, size_t len,
                                              tress_rig_entry **out, char reason[TRESS_WIRE_TEXT_CAP]) {
  *out = NULL;
  uint32_t version, plen;
  float mesh_size[3];
  if (len < TRESS_RIG_SHARED_HEADER_BYTES || memcmp(data, SHARED_MAGIC, 8) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "not a tress rig value (%zu bytes, bad magic)", len);
    return TRESS_CACHE_READ_CORRUPT;
  }
  memcpy(&version, data + 8, 4);
  memcpy(&plen, data + 44, 4);
  memcpy(mesh_size, data + 48, 12);
  if (version != TRESS_RIG_SHARED_FORMAT_VERSION) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "value format version %u, this server reads %u", version,
             TRESS_RIG_SHARED_FORMAT_VERSION);
    return TRESS_CACHE_READ_CORRUPT;
  }
  if (memcmp(data + 12, key, TRESS_RIG_KEY_BYTES) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "foreign value: it names another key");
    return TRESS_CACHE_READ_CORRUPT;
  }
  if ((size_t)plen != len - TRESS_RIG_SHARED_HEADER_BYTES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "length %u does not match the value (%zu bytes)", plen, len);
    return TRESS_CACHE_READ_CORRUPT;
  }
  return verified_entry(key, mesh_size, data + TRESS_RIG_SHARED_HEADER_BYTES, plen, data + 60, out, reason);
}
