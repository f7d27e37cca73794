/* tress/debug_draw.h - what to draw for a sim this frame (bones animated and simulated, strand
 * radii, end tips, colliders, ropes, cloth, pendulums), as shapes in the caller's reused buffer. */
#ifndef TRESS_DEBUG_DRAW_H
#define TRESS_DEBUG_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/result.h"
#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The geometry of one shape (tress_debug_shape's a, b, radius):
 * - LINE: from a to b;
 * - POINT: at a;
 * - SPHERE: centre a, radius;
 * - CAPSULE: the segment a..b swept by radius;
 * - PLANE: through a, facing the unit normal b (an engine draws a square of its own size). */
typedef enum tress_debug_shape_kind {
  TRESS_DEBUG_LINE = 0,
  TRESS_DEBUG_POINT,
  TRESS_DEBUG_SPHERE,
  TRESS_DEBUG_CAPSULE,
  TRESS_DEBUG_PLANE,
} tress_debug_shape_kind;

/* "line", "point", "sphere", "capsule", "plane"; "unknown" otherwise. */
const char *tress_debug_shape_kind_name(tress_debug_shape_kind kind);

/* What a shape shows (an engine picks its colour by this):
 * - BONE_ANIMATED: a line from a chain node's parent to the node in the animated pose;
 * - BONE_SIMULATED: the same link where the solver has it (the state of the last substep, not
 *   the display carry of a frame between fixed steps);
 * - STRAND_RADIUS: a sphere of the node's strand radius (chain or joint radius, scaled) at its
 *   simulated position, for nodes whose radius is > 0;
 * - END_TIP: a point at a leaf bone's virtual end tip (end_length > 0), simulated;
 * - COLLIDER: the sim's collider as resolved now: SPHERE, CAPSULE or PLANE (`inside` set for
 *   TRESS_COLLIDER_INSIDE_SPHERE / _INSIDE_CAPSULE, which keep nodes within);
 * - ROPE: a line per live (uncut) rope segment between its particles;
 * - CLOTH: a line per live cloth constraint (structural and shear);
 * - PENDULUM: a line from an accessory pendulum's hinge (its joint) to its handle part. */
typedef enum tress_debug_role {
  TRESS_DEBUG_BONE_ANIMATED = 0,
  TRESS_DEBUG_BONE_SIMULATED,
  TRESS_DEBUG_STRAND_RADIUS,
  TRESS_DEBUG_END_TIP,
  TRESS_DEBUG_COLLIDER,
  TRESS_DEBUG_ROPE,
  TRESS_DEBUG_CLOTH,
  TRESS_DEBUG_PENDULUM,
} tress_debug_role;

/* "bone_animated", "bone_simulated", "strand_radius", "end_tip", "collider", "rope", "cloth",
 * "pendulum"; "unknown" otherwise. */
const char *tress_debug_role_name(tress_debug_role role);

typedef struct tress_debug_shape {
  tress_debug_shape_kind kind;
  tress_debug_role role;
  float a[3], b[3]; /* world units; see tress_debug_shape_kind */
  float radius;     /* SPHERE, CAPSULE; 0 otherwise */
  bool asleep;      /* its handle did not step in the last frame (culled, over budget, disabled) */
  bool inside;      /* COLLIDER: an inside shape */
  tress_handle_id handle;     /* the handle it belongs to; null for a collider */
  tress_collider_id collider; /* COLLIDER: its id; null otherwise */
  /* Bones and part chains: the node's bone or part (null for an end tip). Pendulum: the
   * accessory. Null otherwise. */
  tress_id instance;
  /* Chains: the node's index in its chain (bind order, parents first); rope: the segment;
   * cloth: the constraint; collider: 0. */
  uint32_t index;
} tress_debug_shape;

/* Which roles to report (all true by default); include_asleep false leaves out every shape of a
 * handle that did not step in the last frame. */
typedef struct tress_debug_draw_opts {
  bool bones_animated, bones_simulated, strand_radii, end_tips;
  bool colliders, ropes, cloth, pendulums;
  bool include_asleep;
} tress_debug_draw_opts;

tress_debug_draw_opts tress_default_debug_draw_opts(void);

/*
 * Writes up to max_shapes shapes into `shapes` and the total the frame has into *count (call with
 * max_shapes 0 to size a buffer; keep it and reuse it every frame). Allocates nothing. Order is
 * deterministic: the colliders by id index, then the handles by id index; inside a bone or part
 * chain node by node in bind order (each node: animated link, simulated link, radius, tip),
 * inside a rope or cloth constraint by constraint. A chain the solver has not run yet (bound, or
 * re-laid out by another bind, since the last tress_sim_step, or asleep since its bind) is
 * reported from the scene: its bones' animated and drawn poses, the chain's radius, no end tips.
 * opts NULL: the defaults. TRESS_ERR_INVALID_ARGUMENT for a NULL sim or count, or NULL shapes
 * with max_shapes > 0 (*count is then 0).
 */
tress_result tress_sim_debug_draw(const tress_sim *sim, const tress_debug_draw_opts *opts, tress_debug_shape *shapes,
                                  uint32_t max_shapes, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif
