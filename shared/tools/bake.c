/* bake.c - runs a rigged accessory through the sim under a scripted head motion and records
 * every simulated bone's local rotation at each fixed step (bake.h). The scene is the glTF
 * writer's node tree: a Head part (the clip's carrier node) and under it the mesh's bones, each
 * translated from its parent's bind position with no rotation, so a bone's transform rotation is
 * its node's local rotation. The chain writes rotations only, so every bone keeps its bind
 * translation, as a rotation-only clip has it. */
#include "bake.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/scene.h"

bake_opts bake_default_opts(void) {
  bake_opts o = {.seconds = 4.0, .fixed_hz = 60.0f, .chain = tress_default_chain_settings()};
  return o;
}

static double smooth(double x) { /* 0..1 eased in and out */
  x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
  return x * x * (3.0 - 2.0 * x);
}

tress_xform bake_head_pose(const tress_mesh *m, double t, double seconds) {
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  float height = fmaxf(mx[1] - mn[1], 1e-3f);
  float pivot[3] = {0.5f * (mn[0] + mx[0]), mn[1], 0.5f * (mn[2] + mx[2])};
  double quarter = seconds / 4.0;
  double walk = smooth(t / quarter) * 1.5 * height;
  double turn = smooth((t - quarter) / quarter) * (M_PI / 2.0);
  double nod_phase = (t - 2.0 * quarter) / quarter;
  double nod = nod_phase > 0.0 && nod_phase < 1.0 ? sin(nod_phase * 2.0 * M_PI) * (15.0 * M_PI / 180.0) : 0.0;
  const float up[3] = {0, 1, 0}, side[3] = {1, 0, 0};
  tress_xform yaw = tress_xform_from_axis_angle(up, (float)turn);
  tress_xform pitch = tress_xform_from_axis_angle(side, (float)nod);
  tress_xform to_pivot = tress_xform_from_pos(pivot[0], pivot[1], pivot[2]);
  tress_xform from_pivot = tress_xform_from_pos(-pivot[0], -pivot[1], -pivot[2]);
  tress_xform walked = tress_xform_from_pos(0, 0, (float)walk);
  return tress_xform_mul(walked, tress_xform_mul(to_pivot, tress_xform_mul(yaw, tress_xform_mul(pitch, from_pivot))));
}

typedef struct bake_scene {
  tress_scene *scene;
  tress_sim *sim;
  tress_id head;
  tress_id *bones;
} bake_scene;

static void bake_scene_free(bake_scene *b) {
  if (b->sim) tress_sim_destroy(b->sim);
  if (b->scene) tress_scene_destroy(b->scene);
  free(b->bones);
}

static tress_id add_instance(tress_scene *scene, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def d = tress_default_instance_def();
  d.kind = kind;
  d.name = name;
  d.parent = parent;
  tress_id id = {0};
  if (tress_scene_create_instance(scene, &d, &id) != TRESS_OK) return (tress_id){0};
  return id;
}

static int build_scene(const tress_mesh *m, const bake_opts *o, bake_scene *b, tress_error *err) {
  memset(b, 0, sizeof *b);
  tress_scene_def sd = tress_default_scene_def();
  b->scene = tress_scene_create(&sd);
  b->bones = calloc(m->bone_count ? m->bone_count : 1, sizeof *b->bones);
  if (!b->scene || !b->bones) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory"), -1;
  b->head = add_instance(b->scene, TRESS_KIND_PART, "Head", tress_scene_get_root(b->scene));
  for (uint32_t i = 0; i < m->bone_count; i++) {
    int32_t parent = m->bones[i].parent;
    bool under = parent >= 0 && (uint32_t)parent < i;
    b->bones[i] = add_instance(b->scene, TRESS_KIND_BONE, m->bones[i].name, under ? b->bones[parent] : b->head);
    if (tress_id_is_null(b->bones[i])) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory"), -1;
    const float *p = m->bones[i].bind_pos, *q = under ? m->bones[parent].bind_pos : (const float[3]){0, 0, 0};
    tress_bone_set_cframe(b->scene, b->bones[i], tress_xform_from_pos(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = b->scene;
  def.role = TRESS_SIM_SERVER; /* static budgets: no device bench, nothing culled */
  def.fixed_hz = o->fixed_hz;
  def.max_chains = 1 << 20;
  def.max_distance = 1e30f;
  b->sim = tress_sim_create(&def);
  if (!b->sim) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory"), -1;
  tress_chain_settings s = o->chain;
  s.rotations_only = true;
  tress_result r = tress_sim_bind(b->sim, b->head, &s, NULL);
  if (r != TRESS_OK) return tress_error_set(err, r, "binding the bones: %s", tress_result_name(r)), -1;
  return 0;
}

static int alloc_clip(const tress_mesh *m, const bake_scene *b, uint32_t frames, bake_clip *c, tress_error *err) {
  memset(c, 0, sizeof *c);
  c->frame_count = frames;
  c->bones = calloc(m->bone_count, sizeof *c->bones);
  for (uint32_t i = 0; c->bones && i < m->bone_count; i++)
    if (tress_bone_is_simulated(b->scene, b->bones[i])) c->bones[c->channel_count++] = i;
  c->rotations = calloc((size_t)4 * frames * (c->channel_count ? c->channel_count : 1), sizeof(float));
  c->head_translations = calloc((size_t)3 * frames, sizeof(float));
  c->head_rotations = calloc((size_t)4 * frames, sizeof(float));
  if (!c->bones || !c->rotations || !c->head_translations || !c->head_rotations) {
    bake_clip_free(c);
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory"), -1;
  }
  return 0;
}

static void record(const bake_scene *b, tress_xform head, uint32_t k, bake_clip *c) {
  memcpy(c->head_translations + 3 * (size_t)k, head.p, 3 * sizeof(float));
  memcpy(c->head_rotations + 4 * (size_t)k, head.q, 4 * sizeof(float));
  for (uint32_t ch = 0; ch < c->channel_count; ch++) {
    tress_xform t = tress_bone_get_transform(b->scene, b->bones[c->bones[ch]]);
    memcpy(c->rotations + 4 * ((size_t)ch * c->frame_count + k), t.q, 4 * sizeof(float));
  }
}

int bake_run(const tress_mesh *m, const bake_opts *o, bake_clip *out, tress_error *err) {
  memset(out, 0, sizeof *out);
  if (!tress_mesh_is_skinned(m)) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "the mesh has no skin to bake"), -1;
  if (!(o->seconds > 0.0) || !(o->fixed_hz > 0.0f) || o->seconds * o->fixed_hz > 1e6)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "bake length %g s at %g Hz", o->seconds, o->fixed_hz), -1;
  bake_scene b;
  if (build_scene(m, o, &b, err) != 0) {
    bake_scene_free(&b);
    return -1;
  }
  uint32_t frames = (uint32_t)ceil(o->seconds * o->fixed_hz - 1e-9) + 1;
  double dt = 1.0 / o->fixed_hz;
  int rc = alloc_clip(m, &b, frames, out, err);
  for (uint32_t k = 0; rc == 0 && k < frames; k++) {
    /* frame 0 starts the chain at the bind pose (tress_sim_step(sim, 0)); every later one is one step */
    tress_xform head = bake_head_pose(m, (double)k * dt, o->seconds);
    tress_part_set_cframe(b.scene, b.head, head);
    tress_result r = tress_sim_step(b.sim, k == 0 ? 0.0 : dt);
    if (r != TRESS_OK) {
      tress_error_set(err, r, "stepping: %s", tress_result_name(r));
      rc = -1;
    } else {
      record(&b, head, k, out);
    }
  }
  if (rc != 0) bake_clip_free(out);
  bake_scene_free(&b);
  return rc;
}

void bake_clip_free(bake_clip *c) {
  free(c->bones);
  free(c->rotations);
  free(c->head_translations);
  free(c->head_rotations);
  memset(c, 0, sizeof *c);
}

int bake_write(const tress_mesh *m, const tress_gltf_source *source, const bake_opts *o, const char *path,
               bake_clip *clip_out, tress_error *err) {
  bake_clip clip;
  if (bake_run(m, o, &clip, err) != 0) return -1;
  tress_gltf_animation anim = {
      .name = "Sway",
      .frame_count = clip.frame_count,
      .frame_seconds = 1.0f / o->fixed_hz,
      .channel_count = clip.channel_count,
      .bones = clip.bones,
      .rotations = clip.rotations,
      .carrier_name = "Head",
      .carrier_translations = clip.head_translations,
      .carrier_rotations = clip.head_rotations,
  };
  int rc = tress_gltf_write_glb_animated(m, source, &anim, path, err) == 0 ? 0 : -1;
  if (clip_out && rc == 0) *clip_out = clip;
  else bake_clip_free(&clip);
  return rc;
}
