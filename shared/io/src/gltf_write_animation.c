/* gltf_write_animation.c - one glTF animation on a written skinned mesh: the time accessor, a
 * LINEAR rotation sampler and channel per listed bone, and an optional carrier node above the
 * skeleton with its own translation and rotation channels (the head the hair hangs from). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tress/result.h"

#include "gltf_write_internal.h"

static bool all_finite(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return false;
  return true;
}

int tress__gltf_check_animation(const tress_mesh *m, const tress_gltf_animation *a, tress_error *err) {
  if (!tress_mesh_is_skinned(m)) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "an animation needs a skinned mesh");
  if (a->frame_count < 2 || !(a->frame_seconds > 0.0f) || !isfinite(a->frame_seconds))
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "an animation needs 2 or more frames and a frame time > 0");
  if (a->channel_count > m->bone_count || (a->channel_count && (!a->bones || !a->rotations)))
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%u rotation channels for %u bones", a->channel_count,
                           m->bone_count);
  if (a->channel_count == 0 && !a->carrier_translations && !a->carrier_rotations)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "an animation needs a channel");
  for (uint32_t c = 0; c < a->channel_count; c++) {
    if (a->bones[c] >= m->bone_count)
      return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "channel %u names bone %u of %u", c, a->bones[c],
                             m->bone_count);
    for (uint32_t d = 0; d < c; d++)
      if (a->bones[d] == a->bones[c])
        return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "bone %u has two channels", a->bones[c]);
  }
  size_t frames = a->frame_count;
  if ((a->rotations && !all_finite(a->rotations, 4 * frames * a->channel_count)) ||
      (a->carrier_translations && !all_finite(a->carrier_translations, 3 * frames)) ||
      (a->carrier_rotations && !all_finite(a->carrier_rotations, 4 * frames)))
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "an animation value is not finite");
  return 0;
}

/* A track of unit quaternions (a zero one becomes identity), as glTF rotations must be. */
static int add_rotations(cJSON *root, gltf_bytes *bin, const float *q, uint32_t frames) {
  float *unit = malloc((size_t)frames * 16);
  if (!unit) {
    bin->oom = true;
    return 0;
  }
  for (uint32_t k = 0; k < frames; k++) {
    const float *s = q + 4 * k;
    float len = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
    for (int i = 0; i < 4; i++) unit[4 * k + i] = len > 1e-12f ? s[i] / len : (i == 3 ? 1.0f : 0.0f);
  }
  int acc = tress__gltf_add_accessor(root, bin, unit, 16, frames, 5126, "VEC4", 0, false);
  free(unit);
  return acc;
}

static void add_channel(cJSON *samplers, cJSON *channels, int input, int output, int node, const char *path) {
  cJSON *sampler = cJSON_CreateObject();
  cJSON_AddNumberToObject(sampler, "input", input);
  cJSON_AddStringToObject(sampler, "interpolation", "LINEAR");
  cJSON_AddNumberToObject(sampler, "output", output);
  cJSON_AddItemToArray(samplers, sampler);
  cJSON *channel = cJSON_CreateObject();
  cJSON_AddNumberToObject(channel, "sampler", cJSON_GetArraySize(samplers) - 1);
  cJSON *target = cJSON_AddObjectToObject(channel, "target");
  cJSON_AddNumberToObject(target, "node", node);
  cJSON_AddStringToObject(target, "path", path);
  cJSON_AddItemToArray(channels, channel);
}

/* The carrier node takes every scene root but the mesh node (index 0 of the scene's list) as
 * its children and becomes a scene root itself; returns its node index. */
static int add_carrier(cJSON *root, cJSON *scene_nodes, const char *name) {
  cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
  cJSON *carrier = cJSON_CreateObject();
  cJSON_AddStringToObject(carrier, "name", name ? name : "Carrier");
  cJSON *children = cJSON_AddArrayToObject(carrier, "children");
  while (cJSON_GetArraySize(scene_nodes) > 1) cJSON_AddItemToArray(children, cJSON_DetachItemFromArray(scene_nodes, 1));
  cJSON_AddItemToArray(nodes, carrier);
  int index = cJSON_GetArraySize(nodes) - 1;
  cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(index));
  return index;
}

void tress__gltf_add_animation(cJSON *root, gltf_bytes *bin, cJSON *scene_nodes, const tress_gltf_animation *a) {
  uint32_t frames = a->frame_count;
  float *times = malloc((size_t)frames * sizeof *times);
  if (!times) {
    bin->oom = true;
    return;
  }
  for (uint32_t k = 0; k < frames; k++) times[k] = (float)((double)k * a->frame_seconds);
  int input = tress__gltf_add_accessor(root, bin, times, 4, frames, 5126, "SCALAR", 0, false);
  cJSON *input_acc = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"), input);
  cJSON_AddItemToObject(input_acc, "min", tress__gltf_float_array(times, 1));
  cJSON_AddItemToObject(input_acc, "max", tress__gltf_float_array(times + frames - 1, 1));
  free(times);
  cJSON *animation = cJSON_CreateObject();
  cJSON_AddStringToObject(animation, "name", a->name ? a->name : "Animation");
  cJSON *channels = cJSON_AddArrayToObject(animation, "channels");
  cJSON *samplers = cJSON_AddArrayToObject(animation, "samplers");
  for (uint32_t c = 0; c < a->channel_count; c++) {
    int output = add_rotations(root, bin, a->rotations + (size_t)4 * frames * c, frames);
    add_channel(samplers, channels, input, output, 1 + (int)a->bones[c], "rotation");
  }
  if (a->carrier_translations || a->carrier_rotations) {
    int carrier = add_carrier(root, scene_nodes, a->carrier_name);
    if (a->carrier_translations) {
      int output = tress__gltf_add_accessor(root, bin, a->carrier_translations, 12, frames, 5126, "VEC3", 0, false);
      add_channel(samplers, channels, input, output, carrier, "translation");
    }
    if (a->carrier_rotations) add_channel(samplers, channels, input, add_rotations(root, bin, a->carrier_rotations, frames), carrier, "rotation");
  }
  cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "animations"), animation);
}
