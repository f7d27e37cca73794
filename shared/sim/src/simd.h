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
