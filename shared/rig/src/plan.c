/* plan.c - the sector x band skeleton (the seed's plan()).
 *
 * Three linear passes over the vertices and one allocation:
 *   1. depth pass: validate every coordinate, find the deepest vertex below the root plane
 *      (depth t = dot(v - root, axis)) and the bounds; this fixes the band height depth / segments;
 *   2. survey pass: the angular density around the axis (plan_sectors.c turns it into the sector
 *      frame) and the innermost hair per depth slice (plan_head.c fits the head to it);
 *   3. bind pass: per vertex pick its sector and band, tell scalp from swinging hair, write its
 *      weights, and add it to its (sector, band) centroid sums.
 * Bones are then placed at the centroids; bands without swinging hair are placed on their chain
 * (see place_bones), so every chain has the same length and no bone hangs outside the hair.
 *
 * Weights follow the seed: primary = the vertex's own band bone; secondary = the neighbouring
 * band bone it leans toward (up when its band fraction is < 0.5, down otherwise) with weight
 * blend = |fraction - 0.5| * 0.8, primary 1 - blend. A band at the end of a chain has no
 * neighbour on that side and binds fully to its own bone. The primary is always >= 0.6, so the
 * pair is already sorted. Vertices at or above the root plane bind fully to HairRoot and are
 * left out of every centroid.
 */
#include "tress/plan.h"

#include "plan_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tress_plan_opts tress_default_plan_opts(void) {
  tress_plan_opts o;
  memset(&o, 0, sizeof o);
  o.axis[1] = -1.0f;
  o.sectors = 3;
  o.segments = 3;
  o.max_influences = 2;
  o.scalp_to_root = true;
  o.fewer_bands_for_volume = true;
  o.mode = TRESS_PLAN_MODE_SECTORS;
  o.max_chains = 8;
  return o;
}

const char *tress_plan_status_name(tress_plan_status s) {
  switch (s) {
  case TRESS_PLAN_OK: return "ok";
  case TRESS_PLAN_ERR_EMPTY: return "the mesh has no vertices";
  case TRESS_PLAN_ERR_NOT_FINITE: return "a vertex has a NaN or infinite coordinate, or lies too far from the root";
  case TRESS_PLAN_ERR_ABOVE_ROOT: return "every vertex is at or above the root plane";
  case TRESS_PLAN_ERR_OPTIONS:
    return "bad plan options: sectors and segments must be 1..64, axis and root finite, axis non-zero";
  case TRESS_PLAN_ERR_NO_ROOT: return "plan needs a root";
  case TRESS_PLAN_ERR_NO_MEMORY: return "out of memory";
  }
  return "unknown";
}

const char *tress_plan_mode_name(tress_plan_mode mode) {
  switch (mode) {
  case TRESS_PLAN_MODE_SECTORS: return "sectors";
  case TRESS_PLAN_MODE_STRANDS: return "strands";
  }
  return "unknown";
}

bool tress_plan_mode_from_name(const char *text, tress_plan_mode *out) {
  const tress_plan_mode all[] = {TRESS_PLAN_MODE_SECTORS, TRESS_PLAN_MODE_STRANDS};
  for (size_t k = 0; text && out && k < sizeof all / sizeof all[0]; k++)
    if (strcmp(text, tress_plan_mode_name(all[k])) == 0) {
      *out = all[k];
      return true;
    }
  return false;
}

const char *tress_plan_warning_name(tress_plan_warning warning) {
  switch (warning) {
  case TRESS_PLAN_WARN_NO_STRANDS: return "no_strands";
  case TRESS_PLAN_WARN_EMPTY_SECTOR: return "empty_sector";
  case TRESS_PLAN_WARN_EMPTY_BANDS: return "empty_bands";
  case TRESS_PLAN_WARN_NO_GROUPS: return "no_groups";
  case TRESS_PLAN_WARN_OPTION_CLAMPED: return "option_clamped";
  }
  return "unknown";
}

tress_result tress_plan_status_to_result(tress_plan_status s) {
  switch (s) {
  case TRESS_PLAN_OK: return TRESS_OK;
  case TRESS_PLAN_ERR_NO_MEMORY: return TRESS_ERR_OUT_OF_MEMORY;
  default: return TRESS_ERR_INVALID_ARGUMENT;
  }
}

/* Monotonic in the angle of (x, y) from +x toward +y, in [0, 4); (0, 0) maps to 0. Written
 * with selects rather than branches: hair angles are random, so branches would mispredict. */
static inline float diamond_angle(float x, float y) {
  float r = y / (fabsf(x) + fabsf(y) + 1e-30f); /* in [-1, 1]; the tiny term keeps 0/0 out */
  float base = x < 0.0f ? 2.0f : (y < 0.0f ? 4.0f : 0.0f);
  return x < 0.0f ? base - r : base + r;
}

static inline float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* The fixed frame angles are measured in: +X made perpendicular to the axis, or +Z when the axis
 * is close to X. Only the histogram is measured in it; the sector frame comes from the hair. */
static void reference_dirs(const float axis[3], float u[3], float w[3]) {
  float helper[3] = {1.0f, 0.0f, 0.0f};
  if (fabsf(axis[0]) > 0.9f) { helper[0] = 0.0f; helper[2] = 1.0f; }
  float d = dot3(helper, axis);
  for (int k = 0; k < 3; k++) u[k] = helper[k] - d * axis[k];
  float len = sqrtf(dot3(u, u));
  for (int k = 0; k < 3; k++) u[k] /= len;
  w[0] = axis[1] * u[2] - axis[2] * u[1];
  w[1] = axis[2] * u[0] - axis[0] * u[2];
  w[2] = axis[0] * u[1] - axis[1] * u[0];
}

/* What the bind pass needs to know beyond the options. */
typedef struct frame {
  const float *root;
  float axis[3], u[3], w[3];
  float depth, band_height;
  float mn[3], mx[3]; /* bounds of every vertex */
} frame;

/* Per sector, where a chain's tail ends: the centroid of its vertices below the root weighted by
 * (depth / plan depth)^8, so the deepest hair dominates without a tie among equally deep vertices
 * (a ring) picking one by index, which would not turn with the mesh. */
typedef struct tips {
  double sum[TRESS_PLAN_MAX_SECTORS][4];
  float t[TRESS_PLAN_MAX_SECTORS]; /* > 0 when the sector has a vertex below the root */
  float pos[TRESS_PLAN_MAX_SECTORS][3];
} tips;

/* The survey reads every stride-th vertex: its histograms and envelope are statistics, and past
 * ~64k vertices more samples change them little but cost as much as the bind pass. */
#define SURVEY_SAMPLES 65536u

static uint32_t survey_stride(uint32_t n) { return n > SURVEY_SAMPLES ? (n + SURVEY_SAMPLES - 1) / SURVEY_SAMPLES : 1; }

static uint32_t sector_of(const tress__plan_sectors *sec, float angle) {
  uint32_t rank = 0, ranks = sec->count > 1 ? sec->count : 0;
  for (uint32_t k = 0; k < ranks; k++) rank += angle >= sec->bounds[k];
  return sec->label_by_rank[rank];
}

/* Over the survey's sample: the tip is a statistic too. */
static void find_tips(const float *vertices, uint32_t n, const frame *f, const tress__plan_sectors *sec, tips *tp) {
  float inv_depth = 1.0f / f->depth;
  for (uint32_t i = 0, stride = survey_stride(n); i < n; i += stride) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - f->root[0], v[1] - f->root[1], v[2] - f->root[2]};
    float t = dot3(d, f->axis);
    if (!(t > 0.0f)) continue;
    uint32_t s = sector_of(sec, tress__plan_angle(dot3(d, f->u), dot3(d, f->w)));
    float f1 = t * inv_depth, f2 = f1 * f1, f4 = f2 * f2;
    double weight = (double)(f4 * f4);
    for (int k = 0; k < 3; k++) tp->sum[s][k] += weight * v[k];
    tp->sum[s][3] += weight;
  }
}

static void finish_tips(tips *tp, uint32_t sectors, const float root[3], const float axis[3]) {
  for (uint32_t s = 0; s < sectors; s++) {
    if (!(tp->sum[s][3] > 0.0)) continue;
    for (int k = 0; k < 3; k++) tp->pos[s][k] = (float)(tp->sum[s][k] / tp->sum[s][3]);
    float d[3] = {tp->pos[s][0] - root[0], tp->pos[s][1] - root[1], tp->pos[s][2] - root[2]};
    tp->t[s] = fmaxf(dot3(d, axis), 1e-30f);
  }
}

static void survey(const float *vertices, uint32_t n, const frame *f, float *counts, float *depth_sums,
                   tress__plan_envelope *env) {
  const float *root = f->root, *axis = f->axis, *u = f->u, *w = f->w;
  float inv_slice = (float)TRESS__PLAN_SLICES / f->depth;
  for (uint32_t i = 0, stride = survey_stride(n); i < n; i += stride) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - root[0], v[1] - root[1], v[2] - root[2]};
    float t = dot3(d, axis);
    if (!(t > 0.0f)) continue;
    float x = dot3(d, u), y = dot3(d, w), r2 = x * x + y * y;
    uint32_t bin = tress__plan_bin(tress__plan_angle(x, y));
    counts[bin] += 1.0f;
    depth_sums[bin] += t;
    uint32_t slice = tress__plan_cell(t * inv_slice, TRESS__PLAN_SLICES);
    uint32_t cell = slice * TRESS__PLAN_WEDGES + bin / (TRESS__PLAN_BINS / TRESS__PLAN_WEDGES);
    bool inner = r2 < env->min_r2[cell];
    env->min_r2[cell] = inner ? r2 : env->min_r2[cell];
    env->min_t[cell] = inner ? t : env->min_t[cell];
    env->min_x[cell] = inner ? x : env->min_x[cell];
    env->min_y[cell] = inner ? y : env->min_y[cell];
    env->n[cell] += 1.0f;
    env->sum_r[cell] += sqrtf(r2);
    env->sum_r2[cell] += r2;
  }
}

static void lerp3(const float a[3], const float b[3], float t, float out[3]) {
  for (int k = 0; k < 3; k++) out[k] = a[k] + (b[k] - a[k]) * t;
}

static void clamp_to_bounds(const frame *f, float p[3]) {
  for (int k = 0; k < 3; k++) p[k] = p[k] < f->mn[k] ? f->mn[k] : p[k] > f->mx[k] ? f->mx[k] : p[k];
}

/* sums per cell: every vertex below the root (x, y, z, count), then the count of swinging ones. */
#define CELL 5

static bool centroid(const double *cell, float out[3]) {
  if (!(cell[3] > 0.0)) return false;
  for (int k = 0; k < 3; k++) out[k] = (float)(cell[k] / cell[3]);
  return true;
}

/* A band's bone: the centroid of its hair below the root, scalp included as in the seed (so a
 * band whose hair lies on the head has its bone there, and the bone does not jump when a vertex
 * changes from scalp to swinging); else a point on the chain between the nearest placed bands,
 * between the root and the first, or from the last toward the sector's deepest vertex. A sector
 * with no vertex at all follows the axis. Everything is kept inside the vertices' bounds. */
static uint32_t place_sector(tress_plan_result *p, const double *sums, const frame *f, const tips *tp, uint32_t s) {
  uint32_t B = p->segments, swingless = 0;
  float pos[TRESS_PLAN_MAX_SEGMENTS][3];
  bool placed[TRESS_PLAN_MAX_SEGMENTS];
  for (uint32_t b = 0; b < B; b++) {
    const double *cell = sums + CELL * ((size_t)s * B + b);
    placed[b] = centroid(cell, pos[b]);
    swingless += !(cell[4] > 0.0);
  }
  bool has_tip = tp->t[s] > 0.0f;
  for (uint32_t b = 0; b < B; b++) {
    if (placed[b]) continue;
    int32_t above = -1, below = -1;
    for (int32_t j = (int32_t)b - 1; j >= 0; j--) if (placed[j]) { above = j; break; }
    for (uint32_t j = b + 1; j < B; j++) if (placed[j]) { below = (int32_t)j; break; }
    float *q = pos[b];
    if (above >= 0 && below >= 0) {
      lerp3(pos[above], pos[below], (float)((int32_t)b - above) / (float)(below - above), q);
    } else if (below >= 0) {
      lerp3(f->root, pos[below], ((float)b + 0.5f) / ((float)below + 0.5f), q);
    } else if (above >= 0) {
      /* Toward the deepest vertex; when that is no deeper (hair ending on the scalp), short
       * steps down the axis keep the bones distinct without hanging them in the air. */
      float reach = dot3(tp->pos[s], f->axis) - dot3(pos[above], f->axis);
      if (has_tip && reach > 0.05f * f->band_height) {
        lerp3(pos[above], tp->pos[s], (float)((int32_t)b - above) / (float)((int32_t)B - 1 - above), q);
      } else {
        float step = (has_tip ? 0.05f : 1.0f) * f->band_height * (float)((int32_t)b - above);
        for (int k = 0; k < 3; k++) q[k] = pos[above][k] + f->axis[k] * step;
      }
    } else if (has_tip) {
      lerp3(f->root, tp->pos[s], ((float)b + 1.0f) / (float)B, q);
    } else {
      for (int k = 0; k < 3; k++) q[k] = f->root[k] + f->axis[k] * f->band_height * ((float)b + 0.5f);
    }
  }
  for (uint32_t b = 0; b < B; b++) {
    uint32_t index = 1 + s * B + b;
    tress_plan_bone *bone = &p->bones[index];
    snprintf(bone->name, sizeof bone->name, "Hair_S%u_B%u", s + 1, b + 1);
    bone->parent = b == 0 ? 0 : (int32_t)index - 1;
    clamp_to_bounds(f, pos[b]);
    memcpy(bone->position, pos[b], sizeof bone->position);
  }
  return swingless;
}

static void append_warning(tress_plan_result *p, uint32_t bit, const char *text) {
  size_t used = strlen(p->warning_text);
  snprintf(p->warning_text + used, sizeof p->warning_text - used, "%s%s", used ? "; " : "", text);
  p->warnings |= bit;
}

static void place_bones(tress_plan_result *p, const double *sums, const frame *f, const tips *tp) {
  tress_plan_bone *root_bone = &p->bones[0];
  snprintf(root_bone->name, sizeof root_bone->name, "HairRoot");
  memcpy(root_bone->position, f->root, sizeof root_bone->position);
  root_bone->parent = -1;
  uint32_t empty_sectors = 0, swingless = 0;
  for (uint32_t s = 0; s < p->sectors; s++) {
    empty_sectors += !(tp->t[s] > 0.0f);
    swingless += place_sector(p, sums, f, tp, s);
  }
  char text[128];
  if (empty_sectors) {
    snprintf(text, sizeof text, "%u of %u sectors hold no vertex (their chains follow the axis)", empty_sectors, p->sectors);
    append_warning(p, TRESS_PLAN_WARN_EMPTY_SECTOR, text);
  }
  if (swingless) {
    snprintf(text, sizeof text, "%u bands hold no swinging vertex (their bones sit on the chain)", swingless);
    append_warning(p, TRESS_PLAN_WARN_EMPTY_BANDS, text);
  }
}

/* Fills the result's frame-derived fields and returns the sector frame's vertex lookup. */
static void describe(tress_plan_result *out, const frame *f, const tress__plan_sectors *sec, const tress__plan_head *head) {
  memcpy(out->axis, f->axis, sizeof out->axis);
  float c = cosf(sec->reference_angle), sn = sinf(sec->reference_angle);
  for (int k = 0; k < 3; k++) out->reference[k] = c * f->u[k] + sn * f->w[k];
  out->symmetric = sec->symmetric;
  float mc = cosf(sec->mirror_angle), ms = sinf(sec->mirror_angle);
  for (int k = 0; k < 3; k++) out->mirror_normal[k] = -ms * f->u[k] + mc * f->w[k];
  out->head_found = head->found;
  out->head_radius = head->radius;
  for (int k = 0; k < 3; k++)
    out->head_centre[k] = f->root[k] + f->axis[k] * head->centre_t + f->u[k] * head->centre_x + f->w[k] * head->centre_y;
}

/* Scalp: near the root (down to 0.2 R past the head's centre) and within 1.15 R of the centre. */
typedef struct scalp_zone {
  float t_max, r2, cx, cy, ct;
} scalp_zone;

static scalp_zone make_scalp_zone(const tress__plan_head *head, bool enabled) {
  scalp_zone z = {-1.0f, 0.0f, head->centre_x, head->centre_y, head->centre_t};
  if (!enabled || !head->found) return z;
  z.t_max = head->centre_t + 0.2f * head->radius;
  z.r2 = 1.15f * head->radius * 1.15f * head->radius;
  return z;
}

static inline bool in_scalp(const scalp_zone *z, float x, float y, float t) {
  float dx = x - z->cx, dy = y - z->cy, dt = t - z->ct;
  return (t <= z->t_max) & (dx * dx + dy * dy + dt * dt <= z->r2);
}

/* Strand mode's histogram: swinging hair only (the scalp cap would fill every gap), sampled. */
static void count_swinging(const float *vertices, uint32_t n, const frame *f, const scalp_zone *z, float *counts) {
  for (uint32_t i = 0, stride = survey_stride(n); i < n; i += stride) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - f->root[0], v[1] - f->root[1], v[2] - f->root[2]};
    float t = dot3(d, f->axis), x = dot3(d, f->u), y = dot3(d, f->w);
    if (!(t > 0.0f) || in_scalp(z, x, y, t)) continue;
    counts[tress__plan_bin(tress__plan_angle(x, y))] += 1.0f;
  }
}

/* Per group: arc length at each depth slice, total length, bone positions. */
typedef struct strand_lines {
  float *arc;       /* groups x TRESS__PLAN_STRAND_SLICES (+1 guard) */
  float *total;     /* groups */
  float (*bones)[3];/* groups x bands */
  void *block;
} strand_lines;

static bool trace_strands(const float *vertices, uint32_t n, const frame *f, const scalp_zone *z, const uint8_t *group_of_bin,
                          uint32_t groups, uint32_t bands, strand_lines *lines) {
  const uint32_t L = TRESS__PLAN_STRAND_SLICES;
  size_t sums_bytes = sizeof(double) * 4 * groups * L, arc_bytes = sizeof(float) * (groups * L + 1);
  char *block = calloc(1, sums_bytes + arc_bytes + sizeof(float) * groups + sizeof(float) * 3 * groups * bands);
  if (!block) return false;
  double *sums = (double *)block;
  lines->block = block;
  lines->arc = (float *)(block + sums_bytes);
  lines->total = lines->arc + groups * L + 1;
  lines->bones = (float (*)[3])(lines->total + groups);
  float inv_slice = (float)L / f->depth;
  for (uint32_t i = 0; i < n; i++) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - f->root[0], v[1] - f->root[1], v[2] - f->root[2]};
    float t = dot3(d, f->axis), x = dot3(d, f->u), y = dot3(d, f->w);
    if (!(t > 0.0f) || in_scalp(z, x, y, t)) continue;
    uint32_t g = group_of_bin[tress__plan_bin(tress__plan_angle(x, y))], slice = tress__plan_cell(t * inv_slice, L);
    double *c = sums + 4 * ((size_t)g * L + slice);
    c[0] += v[0]; c[1] += v[1]; c[2] += v[2]; c[3] += 1.0;
  }
  tress__plan_strand_lines(sums, groups, L, bands, lines->arc, lines->total, lines->bones, f->root);
  return true;
}

/* A vertex's band position (0..bands) from the arc length at its depth along its group's line. */
static inline float strand_band(const strand_lines *lines, uint32_t g, float slice_pos, uint32_t bands) {
  const uint32_t L = TRESS__PLAN_STRAND_SLICES;
  float total = lines->total[g];
  uint32_t s = tress__plan_cell(slice_pos, L);
  float frac = slice_pos - (float)s;
  frac = frac < 1.0f ? frac : 1.0f;
  const float *arc = lines->arc + (size_t)g * L;
  float a = s + 1 < L ? arc[s] + (arc[s + 1] - arc[s]) * frac : arc[s];
  return total > 0.0f ? a / total * (float)bands : 0.0f;
}

static void place_strand_bones(tress_plan_result *p, const strand_lines *lines, const frame *f) {
  tress_plan_bone *root_bone = &p->bones[0];
  snprintf(root_bone->name, sizeof root_bone->name, "HairRoot");
  memcpy(root_bone->position, f->root, sizeof root_bone->position);
  root_bone->parent = -1;
  uint32_t B = p->segments;
  for (uint32_t g = 0; g < p->sectors; g++)
    for (uint32_t b = 0; b < B; b++) {
      uint32_t index = 1 + g * B + b;
      tress_plan_bone *bone = &p->bones[index];
      snprintf(bone->name, sizeof bone->name, "Hair_S%u_B%u", g + 1, b + 1);
      bone->parent = b == 0 ? 0 : (int32_t)index - 1;
      memcpy(bone->position, lines->bones[g * B + b], sizeof bone->position);
      clamp_to_bounds(f, bone->position);
    }
}

/* Thresholds for "no strand structure": no angular gap below 30% of the mean density, and the
 * hair below the scalp spread radially over more than 12% of its distance from the axis. */
#define STRANDLESS_UNIFORMITY 0.3f
#define STRANDLESS_SPREAD 0.12f

/* Every vertex-to-root distance, and its square, is finite when the bounds lie within
 * PLAN_MAX_REACH of the root on each axis: finite coordinates far apart (a degenerate file's
 * 1e38 and -1e38) would overflow to infinity and NaN in the survey's angles and cells. */
#define PLAN_MAX_REACH 1e15f
static bool within_reach(const float mn[3], const float mx[3], const float root[3]) {
  for (int k = 0; k < 3; k++)
    if (!(fabsf(mn[k] - root[k]) < PLAN_MAX_REACH && fabsf(mx[k] - root[k]) < PLAN_MAX_REACH)) return false;
  return true;
}

tress_plan_status tress_plan_build(const float *vertices, uint32_t n, const tress_plan_opts *opts_in, tress_plan_result *out) {
  memset(out, 0, sizeof *out);
  tress_plan_opts opts = opts_in ? *opts_in : tress_default_plan_opts();
  if (!vertices || n == 0) return TRESS_PLAN_ERR_EMPTY;
  if (!opts.has_root) return TRESS_PLAN_ERR_NO_ROOT;
  if (opts.sectors < 1 || opts.sectors > TRESS_PLAN_MAX_SECTORS || opts.segments < 1 ||
      opts.segments > TRESS_PLAN_MAX_SEGMENTS || !finite3(opts.axis) || !finite3(opts.root))
    return TRESS_PLAN_ERR_OPTIONS;
  float axis_len = sqrtf(dot3(opts.axis, opts.axis));
  if (!(axis_len > 1e-12f) || !isfinite(axis_len)) return TRESS_PLAN_ERR_OPTIONS;
  if (opts.mode != TRESS_PLAN_MODE_SECTORS && opts.mode != TRESS_PLAN_MODE_STRANDS) return TRESS_PLAN_ERR_OPTIONS;
  if (opts.mode == TRESS_PLAN_MODE_STRANDS && (opts.max_chains < 1 || opts.max_chains > TRESS_PLAN_MAX_SECTORS))
    return TRESS_PLAN_ERR_OPTIONS;
  frame f;
  memset(&f, 0, sizeof f);
  f.root = opts.root;
  for (int k = 0; k < 3; k++) f.axis[k] = opts.axis[k] / axis_len;
  const float *axis = f.axis, *root = opts.root;
  uint32_t max_inf = opts.max_influences < 1 ? 1 : opts.max_influences > 4 ? 4 : opts.max_influences;

  /* Pass 1: validate, depth, bounds. The finiteness test is folded into a sum so the loop has
   * no early exit and stays vectorizable; one NaN/inf poisons the sum. */
  float depth = 0.0f, poison = 0.0f;
  float mn[3] = {vertices[0], vertices[1], vertices[2]}, mx[3] = {vertices[0], vertices[1], vertices[2]};
  for (uint32_t i = 0; i < n; i++) {
    const float *v = vertices + 3 * (size_t)i;
    poison += (v[0] - v[0]) + (v[1] - v[1]) + (v[2] - v[2]);
    float t = (v[0] - root[0]) * axis[0] + (v[1] - root[1]) * axis[1] + (v[2] - root[2]) * axis[2];
    depth = t > depth ? t : depth;
    for (int k = 0; k < 3; k++) {
      mn[k] = v[k] < mn[k] ? v[k] : mn[k];
      mx[k] = v[k] > mx[k] ? v[k] : mx[k];
    }
  }
  if (poison != 0.0f || !within_reach(mn, mx, root)) return TRESS_PLAN_ERR_NOT_FINITE;
  if (!(depth > 0.0f)) return TRESS_PLAN_ERR_ABOVE_ROOT;
  memcpy(f.mn, mn, sizeof mn);
  memcpy(f.mx, mx, sizeof mx);
  f.depth = depth;
  reference_dirs(axis, f.u, f.w);

  /* Pass 2: survey; then the sector frame, the head, and whether this is hair with strands. */
  float counts[TRESS__PLAN_BINS] = {0}, depth_sums[TRESS__PLAN_BINS] = {0};
  tress__plan_envelope env;
  tress__plan_envelope_init(&env);
  survey(vertices, n, &f, counts, depth_sums, &env);
  uint32_t S = opts.sectors, B = opts.segments;
  tress__plan_sectors sec;
  tress__plan_choose_sectors(counts, depth_sums, S, &sec);
  tress__plan_head head = tress__plan_fit_head(&env, depth);
  float below_scalp = head.found ? head.centre_t + 0.2f * head.radius : 0.5f * depth;
  float spread = tress__plan_radial_spread(&env, below_scalp, depth);
  bool strandless = sec.uniformity >= STRANDLESS_UNIFORMITY && spread >= STRANDLESS_SPREAD;
  if (strandless && opts.fewer_bands_for_volume) B = (B + 1) / 2;
  scalp_zone zone = make_scalp_zone(&head, opts.scalp_to_root);
  uint8_t group_of_bin[TRESS__PLAN_BINS];
  uint32_t groups = 0;
  if (opts.mode == TRESS_PLAN_MODE_STRANDS) {
    float swinging[TRESS__PLAN_BINS] = {0};
    count_swinging(vertices, n, &f, &zone, swinging);
    groups = tress__plan_strand_groups(swinging, opts.max_chains, group_of_bin);
    if (groups) S = groups;
  }

  uint32_t bone_count = 1 + S * B;
  size_t bones_bytes = bone_count * sizeof(tress_plan_bone);
  bones_bytes = (bones_bytes + 7) & ~(size_t)7;
  size_t sums_bytes = CELL * sizeof(double) * S * B;
  size_t weights_bytes = sizeof(float) * max_inf * (size_t)n, joints_bytes = sizeof(uint16_t) * max_inf * (size_t)n;
  char *block = calloc(1, bones_bytes + sums_bytes + weights_bytes + joints_bytes + n);
  if (!block) return TRESS_PLAN_ERR_NO_MEMORY;
  out->block_ = block;
  out->bones = (tress_plan_bone *)block;
  double *sums = (double *)(block + bones_bytes);
  out->weights = (float *)(block + bones_bytes + sums_bytes);
  out->joints = (uint16_t *)(block + bones_bytes + sums_bytes + weights_bytes);
  out->influence_count = (uint8_t *)(block + bones_bytes + sums_bytes + weights_bytes + joints_bytes);
  out->bone_count = bone_count;
  out->sectors = S;
  out->segments = B;
  out->segments_requested = opts.segments;
  out->max_influences = max_inf;
  out->vertex_count = n;
  out->depth = depth;
  describe(out, &f, &sec, &head);
  if (max_inf != opts.max_influences) {
    char text[96];
    snprintf(text, sizeof text, "max_influences %u clamped to %u (1..4)", opts.max_influences, max_inf);
    append_warning(out, TRESS_PLAN_WARN_OPTION_CLAMPED, text);
  }
  if (opts.mode == TRESS_PLAN_MODE_STRANDS && !groups)
    append_warning(out, TRESS_PLAN_WARN_NO_GROUPS, "strand mode: no gap separates strand groups around the axis; rigged with sectors");
  if (strandless) {
    char text[TRESS_PLAN_WARNING_TEXT_MAX];
    snprintf(text, sizeof text,
             "no strand structure: the hair below the scalp fills a volume (radial spread %.0f%% of its distance "
             "from the axis) with no gap around the axis (emptiest angle %.0f%% of the mean); rigged with %u bands "
             "instead of %u",
             100.0 * spread, 100.0 * sec.uniformity, B, opts.segments);
    append_warning(out, TRESS_PLAN_WARN_NO_STRANDS, text);
  }
  f.band_height = depth / (float)B;

  /* Pass 3: bind every vertex and accumulate band centroids. Branch-free on purpose: whether a
   * vertex leans up or down, is scalp, and where it sits around the axis are coin flips to a
   * predictor. */
  const float *u = f.u, *w = f.w;
  float inv_h = (float)B / depth, blend_max = 0.8f;
  float scalp_t = zone.t_max, scalp_r2 = zone.r2, centre_t = zone.ct, centre_x = zone.cx, centre_y = zone.cy;
  uint32_t ranks = S > 1 ? S : 0, scalp_count = 0;
  /* The diamond angle orders directions exactly as the angle does and costs one division and no
   * polynomial: the bind pass compares it with the boundaries' own diamond angles. */
  float diamond_bounds[TRESS_PLAN_MAX_SECTORS];
  for (uint32_t k = 0; k < ranks; k++) diamond_bounds[k] = diamond_angle(cosf(sec.bounds[k]), sinf(sec.bounds[k]));
  tips tp;
  memset(&tp, 0, sizeof tp);
  const bool two = max_inf > 1, strands = groups > 0;
  strand_lines lines = {0};
  if (strands && !trace_strands(vertices, n, &f, &zone, group_of_bin, S, B, &lines)) {
    tress_plan_result_free(out);
    return TRESS_PLAN_ERR_NO_MEMORY;
  }
  const float inv_strand_slice = (float)TRESS__PLAN_STRAND_SLICES / depth;
  for (uint32_t i = 0; i < n; i++) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - root[0], v[1] - root[1], v[2] - root[2]};
    float t = dot3(d, axis);
    float x = dot3(d, u), y = dot3(d, w), dc = t - centre_t, dx = x - centre_x, dy = y - centre_y;
    bool below = t > 0.0f; /* at or above the root plane: HairRoot alone, no centroid */
    bool scalp = below & (t <= scalp_t) & (dx * dx + dy * dy + dc * dc <= scalp_r2); /* in_scalp, unrolled */
    bool swing = below & !scalp;
    scalp_count += scalp;
    uint32_t s;
    float bf;
    if (strands) { /* loop-invariant: the compiler unswitches it */
      s = group_of_bin[tress__plan_bin(tress__plan_angle(x, y))];
      bf = below ? strand_band(&lines, s, t * inv_strand_slice, B) : 0.0f;
    } else {
      float angle = diamond_angle(x, y);
      uint32_t rank = 0;
      for (uint32_t k = 0; k < ranks; k++) rank += angle >= diamond_bounds[k];
      s = sec.label_by_rank[rank];
      bf = below ? t * inv_h : 0.0f;
    }
    uint32_t b = tress__plan_cell(bf, B);
    float frac = bf - (float)b;
    frac = frac < 1.0f ? frac : 1.0f;
    uint32_t primary = 1 + s * B + b;
    double *cell = sums + CELL * (size_t)(s * B + b);
    double in = below ? 1.0 : 0.0;
    cell[0] += in * v[0]; cell[1] += in * v[1]; cell[2] += in * v[2]; cell[3] += in;
    cell[4] += swing ? 1.0 : 0.0;

    bool up = frac < 0.5f;
    bool has_neighbour = up ? b > 0 : b + 1 < B;
    float blend = fabsf(frac - 0.5f) * blend_max;
    bool pair = swing && two && has_neighbour && blend > 0.0f;
    uint16_t *joint = out->joints + max_inf * (size_t)i;
    float *weight = out->weights + max_inf * (size_t)i;
    joint[0] = (uint16_t)(swing ? primary : 0);
    weight[0] = pair ? 1.0f - blend : 1.0f;
    if (two) {
      joint[1] = (uint16_t)(pair ? (up ? primary - 1 : primary + 1) : 0);
      weight[1] = pair ? blend : 0.0f;
    }
    out->influence_count[i] = (uint8_t)(pair ? 2 : 1);
  }
  out->scalp_vertex_count = scalp_count;
  if (strands) {
    place_strand_bones(out, &lines, &f);
    free(lines.block);
  } else {
    find_tips(vertices, n, &f, &sec, &tp);
    finish_tips(&tp, S, root, axis);
    place_bones(out, sums, &f, &tp);
  }
  return TRESS_PLAN_OK;
}

void tress_plan_result_free(tress_plan_result *p) {
  if (!p) return;
  free(p->block_);
  memset(p, 0, sizeof *p);
}
