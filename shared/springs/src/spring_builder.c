/* spring_builder.c - the import under construction: warnings (capped), colliders, node queries
 * and the JSON readers every source uses (spring_import_internal.h). */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tress__spring_warn(tress__spring_builder *b, const char *fmt, ...) {
  tress_spring_import *imp = b->imp;
  if (imp->warning_count >= MAX_WARNINGS) return;
  if (imp->warning_count == imp->warning_cap) {
    uint32_t cap = imp->warning_cap ? imp->warning_cap * 2 : 16;
    void *p = realloc(imp->warnings, (size_t)cap * sizeof *imp->warnings);
    if (!p) {
      b->oom = true;
      return;
    }
    imp->warnings = p;
    imp->warning_cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(imp->warnings[imp->warning_count], TRESS_SPRING_WARNING_MAX, fmt, ap);
  va_end(ap);
  imp->warning_count++;
  if (imp->warning_count == MAX_WARNINGS)
    snprintf(imp->warnings[imp->warning_count - 1], TRESS_SPRING_WARNING_MAX, "more warnings left out");
}

const char *tress__spring_node_name(const tress__spring_builder *b, int32_t i) {
  return i >= 0 && (uint32_t)i < b->imp->node_count ? b->imp->nodes[i].name : "?";
}

tress_spring_collider *tress__spring_collider_add(tress__spring_builder *b) {
  tress_spring_import *imp = b->imp;
  if (imp->collider_count >= MAX_COLLIDERS) {
    tress__spring_warn(b, "more than %u colliders: the rest are left out", MAX_COLLIDERS);
    return NULL;
  }
  if (imp->collider_count == imp->collider_cap) {
    uint32_t cap = imp->collider_cap ? imp->collider_cap * 2 : 8;
    void *p = realloc(imp->colliders, (size_t)cap * sizeof *imp->colliders);
    if (!p) {
      b->oom = true;
      return NULL;
    }
    imp->colliders = p;
    imp->collider_cap = cap;
  }
  tress_spring_collider *c = &imp->colliders[imp->collider_count++];
  memset(c, 0, sizeof *c);
  return c;
}

int32_t tress__spring_chain_of_root(const tress__spring_builder *b, int32_t node) { return b->root_chain[node]; }

bool tress__spring_node_in_any_chain(const tress__spring_builder *b, int32_t node) { return b->in_chain[node] != 0; }

bool tress__spring_node_has_collider(const tress_spring_import *imp, int32_t node) {
  for (uint32_t i = 0; i < imp->collider_count; i++)
    if (imp->colliders[i].node == node) return true;
  return false;
}

bool tress__spring_node_ok(const tress__spring_builder *b, int32_t i) {
  return i >= 0 && (uint32_t)i < b->imp->node_count && !b->imp->nodes[i].bad;
}

/* The root and every good node below it, parents first (breadth-first over the child lists).
 * Returns the count, or 0 on allocation failure; *out is malloc'd. */
uint32_t tress__spring_subtree(tress__spring_builder *b, int32_t root, int32_t **out) {
  tress_spring_import *imp = b->imp;
  int32_t *list = malloc((size_t)imp->node_count * sizeof *list);
  if (!list) {
    b->oom = true;
    return 0;
  }
  uint32_t n = 0;
  list[n++] = root;
  for (uint32_t head = 0; head < n; head++)
    for (int32_t c = b->first_child[list[head]]; c >= 0 && n < imp->node_count; c = b->next_sibling[c]) list[n++] = c;
  *out = list;
  return n;
}

/* ---- 1. VRM 1.0 ---- */
/* ---- JSON helpers ---- */

bool tress__spring_json_float(const cJSON *obj, const char *key, float *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return false;
  *out = (float)v->valuedouble;
  return isfinite(*out);
}

bool tress__spring_json_index(const cJSON *v, int32_t *out) {
  if (!cJSON_IsNumber(v)) return false;
  double d = v->valuedouble;
  if (!(d >= -2147483648.0 && d <= 2147483647.0) || d != floor(d)) return false;
  *out = (int32_t)d;
  return true;
}

const cJSON *tress__spring_json_list(tress__spring_builder *b, const cJSON *parent, const char *key, const char *what) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (cJSON_IsArray(v)) return v;
  if (v) tress__spring_warn(b, "%s \"%s\" is not an array: ignored", what, key);
  return NULL;
}

/* A float array of exactly n finite numbers. */
bool tress__spring_json_vec(const cJSON *v, float *out, int n) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return false;
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, v) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return false;
    out[i++] = (float)e->valuedouble;
  }
  return true;
}

/* VRM 0.x writes vectors as {x, y, z}. */
bool tress__spring_json_xyz(const cJSON *v, float out[3]) {
  return cJSON_IsObject(v) && tress__spring_json_float(v, "x", &out[0]) && tress__spring_json_float(v, "y", &out[1]) &&
         tress__spring_json_float(v, "z", &out[2]);
}

