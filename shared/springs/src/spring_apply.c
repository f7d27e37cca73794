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

/* Takes back a failed apply: the bones this call made (made[0..count), in creation order, parents
 * first), so the scene is as it was. Last made first: each is then a leaf (no bone that was
 * there before hangs under a new one), and a leaf's destroy needs no memory, so this works even
 * with memory still out. */
static void unmake_bones(tress_scene *scene, const tress_spring_scene *out, const int32_t *made, uint32_t count) {
  while (count > 0) tress_instance_destroy(scene, out->node_bones[made[--count]]);
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
  /* a walk's path, then the nodes whose bones this call made, in order (made[n + 1 ..]) */
  int32_t *path = malloc(2 * ((size_t)n + 1) * sizeof *path), *made = path ? path + n + 1 : NULL;
  uint32_t made_count = 0;
  out->node_bones = calloc((size_t)n + 1, sizeof *out->node_bones);
  out->colliders = calloc((size_t)imp->collider_count + 1, sizeof *out->colliders);
  tress_result failed = TRESS_ERR_OUT_OF_MEMORY; /* each goto fail says what failed */
  const char *failed_bone = NULL;
  if (!need || !path || !out->node_bones || !out->colliders) goto fail;
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
  failed = tress_instance_visit_descendants(scene, part, any_bone_visit, &any);
  if (failed != TRESS_OK) goto fail;
  bool has_bones = !tress_id_is_null(any.found);
  /* parents before children: from each needed node walk up to the nearest ancestor that has
   * its bone already (or the part), then build down that path; each node is built once */
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
      /* out of memory in the lookup fails the apply: never a second bone of that name */
      failed = has_bones ? tress_instance_visit_descendants(scene, part, find_bone_visit, &f) : TRESS_OK;
      if (failed != TRESS_OK) goto fail;
      tress_id bone = f.found;
      if (tress_id_is_null(bone)) {
        tress_instance_def bone_def = tress_default_instance_def();
        bone_def.kind = TRESS_KIND_BONE;
        bone_def.name = imp->nodes[k].name;
        bone_def.parent = parent_id;
        bone_def.cframe = imp->nodes[k].local;
        failed = tress_scene_create_instance(scene, &bone_def, &bone);
        if (failed != TRESS_OK) {
          failed_bone = imp->nodes[k].name;
          goto fail;
        }
        made[made_count++] = k;
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
fail:
  unmake_bones(scene, out, made, made_count);
  free(path);
  free(need);
  tress_spring_scene_free(out);
  if (failed_bone)
    return tress_error_set(err, failed, "could not create bone \"%s\": %s", failed_bone, tress_result_name(failed));
  const char *why = failed == TRESS_ERR_OUT_OF_MEMORY ? "out of memory" : tress_result_name(failed);
  return tress_error_set(err, failed, "%s", why);
}

void tress_spring_scene_free(tress_spring_scene *s) {
  if (!s) return;
  free(s->node_bones);
  free(s->colliders);
  memset(s, 0, sizeof *s);
}

