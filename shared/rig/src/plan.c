/* plan.c - the sector x band skeleton (the seed's plan()).
 *
 * Two linear passes over the vertices and one allocation:
 *   1. depth pass: validate every coordinate and find the deepest vertex below the root plane
 *      (depth t = dot(v - root, axis)); this fixes the band height h = depth / segments;
 *   2. bind pass: per vertex pick its sector and band, write its weights, and add it to its
 *      (sector, band) centroid sum.
 * Bones are then placed at the centroids; empty bands are interpolated between the nearest
 * filled bands of the same sector (or continued along the axis past the last one), so every
 * chain has the same length.
 *
 * Why no atan2: a sector is chosen by a "diamond angle", a monotonic stand-in for the angle in
 * [0, 4) that costs one division, compared against the diamond angles of the sector boundaries.
 * The offset is first rotated by half a sector so sector 1 is centred on the reference direction.
 *
 * Weights follow the seed: primary = the vertex's own band bone; secondary = the neighbouring
 * band bone it leans toward (up when its band fraction is < 0.5, down otherwise) with weight
 * blend = |fraction - 0.5| * 0.8, primary 1 - blend. A band at the end of a chain has no
 * neighbour on that side and binds fully to its own bone. The primary is always >= 0.6, so the
 * pair is already sorted. Vertices at or above the root plane bind fully to HairRoot and are
 * left out of every centroid.
 */
#include "tress/plan.h"

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
  return o;
}

const char *tress_plan_status_name(tress_plan_status s) {
  switch (s) {
  case TRESS_PLAN_OK: return "ok";
  case TRESS_PLAN_ERR_EMPTY: return "the mesh has no vertices";
  case TRESS_PLAN_ERR_NOT_FINITE: return "a vertex has a NaN or infinite coordinate";
  case TRESS_PLAN_ERR_ABOVE_ROOT: return "every vertex is at or above the root plane";
  case TRESS_PLAN_ERR_OPTIONS:
    return "bad plan options: sectors and segments must be 1..64, axis and root finite, axis non-zero";
  case TRESS_PLAN_ERR_NO_ROOT: return "plan needs a root";
  case TRESS_PLAN_ERR_NO_MEMORY: return "out of memory";
  }
  return "unknown plan error";
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

/* Reference direction: +X made perpendicular to the axis, or +Z when the axis is close to X. */
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

static void place_bones(tress_plan_result *p, const double *sums, const float root[3], float band_height) {
  uint32_t S = p->sectors, B = p->segments;
  tress_plan_bone *root_bone = &p->bones[0];
  snprintf(root_bone->name, sizeof root_bone->name, "HairRoot");
  memcpy(root_bone->position, root, sizeof root_bone->position);
  root_bone->parent = -1;
  for (uint32_t s = 0; s < S; s++) {
    const double *cell = sums + 4 * (size_t)s * B;
    for (uint32_t b = 0; b < B; b++) {
      uint32_t index = 1 + s * B + b;
      tress_plan_bone *bone = &p->bones[index];
      snprintf(bone->name, sizeof bone->name, "Hair_S%u_B%u", s + 1, b + 1);
      bone->parent = b == 0 ? 0 : (int32_t)index - 1;
      if (cell[4 * b + 3] > 0.0) {
        for (int k = 0; k < 3; k++) bone->position[k] = (float)(cell[4 * b + k] / cell[4 * b + 3]);
        continue;
      }
      /* Empty band: interpolate along the sector between the nearest filled bands. */
      int32_t above = -1, below = -1;
      for (int32_t j = (int32_t)b - 1; j >= 0; j--) if (cell[4 * j + 3] > 0.0) { above = j; break; }
      for (uint32_t j = b + 1; j < B; j++) if (cell[4 * j + 3] > 0.0) { below = (int32_t)j; break; }
      float pa[3] = {0.0f, 0.0f, 0.0f}, pb[3] = {0.0f, 0.0f, 0.0f};
      if (above >= 0) for (int k = 0; k < 3; k++) pa[k] = (float)(cell[4 * above + k] / cell[4 * above + 3]);
      if (below >= 0) for (int k = 0; k < 3; k++) pb[k] = (float)(cell[4 * below + k] / cell[4 * below + 3]);
      if (above >= 0 && below >= 0) {
        float t = (float)((int32_t)b - above) / (float)(below - above);
        for (int k = 0; k < 3; k++) bone->position[k] = pa[k] + (pb[k] - pa[k]) * t;
      } else if (above >= 0) {
        float d = band_height * (float)((int32_t)b - above);
        for (int k = 0; k < 3; k++) bone->position[k] = pa[k] + p->axis[k] * d;
      } else if (below >= 0) {
        /* Between the root and the first filled band. */
        float t = ((float)b + 0.5f) / ((float)below + 0.5f);
        for (int k = 0; k < 3; k++) bone->position[k] = root[k] + (pb[k] - root[k]) * t;
      } else {
        /* A sector with no vertex at all hangs straight down the axis from the root. */
        float d = band_height * ((float)b + 0.5f);
        for (int k = 0; k < 3; k++) bone->position[k] = root[k] + p->axis[k] * d;
      }
    }
  }
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
  float axis[3] = {opts.axis[0] / axis_len, opts.axis[1] / axis_len, opts.axis[2] / axis_len};
  uint32_t max_inf = opts.max_influences < 1 ? 1 : opts.max_influences > 4 ? 4 : opts.max_influences;
  const float *root = opts.root;

  /* Pass 1: validate and find the depth. The finiteness test is folded into a sum so the loop
   * has no early exit and stays vectorizable; one NaN/inf poisons the sum. */
  float depth = 0.0f, poison = 0.0f;
  for (uint32_t i = 0; i < n; i++) {
    const float *v = vertices + 3 * (size_t)i;
    poison += (v[0] - v[0]) + (v[1] - v[1]) + (v[2] - v[2]);
    float t = (v[0] - root[0]) * axis[0] + (v[1] - root[1]) * axis[1] + (v[2] - root[2]) * axis[2];
    depth = t > depth ? t : depth;
  }
  if (poison != 0.0f) return TRESS_PLAN_ERR_NOT_FINITE;
  if (!(depth > 0.0f)) return TRESS_PLAN_ERR_ABOVE_ROOT;

  uint32_t S = opts.sectors, B = opts.segments, bone_count = 1 + S * B;
  size_t bones_bytes = bone_count * sizeof(tress_plan_bone);
  bones_bytes = (bones_bytes + 7) & ~(size_t)7;
  size_t sums_bytes = 4 * sizeof(double) * S * B;
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
  out->max_influences = max_inf;
  out->vertex_count = n;
  out->depth = depth;
  memcpy(out->axis, axis, sizeof out->axis);
  float u[3], w[3];
  reference_dirs(axis, u, w);
  memcpy(out->reference, u, sizeof out->reference);

  /* Rotate by half a sector so sector 0 is centred on u; boundaries k * 360/S for k = 1..S-1. */
  const float two_pi = 6.28318530717958647692f;
  float half = 0.5f * two_pi / (float)S, rc = cosf(half), rs = sinf(half);
  float bounds[TRESS_PLAN_MAX_SECTORS];
  for (uint32_t k = 1; k < S; k++) {
    float a = two_pi * (float)k / (float)S;
    bounds[k - 1] = diamond_angle(cosf(a), sinf(a));
  }
  float band_height = depth / (float)B, inv_h = (float)B / depth, blend_max = 0.8f;

  /* Pass 2: bind every vertex and accumulate band centroids. Branch-free on purpose: whether a
   * vertex leans up or down and where it sits around the axis are coin flips to a predictor. */
  const bool two = max_inf > 1;
  for (uint32_t i = 0; i < n; i++) {
    const float *v = vertices + 3 * (size_t)i;
    float d[3] = {v[0] - root[0], v[1] - root[1], v[2] - root[2]};
    float t = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
    bool below = t > 0.0f; /* at or above the root plane: HairRoot alone, no centroid */
    float x = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
    float y = d[0] * w[0] + d[1] * w[1] + d[2] * w[2];
    float pa = diamond_angle(x * rc - y * rs, x * rs + y * rc);
    uint32_t s = 0;
    for (uint32_t k = 0; k + 1 < S; k++) s += pa >= bounds[k];
    float bf = below ? t * inv_h : 0.0f;
    uint32_t b = (uint32_t)bf;
    b = b < B ? b : B - 1;
    float frac = bf - (float)b;
    frac = frac < 1.0f ? frac : 1.0f;
    uint32_t primary = 1 + s * B + b;
    double *cell = sums + 4 * (size_t)(s * B + b);
    double in = below ? 1.0 : 0.0;
    cell[0] += in * v[0]; cell[1] += in * v[1]; cell[2] += in * v[2]; cell[3] += in;

    bool up = frac < 0.5f;
    bool has_neighbour = up ? b > 0 : b + 1 < B;
    float blend = fabsf(frac - 0.5f) * blend_max;
    bool pair = below && two && has_neighbour && blend > 0.0f;
    uint16_t *joint = out->joints + max_inf * (size_t)i;
    float *weight = out->weights + max_inf * (size_t)i;
    joint[0] = (uint16_t)(below ? primary : 0);
    weight[0] = pair ? 1.0f - blend : 1.0f;
    if (two) {
      joint[1] = (uint16_t)(pair ? (up ? primary - 1 : primary + 1) : 0);
      weight[1] = pair ? blend : 0.0f;
    }
    out->influence_count[i] = (uint8_t)(pair ? 2 : 1);
  }
  place_bones(out, sums, root, band_height);
  return TRESS_PLAN_OK;
}

void tress_plan_result_free(tress_plan_result *p) {
  if (!p) return;
  free(p->block_);
  memset(p, 0, sizeof *p);
}
