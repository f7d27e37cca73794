/* plan_sectors.c - the sector frame chosen from the hair itself.
 *
 * The seed's sectors keep their meaning (S radial groups of roughly equal angle around the axis,
 * one chain each), but where the boundaries fall comes from the angular vertex density, not from
 * the world's +X: an even grid of S boundaries is turned, and each boundary may slide up to a
 * quarter of a sector toward the emptiest angle nearby; the grid and slides with the least
 * density under the boundaries win. A dense group (a ponytail, a braid, a side lock) is a peak
 * of the density, so no boundary crosses it.
 *
 * Everything is computed on a histogram, so turning the mesh about the axis turns the histogram
 * and with it the result. A hairstyle whose density (count and depth per angle) is its own
 * mirror image gets boundaries placed in mirrored pairs about that plane, so its rig is
 * symmetric too: left and right chains are mirror images, one chain hangs down the middle.
 * Sector 1 is the one holding the densest angle; the others follow in the seed's turning
 * direction. */
#include <string.h>

#include "plan_internal.h"

#define K TRESS__PLAN_BINS
#define SMOOTH_HALF_WIDTH 4     /* triangular window, ~9 degrees: the scale of a strand group */
#define SYMMETRIC_SCORE 0.65f   /* a density this close to its mirror image is treated as symmetric */
#define SLIDE_PENALTY 0.02f     /* per bin of slide, as a fraction of the mean density */

static void smooth(const float *in, float *out) {
  for (int i = 0; i < K; i++) {
    float s = 0.0f;
    for (int j = -SMOOTH_HALF_WIDTH; j <= SMOOTH_HALF_WIDTH; j++)
      s += (float)(SMOOTH_HALF_WIDTH + 1 - (j < 0 ? -j : j)) * in[(i + j + K) % K];
    out[i] = s;
  }
}

/* 1 - L1 distance between h and its mirror about the plane (m + 1) / 2 bins, over twice h's L1
 * distance from its mean: the structure that is mirrored, not the constant part (a random,
 * nearly even density is not symmetric, it is featureless). deviation = sum |h - mean|. */
static float mirror_score(const float *h, int bins, int m, float deviation) {
  if (!(deviation > 0.0f)) return 1.0f;
  /* i <= m pairs with m - i, i > m with m - i + bins: two straight loops the compiler vectorizes. */
  float part[8] = {0}; /* independent sums: one float add chain would be latency-bound */
  for (int i = 0; i <= m; i++) part[i & 7] += fabsf(h[i] - h[m - i]);
  for (int i = m + 1; i < bins; i++) part[i & 7] += fabsf(h[i] - h[m - i + bins]);
  float diff = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  return 1.0f - diff / (2.0f * deviation);
}

static float deviation(const float *h, int bins) {
  float mean = 0.0f, dev = 0.0f;
  for (int i = 0; i < bins; i++) mean += h[i];
  mean /= (float)bins;
  for (int i = 0; i < bins; i++) dev += fabsf(h[i] - mean);
  return dev;
}

static float both_scores(const float *d, const float *e, int bins, int m, float dt, float et) {
  float a = mirror_score(d, bins, m, dt), b = mirror_score(e, bins, m, et);
  return a < b ? a : b;
}

/* The best mirror plane, every half bin: a coarse search would not turn with the mesh. */
/* Returns the plane in bins: a search over 5-degree bins (72 x 72 pairs, not 360 x 360: this is
 * most of a small mesh's plan), refined over the half-bin planes within 2.5 degrees of the coarse
 * winner, then between half-bin candidates by a parabola through the best score and its
 * neighbours, so the plane turns smoothly with the mesh instead of in half-bin jumps (a jump
 * moves a boundary across a column of vertices lying on the plane). 5-degree bins keep the
 * coarse search exact for turns in 5-degree steps. */
#define COARSE 5
static float best_mirror(const float *d, const float *e, float *score) {
  float cd[K / COARSE] = {0}, ce[K / COARSE] = {0};
  for (int i = 0; i < K; i++) {
    cd[i / COARSE] += d[i];
    ce[i / COARSE] += e[i];
  }
  float cdt = deviation(cd, K / COARSE), cet = deviation(ce, K / COARSE), best = -INFINITY;
  int coarse = 0;
  for (int m = 0; m < K / COARSE; m++) {
    float s = both_scores(cd, ce, K / COARSE, m, cdt, cet);
    if (s > best) { best = s; coarse = m; }
  }
  /* Coarse plane (m + 1) / 2 coarse bins is fine plane (fine + 1) / 2 with fine = 5 m + 4. */
  float dt = deviation(d, K), et = deviation(e, K), scores[2 * COARSE + 3];
  int centre = COARSE * coarse + COARSE - 1, reach = COARSE + 1, winner = 0;
  best = -INFINITY;
  for (int j = -reach; j <= reach; j++) {
    int m = ((centre + j) % K + K) % K;
    scores[j + reach] = both_scores(d, e, K, m, dt, et);
    if (j > -reach && j < reach && scores[j + reach] > best) { best = scores[j + reach]; winner = j; }
  }
  *score = best;
  float lo = scores[winner + reach - 1], hi = scores[winner + reach + 1], curve = lo - 2.0f * best + hi;
  float shift = curve < 0.0f ? 0.5f * (lo - hi) / curve : 0.0f;
  shift = shift < -0.5f ? -0.5f : shift > 0.5f ? 0.5f : shift;
  return 0.5f * ((float)(centre + winner) + shift + 1.0f);
}

static int wrap_bin(int i) { return i < 0 ? i + K : i >= K ? i - K : i; }

static int bin_of(float p) {
  int i = (int)floorf(p) % K;
  return i < 0 ? i + K : i;
}

static float density_at(const float *d, float p) { return d[bin_of(p)]; }

/* Slides a boundary up to w bins from p toward lower density; returns the cost, sets *out. */
static float slide(const float *d, float p, int w, float pen, float *out) {
  int base = bin_of(p), best_step = 0;
  float best = d[base];
  for (int step = 1; step <= w; step++)
    for (int sign = -1; sign <= 1; sign += 2) {
      float c = d[wrap_bin(base + sign * step)] + pen * (float)step;
      if (c < best) { best = c; best_step = sign * step; }
    }
  *out = p + (float)best_step;
  return best;
}

/* slide() for a boundary and its mirror image about a together: the cost counts both sides, so
 * which of the two is slid does not matter (it changes when the plane wraps past 180 degrees). */
static float slide_pair(const float *d, float p, float a, int w, float pen, float *out) {
  float best = density_at(d, p) + density_at(d, 2.0f * a - p);
  *out = p;
  for (int step = 1; step <= w; step++)
    for (int sign = -1; sign <= 1; sign += 2) {
      float q = p + (float)(sign * step);
      float c = density_at(d, q) + density_at(d, 2.0f * a - q) + 2.0f * pen * (float)step;
      if (c < best) { best = c; *out = q; }
    }
  return best;
}

static float free_grid(const float *d, uint32_t S, float pen, float *pos) {
  float g = (float)K / (float)S, best = INFINITY;
  int w = (int)(0.25f * g), offsets = (int)ceilf(g);
  float trial[TRESS_PLAN_MAX_SECTORS];
  for (int o = 0; o < offsets; o++) {
    float cost = 0.0f;
    for (uint32_t k = 0; k < S; k++) cost += slide(d, (float)o + (float)k * g, w, pen, &trial[k]);
    if (cost < best) { best = cost; memcpy(pos, trial, sizeof(float) * S); }
  }
  return best;
}

/* Boundaries in mirrored pairs about plane a (bins); half = 0: a boundary on the plane, 0.5: a
 * sector centred on it. A boundary that is its own mirror image stays where it is. */
static float mirrored_grid(const float *d, uint32_t S, float pen, float a, float half, float *pos) {
  float g = (float)K / (float)S, cost = 0.0f;
  int w = (int)(0.25f * g);
  for (uint32_t k = 0; k < S; k++) {
    uint32_t twin = half == 0.0f ? (S - k) % S : S - 1 - k;
    float p = a + ((float)k + half) * g;
    if (twin == k) {
      pos[k] = p;
      cost += density_at(d, p);
    } else if (k < twin) {
      cost += slide_pair(d, p, a, w, pen, &pos[k]);
      pos[twin] = 2.0f * a - pos[k];
    }
  }
  return cost;
}

static float wrap_angle(float bins) {
  float r = fmodf(bins, (float)K);
  if (r < 0.0f) r += (float)K;
  return r * (float)(6.28318530717958647692 / K);
}

static void sort_floats(float *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
      float t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
    }
}

void tress__plan_choose_sectors(const float *counts, const float *depth_sums, uint32_t S, tress__plan_sectors *out) {
  memset(out, 0, sizeof *out);
  out->count = S;
  float d[K], e[K], dt = 0.0f, dmin = INFINITY;
  smooth(counts, d);
  smooth(depth_sums, e);
  int peak = 0;
  for (int i = 0; i < K; i++) {
    dt += d[i];
    if (d[i] < dmin) dmin = d[i];
    if (d[i] > d[peak]) peak = i;
  }
  float mean = dt / (float)K;
  out->uniformity = mean > 0.0f ? dmin / mean : 1.0f;
  float plane = best_mirror(d, e, &out->mirror_score);
  out->symmetric = out->mirror_score >= SYMMETRIC_SCORE;
  out->mirror_angle = wrap_angle(plane);
  float peak_angle = wrap_angle((float)peak + 0.5f);
  if (S == 1) {
    out->label_by_rank[0] = 0;
    out->reference_angle = out->symmetric ? out->mirror_angle : peak_angle;
    return;
  }
  float pos[TRESS_PLAN_MAX_SECTORS], pen = SLIDE_PENALTY * mean;
  if (out->symmetric) {
    float alt[TRESS_PLAN_MAX_SECTORS];
    float on_plane = mirrored_grid(d, S, pen, plane, 0.0f, pos);
    float centred = mirrored_grid(d, S, pen, plane, 0.5f, alt);
    if (centred < on_plane) memcpy(pos, alt, sizeof(float) * S);
  } else {
    free_grid(d, S, pen, pos);
  }
  for (uint32_t k = 0; k < S; k++) out->bounds[k] = wrap_angle(pos[k]);
  sort_floats(out->bounds, S);
  /* Raw sector j spans [bounds[j], bounds[j + 1]); raw S - 1 wraps past 2 pi. A vertex with r
   * boundaries at or below its angle is in raw sector (r + S - 1) % S. */
  uint32_t rank = 0;
  while (rank < S && out->bounds[rank] <= peak_angle) rank++;
  uint32_t first = (rank + S - 1) % S;
  for (uint32_t r = 0; r <= S; r++) out->label_by_rank[r] = (uint8_t)(((r + S - 1) % S + S - first) % S);
  float start = out->bounds[first], end = first + 1 < S ? out->bounds[first + 1] : out->bounds[0] + 6.28318530717958647692f;
  out->reference_angle = fmodf(0.5f * (start + end), 6.28318530717958647692f);
}
