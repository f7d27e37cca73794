/* mesh_hash.c - BLAKE2b-256 of a mesh's positions and indices in a fixed little-endian layout,
 * so the same mesh hashes the same on every host. */
#include "tress/mesh_hash.h"

#include <sodium.h>
#include <string.h>

static void put_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* Feeds 32-bit words in little-endian order through a small stack buffer. */
static void update_words(crypto_generichash_state *st, const uint32_t *words, size_t count) {
  uint8_t buf[1024];
  while (count > 0) {
    size_t chunk = count < sizeof buf / 4 ? count : sizeof buf / 4;
    for (size_t i = 0; i < chunk; i++) put_u32(buf + 4 * i, words[i]);
    crypto_generichash_update(st, buf, 4 * chunk);
    words += chunk;
    count -= chunk;
  }
}

int tress_mesh_get_content_hash(const tress_mesh *m, uint8_t out[TRESS_MESH_HASH_BYTES]) {
  if (!m) return -1;
  if (sodium_init() < 0) return -1;
  crypto_generichash_state st;
  crypto_generichash_init(&st, NULL, 0, TRESS_MESH_HASH_BYTES);
  static const char tag[] = "tress-mesh-v1";
  uint8_t head[8];
  put_u32(head, m->vertex_count);
  put_u32(head + 4, m->indices ? m->index_count : 0);
  crypto_generichash_update(&st, (const uint8_t *)tag, sizeof tag - 1);
  crypto_generichash_update(&st, head, sizeof head);
  /* Floats are hashed as their IEEE-754 bit patterns, copied out (no type punning). */
  uint32_t bits[256];
  size_t total = 3 * (size_t)m->vertex_count, done = 0;
  while (done < total) {
    size_t chunk = total - done < 256 ? total - done : 256;
    memcpy(bits, m->positions + done, 4 * chunk);
    update_words(&st, bits, chunk);
    done += chunk;
  }
  if (m->indices) update_words(&st, m->indices, m->index_count);
  crypto_generichash_final(&st, out, TRESS_MESH_HASH_BYTES);
  return 0;
}

void tress_mesh_hash_to_hex(const uint8_t hash[TRESS_MESH_HASH_BYTES], char out[2 * TRESS_MESH_HASH_BYTES + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < TRESS_MESH_HASH_BYTES; i++) {
    out[2 * i] = digits[hash[i] >> 4];
    out[2 * i + 1] = digits[hash[i] & 15];
  }
  out[2 * TRESS_MESH_HASH_BYTES] = '\0';
}
