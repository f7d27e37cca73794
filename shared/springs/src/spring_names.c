/* spring_names.c - name conventions: Hair_<region>_<chain>_00 chains (with the region presets)
 * and SBC_Sphere_ / SBC_Capsule_ colliders. */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct region_preset {
  const char *region;
  float stiffness, drag;
} region_preset;

/* A fringe is held close to the face; temples and crown a little looser; a ponytail swings. */
static const region_preset PRESETS[] = {
    {"Fringe", 0.35f, 0.6f},  {"Temple_L", 0.2f, 0.55f}, {"Temple_R", 0.2f, 0.55f},
    {"Crest", 0.25f, 0.5f},   {"Crown", 0.2f, 0.5f},     {"Ponytail", 0.04f, 0.3f},
};

bool tress_spring_region_get_preset(const char *region, float *stiffness, float *drag) {
  for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++) {
    if (region && strcmp(region, PRESETS[i].region) == 0) {
      if (stiffness) *stiffness = PRESETS[i].stiffness;
      if (drag) *drag = PRESETS[i].drag;
      return true;
    }
  }
  if (stiffness) *stiffness = 0.1f;
  if (drag) *drag = 0.5f;
  return false;
}


/* Parses a non-negative decimal number filling [s, end); false otherwise. */
static bool parse_cm(const char *s, const char *end, float *out) {
  if (s >= end || end - s > 15) return false;
  char buf[16];
  size_t n = (size_t)(end - s);
  memcpy(buf, s, n);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i++)
    if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.')) return false;
  char *stop = NULL;
  double v = strtod(buf, &stop);
  if (stop != buf + n || !isfinite(v)) return false;
  *out = (float)v;
  return true;
}

/* "SBC_Sphere_<name>_r<cm>" / "SBC_Capsule_<name>_r<cm>_h<cm>". Returns 0 not a collider name,
 * 1 parsed, -1 malformed (warned). */
static int parse_collider_name(tress__spring_builder *b, const char *nm, bool *capsule, float *r_cm, float *h_cm) {
  const char *sp = "SBC_Sphere_", *cp = "SBC_Capsule_";
  *capsule = strncmp(nm, cp, strlen(cp)) == 0;
  if (!*capsule && strncmp(nm, sp, strlen(sp)) != 0) return 0;
  const char *body = nm + strlen(*capsule ? cp : sp);
  const char *end = nm + strlen(nm);
  *h_cm = 0.0f;
  if (*capsule) {
    const char *h = NULL;
    for (const char *p = body; p + 1 < end; p++)
      if (p[0] == '_' && p[1] == 'h') h = p;
    if (!h || !parse_cm(h + 2, end, h_cm)) {
      tress__spring_warn(b, "\"%s\": a capsule name ends in _r<cm>_h<cm>: skipped", nm);
      return -1;
    }
    end = h;
  }
  const char *r = NULL;
  for (const char *p = body; p + 1 < end; p++)
    if (p[0] == '_' && p[1] == 'r') r = p;
  if (!r || !parse_cm(r + 2, end, r_cm)) {
    tress__spring_warn(b, "\"%s\": a collider name ends in _r<cm>%s: skipped", nm, *capsule ? "_h<cm>" : "");
    return -1;
  }
  return 1;
}

/* "Hair_<region>_<chain>_00": region is everything between "Hair_" and the last "_<chain>". */
static bool parse_hair_name(const char *nm, char *region, size_t region_size) {
  const char *pre = "Hair_";
  size_t len = strlen(nm), pl = strlen(pre);
  if (strncmp(nm, pre, pl) != 0 || len < pl + 3 + 3 || strcmp(nm + len - 3, "_00") != 0) return false;
  const char *mid = nm + pl, *mid_end = nm + len - 3;
  const char *last = NULL;
  for (const char *p = mid; p < mid_end; p++)
    if (*p == '_') last = p;
  if (!last || last == mid || last + 1 >= mid_end) return false;
  size_t n = (size_t)(last - mid);
  if (n >= region_size) n = region_size - 1;
  memcpy(region, mid, n);
  region[n] = '\0';
  return true;
}

void tress__spring_read_names(tress__spring_builder *b, bool *all_colliders) {
  tress_spring_import *imp = b->imp;
  for (uint32_t i = 0; i < imp->node_count; i++) {
    const char *nm = imp->nodes[i].name;
    if (strncmp(nm, "SBC_", 4) != 0) continue;
    bool capsule;
    float r_cm, h_cm;
    if (parse_collider_name(b, nm, &capsule, &r_cm, &h_cm) != 1) continue;
    if (imp->nodes[i].bad) {
      tress__spring_warn(b, "\"%s\": node in a bad part of the node tree: skipped", nm);
      continue;
    }
    if (tress__spring_node_has_collider(imp, (int32_t)i)) continue; /* VRM or extras said it */
    if (capsule && !(h_cm > 0.0f)) {
      tress__spring_warn(b, "\"%s\": capsule with no length: skipped", nm);
      continue;
    }
    tress_spring_collider *c = tress__spring_collider_add(b);
    if (!c) break;
    float zero[3] = {0, 0, 0};
    float sc = imp->nodes[i].scale * b->scale;
    float r = r_cm * 0.01f * sc, h = h_cm * 0.01f * sc;
    tress_collider_def d = capsule ? tress_collider_capsule_y((tress_id){0}, zero, h, r) : tress_default_collider_def();
    c->shape = capsule ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE;
    c->node = (int32_t)i;
    if (capsule) {
      memcpy(c->offset, d.offset, sizeof d.offset);
      memcpy(c->tail, d.tail, sizeof d.tail);
    }
    c->radius = r;
    c->height = h;
    c->source = TRESS_SPRING_FROM_NAME;
  }
  for (uint32_t i = 0; i < imp->node_count; i++) {
    const char *nm = imp->nodes[i].name;
    char region[32];
    if (!parse_hair_name(nm, region, sizeof region)) continue;
    if (imp->nodes[i].bad) {
      tress__spring_warn(b, "\"%s\": node in a bad part of the node tree: skipped", nm);
      continue;
    }
    if (tress__spring_node_in_any_chain(b, (int32_t)i)) continue; /* VRM or extras said it */
    int32_t *joints = NULL;
    uint32_t n = tress__spring_subtree(b, (int32_t)i, &joints);
    if (n == 1) tress__spring_warn(b, "\"%s\": a chain root with no child bones below it: skipped", nm);
    if (n >= 2) {
      tress_spring_chain *c = tress__spring_chain_add(b, (int32_t)i, joints, n);
      if (c) {
        c->source = TRESS_SPRING_FROM_NAME;
        snprintf(c->region, sizeof c->region, "%s", region);
        if (!tress_spring_region_get_preset(region, &c->stiffness, &c->drag))
          tress__spring_warn(b, "\"%s\": region \"%s\" has no preset: stiffness %.2f, drag %.2f", nm, region, (double)c->stiffness,
               (double)c->drag);
        c->damping = 1.0f - c->drag;
        tress__spring_joints_from_chain(b, c);
        all_colliders[imp->chain_count - 1] = true;
      }
    }
    free(joints);
  }
}
