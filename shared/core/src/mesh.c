/* mesh.c - mesh allocation, skin arrays, bounds and reference counting. */
#include "tress/mesh.h"

#include <stdlib.h>
#include <string.h>

tress_mesh_def tress_default_mesh_def(void) { return (tress_mesh_def){0}; }

tress_mesh *tress_mesh_create(const tress_mesh_def *def) {
  if (!def) return NULL;
  uint32_t vertex_count = def->vertex_count, index_count = def->index_count;
  bool normals = def->has_normals, uvs = def->has_uvs;
  tress_mesh *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->refcount = 1;
  m->vertex_count = vertex_count;
  m->index_count = index_count;
  size_t n = vertex_count ? vertex_count : 1;
  m->positions = calloc(3 * n, sizeof(float));
  if (normals) m->normals = calloc(3 * n, sizeof(float));
  if (uvs) m->uvs = calloc(2 * n, sizeof(float));
  if (index_count) m->indices = calloc(index_count, sizeof(uint32_t));
  if (!m->positions || (normals && !m->normals) || (uvs && !m->uvs) || (index_count && !m->indices)) {
    tress_mesh_release(m);
    return NULL;
  }
  return m;
}

bool tress_mesh_add_skin(tress_mesh *m, uint32_t bone_count) {
  size_t n = m->vertex_count ? m->vertex_count : 1;
  tress_mesh_bone *bones = calloc(bone_count ? bone_count : 1, sizeof *bones);
  uint16_t *joints = calloc(4 * n, sizeof(uint16_t));
  float *weights = calloc(4 * n, sizeof(float));
  if (!bones || !joints || !weights) {
    free(bones); free(joints); free(weights);
    return false;
  }
  free(m->bones); free(m->joints); free(m->weights);
  m->bones = bones; m->joints = joints; m->weights = weights;
  m->bone_count = bone_count;
  return true;
}

tress_result tress_mesh_set_submeshes(tress_mesh *m, const tress_mesh_submesh *subs, uint32_t count) {
  if (!m || (count && !subs)) return TRESS_ERR_INVALID_ARGUMENT;
  uint32_t total = m->indices ? m->index_count : m->vertex_count, at = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (subs[i].first_index != at || subs[i].index_count == 0 || subs[i].index_count % 3 || subs[i].index_count > total - at) return TRESS_ERR_INVALID_ARGUMENT;
    at += subs[i].index_count;
  }
  if (count && at != total) return TRESS_ERR_INVALID_ARGUMENT;
  tress_mesh_submesh *copy = NULL;
  if (count) {
    copy = malloc(sizeof *copy * count);
    if (!copy) return TRESS_ERR_OUT_OF_MEMORY;
    memcpy(copy, subs, sizeof *copy * count);
    for (uint32_t i = 0; i < count; i++) copy[i].material_name[TRESS_NAME_MAX - 1] = 0;
  }
  free(m->submeshes);
  m->submeshes = copy;
  m->submesh_count = count;
  return TRESS_OK;
}

tress_mesh *tress_mesh_clone(const tress_mesh *src) {
  tress_mesh_def mesh_def = {.vertex_count = src->vertex_count, .index_count = src->index_count,
                             .has_normals = src->normals != NULL, .has_uvs = src->uvs != NULL};
  tress_mesh *m = tress_mesh_create(&mesh_def);
  if (!m) return NULL;
  memcpy(m->positions, src->positions, 3 * sizeof(float) * src->vertex_count);
  if (src->normals) memcpy(m->normals, src->normals, 3 * sizeof(float) * src->vertex_count);
  if (src->uvs) memcpy(m->uvs, src->uvs, 2 * sizeof(float) * src->vertex_count);
  if (src->indices) memcpy(m->indices, src->indices, sizeof(uint32_t) * src->index_count);
  if (src->bones) {
    if (!tress_mesh_add_skin(m, src->bone_count)) {
      tress_mesh_release(m);
      return NULL;
    }
    memcpy(m->bones, src->bones, sizeof *m->bones * src->bone_count);
    memcpy(m->joints, src->joints, 4 * sizeof(uint16_t) * src->vertex_count);
    memcpy(m->weights, src->weights, 4 * sizeof(float) * src->vertex_count);
  }
  if (tress_mesh_set_submeshes(m, src->submeshes, src->submesh_count) != TRESS_OK) {
    tress_mesh_release(m);
    return NULL;
  }
  return m;
}

void tress_mesh_retain(tress_mesh *m) {
  if (m) m->refcount++;
}

void tress_mesh_release(tress_mesh *m) {
  if (!m || --m->refcount > 0) return;
  free(m->positions); free(m->normals); free(m->uvs); free(m->indices);
  free(m->bones); free(m->joints); free(m->weights);
  free(m->submeshes);
  free(m);
}

bool tress_mesh_is_skinned(const tress_mesh *m) {
  return m && m->bone_count > 0 && m->joints && m->weights;
}

bool tress_mesh_get_bounds(const tress_mesh *m, float mn[3], float mx[3]) {
  if (!m || m->vertex_count == 0) return false;
  for (int k = 0; k < 3; k++) mn[k] = mx[k] = m->positions[k];
  for (uint32_t i = 1; i < m->vertex_count; i++) {
    for (int k = 0; k < 3; k++) {
      float v = m->positions[3 * i + k];
      if (v < mn[k]) mn[k] = v;
      if (v > mx[k]) mx[k] = v;
    }
  }
  return true;
}

uint64_t tress_mesh_get_bytes(const tress_mesh *m) {
  if (!m) return 0;
  uint64_t n = m->vertex_count;
  uint64_t b = sizeof *m + 12 * n + m->index_count * 4ull;
  if (m->normals) b += 12 * n;
  if (m->uvs) b += 8 * n;
  if (m->bones) b += m->bone_count * sizeof *m->bones + n * (8 + 16);
  b += m->submesh_count * sizeof *m->submeshes;
  return b;
}
