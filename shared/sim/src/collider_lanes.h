/* collider_lanes.h - the solver's collider push-out: the scalar reference, and the vectorized
 * per-level kernels over structure-of-arrays lanes that chains_frame.c calls. Internal to sim.
 *
 * What the push does (order inside a substep, the link always wins) is in tress/collider.h.
 *
 * For the solver: keep one tress_collider_set per chain, resolve the colliders to world space
 * once per frame (tress_collider_resolve), fill one lane per set (tress__collider_lanes_gather
 * with set_of_node NULL), and after each level's link constraint call
 * tress__collider_push_level_sets with the level's node -> set map. Or gather per-node lanes
 * once per frame over all nodes and pass each level a tress__collider_lanes_view.
 */
#ifndef TRESS_COLLIDER_LANES_H
#define TRESS_COLLIDER_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/collider.h"
#include "tress/sim.h"

_Static_assert(TRESS_CHAIN_COLLIDERS_MAX == TRESS_COLLIDER_SET_MAX, "a chain's colliders fit one collider set");

/* How a pushed node keeps its link (tress/collider.h): the pose model's nearest point on the
 * circle that keeps it, or the VRM model's push and restore, collider by collider. */
typedef enum tress_collider_response {
  TRESS_COLLIDER_KEEP_LINK = 0,
  TRESS_COLLIDER_PUSH_THEN_RESTORE,
} tress_collider_response;

/* Scalar: pushes point p out of (or into) n world colliders, keeping strand_radius clear, then
 * restores |p - parent| = rest_len (always, as the batch does). Returns true when a collider
 * had the point inside. */
bool tress__collider_push_point(float p[3], const float parent[3], float rest_len, float strand_radius,
                               const tress_collider_world *colliders, uint32_t n, tress_collider_response response);

/* Rope and cloth particles: each free one (inv_mass > 0) pushed straight out of (or into) the
 * n colliders in order, particle_radius kept clear. No link, no allocation. */
void tress__collider_push_free(float *restrict x, float *restrict y, float *restrict z, const float *restrict inv_mass,
                              uint32_t count, float particle_radius, const tress_collider_world *colliders,
                              uint32_t n);

/*
 * Batch over one depth level of nodes, structure of arrays. Node j's colliders are given slot
 * by slot: slot k of node j is at [k * stride + j] in ax..radius (stride >= count). A slot a
 * node does not use has radius TRESS_COLLIDER_UNUSED_RADIUS and never pushes, so nodes of
 * chains with different set sizes share one loop. Fill the lanes with
 * tress__collider_lanes_gather once per frame (colliders move with the body once per frame),
 * over all nodes at once, and pass each level a tress__collider_lanes_view.
 */
#define TRESS_COLLIDER_UNUSED_RADIUS (-1.0e30f)
typedef struct tress_collider_lanes {
  float *ax, *ay, *az, *bx, *by, *bz, *radius;
  float *shape; /* 0 outside (sphere, capsule), 1 inside, 2 plane (b holds its unit normal) */
  /* bit k: some node's slot k holds a plane or an inside shape (set by the gather); the push
   * runs the sphere/capsule-only kernels on the other slots, which cost what they did before
   * the new shapes and give the same bits. Slots past 31 always take the general kernels. */
  uint32_t shaped_slots;
  uint32_t capsule_slots; /* bit k: some node's slot k holds a segment (b != a); without it, spheres only */
  uint32_t slots;    /* colliders tested per node (the widest set of the level) */
  uint32_t slot_cap; /* slots allocated */
  uint32_t stride;   /* floats from one slot to the next; capacity in nodes */
} tress_collider_lanes;

/* Allocates lanes for `slots` slots of `capacity` nodes (one allocation); false on failure. */
bool tress__collider_lanes_init(tress_collider_lanes *lanes, uint32_t slots, uint32_t capacity);
void tress__collider_lanes_free(tress_collider_lanes *lanes);
/* Fills slots for nodes [0, count): node j tests world[sets[set_of_node[j]].index[k]].
 * set_of_node may be NULL (node j uses sets[j]). A set index past set_count, or a collider
 * index past world_count, leaves the slot unused. lanes->slots is set to the widest set. */
void tress__collider_lanes_gather(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                                 const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                                 uint32_t count);

/* The gather in parts, for running it on workers: the widest set over nodes [0, count) (capped
 * at slot_cap), then nodes [first, end) filled for `widest` slots, giving which slots (bit k, k
 * < 32) hold a shaped collider or a segment among those nodes. OR-ing every part's bits and
 * setting slots = widest gives what one gather of [0, count) gives. */
uint32_t tress__collider_lanes_widest(const tress_collider_lanes *lanes, const tress_collider_set *sets,
                                      uint32_t set_count, const uint32_t *set_of_node, uint32_t count);
void tress__collider_lanes_fill(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                               const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                               uint32_t first, uint32_t end, uint32_t widest, uint32_t *shaped_out,
                               uint32_t *capsules_out);

/* Lanes that start at node `first` of a larger block (same stride and slots): gather once per
 * frame over every node of the sim (nodes in level order), then hand each level a view at its
 * first node. A view shares the block; never free it. */
tress_collider_lanes tress__collider_lanes_view(const tress_collider_lanes *lanes, uint32_t first);

/* The vectorized routine: x/y/z are the level's node positions (updated in place), px/py/pz
 * the parents' positions gathered for the level, rest the link lengths, strand_radius the
 * per-node strand radius. Same result as tress__collider_push_point per node. */
void tress__collider_push_level(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                               const float *restrict py, const float *restrict pz, const float *restrict rest,
                               const float *restrict strand_radius, uint32_t count,
                               const tress_collider_lanes *lanes, tress_collider_response response);

/*
 * The same push with no per-node copy of collider data: set_lanes holds one lane per collider
 * set (slot k of set s at [k * stride + s], filled once per frame with
 * tress__collider_lanes_gather(lanes, world, n, sets, set_count, NULL, set_count)), and node j
 * reads its set's lanes through set_of_node[j] (which must be < set_lanes->stride). The
 * math still vectorizes (the compiler emulates the indexed loads). This is the one the solver
 * should call: a chain (or a handle) owns one set, so the per-frame work is per set, not per
 * node. Same result as tress__collider_push_level.
 */
void tress__collider_push_level_sets(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                                    const float *restrict py, const float *restrict pz, const float *restrict rest,
                                    const float *restrict strand_radius, uint32_t count,
                                    const tress_collider_lanes *set_lanes, const uint32_t *restrict set_of_node,
                                    tress_collider_response response);

#endif
