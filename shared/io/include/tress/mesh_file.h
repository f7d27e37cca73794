/* tress/mesh_file.h - load or write a mesh in any supported format (.glb, .gltf, .obj), chosen
 * by extension, so tools and the server's asset store share one entry point. */
#ifndef TRESS_MESH_FILE_H
#define TRESS_MESH_FILE_H

#include <stdbool.h>

#include "tress/result.h"
#include "tress/mesh.h"
#include "tress/gltf_source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ".obj" (any case) reads OBJ; anything else is read as glTF (binary or JSON by content).
 * NULL with err (may be NULL) filled when the file cannot be read. */
tress_mesh *tress_mesh_file_load(const char *path, tress_error *err);

/* Why path cannot take a mesh (skinned or not), or NULL when it can: ".glb" and ".gltf" hold
 * anything, ".obj" only an unskinned mesh (OBJ has no skin), any other extension nothing. */
const char *tress_mesh_file_output_problem(const char *path, bool skinned);

/* Writes by extension: ".glb" binary glTF, ".gltf" glTF JSON with its buffer embedded (base64
 * data: URI), ".obj" OBJ. A mesh the extension cannot hold is refused, nothing written: returns
 * the error code with err (may be NULL) naming the problem; 0 on success. */
int tress_mesh_file_write(const tress_mesh *mesh, const char *path, tress_error *err);

/* The same, a glTF output carrying what source (may be NULL; tress/gltf_source.h) holds from the
 * file the mesh came from. OBJ carries nothing of it. */
int tress_mesh_file_write_from(const tress_mesh *mesh, const tress_gltf_source *source, const char *path, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
