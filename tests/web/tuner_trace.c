/* tuner_trace.c - the native side of the browser test: runs the page's recorded inputs through
 * the same tuner (client/web/src/tuner.c) natively and prints the tips after every frame, so the
 * test can hold the wasm solver to the native one.
 *
 *   tuner_trace [--time] SCRIPT > tips.txt
 *
 * SCRIPT is what the page's test hook records (window.tressTest.script()), one command a line:
 *   bone NAME PARENT px py pz qx qy qz qw   a bone at rest (PARENT -1: the head)
 *   bind                                    binds the chains
 *   wind x y z
 *   set SETTING VALUE                       a manifest chain setting (tuner.h)
 *   frame px py pz qx qy qz qw DT           the head's pose, one step of DT seconds
 * Output: per frame one line "x y z x y z ..." of every tip, %.9g (float32 round trip).
 * --time prints no tips but the time tress_tuner_step took over the frames, the figure the page's
 * bench hook gives for wasm: "frames N bones B ns_per_node_frame X". */
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "tuner.h"

#define LINE_MAX_BYTES 512
#define BONES_MAX 4096

static void print_tips(const tress_tuner *t) {
  const float *tips = tress_tuner_get_tips(t);
  uint32_t n = tress_tuner_get_tip_count(t) * 3;
  for (uint32_t i = 0; i < n; i++) printf("%s%.9g", i ? " " : "", (double)tips[i]);
  printf("\n");
}

typedef struct trace_timing {
  bool on;
  double step_ns;
  long frames;
} trace_timing;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int run_line(tress_tuner *t, const char *line, int number, trace_timing *timing) {
  char word[64], name[128];
  float v[8];
  int parent;
  double dt;
  if (sscanf(line, "%63s", word) != 1) return 0;
  if (strcmp(word, "bone") == 0 &&
      sscanf(line, "bone %127s %d %f %f %f %f %f %f %f", name, &parent, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
             &v[6]) == 9)
    return tress_tuner_add_bone(t, name, parent, v) < 0 ? -1 : 0;
  if (strcmp(word, "bind") == 0) return tress_tuner_bind(t) == 0 ? 0 : -1;
  if (strcmp(word, "wind") == 0 && sscanf(line, "wind %f %f %f", &v[0], &v[1], &v[2]) == 3) {
    tress_tuner_set_wind(t, v[0], v[1], v[2]);
    return 0;
  }
  tress_tuner_setting s;
  if (strcmp(word, "set") == 0 && sscanf(line, "set %127s %f", name, &v[0]) == 2 &&
      tress_tuner_setting_from_name(name, &s))
    return tress_tuner_set_setting(t, s, v[0]) == 0 ? 0 : -1;
  if (strcmp(word, "frame") == 0 &&
      sscanf(line, "frame %f %f %f %f %f %f %f %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &dt) == 8) {
    tress_tuner_set_head(t, v);
    double t0 = now_ns();
    if (tress_tuner_step(t, dt) != 0) return -1;
    timing->step_ns += now_ns() - t0;
    timing->frames++;
    if (!timing->on) print_tips(t);
    return 0;
  }
  fprintf(stderr, "line %d: cannot read: %s", number, line);
  return -1;
}

int main(int argc, char **argv) {
  trace_timing timing = {.on = argc == 3 && strcmp(argv[1], "--time") == 0};
  if (argc != 2 && !timing.on) {
    fprintf(stderr, "usage: tuner_trace [--time] SCRIPT\n");
    return 2;
  }
  const char *path = argv[argc - 1];
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    return 1;
  }
  tress_tuner *t = tress_tuner_create(BONES_MAX);
  char line[LINE_MAX_BYTES];
  int number = 0, rc = t ? 0 : 1;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    number++;
    if (run_line(t, line, number, &timing) != 0) {
      fprintf(stderr, "%s:%d: failed: %s", path, number, line);
      rc = 1;
    }
  }
  fclose(f);
  if (rc == 0 && timing.on) {
    uint32_t bones = tress_tuner_get_bone_count(t);
    printf("frames %ld bones %u ns_per_node_frame %.2f\n", timing.frames, bones,
           timing.frames && bones ? timing.step_ns / (double)timing.frames / bones : 0.0);
  }
  tress_tuner_destroy(t);
  return rc;
}
