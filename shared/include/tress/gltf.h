/* tress/gltf.h - glTF 2.0 mesh I/O on cJSON: read .glb / .gltf (external or data: buffers, skins
 * included) into a tress_mesh, and write a mesh (skinned or not) as a self-contained .glb. */
#ifndef TRESS_GLTF_H
#define TRESS_GLTF_H

#include <stddef.h>
#include <stdint.h>

#include "tress/mesh.h"

#define TRESS_GLTF_ERROR_MAX 200
/* Inputs larger than this are refused before parsing (a hair mesh is a few MB at most). */
#define TRESS_GLTF_MAX_FILE_BYTES (512u * 1024u * 1024u)

/* Reads the mesh of the first node that has one (the first skinned one if any; mesh 0 when the
 * file has no nodes), merging its triangle primitives into one mesh. Node transforms are not
 * applied: positions stay in mesh space, as the rigger wants. A skin on that node is read back
 * as bones (node names, parents from the node tree, bind positions from the inverse bind
 * matrices) with JOINTS_0 / WEIGHTS_0. Every accessor, view and buffer range is checked; a file
 * that lies yields NULL and a message in err. External buffers resolve relative to base_dir
 * (NULL = current directory) and may not leave it (no absolute paths, no "..", no schemes). */
tress_mesh *tress_gltf_read_memory(const uint8_t *data, size_t size, const char *base_dir, char err[TRESS_GLTF_ERROR_MAX]);
/* Loads a .glb or .gltf file (detected by content, not name). */
tress_mesh *tress_gltf_load(const char *path, char err[TRESS_GLTF_ERROR_MAX]);

/* Writes a .glb: POSITION (with min/max), NORMAL and TEXCOORD_0 when present, indices, and for
 * a skinned mesh JOINTS_0 (UNSIGNED_BYTE up to 256 bones, else UNSIGNED_SHORT), WEIGHTS_0
 * (FLOAT), a skin with inverse bind matrices and one node per bone in the bone hierarchy.
 * Returns 0, or -1 with err filled. *out is malloc'd; the caller frees it. */
int tress_gltf_write_glb_memory(const tress_mesh *mesh, uint8_t **out, size_t *out_size, char err[TRESS_GLTF_ERROR_MAX]);
int tress_gltf_write_glb(const tress_mesh *mesh, const char *path, char err[TRESS_GLTF_ERROR_MAX]);

#endif
