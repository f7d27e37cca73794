/* bench/rope.c - ns per constraint projection for many ropes stepped together in one sim, us per
 * step for one 20x20 cloth at the default settings, and what the display carry costs a frame that
 * reads every rope (aligned vs carried). Prints a table, or JSON with --json. The replaced paths
 * run through the sim def's reference_particle_paths (public headers only).
 *
 * Each figure comes for the path the library takes by default and for the path it replaced:
 * ropes interleaved 16 to a lane group vs the per-rope path (the same ropes taken out of their
 * groups), cloth Jacobi as grid stencils vs the generic adjacency (CSR) loops. The machine is
 * shared: every figure is the best of a few short runs, printed with the load average. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tress/rope.h"
#include "bench_env.h"
#include "../tests/support/scene_build.h"

/* CPU time of this thread, not wall time: on a shared machine the time slices other processes
 * take are not ours (cache and SMT interference still are; hence best-of and the load average). */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* reference: the replaced paths (ropes one at a time, cloth through its adjacency lists). */
static tress_sim *make_sim(tress_scene *scene, bool reference) {
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.role = TRESS_SIM_SERVER;
  def.gravity[1] = -98.2f;
  def.reference_particle_paths = reference;
  return tress_sim_create(&def);
}

/* Seconds per step, best of a few short runs (the machine is shared). */
static double time_steps(tress_sim *sim, int steps) {
  for (int i = 0; i < 60; i++) tress_sim_step(sim, 1.0 / 60.0);
  double best = 1e30;
  for (int r = 0; r < 7; r++) {
    double t0 = now_s();
    for (int i = 0; i < steps; i++) tress_sim_step(sim, 1.0 / 60.0);
    double per = (now_s() - t0) / steps;
    if (per < best) best = per;
  }
  return best;
}

typedef struct rope_result {
  const char *solver, *path;
  int ropes, substeps, iterations;
  double ns_per_projection, us_per_step;
} rope_result;

enum { ROPES = 512, SEGMENTS = 20 };

static rope_result bench_ropes(const char *solver, tress_relax_mode relax, int substeps, int iterations,
                               bool interleaved) {
  tress_scene *scene = th_scene();
  tress_sim *sim = make_sim(scene, !interleaved);
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
    tress_sim_bind_rope(sim, &d, &h, NULL);
  }
  double per_step = time_steps(sim, interleaved ? 200 : 50);
  double projections = (double)ROPES * SEGMENTS * substeps * iterations;
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return (rope_result){solver,     interleaved ? "interleaved" : "per-rope", ROPES, substeps, iterations,
                       per_step * 1e9 / projections, per_step * 1e6};
}

static double bench_cloth(bool stencil, uint32_t *constraints) {
  tress_scene *scene = th_scene();
  tress_sim *sim = make_sim(scene, !stencil);
  tress_cloth_def d = tress_default_cloth_def();
  tress_cloth_pin pins[2] = {{0, {0, 0}}, {d.width - 1, {0, 0}}};
  d.pins = pins;
  d.pin_count = 2;
  tress_handle_id h;
  tress_sim_bind_cloth(sim, &d, &h, NULL);
  *constraints = tress_rope_get_constraint_count(sim, h);
  double per_step = time_steps(sim, 300);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return per_step * 1e6;
}

/* What a game pays per drawn frame for the display carry: ROPES ropes hanging from 8 moving,
 * turning parts, each frame the parts moved, tress_sim_step, then every rope's points read.
 * An aligned frame (60 fps: one fixed step, nothing to carry) against the frames of a 144 fps
 * game: those with a step (time left after it) and those with none (only the carry). */
typedef struct carry_result {
  double aligned_us, step_us, carried_us;   /* step + read, per frame, best of runs */
  double read_aligned_us, read_carried_us;  /* the reads alone */
} carry_result;

static tress_xform mover_at(double t, int k) {
  float axis[3] = {0, 1, 0};
  tress_xform x = tress_xform_from_axis_angle(axis, (float)(0.6 * sin((t + 0.1 * k) * 3.0)));
  x.p[0] = (float)(6.0 * t);
  x.p[1] = 10.0f;
  x.p[2] = (float)(4 * k);
  return x;
}

static void run_frames(tress_sim *sim, tress_scene *scene, const tress_id *parts, const tress_handle_id *ropes,
                       int fps, int frames, double *t, bool timed, double sum_us[2][2], long count[2]) {
  static float xyz[3 * (SEGMENTS + 1)];
  for (int i = 0; i < frames; i++) {
    *t += 1.0 / fps;
    for (int k = 0; k < 8; k++) tress_part_set_cframe(scene, parts[k], mover_at(*t, k));
    double t0 = now_s();
    tress_sim_step(sim, 1.0 / fps);
    double t1 = now_s();
    uint32_t n = 0;
    for (int r = 0; r < ROPES; r++) tress_rope_get_points(sim, ropes[r], xyz, SEGMENTS + 1, &n);
    double t2 = now_s();
    if (!timed) continue;
    int stepped = tress_sim_get_stats(sim).substeps > 0;
    sum_us[stepped][0] += (t2 - t0) * 1e6;
    sum_us[stepped][1] += (t2 - t1) * 1e6;
    count[stepped]++;
  }
}

static carry_result bench_carry(void) {
  carry_result best = {1e30, 1e30, 1e30, 1e30, 1e30};
  for (int fps_i = 0; fps_i < 2; fps_i++) {
    int fps = fps_i ? 144 : 60;
    tress_scene *scene = th_scene();
    tress_sim *sim = make_sim(scene, false);
    tress_id parts[8];
    for (int k = 0; k < 8; k++) {
      parts[k] = th_instance(scene, TRESS_KIND_PART, "Mover", tress_scene_get_root(scene));
      tress_part_set_cframe(scene, parts[k], mover_at(0.0, k));
    }
    tress_handle_id ropes[ROPES];
    for (int r = 0; r < ROPES; r++) {
      tress_rope_def d = tress_default_rope_def();
      d.segments = SEGMENTS;
      d.length = 10.0f;
      d.start = (tress_rope_pin){.pinned = true, .instance = parts[r % 8], .position = {0.5f, 0, 0}};
      d.end = (tress_rope_pin){.pinned = false, .position = {0.5f, -10, 0}};
      tress_sim_bind_rope(sim, &d, &ropes[r], NULL);
    }
    double t = 0.0, sum_us[2][2];
    long count[2];
    run_frames(sim, scene, parts, ropes, fps, fps, &t, false, sum_us, count); /* settle */
    for (int run = 0; run < 5; run++) {
      memset(sum_us, 0, sizeof sum_us);
      memset(count, 0, sizeof count);
      run_frames(sim, scene, parts, ropes, fps, fps / 2, &t, true, sum_us, count);
      if (fps == 60 && count[1]) {
        if (sum_us[1][0] / count[1] < best.aligned_us) best.aligned_us = sum_us[1][0] / count[1];
        if (sum_us[1][1] / count[1] < best.read_aligned_us) best.read_aligned_us = sum_us[1][1] / count[1];
      }
      if (fps == 144 && count[1] && sum_us[1][0] / count[1] < best.step_us) best.step_us = sum_us[1][0] / count[1];
      if (fps == 144 && count[0]) {
        if (sum_us[0][0] / count[0] < best.carried_us) best.carried_us = sum_us[0][0] / count[0];
        if (sum_us[0][1] / count[0] < best.read_carried_us) best.read_carried_us = sum_us[0][1] / count[0];
      }
    }
    tress_sim_destroy(sim);
    tress_scene_destroy(scene);
  }
  return best;
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
  bench_env_print(json ? stderr : stdout, "bench/rope");
  bench_env_print_yardstick(json ? stderr : stdout);
  double load_before = load_average();
  enum { ROWS = 4 };
  rope_result ropes[ROWS] = {
      bench_ropes("direct", TRESS_RELAX_DIRECT, 2, 2, true),
      bench_ropes("direct", TRESS_RELAX_DIRECT, 2, 2, false),
      bench_ropes("gauss-seidel", TRESS_RELAX_GAUSS_SEIDEL, 8, 1, true),
      bench_ropes("gauss-seidel", TRESS_RELAX_GAUSS_SEIDEL, 8, 1, false),
  };
  uint32_t constraints = 0;
  tress_cloth_def cd = tress_default_cloth_def();
  double cloth_stencil_us = bench_cloth(true, &constraints);
  double cloth_adjacency_us = bench_cloth(false, &constraints);
  carry_result carry = bench_carry();
  double load = load_average();
  if (load_before > load) load = load_before;
  if (json) {
    printf("{\"ropes\":[");
    for (int i = 0; i < ROWS; i++)
      printf("%s{\"solver\":\"%s\",\"path\":\"%s\",\"ropes\":%d,\"segments\":%d,\"substeps\":%d,\"iterations\":%d,"
             "\"ns_per_projection\":%.3f,\"us_per_step\":%.2f}",
             i ? "," : "", ropes[i].solver, ropes[i].path, ropes[i].ropes, SEGMENTS, ropes[i].substeps,
             ropes[i].iterations, ropes[i].ns_per_projection, ropes[i].us_per_step);
    printf("],\"cloth\":{\"width\":%u,\"height\":%u,\"constraints\":%u,\"substeps\":%d,\"iterations\":%d,"
           "\"us_per_step\":%.2f,\"us_per_step_adjacency\":%.2f},"
           "\"carry\":{\"ropes\":%d,\"aligned_frame_us\":%.2f,\"frame_with_step_us\":%.2f,"
           "\"carried_frame_us\":%.2f,\"read_aligned_us\":%.2f,\"read_carried_us\":%.2f},"
           "\"targets\":{\"ns_per_projection\":6,\"cloth_us_per_step\":120},\"load_average\":%.2f}\n",
           cd.width, cd.height, constraints, cd.settings.substeps, cd.settings.iterations, cloth_stencil_us,
           cloth_adjacency_us, ROPES, carry.aligned_us, carry.step_us, carry.carried_us, carry.read_aligned_us,
           carry.read_carried_us, load);
    return 0;
  }
  printf("%-13s %-12s %6s %9s %10s %14s %10s\n", "rope solver", "path", "ropes", "substeps", "iterations",
         "ns/projection", "us/step");
  for (int i = 0; i < ROWS; i++)
    printf("%-13s %-12s %6d %9d %10d %14.2f %10.1f\n", ropes[i].solver, ropes[i].path, ropes[i].ropes,
           ropes[i].substeps, ropes[i].iterations, ropes[i].ns_per_projection, ropes[i].us_per_step);
  printf("target: <= 6 ns per projection, interleaved (all-in: integration, pins, tethers included)\n\n");
  printf("cloth %ux%u: %u constraints, %d substeps x %d iterations (Jacobi, serial):\n", cd.width, cd.height,
         constraints, cd.settings.substeps, cd.settings.iterations);
  printf("  grid stencils (default) %8.1f us/step (target <= 120)\n", cloth_stencil_us);
  printf("  adjacency loops         %8.1f us/step\n", cloth_adjacency_us);
  printf("\n%d ropes on 8 moving parts, per drawn frame (step + every rope's points read):\n", ROPES);
  printf("  aligned (60 fps, one step, nothing carried) %8.1f us (reads %.1f)\n", carry.aligned_us,
         carry.read_aligned_us);
  printf("  144 fps frame with a step (carried)         %8.1f us\n", carry.step_us);
  printf("  144 fps frame without a step (carried)      %8.1f us (reads %.1f)\n", carry.carried_us,
         carry.read_carried_us);
  printf("load average while measuring: %.2f (2 cores)\n", load);
  return 0;
}
