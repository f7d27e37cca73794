/* bench/bench_env.h - what every bench prints about where it ran, and the yardsticks its figures
 * are divided by (issue 19 item 5: absolute times differ from CPU to CPU, ratios taken in one run
 * travel):
 *   - the CPU model, the vector ISA the library's hot loops were compiled for and the one picked
 *     on this CPU, the core count and the load average (a loaded machine inflates every figure);
 *   - the solver yardstick (limit.c, the pose algorithm over flat arrays with no scene: see its
 *     README), found in $TRESS_LIMIT_DIR, /work/shared/tools/limit or ../shared/tools/limit beside
 *     the source tree, built here as its Makefile builds limit_nme and run in the same invocation;
 *   - three-vrm's spring bones (bench/threevrm.mjs on node), per joint, where node and the
 *     package are installed ($TRESS_THREE_VRM_MODULES, or the conformance test's install in the
 *     build tree).
 * Every function prints or measures; none of them asserts anything. */
#ifndef TRESS_BENCH_ENV_H
#define TRESS_BENCH_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CPU, vector ISA (compiled / in use), cores and load average, as "# " comment lines. */
void bench_env_print(FILE *out, const char *bench);

/* The solver yardstick: located and built once (a missing one says why in `note`). */
typedef struct bench_yardstick {
  bool ready;
  char exe[1024];
  char note[2400];
} bench_yardstick;

void bench_yardstick_prepare(bench_yardstick *y);
/* One size: the fastest of the yardstick's variants tried (bench_env.c: $TRESS_LIMIT_VARIANTS), ns per node per 60 Hz frame (its
 * FK, one substep and output), and which variant it was. False when it could not run. */
bool bench_yardstick_frame_ns(const bench_yardstick *y, uint32_t chains, uint32_t depth, uint32_t spheres,
                              double *frame_ns, char *variant, size_t variant_cap);

/* For benches whose figures are not the solver's frame: the yardstick built and run now at
 * 1000 x 10 (variant "soa" alone, a few seconds), printed as a "# " line that says to divide an
 * absolute figure by it, or why it is missing. TRESS_NO_YARDSTICK=1 skips it. */
void bench_env_print_yardstick(FILE *out);

/* three-vrm's VRMSpringBoneManager.update on `chains` chains of `joints` joints, ns per joint per
 * frame over `frames` frames after `warmup` (bench/threevrm.mjs): the median frame, or with `best`
 * the fastest (set it against a fastest-frame figure). False (and why, in note) when node or the
 * package is missing or the run failed. */
bool bench_three_vrm_joint_ns(uint32_t chains, uint32_t joints, uint32_t frames, uint32_t warmup, bool best, double *ns,
                              char *note, size_t note_cap);

#endif
