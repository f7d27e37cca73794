/* rigged_mesh.h - the mesh fixtures of the file tests: rig a mesh and keep the skinned mesh the
 * rigger bakes, and assert two meshes are the same after a write and read back. Header-only. */
#ifndef TRESS_TEST_RIGGED_MESH_H
#define TRESS_TEST_RIGGED_MESH_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tress/mesh.h"
#include "tress/rig.h"

/* Rigs m with opts (the rig must succeed) and returns the baked skinned mesh, retained; m is
 * released. */
static inline tress_mesh *th_rig_and_keep(tress_mesh *m, const tress_rig_opts *opts) {
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(m, opts, &out, NULL), TRESS_RIG_OK);
  tress_mesh *baked = out.mesh;
  tress_mesh_retain(baked);
  tress_rig_output_free(&out);
  tress_mesh_release(m);
  return baked;
}

/* What a file keeps of a mesh: positions, indices and uvs to the bit, normals to 1e-5, and when
 * a is skinned its bones (names, parents, bind positions to 1e-5), weights and joints. */
static inline void th_assert_same_mesh(const tress_mesh *a, const tress_mesh *b) {
  assert_int_equal(a->vertex_count, b->vertex_count);
  assert_int_equal(a->index_count, b->index_count);
  assert_memory_equal(a->positions, b->positions, 12 * (size_t)a->vertex_count);
  assert_memory_equal(a->indices, b->indices, 4 * (size_t)a->index_count);
  assert_int_equal(a->normals != NULL, b->normals != NULL);
  for (size_t i = 0; a->normals && i < 3 * (size_t)a->vertex_count; i++) assert_float_equal(a->normals[i], b->normals[i], 1e-5f);
  assert_int_equal(a->uvs != NULL, b->uvs != NULL);
  if (a->uvs) assert_memory_equal(a->uvs, b->uvs, 8 * (size_t)a->vertex_count);
  assert_int_equal(tress_mesh_is_skinned(a), tress_mesh_is_skinned(b));
  if (!tress_mesh_is_skinned(a)) return;
  assert_int_equal(a->bone_count, b->bone_count);
  for (uint32_t j = 0; j < a->bone_count; j++) {
    assert_string_equal(a->bones[j].name, b->bones[j].name);
    assert_int_equal(a->bones[j].parent, b->bones[j].parent);
    for (int k = 0; k < 3; k++) assert_float_equal(a->bones[j].bind_pos[k], b->bones[j].bind_pos[k], 1e-5f);
  }
  for (size_t i = 0; i < 4 * (size_t)a->vertex_count; i++) {
    assert_true(a->weights[i] == b->weights[i]);
    if (a->weights[i] > 0.0f) assert_int_equal(a->joints[i], b->joints[i]);
  }
}

#endif
