/* plan_internal.h - what plan.c shares with plan_sectors.c (the sector frame from the hair's angular
 * density) and plan_head.c (the scalp sphere and the strand test). Not a public header. */
#ifndef TRESS_PLAN_INTERNAL_H
#define TRESS_PLAN_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "tress/plan.h"

/* One-degree angular bins: 15-degree turns of a mesh shift the histogram by whole bins. */
#define TRESS__PLAN_BINS 360
#define TRESS__PLAN_SLICES 32
#define TRESS__PLAN_WEDGES 24 /* 15 degrees: turns in 15-degree steps keep every vertex in its wedge */

/* Angle of (x, y) from +x toward +y in [0, 2 pi), ~1e-5 rad error, branch-free (selects), so
 * the per-vertex passes stay cheap; atan2 would cost most of the plan. */
static inline float tress__plan_angle(float x, float y) {
  float ax = fabsf(x), ay = fabsf(y);
  float lo = ax < ay ? ax : ay, hi = ax < ay ? ay : ax;
  float a = lo / (hi + 1e-30f), s = a * a;
  float r = ((-0.0464964749f * s + 0.15931422f) * s - 0.327622764f) * s * a + a;
  r = ay > ax ? 1.57079637f - r : r;
  r = x < 0.0f ? 3.14159274f - r : r;
  r = y < 0.0f ? 6.28318548f - r : r;
  return r;
}

/* A position v on a grid of n cells as a cell index, clamped before the conversion (NaN gives 0),
 * so no float reaches an integer conversion out of its range. */
static inline uint32_t tress__plan_cell(float v, uint32_t n) {
  return v >= 0.0f ? (v < (float)(n - 1) ? (uint32_t)v : n - 1) : 0;
}

static inline uint32_t tress__plan_bin(float angle) {
  return tress__plan_cell(angle * (float)(TRESS__PLAN_BINS / 6.28318530717958647692), TRESS__PLAN_BINS);
}

/* The sector frame: boundaries (radians, ascending) and which sector label a vertex gets from the
 * number of boundaries at or below its angle. */
typedef struct tress__plan_sectors {
  uint32_t count;
  float bounds[TRESS_PLAN_MAX_SECTORS];
  uint8_t label_by_rank[TRESS_PLAN_MAX_SECTORS + 1];
  float reference_angle; /* centre of sector 1 */
  bool symmetric;
  float mirror_angle;    /* the mirror plane's direction when symmetric */
  float mirror_score;    /* 1 = the density is its own mirror image */
  float uniformity;      /* min / mean of the smoothed density: 1 = no gap anywhere */
} tress__plan_sectors;

/* counts / depth_sums: TRESS__PLAN_BINS per-bin vertex counts and depth sums (below the root). */
void tress__plan_choose_sectors(const float *counts, const float *depth_sums, uint32_t sectors, tress__plan_sectors *out);

/* The inner envelope and radial spread of the hair per (depth slice, wedge around the axis). */
typedef struct tress__plan_envelope {
  float min_r2[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES]; /* squared distance from the axis */
  float min_x[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES];  /* that innermost vertex in the frame (u, w, axis) */
  float min_y[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES];
  float min_t[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES];
  float n[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES], sum_r[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES],
      sum_r2[TRESS__PLAN_SLICES * TRESS__PLAN_WEDGES];
} tress__plan_envelope;

void tress__plan_envelope_init(tress__plan_envelope *e);

/* The head: a sphere at (centre_x, centre_y, centre_t) in the frame (u, w, axis) from the root. */
typedef struct tress__plan_head {
  bool found;
  float centre_x, centre_y, centre_t, radius;
} tress__plan_head;

/* Fits the scalp sphere to the innermost hair of the top slices; found is false when the hair has
 * no dome around the axis (a few strands, a sheet). */
tress__plan_head tress__plan_fit_head(const tress__plan_envelope *e, float depth);

/* Mean relative radial spread (std / mean distance from the axis) of the hair below depth t_from:
 * strands lie in thin layers (small), a filled volume does not (large). */
float tress__plan_radial_spread(const tress__plan_envelope *e, float t_from, float depth);

/* Strand mode (plan_strands.c). */
#define TRESS__PLAN_STRAND_SLICES 48

/* Groups of dense angle separated by gaps; fills group_of_bin (TRESS__PLAN_BINS entries, groups
 * numbered heaviest first) and returns the group count (capped), 0 when there is no gap. */
uint32_t tress__plan_strand_groups(const float *counts, uint32_t max_groups, uint8_t *group_of_bin);

void tress__plan_strand_lines(const double *sums, uint32_t groups, uint32_t slices, uint32_t bands, float *arc,
                              float *total, float (*bones)[3], const float root[3]);

#endif
