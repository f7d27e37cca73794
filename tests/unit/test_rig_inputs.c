/* test_rig_inputs.c - rig() names the actual problem with a mesh it cannot rig (every vertex at one
 * point, faces of zero area, a mesh flat across the growth axis, a root past every vertex) rather
 * than the plan's "every vertex is at or above the root plane"; and plan() reports the options it
 * clamps (max_influences) as a warning naming the option, the value given and the value used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tress/rig.h"
#include "tress/sample_hair.h"

/* One triangle (indexed) at the given corners. */
static tress_mesh *triangle(const float corners[9]) {
  tress_mesh_def def = {.vertex_count = 3, .index_count = 3};
  tress_mesh *m = tress_mesh_create(&def);
  memcpy(m->positions, corners, 9 * sizeof(float));
  for (uint32_t i = 0; i < 3; i++) m->indices[i] = i;
  return m;
}

static void assert_rig_refused(tress_mesh *m, const tress_rig_opts *opts, const char *why) {
  tress_rig_output out;
  tress_error err = {0};
  assert_int_equal(tress_rig_mesh(m, opts, &out, &err), TRESS_RIG_ERR_PLAN);
  if (!strstr(err.message, why)) fail_msg("expected \"%s\" in: %s", why, err.message);
  assert_null(strstr(err.message, "above the root plane"));
  assert_null(out.mesh);
  tress_mesh_release(m);
}

static void test_vertices_at_one_point(void **state) {
  (void)state;
  const float p[9] = {0.1f, 1.0f, 0.2f, 0.1f, 1.0f, 0.2f, 0.1f, 1.0f, 0.2f};
  assert_rig_refused(triangle(p), NULL, "all 3 vertices are at one point");
}

static void test_zero_area_face(void **state) {
  (void)state;
  /* Collinear corners along the growth axis: depth enough for a plan, but no surface. */
  const float line[9] = {0, 1, 0, 0, 0.5f, 0, 0, 0, 0};
  assert_rig_refused(triangle(line), NULL, "its 1 face is degenerate (zero area");
  /* Two corners coincident. */
  const float two[9] = {0, 1, 0, 0, 1, 0, 0.3f, 0.2f, 0.1f};
  assert_rig_refused(triangle(two), NULL, "degenerate (zero area");
  /* Many faces, all degenerate: a ribbon folded onto a line. */
  tress_mesh_def def = {.vertex_count = 8, .index_count = 18};
  tress_mesh *ribbon = tress_mesh_create(&def);
  for (uint32_t v = 0; v < 8; v++) ribbon->positions[3 * v + 1] = 1.0f - 0.25f * (float)(v / 2);
  for (uint32_t q = 0; q < 3; q++) {
    uint32_t a = 2 * q, tri[6] = {a, a + 2, a + 1, a + 1, a + 2, a + 3};
    memcpy(ribbon->indices + 6 * q, tri, sizeof tri);
  }
  assert_rig_refused(ribbon, NULL, "all its 6 faces are degenerate");
}

static void test_flat_across_the_axis(void **state) {
  (void)state;
  /* A good triangle lying in the plane the default axis (0, -1, 0) is normal to. */
  const float flat[9] = {0, 1, 0, 1, 1, 0, 0, 1, 1};
  assert_rig_refused(triangle(flat), NULL, "flat across the growth axis");
  /* The same triangle rigs along an axis it spans. */
  tress_mesh *m = triangle(flat);
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.axis[0] = 1.0f;
  opts.plan.axis[1] = 0.0f;
  opts.plan.sectors = 1;
  opts.plan.segments = 1;
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(m, &opts, &out, NULL), TRESS_RIG_OK);
  tress_rig_output_free(&out);
  tress_mesh_release(m);
}

static void test_root_past_every_vertex(void **state) {
  (void)state;
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.has_root = true;
  opts.plan.root[1] = -5.0f; /* below the whole bob, with the axis pointing down */
  assert_rig_refused(tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB), &opts, "the root (0, -5, 0) is past every vertex");
}

/* A mesh with one degenerate face among good ones still rigs (only a mesh with no area fails). */
static void test_some_degenerate_faces_rig(void **state) {
  (void)state;
  tress_mesh *bob = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  bob->indices[1] = bob->indices[0];
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(bob, NULL, &out, NULL), TRESS_RIG_OK);
  tress_rig_output_free(&out);
  tress_mesh_release(bob);
}

static void test_max_influences_clamp_reported(void **state) {
  (void)state;
  tress_mesh *bob = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  struct { uint32_t given, used; bool warned; } cases[] = {{0, 1, true}, {6, 4, true}, {4, 4, false}, {1, 1, false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tress_plan_opts opts = tress_default_plan_opts();
    opts.has_root = true;
    opts.root[1] = 1.2f;
    opts.max_influences = cases[i].given;
    tress_plan_result p;
    assert_int_equal(tress_plan_build(bob->positions, bob->vertex_count, &opts, &p), TRESS_PLAN_OK);
    assert_int_equal(p.max_influences, cases[i].used);
    assert_int_equal((p.warnings & TRESS_PLAN_WARN_OPTION_CLAMPED) != 0, cases[i].warned);
    char text[64];
    snprintf(text, sizeof text, "max_influences %u clamped to %u", cases[i].given, cases[i].used);
    assert_int_equal(strstr(p.warning_text, text) != NULL, cases[i].warned);
    tress_plan_result_free(&p);
  }
  tress_mesh_release(bob);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vertices_at_one_point),
    cmocka_unit_test(test_zero_area_face),
    cmocka_unit_test(test_flat_across_the_axis),
    cmocka_unit_test(test_root_past_every_vertex),
    cmocka_unit_test(test_some_degenerate_faces_rig),
    cmocka_unit_test(test_max_influences_clamp_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
