/* Character manifests as JSON
 * ---------------------------
 * Operators and bots describe characters in JSON files; the wire carries the same manifest as
 * binary. This file maps one onto the other by name (parts are referenced by name in JSON and by
 * index on the wire).
 *
 * The reader is strict, because a typo that loads is a character that quietly rigs wrong: every
 * object lists the keys it knows and any other key (or a key given twice) is refused with its
 * JSON path; a syntax error names its line and column. Values are checked by the codec's own
 * field rules (validate.c) as each one is read, so an error names the JSON path of the value, and
 * the whole manifest is then encoded once as a SPAWN_CHARACTER, so a file that loads is a
 * manifest the server will accept and no rule is written twice. protocol/manifest.schema.json
 * describes the same format for editors and other tools. */
#include "tress/manifest_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/result.h"
#include "tress/codec.h"
#include "tress/file_read.h"
#include "tress/wire_attachments.h"
#include "tress/wire_springs.h"
#include "wire_internal.h"

#define PATH_MAX_BYTES 96 /* "$.springs.chains[15].colliders[3]" and friends */
#define MANIFEST_MAX_FILE_BYTES (4u << 20)

#define TRESS_MANIFEST_JSON_ERROR_MAX 256 /* the readers' message buffers */

static int fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, TRESS_MANIFEST_JSON_ERROR_MAX, fmt, ap);
  va_end(ap);
  return -1;
}

/* A codec rule broken by the value at path: the codec's words, the JSON path in front. */
static int wire_rule(char *err, const char *path, tress_wire_status st, const tress_wire_error *werr) {
  if (st == TRESS_WIRE_OK) return 0;
  return fail(err, "%s: %s", path, werr->message);
}

/* A path longer than PATH_MAX_BYTES is cut: it only ever names where an error is. */
static void child_path(char out[PATH_MAX_BYTES], const char *path, const char *key) {
  if (snprintf(out, PATH_MAX_BYTES, "%s.%s", path, key) >= PATH_MAX_BYTES) out[PATH_MAX_BYTES - 1] = '\0';
}

static void index_path(char out[PATH_MAX_BYTES], const char *path, int i) {
  if (snprintf(out, PATH_MAX_BYTES, "%s[%d]", path, i) >= PATH_MAX_BYTES) out[PATH_MAX_BYTES - 1] = '\0';
}

/* Edit distance of two short keys, capped: only "is it a likely typo" matters. */
static int key_distance(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 31 || nb > 31) return 99;
  int row[32];
  for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* obj must be an object whose every key is in keys (NULL-terminated), each given once. */
static int check_object(const cJSON *obj, const char *path, const char *const *keys, char *err) {
  if (!cJSON_IsObject(obj)) return fail(err, "%s: must be an object", path);
  for (const cJSON *c = obj->child; c; c = c->next) {
    for (const cJSON *d = obj->child; d != c; d = d->next)
      if (strcmp(d->string, c->string) == 0) return fail(err, "%s.%s: key given twice", path, c->string);
    const char *near = NULL;
    int near_distance = 3; /* at most two edits away counts as a typo */
    bool known = false;
    for (const char *const *k = keys; *k && !known; k++) {
      known = strcmp(*k, c->string) == 0;
      int d = key_distance(*k, c->string);
      if (d < near_distance) near_distance = d, near = *k;
    }
    if (known) continue;
    if (near) return fail(err, "%s.%s: unknown key (did you mean \"%s\"?)", path, c->string, near);
    char list[160] = "";
    size_t used = 0;
    for (const char *const *k = keys; *k && used < sizeof list; k++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
    return fail(err, "%s.%s: unknown key (known here: %s)", path, c->string, list);
  }
  return 0;
}

static const cJSON *get(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* An optional array of exactly n numbers at obj.key; absent keeps out. */
static int read_floats(const cJSON *obj, const char *key, float *out, int n, const char *path, char *err) {
  const cJSON *item = get(obj, key);
  if (!item) return 0;
  char at[PATH_MAX_BYTES];
  child_path(at, path, key);
  if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) return fail(err, "%s: expected %d numbers", at, n);
  for (int i = 0; i < n; i++) {
    const cJSON *v = cJSON_GetArrayItem(item, i);
    if (!cJSON_IsNumber(v)) return fail(err, "%s[%d]: not a number", at, i);
    out[i] = (float)v->valuedouble;
  }
  return 0;
}

static int read_string(const cJSON *obj, const char *key, char *out, size_t cap, bool required, const char *path,
                       char *err) {
  const cJSON *v = get(obj, key);
  if (!v) return required ? fail(err, "%s: missing \"%s\"", path, key) : 0;
  char at[PATH_MAX_BYTES];
  child_path(at, path, key);
  if (!cJSON_IsString(v)) return fail(err, "%s: must be a string", at);
  size_t n = strlen(v->valuestring);
  tress_wire_error werr = {0};
  if (wire_rule(err, at, wire_check_utf8(v->valuestring, n, cap - 1, "text", 0, &werr), &werr)) return -1;
  memcpy(out, v->valuestring, n + 1);
  return 0;
}

static int read_number(const cJSON *obj, const char *key, float *out, const char *path, char *err) {
  const cJSON *v = get(obj, key);
  if (!v) return 0;
  if (!cJSON_IsNumber(v)) return fail(err, "%s.%s: must be a number", path, key);
  *out = (float)v->valuedouble;
  return 0;
}

/* A whole number in [lo, hi] (rig counts): 3.5 or 300 is refused, not truncated. */
static int read_count(const cJSON *obj, const char *key, uint8_t *out, int lo, int hi, const char *path, char *err) {
  const cJSON *v = get(obj, key);
  if (!v) return 0;
  if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble || v->valuedouble < lo ||
      v->valuedouble > hi)
    return fail(err, "%s.%s: must be a whole number in %d..%d", path, key, lo, hi);
  *out = (uint8_t)v->valueint;
  return 0;
}

static int read_bool(const cJSON *obj, const char *key, bool *out, const char *path, char *err) {
  const cJSON *v = get(obj, key);
  if (!v) return 0;
  if (!cJSON_IsBool(v)) return fail(err, "%s.%s: must be true or false", path, key);
  *out = cJSON_IsTrue(v);
  return 0;
}

/* "position" and "rotation" of obj into x (identity where absent), checked by the wire's rules. */
static int read_pose(const cJSON *obj, tress_xform *x, const char *path, char *err) {
  if (read_floats(obj, "position", x->p, 3, path, err) || read_floats(obj, "rotation", x->q, 4, path, err)) return -1;
  char at[PATH_MAX_BYTES];
  tress_wire_error werr = {0};
  child_path(at, path, "position");
  if (wire_rule(err, at, wire_check_vec3(x->p, TRESS_WIRE_MAX_COORD, "value", 0, &werr), &werr)) return -1;
  tress_xform rotation = tress_xform_identity();
  memcpy(rotation.q, x->q, sizeof rotation.q);
  child_path(at, path, "rotation");
  return wire_rule(err, at, wire_check_xform(&rotation, "value", 0, &werr), &werr);
}

static int read_size(const cJSON *obj, const char *key, float size[3], const char *path, char *err) {
  if (read_floats(obj, key, size, 3, path, err)) return -1;
  char at[PATH_MAX_BYTES];
  child_path(at, path, key);
  tress_wire_error werr = {0};
  return wire_rule(err, at, wire_check_size(size, "value", 0, &werr), &werr);
}

static const char *const SHAPE_NAMES[] = {"sphere", "capsule", "plane", "inside_sphere", "inside_capsule"};

static const char *const ROOT_KEYS[] = {"$schema", "character", "parts", "accessories", "chain_settings",
                                        "accessory_settings", "rig", "springs", "ropes", "cloths", NULL};
static const char *const PART_KEYS[] = {"name", "size", "position", "rotation", NULL};
static const char *const ACCESSORY_KEYS[] = {"name", "type", "mesh", "handle_size", "position", "rotation", "joint",
                                             "c0", "c1", "worn_on", "layered", "has_bones", NULL};
static const char *const POSE_KEYS[] = {"position", "rotation", NULL};
static const char *const CHAIN_SETTINGS_KEYS[] = {"damping", "stiffness", "gravity_scale", "wind_scale", NULL};
static const char *const ACCESSORY_SETTINGS_KEYS[] = {"damping", "stiffness", "gravity_scale", "wind_scale",
                                                      "max_swing_degrees", NULL};
static const char *const RIG_KEYS[] = {"sectors", "segments", "max_influences", "axis", "root", NULL};
static const char *const SPRINGS_KEYS[] = {"colliders", "chains", NULL};
static const char *const COLLIDER_KEYS[] = {"shape", "attach", "offset", "tail", "radius", "normal", NULL};
static const char *const ROPE_KEYS[] = {"name", "start", "end", "segments", "length", "damping", "gravity_scale",
                                        "wind_scale", NULL};
static const char *const ROPE_END_KEYS[] = {"part", "offset", "pinned", NULL};
static const char *const CLOTH_KEYS[] = {"name", "part", "width", "height", "origin", "step_u", "step_v",
                                         "pinned_edge", "damping", "gravity_scale", "wind_scale", NULL};
static const char *const SPRING_CHAIN_KEYS[] = {"root", "damping", "stiffness", "gravity_scale", "wind_scale",
                                                "radius", "end_length", "wind_gust", "wind_frequency", "weight",
                                                "enabled", "colliders", "limit", "joints", NULL};
static const char *const LIMIT_KEYS[] = {"kind", "angle", "yaw", "rotation", NULL};
static const char *const JOINT_KEYS[] = {"bone", "limit", NULL};

/* An optional array at obj.key of at most max items; *count gets its length. */
static int read_array(const cJSON *obj, const char *key, int max, const cJSON **out, int *count, const char *path,
                      char *err) {
  *out = get(obj, key);
  *count = 0;
  if (!*out) return 0;
  if (!cJSON_IsArray(*out)) return fail(err, "%s.%s: must be an array", path, key);
  *count = cJSON_GetArraySize(*out);
  if (*count > max) return fail(err, "%s.%s: %d items, limit %d", path, key, *count, max);
  return 0;
}

static int read_collider(const cJSON *c, const char *at, tress_wire_collider *wc, char *err) {
  if (check_object(c, at, COLLIDER_KEYS, err)) return -1;
  char shape[16] = "";
  if (read_string(c, "shape", shape, sizeof shape, true, at, err) ||
      read_string(c, "attach", wc->attach, sizeof wc->attach, false, at, err) ||
      read_floats(c, "offset", wc->offset, 3, at, err) || read_number(c, "radius", &wc->radius, at, err))
    return -1;
  int k = -1;
  for (int i = 0; i < (int)(sizeof SHAPE_NAMES / sizeof SHAPE_NAMES[0]); i++)
    if (strcmp(shape, SHAPE_NAMES[i]) == 0) k = i;
  if (k < 0)
    return fail(err, "%s.shape: \"%s\" is not \"sphere\", \"capsule\", \"plane\", \"inside_sphere\" or \"inside_capsule\"",
                at, shape);
  wc->shape = (uint8_t)k;
  bool capsule = tress_collider_shape_is_capsule((tress_collider_shape)k), plane = k == TRESS_COLLIDER_PLANE;
  const cJSON *tail = get(c, "tail"), *normal = get(c, "normal");
  if (!capsule && tail) return fail(err, "%s.tail: only a capsule (outside or inside) has a tail", at);
  if (capsule && !tail) return fail(err, "%s: a capsule needs \"tail\" (its second end centre)", at);
  if (!plane && normal) return fail(err, "%s.normal: only a plane has a normal", at);
  if (plane && !normal) return fail(err, "%s: a plane needs \"normal\" (the side chains stay on)", at);
  if (plane && get(c, "radius")) return fail(err, "%s.radius: a plane has no radius", at);
  return read_floats(c, "tail", wc->tail, 3, at, err) || read_floats(c, "normal", wc->normal, 3, at, err) ? -1 : 0;
}

/* "limit": {"kind": "cone" | "hinge" | "spherical", "angle", "yaw" (radians), "rotation"
 * [x, y, z, w]}: every joint of a named chain (sim.h, "Rotation limits"), or in a "joints"
 * entry that one joint; the codec checks the ranges. */
static int read_limit(const cJSON *c, const char *at, tress_joint_limit *out, char *err) {
  *out = (tress_joint_limit){TRESS_LIMIT_NONE, 0.0f, 0.0f, {0.0f, 0.0f, 0.0f, 1.0f}};
  const cJSON *l = get(c, "limit");
  if (!l) return 0;
  char path[PATH_MAX_BYTES];
  child_path(path, at, "limit");
  if (!cJSON_IsObject(l)) return fail(err, "%s: must be an object {\"kind\", \"angle\", ...}", path);
  if (check_object(l, path, LIMIT_KEYS, err)) return -1;
  char kind[16] = "";
  if (read_string(l, "kind", kind, sizeof kind, true, path, err)) return -1;
  if (!tress_limit_kind_from_name(kind, &out->kind) || out->kind == TRESS_LIMIT_NONE)
    return fail(err, "%s.kind: \"%s\" is not \"cone\", \"hinge\" or \"spherical\"", path, kind);
  if (!get(l, "angle")) return fail(err, "%s: missing \"angle\" (radians)", path);
  if (get(l, "yaw") && out->kind != TRESS_LIMIT_SPHERICAL) return fail(err, "%s.yaw: only a spherical limit has a yaw", path);
  if (out->kind == TRESS_LIMIT_SPHERICAL && !get(l, "yaw")) return fail(err, "%s: a spherical limit needs \"yaw\"", path);
  return read_number(l, "angle", &out->angle, path, err) || read_number(l, "yaw", &out->yaw, path, err) ||
                 read_floats(l, "rotation", out->rotation, 4, path, err)
             ? -1
             : 0;
}

/* "joints": [{"bone": name, "limit": {...}}]: a named chain's joints by bone name, each with its
 * own limit in place of the chain's (the codec refuses a bone named twice). */
static int read_joints(const cJSON *c, const char *at, tress_wire_spring_chain *wc, char *err) {
  const cJSON *joints;
  int n;
  wc->joint_limit_count = 0;
  if (read_array(c, "joints", TRESS_WIRE_MAX_JOINT_LIMITS, &joints, &n, at, err)) return -1;
  if (n && !wc->root[0])
    return fail(err, "%s.joints: joint limits need a named \"root\" (the default entry tunes every rigged chain)", at);
  char path[PATH_MAX_BYTES], list[PATH_MAX_BYTES];
  child_path(list, at, "joints");
  for (int k = 0; k < n; k++) {
    const cJSON *j = cJSON_GetArrayItem(joints, k);
    index_path(path, list, k);
    if (!cJSON_IsObject(j)) return fail(err, "%s: must be an object {\"bone\", \"limit\"}", path);
    if (check_object(j, path, JOINT_KEYS, err)) return -1;
    tress_wire_joint_limit *jl = &wc->joint_limits[k];
    if (read_string(j, "bone", jl->bone, sizeof jl->bone, true, path, err)) return -1;
    if (!get(j, "limit")) return fail(err, "%s: missing \"limit\"", path);
    if (read_limit(j, path, &jl->limit, err)) return -1;
  }
  wc->joint_limit_count = (uint8_t)n;
  return 0;
}

static int read_spring_chain(const cJSON *c, const char *at, int collider_count, tress_wire_spring_chain *wc,
                             char *err) {
  if (check_object(c, at, SPRING_CHAIN_KEYS, err)) return -1;
  tress_chain_settings *t = &wc->settings;
  *t = tress_default_chain_settings();
  if (read_string(c, "root", wc->root, sizeof wc->root, false, at, err) ||
      read_number(c, "damping", &t->damping, at, err) || read_number(c, "stiffness", &t->stiffness, at, err) ||
      read_number(c, "gravity_scale", &t->gravity_scale, at, err) ||
      read_number(c, "wind_scale", &t->wind_scale, at, err) || read_number(c, "radius", &t->radius, at, err) ||
      read_number(c, "end_length", &t->end_length, at, err) || read_number(c, "wind_gust", &t->wind_gust, at, err) ||
      read_number(c, "wind_frequency", &t->wind_frequency, at, err) || read_number(c, "weight", &t->weight, at, err) ||
      read_bool(c, "enabled", &t->enabled, at, err) || read_limit(c, at, &wc->limit, err))
    return -1;
  if (wc->limit.kind != TRESS_LIMIT_NONE && !wc->root[0])
    return fail(err, "%s.limit: a limit needs a named \"root\" (the default entry tunes every rigged chain)", at);
  if (read_joints(c, at, wc, err)) return -1;
  const cJSON *set;
  int ns;
  if (read_array(c, "colliders", TRESS_CHAIN_COLLIDERS_MAX, &set, &ns, at, err)) return -1;
  wc->collider_count = (uint8_t)ns;
  for (int k = 0; k < ns; k++) {
    const cJSON *v = cJSON_GetArrayItem(set, k);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= collider_count ||
        v->valuedouble != (int)v->valuedouble)
      return fail(err, "%s.colliders[%d]: not an index into springs.colliders (0..%d)", at, k, collider_count - 1);
    wc->colliders[k] = (uint8_t)v->valueint;
  }
  return 0;
}

/* "springs" -> the BIND springs section's fields; the codec checks the values afterwards. */
static int read_springs(const cJSON *sp, tress_wire_springs *s, char *err) {
  memset(s, 0, sizeof *s);
  if (!cJSON_IsObject(sp)) return fail(err, "$.springs: must be an object {\"colliders\", \"chains\"}");
  if (check_object(sp, "$.springs", SPRINGS_KEYS, err)) return -1;
  const cJSON *cols, *chains;
  int nc, nh;
  if (read_array(sp, "colliders", TRESS_WIRE_MAX_COLLIDERS, &cols, &nc, "$.springs", err) ||
      read_array(sp, "chains", TRESS_WIRE_MAX_SPRING_CHAINS, &chains, &nh, "$.springs", err))
    return -1;
  s->collider_count = (uint32_t)nc;
  s->chain_count = (uint32_t)nh;
  char at[PATH_MAX_BYTES];
  for (int i = 0; i < nc; i++) {
    index_path(at, "$.springs.colliders", i);
    if (read_collider(cJSON_GetArrayItem(cols, i), at, &s->colliders[i], err)) return -1;
  }
  for (int i = 0; i < nh; i++) {
    index_path(at, "$.springs.chains", i);
    if (read_spring_chain(cJSON_GetArrayItem(chains, i), at, nc, &s->chains[i], err)) return -1;
  }
  return 0;
}

/* Appends a section to m, which then owns bytes. */
static int add_section(tress_wire_manifest *m, uint16_t tag, uint8_t *bytes, size_t n, char *err) {
  tress_wire_section *grown = realloc(m->sections, (m->section_count + 1) * sizeof *grown);
  if (!grown) return fail(err, "out of memory");
  m->sections = grown;
  m->sections[m->section_count++] = (tress_wire_section){.tag = tag, .length = (uint32_t)n, .bytes = bytes};
  return 0;
}

/* The springs section: encoded by the codec (its rules, its message) into a section of m. */
static int parse_springs(const cJSON *sp, tress_wire_manifest *m, char *err) {
  tress_wire_springs *s = malloc(sizeof *s); /* ~15 KiB: not on the stack */
  if (!s) return fail(err, "out of memory");
  int rc = read_springs(sp, s, err);
  size_t n = 0;
  tress_wire_error werr = {0};
  if (rc == 0) rc = wire_rule(err, "$.springs", tress_wire_springs_encode(s, NULL, 0, &n, &werr), &werr);
  uint8_t *bytes = rc == 0 ? malloc(n) : NULL;
  if (rc == 0 && !bytes) rc = fail(err, "out of memory");
  if (rc == 0) rc = wire_rule(err, "$.springs", tress_wire_springs_encode(s, bytes, n, &n, &werr), &werr);
  free(s);
  if (rc == 0) rc = add_section(m, TRESS_SECTION_SPRINGS, bytes, n, err);
  if (rc != 0) free(bytes);
  return rc;
}

/* One end of a rope: {"part", "offset", "pinned"}; a part pins it unless "pinned" is false. */
static int read_rope_end(const cJSON *rope, const char *key, tress_wire_rope_end *e, const char *path, char *err) {
  memset(e, 0, sizeof *e);
  const cJSON *o = get(rope, key);
  if (!o) return 0; /* a free end: the rope hangs from its start */
  char at[PATH_MAX_BYTES];
  child_path(at, path, key);
  if (check_object(o, at, ROPE_END_KEYS, err) || read_string(o, "part", e->part, sizeof e->part, false, at, err) ||
      read_floats(o, "offset", e->offset, 3, at, err))
    return -1;
  e->pinned = e->part[0] != '\0';
  if (read_bool(o, "pinned", &e->pinned, at, err)) return -1;
  if (e->pinned && !e->part[0]) return fail(err, "%s: a pinned end names the \"part\" it is pinned to", at);
  return 0;
}

static int read_particle_settings(const cJSON *o, tress_wire_particle_settings *s, const char *at, char *err) {
  *s = tress_default_wire_particle_settings();
  return read_number(o, "damping", &s->damping, at, err) || read_number(o, "gravity_scale", &s->gravity_scale, at, err) ||
                 read_number(o, "wind_scale", &s->wind_scale, at, err)
             ? -1
             : 0;
}

static int read_rope(const cJSON *o, const char *at, tress_wire_rope *r, char *err) {
  if (check_object(o, at, ROPE_KEYS, err)) return -1;
  float segments = 20.0f;
  r->length = 20.0f;
  if (read_string(o, "name", r->name, sizeof r->name, true, at, err) ||
      read_rope_end(o, "start", &r->start, at, err) || read_rope_end(o, "end", &r->end, at, err) ||
      read_number(o, "segments", &segments, at, err) || read_number(o, "length", &r->length, at, err) ||
      read_particle_settings(o, &r->settings, at, err))
    return -1;
  if (!get(o, "start")) return fail(err, "%s: missing \"start\" (the part the rope hangs from)", at);
  if (segments != (float)(int)segments || segments < 1 || segments > TRESS_WIRE_MAX_ROPE_SEGMENTS)
    return fail(err, "%s.segments: must be a whole number in 1..%d", at, TRESS_WIRE_MAX_ROPE_SEGMENTS);
  r->segments = (uint16_t)segments;
  return 0;
}

static int read_cloth(const cJSON *o, const char *at, tress_wire_cloth *c, char *err) {
  if (check_object(o, at, CLOTH_KEYS, err)) return -1;
  c->width = c->height = 10;
  const float u[3] = {0.2f, 0.0f, 0.0f}, v[3] = {0.0f, -0.2f, 0.0f};
  memcpy(c->step_u, u, sizeof u);
  memcpy(c->step_v, v, sizeof v);
  char edge[16] = "top";
  if (read_string(o, "name", c->name, sizeof c->name, true, at, err) ||
      read_string(o, "part", c->part, sizeof c->part, true, at, err) ||
      read_count(o, "width", &c->width, 2, TRESS_WIRE_MAX_CLOTH_SIDE, at, err) ||
      read_count(o, "height", &c->height, 2, TRESS_WIRE_MAX_CLOTH_SIDE, at, err) ||
      read_floats(o, "origin", c->origin, 3, at, err) || read_floats(o, "step_u", c->step_u, 3, at, err) ||
      read_floats(o, "step_v", c->step_v, 3, at, err) || read_string(o, "pinned_edge", edge, sizeof edge, false, at, err) ||
      read_particle_settings(o, &c->settings, at, err))
    return -1;
  tress_wire_cloth_edge k;
  if (!tress_wire_cloth_edge_from_name(edge, &k)) return fail(err, "%s.pinned_edge: \"%s\" is not top, bottom, left or right", at, edge);
  c->pinned_edge = (uint8_t)k;
  return 0;
}

/* "ropes" and "cloths" -> the attachments section, encoded (and so checked) by the codec. */
static int parse_attachments(const cJSON *root, tress_wire_manifest *m, char *err) {
  const cJSON *ropes, *cloths;
  int nr, nc;
  if (read_array(root, "ropes", TRESS_WIRE_MAX_ROPES, &ropes, &nr, "$", err) ||
      read_array(root, "cloths", TRESS_WIRE_MAX_CLOTHS, &cloths, &nc, "$", err))
    return -1;
  if (!ropes && !cloths) return 0;
  tress_wire_attachments *a = calloc(1, sizeof *a);
  if (!a) return fail(err, "out of memory");
  a->rope_count = (uint32_t)nr;
  a->cloth_count = (uint32_t)nc;
  char at[PATH_MAX_BYTES];
  int rc = 0;
  for (int i = 0; i < nr && rc == 0; i++) {
    index_path(at, "$.ropes", i);
    rc = read_rope(cJSON_GetArrayItem(ropes, i), at, &a->ropes[i], err);
  }
  for (int i = 0; i < nc && rc == 0; i++) {
    index_path(at, "$.cloths", i);
    rc = read_cloth(cJSON_GetArrayItem(cloths, i), at, &a->cloths[i], err);
  }
  tress_wire_error werr = {0};
  if (rc == 0) rc = wire_rule(err, "$", tress_wire_attachments_check_parts(a, m, &werr), &werr);
  size_t n = 0;
  if (rc == 0) rc = wire_rule(err, "$", tress_wire_attachments_encode(a, NULL, 0, &n, &werr), &werr);
  uint8_t *bytes = rc == 0 ? malloc(n) : NULL;
  if (rc == 0 && !bytes) rc = fail(err, "out of memory");
  if (rc == 0) rc = wire_rule(err, "$", tress_wire_attachments_encode(a, bytes, n, &n, &werr), &werr);
  free(a);
  if (rc == 0) rc = add_section(m, TRESS_SECTION_ATTACHMENTS, bytes, n, err);
  if (rc != 0) free(bytes);
  return rc;
}

static int read_part(const cJSON *p, const char *at, tress_wire_manifest *m, int i, char *err) {
  if (check_object(p, at, PART_KEYS, err)) return -1;
  tress_wire_part *wp = &m->parts[i];
  wp->cframe = tress_xform_identity();
  wp->size[0] = wp->size[1] = wp->size[2] = 1.0f;
  if (read_string(p, "name", wp->name, sizeof wp->name, true, at, err) || read_size(p, "size", wp->size, at, err) ||
      read_pose(p, &wp->cframe, at, err))
    return -1;
  for (int k = 0; k < i; k++)
    if (strcmp(m->parts[k].name, wp->name) == 0) return fail(err, "%s.name: duplicate part name \"%s\"", at, wp->name);
  return 0;
}

/* c0 / c1: an object of position and rotation. */
static int read_offset(const cJSON *a, const char *key, tress_xform *x, const char *path, char *err) {
  *x = tress_xform_identity();
  const cJSON *o = get(a, key);
  if (!o) return 0;
  char at[PATH_MAX_BYTES];
  child_path(at, path, key);
  return check_object(o, at, POSE_KEYS, err) || read_pose(o, x, at, err) ? -1 : 0;
}

static int read_accessory(const cJSON *a, const char *at, tress_wire_manifest *m, int i, char *err) {
  if (check_object(a, at, ACCESSORY_KEYS, err)) return -1;
  tress_wire_accessory *wa = &m->accessories[i];
  wa->handle_cframe = tress_xform_identity();
  wa->handle_size[0] = wa->handle_size[1] = wa->handle_size[2] = 1.0f;
  char type[32] = "Unknown", joint[32] = "Weld", worn_on[TRESS_WIRE_NAME_CAP] = "";
  if (read_string(a, "name", wa->name, sizeof wa->name, true, at, err) ||
      read_string(a, "type", type, sizeof type, false, at, err) ||
      read_string(a, "mesh", wa->mesh_asset_id, sizeof wa->mesh_asset_id, false, at, err) ||
      read_size(a, "handle_size", wa->handle_size, at, err) || read_pose(a, &wa->handle_cframe, at, err) ||
      read_string(a, "joint", joint, sizeof joint, false, at, err) || read_offset(a, "c0", &wa->c0, at, err) ||
      read_offset(a, "c1", &wa->c1, at, err) || read_string(a, "worn_on", worn_on, sizeof worn_on, true, at, err) ||
      read_bool(a, "layered", &wa->layered, at, err) || read_bool(a, "has_bones", &wa->handle_has_bones, at, err))
    return -1;
  tress_accessory_type t;
  if (!tress_accessory_type_from_name(type, &t)) return fail(err, "%s.type: unknown accessory type \"%s\"", at, type);
  wa->type = (uint8_t)t;
  tress_joint_kind jk;
  if (!tress_joint_kind_from_name(joint, &jk))
    return fail(err, "%s.joint: unknown joint \"%s\" (Weld, Motor6D, RigidConstraint, WeldConstraint)", at, joint);
  wa->joint_kind = (uint8_t)jk;
  int part = -1;
  for (uint32_t k = 0; k < m->part_count; k++)
    if (strcmp(m->parts[k].name, worn_on) == 0) part = (int)k;
  if (part < 0) return fail(err, "%s.worn_on: names no part (\"%s\")", at, worn_on);
  wa->worn_on = (uint8_t)part;
  return 0;
}

static int read_settings(const cJSON *root, tress_wire_manifest *m, char *err) {
  tress_wire_error werr = {0};
  const cJSON *cs = get(root, "chain_settings");
  if (cs) {
    m->has_chain_settings = true;
    m->chain_settings = tress_default_chain_settings();
    tress_chain_settings *s = &m->chain_settings;
    const char *at = "$.chain_settings";
    if (check_object(cs, at, CHAIN_SETTINGS_KEYS, err) || read_number(cs, "damping", &s->damping, at, err) ||
        read_number(cs, "stiffness", &s->stiffness, at, err) ||
        read_number(cs, "gravity_scale", &s->gravity_scale, at, err) ||
        read_number(cs, "wind_scale", &s->wind_scale, at, err) ||
        wire_rule(err, at, wire_check_chain_settings(s, 0, &werr), &werr))
      return -1;
  }
  const cJSON *as = get(root, "accessory_settings");
  if (as) {
    m->has_accessory_settings = true;
    m->accessory_settings = tress_default_accessory_settings();
    tress_accessory_settings *s = &m->accessory_settings;
    const char *at = "$.accessory_settings";
    if (check_object(as, at, ACCESSORY_SETTINGS_KEYS, err) || read_number(as, "damping", &s->damping, at, err) ||
        read_number(as, "stiffness", &s->stiffness, at, err) ||
        read_number(as, "gravity_scale", &s->gravity_scale, at, err) ||
        read_number(as, "wind_scale", &s->wind_scale, at, err) ||
        read_number(as, "max_swing_degrees", &s->max_swing_degrees, at, err) ||
        wire_rule(err, at, wire_check_accessory_settings(s, 0, &werr), &werr))
      return -1;
  }
  const cJSON *rig = get(root, "rig");
  if (rig) {
    m->has_rig_options = true;
    m->rig_options = tress_default_wire_rig_options();
    tress_wire_rig_options *o = &m->rig_options;
    const char *at = "$.rig";
    if (check_object(rig, at, RIG_KEYS, err) || read_count(rig, "sectors", &o->sectors, 1, 64, at, err) ||
        read_count(rig, "segments", &o->segments, 1, 64, at, err) ||
        read_count(rig, "max_influences", &o->max_influences, 1, TRESS_WIRE_MAX_INFLUENCES, at, err) ||
        read_floats(rig, "axis", o->axis, 3, at, err))
      return -1;
    o->has_root = get(rig, "root") != NULL;
    if (read_floats(rig, "root", o->root, 3, at, err) || wire_rule(err, at, wire_check_rig_options(o, 0, &werr), &werr))
      return -1;
  }
  const cJSON *springs = get(root, "springs");
  if (springs && parse_springs(springs, m, err)) return -1;
  return parse_attachments(root, m, err);
}

static int parse_root(const cJSON *root, tress_wire_manifest *m, char *err) {
  if (!cJSON_IsObject(root)) return fail(err, "$: a manifest is a JSON object");
  if (check_object(root, "$", ROOT_KEYS, err)) return -1;
  const cJSON *schema = get(root, "$schema");
  if (schema && !cJSON_IsString(schema)) return fail(err, "$.$schema: must be a string");
  if (read_string(root, "character", m->character_name, sizeof m->character_name, true, "$", err)) return -1;

  const cJSON *parts, *accs;
  int np, na;
  if (read_array(root, "parts", TRESS_WIRE_MAX_PARTS, &parts, &np, "$", err) ||
      read_array(root, "accessories", TRESS_WIRE_MAX_ACCESSORIES, &accs, &na, "$", err))
    return -1;
  if (np && !(m->parts = calloc((size_t)np, sizeof *m->parts))) return fail(err, "out of memory");
  if (na && !(m->accessories = calloc((size_t)na, sizeof *m->accessories))) return fail(err, "out of memory");
  m->part_count = (uint32_t)np;
  m->accessory_count = (uint32_t)na;
  char at[PATH_MAX_BYTES];
  for (int i = 0; i < np; i++) {
    index_path(at, "$.parts", i);
    if (read_part(cJSON_GetArrayItem(parts, i), at, m, i, err)) return -1;
  }
  for (int i = 0; i < na; i++) {
    index_path(at, "$.accessories", i);
    if (read_accessory(cJSON_GetArrayItem(accs, i), at, m, i, err)) return -1;
  }
  return read_settings(root, m, err);
}

void tress_manifest_json_free(tress_wire_manifest *m) {
  free(m->parts);
  free(m->accessories);
  for (uint32_t i = 0; i < m->section_count; i++) free((void *)m->sections[i].bytes);
  free(m->sections);
  memset(m, 0, sizeof *m);
}

/* Line and column (both from 1) of byte offset in text. */
static void line_column(const char *text, size_t offset, int *line, int *column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < offset; i++) {
    if (text[i] == '\n') ++*line, *column = 1;
    else ++*column;
  }
}

static int syntax_error(const char *text, size_t len, size_t offset, const char *what, char *err) {
  if (offset > len) offset = len;
  while (offset < len && (text[offset] == ' ' || text[offset] == '\t' || text[offset] == '\n' || text[offset] == '\r'))
    offset++; /* cJSON stops before the blank it could not get past: point at what follows */
  int line, column;
  line_column(text, offset, &line, &column);
  if (offset >= len) return fail(err, "line %d, column %d: %s (the text ends early)", line, column, what);
  char near[24];
  size_t n = 0;
  for (size_t i = offset; i < len && n + 1 < sizeof near && text[i] != '\n'; i++) near[n++] = text[i];
  near[n] = '\0';
  return fail(err, "line %d, column %d: %s near \"%s\"", line, column, what, near);
}

/* The codec is the one authority on what a valid manifest is: encode it once. */
static int check_against_wire(const tress_wire_manifest *m, char *err) {
  tress_msg msg;
  memset(&msg, 0, sizeof msg);
  msg.type = TRESS_MSG_SPAWN_CHARACTER;
  msg.spawn_character.manifest = *m;
  size_t cap = tress_msg_get_encode_bound(&msg);
  uint8_t *buf = cap ? malloc(cap) : NULL;
  if (!buf) return fail(err, "$: the manifest breaks a wire rule");
  size_t n = 0;
  tress_wire_error werr = {0};
  int rc = wire_rule(err, "$", tress_msg_encode(&msg, buf, cap, &n, &werr), &werr);
  free(buf);
  return rc;
}

static int json_parse(const char *text, size_t len, tress_wire_manifest *out, char *err) {
  memset(out, 0, sizeof *out);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!root) return syntax_error(text, len, end ? (size_t)(end - text) : 0, "not valid JSON", err);
  size_t rest = (size_t)(end - text);
  while (rest < len && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\n' || text[rest] == '\r')) rest++;
  int rc = rest < len && text[rest] != '\0' ? syntax_error(text, len, rest, "text after the manifest's end", err) : 0;
  if (rc == 0) rc = parse_root(root, out, err);
  cJSON_Delete(root);
  if (rc == 0) rc = check_against_wire(out, err);
  if (rc != 0) tress_manifest_json_free(out);
  return rc;
}

static int json_load(const char *path, tress_wire_manifest *out, char *err) {
  memset(out, 0, sizeof *out);
  size_t len = 0;
  tress_error why;
  uint8_t *text = tress_file_read(path, MANIFEST_MAX_FILE_BYTES, &len, &why);
  if (!text) return fail(err, "%s", why.message);
  char inner[TRESS_MANIFEST_JSON_ERROR_MAX];
  int rc = json_parse((const char *)text, len, out, inner);
  free(text);
  if (rc) fail(err, "%.100s: %s", path, inner);
  return rc;
}

static cJSON *floats(const float *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

static cJSON *xform(const tress_xform *x) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "position", floats(x->p, 3));
  cJSON_AddItemToObject(o, "rotation", floats(x->q, 4));
  return o;
}

static void add_limit(cJSON *o, const tress_joint_limit *lim) {
  cJSON *l = cJSON_AddObjectToObject(o, "limit");
  cJSON_AddStringToObject(l, "kind", tress_limit_kind_name(lim->kind));
  cJSON_AddNumberToObject(l, "angle", lim->angle);
  if (lim->kind == TRESS_LIMIT_SPHERICAL) cJSON_AddNumberToObject(l, "yaw", lim->yaw);
  cJSON_AddItemToObject(l, "rotation", cJSON_CreateFloatArray(lim->rotation, 4));
}

/* The springs section as JSON, or NULL when m has none (or it does not decode). */
static cJSON *springs_json(const tress_wire_manifest *m) {
  const tress_wire_section *sec = NULL;
  for (uint32_t i = 0; i < m->section_count; i++)
    if (m->sections[i].tag == TRESS_SECTION_SPRINGS) sec = &m->sections[i];
  if (!sec) return NULL;
  tress_wire_springs *s = malloc(sizeof *s);
  tress_wire_error werr = {0};
  if (!s || tress_wire_springs_decode(sec->bytes, sec->length, s, &werr) != TRESS_WIRE_OK) {
    free(s);
    return NULL;
  }
  cJSON *o = cJSON_CreateObject();
  cJSON *cols = cJSON_AddArrayToObject(o, "colliders");
  for (uint32_t i = 0; i < s->collider_count; i++) {
    const tress_wire_collider *c = &s->colliders[i];
    cJSON *co = cJSON_CreateObject();
    cJSON_AddStringToObject(co, "shape", SHAPE_NAMES[c->shape]); /* decoded: one of them */
    cJSON_AddStringToObject(co, "attach", c->attach);
    cJSON_AddItemToObject(co, "offset", floats(c->offset, 3));
    if (tress_collider_shape_is_capsule((tress_collider_shape)c->shape)) cJSON_AddItemToObject(co, "tail", floats(c->tail, 3));
    if (c->shape == TRESS_COLLIDER_PLANE) cJSON_AddItemToObject(co, "normal", floats(c->normal, 3));
    else cJSON_AddNumberToObject(co, "radius", c->radius);
    cJSON_AddItemToArray(cols, co);
  }
  cJSON *chains = cJSON_AddArrayToObject(o, "chains");
  for (uint32_t i = 0; i < s->chain_count; i++) {
    const tress_wire_spring_chain *c = &s->chains[i];
    const tress_chain_settings *t = &c->settings;
    cJSON *co = cJSON_CreateObject();
    cJSON_AddStringToObject(co, "root", c->root);
    cJSON_AddNumberToObject(co, "damping", t->damping);
    cJSON_AddNumberToObject(co, "stiffness", t->stiffness);
    cJSON_AddNumberToObject(co, "gravity_scale", t->gravity_scale);
    cJSON_AddNumberToObject(co, "wind_scale", t->wind_scale);
    cJSON_AddNumberToObject(co, "radius", t->radius);
    cJSON_AddNumberToObject(co, "end_length", t->end_length);
    cJSON_AddNumberToObject(co, "wind_gust", t->wind_gust);
    cJSON_AddNumberToObject(co, "wind_frequency", t->wind_frequency);
    cJSON_AddNumberToObject(co, "weight", t->weight);
    cJSON_AddBoolToObject(co, "enabled", t->enabled);
    cJSON *set = cJSON_AddArrayToObject(co, "colliders");
    for (uint32_t k = 0; k < c->collider_count; k++) cJSON_AddItemToArray(set, cJSON_CreateNumber(c->colliders[k]));
    if (c->limit.kind != TRESS_LIMIT_NONE) add_limit(co, &c->limit);
    if (c->joint_limit_count) {
      cJSON *joints = cJSON_AddArrayToObject(co, "joints");
      for (uint32_t k = 0; k < c->joint_limit_count; k++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "bone", c->joint_limits[k].bone);
        add_limit(j, &c->joint_limits[k].limit);
        cJSON_AddItemToArray(joints, j);
      }
    }
    cJSON_AddItemToArray(chains, co);
  }
  free(s);
  return o;
}

static void add_particle_settings(cJSON *o, const tress_wire_particle_settings *s) {
  cJSON_AddNumberToObject(o, "damping", s->damping);
  cJSON_AddNumberToObject(o, "gravity_scale", s->gravity_scale);
  cJSON_AddNumberToObject(o, "wind_scale", s->wind_scale);
}

static cJSON *rope_end_json(const tress_wire_rope_end *e) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "part", e->part);
  cJSON_AddItemToObject(o, "offset", floats(e->offset, 3));
  cJSON_AddBoolToObject(o, "pinned", e->pinned);
  return o;
}

/* The attachments section as "ropes" and "cloths" of root (nothing when m has none). */
static void attachments_json(const tress_wire_manifest *m, cJSON *root) {
  const tress_wire_section *sec = tress_wire_manifest_get_attachments(m);
  tress_wire_attachments *a = sec ? malloc(sizeof *a) : NULL;
  tress_wire_error werr;
  if (!a || tress_wire_attachments_decode(sec->bytes, sec->length, a, &werr) != TRESS_WIRE_OK) {
    free(a);
    return;
  }
  cJSON *ropes = cJSON_AddArrayToObject(root, "ropes");
  for (uint32_t i = 0; i < a->rope_count; i++) {
    const tress_wire_rope *r = &a->ropes[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddItemToObject(o, "start", rope_end_json(&r->start));
    cJSON_AddItemToObject(o, "end", rope_end_json(&r->end));
    cJSON_AddNumberToObject(o, "segments", r->segments);
    cJSON_AddNumberToObject(o, "length", r->length);
    add_particle_settings(o, &r->settings);
    cJSON_AddItemToArray(ropes, o);
  }
  cJSON *cloths = cJSON_AddArrayToObject(root, "cloths");
  for (uint32_t i = 0; i < a->cloth_count; i++) {
    const tress_wire_cloth *c = &a->cloths[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "part", c->part);
    cJSON_AddNumberToObject(o, "width", c->width);
    cJSON_AddNumberToObject(o, "height", c->height);
    cJSON_AddItemToObject(o, "origin", floats(c->origin, 3));
    cJSON_AddItemToObject(o, "step_u", floats(c->step_u, 3));
    cJSON_AddItemToObject(o, "step_v", floats(c->step_v, 3));
    cJSON_AddStringToObject(o, "pinned_edge", tress_wire_cloth_edge_name((tress_wire_cloth_edge)c->pinned_edge));
    add_particle_settings(o, &c->settings);
    cJSON_AddItemToArray(cloths, o);
  }
  free(a);
}

char *tress_manifest_json_print(const tress_wire_manifest *m) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddStringToObject(root, "character", m->character_name);
  cJSON *parts = cJSON_AddArrayToObject(root, "parts");
  for (uint32_t i = 0; i < m->part_count; i++) {
    const tress_wire_part *p = &m->parts[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddItemToObject(o, "size", floats(p->size, 3));
    cJSON_AddItemToObject(o, "position", floats(p->cframe.p, 3));
    cJSON_AddItemToObject(o, "rotation", floats(p->cframe.q, 4));
    cJSON_AddItemToArray(parts, o);
  }
  cJSON *accs = cJSON_AddArrayToObject(root, "accessories");
  for (uint32_t i = 0; i < m->accessory_count; i++) {
    const tress_wire_accessory *a = &m->accessories[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", a->name);
    cJSON_AddStringToObject(o, "type", tress_accessory_type_name((tress_accessory_type)a->type));
    cJSON_AddStringToObject(o, "mesh", a->mesh_asset_id);
    cJSON_AddItemToObject(o, "handle_size", floats(a->handle_size, 3));
    cJSON_AddItemToObject(o, "position", floats(a->handle_cframe.p, 3));
    cJSON_AddItemToObject(o, "rotation", floats(a->handle_cframe.q, 4));
    cJSON_AddStringToObject(o, "joint", tress_joint_kind_name((tress_joint_kind)a->joint_kind));
    cJSON_AddItemToObject(o, "c0", xform(&a->c0));
    cJSON_AddItemToObject(o, "c1", xform(&a->c1));
    cJSON_AddStringToObject(o, "worn_on", a->worn_on < m->part_count ? m->parts[a->worn_on].name : "");
    cJSON_AddBoolToObject(o, "layered", a->layered);
    cJSON_AddBoolToObject(o, "has_bones", a->handle_has_bones);
    cJSON_AddItemToArray(accs, o);
  }
  if (m->has_chain_settings) {
    cJSON *o = cJSON_AddObjectToObject(root, "chain_settings");
    cJSON_AddNumberToObject(o, "damping", m->chain_settings.damping);
    cJSON_AddNumberToObject(o, "stiffness", m->chain_settings.stiffness);
    cJSON_AddNumberToObject(o, "gravity_scale", m->chain_settings.gravity_scale);
    cJSON_AddNumberToObject(o, "wind_scale", m->chain_settings.wind_scale);
  }
  if (m->has_accessory_settings) {
    cJSON *o = cJSON_AddObjectToObject(root, "accessory_settings");
    cJSON_AddNumberToObject(o, "damping", m->accessory_settings.damping);
    cJSON_AddNumberToObject(o, "stiffness", m->accessory_settings.stiffness);
    cJSON_AddNumberToObject(o, "gravity_scale", m->accessory_settings.gravity_scale);
    cJSON_AddNumberToObject(o, "wind_scale", m->accessory_settings.wind_scale);
    cJSON_AddNumberToObject(o, "max_swing_degrees", m->accessory_settings.max_swing_degrees);
  }
  if (m->has_rig_options) {
    cJSON *o = cJSON_AddObjectToObject(root, "rig");
    cJSON_AddNumberToObject(o, "sectors", m->rig_options.sectors);
    cJSON_AddNumberToObject(o, "segments", m->rig_options.segments);
    cJSON_AddNumberToObject(o, "max_influences", m->rig_options.max_influences);
    cJSON_AddItemToObject(o, "axis", floats(m->rig_options.axis, 3));
    if (m->rig_options.has_root) cJSON_AddItemToObject(o, "root", floats(m->rig_options.root, 3));
  }
  cJSON *springs = springs_json(m);
  if (springs) cJSON_AddItemToObject(root, "springs", springs);
  attachments_json(m, root);
  char *s = cJSON_Print(root);
  cJSON_Delete(root);
  return s;
}

static int json_save(const char *path, const tress_wire_manifest *m, char *err) {
  char *s = tress_manifest_json_print(m);
  if (!s) return fail(err, "out of memory");
  FILE *f = fopen(path, "wb");
  if (!f) {
    free(s);
    return fail(err, "%.200s: %s", path, strerror(errno));
  }
  size_t n = strlen(s);
  int rc = (fwrite(s, 1, n, f) == n && fputc('\n', f) != EOF) ? 0 : -1;
  if (fclose(f) != 0) rc = -1;
  free(s);
  return rc ? fail(err, "%.200s: write failed", path) : 0;
}

/* The readers above write one message into a char buffer; the public entry points turn it into
 * the caller's tress_error. */
static int to_error(int rc, const char *message, tress_error *err) {
  if (rc == 0) return 0;
  int code = strcmp(message, "out of memory") == 0 ? TRESS_ERR_OUT_OF_MEMORY : TRESS_ERR_INVALID_ARGUMENT;
  return tress_error_set(err, code, "%s", message);
}

int tress_manifest_json_parse(const char *text, size_t len, tress_wire_manifest *out, tress_error *err) {
  char message[TRESS_MANIFEST_JSON_ERROR_MAX] = "";
  return to_error(json_parse(text, len, out, message), message, err);
}

int tress_manifest_json_load(const char *path, tress_wire_manifest *out, tress_error *err) {
  char message[TRESS_MANIFEST_JSON_ERROR_MAX] = "";
  return to_error(json_load(path, out, message), message, err);
}

int tress_manifest_json_save(const char *path, const tress_wire_manifest *m, tress_error *err) {
  char message[TRESS_MANIFEST_JSON_ERROR_MAX] = "";
  return to_error(json_save(path, m, message), message, err);
}
