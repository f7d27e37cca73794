/* limit_excess.h - how far a drawn link lies outside its joint's rotation limit (tress/sim.h
 * "Rotation limits", the pose model's frame), rebuilt from a scene's drawn and animated bone
 * poses: for integration tests that only see a client's scene. Header-only (static inline). */
#ifndef TRESS_TEST_LIMIT_EXCESS_H
#define TRESS_TEST_LIMIT_EXCESS_H

#include <math.h>
#include <string.h>

#include "tress/math.h"
#include "tress/scene.h"
#include "tress/sim.h"

static inline tress_id limit_parent_bone(const tress_scene *scene, tress_id bone) {
  tress_id p = tress_instance_get_parent(scene, bone);
  return tress_instance_get_kind(scene, p) == TRESS_KIND_BONE ? p : (tress_id){0};
}

/* Radians the link from joint to tail lies outside lim (<= 0 inside), in the frame sim.h
 * defines for the pose model, rebuilt from the drawn and animated poses: the joint's animated
 * rotation turned by the arc from its animated to its drawn incoming link (a pinned root:
 * unswung), then by the arc from +Y to the tail's rest direction (a half turn about X for -Y),
 * then by the limit's own. */
static inline float limit_excess(const tress_scene *scene, tress_id joint, tress_id tail, const tress_joint_limit *lim) {
  tress_xform anim = tress_bone_get_world_animated(scene, joint);
  float frame[4];
  memcpy(frame, anim.q, sizeof frame);
  tress_id parent = limit_parent_bone(scene, joint);
  if (!tress_id_is_null(parent)) {
    tress_xform anim_parent = tress_bone_get_world_animated(scene, parent);
    tress_xform drawn = tress_bone_get_world(scene, joint), drawn_parent = tress_bone_get_world(scene, parent);
    float from[3], to[3], arc[4];
    for (int i = 0; i < 3; i++) {
      from[i] = anim.p[i] - anim_parent.p[i];
      to[i] = drawn.p[i] - drawn_parent.p[i];
    }
    tress_quat_from_to(from, to, arc);
    tress_quat_mul(arc, anim.q, frame);
  }
  tress_xform rest = tress_bone_get_cframe(scene, tail);
  float up[3] = {0, 1, 0}, axis[4], lf[4], full[4];
  float rl = sqrtf(rest.p[0] * rest.p[0] + rest.p[1] * rest.p[1] + rest.p[2] * rest.p[2]);
  if (rest.p[1] / rl > -1.0f + 1e-6f) {
    tress_quat_from_to(up, rest.p, axis);
  } else { /* straight down (a cape's links): a half turn about X, as the draft says */
    axis[0] = 1.0f;
    axis[1] = axis[2] = axis[3] = 0.0f;
  }
  tress_quat_mul(axis, lim->rotation, lf);
  tress_quat_mul(frame, lf, full);
  tress_xform p0 = tress_bone_get_world(scene, joint), p1 = tress_bone_get_world(scene, tail);
  float d[3], v[3], len = 0.0f;
  for (int i = 0; i < 3; i++) {
    d[i] = p1.p[i] - p0.p[i];
    len += d[i] * d[i];
  }
  len = sqrtf(len);
  for (int i = 0; i < 3; i++) d[i] /= len;
  tress_quat_rotate_inv(full, d, v);
  float y = fmaxf(-1.0f, fminf(1.0f, v[1])), x = fminf(1.0f, fabsf(v[0]));
  switch (lim->kind) {
  case TRESS_LIMIT_CONE: return acosf(y) - lim->angle;
  case TRESS_LIMIT_HINGE: return fmaxf(asinf(x), fabsf(atan2f(v[2], v[1])) - lim->angle);
  case TRESS_LIMIT_SPHERICAL: return fmaxf(asinf(x) - lim->yaw, fabsf(atan2f(v[2], v[1])) - lim->angle);
  default: return 0.0f;
  }
}

#endif
