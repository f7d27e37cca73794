/* chains_frame.c - one frame of the chain batch, tile by tile: scene reads, animated world
 * poses, snaps, substeps, render carry, output and scene writes (chains_internal.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chains_internal.h"
#include "xform_lanes.h"
#include "scene_slots.h"

/* ---- frame ---- */


/* Gives an awake chain's nodes their entries in the scene's bone arrays, and a sleeping chain's
 * entry 0 (reads the identity, writes the tile's sink), so the scene read and write loops need
 * no activity test. Part chains take 0 too: output_tile writes their cframes. */
static void slot_entries(tress_sim *sim, struct tress_chains *c, const chain_slot *s, bool awake) {
  bool bones = awake && s->kind == TRESS_HANDLE_BONES;
  for (uint32_t k = 0; k < s->node_count; k++)
    c->bone_slot[s->global[k]] = bones ? tress__bone_slot(sim->scene, slot_node_id(sim->scene, s, k)) : 0;
}

/* Fetch (again) the scene's bone arrays and every node's entry: the scene's layout moved. */
static void refresh_entries(tress_sim *sim, struct tress_chains *c) {
  c->ptr_epoch = tress__bone_slot_arrays(sim->scene, &c->animated_base, &c->transform_base);
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->slots[si].used) slot_entries(sim, c, &c->slots[si], c->slots[si].act_last > 0.0f);
  c->ptr_valid = true;
}

/* Decides which chains of slots [lo, hi) run this frame: a substep mask per chain (LANE_STEP),
 * written only when a chain's activity changes (whether it is awake at all is its slot's
 * act_last). Leaves each slot's frame bits (slot_frame) for prepare's root checks, so the handle is read once per
 * chain per frame, and returns how many of them step. Each slot writes only its own entries and
 * nodes (and its handle), so ranges of slots run on any workers. */
static uint32_t activity_slots(tress_sim *sim, struct tress_chains *c, const tress_frame *f, uint32_t lo, uint32_t hi) {
  uint32_t stepping = 0;
  for (uint32_t si = lo; si < hi; si++) {
    chain_slot *s = &c->slots[si];
    c->slot_frame[si] = 0;
    if (!s->used) continue;
    float act = 0.0f;
    tress_handle *h = tress__handle_own(sim, s->handle);
    /* a frame without substeps still rewrites poses of a chain that is awake, and starts a new
     * one (it snaps where it is drawn now, so the first substep moves it from this pose) */
    if (h && h->eligible && (f->substeps > 0 || h->was_awake || s->fresh)) act = 1.0f;
    if (act != s->act_last) {
      /* a disabled chain is read and written (its animated pose, exactly) but never stepped */
      float step = (s->features & FEAT_DISABLED) ? 0.0f : act;
      c->per_slot[LANE_STEP][si] = step;
      s->act_last = act;
      slot_entries(sim, c, s, act != 0.0f);
      /* a sleeping or disabled chain tests no collider, so the push leaves its state alone */
      tress__chain_sync_set(c, si);
    }
    if (!act && h) h->was_awake = false;
    if (act) {
      /* what prepare's root checks need: a chain that just started or woke resumes; it is
       * awake from this frame on */
      c->slot_frame[si] = (uint16_t)(FRAME_AWAKE | s->features | (s->kind == TRESS_HANDLE_PARTS ? FRAME_PARTS : 0u) |
                                     (s->fresh || !h->was_awake ? FRAME_RESUME : 0u) | (s->reset ? FRAME_RESET : 0u));
      s->fresh = false;
      s->reset = false;
      h->was_awake = true;
    }
    /* what its nodes' substep mask holds, from the slot (the node arrays stay out of this loop) */
    stepping += act != 0.0f && !(s->features & FEAT_DISABLED);
  }
  return stepping;
}

/* The pass over slots [0, slot_count) and, past them, the colliders' resolve to world (items
 * slot_count.. are collider indices): one task, since neither reads what the other writes. */
typedef struct activity_job {
  tress_sim *sim;
  struct tress_chains *c;
  const tress_frame *f;
  bool rescale; /* the resolve's: some scale changed */
  atomic_uint stepping;
} activity_job;

static void activity_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  activity_job *job = context;
  uint32_t slots = job->c->slot_count, last = end < slots ? end : slots;
  if (start < last) {
    if (job->c->cull_with_activity) tress__chains_cull_slots(job->sim, start, last);
    atomic_fetch_add(&job->stepping, activity_slots(job->sim, job->c, job->f, start, last));
  }
  if (end > slots) tress__colliders_resolve_range(job->sim, job->rescale, (start > slots ? start : slots) - slots, end - slots);
}

/* The chains' culling as its own task (context: the sim). */
static void cull_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  tress__chains_cull_slots(context, start, end);
}

/* Every chain's activity this frame, on the sim's workers, and the count of chains that step
 * (stepping_chains): with colliders, its own pass before the tiles, which the collider lanes
 * (gathered between the two) need, in one task with the colliders' resolve to world; else each
 * tile decides its own chains' first thing (activity_in_tiles), which saves the frame a hand-off
 * to the workers and a second walk over the slots. First re-fetches the nodes' scene entries
 * when the scene's layout moved. */
static void update_activity(tress_sim *sim, struct tress_chains *c, const tress_frame *f) {
  if (!c->ptr_valid || c->ptr_epoch != tress__scene_layout_epoch(sim->scene)) refresh_entries(sim, c);
  c->activity_in_tiles = c->collider_chains == 0;
  if (c->activity_in_tiles && c->cull_with_activity && !c->anchors_outside_tiles) {
    /* some tile writes what another chain hangs from: every anchor is read before the tiles */
    tress__jobs_run(&sim->def.jobs, cull_range, c->slot_count, 256, sim);
    c->cull_with_activity = false;
  }
  if (c->activity_in_tiles) return;
  activity_job job = {sim, c, f, tress__colliders_resolve_begin(sim), 0};
  tress__jobs_run(&sim->def.jobs, activity_range, c->slot_count + sim->colliders->count, 1024, &job);
  c->stepping_chains = atomic_load(&job.stepping);
}

/* Node j of seven component arrays is finite in every component (the slow path after a level's
 * copy found a value that is not: xform_lanes.h). (v - v) is 0 for a finite v, NaN otherwise. */
static inline bool node_finite(const float *const *a, uint32_t j) {
  int bad = 0;
  for (int k = 0; k < 7; k++) bad |= (a[k][j] - a[k][j]) != 0.0f;
  return !bad;
}

/* Reads the animated local of every node in [lo, hi) straight from the scene (a sleeping node
 * or padding reads identity: the tile scratch must hold finite values everywhere). A level
 * with a non-finite value gets those nodes' values replaced by identity. */
static void read_nodes(struct tress_chains *c, uint32_t lo, uint32_t hi) {
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base, count = hi - lo;
  float *restrict apx = w->an_px + at, *restrict apy = w->an_py + at, *restrict apz = w->an_pz + at;
  float *restrict aqx = w->an_qx + at, *restrict aqy = w->an_qy + at, *restrict aqz = w->an_qz + at,
                  *restrict aqw = w->an_qw + at;
  float *const comp[7] = {apx, apy, apz, aqx, aqy, aqz, aqw};
  tress_xform_slots in = {c->animated_base, c->bone_slot + lo, NULL}; /* index 0: the scene's identity */
  if (tress__xforms_read(in, count, comp, c->wide)) return;
  const float *const read[7] = {apx, apy, apz, aqx, aqy, aqz, aqw};
  for (uint32_t j = 0; j < count; j++) {
    if (node_finite(read, j)) continue;
    apx[j] = apy[j] = apz[j] = aqx[j] = aqy[j] = aqz[j] = 0.0f;
    aqw[j] = 1.0f;
  }
}

/* Whether a level's animated locals are all exactly the identity (still[] for the level). */
HOT_LOOP static bool level_still(uint32_t count, const float *restrict px, const float *restrict py,
                                 const float *restrict pz, const float *restrict qx, const float *restrict qy,
                                 const float *restrict qz, const float *restrict qw) {
  count &= ~(LEVEL_LANES - 1);
  int moved = 0;
  for (uint32_t j = 0; j < count; j++)
    moved |= (px[j] != 0.0f) | (py[j] != 0.0f) | (pz[j] != 0.0f) | (qx[j] != 0.0f) | (qy[j] != 0.0f) |
             (qz[j] != 0.0f) | (qw[j] != 1.0f);
  return !moved;
}

/* A level's scene read (read_nodes), then whether it is still (every animated local the identity).
 * With no animated bone in the scene the read would give the identity everywhere: it is written
 * instead, bit for bit what the read gives, and the level is still. */
static void read_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base;
  if (c->animated_identity) {
    size_t bytes = (size_t)(hi - lo) * sizeof(float);
    memset(w->an_px + at, 0, bytes);
    memset(w->an_py + at, 0, bytes);
    memset(w->an_pz + at, 0, bytes);
    memset(w->an_qx + at, 0, bytes);
    memset(w->an_qy + at, 0, bytes);
    memset(w->an_qz + at, 0, bytes);
    for (uint32_t j = at; j < at + (hi - lo); j++) w->an_qw[j] = 1.0f;
    c->still[tl] = true;
    return;
  }
  read_nodes(c, lo, hi);
  c->still[tl] = level_still(hi - lo, w->an_px + at, w->an_py + at, w->an_pz + at, w->an_qx + at, w->an_qy + at,
                             w->an_qz + at, w->an_qw + at);
}

/* world = parent_world * cframe * animated over [lo, hi), parents given as a level view; still:
 * the animated locals are the identity (world = parent_world * cframe). */
static inline __attribute__((always_inline)) void compose_world_body(struct tress_chains *c, size_t tl, uint32_t lo,
                                                                     uint32_t hi, const float *const *par, bool still) {
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
  float *restrict wpx = w->aw_px + at, *restrict wpy = w->aw_py + at, *restrict wpz = w->aw_pz + at;
  float *restrict wqx = w->aw_qx + at, *restrict wqy = w->aw_qy + at, *restrict wqz = w->aw_qz + at,
                  *restrict wqw = w->aw_qw + at;
  const float *restrict sc = w->sc + constants_at(c, tl, lo);
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
    /* local offsets in the chain's scale (x 1 is exact: an unscaled chain keeps its bits) */
    float k = sc[j];
    if (still) {
      wpx[j] = gpx[j] + r[0] * k; wpy[j] = gpy[j] + r[1] * k; wpz[j] = gpz[j] + r[2] * k;
      wqx[j] = bq[0]; wqy[j] = bq[1]; wqz[j] = bq[2]; wqw[j] = bq[3];
      continue;
    }
    tress_quat_rotate(bq, ap, s);
    tress_quat_mul(bq, aq, wq);
    wpx[j] = gpx[j] + r[0] * k + s[0] * k; wpy[j] = gpy[j] + r[1] * k + s[1] * k; wpz[j] = gpz[j] + r[2] * k + s[2] * k;
    wqx[j] = wq[0]; wqy[j] = wq[1]; wqz[j] = wq[2]; wqw[j] = wq[3];
  }
}

HOT_LOOP static void compose_world_moving(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi,
                                          const float *const *par) {
  compose_world_body(c, tl, lo, hi, par, false);
}

HOT_LOOP static void compose_world_still(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi,
                                         const float *const *par) {
  compose_world_body(c, tl, lo, hi, par, true);
}

static void compose_world(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float *const *par) {
  if (c->still[tl]) compose_world_still(c, tl, lo, hi, par);
  else compose_world_moving(c, tl, lo, hi, par);
}

static void animated_world_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  const float *par[7];
  float *const world[7] = {w->aw_px, w->aw_py, w->aw_pz, w->aw_qx, w->aw_qy, w->aw_qz, w->aw_qw};
  level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, world, w->base, 7, par, 0);
  compose_world(c, tl, lo, hi, par);
}

/* What a chain's roots hang from: its part, or for a chain bound from a root bone, the drawn
 * pose of the part or bone above that root. */
tress_xform tress__chain_anchor(const tress_sim *sim, const chain_slot *s) {
  return s->from_bone ? tress_instance_get_world(sim->scene, s->part) : tress_part_get_cframe(sim->scene, s->part);
}

/* Per-chain passes go over a tile's run of slots this many at a time (a stack block of lanes). */
#define ROOT_BLOCK 64

/* advance_anchors' loops, one component array each (parameters, so restrict holds and they
 * vectorize): bad[j] sums (v - v) over the seven components, 0 only when all are finite; then
 * prev takes last, and last takes now where it is finite. */
HOT_LOOP static void sum_not_finite(uint32_t count, const float *restrict v, float *restrict bad) {
  for (uint32_t j = 0; j < count; j++) bad[j] += v[j] - v[j];
}

HOT_LOOP static void advance_lane(uint32_t count, const float *restrict now, float *restrict last,
                                  float *restrict prev, const float *restrict bad) {
  for (uint32_t j = 0; j < count; j++) {
    prev[j] = last[j];
    last[j] = bad[j] == 0.0f ? now[j] : last[j];
  }
}

/* Every chain of slots [lo, hi): last frame's anchor becomes prev, this frame's (as the culling
 * read it) becomes last where it is finite (a non-finite one keeps the last finite frame, so the
 * chain holds). Vector loops over the run of slots, a block at a time; an unused slot's lanes
 * are finite leftovers nothing reads. */
static void advance_anchors(float *const *a, uint32_t lo, uint32_t hi) {
  float bad[ROOT_BLOCK];
  for (uint32_t b0 = lo; b0 < hi; b0 += ROOT_BLOCK) {
    uint32_t count = hi - b0 < ROOT_BLOCK ? hi - b0 : ROOT_BLOCK;
    memset(bad, 0, sizeof bad);
    for (int k = 0; k < 7; k++) sum_not_finite(count, a[ANCHOR_NOW + k] + b0, bad);
    for (int k = 0; k < 7; k++) advance_lane(count, a[ANCHOR_NOW + k] + b0, a[ANCHOR_LAST + k] + b0, a[ANCHOR_PREV + k] + b0, bad);
  }
}

void tress__chain_root_anchors(struct tress_chains *c, uint32_t t, int which, float *const *g) {
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0), count = hi - lo;
  float *const *a = c->per_slot + which;
  uint32_t dense = c->roots_dense[t] ? c->tile_slot[t + 1] - c->tile_slot[t] : 0;
  for (int k = 0; k < 7; k++) {
    float pad = k == 6 ? 1.0f : 0.0f;
    if (dense) memcpy(g[k], a[k] + c->tile_slot[t], dense * sizeof(float));
    for (uint32_t j = dense; j < count; j++) g[k][j] = lo + j < TILE_FILL(c, t, 0) ? a[k][c->node_slot[lo + j]] : pad;
  }
}

/* Roots: part * cframe * animated, the same composition with the part as parent (a part
 * chain's pin has identity cframe and animated, so it lands on the part). */
static void roots_world(struct tress_chains *c, uint32_t t) {
  advance_anchors(c->per_slot, c->tile_slot[t], c->tile_slot[t + 1]);
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0);
  tress__chain_root_anchors(c, t, ANCHOR_LAST, c->g);
  const float *par[7] = {c->g[0], c->g[1], c->g[2], c->g[3], c->g[4], c->g[5], c->g[6]};
  compose_world(c, TILE_LEVEL(c, t, 0), lo, hi, par);
}

static void snap_slot(struct tress_chains *c, chain_slot *s) {
  chain_nodes *n = &c->nodes;
  const tile_scratch *w = &c->tile; /* its tile's: snaps happen inside the tile's frame */
  /* the chain restarts at its anchor now: nothing to interpolate from, nothing to carry */
  uint32_t si = (uint32_t)(s - c->slots);
  s->pin = anchor_get(c, ANCHOR_LAST, si);
  anchor_put(c, ANCHOR_PREV, si, s->pin);
  if (s->center) s->center->prev = s->center->pin = s->center->now; /* the same for its center */
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k], j = i - w->base;
    n->px[i] = n->ox[i] = n->pa_px[i] = w->aw_px[j];
    n->py[i] = n->oy[i] = n->pa_py[i] = w->aw_py[j];
    n->pz[i] = n->oz[i] = n->pa_pz[i] = w->aw_pz[j];
  }
}

/* The per-slot lanes gather on the sim's jobs: each range fills its own slots' columns; which
 * lanes hold shaped colliders or segments is OR-ed together, so any split gives the same lanes. */
typedef struct lanes_job {
  struct tress_chains *c;
  const tress_collider_world *world;
  uint32_t world_count, widest;
  atomic_uint shaped, capsules;
} lanes_job;

static void lanes_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  lanes_job *job = context;
  struct tress_chains *c = job->c;
  uint32_t shaped, capsules;
  tress__collider_lanes_fill(&c->lanes, job->world, job->world_count, c->sets, c->slot_count, NULL, start, end,
                            job->widest, &shaped, &capsules);
  atomic_fetch_or(&job->shaped, shaped);
  atomic_fetch_or(&job->capsules, capsules);
}

/* The collider lanes, once per frame and only while some chain has colliders (their world poses
 * came in the activity pass, update_activity). A colliding tile
 * gathers its own lanes by level-0 position (gather_tile_colliders); the per-slot lanes, one per
 * chain's set, are filled only when some level is not aligned, the one case whose push reads
 * them. Lanes grow here when binds made more slots or wider sets (an allocation after a bind,
 * never in a steady frame). c->lanes.slots, the widest set, gates every push. */
static void gather_colliders(tress_sim *sim, struct tress_chains *c) {
  uint32_t widest = 0;
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->sets[si].count > widest) widest = c->sets[si].count;
  c->lanes.slots = 0;
  if (c->unaligned_levels && (widest > c->lanes.slot_cap || c->slot_count > c->lanes.stride || !c->lanes.ax)) {
    tress_collider_lanes grown;
    uint32_t slots = widest > c->lanes.slot_cap ? widest : c->lanes.slot_cap;
    if (!tress__collider_lanes_init(&grown, slots, c->slot_cap)) return;
    tress__collider_lanes_free(&c->lanes);
    c->lanes = grown;
  }
  if (widest > c->tile_lanes.slot_cap || c->root_width > c->tile_lanes.stride || !c->tile_lanes.ax) {
    tress_collider_lanes grown;
    uint32_t slots = widest > c->tile_lanes.slot_cap ? widest : c->tile_lanes.slot_cap;
    if (!tress__collider_lanes_init(&grown, slots, c->root_width ? c->root_width : 1)) return;
    tress__collider_lanes_free(&c->tile_lanes);
    c->tile_lanes = grown;
  }
  if (!c->unaligned_levels) {
    c->lanes.slots = widest;
    return;
  }
  lanes_job job = {c, sim->colliders->world, sim->colliders->count, 0, 0, 0};
  job.widest = widest; /* the lanes were grown to hold it above */
  tress__jobs_run(&sim->def.jobs, lanes_range, c->slot_count, 512, &job);
  c->lanes.slots = job.widest;
  c->lanes.shaped_slots = atomic_load(&job.shaped);
  c->lanes.capsule_slots = atomic_load(&job.capsules);
}

/* A colliding tile's lanes by level-0 position, once per frame (per chain, not per node). */
static void gather_tile_colliders(tress_sim *sim, struct tress_chains *c, uint32_t t) {
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0);
  tress__collider_lanes_gather(&c->tile_lanes, sim->colliders->world, sim->colliders->count, c->sets, c->slot_count,
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

/* After a layout: the scene's bone entries in node order (tress__scene_order_bones), so a level's
 * scene reads and writes run through consecutive entries, not one cache line per bone. Out of
 * memory, the entries stay where they are: the frames are as right, only slower. */
static void order_scene_bones(tress_sim *sim, struct tress_chains *c) {
  tress_id *order = calloc(c->nodes.count ? c->nodes.count : 1, sizeof *order);
  if (!order) return;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    const chain_slot *s = &c->slots[si];
    if (!s->used || s->kind != TRESS_HANDLE_BONES) continue;
    for (uint32_t k = 0; k < s->node_count; k++) order[s->global[k]] = slot_node_id(sim->scene, s, k);
  }
  uint32_t bones = 0; /* padding, parts and virtual tips hold null ids */
  for (uint32_t i = 0; i < c->nodes.count; i++)
    if (!tress_id_is_null(order[i])) order[bones++] = order[i];
  tress__scene_order_bones(sim->scene, order, bones);
  free(order);
}

static bool frame_begin(tress_sim *sim, struct tress_chains *c, const tress_frame *f) {
  if (c->dirty) {
    if (!tress__chains_rebuild(c)) return false;
    order_scene_bones(sim, c);
  }
  chain_nodes *n = &c->nodes;
  if (n->count == 0 || c->level_count == 0) return false;
  choose_carry(c, f);
  c->animated_identity = tress__scene_animated_bones(sim->scene) == 0;
  if (c->scale_epoch != tress__scene_scale_epoch(sim->scene)) tress__chains_refresh_scales(sim, c);
  update_activity(sim, c, f);
  if (c->collider_chains > 0) gather_colliders(sim, c);
  return true;
}

/* Gust ripple: each node's wind scale this frame, its depth's phase delayed (see sim.h). */
static void gust_slot(struct tress_chains *c, const chain_slot *s, double time) {
  const chain_params *st = &s->settings;
  double w = 6.283185307179586 * st->wind_frequency;
  for (uint32_t k = 0; k < s->node_count; k++) {
    double phase = w * (time - (double)slot_depth(s, k) * TRESS_GUST_DELAY);
    float gust = 1.0f + st->wind_gust * (float)sin(phase);
    c->tile.wscale[s->global[k] - c->tile.base] = st->wind_scale * s->scale * gust;
  }
}

/* The animated world pose of every level below the roots, once per frame: the pose model pins
 * and pulls toward it every substep; a VRM tile reads it only to snap, blend or recover a chain
 * (its substeps pin the roots alone), so it comes here on the first such need (TILE_WORLD). */
static void tile_world(struct tress_chains *c, uint32_t t, uint8_t *flags) {
  if (*flags & TILE_WORLD) return;
  for (uint32_t l = 1; l < c->level_count; l++) animated_world_level(c, TILE_LEVEL(c, t, l), TILE_LO(c, t, l), TILE_HI(c, t, l));
  *flags |= TILE_WORLD;
}

/* The reset checks of a chain's root (sim.h), each independent: the teleport guard, a jump of a
 * few chain lengths off the path its velocity predicted, a stalled step, a game-marked reset; a
 * disabled chain rests at its animated pose. d is the root's motion over the frame, v its
 * velocity before this frame. */
typedef struct root_check_consts {
  float tele2, span; /* squared teleport distance at scale 1; the frame's real time */
  bool stalled;
} root_check_consts;

static inline bool root_resets(uint32_t fr, float dx, float dy, float dz, const float v[3], float jump2, float scale,
                               const root_check_consts *k) {
  float d2 = dx * dx + dy * dy + dz * dz;
  /* a jump is a departure from the path the root was on: a head in a fast car moves far every
   * frame without jumping (measured raw, a short chain would snap every frame there) */
  float ex = dx - v[0] * k->span, ey = dy - v[1] * k->span, ez = dz - v[2] * k->span;
  float jump = ex * ex + ey * ey + ez * ez;
  /* bitwise, not short-circuit: the block loop stays free of branches */
  return (d2 > k->tele2 * scale * scale) | (jump > jump2) | k->stalled | ((fr & (FRAME_RESET | FEAT_DISABLED)) != 0);
}

/* A chain that just started or woke has no last frame to measure a velocity from; after a jump
 * the velocity is wrong for one frame, which at worst snaps it a second time. */
static inline float root_velocity(uint32_t fr, float d, float span) {
  bool track = !(fr & FRAME_RESUME) && span > 0.0f;
  return track ? d / span : 0.0f;
}

/* Every awake chain of a block of slots without a center (a centered one is centered_root_check's):
 * its root's reset checks into snap[j] (resuming snaps too) and its new velocity. Returns the OR
 * of the block's frame bits, with ROOT_SNAPS when some chain snaps. */
#define ROOT_SNAPS 0x8000u
HOT_LOOP static uint32_t root_checks(uint32_t count, const uint16_t *restrict frame, const uint32_t *restrict root,
                                     uint32_t base, const float *restrict awx, const float *restrict awy,
                                     const float *restrict awz,
                                     const float *restrict pax, const float *restrict pay, const float *restrict paz,
                                     float *restrict vx, float *restrict vy, float *restrict vz,
                                     const float *restrict jump2, const float *restrict scale,
                                     const root_check_consts *kc, uint8_t *restrict snap) {
  const root_check_consts k = *kc;
  uint32_t seen = 0, snaps = 0;
  for (uint32_t j = 0; j < count; j++) {
    uint32_t fr = frame[j], r = root[j] - base; /* both arrays start at the tile's first node */
    float dx = awx[r] - pax[r], dy = awy[r] - pay[r], dz = awz[r] - paz[r];
    float v[3] = {vx[j], vy[j], vz[j]};
    bool own = (fr & (FRAME_AWAKE | FEAT_CENTERED)) == FRAME_AWAKE;
    bool s = own & (((fr & FRAME_RESUME) != 0) | root_resets(fr, dx, dy, dz, v, jump2[j], scale[j], &k));
    snap[j] = s;
    snaps |= s;
    seen |= fr;
    vx[j] = own ? root_velocity(fr, dx, k.span) : v[0];
    vy[j] = own ? root_velocity(fr, dy, k.span) : v[1];
    vz[j] = own ? root_velocity(fr, dz, k.span) : v[2];
  }
  return seen | (snaps ? ROOT_SNAPS : 0u);
}

/* The same for an awake chain with a center, whose root motion is measured in its center's
 * frame (riding along with the center is no jump); reads its center for the frame. */
static bool centered_root_check(tress_sim *sim, struct tress_chains *c, uint32_t si, uint32_t fr,
                                const root_check_consts *k) {
  chain_nodes *n = &c->nodes;
  chain_slot *s = &c->slots[si];
  uint32_t r = s->root;
  tress__center_read(sim, s);
  const tile_scratch *w = &c->tile;
  uint32_t j = r - w->base;
  float pa[3] = {n->pa_px[r], n->pa_py[r], n->pa_pz[r]}, aw[3] = {w->aw_px[j], w->aw_py[j], w->aw_pz[j]}, d[3];
  tress__center_root_motion(s, pa, aw, d);
  float *const *lane = c->per_slot;
  float v[3] = {lane[LANE_VX][si], lane[LANE_VX + 1][si], lane[LANE_VX + 2][si]};
  bool snap = (fr & FRAME_RESUME) ||
              root_resets(fr, d[0], d[1], d[2], v, lane[LANE_JUMP2][si], lane[LANE_SCALE][si], k);
  for (int a = 0; a < 3; a++) lane[LANE_VX + a][si] = root_velocity(fr, d[a], k->span);
  return snap;
}

/* out[j] = lane[slot[j]] over a level's real nodes: a chain's constant to each of its nodes. */
HOT_LOOP static void gather_lane(uint32_t count, const uint32_t *restrict slot, const float *restrict lane,
                                 float *restrict out) {
  for (uint32_t j = 0; j < count; j++) out[j] = lane[slot[j]];
}

/* out[j] = |cframe position| x scale over one level run: its nodes' link lengths (the same
 * operations the bind-time length took, so the same bits). */
HOT_LOOP static void link_lengths(uint32_t count, const float *restrict x, const float *restrict y,
                                  const float *restrict z, const float *restrict sc, float *restrict out) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) out[j] = sqrtf(x[j] * x[j] + y[j] * y[j] + z[j] * z[j]) * sc[j];
}

/* The tile's CHAIN_CONSTANTS into its scratch, level by level: level 0 from the slots' lanes
 * (straight, when its roots are one per slot in slot order), an aligned level as a copy of level
 * 0's (position j is the same chain), any other through its nodes' slots; padding 0. A level that
 * reads level 0's in place (constants_at) takes none. With joint settings anywhere in the batch,
 * the first JOINT_CONSTANTS come from the nodes' jt_* copies, and every level holds its own:
 * so it does in a tile with a gusty chain (its wind scale differs by depth). Then every level's
 * link lengths (rest_len; roots, level 0, have none). Sets the tile's TILE_OWN_CONSTANTS (the
 * tile's flags are otherwise set at the end of its prepare). */
static void chain_constants_tile(struct tress_chains *c, uint32_t t) {
  const chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
#define CONSTANT_SCRATCH(name) w->name,
  float *const dst[] = {CHAIN_CONSTANTS(CONSTANT_SCRATCH)};
#undef CONSTANT_SCRATCH
  const float *const joint[JOINT_CONSTANTS] = {n->jt_damping, n->jt_stiffness, n->jt_gscale, n->jt_radius};
  uint32_t lo0 = TILE_LO(c, t, 0), first = c->tile_slot[t];
  unsigned gusty = 0;
  for (uint32_t si = first; si < c->tile_slot[t + 1]; si++) gusty |= c->slot_frame[si] & FEAT_GUSTY;
  c->tile_flags[t] = gusty || joint[0] ? TILE_OWN_CONSTANTS : 0u;
  for (uint32_t l = 0; l < c->level_count; l++) {
    size_t tl = TILE_LEVEL(c, t, l);
    uint32_t lo = TILE_LO(c, t, l), fill = TILE_FILL(c, t, l), hi = TILE_HI(c, t, l), at = lo - w->base;
    uint32_t kat = constants_at(c, tl, lo);
    for (uint32_t k = 0; kat == at && k < sizeof dst / sizeof dst[0]; k++) {
      float *out = dst[k] + at;
      if (k < JOINT_CONSTANTS && joint[0]) {
        memcpy(out, joint[k] + lo, (size_t)(hi - lo) * sizeof(float)); /* padding holds 0 there too */
        continue;
      }
      const float *lane = c->per_slot[LANE_DAMPING + k];
      if (l > 0 && c->aligned[tl]) memcpy(out, dst[k] + (lo0 - w->base), (size_t)(fill - lo) * sizeof(float));
      else if (l == 0 && c->roots_dense[t]) memcpy(out, lane + first, (size_t)(fill - lo) * sizeof(float));
      else gather_lane(fill - lo, c->node_slot + lo, lane, out);
      memset(out + (fill - lo), 0, (size_t)(hi - fill) * sizeof(float));
    }
    if (l == 0) memset(w->rest_len + at, 0, (size_t)(hi - lo) * sizeof(float));
    else link_lengths(hi - lo, n->cf_px + lo, n->cf_py + lo, n->cf_pz + lo, w->sc + kat, w->rest_len + at);
  }
}

/* One tile: its chains' constants, scene reads, animated world poses level by level, snaps, this
 * frame's tile flags and gusts. */
static void prepare_tile(tress_sim *sim, struct tress_chains *c, const tress_frame *f, uint32_t t) {
  chain_nodes *n = &c->nodes;
  uint8_t flags = 0;
  c->tile.base = TILE_LO(c, t, 0); /* the tile scratch now belongs to tile t */
  chain_constants_tile(c, t);
  for (uint32_t l = 0; l < c->level_count; l++) read_level(c, TILE_LEVEL(c, t, l), TILE_LO(c, t, l), TILE_HI(c, t, l));
  roots_world(c, t);
  if (!(c->tile_kind[t] & TILE_KIND_VRM)) tile_world(c, t, &flags);
  /* Snap: new chains start where they are drawn, waking chains and teleports do not whip. */
  uint32_t s0 = c->tile_slot[t], s1 = c->tile_slot[t + 1];
  root_check_consts k = {f->teleport_distance * f->teleport_distance, (float)f->span, f->stalled};
  float *const *lane = c->per_slot;
  uint8_t snap[ROOT_BLOCK];
  uint32_t seen = 0;
  for (uint32_t b0 = s0; b0 < s1; b0 += ROOT_BLOCK) {
    uint32_t count = s1 - b0 < ROOT_BLOCK ? s1 - b0 : ROOT_BLOCK;
    uint32_t base = c->tile.base;
    uint32_t any = root_checks(count, c->slot_frame + b0, c->slot_root + b0, base, c->tile.aw_px, c->tile.aw_py,
                               c->tile.aw_pz, n->pa_px + base, n->pa_py + base, n->pa_pz + base, lane[LANE_VX] + b0,
                               lane[LANE_VX + 1] + b0, lane[LANE_VX + 2] + b0, lane[LANE_JUMP2] + b0,
                               lane[LANE_SCALE] + b0, &k, snap);
    seen |= any;
    /* the per-chain work: gusts, centers and snaps, only in a block that has any */
    if (!(any & (ROOT_SNAPS | FEAT_GUSTY | FEAT_CENTERED))) continue;
    for (uint32_t j = 0; j < count; j++) {
      uint32_t si = b0 + j, fr = c->slot_frame[si];
      chain_slot *s = &c->slots[si];
      if (fr & FEAT_GUSTY) gust_slot(c, s, f->time);
      if (fr & FEAT_CENTERED) snap[j] = centered_root_check(sim, c, si, fr, &k);
      if (snap[j]) {
        tile_world(c, t, &flags); /* a snap starts every node at its animated pose */
        snap_slot(c, s);
      }
    }
  }
  if (seen & FRAME_PARTS) flags |= TILE_PARTS;
  if (seen & FEAT_COLLIDES) flags |= TILE_COLLIDES;
  if (seen & FEAT_WEIGHTED) flags |= TILE_WEIGHTED;
  if (seen & FEAT_LIMITED) flags |= TILE_LIMITED;
  if (seen & FEAT_CENTERED) flags |= TILE_CENTERED;
  if (flags & TILE_WEIGHTED) tile_world(c, t, &flags); /* blended toward the animated pose */
  c->tile_flags[t] = flags | (c->tile_flags[t] & TILE_OWN_CONSTANTS);
  if ((flags & TILE_COLLIDES) && c->lanes.slots > 0) gather_tile_colliders(sim, c, t);
  if (c->tile_kind[t] & TILE_KIND_VRM) tress__vrm_prepare_roots(c, t);
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
    link_and_blend(j, cx, cy, cz, nx, ny, nz, qx[j], qy[j], qz[j], rest[j], m, px, py, pz, ox, oy, oz);
  }
}

static void substep_tile(struct tress_chains *c, const tress_frame *f, float alpha, uint32_t t) {
  chain_nodes *n = &c->nodes;
  const tile_scratch *w = &c->tile;
  /* Pinned roots follow the animated pose, interpolated to this substep's time. */
  for (uint32_t i = TILE_LO(c, t, 0); i < TILE_HI(c, t, 0); i++) {
    uint32_t j = i - w->base;
    float m = w->stepping[j];
    float x = n->pa_px[i] + (w->aw_px[j] - n->pa_px[i]) * alpha;
    float y = n->pa_py[i] + (w->aw_py[j] - n->pa_py[i]) * alpha;
    float z = n->pa_pz[i] + (w->aw_pz[j] - n->pa_pz[i]) * alpha;
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
  bool limited = c->tile_flags[t] & TILE_LIMITED;
  for (uint32_t l = 1; l < c->level_count; l++) {
    uint32_t lo = TILE_LO(c, t, l), hi = TILE_HI(c, t, l);
    const float *par[3];
    float *const src[3] = {n->px, n->py, n->pz};
    level_view(c, lo, hi, c->parent_shift[TILE_LEVEL(c, t, l)], false, n->parent, src, 0, 3, par, 0);
    size_t tl = TILE_LEVEL(c, t, l);
    uint32_t at = lo - w->base, kat = constants_at(c, tl, lo);
    substep_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, n->ox + lo, n->oy + lo, n->oz + lo, w->aw_px + at,
                  w->aw_py + at, w->aw_pz + at, n->pa_px + lo, n->pa_py + lo, n->pa_pz + lo, w->damping + kat,
                  w->stiffness + kat, w->gscale + kat, w->wscale + kat, w->rest_len + at, w->stepping + kat, par[0],
                  par[1], par[2], &k);
    /* the limits after the inertia and link, and again after the colliders (the draft's order) */
    if (limited) tress__limit_pose_level(c, tl, lo, hi, par);
    /* then out of the chain's colliders, the link kept (parents are final: previous level) */
    if (collides && c->aligned[TILE_LEVEL(c, t, l)])
      tress__collider_push_level(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], w->rest_len + at,
                                w->radius + kat, hi - lo, &c->tile_lanes, TRESS_COLLIDER_KEEP_LINK);
    else if (collides)
      tress__collider_push_level_sets(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], w->rest_len + at,
                                     w->radius + kat, hi - lo, &c->lanes, c->node_slot + lo, TRESS_COLLIDER_KEEP_LINK);
    if (limited && collides) tress__limit_pose_level(c, tl, lo, hi, par);
  }
}


/* Output for one level: base = parent written * cframe; the node sits at its simulated
 * position and turns by the shortest arc from its animated aim to where its first child is.
 * weighted (a compile-time constant in each caller): positions come from the blended bl_*
 * arrays, and a node of weight 0 gets its animated local exactly. */
static inline __attribute__((always_inline)) void output_level_body(struct tress_chains *c, size_t tl, uint32_t lo,
                                                                    uint32_t hi, bool weighted, bool still) {
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
  const float *aim_of[3];
  aim_view(c, tl, lo, hi, aim_of);
  const float *restrict mx = aim_of[0], *restrict my = aim_of[1], *restrict mz = aim_of[2];
  const float *restrict px = csrc[0] + (lo - cbase), *restrict py = csrc[1] + (lo - cbase),
                        *restrict pz = csrc[2] + (lo - cbase);
  const float *restrict wt = w->weight + constants_at(c, tl, lo);
  const float *restrict sc = w->sc + constants_at(c, tl, lo);
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
    float bpx = gpx[j] + r[0] * sc[j], bpy = gpy[j] + r[1] * sc[j], bpz = gpz[j] + r[2] * sc[j];
    tress_quat_mul(pq, cq, bq);
    /* local translation: where the simulation put the node, seen from base */
    float d[3] = {px[j] - bpx, py[j] - bpy, pz[j] - bpz};
    float tp[3];
    tress_quat_rotate_inv(bq, d, tp);
    /* back to the unscaled local offset the scene scales again */
    float isc = sc[j] > 0.0f ? 1.0f / sc[j] : 0.0f; /* padding has scale 0 and stays finite */
    tp[0] *= isc; tp[1] *= isc; tp[2] *= isc;
    /* aim: animated direction (in base frame) vs simulated direction (in base frame) */
    float aim[3] = {mx[j], my[j], mz[j]};
    float from[3] = {aim[0], aim[1], aim[2]}; /* still: the identity turns nothing */
    if (!still) tress_quat_rotate(aq, aim, from);
    float sd[3] = {ccx[j] - px[j], ccy[j] - py[j], ccz[j] - pz[j]};
    float to[3];
    tress_quat_rotate_inv(bq, sd, to);
    float arc[4];
    arc_between(from[0], from[1], from[2], to[0], to[1], to[2], arc);
    float tq[4] = {arc[0], arc[1], arc[2], arc[3]};
    if (!still) tress_quat_mul(arc, aq, tq);
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

HOT_LOOP static void output_level_moving(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  output_level_body(c, tl, lo, hi, false, false);
}

HOT_LOOP static void output_level_still(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  output_level_body(c, tl, lo, hi, false, true);
}

static void output_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  if (c->still[tl]) output_level_still(c, tl, lo, hi);
  else output_level_moving(c, tl, lo, hi);
}

HOT_LOOP static void output_level_weighted(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi) {
  output_level_body(c, tl, lo, hi, true, false); /* blended tiles are rare: one general form */
}

/* Weighted tiles: every node's output position, simulated blended toward animated by weight
 * (roots are pinned: weight does not move them). */
static void blend_level(const chain_nodes *n, tile_scratch *t, uint32_t lo, uint32_t hi, uint32_t kat, bool carried) {
  for (uint32_t i = lo; i < hi; i++) {
    float w = t->weight[kat + (i - lo)];
    /* weight 1 takes the simulated position as it is: the same bits as an unweighted tile */
    bool full = w >= 1.0f;
    uint32_t j = i - t->base;
    float x = carried ? t->bl_x[j] : n->px[i], y = carried ? t->bl_y[j] : n->py[i], z = carried ? t->bl_z[j] : n->pz[i];
    t->bl_x[j] = full ? x : t->aw_px[j] + (x - t->aw_px[j]) * w;
    t->bl_y[j] = full ? y : t->aw_py[j] + (y - t->aw_py[j]) * w;
    t->bl_z[j] = full ? z : t->aw_pz[j] + (z - t->aw_pz[j]) * w;
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
static tress_xform anchor_at(const struct tress_chains *c, uint32_t si, float alpha) {
  tress_xform a = anchor_get(c, ANCHOR_PREV, si), b = anchor_get(c, ANCHOR_LAST, si);
  if (alpha >= 1.0f) return b;
  tress_xform r;
  for (int k = 0; k < 3; k++) r.p[k] = a.p[k] + (b.p[k] - a.p[k]) * alpha;
  float dot = a.q[0] * b.q[0] + a.q[1] * b.q[1] + a.q[2] * b.q[2] + a.q[3] * b.q[3];
  float sign = dot < 0.0f ? -1.0f : 1.0f;
  for (int k = 0; k < 4; k++) r.q[k] = a.q[k] + (sign * b.q[k] - a.q[k]) * alpha;
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
  tile_scratch *w = &c->tile;
  float alpha = f->substeps > 0 ? tress__frame_alpha(f, f->substeps - 1) : 0.0f;
  bool any = false;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    /* the last frame's anchor was every pin (a snap since then set this one explicitly, to
     * the same value ANCHOR_PREV now holds) */
    if (c->carry_mode == CARRY_FROM_PREVIOUS) s->pin = anchor_get(c, ANCHOR_PREV, si);
    if (c->per_slot[LANE_STEP][si] == 0.0f) continue;
    if (c->carry_mode == CARRY_STEPPED) s->pin = anchor_at(c, si, alpha);
    tress_xform last = anchor_get(c, ANCHOR_LAST, si);
    any = any || !xform_same(&s->pin, &last);
  }
  if (!any) return false;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    /* display = now * pin^-1 * p: rotation q, then translation now.p - q * pin.p */
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f}, tr[3] = {0.0f, 0.0f, 0.0f};
    tress_xform last = anchor_get(c, ANCHOR_LAST, si);
    if (c->per_slot[LANE_STEP][si] != 0.0f && !xform_same(&s->pin, &last)) {
      float inv[4] = {-s->pin.q[0], -s->pin.q[1], -s->pin.q[2], s->pin.q[3]}, r[3];
      tress_quat_mul(last.q, inv, q);
      tress_quat_rotate(q, s->pin.p, r);
      for (int k = 0; k < 3; k++) tr[k] = last.p[k] - r[k];
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
 * its chain, when awake, is marked for recovery (padding from `fill` on belongs to none).
 * Returns true when some chain was marked. */
static bool scatter_level(struct tress_chains *c, uint32_t lo, uint32_t fill, uint32_t hi, const float *const *t,
                          tress_xform *sink) {
  tress_xform_slots out = {c->transform_base, c->bone_slot + lo, sink};
  const float *tpx = t[0], *tpy = t[1], *tpz = t[2], *tqx = t[3], *tqy = t[4], *tqz = t[5], *tqw = t[6];
  uint32_t count = hi - lo;
  if (tress__xforms_write(out, count, t, c->wide)) return false;
  bool bad = false;
  for (uint32_t j = 0; j < count; j++) {
    if (!node_finite(t, j)) {
      chain_slot *s = &c->slots[c->node_slot[lo + j]];
      if (lo + j < fill && s->act_last != 0.0f) {
        s->act_last = -2.0f;
        bad = true;
      }
      continue;
    }
    uint32_t b = out.index[j];
    tress_xform *o = b ? out.array + b : sink;
    o->p[0] = tpx[j]; o->p[1] = tpy[j]; o->p[2] = tpz[j];
    o->q[0] = tqx[j]; o->q[1] = tqy[j]; o->q[2] = tqz[j]; o->q[3] = tqw[j];
  }
  return bad;
}

/* A chain whose output went non-finite (absurd settings overflowed) snaps back to its animated
 * pose and shows its animated values: a NaN never reaches the scene. */
static void recover_slot(struct tress_chains *c, chain_slot *s) {
  tile_scratch *w = &c->tile;
  snap_slot(c, s);
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k], j = i - w->base;
    w->wp_x[j] = w->aw_px[j]; w->wp_y[j] = w->aw_py[j]; w->wp_z[j] = w->aw_pz[j];
    w->wq_x[j] = w->aw_qx[j]; w->wq_y[j] = w->aw_qy[j]; w->wq_z[j] = w->aw_qz[j]; w->wq_w[j] = w->aw_qw[j];
    tress_xform t = {{w->an_px[j], w->an_py[j], w->an_pz[j]}, {w->an_qx[j], w->an_qy[j], w->an_qz[j], w->an_qw[j]}};
    if (c->bone_slot[i]) c->transform_base[c->bone_slot[i]] = t; /* (the sink is never read) */
  }
}

/* Output and scene write for one tile, level by level so each level's transforms go to the
 * scene while they are still in cache. Roots are pinned: they show the animated pose, unswung. */
static void output_tile(tress_sim *sim, struct tress_chains *c, uint32_t t) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0), at = lo - w->base;
  bool rotations = c->tile_kind[t] & TILE_KIND_ROTATIONS;
  const float *level_out[7];
  for (int k = 0; k < 7; k++) level_out[k] = c->g[G_OUT + k];
  bool weighted = c->tile_flags[t] & TILE_WEIGHTED, carried = c->tile_flags[t] & TILE_CARRIED;
  /* the display positions (bl) feed the output wherever they differ from the simulated ones */
  bool display = weighted || carried;
  if (carried)
    for (uint32_t l = 1; l < c->level_count; l++) {
      uint32_t lanes = c->aligned[TILE_LEVEL(c, t, l)] ? TILE_LO(c, t, 0) : TILE_LO(c, t, l);
      carry_level(n, w, TILE_LO(c, t, l), TILE_HI(c, t, l), lanes);
    }
  if (weighted)
    for (uint32_t l = 1; l < c->level_count; l++) {
      uint32_t lo = TILE_LO(c, t, l);
      blend_level(n, w, lo, TILE_HI(c, t, l), constants_at(c, TILE_LEVEL(c, t, l), lo), carried);
    }
  bool bad;
  if (rotations) {
    /* rotations only: the first joints turn toward their tails like every other joint */
    tress__vrm_output_roots(c, t, display);
    bad = scatter_level(c, lo, TILE_FILL(c, t, 0), hi, level_out, &c->sinks[t]);
  } else {
    for (uint32_t i = lo; i < hi; i++) {
      uint32_t j = i - w->base;
      w->wp_x[j] = w->aw_px[j]; w->wp_y[j] = w->aw_py[j]; w->wp_z[j] = w->aw_pz[j];
      w->wq_x[j] = w->aw_qx[j]; w->wq_y[j] = w->aw_qy[j]; w->wq_z[j] = w->aw_qz[j]; w->wq_w[j] = w->aw_qw[j];
    }
    const float *roots[7] = {w->an_px + at, w->an_py + at, w->an_pz + at, w->an_qx + at,
                             w->an_qy + at, w->an_qz + at, w->an_qw + at};
    bad = scatter_level(c, lo, TILE_FILL(c, t, 0), hi, roots, &c->sinks[t]);
  }
  for (uint32_t l = 1; l < c->level_count; l++) {
    lo = TILE_LO(c, t, l);
    hi = TILE_HI(c, t, l);
    if (rotations) tress__vrm_output_level(c, TILE_LEVEL(c, t, l), lo, hi, display);
    else if (display) output_level_weighted(c, TILE_LEVEL(c, t, l), lo, hi);
    else output_level(c, TILE_LEVEL(c, t, l), lo, hi);
    bad |= scatter_level(c, lo, TILE_FILL(c, t, l), hi, level_out, &c->sinks[t]);
  }
  /* the slots only matter for a recovery or a part chain's cframes */
  if (!bad && !(c->tile_flags[t] & TILE_PARTS)) return;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used || s->act_last == 0.0f) continue;
    if (bad && s->act_last == -2.0f) {
      s->act_last = 1.0f;
      tile_world(c, t, &c->tile_flags[t]);
      recover_slot(c, s);
    }
    /* Part chains write world cframes; the pin (node 0) belongs to the body. */
    if (s->kind == TRESS_HANDLE_PARTS) {
      for (uint32_t k = 1; k < s->node_count; k++) {
        uint32_t j = s->global[k] - w->base;
        tress_xform pose = {{w->wp_x[j], w->wp_y[j], w->wp_z[j]}, {w->wq_x[j], w->wq_y[j], w->wq_z[j], w->wq_w[j]}};
        tress_part_set_cframe(sim->scene, slot_node_id(sim->scene, s, k), pose);
      }
    }
  }
}

/* One tile, every phase while its data is in cache (and the tile scratch of c, the batch or a
 * worker's view of it, holds that tile). With ms, each phase's time is added to ms[0..2]. */
/* This frame's animated positions, made in the tile scratch, become the next frame's last ones:
 * copied while they are in cache, so the node arrays hold one animated pose, not two. A VRM
 * tile that composed only its roots this frame (no TILE_WORLD) keeps only theirs: the scratch
 * past them holds another tile's values. */
static void keep_animated(struct tress_chains *c, uint32_t t) {
  chain_nodes *n = &c->nodes;
  const tile_scratch *w = &c->tile;
  uint32_t lo = TILE_LO(c, t, 0), end = (c->tile_flags[t] & TILE_WORLD) ? c->tile_end[t] : TILE_HI(c, t, 0);
  size_t bytes = (size_t)(end - lo) * sizeof(float);
  memcpy(n->pa_px + lo, w->aw_px, bytes);
  memcpy(n->pa_py + lo, w->aw_py, bytes);
  memcpy(n->pa_pz + lo, w->aw_pz, bytes);
}

void tress__chains_tile(tress_sim *sim, struct tress_chains *c, const tress_frame *f, uint32_t t, double *ms) {
  double t0 = ms ? tress__clock_ms() : 0.0;
  if (c->activity_in_tiles) {
    if (c->cull_with_activity) tress__chains_cull_slots(sim, c->tile_slot[t], c->tile_slot[t + 1]);
    c->tile_stepping[t] = activity_slots(sim, c, f, c->tile_slot[t], c->tile_slot[t + 1]);
  }
  prepare_tile(sim, c, f, t);
  double t1 = ms ? tress__clock_ms() : 0.0;
  bool vrm = c->tile_kind[t] & TILE_KIND_VRM;
  bool centered = c->tile_flags[t] & TILE_CENTERED;
  for (int k = 0; k < f->substeps; k++) {
    if (centered) tress__center_substep_tile(c, tress__frame_alpha(f, k), t);
    if (vrm) tress__vrm_substep_tile(c, f, tress__frame_alpha(f, k), t);
    else substep_tile(c, f, tress__frame_alpha(f, k), t);
  }
  double t2 = ms ? tress__clock_ms() : 0.0;
  if (carry_tile(c, f, t)) c->tile_flags[t] |= TILE_CARRIED;
  output_tile(sim, c, t);
  keep_animated(c, t);
  if (ms) {
    double t3 = tress__clock_ms();
    ms[0] += t1 - t0;
    ms[1] += t2 - t1;
    ms[2] += t3 - t2;
  }
}

static void run_frame(tress_sim *sim, const tress_frame *f, tress_sim_profile *profile) {
  struct tress_chains *c = sim->chains;
  if (!frame_begin(sim, c, f)) {
    /* no tile runs: the culling the activity pass would have done, here (every handle keyed) */
    if (c->cull_with_activity) tress__chains_cull_slots(sim, 0, c->slot_count);
    return;
  }
  tress__chains_run_tiles(sim, c, f, profile);
  if (c->activity_in_tiles) {
    c->stepping_chains = 0;
    for (uint32_t t = 0; t < c->tile_count; t++) c->stepping_chains += c->tile_stepping[t];
  }
  /* handle-steps: every awake, enabled chain counts once per substep */
  tress__count_simulated(sim, c->stepping_chains * (uint32_t)f->substeps);
}

/* A frame: the serial set-up, then the tiles on the sim's workers (chains_jobs.c). The two
 * callers pass NULL or the sim's profile as a constant. */
void tress__chains_frame(tress_sim *sim, const tress_frame *f) {
  if (sim->profiling) run_frame(sim, f, &sim->profile);
  else run_frame(sim, f, NULL);
}
