/* tress/mesh_file.h - load a mesh from a file of any supported format (.glb, .gltf, .obj),
 * chosen by extension, so tools and the server's asset store share one entry point. */
#ifndef TRESS_MESH_FILE_H
#define TRESS_MESH_FILE_H

#include "tress/result.h"
#include "tress/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ".obj" (any case) reads OBJ; anything else is read as glTF (binary or JSON by content).
 * NULL with err (may be NULL) filled when the file cannot be read. */
tress_mesh *tress_mesh_file_load(const char *path, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
