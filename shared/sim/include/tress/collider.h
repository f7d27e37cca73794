/* tress/collider.h - sphere and capsule colliders that keep chain nodes (strands of a given
 * radius) out of the head and shoulders, plus the per-node push-out the solver calls. */
#ifndef TRESS_COLLIDER_H
#define TRESS_COLLIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/math.h"
#include "tress/scene.h"

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
 * so the link always wins. The drop tests in tests/unit/test_collider.c check both.
 *
 * For the solver: keep one tress_collider_set per chain, resolve the colliders to world space
 * once per frame (tress_collider_resolve), fill one lane per set (tress_collider_lanes_gather
 * with set_of_node NULL), and after each level's link constraint call
 * tress_collider_push_level_sets with the level's node -> set map. Or gather per-node lanes
 * once per frame over all nodes and pass each level a tress_collider_lanes_view.
 */

typedef enum tress_collider_shape {
  TRESS_COLLIDER_SPHERE = 0,
  TRESS_COLLIDER_CAPSULE,
} tress_collider_shape;

/* A collider definition: what an importer or a game sets up. */
typedef struct tress_collider_def {
  tress_collider_shape shape;
  tress_id attach; /* part or bone it follows; null = world space */
  float offset[3]; /* sphere centre, or a capsule's first end centre, in attach's frame */
  float tail[3];   /* a capsule's second end centre in attach's frame (ignored for a sphere) */
  float radius;    /* units, >= 0 */
} tress_collider_def;

/* Sphere of radius 10 at the attach frame's origin (the seed's default). */
tress_collider_def tress_default_collider_def(void);
/* The seed's capsule: along attach's local +Y, centred on offset, end centres `height` apart. */
tress_collider_def tress_collider_capsule_y(tress_id attach, const float offset[3], float height, float radius);
/* Distance between the end centres (0 for a sphere). */
float tress_collider_height(const tress_collider_def *def);
/* False for a negative or non-finite radius, non-finite offsets, or a capsule with no length. */
bool tress_collider_def_valid(const tress_collider_def *def);

/* A collider resolved to world space for one frame: end centres a, b and radius. */
typedef struct tress_collider_world {
  float ax, ay, az;
  float bx, by, bz;
  float radius;
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

/* Scalar: pushes point p out of n world colliders by (collider radius + strand_radius), then
 * restores |p - parent| = rest_len (always, as the batch does). Returns true when a collider
 * moved the point. */
bool tress_collider_push_point(float p[3], const float parent[3], float rest_len, float strand_radius,
                               const tress_collider_world *colliders, uint32_t n);

/*
 * Batch over one depth level of nodes, structure of arrays. Node j's colliders are given slot
 * by slot: slot k of node j is at [k * stride + j] in ax..radius (stride >= count). A slot a
 * node does not use has radius TRESS_COLLIDER_UNUSED_RADIUS and never pushes, so nodes of
 * chains with different set sizes share one loop. Fill the lanes with
 * tress_collider_lanes_gather once per frame (colliders move with the body once per frame),
 * over all nodes at once, and pass each level a tress_collider_lanes_view.
 */
#define TRESS_COLLIDER_UNUSED_RADIUS (-1.0e30f)
typedef struct tress_collider_lanes {
  float *ax, *ay, *az, *bx, *by, *bz, *radius;
  uint32_t slots;    /* colliders tested per node (the widest set of the level) */
  uint32_t slot_cap; /* slots allocated */
  uint32_t stride;   /* floats from one slot to the next; capacity in nodes */
} tress_collider_lanes;

/* Allocates lanes for `slots` slots of `capacity` nodes (one allocation); false on failure. */
bool tress_collider_lanes_init(tress_collider_lanes *lanes, uint32_t slots, uint32_t capacity);
void tress_collider_lanes_free(tress_collider_lanes *lanes);
/* Fills slots for nodes [0, count): node j tests world[sets[set_of_node[j]].index[k]].
 * set_of_node may be NULL (node j uses sets[j]). A set index past set_count, or a collider
 * index past world_count, leaves the slot unused. lanes->slots is set to the widest set. */
void tress_collider_lanes_gather(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                                 const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                                 uint32_t count);

/* Lanes that start at node `first` of a larger block (same stride and slots): gather once per
 * frame over every node of the sim (nodes in level order), then hand each level a view at its
 * first node. A view shares the block; never free it. */
tress_collider_lanes tress_collider_lanes_view(const tress_collider_lanes *lanes, uint32_t first);

/* The vectorized routine: x/y/z are the level's node positions (updated in place), px/py/pz
 * the parents' positions gathered for the level, rest the link lengths, strand_radius the
 * per-node strand radius. Same result as tress_collider_push_point per node. */
void tress_collider_push_level(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                               const float *restrict py, const float *restrict pz, const float *restrict rest,
                               const float *restrict strand_radius, uint32_t count,
                               const tress_collider_lanes *lanes);

/*
 * The same push with no per-node copy of collider data: set_lanes holds one lane per collider
 * set (slot k of set s at [k * stride + s], filled once per frame with
 * tress_collider_lanes_gather(lanes, world, n, sets, set_count, NULL, set_count)), and node j
 * reads its set's lanes through set_of_node[j] (which must be < set_lanes->stride). The
 * math still vectorizes (the compiler emulates the indexed loads). This is the one the solver
 * should call: a chain (or a handle) owns one set, so the per-frame work is per set, not per
 * node. Same result as tress_collider_push_level.
 */
void tress_collider_push_level_sets(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                                    const float *restrict py, const float *restrict pz, const float *restrict rest,
                                    const float *restrict strand_radius, uint32_t count,
                                    const tress_collider_lanes *set_lanes, const uint32_t *restrict set_of_node);

#endif
