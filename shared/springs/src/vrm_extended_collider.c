/* vrm_extended_collider.c - VRMC_springBone_extended_collider-1.0: plane, inside sphere and
 * inside capsule colliders (and outside ones) that replace a collider's fallback shape. The
 * field names and defaults follow the extension's schema and three-vrm's loader plugin
 * (VRMSpringBoneLoaderPlugin: extended shape first, the fallback only without it). */
#include "vrm_extended_collider.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EXTENSION_NAME "VRMC_springBone_extended_collider"

/* A number array of 3 into out; false (out untouched) when absent or not 3 numbers. */
static bool read_vec3(const cJSON *obj, const char *key, float out[3]) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) return false;
  float t[3];
  for (int k = 0; k < 3; k++) {
    const cJSON *e = cJSON_GetArrayItem(v, k);
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return false;
    t[k] = (float)e->valuedouble;
  }
  memcpy(out, t, sizeof t);
  return true;
}

static float read_radius(const cJSON *obj) {
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(obj, "radius");
  return cJSON_IsNumber(r) && isfinite(r->valuedouble) ? (float)r->valuedouble : 0.0f;
}

static tress_vrm_extended_status unusable(char *why, size_t why_size, const char *text) {
  if (why && why_size) snprintf(why, why_size, "%s", text);
  return TRESS_VRM_EXTENDED_UNUSABLE;
}

static tress_vrm_extended_status read_round(const cJSON *s, bool capsule, tress_vrm_extended_shape *out, char *why,
                                            size_t why_size) {
  read_vec3(s, "offset", out->offset);
  memcpy(out->tail, out->offset, sizeof out->tail);
  if (capsule) {
    memset(out->tail, 0, sizeof out->tail);
    read_vec3(s, "tail", out->tail);
  }
  out->radius = read_radius(s);
  if (out->radius < 0.0f) return unusable(why, why_size, "negative radius");
  bool inside = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "inside"));
  float dx = out->tail[0] - out->offset[0], dy = out->tail[1] - out->offset[1], dz = out->tail[2] - out->offset[2];
  bool segment = capsule && dx * dx + dy * dy + dz * dz > 0.0f; /* coinciding ends: a sphere */
  if (segment) out->shape = inside ? TRESS_COLLIDER_INSIDE_CAPSULE : TRESS_COLLIDER_CAPSULE;
  else out->shape = inside ? TRESS_COLLIDER_INSIDE_SPHERE : TRESS_COLLIDER_SPHERE;
  if (!segment) memcpy(out->tail, out->offset, sizeof out->tail);
  return TRESS_VRM_EXTENDED_READ;
}

static tress_vrm_extended_status read_plane(const cJSON *s, tress_vrm_extended_shape *out, char *why,
                                            size_t why_size) {
  read_vec3(s, "offset", out->offset);
  memcpy(out->tail, out->offset, sizeof out->tail);
  float n[3] = {0.0f, 0.0f, 1.0f};
  read_vec3(s, "normal", n);
  float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(len > 1e-6f)) return unusable(why, why_size, "plane normal of zero length");
  for (int k = 0; k < 3; k++) out->normal[k] = n[k] / len;
  out->shape = TRESS_COLLIDER_PLANE;
  out->radius = 0.0f;
  return TRESS_VRM_EXTENDED_READ;
}

tress_vrm_extended_status tress__vrm_read_extended_collider(const cJSON *collider, tress_vrm_extended_shape *out,
                                                            char *why, size_t why_size) {
  if (why && why_size) why[0] = '\0';
  const cJSON *exts = cJSON_GetObjectItemCaseSensitive(collider, "extensions");
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(exts, EXTENSION_NAME);
  if (!cJSON_IsObject(ext)) return TRESS_VRM_EXTENDED_ABSENT;
  memset(out, 0, sizeof *out);
  out->normal[2] = 1.0f;
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(ext, "specVersion");
  if (!cJSON_IsString(version) || !version->valuestring || strcmp(version->valuestring, "1.0") != 0)
    return unusable(why, why_size, "specVersion is not \"1.0\"");
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(ext, "shape");
  const cJSON *sphere = cJSON_GetObjectItemCaseSensitive(shape, "sphere");
  const cJSON *capsule = cJSON_GetObjectItemCaseSensitive(shape, "capsule");
  const cJSON *plane = cJSON_GetObjectItemCaseSensitive(shape, "plane");
  if (cJSON_IsObject(sphere)) return read_round(sphere, false, out, why, why_size);
  if (cJSON_IsObject(capsule)) return read_round(capsule, true, out, why, why_size);
  if (cJSON_IsObject(plane)) return read_plane(plane, out, why, why_size);
  return unusable(why, why_size, "no sphere, capsule or plane shape");
}
