/* tress/collider.h - colliders that keep chain nodes and rope / cloth particles (of a given
 * radius) out of the head and shoulders (spheres, capsules), on one side of a plane, or within a
 * sphere or capsule: their definitions, world poses and per-chain sets. */
#ifndef TRESS_COLLIDER_H
#define TRESS_COLLIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/math.h"
#include "tress/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Shapes. Both are stored as a capsule: two end centres and a radius, in the local frame of the
 * part or bone they are attached to (so they follow the body). A sphere is a capsule whose two
 * end centres coincide, so one branch-free routine handles both and a level of nodes can test a
 * mix of them in one vectorized loop.
 *
 * The seed's form (a capsule along the node's own +Y, `height` = distance between its end
 * centres, centred on `offset`) and VRM 1.0's form (`offset` and `tail`, both end centres) both
 * reduce to this; see tress_collider_capsule_y().
 *
 * Order inside a substep (what the solver does per level, parents first): integrate,
 * stiffness, link constraint, then push: each node leaves every collider of its chain's set by
 * (collider radius + strand radius) to the nearest point that also keeps its rest length from
 * its already solved parent (the circle where the two spheres meet), so a strand rests on a
 * collider without sinking in and without stretching. When no such point exists (a collider
 * swallows the whole link) the node is pushed straight out and the link is restored after,
 * so the link always wins. The drop tests in tests/unit/test_collider.c check both. That is
 * the pose model's response (TRESS_SPRING_POSE). The VRM model (TRESS_SPRING_VRM) does what
 * VRMC_springBone and three-vrm do: for each collider in the set's order, a node found inside
 * is pushed straight out and its link length restored at once, so a later collider sees the
 * earlier one's result and a node may end the substep a little inside.
 */

/*
 * The extended shapes (VRMC_springBone_extended_collider): a plane keeps a node of radius r at
 * least r in front of it (on its normal's side); an inside sphere or capsule keeps the node
 * within (collider radius - r) of its centre or segment. They push with the same order and keep
 * the link the same way; ropes and cloth push their particles out (or in) with no link to keep.
 */
typedef enum tress_collider_shape {
  TRESS_COLLIDER_SPHERE = 0,
  TRESS_COLLIDER_CAPSULE,
  TRESS_COLLIDER_PLANE,          /* offset: a point on the plane; normal: the side nodes stay on */
  TRESS_COLLIDER_INSIDE_SPHERE,  /* nodes stay within radius of offset */
  TRESS_COLLIDER_INSIDE_CAPSULE, /* nodes stay within radius of the segment offset..tail */
} tress_collider_shape;

/* "sphere", "capsule", "plane", "inside_sphere", "inside_capsule"; "unknown" otherwise. */
const char *tress_collider_shape_name(tress_collider_shape shape);
/* A capsule of either side: the shapes that read `tail`. */
static inline bool tress_collider_shape_is_capsule(tress_collider_shape s) {
  return s == TRESS_COLLIDER_CAPSULE || s == TRESS_COLLIDER_INSIDE_CAPSULE;
}

/* A collider definition: what an importer or a game sets up. */
typedef struct tress_collider_def {
  tress_collider_shape shape;
  tress_id attach; /* part or bone it follows; null = world space */
  float offset[3]; /* sphere centre, or a capsule's first end centre, in attach's frame */
  float tail[3];   /* a capsule's second end centre in attach's frame (ignored for a sphere) */
  float radius;    /* units, >= 0 (a plane ignores it) */
  float normal[3]; /* a plane's normal in attach's frame, any length > 0 (default +Z, as VRM's) */
} tress_collider_def;

/* Sphere of radius 10 at the attach frame's origin (the seed's default). */
tress_collider_def tress_default_collider_def(void);
/* The seed's capsule: along attach's local +Y, centred on offset, end centres `height` apart. */
tress_collider_def tress_collider_capsule_y(tress_id attach, const float offset[3], float height, float radius);
/* Distance between the end centres (0 for a sphere). */
float tress_collider_def_get_height(const tress_collider_def *def);
/* A plane through offset (attach's frame) facing `normal`. */
tress_collider_def tress_collider_plane(tress_id attach, const float offset[3], const float normal[3]);
/* False for a negative or non-finite radius, non-finite offsets, a capsule with no length, a
 * plane with no normal, or a shape not listed. */
bool tress_collider_def_is_valid(const tress_collider_def *def);

/* A collider resolved to world space for one frame: end centres a, b and radius (a sphere has
 * a == b). A plane: a is its point, b its unit normal, radius 0. A zero-initialised shape is
 * an (outside) sphere or capsule. */
typedef struct tress_collider_world {
  float ax, ay, az;
  float bx, by, bz;
  float radius;
  tress_collider_shape shape;
} tress_collider_world;

/* World pose of def through its attach instance's drawn pose (tress_instance_get_world). A stale
 * attach id resolves as world space. */
tress_collider_world tress_collider_resolve(const tress_scene *scene, const tress_collider_def *def);
/* Same, from an already known world frame of the attach instance. */
tress_collider_world tress_collider_resolve_in(tress_xform frame, const tress_collider_def *def);

/* A chain's collider set: indices into the caller's collider array. Hair lists the head, a tail
 * lists nothing; an empty set costs nothing. */
#define TRESS_COLLIDER_SET_MAX 32
typedef struct tress_collider_set {
  uint32_t count;
  uint16_t index[TRESS_COLLIDER_SET_MAX];
} tress_collider_set;

/* Adds index to the set; false when full or already there. */
bool tress_collider_set_add(tress_collider_set *set, uint16_t index);

#ifdef __cplusplus
}
#endif

#endif
