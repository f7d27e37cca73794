/* bench/plan - plan() throughput: vertices per second for 1k, 10k, 100k and 1M-vertex hair
 * clouds on one core, in the seed's sector mode (hair all around the head) and in strand mode
 * (three 40-degree locks). Prints tables, or one JSON object with --json. Never asserts timings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/plan.h"
#include "bench_env.h"

/* CPU time of this thread: "one core" even when the machine is shared with other work, which
 * wall-clock time is not. Wall time is printed beside it. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Strand-like cloud: random points on hanging strands around a head, 5% above the root; with
 * locks, the angles are folded into three 40-degree groups. */
static float *make_cloud(uint32_t n, bool locks) {
  float *v = malloc(3 * sizeof(float) * n);
  if (!v) return NULL;
  uint32_t x = 0x12345678u;
  for (uint32_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    float a = (float)(x >> 8) / 16777216.0f * 6.2831853f;
    if (locks) a = floorf(a / 2.0943951f) * 2.0943951f + fmodf(a, 2.0943951f) / 3.0f;
    x = x * 1664525u + 1013904223u;
    float d = (float)(x >> 8) / 16777216.0f * 1.05f - 0.05f;
    v[3 * i] = cosf(a) * (0.6f + 0.1f * d);
    v[3 * i + 1] = 1.1f - 2.0f * d;
    v[3 * i + 2] = sinf(a) * (0.6f + 0.1f * d);
  }
  return v;
}

static void measure(const tress_plan_opts *opts, bool locks, const uint32_t *sizes, double *rates, double *wall_rates) {
  for (int s = 0; s < 4; s++) {
    uint32_t n = sizes[s];
    float *v = make_cloud(n, locks);
    if (!v) exit(1);
    /* Repeat until ~0.2 s of work, best run counts (the others are noise from a shared core). */
    uint32_t reps = 2000000u / n + 3;
    double best = 1e30, best_wall = 1e30;
    for (uint32_t r = 0; r < reps; r++) {
      tress_plan_result p;
      double t0 = cpu_s(), w0 = wall_s();
      if (tress_plan_build(v, n, opts, &p) != TRESS_PLAN_OK) exit(1);
      double dt = cpu_s() - t0, dw = wall_s() - w0;
      tress_plan_result_free(&p);
      if (dt < best) best = dt;
      if (dw < best_wall) best_wall = dw;
    }
    rates[s] = (double)n / best;
    wall_rates[s] = (double)n / best_wall;
    free(v);
  }
}

int main(int argc, char **argv) {
  bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
  bench_env_print(json ? stderr : stdout, "bench/plan");
  bench_env_print_yardstick(json ? stderr : stdout);
  const uint32_t sizes[] = {1000, 10000, 100000, 1000000};
  const char *modes[2] = {"sectors", "strands"};
  double rates[2][4], wall_rates[2][4];
  for (int m = 0; m < 2; m++) {
    tress_plan_opts opts = tress_default_plan_opts();
    opts.root[1] = 1.1f;
    opts.has_root = true;
    opts.mode = m ? TRESS_PLAN_MODE_STRANDS : TRESS_PLAN_MODE_SECTORS;
    measure(&opts, m == 1, sizes, rates[m], wall_rates[m]);
  }
  if (json) {
    printf("{\"bench\":\"plan\",\"sectors\":3,\"segments\":3");
    for (int m = 0; m < 2; m++) {
      printf(",\"%s\":{\"vertices_per_second\":{", modes[m]);
      for (int s = 0; s < 4; s++) printf("%s\"%u\":%.0f", s ? "," : "", sizes[s], rates[m][s]);
      printf("},\"wall_vertices_per_second\":{");
      for (int s = 0; s < 4; s++) printf("%s\"%u\":%.0f", s ? "," : "", sizes[s], wall_rates[m][s]);
      printf("}}");
    }
    printf("}\n");
  } else {
    for (int m = 0; m < 2; m++) {
      printf("plan, %s mode (%s, segments 3, max_influences 2), best of several runs, one thread\n", modes[m],
             m ? "three locks" : "sectors 3");
      printf("%10s  %16s  %10s  %16s\n", "vertices", "vertices/s (cpu)", "ms/plan", "vertices/s (wall)");
      for (int s = 0; s < 4; s++)
        printf("%10u  %16.0f  %10.3f  %16.0f\n", sizes[s], rates[m][s], 1e3 * sizes[s] / rates[m][s], wall_rates[m][s]);
    }
  }
  return 0;
}
