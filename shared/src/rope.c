/* rope.c - the rope and cloth writer: binding ropes, cutting, reading points, LOD, the frame.
 *
 * Every rope and cloth sheet is one particle system (particles.h) the sim steps through the
 * tress__ropes_* entry points. A frame reads each pin's world position once, then for each fixed
 * step k of the frame moves the pins' target to the position interpolated at k's time
 * (tress__frame_alpha), so a 30 Hz and a 144 Hz host take the same steps, and ticks:
 * - FULL: every fixed step, `substeps` substeps;
 * - REDUCED (camera beyond lod_distance): once every fixed_hz / 15 fixed steps (staggered by
 *   slot so ropes do not all tick on one frame), covering the elapsed time in lod_substeps
 *   substeps; damping is per 1/60 s and velocity is rescaled when the substep length changes,
 *   so the rest shape does not pop across the switch;
 * - FROZEN (beyond freeze_distance): not at all.
 * Ropes keep their own LOD instead of the sim's max_distance cull (lod_distance is farther than a
 * client's cull distance); a host should_simulate override still wins: false freezes.
 *
 * Lifetime: a handle destroys itself when any instance it is pinned to is destroyed (the root pin
 * through the sim's listener, other pins through ours), like every other sim handle. Binding and
 * cutting may allocate; a frame never does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"

struct tress_ropes {
  tress_particles **slots;
  uint32_t slot_count, slot_cap;
  rope_groups groups; /* interleaved ropes (rope_lanes.c) */
  char bind_error[192];
};

#define LOD_HZ 15.0f
#define DEFAULT_SKIN_STUDS 0.01f
#define DEFAULT_LOD_STUDS 150.0f
#define DEFAULT_FREEZE_STUDS 450.0f

struct tress_ropes *tress__ropes_create(void) { return calloc(1, sizeof(struct tress_ropes)); }

void tress__ropes_destroy(struct tress_ropes *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->slot_count; i++) tress__particles_free(r->slots[i]);
  tress__rope_groups_free(&r->groups);
  free(r->slots);
  free(r);
}

/* ---- defaults and validation ---- */

static tress_particle_settings default_settings(void) {
  return (tress_particle_settings){
      .damping = 0.985f,
      .gravity_scale = 1.0f,
      .wind_scale = 1.0f,
      .substeps = 2,
      .iterations = 2,
      .relax = TRESS_RELAX_DIRECT,
      .over_relaxation = 1.5f,
      .tethers = true,
      .lod_substeps = 4,
  };
}

tress_rope_def tress_default_rope_def(void) {
  tress_rope_def d;
  memset(&d, 0, sizeof d);
  d.start.pinned = true;
  d.end.position[1] = -20.0f;
  d.segments = 20;
  d.length = 20.0f;
  d.settings = default_settings();
  return d;
}

tress_cloth_def tress_default_cloth_def(void) {
  tress_cloth_def d;
  memset(&d, 0, sizeof d);
  d.width = 20;
  d.height = 20;
  d.step_u[0] = 1.0f;
  d.step_v[1] = -1.0f;
  d.settings = default_settings();
  d.settings.substeps = 4;
  d.settings.iterations = 2;
  d.settings.relax = TRESS_RELAX_JACOBI;
  d.settings.tethers = false;
  return d;
}

static float clampf(float v, float lo, float hi, float fallback) {
  if (!isfinite(v)) return fallback;
  return v < lo ? lo : (v > hi ? hi : v);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

static float scaled_distance(float v, float default_studs, float ups) {
  if (!isfinite(v)) return -1.0f;
  return v == 0.0f ? default_studs * ups : v;
}

tress_particle_settings tress__particle_settings_resolve(const tress_particle_settings *in, float ups) {
  tress_particle_settings s = *in;
  s.damping = clampf(s.damping, 0.0f, 1.0f, 0.985f);
  s.gravity_scale = clampf(s.gravity_scale, -100.0f, 100.0f, 1.0f);
  s.wind_scale = clampf(s.wind_scale, -100.0f, 100.0f, 1.0f);
  s.substeps = clampi(s.substeps, 1, 64);
  s.iterations = clampi(s.iterations, 1, 64);
  s.lod_substeps = clampi(s.lod_substeps, 1, 64);
  if (s.relax != TRESS_RELAX_JACOBI && s.relax != TRESS_RELAX_DIRECT) s.relax = TRESS_RELAX_GAUSS_SEIDEL;
  /* Averaged Jacobi is stable for factors below 2; 1.9 leaves margin. */
  s.over_relaxation = clampf(s.over_relaxation, 1.0f, 1.9f, 1.5f);
  s.skin = s.skin > 0.0f && isfinite(s.skin) ? s.skin : DEFAULT_SKIN_STUDS * ups;
  s.lod_distance = scaled_distance(s.lod_distance, DEFAULT_LOD_STUDS, ups);
  s.freeze_distance = scaled_distance(s.freeze_distance, DEFAULT_FREEZE_STUDS, ups);
  return s;
}

bool tress__pin_instance_ok(const tress_scene *scene, tress_id id) {
  if (!tress_instance_valid(scene, id)) return false;
  tress_kind k = tress_instance_kind(scene, id);
  return k == TRESS_KIND_PART || k == TRESS_KIND_BONE;
}

tress_result tress__ropes_fail(tress_sim *sim, const char *why) {
  snprintf(sim->ropes->bind_error, sizeof sim->ropes->bind_error, "%s", why);
  return TRESS_ERR_INVALID_ARGUMENT;
}

const char *tress_rope_bind_error(const tress_sim *sim) { return sim ? sim->ropes->bind_error : "no sim"; }

static void pin_world(const tress_scene *scene, const particle_pin *pin, float out[3]) {
  if (tress_id_is_null(pin->instance)) {
    memcpy(out, pin->local, sizeof pin->local);
    return;
  }
  tress_xform_point(tress_instance_world(scene, pin->instance), pin->local, out);
}

/* A game-marked teleport: the rope moves with its first pin, rigidly and at rest (no velocity, no
 * sweep from the old pin positions); the next ticks settle any other pin's different move. */
void tress__ropes_reset(tress_sim *sim, const tress_handle *h) {
  struct tress_ropes *r = sim->ropes;
  tress_particles *ps = h->slot < r->slot_count ? r->slots[h->slot] : NULL;
  if (!ps || ps->fresh || ps->pin_count == 0) return; /* fresh: nothing simulated yet */
  float now[3], d[3];
  pin_world(sim->scene, &ps->pins[0], now);
  for (int k = 0; k < 3; k++) d[k] = now[k] - ps->pins[0].frame_cur[k];
  if (!tress_vec3_is_finite(d)) return;
  tress__rope_lane_load(ps);
  for (uint32_t i = 0; i < ps->n; i++) {
    ps->px[i] = ps->x[i] += d[0];
    ps->py[i] = ps->y[i] += d[1];
    ps->pz[i] = ps->z[i] += d[2];
  }
  tress__rope_lane_store(ps);
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    particle_pin *pin = &ps->pins[p];
    pin_world(sim->scene, pin, pin->frame_cur);
    memcpy(pin->frame_prev, pin->frame_cur, sizeof pin->frame_cur);
    memcpy(pin->tick_prev, pin->frame_cur, sizeof pin->frame_cur);
    memcpy(pin->target, pin->frame_cur, sizeof pin->frame_cur);
  }
  ps->fresh = true; /* the next frame starts its pins where they are now */
  for (int k = 0; k < 3; k++) ps->center[k] += d[k];
}

/* ---- registry ---- */

static tress_particles *particles_get(const tress_sim *sim, tress_handle_id id, tress_handle **out) {
  tress_handle *h = tress__handle_get(sim, id);
  if (!h || (h->kind != TRESS_HANDLE_ROPE && h->kind != TRESS_HANDLE_CLOTH)) return NULL;
  if (h->slot >= sim->ropes->slot_count) return NULL;
  if (out) *out = h;
  return sim->ropes->slots[h->slot];
}

static void on_pin_destroying(tress_scene *scene, tress_id instance, tress_event event, void *user) {
  (void)scene;
  if (event != TRESS_EVENT_DESTROYING) return;
  tress_sim *sim = user;
  struct tress_ropes *r = sim->ropes;
  for (uint32_t i = 0; i < r->slot_count; i++) {
    tress_particles *ps = r->slots[i];
    if (!ps) continue;
    for (uint32_t p = 0; p < ps->pin_count; p++) {
      if (tress_id_equal(ps->pins[p].instance, instance)) {
        tress_handle_destroy(sim, ps->handle); /* frees ps through unbind */
        break;
      }
    }
  }
}

tress_result tress__ropes_register(tress_sim *sim, tress_particles *ps, tress_handle_id *out) {
  struct tress_ropes *r = sim->ropes;
  uint32_t slot = 0;
  while (slot < r->slot_count && r->slots[slot]) slot++;
  if (slot == r->slot_count) {
    if (r->slot_count == r->slot_cap) {
      uint32_t cap = r->slot_cap ? r->slot_cap * 2 : 8;
      tress_particles **b = realloc(r->slots, cap * sizeof *b);
      if (!b) {
        tress__particles_free(ps);
        return TRESS_ERR_OUT_OF_MEMORY;
      }
      r->slots = b;
      r->slot_cap = cap;
    }
    r->slots[r->slot_count++] = NULL;
  }
  tress_id root = TRESS_NULL_ID;
  for (uint32_t p = 0; p < ps->pin_count && tress_id_is_null(root); p++) root = ps->pins[p].instance;
  tress_handle_id id = tress__handle_alloc(sim, ps->kind, root, slot);
  if (tress_handle_is_null(id)) {
    tress__particles_free(ps);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  ps->handle = id;
  ps->slot = slot;
  ps->fresh = true;
  r->slots[slot] = ps;
  /* The root pin is watched by the sim; every other pinned instance (once each) by us. */
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    tress_id inst = ps->pins[p].instance;
    if (tress_id_is_null(inst) || tress_id_equal(inst, root)) continue;
    bool seen = false;
    for (uint32_t q = 0; q < p; q++) seen = seen || tress_id_equal(ps->pins[q].instance, inst);
    if (!seen) ps->pins[p].on_destroy = tress_instance_connect(sim->scene, inst, on_pin_destroying, sim);
  }
  r->bind_error[0] = '\0';
  *out = id;
  return TRESS_OK;
}

void tress__ropes_unbind(tress_sim *sim, tress_handle *h) {
  struct tress_ropes *r = sim->ropes;
  if (h->slot >= r->slot_count || !r->slots[h->slot]) return;
  tress_particles *ps = r->slots[h->slot];
  for (uint32_t p = 0; p < ps->pin_count; p++)
    if (ps->pins[p].on_destroy.index1) tress_connection_disconnect(sim->scene, ps->pins[p].on_destroy);
  tress__rope_groups_leave(&r->groups, ps);
  tress__particles_free(ps);
  r->slots[h->slot] = NULL;
}

bool tress__ropes_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  if (h->slot >= sim->ropes->slot_count || !sim->ropes->slots[h->slot]) return false;
  memcpy(out, sim->ropes->slots[h->slot]->center, sizeof(float) * 3);
  return true;
}

/* ---- binding a rope ---- */

static bool pin_def_ok(tress_sim *sim, const tress_rope_pin *pin, const char **why) {
  if (!tress_vec3_is_finite(pin->position)) {
    *why = "a rope pin position is not finite";
    return false;
  }
  if (!tress_id_is_null(pin->instance) && !tress__pin_instance_ok(sim->scene, pin->instance)) {
    *why = "a rope pin instance is stale or not a part or bone";
    return false;
  }
  return true;
}

tress_result tress_sim_bind_rope(tress_sim *sim, const tress_rope_def *def, tress_handle_id *out) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (out) *out = TRESS_NULL_HANDLE;
  if (!def || !out) return tress__ropes_fail(sim, "bind_rope needs a def and an out handle");
  if (def->segments == 0) return tress__ropes_fail(sim, "a rope needs at least one segment");
  if (def->segments > 65536) return tress__ropes_fail(sim, "a rope has at most 65536 segments");
  if (!isfinite(def->length) || def->length <= 0.0f) return tress__ropes_fail(sim, "a rope length must be finite and > 0");
  const char *why = NULL;
  if (!pin_def_ok(sim, &def->start, &why) || !pin_def_ok(sim, &def->end, &why)) return tress__ropes_fail(sim, why);
  if (def->output_part_count && (def->output_part_count != def->segments || !def->output_parts))
    return tress__ropes_fail(sim, "output_parts needs exactly one part per segment");
  for (uint32_t i = 0; i < def->output_part_count; i++)
    if (tress_instance_kind(sim->scene, def->output_parts[i]) != TRESS_KIND_PART ||
        !tress_instance_valid(sim->scene, def->output_parts[i]))
      return tress__ropes_fail(sim, "an output part is stale or not a part");

  uint32_t segs = def->segments, n = segs + 1;
  uint32_t pin_count = (def->start.pinned ? 1u : 0u) + (def->end.pinned ? 1u : 0u);
  tress_particles *ps = tress__particles_alloc(n, segs, pin_count);
  if (!ps) return TRESS_ERR_OUT_OF_MEMORY;
  if (def->output_part_count) {
    ps->output_parts = malloc(def->output_part_count * sizeof *ps->output_parts);
    if (!ps->output_parts) {
      tress__particles_free(ps);
      return TRESS_ERR_OUT_OF_MEMORY;
    }
    memcpy(ps->output_parts, def->output_parts, def->output_part_count * sizeof *ps->output_parts);
    ps->output_part_count = def->output_part_count;
  }
  ps->kind = TRESS_HANDLE_ROPE;
  ps->segments = segs;
  ps->settings = tress__particle_settings_resolve(&def->settings, sim->def.units_per_stud);

  /* Pins, then the layout: pinned at both ends a straight line between them (it sags from
   * there); otherwise rest length along start -> end, or straight down when they coincide. */
  particle_pin ends[2];
  memset(ends, 0, sizeof ends);
  const tress_rope_pin *defs[2] = {&def->start, &def->end};
  float world[2][3];
  for (int e = 0; e < 2; e++) {
    ends[e].particle = e ? segs : 0;
    ends[e].instance = defs[e]->instance;
    memcpy(ends[e].local, defs[e]->position, sizeof ends[e].local);
    pin_world(sim->scene, &ends[e], world[e]);
    memcpy(ends[e].frame_prev, world[e], sizeof world[e]);
    memcpy(ends[e].frame_cur, world[e], sizeof world[e]);
    memcpy(ends[e].target, world[e], sizeof world[e]);
    memcpy(ends[e].tick_prev, world[e], sizeof world[e]);
  }
  uint32_t p = 0;
  for (int e = 0; e < 2; e++)
    if (defs[e]->pinned) ps->pins[p++] = ends[e];
  float dir[3] = {world[1][0] - world[0][0], world[1][1] - world[0][1], world[1][2] - world[0][2]};
  float dist = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  float seg = def->length / (float)segs;
  bool both = def->start.pinned && def->end.pinned && dist > 1e-6f;
  if (dist > 1e-6f) {
    for (int k = 0; k < 3; k++) dir[k] /= dist;
  } else {
    dir[0] = 0.0f; dir[1] = -1.0f; dir[2] = 0.0f;
  }
  for (uint32_t i = 0; i < n; i++) {
    float along = both ? dist * (float)i / (float)segs : seg * (float)i;
    ps->x[i] = ps->px[i] = world[0][0] + dir[0] * along;
    ps->y[i] = ps->py[i] = world[0][1] + dir[1] * along;
    ps->z[i] = ps->pz[i] = world[0][2] + dir[2] * along;
  }
  /* Direct: segments in chain order (the tridiagonal system). Gauss-Seidel: even segments first,
   * then odd, so consecutive projections touch disjoint particles and overlap in the CPU. */
  ps->m = 0;
  uint32_t stride = ps->settings.relax == TRESS_RELAX_GAUSS_SEIDEL ? 2u : 1u;
  for (uint32_t parity = 0; parity < stride; parity++)
    for (uint32_t s = parity; s < segs; s += stride) {
      ps->ca[ps->m] = s;
      ps->cb[ps->m] = s + 1;
      ps->rest[ps->m] = seg;
      ps->m++;
    }
  tress__particles_rebuild(ps);
  tress__particles_update_center(ps);
  tress_result rc = tress__ropes_register(sim, ps, out);
  if (rc == TRESS_OK) tress__rope_groups_join(&sim->ropes->groups, ps);
  return rc;
}

/* ---- run-time queries and edits ---- */

tress_result tress_rope_points(const tress_sim *sim, tress_handle_id h, float *xyz, uint32_t max_points,
                               uint32_t *count) {
  if (count) *count = 0;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_particles *ps = particles_get(sim, h, NULL);
  if (!ps) return TRESS_ERR_STALE_ID;
  if (max_points && !xyz) return TRESS_ERR_INVALID_ARGUMENT;
  uint32_t k = max_points < ps->n ? max_points : ps->n;
  for (uint32_t i = 0; i < k; i++) tress__particle_position(ps, i, xyz + 3 * i);
  if (count) *count = ps->n;
  return TRESS_OK;
}

tress_result tress_rope_cut(tress_sim *sim, tress_handle_id h, uint32_t segment) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle *hd;
  tress_particles *ps = particles_get(sim, h, &hd);
  if (!ps) return TRESS_ERR_STALE_ID;
  if (hd->kind != TRESS_HANDLE_ROPE) return TRESS_ERR_INVALID_ARGUMENT;
  for (uint32_t k = 0; k < ps->m; k++) {
    if (ps->ca[k] == segment) {
      tress__particles_remove_constraint(ps, k);
      tress__rope_lane_sync_topology(ps);
      return TRESS_OK;
    }
  }
  return TRESS_ERR_INVALID_ARGUMENT; /* out of range or already cut */
}

tress_result tress_cloth_cut(tress_sim *sim, tress_handle_id h, uint32_t a, uint32_t b) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_particles *ps = particles_get(sim, h, NULL);
  if (!ps) return TRESS_ERR_STALE_ID;
  for (uint32_t k = 0; k < ps->m; k++) {
    if ((ps->ca[k] == a && ps->cb[k] == b) || (ps->ca[k] == b && ps->cb[k] == a)) {
      tress__particles_remove_constraint(ps, k);
      return TRESS_OK;
    }
  }
  return TRESS_ERR_INVALID_ARGUMENT;
}

uint32_t tress_rope_constraint_count(const tress_sim *sim, tress_handle_id h) {
  tress_particles *ps = sim ? particles_get(sim, h, NULL) : NULL;
  return ps ? ps->m : 0;
}

const char *tress_rope_fault(const tress_sim *sim, tress_handle_id h) {
  tress_particles *ps = sim ? particles_get(sim, h, NULL) : NULL;
  return ps ? ps->fault : NULL;
}

tress_particles *tress__particles_of(const tress_sim *sim, tress_handle_id h) {
  return sim ? particles_get(sim, h, NULL) : NULL;
}

void tress__rope_ungroup(tress_sim *sim, tress_handle_id h) {
  tress_particles *ps = sim ? particles_get(sim, h, NULL) : NULL;
  if (ps) tress__rope_groups_leave(&sim->ropes->groups, ps);
}

tress_rope_lod tress_rope_lod_get(const tress_sim *sim, tress_handle_id h) {
  tress_particles *ps = sim ? particles_get(sim, h, NULL) : NULL;
  return ps ? ps->lod : TRESS_ROPE_FROZEN;
}

/* ---- the frame ---- */

static tress_rope_lod choose_lod(const tress_sim *sim, const tress_handle *h, const tress_particles *ps) {
  if (ps->stopped) return TRESS_ROPE_FROZEN;
  if (sim->def.should_simulate) return h->eligible ? TRESS_ROPE_FULL : TRESS_ROPE_FROZEN;
  if (!sim->have_camera) return TRESS_ROPE_FULL;
  float d2 = h->cull_key, freeze = ps->settings.freeze_distance, lod = ps->settings.lod_distance;
  if (freeze > 0.0f && d2 > freeze * freeze) return TRESS_ROPE_FROZEN;
  if (lod > 0.0f && d2 > lod * lod) return TRESS_ROPE_REDUCED;
  return TRESS_ROPE_FULL;
}

/* One part per segment at its midpoint, +Y along the segment. */
static void write_output_parts(tress_sim *sim, const tress_particles *ps) {
  static const float up[3] = {0.0f, 1.0f, 0.0f};
  for (uint32_t s = 0; s < ps->output_part_count; s++) {
    float a[3], b[3];
    tress__particle_position(ps, s, a);
    tress__particle_position(ps, s + 1, b);
    float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    tress_xform t = tress_xform_from_pos(0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2]));
    tress_quat_from_to(up, d, t.q);
    tress_part_set_cframe(sim->scene, ps->output_parts[s], t);
  }
}

/* One rope's fixed step k: pins moved to k's time, then a tick now (per-rope path), an armed lane
 * (its group ticks once all ropes are through step k), or nothing this step (15 Hz, frozen). */
static void rope_fixed_step(const tress_sim *sim, tress_particles *ps, const tress_frame *f, int k, uint32_t stride) {
  float a = tress__frame_alpha(f, k);
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    particle_pin *pin = &ps->pins[p];
    for (int c = 0; c < 3; c++) pin->target[c] = pin->frame_prev[c] + (pin->frame_cur[c] - pin->frame_prev[c]) * a;
  }
  ps->step_index++;
  particle_env env;
  env.def = &sim->def; /* task callbacks for the Jacobi path */
  memcpy(env.accel, ps->accel, sizeof env.accel);
  if (ps->lod == TRESS_ROPE_FULL) {
    ps->lod_pending = 0;
    if (ps->group && ps->group->used >= ROPE_GROUP_MIN_USED) {
      tress__rope_lane_arm(ps);
      return;
    }
    tress__rope_lane_load(ps); /* a lone rope in its group: the per-rope path is cheaper */
    tress__particles_tick(ps, &env, f->dt, ps->settings.substeps);
    tress__rope_lane_store(ps);
    ps->ticks++;
  } else if (ps->lod == TRESS_ROPE_REDUCED) {
    ps->lod_pending++;
    if ((ps->step_index + ps->slot) % stride != 0) return;
    tress__rope_lane_load(ps);
    tress__particles_tick(ps, &env, f->dt * (float)ps->lod_pending, ps->settings.lod_substeps);
    tress__rope_lane_store(ps);
    ps->lod_pending = 0;
    ps->ticks++;
  }
}

void tress__ropes_frame(tress_sim *sim, const tress_frame *f) {
  struct tress_ropes *r = sim->ropes;
  uint32_t stride = (uint32_t)lroundf(sim->def.fixed_hz / LOD_HZ);
  if (stride < 1) stride = 1;
  /* Pins read once per frame, before any rope writes its output parts. */
  for (uint32_t slot = 0; slot < r->slot_count; slot++) {
    tress_particles *ps = r->slots[slot];
    if (!ps) continue;
    ps->ticks = 0;
    tress_handle *h = tress__handle_get(sim, ps->handle);
    if (!h) {
      ps->lod = TRESS_ROPE_FROZEN;
      continue;
    }
    for (uint32_t p = 0; p < ps->pin_count; p++) {
      particle_pin *pin = &ps->pins[p];
      memcpy(pin->frame_prev, pin->frame_cur, sizeof pin->frame_cur);
      pin_world(sim->scene, pin, pin->frame_cur);
      if (ps->fresh) memcpy(pin->frame_prev, pin->frame_cur, sizeof pin->frame_cur);
    }
    ps->fresh = false;
    ps->lod = choose_lod(sim, h, ps);
    for (int k = 0; k < 3; k++)
      ps->accel[k] = f->gravity[k] * ps->settings.gravity_scale + f->wind[k] * ps->settings.wind_scale;
  }
  for (int k = 0; k < f->substeps; k++) {
    for (uint32_t slot = 0; slot < r->slot_count; slot++)
      if (r->slots[slot]) rope_fixed_step(sim, r->slots[slot], f, k, stride);
    tress__rope_groups_tick(&r->groups, f->dt);
  }
  for (uint32_t slot = 0; slot < r->slot_count; slot++) {
    tress_particles *ps = r->slots[slot];
    tress_handle *h = ps ? tress__handle_get(sim, ps->handle) : NULL;
    if (!h) continue;
    h->was_awake = ps->lod != TRESS_ROPE_FROZEN;
    if (ps->ticks) {
      tress__count_simulated(sim, ps->ticks);
      if (ps->output_part_count) write_output_parts(sim, ps);
    }
  }
}
