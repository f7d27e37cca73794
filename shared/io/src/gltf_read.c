/* gltf_read.c - glTF 2.0 reader (.glb and .gltf) on cJSON.
 *
 * Trust nothing: every number that reaches a memory access is checked first.
 *   - a .glb's header length, chunk lengths and chunk order must fit the bytes we hold;
 *   - a buffer's declared byteLength must not exceed the bytes it actually resolved to;
 *   - a bufferView must lie inside its buffer, its stride be 4..252 and not under the element;
 *   - an accessor must lie inside its view (offset + stride * (count - 1) + element <= length),
 *     with a component type and element type the attribute allows;
 *   - indices must be < the primitive's vertex count, joints < the skin's joint count;
 *   - a sparse accessor's indices must strictly increase and stay below its count, its index and
 *     value arrays lie inside their views, and its dense copy stay under MAX_MATERIALISED_BYTES;
 *   - the scene's node tree must be a tree (each node reached once), its transforms finite, and
 *     the merged output under TRESS_GLTF_MAX_VERTICES / _INDICES however often a mesh is instanced.
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

#include "tress/file_read.h"
#include "tress/result.h"

#define GLB_MAGIC 0x46546C67u
#define GLB_CHUNK_JSON 0x4E4F534Au
#define GLB_CHUNK_BIN 0x004E4942u
#define MAX_BUFFERS 64
#define MAX_PRIMITIVES 256
#define MAX_JOINTS 65535
/* A materialised (sparse) accessor's dense copy: 16 M float VEC4s. */
#define MAX_MATERIALISED_BYTES (256u * 1024u * 1024u)

enum { CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126 };

typedef struct span {
  const uint8_t *data;
  uint64_t size;
} span;

typedef struct scratch_block {
  struct scratch_block *next;
  uint8_t data[];
} scratch_block;

typedef struct reader {
  cJSON *root;
  span buffers[MAX_BUFFERS];
  uint8_t *owned[MAX_BUFFERS]; /* decoded data: URIs and external files */
  int buffer_count;
  const char *base_dir;
  tress_error *err; /* the caller's, may be NULL */
  scratch_block *scratch; /* freed when the read ends */
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

static uint32_t read_uint(const accessor_view *a, uint64_t k, int c);

static bool failf(reader *r, const char *fmt, ...) {
  if (!r->err) return false;
  r->err->code = TRESS_ERR_INVALID_ARGUMENT;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err->message, sizeof r->err->message, fmt, ap);
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
      tress_error ferr = {0};
      uint8_t *bin = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, &ferr);
      if (!bin) return failf(r, "%s: %s", what, ferr.message);
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

/* One bufferView resolved against its buffer: its bytes and its byteStride (0 when unset). */
static bool view_get(reader *r, uint64_t view_index, const char *what, span *bytes, uint64_t *stride) {
  const cJSON *view = array_item(r, "bufferViews", view_index, what);
  if (!view) return false;
  char vwhat[40];
  snprintf(vwhat, sizeof vwhat, "bufferViews[%llu]", (unsigned long long)view_index);
  uint64_t buf_index = 0, view_offset = 0, view_length = 0;
  if (!get_uint(r, view, "buffer", -1, MAX_BUFFERS, &buf_index, vwhat) || !get_uint(r, view, "byteOffset", 0, UINT32_MAX, &view_offset, vwhat) ||
      !get_uint(r, view, "byteLength", -1, UINT32_MAX, &view_length, vwhat) || !get_uint(r, view, "byteStride", 0, 252, stride, vwhat))
    return false;
  if (buf_index >= (uint64_t)r->buffer_count) return failf(r, "%s refers to a missing buffer", vwhat);
  span buf = r->buffers[buf_index];
  if (view_offset + view_length > buf.size)
    return failf(r, "%s (offset %llu, length %llu) runs past its buffer of %llu bytes", vwhat, (unsigned long long)view_offset,
                 (unsigned long long)view_length, (unsigned long long)buf.size);
  *bytes = (span){buf.data + view_offset, view_length};
  return true;
}

/* Memory the reader owns until it finishes (materialised sparse accessors). */
static uint8_t *scratch_alloc(reader *r, uint64_t size, bool zeroed) {
  scratch_block *b = zeroed ? calloc(1, sizeof *b + size) : malloc(sizeof *b + size);
  if (!b) return NULL;
  b->next = r->scratch;
  r->scratch = b;
  return b->data;
}

/* A sparse accessor becomes a dense copy: the base elements (or zeros without a bufferView) with
 * the sparse values written over them. Indices must strictly increase and stay below count, and
 * both the indices and the values must lie inside their bufferViews (tightly packed, as the spec
 * says). The copy is at most MAX_MATERIALISED_BYTES, since a sparse accessor with no bufferView
 * has a count no byte of the file backs. */
static bool sparse_materialise(reader *r, const cJSON *sparse, const char *what, accessor_view *a) {
  uint64_t element = (uint64_t)component_size(a->component_type) * (uint64_t)a->components;
  if (!cJSON_IsObject(sparse)) return failf(r, "%s sparse is not an object", what);
  uint64_t scount = 0;
  if (!get_uint(r, sparse, "count", -1, UINT32_MAX, &scount, "sparse")) return false;
  if (scount < 1 || scount > a->count)
    return failf(r, "%s has %llu sparse values for %llu elements", what, (unsigned long long)scount, (unsigned long long)a->count);
  if (a->count * element > MAX_MATERIALISED_BYTES)
    return failf(r, "%s is sparse over %llu elements, more than the reader expands (%u bytes)", what, (unsigned long long)a->count,
                 MAX_MATERIALISED_BYTES);
  const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices"), *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
  if (!cJSON_IsObject(ind) || !cJSON_IsObject(val)) return failf(r, "%s sparse needs indices and values objects", what);
  uint64_t ict = 0, iview = 0, ioff = 0, vview = 0, voff = 0, unused_stride;
  if (!get_uint(r, ind, "componentType", -1, 6000, &ict, "sparse indices") || !get_uint(r, ind, "bufferView", -1, UINT32_MAX, &iview, "sparse indices") ||
      !get_uint(r, ind, "byteOffset", 0, UINT32_MAX, &ioff, "sparse indices") || !get_uint(r, val, "bufferView", -1, UINT32_MAX, &vview, "sparse values") ||
      !get_uint(r, val, "byteOffset", 0, UINT32_MAX, &voff, "sparse values"))
    return false;
  if (ict != CT_UBYTE && ict != CT_USHORT && ict != CT_UINT)
    return failf(r, "%s sparse indices have component type %llu (5121, 5123 or 5125 allowed)", what, (unsigned long long)ict);
  span ibytes, vbytes;
  if (!view_get(r, iview, what, &ibytes, &unused_stride) || !view_get(r, vview, what, &vbytes, &unused_stride)) return false;
  uint64_t isize = (uint64_t)component_size((int)ict);
  if (ioff + scount * isize > ibytes.size)
    return failf(r, "%s sparse indices (%llu x %llu bytes from offset %llu) run past bufferViews[%llu] of %llu bytes", what,
                 (unsigned long long)scount, (unsigned long long)isize, (unsigned long long)ioff, (unsigned long long)iview,
                 (unsigned long long)ibytes.size);
  if (voff + scount * element > vbytes.size)
    return failf(r, "%s sparse values (%llu x %llu bytes from offset %llu) run past bufferViews[%llu] of %llu bytes", what,
                 (unsigned long long)scount, (unsigned long long)element, (unsigned long long)voff, (unsigned long long)vview,
                 (unsigned long long)vbytes.size);
  uint8_t *dense = scratch_alloc(r, a->count * element, a->base == NULL);
  if (!dense) return failf(r, "out of memory");
  if (a->base)
    for (uint64_t k = 0; k < a->count; k++) memcpy(dense + k * element, a->base + k * a->stride, element);
  accessor_view indices = {ibytes.data + ioff, scount, (uint32_t)isize, (int)ict, 1, false};
  const uint8_t *values = vbytes.data + voff;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < scount; i++) {
    uint64_t at = read_uint(&indices, i, 0);
    if (at >= a->count)
      return failf(r, "%s sparse index %llu is %llu, past its %llu elements", what, (unsigned long long)i, (unsigned long long)at,
                   (unsigned long long)a->count);
    if (i > 0 && at == prev)
      return failf(r, "%s sparse index %llu repeats element %llu (indices must strictly increase)", what, (unsigned long long)i,
                   (unsigned long long)at);
    if (i > 0 && at < prev)
      return failf(r, "%s sparse index %llu is %llu, below the %llu before it (indices must strictly increase)", what,
                   (unsigned long long)i, (unsigned long long)at, (unsigned long long)prev);
    memcpy(dense + at * element, values + i * element, element);
    prev = at;
  }
  a->base = dense;
  a->stride = (uint32_t)element;
  return true;
}

/* Resolves accessor `index` and checks that every byte it names is inside its buffer. The
 * caller states which component types and element size it accepts (allowed is a bit set over
 * the six component types, indexed ct - 5120). */
static bool accessor_get(reader *r, uint64_t index, int components, unsigned allowed, accessor_view *out, const char *role) {
  char what[64];
  snprintf(what, sizeof what, "accessor %llu (%s)", (unsigned long long)index, role);
  const cJSON *acc = array_item(r, "accessors", index, what);
  if (!acc) return false;
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
  const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(acc, "sparse");
  uint64_t element = (uint64_t)csize * (uint64_t)components;
  out->base = NULL;
  out->count = count;
  out->stride = (uint32_t)element;
  out->component_type = (int)ct;
  out->components = components;
  out->normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(acc, "normalized"));
  if (!cJSON_GetObjectItemCaseSensitive(acc, "bufferView")) {
    if (!sparse) return failf(r, "%s has no bufferView", what);
    return sparse_materialise(r, sparse, what, out);
  }
  if (!get_uint(r, acc, "bufferView", -1, UINT32_MAX, &view_index, what)) return false;
  span view;
  uint64_t stride = 0;
  if (!view_get(r, view_index, what, &view, &stride)) return false;
  if (stride == 0) stride = element;
  else if (stride < 4 || stride < element || stride % (uint64_t)csize)
    return failf(r, "bufferViews[%llu] has a bad byteStride", (unsigned long long)view_index);
  if (acc_offset + stride * (count - 1) + element > view.size)
    return failf(r, "%s (offset %llu, %llu elements of stride %llu) runs past its bufferView of %llu bytes", what,
                 (unsigned long long)acc_offset, (unsigned long long)count, (unsigned long long)stride, (unsigned long long)view.size);
  out->base = view.data + acc_offset;
  out->stride = (uint32_t)stride;
  return sparse ? sparse_materialise(r, sparse, what, out) : true;
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

/* --- the scene: which nodes instance which meshes, under which world matrices --- */

/* Column-major 4x4 (glTF's order): element (row, col) is m[4 * col + row]. Doubles, so a long
 * chain of scales and rotations does not add float error before the one cast per vertex. */
typedef struct mesh_instance {
  uint64_t mesh;
  int64_t skin; /* -1: none */
  int node;     /* -1: the file has no nodes */
  bool identity;
  double world[16];
} mesh_instance;

static const double IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static void mat_mul(const double a[16], const double b[16], double out[16]) {
  for (int c = 0; c < 4; c++)
    for (int row = 0; row < 4; row++) {
      double v = 0.0;
      for (int k = 0; k < 4; k++) v += a[4 * k + row] * b[4 * c + k];
      out[4 * c + row] = v;
    }
}

/* n finite numbers from a JSON array of exactly n. */
static bool numbers(const cJSON *arr, int n, double *out) {
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n) return false;
  int i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) return false;
    out[i++] = it->valuedouble;
  }
  return true;
}

/* A node's local matrix: "matrix" (affine, column-major) or T * R * S. */
static bool node_local(reader *r, const cJSON *node, int index, double m[16]) {
  const cJSON *mat = cJSON_GetObjectItemCaseSensitive(node, "matrix");
  if (mat) {
    if (!numbers(mat, 16, m)) return failf(r, "node %d matrix is not 16 finite numbers", index);
    if (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0) return failf(r, "node %d matrix is not affine (its last row is not 0 0 0 1)", index);
    return true;
  }
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  const cJSON *jt = cJSON_GetObjectItemCaseSensitive(node, "translation"), *jr = cJSON_GetObjectItemCaseSensitive(node, "rotation"),
              *js = cJSON_GetObjectItemCaseSensitive(node, "scale");
  if (jt && !numbers(jt, 3, t)) return failf(r, "node %d translation is not 3 finite numbers", index);
  if (jr && !numbers(jr, 4, q)) return failf(r, "node %d rotation is not 4 finite numbers", index);
  if (js && !numbers(js, 3, s)) return failf(r, "node %d scale is not 3 finite numbers", index);
  /* Exporters round quaternions; normalising keeps the rotation a rotation. */
  double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 1e-12) || !isfinite(len)) return failf(r, "node %d rotation is not a quaternion (length %g)", index, len);
  double x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
  double rot[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  for (int c = 0; c < 3; c++) {
    for (int row = 0; row < 3; row++) m[4 * c + row] = rot[row][c] * s[c];
    m[4 * c + 3] = 0.0;
  }
  m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1.0;
  return true;
}

/* A member that must be a node index. */
static bool node_ref(reader *r, const cJSON *it, int node_count, int *out, const char *what) {
  if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble >= node_count || it->valuedouble != floor(it->valuedouble))
    return failf(r, "%s is not a node", what);
  *out = (int)it->valuedouble;
  return true;
}

typedef struct node_walk {
  int node;
  double parent_world[16];
} node_walk;

/* Every node of the default scene ("scene", else scenes[0], else every node no node lists as
 * a child) that instances a mesh, depth first in document order, with its world matrix. Each
 * node may be reached once: a node listed under two parents, or a cycle, fails. Without a
 * stack of recursion, so a deep chain of nodes cannot overflow anything. */
static bool collect_instances(reader *r, mesh_instance **out, int *out_count) {
  *out = NULL;
  *out_count = 0;
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r->root, "nodes");
  if (!nodes) return true;
  if (!cJSON_IsArray(nodes)) return failf(r, "nodes is not an array");
  int node_count = cJSON_GetArraySize(nodes);
  if (node_count == 0) return true;
  const cJSON **items = malloc(sizeof *items * (size_t)node_count);
  uint8_t *seen = calloc((size_t)node_count, 1);
  node_walk *stack = malloc(sizeof *stack * (size_t)node_count);
  mesh_instance *inst = malloc(sizeof *inst * (size_t)node_count);
  int *roots = malloc(sizeof *roots * (size_t)node_count);
  bool ok = items && seen && stack && inst && roots;
  if (!ok) failf(r, "out of memory");
  int i = 0, root_count = 0, found = 0;
  const cJSON *it;
  if (ok) cJSON_ArrayForEach(it, nodes) {
    items[i] = it;
    if (!cJSON_IsObject(it)) { ok = failf(r, "nodes[%d] is not an object", i); break; }
    i++;
  }
  const cJSON *scene_key = cJSON_GetObjectItemCaseSensitive(r->root, "scene");
  const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(r->root, "scenes");
  if (ok && (scene_key || cJSON_GetArraySize(scenes) > 0)) {
    uint64_t scene_index = 0;
    const cJSON *scene = NULL;
    ok = get_uint(r, r->root, "scene", 0, UINT32_MAX, &scene_index, "the document") &&
         (scene = array_item(r, "scenes", scene_index, "the document")) != NULL;
    const cJSON *list = ok ? cJSON_GetObjectItemCaseSensitive(scene, "nodes") : NULL;
    if (list && !cJSON_IsArray(list)) ok = failf(r, "scenes[%llu].nodes is not an array", (unsigned long long)scene_index);
    cJSON_ArrayForEach(it, list) {
      if (!ok) break;
      if (root_count == node_count) { ok = failf(r, "scenes[%llu] lists more roots than there are nodes", (unsigned long long)scene_index); break; }
      ok = node_ref(r, it, node_count, &roots[root_count++], "a scene root");
    }
  } else if (ok) {
    /* No scenes: every node nobody lists as a child is a root (seen[] marks children here). */
    for (int n = 0; n < node_count && ok; n++) {
      const cJSON *c, *children = cJSON_GetObjectItemCaseSensitive(items[n], "children");
      if (children && !cJSON_IsArray(children)) { ok = failf(r, "node %d children is not an array", n); break; }
      cJSON_ArrayForEach(c, children) {
        int child = 0;
        if (!(ok = node_ref(r, c, node_count, &child, "a node child"))) break;
        seen[child] = 1;
      }
    }
    for (int n = 0; n < node_count && ok; n++)
      if (!seen[n]) roots[root_count++] = n;
    memset(seen, 0, (size_t)node_count);
  }
  for (int ri = 0; ri < root_count && ok; ri++) {
    int depth = 0;
    if (seen[roots[ri]]) { ok = failf(r, "node %d is reached twice from the scene", roots[ri]); break; }
    seen[roots[ri]] = 1;
    stack[depth].node = roots[ri];
    memcpy(stack[depth++].parent_world, IDENTITY, sizeof IDENTITY);
    while (depth > 0 && ok) {
      node_walk at = stack[--depth];
      const cJSON *node = items[at.node];
      double local[16], world[16];
      if (!(ok = node_local(r, node, at.node, local))) break;
      mat_mul(at.parent_world, local, world);
      for (int k = 0; k < 16; k++)
        if (!isfinite(world[k])) { ok = failf(r, "node %d world matrix is not finite", at.node); break; }
      if (ok && cJSON_GetObjectItemCaseSensitive(node, "mesh")) {
        mesh_instance *mi = &inst[found++];
        uint64_t skin = 0;
        char what[32];
        snprintf(what, sizeof what, "nodes[%d]", at.node);
        ok = get_uint(r, node, "mesh", -1, UINT32_MAX, &mi->mesh, what);
        bool has_skin = cJSON_GetObjectItemCaseSensitive(node, "skin") != NULL;
        if (ok && has_skin) ok = get_uint(r, node, "skin", -1, UINT32_MAX, &skin, what);
        mi->skin = has_skin ? (int64_t)skin : -1;
        mi->node = at.node;
        memcpy(mi->world, world, sizeof world);
        mi->identity = memcmp(world, IDENTITY, sizeof world) == 0;
      }
      /* Children are pushed in order, then that run of the stack is reversed, so they pop in
       * document order. */
      const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
      if (children && !cJSON_IsArray(children)) { ok = failf(r, "node %d children is not an array", at.node); break; }
      int first_child = depth;
      const cJSON *c;
      cJSON_ArrayForEach(c, children) {
        int child = 0;
        if (!(ok = node_ref(r, c, node_count, &child, "a node child"))) break;
        if (seen[child]) { ok = failf(r, "node %d is reached twice from the scene (a cycle or a shared child)", child); break; }
        seen[child] = 1;
        stack[depth].node = child;
        memcpy(stack[depth++].parent_world, world, sizeof world);
      }
      for (int lo = first_child, hi = depth - 1; lo < hi; lo++, hi--) {
        node_walk swap = stack[lo];
        stack[lo] = stack[hi];
        stack[hi] = swap;
      }
    }
  }
  free(items);
  free(seen);
  free(stack);
  free(roots);
  if (!ok) { free(inst); return false; }
  *out = inst;
  *out_count = found;
  return true;
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
      /* a singular matrix inverts to infinities: there is no bind pose to read */
      for (int k = 0; k < 3 && ok; k++)
        if (!isfinite(world[3][k])) ok = failf(r, "inverse bind matrix of joint %d is not invertible", j);
      for (int k = 0; k < 3 && ok; k++) m->bones[j].bind_pos[k] = world[3][k];
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

/* The primitives of one mesh, read once however many nodes instance it. */
typedef struct mesh_slot {
  uint32_t first_prim, prim_count;
  uint64_t vertices, indices;
} mesh_slot;

/* The normal matrix of world's upper 3x3 A: the cofactor matrix, det(A) * inverse-transpose,
 * whose columns are a1 x a2, a2 x a0, a0 x a1. Times sign(det) it points normals the way the
 * inverse-transpose does without dividing by det (a zero scale gives zero, not infinity);
 * every transformed normal is renormalised anyway. */
static double normal_matrix(const double w[16], double n[9]) {
  const double *a0 = w, *a1 = w + 4, *a2 = w + 8;
  double cols[3][3] = {{a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2], a1[0] * a2[1] - a1[1] * a2[0]},
                       {a2[1] * a0[2] - a2[2] * a0[1], a2[2] * a0[0] - a2[0] * a0[2], a2[0] * a0[1] - a2[1] * a0[0]},
                       {a0[1] * a1[2] - a0[2] * a1[1], a0[2] * a1[0] - a0[0] * a1[2], a0[0] * a1[1] - a0[1] * a1[0]}};
  double det = a0[0] * cols[0][0] + a0[1] * cols[0][1] + a0[2] * cols[0][2];
  double sign = det < 0.0 ? -1.0 : 1.0;
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < 3; k++) n[3 * c + k] = sign * cols[c][k];
  return det;
}

/* Writes one primitive instance into m at vbase / ibase. An identity instance copies the data as
 * stored (bit for bit); any other moves positions by world, normals by the normal matrix, and a
 * mirroring world (det < 0) reverses each triangle so its front face stays the outside. */
static bool emit_primitive(reader *r, const prim_info *p, const mesh_instance *in, tress_mesh *m, uint32_t vbase, uint32_t ibase,
                           bool all_nrm, bool all_uv) {
  uint32_t n = (uint32_t)p->pos.count;
  double nm[9];
  bool flip = !in->identity && normal_matrix(in->world, nm) < 0.0;
  const double *w = in->world;
  /* Non-indexed output is one non-indexed primitive: a flip swaps its vertices 1 and 2 instead. */
  bool swap_vertices = flip && !m->indices;
  for (uint32_t v = 0; v < n; v++) {
    uint32_t src = swap_vertices && v % 3 ? (v % 3 == 1 ? v + 1 : v - 1) : v;
    float *pos = m->positions + 3 * (size_t)(vbase + v);
    float *nrm = all_nrm ? m->normals + 3 * (size_t)(vbase + v) : NULL;
    for (int k = 0; k < 3; k++) {
      pos[k] = read_float(&p->pos, src, k);
      if (nrm) nrm[k] = read_float(&p->nrm, src, k);
    }
    if (!in->identity) {
      double x = pos[0], y = pos[1], z = pos[2];
      for (int k = 0; k < 3; k++) pos[k] = (float)(w[k] * x + w[4 + k] * y + w[8 + k] * z + w[12 + k]);
      if (nrm) {
        double a = nrm[0], b = nrm[1], c = nrm[2], t[3];
        for (int k = 0; k < 3; k++) t[k] = nm[k] * a + nm[3 + k] * b + nm[6 + k] * c;
        double len = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int k = 0; k < 3; k++) nrm[k] = (float)(len > 0.0 && isfinite(len) ? t[k] / len : 0.0);
      }
    }
    for (int k = 0; k < 3; k++)
      if (!isfinite(pos[k])) return failf(r, "POSITION %u of node %d's mesh is not finite", src, in->node);
    if (all_uv)
      for (int k = 0; k < 2; k++) m->uvs[2 * (size_t)(vbase + v) + k] = read_float(&p->uv, src, k);
    if (m->bones) {
      for (int k = 0; k < 4; k++) {
        uint32_t j = read_uint(&p->joints, src, k);
        float wt = read_float(&p->weights, src, k);
        if (!(wt >= 0.0f && wt <= 1.0001f)) return failf(r, "vertex %u has a bad weight", src);
        if (wt > 0.0f && j >= m->bone_count) return failf(r, "vertex %u uses joint %u of %u", src, j, m->bone_count);
        m->joints[4 * (size_t)(vbase + v) + k] = (uint16_t)(wt > 0.0f ? j : 0);
        m->weights[4 * (size_t)(vbase + v) + k] = wt;
      }
    }
  }
  if (m->indices) {
    uint32_t count = p->has_idx ? (uint32_t)p->idx.count : n;
    for (uint32_t k = 0; k < count; k++) {
      uint32_t ix = p->has_idx ? read_uint(&p->idx, k, 0) : k;
      if (ix >= n) return failf(r, "index %u is %u, past the primitive's %u vertices", k, ix, n);
      uint32_t slot = flip && k % 3 ? (k % 3 == 1 ? k + 1 : k - 1) : k;
      m->indices[ibase + slot] = vbase + ix;
    }
  }
  return true;
}

/* "The mesh" of a file, as the rigger sees it:
 *   - a node of the scene with a skin: that node's mesh alone, as stored (a skinned mesh is
 *     placed by its joints, never by its node), with its skin as bones;
 *   - else every mesh instance of the scene merged into one, each in world space, a mesh
 *     instanced by n nodes giving n copies;
 *   - a file with no node instancing any mesh: mesh 0 as stored. */
static tress_mesh *read_document(reader *r) {
  mesh_instance *inst = NULL, fallback = {0, -1, -1, true, {0}};
  int count = 0;
  if (!collect_instances(r, &inst, &count)) return NULL;
  for (int i = 0; i < count; i++)
    if (inst[i].skin >= 0) {
      inst[0] = inst[i];
      inst[0].identity = true;
      count = 1;
      break;
    }
  if (count == 0) {
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(r->root, "nodes")) {
      if (cJSON_GetObjectItemCaseSensitive(n, "mesh")) {
        free(inst);
        failf(r, "no node of the scene instances a mesh");
        return NULL;
      }
    }
    free(inst);
    inst = &fallback;
    count = 1;
  }
  tress_mesh *m = NULL;
  const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(r->root, "meshes");
  int mesh_count = cJSON_IsArray(meshes) ? cJSON_GetArraySize(meshes) : 0;
  int *slot_of = malloc(sizeof(int) * (size_t)(mesh_count ? mesh_count : 1));
  mesh_slot *slots = calloc((size_t)count, sizeof *slots);
  const cJSON **prims_of = calloc((size_t)count, sizeof *prims_of);
  prim_info *info = NULL;
  uint32_t slot_count = 0, prim_total = 0;
  if (!slot_of || !slots || !prims_of) { failf(r, "out of memory"); goto done; }
  for (int i = 0; i < mesh_count; i++) slot_of[i] = -1;
  /* Each distinct mesh once: count its primitives, then read them all. */
  for (int i = 0; i < count; i++) {
    const cJSON *mesh = array_item(r, "meshes", inst[i].mesh, inst[i].node >= 0 ? "a node" : "the document");
    if (!mesh) goto done;
    if (slot_of[inst[i].mesh] >= 0) continue;
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
    int pn = cJSON_IsArray(prims) ? cJSON_GetArraySize(prims) : 0;
    if (pn < 1 || pn > MAX_PRIMITIVES) { failf(r, "mesh %llu has %d primitives (1..%d allowed)", (unsigned long long)inst[i].mesh, pn, MAX_PRIMITIVES); goto done; }
    slot_of[inst[i].mesh] = (int)slot_count;
    prims_of[slot_count] = prims;
    slots[slot_count++] = (mesh_slot){prim_total, (uint32_t)pn, 0, 0};
    prim_total += (uint32_t)pn;
  }
  info = calloc(prim_total, sizeof *info);
  if (!info) { failf(r, "out of memory"); goto done; }
  bool all_nrm = true, all_uv = true, all_skin = true, any_idx = false;
  for (uint32_t s = 0; s < slot_count; s++) {
    int k = 0;
    const cJSON *prim;
    cJSON_ArrayForEach(prim, prims_of[s]) {
      prim_info *p = &info[slots[s].first_prim + (uint32_t)k++];
      if (!read_primitive(r, prim, p)) goto done;
      slots[s].vertices += p->pos.count;
      slots[s].indices += p->has_idx ? p->idx.count : p->pos.count;
      all_nrm &= p->has_nrm;
      all_uv &= p->has_uv;
      all_skin &= p->has_skin;
      any_idx |= p->has_idx;
    }
  }
  uint64_t vertices = 0, indices = 0, prim_instances = 0;
  for (int i = 0; i < count; i++) {
    const mesh_slot *ms = &slots[slot_of[inst[i].mesh]];
    vertices += ms->vertices;
    indices += ms->indices;
    prim_instances += ms->prim_count;
    if (vertices > TRESS_GLTF_MAX_VERTICES || indices > TRESS_GLTF_MAX_INDICES) {
      failf(r, "the scene's meshes are too large (more than %u vertices or %u indices)", TRESS_GLTF_MAX_VERTICES, TRESS_GLTF_MAX_INDICES);
      goto done;
    }
  }
  tress_mesh_def mesh_def = {.vertex_count = (uint32_t)vertices,
                             .index_count = any_idx || prim_instances > 1 ? (uint32_t)indices : 0,
                             .has_normals = all_nrm, .has_uvs = all_uv};
  m = tress_mesh_create(&mesh_def);
  if (!m) { failf(r, "out of memory"); goto done; }
  if (inst[0].skin >= 0 && all_skin && !read_skin(r, (uint64_t)inst[0].skin, m)) goto fail;
  uint32_t vbase = 0, ibase = 0;
  for (int i = 0; i < count; i++) {
    const mesh_slot *ms = &slots[slot_of[inst[i].mesh]];
    for (uint32_t k = 0; k < ms->prim_count; k++) {
      const prim_info *p = &info[ms->first_prim + k];
      if (!emit_primitive(r, p, &inst[i], m, vbase, ibase, all_nrm, all_uv)) goto fail;
      vbase += (uint32_t)p->pos.count;
      ibase += (uint32_t)(p->has_idx ? p->idx.count : p->pos.count);
    }
  }
  goto done;
fail:
  tress_mesh_release(m);
  m = NULL;
done:
  free(info);
  free(prims_of);
  free(slots);
  free(slot_of);
  if (inst != &fallback) free(inst);
  return m;
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

tress_mesh *tress_gltf_read_memory(const uint8_t *data, size_t size, const char *base_dir, tress_error *err) {
  reader r;
  memset(&r, 0, sizeof r);
  r.err = err;
  r.base_dir = base_dir;
  if (sodium_init() < 0) { failf(&r, "libsodium failed to start"); return NULL; }
  if (!data || size == 0) { failf(&r, "empty input"); return NULL; }
  if (size > TRESS_GLTF_MAX_FILE_BYTES) { failf(&r, "input is too large"); return NULL; }
  tress_mesh *m = parse(&r, data, size);
  cJSON_Delete(r.root);
  for (int i = 0; i < MAX_BUFFERS; i++) free(r.owned[i]);
  while (r.scratch) {
    scratch_block *next = r.scratch->next;
    free(r.scratch);
    r.scratch = next;
  }
  return m;
}

tress_mesh *tress_gltf_load(const char *path, tress_error *err) {
  size_t size;
  uint8_t *data = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, err);
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
