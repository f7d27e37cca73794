/* chains_internal.h - the bone- and part-chain batch, shared by the files that run it:
 *   chains.c         binding, settings, unbinding, resets: the public calls
 *   chains_layout.c  the batch's layout (tiles, levels, padding, scratch), rebuilt after binds
 *   chains_frame.c   a frame: scene reads, animated poses, substeps, render carry, output
 *   chains_jobs.c    the frame's tiles on the game's workers, and each worker's scratch
 *
 * Layout. Every node of every bound chain lives in one set of flat float arrays. Chains are
 * grouped into tiles of about TILE_NODES nodes (whole chains, consecutive slots), stored one
 * after the other; inside a tile, nodes go by depth level (the tile's pinned roots, then every
 * depth-1 node of its chains, ...), chain by chain inside a level. A node's parent is always in
 * the previous level, so one in-order pass per substep solves parents before children, and
 * inside a level no node depends on another: the math runs over contiguous arrays the compiler
 * vectorizes. Each level run is padded with inert nodes to whole 16-float vectors, so no loop
 * has a scalar remainder. When every node of a level finds its parent (or first child) at the
 * same distance, as in uniform chains, the level reads them in place; otherwise a short gather
 * into a level-sized scratch buffer comes first.
 *
 * Tiles. A frame runs all of its phases on one tile before the next, so the tile's arrays stay
 * in cache from the scene read to the scene write. Values that only live during a frame
 * (animated locals, animated world rotations, written poses) sit in one tile-sized scratch
 * (TILE_FIELDS) rather than node-wide arrays: they never travel to memory. So do a chain's
 * constants (CHAIN_CONSTANTS), held once per chain in its slot's lanes and copied to its nodes at
 * the start of each tile's frame (or read in place from level 0's). The scene is read and written
 * eight bone entries at a time (xform_lanes.h), which the sim has the scene keep in its node
 * order (order_scene_bones), so those reads and writes stream.
 *
 * Workers (chains_jobs.c). Tiles are independent inside a frame, so after the frame's serial
 * set-up they run as one task on the sim's jobs (tress/jobs.h), each worker in its own copy of
 * the scratch above; nothing sums or chooses across tiles, so any worker count gives the same
 * bits.
 *
 * A frame: prepare (read animated locals from the scene through cached slot pointers, build
 * animated world poses level by level, decide snaps), substeps (pin roots to the animated pose
 * interpolated to the substep's time; integrate, stiffness, inextensible link), output (poses
 * below, written to the scene level by level, awake chains only, never a non-finite value).
 *
 * Output convention (what the renderer sees in each bone's `transform`, parts' `cframe`):
 * - Roots are pinned: they show the animated pose, unswung (transform = animated; a part
 *   chain's pin is the body's part and is never written).
 * - Every other node is positioned at its simulated position and rotated by the shortest arc
 *   from its animated aim (the direction to its first child in the animated pose) to the
 *   simulated direction to that child, applied on top of its animated rotation. The transform
 *   is local, computed against the parent's already written world pose, so parents-first
 *   order keeps every child exact: parent world * cframe * transform lands on the simulation.
 * - A leaf has no child to aim at: it keeps its parent's swing (identity arc on its animated
 *   rotation), so with end_length 0 a leaf bone is carried, never turned. end_length > 0 gives
 *   every leaf bone a virtual tip node (null id: reads identity, writes nowhere) that it aims at.
 *
 * Spring-bone features (issue 9), each paid for only where a chain uses it. A slot carries a
 * feature byte; prepare ORs them into a per-tile flag, and a tile without the flag runs the
 * seed's loops unchanged:
 * - colliders: the sim resolves its colliders to world once per frame and gathers one lane per
 *   chain slot (its set; empty while asleep); a colliding tile also gathers them by level-0
 *   position. Each level's link loop is followed by a push, parents first, links kept
 *   (collider.h): an aligned level reads the position lanes straight, any other goes through
 *   its node -> slot map. No collider anywhere: no resolve, no gather, no push.
 * - weight / enabled: tiles with a blended chain blend positions toward the animated pose
 *   before output (weight 1 passes the simulated bits through) and write the animated local
 *   exactly where weight is 0; a disabled chain also snaps to its animated pose every frame.
 * - gusts: a gusty chain rewrites its nodes' wind scale once per frame, phase delayed by depth.
 * - resets (checked in prepare, 64 chains per vector loop; any of them snaps): the 50-stud teleport guard, a root
 *   landing TRESS_JUMP_RESET_CHAINS chain lengths off the path its velocity predicted, a stalled
 *   step, tress_sim_reset.
 *
 * Spring models (issue 15). A tile holds chains of one kind (tile_kind, fixed by the layout: a
 * run of slots of another kind starts a new tile), so the choice is made once per tile, never
 * per node: TRESS_SPRING_POSE tiles run the loops above; TRESS_SPRING_VRM tiles run
 * chains_vrm.c's substep (each node the tail of its parent joint, stiffness along the rest
 * direction under the parent's current rotation, which a second pass per level carries down
 * the chain as it is solved) and its rotation-only output, which every joint uses, roots
 * included, and no position is written. Pose chains with rotations_only use that output on the
 * pose model's motion. VRM chains measuring their joints' lengths as three-vrm does
 * (TRESS_VRM_LENGTH_THREE_VRM) are a kind of their own (TILE_KIND_THREE_VRM_LENGTH), so only
 * their tiles build the last drawn pose and keep joint heads apart from the tails. Chains
 * alternating kinds slot by slot make many small tiles (each level padded to 16 lanes): binding
 * order keeps them apart in practice.
 *
 * Center space (issue 15). A chain with a center (FEAT_CENTERED, TILE_CENTERED on its tile) is
 * moved rigidly, current and previous positions alike, with its center's motion since the last
 * substep (scaled by center_inertia) before each substep, per chain and only on flagged tiles:
 * verlet velocity and the VRM tails' inertia are then measured in the center's frame, as
 * UniVRM's and three-vrm's center-space tails are. The reset checks measure the root in that
 * frame too, so a character riding or teleporting with its center neither whips nor snaps.
 *
 * Rotation limits (issue 15). A joint's limit (tress_joint_limit) becomes per-node copies on its
 * tails (lm_*: kind, cos/sin of the angle, sin of the yaw, the limit's frame in the joint's) and
 * FEAT_LIMITED on its slot; only TILE_LIMITED tiles run chains_limit.c's pass, after each
 * level's step and again after its collider push, in either model (the VRM model hands it the
 * parents' A; the pose model builds its frames from the animated pose). Unlimited nodes in a
 * limited tile are masked out (bit-identical to no pass).
 *
 * Render carry. A frame that ends between fixed steps (no substep, or time left after the last)
 * draws each chain carried rigidly with its anchor from where the last substep left it (its
 * pin) to where the anchor is now, so a game drawing at 144 Hz sees hair attached, not
 * stretched behind the head. Display positions only: the simulated state is untouched, and a
 * frame that ends on a step does no carry work at all.
 *
 * The layout is rebuilt lazily (on the next frame) when chains bind or unbind; bind may
 * allocate, a frame never does once the scratch buffers have grown.
 */
#ifndef TRESS_CHAINS_INTERNAL_H
#define TRESS_CHAINS_INTERNAL_H

#include <stddef.h>

#include "collider_lanes.h"
#include "sim_internal.h"
#include "simd.h"

/* The hot level loops: written once as scalar-form loops over SoA arrays that vectorize, built
 * by simd.h's rule (x86-64: AVX-512, AVX2 and baseline clones picked at load time; AArch64:
 * NEON). No contraction and no reordered reductions, so every build gives the same bits. */
#define HOT_LOOP TRESS_VECTOR_CLONES

/* Every per-node float array, in one list so rebuild, permute and free stay generic. */
#define CHAIN_FIELDS(X)                                                                            \
  X(cf_px) X(cf_py) X(cf_pz) X(cf_qx) X(cf_qy) X(cf_qz) X(cf_qw)  /* rest local (bone cframe) */  \
  X(pa_px) X(pa_py) X(pa_pz)      /* animated world, last frame (this frame's once its tile ran) */ \
  X(px) X(py) X(pz) X(ox) X(oy) X(oz)                             /* verlet state */              \
  X(ax_x) X(ax_y) X(ax_z)                 /* VRM: unit rest offset from the parent (bone axis) */ \
  X(vg_x) X(vg_y) X(vg_z)                 /* VRM: gravity, direction x power (units/s) */ \
  X(jt_damping) X(jt_stiffness) X(jt_gscale) X(jt_radius) /* joints: the CHAIN_CONSTANTS a joint may set */ \
  X(lm_kind) X(lm_cos) X(lm_sin) X(lm_sy) /* limit on the link to the parent (chains_limit.c) */ \
  X(lm_qx) X(lm_qy) X(lm_qz) X(lm_qw)     /* limit: its frame in the parent joint's frame */

/* Per-node values that live only while one tile's frame runs: they sit in one tile-sized
 * scratch (indexed by node - tile base), recomputed for every node each frame, so they never
 * travel to and from memory. */
#define TILE_FIELDS(X)                                                                             \
  X(an_px) X(an_py) X(an_pz) X(an_qx) X(an_qy) X(an_qz) X(an_qw)  /* animated local */            \
  X(aw_px) X(aw_py) X(aw_pz) X(aw_qx) X(aw_qy) X(aw_qz) X(aw_qw)  /* animated world, this frame */ \
  X(wp_x) X(wp_y) X(wp_z) X(wq_x) X(wq_y) X(wq_z) X(wq_w)         /* written world */             \
  X(bl_x) X(bl_y) X(bl_z)                 /* display positions: carried and/or blended */      \
  X(cr_qx) X(cr_qy) X(cr_qz) X(cr_qw)     /* carry: rotation since the last substep */          \
  X(cr_x) X(cr_y) X(cr_z)                 /* carry: then translation (display = R p + t) */ \
  X(rest_len)                 /* link length: |cframe position| x the chain's scale (roots: 0) */ \
  CHAIN_CONSTANTS(X)

/* A node's values that are its chain's (per-slot lanes LANE_DAMPING..), copied into the tile
 * scratch at the start of each tile's frame (chain_constants_tile), so the node arrays hold none
 * of them: damping, stiffness, gravity and wind scale, strand radius (a joint may set the first
 * four: then they come from the node arrays' jt_* copies), output weight (0 when disabled), the
 * chain's scale on local offsets, and the substep mask (1: awake and enabled). Padding holds 0
 * in every one. The gusts rewrite wscale after the copy. */
#define CHAIN_CONSTANTS(X) \
  X(damping) X(stiffness) X(gscale) X(radius) X(wscale) X(weight) X(sc) X(stepping)
#define JOINT_CONSTANTS 4 /* the first four can be a joint's */

/* Tile scratch only VRM tiles read (TILE_KIND_VRM), and only three-vrm-length tiles
 * (TILE_KIND_THREE_VRM_LENGTH): made only when the layout has such a tile (tile_scratch.kinds). */
#define TILE_VRM_FIELDS(X)                                                                         \
  X(va_x) X(va_y) X(va_z) X(va_w)   /* VRM: parent's current rotation x rest-and-animated local */ \
  X(pq_x) X(pq_y) X(pq_z) X(pq_w)   /* VRM, roots: last frame's animated world rotation */ \
  X(lr_x) X(lr_y) X(lr_z) X(lr_w)   /* VRM: cframe x animated local rotation, once per frame (not on still levels) */
#define TILE_THREE_VRM_FIELDS(X)                                                                   \
  X(hd_x) X(hd_y) X(hd_z)           /* VRM three-vrm length: joint heads this substep */  \
  X(sl_x) X(sl_y) X(sl_z) X(sl_m)   /* ... where each bone was last drawn (anchor now); 1: measured */ \
  X(sq_x) X(sq_y) X(sq_z) X(sq_w)   /* ... its world rotation then (built parents first) */ \
  X(ln)                             /* ... each tail's length this substep */

#define G_SCRATCH 20 /* 7 parent + 3 child gathers, 7 output components, 3 aims */
#define G_AIM 17
#define G_OUT 10

typedef struct chain_nodes {
#define DECLARE_FIELD(name) float *name;
  CHAIN_FIELDS(DECLARE_FIELD)
  int32_t *parent;      /* global index, -1 for a pinned root */
  int32_t *first_child; /* global index, -1 for a leaf */
  int32_t *first_sibling; /* its parent's first child (itself in a linear chain), -1 for a root;
                             VRM layouts only (NODE_GROUP_VRM) */
  uint32_t count, cap;
  uint8_t groups; /* NODE_GROUP_*: the optional fields allocated (the others are NULL) */
} chain_nodes;

/* Optional per-node fields, allocated by a layout only when one of its chains reads them (a
 * pose-only sim without limits holds neither): the VRM bone axis and gravity (ax_*, vg_*: VRM
 * chains; a limit's frame is built from ax_* too), the limit copies (lm_*: limited chains), and
 * each node's own damping, stiffness, gravity scale and radius (jt_*: chains with joint settings;
 * then every node's, its chain's values where no joint sets them). */
#define NODE_GROUP_VRM 1u
#define NODE_GROUP_LIMIT 2u
#define NODE_GROUP_JOINTS 4u

typedef struct tile_scratch {
  TILE_FIELDS(DECLARE_FIELD)
  TILE_VRM_FIELDS(DECLARE_FIELD)       /* NULL unless kinds has TILE_KIND_VRM */
  TILE_THREE_VRM_FIELDS(DECLARE_FIELD) /* NULL unless kinds has TILE_KIND_THREE_VRM_LENGTH */
  uint32_t base; /* the running tile's first node: field[i - base] is node i's value */
  uint32_t cap;
  uint8_t kinds; /* the TILE_KIND_* groups made */
} tile_scratch;
#undef DECLARE_FIELD

/* One bound chain (bone hierarchy under a part, or a part chain). Cold data. */
/* A slot's spring-bone features in one byte, so the per-frame slot loop reads no settings. */
#define FEAT_COLLIDES 1u
#define FEAT_WEIGHTED 2u /* weight < 1 or disabled */
#define FEAT_GUSTY 4u
#define FEAT_DISABLED 8u
#define FEAT_CENTERED 16u /* a center whose motion is (partly) taken out of the inertia */
#define FEAT_LIMITED 32u  /* some joint has a rotation limit */

/* tress_chain_settings without the collider id list (which becomes an index set): kept small
 * so the per-frame slot loops stride through little memory. gravity_dir is resolved (unit, or
 * the sim's gravity direction). */
typedef struct chain_params {
  float damping, stiffness, gravity_scale, wind_scale, radius, end_length, wind_gust, wind_frequency, weight;
  bool enabled;
  uint8_t model; /* tress_spring_model */
  bool rotations_only;
  float gravity_dir[3];
  tress_id center;      /* null: world */
  float center_inertia; /* 0..1 */
  uint8_t vrm_length;   /* tress_vrm_length */
} chain_params;

/* One joint's own values (tress_handle_set_joint_settings), sanitized for the chain's model;
 * they apply to the joint's tails. */
/* A rotation limit, sanitized (chains_limit.c): kind LIMIT_CONE or LIMIT_SWING (hinge and
 * spherical are one shape: a hinge is a spherical limit with no yaw), the cos and sin of the
 * cone angle or pitch, sin of the yaw, and the limit's own rotation. */
#define LIMIT_NONE 0u
#define LIMIT_CONE 1u
#define LIMIT_SWING 2u
typedef struct joint_limit {
  uint8_t kind;
  float cos_angle, sin_angle, sin_yaw, rotation[4];
  tress_joint_limit given; /* as set, for reading back */
} joint_limit;

typedef struct joint_params {
  bool set;
  float stiffness, damping, gravity_scale, gravity_dir[3], radius;
  joint_limit limit;
} joint_params;

/* Center space (chains_center.c), for a chain whose settings name a center (cold, held apart so
 * the slots of chains without one stay small): the center's world pose last frame and now (a
 * center gone since holds still: world inertia), and where the last substep saw it. */
typedef struct chain_center {
  tress_xform prev, now, pin;
} chain_center;

/* A node's scene instance: an id without its owner tag, which is the sim's scene's for every
 * node (slot_node_id puts it back). Index 0: none (an end tip). */
typedef struct node_ref {
  uint32_t index1, generation;
} node_ref;

static inline node_ref node_ref_of(tress_id id) { return (node_ref){id.index1, id.generation}; }

typedef struct chain_slot {
  /* Read every frame by the per-chain loops (culling, activity, prepare, output): kept together
   * at the start, so a chain costs those loops two or three cache lines, not the whole slot. */
  bool used;
  uint8_t features;          /* FEAT_* from the settings */
  bool reset;                /* tress_sim_reset: snap on the next frame */
  bool fresh;                /* bound since the last frame: start where it is drawn */
  bool from_bone;            /* bound by tress_sim_bind_bone_chain: ids[0] is the root bone */
  bool scale_refused;        /* a non-uniform scale holds it at its animated pose (chains_scale.c) */
  tress_handle_kind kind;
  float act_last;            /* the activity mask its nodes carry (-1: unknown, refill) */
  tress_id part;             /* bones: the part (or, from_bone, the part or bone) the roots hang
                                from; parts: the pin */
  tress_handle_id handle;
  /* Uniform scale (chains_scale.c): the factor its rest data is taken at (bones: the composed
   * scale of what the roots hang from; parts: that over the pin's scale at bind, scale_bind). */
  float scale;
  uint32_t node_count;
  uint32_t root;             /* global[0], kept here: the per-chain loops read it every frame */
  uint32_t *global;          /* index into chain_nodes, valid after a rebuild */
  chain_center *center;      /* NULL unless the settings name a center (chains_center.c) */
  /* Its anchor, root velocity, jump threshold, scale and root rest offset live in the batch's dense
   * per_slot lanes. */
  /* Read by frames between steps (the carry), binds, layouts and settings. */
  tress_xform pin;           /* the anchor where the last substep left the chain */
  float carry[7];            /* this frame's carry: rotation q, translation t (R p + t) */
  float scale_bind;
  node_ref *ids;             /* bone or part per node, parents first (slot_node_id) */
  int32_t *local_parent;     /* -1 for a root */
  uint8_t *depth;            /* bones: each node's depth (a walk stops at 255); parts: slot_depth */
  tress_xform *rest;         /* bones: cframe; parts: offset from the previous part at bind. Only
                                until the next layout takes it into the node arrays (cf_*), which
                                then hold it: NULL once laid out (slot_rest_offset reads either) */
  tress_id root_bone;
  chain_params settings;     /* sanitized; the collider set lives in c->own_sets */
  joint_params *joints;      /* NULL, or one per bone (bind order, tips excluded) */
  uint32_t joint_count;
} chain_slot;
/* The per-frame fields end within two cache lines of the slot's start (see the first group). */
_Static_assert(offsetof(chain_slot, center) + sizeof(chain_center *) <= 128, "the slot's per-frame fields stay together");

/* Node k's depth in its chain: a part chain is a line (node k at depth k, unbounded). */
static inline uint32_t slot_depth(const chain_slot *s, uint32_t k) {
  return s->kind == TRESS_HANDLE_PARTS ? k : s->depth[k];
}

/* Node k's instance id in scene (the null id for an end tip). */
static inline tress_id slot_node_id(const tress_scene *scene, const chain_slot *s, uint32_t k) {
  if (s->ids[k].index1 == 0) return (tress_id){0};
  return (tress_id){s->ids[k].index1, s->ids[k].generation, tress_scene_get_root(scene).owner};
}

/* Whether node k is an end tip (no instance of its own). */
static inline bool slot_node_is_tip(const chain_slot *s, uint32_t k) { return s->ids[k].index1 == 0; }

/* Node k's rest offset from its parent (its cframe's position): the bind-time copy while the
 * chain waits for its first layout, the node arrays after. */
static inline void slot_rest_offset(const chain_nodes *n, const chain_slot *s, uint32_t k, float out[3]) {
  if (s->rest) {
    out[0] = s->rest[k].p[0]; out[1] = s->rest[k].p[1]; out[2] = s->rest[k].p[2];
    return;
  }
  uint32_t i = s->global[k];
  out[0] = n->cf_px[i]; out[1] = n->cf_py[i]; out[2] = n->cf_pz[i];
}

/* The optional node groups a slot's chain reads (NODE_GROUP_*). */
static inline uint8_t slot_node_groups(const chain_slot *s) {
  return (uint8_t)((s->settings.model == TRESS_SPRING_VRM ? NODE_GROUP_VRM : 0u) |
                   ((s->features & FEAT_LIMITED) ? NODE_GROUP_LIMIT : 0u) | (s->joints ? NODE_GROUP_JOINTS : 0u));
}

/* What the frame's per-chain passes read and write, per slot in dense arrays (tiles are runs of
 * consecutive slots, so a tile's chains are one contiguous run), so those passes are vector
 * loops and copies, not walks over slots. Float lanes at c->per_slot[...]:
 * - each chain's anchor, seven component arrays each (position xyz, rotation xyzw):
 *   ANCHOR_NOW as this frame's culling read it (prepare takes that read, not a second one),
 *   ANCHOR_LAST its last finite frame (what the roots hang from: it stands in for a NaN one),
 *   ANCHOR_PREV last frame's (the substeps interpolate from it);
 * - LANE_VX..VZ its root's animated velocity over the last frame (units/s), LANE_JUMP2 the
 *   squared root jump that resets ((3 x the chain's length)^2), LANE_SCALE its uniform scale
 *   (the teleport guard's);
 * - LANE_RX..RZ its first node's rest offset from the anchor and LANE_BONE 1 for a bone chain
 *   (whose root hangs at that offset) or 0 (a part chain's root is its pin): the culling's;
 * - LANE_DAMPING..LANE_STEP its CHAIN_CONSTANTS, which each tile's frame copies to its nodes. */
#define ANCHOR_NOW 0
#define ANCHOR_LAST 7
#define ANCHOR_PREV 14
#define LANE_VX 21
#define LANE_JUMP2 24
#define LANE_SCALE 25
#define LANE_RX 26
#define LANE_BONE 29
#define LANE_DAMPING 30 /* ..LANE_STEP: the chain's CHAIN_CONSTANTS, in that order */
#define LANE_STIFFNESS 31
#define LANE_GSCALE 32
#define LANE_RADIUS 33
#define LANE_WSCALE 34
#define LANE_WEIGHT 35
#define LANE_SC 36
#define LANE_STEP 37
#define SLOT_FIELDS 38

/* Per slot, this frame (slot_frame, written by the activity pass): an awake chain's FEAT_* bits,
 * FRAME_PARTS for a part chain, and whether it resumes (new, or woken: no velocity to measure)
 * or was reset by the game; 0 for a sleeping or unused slot. */
#define FRAME_PARTS 0x40u
#define FRAME_AWAKE 0x100u
#define FRAME_RESUME 0x200u
#define FRAME_RESET 0x400u

static inline tress_xform anchor_get(const struct tress_chains *c, int which, uint32_t si);
static inline void anchor_put(struct tress_chains *c, int which, uint32_t si, tress_xform x);

struct tress_chains {
  chain_slot *slots;
  uint32_t slot_count, slot_cap;
  float *per_slot[SLOT_FIELDS]; /* per_cap entries each (ANCHOR_*, LANE_*); identity anchors in never-used slots, finite leftovers in freed ones */
  uint16_t *slot_frame;         /* FRAME_* and FEAT_*, this frame */
  uint32_t *slot_root;          /* its first root's node (an unused slot: its tile's first node), valid after a layout */
  /* Per slot: the scene's frame of the part its anchor is (NULL: unused, anchored to a bone or
   * to a part that is gone, so the culling reads it the slow way), valid for the scene's layout
   * epoch anchor_epoch; all re-fetched when that moves or anchor_stale is set. */
  const tress_xform **anchor_src;
  uint64_t anchor_epoch;
  bool anchor_stale;
  uint32_t per_cap;
  /* Per tile: its level 0 holds exactly one root per slot, in slot order (every slot of the tile
   * used, one root each), so root lane j is slot tile_slot[t] + j: the anchors copy straight in. */
  uint8_t *roots_dense;
  uint32_t slot_hint; /* no free slot below it: binding scans from here, not from 0 */
  /* Colliders: one set per slot (parallel to slots, what the lanes gather reads), one lane per
   * set (filled once per frame while some level is unaligned, see unaligned_levels), and how
   * many chains use any (0: no collider work at all). */
  tress_collider_set *sets;
  tress_collider_set *own_sets; /* each slot's set, awake or not (cold, parallel to slots) */
  uint32_t set_cap;              /* both arrays' capacity: 0 (both NULL) until a chain has colliders */
  tress_collider_lanes lanes;
  /* Some non-empty level below the roots is not aligned (see `aligned`): only then does a push
   * read the per-slot lanes, so only then are they filled (and allocated) each frame. */
  bool unaligned_levels;
  /* The running tile's lanes by level-0 position: an aligned level (see `aligned`) reads them
   * straight, node j against position j, with no per-node gather through the slot. */
  tress_collider_lanes tile_lanes;
  uint32_t root_width; /* the widest level 0 of any tile (padded): tile_lanes' capacity */
  uint32_t collider_chains;
  /* Per tile, this frame: TILE_COLLIDES (some chain has colliders), TILE_WEIGHTED (some chain
   * has weight < 1 or is disabled). Tiles without a flag run the seed's loops untouched. */
  uint8_t *tile_flags;
  chain_nodes nodes;
  tile_scratch tile;
  uint32_t level_count;
  bool dirty;
  /* scratch for one level: gathers (parent pos, parent rot, child pos), then the level's output
   * local transforms (position, rotation) on their way to the scene */
  float *g[G_SCRATCH];
  uint32_t g_cap;
  /* Per tile-level (t * level_count + l): parent[i] == i - parent_shift for every node of the
   * level (-1 when not), and the same for first_child (0 for a level of leaves, which read
   * themselves); such a level reads in place, no gather. */
  int64_t *parent_shift, *child_shift;
  /* Per tile-level: every node is its parent's first child (linear chains), so the VRM rotation
   * pass reads its own position as its parent's aim (1), or gathers through first_sibling (0). */
  uint8_t *sibling_self;
  /* Per tile-level: position j of the level holds a node of the same chain as position j of
   * the tile's level 0 (uniform chains): per-chain lanes filled for level 0 serve it too.
   * ALIGNED_FULL: and it has as many nodes as level 0, so it can read level 0's CHAIN_CONSTANTS
   * in place (constants_at). */
  uint8_t *aligned;
  /* Per tile-level, this frame (prepare's scene read): every node's animated local is the
   * identity (hair no animation drives, padding, sleeping nodes), so the output skips the
   * products with it. Written and read by the tile's own phases. */
  uint8_t *still;
  /* Per node, global order: the chain slot, and (bone_slot, below) the entry of the scene's bone
   * arrays it reads its animated local from and writes its transform to; 0 for a sleeping
   * chain's, a part chain's, a vanished bone's and padding, which read `identity` and write the
   * tile's sink. The arrays' addresses are valid for scene layout epoch `ptr_epoch`; they and the
   * entries are re-fetched when it changes. */
  uint32_t *node_slot;
  /* Tiles: runs of whole chains (consecutive slots) of about TILE_NODES nodes, stored one after
   * the other (tile-major). A frame runs every phase for one tile before the next, so a tile's
   * data stays in cache from the scene read to the scene write. Inside a tile, level l holds
   * real nodes [tile_lo, tile_fill) and inert padding up to tile_hi (t * level_count + l). */
  uint32_t tile_count;
  uint32_t *tile_slot; /* tile_count + 1 entries: first slot of each tile, then slot_count */
  uint32_t *tile_end;  /* tile_count + 1 entries: one past the tile's last node */
  uint32_t *tile_lo, *tile_fill, *tile_hi;
  uint8_t *tile_kind; /* per tile: TILE_KIND_* of all of its chains (a tile never mixes kinds) */
  uint32_t *bone_slot; /* per node: its entry in the scene's bone arrays while it is read and written, else 0 */
  tress_xform *animated_base, *transform_base; /* the scene's bone arrays (tress__bone_slot_arrays) */
  uint32_t ptr_cap;
  uint64_t ptr_epoch;
  bool ptr_valid;
  /* Per tile: where its sleeping nodes and padding write (bone_slot 0). A tile's nodes
   * reach only its own, so two workers never write one location. */
  tress_xform *sinks;
  bool wide; /* scene reads and writes go eight at a time (AVX2) */
  /* this frame: no bone of the scene holds an animated local other than the identity, so the
   * scene read is skipped and every level is still (the common case for hair: the body moves,
   * its strands carry no animation of their own) */
  bool animated_identity;
  /* Render carry (carry_tile). A frame whose last substep lands exactly on it (the common 60 Hz
   * case) leaves every chain's pin implicitly at that frame's anchor and costs nothing; the
   * next frame, if it takes no substep, turns those implicit pins into explicit ones. */
  uint64_t frame_index;
  uint64_t implicit_pins; /* frame whose anchors are every chain's pin (0: pins are explicit) */
  uint8_t carry_mode;     /* CARRY_* for this frame */
  uint64_t scale_epoch;   /* the scene's scale epoch the slots' scales were read at */
  /* Workers (chains_jobs.c). Worker 0 runs its tiles on this batch itself, worker k > 0 on
   * workers[k - 1]: a copy of this header, refreshed before every frame's tiles, whose scratch
   * (tile, g, g_cap, tile_lanes) is its own. So a tile's phases write only through the batch's
   * arrays (their own tile's nodes, slots and per-tile entries) and the scratch, never a scalar
   * member here: a view's copy of one would be dropped. */
  struct tress_chains *workers;
  uint32_t worker_count;
  double (*worker_ms)[3]; /* per worker, this frame: the profile's prepare, substep, output sums */
  uint32_t stepping_chains; /* this frame: awake, enabled chains (each counts once per substep) */
  bool activity_in_tiles;   /* this frame: each tile decides its own chains' activity first */
  bool cull_with_activity;  /* this frame: the culling left the chains' slots to the activity pass */
  /* Every chain hangs from a part no tile writes (bone chains bound to a part: no part chain,
   * none bound from a bone), so a tile may read its own chains' anchors while other tiles run
   * their output; else the culling reads every anchor before the first tile. Set with the
   * anchors' sources (tress__chains_cull_begin). */
  bool anchors_outside_tiles;
  uint32_t *tile_stepping;  /* per tile, then: its stepping chains (summed after the tiles) */
};


static inline tress_xform anchor_get(const struct tress_chains *c, int which, uint32_t si) {
  float *const *a = c->per_slot + which;
  return (tress_xform){{a[0][si], a[1][si], a[2][si]}, {a[3][si], a[4][si], a[5][si], a[6][si]}};
}

static inline void anchor_put(struct tress_chains *c, int which, uint32_t si, tress_xform x) {
  float *const *a = c->per_slot + which;
  a[0][si] = x.p[0]; a[1][si] = x.p[1]; a[2][si] = x.p[2];
  a[3][si] = x.q[0]; a[4][si] = x.q[1]; a[5][si] = x.q[2]; a[6][si] = x.q[3];
}

/* Node g's strand radius (slot si's node): its joint's (jt_radius, when the batch has joint
 * settings), else its chain's. */
static inline float node_radius(const struct tress_chains *c, uint32_t si, uint32_t g) {
  return c->nodes.jt_radius ? c->nodes.jt_radius[g] : c->per_slot[LANE_RADIUS][si];
}

/* A tile-level's node range, and its index into the per tile-level tables. */
#define TILE_LO(c, t, l) ((c)->tile_lo[(size_t)(t) * (c)->level_count + (l)])
#define TILE_HI(c, t, l) ((c)->tile_hi[(size_t)(t) * (c)->level_count + (l)])
#define TILE_FILL(c, t, l) ((c)->tile_fill[(size_t)(t) * (c)->level_count + (l)])
#define TILE_LEVEL(c, t, l) ((size_t)(t) * (c)->level_count + (l))

/* Nodes per tile: small enough that a tile's arrays (~200 bytes a node) sit in L2, and its
 * scratch (sized for the largest tile) stays a small share of a node's bytes. A tile may grow
 * to one and a half times this rather than leave a sliver (chains_layout.c, tile_starts). */
#define TILE_NODES 2048
/* Every level run of a tile is padded with inert nodes to a whole number of AVX-512 vectors,
 * so the level loops have no scalar remainder (and level starts stay 64-byte aligned). */
#define LEVEL_LANES 16u

static inline uint32_t round_lanes(uint32_t n) { return (n + LEVEL_LANES - 1) / LEVEL_LANES * LEVEL_LANES; }

/* A level run's length. It is always whole vectors; the mask says so to the compiler, which
 * then emits no scalar remainder loop. */
static inline uint32_t padded_count(uint32_t lo, uint32_t hi) { return (hi - lo) & ~(LEVEL_LANES - 1); }

/* What a tile runs (tile_kind, fixed by the layout): the VRM model's substeps, rotation-only
 * output (every joint aims, the first included; the VRM model always has it). */
#define TILE_KIND_VRM 1u
#define TILE_KIND_ROTATIONS 2u
#define TILE_KIND_THREE_VRM_LENGTH 4u /* VRM, lengths measured as three-vrm does (chains_vrm.c) */

static inline uint8_t chain_tile_kind(const chain_params *p) {
  bool vrm = p->model == TRESS_SPRING_VRM;
  bool three = vrm && p->vrm_length == TRESS_VRM_LENGTH_THREE_VRM;
  return (uint8_t)((vrm ? TILE_KIND_VRM : 0u) | (vrm || p->rotations_only ? TILE_KIND_ROTATIONS : 0u) |
                   (three ? TILE_KIND_THREE_VRM_LENGTH : 0u));
}

/* Per tile, this frame (tile_flags). */
#define TILE_COLLIDES 1u
#define TILE_WEIGHTED 2u
#define TILE_CARRIED 4u /* some chain is drawn carried with its anchor since its last substep */
#define TILE_CENTERED 8u /* some chain moves with its center before each substep */
#define TILE_LIMITED 16u /* some chain has a rotation limit: the limit pass runs */
#define TILE_PARTS 32u   /* some awake chain is a part chain: output writes its cframes */
#define TILE_WORLD 64u   /* every level's animated world pose is this frame's (VRM tiles: only when read) */
#define TILE_OWN_CONSTANTS 128u /* every level holds its own CHAIN_CONSTANTS (gusts, joint values) */

#define ALIGNED 1u      /* aligned[]: position j is level 0's position j's chain */
#define ALIGNED_FULL 2u /* ... and every position of level 0 has a node here */

/* Where in the tile scratch level tl (starting at node lo) reads its CHAIN_CONSTANTS: level 0's
 * run when it holds the same chains at every position and its tile keeps no per-level values,
 * else its own (chain_constants_tile fills only the runs read). */
static inline uint32_t constants_at(const struct tress_chains *c, size_t tl, uint32_t lo) {
  size_t t = tl / c->level_count;
  bool shared = c->aligned[tl] == ALIGNED_FULL && !(c->tile_flags[t] & TILE_OWN_CONSTANTS);
  return (shared ? c->tile_lo[t * c->level_count] : lo) - c->tile.base;
}

/* Level views and the shortest arc, shared by the pose model's frame and the VRM model's. */
#include <math.h>

/* Pointers to one level's parent (or child) data: in place when every node of the level finds
 * it at the same distance (`shift`, from index_levels), else gathered into scratch through
 * `index` (-1 reads the node itself). `src` lists the source arrays, which hold node i at
 * [i - base] (base 0: the node arrays; the tile base: tile scratch); `dst` gets the view. */
static inline void level_view(struct tress_chains *c, uint32_t lo, uint32_t hi, int64_t shift, bool toward_children,
                              const int32_t *index, float *const *src, uint32_t base, int count, const float **dst,
                       int scratch0) {
  if (shift >= 0) {
    int64_t offset = toward_children ? shift : -shift;
    for (int k = 0; k < count; k++) dst[k] = src[k] + ((int64_t)lo - base + offset);
    return;
  }
  for (int k = 0; k < count; k++) {
    float *restrict g = c->g[scratch0 + k];
    const float *restrict from = src[k];
    for (uint32_t i = lo; i < hi; i++) {
      int32_t j = index[i] < 0 ? (int32_t)i : index[i];
      g[i - lo] = from[(uint32_t)j - base];
    }
    dst[k] = g;
  }
}

/* Node i's parent at tile-level tl (-1: a root or padding): the link array while the layout
 * keeps one, else the level's constant shift (drop_links_when_shifted). */
static inline int32_t node_parent(const struct tress_chains *c, size_t tl, uint32_t i) {
  if (c->nodes.parent) return c->nodes.parent[i];
  int64_t shift = c->parent_shift[tl];
  return shift >= 0 && i < c->tile_fill[tl] ? (int32_t)((int64_t)i - shift) : -1;
}

/* The rest aim of every node in [lo, hi): its first child's rest offset (that child's cframe
 * position), zero for a leaf, which aims nowhere. A level whose children sit at a constant
 * distance reads the cframe arrays in place; a level of leaves (child shift 0) and a gathered
 * one fill the level scratch G_AIM.. (padding reads zero, or the padding below it). */
static inline void aim_view(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float **dst) {
  const chain_nodes *n = &c->nodes;
  float *const src[3] = {n->cf_px, n->cf_py, n->cf_pz};
  int64_t shift = c->child_shift[tl];
  if (shift > 0) {
    level_view(c, lo, hi, shift, true, n->first_child, src, 0, 3, dst, G_AIM);
    return;
  }
  for (int k = 0; k < 3; k++) {
    float *restrict g = c->g[G_AIM + k];
    const float *restrict from = src[k];
    for (uint32_t i = lo; i < hi; i++) {
      int32_t j = shift == 0 ? -1 : n->first_child[i];
      g[i - lo] = j < 0 ? 0.0f : from[j];
    }
    dst[k] = g;
  }
}

/* The end of a node's substep in both spring models (chains_frame.c, chains_vrm.c): the
 * inextensible link to the parent's head q, already solved this pass (a zero-length offset stays
 * on the parent: the clamp keeps 0 * inf out), then the sleep blend of node j from (cx, cy, cz) to
 * the linked (nx, ny, nz) by the mask m instead of a branch. Inline in the vectorized level loops. */
static inline void link_and_blend(uint32_t j, float cx, float cy, float cz, float nx, float ny, float nz, float qx,
                                  float qy, float qz, float rest, float m, float *restrict px, float *restrict py,
                                  float *restrict pz, float *restrict ox, float *restrict oy, float *restrict oz) {
  float dx = nx - qx, dy = ny - qy, dz = nz - qz;
  float len2 = dx * dx + dy * dy + dz * dz;
  float s = rest / sqrtf(len2 > 1e-24f ? len2 : 1e-24f);
  nx = qx + dx * s;
  ny = qy + dy * s;
  nz = qz + dz * s;
  ox[j] = cx + (ox[j] - cx) * (1.0f - m);
  oy[j] = cy + (oy[j] - cy) * (1.0f - m);
  oz[j] = cz + (oz[j] - cz) * (1.0f - m);
  px[j] = cx + (nx - cx) * m;
  py[j] = cy + (ny - cy) * m;
  pz[j] = cz + (nz - cz) * m;
}

/* Shortest-arc rotation taking a to b, branch-free so the output loop vectorizes: the same
 * cases as tress_quat_from_to (degenerate -> identity, opposite -> a half turn about an axis
 * perpendicular to a). A non-finite a or b gives a non-finite rotation, never the identity: a
 * chain whose state overflowed must not pass for one that aims nowhere (a rotations-only output
 * would then hide it from the scene write's check, and the chain would never recover). */
static inline void arc_between(float ax, float ay, float az, float bx, float by, float bz, float q[4]) {
  float lab = sqrtf((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz));
  float w = lab + (ax * bx + ay * by + az * bz);
  float x = ay * bz - az * by, y = az * bx - ax * bz, z = ax * by - ay * bx;
  bool opposite = w < 1e-6f * lab;
  bool use_x = fabsf(ax) > fabsf(az);
  x = opposite ? (use_x ? -ay : 0.0f) : x;
  y = opposite ? (use_x ? ax : -az) : y;
  z = opposite ? (use_x ? 0.0f : ay) : z;
  w = opposite ? 0.0f : w;
  float n2 = x * x + y * y + z * z + w * w;
  bool degenerate = lab <= 1e-24f || n2 <= 1e-30f; /* false for NaN: it goes through */
  float inv = 1.0f / sqrtf(degenerate ? 1.0f : n2);
  q[0] = degenerate ? 0.0f : x * inv;
  q[1] = degenerate ? 0.0f : y * inv;
  q[2] = degenerate ? 0.0f : z * inv;
  q[3] = degenerate ? 1.0f : w * inv;
}

/* Shared between the batch's files. */
/* One tile's whole frame on c (the batch or a worker's view of it), phase times added to ms[0..2]
 * when ms is set (chains_frame.c); the frame's tiles on the sim's workers (chains_jobs.c). */
void tress__chains_tile(tress_sim *sim, struct tress_chains *c, const tress_frame *f, uint32_t t, double *ms);
void tress__chains_run_tiles(tress_sim *sim, struct tress_chains *c, const tress_frame *f, tress_sim_profile *profile);
void tress__chains_free_workers(struct tress_chains *c);
/* The tile that holds slot si (binary search over tile_slot). */
uint32_t tress__chain_tile(const struct tress_chains *c, uint32_t si);
/* Scratch growth (chains_layout.c): a tile-sized scratch to n nodes, a level scratch to n. */
bool tress__chain_tile_scratch_grow(tile_scratch *w, uint32_t n, uint8_t kinds); /* kinds: TILE_KIND_* */
bool tress__chain_level_scratch_grow(struct tress_chains *c, uint32_t n);
void tress__chain_tile_scratch_free(tile_scratch *w);
float *const *tress__chain_fields(const chain_nodes *n, uint32_t *count); /* every float array */
void tress__chain_nodes_free(chain_nodes *n);
bool tress__chains_rebuild(struct tress_chains *c);                       /* false: out of memory */
/* slot si's constants' lanes and per-node copies */
void tress__chain_fill_settings(struct tress_chains *c, chain_nodes *n, uint32_t si);
tress_xform tress__chain_anchor(const tress_sim *sim, const chain_slot *s); /* what its roots hang from */
bool tress__chain_per_slot_reserve(struct tress_chains *c, uint32_t cap); /* false: out of memory */
/* Seven lanes (g[0..7)) of a tile's level 0 from the anchors `which` (ANCHOR_*): a copy where
 * the tile's roots are dense, a gather through node_slot otherwise; padding reads identity. */
void tress__chain_root_anchors(struct tress_chains *c, uint32_t t, int which, float *const *g);
/* The VRM model (chains_vrm.c): roots' last-frame rotations after prepare, one substep of a
 * tile, and rotation-only output levels (display: positions from the carried / blended arrays),
 * which pose-model chains with rotations_only use as well. */
void tress__vrm_prepare_roots(struct tress_chains *c, uint32_t t);
void tress__vrm_substep_tile(struct tress_chains *c, const tress_frame *f, float alpha, uint32_t t);
void tress__vrm_output_roots(struct tress_chains *c, uint32_t t, bool display);
/* Center space (chains_center.c): a centered slot's center read once per frame (after which
 * its root's frame motion, as the reset checks see it, is aw - D(pa): `root_motion`), and
 * before each substep of a TILE_CENTERED tile every centered chain carried with its center. */
bool tress__center_start(const tress_sim *sim, chain_slot *s); /* false: out of memory */
void tress__center_read(const tress_sim *sim, chain_slot *s);
void tress__center_root_motion(const chain_slot *s, const float pa[3], const float aw[3], float out[3]);
void tress__center_substep_tile(struct tress_chains *c, float alpha, uint32_t t);
void tress__vrm_output_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, bool display);
/* Uniform scale (chains_scale.c): the factor a slot's rest data is taken at now (false: some
 * scale on the way is not uniform, or a bone of the chain has a scale of its own), and once per
 * frame, when the scene's scales changed, every slot's factor re-read: a changed one rescales
 * the chain's state about its roots and its per-node values, a refused one holds it. */
bool tress__chain_scale_read(const tress_sim *sim, const chain_slot *s, float *factor);
void tress__chains_refresh_scales(tress_sim *sim, struct tress_chains *c);
void tress__chain_slot_features(struct tress_chains *c, uint32_t si); /* FEAT_* from the settings */
/* What the collider lanes gather reads for slot si: its own set while awake and enabled, else none. */
void tress__chain_sync_set(struct tress_chains *c, uint32_t si);
void tress__chain_measure(struct tress_chains *c, chain_slot *s); /* its per-slot lanes: jump threshold, scale, root rest offset, bone mask */
/* Rotation limits (chains_limit.c): a joint's limit sanitized; a node's per-node limit copies
 * (from its parent joint's limit, or none); one level's tails kept inside their limits, the
 * parent joints' frames given as rotation lanes (the VRM model's A of the parents); and the
 * pose model's level, which builds those frames from the animated pose and the parents' links. */
joint_limit tress__limit_of(const tress_joint_limit *in);
void tress__limit_fill_node(chain_nodes *n, uint32_t i, const joint_limit *l);
void tress__limit_level(uint32_t count, float *px, float *py, float *pz, const float *qx, const float *qy,
                        const float *qz, const float *fqx, const float *fqy, const float *fqz, const float *fqw,
                        const chain_nodes *n, uint32_t lo, const float *rest_len, const float *stepping);
void tress__limit_pose_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float *const *par);

#endif
