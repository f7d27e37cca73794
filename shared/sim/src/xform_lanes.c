/* xform_lanes.c - tress_xform slots to and from component arrays, eight at a time with AVX2,
 * with the finite check on the values in registers (no second pass over the arrays). */
#include "xform_lanes.h"

#include <stddef.h>

/* The wide path stores a slot as one 8-float row: p0 p1 p2 pad q0 q1 q2 q3. */
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define WIDE __attribute__((target("avx2")))
#define AHEAD 16 /* slots fetched ahead of the copy */

bool tress__xform_lanes_wide(void) { return __builtin_cpu_supports("avx2"); }

/* The classic 8x8 transpose: unpack pairs, shuffle quads, swap 128-bit halves. */
WIDE static inline void transpose8(__m256 r[8]) {
  __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20); r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20); r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31); r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31); r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* The seven component rows' (v - v), OR-ed: zero bits unless some value is not finite. */
WIDE static inline __m256 nonfinite_bits(const __m256 *c0, const __m256 *c1) {
  __m256 a = _mm256_or_ps(_mm256_sub_ps(c0[0], c0[0]), _mm256_sub_ps(c0[1], c0[1]));
  __m256 b = _mm256_or_ps(_mm256_sub_ps(c0[2], c0[2]), _mm256_sub_ps(c1[0], c1[0]));
  __m256 d = _mm256_or_ps(_mm256_sub_ps(c1[1], c1[1]), _mm256_sub_ps(c1[2], c1[2]));
  return _mm256_or_ps(_mm256_or_ps(a, b), _mm256_or_ps(d, _mm256_sub_ps(c1[3], c1[3])));
}

WIDE static inline bool any_set(__m256 bits) {
  return _mm256_movemask_ps(_mm256_cmp_ps(bits, _mm256_setzero_ps(), _CMP_NEQ_UQ)) != 0;
}

WIDE static bool read_wide(const tress_xform *const *slots, uint32_t count, float *const comp[7]) {
  uint32_t whole = count & ~7u;
  __m256 bad = _mm256_setzero_ps();
  for (uint32_t j = 0; j < whole; j += 8) {
    __m256 r[8];
    for (int k = 0; k < 8; k++) {
      /* a level visits one bone per chain, so slots stride through the scene: fetch ahead */
      __builtin_prefetch(slots[j + k + AHEAD < count ? j + k + AHEAD : j + k], 0, 0);
      r[k] = _mm256_loadu_ps((const float *)slots[j + k]);
    }
    transpose8(r);
    /* row 3 is the padding */
    bad = _mm256_or_ps(bad, nonfinite_bits(r, r + 4));
    _mm256_storeu_ps(comp[0] + j, r[0]); _mm256_storeu_ps(comp[1] + j, r[1]); _mm256_storeu_ps(comp[2] + j, r[2]);
    _mm256_storeu_ps(comp[3] + j, r[4]); _mm256_storeu_ps(comp[4] + j, r[5]); _mm256_storeu_ps(comp[5] + j, r[6]);
    _mm256_storeu_ps(comp[6] + j, r[7]);
  }
  bool tail = read_scalar(slots, whole, count, comp);
  return tail && !any_set(bad);
}

WIDE static bool write_wide(tress_xform *const *slots, uint32_t count, const float *const comp[7]) {
  uint32_t whole = count & ~7u;
  for (uint32_t j = 0; j < whole; j += 8) {
    __m256 r[8] = {_mm256_loadu_ps(comp[0] + j), _mm256_loadu_ps(comp[1] + j), _mm256_loadu_ps(comp[2] + j),
                   _mm256_setzero_ps(),          _mm256_loadu_ps(comp[3] + j), _mm256_loadu_ps(comp[4] + j),
                   _mm256_loadu_ps(comp[5] + j), _mm256_loadu_ps(comp[6] + j)};
    /* a group with a value that is not finite is never written: the caller goes node by node */
    if (any_set(nonfinite_bits(r, r + 4))) return false;
    transpose8(r);
    for (int k = 0; k < 8; k++) {
      __builtin_prefetch(slots[j + k + AHEAD < count ? j + k + AHEAD : j + k], 1, 0);
      _mm256_storeu_ps((float *)slots[j + k], r[k]);
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

#else

bool tress__xform_lanes_wide(void) { return false; }

bool tress__xforms_read(const tress_xform *const *slots, uint32_t count, float *const comp[7], bool wide) {
  (void)wide;
  return read_scalar(slots, 0, count, comp);
}

bool tress__xforms_write(tress_xform *const *slots, uint32_t count, const float *const comp[7], bool wide) {
  (void)wide;
  return write_scalar(slots, 0, count, comp);
}

#endif
