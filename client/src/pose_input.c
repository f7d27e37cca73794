/* pose_input.c - the game's animated skeleton into the replica (tress/client.h): part poses
 * relative to the character's root, which tress__replica_place composes every step, and bone
 * `animated` slots in the scene, which the sim reads as its animation input.
 *
 * A pose map resolves the game's names once to (part index | bone id) targets and re-resolves
 * only when the character's bones changed (ch->pose_layout), into the targets array sized at
 * creation, so apply never allocates. The client keeps a list of live maps so removing a
 * character detaches its maps instead of leaving them pointing at freed memory. */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

typedef struct client_pose_target {
  uint32_t index;      /* into the game's array */
  uint32_t part_index; /* parts */
  tress_id bone;       /* bones */
  bool is_bone;
} client_pose_target;

struct tress_client_pose_map {
  tress_client *client;      /* NULL once the client is destroyed */
  replica_character *ch;     /* NULL once the character is gone */
  struct tress_client_pose_map *next;
  tress_bone_pose_space bone_space;
  uint32_t count;
  char **names; /* count names, in one block with the text */
  client_pose_target *targets;
  uint32_t matched_count;
  uint32_t layout_seen;
};

/* ---- by id --------------------------------------------------------------------------------- */

static int part_index_of(const replica_character *ch, tress_id part) {
  for (uint32_t i = 0; i < ch->manifest.part_count; i++)
    if (tress_id_is_equal(ch->parts[i], part)) return (int)i;
  return -1;
}

static bool is_character_bone(const tress_client *c, const replica_character *ch, tress_id id) {
  return tress_instance_is_valid(c->scene, id) && tress_instance_get_kind(c->scene, id) == TRESS_KIND_BONE &&
         tress_instance_is_descendant_of(c->scene, id, ch->model);
}

tress_result tress_client_set_pose(tress_client *c, uint32_t character_id, tress_id instance,
                                   tress_xform pose) {
  replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return TRESS_ERR_NOT_FOUND;
  if (!tress_xform_is_finite(pose)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_quat_normalize(pose.q);
  int part = part_index_of(ch, instance);
  if (part >= 0) {
    ch->part_poses[part] = pose;
    return TRESS_OK;
  }
  if (!is_character_bone(c, ch, instance)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_bone_set_animated(c->scene, instance, pose);
  return TRESS_OK;
}

uint32_t tress_client_get_parts(const tress_client *c, uint32_t character_id, tress_id *out, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  for (uint32_t i = 0; i < ch->manifest.part_count && i < max; i++) out[i] = ch->parts[i];
  return ch->manifest.part_count;
}

/* ---- pose maps ----------------------------------------------------------------------------- */

tress_client_pose_map_def tress_default_client_pose_map_def(void) {
  tress_client_pose_map_def d;
  memset(&d, 0, sizeof d);
  d.bone_space = TRESS_BONE_POSE_ANIMATED;
  return d;
}

/* The bone named `name` (length bytes) among accessory a's bones, or among every accessory's
 * when a < 0. */
static tress_id find_bone(const tress_client *c, const replica_character *ch, int a, const char *name, size_t length) {
  for (uint32_t k = 0; k < ch->manifest.accessory_count; k++) {
    const replica_accessory *ra = &ch->accessories[k];
    if ((a >= 0 && (uint32_t)a != k) || ra->rig_state != TRESS_RIG_APPLIED) continue;
    for (uint32_t b = ra->bone_first; b < ra->bone_first + ra->bone_count && b < ch->bone_count; b++) {
      char n[TRESS_NAME_MAX];
      tress_instance_get_name(c->scene, ch->bones[b], n);
      if (strncmp(n, name, length) == 0 && n[length] == '\0') return ch->bones[b];
    }
  }
  return (tress_id){0};
}

static bool resolve_name(const tress_client *c, const replica_character *ch, const char *name, client_pose_target *t) {
  const char *slash = strchr(name, '/');
  if (slash) {
    size_t length = (size_t)(slash - name);
    for (uint32_t a = 0; a < ch->manifest.accessory_count; a++) {
      const char *an = ch->manifest.accessories[a].name;
      if (strncmp(an, name, length) != 0 || an[length] != '\0') continue;
      t->bone = find_bone(c, ch, (int)a, slash + 1, strlen(slash + 1));
      t->is_bone = true;
      return !tress_id_is_null(t->bone);
    }
    return false;
  }
  for (uint32_t p = 0; p < ch->manifest.part_count; p++) {
    if (strcmp(ch->manifest.parts[p].name, name) == 0) {
      t->part_index = p;
      t->is_bone = false;
      return true;
    }
  }
  t->bone = find_bone(c, ch, -1, name, strlen(name));
  t->is_bone = true;
  return !tress_id_is_null(t->bone);
}

static void resolve(tress_client_pose_map *map) {
  map->matched_count = 0;
  map->layout_seen = map->ch->pose_layout;
  for (uint32_t i = 0; i < map->count; i++) {
    client_pose_target *t = &map->targets[map->matched_count];
    memset(t, 0, sizeof *t);
    t->index = i;
    if (resolve_name(map->client, map->ch, map->names[i], t)) map->matched_count++;
  }
}

tress_result tress_client_pose_map_create(tress_client *c, const tress_client_pose_map_def *def,
                                          tress_client_pose_map **out, tress_error *err) {
  if (out) *out = NULL;
  if (!c || !def || !out)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "pose map create needs a client, a def and out");
  if (def->count && !def->names)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "def.count is %u but def.names is NULL", def->count);
  if (def->bone_space != TRESS_BONE_POSE_ANIMATED && def->bone_space != TRESS_BONE_POSE_LOCAL)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "def.bone_space %d is no tress_bone_pose_space",
                           (int)def->bone_space);
  replica_character *ch = tress__replica_find(c, def->character_id);
  if (!ch) return tress_error_set(err, TRESS_ERR_NOT_FOUND, "no character %u in the replica", def->character_id);
  size_t text = 0;
  for (uint32_t i = 0; i < def->count; i++) text += strlen(def->names[i] ? def->names[i] : "") + 1;
  tress_client_pose_map *map = calloc(1, sizeof *map);
  if (!map) return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "no memory for a pose map");
  map->names = malloc(def->count * sizeof *map->names + text + 1);
  map->targets = calloc(def->count ? def->count : 1, sizeof *map->targets);
  if (!map->names || !map->targets) {
    free(map->names);
    free(map->targets);
    free(map);
    return tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "no memory for %u pose map names", def->count);
  }
  char *at = (char *)(map->names + def->count);
  for (uint32_t i = 0; i < def->count; i++) {
    const char *n = def->names[i] ? def->names[i] : "";
    size_t length = strlen(n) + 1;
    memcpy(at, n, length);
    map->names[i] = at;
    at += length;
  }
  map->client = c;
  map->ch = ch;
  map->bone_space = def->bone_space;
  map->count = def->count;
  resolve(map);
  map->next = c->pose_maps;
  c->pose_maps = map;
  *out = map;
  return TRESS_OK;
}

void tress_client_pose_map_destroy(tress_client_pose_map *map) {
  if (!map) return;
  if (map->client) {
    for (tress_client_pose_map **p = &map->client->pose_maps; *p; p = &(*p)->next) {
      if (*p == map) {
        *p = map->next;
        break;
      }
    }
  }
  free(map->names);
  free(map->targets);
  free(map);
}

uint32_t tress_client_pose_map_get_matched_count(const tress_client_pose_map *map) {
  return map ? map->matched_count : 0;
}

tress_result tress_client_pose_map_apply(tress_client_pose_map *map, const tress_pose_array *poses) {
  if (!map || !poses || !poses->positions || !poses->rotations || poses->count < map->count)
    return TRESS_ERR_INVALID_ARGUMENT;
  if (!map->client || !map->ch) return TRESS_ERR_NOT_FOUND;
  replica_character *ch = map->ch;
  tress_scene *scene = map->client->scene;
  if (map->layout_seen != ch->pose_layout) resolve(map);
  for (uint32_t k = 0; k < map->matched_count; k++) {
    const client_pose_target *t = &map->targets[k];
    tress_xform pose;
    if (!tress_pose_array_get(poses, t->index, &pose)) continue; /* keeps its last pose */
    if (!t->is_bone)
      ch->part_poses[t->part_index] = pose;
    else if (map->bone_space == TRESS_BONE_POSE_LOCAL)
      tress_bone_set_animated(scene, t->bone, tress_xform_inv_mul(tress_bone_get_cframe(scene, t->bone), pose));
    else
      tress_bone_set_animated(scene, t->bone, pose);
  }
  return TRESS_OK;
}

void tress__pose_maps_forget(tress_client *c, const replica_character *ch) {
  for (tress_client_pose_map *m = c->pose_maps; m; m = m->next)
    if (m->ch == ch) m->ch = NULL;
}

void tress__pose_maps_detach_all(tress_client *c) {
  for (tress_client_pose_map *m = c->pose_maps; m;) {
    tress_client_pose_map *next = m->next;
    m->client = NULL;
    m->ch = NULL;
    m->next = NULL;
    m = next;
  }
  c->pose_maps = NULL;
}
