/* mesh_file.c - one loader and one writer for every mesh format, picked by the file's extension. */
#include "tress/mesh_file.h"

#include <strings.h>
#include <string.h>

#include "tress/gltf.h"
#include "tress/obj.h"

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n >= e && strcasecmp(path + n - e, ext) == 0;
}

tress_mesh *tress_mesh_file_load(const char *path, tress_error *err) {
  if (has_ext(path, ".obj")) return tress_obj_load(path, err);
  return tress_gltf_load(path, err);
}

const char *tress_mesh_file_output_problem(const char *path, bool skinned) {
  if (has_ext(path, ".glb") || has_ext(path, ".gltf")) return NULL;
  if (has_ext(path, ".obj")) return skinned ? "OBJ cannot hold bones or skin weights; write a .glb or .gltf" : NULL;
  return "the output must end in .glb (binary glTF), .gltf (glTF JSON with embedded buffers) or .obj (no skin)";
}

int tress_mesh_file_write(const tress_mesh *mesh, const char *path, tress_error *err) {
  return tress_mesh_file_write_from(mesh, NULL, path, err);
}

int tress_mesh_file_write_from(const tress_mesh *mesh, const tress_gltf_source *source, const char *path, tress_error *err) {
  const char *problem = tress_mesh_file_output_problem(path, tress_mesh_is_skinned(mesh));
  if (problem) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%.150s: %s", path, problem);
  if (has_ext(path, ".obj")) return tress_obj_write(mesh, path, err);
  if (has_ext(path, ".gltf")) return tress_gltf_write_gltf_from(mesh, source, path, err);
  return tress_gltf_write_glb_from(mesh, source, path, err);
}
