/* spring_chain.c - chains of the import and their per-joint settings, with the VRM <-> pose
 * model conversions derived in tress/spring_import.h. */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* World length in metres of joint i's tail link: to its first child (a joint: chains are whole
 * subtrees), else its end tip, else the link from its parent. */
float tress__spring_joint_link_m(const tress__spring_builder *b, const tress_spring_chain *c, uint32_t i) {
  const tress_spring_node *nodes = b->imp->nodes;
  int32_t child = b->first_child[c->joints[i]];
  float len;
  if (child >= 0) {
    const float *p = nodes[child].local.p;
    len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / b->scale;
  } else if (c->end_length > 0.0f) {
    len = c->end_length / b->scale;
  } else {
    const float *p = nodes[c->joints[i]].local.p;
    len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / b->scale;
  }
  return len < 1e-4f ? 1e-4f : len;
}

/* Our per-step pull s and VRM's stiffness k (m/s) describe the same turn rate on a link of
 * length L (spring_import.h): s = 1 - exp(-k dt / L). */
static float pose_stiffness_from_vrm(float k, float len_m) { return 1.0f - expf(-k * STEP_DT / len_m); }

float tress__spring_vrm_stiffness_from_pose(float s, float len_m) {
  if (s > 0.999999f) s = 0.999999f;
  return -logf(1.0f - s) * len_m / STEP_DT;
}

/* Every joint takes the chain's single values (extras and name chains have no per-joint ones). */
void tress__spring_joints_from_chain(const tress__spring_builder *b, tress_spring_chain *c) {
  for (uint32_t i = 0; i < c->joint_count; i++) {
    tress_spring_joint_settings *j = &c->joint_settings[i];
    j->stiffness = c->stiffness;
    j->rest_stiffness = tress__spring_vrm_stiffness_from_pose(c->stiffness, tress__spring_joint_link_m(b, c, i)) * b->scale;
    j->drag = c->drag;
    memcpy(j->gravity, c->gravity, sizeof j->gravity);
    j->radius = c->radius;
  }
}

tress_spring_chain *tress__spring_chain_add(tress__spring_builder *b, int32_t root, const int32_t *joints, uint32_t joint_count) {
  tress_spring_import *imp = b->imp;
  if (imp->chain_count == imp->chain_cap) {
    uint32_t cap = imp->chain_cap ? imp->chain_cap * 2 : 8;
    void *p = realloc(imp->chains, (size_t)cap * sizeof *imp->chains);
    if (!p) {
      b->oom = true;
      return NULL;
    }
    imp->chains = p;
    imp->chain_cap = cap;
  }
  int32_t *copy = malloc((size_t)joint_count * sizeof *copy);
  tress_spring_joint_settings *js = calloc(joint_count, sizeof *js);
  if (!copy || !js) {
    free(copy);
    free(js);
    b->oom = true;
    return NULL;
  }
  memcpy(copy, joints, (size_t)joint_count * sizeof *copy);
  b->root_chain[root] = (int32_t)imp->chain_count;
  for (uint32_t k = 0; k < joint_count; k++) b->in_chain[joints[k]] = 1;
  tress_spring_chain *c = &imp->chains[imp->chain_count++];
  memset(c, 0, sizeof *c);
  c->root = root;
  c->joints = copy;
  c->joint_settings = js;
  c->joint_count = joint_count;
  c->center = -1;
  c->stiffness = 0.1f;
  c->drag = 0.5f;
  c->damping = 0.5f;
  c->gravity[1] = -EARTH_G * b->scale;
  tress__spring_joints_from_chain(b, c);
  return c;
}
void tress__spring_set_all_colliders(tress_spring_chain *c, const tress_spring_import *imp) {
  memset(&c->colliders, 0, sizeof c->colliders);
  for (uint32_t i = 0; i < imp->collider_count && i < TRESS_COLLIDER_SET_MAX; i++)
    tress_collider_set_add(&c->colliders, (uint16_t)i);
}

/* A VRM chain's per-joint settings from the file's values (n entries: one per joint, or 1 shared
 * by all, as VRM 0.x bone groups have), then the chain's single values: means over the joints
 * that move something (VRM 1.0: all but the tail joint; VRM 0.x: those with a child link). */
void tress__spring_chain_from_vrm_joints(tress__spring_builder *b, tress_spring_chain *c, const float *k, const float *power,
                                  const float (*dir)[3], const float *drag, const float *hit, uint32_t n) {
  const tress_spring_node *nodes = b->imp->nodes;
  float sk = 0.0f, sd = 0.0f, g[3] = {0.0f, 0.0f, 0.0f}, r = 0.0f;
  uint32_t moving = 0;
  for (uint32_t i = 0; i < c->joint_count; i++) {
    uint32_t si = n == 1 ? 0 : i;
    tress_spring_joint_settings *j = &c->joint_settings[i];
    float len = tress__spring_joint_link_m(b, c, i);
    j->stiffness = pose_stiffness_from_vrm(k[si], len);
    j->rest_stiffness = k[si] * b->scale;
    j->drag = drag[si] < 0.0f ? 0.0f : (drag[si] > 1.0f ? 1.0f : drag[si]);
    for (int a = 0; a < 3; a++) j->gravity[a] = dir[si][a] * power[si] / STEP_DT * b->scale;
    j->radius = hit[si] * nodes[c->joints[i]].scale * b->scale;
    r = j->radius > r ? j->radius : r;
    bool moves = n == 1 ? b->first_child[c->joints[i]] >= 0 : i + 1 < c->joint_count;
    if (!moves) continue;
    moving++;
    sk += j->stiffness;
    sd += j->drag;
    for (int a = 0; a < 3; a++) g[a] += j->gravity[a];
  }
  if (moving == 0) moving = 1;
  c->stiffness = sk / (float)moving;
  c->drag = sd / (float)moving;
  c->damping = 1.0f - c->drag;
  for (int a = 0; a < 3; a++) c->gravity[a] = g[a] / (float)moving;
  c->radius = r;
  /* the VRM model's own values, per joint (VRM 0.x gives one set for every joint: n = 1) */
  free(c->vrm_joints);
  c->vrm_joints = calloc(c->joint_count ? c->joint_count : 1, sizeof *c->vrm_joints);
  for (uint32_t i = 0; c->vrm_joints && i < c->joint_count; i++) {
    uint32_t si = n == 1 ? 0 : i;
    const tress_spring_joint_settings *js = &c->joint_settings[i];
    tress_joint_settings *v = &c->vrm_joints[i];
    v->stiffness = js->rest_stiffness; /* a speed: units/s along the rest direction */
    v->damping = 1.0f - js->drag;
    v->gravity_scale = power[si] * b->scale;
    for (int a = 0; a < 3; a++) v->gravity_dir[a] = dir[si][a];
    v->radius = js->radius;
  }
}

/* `center` of a VRM 1.0 spring or a VRM 0.x bone group: a node index, or -1 (VRM 0.x writes -1
 * for none). */
int32_t tress__spring_read_center(tress__spring_builder *b, const char *what, const cJSON *obj) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "center");
  int32_t center;
  if (!v) return -1;
  if (!tress__spring_json_index(v, &center) || center < -1 || center >= (int32_t)b->imp->node_count) {
    tress__spring_warn(b, "%s: center is not a node index: not imported (the spring runs in world space)", what);
    return -1;
  }
  if (center >= 0 && b->imp->nodes[center].bad) {
    tress__spring_warn(b, "%s: center \"%s\" is in a bad part of the node tree: not imported", what, b->imp->nodes[center].name);
    return -1;
  }
  return center;
}

