/* spring_vrm1.c - VRMC_springBone (VRM 1.0): colliders, collider groups and springs. */
#include "spring_import_internal.h"
#include "spring_limit_import.h"
#include "vrm_extended_collider.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warns and returns false when the listed joints are not a chain this sim can move as named. */
static bool joints_are_chain(tress__spring_builder *b, const char *what, const int32_t *joints, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    if (b->imp->nodes[joints[i]].parent != joints[i - 1]) {
      tress__spring_warn(b, "%s: joint \"%s\" is not a child of \"%s\" (joints must be a parent-child chain): skipped", what,
           tress__spring_node_name(b, joints[i]), tress__spring_node_name(b, joints[i - 1]));
      return false;
    }
  }
  /* the sim moves everything below the root: every such node must be named */
  int32_t *below = NULL;
  uint32_t count = tress__spring_subtree(b, joints[0], &below);
  if (!below) return false;
  b->stamp++;
  for (uint32_t i = 0; i < n; i++) b->mark[joints[i]] = b->stamp;
  bool ok = true;
  for (uint32_t i = 1; i < count && ok; i++) {
    if (b->mark[below[i]] != b->stamp) {
      tress__spring_warn(b, "%s: would also move \"%s\", which it does not name: skipped", what, tress__spring_node_name(b, below[i]));
      ok = false;
    }
  }
  free(below);
  return ok;
}

/* A collider's extensions other than VRMC_springBone_extended_collider are not imported; an
 * extended collider that could not be used (why) leaves its fallback shape standing in. */
static void warn_collider_extensions(tress__spring_builder *b, int index, const char *node, const cJSON *col,
                                     const char *fallback, const char *why) {
  const cJSON *exts = cJSON_GetObjectItemCaseSensitive(col, "extensions");
  const cJSON *e;
  cJSON_ArrayForEach(e, exts) {
    if (!e->string) continue;
    if (strcmp(e->string, "VRMC_springBone_extended_collider") != 0)
      tress__spring_warn(b, "VRMC_springBone collider %d on \"%s\": extension %s is not imported", index, node,
                         e->string);
    else if (why && why[0])
      tress__spring_warn(b, "VRMC_springBone collider %d on \"%s\": VRMC_springBone_extended_collider is not usable "
                            "(%s): its fallback %s is used", index, node, why, fallback ? fallback : "shape");
  }
}

/* An extended collider's shape (vrm_extended_collider.c) as an import collider on node. */
static int32_t extended_collider_add(tress__spring_builder *b, int32_t node, const tress_vrm_extended_shape *ex) {
  tress_spring_collider *c = tress__spring_collider_add(b);
  if (!c) return -1;
  float sc = b->imp->nodes[node].scale * b->scale;
  c->shape = ex->shape;
  c->node = node;
  for (int a = 0; a < 3; a++) {
    c->offset[a] = ex->offset[a] * sc;
    c->tail[a] = ex->tail[a] * sc;
    c->normal[a] = ex->normal[a];
  }
  c->radius = ex->radius * sc;
  float dx = ex->tail[0] - ex->offset[0], dy = ex->tail[1] - ex->offset[1], dz = ex->tail[2] - ex->offset[2];
  c->height = sqrtf(dx * dx + dy * dy + dz * dz) * sc;
  c->source = TRESS_SPRING_FROM_VRM1;
  return (int32_t)(b->imp->collider_count - 1);
}

/* Joint extensions other than VRMC_springBone_limit (read by read_joint_limit) are not
 * imported: one warning per spring and extension. */
static void warn_joint_extensions(tress__spring_builder *b, const char *what, const cJSON *joints) {
  const cJSON *joint;
  const char *seen[8];
  int seen_count = 0;
  cJSON_ArrayForEach(joint, joints) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(joint, "extensions")) {
      if (!e->string || strcmp(e->string, "VRMC_springBone_limit") == 0) continue;
      bool dup = false;
      for (int k = 0; k < seen_count; k++) dup = dup || strcmp(seen[k], e->string) == 0;
      if (dup) continue;
      if (seen_count < 8) seen[seen_count++] = e->string;
      tress__spring_warn(b, "%s: joint extension %s is not imported", what, e->string);
    }
  }
}

/* Joint j's VRMC_springBone_limit (spring_limit_import.c), or none: a limit on the last joint
 * (only a tail) is ignored as the draft says, an unreadable one is warned about and left out. */
static tress_joint_limit read_joint_limit(tress__spring_builder *b, const char *what, const cJSON *joint, int j, int n) {
  tress_joint_limit l = {TRESS_LIMIT_NONE, 0.0f, 0.0f, {0.0f, 0.0f, 0.0f, 1.0f}};
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(joint, "extensions"),
                                                      "VRMC_springBone_limit");
  if (!ext) return l;
  char why[160];
  if (j + 1 == n) {
    tress__spring_warn(b, "%s: VRMC_springBone_limit on the last joint (only a tail): ignored", what);
  } else if (!tress__spring_limit_read(ext, &l, why, sizeof why)) {
    tress__spring_warn(b, "%s: joint %d VRMC_springBone_limit not imported: %s", what, j, why);
  } else if (why[0]) {
    tress__spring_warn(b, "%s: joint %d VRMC_springBone_limit: %s", what, j, why);
  }
  return l;
}

void tress__spring_read_vrm1(tress__spring_builder *b, const cJSON *ext) {
  tress_spring_import *imp = b->imp;
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(ext, "specVersion");
  const char *v = cJSON_IsString(version) && version->valuestring ? version->valuestring : "";
  if (strcmp(v, "1.0") != 0 && strcmp(v, "1.0-beta") != 0)
    tress__spring_warn(b, "VRMC_springBone specVersion \"%s\" is not 1.0: read as 1.0", v);
  /* colliders: file index -> ours (-1 when skipped) */
  const cJSON *colliders = tress__spring_json_list(b, ext, "colliders", "VRMC_springBone");
  int ncol = cJSON_GetArraySize(colliders);
  int32_t *map = calloc((size_t)(ncol > 0 ? ncol : 1), sizeof *map);
  if (!map) {
    b->oom = true;
    return;
  }
  int ci = 0;
  const cJSON *col;
  cJSON_ArrayForEach(col, colliders) {
    map[ci] = -1;
    int32_t node;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(col, "shape");
    const cJSON *sphere = cJSON_GetObjectItemCaseSensitive(shape, "sphere");
    const cJSON *capsule = cJSON_GetObjectItemCaseSensitive(shape, "capsule");
    const cJSON *s = sphere ? sphere : capsule;
    float radius = 0.0f, offset[3] = {0, 0, 0}, tail[3] = {0, 0, 0};
    tress_vrm_extended_shape ex;
    char ex_why[96];
    tress_vrm_extended_status ext_status = tress__vrm_read_extended_collider(col, &ex, ex_why, sizeof ex_why);
    if (!tress__spring_json_index(cJSON_GetObjectItemCaseSensitive(col, "node"), &node) || node < 0 ||
        (uint32_t)node >= imp->node_count) {
      tress__spring_warn(b, "VRMC_springBone collider %d: node index out of range: skipped", ci);
    } else if (imp->nodes[node].bad) {
      tress__spring_warn(b, "VRMC_springBone collider %d: node \"%s\" is in a bad part of the node tree: skipped", ci,
           imp->nodes[node].name);
    } else if (ext_status == TRESS_VRM_EXTENDED_READ) {
      warn_collider_extensions(b, ci, imp->nodes[node].name, col, NULL, NULL);
      map[ci] = extended_collider_add(b, node, &ex);
    } else if (!cJSON_IsObject(s)) {
      tress__spring_warn(b, "VRMC_springBone collider %d on \"%s\": no sphere or capsule shape: skipped", ci, imp->nodes[node].name);
    } else {
      tress__spring_json_vec(cJSON_GetObjectItemCaseSensitive(s, "offset"), offset, 3);
      if (capsule && !sphere) tress__spring_json_vec(cJSON_GetObjectItemCaseSensitive(s, "tail"), tail, 3);
      if (!tress__spring_json_float(s, "radius", &radius)) radius = 0.0f;
      float dx = tail[0] - offset[0], dy = tail[1] - offset[1], dz = tail[2] - offset[2];
      float height = sqrtf(dx * dx + dy * dy + dz * dz);
      if (radius < 0.0f) {
        tress__spring_warn(b, "VRMC_springBone collider %d on \"%s\": negative radius %g: skipped", ci, imp->nodes[node].name,
             (double)radius);
      } else if (capsule && !sphere && !(height > 0.0f)) {
        tress__spring_warn(b, "VRMC_springBone collider %d on \"%s\": capsule with no length: skipped", ci, imp->nodes[node].name);
      } else {
        tress_spring_collider *c = tress__spring_collider_add(b);
        if (c) {
          c->shape = sphere ? TRESS_COLLIDER_SPHERE : TRESS_COLLIDER_CAPSULE;
          c->node = node;
          float sc = imp->nodes[node].scale * b->scale;
          for (int a = 0; a < 3; a++) {
            c->offset[a] = offset[a] * sc;
            c->tail[a] = (sphere ? offset[a] : tail[a]) * sc;
          }
          c->radius = radius * sc;
          c->height = sphere ? 0.0f : height * sc;
          warn_collider_extensions(b, ci, imp->nodes[node].name, col, sphere ? "sphere" : "capsule", ex_why);
          c->source = TRESS_SPRING_FROM_VRM1;
          map[ci] = (int32_t)(imp->collider_count - 1);
        }
      }
    }
    ci++;
  }
  const cJSON *groups = tress__spring_json_list(b, ext, "colliderGroups", "VRMC_springBone");
  int ngroups = cJSON_GetArraySize(groups);

  const cJSON *springs = cJSON_GetObjectItemCaseSensitive(ext, "springs");
  int si = 0;
  const cJSON *spring;
  cJSON_ArrayForEach(spring, springs) {
    char what[96];
    const cJSON *sname = cJSON_GetObjectItemCaseSensitive(spring, "name");
    snprintf(what, sizeof what, "VRMC_springBone spring %d \"%s\"", si,
             cJSON_IsString(sname) && sname->valuestring ? sname->valuestring : "");
    si++;
    const cJSON *joints = tress__spring_json_list(b, spring, "joints", what);
    int n = cJSON_GetArraySize(joints);
    if (n < 2) {
      tress__spring_warn(b, "%s: names %d joint%s, a spring needs at least two: skipped", what, n, n == 1 ? "" : "s");
      continue;
    }
    if ((uint32_t)n > imp->node_count) {
      tress__spring_warn(b, "%s: more joints than the file has nodes: skipped", what);
      continue;
    }
    int32_t *ids = malloc((size_t)n * sizeof *ids);
    float *k = malloc((size_t)n * sizeof *k), *power = malloc((size_t)n * sizeof *power);
    float *drag = malloc((size_t)n * sizeof *drag), *hit = malloc((size_t)n * sizeof *hit);
    float(*dir)[3] = malloc((size_t)n * sizeof *dir);
    tress_joint_limit *limits = malloc((size_t)n * sizeof *limits);
    bool ok = ids && k && power && drag && hit && dir && limits;
    if (!ok) b->oom = true;
    int j = 0;
    const cJSON *joint;
    cJSON_ArrayForEach(joint, joints) {
      if (!ok) break;
      if (!tress__spring_json_index(cJSON_GetObjectItemCaseSensitive(joint, "node"), &ids[j]) || ids[j] < 0 ||
          (uint32_t)ids[j] >= imp->node_count) {
        tress__spring_warn(b, "%s: joint %d has a node index out of range: skipped", what, j);
        ok = false;
        break;
      }
      if (imp->nodes[ids[j]].bad) {
        tress__spring_warn(b, "%s: joint \"%s\" is in a bad part of the node tree: skipped", what, imp->nodes[ids[j]].name);
        ok = false;
        break;
      }
      /* VRM 1.0 defaults */
      k[j] = 1.0f; power[j] = 0.0f; drag[j] = 0.5f; hit[j] = 0.0f;
      dir[j][0] = 0.0f; dir[j][1] = -1.0f; dir[j][2] = 0.0f;
      tress__spring_json_float(joint, "stiffness", &k[j]);
      tress__spring_json_float(joint, "gravityPower", &power[j]);
      tress__spring_json_float(joint, "dragForce", &drag[j]);
      tress__spring_json_float(joint, "hitRadius", &hit[j]);
      tress__spring_json_vec(cJSON_GetObjectItemCaseSensitive(joint, "gravityDir"), dir[j], 3);
      limits[j] = read_joint_limit(b, what, joint, j, n);
      if (hit[j] < 0.0f || k[j] < 0.0f) {
        tress__spring_warn(b, "%s: joint \"%s\" has a negative %s: skipped", what, imp->nodes[ids[j]].name,
             hit[j] < 0.0f ? "hitRadius" : "stiffness");
        ok = false;
        break;
      }
      j++;
    }
    if (ok && tress__spring_chain_of_root(b, ids[0]) >= 0) {
      tress__spring_warn(b, "%s: \"%s\" is already the root of a spring: skipped", what, imp->nodes[ids[0]].name);
      ok = false;
    }
    if (ok) ok = joints_are_chain(b, what, ids, (uint32_t)n);
    if (ok) warn_joint_extensions(b, what, joints);
    if (ok) {
      tress_spring_chain *c = tress__spring_chain_add(b, ids[0], ids, (uint32_t)n);
      if (c) {
        c->source = TRESS_SPRING_FROM_VRM1;
        c->center = tress__spring_read_center(b, what, spring);
        tress__spring_chain_from_vrm_joints(b, c, k, power, (const float(*)[3])dir, drag, hit, (uint32_t)n);
        for (uint32_t i = 0; c->vrm_joints && i < c->joint_count; i++) c->vrm_joints[i].limit = limits[i];
        const cJSON *cg = cJSON_GetObjectItemCaseSensitive(spring, "colliderGroups");
        const cJSON *g;
        cJSON_ArrayForEach(g, cg) {
          int32_t gi;
          if (!tress__spring_json_index(g, &gi) || gi < 0 || gi >= ngroups) {
            tress__spring_warn(b, "%s: collider group index out of range: ignored", what);
            continue;
          }
          const cJSON *list = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(groups, gi), "colliders");
          const cJSON *e;
          cJSON_ArrayForEach(e, list) {
            int32_t cidx;
            if (!tress__spring_json_index(e, &cidx) || cidx < 0 || cidx >= ncol) {
              tress__spring_warn(b, "collider group %d: collider index out of range: ignored", gi);
              continue;
            }
            if (map[cidx] < 0) continue; /* skipped above, already warned */
            if (c->colliders.count >= TRESS_COLLIDER_SET_MAX) {
              tress__spring_warn(b, "%s: more than %d colliders: the rest are left out", what, TRESS_COLLIDER_SET_MAX);
              break;
            }
            tress_collider_set_add(&c->colliders, (uint16_t)map[cidx]);
          }
        }
      }
    }
    free(ids); free(k); free(power); free(drag); free(hit); free(dir); free(limits);
  }
  free(map);
}

