/* sim_colliders.c - the colliders a sim owns: add, remove, validity, and the once-per-frame
 * resolve to world space that the chains' push reads.
 *
 * Ids are one-based index plus generation plus the sim's owner tag, like handles, so a removed
 * collider's id is stale and never names the collider that reuses its index, and another sim's id
 * is refused. Chains keep indices (tress_collider_set,
 * 16-bit), so there are at most 65535 colliders, and removing one drops it from every set first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collider_lanes.h"
#include "particles.h"
#include "scene_slots.h"
#include "sim_internal.h"


void tress__colliders_free(tress_sim_colliders *c) {
  if (!c) return;
  free(c->defs);
  free(c->generation);
  free(c->alive);
  free(c->world);
  free(c->attach_scale);
  free(c);
}

static bool grow(tress_sim_colliders *c) {
  uint32_t cap = c->cap ? c->cap * 2 : 8;
  if (cap > TRESS_SIM_COLLIDERS_MAX) cap = TRESS_SIM_COLLIDERS_MAX;
  if (cap <= c->cap) return false;
  tress_collider_def *d = realloc(c->defs, cap * sizeof *d);
  if (d) c->defs = d;
  uint32_t *g = realloc(c->generation, cap * sizeof *g);
  if (g) c->generation = g;
  bool *a = realloc(c->alive, cap * sizeof *a);
  if (a) c->alive = a;
  tress_collider_world *w = realloc(c->world, cap * sizeof *w);
  if (w) c->world = w;
  float *sc = realloc(c->attach_scale, cap * sizeof *sc);
  if (sc) c->attach_scale = sc;
  if (!d || !g || !a || !w || !sc) return false;
  c->cap = cap;
  return true;
}

/* The composed scale of a collider's attach instance (sim.h "Scale"): its offsets and radius are
 * in that instance's local units. A non-uniform one (refused at create) takes its largest axis,
 * so a strand stays clear rather than inside. */
static float attach_scale(const tress_scene *scene, tress_id attach) {
  float w[3];
  tress_instance_get_world_scale(scene, attach, w);
  return fmaxf(w[0], fmaxf(w[1], w[2]));
}

static tress_collider_world resolve_one(const tress_scene *scene, const tress_collider_def *def, float scale) {
  if (tress_id_is_null(def->attach) || !tress_instance_is_valid(scene, def->attach))
    return tress_collider_resolve(scene, def);
  tress_xform frame = tress_instance_get_world(scene, def->attach);
  if (!tress_xform_is_finite(frame)) frame = tress_xform_identity();
  tress_collider_world w;
  tress__collider_resolve_scaled(&frame, scale, def, &w);
  return w;
}

tress_result tress_sim_create_collider(tress_sim *sim, const tress_collider_def *def, tress_collider_id *out) {
  if (out) *out = (tress_collider_id){0};
  if (!sim || !def || !tress_collider_def_is_valid(def)) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_id_is_null(def->attach) && !tress_instance_is_valid(sim->scene, def->attach)) return TRESS_ERR_STALE_ID;
  float attach_world_scale[3];
  if (!tress_id_is_null(def->attach) && !tress_instance_get_world_scale(sim->scene, def->attach, attach_world_scale))
    return TRESS_ERR_NON_UNIFORM_SCALE;
  tress_sim_colliders *c = sim->colliders;
  uint32_t i = c->free_hint;
  while (i < c->count && c->alive[i]) i++;
  c->free_hint = i;
  if (i == c->count) {
    if (c->count == c->cap && !grow(c)) return TRESS_ERR_OUT_OF_MEMORY;
    c->generation[i] = 0;
    c->count++;
  }
  c->defs[i] = *def;
  c->alive[i] = true;
  c->generation[i] = c->generation[i] + 1 ? c->generation[i] + 1 : 1;
  c->attach_scale[i] = tress_id_is_null(def->attach) ? 1.0f : attach_scale(sim->scene, def->attach);
  c->world[i] = resolve_one(sim->scene, def, c->attach_scale[i]);
  if (out) *out = (tress_collider_id){i + 1, c->generation[i], sim->owner};
  return TRESS_OK;
}

tress_result tress__collider_lookup(const tress_sim *sim, tress_collider_id id, uint32_t *index) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (id.index1 == 0) return TRESS_ERR_STALE_ID; /* names nothing that exists */
  if (id.owner != sim->owner) return TRESS_ERR_WRONG_OWNER;
  const tress_sim_colliders *c = sim->colliders;
  uint32_t i = id.index1 - 1;
  if (id.index1 > c->count || !c->alive[i] || c->generation[i] != id.generation) return TRESS_ERR_STALE_ID;
  *index = i;
  return TRESS_OK;
}

int32_t tress__collider_index(const tress_sim *sim, tress_collider_id id) {
  uint32_t i;
  return tress__collider_lookup(sim, id, &i) == TRESS_OK ? (int32_t)i : -1;
}

bool tress_collider_is_valid(const tress_sim *sim, tress_collider_id id) { return tress__collider_index(sim, id) >= 0; }

tress_result tress_collider_get_def(const tress_sim *sim, tress_collider_id id, tress_collider_def *out) {
  uint32_t i;
  tress_result r = tress__collider_lookup(sim, id, &i);
  if (r != TRESS_OK) return r;
  if (!out) return TRESS_ERR_INVALID_ARGUMENT;
  *out = sim->colliders->defs[i];
  return TRESS_OK;
}

tress_result tress_collider_get_world(const tress_sim *sim, tress_collider_id id, tress_collider_world *out) {
  uint32_t i;
  tress_result r = tress__collider_lookup(sim, id, &i);
  if (r != TRESS_OK) return r;
  if (!out) return TRESS_ERR_INVALID_ARGUMENT;
  const tress_collider_def *d = &sim->colliders->defs[i];
  *out = resolve_one(sim->scene, d, tress_id_is_null(d->attach) ? 1.0f : attach_scale(sim->scene, d->attach));
  return TRESS_OK;
}

void tress_collider_destroy(tress_sim *sim, tress_collider_id id) {
  int32_t i = tress__collider_index(sim, id);
  if (i < 0) return;
  tress__chains_forget_collider(sim, (uint32_t)i);
  tress__ropes_forget_collider(sim, (uint32_t)i);
  sim->colliders->alive[i] = false;
  if ((uint32_t)i < sim->colliders->free_hint) sim->colliders->free_hint = (uint32_t)i;
}

/* Each range writes only its own entries and walks its first attach frame itself, so any split
 * gives the same bits. */
void tress__colliders_resolve_range(tress_sim *sim, bool rescale, uint32_t start, uint32_t end) {
  tress_sim_colliders *c = sim->colliders;
  const tress_xform identity = tress_xform_identity();
  /* colliders of one body part are usually added together: their attach is checked and its
   * frame walked once (nothing in the scene changes during the resolve) */
  tress_id last = (tress_id){0};
  bool last_valid = false;
  tress_xform frame = identity;
  float scale = 1.0f;
  for (uint32_t i = start; i < end; i++) {
    const tress_collider_def *d = &c->defs[i];
    tress_collider_world *out = &c->world[i];
    bool world_space = tress_id_is_null(d->attach);
    if (c->alive[i] && !world_space && !tress_id_is_equal(last, d->attach)) {
      last = d->attach;
      last_valid = tress_instance_is_valid(sim->scene, d->attach);
      if (last_valid) {
        frame = tress_instance_get_world(sim->scene, d->attach);
        if (!tress_xform_is_finite(frame)) frame = identity;
        if (rescale) scale = attach_scale(sim->scene, d->attach);
      }
    }
    if (c->alive[i] && world_space) {
      tress__collider_resolve_scaled(&identity, 1.0f, d, out);
    } else if (c->alive[i] && last_valid) {
      if (rescale) c->attach_scale[i] = scale;
      tress__collider_resolve_scaled(&frame, c->attach_scale[i], d, out);
    } else { /* a collider whose body is gone stops pushing (it would otherwise sit at the origin) */
      memset(out, 0, sizeof *out);
      out->radius = TRESS_COLLIDER_UNUSED_RADIUS;
    }
  }
}

bool tress__colliders_resolve_begin(tress_sim *sim) {
  /* scales are re-read only after some scale in the scene changed */
  uint64_t epoch = tress__scene_scale_epoch(sim->scene);
  bool rescale = epoch != sim->colliders->scale_epoch;
  sim->colliders->scale_epoch = epoch;
  return rescale;
}

typedef struct resolve_job {
  tress_sim *sim;
  bool rescale;
} resolve_job;

static void resolve_task(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  const resolve_job *job = context;
  tress__colliders_resolve_range(job->sim, job->rescale, start, end);
}

void tress__colliders_resolve(tress_sim *sim) {
  resolve_job job = {sim, tress__colliders_resolve_begin(sim)};
  tress__jobs_run(&sim->def.jobs, resolve_task, sim->colliders->count, 1024, &job);
}
