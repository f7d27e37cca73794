/* gltf_source_internal.h - the fields of a tress_gltf_source, shared by gltf_source.c (fills
 * them) and gltf_write.c (writes them into the output). Not a public header. */
#ifndef TRESS_GLTF_SOURCE_INTERNAL_H
#define TRESS_GLTF_SOURCE_INTERNAL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/gltf_source.h"

struct tress_gltf_source {
  char *copyright;
  cJSON *materials, *textures, *images, *samplers; /* copies; NULL when absent */
  cJSON *extensions;                               /* extensionsUsed entries the copies use */
  uint8_t **image_bytes;                           /* per image: its bytes (from a bufferView or its uri) */
  size_t *image_sizes;
  int material;       /* the first primitive's material (for a mesh without submeshes), -1 none */
  int mesh_index;     /* the skinned node's mesh, -1 none */
  bool skinned;
  float placement[16], mesh_node[16];
  char warning[512];
};

#endif
