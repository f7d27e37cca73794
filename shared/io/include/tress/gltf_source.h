/* tress/gltf_source.h - what a rewrite of a glTF file carries over from the file it read: the
 * materials, textures, images (their bytes included), samplers and asset.copyright, and for a
 * skinned mesh its bind placement (where a viewer shows the mesh in its bind pose) and its mesh
 * node's transform, so a re-rigged file looks the same. Which material each primitive drew with
 * travels in the mesh itself (tress_mesh submeshes, kept by the reader and the rigger). */
#ifndef TRESS_GLTF_SOURCE_H
#define TRESS_GLTF_SOURCE_H

#include <stdbool.h>

#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tress_gltf_source tress_gltf_source;

/* Reads path (.glb or .gltf, by content). NULL with err (may be NULL) filled when the file cannot
 * be read or parsed. Every image's bytes are read and carried, whether in a bufferView, a data:
 * URI or an external file (uri "tex.png"): the writer embeds them in the output's buffer, so a
 * .glb and a .gltf output both stand alone. An external image or buffer is read under the mesh
 * reader's rules (tress/gltf.h tress_gltf_read_opts): a relative URI with no "..", resolving
 * (symlinks followed) to a regular file beneath the input's folder. When an image cannot be
 * carried (outside the folder, missing, not PNG / JPEG / WebP / KTX2 and no mimeType), the
 * materials, textures, images and samplers are all left out and tress_gltf_source_get_warning
 * says why. */
tress_gltf_source *tress_gltf_source_load(const char *path, tress_error *err);
/* The same with a read's limits (opts NULL = the defaults): root_dir confines external files to
 * a store root instead of the input's folder, max_bytes counts the file and every buffer and
 * image it loads. */
struct tress_gltf_read_opts;
tress_gltf_source *tress_gltf_source_load_opts(const char *path, const struct tress_gltf_read_opts *opts, tress_error *err);
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
