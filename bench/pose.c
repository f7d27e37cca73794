/* pose.c - the per-frame cost of the bulk pose input (tress/pose.h): a 60-bone game skeleton
 * (plus 2 parts) copied from the game's strided array into the scene, per matched entry, in
 * both bone spaces. The sim step is not included: this is the input's own cost.
 *
 * usage: pose [FRAMES] (default 20000) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/pose.h"
#include "bench_env.h"
#include "../tests/support/scene_build.h"

enum { BONES = 60, ENTRIES = BONES + 2 };

typedef struct game_pose {
  float position[3], rotation[4], scale[3];
} game_pose;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  bench_env_print(stdout, "bench/pose");
  bench_env_print_yardstick(stdout);
  int frames = argc > 1 ? atoi(argv[1]) : 20000;
  tress_scene *scene = th_scene();
  tress_id model = th_instance(scene, TRESS_KIND_MODEL, "Character", tress_scene_get_root(scene));
  tress_id torso = th_instance(scene, TRESS_KIND_PART, "Torso", model);
  (void)th_instance(scene, TRESS_KIND_PART, "Head", model);
  static char names[ENTRIES][32];
  const char *list[ENTRIES];
  tress_id parent = torso;
  for (int i = 0; i < BONES; i++) {
    snprintf(names[i], sizeof names[i], "Bone%d", i);
    /* five limbs of twelve */
    if (i % 12 == 0) parent = torso;
    parent = th_instance(scene, TRESS_KIND_BONE, names[i], parent);
    tress_bone_set_cframe(scene, parent, tress_xform_from_pos(0, -0.2f, 0));
  }
  snprintf(names[BONES], 32, "Torso");
  snprintf(names[BONES + 1], 32, "Head");
  for (int i = 0; i < ENTRIES; i++) list[i] = names[i];
  static game_pose poses[ENTRIES];
  for (int i = 0; i < ENTRIES; i++) {
    float a = 0.01f * (float)i;
    poses[i].position[1] = -0.2f;
    poses[i].rotation[0] = sinf(a);
    poses[i].rotation[3] = cosf(a);
  }
  tress_pose_array array = {poses[0].position, poses[0].rotation, sizeof(game_pose), sizeof(game_pose), ENTRIES};
  for (int space = 0; space < 2; space++) {
    tress_pose_map_def def = tress_default_pose_map_def();
    def.scene = scene;
    def.model = model;
    def.names = list;
    def.count = ENTRIES;
    def.bone_space = (tress_bone_pose_space)space;
    double t0 = now();
    tress_pose_map *map = tress_pose_map_create(&def);
    double built = now() - t0;
    if (!map) return 1;
    uint32_t matched = tress_pose_map_get_matched_count(map);
    for (int f = 0; f < frames / 10; f++) tress_pose_map_apply(map, tress_xform_identity(), &array); /* warm */
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      t0 = now();
      for (int f = 0; f < frames; f++) {
        poses[f % ENTRIES].rotation[1] = 1e-3f * (float)(f & 7); /* the game's animation changed */
        tress_pose_map_apply(map, tress_xform_from_pos((float)f * 1e-4f, 0, 0), &array);
      }
      double dt = now() - t0;
      if (dt < best) best = dt;
    }
    printf("pose map (%s bones): %u entries matched, built once in %.1f us; per frame %.2f us, per entry %.1f ns "
           "(best of 5 x %d frames)\n",
           tress_bone_pose_space_name(def.bone_space), matched, built * 1e6, best / frames * 1e6,
           best / frames / matched * 1e9, frames);
    tress_pose_map_destroy(map);
  }
  tress_scene_destroy(scene);
  return 0;
}
