/* spring_vrm0.c - VRM 0.x extensions.VRM.secondaryAnimation: collider groups and bone groups. */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tress__spring_read_vrm0(tress__spring_builder *b, const cJSON *sec) {
  tress_spring_import *imp = b->imp;
  const cJSON *groups = tress__spring_json_list(b, sec, "colliderGroups", "VRM0 secondaryAnimation");
  int ngroups = cJSON_GetArraySize(groups);
  /* group -> [first, end) of our colliders */
  uint32_t(*range)[2] = calloc((size_t)(ngroups > 0 ? ngroups : 1), sizeof *range);
  if (!range) {
    b->oom = true;
    return;
  }
  int gi = 0;
  const cJSON *group;
  cJSON_ArrayForEach(group, groups) {
    range[gi][0] = range[gi][1] = imp->collider_count;
    int32_t node;
    if (!tress__spring_json_index(cJSON_GetObjectItemCaseSensitive(group, "node"), &node) || !tress__spring_node_ok(b, node)) {
      tress__spring_warn(b, "VRM0 collider group %d: node index out of range or in a bad part of the node tree: skipped", gi);
      gi++;
      continue;
    }
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(group, "colliders");
    const cJSON *col;
    cJSON_ArrayForEach(col, cols) {
      float off[3] = {0, 0, 0}, radius = 0.0f;
      tress__spring_json_xyz(cJSON_GetObjectItemCaseSensitive(col, "offset"), off);
      tress__spring_json_float(col, "radius", &radius);
      if (radius < 0.0f) {
        tress__spring_warn(b, "VRM0 collider group %d on \"%s\": negative radius %g: skipped", gi, imp->nodes[node].name,
             (double)radius);
        continue;
      }
      tress_spring_collider *c = tress__spring_collider_add(b);
      if (!c) break;
      c->shape = TRESS_COLLIDER_SPHERE;
      c->node = node;
      off[2] = -off[2]; /* Unity axes -> glTF, as three-vrm's loader does: (x, y, -z) */
      float sc = imp->nodes[node].scale * b->scale;
      for (int a = 0; a < 3; a++) c->offset[a] = c->tail[a] = off[a] * sc;
      c->radius = radius * sc;
      c->source = TRESS_SPRING_FROM_VRM0;
    }
    range[gi][1] = imp->collider_count;
    gi++;
  }
  const cJSON *bgs = cJSON_GetObjectItemCaseSensitive(sec, "boneGroups");
  int bi = 0;
  const cJSON *bg;
  cJSON_ArrayForEach(bg, bgs) {
    float k = 1.0f, power = 0.0f, drag = 0.4f, hit = 0.02f, dir[3] = {0.0f, -1.0f, 0.0f};
    if (!tress__spring_json_float(bg, "stiffiness", &k)) tress__spring_json_float(bg, "stiffness", &k); /* the spec's spelling first */
    tress__spring_json_float(bg, "gravityPower", &power);
    tress__spring_json_float(bg, "dragForce", &drag);
    tress__spring_json_float(bg, "hitRadius", &hit);
    tress__spring_json_xyz(cJSON_GetObjectItemCaseSensitive(bg, "gravityDir"), dir); /* as written, as three-vrm reads it */
    char what[64];
    snprintf(what, sizeof what, "VRM0 bone group %d", bi);
    int32_t center = tress__spring_read_center(b, what, bg);
    if (hit < 0.0f || k < 0.0f) {
      tress__spring_warn(b, "VRM0 bone group %d: negative %s: skipped", bi, hit < 0.0f ? "hitRadius" : "stiffness");
      bi++;
      continue;
    }
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(bg, "bones");
    const cJSON *bone;
    cJSON_ArrayForEach(bone, bones) {
      int32_t root;
      if (!tress__spring_json_index(bone, &root) || root < 0 || (uint32_t)root >= imp->node_count) {
        tress__spring_warn(b, "VRM0 bone group %d: bone index out of range: skipped", bi);
        continue;
      }
      if (imp->nodes[root].bad) {
        tress__spring_warn(b, "VRM0 bone group %d: \"%s\" is in a bad part of the node tree: skipped", bi, imp->nodes[root].name);
        continue;
      }
      if (tress__spring_chain_of_root(b, root) >= 0) continue;
      int32_t *joints = NULL;
      uint32_t n = tress__spring_subtree(b, root, &joints);
      if (n < 2) {
        if (n) tress__spring_warn(b, "VRM0 bone group %d: \"%s\" has no child bones: skipped", bi, imp->nodes[root].name);
        free(joints);
        continue;
      }
      tress_spring_chain *c = tress__spring_chain_add(b, root, joints, n);
      free(joints);
      if (!c) continue;
      c->source = TRESS_SPRING_FROM_VRM0;
      c->center = center;
      c->end_length = VRM0_END_LENGTH_M * imp->nodes[root].scale * b->scale;
      float ks[1] = {k}, ps[1] = {power}, ds[1] = {drag}, hs[1] = {hit};
      float dirs[1][3] = {{dir[0], dir[1], dir[2]}};
      tress__spring_chain_from_vrm_joints(b, c, ks, ps, (const float(*)[3])dirs, ds, hs, 1);
      const cJSON *cg = cJSON_GetObjectItemCaseSensitive(bg, "colliderGroups");
      const cJSON *g;
      cJSON_ArrayForEach(g, cg) {
        int32_t gidx;
        if (!tress__spring_json_index(g, &gidx) || gidx < 0 || gidx >= ngroups) {
          tress__spring_warn(b, "VRM0 bone group %d: collider group index out of range: ignored", bi);
          continue;
        }
        for (uint32_t ci = range[gidx][0]; ci < range[gidx][1]; ci++) tress_collider_set_add(&c->colliders, (uint16_t)ci);
      }
    }
    bi++;
  }
  free(range);
}
