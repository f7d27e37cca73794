/* Character manifests as JSON
 * ---------------------------
 * Operators and bots describe characters in JSON files; the wire carries the same manifest as
 * binary. This file maps one onto the other by name (parts are referenced by name in JSON and by
 * index on the wire) and then runs the codec's own validation by encoding a SPAWN_CHARACTER, so
 * a file that loads is a manifest the server will accept and nothing is validated twice. */
#include "tress/manifest_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_set.h"
#include "tress/codec.h"
#include "tress/wire_springs.h"

#define TRESS_MANIFEST_JSON_ERROR_MAX 256 /* the readers' message buffers */

static int fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, TRESS_MANIFEST_JSON_ERROR_MAX, fmt, ap);
  va_end(ap);
  return -1;
}

static int read_floats(const cJSON *item, float *out, int n, const char *what, char *err) {
  if (!item) return 0; /* keep the default */
  if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) return fail(err, "%s: expected %d numbers", what, n);
  for (int i = 0; i < n; i++) {
    const cJSON *v = cJSON_GetArrayItem(item, i);
    if (!cJSON_IsNumber(v)) return fail(err, "%s: element %d is not a number", what, i);
    out[i] = (float)v->valuedouble;
  }
  return 0;
}

static int read_string(const cJSON *obj, const char *key, char *out, size_t cap, bool required, const char *what,
                       char *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return required ? fail(err, "%s: missing \"%s\"", what, key) : 0;
  if (!cJSON_IsString(v)) return fail(err, "%s: \"%s\" must be a string", what, key);
  if (strlen(v->valuestring) >= cap) return fail(err, "%s: \"%s\" longer than %zu bytes", what, key, cap - 1);
  memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
  return 0;
}

static int read_xform(const cJSON *obj, tress_xform *x, const char *what, char *err) {
  *x = tress_xform_identity();
  if (!obj) return 0;
  if (!cJSON_IsObject(obj)) return fail(err, "%s: expected {\"position\", \"rotation\"}", what);
  if (read_floats(cJSON_GetObjectItemCaseSensitive(obj, "position"), x->p, 3, what, err)) return -1;
  return read_floats(cJSON_GetObjectItemCaseSensitive(obj, "rotation"), x->q, 4, what, err);
}

static int read_number(const cJSON *obj, const char *key, float *out, const char *what, char *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return 0;
  if (!cJSON_IsNumber(v)) return fail(err, "%s.%s must be a number", what, key);
  *out = (float)v->valuedouble;
  return 0;
}

static const char *const SHAPE_NAMES[] = {"sphere", "capsule"};

static int read_bool(const cJSON *obj, const char *key, bool *out, const char *what, char *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return 0;
  if (!cJSON_IsBool(v)) return fail(err, "%s.%s must be true or false", what, key);
  *out = cJSON_IsTrue(v);
  return 0;
}

/* "springs" -> the BIND springs section's fields; the codec checks the values afterwards. */
static int read_springs(const cJSON *sp, tress_wire_springs *s, char *err) {
  memset(s, 0, sizeof *s);
  if (!cJSON_IsObject(sp)) return fail(err, "springs must be an object {\"colliders\", \"chains\"}");
  const cJSON *cols = cJSON_GetObjectItemCaseSensitive(sp, "colliders");
  if (cols && !cJSON_IsArray(cols)) return fail(err, "springs.colliders must be an array");
  int nc = cols ? cJSON_GetArraySize(cols) : 0;
  if (nc > TRESS_WIRE_MAX_COLLIDERS) return fail(err, "springs: %d colliders, limit %d", nc, TRESS_WIRE_MAX_COLLIDERS);
  s->collider_count = (uint32_t)nc;
  for (int i = 0; i < nc; i++) {
    const cJSON *c = cJSON_GetArrayItem(cols, i);
    char what[48];
    snprintf(what, sizeof what, "springs.colliders[%d]", i);
    if (!cJSON_IsObject(c)) return fail(err, "%s must be an object", what);
    tress_wire_collider *wc = &s->colliders[i];
    char shape[16] = "";
    if (read_string(c, "shape", shape, sizeof shape, true, what, err) ||
        read_string(c, "attach", wc->attach, sizeof wc->attach, false, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(c, "offset"), wc->offset, 3, what, err) ||
        read_number(c, "radius", &wc->radius, what, err))
      return -1;
    int k = strcmp(shape, "sphere") == 0 ? 0 : (strcmp(shape, "capsule") == 0 ? 1 : -1);
    if (k < 0) return fail(err, "%s: shape \"%s\" is not \"sphere\" or \"capsule\"", what, shape);
    wc->shape = (uint8_t)k;
    const cJSON *tail = cJSON_GetObjectItemCaseSensitive(c, "tail");
    if (k == 0 && tail) return fail(err, "%s: a sphere has no tail", what);
    if (k == 1 && !tail) return fail(err, "%s: a capsule needs \"tail\" (its second end centre)", what);
    if (read_floats(tail, wc->tail, 3, what, err)) return -1;
  }
  const cJSON *chains = cJSON_GetObjectItemCaseSensitive(sp, "chains");
  if (chains && !cJSON_IsArray(chains)) return fail(err, "springs.chains must be an array");
  int nh = chains ? cJSON_GetArraySize(chains) : 0;
  if (nh > TRESS_WIRE_MAX_SPRING_CHAINS) return fail(err, "springs: %d chains, limit %d", nh, TRESS_WIRE_MAX_SPRING_CHAINS);
  s->chain_count = (uint32_t)nh;
  for (int i = 0; i < nh; i++) {
    const cJSON *c = cJSON_GetArrayItem(chains, i);
    char what[48];
    snprintf(what, sizeof what, "springs.chains[%d]", i);
    if (!cJSON_IsObject(c)) return fail(err, "%s must be an object", what);
    tress_wire_spring_chain *wc = &s->chains[i];
    tress_chain_settings *t = &wc->settings;
    *t = tress_default_chain_settings();
    if (read_string(c, "root", wc->root, sizeof wc->root, false, what, err) ||
        read_number(c, "damping", &t->damping, what, err) || read_number(c, "stiffness", &t->stiffness, what, err) ||
        read_number(c, "gravity_scale", &t->gravity_scale, what, err) ||
        read_number(c, "wind_scale", &t->wind_scale, what, err) || read_number(c, "radius", &t->radius, what, err) ||
        read_number(c, "end_length", &t->end_length, what, err) ||
        read_number(c, "wind_gust", &t->wind_gust, what, err) ||
        read_number(c, "wind_frequency", &t->wind_frequency, what, err) ||
        read_number(c, "weight", &t->weight, what, err) || read_bool(c, "enabled", &t->enabled, what, err))
      return -1;
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(c, "colliders");
    if (set && !cJSON_IsArray(set)) return fail(err, "%s.colliders must be an array of collider indices", what);
    int ns = set ? cJSON_GetArraySize(set) : 0;
    if (ns > TRESS_CHAIN_COLLIDERS_MAX) return fail(err, "%s: %d colliders, limit %d", what, ns, TRESS_CHAIN_COLLIDERS_MAX);
    wc->collider_count = (uint8_t)ns;
    for (int k = 0; k < ns; k++) {
      const cJSON *v = cJSON_GetArrayItem(set, k);
      if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= nc || v->valuedouble != (int)v->valuedouble)
        return fail(err, "%s.colliders[%d]: not an index into springs.colliders (0..%d)", what, k, nc - 1);
      wc->colliders[k] = (uint8_t)v->valueint;
    }
  }
  return 0;
}

/* The springs section: encoded by the codec (its rules, its message) into a section of m. */
static int parse_springs(const cJSON *sp, tress_wire_manifest *m, char *err) {
  tress_wire_springs *s = malloc(sizeof *s); /* ~15 KiB: not on the stack */
  if (!s) return fail(err, "out of memory");
  int rc = read_springs(sp, s, err);
  size_t n = 0;
  tress_wire_error werr;
  if (rc == 0 && tress_wire_springs_encode(s, NULL, 0, &n, &werr) != TRESS_WIRE_OK)
    rc = fail(err, "springs: %s", werr.message);
  uint8_t *bytes = rc == 0 ? malloc(n) : NULL;
  if (rc == 0 && !bytes) rc = fail(err, "out of memory");
  if (rc == 0 && tress_wire_springs_encode(s, bytes, n, &n, &werr) != TRESS_WIRE_OK)
    rc = fail(err, "springs: %s", werr.message);
  free(s);
  if (rc == 0) {
    m->sections = calloc(1, sizeof *m->sections);
    if (!m->sections) rc = fail(err, "out of memory");
  }
  if (rc != 0) {
    free(bytes);
    return -1;
  }
  m->sections[0] = (tress_wire_section){.tag = TRESS_SECTION_SPRINGS, .length = (uint32_t)n, .bytes = bytes};
  m->section_count = 1;
  return 0;
}

static const char *const JOINT_NAMES[] = {"Weld", "Motor6D", "RigidConstraint", "WeldConstraint"};

static int parse_root(const cJSON *root, tress_wire_manifest *m, char *err) {
  if (!cJSON_IsObject(root)) return fail(err, "a manifest is a JSON object");
  if (read_string(root, "character", m->character_name, sizeof m->character_name, true, "manifest", err)) return -1;

  const cJSON *parts = cJSON_GetObjectItemCaseSensitive(root, "parts");
  if (parts && !cJSON_IsArray(parts)) return fail(err, "parts must be an array");
  int np = parts ? cJSON_GetArraySize(parts) : 0;
  if (np > TRESS_WIRE_MAX_PARTS) return fail(err, "%d parts, limit %d", np, TRESS_WIRE_MAX_PARTS);
  if (np) {
    m->parts = calloc((size_t)np, sizeof *m->parts);
    if (!m->parts) return fail(err, "out of memory");
  }
  m->part_count = (uint32_t)np;
  for (int i = 0; i < np; i++) {
    const cJSON *p = cJSON_GetArrayItem(parts, i);
    char what[48];
    snprintf(what, sizeof what, "parts[%d]", i);
    if (!cJSON_IsObject(p)) return fail(err, "%s must be an object", what);
    tress_wire_part *wp = &m->parts[i];
    wp->cframe = tress_xform_identity();
    wp->size[0] = wp->size[1] = wp->size[2] = 1.0f;
    if (read_string(p, "name", wp->name, sizeof wp->name, true, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(p, "size"), wp->size, 3, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(p, "position"), wp->cframe.p, 3, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(p, "rotation"), wp->cframe.q, 4, what, err))
      return -1;
    for (int k = 0; k < i; k++)
      if (strcmp(m->parts[k].name, wp->name) == 0) return fail(err, "%s: duplicate part name \"%s\"", what, wp->name);
  }

  const cJSON *accs = cJSON_GetObjectItemCaseSensitive(root, "accessories");
  if (accs && !cJSON_IsArray(accs)) return fail(err, "accessories must be an array");
  int na = accs ? cJSON_GetArraySize(accs) : 0;
  if (na > TRESS_WIRE_MAX_ACCESSORIES) return fail(err, "%d accessories, limit %d", na, TRESS_WIRE_MAX_ACCESSORIES);
  if (na) {
    m->accessories = calloc((size_t)na, sizeof *m->accessories);
    if (!m->accessories) return fail(err, "out of memory");
  }
  m->accessory_count = (uint32_t)na;
  for (int i = 0; i < na; i++) {
    const cJSON *a = cJSON_GetArrayItem(accs, i);
    char what[48];
    snprintf(what, sizeof what, "accessories[%d]", i);
    if (!cJSON_IsObject(a)) return fail(err, "%s must be an object", what);
    tress_wire_accessory *wa = &m->accessories[i];
    wa->handle_cframe = wa->c0 = wa->c1 = tress_xform_identity();
    wa->handle_size[0] = wa->handle_size[1] = wa->handle_size[2] = 1.0f;
    char type[32] = "Unknown", joint[32] = "Weld", worn_on[TRESS_WIRE_NAME_CAP] = "";
    if (read_string(a, "name", wa->name, sizeof wa->name, true, what, err) ||
        read_string(a, "type", type, sizeof type, false, what, err) ||
        read_string(a, "mesh", wa->mesh_asset_id, sizeof wa->mesh_asset_id, false, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(a, "handle_size"), wa->handle_size, 3, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(a, "position"), wa->handle_cframe.p, 3, what, err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(a, "rotation"), wa->handle_cframe.q, 4, what, err) ||
        read_string(a, "joint", joint, sizeof joint, false, what, err) ||
        read_xform(cJSON_GetObjectItemCaseSensitive(a, "c0"), &wa->c0, what, err) ||
        read_xform(cJSON_GetObjectItemCaseSensitive(a, "c1"), &wa->c1, what, err) ||
        read_string(a, "worn_on", worn_on, sizeof worn_on, true, what, err))
      return -1;
    tress_accessory_type t = tress_accessory_type_from_name(type);
    if (t == TRESS_ACCESSORY_TYPE_COUNT) return fail(err, "%s: unknown accessory type \"%s\"", what, type);
    wa->type = (uint8_t)t;
    int jk = -1;
    for (int k = 0; k < 4; k++)
      if (strcmp(JOINT_NAMES[k], joint) == 0) jk = k;
    if (jk < 0) return fail(err, "%s: unknown joint \"%s\"", what, joint);
    wa->joint_kind = (uint8_t)jk;
    int part = -1;
    for (uint32_t k = 0; k < m->part_count; k++)
      if (strcmp(m->parts[k].name, worn_on) == 0) part = (int)k;
    if (part < 0) return fail(err, "%s: worn_on names no part (\"%s\")", what, worn_on);
    wa->worn_on = (uint8_t)part;
    const cJSON *layered = cJSON_GetObjectItemCaseSensitive(a, "layered");
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(a, "has_bones");
    if ((layered && !cJSON_IsBool(layered)) || (bones && !cJSON_IsBool(bones)))
      return fail(err, "%s: layered and has_bones are booleans", what);
    wa->layered = cJSON_IsTrue(layered);
    wa->handle_has_bones = cJSON_IsTrue(bones);
  }

  const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "chain_settings");
  if (cs) {
    m->has_chain_settings = true;
    m->chain_settings = tress_default_chain_settings();
    if (read_number(cs, "damping", &m->chain_settings.damping, "chain_settings", err) ||
        read_number(cs, "stiffness", &m->chain_settings.stiffness, "chain_settings", err) ||
        read_number(cs, "gravity_scale", &m->chain_settings.gravity_scale, "chain_settings", err) ||
        read_number(cs, "wind_scale", &m->chain_settings.wind_scale, "chain_settings", err))
      return -1;
  }
  const cJSON *as = cJSON_GetObjectItemCaseSensitive(root, "accessory_settings");
  if (as) {
    m->has_accessory_settings = true;
    m->accessory_settings = tress_default_accessory_settings();
    tress_accessory_settings *s = &m->accessory_settings;
    if (read_number(as, "damping", &s->damping, "accessory_settings", err) ||
        read_number(as, "stiffness", &s->stiffness, "accessory_settings", err) ||
        read_number(as, "gravity_scale", &s->gravity_scale, "accessory_settings", err) ||
        read_number(as, "wind_scale", &s->wind_scale, "accessory_settings", err) ||
        read_number(as, "max_swing_degrees", &s->max_swing_degrees, "accessory_settings", err))
      return -1;
  }
  const cJSON *rig = cJSON_GetObjectItemCaseSensitive(root, "rig");
  if (rig) {
    m->has_rig_options = true;
    m->rig_options = tress_default_wire_rig_options();
    float sectors = m->rig_options.sectors, segments = m->rig_options.segments, infl = m->rig_options.max_influences;
    if (read_number(rig, "sectors", &sectors, "rig", err) || read_number(rig, "segments", &segments, "rig", err) ||
        read_number(rig, "max_influences", &infl, "rig", err) ||
        read_floats(cJSON_GetObjectItemCaseSensitive(rig, "axis"), m->rig_options.axis, 3, "rig.axis", err))
      return -1;
    if (sectors < 0 || sectors > 255 || segments < 0 || segments > 255 || infl < 0 || infl > 255)
      return fail(err, "rig: sectors, segments and max_influences are small integers");
    m->rig_options.sectors = (uint8_t)sectors;
    m->rig_options.segments = (uint8_t)segments;
    m->rig_options.max_influences = (uint8_t)infl;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rig, "root");
    if (r) {
      m->rig_options.has_root = true;
      if (read_floats(r, m->rig_options.root, 3, "rig.root", err)) return -1;
    }
  }
  const cJSON *springs = cJSON_GetObjectItemCaseSensitive(root, "springs");
  if (springs && parse_springs(springs, m, err)) return -1;
  return 0;
}

void tress_manifest_json_free(tress_wire_manifest *m) {
  free(m->parts);
  free(m->accessories);
  for (uint32_t i = 0; i < m->section_count; i++) free((void *)m->sections[i].bytes);
  free(m->sections);
  memset(m, 0, sizeof *m);
}

static int json_parse(const char *text, size_t len, tress_wire_manifest *out, char *err) {
  memset(out, 0, sizeof *out);
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root) return fail(err, "not valid JSON");
  int rc = parse_root(root, out, err);
  cJSON_Delete(root);
  if (rc == 0) {
    /* The codec is the one authority on what a valid manifest is. */
    tress_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = TRESS_MSG_SPAWN_CHARACTER;
    msg.spawn_character.manifest = *out;
    tress_wire_error werr;
    size_t cap = tress_msg_get_encode_bound(&msg);
    uint8_t *buf = cap ? malloc(cap) : NULL;
    size_t n = 0;
    if (!buf) rc = fail(err, "the manifest breaks a wire rule");
    else if (tress_msg_encode(&msg, buf, cap, &n, &werr) != TRESS_WIRE_OK) rc = fail(err, "%s", werr.message);
    free(buf);
  }
  if (rc != 0) tress_manifest_json_free(out);
  return rc;
}

static int json_load(const char *path, tress_wire_manifest *out, char *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, "%.200s: %s", path, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 > cap) {
      if (cap > (4u << 20)) {
        free(text);
        fclose(f);
        return fail(err, "%.200s: larger than 4 MiB", path);
      }
      cap = cap ? cap * 2 : 8192;
      char *n = realloc(text, cap);
      if (!n) {
        free(text);
        fclose(f);
        return fail(err, "out of memory");
      }
      text = n;
    }
    size_t r = fread(text + len, 1, cap - len, f);
    len += r;
    if (r == 0) break;
  }
  fclose(f);
  int rc = json_parse(text ? text : "", len, out, err);
  free(text);
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

/* The springs section as JSON, or NULL when m has none (or it does not decode). */
static cJSON *springs_json(const tress_wire_manifest *m) {
  const tress_wire_section *sec = NULL;
  for (uint32_t i = 0; i < m->section_count; i++)
    if (m->sections[i].tag == TRESS_SECTION_SPRINGS) sec = &m->sections[i];
  if (!sec) return NULL;
  tress_wire_springs *s = malloc(sizeof *s);
  tress_wire_error werr;
  if (!s || tress_wire_springs_decode(sec->bytes, sec->length, s, &werr) != TRESS_WIRE_OK) {
    free(s);
    return NULL;
  }
  cJSON *o = cJSON_CreateObject();
  cJSON *cols = cJSON_AddArrayToObject(o, "colliders");
  for (uint32_t i = 0; i < s->collider_count; i++) {
    const tress_wire_collider *c = &s->colliders[i];
    cJSON *co = cJSON_CreateObject();
    cJSON_AddStringToObject(co, "shape", SHAPE_NAMES[c->shape ? 1 : 0]);
    cJSON_AddStringToObject(co, "attach", c->attach);
    cJSON_AddItemToObject(co, "offset", floats(c->offset, 3));
    if (c->shape) cJSON_AddItemToObject(co, "tail", floats(c->tail, 3));
    cJSON_AddNumberToObject(co, "radius", c->radius);
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
    cJSON_AddItemToArray(chains, co);
  }
  free(s);
  return o;
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
    cJSON_AddStringToObject(o, "joint", a->joint_kind < 4 ? JOINT_NAMES[a->joint_kind] : "Weld");
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
  int code = strcmp(message, "out of memory") == 0 ? TRESS__ERR_OUT_OF_MEMORY : TRESS__ERR_INVALID_ARGUMENT;
  return tress__error_set(err, code, "%s", message);
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
