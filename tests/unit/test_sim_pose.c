/* test_sim_pose.c - tress/pose.h: a game's skeleton names resolve once to a model's parts and
 * bones, then the game's own strided array is copied in per frame: parts at root * pose, bones
 * into their animated slot (as is or from a parent-relative local frame); a head posed this way
 * carries its hair root exactly while the tips lag; a 60-bone skeleton's apply + step allocate
 * nothing; bad input is refused. */
#include <stdio.h>

#include "support/alloc_count.h"
#include "support/sim_fixture.h"

#include "tress/pose.h"
#include "support/scene_build.h"

enum { LIMBS = 5, LIMB_BONES = 12, SKELETON_BONES = LIMBS * LIMB_BONES, ENTRIES = SKELETON_BONES + 3 };

/* The game's pose entry: position, rotation and a scale tress ignores (read through strides). */
typedef struct game_pose {
  float position[3];
  float rotation[4];
  float scale[3];
} game_pose;

typedef struct rig {
  tress_scene *scene;
  tress_id model, torso, head, hair[6];
  tress_id bones[SKELETON_BONES];
  char names[ENTRIES][32];
  const char *name_list[ENTRIES];
  game_pose poses[ENTRIES];
} rig;

static void rig_make(rig *r) {
  memset(r, 0, sizeof *r);
  r->scene = th_scene();
  r->model = th_instance(r->scene, TRESS_KIND_MODEL, "Character", tress_scene_get_root(r->scene));
  r->torso = th_instance(r->scene, TRESS_KIND_PART, "Torso", r->model);
  r->head = th_instance(r->scene, TRESS_KIND_PART, "Head", r->model);
  tress_part_set_cframe(r->scene, r->torso, tress_xform_from_pos(0, 3, 0));
  tress_part_set_cframe(r->scene, r->head, tress_xform_from_pos(0, 4.5f, 0));
  /* the game's skeleton: five limbs of twelve bones under the torso */
  for (int l = 0; l < LIMBS; l++) {
    tress_id parent = r->torso;
    for (int b = 0; b < LIMB_BONES; b++) {
      int i = l * LIMB_BONES + b;
      snprintf(r->names[i], sizeof r->names[i], "Limb%d_%d", l, b);
      r->bones[i] = th_instance(r->scene, TRESS_KIND_BONE, r->names[i], parent);
      tress_bone_set_cframe(r->scene, r->bones[i], tress_xform_from_pos(0.1f * (float)(l - 2), -0.2f, 0));
      parent = r->bones[i];
    }
  }
  /* hair hanging behind the head: a pinned root and five links straight down */
  tress_id parent = r->head;
  for (int b = 0; b < 6; b++) {
    r->hair[b] = th_instance(r->scene, TRESS_KIND_BONE, b ? "Strand" : "HairRoot", parent);
    tress_bone_set_cframe(r->scene, r->hair[b], b ? tress_xform_from_pos(0, -0.3f, 0) : tress_xform_from_pos(0, 0.4f, -0.5f));
    parent = r->hair[b];
  }
  snprintf(r->names[SKELETON_BONES], 32, "Torso");
  snprintf(r->names[SKELETON_BONES + 1], 32, "Head");
  snprintf(r->names[SKELETON_BONES + 2], 32, "Head/HairRoot");
  for (int i = 0; i < ENTRIES; i++) {
    r->name_list[i] = r->names[i];
    r->poses[i].rotation[3] = 1.0f;
  }
}

static tress_pose_array rig_array(rig *r) {
  tress_pose_array a = {r->poses[0].position, r->poses[0].rotation, sizeof(game_pose), sizeof(game_pose), ENTRIES};
  return a;
}

static tress_pose_map *rig_map(rig *r, tress_bone_pose_space space) {
  tress_pose_map_def def = tress_default_pose_map_def();
  def.scene = r->scene;
  def.model = r->model;
  def.names = r->name_list;
  def.count = ENTRIES;
  def.bone_space = space;
  tress_pose_map *map = tress_pose_map_create(&def);
  assert_non_null(map);
  return map;
}

static void set_pose(game_pose *g, tress_xform x) {
  memcpy(g->position, x.p, sizeof g->position);
  memcpy(g->rotation, x.q, sizeof g->rotation);
}

static tress_xform rotation_x(float degrees) {
  float half = 0.5f * degrees * (float)M_PI / 180.0f;
  tress_xform t = {{0, 0, 0}, {sinf(half), 0, 0, cosf(half)}};
  return t;
}

static float dist(const float a[3], const float b[3]) {
  return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void test_names_resolve_once(void **state) {
  (void)state;
  rig r;
  rig_make(&r);
  snprintf(r.names[5], 32, "mixamorig:Unknown");
  tress_pose_map *map = rig_map(&r, TRESS_BONE_POSE_ANIMATED);
  assert_int_equal(tress_pose_map_get_matched_count(map), ENTRIES - 1);
  assert_true(tress_id_is_null(tress_pose_map_get_instance(map, 5)));
  assert_true(tress_id_is_equal(tress_pose_map_get_instance(map, 7), r.bones[7]));
  assert_true(tress_id_is_equal(tress_pose_map_get_instance(map, SKELETON_BONES + 1), r.head));
  assert_true(tress_id_is_equal(tress_pose_map_get_instance(map, SKELETON_BONES + 2), r.hair[0]));
  /* a bone added later under the model resolves on refresh */
  tress_id late = th_instance(r.scene, TRESS_KIND_BONE, "mixamorig:Unknown", r.head);
  assert_int_equal(tress_pose_map_get_matched_count(map), ENTRIES - 1);
  tress_pose_map_refresh(map);
  assert_true(tress_id_is_equal(tress_pose_map_get_instance(map, 5), late));
  tress_pose_map_destroy(map);
  tress_scene_destroy(r.scene);
}

static void test_apply_writes_parts_and_bones(void **state) {
  (void)state;
  rig r;
  rig_make(&r);
  tress_pose_map *map = rig_map(&r, TRESS_BONE_POSE_ANIMATED);
  tress_pose_array a = rig_array(&r);
  set_pose(&r.poses[SKELETON_BONES + 1], tress_xform_from_pos(0, 1.5f, 0));
  tress_xform nudge = rotation_x(10.0f);
  nudge.p[2] = 0.2f;
  set_pose(&r.poses[3], nudge);
  tress_xform root = tress_xform_from_pos(10, 0, 0);
  assert_int_equal(tress_pose_map_apply(map, root, &a), TRESS_OK);
  tress_xform head = tress_part_get_cframe(r.scene, r.head);
  assert_true(dist(head.p, (float[3]){10, 1.5f, 0}) < 1e-6f);
  tress_xform got = tress_bone_get_animated(r.scene, r.bones[3]);
  assert_true(dist(got.p, nudge.p) < 1e-6f && fabsf(got.q[0] - nudge.q[0]) < 1e-6f);
  tress_pose_map_destroy(map);

  /* local space: the full parent-relative frame; the animated slot gets cframe^-1 * pose */
  map = rig_map(&r, TRESS_BONE_POSE_LOCAL);
  assert_int_equal(tress_pose_map_apply(map, root, &a), TRESS_OK);
  tress_xform world = tress_xform_mul(tress_bone_get_cframe(r.scene, r.bones[3]), tress_bone_get_animated(r.scene, r.bones[3]));
  assert_true(dist(world.p, nudge.p) < 1e-6f && fabsf(world.q[0] - nudge.q[0]) < 1e-6f);
  tress_pose_map_destroy(map);
  tress_scene_destroy(r.scene);
}

static void test_a_posed_head_carries_the_hair(void **state) {
  (void)state;
  rig r;
  rig_make(&r);
  tress_sim *sim = fix_sim(r.scene, 100, 1e5f);
  assert_int_equal(tress_sim_bind(sim, r.head, NULL, NULL), TRESS_OK);
  tress_pose_map *map = rig_map(&r, TRESS_BONE_POSE_ANIMATED);
  tress_pose_array a = rig_array(&r);
  tress_xform head_rest = tress_xform_from_pos(0, 4.5f, 0);
  set_pose(&r.poses[SKELETON_BONES], tress_xform_from_pos(0, 3, 0));
  set_pose(&r.poses[SKELETON_BONES + 1], head_rest);
  for (int f = 0; f < 120; f++) {
    assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_OK);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  }
  tress_xform root_rest = tress_bone_get_world(r.scene, r.hair[0]);
  tress_xform tip_rest = tress_bone_get_world(r.scene, r.hair[5]);
  tress_xform carry = tress_xform_identity();
  for (int f = 1; f <= 18; f++) {
    tress_xform head = tress_xform_mul(head_rest, rotation_x(30.0f * (float)f / 18.0f));
    set_pose(&r.poses[SKELETON_BONES + 1], head);
    assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_OK);
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    carry = tress_xform_mul(head, tress_xform_inverse(head_rest));
    tress_xform want = tress_xform_mul(carry, root_rest);
    assert_true(dist(want.p, tress_bone_get_world(r.scene, r.hair[0]).p) < 1e-4f);
  }
  float rigid[3];
  tress_xform_point(carry, tip_rest.p, rigid);
  const float *tip = tress_bone_get_world(r.scene, r.hair[5]).p;
  float moved = dist(rigid, tip_rest.p), lag = dist(tip, rigid);
  float behind = (tip[0] - rigid[0]) * (rigid[0] - tip_rest.p[0]) + (tip[1] - rigid[1]) * (rigid[1] - tip_rest.p[1]) +
                 (tip[2] - rigid[2]) * (rigid[2] - tip_rest.p[2]);
  print_message("sim nod 30 deg: tip moved %.3f, lags %.3f\n", (double)moved, (double)lag);
  assert_true(lag > 0.05f * moved);
  assert_true(behind < 0.0f);
  tress_pose_map_destroy(map);
  tress_sim_destroy(sim);
  tress_scene_destroy(r.scene);
}

static void test_60_bone_skeleton_allocates_nothing_per_frame(void **state) {
  (void)state;
  alloc_count_install();
  rig r;
  rig_make(&r);
  tress_sim *sim = fix_sim(r.scene, 100, 1e5f);
  assert_int_equal(tress_sim_bind(sim, r.head, NULL, NULL), TRESS_OK);
  tress_pose_map *map = rig_map(&r, TRESS_BONE_POSE_LOCAL);
  assert_int_equal(tress_pose_map_get_matched_count(map), ENTRIES);
  tress_pose_array a = rig_array(&r);
  double t = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) alloc_count_start();
    for (int f = 0; f < 200; f++) {
      t += 1.0 / 60.0;
      for (int i = 0; i < SKELETON_BONES; i++) {
        tress_xform x = rotation_x(20.0f * (float)sin(3.0 * t + i));
        x.p[1] = -0.2f;
        set_pose(&r.poses[i], x);
      }
      set_pose(&r.poses[SKELETON_BONES + 1], tress_xform_mul(tress_xform_from_pos(0, 4.5f, 0), rotation_x(20.0f * (float)sin(5.0 * t))));
      assert_int_equal(tress_pose_map_apply(map, tress_xform_from_pos((float)t, 0, 0), &a), TRESS_OK);
      assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
    }
    if (pass == 1) {
      long calls = alloc_count_stop();
      print_message("allocations in 200 frames of a %d-bone pose map + step: %ld\n", SKELETON_BONES, calls);
      assert_int_equal(calls, 0);
    }
  }
  tress_pose_map_destroy(map);
  tress_sim_destroy(sim);
  tress_scene_destroy(r.scene);
}

static void test_bad_input_is_refused(void **state) {
  (void)state;
  rig r;
  rig_make(&r);
  tress_pose_map_def def = tress_default_pose_map_def();
  assert_null(tress_pose_map_create(&def)); /* no scene */
  def.scene = r.scene;
  assert_null(tress_pose_map_create(&def)); /* null model */
  def.model = r.model;
  def.count = 3;
  assert_null(tress_pose_map_create(&def)); /* names NULL */
  tress_pose_map *map = rig_map(&r, TRESS_BONE_POSE_ANIMATED);
  tress_pose_array a = rig_array(&r);
  a.count = ENTRIES - 1;
  assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_ERR_INVALID_ARGUMENT);
  a = rig_array(&r);
  a.rotations = NULL;
  assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_ERR_INVALID_ARGUMENT);
  a = rig_array(&r);
  /* a zero rotation is skipped: the head keeps its pose */
  memset(r.poses[SKELETON_BONES + 1].rotation, 0, sizeof r.poses[0].rotation);
  r.poses[SKELETON_BONES + 1].position[1] = 99.0f;
  assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_OK);
  assert_true(fabsf(tress_part_get_cframe(r.scene, r.head).p[1] - 4.5f) < 1e-6f);
  tress_instance_destroy(r.scene, r.model);
  assert_int_equal(tress_pose_map_apply(map, tress_xform_identity(), &a), TRESS_ERR_STALE_ID);
  tress_pose_map_destroy(map);
  tress_scene_destroy(r.scene);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_resolve_once),
      cmocka_unit_test(test_apply_writes_parts_and_bones),
      cmocka_unit_test(test_a_posed_head_carries_the_hair),
      cmocka_unit_test(test_60_bone_skeleton_allocates_nothing_per_frame),
      cmocka_unit_test(test_bad_input_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
