/* tress/mesh.h - triangle meshes, optionally skinned, shared by reference count.
 * A part owns a reference to its mesh; a baked (skinned) mesh lives until its part is destroyed. */
#ifndef TRESS_MESH_H
#define TRESS_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/result.h"
#include "tress/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_MAX_INFLUENCES 4

typedef struct tress_mesh_bone {
  char name[TRESS_NAME_MAX];
  int32_t parent;      /* index into bones, -1 for a root */
  float bind_pos[3];   /* bind position in mesh space */
} tress_mesh_bone;

/* A run of the mesh's triangles drawn with one material: a glTF primitive, an OBJ usemtl group. */
typedef struct tress_mesh_submesh {
  uint32_t first_index; /* into indices (vertices for a non-indexed mesh); a multiple of 3 */
  uint32_t index_count; /* a non-zero multiple of 3 */
  int32_t material;     /* the source file's material index (glTF materials[], OBJ usemtl in order), -1 none */
  char material_name[TRESS_NAME_MAX]; /* "" when the source names none */
} tress_mesh_submesh;

struct tress_mesh {
  int32_t refcount;
  uint32_t vertex_count;
  uint32_t index_count;
  float *positions; /* 3 * vertex_count */
  float *normals;   /* 3 * vertex_count or NULL */
  float *uvs;       /* 2 * vertex_count or NULL */
  uint32_t *indices;/* index_count or NULL (non-indexed triangles) */
  /* Skin: present once baked. */
  uint32_t bone_count;
  tress_mesh_bone *bones;
  uint16_t *joints; /* 4 * vertex_count, unused slots 0 with weight 0 */
  float *weights;   /* 4 * vertex_count, summing to 1 per vertex */
  /* Material runs: submesh_count ranges covering the triangles in order, back to back; 0 (and
   * NULL) means one run over every triangle with no material. Rigging keeps them. */
  uint32_t submesh_count;
  tress_mesh_submesh *submeshes;
};

/* What a new mesh has room for. */
typedef struct tress_mesh_def {
  uint32_t vertex_count; /* 0 */
  uint32_t index_count;  /* 0: non-indexed triangles */
  bool has_normals;      /* false */
  bool has_uvs;          /* false */
} tress_mesh_def;

tress_mesh_def tress_default_mesh_def(void);
/* Allocates a mesh with room for def's counts (arrays zeroed); refcount 1. NULL for a NULL def
 * or when memory runs out. */
tress_mesh *tress_mesh_create(const tress_mesh_def *def);
/* Adds skin arrays for bone_count bones; returns false on allocation failure. */
bool tress_mesh_add_skin(tress_mesh *mesh, uint32_t bone_count);
/* Replaces the mesh's submeshes with a copy of count runs (0 clears them). TRESS_ERR_INVALID_ARGUMENT
 * unless they cover the triangles in order, back to back, each one or more whole triangles;
 * TRESS_ERR_OUT_OF_MEMORY. The mesh is unchanged on failure. */
tress_result tress_mesh_set_submeshes(tress_mesh *mesh, const tress_mesh_submesh *submeshes, uint32_t count);
tress_mesh *tress_mesh_clone(const tress_mesh *mesh);
void tress_mesh_retain(tress_mesh *mesh);
void tress_mesh_release(tress_mesh *mesh);
bool tress_mesh_is_skinned(const tress_mesh *mesh);
/* Axis-aligned bounds; false for an empty mesh. */
bool tress_mesh_get_bounds(const tress_mesh *mesh, float min[3], float max[3]);
/* Bytes the mesh holds on the heap (for memory budgets). */
uint64_t tress_mesh_get_bytes(const tress_mesh *mesh);

#ifdef __cplusplus
}
#endif

#endif
