/* bench/rope.c - ns per constraint projection for many ropes stepped together in one sim, and us
 * per step for one 20x20 cloth at the default settings. Prints a table, or JSON with --json. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tress/rope.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static tress_sim *make_sim(tress_scene *scene) {
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.role = TRESS_SIM_SERVER;
  def.gravity[1] = -98.2f;
  return tress_sim_create(&def);
}

/* Seconds per step, best of a few short runs (the machine is shared). */
static double time_steps(tress_sim *sim, int steps) {
  for (int i = 0; i < 60; i++) tress_sim_step(sim, 1.0 / 60.0);
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = now_s();
    for (int i = 0; i < steps; i++) tress_sim_step(sim, 1.0 / 60.0);
    double per = (now_s() - t0) / steps;
    if (per < best) best = per;
  }
  return best;
}

typedef struct rope_result {
  const char *name;
  int ropes, substeps, iterations;
  double ns_per_projection, us_per_step;
} rope_result;

static rope_result bench_ropes(const char *name, tress_relax_mode relax, int substeps, int iterations) {
  enum { ROPES = 512, SEGMENTS = 20 };
  tress_scene *scene = tress_scene_create();
  tress_sim *sim = make_sim(scene);
  for (int r = 0; r < ROPES; r++) {
    tress_rope_def d = tress_default_rope_def();
    d.segments = SEGMENTS;
    d.length = 20.0f;
    d.start = (tress_rope_pin){.pinned = true, .position = {0, 0, (float)r}};
    d.end = (tress_rope_pin){.pinned = true, .position = {16, 0, (float)r}};
    d.settings.relax = relax;
    d.settings.substeps = substeps;
    d.settings.iterations = iterations;
    tress_handle_id h;
    tress_sim_bind_rope(sim, &d, &h);
  }
  double per_step = time_steps(sim, 100);
  double projections = (double)ROPES * SEGMENTS * substeps * iterations;
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return (rope_result){name, ROPES, substeps, iterations, per_step * 1e9 / projections, per_step * 1e6};
}

static double bench_cloth(uint32_t *constraints) {
  tress_scene *scene = tress_scene_create();
  tress_sim *sim = make_sim(scene);
  tress_cloth_def d = tress_default_cloth_def();
  tress_cloth_pin pins[2] = {{0, {0, 0}}, {d.width - 1, {0, 0}}};
  d.pins = pins;
  d.pin_count = 2;
  tress_handle_id h;
  tress_sim_bind_cloth(sim, &d, &h);
  *constraints = tress_rope_constraint_count(sim, h);
  double per_step = time_steps(sim, 300);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return per_step * 1e6;
}

/* The machine is shared: the 1-minute load average says how far to trust the figures. */
static double load_average(void) {
  double l = -1.0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1.0;
    fclose(f);
  }
  return l;
}

int main(int argc, char **argv) {
  bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
  rope_result ropes[2] = {
      bench_ropes("direct (default)", TRESS_RELAX_DIRECT, 2, 2),
      bench_ropes("gauss-seidel", TRESS_RELAX_GAUSS_SEIDEL, 8, 1),
  };
  uint32_t constraints = 0;
  tress_cloth_def cd = tress_default_cloth_def();
  double cloth_us = bench_cloth(&constraints);
  if (json) {
    printf("{\"ropes\":[");
    for (int i = 0; i < 2; i++)
      printf("%s{\"solver\":\"%s\",\"ropes\":%d,\"segments\":20,\"substeps\":%d,\"iterations\":%d,"
             "\"ns_per_projection\":%.3f,\"us_per_step\":%.2f}",
             i ? "," : "", ropes[i].name, ropes[i].ropes, ropes[i].substeps, ropes[i].iterations,
             ropes[i].ns_per_projection, ropes[i].us_per_step);
    printf("],\"cloth\":{\"width\":%u,\"height\":%u,\"constraints\":%u,\"substeps\":%d,\"iterations\":%d,"
           "\"us_per_step\":%.2f},\"targets\":{\"ns_per_projection\":6,\"cloth_us_per_step\":120},\"load_average\":%.2f}\n",
           cd.width, cd.height, constraints, cd.settings.substeps, cd.settings.iterations, cloth_us, load_average());
    return 0;
  }
  printf("%-18s %6s %9s %10s %14s %12s\n", "rope solver", "ropes", "substeps", "iterations", "ns/projection",
         "us/step");
  for (int i = 0; i < 2; i++)
    printf("%-18s %6d %9d %10d %14.2f %12.1f\n", ropes[i].name, ropes[i].ropes, ropes[i].substeps,
           ropes[i].iterations, ropes[i].ns_per_projection, ropes[i].us_per_step);
  printf("target: <= 6 ns per projection (all-in: integration, pins, tethers included)\n\n");
  printf("cloth %ux%u: %u constraints, %d substeps x %d iterations (Jacobi, serial): %.1f us/step (target <= 120)\n",
         cd.width, cd.height, constraints, cd.settings.substeps, cd.settings.iterations, cloth_us);
  printf("load average while measuring: %.2f\n", load_average());
  return 0;
}
