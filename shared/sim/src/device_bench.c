/* device_bench.c - the one-time micro-benchmark that sets client budgets (Compute in [0.25, 4]).
 * It times a fixed verlet-like workload; a mid-range device (Compute 1) takes REFERENCE_NS. */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "tress/sim.h"

#define BENCH_NODES 256
#define BENCH_ROUNDS 200
/* Nanoseconds the workload takes on a mid-range device: Compute = REFERENCE_NS / measured. */
#define REFERENCE_NS 600000.0

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

float tress_device_measure_compute(void) {
  float p[BENCH_NODES * 3], o[BENCH_NODES * 3];
  for (int i = 0; i < BENCH_NODES * 3; i++) p[i] = o[i] = (float)(i % 7) * 0.1f;
  double best = 1e30;
  for (int trial = 0; trial < 3; trial++) {
    double t0 = now_ns();
    for (int r = 0; r < BENCH_ROUNDS; r++) {
      for (int i = 3; i < BENCH_NODES * 3; i += 3) {
        float vx = (p[i] - o[i]) * 0.92f, vy = (p[i + 1] - o[i + 1]) * 0.92f, vz = (p[i + 2] - o[i + 2]) * 0.92f;
        o[i] = p[i]; o[i + 1] = p[i + 1]; o[i + 2] = p[i + 2];
        float x = p[i] + vx, y = p[i + 1] + vy - 0.008f, z = p[i + 2] + vz;
        float dx = x - p[i - 3], dy = y - p[i - 2], dz = z - p[i - 1];
        float l = sqrtf(dx * dx + dy * dy + dz * dz) + 1e-6f;
        float s = 0.5f / l;
        p[i] = p[i - 3] + dx * s; p[i + 1] = p[i - 2] + dy * s; p[i + 2] = p[i - 1] + dz * s;
      }
    }
    double t = now_ns() - t0;
    if (t < best) best = t;
  }
  /* keep the result observable so the loop is not optimized away */
  volatile float sink = p[BENCH_NODES * 3 - 1];
  (void)sink;
  double c = REFERENCE_NS / (best > 1.0 ? best : 1.0);
  if (c < 0.25) c = 0.25;
  if (c > 4.0) c = 4.0;
  return (float)c;
}
