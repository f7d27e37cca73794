/* rope.c - the rope and cloth writer: binding ropes, cutting, reading points, LOD, the frame.
 *
 * Every rope and cloth sheet is one particle system (particles.h) the sim steps through the
 * tress__ropes_* entry points. A frame reads each pin's world position once, then for each fixed
 * step k of the frame moves the pins' target to the position interpolated at k's time
 * (tress__frame_alpha), so a 30 Hz and a 144 Hz host take the same steps, and ticks. The first
 * frame after a bind (or a reset) moves the pins from where they were then, not from the frame's
 * own pose: that would make its first steps depend on how long the frame is. Each handle:
 * - FULL: every fixed step, `substeps` substeps;
 * - REDUCED (camera beyond lod_distance): once every fixed_hz / 15 fixed steps (staggered by
 *   slot so ropes do not all tick on one frame), covering the elapsed time in lod_substeps
 *   substeps; damping is per 1/60 s and velocity is rescaled when the substep length changes,
 *   so the rest shape does not pop across the switch;
 * - FROZEN (beyond freeze_distance): not at all.
 * Ropes keep their own LOD instead of the sim's max_distance cull (lod_distance is farther than a
 * client's cull distance); a host should_simulate override still wins: false freezes.
 *
 * Display carry: a game drawing at 144 Hz gets frames with no fixed step, or with time left after
 * the last one, while the pinned parts have moved on. Left alone the drawn rope would trail its
 * pins and snap back at the next step. So what tress_rope_get_points returns (and the output parts)
 * is the particle state carried with the pins from where the last tick left them to where they
 * are now: per source (the distinct instances the pins follow) a rigid motion, rotation from the
 * instance's rotation change and translation that lands its reference pin exactly on its point.
 * One source (one pin, or every pin on one part): every particle moves rigidly with it. Ropes
 * pinned to two: each particle blends the two displacements by its arc length from the ends; a
 * piece a cut separated from a pin follows only the pins it still hangs on (none: not carried).
 * Cloth on several: each particle blends its two nearest sources (cloth.c). The carry is read-only
 * (the state and the next steps are exactly as without it), is identity on aligned frames (the
 * last tick ended at the frame's end: the same bits as the state), and is computed once per frame
 * per source; points are carried as they are read. A frame where nothing moved writes nothing.
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
  s.collider_radius = s.collider_radius > 0.0f && isfinite(s.collider_radius) ? s.collider_radius : 0.0f;
  s.lod_distance = scaled_distance(s.lod_distance, DEFAULT_LOD_STUDS, ups);
  s.freeze_distance = scaled_distance(s.freeze_distance, DEFAULT_FREEZE_STUDS, ups);
  return s;
}

bool tress__pin_instance_ok(const tress_scene *scene, tress_id id) {
  if (!tress_instance_is_valid(scene, id)) return false;
  tress_kind k = tress_instance_get_kind(scene, id);
  return k == TRESS_KIND_PART || k == TRESS_KIND_BONE;
}

tress_result tress__ropes_fail(tress_error *err, const char *why) {
  return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%s", why);
}

tress_result tress__ropes_finish_bind(tress_result r, tress_error *err) {
  if (r != TRESS_OK && err && err->code == TRESS_OK) tress_error_set(err, r, "%s", tress_result_name(r));
  return r;
}

static void pin_world(const tress_scene *scene, const particle_pin *pin, float out[3]) {
  if (tress_id_is_null(pin->instance)) {
    memcpy(out, pin->local, sizeof pin->local);
    return;
  }
  tress_xform_point(tress_instance_get_world(scene, pin->instance), pin->local, out);
}

/* ---- display carry ---- */

static const float identity_q[4] = {0.0f, 0.0f, 0.0f, 1.0f};

static void instance_rotation(const tress_scene *scene, tress_id id, float q[4]) {
  if (tress_id_is_null(id)) memcpy(q, identity_q, sizeof identity_q);
  else memcpy(q, tress_instance_get_world(scene, id).q, 4 * sizeof(float));
}

/* Every source at rest: its pose now is the pose of the last tick (bind, teleport). */
static void sources_rest(const tress_scene *scene, tress_particles *ps) {
  for (uint32_t s = 0; s < ps->source_count; s++) {
    particle_source *src = &ps->sources[s];
    instance_rotation(scene, src->instance, src->q_cur);
    memcpy(src->q_prev, src->q_cur, sizeof src->q_cur);
    memcpy(src->q_tick, src->q_cur, sizeof src->q_cur);
    memcpy(src->p_tick, ps->pins[src->ref_pin].frame_cur, sizeof src->p_tick);
    memcpy(src->carry_q, identity_q, sizeof identity_q);
    memset(src->carry_t, 0, sizeof src->carry_t);
    memset(src->carry_m, 0, sizeof src->carry_m);
    src->carry_m[0] = src->carry_m[4] = src->carry_m[8] = 1.0f;
  }
  ps->carried = false;
}

/* Whether every particle follows sources[0] alone: one source, and (ropes) no piece cut off it. */
static void carry_mode_update(tress_particles *ps) {
  ps->carry_whole = false;
  if (ps->source_count != 1) return;
  if (ps->kind == TRESS_HANDLE_CLOTH) {
    ps->carry_whole = true;
    return;
  }
  uint32_t start_free = ps->rope_source[0] != UINT32_MAX ? ps->start_to + 1 : 0;
  uint32_t end_held = ps->rope_source[1] != UINT32_MAX ? ps->end_from : ps->n;
  ps->carry_whole = start_free >= end_held;
}

/* Bind: pins grouped into sources by instance, every source at rest. false on no memory. */
static bool sources_setup(const tress_scene *scene, tress_particles *ps) {
  ps->source_count = 0;
  ps->rope_source[0] = ps->rope_source[1] = UINT32_MAX;
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    particle_pin *pin = &ps->pins[p];
    uint32_t s = 0;
    while (s < ps->source_count && !tress_id_is_equal(ps->sources[s].instance, pin->instance)) s++;
    if (s == ps->source_count) {
      ps->sources[s].instance = pin->instance;
      ps->sources[s].ref_pin = p;
      ps->source_count++;
    }
    pin->source = s;
    if (ps->kind == TRESS_HANDLE_ROPE) ps->rope_source[pin->particle == 0 ? 0 : 1] = s;
  }
  ps->start_to = ps->n - 1;
  ps->end_from = 0;
  sources_rest(scene, ps);
  carry_mode_update(ps);
  if (ps->kind == TRESS_HANDLE_CLOTH && ps->source_count > 1) return tress__cloth_carry_weights(ps);
  return true;
}

/* A tick ends at frame time a: where each source is then (the pins' path: points lerped, rotation
 * nlerped). At a = 1 that is exactly the frame's pose, so an aligned frame carries nothing. */
static void carry_tick(tress_particles *ps, float a) {
  for (uint32_t s = 0; s < ps->source_count; s++) {
    particle_source *src = &ps->sources[s];
    if (tress_id_is_null(src->instance)) continue;
    const particle_pin *ref = &ps->pins[src->ref_pin];
    if (a >= 1.0f) {
      memcpy(src->q_tick, src->q_cur, sizeof src->q_cur);
      memcpy(src->p_tick, ref->frame_cur, sizeof src->p_tick);
      continue;
    }
    memcpy(src->p_tick, ref->target, sizeof src->p_tick);
    const float *q0 = src->q_prev, *q1 = src->q_cur;
    float sign = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] < 0.0f ? -1.0f : 1.0f;
    for (int k = 0; k < 4; k++) src->q_tick[k] = q0[k] + (sign * q1[k] - q0[k]) * a;
    tress_quat_normalize(src->q_tick);
  }
}

static bool same_floats(const float *a, const float *b, int count) {
  for (int k = 0; k < count; k++)
    if (a[k] != b[k]) return false;
  return true;
}

/* End of a frame: each source's carry from its pose at the last tick to its pose now (identity
 * for a frozen handle, or one whose sources did not move since). Returns whether any carry
 * changed since the last frame, i.e. whether what is drawn moved without a tick. */
static bool carry_update(tress_particles *ps, bool frozen) {
  bool carried = false, changed = false;
  for (uint32_t s = 0; s < ps->source_count; s++) {
    particle_source *src = &ps->sources[s];
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f}, t[3] = {0.0f, 0.0f, 0.0f};
    const float *now = ps->pins[src->ref_pin].frame_cur;
    if (!frozen && !tress_id_is_null(src->instance) &&
        !(same_floats(src->q_tick, src->q_cur, 4) && same_floats(src->p_tick, now, 3))) {
      /* drawn = now * tick^-1: rotation q, then the reference pin's tick point onto its point now */
      float inv[4] = {-src->q_tick[0], -src->q_tick[1], -src->q_tick[2], src->q_tick[3]}, r[3];
      tress_quat_mul(src->q_cur, inv, q);
      tress_quat_rotate(q, src->p_tick, r);
      for (int k = 0; k < 3; k++) t[k] = now[k] - r[k];
      if (tress_vec3_is_finite(t) && isfinite(q[0] + q[1] + q[2] + q[3])) {
        carried = true;
      } else { /* a broken pose: draw the state as it is */
        memcpy(q, identity_q, sizeof q);
        memset(t, 0, sizeof t);
      }
    }
    bool changed_here = !same_floats(q, src->carry_q, 4) || !same_floats(t, src->carry_t, 3);
    changed = changed || changed_here;
    if (!changed_here) continue;
    memcpy(src->carry_q, q, sizeof q);
    memcpy(src->carry_t, t, sizeof t);
    /* a matrix once per change: nine multiplies per point read instead of a quaternion rotation */
    float x = q[0], y = q[1], z = q[2], w = q[3], *m = src->carry_m;
    m[0] = 1.0f - 2.0f * (y * y + z * z); m[1] = 2.0f * (x * y - z * w);        m[2] = 2.0f * (x * z + y * w);
    m[3] = 2.0f * (x * y + z * w);        m[4] = 1.0f - 2.0f * (x * x + z * z); m[5] = 2.0f * (y * z - x * w);
    m[6] = 2.0f * (x * z - y * w);        m[7] = 2.0f * (y * z + x * w);        m[8] = 1.0f - 2.0f * (x * x + y * y);
  }
  ps->carried = carried;
  return changed;
}

static inline void carry_point(const particle_source *src, const float p[3], float out[3]) {
  const float *m = src->carry_m, *t = src->carry_t;
  for (int k = 0; k < 3; k++) out[k] = m[3 * k] * p[0] + m[3 * k + 1] * p[1] + m[3 * k + 2] * p[2] + t[k];
}

/* Points [0, count) carried rigidly with sources[0] (one source: the common case), read straight
 * from wherever the state lives (the rope's arrays, or its lane of a group). */
static void carry_whole_points(const tress_particles *ps, uint32_t count, float *xyz) {
  const float *x = ps->x, *y = ps->y, *z = ps->z;
  size_t stride = 1;
  if (ps->group) {
    x = ps->group->x + ps->lane;
    y = ps->group->y + ps->lane;
    z = ps->group->z + ps->lane;
    stride = ROPE_LANES;
  }
  /* locals: xyz may alias nothing here, but the compiler cannot know it */
  const float *m = ps->sources[0].carry_m, *t = ps->sources[0].carry_t;
  const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8];
  const float t0 = t[0], t1 = t[1], t2 = t[2];
  for (uint32_t i = 0; i < count; i++) {
    float px = x[i * stride], py = y[i * stride], pz = z[i * stride];
    xyz[3 * i] = m0 * px + m1 * py + m2 * pz + t0;
    xyz[3 * i + 1] = m3 * px + m4 * py + m5 * pz + t1;
    xyz[3 * i + 2] = m6 * px + m7 * py + m8 * pz + t2;
  }
}

/* The sources particle i blends and their weights (ropes: by arc length from the ends, only
 * across the pieces still hanging on each; cloth: its two nearest). */
static void carry_weights(const tress_particles *ps, uint32_t i, uint32_t src[2], float w[2]) {
  if (ps->carry_w) {
    src[0] = ps->carry_src[2 * i];
    src[1] = ps->carry_src[2 * i + 1];
    w[0] = ps->carry_w[2 * i];
    w[1] = ps->carry_w[2 * i + 1];
    return;
  }
  src[0] = ps->rope_source[0];
  src[1] = ps->rope_source[1];
  bool on_start = src[0] != UINT32_MAX && i <= ps->start_to, on_end = src[1] != UINT32_MAX && i >= ps->end_from;
  w[1] = on_start && on_end ? (float)i / (float)(ps->n - 1) : (on_end ? 1.0f : 0.0f);
  w[0] = on_start ? 1.0f - w[1] : 0.0f;
}

/* Particle i as drawn: its state, carried with its sources while they moved since the last tick. */
static void display_point(const tress_particles *ps, uint32_t i, float out[3]) {
  float p[3];
  tress__particle_position(ps, i, p);
  if (!ps->carried) {
    memcpy(out, p, sizeof p);
    return;
  }
  if (ps->carry_whole) {
    carry_point(&ps->sources[0], p, out);
    return;
  }
  uint32_t src[2];
  float w[2], d[3] = {0.0f, 0.0f, 0.0f};
  carry_weights(ps, i, src, w);
  for (int j = 0; j < 2; j++) {
    if (w[j] == 0.0f) continue;
    float c[3];
    carry_point(&ps->sources[src[j]], p, c);
    for (int k = 0; k < 3; k++) d[k] += w[j] * (c[k] - p[k]);
  }
  for (int k = 0; k < 3; k++) out[k] = p[k] + d[k];
}

/* A game-marked teleport: the rope moves with its first pin, rigidly and at rest (no velocity, no
 * sweep from the old pin positions); the next ticks settle any other pin's different move. */
void tress__ropes_reset(tress_sim *sim, const tress_handle *h) {
  struct tress_ropes *r = sim->ropes;
  tress_particles *ps = h->slot < r->slot_count ? r->slots[h->slot] : NULL;
  if (!ps || ps->pin_count == 0) return;
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
  sources_rest(sim->scene, ps);
  for (int k = 0; k < 3; k++) ps->center[k] += d[k];
}

/* ---- registry ---- */

/* The particles of a rope or cloth handle, or NULL with *why saying what the id is instead. */
static tress_particles *particles_lookup(const tress_sim *sim, tress_handle_id id, tress_handle **out,
                                         tress_result *why) {
  tress_handle *h;
  *why = tress__handle_lookup(sim, id, &h);
  if (*why != TRESS_OK) return NULL;
  *why = TRESS_ERR_STALE_ID; /* a live handle of another kind: no rope by that id */
  if (h->kind != TRESS_HANDLE_ROPE && h->kind != TRESS_HANDLE_CLOTH) return NULL;
  if (h->slot >= sim->ropes->slot_count) return NULL;
  if (out) *out = h;
  *why = TRESS_OK;
  return sim->ropes->slots[h->slot];
}

static tress_particles *particles_get(const tress_sim *sim, tress_handle_id id, tress_handle **out) {
  tress_result why;
  return particles_lookup(sim, id, out, &why);
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
      if (tress_id_is_equal(ps->pins[p].instance, instance)) {
        tress_handle_destroy(sim, ps->handle); /* frees ps through unbind */
        break;
      }
    }
  }
}

/* The settings' collider ids as this sim's indices, in order. */
static tress_result collider_set_from_settings(const tress_sim *sim, tress_particles *ps) {
  memset(&ps->collider_set, 0, sizeof ps->collider_set);
  uint32_t n = ps->settings.collider_count;
  if (n > TRESS_PARTICLE_COLLIDERS_MAX) return TRESS_ERR_INVALID_ARGUMENT;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i;
    tress_result r = tress__collider_lookup(sim, ps->settings.colliders[k], &i);
    if (r != TRESS_OK) return r;
    tress_collider_set_add(&ps->collider_set, (uint16_t)i);
  }
  return TRESS_OK;
}

void tress__ropes_forget_collider(tress_sim *sim, uint32_t index) {
  struct tress_ropes *r = sim->ropes;
  for (uint32_t slot = 0; slot < r->slot_count; slot++) {
    tress_particles *ps = r->slots[slot];
    if (!ps) continue;
    tress_collider_set *set = &ps->collider_set;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < set->count; k++)
      if (set->index[k] != index) set->index[kept++] = set->index[k];
    set->count = kept;
    ps->collider_world_count = 0; /* refilled from the set next frame */
  }
}

/* The colliders' world poses for this frame, copied next to the particles (the tick reads them
 * every substep). */
static void particles_colliders_frame(const tress_sim *sim, tress_particles *ps) {
  const tress_sim_colliders *c = sim->colliders;
  uint32_t n = 0;
  for (uint32_t k = 0; k < ps->collider_set.count; k++)
    if (ps->collider_set.index[k] < c->count) ps->collider_world[n++] = c->world[ps->collider_set.index[k]];
  ps->collider_world_count = n;
}

tress_result tress__ropes_register(tress_sim *sim, tress_particles *ps, tress_handle_id *out) {
  struct tress_ropes *r = sim->ropes;
  tress_result cr = collider_set_from_settings(sim, ps);
  if (cr != TRESS_OK) {
    tress__particles_free(ps);
    return cr;
  }
  if (!sources_setup(sim->scene, ps)) {
    tress__particles_free(ps);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
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
  tress_id root = (tress_id){0};
  for (uint32_t p = 0; p < ps->pin_count && tress_id_is_null(root); p++) root = ps->pins[p].instance;
  tress_handle_id id = tress__handle_alloc(sim, ps->kind, root, slot);
  if (tress_handle_is_null(id)) {
    tress__particles_free(ps);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  ps->handle = id;
  ps->slot = slot;
  r->slots[slot] = ps;
  /* The root pin is watched by the sim; every other pinned instance (once each) by us. */
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    tress_id inst = ps->pins[p].instance;
    if (tress_id_is_null(inst) || tress_id_is_equal(inst, root)) continue;
    bool seen = false;
    for (uint32_t q = 0; q < p; q++) seen = seen || tress_id_is_equal(ps->pins[q].instance, inst);
    if (!seen) ps->pins[p].on_destroy = tress_instance_connect(sim->scene, inst, on_pin_destroying, sim);
  }
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

static tress_result bind_rope(tress_sim *sim, const tress_rope_def *def, tress_handle_id *out, tress_error *err) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (out) *out = (tress_handle_id){0};
  if (!def || !out) return tress__ropes_fail(err, "bind_rope needs a def and an out handle");
  if (def->segments == 0) return tress__ropes_fail(err, "a rope needs at least one segment");
  if (def->segments > 65536) return tress__ropes_fail(err, "a rope has at most 65536 segments");
  if (!isfinite(def->length) || def->length <= 0.0f) return tress__ropes_fail(err, "a rope length must be finite and > 0");
  const char *why = NULL;
  if (!pin_def_ok(sim, &def->start, &why) || !pin_def_ok(sim, &def->end, &why)) return tress__ropes_fail(err, why);
  if (def->output_part_count && (def->output_part_count != def->segments || !def->output_parts))
    return tress__ropes_fail(err, "output_parts needs exactly one part per segment");
  for (uint32_t i = 0; i < def->output_part_count; i++)
    if (tress_instance_get_kind(sim->scene, def->output_parts[i]) != TRESS_KIND_PART ||
        !tress_instance_is_valid(sim->scene, def->output_parts[i]))
      return tress__ropes_fail(err, "an output part is stale or not a part");

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
  if (rc == TRESS_OK && !sim->def.reference_particle_paths) tress__rope_groups_join(&sim->ropes->groups, ps);
  return rc;
}

tress_result tress_sim_bind_rope(tress_sim *sim, const tress_rope_def *def, tress_handle_id *out, tress_error *err) {
  tress_error_clear(err);
  return tress__ropes_finish_bind(bind_rope(sim, def, out, err), err);
}

/* ---- run-time queries and edits ---- */

tress_result tress_rope_get_points(const tress_sim *sim, tress_handle_id h, float *xyz, uint32_t max_points,
                               uint32_t *count) {
  if (count) *count = 0;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_result why;
  tress_particles *ps = particles_lookup(sim, h, NULL, &why);
  if (!ps) return why;
  if (max_points && !xyz) return TRESS_ERR_INVALID_ARGUMENT;
  uint32_t k = max_points < ps->n ? max_points : ps->n;
  if (ps->carried && ps->carry_whole)
    carry_whole_points(ps, k, xyz);
  else if (ps->carried)
    for (uint32_t i = 0; i < k; i++) display_point(ps, i, xyz + 3 * i);
  else
    for (uint32_t i = 0; i < k; i++) tress__particle_position(ps, i, xyz + 3 * i);
  if (count) *count = ps->n;
  return TRESS_OK;
}

tress_result tress_rope_cut(tress_sim *sim, tress_handle_id h, uint32_t segment) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle *hd;
  tress_result why;
  tress_particles *ps = particles_lookup(sim, h, &hd, &why);
  if (!ps) return why;
  if (hd->kind != TRESS_HANDLE_ROPE) return TRESS_ERR_INVALID_ARGUMENT;
  for (uint32_t k = 0; k < ps->m; k++) {
    if (ps->ca[k] == segment) {
      tress__particles_remove_constraint(ps, k);
      tress__rope_lane_sync_topology(ps);
      /* what still hangs on each end, for the display carry */
      if (segment < ps->start_to) ps->start_to = segment;
      if (segment + 1 > ps->end_from) ps->end_from = segment + 1;
      carry_mode_update(ps);
      return TRESS_OK;
    }
  }
  return TRESS_ERR_INVALID_ARGUMENT; /* out of range or already cut */
}

tress_result tress_cloth_cut(tress_sim *sim, tress_handle_id h, uint32_t a, uint32_t b) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_result why;
  tress_particles *ps = particles_lookup(sim, h, NULL, &why);
  if (!ps) return why;
  for (uint32_t k = 0; k < ps->m; k++) {
    if ((ps->ca[k] == a && ps->cb[k] == b) || (ps->ca[k] == b && ps->cb[k] == a)) {
      tress__particles_remove_constraint(ps, k);
      return TRESS_OK;
    }
  }
  return TRESS_ERR_INVALID_ARGUMENT;
}

uint32_t tress_rope_get_constraint_count(const tress_sim *sim, tress_handle_id h) {
  tress_particles *ps = sim ? particles_get(sim, h, NULL) : NULL;
  return ps ? ps->m : 0;
}

const char *tress_rope_get_fault(const tress_sim *sim, tress_handle_id h) {
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

const char *tress_relax_mode_name(tress_relax_mode mode) {
  switch (mode) {
  case TRESS_RELAX_DIRECT: return "direct";
  case TRESS_RELAX_GAUSS_SEIDEL: return "gauss_seidel";
  case TRESS_RELAX_JACOBI: return "jacobi";
  }
  return "unknown";
}

const char *tress_rope_lod_name(tress_rope_lod lod) {
  switch (lod) {
  case TRESS_ROPE_FULL: return "full";
  case TRESS_ROPE_REDUCED: return "reduced";
  case TRESS_ROPE_FROZEN: return "frozen";
  }
  return "unknown";
}

tress_rope_lod tress_rope_get_lod(const tress_sim *sim, tress_handle_id h) {
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
    display_point(ps, s, a);
    display_point(ps, s + 1, b);
    float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    tress_xform t = tress_xform_from_pos(0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2]));
    tress_quat_from_to(up, d, t.q);
    tress_part_set_cframe(sim->scene, ps->output_parts[s], t);
  }
}

/* One rope's fixed step k: pins moved to k's time, then a tick now (per-rope path), an armed lane
 * (its group ticks once all ropes are through step k), or nothing this step (15 Hz, frozen). */
static void rope_fixed_step(tress_particles *ps, const tress_frame *f, int k, uint32_t stride, const tress_jobs *jobs) {
  float a = tress__frame_alpha(f, k);
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    particle_pin *pin = &ps->pins[p];
    for (int c = 0; c < 3; c++) pin->target[c] = pin->frame_prev[c] + (pin->frame_cur[c] - pin->frame_prev[c]) * a;
  }
  ps->step_index++;
  particle_env env;
  env.jobs = jobs; /* the Jacobi path's workers, when the handles themselves run on one */
  memcpy(env.accel, ps->accel, sizeof env.accel);
  if (ps->lod == TRESS_ROPE_FULL) {
    ps->lod_pending = 0;
    carry_tick(ps, a);
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
    carry_tick(ps, a);
    tress__rope_lane_load(ps);
    tress__particles_tick(ps, &env, f->dt * (float)ps->lod_pending, ps->settings.lod_substeps);
    tress__rope_lane_store(ps);
    ps->lod_pending = 0;
    ps->ticks++;
  }
}

typedef struct ropes_task {
  const tress_sim *sim;
  const tress_frame *f;
  int k;
  uint32_t stride;
  const tress_jobs *inner; /* for a lone handle's own Jacobi passes; NULL when handles run in parallel */
} ropes_task;

static void fixed_step_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  ropes_task *t = context;
  tress_particles **slots = t->sim->ropes->slots;
  for (uint32_t slot = start; slot < end; slot++)
    if (slots[slot]) rope_fixed_step(slots[slot], t->f, t->k, t->stride, t->inner);
}

/* Pins and the frame's inputs are read first, in slot order; then for each fixed step every
 * handle steps on the sim's workers (a handle touches only its own particles and its own lane of
 * an interleaved group) and the armed groups tick, one group per item; the output parts are
 * written last, in slot order. With one handle (a big cloth sheet) its Jacobi passes take the
 * workers instead: tasks never nest. */
void tress__ropes_frame(tress_sim *sim, const tress_frame *f) {
  struct tress_ropes *r = sim->ropes;
  uint32_t stride = (uint32_t)lroundf(sim->def.fixed_hz / LOD_HZ);
  if (stride < 1) stride = 1;
  /* Colliders to world once per frame when some rope or sheet lists any (the chains may have
   * done it already; it is per collider, not per particle). */
  bool colliders = false;
  for (uint32_t slot = 0; slot < r->slot_count && !colliders; slot++)
    colliders = r->slots[slot] && r->slots[slot]->collider_set.count > 0;
  if (colliders) tress__colliders_resolve(sim);
  /* Pins read once per frame, before any rope writes its output parts. */
  for (uint32_t slot = 0; slot < r->slot_count; slot++) {
    tress_particles *ps = r->slots[slot];
    if (!ps) continue;
    ps->ticks = 0;
    if (colliders) particles_colliders_frame(sim, ps);
    tress_handle *h = tress__handle_get(sim, ps->handle);
    if (!h) {
      ps->lod = TRESS_ROPE_FROZEN;
      continue;
    }
    /* each instance's pose read once: its rotation for the carry, its pins' points from it */
    for (uint32_t s = 0; s < ps->source_count; s++) {
      particle_source *src = &ps->sources[s];
      if (tress_id_is_null(src->instance)) continue;
      src->world = tress_instance_get_world(sim->scene, src->instance);
      memcpy(src->q_prev, src->q_cur, sizeof src->q_cur);
      memcpy(src->q_cur, src->world.q, sizeof src->q_cur);
    }
    for (uint32_t p = 0; p < ps->pin_count; p++) {
      particle_pin *pin = &ps->pins[p];
      memcpy(pin->frame_prev, pin->frame_cur, sizeof pin->frame_cur);
      if (tress_id_is_null(pin->instance)) memcpy(pin->frame_cur, pin->local, sizeof pin->local);
      else tress_xform_point(ps->sources[pin->source].world, pin->local, pin->frame_cur); /* = pin_world */
    }
    ps->lod = choose_lod(sim, h, ps);
    for (int k = 0; k < 3; k++)
      ps->accel[k] = f->gravity[k] * ps->settings.gravity_scale + f->wind[k] * ps->settings.wind_scale;
  }
  uint32_t live = 0;
  for (uint32_t slot = 0; slot < r->slot_count && live < 2; slot++) live += r->slots[slot] != NULL;
  const tress_jobs *jobs = &sim->def.jobs;
  for (int k = 0; k < f->substeps; k++) {
    ropes_task task = {sim, f, k, stride, live > 1 ? NULL : jobs};
    if (live > 1) tress__jobs_run(jobs, fixed_step_range, r->slot_count, 1, &task);
    else fixed_step_range(0, r->slot_count, 0, &task);
    tress__rope_groups_tick(&r->groups, f->dt, jobs);
  }
  for (uint32_t slot = 0; slot < r->slot_count; slot++) {
    tress_particles *ps = r->slots[slot];
    tress_handle *h = ps ? tress__handle_get(sim, ps->handle) : NULL;
    if (!h) continue;
    h->was_awake = ps->lod != TRESS_ROPE_FROZEN;
    bool carry_moved = carry_update(ps, ps->lod == TRESS_ROPE_FROZEN);
    if (ps->ticks) tress__count_simulated(sim, ps->ticks);
    /* written when the state or its carry moved: a frame where nothing moved leaves the parts */
    if ((ps->ticks || carry_moved) && ps->output_part_count) write_output_parts(sim, ps);
  }
}
