/* rig_inputs.c - naming the actual problem with a mesh that cannot be rigged (rig_inputs.h). */
#include "rig_inputs.h"

#include <math.h>
#include <stdio.h>

static float extent(const float mn[3], const float mx[3]) {
  float d[3] = {mx[0] - mn[0], mx[1] - mn[1], mx[2] - mn[2]};
  return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static bool face_has_area(const float *a, const float *b, const float *c, float min_area2) {
  float e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  float x = e[1] * f[2] - e[2] * f[1], y = e[2] * f[0] - e[0] * f[2], z = e[0] * f[1] - e[1] * f[0];
  return x * x + y * y + z * z > min_area2;
}

bool tress__rig_mesh_is_degenerate(const tress_mesh *m, char *why, size_t cap) {
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  float size = extent(mn, mx);
  if (!(size > 0.0f)) return false; /* one point: rigs with a root given, else explain_no_depth says so */
  /* Only indexed faces are judged: a non-indexed mesh is also how callers hand the plan a bare
   * point cloud (strand samples in order), whose vertex triples are no faces. */
  uint32_t faces = m->indices ? m->index_count / 3 : 0;
  if (faces == 0) return false;
  /* Relative to the mesh's size, so units do not matter: twice the area under 1e-6 of size^2. */
  float min_area = 1e-6f * size * size, min_area2 = min_area * min_area;
  for (uint32_t t = 0; t < faces; t++) {
    uint32_t i0 = m->indices[3 * t], i1 = m->indices[3 * t + 1], i2 = m->indices[3 * t + 2];
    if (i0 >= m->vertex_count || i1 >= m->vertex_count || i2 >= m->vertex_count) continue;
    if (face_has_area(m->positions + 3 * (size_t)i0, m->positions + 3 * (size_t)i1, m->positions + 3 * (size_t)i2, min_area2))
      return false;
  }
  snprintf(why, cap, "%s %u face%s degenerate (zero area: collinear or coincident corners): the mesh has no surface to rig",
           faces == 1 ? "its" : "all its", faces, faces == 1 ? " is" : "s are");
  return true;
}

void tress__rig_explain_no_depth(const tress_mesh *m, const float axis_in[3], const float root[3], bool root_given,
                                 char *why, size_t cap) {
  float len = sqrtf(axis_in[0] * axis_in[0] + axis_in[1] * axis_in[1] + axis_in[2] * axis_in[2]);
  float axis[3] = {axis_in[0] / len, axis_in[1] / len, axis_in[2] / len};
  float lo = INFINITY, hi = -INFINITY;
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    const float *p = m->positions + 3 * (size_t)v;
    float t = p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2];
    lo = t < lo ? t : lo;
    hi = t > hi ? t : hi;
  }
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  if (!(extent(mn, mx) > 0.0f)) {
    if (m->vertex_count == 1) snprintf(why, cap, "the mesh's only vertex is at (%g, %g, %g): it has no extent to rig", mn[0], mn[1], mn[2]);
    else snprintf(why, cap, "all %u vertices are at one point (%g, %g, %g): the mesh has no extent to rig", m->vertex_count, mn[0], mn[1], mn[2]);
    return;
  }
  if (hi - lo <= 1e-6f * extent(mn, mx)) {
    snprintf(why, cap, "the mesh is flat across the growth axis (%g, %g, %g): it has no extent along it, so nothing hangs "
             "below the root; give the direction the hair grows (--axis)", axis[0], axis[1], axis[2]);
    return;
  }
  if (root_given) {
    snprintf(why, cap, "the root (%g, %g, %g) is past every vertex along the growth axis (%g, %g, %g): nothing hangs below it",
             root[0], root[1], root[2], axis[0], axis[1], axis[2]);
    return;
  }
  snprintf(why, cap, "no vertex lies below the root plane along the growth axis (%g, %g, %g)", axis[0], axis[1], axis[2]);
}
