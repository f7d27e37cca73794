/* spring_limit_import.c - a VRMC_springBone joint's VRMC_springBone_limit-1.0 extension (the
 * draft in vrm-specification, specification/VRMC_springBone_limit-1.0: README and schema/ files)
 * read into a tress_joint_limit: { "specVersion": "1.0-draft", "limit": { exactly one of
 * "cone": {angle, rotation?}, "hinge": {angle, rotation?}, "spherical": {pitch, yaw, rotation?} } },
 * angles in radians (>= 0; the sim clamps them to pi, yaw to pi/2), rotation a unit quaternion
 * x y z w (default identity) relative to the limit's default frame. The frame itself is the
 * sim's (sim.h, "Rotation limits"), which is the draft's reference frame. */
#include "spring_limit_import.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool read_angle(const cJSON *obj, const char *key, float *out, char *why, size_t why_size, const char *kind) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0.0) {
    snprintf(why, why_size, "%s limit: \"%s\" is %s (a number >= 0, radians)", kind, key,
             v ? "not a number >= 0" : "missing");
    return false;
  }
  *out = (float)v->valuedouble;
  return true;
}

static bool read_rotation(const cJSON *obj, float out[4], char *why, size_t why_size, const char *kind) {
  out[0] = out[1] = out[2] = 0.0f;
  out[3] = 1.0f;
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(obj, "rotation");
  if (!r) return true;
  double q[4], n2 = 0.0;
  bool ok = cJSON_IsArray(r) && cJSON_GetArraySize(r) == 4;
  for (int k = 0; ok && k < 4; k++) {
    const cJSON *e = cJSON_GetArrayItem(r, k);
    ok = cJSON_IsNumber(e) && isfinite(e->valuedouble);
    q[k] = ok ? e->valuedouble : 0.0;
    n2 += q[k] * q[k];
  }
  if (!ok || !(n2 > 1e-12)) {
    snprintf(why, why_size, "%s limit: \"rotation\" is not a quaternion [x, y, z, w]", kind);
    return false;
  }
  for (int k = 0; k < 4; k++) out[k] = (float)(q[k] / sqrt(n2)); /* the draft asks for a unit one */
  return true;
}

bool tress__spring_limit_read(const cJSON *ext, tress_joint_limit *out, char *why, size_t why_size) {
  why[0] = '\0';
  memset(out, 0, sizeof *out);
  out->rotation[3] = 1.0f;
  if (!cJSON_IsObject(ext)) {
    snprintf(why, why_size, "not an object");
    return false;
  }
  const cJSON *limit = cJSON_GetObjectItemCaseSensitive(ext, "limit");
  if (!cJSON_IsObject(limit)) {
    snprintf(why, why_size, "no \"limit\" object");
    return false;
  }
  static const char *const kinds[] = {"cone", "hinge", "spherical"};
  const cJSON *shape = NULL;
  int kind = -1, found = 0;
  for (int k = 0; k < 3; k++) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(limit, kinds[k]);
    if (!s) continue;
    found++;
    shape = s;
    kind = k;
  }
  if (found != 1 || !cJSON_IsObject(shape)) {
    snprintf(why, why_size, "\"limit\" holds %s of cone, hinge and spherical (exactly one object is needed)",
             found == 0 ? "none" : (found == 1 ? "a non-object" : "more than one"));
    return false;
  }
  const char *name = kinds[kind];
  if (kind == 2) {
    if (!read_angle(shape, "pitch", &out->angle, why, why_size, name) ||
        !read_angle(shape, "yaw", &out->yaw, why, why_size, name))
      return false;
  } else if (!read_angle(shape, "angle", &out->angle, why, why_size, name)) {
    return false;
  }
  if (!read_rotation(shape, out->rotation, why, why_size, name)) return false;
  out->kind = kind == 0 ? TRESS_LIMIT_CONE : (kind == 1 ? TRESS_LIMIT_HINGE : TRESS_LIMIT_SPHERICAL);
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(ext, "specVersion");
  const char *v = cJSON_IsString(version) && version->valuestring ? version->valuestring : "";
  if (strcmp(v, "1.0-draft") != 0 && strcmp(v, "1.0") != 0)
    snprintf(why, why_size, "specVersion \"%s\" is not 1.0-draft: read as the draft", v);
  return true;
}
