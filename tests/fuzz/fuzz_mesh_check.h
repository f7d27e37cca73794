/* fuzz_mesh_check.h - what every mesh a reader returns must satisfy, whatever the file said:
 * indices name vertices, bones' parents name earlier-or-other bones, joints name bones. A reader
 * that returns a mesh breaking these would hand the rigger out-of-bounds reads. */
#ifndef TRESS_FUZZ_MESH_CHECK_H
#define TRESS_FUZZ_MESH_CHECK_H

#include <stdlib.h>

#include "tress/mesh.h"

static inline void fuzz_check_mesh(const tress_mesh *m) {
  if (!m->positions && m->vertex_count) abort();
  if (m->index_count % 3 != 0) abort();
  for (uint32_t i = 0; i < m->index_count && m->indices; i++)
    if (m->indices[i] >= m->vertex_count) abort();
  for (uint32_t b = 0; b < m->bone_count; b++)
    if (m->bones[b].parent < -1 || m->bones[b].parent >= (int32_t)m->bone_count) abort();
  for (uint32_t v = 0; m->joints && v < 4 * m->vertex_count; v++)
    if (m->weights[v] > 0 && m->joints[v] >= m->bone_count) abort();
  float lo[3], hi[3];
  (void)tress_mesh_get_bounds(m, lo, hi);
}

#endif
