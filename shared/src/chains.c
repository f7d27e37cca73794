/* chains.c - bone chains and part chains: one structure-of-arrays batch for every chain node.
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
 * (TILE_FIELDS) rather than node-wide arrays: they never travel to memory. The scene is read
 * and written eight bone slots at a time (xform_lanes.h).
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
 *   chain slot (its set; empty while asleep); in tiles that collide, each level's link loop is
 *   followed by tress_collider_push_level_sets with the node -> slot map, parents first, links
 *   kept (collider.h). No collider anywhere: no resolve, no gather, no push.
 * - weight / enabled: tiles with a blended chain blend positions toward the animated pose
 *   before output (weight 1 passes the simulated bits through) and write the animated local
 *   exactly where weight is 0; a disabled chain also snaps to its animated pose every frame.
 * - gusts: a gusty chain rewrites its nodes' wind scale once per frame, phase delayed by depth.
 * - resets (checked per chain in prepare, any of them snaps): the 50-stud teleport guard, a root
 *   jump of TRESS_JUMP_RESET_CHAINS chain lengths, a stalled step, tress_sim_reset.
 *
 * The layout is rebuilt lazily (on the next frame) when chains bind or unbind; bind may
 * allocate, a frame never does once the scratch buffers have grown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "xform_lanes.h"

/* The hot level loops are compiled for AVX-512, AVX2 and baseline x86-64 and picked at load
 * time (ifunc), so one binary runs anywhere and uses the widest vectors the CPU has. ISO C mode
 * keeps floating-point contraction off, so every clone computes bit-identical results. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define HOT_LOOP __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HOT_LOOP
#endif

/* Every per-node float array, in one list so rebuild, permute and free stay generic. */
#define CHAIN_FIELDS(X)                                                                            \
  X(cf_px) X(cf_py) X(cf_pz) X(cf_qx) X(cf_qy) X(cf_qz) X(cf_qw)  /* rest local (bone cframe) */  \
  X(aw_px) X(aw_py) X(aw_pz)                                      /* animated world, this frame */ \
  X(pa_px) X(pa_py) X(pa_pz)                                      /* animated world, last frame */ \
  X(px) X(py) X(pz) X(ox) X(oy) X(oz)                             /* verlet state */              \
  X(aim_x) X(aim_y) X(aim_z)                                      /* first child's rest offset */ \
  X(rest_len) X(damping) X(stiffness) X(gscale) X(wscale) X(active)                               \
  X(stepping)                 /* active and enabled: the substep mask (a disabled chain takes none) */ \
  X(radius) X(weight)                     /* strand radius; output weight (0 when disabled) */

/* Per-node values that live only while one tile's frame runs: they sit in one tile-sized
 * scratch (indexed by node - tile base), recomputed for every node each frame, so they never
 * travel to and from memory. */
#define TILE_FIELDS(X)                                                                             \
  X(an_px) X(an_py) X(an_pz) X(an_qx) X(an_qy) X(an_qz) X(an_qw)  /* animated local */            \
  X(aw_qx) X(aw_qy) X(aw_qz) X(aw_qw)                             /* animated world rotation */   \
  X(wp_x) X(wp_y) X(wp_z) X(wq_x) X(wq_y) X(wq_z) X(wq_w)         /* written world */             \
  X(bl_x) X(bl_y) X(bl_z)                 /* display positions: carried and/or blended */      \
  X(cr_qx) X(cr_qy) X(cr_qz) X(cr_qw)     /* carry: rotation since the last substep */          \
  X(cr_x) X(cr_y) X(cr_z)                 /* carry: then translation (display = R p + t) */

#define G_SCRATCH 17 /* 7 parent + 3 child gathers, 7 output components */
#define G_OUT 10

typedef struct chain_nodes {
#define DECLARE_FIELD(name) float *name;
  CHAIN_FIELDS(DECLARE_FIELD)
  int32_t *parent;      /* global index, -1 for a pinned root */
  int32_t *first_child; /* global index, -1 for a leaf */
  uint32_t count, cap;
} chain_nodes;

typedef struct tile_scratch {
  TILE_FIELDS(DECLARE_FIELD)
  uint32_t base; /* the running tile's first node: field[i - base] is node i's value */
  uint32_t cap;
} tile_scratch;
#undef DECLARE_FIELD

/* One bound chain (bone hierarchy under a part, or a part chain). Cold data. */
/* A slot's spring-bone features in one byte, so the per-frame slot loop reads no settings. */
#define FEAT_COLLIDES 1u
#define FEAT_WEIGHTED 2u /* weight < 1 or disabled */
#define FEAT_GUSTY 4u
#define FEAT_DISABLED 8u

/* tress_chain_settings without the collider id list (which becomes an index set): kept small
 * so the per-frame slot loops stride through little memory. */
typedef struct chain_params {
  float damping, stiffness, gravity_scale, wind_scale, radius, end_length, wind_gust, wind_frequency, weight;
  bool enabled;
} chain_params;

static chain_params params_of(tress_chain_settings s) {
  return (chain_params){s.damping, s.stiffness, s.gravity_scale, s.wind_scale, s.radius, s.end_length, s.wind_gust,
                        s.wind_frequency, s.weight, s.enabled};
}

typedef struct chain_slot {
  bool used;
  tress_handle_kind kind;
  uint8_t features;          /* FEAT_* from the settings */
  bool reset;                /* tress_sim_reset: snap on the next frame */
  bool from_bone;            /* bound by tress_sim_bind_bone_chain: ids[0] is the root bone */
  tress_id part;             /* bones: the part (or, from_bone, the part or bone) the roots hang
                                from; parts: the pin */
  float jump2;               /* squared root jump that resets: (3 x the chain's length)^2 */
  float root_velocity[3];    /* its root's animated velocity over the last frame (units/s) */
  uint32_t node_count;
  tress_id *ids;             /* bone or part per node, parents first */
  int32_t *local_parent;     /* -1 for a root */
  uint32_t *depth;
  uint32_t *global;          /* index into chain_nodes, valid after a rebuild */
  tress_xform *rest;         /* bones: cframe; parts: offset from the previous part at bind */
  bool fresh;                /* bound since the last frame: start where it is drawn */
  float act_last;            /* the activity mask its nodes carry (-1: unknown, refill) */
  tress_xform last_part;     /* the part's last finite frame: stands in for a NaN one */
  tress_xform prev_part;     /* last frame's anchor: the substeps interpolate from it */
  tress_xform pin;           /* the anchor where the last substep left the chain */
  float carry[7];            /* this frame's carry: rotation q, translation t (R p + t) */
  tress_handle_id handle;
  tress_id root_bone;
  chain_params settings;     /* sanitized; the collider set lives in c->own_sets */
} chain_slot;

struct tress_chains {
  chain_slot *slots;
  uint32_t slot_count, slot_cap;
  uint32_t slot_hint; /* no free slot below it: binding scans from here, not from 0 */
  /* Colliders: one set per slot (parallel to slots, what the lanes gather reads), one lane per
   * set filled once per frame, and how many chains use any (0: no collider work at all). */
  tress_collider_set *sets;
  tress_collider_set *own_sets; /* each slot's set, awake or not (cold, parallel to slots) */
  tress_collider_lanes lanes;
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
   * level (-1 when not), and the same for first_child; such a level reads in place, no gather. */
  int64_t *parent_shift, *child_shift;
  /* Per tile-level: position j of the level holds a node of the same chain as position j of
   * the tile's level 0 (uniform chains): per-chain lanes filled for level 0 serve it too. */
  uint8_t *aligned;
  /* Per node, global order: the chain slot, and cached pointers to the scene's animated and
   * transform slots (part chains and vanished bones point at `identity` / `sink`). The pointers
   * are valid for scene layout epoch `ptr_epoch`; they are re-fetched when it changes. */
  uint32_t *node_slot;
  /* Tiles: runs of whole chains (consecutive slots) of about TILE_NODES nodes, stored one after
   * the other (tile-major). A frame runs every phase for one tile before the next, so a tile's
   * data stays in cache from the scene read to the scene write. Inside a tile, level l holds
   * real nodes [tile_lo, tile_fill) and inert padding up to tile_hi (t * level_count + l). */
  uint32_t tile_count;
  uint32_t *tile_slot; /* tile_count + 1 entries: first slot of each tile, then slot_count */
  uint32_t *tile_end;  /* tile_count + 1 entries: one past the tile's last node */
  uint32_t *tile_lo, *tile_fill, *tile_hi;
  const tress_xform **in_ptr;
  tress_xform **out_ptr;
  uint32_t ptr_cap;
  uint64_t ptr_epoch;
  bool ptr_valid;
  tress_xform identity, sink;
  bool wide; /* scene reads and writes go eight at a time (AVX2) */
  /* Render carry (carry_tile). A frame whose last substep lands exactly on it (the common 60 Hz
   * case) leaves every chain's pin implicitly at that frame's anchor and costs nothing; the
   * next frame, if it takes no substep, turns those implicit pins into explicit ones. */
  uint64_t frame_index;
  uint64_t implicit_pins; /* frame whose anchors are every chain's pin (0: pins are explicit) */
  uint8_t carry_mode;     /* CARRY_* for this frame */
};

static float *const *field_ptrs(const chain_nodes *n, uint32_t *count);

/* A tile-level's node range, and its index into the per tile-level tables. */
#define TILE_LO(c, t, l) ((c)->tile_lo[(size_t)(t) * (c)->level_count + (l)])
#define TILE_HI(c, t, l) ((c)->tile_hi[(size_t)(t) * (c)->level_count + (l)])
#define TILE_LEVEL(c, t, l) ((size_t)(t) * (c)->level_count + (l))

struct tress_chains *tress__chains_create(void) {
  struct tress_chains *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->identity = c->sink = tress_xform_identity();
  c->wide = tress__xform_lanes_wide();
  return c;
}

static void nodes_free(chain_nodes *n) {
#define FREE_FIELD(name) free(n->name);
  CHAIN_FIELDS(FREE_FIELD)
#undef FREE_FIELD
  free(n->parent);
  free(n->first_child);
  memset(n, 0, sizeof *n);
}

static void slot_free(chain_slot *s) {
  free(s->ids);
  free(s->local_parent);
  free(s->depth);
  free(s->global);
  free(s->rest);
  memset(s, 0, sizeof *s);
}

void tress__chains_destroy(struct tress_chains *c) {
  if (!c) return;
  for (uint32_t i = 0; i < c->slot_count; i++)
    if (c->slots[i].used) slot_free(&c->slots[i]);
  free(c->slots);
  free(c->sets);
  free(c->own_sets);
  tress_collider_lanes_free(&c->lanes);
  tress_collider_lanes_free(&c->tile_lanes);
  free(c->tile_flags);
  nodes_free(&c->nodes);
#define FREE_TILE_FIELD(name) free(c->tile.name);
  TILE_FIELDS(FREE_TILE_FIELD)
#undef FREE_TILE_FIELD
  for (int k = 0; k < G_SCRATCH; k++) free(c->g[k]);
  free(c->parent_shift);
  free(c->child_shift);
  free(c->aligned);
  free(c->node_slot);
  free(c->tile_slot);
  free(c->tile_end);
  free(c->tile_lo);
  free(c->tile_fill);
  free(c->tile_hi);
  free(c->in_ptr);
  free(c->out_ptr);
  free(c);
}

/* Node arrays start on a cache line, so padded level runs are whole aligned vectors. */
static float *floats_alloc(uint32_t count) {
  size_t bytes = ((size_t)(count ? count : 1) * sizeof(float) + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

/* Scratch needs no contents kept: free, then a fresh aligned block. */
static float *aligned_realloc_floats(float *old, uint32_t count) {
  free(old);
  return floats_alloc(count);
}

static bool nodes_alloc(chain_nodes *n, uint32_t cap) {
  memset(n, 0, sizeof *n);
  bool ok = true;
#define ALLOC_FIELD(name) ok = ok && (n->name = floats_alloc(cap)) != NULL;
  CHAIN_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
  ok = ok && (n->parent = malloc((cap ? cap : 1) * sizeof(int32_t))) != NULL;
  ok = ok && (n->first_child = malloc((cap ? cap : 1) * sizeof(int32_t))) != NULL;
  n->cap = cap;
  if (!ok) nodes_free(n);
  return ok;
}

/* ---- settings ---- */

static float clamp01(float v, float fallback) {
  if (!isfinite(v)) return fallback;
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static tress_chain_settings sanitize(const tress_chain_settings *in) {
  tress_chain_settings d = tress_default_chain_settings();
  if (!in) return d;
  tress_chain_settings s = *in;
  s.damping = clamp01(in->damping, d.damping);
  s.stiffness = clamp01(in->stiffness, d.stiffness);
  s.gravity_scale = isfinite(in->gravity_scale) ? in->gravity_scale : d.gravity_scale;
  s.wind_scale = isfinite(in->wind_scale) ? in->wind_scale : d.wind_scale;
  s.radius = isfinite(in->radius) && in->radius > 0.0f ? in->radius : 0.0f;
  s.end_length = isfinite(in->end_length) && in->end_length > 0.0f ? in->end_length : 0.0f;
  s.wind_gust = clamp01(in->wind_gust, d.wind_gust);
  s.wind_frequency = isfinite(in->wind_frequency) && in->wind_frequency > 0.0f ? in->wind_frequency : 0.0f;
  s.weight = clamp01(in->weight, d.weight);
  return s;
}

static bool settings_valid(const tress_chain_settings *s) {
  return !s || (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) &&
                isfinite(s->wind_scale) && isfinite(s->radius) && isfinite(s->end_length) &&
                isfinite(s->wind_gust) && isfinite(s->wind_frequency) && isfinite(s->weight) &&
                s->collider_count <= TRESS_CHAIN_COLLIDERS_MAX);
}

/* The settings' collider ids as a set of indices; false when one is stale. */
static bool settings_set(const tress_sim *sim, const tress_chain_settings *s, tress_collider_set *out) {
  memset(out, 0, sizeof *out);
  if (!s) return true;
  for (uint32_t k = 0; k < s->collider_count; k++) {
    int32_t i = tress__collider_index(sim, s->colliders[k]);
    if (i < 0) return false;
    tress_collider_set_add(out, (uint16_t)i);
  }
  return true;
}

/* What the lanes gather reads for a slot: its set while awake, nothing while asleep or disabled. */
static void sync_set(struct tress_chains *c, uint32_t si) {
  const chain_slot *s = &c->slots[si];
  if (s->used && s->act_last != 0.0f && !(s->features & FEAT_DISABLED)) c->sets[si] = c->own_sets[si];
  else memset(&c->sets[si], 0, sizeof c->sets[si]);
}

/* One slot's feature byte from its settings (none once unused), keeping the count of chains
 * that use colliders. Per slot, so binding one chain costs the same however many are bound. */
static void slot_features(struct tress_chains *c, uint32_t si) {
  chain_slot *s = &c->slots[si];
  if (s->features & FEAT_COLLIDES) c->collider_chains--;
  uint8_t was_disabled = s->features & FEAT_DISABLED;
  s->features = 0;
  if (!s->used) return;
  const chain_params *st = &s->settings;
  s->features = (uint8_t)((c->own_sets[si].count > 0 ? FEAT_COLLIDES : 0u) |
                          (!st->enabled || st->weight < 1.0f ? FEAT_WEIGHTED : 0u) |
                          (st->wind_gust > 0.0f ? FEAT_GUSTY : 0u) | (!st->enabled ? FEAT_DISABLED : 0u));
  if (s->features & FEAT_COLLIDES) c->collider_chains++;
  /* enabled toggled: refill the node masks (the substep mask depends on it) */
  if ((s->features & FEAT_DISABLED) != was_disabled && s->act_last >= 0.0f) s->act_last = -1.0f;
}

void tress__chains_forget_collider(tress_sim *sim, uint32_t index) {
  struct tress_chains *c = sim->chains;
  for (uint32_t i = 0; i < c->slot_count; i++) {
    chain_slot *s = &c->slots[i];
    if (!s->used) continue;
    tress_collider_set *set = &c->own_sets[i];
    uint32_t w = 0;
    for (uint32_t k = 0; k < set->count; k++)
      if (set->index[k] != index) set->index[w++] = set->index[k];
    set->count = w;
    sync_set(c, i);
    slot_features(c, i);
  }
}

/* ---- binding ---- */

static uint32_t slot_new(struct tress_chains *c) {
  while (c->slot_hint < c->slot_count && c->slots[c->slot_hint].used) c->slot_hint++;
  if (c->slot_hint < c->slot_count) return c->slot_hint;
  if (c->slot_count == c->slot_cap) {
    uint32_t cap = c->slot_cap ? c->slot_cap * 2 : 16;
    chain_slot *b = realloc(c->slots, cap * sizeof *b);
    if (!b) return UINT32_MAX;
    c->slots = b;
    tress_collider_set *sets = realloc(c->sets, cap * sizeof *sets);
    if (!sets) return UINT32_MAX;
    c->sets = sets;
    tress_collider_set *own = realloc(c->own_sets, cap * sizeof *own);
    if (!own) return UINT32_MAX;
    c->own_sets = own;
    c->slot_cap = cap;
  }
  memset(&c->slots[c->slot_count], 0, sizeof(chain_slot));
  memset(&c->sets[c->slot_count], 0, sizeof(tress_collider_set));
  memset(&c->own_sets[c->slot_count], 0, sizeof(tress_collider_set));
  return c->slot_count++;
}

static bool slot_reserve(chain_slot *s, uint32_t n) {
  s->ids = calloc(n, sizeof *s->ids);
  s->local_parent = calloc(n, sizeof *s->local_parent);
  s->depth = calloc(n, sizeof *s->depth);
  s->global = calloc(n, sizeof *s->global);
  s->rest = calloc(n, sizeof *s->rest);
  return s->ids && s->local_parent && s->depth && s->global && s->rest;
}

static void slot_free_nodes(chain_slot *s) {
  free(s->ids);
  free(s->local_parent);
  free(s->depth);
  free(s->global);
  free(s->rest);
  s->ids = NULL;
  s->local_parent = NULL;
  s->depth = NULL;
  s->global = NULL;
  s->rest = NULL;
  s->node_count = 0;
}

typedef struct bone_walk {
  const tress_scene *scene;
  chain_slot *slot; /* NULL: count only */
  uint32_t count;
} bone_walk;

static void walk_visit(bone_walk *w, tress_id bone, int32_t parent_local, uint32_t depth);

/* Pre-order over the bone hierarchies under a part or bone: parents always come first. */
static void walk_bones(bone_walk *w, tress_id parent, int32_t parent_local, uint32_t depth) {
  for (tress_id c = tress_instance_first_child(w->scene, parent); !tress_id_is_null(c);
       c = tress_instance_next_sibling(w->scene, c)) {
    if (tress_instance_kind(w->scene, c) != TRESS_KIND_BONE) continue;
    walk_visit(w, c, parent_local, depth);
  }
}

static void walk_visit(bone_walk *w, tress_id bone, int32_t parent_local, uint32_t depth) {
  uint32_t me = w->count++;
  if (w->slot) {
    w->slot->ids[me] = bone;
    w->slot->local_parent[me] = parent_local;
    w->slot->depth[me] = depth;
    w->slot->rest[me] = tress_bone_cframe(w->scene, bone);
  }
  if (depth < 255) walk_bones(w, bone, (int32_t)me, depth + 1);
}

/* (Re)builds a bone slot's node list from the scene: the bones under s->part (or from
 * s->root_bone down), then one virtual tip per leaf when end_length > 0. A tip has a null id
 * (it reads identity and writes nowhere) and a rest offset of end_length along its leaf's
 * parent-to-leaf direction in the leaf's frame (+Y for a leaf that is a root, or sits on its
 * parent). Also the chain's length for the jump reset. */
static tress_result slot_build_bones(tress_sim *sim, chain_slot *s) {
  bone_walk w = {sim->scene, NULL, 0};
  if (s->from_bone) walk_visit(&w, s->root_bone, -1, 0);
  else walk_bones(&w, s->part, -1, 0);
  if (w.count == 0) return TRESS_ERR_NOTHING_TO_BIND;
  uint32_t bones = w.count;
  float tip = s->settings.end_length;
  slot_free_nodes(s);
  /* worst case every bone is a leaf: one tip each */
  if (!slot_reserve(s, tip > 0.0f ? 2 * bones : bones)) return TRESS_ERR_OUT_OF_MEMORY;
  w.slot = s;
  w.count = 0;
  if (s->from_bone) walk_visit(&w, s->root_bone, -1, 0);
  else walk_bones(&w, s->part, -1, 0);
  s->node_count = bones;
  /* A non-finite rest pose would poison every pose below it: refuse the bind. */
  for (uint32_t i = 0; i < bones; i++)
    if (!tress_xform_is_finite(s->rest[i])) return TRESS_ERR_INVALID_ARGUMENT;
  if (tip > 0.0f) {
    bool *has_child = calloc(bones, sizeof *has_child);
    if (!has_child) return TRESS_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < bones; i++)
      if (s->local_parent[i] >= 0) has_child[s->local_parent[i]] = true;
    for (uint32_t i = 0; i < bones; i++) {
      if (has_child[i] || s->depth[i] >= 255) continue;
      float dir[3] = {0.0f, 1.0f, 0.0f};
      if (s->local_parent[i] >= 0) {
        float d[3];
        tress_quat_rotate_inv(s->rest[i].q, s->rest[i].p, d);
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 1e-6f)
          for (int k = 0; k < 3; k++) dir[k] = d[k] / len;
      }
      uint32_t t = s->node_count++;
      s->ids[t] = TRESS_NULL_ID;
      s->local_parent[t] = (int32_t)i;
      s->depth[t] = s->depth[i] + 1;
      s->rest[t] = tress_xform_from_pos(dir[0] * tip, dir[1] * tip, dir[2] * tip);
    }
    free(has_child);
  }
  return TRESS_OK;
}

/* The longest rest path from a root (tips included): what "a few chain lengths" measures. */
static void slot_measure(chain_slot *s) {
  float reach = 0.0f;
  float *path = calloc(s->node_count ? s->node_count : 1, sizeof *path);
  if (path) {
    for (uint32_t k = 0; k < s->node_count; k++) {
      if (s->local_parent[k] < 0) continue;
      const float *p = s->rest[k].p;
      path[k] = path[s->local_parent[k]] + sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      if (path[k] > reach) reach = path[k];
    }
    free(path);
  }
  float jump = TRESS_JUMP_RESET_CHAINS * reach;
  /* a chain with no length has nothing to whip; keep the check from firing on rounding */
  if (jump < 1e-3f) jump = 1e-3f;
  s->jump2 = jump * jump;
}

static void set_bones_simulated(tress_scene *scene, const chain_slot *s, bool on) {
  for (uint32_t i = 0; i < s->node_count; i++)
    if (!tress_id_is_null(s->ids[i])) tress_bone_set_simulated(scene, s->ids[i], on);
}

static tress_result bind_bones(tress_sim *sim, tress_id anchor, tress_id root_bone, tress_id handle_root,
                               const tress_chain_settings *settings, tress_handle_id *out) {
  tress_collider_set set;
  if (!settings_set(sim, settings, &set)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  uint32_t si = slot_new(c);
  if (si == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;
  chain_slot *s = &c->slots[si];
  s->kind = TRESS_HANDLE_BONES;
  s->part = anchor;
  s->from_bone = !tress_id_is_null(root_bone);
  s->root_bone = root_bone;
  s->last_part = s->prev_part = s->pin = tress_xform_identity();
  s->settings = params_of(sanitize(settings));
  c->own_sets[si] = set;
  s->fresh = true;
  tress_result r = slot_build_bones(sim, s);
  if (r != TRESS_OK) {
    slot_free(s);
    return r;
  }
  slot_measure(s);
  s->used = true;
  set_bones_simulated(sim->scene, s, true);
  tress_handle_id h = tress__handle_alloc(sim, TRESS_HANDLE_BONES, handle_root, si);
  if (tress_handle_is_null(h)) {
    set_bones_simulated(sim->scene, s, false);
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->handle = h;
  sync_set(c, si);
  slot_features(c, si);
  c->dirty = true;
  if (out) *out = h;
  return TRESS_OK;
}

tress_result tress_sim_bind(tress_sim *sim, tress_id root_part, const tress_chain_settings *settings,
                            tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_valid(sim->scene, root_part)) return TRESS_ERR_STALE_ID;
  if (tress_instance_kind(sim->scene, root_part) != TRESS_KIND_PART) return TRESS_ERR_INVALID_ARGUMENT;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle_id existing = tress__handle_find(sim, TRESS_HANDLE_BONES, root_part);
  if (!tress_handle_is_null(existing)) {
    if (out) *out = existing;
    return TRESS_OK;
  }
  return bind_bones(sim, root_part, TRESS_NULL_ID, root_part, settings, out);
}

tress_result tress_sim_bind_bone_chain(tress_sim *sim, tress_id root_bone, const tress_chain_settings *settings,
                                       tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_valid(sim->scene, root_bone)) return TRESS_ERR_STALE_ID;
  if (tress_instance_kind(sim->scene, root_bone) != TRESS_KIND_BONE) return TRESS_ERR_INVALID_ARGUMENT;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_id anchor = tress_instance_parent(sim->scene, root_bone);
  tress_kind ak = tress_instance_kind(sim->scene, anchor);
  if (ak != TRESS_KIND_PART && ak != TRESS_KIND_BONE) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle_id existing = tress__handle_find(sim, TRESS_HANDLE_BONES, root_bone);
  if (!tress_handle_is_null(existing)) {
    if (out) *out = existing;
    return TRESS_OK;
  }
  return bind_bones(sim, anchor, root_bone, root_bone, settings, out);
}

tress_result tress_sim_bind_parts(tress_sim *sim, const tress_id *parts, uint32_t count,
                                  const tress_chain_settings *settings, tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim || (!parts && count)) return TRESS_ERR_INVALID_ARGUMENT;
  if (count < 2) return TRESS_ERR_TOO_FEW_PARTS;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  if (!settings_set(sim, settings, &set)) return TRESS_ERR_STALE_ID;
  for (uint32_t i = 0; i < count; i++) {
    if (!tress_instance_valid(sim->scene, parts[i])) return TRESS_ERR_STALE_ID;
    if (tress_instance_kind(sim->scene, parts[i]) != TRESS_KIND_PART) return TRESS_ERR_INVALID_ARGUMENT;
    if (!tress_xform_is_finite(tress_part_cframe(sim->scene, parts[i]))) return TRESS_ERR_INVALID_ARGUMENT;
  }
  struct tress_chains *c = sim->chains;
  uint32_t si = slot_new(c);
  if (si == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;
  chain_slot *s = &c->slots[si];
  if (!slot_reserve(s, count)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->used = true;
  s->kind = TRESS_HANDLE_PARTS;
  s->part = parts[0];
  s->last_part = s->prev_part = s->pin = tress_xform_identity();
  s->settings = params_of(sanitize(settings));
  c->own_sets[si] = set;
  s->node_count = count;
  s->fresh = true;
  for (uint32_t i = 0; i < count; i++) {
    s->ids[i] = parts[i];
    s->local_parent[i] = (int32_t)i - 1;
    s->depth[i] = i;
    s->rest[i] = i == 0 ? tress_xform_identity()
                        : tress_xform_inv_mul(tress_part_cframe(sim->scene, parts[i - 1]),
                                              tress_part_cframe(sim->scene, parts[i]));
  }
  slot_measure(s);
  tress_handle_id h = tress__handle_alloc(sim, TRESS_HANDLE_PARTS, parts[0], si);
  if (tress_handle_is_null(h)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->handle = h;
  sync_set(c, si);
  slot_features(c, si);
  c->dirty = true;
  if (out) *out = h;
  return TRESS_OK;
}

void tress__chains_unbind(tress_sim *sim, tress_handle *h) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count) return;
  chain_slot *s = &c->slots[h->slot];
  if (!s->used) return;
  if (s->kind == TRESS_HANDLE_BONES) {
    /* Give every bone back: its animated value (identity when nothing animates it). */
    for (uint32_t i = 0; i < s->node_count; i++) {
      if (tress_id_is_null(s->ids[i])) continue; /* an end tip */
      tress_bone_set_simulated(sim->scene, s->ids[i], false);
      tress_bone_set_transform(sim->scene, s->ids[i], tress_bone_animated(sim->scene, s->ids[i]));
    }
  }
  s->used = false;
  slot_features(c, h->slot); /* drops its collider count */
  slot_free(s);
  memset(&c->sets[h->slot], 0, sizeof c->sets[h->slot]);
  memset(&c->own_sets[h->slot], 0, sizeof c->own_sets[h->slot]);
  if (h->slot < c->slot_hint) c->slot_hint = h->slot;
  c->dirty = true;
}

/* Per-node copies of a slot's settings (static until the settings change). */
static void fill_node_settings(chain_nodes *n, const chain_slot *s) {
  const chain_params *st = &s->settings;
  float weight = st->enabled ? st->weight : 0.0f;
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k];
    n->damping[i] = st->damping;
    n->stiffness[i] = st->stiffness;
    n->gscale[i] = st->gravity_scale;
    n->wscale[i] = st->wind_scale;
    n->radius[i] = st->radius;
    n->weight[i] = weight;
  }
}

tress_result tress_handle_set_chain_settings(tress_sim *sim, tress_handle_id id, const tress_chain_settings *in) {
  tress_handle *h = tress__handle_get(sim, id);
  if (!h) return TRESS_ERR_STALE_ID;
  if (h->kind != TRESS_HANDLE_BONES && h->kind != TRESS_HANDLE_PARTS) return TRESS_ERR_INVALID_ARGUMENT;
  if (!in || !settings_valid(in)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  if (!settings_set(sim, in, &set)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  chain_slot *s = &c->slots[h->slot];
  tress_chain_settings next = sanitize(in);
  if (s->kind == TRESS_HANDLE_BONES && next.end_length != s->settings.end_length) {
    /* tips come and go: rebuild the node list aside, swap it in only when it worked; the
     * chain restarts from its animated pose */
    chain_slot tmp = *s;
    tmp.ids = NULL;
    tmp.local_parent = NULL;
    tmp.depth = NULL;
    tmp.global = NULL;
    tmp.rest = NULL;
    tmp.settings = params_of(next);
    tress_result r = slot_build_bones(sim, &tmp);
    if (r != TRESS_OK) {
      slot_free_nodes(&tmp);
      return r;
    }
    slot_free_nodes(s);
    *s = tmp;
    slot_measure(s);
    s->fresh = true;
    c->dirty = true;
  }
  s->settings = params_of(next);
  c->own_sets[h->slot] = set;
  slot_features(c, h->slot);
  sync_set(c, h->slot);
  if (!c->dirty) {
    fill_node_settings(&c->nodes, s);
  }
  return TRESS_OK;
}

/* ---- layout rebuild ---- */

/* Nodes per tile: small enough that a tile's arrays (~200 bytes a node) sit in L2. */
#define TILE_NODES 2048
/* Every level run of a tile is padded with inert nodes to a whole number of AVX-512 vectors,
 * so the level loops have no scalar remainder (and level starts stay 64-byte aligned). */
#define LEVEL_LANES 16u

static uint32_t round_lanes(uint32_t n) { return (n + LEVEL_LANES - 1) / LEVEL_LANES * LEVEL_LANES; }

/* A level run's length. It is always whole vectors; the mask says so to the compiler, which
 * then emits no scalar remainder loop. */
static inline uint32_t padded_count(uint32_t lo, uint32_t hi) { return (hi - lo) & ~(LEVEL_LANES - 1); }

static bool ensure_scratch(struct tress_chains *c, uint32_t n) {
  if (n <= c->g_cap) return true;
  c->g_cap = 0;
  bool ok = true;
  for (int k = 0; k < G_SCRATCH; k++) ok = (c->g[k] = aligned_realloc_floats(c->g[k], n)) != NULL && ok;
  if (ok) c->g_cap = n;
  return ok;
}

static bool ensure_tile_scratch(tile_scratch *w, uint32_t n) {
  if (n <= w->cap) return true;
  w->cap = 0;
  bool ok = true;
#define GROW_TILE_FIELD(name) ok = (w->name = aligned_realloc_floats(w->name, n)) != NULL && ok;
  TILE_FIELDS(GROW_TILE_FIELD)
#undef GROW_TILE_FIELD
  if (ok) w->cap = n;
  return ok;
}

/* The constant distance from every node of tile-level tl to its parent (toward_children: to its
 * first child), or -1 when the nodes disagree. Real nodes must all agree; the padding must land
 * inside the neighbouring level of the same tile, so its in-place reads stay inert. */
static int64_t level_shift(const struct tress_chains *c, uint32_t t, uint32_t l, bool toward_children) {
  const chain_nodes *n = &c->nodes;
  uint32_t L = c->level_count, tl = t * L + l;
  if (toward_children ? l + 1 >= L : l == 0) return -1;
  uint32_t lo = c->tile_lo[tl], fill = c->tile_fill[tl], hi = c->tile_hi[tl];
  uint32_t nb = toward_children ? tl + 1 : tl - 1; /* the neighbouring level */
  const int32_t *link = toward_children ? n->first_child : n->parent;
  if (fill == lo || link[lo] < 0) return -1;
  int64_t shift = toward_children ? (int64_t)link[lo] - lo : (int64_t)lo - link[lo];
  for (uint32_t i = lo; i < fill; i++) {
    int64_t d = toward_children ? (int64_t)link[i] - i : (int64_t)i - link[i];
    if (link[i] < 0 || d != shift) return -1;
  }
  int64_t first = toward_children ? (int64_t)lo + shift : (int64_t)lo - shift;
  int64_t last = toward_children ? (int64_t)hi - 1 + shift : (int64_t)hi - 1 - shift;
  if (first < c->tile_lo[nb] || last >= c->tile_hi[nb]) return -1;
  return shift;
}

/* Per-node slot index, pointer caches (re-fetched next frame) and the per tile-level shifts that
 * let a level whose parents (children) sit at a constant distance skip its gathers. */
static bool index_levels(struct tress_chains *c, uint32_t total) {
  if (total > c->ptr_cap) {
    uint32_t *ns = realloc(c->node_slot, total * sizeof *ns);
    if (ns) c->node_slot = ns;
    const tress_xform **ip = realloc(c->in_ptr, total * sizeof *ip);
    if (ip) c->in_ptr = ip;
    tress_xform **op = realloc(c->out_ptr, total * sizeof *op);
    if (op) c->out_ptr = op;
    if (!ns || !ip || !op) return false;
    c->ptr_cap = total;
  }
  size_t tls = (size_t)c->tile_count * c->level_count + 1;
  int64_t *ps = realloc(c->parent_shift, tls * sizeof *ps);
  if (ps) c->parent_shift = ps;
  int64_t *cs = realloc(c->child_shift, tls * sizeof *cs);
  if (cs) c->child_shift = cs;
  uint8_t *al = realloc(c->aligned, tls);
  if (al) c->aligned = al;
  if (!ps || !cs || !al) return false;
  for (uint32_t t = 0; t < c->tile_count; t++) {
    /* padding belongs to the tile's first chain: valid for the collider lanes, never read back */
    for (uint32_t i = c->tile_lo[(size_t)t * c->level_count]; i < c->tile_end[t]; i++) {
      c->node_slot[i] = c->tile_slot[t];
      c->in_ptr[i] = &c->identity;
      c->out_ptr[i] = &c->sink;
    }
  }
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    s->act_last = -1.0f;
    for (uint32_t k = 0; k < s->node_count; k++) c->node_slot[s->global[k]] = si;
  }
  for (uint32_t t = 0; t < c->tile_count; t++)
    for (uint32_t l = 0; l < c->level_count; l++) {
      size_t tl = (size_t)t * c->level_count + l;
      c->parent_shift[tl] = level_shift(c, t, l, false);
      c->child_shift[tl] = level_shift(c, t, l, true);
      c->aligned[tl] = l == 0 || (c->aligned[tl - 1] && c->parent_shift[tl] >= 0 &&
                                  (int64_t)c->tile_lo[tl] - c->parent_shift[tl] == (int64_t)c->tile_lo[tl - 1]);
    }
  c->ptr_valid = false;
  return true;
}

/* Inert padding and fresh nodes: zeros everywhere (finite, so masked blends stay finite) and
 * identity rotations. */
static void node_clear(chain_nodes *n, uint32_t i) {
  uint32_t nf;
  float *const *f = field_ptrs(n, &nf);
  for (uint32_t k = 0; k < nf; k++) f[k][i] = 0.0f;
  n->cf_qw[i] = 1.0f;
  n->parent[i] = n->first_child[i] = -1;
}

/* Tiles are runs of whole chains (consecutive used slots) of about TILE_NODES nodes. Inside a
 * tile, nodes go level by level and chain by chain inside a level, each level padded to whole
 * vectors: tile t, level l holds real nodes [tile_lo, tile_fill) and padding up to tile_hi. */
static bool plan_tiles(struct tress_chains *c, uint32_t levels, uint32_t *total_out) {
  uint32_t tiles = 0, in_tile = TILE_NODES;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    if (!c->slots[si].used) continue;
    if (in_tile >= TILE_NODES) {
      tiles++;
      in_tile = 0;
    }
    in_tile += c->slots[si].node_count;
  }
  size_t tl = (size_t)(tiles ? tiles : 1) * (levels ? levels : 1);
  uint32_t *tile_slot = malloc((tiles + 1) * sizeof *tile_slot);
  uint32_t *tile_end = malloc((tiles + 1) * sizeof *tile_end);
  uint32_t *lo = malloc(tl * sizeof *lo), *fill = calloc(tl, sizeof *fill), *hi = malloc(tl * sizeof *hi);
  uint8_t *flags = calloc(tiles + 1, 1);
  if (!tile_slot || !tile_end || !lo || !fill || !hi || !flags) {
    free(tile_slot); free(tile_end); free(lo); free(fill); free(hi); free(flags);
    return false;
  }
  uint32_t t = 0;
  in_tile = TILE_NODES;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    if (!c->slots[si].used) continue;
    if (in_tile >= TILE_NODES) {
      tile_slot[t++] = si;
      in_tile = 0;
    }
    in_tile += c->slots[si].node_count;
  }
  tile_slot[tiles] = c->slot_count;
  uint32_t total = 0;
  for (t = 0; t < tiles; t++) {
    uint32_t *width = fill + (size_t)t * levels;
    for (uint32_t si = tile_slot[t]; si < tile_slot[t + 1]; si++) {
      const chain_slot *s = &c->slots[si];
      if (!s->used) continue;
      for (uint32_t k = 0; k < s->node_count; k++) width[s->depth[k]]++;
    }
    for (uint32_t l = 0; l < levels; l++) {
      uint32_t w = width[l];
      lo[(size_t)t * levels + l] = total;
      width[l] = total + w; /* the count becomes the end of the real nodes */
      total += round_lanes(w);
      hi[(size_t)t * levels + l] = total;
    }
    tile_end[t] = total;
  }
  tile_end[tiles] = total;
  free(c->tile_slot); free(c->tile_end); free(c->tile_lo); free(c->tile_fill); free(c->tile_hi);
  free(c->tile_flags);
  c->tile_slot = tile_slot;
  c->tile_end = tile_end;
  c->tile_lo = lo;
  c->tile_fill = fill;
  c->tile_hi = hi;
  c->tile_flags = flags;
  c->tile_count = tiles;
  c->level_count = levels;
  *total_out = total;
  return true;
}

static bool rebuild(struct tress_chains *c) {
  uint32_t levels = 0, total = 0;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    for (uint32_t k = 0; k < s->node_count; k++)
      if (s->depth[k] + 1 > levels) levels = s->depth[k] + 1;
  }
  if (!plan_tiles(c, levels, &total)) return false;
  uint32_t widest = 1;
  for (size_t k = 0; k < (size_t)c->tile_count * levels; k++)
    if (c->tile_hi[k] - c->tile_lo[k] > widest) widest = c->tile_hi[k] - c->tile_lo[k];
  if (!ensure_scratch(c, widest)) return false;
  c->root_width = 0;
  for (uint32_t t = 0; t < c->tile_count; t++)
    if (TILE_HI(c, t, 0) - TILE_LO(c, t, 0) > c->root_width) c->root_width = TILE_HI(c, t, 0) - TILE_LO(c, t, 0);
  uint32_t tile_nodes = 1;
  for (uint32_t t = 0; t < c->tile_count; t++)
    if (c->tile_end[t] - c->tile_lo[(size_t)t * levels] > tile_nodes) tile_nodes = c->tile_end[t] - c->tile_lo[(size_t)t * levels];
  if (!ensure_tile_scratch(&c->tile, tile_nodes)) return false;
  uint32_t *cursor = malloc((levels ? levels : 1) * sizeof *cursor);
  chain_nodes fresh;
  if (!cursor || !nodes_alloc(&fresh, total)) {
    free(cursor);
    return false;
  }
  fresh.count = total;
  for (uint32_t i = 0; i < total; i++) node_clear(&fresh, i);
  chain_nodes *old = &c->nodes;
  uint32_t nf;
  float *const *from = field_ptrs(old, &nf);
  float *const *to = field_ptrs(&fresh, &nf);
  for (uint32_t t = 0; t < c->tile_count; t++) {
    memcpy(cursor, c->tile_lo + (size_t)t * levels, levels * sizeof *cursor);
    for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
      chain_slot *s = &c->slots[si];
      if (!s->used) continue;
      for (uint32_t k = 0; k < s->node_count; k++) {
        uint32_t i = cursor[s->depth[k]]++;
        /* carry the state over; fresh chains keep the cleared node */
        if (!s->fresh)
          for (uint32_t f = 0; f < nf; f++) to[f][i] = from[f][s->global[k]];
        s->global[k] = i;
      }
    }
  }
  free(cursor);
  /* Static per-node data comes from the cold slots. */
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    for (uint32_t k = 0; k < s->node_count; k++) {
      uint32_t i = s->global[k];
      tress_xform r = s->rest[k];
      fresh.cf_px[i] = r.p[0]; fresh.cf_py[i] = r.p[1]; fresh.cf_pz[i] = r.p[2];
      fresh.cf_qx[i] = r.q[0]; fresh.cf_qy[i] = r.q[1]; fresh.cf_qz[i] = r.q[2]; fresh.cf_qw[i] = r.q[3];
      fresh.rest_len[i] = s->local_parent[k] < 0 ? 0.0f : sqrtf(r.p[0] * r.p[0] + r.p[1] * r.p[1] + r.p[2] * r.p[2]);
      fresh.parent[i] = s->local_parent[k] < 0 ? -1 : (int32_t)s->global[s->local_parent[k]];
      fresh.first_child[i] = -1;
      fresh.aim_x[i] = fresh.aim_y[i] = fresh.aim_z[i] = 0.0f;
      fresh.active[i] = 0.0f;
      fresh.stepping[i] = 0.0f;
    }
    fill_node_settings(&fresh, s);
    /* First child in bind order: the one a bone with several children aims at. */
    for (uint32_t k = s->node_count; k-- > 0;) {
      if (s->local_parent[k] < 0) continue;
      uint32_t p = s->global[s->local_parent[k]];
      fresh.first_child[p] = (int32_t)s->global[k];
      fresh.aim_x[p] = s->rest[k].p[0];
      fresh.aim_y[p] = s->rest[k].p[1];
      fresh.aim_z[p] = s->rest[k].p[2];
    }
  }
  nodes_free(old);
  c->nodes = fresh;
  if (!index_levels(c, total)) return false;
  c->dirty = false;
  return true;
}

static float *const *field_ptrs(const chain_nodes *n, uint32_t *count) {
  /* The struct is a run of float pointers followed by the index arrays. */
  *count = (uint32_t)(offsetof(chain_nodes, parent) / sizeof(float *));
  return (float *const *)n;
}

/* ---- frame ---- */

#define TILE_COLLIDES 1u
#define TILE_WEIGHTED 2u
#define TILE_CARRIED 4u /* some chain is drawn carried with its anchor since its last substep */

/* Points an awake chain's nodes at their scene slots, and a sleeping chain's at identity (read)
 * and the sink (write), so the scene read and write loops need no activity test. Part chains
 * read identity and write nowhere through this path (output_tile writes their cframes). */
static void slot_pointers(tress_sim *sim, struct tress_chains *c, const chain_slot *s, bool awake) {
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k];
    const tress_xform *in = NULL;
    tress_xform *out = NULL;
    if (awake && s->kind == TRESS_HANDLE_BONES) tress_bone_slot_pointers(sim->scene, &s->ids[k], 1, &in, &out);
    c->in_ptr[i] = in ? in : &c->identity;
    c->out_ptr[i] = out ? out : &c->sink;
  }
}

/* Fetch (again) the scene slot pointers of every node: the scene's layout moved. */
static void refresh_pointers(tress_sim *sim, struct tress_chains *c) {
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->slots[si].used) slot_pointers(sim, c, &c->slots[si], c->slots[si].act_last > 0.0f);
  c->ptr_epoch = tress_scene_layout_epoch(sim->scene);
  c->ptr_valid = true;
}

/* Decides which chains run this frame: a mask per node, refilled only when a chain's activity
 * changes. Also re-fetches the scene slot pointers when the scene's layout moved. */
static void update_activity(tress_sim *sim, struct tress_chains *c, const tress_frame *f) {
  chain_nodes *n = &c->nodes;
  if (!c->ptr_valid || c->ptr_epoch != tress_scene_layout_epoch(sim->scene)) refresh_pointers(sim, c);
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    float act = 0.0f;
    tress_handle *h = tress__handle_get(sim, s->handle);
    /* a frame without substeps still rewrites poses of a chain that is awake */
    if (h && h->eligible && (f->substeps > 0 || h->was_awake)) act = 1.0f;
    if (act != s->act_last) {
      /* a disabled chain is read and written (its animated pose, exactly) but never stepped */
      float step = (s->features & FEAT_DISABLED) ? 0.0f : act;
      for (uint32_t k = 0; k < s->node_count; k++) {
        n->active[s->global[k]] = act;
        n->stepping[s->global[k]] = step;
      }
      s->act_last = act;
      slot_pointers(sim, c, s, act != 0.0f);
      /* a sleeping or disabled chain tests no collider, so the push leaves its state alone */
      if (step) c->sets[si] = c->own_sets[si];
      else memset(&c->sets[si], 0, sizeof c->sets[si]);
    }
    if (!act && h) h->was_awake = false;
  }
}

/* True when every value of count floats in each of the arrays is finite. (v - v) is 0 for a
 * finite v and NaN otherwise; the integer OR keeps the loop a plain vectorizable reduction. */
HOT_LOOP static bool all_finite(const float *const *arrays, int array_count, uint32_t count) {
  int bad = 0;
  for (int k = 0; k < array_count; k++) {
    const float *restrict a = arrays[k];
    for (uint32_t j = 0; j < count; j++) bad |= (a[j] - a[j]) != 0.0f;
  }
  return !bad;
}

/* Reads the animated local of every node in [lo, hi) straight from the scene (a sleeping node
 * or padding reads identity: the tile scratch must hold finite values everywhere). A level
 * with a non-finite value gets those nodes' values replaced by identity. */
static void read_nodes(struct tress_chains *c, uint32_t lo, uint32_t hi) {
  const tress_xform *const *in = c->in_ptr;
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base, count = hi - lo;
  float *restrict apx = w->an_px + at, *restrict apy = w->an_py + at, *restrict apz = w->an_pz + at;
  float *restrict aqx = w->an_qx + at, *restrict aqy = w->an_qy + at, *restrict aqz = w->an_qz + at,
                  *restrict aqw = w->an_qw + at;
  float *const comp[7] = {apx, apy, apz, aqx, aqy, aqz, aqw};
  tress__xforms_read(in + lo, count, comp, c->wide);
  const float *const read[7] = {apx, apy, apz, aqx, aqy, aqz, aqw};
  if (all_finite(read, 7, count)) return;
  for (uint32_t j = 0; j < count; j++) {
    float probe = (apx[j] - apx[j]) + (apy[j] - apy[j]) + (apz[j] - apz[j]) + (aqx[j] - aqx[j]) +
                  (aqy[j] - aqy[j]) + (aqz[j] - aqz[j]) + (aqw[j] - aqw[j]);
    if (probe == 0.0f) continue;
    apx[j] = apy[j] = apz[j] = aqx[j] = aqy[j] = aqz[j] = 0.0f;
    aqw[j] = 1.0f;
  }
}

/* Pointers to one level's parent (or child) data: in place when every node of the level finds
 * it at the same distance (`shift`, from index_levels), else gathered into scratch through
 * `index` (-1 reads the node itself). `src` lists the source arrays, which hold node i at
 * [i - base] (base 0: the node arrays; the tile base: tile scratch); `dst` gets the view. */
static void level_view(struct tress_chains *c, uint32_t lo, uint32_t hi, int64_t shift, bool toward_children,
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

/* world = parent_world * cframe * animated over [lo, hi), parents given as a level view. */
HOT_LOOP static void compose_world(struct tress_chains *c, uint32_t lo, uint32_t hi, const float *const *par) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base;
  const float *restrict gpx = par[0], *restrict gpy = par[1], *restrict gpz = par[2];
  const float *restrict gqx = par[3], *restrict gqy = par[4], *restrict gqz = par[5], *restrict gqw = par[6];
  const float *restrict cpx = n->cf_px + lo, *restrict cpy = n->cf_py + lo, *restrict cpz = n->cf_pz + lo;
  const float *restrict cqx = n->cf_qx + lo, *restrict cqy = n->cf_qy + lo, *restrict cqz = n->cf_qz + lo,
                        *restrict cqw = n->cf_qw + lo;
  const float *restrict apx = w->an_px + at, *restrict apy = w->an_py + at, *restrict apz = w->an_pz + at;
  const float *restrict aqx = w->an_qx + at, *restrict aqy = w->an_qy + at, *restrict aqz = w->an_qz + at,
                        *restrict aqw = w->an_qw + at;
  float *restrict wpx = n->aw_px + lo, *restrict wpy = n->aw_py + lo, *restrict wpz = n->aw_pz + lo;
  float *restrict wqx = w->aw_qx + at, *restrict wqy = w->aw_qy + at, *restrict wqz = w->aw_qz + at,
                  *restrict wqw = w->aw_qw + at;
  uint32_t count = padded_count(lo, hi);
  /* the arrays never overlap (parents live in the previous level): let it vectorize */
#pragma GCC ivdep
  for (uint32_t j = 0; j < count; j++) {
    float q[4] = {gqx[j], gqy[j], gqz[j], gqw[j]};
    float cq[4] = {cqx[j], cqy[j], cqz[j], cqw[j]};
    float aq[4] = {aqx[j], aqy[j], aqz[j], aqw[j]};
    float cp[3] = {cpx[j], cpy[j], cpz[j]};
    float ap[3] = {apx[j], apy[j], apz[j]};
    /* base = parent * cframe; world = base * animated */
    float bq[4], wq[4], r[3], s[3];
    tress_quat_rotate(q, cp, r);
    tress_quat_mul(q, cq, bq);
    tress_quat_rotate(bq, ap, s);
    tress_quat_mul(bq, aq, wq);
    wpx[j] = gpx[j] + r[0] + s[0]; wpy[j] = gpy[j] + r[1] + s[1]; wpz[j] = gpz[j] + r[2] + s[2];
    wqx[j] = wq[0]; wqy[j] = wq[1]; wqz[j] = wq[2]; wqw[j] = wq[3];
  }
}

static void animated_world_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  const float *par[7];
  float *const pos[3] = {n->aw_px, n->aw_py, n->aw_pz};
  float *const rot[4] = {w->aw_qx, w->aw_qy, w->aw_qz, w->aw_qw};
  level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, pos, 0, 3, par, 0);
  level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, rot, w->base, 4, par + 3, 3);
  compose_world(c, lo, hi, par);
}

/* What a chain's roots hang from: its part, or for a chain bound from a root bone, the drawn
 * pose of the part or bone above that root. */
static tress_xform anchor_frame(const tress_sim *sim, const chain_slot *s) {
  return s->from_bone ? tress_instance_world(sim->scene, s->part) : tress_part_cframe(sim->scene, s->part);
}

/* Roots: part * cframe * animated, the same composition with the part as parent (a part
 * chain's pin has identity cframe and animated, so it lands on the part). One scene read per
 * chain; a non-finite part frame is replaced by its last finite one, so the chain holds. */
static void roots_world(tress_sim *sim, struct tress_chains *c, uint32_t t) {
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    tress_xform part = anchor_frame(sim, s);
    float probe = 0.0f;
    for (int k = 0; k < 3; k++) probe += part.p[k] - part.p[k];
    for (int k = 0; k < 4; k++) probe += part.q[k] - part.q[k];
    s->prev_part = s->last_part;
    if (probe == 0.0f) s->last_part = part;
  }
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0);
  float *g[7];
  for (int k = 0; k < 7; k++) g[k] = c->g[k];
  for (uint32_t i = lo; i < hi; i++) {
    tress_xform part = c->slots[c->node_slot[i]].last_part;
    uint32_t j = i - lo;
    g[0][j] = part.p[0]; g[1][j] = part.p[1]; g[2][j] = part.p[2];
    g[3][j] = part.q[0]; g[4][j] = part.q[1]; g[5][j] = part.q[2]; g[6][j] = part.q[3];
  }
  const float *par[7] = {g[0], g[1], g[2], g[3], g[4], g[5], g[6]};
  compose_world(c, lo, hi, par);
}

static void snap_slot(struct tress_chains *c, chain_slot *s) {
  chain_nodes *n = &c->nodes;
  /* the chain restarts at its anchor now: nothing to interpolate from, nothing to carry */
  s->prev_part = s->pin = s->last_part;
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k];
    n->px[i] = n->ox[i] = n->pa_px[i] = n->aw_px[i];
    n->py[i] = n->oy[i] = n->pa_py[i] = n->aw_py[i];
    n->pz[i] = n->oz[i] = n->pa_pz[i] = n->aw_pz[i];
  }
}

static tress_handle *slot_handle(tress_sim *sim, uint32_t si) {
  return tress__handle_get(sim, sim->chains->slots[si].handle);
}

static void swap_arrays(float **a, float **b) {
  float *t = *a;
  *a = *b;
  *b = t;
}

/* Colliders to world, then one lane per chain slot (its set), once per frame and only while
 * some chain has colliders. The lanes grow here when binds made more slots or wider sets (an
 * allocation after a bind, never in a steady frame). */
static void gather_colliders(tress_sim *sim, struct tress_chains *c) {
  uint32_t widest = 0;
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->sets[si].count > widest) widest = c->sets[si].count;
  if (widest > c->lanes.slot_cap || c->slot_count > c->lanes.stride || !c->lanes.ax) {
    tress_collider_lanes grown;
    uint32_t slots = widest > c->lanes.slot_cap ? widest : c->lanes.slot_cap;
    if (!tress_collider_lanes_init(&grown, slots, c->slot_cap)) {
      c->lanes.slots = 0;
      return;
    }
    tress_collider_lanes_free(&c->lanes);
    c->lanes = grown;
  }
  if (c->lanes.slot_cap > c->tile_lanes.slot_cap || c->root_width > c->tile_lanes.stride || !c->tile_lanes.ax) {
    tress_collider_lanes grown;
    if (!tress_collider_lanes_init(&grown, c->lanes.slot_cap, c->root_width ? c->root_width : 1)) {
      c->lanes.slots = 0;
      return;
    }
    tress_collider_lanes_free(&c->tile_lanes);
    c->tile_lanes = grown;
  }
  tress__colliders_resolve(sim);
  tress_collider_lanes_gather(&c->lanes, sim->colliders->world, sim->colliders->count, c->sets, c->slot_count, NULL,
                              c->slot_count);
}

/* A colliding tile's lanes by level-0 position, once per frame (per chain, not per node). */
static void gather_tile_colliders(tress_sim *sim, struct tress_chains *c, uint32_t t) {
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0);
  tress_collider_lanes_gather(&c->tile_lanes, sim->colliders->world, sim->colliders->count, c->sets, c->slot_count,
                              c->node_slot + lo, hi - lo);
}

/* Once per frame, before any tile: layout, pointers, activity; last frame's animated positions
 * become the interpolation start (a swap: prepare recomputes every animated pose). */
/* What this frame does for the render carry (see carry_tile). */
enum { CARRY_NONE, CARRY_STEPPED, CARRY_FROM_PREVIOUS, CARRY_EXPLICIT };

static void choose_carry(struct tress_chains *c, const tress_frame *f) {
  c->frame_index++;
  if (f->substeps > 0 && tress__frame_alpha(f, f->substeps - 1) >= 1.0f) {
    c->carry_mode = CARRY_NONE; /* drawn where the last substep left it: nothing to carry */
    c->implicit_pins = c->frame_index;
  } else if (f->substeps > 0) {
    c->carry_mode = CARRY_STEPPED;
    c->implicit_pins = 0;
  } else {
    c->carry_mode = c->implicit_pins == c->frame_index - 1 ? CARRY_FROM_PREVIOUS : CARRY_EXPLICIT;
    c->implicit_pins = 0;
  }
}

static bool frame_begin(tress_sim *sim, struct tress_chains *c, const tress_frame *f) {
  if (c->dirty && !rebuild(c)) return false;
  chain_nodes *n = &c->nodes;
  if (n->count == 0 || c->level_count == 0) return false;
  choose_carry(c, f);
  swap_arrays(&n->pa_px, &n->aw_px);
  swap_arrays(&n->pa_py, &n->aw_py);
  swap_arrays(&n->pa_pz, &n->aw_pz);
  update_activity(sim, c, f);
  if (c->collider_chains > 0) gather_colliders(sim, c);
  return true;
}

/* Gust ripple: each node's wind scale this frame, its depth's phase delayed (see sim.h). */
static void gust_slot(struct tress_chains *c, const chain_slot *s, double time) {
  chain_nodes *n = &c->nodes;
  const chain_params *st = &s->settings;
  double w = 6.283185307179586 * st->wind_frequency;
  for (uint32_t k = 0; k < s->node_count; k++) {
    double phase = w * (time - (double)s->depth[k] * TRESS_GUST_DELAY);
    n->wscale[s->global[k]] = st->wind_scale * (1.0f + st->wind_gust * (float)sin(phase));
  }
}

/* One tile: scene reads, animated world poses level by level, snaps, this frame's tile flags
 * and gusts. */
static void prepare_tile(tress_sim *sim, struct tress_chains *c, const tress_frame *f, uint32_t t) {
  chain_nodes *n = &c->nodes;
  uint8_t flags = 0;
  c->tile.base = TILE_LO(c, t, 0); /* the tile scratch now belongs to tile t */
  for (uint32_t l = 0; l < c->level_count; l++) read_nodes(c, TILE_LO(c, t, l), TILE_HI(c, t, l));
  roots_world(sim, c, t);
  for (uint32_t l = 1; l < c->level_count; l++) animated_world_level(c, TILE_LEVEL(c, t, l), TILE_LO(c, t, l), TILE_HI(c, t, l));
  /* Snap: new chains start where they are drawn, waking chains and teleports do not whip. */
  float tele2 = f->teleport_distance * f->teleport_distance;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    uint32_t r = s->global[0];
    if (n->active[r] == 0.0f) continue;
    uint8_t feat = s->features;
    if (feat & FEAT_COLLIDES) flags |= TILE_COLLIDES;
    if (feat & FEAT_WEIGHTED) flags |= TILE_WEIGHTED;
    if (feat & FEAT_GUSTY) gust_slot(c, s, f->time);
    tress_handle *h = slot_handle(sim, si);
    float dx = n->aw_px[r] - n->pa_px[r], dy = n->aw_py[r] - n->pa_py[r], dz = n->aw_pz[r] - n->pa_pz[r];
    float d2 = dx * dx + dy * dy + dz * dz;
    /* a jump is a departure from the path the root was on: a head in a fast car moves far every
     * frame without jumping (measured raw, a short chain would snap every frame there) */
    float span = (float)f->span, *v = s->root_velocity;
    float ex = dx - v[0] * span, ey = dy - v[1] * span, ez = dz - v[2] * span;
    float jump = ex * ex + ey * ey + ez * ez;
    /* every reset check is independent (sim.h): teleport guard, jump of a few chain lengths,
     * a stalled step, a game-marked reset; a disabled chain rests at its animated pose */
    bool reset = d2 > tele2 || jump > s->jump2 || f->stalled || s->reset || (feat & FEAT_DISABLED);
    bool resume = s->fresh || (h && !h->was_awake);
    if (resume || reset) snap_slot(c, s);
    /* a chain that just started or woke has no last frame to measure a velocity from; after a
     * jump the velocity is wrong for one frame, which at worst snaps it a second time */
    bool track = !resume && span > 0.0f;
    v[0] = track ? dx / span : 0.0f;
    v[1] = track ? dy / span : 0.0f;
    v[2] = track ? dz / span : 0.0f;
    s->fresh = false;
    s->reset = false;
    if (h) h->was_awake = true;
  }
  c->tile_flags[t] = flags;
  if ((flags & TILE_COLLIDES) && c->lanes.slots > 0) gather_tile_colliders(sim, c, t);
}

typedef struct substep_consts {
  float gx, gy, gz, wx, wy, wz, alpha; /* gravity and wind already times dt^2 */
} substep_consts;

/* One level of one substep: integrate, stiffness, inextensible link. Parameters, not struct
 * fields, so every array is a restrict pointer and the loop vectorizes. */
HOT_LOOP static void substep_level(uint32_t count, float *restrict px, float *restrict py, float *restrict pz,
                          float *restrict ox, float *restrict oy, float *restrict oz, const float *restrict ax,
                          const float *restrict ay, const float *restrict az, const float *restrict bx,
                          const float *restrict by, const float *restrict bz, const float *restrict damp,
                          const float *restrict stiff, const float *restrict gs, const float *restrict ws,
                          const float *restrict rest, const float *restrict act, const float *restrict qx,
                          const float *restrict qy, const float *restrict qz, const substep_consts *kc) {
  const float gx = kc->gx, gy = kc->gy, gz = kc->gz, wx = kc->wx, wy = kc->wy, wz = kc->wz, alpha = kc->alpha;
  count &= ~(LEVEL_LANES - 1); /* always whole vectors (padding): no remainder loop */
  for (uint32_t j = 0; j < count; j++) {
    float m = act[j];
    float cx = px[j], cy = py[j], cz = pz[j];
    /* integrate */
    float vx = (cx - ox[j]) * damp[j], vy = (cy - oy[j]) * damp[j], vz = (cz - oz[j]) * damp[j];
    float nx = cx + vx + gx * gs[j] + wx * ws[j];
    float ny = cy + vy + gy * gs[j] + wy * ws[j];
    float nz = cz + vz + gz * gs[j] + wz * ws[j];
    /* stiffness: pull toward the animated pose at this substep's time */
    float tx = bx[j] + (ax[j] - bx[j]) * alpha, ty = by[j] + (ay[j] - by[j]) * alpha, tz = bz[j] + (az[j] - bz[j]) * alpha;
    nx += (tx - nx) * stiff[j];
    ny += (ty - ny) * stiff[j];
    nz += (tz - nz) * stiff[j];
    /* inextensible link to the parent, already solved this pass; a zero-length offset stays
     * on the parent (the clamp keeps 0 * inf out) */
    float dx = nx - qx[j], dy = ny - qy[j], dz = nz - qz[j];
    float len2 = dx * dx + dy * dy + dz * dz;
    float s = rest[j] / sqrtf(len2 > 1e-24f ? len2 : 1e-24f);
    nx = qx[j] + dx * s;
    ny = qy[j] + dy * s;
    nz = qz[j] + dz * s;
    /* sleeping chains keep their state: blend by the mask instead of branching */
    ox[j] = cx + (ox[j] - cx) * (1.0f - m);
    oy[j] = cy + (oy[j] - cy) * (1.0f - m);
    oz[j] = cz + (oz[j] - cz) * (1.0f - m);
    px[j] = cx + (nx - cx) * m;
    py[j] = cy + (ny - cy) * m;
    pz[j] = cz + (nz - cz) * m;
  }
}

static void substep_tile(struct tress_chains *c, const tress_frame *f, float alpha, uint32_t t) {
  chain_nodes *n = &c->nodes;
  /* Pinned roots follow the animated pose, interpolated to this substep's time. */
  for (uint32_t i = TILE_LO(c, t, 0); i < TILE_HI(c, t, 0); i++) {
    float m = n->stepping[i];
    float x = n->pa_px[i] + (n->aw_px[i] - n->pa_px[i]) * alpha;
    float y = n->pa_py[i] + (n->aw_py[i] - n->pa_py[i]) * alpha;
    float z = n->pa_pz[i] + (n->aw_pz[i] - n->pa_pz[i]) * alpha;
    n->ox[i] += (n->px[i] - n->ox[i]) * m;
    n->oy[i] += (n->py[i] - n->oy[i]) * m;
    n->oz[i] += (n->pz[i] - n->oz[i]) * m;
    n->px[i] += (x - n->px[i]) * m;
    n->py[i] += (y - n->py[i]) * m;
    n->pz[i] += (z - n->pz[i]) * m;
  }
  float dt2 = f->dt * f->dt;
  substep_consts k = {f->gravity[0] * dt2, f->gravity[1] * dt2, f->gravity[2] * dt2,
                      f->wind[0] * dt2,    f->wind[1] * dt2,    f->wind[2] * dt2, alpha};
  bool collides = (c->tile_flags[t] & TILE_COLLIDES) && c->lanes.slots > 0;
  for (uint32_t l = 1; l < c->level_count; l++) {
    uint32_t lo = TILE_LO(c, t, l), hi = TILE_HI(c, t, l);
    const float *par[3];
    float *const src[3] = {n->px, n->py, n->pz};
    level_view(c, lo, hi, c->parent_shift[TILE_LEVEL(c, t, l)], false, n->parent, src, 0, 3, par, 0);
    substep_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, n->ox + lo, n->oy + lo, n->oz + lo, n->aw_px + lo,
                  n->aw_py + lo, n->aw_pz + lo, n->pa_px + lo, n->pa_py + lo, n->pa_pz + lo, n->damping + lo,
                  n->stiffness + lo, n->gscale + lo, n->wscale + lo, n->rest_len + lo, n->stepping + lo, par[0], par[1],
                  par[2], &k);
    /* then out of the chain's colliders, the link kept (parents are final: previous level) */
    if (collides && c->aligned[TILE_LEVEL(c, t, l)])
      tress_collider_push_level(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], n->rest_len + lo,
                                n->radius + lo, hi - lo, &c->tile_lanes);
    else if (collides)
      tress_collider_push_level_sets(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], n->rest_len + lo,
                                     n->radius + lo, hi - lo, &c->lanes, c->node_slot + lo);
  }
}


/* Shortest-arc rotation taking a to b, branch-free so the output loop vectorizes: the same
 * cases as tress_quat_from_to (degenerate -> identity, opposite -> a half turn about an axis
 * perpendicular to a). */
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
  bool degenerate = !(lab > 1e-24f) || !(n2 > 1e-30f);
  float inv = 1.0f / sqrtf(degenerate ? 1.0f : n2);
  q[0] = degenerate ? 0.0f : x * inv;
  q[1] = degenerate ? 0.0f : y * inv;
  q[2] = degenerate ? 0.0f : z * inv;
  q[3] = degenerate ? 1.0f : w * inv;
}

/* Output for one level: base = parent written * cframe; the node sits at its simulated
 * position and turns by the shortest arc from its animated aim to where its first child is.
 * weighted (a compile-time constant in each caller): positions come from the blended bl_*
 * arrays, and a node of weight 0 gets its animated local exactly. */
static inline __attribute__((always_inline)) void output_level_body(struct tress_chains *c, size_t tl, uint32_t lo,
                                                                    uint32_t hi, bool weighted) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base;
  const float *par[7], *kid[3];
  float *const psrc[7] = {w->wp_x, w->wp_y, w->wp_z, w->wq_x, w->wq_y, w->wq_z, w->wq_w};
  float *const csrc[3] = {weighted ? w->bl_x : n->px, weighted ? w->bl_y : n->py, weighted ? w->bl_z : n->pz};
  uint32_t cbase = weighted ? w->base : 0;
  level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, psrc, w->base, 7, par, 0);
  /* a leaf aims nowhere: the gather reads its own position, a zero direction, an identity arc */
  level_view(c, lo, hi, c->child_shift[tl], true, n->first_child, csrc, cbase, 3, kid, 7);
  const float *restrict gpx = par[0], *restrict gpy = par[1], *restrict gpz = par[2];
  const float *restrict gqx = par[3], *restrict gqy = par[4], *restrict gqz = par[5], *restrict gqw = par[6];
  const float *restrict ccx = kid[0], *restrict ccy = kid[1], *restrict ccz = kid[2];
  const float *restrict cpx = n->cf_px + lo, *restrict cpy = n->cf_py + lo, *restrict cpz = n->cf_pz + lo;
  const float *restrict cqx = n->cf_qx + lo, *restrict cqy = n->cf_qy + lo, *restrict cqz = n->cf_qz + lo,
                        *restrict cqw = n->cf_qw + lo;
  const float *restrict aqx = w->an_qx + at, *restrict aqy = w->an_qy + at, *restrict aqz = w->an_qz + at,
                        *restrict aqw = w->an_qw + at;
  const float *restrict mx = n->aim_x + lo, *restrict my = n->aim_y + lo, *restrict mz = n->aim_z + lo;
  const float *restrict px = csrc[0] + (lo - cbase), *restrict py = csrc[1] + (lo - cbase),
                        *restrict pz = csrc[2] + (lo - cbase);
  const float *restrict wt = n->weight + lo;
  const float *restrict apx = w->an_px + at, *restrict apy = w->an_py + at, *restrict apz = w->an_pz + at;
  float *restrict tpx = c->g[G_OUT], *restrict tpy = c->g[G_OUT + 1], *restrict tpz = c->g[G_OUT + 2];
  float *restrict tqx = c->g[G_OUT + 3], *restrict tqy = c->g[G_OUT + 4], *restrict tqz = c->g[G_OUT + 5],
                  *restrict tqw = c->g[G_OUT + 6];
  float *restrict wpx = w->wp_x + at, *restrict wpy = w->wp_y + at, *restrict wpz = w->wp_z + at;
  float *restrict wqx = w->wq_x + at, *restrict wqy = w->wq_y + at, *restrict wqz = w->wq_z + at,
                  *restrict wqw = w->wq_w + at;
  uint32_t count = padded_count(lo, hi);
#pragma GCC ivdep
  for (uint32_t j = 0; j < count; j++) {
    float pq[4] = {gqx[j], gqy[j], gqz[j], gqw[j]};
    float cq[4] = {cqx[j], cqy[j], cqz[j], cqw[j]};
    float cp[3] = {cpx[j], cpy[j], cpz[j]};
    float aq[4] = {aqx[j], aqy[j], aqz[j], aqw[j]};
    float bq[4], r[3];
    tress_quat_rotate(pq, cp, r);
    float bpx = gpx[j] + r[0], bpy = gpy[j] + r[1], bpz = gpz[j] + r[2];
    tress_quat_mul(pq, cq, bq);
    /* local translation: where the simulation put the node, seen from base */
    float d[3] = {px[j] - bpx, py[j] - bpy, pz[j] - bpz};
    float tp[3];
    tress_quat_rotate_inv(bq, d, tp);
    /* aim: animated direction (in base frame) vs simulated direction (in base frame) */
    float aim[3] = {mx[j], my[j], mz[j]};
    float from[3];
    tress_quat_rotate(aq, aim, from);
    float sd[3] = {ccx[j] - px[j], ccy[j] - py[j], ccz[j] - pz[j]};
    float to[3];
    tress_quat_rotate_inv(bq, sd, to);
    float arc[4];
    arc_between(from[0], from[1], from[2], to[0], to[1], to[2], arc);
    float tq[4];
    tress_quat_mul(arc, aq, tq);
    if (weighted) {
      /* weight 0: the animation exactly (select, not branch) */
      bool sim_on = wt[j] > 0.0f;
      tp[0] = sim_on ? tp[0] : apx[j];
      tp[1] = sim_on ? tp[1] : apy[j];
      tp[2] = sim_on ? tp[2] : apz[j];
      tq[0] = sim_on ? tq[0] : aq[0];
      tq[1] = sim_on ? tq[1] : aq[1];
      tq[2] = sim_on ? tq[2] : aq[2];
      tq[3] = sim_on ? tq[3] : aq[3];
    }
    float wq[4];
    tress_quat_mul(bq, tq, wq);
    tpx[j] = tp[0]; tpy[j] = tp[1]; tpz[j] = tp[2];
    tqx[j] = tq[0]; tqy[j] = tq[1]; tqz[j] = tq[2]; tqw[j] = tq[3];
    wpx[j] = px[j]; wpy[j] = py[j]; wpz[j] = pz[j];
    wqx[j] = wq[0]; wqy[j] = wq[1]; wqz[j] = wq[2]; wqw[j] = wq[3];
  }
}

HOT_LOOP static void output_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  output_level_body(c, tl, lo, hi, false);
}

HOT_LOOP static void output_level_weighted(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  output_level_body(c, tl, lo, hi, true);
}

/* Weighted tiles: every node's output position, simulated blended toward animated by weight
 * (roots are pinned: weight does not move them). */
static void blend_level(const chain_nodes *n, tile_scratch *t, uint32_t lo, uint32_t hi, bool carried) {
  for (uint32_t i = lo; i < hi; i++) {
    float w = n->weight[i];
    /* weight 1 takes the simulated position as it is: the same bits as an unweighted tile */
    bool full = w >= 1.0f;
    uint32_t j = i - t->base;
    float x = carried ? t->bl_x[j] : n->px[i], y = carried ? t->bl_y[j] : n->py[i], z = carried ? t->bl_z[j] : n->pz[i];
    t->bl_x[j] = full ? x : n->aw_px[i] + (x - n->aw_px[i]) * w;
    t->bl_y[j] = full ? y : n->aw_py[i] + (y - n->aw_py[i]) * w;
    t->bl_z[j] = full ? z : n->aw_pz[i] + (z - n->aw_pz[i]) * w;
  }
}

/* Carried tiles: every node's display position, its simulated one moved rigidly with its
 * chain's anchor since the last substep (identity lanes leave a still chain's bits alone). */
HOT_LOOP static void carry_level(const chain_nodes *n, tile_scratch *w, uint32_t lo, uint32_t hi, uint32_t lanes) {
  uint32_t at = lanes - w->base, out = lo - w->base, count = padded_count(lo, hi);
  const float *restrict px = n->px + lo, *restrict py = n->py + lo, *restrict pz = n->pz + lo;
  const float *restrict qx = w->cr_qx + at, *restrict qy = w->cr_qy + at, *restrict qz = w->cr_qz + at,
                        *restrict qw = w->cr_qw + at;
  const float *restrict tx = w->cr_x + at, *restrict ty = w->cr_y + at, *restrict tz = w->cr_z + at;
  float *restrict ox = w->bl_x + out, *restrict oy = w->bl_y + out, *restrict oz = w->bl_z + out;
  for (uint32_t j = 0; j < count; j++) {
    float q[4] = {qx[j], qy[j], qz[j], qw[j]}, p[3] = {px[j], py[j], pz[j]}, r[3];
    tress_quat_rotate(q, p, r);
    ox[j] = r[0] + tx[j];
    oy[j] = r[1] + ty[j];
    oz[j] = r[2] + tz[j];
  }
}

/* Where the anchor was at substep time alpha: the path the substeps pinned the roots along
 * (position lerp, rotation nlerp); alpha 1 is exactly this frame's anchor. */
static tress_xform anchor_at(const chain_slot *s, float alpha) {
  if (alpha >= 1.0f) return s->last_part;
  const tress_xform *a = &s->prev_part, *b = &s->last_part;
  tress_xform r;
  for (int k = 0; k < 3; k++) r.p[k] = a->p[k] + (b->p[k] - a->p[k]) * alpha;
  float dot = a->q[0] * b->q[0] + a->q[1] * b->q[1] + a->q[2] * b->q[2] + a->q[3] * b->q[3];
  float sign = dot < 0.0f ? -1.0f : 1.0f;
  for (int k = 0; k < 4; k++) r.q[k] = a->q[k] + (sign * b->q[k] - a->q[k]) * alpha;
  tress_quat_normalize(r.q);
  return r;
}

static bool xform_same(const tress_xform *a, const tress_xform *b) {
  return a->p[0] == b->p[0] && a->p[1] == b->p[1] && a->p[2] == b->p[2] && a->q[0] == b->q[0] && a->q[1] == b->q[1] &&
         a->q[2] == b->q[2] && a->q[3] == b->q[3];
}

/* Frames between fixed steps (none taken, or time left after the last): each chain is drawn
 * carried rigidly with its anchor from where its last substep left it (pin) to where the anchor
 * is now. Without this, a game drawing at 144 Hz sees the hair stretch behind a moving head
 * and snap back at the next step. Fills the tile's carry lanes; false when no awake chain's
 * anchor moved since its last substep (the aligned case: nothing to do). */
static bool carry_tile(struct tress_chains *c, const tress_frame *f, uint32_t t) {
  if (c->carry_mode == CARRY_NONE) return false;
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  float alpha = f->substeps > 0 ? tress__frame_alpha(f, f->substeps - 1) : 0.0f;
  bool any = false;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    /* the last frame's anchor was every pin (a snap since then set this one explicitly, to
     * the same value prev_part now holds) */
    if (c->carry_mode == CARRY_FROM_PREVIOUS) s->pin = s->prev_part;
    if (n->stepping[s->global[0]] == 0.0f) continue;
    if (c->carry_mode == CARRY_STEPPED) s->pin = anchor_at(s, alpha);
    any = any || !xform_same(&s->pin, &s->last_part);
  }
  if (!any) return false;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    /* display = now * pin^-1 * p: rotation q, then translation now.p - q * pin.p */
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f}, tr[3] = {0.0f, 0.0f, 0.0f};
    if (n->stepping[s->global[0]] != 0.0f && !xform_same(&s->pin, &s->last_part)) {
      float inv[4] = {-s->pin.q[0], -s->pin.q[1], -s->pin.q[2], s->pin.q[3]}, r[3];
      tress_quat_mul(s->last_part.q, inv, q);
      tress_quat_rotate(q, s->pin.p, r);
      for (int k = 0; k < 3; k++) tr[k] = s->last_part.p[k] - r[k];
    }
    memcpy(s->carry, q, sizeof q);
    memcpy(s->carry + 4, tr, sizeof tr);
  }
  /* Lanes: one per position of level 0 (padding takes its tile's first chain: finite, unused),
   * reused by every aligned level; any other level gets its own through node_slot. */
  for (uint32_t l = 0; l < c->level_count; l++) {
    if (l > 0 && c->aligned[TILE_LEVEL(c, t, l)]) continue;
    for (uint32_t i = TILE_LO(c, t, l); i < TILE_HI(c, t, l); i++) {
      const float *k = c->slots[c->node_slot[i]].carry;
      uint32_t j = i - w->base;
      w->cr_qx[j] = k[0]; w->cr_qy[j] = k[1]; w->cr_qz[j] = k[2]; w->cr_qw[j] = k[3];
      w->cr_x[j] = k[4]; w->cr_y[j] = k[5]; w->cr_z[j] = k[6];
    }
  }
  return true;
}

/* Writes one level's local transforms (seven component arrays, level-relative) into the scene's
 * transform slots (a sleeping node's slot is the sink). A non-finite value is never written:
 * its chain is marked for recovery. Returns true when some chain was marked. */
static bool scatter_level(struct tress_chains *c, uint32_t lo, uint32_t hi, const float *const *t) {
  tress_xform *const *out = c->out_ptr + lo;
  const float *tpx = t[0], *tpy = t[1], *tpz = t[2], *tqx = t[3], *tqy = t[4], *tqz = t[5], *tqw = t[6];
  uint32_t count = hi - lo;
  if (all_finite(t, 7, count)) {
    tress__xforms_write(out, count, t, c->wide);
    return false;
  }
  bool bad = false;
  for (uint32_t j = 0; j < count; j++) {
    float px = tpx[j], py = tpy[j], pz = tpz[j], qx = tqx[j], qy = tqy[j], qz = tqz[j], qw = tqw[j];
    float probe = (px - px) + (py - py) + (pz - pz) + (qx - qx) + (qy - qy) + (qz - qz) + (qw - qw);
    if (probe != 0.0f) {
      if (c->nodes.active[lo + j] != 0.0f) {
        c->slots[c->node_slot[lo + j]].act_last = -2.0f;
        bad = true;
      }
      continue;
    }
    tress_xform *o = out[j];
    o->p[0] = px; o->p[1] = py; o->p[2] = pz;
    o->q[0] = qx; o->q[1] = qy; o->q[2] = qz; o->q[3] = qw;
  }
  return bad;
}

/* A chain whose output went non-finite (absurd settings overflowed) snaps back to its animated
 * pose and shows its animated values: a NaN never reaches the scene. */
static void recover_slot(struct tress_chains *c, chain_slot *s) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  snap_slot(c, s);
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k], j = i - w->base;
    w->wp_x[j] = n->aw_px[i]; w->wp_y[j] = n->aw_py[i]; w->wp_z[j] = n->aw_pz[i];
    w->wq_x[j] = w->aw_qx[j]; w->wq_y[j] = w->aw_qy[j]; w->wq_z[j] = w->aw_qz[j]; w->wq_w[j] = w->aw_qw[j];
    tress_xform t = {{w->an_px[j], w->an_py[j], w->an_pz[j]}, {w->an_qx[j], w->an_qy[j], w->an_qz[j], w->an_qw[j]}};
    *c->out_ptr[i] = t;
  }
}

/* Output and scene write for one tile, level by level so each level's transforms go to the
 * scene while they are still in cache. Roots are pinned: they show the animated pose, unswung. */
static void output_tile(tress_sim *sim, struct tress_chains *c, uint32_t t) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0), at = lo - w->base;
  for (uint32_t i = lo; i < hi; i++) {
    uint32_t j = i - w->base;
    w->wp_x[j] = n->aw_px[i]; w->wp_y[j] = n->aw_py[i]; w->wp_z[j] = n->aw_pz[i];
    w->wq_x[j] = w->aw_qx[j]; w->wq_y[j] = w->aw_qy[j]; w->wq_z[j] = w->aw_qz[j]; w->wq_w[j] = w->aw_qw[j];
  }
  const float *roots[7] = {w->an_px + at, w->an_py + at, w->an_pz + at, w->an_qx + at,
                           w->an_qy + at, w->an_qz + at, w->an_qw + at};
  bool bad = scatter_level(c, lo, hi, roots);
  const float *level_out[7];
  for (int k = 0; k < 7; k++) level_out[k] = c->g[G_OUT + k];
  bool weighted = c->tile_flags[t] & TILE_WEIGHTED, carried = c->tile_flags[t] & TILE_CARRIED;
  if (carried)
    for (uint32_t l = 1; l < c->level_count; l++) {
      uint32_t lanes = c->aligned[TILE_LEVEL(c, t, l)] ? TILE_LO(c, t, 0) : TILE_LO(c, t, l);
      carry_level(n, w, TILE_LO(c, t, l), TILE_HI(c, t, l), lanes);
    }
  if (weighted)
    for (uint32_t l = 1; l < c->level_count; l++) blend_level(n, w, TILE_LO(c, t, l), TILE_HI(c, t, l), carried);
  for (uint32_t l = 1; l < c->level_count; l++) {
    lo = TILE_LO(c, t, l);
    hi = TILE_HI(c, t, l);
    /* the display positions (bl) feed the output wherever they differ from the simulated ones */
    if (weighted || carried) output_level_weighted(c, TILE_LEVEL(c, t, l), lo, hi);
    else output_level(c, TILE_LEVEL(c, t, l), lo, hi);
    bad |= scatter_level(c, lo, hi, level_out);
  }
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used || n->active[s->global[0]] == 0.0f) continue;
    if (bad && s->act_last == -2.0f) {
      s->act_last = 1.0f;
      recover_slot(c, s);
    }
    /* Part chains write world cframes; the pin (node 0) belongs to the body. */
    if (s->kind == TRESS_HANDLE_PARTS) {
      for (uint32_t k = 1; k < s->node_count; k++) {
        uint32_t j = s->global[k] - w->base;
        tress_xform pose = {{w->wp_x[j], w->wp_y[j], w->wp_z[j]}, {w->wq_x[j], w->wq_y[j], w->wq_z[j], w->wq_w[j]}};
        tress_part_set_cframe(sim->scene, s->ids[k], pose);
      }
    }
  }
}

/* A frame, tile by tile: every phase runs on a tile while its data is in cache (and the tile
 * scratch holds that tile). With a clock, each phase's time is added to phase_ns. */
static void run_frame(tress_sim *sim, const tress_frame *f, double (*clock)(void), double phase_ns[3]) {
  struct tress_chains *c = sim->chains;
  if (!frame_begin(sim, c, f)) return;
  for (uint32_t t = 0; t < c->tile_count; t++) {
    double t0 = clock ? clock() : 0.0;
    prepare_tile(sim, c, f, t);
    double t1 = clock ? clock() : 0.0;
    for (int k = 0; k < f->substeps; k++) substep_tile(c, f, tress__frame_alpha(f, k), t);
    double t2 = clock ? clock() : 0.0;
    if (carry_tile(c, f, t)) c->tile_flags[t] |= TILE_CARRIED;
    output_tile(sim, c, t);
    if (clock) {
      double t3 = clock();
      phase_ns[0] += t1 - t0;
      phase_ns[1] += t2 - t1;
      phase_ns[2] += t3 - t2;
    }
  }
  /* handle-steps: every awake, enabled chain counts once per substep */
  uint32_t awake = 0;
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->slots[si].used && c->nodes.stepping[c->slots[si].global[0]] != 0.0f) awake++;
  tress__count_simulated(sim, awake * (uint32_t)f->substeps);
}

void tress__chains_frame(tress_sim *sim, const tress_frame *f) { run_frame(sim, f, NULL, NULL); }

void tress__chains_frame_timed(tress_sim *sim, const tress_frame *f, double (*clock)(void), double phase_ns[3]) {
  run_frame(sim, f, clock, phase_ns);
}

bool tress__chains_enabled(const tress_sim *sim, const tress_handle *h) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count || !c->slots[h->slot].used) return false;
  return c->slots[h->slot].settings.enabled;
}

bool tress__chains_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count || !c->slots[h->slot].used) return false;
  const chain_slot *s = &c->slots[h->slot];
  tress_xform w = anchor_frame(sim, s);
  if (s->kind == TRESS_HANDLE_BONES) w = tress_xform_mul(w, s->rest[0]);
  memcpy(out, w.p, 3 * sizeof(float));
  return tress_vec3_is_finite(out);
}

tress_result tress_sim_reset(tress_sim *sim, tress_id root) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_valid(sim->scene, root)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    tress_handle *h = tress__handle_get(sim, s->handle);
    if (!h) continue;
    if (tress_id_equal(h->root, root) || tress_instance_is_descendant_of(sim->scene, h->root, root)) s->reset = true;
  }
  tress__sim_reset_writers(sim, root); /* pendulums, ropes and cloth under root snap too */
  return TRESS_OK;
}
