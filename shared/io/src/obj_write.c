/* obj_write.c - plain Wavefront OBJ writer (positions, normals, uvs, triangles, usemtl per
 * submesh) for samples. */
#include "tress/obj.h"

#include <stdio.h>

#include "tress/result.h"

/* "usemtl NAME": control characters (a newline would start a statement of its own) become '_'. */
static void write_usemtl(FILE *f, const tress_mesh_submesh *sub) {
  if (!sub->material_name[0]) {
    if (sub->material >= 0) fprintf(f, "usemtl material_%d\n", (int)sub->material);
    return;
  }
  fputs("usemtl ", f);
  for (const char *c = sub->material_name; *c; c++) fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '_' : *c, f);
  fputc('\n', f);
}

int tress_obj_write(const tress_mesh *m, const char *path, tress_error *err) {
  if (!m || m->vertex_count == 0) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "nothing to write");
  FILE *f = fopen(path, "w");
  if (!f) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "cannot write %.150s", path);
  fprintf(f, "# tress sample mesh: %u vertices\n", m->vertex_count);
  for (uint32_t v = 0; v < m->vertex_count; v++)
    fprintf(f, "v %.6g %.6g %.6g\n", m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
  /* v flipped back to OBJ's bottom-up convention (obj_read.c flips it to glTF's). */
  for (uint32_t v = 0; m->uvs && v < m->vertex_count; v++) fprintf(f, "vt %.6g %.6g\n", m->uvs[2 * v], 1.0f - m->uvs[2 * v + 1]);
  for (uint32_t v = 0; m->normals && v < m->vertex_count; v++)
    fprintf(f, "vn %.6g %.6g %.6g\n", m->normals[3 * v], m->normals[3 * v + 1], m->normals[3 * v + 2]);
  uint32_t count = m->indices ? m->index_count : m->vertex_count, run = 0;
  for (uint32_t t = 0; t + 2 < count; t += 3) {
    for (; run < m->submesh_count && m->submeshes[run].first_index <= t; run++) write_usemtl(f, &m->submeshes[run]);
    fputc('f', f);
    for (int k = 0; k < 3; k++) {
      uint32_t i = (m->indices ? m->indices[t + (uint32_t)k] : t + (uint32_t)k) + 1;
      if (m->uvs && m->normals) fprintf(f, " %u/%u/%u", i, i, i);
      else if (m->normals) fprintf(f, " %u//%u", i, i);
      else if (m->uvs) fprintf(f, " %u/%u", i, i);
      else fprintf(f, " %u", i);
    }
    fputc('\n', f);
  }
  if (fclose(f) != 0) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "cannot write %.150s", path);
  return 0;
}
