/* Rig cache
 * ---------
 * Rigging a hair mesh costs milliseconds to seconds; the same hair is worn by many characters
 * and comes back after every restart. So results are keyed by content, not by asset id:
 * key = BLAKE2b-256("tress-rig-v1" | mesh content hash | rig options). Renaming an asset, or
 * two ids naming identical bytes, still hits.
 *
 * Memory: a doubly linked LRU list charged in bytes against a budget. Entries are reference
 * counted; eviction drops the cache's reference only, so a character still wearing an evicted
 * rig keeps it alive (and a late joiner still gets it).
 *
 * Disk: one file per key, "<hex key>.rig":
 *   "TRESSRIG" | u32 version (1) | u32 payload length | f32 mesh_size[3]
 *   | BLAKE2b-256(key | mesh_size | payload) | payload (an encoded RIG_RESULT)
 * written with tress_file_write_atomic (tmp + fsync + rename + dir fsync). A reader checks the
 * length, the checksum (which also binds the file to its name's key) and that the payload
 * decodes with the full codec validation; anything else is "corrupt", and the caller re-rigs
 * and overwrites it. */
#include "rig_cache.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "tress/codec.h"

#define FILE_MAGIC "TRESSRIG"
#define FILE_VERSION 1u
#define HEADER_BYTES (8 + 4 + 4 + 12 + 32)

void tress_rig_cache_key(const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES], const tress_wire_rig_options *o,
                         uint8_t key[TRESS_RIG_KEY_BYTES]) {
  uint8_t buf[12 + TRESS_MESH_HASH_BYTES + 3 + 12 + 1 + 12];
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

uint32_t tress_rig_cache_put(tress_rig_cache *cache, tress_rig_entry *entry) {
  uint32_t evicted = 0;
  for (tress_rig_entry *e = cache->mru; e; e = e->lru_next) {
    if (memcmp(e->key, entry->key, TRESS_RIG_KEY_BYTES) == 0) {
      evict(cache, e); /* replaced by the newer result */
      break;
    }
  }
  while (cache->lru && cache->used + entry->bytes > cache->budget) {
    evict(cache, cache->lru);
    evicted++;
  }
  if (entry->bytes > cache->budget) return evicted; /* larger than the whole budget: not kept */
  tress_rig_entry_retain(entry);
  entry->in_cache = true;
  lru_push_front(cache, entry);
  cache->used += entry->bytes;
  cache->count++;
  return evicted;
}

void tress_rig_entry_retain(tress_rig_entry *e) { e->refs++; }

void tress_rig_entry_release(tress_rig_entry *e) {
  if (!e || --e->refs > 0) return;
  tress_msg_free(&e->msg);
  free(e);
}

static size_t entry_charge(const tress_rig_entry *e) {
  const tress_msg_rig_result *r = &e->msg.rig_result;
  return sizeof *e + e->encoded_bytes + (size_t)r->bone_count * sizeof(tress_wire_bone) +
         (size_t)r->skin.vertex_count * 4 * (sizeof(uint8_t) + sizeof(uint16_t));
}

/* Decodes payload into a fresh entry; the codec's validation is the payload's integrity check. */
static tress_rig_entry *entry_from_payload(const uint8_t *payload, size_t len, const float mesh_size[3],
                                           char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_rig_entry *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
    return NULL;
  }
  tress_wire_error err;
  if (tress_msg_decode(payload, len, &e->msg, &err) != TRESS_WIRE_OK || e->msg.type != TRESS_MSG_RIG_RESULT) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "payload does not decode: %.200s", err.message);
    tress_msg_free(&e->msg);
    free(e);
    return NULL;
  }
  e->refs = 1;
  memcpy(e->mesh_size, mesh_size, sizeof e->mesh_size);
  tress_rig_cache_key(e->msg.rig_result.mesh_hash, &e->msg.rig_result.options, e->key);
  e->encoded_bytes = len;
  e->bytes = entry_charge(e);
  return e;
}

static uint8_t *encode_payload(const tress_msg *msg, size_t *len, char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_wire_error err;
  size_t cap = tress_msg_encode_bound(msg);
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

tress_rig_entry *tress_rig_entry_from_output(const tress_rig_output *out, const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES],
                                             const tress_wire_rig_options *opts, char reason[TRESS_WIRE_TEXT_CAP]) {
  const tress_mesh *mesh = out->mesh;
  if (!mesh || !mesh->weights || !mesh->joints) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "the bake has no skin");
    return NULL;
  }
  if (out->bone_count == 0 || out->bone_count > TRESS_WIRE_MAX_BONES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "%u bones, the wire carries 1..%d", out->bone_count, TRESS_WIRE_MAX_BONES);
    return NULL;
  }
  if (mesh->vertex_count > TRESS_WIRE_MAX_VERTICES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "%u vertices, the wire carries at most %u", mesh->vertex_count,
             TRESS_WIRE_MAX_VERTICES);
    return NULL;
  }
  uint32_t vc = mesh->vertex_count;
  uint8_t influences = opts->max_influences < 1 ? 1 : opts->max_influences > 4 ? 4 : opts->max_influences;
  tress_wire_bone *bones = calloc(out->bone_count, sizeof *bones);
  uint8_t *joints = calloc((size_t)vc * 4 + 1, 1);
  uint16_t *weights = calloc((size_t)vc * 4 + 1, sizeof *weights);
  tress_rig_entry *e = NULL;
  uint8_t *payload = NULL;
  if (!bones || !joints || !weights) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < out->bone_count; i++) {
    snprintf(bones[i].name, sizeof bones[i].name, "%s", out->bones[i].name);
    bones[i].parent = (int16_t)out->bones[i].parent;
    bones[i].rest = out->bones[i].rest;
  }
  for (size_t i = 0; i < (size_t)vc * 4; i++) joints[i] = (uint8_t)mesh->joints[i];
  tress_skin_quantize(mesh->weights, vc, influences, TRESS_WEIGHTS_U16, weights);
  for (size_t v = 0; v < vc; v++) /* unused slots point at bone 0 with weight 0, as the wire wants */
    for (int k = influences; k < 4; k++) joints[v * 4 + k] = 0;

  tress_msg msg;
  memset(&msg, 0, sizeof msg);
  msg.type = TRESS_MSG_RIG_RESULT;
  tress_msg_rig_result *r = &msg.rig_result;
  r->character_id = 1; /* placeholder: the wire needs a non-zero id; each send sets the real one */
  memcpy(r->mesh_hash, mesh_hash, TRESS_MESH_HASH_BYTES);
  r->options = *opts;
  r->bone_count = out->bone_count;
  r->bones = bones;
  r->skin.vertex_count = vc;
  r->skin.influences = influences;
  r->skin.weight_format = TRESS_WEIGHTS_U16;
#ifdef TRESS_HAVE_ZSTD
  r->skin.compression = TRESS_COMPRESSION_ZSTD;
#else
  r->skin.compression = TRESS_COMPRESSION_NONE;
#endif
  r->skin.joints = joints;
  r->skin.weights = weights;
  size_t len = 0;
  payload = encode_payload(&msg, &len, reason);
  if (payload) e = entry_from_payload(payload, len, out->mesh_size, reason);
done:
  free(payload);
  free(bones);
  free(joints);
  free(weights);
  return e;
}

void tress_rig_cache_file_path(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], char *out, size_t cap) {
  char hex[2 * TRESS_RIG_KEY_BYTES + 1];
  tress_mesh_hash_hex(key, hex);
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

int tress_rig_cache_write_file(const char *dir, const tress_rig_entry *e, char reason[TRESS_WIRE_TEXT_CAP]) {
  size_t len = 0;
  uint8_t *payload = encode_payload(&e->msg, &len, reason);
  if (!payload) return -1;
  uint8_t header[HEADER_BYTES];
  uint32_t version = FILE_VERSION, plen = (uint32_t)len;
  memcpy(header, FILE_MAGIC, 8);
  memcpy(header + 8, &version, 4);
  memcpy(header + 12, &plen, 4);
  memcpy(header + 16, e->mesh_size, 12);
  file_checksum(e->key, e->mesh_size, payload, len, header + 28);
  char path[PATH_MAX];
  tress_rig_cache_file_path(dir, e->key, path, sizeof path);
  int rc = tress_file_write_atomic(path, header, sizeof header, payload, len);
  if (rc != 0) snprintf(reason, TRESS_WIRE_TEXT_CAP, "write %.120s: %s", path, strerror(errno));
  free(payload);
  return rc;
}

tress_cache_read tress_rig_cache_read_file(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], tress_rig_entry **out,
                                           char reason[TRESS_WIRE_TEXT_CAP]) {
  *out = NULL;
  char path[PATH_MAX];
  tress_rig_cache_file_path(dir, key, path, sizeof path);
  size_t len = 0;
  uint8_t *data = (uint8_t *)tress_file_read_all(path, HEADER_BYTES + (size_t)TRESS_WIRE_MAX_BULK_MESSAGE_BYTES, &len);
  if (!data) {
    if (errno == ENOENT) return TRESS_CACHE_READ_MISSING;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "read: %s", strerror(errno));
    return TRESS_CACHE_READ_CORRUPT;
  }
  tress_cache_read result = TRESS_CACHE_READ_CORRUPT;
  uint32_t version, plen;
  float mesh_size[3];
  uint8_t sum[32];
  if (len < HEADER_BYTES || memcmp(data, FILE_MAGIC, 8) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "bad header");
    goto done;
  }
  memcpy(&version, data + 8, 4);
  memcpy(&plen, data + 12, 4);
  memcpy(mesh_size, data + 16, 12);
  if (version != FILE_VERSION || (size_t)plen != len - HEADER_BYTES) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "version %u or length %u does not match the file (%zu bytes)", version, plen, len);
    goto done;
  }
  file_checksum(key, mesh_size, data + HEADER_BYTES, plen, sum);
  if (sodium_memcmp(sum, data + 28, 32) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "checksum mismatch");
    goto done;
  }
  tress_rig_entry *e = entry_from_payload(data + HEADER_BYTES, plen, mesh_size, reason);
  if (!e) goto done;
  if (memcmp(e->key, key, TRESS_RIG_KEY_BYTES) != 0) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "payload belongs to another key");
    tress_rig_entry_release(e);
    goto done;
  }
  *out = e;
  result = TRESS_CACHE_READ_OK;
done:
  free(data);
  return result;
}
