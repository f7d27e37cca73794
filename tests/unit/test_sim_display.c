/* test_sim_display.c - what a client draws between fixed steps. The sim steps at 60 Hz; a game
 * drawing at 144 Hz (or any rate that does not divide into the steps) gets frames with no step
 * or with time left over. The chain must still be drawn attached to where its root is now:
 * carried rigidly with its anchor since the last step, never stretched, never jittering. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

/* A head running along +x at 6 units/s while turning about y. */
static tress_xform head_at(double t) {
  float axis[3] = {0, 1, 0};
  tress_xform x = tress_xform_from_axis_angle(axis, (float)(0.6 * sin(t * 3.0)));
  x.p[0] = (float)(6.0 * t);
  x.p[1] = 5.0f;
  x.p[2] = 0.0f;
  return x;
}

/* Drawn link lengths against rest, worst over every frame of `seconds` at `fps`, for three
 * chains of different lengths (so some levels of the batch are gathered, not in place); and
 * the worst change of the first chain's tip motion, seen from its root, between frames. */
static float worst_stretch(int fps, double seconds, float *worst_jerk) {
  enum { CHAINS = 3 };
  static const int lengths[CHAINS] = {6, 3, 5};
  tress_scene *scene = th_scene();
  fix_chain c[CHAINS];
  for (int k = 0; k < CHAINS; k++) c[k] = fix_chain_make(scene, 0, 5, 3.0f * k, lengths[k], 0.3f);
  tress_sim *sim = fix_sim(scene, CHAINS, 1e6f);
  for (int k = 0; k < CHAINS; k++) assert_int_equal(tress_sim_bind(sim, c[k].part, NULL, NULL), TRESS_OK);
  float worst = 0.0f, prev_rel[3] = {0, 0, 0}, prev_step[3] = {0, 0, 0};
  *worst_jerk = 0.0f;
  int frames = (int)(seconds * fps);
  for (int i = 1; i <= frames; i++) {
    double t = (double)i / fps;
    for (int k = 0; k < CHAINS; k++) {
      tress_xform x = head_at(t + 0.1 * k);
      x.p[2] = 3.0f * k;
      tress_part_set_cframe(scene, c[k].part, x);
    }
    assert_int_equal(tress_sim_step(sim, 1.0 / fps), TRESS_OK);
    float p[CHAINS][FIX_MAX_BONES][3];
    for (int k = 0; k < CHAINS; k++) {
      for (int b = 0; b < c[k].count; b++) fix_world_pos(scene, c[k].bones[b], p[k][b]);
      for (int b = 1; b < c[k].count; b++) {
        float d = fabsf(fix_dist(p[k][b], p[k][b - 1]) - c[k].link);
        if (d > worst) worst = d;
      }
    }
    /* the tip seen from the root: its frame-to-frame motion changes smoothly (no sawtooth) */
    float rel[3], step[3];
    for (int k = 0; k < 3; k++) {
      rel[k] = p[0][c[0].count - 1][k] - p[0][0][k];
      step[k] = rel[k] - prev_rel[k];
    }
    if (i > fps / 2) {
      float jerk = fix_dist(step, prev_step);
      if (jerk > *worst_jerk) *worst_jerk = jerk;
    }
    memcpy(prev_rel, rel, sizeof rel);
    memcpy(prev_step, step, sizeof step);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return worst;
}

static void test_frames_between_steps_draw_the_chain_attached(void **state) {
  (void)state;
  float jerk60, jerk144, jerk100;
  float s60 = worst_stretch(60, 3.0, &jerk60);
  float s144 = worst_stretch(144, 3.0, &jerk144);
  float s100 = worst_stretch(100, 3.0, &jerk100);
  print_message("worst link stretch: 60 fps %.2e, 144 fps %.2e, 100 fps %.2e; worst tip jerk %.2e %.2e %.2e\n",
                (double)s60, (double)s144, (double)s100, (double)jerk60, (double)jerk144, (double)jerk100);
  assert_true(s60 < 1e-4f);
  assert_true(s144 < 1e-3f);
  assert_true(s100 < 1e-3f);
  /* per-frame tip motion seen from the root changes about as smoothly as at 60 fps */
  assert_true(jerk144 < 2.0f * jerk60 + 1e-3f);
  assert_true(jerk100 < 2.0f * jerk60 + 1e-3f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frames_between_steps_draw_the_chain_attached),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
