/* cloth.c - binding a cloth sheet: a width x height particle grid with structural and shear
 * constraints, pinned particles following parts or bones (offsets captured at bind).
 *
 * Constraint count: (w-1)h horizontal + w(h-1) vertical structural, 2(w-1)(h-1) shear; a 20x20
 * sheet has 760 + 722 = 1482 (the seed's 760 leaves shear out). Cloth relaxes with the Jacobi
 * path by default, so the host's task callback can spread it across workers. A sheet pinned to
 * several parts gets its display-carry weights here at bind (rope.c applies them).
 */
#include <cglm/cglm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"

#define MAX_CLOTH_PARTICLES (1u << 20)

static void add_constraint(tress_particles *ps, uint32_t a, uint32_t b) {
  float dx = ps->x[b] - ps->x[a], dy = ps->y[b] - ps->y[a], dz = ps->z[b] - ps->z[a];
  ps->ca[ps->m] = a;
  ps->cb[ps->m] = b;
  ps->rest[ps->m] = sqrtf(dx * dx + dy * dy + dz * dz);
  ps->m++;
}

/* Display carry for a sheet pinned to several parts (the blend rope.c applies between ticks): a
 * particle follows its two nearest pin sources, weighted inversely to its bind-layout distance
 * from each (1 at a pin, 1/2 each halfway). Two sources are exact for the common case (a cape on
 * two shoulders, a banner between two poles); with more, the blend is continuous except where
 * the second nearest changes. Weights are fixed at bind: a piece torn off is still carried. The
 * cost is O(particles x pins), once. */
bool tress__cloth_carry_weights(tress_particles *ps) {
  uint32_t n = ps->n, sources = ps->source_count;
  ps->carry_src = malloc(2 * (size_t)n * sizeof *ps->carry_src);
  ps->carry_w = malloc(2 * (size_t)n * sizeof *ps->carry_w);
  float *nearest = malloc(sources * sizeof *nearest);
  if (!ps->carry_src || !ps->carry_w || !nearest) {
    free(nearest);
    return false; /* tress__particles_free takes the others */
  }
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t s = 0; s < sources; s++) nearest[s] = INFINITY;
    for (uint32_t p = 0; p < ps->pin_count; p++) {
      uint32_t j = ps->pins[p].particle, s = ps->pins[p].source;
      float dx = ps->x[i] - ps->x[j], dy = ps->y[i] - ps->y[j], dz = ps->z[i] - ps->z[j];
      float d = sqrtf(dx * dx + dy * dy + dz * dz);
      if (d < nearest[s]) nearest[s] = d;
    }
    uint32_t a = 0, b = 1;
    if (nearest[b] < nearest[a]) a = 1, b = 0;
    for (uint32_t s = 2; s < sources; s++) {
      if (nearest[s] < nearest[a]) b = a, a = s;
      else if (nearest[s] < nearest[b]) b = s;
    }
    float sum = nearest[a] + nearest[b];
    float wa = isfinite(sum) && sum > 0.0f ? nearest[b] / sum : 1.0f;
    ps->carry_src[2 * i] = a;
    ps->carry_src[2 * i + 1] = b;
    ps->carry_w[2 * i] = wa;
    ps->carry_w[2 * i + 1] = 1.0f - wa;
  }
  free(nearest);
  return true;
}

static tress_result bind_cloth(tress_sim *sim, const tress_cloth_def *def, tress_handle_id *out, tress_error *err) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (out) *out = (tress_handle_id){0};
  if (!def || !out) return tress__ropes_fail(err, "bind_cloth needs a def and an out handle");
  uint32_t w = def->width, hgt = def->height;
  if (w < 2 || hgt < 2) return tress__ropes_fail(err, "a cloth grid needs at least 2 x 2 particles");
  if ((uint64_t)w * hgt > MAX_CLOTH_PARTICLES) return tress__ropes_fail(err, "a cloth grid has at most 2^20 particles");
  if (!tress_vec3_is_finite(def->origin) || !tress_vec3_is_finite(def->step_u) || !tress_vec3_is_finite(def->step_v))
    return tress__ropes_fail(err, "cloth origin and steps must be finite");
  float cu[3], lu, lv;
  glm_vec3_cross((float *)def->step_u, (float *)def->step_v, cu);
  lu = glm_vec3_norm((float *)def->step_u);
  lv = glm_vec3_norm((float *)def->step_v);
  if (lu <= 1e-6f || lv <= 1e-6f || glm_vec3_norm(cu) <= 1e-6f * lu * lv)
    return tress__ropes_fail(err, "cloth steps must be non-zero and not parallel");
  uint32_t n = w * hgt;
  if (def->pin_count && !def->pins) return tress__ropes_fail(err, "pin_count without pins");
  for (uint32_t p = 0; p < def->pin_count; p++) {
    const tress_cloth_pin *pin = &def->pins[p];
    if (pin->particle >= n) return tress__ropes_fail(err, "a cloth pin's particle is outside the grid");
    if (!tress_id_is_null(pin->instance) && !tress__pin_instance_ok(sim->scene, pin->instance))
      return tress__ropes_fail(err, "a cloth pin instance is stale or not a part or bone");
    for (uint32_t q = 0; q < p; q++)
      if (def->pins[q].particle == pin->particle) return tress__ropes_fail(err, "a cloth particle is pinned twice");
  }

  uint32_t m = (w - 1) * hgt + w * (hgt - 1) + 2 * (w - 1) * (hgt - 1);
  tress_particles *ps = tress__particles_alloc(n, m, def->pin_count);
  if (!ps) return TRESS_ERR_OUT_OF_MEMORY;
  ps->kind = TRESS_HANDLE_CLOTH;
  if (!sim->def.reference_particle_paths && !tress__particles_alloc_grid(ps, w)) {
    tress__particles_free(ps);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  ps->settings = tress__particle_settings_resolve(&def->settings, sim->def.units_per_stud);
  /* A grid is no chain: the tridiagonal solve would only see neighbours in list order. */
  if (ps->settings.relax == TRESS_RELAX_DIRECT) ps->settings.relax = TRESS_RELAX_GAUSS_SEIDEL;
  for (uint32_t row = 0; row < hgt; row++)
    for (uint32_t col = 0; col < w; col++) {
      uint32_t i = row * w + col;
      ps->x[i] = ps->px[i] = def->origin[0] + def->step_u[0] * (float)col + def->step_v[0] * (float)row;
      ps->y[i] = ps->py[i] = def->origin[1] + def->step_u[1] * (float)col + def->step_v[1] * (float)row;
      ps->z[i] = ps->pz[i] = def->origin[2] + def->step_u[2] * (float)col + def->step_v[2] * (float)row;
    }
  ps->m = 0;
  for (uint32_t row = 0; row < hgt; row++)
    for (uint32_t col = 0; col + 1 < w; col++) add_constraint(ps, row * w + col, row * w + col + 1);
  for (uint32_t row = 0; row + 1 < hgt; row++)
    for (uint32_t col = 0; col < w; col++) add_constraint(ps, row * w + col, (row + 1) * w + col);
  for (uint32_t row = 0; row + 1 < hgt; row++)
    for (uint32_t col = 0; col + 1 < w; col++) {
      add_constraint(ps, row * w + col, (row + 1) * w + col + 1);
      add_constraint(ps, row * w + col + 1, (row + 1) * w + col);
    }
  for (uint32_t p = 0; p < def->pin_count; p++) {
    particle_pin *pin = &ps->pins[p];
    uint32_t i = def->pins[p].particle;
    float world[3] = {ps->x[i], ps->y[i], ps->z[i]};
    pin->particle = i;
    pin->instance = def->pins[p].instance;
    if (tress_id_is_null(pin->instance)) {
      memcpy(pin->local, world, sizeof world);
    } else {
      /* Captured at bind: the pin keeps this offset in the instance's frame. */
      tress_xform inv = tress_xform_inverse(tress_instance_get_world(sim->scene, pin->instance));
      tress_xform_point(inv, world, pin->local);
    }
    memcpy(pin->frame_prev, world, sizeof world);
    memcpy(pin->frame_cur, world, sizeof world);
    memcpy(pin->target, world, sizeof world);
    memcpy(pin->tick_prev, world, sizeof world);
  }
  tress__particles_rebuild(ps);
  tress__particles_update_center(ps);
  return tress__ropes_register(sim, ps, out);
}

tress_result tress_sim_bind_cloth(tress_sim *sim, const tress_cloth_def *def, tress_handle_id *out, tress_error *err) {
  tress_error_clear(err);
  return tress__ropes_finish_bind(bind_cloth(sim, def, out, err), err);
}
