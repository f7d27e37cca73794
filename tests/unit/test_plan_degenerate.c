/* test_plan_degenerate.c - plan() and rig() on degenerate meshes a glTF can carry: finite but
 * huge coordinates (their differences overflow to infinity), a hair that is a single point, and
 * all vertices on the root plane. Each is refused with a status or planned, never a float to
 * integer conversion out of range (the sanitizer build has -fsanitize=float-cast-overflow, which
 * aborts on one). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/gltf.h"
#include "tress/plan.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"

/* A sample hair with a few vertices moved to `far` (and -far): written as a .glb and read back,
 * as the server would get it from a store. */
static tress_mesh *hair_with_far_vertices(float far) {
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  assert_non_null(m);
  for (uint32_t v = 0; v < 6; v++) {
    float s = v % 2 ? -1.0f : 1.0f;
    m->positions[3 * v + v % 3] = s * far;
  }
  uint8_t *glb = NULL;
  size_t size = 0;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory(m, &glb, &size, &err), 0);
  tress_mesh_release(m);
  tress_mesh *back = tress_gltf_read_memory(glb, size, NULL, &err);
  free(glb);
  if (!back) fail_msg("read back: %s", err.message);
  return back;
}

static void check_plan_result(tress_plan_status st, const tress_plan_result *r) {
  print_message("plan: %s\n", tress_plan_status_name(st));
  if (st != TRESS_PLAN_OK) return;
  for (uint32_t b = 0; b < r->bone_count; b++)
    for (int k = 0; k < 3; k++) assert_false(isnan(r->bones[b].position[k]));
}

/* Coordinates near FLT_MAX: the vertex-to-root differences overflow to infinity. */
static void test_huge_coordinates(void **state) {
  (void)state;
  const float fars[3] = {1e30f, 1e37f, 3e38f};
  for (int i = 0; i < 3; i++) {
    tress_mesh *m = hair_with_far_vertices(fars[i]);
    tress_rig_opts opts = tress_default_rig_opts();
    tress_rig_output out;
    memset(&out, 0, sizeof out);
    tress_error err = {0};
    tress_rig_status st = tress_rig_mesh(m, &opts, &out, &err);
    print_message("far %g: rig %d %s\n", (double)fars[i], (int)st, err.message);
    if (st == TRESS_RIG_OK) tress_rig_output_free(&out);
    /* and plan() directly, rooted at the origin */
    tress_plan_opts po = tress_default_plan_opts();
    po.has_root = true;
    po.root[0] = 0.0f, po.root[1] = fars[i], po.root[2] = 0.0f;
    tress_plan_result r;
    tress_plan_status ps = tress_plan_build(m->positions, m->vertex_count, &po, &r);
    check_plan_result(ps, &r);
    if (ps == TRESS_PLAN_OK) tress_plan_result_free(&r);
    tress_mesh_release(m);
  }
}

/* Every vertex at one point below the root, and every vertex on the root plane. */
static void test_point_and_flat_hair(void **state) {
  (void)state;
  float pts[3 * 30];
  for (int i = 0; i < 30; i++) pts[3 * i] = 0.0f, pts[3 * i + 1] = -1.0f, pts[3 * i + 2] = 0.0f;
  tress_plan_opts po = tress_default_plan_opts();
  po.has_root = true;
  tress_plan_result r;
  tress_plan_status ps = tress_plan_build(pts, 30, &po, &r);
  check_plan_result(ps, &r);
  if (ps == TRESS_PLAN_OK) tress_plan_result_free(&r);
  for (int i = 0; i < 30; i++) pts[3 * i + 1] = 0.0f, pts[3 * i] = (float)i;
  assert_int_equal(tress_plan_build(pts, 30, &po, &r), TRESS_PLAN_ERR_ABOVE_ROOT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_huge_coordinates),
    cmocka_unit_test(test_point_and_flat_hair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
