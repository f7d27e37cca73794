/* tress/math.h - rigid transforms (position + unit quaternion) as plain float arrays.
 * A tress_xform is never a matrix: matrices appear only at the renderer edge. */
#ifndef TRESS_MATH_H
#define TRESS_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
#define TRESS_ALIGNAS(n) alignas(n)
#define TRESS_ALIGNOF(t) alignof(t)
#define TRESS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
extern "C" {
#else
#define TRESS_ALIGNAS(n) _Alignas(n)
#define TRESS_ALIGNOF(t) _Alignof(t)
#define TRESS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* 32 bytes, 16-aligned, q at offset 16: the solver's lanes move one xform as eight floats
 * (shared/sim/src/xform_lanes.c), so this layout is part of the ABI. */
typedef struct tress_xform {
  float p[3];                  /* position */
  TRESS_ALIGNAS(16) float q[4]; /* rotation, x y z w, unit length */
} tress_xform;

TRESS_STATIC_ASSERT(sizeof(tress_xform) == 32, "tress_xform is eight floats");
TRESS_STATIC_ASSERT(TRESS_ALIGNOF(tress_xform) == 16, "tress_xform is 16-byte aligned");
TRESS_STATIC_ASSERT(offsetof(tress_xform, q) == 16, "tress_xform.q starts at the second half");

static inline tress_xform tress_xform_identity(void) {
  tress_xform t = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
  return t;
}

static inline tress_xform tress_xform_from_pos(float x, float y, float z) {
  tress_xform t = {{x, y, z}, {0.0f, 0.0f, 0.0f, 1.0f}};
  return t;
}

/* Hamilton product r = a * b (apply b first, then a). */
static inline void tress_quat_mul(const float a[4], const float b[4], float r[4]) {
  float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  r[0] = x; r[1] = y; r[2] = z; r[3] = w;
}

/* r = q * v * q^-1 for a unit q. */
static inline void tress_quat_rotate(const float q[4], const float v[3], float r[3]) {
  float tx = 2.0f * (q[1] * v[2] - q[2] * v[1]);
  float ty = 2.0f * (q[2] * v[0] - q[0] * v[2]);
  float tz = 2.0f * (q[0] * v[1] - q[1] * v[0]);
  float x = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
  float y = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
  float z = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
  r[0] = x; r[1] = y; r[2] = z;
}

/* r = q^-1 * v * q for a unit q. */
static inline void tress_quat_rotate_inv(const float q[4], const float v[3], float r[3]) {
  float c[4] = {-q[0], -q[1], -q[2], q[3]};
  tress_quat_rotate(c, v, r);
}

static inline void tress_quat_normalize(float q[4]) {
  float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 1e-20f) {
    float s = 1.0f / n;
    q[0] *= s; q[1] *= s; q[2] *= s; q[3] *= s;
  } else {
    q[0] = q[1] = q[2] = 0.0f; q[3] = 1.0f;
  }
}

/* Shortest-arc rotation taking direction a to direction b (need not be unit). */
void tress_quat_from_to(const float a[3], const float b[3], float r[4]);

/* r = a * b: b expressed in a's frame, brought to a's parent frame. */
static inline tress_xform tress_xform_mul(tress_xform a, tress_xform b) {
  tress_xform r;
  tress_quat_rotate(a.q, b.p, r.p);
  r.p[0] += a.p[0]; r.p[1] += a.p[1]; r.p[2] += a.p[2];
  tress_quat_mul(a.q, b.q, r.q);
  return r;
}

static inline tress_xform tress_xform_inverse(tress_xform a) {
  tress_xform r;
  r.q[0] = -a.q[0]; r.q[1] = -a.q[1]; r.q[2] = -a.q[2]; r.q[3] = a.q[3];
  float np[3] = {-a.p[0], -a.p[1], -a.p[2]};
  tress_quat_rotate(r.q, np, r.p);
  return r;
}

/* inverse(a) * b without forming the inverse. */
static inline tress_xform tress_xform_inv_mul(tress_xform a, tress_xform b) {
  tress_xform r;
  float d[3] = {b.p[0] - a.p[0], b.p[1] - a.p[1], b.p[2] - a.p[2]};
  tress_quat_rotate_inv(a.q, d, r.p);
  float c[4] = {-a.q[0], -a.q[1], -a.q[2], a.q[3]};
  tress_quat_mul(c, b.q, r.q);
  return r;
}

static inline void tress_xform_point(tress_xform a, const float v[3], float r[3]) {
  tress_quat_rotate(a.q, v, r);
  r[0] += a.p[0]; r[1] += a.p[1]; r[2] += a.p[2];
}

/* Inline and branch-free: the solver asks once per chain per frame. (v - v) is +0 for a finite
 * v and NaN for an infinite or NaN one, and a sum with a NaN in it is NaN. */
static inline bool tress_vec3_is_finite(const float v[3]) {
  return (v[0] - v[0]) + (v[1] - v[1]) + (v[2] - v[2]) == 0.0f;
}
static inline bool tress_xform_is_finite(tress_xform a) {
  return (a.p[0] - a.p[0]) + (a.p[1] - a.p[1]) + (a.p[2] - a.p[2]) + (a.q[0] - a.q[0]) + (a.q[1] - a.q[1]) +
             (a.q[2] - a.q[2]) + (a.q[3] - a.q[3]) ==
         0.0f;
}
/* Largest absolute difference of positions and of (sign-aligned) quaternion parts. */
float tress_xform_distance(tress_xform a, tress_xform b);
/* Column-major 4x4 for renderers. */
void tress_xform_to_mat4(tress_xform a, float m[16]);
tress_xform tress_xform_from_axis_angle(const float axis[3], float radians);

#ifdef __cplusplus
}
#endif

#endif
