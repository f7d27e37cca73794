/* bench/bench_env.c - the machine a bench ran on, and its yardsticks (bench_env.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* getloadavg */
#endif
#include "bench_env.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TRESS_SOURCE_DIR
#define TRESS_SOURCE_DIR "."
#endif
#ifndef TRESS_BENCH_BUILD_DIR
#define TRESS_BENCH_BUILD_DIR "."
#endif

/* The first "model name" (x86) or "Model"/"Hardware" (ARM) line of /proc/cpuinfo. */
static void cpu_model(char *out, size_t cap) {
  snprintf(out, cap, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    bool named = strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
                 strncmp(line, "Hardware", 8) == 0;
    char *colon = strchr(line, ':');
    if (!named || !colon) continue;
    colon += 1 + strspn(colon + 1, " \t");
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(out, cap, "%s", colon);
    break;
  }
  fclose(f);
}

/* x86's "cpu family" and "model" numbers, which name the core generation the model name may not. */
static void cpu_family(char *out, size_t cap) {
  out[0] = '\0';
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  int family = -1, model = -1;
  while (fgets(line, sizeof line, f) && (family < 0 || model < 0)) {
    const char *colon = strchr(line, ':');
    if (!colon) continue;
    if (strncmp(line, "cpu family", 10) == 0 && family < 0) family = atoi(colon + 1);
    else if (strncmp(line, "model\t", 6) == 0 && model < 0) model = atoi(colon + 1);
  }
  fclose(f);
  if (family >= 0) snprintf(out, cap, " (family %d model %d)", family, model);
}

/* What the library's hot loops were built as (TRESS_VECTOR_CLONES in shared/sim/src/simd.h) and
 * which one this CPU runs. */
static void vector_isa(char *compiled, size_t ccap, char *in_use, size_t ucap) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
  snprintf(compiled, ccap, "target clones AVX-512 (x86-64-v4), AVX2 (x86-64-v3), baseline SSE2");
  __builtin_cpu_init();
#if __GNUC__ >= 12
  bool v4 = __builtin_cpu_supports("x86-64-v4"), v3 = __builtin_cpu_supports("x86-64-v3");
#else
  bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
#endif
  snprintf(in_use, ucap, "%s", v4 ? "AVX-512 (detected)" : v3 ? "AVX2 (detected; no AVX-512)" : "SSE2 (baseline; no AVX2)");
#else
#if defined(__AVX512F__)
  const char *isa = "AVX-512";
#elif defined(__AVX2__)
  const char *isa = "AVX2";
#elif defined(__ARM_NEON)
  const char *isa = "NEON";
#else
  const char *isa = "scalar";
#endif
#if defined(__aarch64__)
  snprintf(compiled, ccap, "%s (AArch64 baseline: no clones needed)", isa);
#else
  snprintf(compiled, ccap, "%s (no target clones with this compiler/platform)", isa);
#endif
  snprintf(in_use, ucap, "%s (as compiled)", isa);
#endif
}

void bench_env_print(FILE *out, const char *bench) {
  char model[256], family[64], compiled[160], in_use[96];
  cpu_model(model, sizeof model);
  cpu_family(family, sizeof family);
  vector_isa(compiled, sizeof compiled, in_use, sizeof in_use);
  double load[3] = {-1.0, -1.0, -1.0};
  int got = getloadavg(load, 3);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  fprintf(out, "# %s on %s%s, %ld core(s)\n", bench, model, family, cores);
  fprintf(out, "# vector ISA: compiled %s; in use %s\n", compiled, in_use);
  if (got == 3)
    fprintf(out, "# load average %.2f %.2f %.2f%s\n", load[0], load[1], load[2],
            load[0] > (double)cores ? " (loaded: absolute figures are inflated; ratios taken in this run hold better)" : "");
  else
    fprintf(out, "# load average unknown\n");
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static double file_mtime(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (double)st.st_mtime : -1.0;
}

/* The yardstick's folder: $TRESS_LIMIT_DIR, /work/shared/tools/limit, ../shared/tools/limit
 * beside the source tree; the first holding limit.c. */
static bool limit_dir(char *out, size_t cap) {
  const char *env = getenv("TRESS_LIMIT_DIR");
  const char *tries[] = {env, "/work/shared/tools/limit", TRESS_SOURCE_DIR "/../shared/tools/limit"};
  for (size_t k = 0; k < sizeof tries / sizeof tries[0]; k++) {
    if (!tries[k] || !*tries[k]) continue;
    char src[1100];
    snprintf(src, sizeof src, "%s/limit.c", tries[k]);
    if (file_exists(src)) {
      snprintf(out, cap, "%s", tries[k]);
      return true;
    }
  }
  return false;
}

void bench_yardstick_prepare(bench_yardstick *y) {
  memset(y, 0, sizeof *y);
  char dir[1024];
  if (!limit_dir(dir, sizeof dir)) {
    snprintf(y->note, sizeof y->note, "no yardstick (limit.c not in $TRESS_LIMIT_DIR, /work/shared/tools/limit or "
                                      "../shared/tools/limit): no ratios");
    return;
  }
  char src[1100];
  snprintf(src, sizeof src, "%s/limit.c", dir);
  snprintf(y->exe, sizeof y->exe, "%s/limit_nme", TRESS_BENCH_BUILD_DIR);
  /* its Makefile's limit_nme (IEEE sqrt and division, as tress), one substep a frame; built
   * here because its folder may be read-only */
  if (file_mtime(y->exe) < file_mtime(src)) {
    char cmd[3300];
    snprintf(cmd, sizeof cmd, "cc -O3 -march=native -fno-math-errno -DSUBSTEPS=1 -o '%s' '%s' -lm", y->exe, src);
    if (system(cmd) != 0) {
      snprintf(y->note, sizeof y->note, "yardstick %s did not build with cc -march=native: no ratios", src);
      return;
    }
  }
  y->ready = true;
  snprintf(y->note, sizeof y->note, "yardstick: %s (limit_nme, one substep a frame), built as %s", src, y->exe);
}

/* The variants tried at each size: $TRESS_LIMIT_VARIANTS (comma separated, "all" for every
 * one), by default the ones that are fastest on the AVX2 and AVX-512 machines measured so far
 * (every variant takes a few seconds of CPU per size; a variant this CPU lacks is skipped). */
#define DEFAULT_VARIANTS "soa,soablk,avx2eo,fused,avx512"

bool bench_yardstick_frame_ns(const bench_yardstick *y, uint32_t chains, uint32_t depth, uint32_t spheres,
                              double *frame_ns, char *variant, size_t variant_cap) {
  if (!y->ready) return false;
  const char *env = getenv("TRESS_LIMIT_VARIANTS");
  char list[256];
  snprintf(list, sizeof list, "%s", env && *env ? env : DEFAULT_VARIANTS);
  double best = -1.0;
  for (char *save = NULL, *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' bench %s %u %u %u", y->exe, v, chains, depth, spheres);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    char line[1024];
    while (fgets(line, sizeof line, p)) {
      char name[32];
      const char *f = strstr(line, "frame_ns_node=");
      if (strncmp(line, "RESULT ", 7) != 0 || !f || sscanf(line + 7, "%31s", name) != 1) continue;
      double ns = atof(f + strlen("frame_ns_node="));
      if (ns > 0.0 && (best < 0.0 || ns < best)) {
        best = ns;
        snprintf(variant, variant_cap, "%s", name);
      }
    }
    pclose(p);
  }
  if (best > 0.0) *frame_ns = best;
  return best > 0.0;
}

void bench_env_print_yardstick(FILE *out) {
  const char *skip = getenv("TRESS_NO_YARDSTICK");
  if (skip && *skip && strcmp(skip, "0") != 0) {
    fprintf(out, "# yardstick: skipped (TRESS_NO_YARDSTICK)\n");
    return;
  }
  static bench_yardstick y; /* its paths and note are large */
  bench_yardstick_prepare(&y);
  if (!y.ready) {
    fprintf(out, "# yardstick: none (%s): absolute figures only\n", y.note);
    return;
  }
  /* one variant: a machine-speed unit for this run, not the solver's best competitor */
  const char *saved = getenv("TRESS_LIMIT_VARIANTS");
  char keep[256] = "";
  if (saved) snprintf(keep, sizeof keep, "%s", saved);
  setenv("TRESS_LIMIT_VARIANTS", "soa", 1);
  double ns = 0.0;
  char variant[32] = "";
  bool ok = bench_yardstick_frame_ns(&y, 1000, 10, 0, &ns, variant, sizeof variant);
  if (saved) setenv("TRESS_LIMIT_VARIANTS", keep, 1);
  else unsetenv("TRESS_LIMIT_VARIANTS");
  if (ok)
    fprintf(out, "# yardstick: limit.c %s at 1000 x 10, %.2f ns/node per frame, built and run now: divide an absolute "
                 "figure by it for a ratio that travels between CPUs\n", variant, ns);
  else
    fprintf(out, "# yardstick: it did not run (%s): absolute figures only\n", y.note);
}

/* node_modules holding @pixiv/three-vrm-springbone: $TRESS_THREE_VRM_MODULES, the conformance
 * test's install in this build tree, or tests/vrm/node_modules in the source tree. */
static bool three_vrm_modules(char *out, size_t cap) {
  const char *env = getenv("TRESS_THREE_VRM_MODULES");
  const char *tries[] = {env, TRESS_BENCH_BUILD_DIR "/../tests/vrm/conformance_core/node/node_modules",
                         TRESS_SOURCE_DIR "/tests/vrm/node_modules"};
  for (size_t k = 0; k < sizeof tries / sizeof tries[0]; k++) {
    if (!tries[k] || !*tries[k]) continue;
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/@pixiv/three-vrm-springbone/package.json", tries[k]);
    if (file_exists(probe)) {
      snprintf(out, cap, "%s", tries[k]);
      return true;
    }
  }
  return false;
}

bool bench_three_vrm_joint_ns(uint32_t chains, uint32_t joints, uint32_t frames, uint32_t warmup, bool best, double *ns,
                              char *note, size_t note_cap) {
  char modules[1024];
  if (system("command -v node > /dev/null 2>&1") != 0) {
    snprintf(note, note_cap, "three-vrm: node is missing");
    return false;
  }
  if (!three_vrm_modules(modules, sizeof modules)) {
    snprintf(note, note_cap, "three-vrm: not installed (run ctest -R vrm_conformance_core once, or set "
                             "TRESS_THREE_VRM_MODULES to a node_modules holding @pixiv/three-vrm-springbone)");
    return false;
  }
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "node '%s/bench/threevrm.mjs' '%s' %u %u %u %u", TRESS_SOURCE_DIR, modules, chains, joints,
           frames, warmup);
  FILE *p = popen(cmd, "r");
  if (!p) return false;
  char line[512], version[64] = "?";
  double got = -1.0;
  while (fgets(line, sizeof line, p)) {
    const char *key = best ? "ns_per_joint_best=" : "ns_per_joint=";
    const char *f = strstr(line, key);
    const char *v = strstr(line, "version=");
    if (strncmp(line, "THREEVRM ", 9) != 0 || !f) continue;
    got = atof(f + strlen(key));
    if (v) sscanf(v + strlen("version="), "%63s", version);
  }
  bool ok = pclose(p) == 0 && got > 0.0;
  if (ok) *ns = got;
  if (ok)
    snprintf(note, note_cap, "three-vrm %s (%s): VRMSpringBoneManager.update, %s of %u frames after %u", version,
             modules, best ? "fastest" : "median", frames, warmup);
  else
    snprintf(note, note_cap, "three-vrm: %s failed or printed no figure", cmd);
  return ok;
}
