/* tress/gltf.h - glTF 2.0 mesh I/O on cJSON: read .glb / .gltf (external or data: buffers, skins
 * included) into a tress_mesh, and write a mesh (skinned or not) as a self-contained .glb or .gltf. */
#ifndef TRESS_GLTF_H
#define TRESS_GLTF_H

#include <stddef.h>
#include <stdint.h>

#include "tress/result.h"
#include "tress/mesh.h"
#include "tress/gltf_source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inputs larger than this are refused before parsing (a hair mesh is a few MB at most). */
#define TRESS_GLTF_MAX_FILE_BYTES (512u * 1024u * 1024u)

/* The reader's output is capped by default (a hair mesh is ~100 k vertices; the cap also stops a
 * small file from expanding a sparse accessor, or instancing one mesh, into gigabytes). */
#define TRESS_GLTF_MAX_VERTICES (1u << 22)
#define TRESS_GLTF_MAX_INDICES (1u << 24)
#define TRESS_GLTF_MAX_JOINTS 65535u
/* Material runs (tress_mesh_submesh) one read keeps: adjacent primitives with the same material
 * are one run, so only a scene that changes material this often is refused. */
#define TRESS_GLTF_MAX_SUBMESHES 4096u

/* What a read may load and make. Every limit is checked before the memory it guards is
 * allocated: bytes before a buffer is read or decoded, vertex / index counts per accessor before
 * a sparse accessor is expanded and in total (after instancing) before the mesh is made, joints
 * before a skin is read. */
typedef struct tress_gltf_read_opts {
  /* External buffer URIs are relative to the file (tress_gltf_load) or to base_dir
   * (tress_gltf_read_memory; NULL = the current directory) and must resolve, symlinks followed,
   * to a regular file beneath root_dir (NULL = that same directory). Error texts name the URI as
   * written, never a resolved path. */
  const char *base_dir;
  const char *root_dir;
  uint64_t max_bytes;    /* the input and every buffer it loads, together (TRESS_GLTF_MAX_FILE_BYTES) */
  uint32_t max_vertices; /* TRESS_GLTF_MAX_VERTICES */
  uint32_t max_indices;  /* TRESS_GLTF_MAX_INDICES */
  uint32_t max_joints;   /* TRESS_GLTF_MAX_JOINTS */
} tress_gltf_read_opts;

tress_gltf_read_opts tress_default_gltf_read_opts(void);

/* Reads "the mesh" of the file's default scene ("scene", else scenes[0], else every root node)
 * as one tress_mesh of triangle primitives, each primitive (instance) a run of the mesh's
 * submeshes with its material index and name (adjacent runs of one material merged); a
 * primitive's material must exist in materials[]:
 *   - if a node of the scene has a skin, the first such node's mesh alone, as stored: per the
 *     glTF spec a skinned mesh is placed by its joints, not its node, so its node transform is
 *     ignored. The skin comes back as bones (node names, parents from the node tree, bind
 *     positions from the inverse bind matrices) with JOINTS_0 / WEIGHTS_0;
 *   - otherwise every node of the scene that instances a mesh contributes that mesh in world
 *     space (positions by the node's world matrix, TRS or matrix composed down from the root;
 *     normals by its inverse-transpose, renormalised; a mirroring matrix reverses each
 *     triangle's winding so faces keep facing out). A mesh instanced by n nodes gives n copies,
 *     in depth-first document order of the scene tree. An untransformed mesh is copied bit for
 *     bit;
 *   - a file with no node instancing a mesh: mesh 0, as stored.
 * Sparse accessors are expanded (over their bufferView or over zeros). Every accessor, view and
 * buffer range and every sparse index is checked; a file that lies yields NULL and err (may be
 * NULL) says why. External buffers resolve relative to base_dir (NULL = current directory) and may not
 * leave it (no absolute paths, no "..", no schemes, no symlink out of it); default limits. */
tress_mesh *tress_gltf_read_memory(const uint8_t *data, size_t size, const char *base_dir, tress_error *err);
/* Loads a .glb or .gltf file (detected by content, not name); default limits. */
tress_mesh *tress_gltf_load(const char *path, tress_error *err);
/* The same with the caller's limits (opts NULL = the defaults). */
tress_mesh *tress_gltf_read_memory_opts(const uint8_t *data, size_t size, const tress_gltf_read_opts *opts, tress_error *err);
tress_mesh *tress_gltf_load_opts(const char *path, const tress_gltf_read_opts *opts, tress_error *err);

/* Writes a .glb: one triangle primitive per submesh (a mesh without submeshes is one), all over
 * the same vertex accessors, each with its own indices; POSITION (with min/max), NORMAL and
 * TEXCOORD_0 when present, and for
 * a skinned mesh JOINTS_0 (UNSIGNED_BYTE up to 256 bones, else UNSIGNED_SHORT), WEIGHTS_0
 * (FLOAT), a skin with inverse bind matrices and one node per bone in the bone hierarchy.
 * Returns 0, or the error code with err (may be NULL) filled. *out is malloc'd; the caller frees it. */
int tress_gltf_write_glb_memory(const tress_mesh *mesh, uint8_t **out, size_t *out_size, tress_error *err);
int tress_gltf_write_glb(const tress_mesh *mesh, const char *path, tress_error *err);

/* The same document as JSON (.gltf) with its one buffer embedded as a base64 data: URI, so the
 * file stands alone. *out is a malloc'd, NUL-terminated string of *out_size bytes. */
int tress_gltf_write_gltf_memory(const tress_mesh *mesh, char **out, size_t *out_size, tress_error *err);
int tress_gltf_write_gltf(const tress_mesh *mesh, const char *path, tress_error *err);

/* Without a source, a submesh with a material gets a plain material named as it was (one per
 * distinct material index), so OBJ usemtl groups stay separate, named slots. */

/* The same, carrying what source (may be NULL) holds from the file the mesh was read from:
 * asset.copyright, materials, textures, samplers and images (every image's bytes in the output's
 * buffer with its mimeType, external and data: images included, so .glb and .gltf outputs both
 * stand alone), each submesh's primitive naming its source material by the source's index (a
 * mesh without submeshes: the source's first primitive's); for a skinned source, its mesh node's
 * matrix and a "Skeleton" node over the bones whose matrix is the source's bind placement, so
 * the file shows where the source showed. A source whose materials were left out (its warning
 * says why) writes plain named materials, as without one. */
int tress_gltf_write_glb_memory_from(const tress_mesh *mesh, const tress_gltf_source *source, uint8_t **out,
                                     size_t *out_size, tress_error *err);
int tress_gltf_write_gltf_memory_from(const tress_mesh *mesh, const tress_gltf_source *source, char **out,
                                      size_t *out_size, tress_error *err);
int tress_gltf_write_glb_from(const tress_mesh *mesh, const tress_gltf_source *source, const char *path, tress_error *err);
int tress_gltf_write_gltf_from(const tress_mesh *mesh, const tress_gltf_source *source, const char *path, tress_error *err);

/*
 * A skinned mesh with one animation (tress_gltf_write_glb_animated): LINEAR samplers over one
 * time accessor (frame k at k * frame_seconds, with min/max), a rotation channel per listed bone
 * (its node's local rotation, x y z w, normalized as written; every bone node keeps its bind
 * translation) and, when carrier_translations / carrier_rotations are set, a node named
 * carrier_name ("Carrier" when NULL) over every bone root (and the source's skeleton node) that
 * moves as they say: the head the hair hangs from. The mesh node stays a scene root.
 */
typedef struct tress_gltf_animation {
  const char *name;              /* NULL: "Animation" */
  uint32_t frame_count;          /* >= 2 */
  float frame_seconds;           /* > 0 */
  uint32_t channel_count;        /* rotation channels, at most one per bone */
  const uint32_t *bones;         /* channel c turns mesh bone bones[c] */
  const float *rotations;        /* channel_count x frame_count x 4: channel c's frame k at [4 (c frame_count + k)] */
  const char *carrier_name;
  const float *carrier_translations; /* NULL, or frame_count x 3 */
  const float *carrier_rotations;    /* NULL, or frame_count x 4 */
} tress_gltf_animation;

/* As tress_gltf_write_glb_memory_from (source may be NULL), with anim. A mesh without a skin, a
 * bone listed twice or out of range, too few frames or a non-finite value is refused
 * (TRESS_ERR_INVALID_ARGUMENT with err saying which). */
int tress_gltf_write_glb_memory_animated(const tress_mesh *mesh, const tress_gltf_source *source,
                                         const tress_gltf_animation *anim, uint8_t **out, size_t *out_size,
                                         tress_error *err);
int tress_gltf_write_glb_animated(const tress_mesh *mesh, const tress_gltf_source *source,
                                  const tress_gltf_animation *anim, const char *path, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
