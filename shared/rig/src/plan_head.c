/* plan_head.c - the head under the hair, found from the hair alone.
 *
 * Nothing in a hair mesh says where the head is, but the hair's innermost layer near the root
 * lies on it: per (depth slice, wedge) the vertex closest to the axis traces the skull. A sphere
 * is fitted to those points by least squares, using the top k slices for the
 * largest k the sphere still fits closely: below the head the strands hang straight or flare,
 * and the fit breaks there. The radial spread tells hanging strands (thin layers) from a filled
 * volume (an afro). */
#include <float.h>
#include <string.h>

#include "plan_internal.h"

#define S TRESS__PLAN_SLICES
#define W TRESS__PLAN_WEDGES
#define FIT_RMS 0.04f /* of the radius: how closely the skull points must lie on the sphere */

void tress__plan_envelope_init(tress__plan_envelope *e) {
  memset(e, 0, sizeof *e);
  for (int c = 0; c < S * W; c++) e->min_r2[c] = FLT_MAX;
}

/* Solves the 4 x 4 system m x = r in place (Gaussian elimination, partial pivoting). */
static bool solve4(double m[4][4], double r[4], double x[4]) {
  for (int c = 0; c < 4; c++) {
    int piv = c;
    for (int i = c + 1; i < 4; i++) if (fabs(m[i][c]) > fabs(m[piv][c])) piv = i;
    if (!(fabs(m[piv][c]) > 1e-12)) return false;
    for (int k = 0; k < 4; k++) { double t = m[c][k]; m[c][k] = m[piv][k]; m[piv][k] = t; }
    double t = r[c]; r[c] = r[piv]; r[piv] = t;
    for (int i = c + 1; i < 4; i++) {
      double f = m[i][c] / m[c][c];
      for (int k = c; k < 4; k++) m[i][k] -= f * m[c][k];
      r[i] -= f * r[c];
    }
  }
  for (int c = 3; c >= 0; c--) {
    double s = r[c];
    for (int k = c + 1; k < 4; k++) s -= m[c][k] * x[k];
    x[c] = s / m[c][c];
  }
  return true;
}

/* Least-squares terms of one slice: |p|^2 = 2 c.p + (R^2 - |c|^2) is linear in c and the constant. */
typedef struct normal_eq {
  double m[4][4], r[4], yy, n;
  unsigned wedges;
} normal_eq;

static void add_slice(const tress__plan_envelope *e, int s, normal_eq *q) {
  for (int o = 0; o < W; o++) {
    int c = s * W + o;
    if (e->min_r2[c] == FLT_MAX) continue;
    double row[4] = {e->min_x[c], e->min_y[c], e->min_t[c], 1.0};
    double y = (double)e->min_r2[c] + row[2] * row[2];
    for (int i = 0; i < 4; i++) {
      for (int k = 0; k < 4; k++) q->m[i][k] += row[i] * row[k];
      q->r[i] += row[i] * y;
    }
    q->yy += y * y;
    q->n++;
    q->wedges |= 1u << o;
  }
}

/* The sphere through the points of slices [first, last): q holds their summed terms. */
static bool fit(const tress__plan_envelope *e, const normal_eq *q, int first, int last, float depth, tress__plan_head *h) {
  if (q->n < 8 || __builtin_popcount(q->wedges) < 18) return false;
  double m[4][4], r[4], sol[4];
  memcpy(m, q->m, sizeof m);
  memcpy(r, q->r, sizeof r);
  if (!solve4(m, r, sol)) return false;
  double cx = 0.5 * sol[0], cy = 0.5 * sol[1], ct = 0.5 * sol[2], r2 = sol[3] + cx * cx + cy * cy + ct * ct;
  if (!(ct > 0.0) || !(r2 > 0.0)) return false;
  double rad = sqrt(r2), rms = 0;
  if (ct - rad > 0.5 * depth || ct - rad < -0.1 * depth) return false; /* the sphere's top is near the root */
  if (cx * cx + cy * cy > 0.25 * r2) return false;                     /* and the axis passes through it */
  /* The algebraic residual |p|^2 - 2 c.p - k is about 2 R times the distance to the sphere, and its
   * sum of squares comes from the summed terms alone: a cheap first test before the exact one. */
  double sq = q->yy;
  for (int i = 0; i < 4; i++) {
    sq -= 2.0 * sol[i] * q->r[i];
    for (int k = 0; k < 4; k++) sq += sol[i] * q->m[i][k] * sol[k];
  }
  if (sqrt(fmax(sq, 0.0) / q->n) / (2.0 * rad) > 1.25 * FIT_RMS * rad) return false;
  for (int s = first; s < last; s++)
    for (int o = 0; o < W; o++) {
      int k = s * W + o;
      if (e->min_r2[k] == FLT_MAX) continue;
      double dx = e->min_x[k] - cx, dy = e->min_y[k] - cy, dt = e->min_t[k] - ct;
      double dist = sqrt(dx * dx + dy * dy + dt * dt) - rad;
      rms += dist * dist;
    }
  rms = sqrt(rms / q->n);
  if (rms > FIT_RMS * rad) return false;
  *h = (tress__plan_head){true, (float)cx, (float)cy, (float)ct, (float)rad};
  return true;
}

/* The longest run of slices, starting in the top half, that a sphere fits; the top slices may be
 * hair over the scalp (an afro's crown), the bottom ones strands below the head. Runs are sums of
 * per-slice terms, so each candidate costs one 4 x 4 solve. */
tress__plan_head tress__plan_fit_head(const tress__plan_envelope *e, float depth) {
  tress__plan_head head = {false, 0.0f, 0.0f, 0.0f, 0.0f};
  normal_eq slice[S];
  memset(slice, 0, sizeof slice);
  for (int s = 0; s < S; s++) add_slice(e, s, &slice[s]);
  for (int length = S; length >= 3; length--)
    for (int first = 0; first <= S / 2 && first + length <= S; first++) {
      normal_eq run;
      memset(&run, 0, sizeof run);
      for (int s = first; s < first + length; s++) {
        run.n += slice[s].n;
        run.wedges |= slice[s].wedges;
      }
      if (run.n < 8 || __builtin_popcount(run.wedges) < 18) continue; /* before summing the rest */
      for (int s = first; s < first + length; s++) {
        for (int i = 0; i < 4; i++) {
          for (int k = 0; k < 4; k++) run.m[i][k] += slice[s].m[i][k];
          run.r[i] += slice[s].r[i];
        }
        run.yy += slice[s].yy;
      }
      if (fit(e, &run, first, first + length, depth, &head)) return head;
    }
  return head;
}

float tress__plan_radial_spread(const tress__plan_envelope *e, float t_from, float depth) {
  double weight = 0, spread = 0;
  for (int s = 0; s < S; s++) {
    float centre = depth * ((float)s + 0.5f) / (float)S;
    if (centre < t_from) continue;
    for (int o = 0; o < W; o++) {
      int c = s * W + o;
      double n = e->n[c];
      if (n < 2) continue;
      double mean = e->sum_r[c] / n, var = e->sum_r2[c] / n - mean * mean;
      if (!(mean > 0.0)) continue;
      spread += n * sqrt(var > 0 ? var : 0) / mean;
      weight += n;
    }
  }
  return weight > 0 ? (float)(spread / weight) : 0.0f;
}
