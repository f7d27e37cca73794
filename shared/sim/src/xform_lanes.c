/* xform_lanes.c - tress_xform slots to and from component arrays, eight at a time in portable
 * vector code (simd.h: AVX on x86-64 with it, SSE or NEON register pairs elsewhere), with the finite check on the values in
 * registers (no second pass over the arrays). */
#include "xform_lanes.h"

#include <stddef.h>

#include "simd.h"

/* The wide path moves a slot as one 8-float row: p0 p1 p2 pad q0 q1 q2 q3. */
_Static_assert(sizeof(tress_xform) == 8 * sizeof(float), "tress_xform is one 32-byte row");
_Static_assert(offsetof(tress_xform, q) == 4 * sizeof(float), "rotation starts at the fifth float");

/* (v - v) is +0 for a finite v and NaN otherwise; OR-ing the bits keeps any NaN. */
static inline int not_finite(float v) { return (v - v) != 0.0f; }

/* Slot j of a run: a read takes entry index[j] (0 too: the array's own identity), a write
 * stores to it, or to `none` for index 0. */
static inline const tress_xform *read_at(tress_xform_slots s, uint32_t j) { return s.array + s.index[j]; }
static inline tress_xform *write_at(tress_xform_slots s, uint32_t j) {
  uint32_t i = s.index[j];
  return i ? s.array + i : s.none;
}

static bool read_scalar(tress_xform_slots in, uint32_t lo, uint32_t count, float *const comp[7]) {
  int bad = 0;
  for (uint32_t j = lo; j < count; j++) {
    const tress_xform *a = read_at(in, j);
    comp[0][j] = a->p[0]; comp[1][j] = a->p[1]; comp[2][j] = a->p[2];
    comp[3][j] = a->q[0]; comp[4][j] = a->q[1]; comp[5][j] = a->q[2]; comp[6][j] = a->q[3];
    for (int k = 0; k < 7; k++) bad |= not_finite(comp[k][j]);
  }
  return !bad;
}

static bool write_scalar(tress_xform_slots out, uint32_t lo, uint32_t count, const float *const comp[7]) {
  for (uint32_t j = lo; j < count; j++) {
    int bad = 0;
    for (int k = 0; k < 7; k++) bad |= not_finite(comp[k][j]);
    if (bad) return false;
    tress_xform *o = write_at(out, j);
    o->p[0] = comp[0][j]; o->p[1] = comp[1][j]; o->p[2] = comp[2][j];
    o->q[0] = comp[3][j]; o->q[1] = comp[4][j]; o->q[2] = comp[5][j]; o->q[3] = comp[6][j];
  }
  return true;
}

#define AHEAD 16 /* slots fetched ahead of the copy */

/* Every target with vector registers (SSE2 is x86-64's baseline, NEON AArch64's) runs the
 * eight-wide copies; elsewhere the compiler lowers them to scalar code, which is still right. */
bool tress__xform_lanes_wide(void) { return true; }

/* Eight slots: each is one 8-float row, and one 8x8 transpose turns eight rows into eight lanes
 * of each component; the lanes' non-finite bits are OR-ed into bad. */
static inline __attribute__((always_inline)) void read_eight(tress_xform_slots slots, uint32_t j0, float *c0, float *c1,
                                                            float *c2, float *c3, float *c4, float *c5, float *c6,
                                                            tress_i32x8 *bad) {
  tress_f32x8 r[8];
  for (int k = 0; k < 8; k++) r[k] = TRESS_F32X8_LOAD((const float *)read_at(slots, j0 + (uint32_t)k));
  tress_f32x8_transpose(r);
  TRESS_F32X8_STORE(c0, r[0]); TRESS_F32X8_STORE(c1, r[1]); TRESS_F32X8_STORE(c2, r[2]); /* r[3]: the padding */
  TRESS_F32X8_STORE(c3, r[4]); TRESS_F32X8_STORE(c4, r[5]); TRESS_F32X8_STORE(c5, r[6]); TRESS_F32X8_STORE(c6, r[7]);
  *bad |= TRESS_F32X8_NONFINITE_BITS(r[0]) | TRESS_F32X8_NONFINITE_BITS(r[1]) | TRESS_F32X8_NONFINITE_BITS(r[2]) |
         TRESS_F32X8_NONFINITE_BITS(r[4]) | TRESS_F32X8_NONFINITE_BITS(r[5]) | TRESS_F32X8_NONFINITE_BITS(r[6]) |
         TRESS_F32X8_NONFINITE_BITS(r[7]);
}

/* Eight lanes of each component back into eight slots; false, writing nothing, when one of the
 * values is not finite. */
static inline __attribute__((always_inline)) bool write_eight(tress_xform_slots slots, uint32_t j0, const float *c0,
                                                             const float *c1, const float *c2, const float *c3,
                                                             const float *c4, const float *c5, const float *c6) {
  tress_f32x8 r[8] = {TRESS_F32X8_LOAD(c0), TRESS_F32X8_LOAD(c1), TRESS_F32X8_LOAD(c2), {0.0f},
                      TRESS_F32X8_LOAD(c3), TRESS_F32X8_LOAD(c4), TRESS_F32X8_LOAD(c5), TRESS_F32X8_LOAD(c6)};
  tress_i32x8 bad = TRESS_F32X8_NONFINITE_BITS(r[0]) | TRESS_F32X8_NONFINITE_BITS(r[1]) |
                    TRESS_F32X8_NONFINITE_BITS(r[2]) | TRESS_F32X8_NONFINITE_BITS(r[4]) |
                    TRESS_F32X8_NONFINITE_BITS(r[5]) | TRESS_F32X8_NONFINITE_BITS(r[6]) | TRESS_F32X8_NONFINITE_BITS(r[7]);
  if (tress_i32x8_any(&bad)) return false;
  tress_f32x8_transpose(r);
  /* a group of eight nodes that are all written (the usual case) needs no select per slot */
  uint32_t least = slots.index[j0];
  for (uint32_t k = 1; k < 8; k++) least = slots.index[j0 + k] < least ? slots.index[j0 + k] : least;
  if (least)
    for (uint32_t k = 0; k < 8; k++) TRESS_F32X8_STORE((float *)(slots.array + slots.index[j0 + k]), r[k]);
  else
    for (uint32_t k = 0; k < 8; k++) TRESS_F32X8_STORE((float *)write_at(slots, j0 + k), r[k]);
  return true;
}

/* The whole-group copies, built as simd.h's clones: the AVX2 and AVX-512 ones use three-operand
 * shuffles (no register copies). */
TRESS_VECTOR_CLONES static bool read_wide(tress_xform_slots slots, uint32_t count, float *const comp[7]) {
  uint32_t whole = count & ~7u;
  /* the seven destinations in registers: the stores cannot alias the pointer array */
  float *restrict c0 = comp[0], *restrict c1 = comp[1], *restrict c2 = comp[2], *restrict c3 = comp[3];
  float *restrict c4 = comp[4], *restrict c5 = comp[5], *restrict c6 = comp[6];
  tress_i32x8 bad = {0};
  /* a level visits one bone per chain, so slots stride through the scene: fetch ahead, in a
   * first loop whose every look-ahead is inside the array (no per-slot bounds select) */
  uint32_t fetching = whole > AHEAD ? (whole - AHEAD) & ~7u : 0;
  uint32_t j = 0;
  for (; j < fetching; j += 8) {
    for (uint32_t k = 0; k < 8; k++) __builtin_prefetch(read_at(slots, j + k + AHEAD), 0, 0);
    read_eight(slots, j, c0 + j, c1 + j, c2 + j, c3 + j, c4 + j, c5 + j, c6 + j, &bad);
  }
  for (; j < whole; j += 8) read_eight(slots, j, c0 + j, c1 + j, c2 + j, c3 + j, c4 + j, c5 + j, c6 + j, &bad);
  bool tail = read_scalar(slots, whole, count, comp);
  return tail && !tress_i32x8_any(&bad);
}

TRESS_VECTOR_CLONES static bool write_wide(tress_xform_slots slots, uint32_t count, const float *const comp[7]) {
  uint32_t whole = count & ~7u;
  /* the seven sources in registers: the slot stores could otherwise alias the pointer array */
  const float *c0 = comp[0], *c1 = comp[1], *c2 = comp[2], *c3 = comp[3], *c4 = comp[4], *c5 = comp[5], *c6 = comp[6];
  /* a group with a value that is not finite is never written: the caller goes node by node */
  uint32_t fetching = whole > AHEAD ? (whole - AHEAD) & ~7u : 0;
  uint32_t j = 0;
  for (; j < fetching; j += 8) {
    /* index 0's entry is a harmless address to fetch: no select here */
    for (uint32_t k = 0; k < 8; k++) __builtin_prefetch(read_at(slots, j + k + AHEAD), 1, 0);
    if (!write_eight(slots, j, c0 + j, c1 + j, c2 + j, c3 + j, c4 + j, c5 + j, c6 + j)) return false;
  }
  for (; j < whole; j += 8)
    if (!write_eight(slots, j, c0 + j, c1 + j, c2 + j, c3 + j, c4 + j, c5 + j, c6 + j)) return false;
  return write_scalar(slots, whole, count, comp);
}

bool tress__xforms_read(tress_xform_slots slots, uint32_t count, float *const comp[7], bool wide) {
  return wide ? read_wide(slots, count, comp) : read_scalar(slots, 0, count, comp);
}

bool tress__xforms_write(tress_xform_slots slots, uint32_t count, const float *const comp[7], bool wide) {
  return wide ? write_wide(slots, count, comp) : write_scalar(slots, 0, count, comp);
}
