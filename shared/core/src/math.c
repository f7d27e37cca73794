/* math.c - the non-inline transform helpers. */
#include "tress/math.h"

#include <math.h>

void tress_quat_from_to(const float a[3], const float b[3], float r[4]) {
  float la = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  float lb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  if (!(la > 1e-12f) || !(lb > 1e-12f)) {
    r[0] = r[1] = r[2] = 0.0f; r[3] = 1.0f;
    return;
  }
  float d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  float w = la * lb + d;
  if (w < 1e-6f * la * lb) {
    /* Opposite directions: any axis perpendicular to a. */
    float ax[3];
    if (fabsf(a[0]) > fabsf(a[2])) { ax[0] = -a[1]; ax[1] = a[0]; ax[2] = 0.0f; }
    else { ax[0] = 0.0f; ax[1] = -a[2]; ax[2] = a[1]; }
    r[0] = ax[0]; r[1] = ax[1]; r[2] = ax[2]; r[3] = 0.0f;
  } else {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
    r[3] = w;
  }
  tress_quat_normalize(r);
}

float tress_xform_distance(tress_xform a, tress_xform b) {
  float m = 0.0f;
  for (int i = 0; i < 3; i++) m = fmaxf(m, fabsf(a.p[i] - b.p[i]));
  float s = (a.q[0] * b.q[0] + a.q[1] * b.q[1] + a.q[2] * b.q[2] + a.q[3] * b.q[3]) < 0.0f ? -1.0f : 1.0f;
  for (int i = 0; i < 4; i++) m = fmaxf(m, fabsf(a.q[i] - s * b.q[i]));
  return m;
}

void tress_xform_to_mat4(tress_xform a, float m[16]) {
  float x = a.q[0], y = a.q[1], z = a.q[2], w = a.q[3];
  m[0] = 1 - 2 * (y * y + z * z); m[1] = 2 * (x * y + z * w);     m[2] = 2 * (x * z - y * w);     m[3] = 0;
  m[4] = 2 * (x * y - z * w);     m[5] = 1 - 2 * (x * x + z * z); m[6] = 2 * (y * z + x * w);     m[7] = 0;
  m[8] = 2 * (x * z + y * w);     m[9] = 2 * (y * z - x * w);     m[10] = 1 - 2 * (x * x + y * y); m[11] = 0;
  m[12] = a.p[0]; m[13] = a.p[1]; m[14] = a.p[2]; m[15] = 1;
}

tress_xform tress_xform_from_axis_angle(const float axis[3], float radians) {
  tress_xform t = tress_xform_identity();
  float l = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (l < 1e-12f) return t;
  float s = sinf(0.5f * radians) / l;
  t.q[0] = axis[0] * s; t.q[1] = axis[1] * s; t.q[2] = axis[2] * s; t.q[3] = cosf(0.5f * radians);
  return t;
}
