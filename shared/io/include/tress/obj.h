/* tress/obj.h - Wavefront OBJ mesh I/O: v / vn / vt / f (polygons fan-triangulated, negative
 * indices allowed) read into a tress_mesh, and a plain writer for sample assets. */
#ifndef TRESS_OBJ_H
#define TRESS_OBJ_H

#include <stddef.h>
#include <stdint.h>

#include "tress/result.h"
#include "tress/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_OBJ_MAX_FILE_BYTES (256u * 1024u * 1024u)
/* Distinct usemtl names and material runs one read keeps (a hair mesh has a few of each). */
#define TRESS_OBJ_MAX_MATERIALS 256u
#define TRESS_OBJ_MAX_SUBMESHES 4096u

/* Each distinct v/vt/vn corner becomes one mesh vertex. Normals (uvs) are kept only when every
 * corner has one. usemtl groups become the mesh's submeshes (tress/mesh.h): material = the name's
 * order of first use, material_name = the name (cut to TRESS_NAME_MAX - 1 bytes); faces before
 * the first usemtl have no material; a file without usemtl has no submeshes. The .mtl file is
 * not read. Other statements (o, g, s, mtllib, l, p, #) are ignored. Returns NULL with err (may
 * be NULL) filled for an index out of range, a face with < 3 corners, a bad number, no faces,
 * more usemtl names or runs than the limits above. */
tress_mesh *tress_obj_read_memory(const char *text, size_t size, tress_error *err);
tress_mesh *tress_obj_load(const char *path, tress_error *err);

/* Writes v (+ vn, vt) and triangle faces, each submesh's faces after a "usemtl NAME" line (its
 * material_name, else material_N), no mtllib. Skins are not representable in OBJ and are dropped.
 * Returns 0, or the error code with err (may be NULL) filled. */
int tress_obj_write(const tress_mesh *mesh, const char *path, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
