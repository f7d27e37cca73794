/* sim_fixture.h - scenes and sims the solver tests share: parts with bone chains, pose reads.
 * Header-only (static functions) so each test executable stays one translation unit. */
#ifndef TRESS_TEST_SIM_FIXTURE_H
#define TRESS_TEST_SIM_FIXTURE_H

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

#define FIX_MAX_BONES 32

/* A part with one linear bone chain: bone 0 sits 0.5 above the part's origin, every later bone
 * `link` units along +x from its parent, so gravity swings the chain down. */
typedef struct fix_chain {
  tress_id part;
  tress_id bones[FIX_MAX_BONES];
  int count;
  float link;
} fix_chain;

static inline fix_chain fix_chain_make(tress_scene *scene, float x, float y, float z, int bones, float link) {
  fix_chain c;
  memset(&c, 0, sizeof c);
  c.part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, c.part, tress_xform_from_pos(x, y, z));
  c.count = bones;
  c.link = link;
  tress_id parent = c.part;
  for (int b = 0; b < bones; b++) {
    tress_id bone = th_instance(scene, TRESS_KIND_BONE, b == 0 ? "HairRoot" : "Hair", parent);
    tress_bone_set_cframe(scene, bone, b == 0 ? tress_xform_from_pos(0, 0.5f, 0) : tress_xform_from_pos(link, 0, 0));
    c.bones[b] = bone;
    parent = bone;
  }
  return c;
}

/* A sim with explicit budgets (no device bench) and no camera unless the test sets one. */
static inline tress_sim *fix_sim(tress_scene *scene, int max_chains, float max_distance) {
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = max_chains;
  def.max_distance = max_distance;
  tress_sim *sim = tress_sim_create(&def);
  assert_non_null(sim);
  return sim;
}

static inline void fix_world_pos(const tress_scene *scene, tress_id bone, float out[3]) {
  tress_xform w = tress_bone_get_world(scene, bone);
  out[0] = w.p[0]; out[1] = w.p[1]; out[2] = w.p[2];
}

static inline float fix_dist(const float a[3], const float b[3]) {
  float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

static inline bool fix_xform_finite(tress_xform t) {
  for (int k = 0; k < 3; k++)
    if (!isfinite(t.p[k])) return false;
  for (int k = 0; k < 4; k++)
    if (!isfinite(t.q[k])) return false;
  return true;
}

static inline void fix_assert_finite(const tress_scene *scene, const fix_chain *c) {
  for (int b = 0; b < c->count; b++) {
    assert_true(fix_xform_finite(tress_bone_get_transform(scene, c->bones[b])));
    assert_true(fix_xform_finite(tress_bone_get_world(scene, c->bones[b])));
  }
}

static inline bool fix_xform_is_identity(tress_xform t) {
  return t.p[0] == 0.0f && t.p[1] == 0.0f && t.p[2] == 0.0f && t.q[0] == 0.0f && t.q[1] == 0.0f && t.q[2] == 0.0f &&
         t.q[3] == 1.0f;
}

/* Field by field: tress_xform.q is 16-byte aligned, so the struct has padding memcmp would read. */
static inline bool fix_xform_equal(tress_xform a, tress_xform b) {
  return a.p[0] == b.p[0] && a.p[1] == b.p[1] && a.p[2] == b.p[2] && a.q[0] == b.q[0] && a.q[1] == b.q[1] &&
         a.q[2] == b.q[2] && a.q[3] == b.q[3];
}

/* The bone's output slot moved off identity (the solver wrote a swing). */
static inline bool fix_swung(const tress_scene *scene, tress_id bone) {
  return tress_xform_distance(tress_bone_get_transform(scene, bone), tress_xform_identity()) > 1e-3f;
}

static inline void fix_run(tress_sim *sim, double dt, int frames) {
  for (int i = 0; i < frames; i++) assert_int_equal(tress_sim_step(sim, dt), TRESS_OK);
}

#endif
