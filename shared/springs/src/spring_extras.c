/* spring_extras.c - node extras: extras.estella.springBone / springCollider (extras.tress.* as
 * an alias). */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- 2. extras ---- */

/* extras.estella.<key> (the seed's), else extras.tress.<key> (our older alias). *what gets the
 * key's full name for warnings. */
static const cJSON *node_extras(tress__spring_builder *b, const cJSON *node, const char *nm, const char *key, char *what,
                                size_t what_size) {
  const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node, "extras");
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(extras, "estella"), key);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(extras, "tress"), key);
  if (cJSON_IsObject(e) && cJSON_IsObject(t))
    tress__spring_warn(b, "extras.tress.%s on \"%s\": not imported, extras.estella.%s is read instead", key, nm, key);
  const cJSON *v = cJSON_IsObject(e) ? e : (cJSON_IsObject(t) ? t : NULL);
  snprintf(what, what_size, "extras.%s.%s on \"%s\"", v == e ? "estella" : "tress", key, nm);
  return v;
}

/* A field the importer does not read (the seed's wind, weight, enabled, ...) is warned about. */
static void warn_unread_fields(tress__spring_builder *b, const char *what, const cJSON *obj, const char *const *known, size_t n) {
  const cJSON *f;
  cJSON_ArrayForEach(f, obj) {
    bool ok = false;
    for (size_t k = 0; k < n && !ok; k++) ok = f->string && strcmp(f->string, known[k]) == 0;
    if (!ok) tress__spring_warn(b, "%s: \"%s\" is not imported", what, f->string ? f->string : "?");
  }
}

static const char *const SPRING_BONE_FIELDS[] = {"stiffness", "drag", "gravity", "radius", "endLength"};
static const char *const SPRING_COLLIDER_FIELDS[] = {"shape", "radius", "height", "offset"};

/* An extras override of one field reaches every joint of the chain. */
static void joints_set_stiffness(const tress__spring_builder *b, tress_spring_chain *c) {
  for (uint32_t i = 0; i < c->joint_count; i++) {
    c->joint_settings[i].stiffness = c->stiffness;
    c->joint_settings[i].rest_stiffness = tress__spring_vrm_stiffness_from_pose(c->stiffness, tress__spring_joint_link_m(b, c, i)) * b->scale;
  }
}

void tress__spring_read_extras(tress__spring_builder *b, const cJSON *root, bool *all_colliders) {
  tress_spring_import *imp = b->imp;
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
  int i = 0;
  const cJSON *node;
  cJSON_ArrayForEach(node, nodes) {
    if ((uint32_t)i >= imp->node_count) break;
    const char *nm = imp->nodes[i].name;
    char what[TRESS_SPRING_WARNING_MAX];
    const cJSON *col = node_extras(b, node, nm, "springCollider", what, sizeof what);
    if (col && imp->nodes[i].bad) {
      tress__spring_warn(b, "%s: node in a bad part of the node tree: skipped", what);
    } else if (col) {
      warn_unread_fields(b, what, col, SPRING_COLLIDER_FIELDS, sizeof SPRING_COLLIDER_FIELDS / sizeof *SPRING_COLLIDER_FIELDS);
      const cJSON *shape = cJSON_GetObjectItemCaseSensitive(col, "shape");
      bool capsule = cJSON_IsString(shape) && shape->valuestring && strcmp(shape->valuestring, "capsule") == 0;
      float radius = 0.0f, height = 0.0f, off[3] = {0, 0, 0};
      tress__spring_json_float(col, "radius", &radius);
      tress__spring_json_float(col, "height", &height);
      tress__spring_json_vec(cJSON_GetObjectItemCaseSensitive(col, "offset"), off, 3);
      if (cJSON_IsString(shape) && shape->valuestring && !capsule && strcmp(shape->valuestring, "sphere") != 0) {
        tress__spring_warn(b, "%s: unknown shape \"%s\": skipped", what, shape->valuestring);
      } else if (radius < 0.0f || height < 0.0f) {
        tress__spring_warn(b, "%s: negative %s: skipped", what, radius < 0.0f ? "radius" : "height");
      } else if (capsule && !(height > 0.0f)) {
        tress__spring_warn(b, "%s: capsule with no length: skipped", what);
      } else {
        float ns = imp->nodes[i].scale * b->scale;
        float so[3] = {off[0] * ns, off[1] * ns, off[2] * ns};
        tress_collider_def d = capsule ? tress_collider_capsule_y((tress_id){0}, so, height * ns, radius * ns)
                                       : tress_default_collider_def();
        if (!capsule) {
          memcpy(d.offset, so, sizeof so);
          memcpy(d.tail, so, sizeof so);
          d.radius = radius * ns;
        }
        /* these win over VRM for this node: rewrite its colliders in place (groups keep them) */
        bool replaced = false;
        for (uint32_t c = 0; c < imp->collider_count; c++) {
          tress_spring_collider *sc = &imp->colliders[c];
          if (sc->node != i) continue;
          replaced = true;
          sc->shape = d.shape;
          memcpy(sc->offset, d.offset, sizeof d.offset);
          memcpy(sc->tail, d.tail, sizeof d.tail);
          sc->radius = d.radius;
          sc->height = capsule ? height * ns : 0.0f;
          sc->source = TRESS_SPRING_FROM_EXTRAS;
        }
        tress_spring_collider *sc = replaced ? NULL : tress__spring_collider_add(b);
        if (sc) {
          sc->shape = d.shape;
          sc->node = i;
          memcpy(sc->offset, d.offset, sizeof d.offset);
          memcpy(sc->tail, d.tail, sizeof d.tail);
          sc->radius = d.radius;
          sc->height = capsule ? height * ns : 0.0f;
          sc->source = TRESS_SPRING_FROM_EXTRAS;
        }
      }
    }
    const cJSON *sb = node_extras(b, node, nm, "springBone", what, sizeof what);
    if (sb && imp->nodes[i].bad) {
      tress__spring_warn(b, "%s: node in a bad part of the node tree: skipped", what);
    } else if (sb) {
      warn_unread_fields(b, what, sb, SPRING_BONE_FIELDS, sizeof SPRING_BONE_FIELDS / sizeof *SPRING_BONE_FIELDS);
      int32_t ci = tress__spring_chain_of_root(b, i);
      tress_spring_chain *c = ci >= 0 ? &imp->chains[ci] : NULL;
      float v;
      bool bad_value = (tress__spring_json_float(sb, "radius", &v) && v < 0.0f) || (tress__spring_json_float(sb, "endLength", &v) && v < 0.0f);
      if (bad_value) {
        tress__spring_warn(b, "%s: negative radius or endLength: skipped", what);
      } else {
        if (!c) {
          int32_t *joints = NULL;
          uint32_t n = tress__spring_subtree(b, i, &joints);
          if (n == 1) tress__spring_warn(b, "%s: no child bones below it: skipped", what);
          if (n >= 2) {
            c = tress__spring_chain_add(b, i, joints, n);
            if (c) {
              c->source = TRESS_SPRING_FROM_EXTRAS;
              all_colliders[imp->chain_count - 1] = true;
            }
          }
          free(joints);
        }
        if (c) {
          c->source = TRESS_SPRING_FROM_EXTRAS;
          float sc = imp->nodes[i].scale * b->scale;
          /* endLength first: it is the leaves' link length the stiffness conversion uses */
          if (tress__spring_json_float(sb, "endLength", &v)) c->end_length = v * sc;
          if (tress__spring_json_float(sb, "stiffness", &v)) {
            c->stiffness = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            joints_set_stiffness(b, c);
          }
          if (tress__spring_json_float(sb, "drag", &v)) {
            c->drag = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            c->damping = 1.0f - c->drag;
            for (uint32_t k = 0; k < c->joint_count; k++) c->joint_settings[k].drag = c->drag;
          }
          float g[3];
          bool has_g = true;
          if (tress__spring_json_vec(cJSON_GetObjectItemCaseSensitive(sb, "gravity"), g, 3)) {
            for (int a = 0; a < 3; a++) c->gravity[a] = g[a] * b->scale;
          } else if (tress__spring_json_float(sb, "gravity", &v)) {
            c->gravity[0] = c->gravity[2] = 0.0f;
            c->gravity[1] = -v * b->scale;
          } else {
            has_g = false;
          }
          for (uint32_t k = 0; has_g && k < c->joint_count; k++)
            memcpy(c->joint_settings[k].gravity, c->gravity, sizeof c->gravity);
          if (tress__spring_json_float(sb, "radius", &v)) {
            c->radius = v * sc;
            for (uint32_t k = 0; k < c->joint_count; k++) c->joint_settings[k].radius = c->radius;
          }
        }
      }
    }
    i++;
  }
}

