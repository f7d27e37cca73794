/* spring_apply.c - an import applied to a scene: bones for the nodes chains and colliders need,
 * collider defs attached to them (tress/spring_import.h). */
#include "tress/spring_import.h"

#include <stdlib.h>
#include <string.h>

#include "tress/result.h"


typedef struct find_bone {
  const char *name;
  tress_id found;
} find_bone;

static bool find_bone_visit(tress_scene *scene, tress_id id, void *user) {
  find_bone *f = user;
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(scene, id, name);
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE && strcmp(name, f->name) == 0) {
    f->found = id;
    return false;
  }
  return true;
}

static bool any_bone_visit(tress_scene *scene, tress_id id, void *user) {
  find_bone *f = user;
  if (tress_instance_get_kind(scene, id) != TRESS_KIND_BONE) return true;
  f->found = id;
  return false;
}

int tress_spring_import_apply(const tress_spring_import *imp, tress_scene *scene, tress_id part,
                              tress_spring_scene *out, tress_error *err) {
  if (!out) {
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "no output");
  }
  memset(out, 0, sizeof *out);
  if (!imp || !scene || !tress_instance_is_valid(scene, part) || tress_instance_get_kind(scene, part) != TRESS_KIND_PART) {
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "an import and a valid part are needed");
  }
  uint32_t n = imp->node_count;
  bool *need = calloc((size_t)n + 1, sizeof *need);
  out->node_bones = calloc((size_t)n + 1, sizeof *out->node_bones);
  out->colliders = calloc((size_t)imp->collider_count + 1, sizeof *out->colliders);
  if (!need || !out->node_bones || !out->colliders) {
    free(need);
    tress_spring_scene_free(out);
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  }
  out->node_count = n;
  out->collider_count = imp->collider_count;
  /* what chains and colliders need, with their ancestors (bounded walks: no cycles reach here) */
  for (uint32_t c = 0; c < imp->chain_count; c++)
    for (uint32_t k = 0; k < imp->chains[c].joint_count; k++) need[imp->chains[c].joints[k]] = true;
  for (uint32_t c = 0; c < imp->collider_count; c++) need[imp->colliders[c].node] = true;
  for (uint32_t i = 0; i < n; i++) {
    if (!need[i]) continue;
    uint32_t steps = 0;
    for (int32_t p = imp->nodes[i].parent; p >= 0 && steps <= n; p = imp->nodes[p].parent, steps++) need[p] = true;
  }
  /* a part with no bones yet (the usual case) needs no name lookups */
  find_bone any = {NULL, (tress_id){0}};
  if (tress_instance_visit_descendants(scene, part, any_bone_visit, &any) != TRESS_OK) {
    free(need);
    tress_spring_scene_free(out);
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  }
  bool has_bones = !tress_id_is_null(any.found);
  /* parents before children: from each needed node walk up to the nearest ancestor that has
   * its bone already (or the part), then build down that path; each node is built once */
  int32_t *path = malloc(((size_t)n + 1) * sizeof *path);
  if (!path) {
    free(need);
    tress_spring_scene_free(out);
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!need[i] || imp->nodes[i].bad || !tress_id_is_null(out->node_bones[i])) continue;
    uint32_t depth = 0;
    int32_t p = (int32_t)i;
    while (p >= 0 && tress_id_is_null(out->node_bones[p]) && depth < n) {
      path[depth++] = p;
      p = imp->nodes[p].parent;
    }
    tress_id parent_id = p >= 0 ? out->node_bones[p] : part;
    while (depth > 0) {
      int32_t k = path[--depth];
      find_bone f = {imp->nodes[k].name, (tress_id){0}};
      tress_result looked = has_bones ? tress_instance_visit_descendants(scene, part, find_bone_visit, &f) : TRESS_OK;
      tress_id bone = f.found;
      if (looked != TRESS_OK) { /* out of memory: never a second bone of that name */
        free(path);
        free(need);
        tress_spring_scene_free(out);
        return tress_error_set(err, looked, "out of memory");
      }
      if (tress_id_is_null(bone)) {
        tress_instance_def bone_def = tress_default_instance_def();
        bone_def.kind = TRESS_KIND_BONE;
        bone_def.name = imp->nodes[k].name;
        bone_def.parent = parent_id;
        bone_def.cframe = imp->nodes[k].local;
        tress_result made = tress_scene_create_instance(scene, &bone_def, &bone);
        if (made != TRESS_OK) {
          free(path);
          free(need);
          tress_spring_scene_free(out);
          return tress_error_set(err, made, "could not create bone \"%s\": %s", imp->nodes[k].name,
                                 tress_result_name(made));
        }
      }
      out->node_bones[k] = bone;
      parent_id = bone;
    }
  }
  free(path);
  for (uint32_t c = 0; c < imp->collider_count; c++) {
    const tress_spring_collider *sc = &imp->colliders[c];
    tress_collider_def *d = &out->colliders[c];
    *d = tress_default_collider_def();
    d->shape = sc->shape;
    d->attach = out->node_bones[sc->node];
    memcpy(d->offset, sc->offset, sizeof d->offset);
    memcpy(d->tail, sc->tail, sizeof d->tail);
    if (sc->shape == TRESS_COLLIDER_PLANE) memcpy(d->normal, sc->normal, sizeof d->normal);
    d->radius = sc->radius;
  }
  free(need);
  return 0;
}

void tress_spring_scene_free(tress_spring_scene *s) {
  if (!s) return;
  free(s->node_bones);
  free(s->colliders);
  memset(s, 0, sizeof *s);
}

