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

#include "tress/codec.h"

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
  return 0;
}

void tress_manifest_json_free(tress_wire_manifest *m) {
  free(m->parts);
  free(m->accessories);
  memset(m, 0, sizeof *m);
}

int tress_manifest_json_parse(const char *text, size_t len, tress_wire_manifest *out,
                              char err[TRESS_MANIFEST_JSON_ERROR_MAX]) {
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
    size_t cap = tress_msg_encode_bound(&msg);
    uint8_t *buf = cap ? malloc(cap) : NULL;
    size_t n = 0;
    if (!buf) rc = fail(err, "the manifest breaks a wire rule");
    else if (tress_msg_encode(&msg, buf, cap, &n, &werr) != TRESS_WIRE_OK) rc = fail(err, "%s", werr.message);
    free(buf);
  }
  if (rc != 0) tress_manifest_json_free(out);
  return rc;
}

int tress_manifest_json_load(const char *path, tress_wire_manifest *out, char err[TRESS_MANIFEST_JSON_ERROR_MAX]) {
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
  int rc = tress_manifest_json_parse(text ? text : "", len, out, err);
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
  char *s = cJSON_Print(root);
  cJSON_Delete(root);
  return s;
}

int tress_manifest_json_save(const char *path, const tress_wire_manifest *m, char err[TRESS_MANIFEST_JSON_ERROR_MAX]) {
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
