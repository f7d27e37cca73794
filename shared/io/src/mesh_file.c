/* mesh_file.c - one loader for every mesh format, picked by the file's extension. */
#include "tress/mesh_file.h"

#include <strings.h>
#include <string.h>

#include "tress/gltf.h"
#include "tress/obj.h"

tress_mesh *tress_mesh_file_load(const char *path, tress_error *err) {
  const char *dot = strrchr(path, '.');
  if (dot && strcasecmp(dot, ".obj") == 0) return tress_obj_load(path, err);
  return tress_gltf_load(path, err);
}
