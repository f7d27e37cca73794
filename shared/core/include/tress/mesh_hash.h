/* tress/mesh_hash.h - a mesh's content hash: what the rig cache keys on and what a client checks
 * its local copy of an asset against before it trusts a rig result. */
#ifndef TRESS_MESH_HASH_H
#define TRESS_MESH_HASH_H

#include <stdint.h>

#include "tress/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_MESH_HASH_BYTES 32

/* BLAKE2b-256 (libsodium crypto_generichash, no key) over, all little-endian:
 *   "tress-mesh-v1" (13 bytes), vertex_count u32, index_count u32,
 *   positions (3 x f32 per vertex), indices (u32 each).
 * Normals, uvs and any skin are not part of the content. Returns 0, or -1 for a NULL mesh. */
int tress_mesh_get_content_hash(const tress_mesh *mesh, uint8_t out[TRESS_MESH_HASH_BYTES]);

/* Lower-case hex of a hash into out (65 bytes with the NUL). */
void tress_mesh_hash_to_hex(const uint8_t hash[TRESS_MESH_HASH_BYTES], char out[2 * TRESS_MESH_HASH_BYTES + 1]);

#ifdef __cplusplus
}
#endif

#endif
