/* asset_store.h - the directory of meshes the server owns, addressed by asset id. An id can
 * never name a path outside the store; "the store has it" is the rigger's permission gate. */
#ifndef TRESS_SERVER_ASSET_STORE_H
#define TRESS_SERVER_ASSET_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "tress/mesh.h"
#include "tress/mesh_hash.h"
#include "tress/msg.h"

typedef struct tress_asset_hash {
  char id[TRESS_WIRE_TEXT_CAP];
  uint8_t hash[TRESS_MESH_HASH_BYTES];
  bool listed;   /* named by the manifest */
  bool claimed;  /* the manifest gives a mesh_hash (in `hash`) that loads must match */
  bool verified; /* `hash` is what a load of this id actually hashed to */
} tress_asset_hash;

typedef struct tress_asset_store {
  char root[PATH_MAX]; /* realpath of the store directory */
  bool has_manifest;   /* root/manifest.json exists: only listed ids are in the store */
  tress_asset_hash *hashes;
  uint32_t hash_count, hash_cap;
} tress_asset_store;

/* Opens dir (must exist) and reads root/manifest.json when present:
 *   {"assets": {"meshes/bob.glb": {"mesh_hash": "<64 hex>"}, ...}}
 * where mesh_hash is tress_mesh_content_hash of the mesh. 0, or -1 with err. */
int tress_asset_store_open(tress_asset_store *store, const char *dir, char err[256]);
void tress_asset_store_close(tress_asset_store *store);

/* Pure syntax check of an id: TRESS_CODE_NONE, or ASSET_PATH_REJECTED for "", absolute paths,
 * "..", "." or empty components, backslashes, control bytes, or anything but [A-Za-z0-9._/-]. */
tress_wire_code tress_asset_id_check(const char *id);

/* Loop thread: does the store have the id (syntax ok; listed, when there is a manifest)? */
tress_wire_code tress_asset_store_has(const tress_asset_store *store, const char *id);
/* Loop thread: the content hash a load of id has produced (never just the manifest's claim, so a
 * stale manifest can not serve another mesh's rig from the cache). */
bool tress_asset_store_known_hash(const tress_asset_store *store, const char *id, uint8_t out[TRESS_MESH_HASH_BYTES]);
/* Loop thread: the manifest's mesh_hash for id, which a load must match. */
bool tress_asset_store_claimed_hash(const tress_asset_store *store, const char *id, uint8_t out[TRESS_MESH_HASH_BYTES]);
/* Loop thread: a load of id hashed to `hash` (ignored when it contradicts the manifest). */
void tress_asset_store_learn_hash(tress_asset_store *store, const char *id, const uint8_t hash[TRESS_MESH_HASH_BYTES]);

/* Any thread (reads only `root`): resolves id inside the store, following symlinks only while
 * they stay inside, and loads the mesh (.glb, .gltf, .obj) if it is at most max_bytes. NULL with
 * *code (UNKNOWN_ASSET, ASSET_PATH_REJECTED, TOO_LARGE, RIG_FAILED) and a reason. */
tress_mesh *tress_asset_store_load(const char *root, const char *id, uint64_t max_bytes, uint16_t *code,
                                   char reason[TRESS_WIRE_TEXT_CAP]);

#endif
