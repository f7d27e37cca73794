/* tress/gltf_source.h - what a rewrite of a glTF file carries over from the file it read: the
 * materials, textures, images (their bytes included), samplers and asset.copyright, the material
 * the mesh's primitive used, and for a skinned mesh its bind placement (where a viewer shows the
 * mesh in its bind pose) and its mesh node's transform, so a re-rigged file looks the same. */
#ifndef TRESS_GLTF_SOURCE_H
#define TRESS_GLTF_SOURCE_H

#include <stdbool.h>

#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tress_gltf_source tress_gltf_source;

/* Reads path (.glb or .gltf, by content). NULL with err (may be NULL) filled when the file cannot
 * be read or parsed; parts that cannot be carried (an image in an external buffer) are left out
 * and named by tress_gltf_source_get_warning. */
tress_gltf_source *tress_gltf_source_load(const char *path, tress_error *err);
void tress_gltf_source_destroy(tress_gltf_source *source);

/* "" when everything was carried, else what was left out and why. */
const char *tress_gltf_source_get_warning(const tress_gltf_source *source);

/* The file's asset.copyright, or NULL. */
const char *tress_gltf_source_get_copyright(const tress_gltf_source *source);

/* How many materials / images it carries. */
int tress_gltf_source_get_material_count(const tress_gltf_source *source);
int tress_gltf_source_get_image_count(const tress_gltf_source *source);

/* For a file whose mesh is skinned: true, with m (column-major 4x4) the bind placement, the
 * world matrix of the skin's first joint at rest times its inverse bind matrix: where a viewer
 * puts the mesh's vertices in the rest pose. False for an unskinned file. */
bool tress_gltf_source_get_bind_placement(const tress_gltf_source *source, float m[16]);

/* The local matrix of the node that instances the skinned mesh (identity when unskinned). */
void tress_gltf_source_get_mesh_node_matrix(const tress_gltf_source *source, float m[16]);

#ifdef __cplusplus
}
#endif

#endif
