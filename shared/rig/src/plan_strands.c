/* plan_strands.c - strand mode (beyond the seed): one chain per strand group, bones by arc length.
 *
 * Groups are runs of angle around the axis where the hair below the scalp is dense, separated by
 * gaps (bins under a fifth of the peak density): a ponytail, two braids, three locks. Each group's
 * centre line is the polyline through the centroids of its hair in thin depth slices, so a lock
 * that curves gets a chain that curves with it; bones sit at equal arc lengths along it and a
 * vertex's band comes from the arc length at its depth, not from its depth alone. */
#include <string.h>

#include "plan_internal.h"

#define K TRESS__PLAN_BINS
#define GAP 0.2f /* a bin under this fraction of the peak separates groups */

uint32_t tress__plan_strand_groups(const float *counts, uint32_t max_groups, uint8_t *group_of_bin) {
  float d[K], peak = 0.0f;
  for (int i = 0; i < K; i++) { /* the sector frame's smoothing: a group is ~9 degrees or more */
    float s = 0.0f;
    for (int j = -4; j <= 4; j++) s += (float)(5 - (j < 0 ? -j : j)) * counts[(i + j + K) % K];
    d[i] = s;
    peak = s > peak ? s : peak;
  }
  if (!(peak > 0.0f)) return 0;
  int start = -1; /* a gap bin to start from, so no run wraps */
  for (int i = 0; i < K && start < 0; i++) if (d[i] < GAP * peak) start = i;
  if (start < 0) return 0; /* no gap anywhere: no strand groups */
  uint32_t runs = 0;
  int run_of[K];
  float mass[K];
  for (int k = 0, in = 0; k < K; k++) {
    int i = (start + k) % K;
    bool dense = d[i] >= GAP * peak;
    if (dense && !in) mass[runs++] = 0.0f;
    in = dense;
    run_of[i] = dense ? (int)runs - 1 : -1;
    if (dense) mass[runs - 1] += d[i];
  }
  /* Keep the max_groups heaviest runs, renumbered heaviest first. */
  int rank_of_run[K];
  uint32_t kept = runs < max_groups ? runs : max_groups;
  for (uint32_t r = 0; r < runs; r++) {
    uint32_t heavier = 0;
    for (uint32_t q = 0; q < runs; q++) heavier += mass[q] > mass[r] || (mass[q] == mass[r] && q < r);
    rank_of_run[r] = heavier < kept ? (int)heavier : -1;
  }
  /* Gap bins (and dropped runs) go to the nearest kept group around the circle. */
  for (int i = 0; i < K; i++) {
    int best = -1;
    for (int off = 0; off <= K / 2 && best < 0; off++) {
      int a = run_of[(i + off) % K], b = run_of[(i - off + K) % K];
      if (a >= 0 && rank_of_run[a] >= 0) best = rank_of_run[a];
      else if (b >= 0 && rank_of_run[b] >= 0) best = rank_of_run[b];
    }
    group_of_bin[i] = (uint8_t)(best < 0 ? 0 : best);
  }
  return kept;
}

/* From per-(group, slice) centroid sums (x, y, z, count) of swinging hair: the arc length at
 * each slice (arc[g * slices + s], empty slices interpolated) and the group's bone positions. */
void tress__plan_strand_lines(const double *sums, uint32_t groups, uint32_t slices, uint32_t bands, float *arc,
                              float *total, float (*bones)[3], const float root[3]) {
  for (uint32_t g = 0; g < groups; g++) {
    float pts[TRESS__PLAN_STRAND_SLICES][3], len[TRESS__PLAN_STRAND_SLICES];
    int idx[TRESS__PLAN_STRAND_SLICES], count = 0;
    for (uint32_t s = 0; s < slices; s++) {
      const double *c = sums + 4 * ((size_t)g * slices + s);
      if (!(c[3] > 0.0)) continue;
      for (int k = 0; k < 3; k++) pts[count][k] = (float)(c[k] / c[3]);
      idx[count++] = (int)s;
    }
    float *ga = arc + (size_t)g * slices;
    if (count == 0) {
      for (uint32_t s = 0; s < slices; s++) ga[s] = 0.0f;
      total[g] = 0.0f;
      for (uint32_t b = 0; b < bands; b++) memcpy(bones[g * bands + b], root, sizeof bones[0]);
      continue;
    }
    len[0] = 0.0f;
    for (int p = 1; p < count; p++) {
      float dx = pts[p][0] - pts[p - 1][0], dy = pts[p][1] - pts[p - 1][1], dz = pts[p][2] - pts[p - 1][2];
      len[p] = len[p - 1] + sqrtf(dx * dx + dy * dy + dz * dz);
    }
    for (uint32_t s = 0, p = 0; s < slices; s++) { /* arc at every slice, between filled ones */
      while (p + 1 < (uint32_t)count && idx[p + 1] <= (int)s) p++;
      if ((int)s <= idx[0]) ga[s] = 0.0f;
      else if (p + 1 >= (uint32_t)count) ga[s] = len[count - 1];
      else ga[s] = len[p] + (len[p + 1] - len[p]) * (float)((int)s - idx[p]) / (float)(idx[p + 1] - idx[p]);
    }
    float L = len[count - 1];
    total[g] = L;
    for (uint32_t b = 0; b < bands; b++) { /* bone b at arc L (b + 0.5) / bands */
      float want = L * ((float)b + 0.5f) / (float)bands, *q = bones[g * bands + b];
      int p = 0;
      while (p + 1 < count && len[p + 1] < want) p++;
      if (p + 1 >= count || !(len[p + 1] > len[p])) { memcpy(q, pts[p], sizeof pts[p]); continue; }
      float t = (want - len[p]) / (len[p + 1] - len[p]);
      for (int k = 0; k < 3; k++) q[k] = pts[p][k] + (pts[p + 1][k] - pts[p][k]) * t;
    }
  }
}
