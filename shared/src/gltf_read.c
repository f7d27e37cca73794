/* gltf_read.c - glTF 2.0 reader (.glb and .gltf) on cJSON.
 *
 * Trust nothing: every number that reaches a memory access is checked first.
 *   - a .glb's header length, chunk lengths and chunk order must fit the bytes we hold;
 *   - a buffer's declared byteLength must not exceed the bytes it actually resolved to;
 *   - a bufferView must lie inside its buffer, its stride be 4..252 and not under the element;
 *   - an accessor must lie inside its view (offset + stride * (count - 1) + element <= length),
 *     with a component type and element type the attribute allows;
 *   - indices must be < the primitive's vertex count, joints < the skin's joint count.
 * All arithmetic on these is 64-bit, so a lying count cannot wrap an offset back into range.
 * Reads go through memcpy, so misaligned data is slow but never undefined.
 */
#include "tress/gltf.h"

#include <cglm/cglm.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"

#define GLB_MAGIC 0x46546C67u
#define GLB_CHUNK_JSON 0x4E4F534Au
#define GLB_CHUNK_BIN 0x004E4942u
#define MAX_BUFFERS 64
#define MAX_PRIMITIVES 256
#define MAX_JOINTS 65535

enum { CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126 };

typedef struct span {
  const uint8_t *data;
  uint64_t size;
} span;

typedef struct reader {
  cJSON *root;
  span buffers[MAX_BUFFERS];
  uint8_t *owned[MAX_BUFFERS]; /* decoded data: URIs and external files */
  int buffer_count;
  const char *base_dir;
  char *err;
} reader;

/* A checked view of one accessor: element k's bytes start at base + k * stride. */
typedef struct accessor_view {
  const uint8_t *base;
  uint64_t count;
  uint32_t stride;
  int component_type;
  int components;
  bool normalized;
} accessor_view;

static bool failf(reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, TRESS_GLTF_ERROR_MAX, fmt, ap);
  va_end(ap);
  return false;
}

static uint32_t rd_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A non-negative integer member below limit; missing gives def (or fails when def < 0). */
static bool get_uint(reader *r, const cJSON *obj, const char *key, int64_t def, uint64_t limit, uint64_t *out, const char *what) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!it) {
    if (def < 0) return failf(r, "%s has no %s", what, key);
    *out = (uint64_t)def;
    return true;
  }
  if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0.0) || it->valuedouble != floor(it->valuedouble) ||
      it->valuedouble > (double)limit)
    return failf(r, "%s has a bad %s", what, key);
  *out = (uint64_t)it->valuedouble;
  return true;
}

static const cJSON *array_item(reader *r, const char *array, uint64_t index, const char *what) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(r->root, array);
  if (!cJSON_IsArray(arr) || index >= (uint64_t)cJSON_GetArraySize(arr)) {
    failf(r, "%s refers to %s[%llu], which does not exist", what, array, (unsigned long long)index);
    return NULL;
  }
  const cJSON *it = cJSON_GetArrayItem(arr, (int)index);
  if (!cJSON_IsObject(it)) {
    failf(r, "%s[%llu] is not an object", array, (unsigned long long)index);
    return NULL;
  }
  return it;
}

/* External buffers must stay under base_dir: a relative path with no "..", no scheme. */
static bool safe_relative_uri(const char *uri) {
  if (!uri[0] || uri[0] == '/' || uri[0] == '\\' || strchr(uri, ':') || strchr(uri, '%')) return false;
  const char *p = uri;
  while (*p) {
    const char *seg = p;
    while (*p && *p != '/' && *p != '\\') p++;
    if (p - seg == 2 && seg[0] == '.' && seg[1] == '.') return false;
    if (*p) p++;
  }
  return true;
}

static bool load_buffers(reader *r, span glb_bin, bool have_bin) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(r->root, "buffers");
  if (!arr) return true;
  if (!cJSON_IsArray(arr)) return failf(r, "buffers is not an array");
  int n = cJSON_GetArraySize(arr);
  if (n > MAX_BUFFERS) return failf(r, "too many buffers (%d, at most %d)", n, MAX_BUFFERS);
  for (int i = 0; i < n; i++) {
    const cJSON *b = cJSON_GetArrayItem(arr, i);
    char what[32];
    snprintf(what, sizeof what, "buffers[%d]", i);
    if (!cJSON_IsObject(b)) return failf(r, "%s is not an object", what);
    uint64_t declared = 0;
    if (!get_uint(r, b, "byteLength", -1, TRESS_GLTF_MAX_FILE_BYTES, &declared, what)) return false;
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
    span got = {NULL, 0};
    if (!uri) {
      if (i != 0 || !have_bin) return failf(r, "%s has no uri and there is no GLB binary chunk for it", what);
      got = glb_bin;
    } else if (!cJSON_IsString(uri)) {
      return failf(r, "%s uri is not a string", what);
    } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
      const char *comma = strchr(uri->valuestring, ',');
      if (!comma || comma - uri->valuestring < 12 || strncmp(comma - 7, ";base64", 7) != 0)
        return failf(r, "%s data URI is not base64", what);
      size_t enc = strlen(comma + 1), cap = enc / 4 * 3 + 3;
      uint8_t *bin = malloc(cap ? cap : 1);
      size_t bin_len = 0;
      if (!bin) return failf(r, "out of memory");
      r->owned[i] = bin;
      if (sodium_base642bin(bin, cap, comma + 1, enc, " \r\n", &bin_len, NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
        return failf(r, "%s data URI has bad base64", what);
      got = (span){bin, bin_len};
    } else {
      if (!safe_relative_uri(uri->valuestring)) return failf(r, "%s uri '%.60s' leaves the asset directory", what, uri->valuestring);
      char path[4096];
      int len = snprintf(path, sizeof path, "%s%s%s", r->base_dir ? r->base_dir : "", r->base_dir && r->base_dir[0] ? "/" : "", uri->valuestring);
      if (len < 0 || (size_t)len >= sizeof path) return failf(r, "%s path is too long", what);
      size_t size;
      char ferr[TRESS_GLTF_ERROR_MAX];
      uint8_t *bin = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, ferr, sizeof ferr);
      if (!bin) return failf(r, "%s: %s", what, ferr);
      r->owned[i] = bin;
      got = (span){bin, size};
    }
    if (declared > got.size)
      return failf(r, "%s says %llu bytes but holds %llu", what, (unsigned long long)declared, (unsigned long long)got.size);
    r->buffers[i] = (span){got.data, declared};
    r->buffer_count = i + 1;
  }
  return true;
}

static int component_size(int ct) {
  switch (ct) {
  case CT_BYTE: case CT_UBYTE: return 1;
  case CT_SHORT: case CT_USHORT: return 2;
  case CT_UINT: case CT_FLOAT: return 4;
  }
  return 0;
}

static int type_components(const char *type) {
  static const struct { const char *name; int n; } types[] = {
    {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(type, types[i].name) == 0) return types[i].n;
  return 0;
}

/* Resolves accessor `index` and checks that every byte it names is inside its buffer. The
 * caller states which component types and element size it accepts (allowed is a bit set over
 * the six component types, indexed ct - 5120). */
static bool accessor_get(reader *r, uint64_t index, int components, unsigned allowed, accessor_view *out, const char *role) {
  char what[64];
  snprintf(what, sizeof what, "accessor %llu (%s)", (unsigned long long)index, role);
  const cJSON *acc = array_item(r, "accessors", index, what);
  if (!acc) return false;
  if (cJSON_GetObjectItemCaseSensitive(acc, "sparse")) return failf(r, "%s is sparse, which is not supported", what);
  uint64_t ct = 0, count = 0, acc_offset = 0, view_index = 0;
  if (!get_uint(r, acc, "componentType", -1, 6000, &ct, what) || !get_uint(r, acc, "count", -1, UINT32_MAX, &count, what) ||
      !get_uint(r, acc, "byteOffset", 0, UINT32_MAX, &acc_offset, what))
    return false;
  if (count == 0) return failf(r, "%s has count 0", what);
  int csize = component_size((int)ct);
  if (!csize || ct == 5124 || !(allowed & (1u << (ct - CT_BYTE)))) return failf(r, "%s has component type %llu, not allowed here", what, (unsigned long long)ct);
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
  if (!cJSON_IsString(type) || type_components(type->valuestring) != components)
    return failf(r, "%s has the wrong type for %s", what, role);
  if (!cJSON_GetObjectItemCaseSensitive(acc, "bufferView")) return failf(r, "%s has no bufferView", what);
  if (!get_uint(r, acc, "bufferView", -1, UINT32_MAX, &view_index, what)) return false;
  const cJSON *view = array_item(r, "bufferViews", view_index, what);
  if (!view) return false;
  char vwhat[40];
  snprintf(vwhat, sizeof vwhat, "bufferViews[%llu]", (unsigned long long)view_index);
  uint64_t buf_index = 0, view_offset = 0, view_length = 0, stride = 0;
  if (!get_uint(r, view, "buffer", -1, MAX_BUFFERS, &buf_index, vwhat) || !get_uint(r, view, "byteOffset", 0, UINT32_MAX, &view_offset, vwhat) ||
      !get_uint(r, view, "byteLength", -1, UINT32_MAX, &view_length, vwhat) || !get_uint(r, view, "byteStride", 0, 252, &stride, vwhat))
    return false;
  if (buf_index >= (uint64_t)r->buffer_count) return failf(r, "%s refers to a missing buffer", vwhat);
  span buf = r->buffers[buf_index];
  if (view_offset + view_length > buf.size)
    return failf(r, "%s (offset %llu, length %llu) runs past its buffer of %llu bytes", vwhat, (unsigned long long)view_offset,
                 (unsigned long long)view_length, (unsigned long long)buf.size);
  uint64_t element = (uint64_t)csize * (uint64_t)components;
  if (stride == 0) stride = element;
  else if (stride < 4 || stride < element || stride % (uint64_t)csize) return failf(r, "%s has a bad byteStride", vwhat);
  if (acc_offset + stride * (count - 1) + element > view_length)
    return failf(r, "%s (offset %llu, %llu elements of stride %llu) runs past its bufferView of %llu bytes", what,
                 (unsigned long long)acc_offset, (unsigned long long)count, (unsigned long long)stride, (unsigned long long)view_length);
  const cJSON *norm = cJSON_GetObjectItemCaseSensitive(acc, "normalized");
  out->base = buf.data + view_offset + acc_offset;
  out->count = count;
  out->stride = (uint32_t)stride;
  out->component_type = (int)ct;
  out->components = components;
  out->normalized = cJSON_IsTrue(norm);
  return true;
}

/* Component c of element k as a float (normalized integers scaled to 0..1 or -1..1). */
static float read_float(const accessor_view *a, uint64_t k, int c) {
  const uint8_t *p = a->base + k * a->stride;
  switch (a->component_type) {
  case CT_FLOAT: { float f; memcpy(&f, p + 4 * c, 4); return f; }
  case CT_UBYTE: { float v = p[c]; return a->normalized ? v / 255.0f : v; }
  case CT_BYTE: { float v = (int8_t)p[c]; return a->normalized ? fmaxf(v / 127.0f, -1.0f) : v; }
  case CT_USHORT: { uint16_t u; memcpy(&u, p + 2 * c, 2); return a->normalized ? u / 65535.0f : u; }
  case CT_SHORT: { int16_t s; memcpy(&s, p + 2 * c, 2); return a->normalized ? fmaxf(s / 32767.0f, -1.0f) : s; }
  case CT_UINT: { uint32_t u; memcpy(&u, p + 4 * c, 4); return (float)u; }
  }
  return 0.0f;
}

static uint32_t read_uint(const accessor_view *a, uint64_t k, int c) {
  const uint8_t *p = a->base + k * a->stride;
  switch (a->component_type) {
  case CT_UBYTE: return p[c];
  case CT_USHORT: { uint16_t u; memcpy(&u, p + 2 * c, 2); return u; }
  case CT_UINT: { uint32_t u; memcpy(&u, p + 4 * c, 4); return u; }
  }
  return 0;
}

#define ALLOW(ct) (1u << ((ct) - CT_BYTE))

typedef struct prim_info {
  accessor_view pos, nrm, uv, joints, weights, idx;
  bool has_nrm, has_uv, has_skin, has_idx;
} prim_info;

static bool optional_attr(reader *r, const cJSON *attrs, const char *name, int comps, unsigned allowed, accessor_view *a, bool *has,
                          uint64_t vertex_count) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(attrs, name);
  *has = false;
  if (!it) return true;
  if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble != floor(it->valuedouble)) return failf(r, "attribute %s is not an index", name);
  if (!accessor_get(r, (uint64_t)it->valuedouble, comps, allowed, a, name)) return false;
  if (a->count != vertex_count)
    return failf(r, "attribute %s has %llu elements but POSITION has %llu", name, (unsigned long long)a->count, (unsigned long long)vertex_count);
  *has = true;
  return true;
}

static bool read_primitive(reader *r, const cJSON *prim, prim_info *p) {
  memset(p, 0, sizeof *p);
  uint64_t mode = 0;
  if (!get_uint(r, prim, "mode", 4, 6, &mode, "primitive")) return false;
  if (mode != 4) return failf(r, "primitive mode %llu is not triangles", (unsigned long long)mode);
  const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
  if (!cJSON_IsObject(attrs)) return failf(r, "primitive has no attributes");
  uint64_t pos_index = 0;
  if (!get_uint(r, attrs, "POSITION", -1, UINT32_MAX, &pos_index, "primitive attributes")) return false;
  if (!accessor_get(r, pos_index, 3, ALLOW(CT_FLOAT), &p->pos, "POSITION")) return false;
  uint64_t n = p->pos.count;
  bool has_joints, has_weights;
  if (!optional_attr(r, attrs, "NORMAL", 3, ALLOW(CT_FLOAT), &p->nrm, &p->has_nrm, n) ||
      !optional_attr(r, attrs, "TEXCOORD_0", 2, ALLOW(CT_FLOAT) | ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->uv, &p->has_uv, n) ||
      !optional_attr(r, attrs, "JOINTS_0", 4, ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->joints, &has_joints, n) ||
      !optional_attr(r, attrs, "WEIGHTS_0", 4, ALLOW(CT_FLOAT) | ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->weights, &has_weights, n))
    return false;
  if (has_joints != has_weights) return failf(r, "JOINTS_0 and WEIGHTS_0 must come together");
  p->has_skin = has_joints;
  const cJSON *ind = cJSON_GetObjectItemCaseSensitive(prim, "indices");
  if (ind) {
    uint64_t idx_index = 0;
    if (!get_uint(r, prim, "indices", -1, UINT32_MAX, &idx_index, "primitive")) return false;
    if (!accessor_get(r, idx_index, 1, ALLOW(CT_UBYTE) | ALLOW(CT_USHORT) | ALLOW(CT_UINT), &p->idx, "indices")) return false;
    if (p->idx.count % 3) return failf(r, "index count %llu is not a multiple of 3", (unsigned long long)p->idx.count);
    p->has_idx = true;
  } else if (n % 3) {
    return failf(r, "non-indexed primitive has %llu vertices, not a multiple of 3", (unsigned long long)n);
  }
  return true;
}

/* Which node holds the mesh we read: the first with a mesh and a skin, else the first with a mesh. */
static int64_t pick_node(reader *r) {
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r->root, "nodes");
  int64_t first = -1;
  if (!cJSON_IsArray(nodes)) return -1;
  int n = cJSON_GetArraySize(nodes);
  for (int i = 0; i < n; i++) {
    const cJSON *node = cJSON_GetArrayItem(nodes, i);
    if (!cJSON_IsObject(node) || !cJSON_GetObjectItemCaseSensitive(node, "mesh")) continue;
    if (cJSON_GetObjectItemCaseSensitive(node, "skin")) return i;
    if (first < 0) first = i;
  }
  return first;
}

/* Reads the skin's joints as bones: names, parents (from node children), bind positions. */
static bool read_skin(reader *r, uint64_t skin_index, tress_mesh *m) {
  const cJSON *skin = array_item(r, "skins", skin_index, "node skin");
  if (!skin) return false;
  const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
  if (!cJSON_IsArray(joints)) return failf(r, "skin has no joints");
  int jn = cJSON_GetArraySize(joints);
  if (jn < 1 || jn > MAX_JOINTS) return failf(r, "skin has %d joints (1..%d allowed)", jn, MAX_JOINTS);
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r->root, "nodes");
  int node_count = cJSON_GetArraySize(nodes);
  int *node_of = malloc(sizeof(int) * (size_t)jn);
  int *joint_of_node = malloc(sizeof(int) * (size_t)(node_count ? node_count : 1));
  if (!node_of || !joint_of_node) { free(node_of); free(joint_of_node); return failf(r, "out of memory"); }
  for (int i = 0; i < node_count; i++) joint_of_node[i] = -1;
  bool ok = true;
  for (int j = 0; j < jn && ok; j++) {
    const cJSON *it = cJSON_GetArrayItem(joints, j);
    if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble >= node_count || it->valuedouble != floor(it->valuedouble)) {
      ok = failf(r, "skin joint %d is not a node", j);
      break;
    }
    node_of[j] = (int)it->valuedouble;
    if (joint_of_node[node_of[j]] >= 0) ok = failf(r, "skin lists node %d twice", node_of[j]);
    joint_of_node[node_of[j]] = j;
  }
  accessor_view ibm;
  bool has_ibm = false;
  if (ok && cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices")) {
    uint64_t ibm_index = 0;
    ok = get_uint(r, skin, "inverseBindMatrices", -1, UINT32_MAX, &ibm_index, "skin") &&
         accessor_get(r, ibm_index, 16, ALLOW(CT_FLOAT), &ibm, "inverseBindMatrices");
    if (ok && ibm.count < (uint64_t)jn) ok = failf(r, "skin has %d joints but %llu inverse bind matrices", jn, (unsigned long long)ibm.count);
    has_ibm = ok;
  }
  if (ok && !tress_mesh_add_skin(m, (uint32_t)jn)) ok = failf(r, "out of memory");
  for (int j = 0; j < jn && ok; j++) m->bones[j].parent = -1;
  /* Parents: a joint node listed as a child of another joint node. */
  for (int j = 0; j < jn && ok; j++) {
    const cJSON *node = cJSON_GetArrayItem(nodes, node_of[j]);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
    snprintf(m->bones[j].name, sizeof m->bones[j].name, "%s", cJSON_IsString(name) ? name->valuestring : "");
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
    const cJSON *c;
    cJSON_ArrayForEach(c, children) {
      if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble >= node_count) continue;
      int child_joint = joint_of_node[(int)c->valuedouble];
      if (child_joint >= 0) m->bones[child_joint].parent = j;
    }
  }
  for (int j = 0; j < jn && ok; j++) {
    if (has_ibm) {
      mat4 inv, world;
      for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) inv[c][k] = read_float(&ibm, (uint64_t)j, 4 * c + k);
      glm_mat4_inv(inv, world);
      for (int k = 0; k < 3; k++) m->bones[j].bind_pos[k] = isfinite(world[3][k]) ? world[3][k] : 0.0f;
    } else {
      /* No inverse bind matrices: sum node translations up the joint hierarchy. */
      int guard = 0;
      for (int b = j; b >= 0 && guard++ <= jn; b = m->bones[b].parent) {
        const cJSON *node = cJSON_GetArrayItem(nodes, node_of[b]);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(node, "translation");
        for (int k = 0; k < 3 && cJSON_GetArraySize(t) == 3; k++) {
          const cJSON *v = cJSON_GetArrayItem(t, k);
          if (cJSON_IsNumber(v)) m->bones[j].bind_pos[k] += (float)v->valuedouble;
        }
      }
    }
  }
  free(node_of);
  free(joint_of_node);
  return ok;
}

static tress_mesh *read_document(reader *r) {
  int64_t node_index = pick_node(r);
  uint64_t mesh_index = 0, skin_index = 0;
  bool has_skin = false;
  if (node_index >= 0) {
    const cJSON *node = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r->root, "nodes"), (int)node_index);
    if (!get_uint(r, node, "mesh", -1, UINT32_MAX, &mesh_index, "node")) return NULL;
    has_skin = cJSON_GetObjectItemCaseSensitive(node, "skin") != NULL;
    if (has_skin && !get_uint(r, node, "skin", -1, UINT32_MAX, &skin_index, "node")) return NULL;
  }
  const cJSON *mesh = array_item(r, "meshes", mesh_index, "the document");
  if (!mesh) return NULL;
  const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
  int pn = cJSON_IsArray(prims) ? cJSON_GetArraySize(prims) : 0;
  if (pn < 1 || pn > MAX_PRIMITIVES) { failf(r, "mesh has %d primitives (1..%d allowed)", pn, MAX_PRIMITIVES); return NULL; }
  prim_info *info = calloc((size_t)pn, sizeof *info);
  if (!info) { failf(r, "out of memory"); return NULL; }
  uint64_t vertices = 0, indices = 0;
  bool all_nrm = true, all_uv = true, all_skin = true, any_idx = false;
  for (int i = 0; i < pn; i++) {
    if (!read_primitive(r, cJSON_GetArrayItem(prims, i), &info[i])) { free(info); return NULL; }
    vertices += info[i].pos.count;
    indices += info[i].has_idx ? info[i].idx.count : info[i].pos.count;
    all_nrm &= info[i].has_nrm;
    all_uv &= info[i].has_uv;
    all_skin &= info[i].has_skin;
    any_idx |= info[i].has_idx;
  }
  if (vertices > UINT32_MAX / 4 || indices > UINT32_MAX / 4) { free(info); failf(r, "mesh is too large"); return NULL; }
  tress_mesh *m = tress_mesh_create((uint32_t)vertices, any_idx || pn > 1 ? (uint32_t)indices : 0, all_nrm, all_uv);
  if (!m) { free(info); failf(r, "out of memory"); return NULL; }
  if (has_skin && all_skin && !read_skin(r, skin_index, m)) goto fail;
  uint32_t vbase = 0, ibase = 0;
  for (int i = 0; i < pn; i++) {
    prim_info *p = &info[i];
    uint32_t n = (uint32_t)p->pos.count;
    for (uint32_t v = 0; v < n; v++) {
      for (int k = 0; k < 3; k++) {
        float f = read_float(&p->pos, v, k);
        if (!isfinite(f)) { failf(r, "POSITION %u is not finite", v); goto fail; }
        m->positions[3 * (vbase + v) + k] = f;
        if (all_nrm) m->normals[3 * (vbase + v) + k] = read_float(&p->nrm, v, k);
      }
      if (all_uv) for (int k = 0; k < 2; k++) m->uvs[2 * (vbase + v) + k] = read_float(&p->uv, v, k);
      if (m->bones) {
        for (int k = 0; k < 4; k++) {
          uint32_t j = read_uint(&p->joints, v, k);
          float w = read_float(&p->weights, v, k);
          if (!(w >= 0.0f && w <= 1.0001f)) { failf(r, "vertex %u has a bad weight", v); goto fail; }
          if (w > 0.0f && j >= m->bone_count) { failf(r, "vertex %u uses joint %u of %u", v, j, m->bone_count); goto fail; }
          m->joints[4 * (vbase + v) + k] = (uint16_t)(w > 0.0f ? j : 0);
          m->weights[4 * (vbase + v) + k] = w;
        }
      }
    }
    if (m->indices) {
      uint32_t count = p->has_idx ? (uint32_t)p->idx.count : n;
      for (uint32_t k = 0; k < count; k++) {
        uint32_t ix = p->has_idx ? read_uint(&p->idx, k, 0) : k;
        if (ix >= n) { failf(r, "index %u is %u, past the primitive's %u vertices", k, ix, n); goto fail; }
        m->indices[ibase + k] = vbase + ix;
      }
      ibase += count;
    }
    vbase += n;
  }
  free(info);
  return m;
fail:
  free(info);
  tress_mesh_release(m);
  return NULL;
}

static tress_mesh *parse(reader *r, const uint8_t *data, size_t size) {
  span bin = {NULL, 0};
  bool have_bin = false;
  const char *json;
  size_t json_len;
  if (size >= 4 && rd_u32(data) == GLB_MAGIC) {
    if (size < 20) { failf(r, "GLB is truncated (%zu bytes)", size); return NULL; }
    uint32_t version = rd_u32(data + 4), length = rd_u32(data + 8);
    if (version != 2) { failf(r, "GLB version %u is not 2", version); return NULL; }
    if (length > size || length < 20) { failf(r, "GLB header says %u bytes but the file has %zu", length, size); return NULL; }
    uint32_t json_chunk = rd_u32(data + 12);
    if (rd_u32(data + 16) != GLB_CHUNK_JSON) { failf(r, "GLB first chunk is not JSON"); return NULL; }
    if ((uint64_t)json_chunk + 20 > length) { failf(r, "GLB JSON chunk (%u bytes) runs past the file", json_chunk); return NULL; }
    json = (const char *)data + 20;
    json_len = json_chunk;
    uint64_t at = 20 + (uint64_t)json_chunk;
    if (at + 8 <= length && rd_u32(data + at + 4) == GLB_CHUNK_BIN) {
      uint32_t bin_len = rd_u32(data + at);
      if (at + 8 + bin_len > length) { failf(r, "GLB binary chunk (%u bytes) runs past the file", bin_len); return NULL; }
      bin = (span){data + at + 8, bin_len};
      have_bin = true;
    } else if (at + 8 <= length) {
      failf(r, "GLB second chunk is not BIN");
      return NULL;
    }
  } else {
    json = (const char *)data;
    json_len = size;
  }
  r->root = cJSON_ParseWithLength(json, json_len);
  if (!cJSON_IsObject(r->root)) { failf(r, "not glTF: the JSON does not parse"); return NULL; }
  const cJSON *asset = cJSON_GetObjectItemCaseSensitive(r->root, "asset");
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
  if (!cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2) != 0) { failf(r, "not glTF 2.x (asset.version)"); return NULL; }
  if (!load_buffers(r, bin, have_bin)) return NULL;
  return read_document(r);
}

tress_mesh *tress_gltf_read_memory(const uint8_t *data, size_t size, const char *base_dir, char err[TRESS_GLTF_ERROR_MAX]) {
  reader r;
  memset(&r, 0, sizeof r);
  r.err = err;
  r.base_dir = base_dir;
  err[0] = 0;
  if (sodium_init() < 0) { failf(&r, "libsodium failed to start"); return NULL; }
  if (!data || size == 0) { failf(&r, "empty input"); return NULL; }
  if (size > TRESS_GLTF_MAX_FILE_BYTES) { failf(&r, "input is too large"); return NULL; }
  tress_mesh *m = parse(&r, data, size);
  cJSON_Delete(r.root);
  for (int i = 0; i < MAX_BUFFERS; i++) free(r.owned[i]);
  return m;
}

tress_mesh *tress_gltf_load(const char *path, char err[TRESS_GLTF_ERROR_MAX]) {
  size_t size;
  uint8_t *data = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, err, TRESS_GLTF_ERROR_MAX);
  if (!data) return NULL;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  tress_mesh *m = tress_gltf_read_memory(data, size, dir, err);
  free(data);
  return m;
}
