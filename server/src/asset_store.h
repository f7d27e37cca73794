/* asset_store.h - the directory of meshes the server owns, addressed by asset id. An id can
 * never name a path outside the store; "the store has it" is the rigger's permission gate. */
#ifndef TRESS_SERVER_ASSET_STORE_H
#define TRESS_SERVER_ASSET_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tress/mesh.h"
#include "tress/mesh_hash.h"
#include "tress/msg.h"

/* What one stat() says about an asset file: if any field differs from the stat taken before the
 * last read, the file may hold other content. ctime and mode ride along for free: ctime moves on
 * every write even when mtime is set back (touch -r, cp -p), mode on a chmod. */
typedef struct tress_asset_file_id {
  uint64_t dev, ino;
  int64_t size;
  struct timespec mtime, ctime;
  uint32_t mode;
} tress_asset_file_id;

typedef struct tress_asset_hash {
  char id[TRESS_WIRE_TEXT_CAP];
  uint8_t hash[TRESS_MESH_HASH_BYTES];
  bool listed;   /* named by the manifest */
  bool claimed;  /* the manifest gives a mesh_hash (in `hash`) that loads must match */
  bool verified; /* `hash` is what a load of this id actually hashed to */
  bool was_read; /* a load succeeded once: a later missing file was deleted, not never there */
  tress_asset_file_id file; /* the stat taken just before the read that produced `hash` */
} tress_asset_hash;

typedef struct tress_asset_store {
  char root[PATH_MAX]; /* realpath of the store directory */
  bool has_manifest;   /* root/manifest.json exists: only listed ids are in the store */
  tress_asset_hash *hashes;
  uint32_t hash_count, hash_cap;
} tress_asset_store;

/* Opens dir (must exist) and reads root/manifest.json when present:
 *   {"assets": {"meshes/bob.glb": {"mesh_hash": "<64 hex>"}, ...}}
 * where mesh_hash is tress_mesh_get_content_hash of the mesh. 0, or -1 with err. */
int tress_asset_store_open(tress_asset_store *store, const char *dir, char err[256]);
/* The manifest.json part of open: parses text (named `path` in errors) into store's listed ids
 * and claimed hashes. 0, or -1 with err (the store is then closed). */
int tress_asset_store_parse_manifest(tress_asset_store *store, const char *text, size_t len, const char *path,
                                     char err[256]);
void tress_asset_store_close(tress_asset_store *store);

/* Loop thread: does the store have the id (syntax ok; listed, when there is a manifest)? */
tress_wire_code tress_asset_store_has(const tress_asset_store *store, const char *id);
/* Loop thread, once per rig request of an id the store has: one stat() of root/id (following
 * symlinks; the worker's realpath check still decides whether the target is inside the store).
 * TRESS_CODE_NONE with *now filled, or UNKNOWN_ASSET / RIG_FAILED with a reason that says
 * whether the file was deleted since it was last read, never existed, or is not a file. */
tress_wire_code tress_asset_store_stat(const tress_asset_store *store, const char *id, tress_asset_file_id *now,
                                       char reason[TRESS_WIRE_TEXT_CAP]);
bool tress_asset_file_id_equal(const tress_asset_file_id *a, const tress_asset_file_id *b);
/* Loop thread: the content hash a load of id has produced (never just the manifest's claim, so a
 * stale manifest can not serve another mesh's rig from the cache), and only while the file is
 * still the one that load read (`now` equals the stat taken before it); else false: re-read.
 * *changed (may be NULL) says a hash was known but the file differs from the one it was read from. */
bool tress_asset_store_known_hash(const tress_asset_store *store, const char *id, const tress_asset_file_id *now,
                                  uint8_t out[TRESS_MESH_HASH_BYTES], bool *changed);
/* Loop thread: the manifest's mesh_hash for id, which a load must match. */
bool tress_asset_store_claimed_hash(const tress_asset_store *store, const char *id, uint8_t out[TRESS_MESH_HASH_BYTES]);
/* Loop thread: a load of id, of the file `file` describes, hashed to `hash` (ignored when it
 * contradicts the manifest). */
void tress_asset_store_learn_hash(tress_asset_store *store, const char *id, const uint8_t hash[TRESS_MESH_HASH_BYTES],
                                  const tress_asset_file_id *file);

/* What one asset load may cost. */
typedef struct tress_asset_load_limits {
  uint64_t max_bytes;    /* the file and every external buffer it loads, together */
  uint32_t max_vertices; /* after sparse expansion and instancing, before rigging (0 = the reader's default) */
} tress_asset_load_limits;

/* Any thread (reads only `root`): resolves id inside the store, following symlinks only while
 * they stay inside, and loads the mesh (.glb, .gltf, .obj) within limits. A glTF's external
 * buffers must resolve (symlinks followed) to regular files inside the store too, and count
 * against max_bytes before they are read. *file is the stat taken before the read (so a write
 * during the read shows as a change next time). NULL with *code (UNKNOWN_ASSET,
 * ASSET_PATH_REJECTED, TOO_LARGE, RIG_FAILED) and a reason: deleted, not a file, empty, not
 * readable, does not load. Reasons name store-relative paths only, never root. */
tress_mesh *tress_asset_store_load(const char *root, const char *id, const tress_asset_load_limits *limits,
                                   tress_asset_file_id *file, uint16_t *code, char reason[TRESS_WIRE_TEXT_CAP]);

#endif
