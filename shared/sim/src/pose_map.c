/* pose_map.c - the game's pose array into a scene (tress/pose.h): names resolved once to
 * instance ids, then a flat copy per frame. The only per-frame work is one generational id check
 * per matched entry (inside the scene setters) and the root composition for parts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tress/pose.h"

typedef struct pose_target {
  uint32_t index; /* into the game's array */
  tress_id id;
  bool is_bone;
} pose_target;

struct tress_pose_map {
  tress_scene *scene;
  tress_id model;
  tress_bone_pose_space bone_space;
  uint32_t count;
  char **names;          /* count names, in one block with the text */
  pose_target *targets;  /* the matched entries, matched_count of count */
  uint32_t matched_count;
};

const char *tress_bone_pose_space_name(tress_bone_pose_space space) {
  switch (space) {
  case TRESS_BONE_POSE_ANIMATED: return "animated";
  case TRESS_BONE_POSE_LOCAL: return "local";
  }
  return "unknown";
}

tress_pose_map_def tress_default_pose_map_def(void) {
  tress_pose_map_def d;
  memset(&d, 0, sizeof d);
  d.bone_space = TRESS_BONE_POSE_ANIMATED;
  return d;
}

typedef struct find_named {
  const char *name;
  size_t length;
  tress_id found;
} find_named;

static bool visit_find(tress_scene *scene, tress_id id, void *user) {
  find_named *f = user;
  char n[TRESS_NAME_MAX];
  tress_instance_get_name(scene, id, n);
  if (strncmp(n, f->name, f->length) == 0 && n[f->length] == '\0') {
    f->found = id;
    return false;
  }
  return true;
}

/* "A/B/C": C under the first B under the first A under the model; a part or a bone. */
static tress_id resolve_path(tress_scene *scene, tress_id model, const char *path) {
  tress_id at = model;
  while (*path) {
    const char *slash = strchr(path, '/');
    size_t length = slash ? (size_t)(slash - path) : strlen(path);
    find_named f = {path, length, {0}};
    if (length) tress_instance_visit_descendants(scene, at, visit_find, &f);
    if (tress_id_is_null(f.found)) return (tress_id){0};
    at = f.found;
    path += length + (slash ? 1 : 0);
  }
  tress_kind k = tress_instance_get_kind(scene, at);
  return (k == TRESS_KIND_PART || k == TRESS_KIND_BONE) && !tress_id_is_equal(at, model) ? at : (tress_id){0};
}

void tress_pose_map_refresh(tress_pose_map *map) {
  if (!map) return;
  map->matched_count = 0;
  for (uint32_t i = 0; i < map->count; i++) {
    tress_id id = resolve_path(map->scene, map->model, map->names[i]);
    if (tress_id_is_null(id)) continue;
    pose_target *t = &map->targets[map->matched_count++];
    t->index = i;
    t->id = id;
    t->is_bone = tress_instance_get_kind(map->scene, id) == TRESS_KIND_BONE;
  }
}

tress_pose_map *tress_pose_map_create(const tress_pose_map_def *def) {
  if (!def || !def->scene || !tress_instance_is_valid(def->scene, def->model)) return NULL;
  if (def->count && !def->names) return NULL;
  if (def->bone_space != TRESS_BONE_POSE_ANIMATED && def->bone_space != TRESS_BONE_POSE_LOCAL) return NULL;
  size_t text = 0;
  for (uint32_t i = 0; i < def->count; i++) text += strlen(def->names[i] ? def->names[i] : "") + 1;
  tress_pose_map *map = calloc(1, sizeof *map);
  if (!map) return NULL;
  map->names = malloc(def->count * sizeof *map->names + text + 1);
  map->targets = calloc(def->count ? def->count : 1, sizeof *map->targets);
  if (!map->names || !map->targets) {
    tress_pose_map_destroy(map);
    return NULL;
  }
  char *at = (char *)(map->names + def->count);
  for (uint32_t i = 0; i < def->count; i++) {
    const char *n = def->names[i] ? def->names[i] : "";
    size_t length = strlen(n) + 1;
    memcpy(at, n, length);
    map->names[i] = at;
    at += length;
  }
  map->scene = def->scene;
  map->model = def->model;
  map->bone_space = def->bone_space;
  map->count = def->count;
  tress_pose_map_refresh(map);
  return map;
}

void tress_pose_map_destroy(tress_pose_map *map) {
  if (!map) return;
  free(map->names);
  free(map->targets);
  free(map);
}

uint32_t tress_pose_map_get_matched_count(const tress_pose_map *map) { return map ? map->matched_count : 0; }

tress_id tress_pose_map_get_instance(const tress_pose_map *map, uint32_t i) {
  if (!map) return (tress_id){0};
  for (uint32_t k = 0; k < map->matched_count; k++)
    if (map->targets[k].index == i) return map->targets[k].id;
  return (tress_id){0};
}

bool tress_pose_array_get(const tress_pose_array *a, uint32_t i, tress_xform *out) {
  size_t ps = a->position_stride ? a->position_stride : 3 * sizeof(float);
  size_t rs = a->rotation_stride ? a->rotation_stride : 4 * sizeof(float);
  const float *p = (const float *)((const char *)a->positions + ps * i);
  const float *q = (const float *)((const char *)a->rotations + rs * i);
  memcpy(out->p, p, 3 * sizeof(float));
  memcpy(out->q, q, 4 * sizeof(float));
  float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (!isfinite(n2) || n2 < 1e-12f || !tress_xform_is_finite(*out)) return false;
  tress_quat_normalize(out->q);
  return true;
}

tress_result tress_pose_map_apply(tress_pose_map *map, tress_xform root, const tress_pose_array *poses) {
  if (!map || !poses || !poses->positions || !poses->rotations || poses->count < map->count)
    return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_xform_is_finite(root)) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_is_valid(map->scene, map->model)) return TRESS_ERR_STALE_ID;
  tress_quat_normalize(root.q);
  for (uint32_t k = 0; k < map->matched_count; k++) {
    const pose_target *t = &map->targets[k];
    tress_xform pose;
    if (!tress_pose_array_get(poses, t->index, &pose)) continue;
    if (!t->is_bone) {
      tress_part_set_cframe(map->scene, t->id, tress_xform_mul(root, pose));
    } else if (map->bone_space == TRESS_BONE_POSE_LOCAL) {
      tress_bone_set_animated(map->scene, t->id, tress_xform_inv_mul(tress_bone_get_cframe(map->scene, t->id), pose));
    } else {
      tress_bone_set_animated(map->scene, t->id, pose);
    }
  }
  return TRESS_OK;
}
