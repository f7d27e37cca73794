/* rope_lanes.c - many ropes at once: ropes of one shape interleaved lane by lane (rope_group).
 *
 * Why. A rope's own solve is one serial chain: the Thomas algorithm's forward sweep divides by
 * what the previous row produced, Gauss-Seidel reads what the previous projection wrote, and a
 * 20-particle loop is too short to vectorize anyway. Across ropes there is no dependency at all,
 * so ropes with the same particle count, substeps, iterations and relaxation sit side by side:
 * array element [i * ROPE_LANES + lane] is particle (or segment) i of the lane's rope, every loop
 * runs over the particles with the lanes innermost, and each line of scalar math becomes one
 * vector instruction for ROPE_LANES (16) ropes.
 *
 * Invariants.
 * - Per lane the arithmetic is the per-rope path's (relax.c), operation for operation, with
 *   floating-point contraction off (ISO C mode): a rope moves bit-identically in a group and
 *   alone, and in every clone of the hot loop (AVX-512, AVX2, baseline).
 * - A lane that does not tick this fixed step is masked, not skipped: its inverse masses read as
 *   0 (no integration, no correction) and its pin, tether and verlet-previous writes are
 *   selected away, so it keeps its state exactly.
 * - A cut segment stays as a dead row: alive 0 gives it a zero right-hand side and no coupling
 *   to its neighbours in the tridiagonal system (the same pieces the compacted per-rope system
 *   solves), and zero weights in Gauss-Seidel. Nothing is reallocated.
 * - The group owns the positions of its ropes; the rope's own x..pz arrays are scratch for the
 *   per-rope path, which 15 Hz LOD ticks and the non-finite stop still use (lane load/store).
 * Joining a group allocates (bind time); ticking never does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"

#define LANE_CLONES TRESS_HOT_CLONES
#define L ROPE_LANES
/* Kept a loop (not unrolled into 8 scalar copies first) so the loop vectorizer takes it whole. */
#define LANE_LOOP TRESS_KEEP_LOOP TRESS_IVDEP for (uint32_t l = 0; l < L; l++)

static bool rope_fits_lanes(const tress_particles *ps) {
  return ps->kind == TRESS_HANDLE_ROPE && ps->settings.raycast == NULL && ps->collider_set.count == 0 &&
         (ps->settings.relax == TRESS_RELAX_DIRECT || ps->settings.relax == TRESS_RELAX_GAUSS_SEIDEL);
}

static rope_group *group_create(const tress_particles *ps) {
  rope_group *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->n = ps->n;
  g->m = ps->segments;
  g->substeps = ps->settings.substeps;
  g->iterations = ps->settings.iterations;
  g->relax = ps->settings.relax;
  size_t per_particle = (size_t)g->n * L, per_segment = (size_t)g->m * L;
  size_t floats = 9 * per_particle + 10 * per_segment;
  g->block = aligned_alloc(64, ((floats * sizeof(float) + 63) / 64) * 64);
  if (!g->block) {
    free(g);
    return NULL;
  }
  memset(g->block, 0, floats * sizeof(float));
  float *p = g->block;
  float **particle_arrays[] = {&g->x, &g->y, &g->z, &g->px, &g->py, &g->pz, &g->w, &g->tmax[0], &g->tmax[1]};
  for (size_t a = 0; a < sizeof particle_arrays / sizeof *particle_arrays; a++, p += per_particle)
    *particle_arrays[a] = p;
  float **segment_arrays[] = {&g->rest, &g->alive, &g->cwa, &g->cwb, &g->nx,
                              &g->ny,   &g->nz,    &g->diag, &g->upper, &g->rhs};
  for (size_t a = 0; a < sizeof segment_arrays / sizeof *segment_arrays; a++, p += per_segment)
    *segment_arrays[a] = p;
  for (size_t i = 0; i < per_particle; i++) g->tmax[0][i] = g->tmax[1][i] = INFINITY;
  return g;
}

static void group_free(rope_group *g) {
  if (!g) return;
  free(g->block);
  free(g);
}

void tress__rope_groups_free(rope_groups *gs) {
  for (uint32_t i = 0; i < gs->count; i++) group_free(gs->items[i]);
  free(gs->items);
  memset(gs, 0, sizeof *gs);
}

void tress__rope_lane_sync_topology(tress_particles *ps) {
  rope_group *g = ps->group;
  if (!g) return;
  uint32_t l = ps->lane;
  for (uint32_t i = 0; i < g->n; i++) {
    g->w[i * L + l] = ps->w[i];
    g->tmax[0][i * L + l] = g->tmax[1][i * L + l] = INFINITY;
  }
  for (uint32_t s = 0; s < g->m; s++) {
    g->rest[s * L + l] = g->alive[s * L + l] = g->cwa[s * L + l] = g->cwb[s * L + l] = 0.0f;
  }
  for (uint32_t k = 0; k < ps->m; k++) {
    uint32_t s = ps->ca[k];
    g->rest[s * L + l] = ps->rest[k];
    g->alive[s * L + l] = 1.0f;
    g->cwa[s * L + l] = ps->cwa[k];
    g->cwb[s * L + l] = ps->cwb[k];
  }
  /* Tethers go to the start pin (particle 0) or the end pin (particle m). The per-rope path
   * applies the first pin's before the second's, and the pin list is [start, end]. */
  for (uint32_t t = 0; t < ps->tether_count; t++) {
    const particle_tether *th = &ps->tethers[t];
    g->tmax[th->anchor == 0 ? 0 : 1][th->particle * L + l] = th->max_length;
    g->tethers = true;
  }
}

void tress__rope_lane_load(tress_particles *ps) {
  rope_group *g = ps->group;
  if (!g) return;
  for (uint32_t i = 0; i < g->n; i++) {
    size_t at = (size_t)i * L + ps->lane;
    ps->x[i] = g->x[at]; ps->y[i] = g->y[at]; ps->z[i] = g->z[at];
    ps->px[i] = g->px[at]; ps->py[i] = g->py[at]; ps->pz[i] = g->pz[at];
  }
}

void tress__rope_lane_store(tress_particles *ps) {
  rope_group *g = ps->group;
  if (!g) return;
  for (uint32_t i = 0; i < g->n; i++) {
    size_t at = (size_t)i * L + ps->lane;
    g->x[at] = ps->x[i]; g->y[at] = ps->y[i]; g->z[at] = ps->z[i];
    g->px[at] = ps->px[i]; g->py[at] = ps->py[i]; g->pz[at] = ps->pz[i];
  }
}

void tress__rope_groups_join(rope_groups *gs, tress_particles *ps) {
  if (ps->group || !rope_fits_lanes(ps)) return;
  rope_group *g = NULL;
  for (uint32_t i = 0; i < gs->count && !g; i++) {
    rope_group *c = gs->items[i];
    if (c->used < L && c->n == ps->n && c->m == ps->segments && c->substeps == ps->settings.substeps &&
        c->iterations == ps->settings.iterations && c->relax == ps->settings.relax)
      g = c;
  }
  if (!g) {
    if (gs->count == gs->cap) {
      uint32_t cap = gs->cap ? gs->cap * 2 : 8;
      rope_group **items = realloc(gs->items, cap * sizeof *items);
      if (!items) return; /* stays per-rope */
      gs->items = items;
      gs->cap = cap;
    }
    g = group_create(ps);
    if (!g) return;
    gs->items[gs->count++] = g;
  }
  uint32_t lane = 0;
  while (g->rope[lane]) lane++;
  g->rope[lane] = ps;
  g->used++;
  ps->group = g;
  ps->lane = lane;
  tress__rope_lane_store(ps);
  tress__rope_lane_sync_topology(ps);
}

void tress__rope_groups_leave(rope_groups *gs, tress_particles *ps) {
  rope_group *g = ps->group;
  if (!g) return;
  tress__rope_lane_load(ps);
  uint32_t l = ps->lane;
  /* An empty lane is all zeros with no tethers: masked, it computes finite nothing. */
  for (uint32_t i = 0; i < g->n; i++) {
    size_t at = (size_t)i * L + l;
    g->x[at] = g->y[at] = g->z[at] = g->px[at] = g->py[at] = g->pz[at] = g->w[at] = 0.0f;
    g->tmax[0][at] = g->tmax[1][at] = INFINITY;
  }
  for (uint32_t s = 0; s < g->m; s++)
    g->rest[s * L + l] = g->alive[s * L + l] = g->cwa[s * L + l] = g->cwb[s * L + l] = 0.0f;
  g->rope[l] = NULL;
  g->act[l] = 0.0f;
  g->used--;
  ps->group = NULL;
  if (g->used) return;
  for (uint32_t i = 0; i < gs->count; i++) {
    if (gs->items[i] != g) continue;
    gs->items[i] = gs->items[--gs->count];
    break;
  }
  group_free(g);
}

void tress__rope_lane_arm(tress_particles *ps) {
  rope_group *g = ps->group;
  uint32_t l = ps->lane;
  g->act[l] = 1.0f; /* arms the group too (group_armed): ropes arm their lanes at once */
  for (int e = 0; e < 2; e++) g->pin_on[e][l] = 0.0f;
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    const particle_pin *pin = &ps->pins[p];
    int e = pin->particle == 0 ? 0 : 1;
    g->pin_on[e][l] = 1.0f;
    for (int c = 0; c < 3; c++) {
      g->pin_from[e][c][l] = pin->tick_prev[c];
      g->pin_to[e][c][l] = pin->target[c];
    }
  }
  for (int c = 0; c < 3; c++) g->accel[c][l] = ps->accel[c];
}

/* ---- the interleaved tick ---- */

/* relax.c's relax_direct, lane by lane: one Newton step solved by the Thomas algorithm. */
static inline __attribute__((always_inline)) void lanes_direct(rope_group *g) {
  const uint32_t m = g->m;
  float *restrict x = g->x, *restrict y = g->y, *restrict z = g->z;
  const float *restrict w = g->w, *restrict act = g->act, *restrict rest = g->rest, *restrict alive = g->alive;
  float *restrict nx = g->nx, *restrict ny = g->ny, *restrict nz = g->nz;
  float *restrict diag = g->diag, *restrict upper = g->upper, *restrict rhs = g->rhs;
  for (uint32_t s = 0; s < m; s++) {
    const size_t a = (size_t)s * L, b = a + L;
    LANE_LOOP {
      float dx = x[b + l] - x[a + l], dy = y[b + l] - y[a + l], dz = z[b + l] - z[a + l];
      float len = sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f), inv = 1.0f / len;
      nx[a + l] = dx * inv;
      ny[a + l] = dy * inv;
      nz[a + l] = dz * inv;
      float d = w[a + l] * act[l] + w[b + l] * act[l];
      bool live = (d > 0.0f) & (alive[a + l] != 0.0f); /* & not &&: no branch in the lane loop */
      diag[a + l] = live ? d : 1.0f;
      rhs[a + l] = live ? rest[a + l] - len : 0.0f;
    }
  }
  for (uint32_t s = 0; s + 1 < m; s++) {
    const size_t a = (size_t)s * L, b = a + L;
    LANE_LOOP {
      float u = -(w[b + l] * act[l]) * (nx[a + l] * nx[b + l] + ny[a + l] * ny[b + l] + nz[a + l] * nz[b + l]);
      upper[a + l] = ((alive[a + l] != 0.0f) & (alive[b + l] != 0.0f)) ? u : 0.0f;
    }
  }
  LANE_LOOP upper[(m - 1) * L + l] = 0.0f;
  float prev_c[L], prev_d[L], prev_u[L];
  LANE_LOOP prev_c[l] = prev_d[l] = prev_u[l] = 0.0f;
  for (uint32_t s = 0; s < m; s++) {
    const size_t a = (size_t)s * L;
    LANE_LOOP {
      float denom = diag[a + l] - prev_u[l] * prev_c[l];
      float inv = 1.0f / denom;
      float c = upper[a + l] * inv;
      float d = (rhs[a + l] - prev_u[l] * prev_d[l]) * inv;
      prev_u[l] = upper[a + l];
      upper[a + l] = c;
      rhs[a + l] = d;
      prev_c[l] = c;
      prev_d[l] = d;
    }
  }
  for (uint32_t s = m - 1; s > 0; s--) {
    const size_t a = (size_t)(s - 1) * L, b = (size_t)s * L;
    LANE_LOOP rhs[a + l] -= upper[a + l] * rhs[b + l];
  }
  for (uint32_t s = 0; s < m; s++) {
    const size_t a = (size_t)s * L, b = a + L;
    LANE_LOOP {
      /* Masked lanes keep their exact bits (x - 0 would turn -0 into +0). */
      bool on = act[l] != 0.0f;
      float lam = rhs[a + l], la = w[a + l] * act[l] * lam, lb = w[b + l] * act[l] * lam;
      x[a + l] = on ? x[a + l] - la * nx[a + l] : x[a + l];
      y[a + l] = on ? y[a + l] - la * ny[a + l] : y[a + l];
      z[a + l] = on ? z[a + l] - la * nz[a + l] : z[a + l];
      x[b + l] = on ? x[b + l] + lb * nx[a + l] : x[b + l];
      y[b + l] = on ? y[b + l] + lb * ny[a + l] : y[b + l];
      z[b + l] = on ? z[b + l] + lb * nz[a + l] : z[b + l];
    }
  }
}

/* relax.c's relax_gauss_seidel in the ropes' order (even segments, then odd), lane by lane. */
static inline __attribute__((always_inline)) void lanes_gauss_seidel(rope_group *g) {
  float *restrict x = g->x, *restrict y = g->y, *restrict z = g->z;
  const float *restrict act = g->act, *restrict rest = g->rest, *restrict cwa = g->cwa, *restrict cwb = g->cwb;
  for (uint32_t parity = 0; parity < 2; parity++)
    for (uint32_t s = parity; s < g->m; s += 2) {
      const size_t a = (size_t)s * L, b = a + L;
      LANE_LOOP {
        float dx = x[b + l] - x[a + l], dy = y[b + l] - y[a + l], dz = z[b + l] - z[a + l];
        float k = 1.0f - rest[a + l] / sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f);
        bool on = act[l] != 0.0f;
        float fa = cwa[a + l] * k, fb = cwb[a + l] * k;
        x[a + l] = on ? x[a + l] + fa * dx : x[a + l];
        y[a + l] = on ? y[a + l] + fa * dy : y[a + l];
        z[a + l] = on ? z[a + l] + fa * dz : z[a + l];
        x[b + l] = on ? x[b + l] - fb * dx : x[b + l];
        y[b + l] = on ? y[b + l] - fb * dy : y[b + l];
        z[b + l] = on ? z[b + l] - fb * dz : z[b + l];
      }
    }
}

LANE_CLONES static void group_substeps(rope_group *g, float h) {
  const uint32_t n = g->n;
  float *restrict x = g->x, *restrict y = g->y, *restrict z = g->z;
  float *restrict px = g->px, *restrict py = g->py, *restrict pz = g->pz;
  const float *restrict w = g->w, *restrict act = g->act, *restrict damp = g->damp;
  float ax[L], ay[L], az[L];
  LANE_LOOP {
    ax[l] = g->accel[0][l] * h * h;
    ay[l] = g->accel[1][l] * h * h;
    az[l] = g->accel[2][l] * h * h;
  }
  for (int s = 0; s < g->substeps; s++) {
    for (uint32_t i = 0; i < n; i++) {
      const size_t a = (size_t)i * L;
      LANE_LOOP {
        bool on = act[l] != 0.0f;
        float wi = w[a + l] * act[l];
        float xi = x[a + l], yi = y[a + l], zi = z[a + l];
        float vx = (xi - px[a + l]) * damp[l], vy = (yi - py[a + l]) * damp[l], vz = (zi - pz[a + l]) * damp[l];
        px[a + l] = on ? xi : px[a + l];
        py[a + l] = on ? yi : py[a + l];
        pz[a + l] = on ? zi : pz[a + l];
        x[a + l] = on ? xi + (vx + ax[l]) * wi : xi;
        y[a + l] = on ? yi + (vy + ay[l]) * wi : yi;
        z[a + l] = on ? zi + (vz + az[l]) * wi : zi;
      }
    }
    float t = (float)(s + 1) / (float)g->substeps;
    for (int e = 0; e < 2; e++) {
      const size_t a = e ? (size_t)(n - 1) * L : 0;
      LANE_LOOP {
        bool on = g->pin_on[e][l] != 0.0f;
        float fx = g->pin_from[e][0][l], fy = g->pin_from[e][1][l], fz = g->pin_from[e][2][l];
        x[a + l] = on ? fx + (g->pin_to[e][0][l] - fx) * t : x[a + l];
        y[a + l] = on ? fy + (g->pin_to[e][1][l] - fy) * t : y[a + l];
        z[a + l] = on ? fz + (g->pin_to[e][2][l] - fz) * t : z[a + l];
      }
    }
    for (int it = 0; it < g->iterations; it++) {
      if (g->relax == TRESS_RELAX_DIRECT) lanes_direct(g);
      else lanes_gauss_seidel(g);
    }
    if (!g->tethers) continue;
    for (int e = 0; e < 2; e++) {
      const size_t anchor = e ? (size_t)(n - 1) * L : 0;
      const float *restrict tmax = g->tmax[e];
      for (uint32_t i = 0; i < n; i++) {
        const size_t a = (size_t)i * L;
        if (a == anchor) continue;
        LANE_LOOP {
          float dx = x[a + l] - x[anchor + l], dy = y[a + l] - y[anchor + l], dz = z[a + l] - z[anchor + l];
          float d2 = dx * dx + dy * dy + dz * dz, mx = tmax[a + l];
          bool pull = (act[l] != 0.0f) & !(d2 <= mx * mx);
          float k = mx / sqrtf(d2);
          x[a + l] = pull ? x[anchor + l] + dx * k : x[a + l];
          y[a + l] = pull ? y[anchor + l] + dy * k : y[a + l];
          z[a + l] = pull ? z[anchor + l] + dz * k : z[a + l];
        }
      }
    }
  }
}

/* Per lane, in double, in particle order: the per-rope path's center, and a non-finite sum
 * flags a non-finite particle (a sum of finite floats in double cannot overflow). */
LANE_CLONES static void group_sums(const rope_group *g, double sum[3][L]) {
  LANE_LOOP sum[0][l] = sum[1][l] = sum[2][l] = 0.0;
  for (uint32_t i = 0; i < g->n; i++) {
    const size_t a = (size_t)i * L;
    LANE_LOOP {
      sum[0][l] += g->x[a + l];
      sum[1][l] += g->y[a + l];
      sum[2][l] += g->z[a + l];
    }
  }
}

static void group_tick(rope_group *g, float tick_dt) {
  float h = tick_dt / (float)g->substeps;
  for (uint32_t l = 0; l < L; l++) {
    tress_particles *ps = g->rope[l];
    if (!ps || g->act[l] == 0.0f) continue;
    /* The per-rope path's velocity rescale when the substep length changes (after LOD ticks). */
    if (ps->h_last > 0.0f && h != ps->h_last) {
      float r = h / ps->h_last;
      for (uint32_t i = 0; i < g->n; i++) {
        size_t at = (size_t)i * L + l;
        g->px[at] = g->x[at] - (g->x[at] - g->px[at]) * r;
        g->py[at] = g->y[at] - (g->y[at] - g->py[at]) * r;
        g->pz[at] = g->z[at] - (g->z[at] - g->pz[at]) * r;
      }
    }
    ps->h_last = h;
    g->damp[l] = tress__particles_damping(ps, h);
  }
  group_substeps(g, h);
  double sum[3][L];
  group_sums(g, sum);
  for (uint32_t l = 0; l < L; l++) {
    tress_particles *ps = g->rope[l];
    if (!ps || g->act[l] == 0.0f) continue;
    g->act[l] = 0.0f;
    for (uint32_t p = 0; p < ps->pin_count; p++) memcpy(ps->pins[p].tick_prev, ps->pins[p].target, sizeof(float) * 3);
    ps->ticks++;
    if (isfinite(sum[0][l]) && isfinite(sum[1][l]) && isfinite(sum[2][l])) {
      for (int c = 0; c < 3; c++) ps->center[c] = (float)(sum[c][l] / ps->n);
      continue;
    }
    tress__rope_lane_load(ps);
    tress__particles_stop_if_not_finite(ps);
    tress__rope_lane_store(ps);
  }
}

/* Some lane ticks this fixed step: read from the lanes, so arming (one rope per lane, on any
 * worker) writes nothing two ropes share. */
static bool group_armed(const rope_group *g) {
  bool armed = false;
  for (uint32_t l = 0; l < L; l++) armed = armed || g->act[l] != 0.0f;
  return armed;
}

typedef struct groups_task {
  rope_groups *gs;
  float tick_dt;
} groups_task;

static void tick_group_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  groups_task *k = context;
  for (uint32_t i = start; i < end; i++)
    if (group_armed(k->gs->items[i])) group_tick(k->gs->items[i], k->tick_dt);
}

void tress__rope_groups_tick(rope_groups *gs, float tick_dt, const tress_jobs *jobs) {
  groups_task task = {gs, tick_dt};
  tress__jobs_run(jobs, tick_group_range, gs->count, 1, &task);
}
