/* rig_glb.h - the rigged meshes beside the rig cache: every rig the server makes is also kept as
 * "<cache_dir>/<64 hex key>.glb" (the skinned mesh, glTF binary), which the ops HTTP lists and
 * serves read-only to the live tuning page (client/web/). Any thread: plain files, no loop state. */
#ifndef TRESS_SERVER_RIG_GLB_H
#define TRESS_SERVER_RIG_GLB_H

#include <stddef.h>
#include <stdint.h>

#include "rig_cache.h"
#include "tress/mesh.h"

#define TRESS_RIG_GLB_ID_CHARS (2 * TRESS_RIG_KEY_BYTES)
/* What /rigs lists at most, and the largest file /rigs/<id>.glb serves. */
#define TRESS_RIG_GLB_LIST_MAX 1024u
#define TRESS_RIG_GLB_MAX_BYTES (64u << 20)

/* Writes the skinned mesh atomically. 0, or -1 (errno) when it cannot be encoded or written. */
int tress_rig_glb_write(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], const tress_mesh *mesh);
/* {"rigs": [{"id": "<64 hex>", "bytes": N}, ...]} sorted by id (malloc'd), or NULL (no memory).
 * A missing directory lists nothing. */
char *tress_rig_glb_list_json(const char *dir);
/* Whether text is an id /rigs lists: exactly 64 lower-case hex digits. */
int tress_rig_glb_id_is_valid(const char *text, size_t len);
/* The file of a valid id (malloc'd, *len set), or NULL: not an id, no such rig, too large. */
uint8_t *tress_rig_glb_read(const char *dir, const char *id, size_t id_len, size_t *len);

#endif
