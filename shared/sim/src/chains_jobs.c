/* chains_jobs.c - the chain tiles on the game's workers (tress/jobs.h), and each worker's scratch.
 *
 * Tiles are independent inside a frame: a tile's phases read the scene and the frame's shared
 * inputs (collider lanes, settings) and write only their own tile's nodes, slots, per-tile
 * entries, scene bone slots and sink, plus the scratch they run in. So the frame's serial
 * set-up (frame_begin) is followed by one task over the tiles, one tile per item, and every
 * worker count gives the same bits: no sum or choice crosses tiles.
 *
 * Scratch ownership. The tile-sized scratch (tile), the level scratch (g) and the tile collider
 * lanes are per worker: worker 0 uses the batch's own, worker k > 0 a view (workers[k - 1]), a
 * struct tress_chains whose scratch is its own and whose other members are copied from the
 * batch before the tiles run (a few hundred bytes per worker per frame). The views are made at
 * sim create from the def's worker count, and their scratch grows, like the batch's, on the
 * first frame after a bind that needs more: a steady frame allocates nothing. A view that cannot
 * grow (no memory) sends the frame's tiles to worker 0 alone, in order: the same bits.
 */
#include <stdlib.h>
#include <string.h>

#include "chains_internal.h"

bool tress__chains_reserve_workers(struct tress_chains *c, uint32_t worker_count) {
  if (worker_count < 1) worker_count = 1;
  c->worker_ms = calloc(worker_count, sizeof *c->worker_ms);
  if (!c->worker_ms) return false;
  if (worker_count > 1) {
    c->workers = calloc(worker_count - 1, sizeof *c->workers);
    if (!c->workers) return false;
  }
  c->worker_count = worker_count;
  return true;
}

static void view_scratch_free(struct tress_chains *v) {
  tress__chain_tile_scratch_free(&v->tile);
  for (int k = 0; k < G_SCRATCH; k++) free(v->g[k]);
  tress__collider_lanes_free(&v->tile_lanes);
}

void tress__chains_free_workers(struct tress_chains *c) {
  for (uint32_t k = 0; c->workers && k + 1 < c->worker_count; k++) view_scratch_free(&c->workers[k]);
  free(c->workers);
  free(c->worker_ms);
  c->workers = NULL;
  c->worker_ms = NULL;
  c->worker_count = 0;
}

/* The view's scratch at least as large as the batch's (which frame_begin has grown). */
static bool view_fit(const struct tress_chains *c, struct tress_chains *v) {
  if (!tress__chain_tile_scratch_grow(&v->tile, c->tile.cap, c->tile.kinds)) return false;
  if (!tress__chain_level_scratch_grow(v, c->g_cap)) return false;
  if (!c->tile_lanes.ax) return true; /* no colliding tile: the lanes are never read */
  if (c->tile_lanes.slot_cap > v->tile_lanes.slot_cap || c->tile_lanes.stride > v->tile_lanes.stride ||
      !v->tile_lanes.ax) {
    tress_collider_lanes grown;
    if (!tress__collider_lanes_init(&grown, c->tile_lanes.slot_cap, c->tile_lanes.stride)) return false;
    tress__collider_lanes_free(&v->tile_lanes);
    v->tile_lanes = grown;
  }
  return true;
}

/* The batch's header into the view, its own scratch kept. */
static void view_refresh(const struct tress_chains *c, struct tress_chains *v) {
  tile_scratch tile = v->tile;
  float *g[G_SCRATCH];
  memcpy(g, v->g, sizeof g);
  uint32_t g_cap = v->g_cap;
  tress_collider_lanes lanes = v->tile_lanes;
  *v = *c;
  v->tile = tile;
  memcpy(v->g, g, sizeof g);
  v->g_cap = g_cap;
  v->tile_lanes = lanes;
  v->workers = NULL; /* a view runs tiles; it never dispatches */
}

typedef struct tiles_task {
  tress_sim *sim;
  struct tress_chains *c;
  const tress_frame *f;
  bool timed;
} tiles_task;

static void run_tile_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  tiles_task *k = context;
  struct tress_chains *c = k->c;
  struct tress_chains *view = worker == 0 ? c : &c->workers[worker - 1];
  double *ms = k->timed ? c->worker_ms[worker] : NULL;
  for (uint32_t t = start; t < end; t++) tress__chains_tile(k->sim, view, k->f, t, ms);
}

void tress__chains_run_tiles(tress_sim *sim, struct tress_chains *c, const tress_frame *f, tress_sim_profile *profile) {
  uint32_t workers = c->worker_count;
  for (uint32_t k = 1; k < workers; k++) {
    struct tress_chains *v = &c->workers[k - 1];
    if (!view_fit(c, v)) {
      workers = 1;
      break;
    }
    view_refresh(c, v);
  }
  for (uint32_t k = 0; profile && k < c->worker_count; k++) c->worker_ms[k][0] = c->worker_ms[k][1] = c->worker_ms[k][2] = 0.0;
  tiles_task task = {sim, c, f, profile != NULL};
  if (workers > 1) tress__jobs_run(&sim->def.jobs, run_tile_range, c->tile_count, 1, &task);
  else run_tile_range(0, c->tile_count, 0, &task);
  /* the profile sums every tile's phases, worker by worker: CPU time, which exceeds the wall
   * time the chains took when workers ran tiles side by side */
  for (uint32_t k = 0; profile && k < c->worker_count; k++) {
    profile->chain_prepare += c->worker_ms[k][0];
    profile->chain_substep += c->worker_ms[k][1];
    profile->chain_output += c->worker_ms[k][2];
  }
}
