/* test_web_tuner.c - the live tuning page's solver side (client/web/src/tuner.c), natively: the
 * same calls the page makes through wasm. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tuner.h"

#define CHAINS 3
#define LINKS 3

/* A cape-like rig: a root under the head, CHAINS strands of LINKS bones hanging 0.4 m apart. */
static tress_tuner *make_rig(void) {
  tress_tuner *t = tress_tuner_create(1 + CHAINS * LINKS);
  assert_non_null(t);
  const float root[7] = {0, 0, -0.15f, 0, 0, 0, 1};
  assert_int_equal(tress_tuner_add_bone(t, "Root", -1, root), 0);
  for (int c = 0; c < CHAINS; c++) {
    int32_t parent = 0;
    for (int l = 0; l < LINKS; l++) {
      const float rest[7] = {l == 0 ? 0.5f * (float)(c - 1) : 0.0f, -0.4f, 0, 0, 0, 0, 1};
      int32_t b = tress_tuner_add_bone(t, "Strand", parent, rest);
      assert_true(b > 0);
      parent = b;
    }
  }
  assert_int_equal(tress_tuner_bind(t), 0);
  return t;
}

/* The head swung sideways for `frames` frames at 60 Hz; the first tip's x after them. */
static float swing(tress_tuner *t, int frames) {
  for (int f = 1; f <= frames; f++) {
    const float head[7] = {0.5f * sinf(6.0f * (float)f / 60.0f), 0, 0, 0, 0, 0, 1};
    tress_tuner_set_head(t, head);
    assert_int_equal(tress_tuner_step(t, 1.0 / 60.0), 0);
  }
  return tress_tuner_get_tips(t)[0];
}

static void test_setting_names_round_trip(void **state) {
  (void)state;
  for (int s = 0; s < TRESS_TUNER_SETTING_COUNT; s++) {
    tress_tuner_setting back;
    assert_true(tress_tuner_setting_from_name(tress_tuner_setting_name((tress_tuner_setting)s), &back));
    assert_int_equal(back, s);
  }
  tress_tuner_setting untouched = TRESS_TUNER_WEIGHT;
  assert_false(tress_tuner_setting_from_name("stifness", &untouched));
  assert_int_equal(untouched, TRESS_TUNER_WEIGHT);
  assert_string_equal(tress_tuner_setting_name(TRESS_TUNER_SETTING_COUNT), "unknown");
}

static void test_tips_are_the_leaves_at_rest(void **state) {
  (void)state;
  tress_tuner *t = make_rig();
  assert_int_equal(tress_tuner_get_bone_count(t), 1 + CHAINS * LINKS);
  assert_int_equal(tress_tuner_get_tip_count(t), CHAINS);
  const float *tips = tress_tuner_get_tips(t);
  for (int c = 0; c < CHAINS; c++) {
    assert_float_equal(tips[3 * c], 0.5f * (float)(c - 1), 1e-5f);
    assert_float_equal(tips[3 * c + 1], -0.4f * LINKS, 1e-5f);
    assert_float_equal(tips[3 * c + 2], -0.15f, 1e-5f);
  }
  const float late[7] = {0, 0, 0, 0, 0, 0, 1};
  assert_int_equal(tress_tuner_add_bone(t, "Late", 0, late), -1); /* the chains are bound */
  tress_tuner_destroy(t);
}

static void test_bad_parent_is_refused(void **state) {
  (void)state;
  tress_tuner *t = tress_tuner_create(4);
  const float rest[7] = {0, -0.4f, 0, 0, 0, 0, 1};
  assert_int_equal(tress_tuner_add_bone(t, "Ahead", 0, rest), -1); /* no bone 0 yet */
  assert_int_equal(tress_tuner_add_bone(t, "Root", -1, rest), 0);
  assert_int_equal(tress_tuner_add_bone(t, "Self", 1, rest), -1);
  assert_int_equal(tress_tuner_add_bone(t, "Below", -2, rest), -1);
  tress_tuner_destroy(t);
}

/* Simulated, the strands trail the head; disabled, they move with it rigidly. */
static void test_strands_sway_behind_the_head(void **state) {
  (void)state;
  tress_tuner *live = make_rig(), *rigid = make_rig();
  assert_int_equal(tress_tuner_set_setting(rigid, TRESS_TUNER_ENABLED, 0.0f), 0);
  float head_x = 0.5f * sinf(6.0f * 20.0f / 60.0f);
  float live_x = swing(live, 20), rigid_x = swing(rigid, 20);
  assert_float_equal(rigid_x, head_x - 0.5f, 1e-4f);
  assert_true(fabsf(live_x - rigid_x) > 0.02f);
  assert_true(tress_tuner_is_awake(live));
  tress_tuner_destroy(live);
  tress_tuner_destroy(rigid);
}

/* A setting changed after bind reaches the solver: the same motion ends elsewhere. */
static void test_setting_change_alters_the_motion(void **state) {
  (void)state;
  tress_tuner *base = make_rig(), *tuned = make_rig();
  assert_int_equal(tress_tuner_set_setting(tuned, TRESS_TUNER_STIFFNESS, 0.6f), 0);
  assert_float_equal(tress_tuner_get_setting(tuned, TRESS_TUNER_STIFFNESS), 0.6f, 0.0f);
  assert_float_equal(tress_tuner_get_setting(base, TRESS_TUNER_STIFFNESS), 0.1f, 1e-6f);
  assert_true(fabsf(swing(base, 30) - swing(tuned, 30)) > 0.01f);
  assert_int_not_equal(tress_tuner_set_setting(tuned, TRESS_TUNER_SETTING_COUNT, 1.0f), 0);
  tress_tuner_destroy(base);
  tress_tuner_destroy(tuned);
}

static uint32_t count_shapes(const float *shapes, uint32_t n, float kind, float role) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += shapes[i * TRESS_TUNER_SHAPE_FLOATS] == kind && shapes[i * TRESS_TUNER_SHAPE_FLOATS + 1] == role;
  return c;
}

/* The page's debug draw is the sim's: a simulated link per bone, strand radii once set. */
static void test_debug_draw_reports_the_chains(void **state) {
  (void)state;
  tress_tuner *t = make_rig();
  swing(t, 5);
  uint32_t bones = 1 + CHAINS * LINKS;
  uint32_t n = tress_tuner_debug_draw(t);
  const float *shapes = tress_tuner_get_debug_shapes(t);
  assert_true(count_shapes(shapes, n, 0 /* line */, 1 /* bone_simulated */) >= bones - 1);
  assert_int_equal(count_shapes(shapes, n, 2 /* sphere */, 2 /* strand_radius */), 0);
  assert_int_equal(tress_tuner_set_setting(t, TRESS_TUNER_RADIUS, 0.05f), 0);
  swing(t, 1);
  n = tress_tuner_debug_draw(t);
  assert_true(count_shapes(shapes, n, 2, 2) >= bones - 1);
  for (uint32_t i = 0; i < n; i++)
    if (shapes[i * TRESS_TUNER_SHAPE_FLOATS] == 2) assert_float_equal(shapes[i * TRESS_TUNER_SHAPE_FLOATS + 8], 0.05f, 1e-5f);
  tress_tuner_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_setting_names_round_trip),  cmocka_unit_test(test_tips_are_the_leaves_at_rest),
      cmocka_unit_test(test_bad_parent_is_refused),     cmocka_unit_test(test_strands_sway_behind_the_head),
      cmocka_unit_test(test_setting_change_alters_the_motion),  cmocka_unit_test(test_debug_draw_reports_the_chains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
