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

/* Each distinct v/vt/vn corner becomes one mesh vertex. Normals (uvs) are kept only when every
 * corner has one. Other statements (o, g, s, usemtl, mtllib, l, p, #) are ignored. Returns NULL
 * with err (may be NULL) filled for an index out of range, a face with < 3 corners, a bad number, no faces. */
tress_mesh *tress_obj_read_memory(const char *text, size_t size, tress_error *err);
tress_mesh *tress_obj_load(const char *path, tress_error *err);

/* Writes v (+ vn, vt) and triangle faces. Skins are not representable in OBJ and are dropped.
 * Returns 0, or the error code with err (may be NULL) filled. */
int tress_obj_write(const tress_mesh *mesh, const char *path, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
