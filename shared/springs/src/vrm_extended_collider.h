/* vrm_extended_collider.h - VRMC_springBone_extended_collider-1.0 read from one VRMC_springBone
 * collider object (internal to springs; spring_import.c calls it per collider). */
#ifndef TRESS_VRM_EXTENDED_COLLIDER_H
#define TRESS_VRM_EXTENDED_COLLIDER_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "tress/collider.h"

/* The extension's shape in the collider node's frame, in the file's units (metres). */
typedef struct tress_vrm_extended_shape {
  tress_collider_shape shape;
  float offset[3];
  float tail[3];   /* capsules; equal to offset otherwise */
  float normal[3]; /* planes: unit length */
  float radius;    /* 0 for a plane */
} tress_vrm_extended_shape;

typedef enum tress_vrm_extended_status {
  TRESS_VRM_EXTENDED_ABSENT = 0, /* no extension: the collider's own shape is the one */
  TRESS_VRM_EXTENDED_READ,       /* *out holds the shape; the fallback is not used */
  TRESS_VRM_EXTENDED_UNUSABLE,   /* present but not usable (why says it): the fallback is used */
} tress_vrm_extended_status;

/* collider: an element of VRMC_springBone.colliders. As three-vrm's loader: specVersion must be
 * "1.0"; the shape is sphere, capsule or plane (the first present, in that order); missing
 * fields take the schema defaults (offset 0, radius 0, tail 0, normal +Z, inside false). A
 * capsule whose ends coincide becomes a sphere; a negative radius or a zero normal is unusable. */
tress_vrm_extended_status tress__vrm_read_extended_collider(const cJSON *collider, tress_vrm_extended_shape *out,
                                                            char *why, size_t why_size);

#endif
