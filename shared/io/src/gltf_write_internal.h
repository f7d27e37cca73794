/* gltf_write_internal.h - what the glTF writer's files share: the growing binary buffer, its
 * accessors (gltf_write.c), and the animation a skinned mesh may carry (gltf_write_animation.c). */
#ifndef TRESS_GLTF_WRITE_INTERNAL_H
#define TRESS_GLTF_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "tress/gltf.h"

typedef struct gltf_bytes {
  uint8_t *data;
  size_t len, cap;
  bool oom;
} gltf_bytes;

/* Appends n bytes 4-byte aligned; returns their offset (0 and oom set when out of memory). */
size_t tress__gltf_bytes_put(gltf_bytes *b, const void *src, size_t n);
/* Appends a bufferView + accessor for count elements; returns the accessor index. */
int tress__gltf_add_accessor(cJSON *root, gltf_bytes *bin, const void *data, size_t elem_bytes, uint32_t count, int ctype,
                             const char *type, int target, bool normalized);
cJSON *tress__gltf_float_array(const float *v, int n);

/* Checks anim against m (0, or the error code with err filled), then adds its carrier node
 * (over every scene root but the mesh node) and its one animation. Nodes 1.. are m's bones. */
int tress__gltf_check_animation(const tress_mesh *m, const tress_gltf_animation *anim, tress_error *err);
void tress__gltf_add_animation(cJSON *root, gltf_bytes *bin, cJSON *scene_nodes, const tress_gltf_animation *anim);

#endif
