/* xform_lanes.c - tress_xform slots to and from component arrays, four at a time in portable
 * vector code (simd.h: SSE on x86-64, NEON on AArch64), with the finite check on the values in
 * registers (no second pass over the arrays). */
#include "xform_lanes.h"

#include <stddef.h>

#include "simd.h"

/* The wide path moves a slot as one 8-float row: p0 p1 p2 pad q0 q1 q2 q3. */
_Static_assert(sizeof(tress_xform) == 8 * sizeof(float), "tress_xform is one 32-byte row");
_Static_assert(offsetof(tress_xform, q) == 4 * sizeof(float), "rotation starts at the fifth float");

/* (v - v) is +0 for a finite v and NaN otherwise; OR-ing the bits keeps any NaN. */
static inline int not_finite(float v) { return (v - v) != 0.0f; }

static bool read_scalar(const tress_xform *const *slots, uint32_t lo, uint32_t count, float *const comp[7]) {
  int bad = 0;
  for (uint32_t j = lo; j < count; j++) {
    const tress_xform *a = slots[j];
    comp[0][j] = a->p[0]; comp[1][j] = a->p[1]; comp[2][j] = a->p[2];
    comp[3][j] = a->q[0]; comp[4][j] = a->q[1]; comp[5][j] = a->q[2]; comp[6][j] = a->q[3];
    for (int k = 0; k < 7; k++) bad |= not_finite(comp[k][j]);
  }
  return !bad;
}

static bool write_scalar(tress_xform *const *slots, uint32_t lo, uint32_t count, const float *const comp[7]) {
  for (uint32_t j = lo; j < count; j++) {
    int bad = 0;
    for (int k = 0; k < 7; k++) bad |= not_finite(comp[k][j]);
    if (bad) return false;
    tress_xform *o = slots[j];
    o->p[0] = comp[0][j]; o->p[1] = comp[1][j]; o->p[2] = comp[2][j];
    o->q[0] = comp[3][j]; o->q[1] = comp[4][j]; o->q[2] = comp[5][j]; o->q[3] = comp[6][j];
  }
  return true;
}

#define AHEAD 16 /* slots fetched ahead of the copy */

/* Every target with vector registers (SSE2 is x86-64's baseline, NEON AArch64's) runs the
 * four-wide copies; elsewhere the compiler lowers them to scalar code, which is still right. */
bool tress__xform_lanes_wide(void) { return true; }

/* Four slots at a time: each slot is two 4-float halves (p0 p1 p2 pad, q0 q1 q2 q3), and one
 * 4x4 transpose per half turns four slots into four lanes of each component. Built as simd.h's
 * clones: the AVX2 and AVX-512 ones use three-operand shuffles (no register copies). */
TRESS_VECTOR_CLONES static bool read_wide(const tress_xform *const *slots, uint32_t count, float *const comp[7]) {
  uint32_t whole = count & ~3u;
  /* the seven destinations in registers: the stores cannot alias the pointer array */
  float *restrict c0 = comp[0], *restrict c1 = comp[1], *restrict c2 = comp[2], *restrict c3 = comp[3];
  float *restrict c4 = comp[4], *restrict c5 = comp[5], *restrict c6 = comp[6];
  tress_i32x4 bad = {0, 0, 0, 0};
  for (uint32_t j = 0; j < whole; j += 4) {
    tress_f32x4 p[4], q[4];
    for (int k = 0; k < 4; k++) {
      /* a level visits one bone per chain, so slots stride through the scene: fetch ahead */
      __builtin_prefetch(slots[j + k + AHEAD < count ? j + k + AHEAD : j + k], 0, 0);
      const float *row = (const float *)slots[j + k];
      p[k] = tress_f32x4_load(row);
      q[k] = tress_f32x4_load(row + 4);
    }
    tress_f32x4_transpose(p);
    tress_f32x4_transpose(q);
    /* p[3] is the padding */
    bad |= tress_f32x4_nonfinite_bits(p[0]) | tress_f32x4_nonfinite_bits(p[1]) | tress_f32x4_nonfinite_bits(p[2]);
    bad |= tress_f32x4_nonfinite_bits(q[0]) | tress_f32x4_nonfinite_bits(q[1]) | tress_f32x4_nonfinite_bits(q[2]) |
           tress_f32x4_nonfinite_bits(q[3]);
    tress_f32x4_store(c0 + j, p[0]); tress_f32x4_store(c1 + j, p[1]); tress_f32x4_store(c2 + j, p[2]);
    tress_f32x4_store(c3 + j, q[0]); tress_f32x4_store(c4 + j, q[1]); tress_f32x4_store(c5 + j, q[2]);
    tress_f32x4_store(c6 + j, q[3]);
  }
  bool tail = read_scalar(slots, whole, count, comp);
  return tail && !tress_i32x4_any(bad);
}

TRESS_VECTOR_CLONES static bool write_wide(tress_xform *const *slots, uint32_t count, const float *const comp[7]) {
  uint32_t whole = count & ~3u;
  /* the seven sources in registers: the slot stores could otherwise alias the pointer array */
  const float *c0 = comp[0], *c1 = comp[1], *c2 = comp[2], *c3 = comp[3], *c4 = comp[4], *c5 = comp[5], *c6 = comp[6];
  for (uint32_t j = 0; j < whole; j += 4) {
    tress_f32x4 p[4] = {tress_f32x4_load(c0 + j), tress_f32x4_load(c1 + j), tress_f32x4_load(c2 + j),
                        {0.0f, 0.0f, 0.0f, 0.0f}};
    tress_f32x4 q[4] = {tress_f32x4_load(c3 + j), tress_f32x4_load(c4 + j), tress_f32x4_load(c5 + j),
                        tress_f32x4_load(c6 + j)};
    tress_i32x4 bad = tress_f32x4_nonfinite_bits(p[0]) | tress_f32x4_nonfinite_bits(p[1]) |
                      tress_f32x4_nonfinite_bits(p[2]) | tress_f32x4_nonfinite_bits(q[0]) |
                      tress_f32x4_nonfinite_bits(q[1]) | tress_f32x4_nonfinite_bits(q[2]) |
                      tress_f32x4_nonfinite_bits(q[3]);
    /* a group with a value that is not finite is never written: the caller goes node by node */
    if (tress_i32x4_any(bad)) return false;
    tress_f32x4_transpose(p);
    tress_f32x4_transpose(q);
    for (int k = 0; k < 4; k++) {
      __builtin_prefetch(slots[j + k + AHEAD < count ? j + k + AHEAD : j + k], 1, 0);
      float *row = (float *)slots[j + k];
      tress_f32x4_store(row, p[k]);
      tress_f32x4_store(row + 4, q[k]);
    }
  }
  return write_scalar(slots, whole, count, comp);
}

bool tress__xforms_read(const tress_xform *const *slots, uint32_t count, float *const comp[7], bool wide) {
  return wide ? read_wide(slots, count, comp) : read_scalar(slots, 0, count, comp);
}

bool tress__xforms_write(tress_xform *const *slots, uint32_t count, const float *const comp[7], bool wide) {
  return wide ? write_wide(slots, count, comp) : write_scalar(slots, 0, count, comp);
}
