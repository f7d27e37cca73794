/* accessory_fixture.h - characters with accessories worn through each joint kind, for the pendulum
 * and bind_character tests. Header-only (static functions): each test stays one translation unit. */
#ifndef TRESS_TEST_ACCESSORY_FIXTURE_H
#define TRESS_TEST_ACCESSORY_FIXTURE_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/sim.h"
#include "support/scene_build.h"

/* A character: Workspace/Character with a Head part at (0, 5, 0). */
typedef struct acc_character {
  tress_scene *scene;
  tress_id workspace, model, head;
} acc_character;

/* One accessory worn on the head. */
typedef struct acc_worn {
  tress_id accessory, handle, joint;
  tress_id handle_attachment, body_attachment; /* RigidConstraint; WeldConstraint: handle's only */
  tress_joint_kind kind;
  bool handle_is_side0;
} acc_worn;

static inline acc_character acc_character_make(void) {
  acc_character c;
  c.scene = th_scene();
  assert_non_null(c.scene);
  c.workspace = th_instance(c.scene, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(c.scene));
  c.model = th_instance(c.scene, TRESS_KIND_MODEL, "Character", c.workspace);
  c.head = th_instance(c.scene, TRESS_KIND_PART, "Head", c.model);
  tress_part_set_cframe(c.scene, c.head, tress_xform_from_pos(0, 5, 0));
  float size[3] = {2, 1, 1};
  tress_part_set_size(c.scene, c.head, size);
  return c;
}

static inline tress_xform acc_rot(float ax, float ay, float az, float degrees, float px, float py, float pz) {
  float axis[3] = {ax, ay, az};
  tress_xform t = tress_xform_from_axis_angle(axis, degrees * (float)(M_PI / 180.0));
  t.p[0] = px; t.p[1] = py; t.p[2] = pz;
  return t;
}

/* The body-side frame of the hinge: on top of the head, turned a little so nothing is axis-aligned. */
static inline tress_xform acc_body_side(void) { return acc_rot(0, 1, 0, 10, 0.05f, 0.5f, 0.0f); }

/* The handle-side offset: the handle centre hangs ~0.8 below and behind the hinge, tilted. A
 * centred handle has its joint at its own centre (zero offset position). */
static inline tress_xform acc_handle_side(bool centred) {
  return centred ? acc_rot(1, 0, 0, 15, 0, 0, 0) : acc_rot(1, 0, 0, 15, 0.1f, 0.8f, 0.15f);
}

/* An accessory on c.head worn through `kind`. handle_is_side0 puts the handle on part0 /
 * attachment0. The handle is placed where the joint holds it. */
static inline acc_worn acc_wear(acc_character *c, const char *name, tress_accessory_type type, tress_joint_kind kind,
                         bool handle_is_side0, bool centred) {
  tress_scene *s = c->scene;
  acc_worn w;
  memset(&w, 0, sizeof w);
  w.kind = kind;
  w.handle_is_side0 = handle_is_side0;
  w.accessory = th_instance(s, TRESS_KIND_ACCESSORY, name, c->model);
  tress_accessory_set_type(s, w.accessory, type);
  w.handle = th_instance(s, TRESS_KIND_PART, "Handle", w.accessory);
  float size[3] = {1, 1.6f, 1};
  tress_part_set_size(s, w.handle, size);
  tress_xform body_side = acc_body_side(), handle_side = acc_handle_side(centred);
  tress_xform hinge = tress_xform_mul(tress_part_get_cframe(s, c->head), body_side);
  tress_part_set_cframe(s, w.handle, tress_xform_mul(hinge, tress_xform_inverse(handle_side)));
  tress_joint def;
  memset(&def, 0, sizeof def);
  def.kind = kind;
  def.enabled = true;
  switch (kind) {
  case TRESS_JOINT_WELD:
  case TRESS_JOINT_MOTOR6D:
    w.joint = th_instance(s, TRESS_KIND_JOINT, "AccessoryWeld", w.handle);
    def.part0 = handle_is_side0 ? w.handle : c->head;
    def.part1 = handle_is_side0 ? c->head : w.handle;
    def.c0 = handle_is_side0 ? handle_side : body_side;
    def.c1 = handle_is_side0 ? body_side : handle_side;
    break;
  case TRESS_JOINT_RIGID_CONSTRAINT:
    w.handle_attachment = th_instance(s, TRESS_KIND_ATTACHMENT, "HairAttachment", w.handle);
    tress_attachment_set_cframe(s, w.handle_attachment, handle_side);
    w.body_attachment = th_instance(s, TRESS_KIND_ATTACHMENT, "HairAttachment", c->head);
    tress_attachment_set_cframe(s, w.body_attachment, body_side);
    w.joint = th_instance(s, TRESS_KIND_JOINT, "AccessoryConstraint", w.handle);
    def.attachment0 = handle_is_side0 ? w.handle_attachment : w.body_attachment;
    def.attachment1 = handle_is_side0 ? w.body_attachment : w.handle_attachment;
    break;
  case TRESS_JOINT_WELD_CONSTRAINT:
    if (!centred) {
      w.handle_attachment = th_instance(s, TRESS_KIND_ATTACHMENT, "HairAttachment", w.handle);
      tress_attachment_set_cframe(s, w.handle_attachment, handle_side);
    }
    w.joint = th_instance(s, TRESS_KIND_JOINT, "AccessoryWeldConstraint", w.handle);
    def.part0 = handle_is_side0 ? w.handle : c->head;
    def.part1 = handle_is_side0 ? c->head : w.handle;
    break;
  }
  tress_joint_set_def(s, w.joint, &def);
  /* an engine would have solved the joint once: handle on side 1 gets exactly the solver's pose */
  if (!handle_is_side0) assert_true(tress_joint_solve(s, w.joint));
  return w;
}

static inline tress_sim *acc_sim(tress_scene *scene, tress_wind_fn wind, void *wind_user, int max_chains, float max_distance) {
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.wind = wind;
  def.wind_user = wind_user;
  def.max_chains = max_chains;
  def.max_distance = max_distance;
  tress_sim *sim = tress_sim_create(&def);
  assert_non_null(sim);
  return sim;
}

/* A constant wind the test can change between frames. */
static inline void acc_wind(void *user, double t, float out[3]) {
  (void)t;
  memcpy(out, user, 3 * sizeof(float));
}

static inline bool acc_xform_bits_equal(tress_xform a, tress_xform b) {
  return memcmp(a.p, b.p, sizeof a.p) == 0 && memcmp(a.q, b.q, sizeof a.q) == 0;
}

static inline float acc_quat_angle_deg(const float a[4], const float b[4]) {
  double d = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
  if (d > 1.0) d = 1.0;
  return (float)(2.0 * acos(d) * 180.0 / M_PI);
}

/* A copy of the joint's definition now (zeroed for a stale id). */
static inline tress_joint acc_joint(const tress_scene *s, tress_id joint) {
  tress_joint j;
  memset(&j, 0, sizeof j);
  tress_joint_get_def(s, joint, &j);
  return j;
}

/* The handle-side offset the joint holds now (the attachment cframe for a RigidConstraint). */
static inline tress_xform acc_handle_offset(const tress_scene *s, tress_id joint, tress_id handle_attachment, bool side0) {
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(s, joint, &j_copy) ? &j_copy : NULL;
  assert_non_null(j);
  if (j->kind == TRESS_JOINT_RIGID_CONSTRAINT) return tress_attachment_get_cframe(s, handle_attachment);
  return side0 ? j->c0 : j->c1;
}

/* Everything a refused bind must leave alone. */
typedef struct acc_scene_state {
  uint32_t instances;
  tress_joint joint;
  tress_xform handle_cframe, handle_attachment, body_attachment;
} acc_scene_state;

static inline acc_scene_state acc_state(const tress_scene *s, const acc_worn *w) {
  acc_scene_state st;
  memset(&st, 0, sizeof st);
  st.instances = tress_scene_get_instance_count(s);
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(s, w->joint, &j_copy) ? &j_copy : NULL;
  if (j) st.joint = *j;
  st.handle_cframe = tress_part_get_cframe(s, w->handle);
  st.handle_attachment = tress_attachment_get_cframe(s, w->handle_attachment);
  st.body_attachment = tress_attachment_get_cframe(s, w->body_attachment);
  return st;
}

static inline void acc_assert_state_equal(const acc_scene_state *a, const acc_scene_state *b) {
  assert_int_equal(a->instances, b->instances);
  assert_int_equal(a->joint.kind, b->joint.kind);
  assert_int_equal(a->joint.enabled, b->joint.enabled);
  assert_true(tress_id_is_equal(a->joint.part0, b->joint.part0) && tress_id_is_equal(a->joint.part1, b->joint.part1));
  /* memcmp, not ==: a NaN offset must come back as the same NaN bits */
  assert_true(acc_xform_bits_equal(a->joint.c0, b->joint.c0));
  assert_true(acc_xform_bits_equal(a->joint.c1, b->joint.c1));
  assert_true(acc_xform_bits_equal(a->handle_cframe, b->handle_cframe));
  assert_true(acc_xform_bits_equal(a->handle_attachment, b->handle_attachment));
  assert_true(acc_xform_bits_equal(a->body_attachment, b->body_attachment));
}

static inline void acc_run(tress_sim *sim, double dt, int frames) {
  for (int i = 0; i < frames; i++) assert_int_equal(tress_sim_step(sim, dt), TRESS_OK);
}

#endif
