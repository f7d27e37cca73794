/* relax.c - the particle solver shared by ropes and cloth.
 *
 * A tick advances one particle system by tick_dt in S substeps (a rope ticks once per fixed step,
 * or once per four at 15 Hz LOD). Each substep: verlet integration with damping expressed per
 * 1/60 s (so a different substep length gives the same motion), pins set to their position
 * interpolated across the tick, `iterations` relaxation passes over the distance constraints,
 * tethers, then collision. Substeps beat iterations: the stretch gravity causes in one substep
 * falls with h^2, while extra passes only shave it linearly.
 *
 * Three relaxations:
 * - Direct (rope default): one Newton step on all of a chain's constraints at once, solved
 *   exactly by the Thomas algorithm (see relax_direct); stretch no longer depends on h.
 * - Gauss-Seidel, in place, in the order the writer chose. Ropes order their segments even
 *   first, then odd: consecutive projections then touch disjoint particles, so the CPU overlaps
 *   them instead of waiting on a 20-long dependency chain.
 * - Jacobi, for the parallel path: pass 1 computes each constraint's correction into its own
 *   slot (sx, sy, sz); pass 2 sums, per particle, the corrections of its incident constraints in
 *   a fixed order (a CSR adjacency), scaled by over_relaxation / count. Both passes write only
 *   their own index, so any split across workers gives bit-identical results. Unscaled Jacobi
 *   (the seed's) adds up to 8 full corrections on a cloth particle and diverges.
 *
 * Invariants: nothing here allocates; a pinned particle has inverse mass 0 and every weight of
 * its constraints is 0 on its side; after a tick every particle is finite or the system is
 * stopped with a fault.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collider_lanes.h"
#include "particles.h"

/* ---- storage ---- */

tress_particles *tress__particles_alloc(uint32_t n, uint32_t m_cap, uint32_t pin_count) {
  tress_particles *ps = calloc(1, sizeof *ps);
  if (!ps) return NULL;
  ps->n = n;
  ps->m_cap = m_cap;
  ps->pin_count = pin_count;
  ps->tether_cap = n * (pin_count ? pin_count : 1);
  bool ok = true;
#define ALLOC(field, count) ok = ok && ((ps->field = calloc((size_t)(count) + 1, sizeof *ps->field)) != NULL)
  ALLOC(x, n); ALLOC(y, n); ALLOC(z, n);
  ALLOC(px, n); ALLOC(py, n); ALLOC(pz, n);
  ALLOC(w, n);
  ALLOC(ca, m_cap); ALLOC(cb, m_cap); ALLOC(rest, m_cap);
  ALLOC(cwa, m_cap); ALLOC(cwb, m_cap);
  ALLOC(sx, m_cap); ALLOC(sy, m_cap); ALLOC(sz, m_cap);
  ALLOC(tri_diag, m_cap); ALLOC(tri_upper, m_cap); ALLOC(tri_rhs, m_cap);
  ALLOC(adj_start, n + 1);
  ALLOC(adj_k, 2 * m_cap); ALLOC(adj_c, 2 * m_cap);
  ALLOC(relax_scale, n);
  ALLOC(pins, pin_count);
  ALLOC(sources, pin_count);
  ALLOC(tethers, ps->tether_cap);
#undef ALLOC
  if (!ok) {
    tress__particles_free(ps);
    return NULL;
  }
  return ps;
}

void tress__particles_free(tress_particles *ps) {
  if (!ps) return;
  free(ps->x); free(ps->y); free(ps->z);
  free(ps->px); free(ps->py); free(ps->pz);
  free(ps->w);
  free(ps->ca); free(ps->cb); free(ps->rest);
  free(ps->cwa); free(ps->cwb);
  free(ps->sx); free(ps->sy); free(ps->sz);
  free(ps->tri_diag); free(ps->tri_upper); free(ps->tri_rhs);
  free(ps->adj_start); free(ps->adj_k); free(ps->adj_c);
  free(ps->relax_scale);
  free(ps->pins);
  free(ps->sources);
  free(ps->carry_src);
  free(ps->carry_w);
  free(ps->tethers);
  free(ps->output_parts);
  free(ps->grid_block);
  free(ps);
}

bool tress__particles_alloc_grid(tress_particles *ps, uint32_t w) {
  size_t pad = (size_t)w + 1, len = ps->n + 2 * pad;
  ps->grid_block = calloc(24 * len, sizeof(float));
  if (!ps->grid_block) return false;
  ps->grid_w = w;
  float **arrays[6] = {ps->st_rest, ps->st_cwa, ps->st_cwb, ps->st_sx, ps->st_sy, ps->st_sz};
  for (int a = 0; a < 6; a++)
    for (int f = 0; f < 4; f++) arrays[a][f] = ps->grid_block + (size_t)(a * 4 + f) * len + pad;
  return true;
}

/* Grid families: which stencil array and cell a constraint (a, b) of a w-wide grid lives in. */
enum { GRID_H, GRID_V, GRID_D1, GRID_D2 };

static bool grid_family(uint32_t w, uint32_t a, uint32_t b, int *family, uint32_t *cell) {
  uint32_t ra = a / w, rb = b / w, ca = a % w, cb = b % w;
  if (rb == ra && cb == ca + 1) *family = GRID_H, *cell = a;
  else if (rb == ra + 1 && cb == ca) *family = GRID_V, *cell = a;
  else if (rb == ra + 1 && cb == ca + 1) *family = GRID_D1, *cell = a;
  else if (rb == ra + 1 && cb + 1 == ca) *family = GRID_D2, *cell = a - 1;
  else return false;
  return true;
}

/* The stencil weights are a view of the constraint list, rebuilt with it. */
static void rebuild_grid(tress_particles *ps) {
  size_t pad = (size_t)ps->grid_w + 1, len = ps->n + 2 * pad;
  memset(ps->grid_block, 0, 24 * len * sizeof(float));
  for (uint32_t k = 0; k < ps->m; k++) {
    int f;
    uint32_t cell;
    if (!grid_family(ps->grid_w, ps->ca[k], ps->cb[k], &f, &cell)) continue;
    ps->st_rest[f][cell] = ps->rest[k];
    ps->st_cwa[f][cell] = ps->cwa[k];
    ps->st_cwb[f][cell] = ps->cwb[k];
  }
}

/* ---- topology (bind and cut time) ---- */

/* Ropes: walk from each pinned end along intact segments, summing rest lengths. */
static void rebuild_rope_tethers(tress_particles *ps) {
  /* relax_scale doubles as the per-segment "intact" flag here; it is recomputed right after. */
  float *intact = ps->relax_scale;
  for (uint32_t s = 0; s < ps->segments; s++) intact[s] = 0.0f;
  for (uint32_t k = 0; k < ps->m; k++) intact[ps->ca[k]] = ps->rest[k];
  for (uint32_t p = 0; p < ps->pin_count; p++) {
    uint32_t anchor = ps->pins[p].particle;
    float len = 0.0f;
    for (uint32_t i = anchor; i < ps->segments && intact[i] > 0.0f; i++) {
      len += intact[i];
      if (ps->w[i + 1] > 0.0f && ps->tether_count < ps->tether_cap)
        ps->tethers[ps->tether_count++] = (particle_tether){i + 1, anchor, len};
    }
    len = 0.0f;
    for (uint32_t i = anchor; i > 0 && intact[i - 1] > 0.0f; i--) {
      len += intact[i - 1];
      if (ps->w[i - 1] > 0.0f && ps->tether_count < ps->tether_cap)
        ps->tethers[ps->tether_count++] = (particle_tether){i - 1, anchor, len};
    }
  }
}

void tress__particles_rebuild(tress_particles *ps) {
  uint32_t n = ps->n, m = ps->m;
  for (uint32_t i = 0; i < n; i++) ps->w[i] = 1.0f;
  for (uint32_t p = 0; p < ps->pin_count; p++) ps->w[ps->pins[p].particle] = 0.0f;
  for (uint32_t k = 0; k < m; k++) {
    float wa = ps->w[ps->ca[k]], wb = ps->w[ps->cb[k]], sum = wa + wb;
    ps->cwa[k] = sum > 0.0f ? wa / sum : 0.0f;
    ps->cwb[k] = sum > 0.0f ? wb / sum : 0.0f;
  }
  /* CSR adjacency: counts into adj_start[i + 1], prefix sum, fill with adj_start[i] as cursor,
   * then shift the cursors back into starts. */
  memset(ps->adj_start, 0, (n + 1) * sizeof *ps->adj_start);
  for (uint32_t k = 0; k < m; k++) {
    ps->adj_start[ps->ca[k] + 1]++;
    ps->adj_start[ps->cb[k] + 1]++;
  }
  for (uint32_t i = 0; i < n; i++) ps->adj_start[i + 1] += ps->adj_start[i];
  for (uint32_t k = 0; k < m; k++) {
    uint32_t ja = ps->adj_start[ps->ca[k]]++;
    ps->adj_k[ja] = k;
    ps->adj_c[ja] = ps->cwa[k];
    uint32_t jb = ps->adj_start[ps->cb[k]]++;
    ps->adj_k[jb] = k;
    ps->adj_c[jb] = -ps->cwb[k];
  }
  for (uint32_t i = n; i > 0; i--) ps->adj_start[i] = ps->adj_start[i - 1];
  ps->adj_start[0] = 0;

  if (ps->grid_w) rebuild_grid(ps);

  ps->tether_count = 0;
  if (ps->settings.tethers && ps->kind == TRESS_HANDLE_ROPE) rebuild_rope_tethers(ps);

  float omega = ps->settings.over_relaxation;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t count = ps->adj_start[i + 1] - ps->adj_start[i];
    ps->relax_scale[i] = count ? omega / (float)count : 0.0f;
  }
}

void tress__particles_remove_constraint(tress_particles *ps, uint32_t k) {
  if (k >= ps->m) return;
  uint32_t tail = ps->m - k - 1;
  memmove(ps->ca + k, ps->ca + k + 1, tail * sizeof *ps->ca);
  memmove(ps->cb + k, ps->cb + k + 1, tail * sizeof *ps->cb);
  memmove(ps->rest + k, ps->rest + k + 1, tail * sizeof *ps->rest);
  ps->m--;
  tress__particles_rebuild(ps);
}

/* ---- relaxation ---- */

static void relax_gauss_seidel(tress_particles *ps) {
  float *restrict x = ps->x, *restrict y = ps->y, *restrict z = ps->z;
  const uint32_t *ca = ps->ca, *cb = ps->cb;
  const float *rest = ps->rest, *cwa = ps->cwa, *cwb = ps->cwb;
  for (uint32_t k = 0, m = ps->m; k < m; k++) {
    uint32_t a = ca[k], b = cb[k];
    float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
    float s = 1.0f - rest[k] / sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f);
    float fa = cwa[k] * s, fb = cwb[k] * s;
    x[a] += fa * dx; y[a] += fa * dy; z[a] += fa * dz;
    x[b] -= fb * dx; y[b] -= fb * dy; z[b] -= fb * dz;
  }
}

/* One Newton step on every distance constraint at once: (J W J^T) lambda = -C, dx = W J^T lambda.
 * Along a chain (constraint k+1 starts where k ends) the matrix is tridiagonal, so the Thomas
 * algorithm solves it exactly in O(m): a rope's stretch no longer grows with its length or with
 * the substep, which is what keeps the rest shape across the 15 Hz LOD. A cut simply decouples
 * the two pieces (no shared particle, zero off-diagonal). */
static void relax_direct(tress_particles *ps) {
  float *restrict x = ps->x, *restrict y = ps->y, *restrict z = ps->z;
  const float *w = ps->w;
  float *nx = ps->sx, *ny = ps->sy, *nz = ps->sz;
  float *diag = ps->tri_diag, *upper = ps->tri_upper, *rhs = ps->tri_rhs;
  uint32_t m = ps->m;
  if (m == 0) return;
  for (uint32_t k = 0; k < m; k++) {
    uint32_t a = ps->ca[k], b = ps->cb[k];
    float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
    float len = sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f), inv = 1.0f / len;
    nx[k] = dx * inv;
    ny[k] = dy * inv;
    nz[k] = dz * inv;
    float d = w[a] + w[b];
    /* A constraint between two pins cannot move: solve it as lambda = 0. */
    diag[k] = d > 0.0f ? d : 1.0f;
    rhs[k] = d > 0.0f ? ps->rest[k] - len : 0.0f;
  }
  for (uint32_t k = 0; k + 1 < m; k++) {
    uint32_t p = ps->cb[k];
    upper[k] = p == ps->ca[k + 1] ? -w[p] * (nx[k] * nx[k + 1] + ny[k] * ny[k + 1] + nz[k] * nz[k + 1]) : 0.0f;
  }
  upper[m - 1] = 0.0f;
  /* Thomas: forward elimination (upper becomes c', rhs becomes d'), then back substitution. */
  float prev_c = 0.0f, prev_d = 0.0f, prev_u = 0.0f;
  for (uint32_t k = 0; k < m; k++) {
    float denom = diag[k] - prev_u * prev_c;
    float inv = 1.0f / denom;
    float c = upper[k] * inv;
    float d = (rhs[k] - prev_u * prev_d) * inv;
    prev_u = upper[k];
    upper[k] = c;
    rhs[k] = d;
    prev_c = c;
    prev_d = d;
  }
  for (uint32_t k = m - 1; k > 0; k--) rhs[k - 1] -= upper[k - 1] * rhs[k];
  for (uint32_t k = 0; k < m; k++) {
    uint32_t a = ps->ca[k], b = ps->cb[k];
    float l = rhs[k], la = w[a] * l, lb = w[b] * l;
    x[a] -= la * nx[k]; y[a] -= la * ny[k]; z[a] -= la * nz[k];
    x[b] += lb * nx[k]; y[b] += lb * ny[k]; z[b] += lb * nz[k];
  }
}

static void jacobi_constraints(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  tress_particles *ps = context;
  const float *x = ps->x, *y = ps->y, *z = ps->z;
  for (uint32_t k = start; k < end; k++) {
    uint32_t a = ps->ca[k], b = ps->cb[k];
    float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
    float s = 1.0f - ps->rest[k] / sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f);
    ps->sx[k] = s * dx;
    ps->sy[k] = s * dy;
    ps->sz[k] = s * dz;
  }
}

static void jacobi_particles(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  tress_particles *ps = context;
  for (uint32_t i = start; i < end; i++) {
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (uint32_t j = ps->adj_start[i], e = ps->adj_start[i + 1]; j < e; j++) {
      uint32_t k = ps->adj_k[j];
      float c = ps->adj_c[j];
      ax += c * ps->sx[k];
      ay += c * ps->sy[k];
      az += c * ps->sz[k];
    }
    float r = ps->relax_scale[i];
    ps->x[i] += r * ax;
    ps->y[i] += r * ay;
    ps->z[i] += r * az;
  }
}

/* The grid's Jacobi pass 1 as four stencil loops over cells [start, end): the same arithmetic as
 * jacobi_constraints, without index loads, so the loops vectorize. A missing constraint (last
 * column or row) computes a finite value its zero weights never use. */
TRESS_HOT_CLONES static void grid_constraints(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  tress_particles *ps = context;
  const float *restrict x = ps->x, *restrict y = ps->y, *restrict z = ps->z;
  const uint32_t n = ps->n, w = ps->grid_w;
  /* b - a and the a offset per family; the last cell each family may read in bounds. */
  const uint32_t step[4] = {1, w, w + 1, w - 1}, a_off[4] = {0, 0, 0, 1};
  const uint32_t last[4] = {n - 1, n - w, n - w - 1, n - w - 1};
  for (int f = 0; f < 4; f++) {
    const float *restrict rest = ps->st_rest[f];
    float *restrict sx = ps->st_sx[f], *restrict sy = ps->st_sy[f], *restrict sz = ps->st_sz[f];
    const float *restrict xa = x + a_off[f], *restrict ya = y + a_off[f], *restrict za = z + a_off[f];
    const float *restrict xb = xa + step[f], *restrict yb = ya + step[f], *restrict zb = za + step[f];
    uint32_t e = end < last[f] ? end : last[f];
    TRESS_IVDEP
    for (uint32_t i = start; i < e; i++) {
      float dx = xb[i] - xa[i], dy = yb[i] - ya[i], dz = zb[i] - za[i];
      float s = 1.0f - rest[i] / sqrtf(dx * dx + dy * dy + dz * dz + 1e-12f);
      sx[i] = s * dx;
      sy[i] = s * dy;
      sz[i] = s * dz;
    }
  }
}

/* Pass 2: each particle sums its up to 8 constraints' corrections in constraint-list order
 * (H left, H right, V up, V down, D1 up-left, D2 up, D2 left, D1 own), as jacobi_particles
 * does through the adjacency; absent ones add weight 0. */
TRESS_HOT_CLONES static void grid_particles(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  tress_particles *ps = context;
  float *restrict x = ps->x, *restrict y = ps->y, *restrict z = ps->z;
  const float *restrict r = ps->relax_scale;
  const ptrdiff_t w = ps->grid_w;
  const float *const *cwa = (const float *const *)ps->st_cwa, *const *cwb = (const float *const *)ps->st_cwb;
  const float *const *sxs[3] = {(const float *const *)ps->st_sx, (const float *const *)ps->st_sy,
                                (const float *const *)ps->st_sz};
  float *restrict out[3] = {x, y, z};
  for (int c = 0; c < 3; c++) {
    const float *restrict h = sxs[c][GRID_H], *restrict v = sxs[c][GRID_V];
    const float *restrict d1 = sxs[c][GRID_D1], *restrict d2 = sxs[c][GRID_D2];
    const float *restrict ah = cwa[GRID_H], *restrict bh = cwb[GRID_H], *restrict av = cwa[GRID_V];
    const float *restrict bv = cwb[GRID_V], *restrict ad1 = cwa[GRID_D1], *restrict bd1 = cwb[GRID_D1];
    const float *restrict ad2 = cwa[GRID_D2], *restrict bd2 = cwb[GRID_D2];
    float *restrict p = out[c];
    TRESS_IVDEP
    for (ptrdiff_t i = start; i < (ptrdiff_t)end; i++) { /* signed: i - w - 1 reads the padding */
      float acc = 0.0f;
      acc += -bh[i - 1] * h[i - 1];
      acc += ah[i] * h[i];
      acc += -bv[i - w] * v[i - w];
      acc += av[i] * v[i];
      acc += -bd1[i - w - 1] * d1[i - w - 1];
      acc += -bd2[i - w] * d2[i - w];
      acc += ad2[i - 1] * d2[i - 1];
      acc += ad1[i] * d1[i];
      p[i] += r[i] * acc;
    }
  }
}

static void apply_tethers(tress_particles *ps) {
  float *x = ps->x, *y = ps->y, *z = ps->z;
  for (uint32_t t = 0; t < ps->tether_count; t++) {
    const particle_tether *th = &ps->tethers[t];
    uint32_t i = th->particle, a = th->anchor;
    float dx = x[i] - x[a], dy = y[i] - y[a], dz = z[i] - z[a];
    float d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= th->max_length * th->max_length) continue;
    float s = th->max_length / sqrtf(d2);
    x[i] = x[a] + dx * s;
    y[i] = y[a] + dy * s;
    z[i] = z[a] + dz * s;
  }
}

/* ---- collision ---- */

static bool read_hit(tress_particles *ps, const float from[3], const float to[3], float hit[3], float nrm[3]) {
  if (!ps->settings.raycast(ps->settings.raycast_user, from, to, hit, nrm)) return false;
  float len = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
  if (!tress_vec3_is_finite(hit) || !tress_vec3_is_finite(nrm) || !(len > 1e-6f)) {
    ps->collision_off = true;
    ps->fault = "the raycast callback returned a non-finite hit or normal; collision is off for this handle";
    return false;
  }
  for (int k = 0; k < 3; k++) nrm[k] /= len;
  return true;
}

/* Swept from where the particle started the substep to where it ended, so a slab thinner than
 * one substep's motion still stops it. The normal part of the velocity is removed. */
static void collide_particles(tress_particles *ps) {
  float skin = ps->settings.skin;
  for (uint32_t i = 0; i < ps->n && !ps->collision_off; i++) {
    if (ps->w[i] == 0.0f) continue;
    float from[3] = {ps->px[i], ps->py[i], ps->pz[i]}, to[3] = {ps->x[i], ps->y[i], ps->z[i]};
    float hit[3], nrm[3];
    if (!read_hit(ps, from, to, hit, nrm)) continue;
    ps->x[i] = hit[0] + nrm[0] * skin;
    ps->y[i] = hit[1] + nrm[1] * skin;
    ps->z[i] = hit[2] + nrm[2] * skin;
    float dn = (ps->x[i] - ps->px[i]) * nrm[0] + (ps->y[i] - ps->py[i]) * nrm[1] + (ps->z[i] - ps->pz[i]) * nrm[2];
    ps->px[i] += nrm[0] * dn;
    ps->py[i] += nrm[1] * dn;
    ps->pz[i] += nrm[2] * dn;
  }
}

/* Each constraint's segment: an endpoint found behind the hit plane is put back in front. */
static void collide_segments(tress_particles *ps) {
  float skin = ps->settings.skin;
  for (uint32_t k = 0; k < ps->m && !ps->collision_off; k++) {
    uint32_t ends[2] = {ps->ca[k], ps->cb[k]};
    float from[3] = {ps->x[ends[0]], ps->y[ends[0]], ps->z[ends[0]]};
    float to[3] = {ps->x[ends[1]], ps->y[ends[1]], ps->z[ends[1]]};
    float hit[3], nrm[3];
    if (!read_hit(ps, from, to, hit, nrm)) continue;
    for (int e = 0; e < 2; e++) {
      uint32_t i = ends[e];
      if (ps->w[i] == 0.0f) continue;
      float depth = (hit[0] - ps->x[i]) * nrm[0] + (hit[1] - ps->y[i]) * nrm[1] + (hit[2] - ps->z[i]) * nrm[2];
      if (depth <= 0.0f) continue;
      ps->x[i] += nrm[0] * (depth + skin);
      ps->y[i] += nrm[1] * (depth + skin);
      ps->z[i] += nrm[2] * (depth + skin);
    }
  }
}

/* ---- the tick ---- */

void tress__particles_update_center(tress_particles *ps) {
  double c[3] = {0, 0, 0};
  for (uint32_t i = 0; i < ps->n; i++) {
    c[0] += ps->x[i];
    c[1] += ps->y[i];
    c[2] += ps->z[i];
  }
  for (int k = 0; k < 3; k++) ps->center[k] = ps->n ? (float)(c[k] / ps->n) : 0.0f;
}

/* A safe stop: every non-finite coordinate goes back to the last finite center and the system
 * freezes, so a renderer reading points never sees NaN. */
void tress__particles_stop_if_not_finite(tress_particles *ps) {
  bool bad = false;
  for (uint32_t i = 0; i < ps->n; i++)
    if (!isfinite(ps->x[i]) || !isfinite(ps->y[i]) || !isfinite(ps->z[i])) bad = true;
  if (!bad) return;
  for (uint32_t i = 0; i < ps->n; i++) {
    if (!isfinite(ps->x[i]) || !isfinite(ps->y[i]) || !isfinite(ps->z[i])) {
      ps->x[i] = ps->center[0];
      ps->y[i] = ps->center[1];
      ps->z[i] = ps->center[2];
    }
    ps->px[i] = ps->x[i];
    ps->py[i] = ps->y[i];
    ps->pz[i] = ps->z[i];
  }
  ps->stopped = true;
  ps->fault = "a particle became non-finite; the handle stopped";
}

float tress__particles_damping(tress_particles *ps, float h) {
  if (h != ps->damp_h) {
    ps->damp_h = h;
    ps->damp = powf(ps->settings.damping, h * 60.0f);
  }
  return ps->damp;
}

void tress__particles_tick(tress_particles *ps, const particle_env *env, float tick_dt, int substeps) {
  if (ps->stopped || ps->n == 0) return;
  if (substeps < 1) substeps = 1;
  uint32_t n = ps->n;
  float h = tick_dt / (float)substeps;
  float *restrict x = ps->x, *restrict y = ps->y, *restrict z = ps->z;
  float *restrict px = ps->px, *restrict py = ps->py, *restrict pz = ps->pz;
  const float *restrict w = ps->w;
  /* Verlet keeps velocity as a displacement per substep: a new substep length rescales it. */
  if (ps->h_last > 0.0f && h != ps->h_last) {
    float r = h / ps->h_last;
    for (uint32_t i = 0; i < n; i++) {
      px[i] = x[i] - (x[i] - px[i]) * r;
      py[i] = y[i] - (y[i] - py[i]) * r;
      pz[i] = z[i] - (z[i] - pz[i]) * r;
    }
  }
  ps->h_last = h;
  float damp = tress__particles_damping(ps, h);
  float ax = env->accel[0] * h * h, ay = env->accel[1] * h * h, az = env->accel[2] * h * h;
  int iterations = ps->settings.iterations < 1 ? 1 : ps->settings.iterations;
  bool jacobi = ps->settings.relax == TRESS_RELAX_JACOBI;
  bool direct = ps->settings.relax == TRESS_RELAX_DIRECT;
  bool collide = ps->settings.raycast && !ps->collision_off;

  for (int s = 0; s < substeps; s++) {
    TRESS_IVDEP
    for (uint32_t i = 0; i < n; i++) {
      float vx = (x[i] - px[i]) * damp, vy = (y[i] - py[i]) * damp, vz = (z[i] - pz[i]) * damp;
      px[i] = x[i];
      py[i] = y[i];
      pz[i] = z[i];
      x[i] += (vx + ax) * w[i];
      y[i] += (vy + ay) * w[i];
      z[i] += (vz + az) * w[i];
    }
    float t = (float)(s + 1) / (float)substeps;
    for (uint32_t p = 0; p < ps->pin_count; p++) {
      const particle_pin *pin = &ps->pins[p];
      uint32_t i = pin->particle;
      x[i] = pin->tick_prev[0] + (pin->target[0] - pin->tick_prev[0]) * t;
      y[i] = pin->tick_prev[1] + (pin->target[1] - pin->tick_prev[1]) * t;
      z[i] = pin->tick_prev[2] + (pin->target[2] - pin->tick_prev[2]) * t;
    }
    for (int it = 0; it < iterations; it++) {
      if (jacobi && ps->grid_w) {
        tress__jobs_run(env->jobs, grid_constraints, n, 64, ps);
        tress__jobs_run(env->jobs, grid_particles, n, 64, ps);
      } else if (jacobi) {
        tress__jobs_run(env->jobs, jacobi_constraints, ps->m, 64, ps);
        tress__jobs_run(env->jobs, jacobi_particles, n, 32, ps);
      } else if (direct) {
        relax_direct(ps);
      } else {
        relax_gauss_seidel(ps);
      }
    }
    apply_tethers(ps);
    if (ps->collider_world_count)
      tress__collider_push_free(x, y, z, w, n, ps->settings.collider_radius, ps->collider_world,
                                ps->collider_world_count);
    if (collide) {
      collide_particles(ps);
      if (ps->settings.segment_collision) collide_segments(ps);
    }
  }
  for (uint32_t p = 0; p < ps->pin_count; p++) memcpy(ps->pins[p].tick_prev, ps->pins[p].target, sizeof(float) * 3);
  tress__particles_stop_if_not_finite(ps);
  if (!ps->stopped) tress__particles_update_center(ps);
}
