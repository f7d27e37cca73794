/* test_joint_place.c - tress_joint_place, the one joint-frame rule the scene's solver, the
 * pendulum and the client's replica place handles with: either side of a Weld/Motor6D,
 * RigidConstraint or WeldConstraint lands where the joint holds it from the other side. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tress/scene.h"
#include "support/scene_build.h"

typedef struct rig2 {
  tress_scene *scene;
  tress_id body, handle, joint;
} rig2;

static tress_xform turned(float x, float y, float z, float radians) {
  const float axis[3] = {0.3f, 1.0f, -0.2f};
  tress_xform r = tress_xform_from_axis_angle(axis, radians);
  return tress_xform_mul(tress_xform_from_pos(x, y, z), r);
}

static void make(rig2 *r) {
  r->scene = th_scene();
  tress_id root = tress_scene_get_root(r->scene);
  r->body = th_instance(r->scene, TRESS_KIND_PART, "Head", root);
  r->handle = th_instance(r->scene, TRESS_KIND_PART, "Handle", root);
  r->joint = th_instance(r->scene, TRESS_KIND_JOINT, "Joint", r->handle);
  tress_part_set_cframe(r->scene, r->body, turned(1.0f, 2.0f, 3.0f, 0.7f));
  tress_part_set_cframe(r->scene, r->handle, tress_xform_from_pos(40.0f, 0.0f, 0.0f)); /* far from held */
}

static void weld(rig2 *r, bool handle_is_part0) {
  tress_joint j = {0};
  j.kind = TRESS_JOINT_WELD;
  j.part0 = handle_is_part0 ? r->handle : r->body;
  j.part1 = handle_is_part0 ? r->body : r->handle;
  j.c0 = turned(0.0f, 0.5f, 0.1f, 0.4f);
  j.c1 = turned(0.2f, -0.3f, 0.0f, -1.1f);
  j.enabled = true;
  tress_joint_set_def(r->scene, r->joint, &j);
}

static float weld_error(const rig2 *r) {
  tress_joint j;
  assert_true(tress_joint_get_def(r->scene, r->joint, &j));
  tress_xform a = tress_xform_mul(tress_part_get_cframe(r->scene, j.part0), j.c0);
  tress_xform b = tress_xform_mul(tress_part_get_cframe(r->scene, j.part1), j.c1);
  return tress_xform_distance(a, b);
}

static void test_weld_places_either_side(void **state) {
  (void)state;
  for (int side = 0; side < 2; side++) {
    rig2 r;
    make(&r);
    weld(&r, side == 0);
    assert_true(weld_error(&r) > 1.0f);
    tress_xform body = tress_part_get_cframe(r.scene, r.body);
    assert_true(tress_joint_place(r.scene, r.joint, r.handle));
    assert_true(weld_error(&r) < 1e-5f);
    assert_true(tress_xform_distance(tress_part_get_cframe(r.scene, r.body), body) == 0.0f); /* the body stays */
    tress_scene_destroy(r.scene);
  }
}

static void test_rigid_constraint_places_either_side(void **state) {
  (void)state;
  for (int side = 0; side < 2; side++) {
    rig2 r;
    make(&r);
    tress_id on_handle = th_instance(r.scene, TRESS_KIND_ATTACHMENT, "HandleAttachment", r.handle);
    tress_id on_body = th_instance(r.scene, TRESS_KIND_ATTACHMENT, "HatAttachment", r.body);
    tress_attachment_set_cframe(r.scene, on_handle, turned(0.0f, -0.2f, 0.0f, 0.3f));
    tress_attachment_set_cframe(r.scene, on_body, turned(0.0f, 0.6f, 0.1f, -0.5f));
    tress_joint j = {0};
    j.kind = TRESS_JOINT_RIGID_CONSTRAINT;
    j.attachment0 = side == 0 ? on_handle : on_body;
    j.attachment1 = side == 0 ? on_body : on_handle;
    j.enabled = true;
    tress_joint_set_def(r.scene, r.joint, &j);
    assert_true(tress_joint_place(r.scene, r.joint, r.handle));
    float d = tress_xform_distance(tress_attachment_get_world(r.scene, on_handle), tress_attachment_get_world(r.scene, on_body));
    assert_true(d < 1e-5f);
    tress_scene_destroy(r.scene);
  }
}

static void test_weld_constraint_keeps_its_captured_offset(void **state) {
  (void)state;
  for (int side = 0; side < 2; side++) {
    rig2 r;
    make(&r);
    tress_joint j = {0};
    j.kind = TRESS_JOINT_WELD_CONSTRAINT;
    j.part0 = side == 0 ? r.handle : r.body;
    j.part1 = side == 0 ? r.body : r.handle;
    j.enabled = true;
    tress_joint_set_def(r.scene, r.joint, &j); /* captures part0^-1 * part1 */
    tress_xform offset = tress_joint_get_weld_constraint_offset(r.scene, r.joint);
    tress_part_set_cframe(r.scene, r.body, turned(-3.0f, 1.0f, 0.5f, 2.0f)); /* the body moves on */
    assert_true(tress_joint_place(r.scene, r.joint, r.handle));
    tress_xform now = tress_xform_mul(tress_xform_inverse(tress_part_get_cframe(r.scene, j.part0)),
                                      tress_part_get_cframe(r.scene, j.part1));
    assert_true(tress_xform_distance(now, offset) < 1e-4f); /* float error of a 40-unit offset */
    tress_scene_destroy(r.scene);
  }
}

static void test_refuses_a_part_it_does_not_hold_and_a_disabled_joint(void **state) {
  (void)state;
  rig2 r;
  make(&r);
  weld(&r, false);
  tress_id stranger = th_instance(r.scene, TRESS_KIND_PART, "Stranger", tress_scene_get_root(r.scene));
  tress_xform before = tress_part_get_cframe(r.scene, stranger);
  assert_false(tress_joint_place(r.scene, r.joint, stranger));
  assert_true(tress_xform_distance(tress_part_get_cframe(r.scene, stranger), before) == 0.0f);
  tress_joint_set_enabled(r.scene, r.joint, false);
  before = tress_part_get_cframe(r.scene, r.handle);
  assert_false(tress_joint_place(r.scene, r.joint, r.handle));
  assert_true(tress_xform_distance(tress_part_get_cframe(r.scene, r.handle), before) == 0.0f);
  tress_scene_destroy(r.scene);
}

static void test_solve_places_side_one(void **state) {
  (void)state;
  rig2 r;
  make(&r);
  weld(&r, false); /* body is part0, handle part1 */
  assert_true(tress_joint_solve(r.scene, r.joint));
  assert_true(weld_error(&r) < 1e-5f);
  tress_scene_destroy(r.scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weld_places_either_side),
      cmocka_unit_test(test_rigid_constraint_places_either_side),
      cmocka_unit_test(test_weld_constraint_keeps_its_captured_offset),
      cmocka_unit_test(test_refuses_a_part_it_does_not_hold_and_a_disabled_joint),
      cmocka_unit_test(test_solve_places_side_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
