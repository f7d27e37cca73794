/* tress/pose.h - the game's animated skeleton into a scene every frame, in bulk: a name-to-index
 * map built once per character, then one call per frame copying poses (no lookup, no allocation).
 *
 * What a pose means (docs/ENGINES.md has the engine-by-engine mapping):
 * - a part's pose is its frame relative to the `root` passed to tress_pose_map_apply (identity:
 *   world space). The sim reads part frames every step, so whatever hangs from a part (bones of a
 *   rigged Handle, accessories through their joints) follows it.
 * - a bone's pose goes into its `animated` slot (the animation input; `transform` stays the
 *   solver's output). TRESS_BONE_POSE_ANIMATED takes the value as is: an extra transform after the
 *   bone's rest `cframe`. TRESS_BONE_POSE_LOCAL takes the bone's full frame relative to its parent
 *   (rest included, as Unity's localPosition/localRotation or Godot's get_bone_pose give it) and
 *   stores cframe^-1 * pose.
 * One instance at a time needs no map: tress_part_set_cframe and tress_bone_set_animated
 * (tress/scene.h) are the by-id inputs. */
#ifndef TRESS_POSE_H
#define TRESS_POSE_H

#include <stddef.h>
#include <stdint.h>

#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tress_bone_pose_space {
  TRESS_BONE_POSE_ANIMATED = 0, /* the animated slot itself: applied after the rest cframe */
  TRESS_BONE_POSE_LOCAL,        /* relative to the parent part or bone, rest included */
} tress_bone_pose_space;

const char *tress_bone_pose_space_name(tress_bone_pose_space space); /* "animated", "local"; "unknown" */

/* The game's pose array, read in place: entry i's position is the 3 floats at
 * positions + i * position_stride bytes, its rotation the 4 floats (x y z w) at
 * rotations + i * rotation_stride bytes. A stride of 0 means tightly packed (12 and 16 bytes),
 * so an array of {float p[3]; float q[4]; ...} structs passes with both strides = its size. */
typedef struct tress_pose_array {
  const float *positions;
  const float *rotations;
  size_t position_stride;
  size_t rotation_stride;
  uint32_t count; /* entries in the arrays; at least the map's name count */
} tress_pose_array;

/* Entry i (i < count, unchecked), rotation normalized; false when it is not finite or its
 * rotation has no length. */
bool tress_pose_array_get(const tress_pose_array *poses, uint32_t i, tress_xform *out);

typedef struct tress_pose_map tress_pose_map;

/*
 * names[i] is the name of the game's entry i. A name resolves among the descendants of model
 * (pre-order, first match) to a part or a bone; "A/B" looks for B under the first A, so
 * "Hair/HairRoot" tells two hair accessories' roots apart. Names that match nothing are
 * skipped every frame (a game skeleton has more bones than tress needs).
 */
typedef struct tress_pose_map_def {
  tress_scene *scene;
  tress_id model;
  const char *const *names; /* copied */
  uint32_t count;
  tress_bone_pose_space bone_space; /* TRESS_BONE_POSE_ANIMATED */
} tress_pose_map_def;

tress_pose_map_def tress_default_pose_map_def(void);

/* NULL on a bad def (no scene, stale model, names NULL with count > 0) or out of memory. */
tress_pose_map *tress_pose_map_create(const tress_pose_map_def *def);
void tress_pose_map_destroy(tress_pose_map *map);
/* Resolves the names again (after bones were added or removed under the model). No allocation. */
void tress_pose_map_refresh(tress_pose_map *map);
/* How many names matched a part or a bone. */
uint32_t tress_pose_map_get_matched_count(const tress_pose_map *map);
/* The instance name i resolved to (null when it matched nothing or i is out of range). */
tress_id tress_pose_map_get_instance(const tress_pose_map *map, uint32_t i);

/* Copies every matched entry into the scene: parts get root * pose, bones their animated slot.
 * Rotations are normalized; a non-finite entry is skipped (that instance keeps its last pose).
 * TRESS_ERR_INVALID_ARGUMENT when poses->count is below the map's count or an array is NULL;
 * TRESS_ERR_STALE_ID when the model left the scene. Allocates nothing. */
tress_result tress_pose_map_apply(tress_pose_map *map, tress_xform root, const tress_pose_array *poses);

#ifdef __cplusplus
}
#endif

#endif
