/* simd.h - the solver's portable vector code: one small set of GCC/Clang vector-extension types
 * and helpers that compile to SSE/AVX2/AVX-512 on x86-64 and to NEON on AArch64, and to scalar
 * code on anything else (the compiler lowers a generic vector to its elements). Internal to sim.
 *
 * Bit-identical across CPUs (issue 19 item 4): every helper here is an exact IEEE operation
 * (add, sub, mul, div, sqrt, compares, lane moves), never an approximate one (no rsqrt/rcp
 * estimates), and the build compiles with -ffp-contract=off so neither ISA fuses a multiply and
 * an add. The scalar-form hot loops (HOT_LOOP in chains_internal.h, TRESS_HOT_CLONES in
 * particles.h) obey the same rules: the vectorizer never reorders a float reduction without
 * -ffast-math, so each lane computes the scalar order's bits at any width.
 *
 * Dispatch: x86-64 builds those loops as target clones (AVX-512, AVX2, baseline) picked at load
 * time; AArch64 has NEON in its baseline, so it needs no clones (bench/bench_env.c names what a
 * CPU runs by the same rule).
 */
#ifndef TRESS_SIMD_H
#define TRESS_SIMD_H

#include <stdbool.h>
#include <stdint.h>

#if !defined(__GNUC__)
#error "tress's solver needs GCC or Clang vector extensions"
#endif

/* Four floats: one SSE or NEON register. Loads and stores through the unaligned, aliasing type
 * read any float pointer. */
typedef float tress_f32x4 __attribute__((vector_size(16)));
typedef int32_t tress_i32x4 __attribute__((vector_size(16)));
typedef float tress_f32x4_unaligned __attribute__((vector_size(16), aligned(4), may_alias));

static inline tress_f32x4 tress_f32x4_load(const float *p) { return *(const tress_f32x4_unaligned *)p; }
static inline void tress_f32x4_store(float *p, tress_f32x4 v) { *(tress_f32x4_unaligned *)p = v; }

/* Lane shuffle of two vectors by constant indices (0-3 a, 4-7 b). */
#if defined(__clang__) || __GNUC__ >= 12
#define TRESS_SHUFFLE4(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
#define TRESS_SHUFFLE4(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (tress_i32x4){i0, i1, i2, i3})
#endif

/* The 4x4 transpose: r[i][j] becomes r[j][i]. Two rounds of interleaves, which are unpcklps /
 * unpckhps / movlhps / movhlps on x86 and zip1 / zip2 on NEON. */
static inline void tress_f32x4_transpose(tress_f32x4 r[4]) {
  tress_f32x4 t0 = TRESS_SHUFFLE4(r[0], r[1], 0, 4, 1, 5), t1 = TRESS_SHUFFLE4(r[0], r[1], 2, 6, 3, 7);
  tress_f32x4 t2 = TRESS_SHUFFLE4(r[2], r[3], 0, 4, 1, 5), t3 = TRESS_SHUFFLE4(r[2], r[3], 2, 6, 3, 7);
  r[0] = TRESS_SHUFFLE4(t0, t2, 0, 1, 4, 5);
  r[1] = TRESS_SHUFFLE4(t0, t2, 2, 3, 6, 7);
  r[2] = TRESS_SHUFFLE4(t1, t3, 0, 1, 4, 5);
  r[3] = TRESS_SHUFFLE4(t1, t3, 2, 3, 6, 7);
}

/* Eight floats: one AVX register (two SSE or NEON registers, which the compiler pairs). Its
 * helpers are macros or take pointers: a 32-byte vector passed or returned by value would have
 * a different ABI in the baseline and AVX clones (GCC's -Wpsabi). */
typedef float tress_f32x8 __attribute__((vector_size(32)));
typedef int32_t tress_i32x8 __attribute__((vector_size(32)));
typedef float tress_f32x8_unaligned __attribute__((vector_size(32), aligned(4), may_alias));

#define TRESS_F32X8_LOAD(p) (*(const tress_f32x8_unaligned *)(p))
#define TRESS_F32X8_STORE(p, v) (*(tress_f32x8_unaligned *)(p) = (v))

#if defined(__clang__) || __GNUC__ >= 12
#define TRESS_SHUFFLE8(a, b, i0, i1, i2, i3, i4, i5, i6, i7) \
  __builtin_shufflevector((a), (b), i0, i1, i2, i3, i4, i5, i6, i7)
#else
#define TRESS_SHUFFLE8(a, b, i0, i1, i2, i3, i4, i5, i6, i7) \
  __builtin_shuffle((a), (b), (tress_i32x8){i0, i1, i2, i3, i4, i5, i6, i7})
#endif

/* The 8x8 transpose, its own inverse: interleaves within each 128-bit half, then pairs of them,
 * then the halves (unpck / shufps / vperm2f128 on AVX; zips on NEON). */
static inline void tress_f32x8_transpose(tress_f32x8 r[8]) {
  tress_f32x8 t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = TRESS_SHUFFLE8(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = TRESS_SHUFFLE8(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = TRESS_SHUFFLE8(t[k], t[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[k + 1] = TRESS_SHUFFLE8(t[k], t[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[k + 2] = TRESS_SHUFFLE8(t[k + 1], t[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[k + 3] = TRESS_SHUFFLE8(t[k + 1], t[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int k = 0; k < 4; k++) {
    r[k] = TRESS_SHUFFLE8(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[k + 4] = TRESS_SHUFFLE8(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/* as tress_f32x4_nonfinite_bits and tress_i32x4_any, eight lanes */
#define TRESS_F32X8_NONFINITE_BITS(v) ((tress_i32x8)((v) - (v)))
static inline bool tress_i32x8_any(const tress_i32x8 *bits) {
  const tress_i32x8 b = *bits;
  return (b[0] | b[1] | b[2] | b[3] | b[4] | b[5] | b[6] | b[7]) != 0;
}

/* (v - v) is +0 (all bits clear) for a finite v and NaN otherwise: OR-ing the bits of several
 * keeps any NaN, so one test at the end covers them all. */
static inline tress_i32x4 tress_f32x4_nonfinite_bits(tress_f32x4 v) { return (tress_i32x4)(v - v); }
static inline bool tress_i32x4_any(tress_i32x4 bits) { return (bits[0] | bits[1] | bits[2] | bits[3]) != 0; }

/* The hot scalar-form loops' dispatch: target clones where the toolchain builds them (GCC on
 * x86-64 Linux: ifunc), the baseline ISA elsewhere (NEON on AArch64). */
#if defined(__x86_64__) && !defined(__clang__) && defined(__linux__)
#define TRESS_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TRESS_VECTOR_CLONES
#endif

#endif
