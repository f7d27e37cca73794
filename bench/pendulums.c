/* pendulums.c - what accessory pendulums and bind_character cost: many characters, one accessory
 * per joint kind each, stepped with moving heads under wind. Prints figures; asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/sim.h"
#include "bench_env.h"
#include "../tests/support/scene_build.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wind(void *user, double t, float out[3]) {
  (void)user;
  out[0] = (float)(30.0 * sin(t * 0.7));
  out[1] = 0.0f;
  out[2] = 12.0f;
}

/* One accessory on head, worn through `kind`, the handle 0.8 below the hinge. */
static void wear(tress_scene *s, tress_id model, tress_id head, tress_joint_kind kind) {
  tress_id acc = th_instance(s, TRESS_KIND_ACCESSORY, "Acc", model);
  tress_accessory_set_type(s, acc, TRESS_ACCESSORY_HAIR);
  tress_id handle = th_instance(s, TRESS_KIND_PART, "Handle", acc);
  tress_xform body_side = tress_xform_from_pos(0, 0.5f, 0), handle_side = tress_xform_from_pos(0, 0.8f, 0.1f);
  tress_part_set_cframe(s, handle, tress_xform_mul(tress_xform_mul(tress_part_get_cframe(s, head), body_side),
                                                   tress_xform_inverse(handle_side)));
  tress_joint def;
  memset(&def, 0, sizeof def);
  def.kind = kind;
  def.enabled = true;
  tress_id joint = th_instance(s, TRESS_KIND_JOINT, "Joint", handle);
  if (kind == TRESS_JOINT_RIGID_CONSTRAINT) {
    tress_id ha = th_instance(s, TRESS_KIND_ATTACHMENT, "A", handle);
    tress_attachment_set_cframe(s, ha, handle_side);
    tress_id ba = th_instance(s, TRESS_KIND_ATTACHMENT, "A", head);
    tress_attachment_set_cframe(s, ba, body_side);
    def.attachment0 = ba;
    def.attachment1 = ha;
  } else {
    def.part0 = head;
    def.part1 = handle;
    def.c0 = body_side;
    def.c1 = handle_side;
    if (kind == TRESS_JOINT_WELD_CONSTRAINT) {
      tress_id ha = th_instance(s, TRESS_KIND_ATTACHMENT, "A", handle);
      tress_attachment_set_cframe(s, ha, handle_side);
    }
  }
  tress_joint_set_def(s, joint, &def);
}

int main(int argc, char **argv) {
  bench_env_print(stdout, "bench/pendulums");
  bench_env_print_yardstick(stdout);
  int characters = argc > 1 ? atoi(argv[1]) : 250;
  int frames = argc > 2 ? atoi(argv[2]) : 300;
  if (characters < 1) characters = 1;
  tress_scene *s = th_scene();
  tress_id ws = th_instance(s, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(s));
  tress_id *models = calloc((size_t)characters, sizeof *models);
  tress_id *heads = calloc((size_t)characters, sizeof *heads);
  for (int i = 0; i < characters; i++) {
    models[i] = th_instance(s, TRESS_KIND_MODEL, "Character", ws);
    heads[i] = th_instance(s, TRESS_KIND_PART, "Head", models[i]);
    tress_part_set_cframe(s, heads[i], tress_xform_from_pos((float)(i % 20) * 4.0f, 5, (float)(i / 20) * 4.0f));
    for (int k = 0; k < 4; k++) wear(s, models[i], heads[i], (tress_joint_kind)k);
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = s;
  def.wind = wind;
  def.max_chains = 10;
  def.max_distance = 100000;
  tress_sim *sim = tress_sim_create(&def);
  tress_character_def character = tress_default_character_def();
  double t0 = now_s();
  for (int i = 0; i < characters; i++) {
    character.model = models[i];
    tress_sim_bind_character(sim, &character, NULL, 0, NULL);
  }
  double t1 = now_s();
  for (int i = 0; i < characters; i++) { /* idempotent rebinds: what a respawn handler pays */
    character.model = models[i];
    tress_sim_bind_character(sim, &character, NULL, 0, NULL);
  }
  double t2 = now_s();
  uint64_t simulated = 0;
  double step_time = 0;
  for (int f = 0; f < frames; f++) {
    double t = f / 60.0;
    for (int i = 0; i < characters; i++) {
      float angle[3] = {0, 0, 1};
      tress_xform head = tress_xform_from_axis_angle(angle, (float)(0.6 * sin(6.0 * t + i)));
      head.p[0] = (float)(i % 20) * 4.0f + (float)sin(4.0 * t);
      head.p[1] = 5;
      head.p[2] = (float)(i / 20) * 4.0f;
      tress_part_set_cframe(s, heads[i], head);
    }
    double a = now_s();
    tress_sim_step(sim, 1.0 / 60);
    step_time += now_s() - a;
    simulated += tress_sim_get_stats(sim).simulated;
  }
  tress_sim_stats st = tress_sim_get_stats(sim);
  printf("pendulums: %d characters x 4 joint kinds = %u handles\n", characters, st.bound);
  printf("  bind_character (first):  %.2f us per character\n", (t1 - t0) * 1e6 / characters);
  printf("  bind_character (rebind): %.2f us per character\n", (t2 - t1) * 1e6 / characters);
  printf("  step: %.1f us per frame, %.1f ns per pendulum-substep (%llu handle-steps)\n",
         step_time * 1e6 / frames, simulated ? step_time * 1e9 / (double)simulated : 0.0,
         (unsigned long long)simulated);
  tress_sim_destroy(sim);
  tress_scene_destroy(s);
  free(models);
  free(heads);
  return 0;
}
