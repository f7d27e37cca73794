/* gltf_accessor.c - bufferViews and accessors of a glTF document (gltf_document.h):
 *   - a bufferView must lie inside its buffer, its stride be 4..252 and not under the element;
 *   - an accessor must lie inside its view (offset + stride * (count - 1) + element <= length),
 *     with a component type and element type the caller allows;
 *   - a sparse accessor's indices must strictly increase and stay below its count, its index and
 *     value arrays lie inside their views, and its dense copy stay under
 *     TRESS__GLTF_MAX_MATERIALISED_BYTES. */
#include "gltf_document.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int component_size(int ct) {
  switch (ct) {
  case TRESS__GLTF_BYTE: case TRESS__GLTF_UBYTE: return 1;
  case TRESS__GLTF_SHORT: case TRESS__GLTF_USHORT: return 2;
  case TRESS__GLTF_UINT: case TRESS__GLTF_FLOAT: return 4;
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
bool tress__gltf_view_get(tress__gltf_doc *doc, uint64_t view_index, const char *what, tress__gltf_span *bytes, uint64_t *stride) {
  const cJSON *view = tress__gltf_array_item(doc, "bufferViews", view_index, what);
  if (!view) return false;
  char vwhat[40];
  snprintf(vwhat, sizeof vwhat, "bufferViews[%llu]", (unsigned long long)view_index);
  uint64_t buf_index = 0, view_offset = 0, view_length = 0;
  if (!tress__gltf_get_uint(doc, view, "buffer", -1, TRESS__GLTF_MAX_BUFFERS, &buf_index, vwhat) || !tress__gltf_get_uint(doc, view, "byteOffset", 0, UINT32_MAX, &view_offset, vwhat) ||
      !tress__gltf_get_uint(doc, view, "byteLength", -1, UINT32_MAX, &view_length, vwhat) || !tress__gltf_get_uint(doc, view, "byteStride", 0, 252, stride, vwhat))
    return false;
  if (buf_index >= (uint64_t)doc->buffer_count) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s refers to a missing buffer", vwhat);
  tress__gltf_span buf = doc->buffers[buf_index];
  if (view_offset + view_length > buf.size)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s (offset %llu, length %llu) runs past its buffer of %llu bytes", vwhat, (unsigned long long)view_offset,
                 (unsigned long long)view_length, (unsigned long long)buf.size);
  *bytes = (tress__gltf_span){buf.data + view_offset, view_length};
  return true;
}

/* Memory the reader owns until it finishes (materialised sparse accessors). */
static uint8_t *scratch_alloc(tress__gltf_doc *doc, uint64_t size, bool zeroed) {
  tress__gltf_scratch *b = zeroed ? calloc(1, sizeof *b + size) : malloc(sizeof *b + size);
  if (!b) return NULL;
  b->next = doc->scratch;
  doc->scratch = b;
  return b->data;
}

/* A sparse accessor becomes a dense copy: the base elements (or zeros without a bufferView) with
 * the sparse values written over them. Indices must strictly increase and stay below count, and
 * both the indices and the values must lie inside their bufferViews (tightly packed, as the spec
 * says). The copy is at most TRESS__GLTF_MAX_MATERIALISED_BYTES, since a sparse accessor with no bufferView
 * has a count no byte of the file backs. */
static bool sparse_materialise(tress__gltf_doc *doc, const cJSON *sparse, const char *what, tress__gltf_accessor *a) {
  uint64_t element = (uint64_t)component_size(a->component_type) * (uint64_t)a->components;
  if (!cJSON_IsObject(sparse)) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse is not an object", what);
  uint64_t scount = 0;
  if (!tress__gltf_get_uint(doc, sparse, "count", -1, UINT32_MAX, &scount, "sparse")) return false;
  if (scount < 1 || scount > a->count)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has %llu sparse values for %llu elements", what, (unsigned long long)scount, (unsigned long long)a->count);
  if (a->count * element > TRESS__GLTF_MAX_MATERIALISED_BYTES)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s is sparse over %llu elements, more than the reader expands (%u bytes)", what, (unsigned long long)a->count,
                 TRESS__GLTF_MAX_MATERIALISED_BYTES);
  const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices"), *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
  if (!cJSON_IsObject(ind) || !cJSON_IsObject(val)) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse needs indices and values objects", what);
  uint64_t ict = 0, iview = 0, ioff = 0, vview = 0, voff = 0, unused_stride;
  if (!tress__gltf_get_uint(doc, ind, "componentType", -1, 6000, &ict, "sparse indices") || !tress__gltf_get_uint(doc, ind, "bufferView", -1, UINT32_MAX, &iview, "sparse indices") ||
      !tress__gltf_get_uint(doc, ind, "byteOffset", 0, UINT32_MAX, &ioff, "sparse indices") || !tress__gltf_get_uint(doc, val, "bufferView", -1, UINT32_MAX, &vview, "sparse values") ||
      !tress__gltf_get_uint(doc, val, "byteOffset", 0, UINT32_MAX, &voff, "sparse values"))
    return false;
  if (ict != TRESS__GLTF_UBYTE && ict != TRESS__GLTF_USHORT && ict != TRESS__GLTF_UINT)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse indices have component type %llu (5121, 5123 or 5125 allowed)", what, (unsigned long long)ict);
  tress__gltf_span ibytes, vbytes;
  if (!tress__gltf_view_get(doc, iview, what, &ibytes, &unused_stride) || !tress__gltf_view_get(doc, vview, what, &vbytes, &unused_stride)) return false;
  uint64_t isize = (uint64_t)component_size((int)ict);
  if (ioff + scount * isize > ibytes.size)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse indices (%llu x %llu bytes from offset %llu) run past bufferViews[%llu] of %llu bytes", what,
                 (unsigned long long)scount, (unsigned long long)isize, (unsigned long long)ioff, (unsigned long long)iview,
                 (unsigned long long)ibytes.size);
  if (voff + scount * element > vbytes.size)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse values (%llu x %llu bytes from offset %llu) run past bufferViews[%llu] of %llu bytes", what,
                 (unsigned long long)scount, (unsigned long long)element, (unsigned long long)voff, (unsigned long long)vview,
                 (unsigned long long)vbytes.size);
  uint8_t *dense = scratch_alloc(doc, a->count * element, a->base == NULL);
  if (!dense) return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  if (a->base)
    for (uint64_t k = 0; k < a->count; k++) memcpy(dense + k * element, a->base + k * a->stride, element);
  tress__gltf_accessor indices = {ibytes.data + ioff, scount, (uint32_t)isize, (int)ict, 1, false};
  const uint8_t *values = vbytes.data + voff;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < scount; i++) {
    uint64_t at = tress__gltf_read_uint(&indices, i, 0);
    if (at >= a->count)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse index %llu is %llu, past its %llu elements", what, (unsigned long long)i, (unsigned long long)at,
                   (unsigned long long)a->count);
    if (i > 0 && at == prev)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse index %llu repeats element %llu (indices must strictly increase)", what, (unsigned long long)i,
                   (unsigned long long)at);
    if (i > 0 && at < prev)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s sparse index %llu is %llu, below the %llu before it (indices must strictly increase)", what,
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
bool tress__gltf_accessor_get(tress__gltf_doc *doc, uint64_t index, int components, unsigned allowed, tress__gltf_accessor *out, const char *role) {
  char what[64];
  snprintf(what, sizeof what, "accessor %llu (%s)", (unsigned long long)index, role);
  const cJSON *acc = tress__gltf_array_item(doc, "accessors", index, what);
  if (!acc) return false;
  uint64_t ct = 0, count = 0, acc_offset = 0, view_index = 0;
  if (!tress__gltf_get_uint(doc, acc, "componentType", -1, 6000, &ct, what) || !tress__gltf_get_uint(doc, acc, "count", -1, UINT32_MAX, &count, what) ||
      !tress__gltf_get_uint(doc, acc, "byteOffset", 0, UINT32_MAX, &acc_offset, what))
    return false;
  if (count == 0) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has count 0", what);
  int csize = component_size((int)ct);
  if (!csize || ct == 5124 || !(allowed & (1u << (ct - TRESS__GLTF_BYTE)))) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has component type %llu, not allowed here", what, (unsigned long long)ct);
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
  if (!cJSON_IsString(type) || type_components(type->valuestring) != components)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has the wrong type for %s", what, role);
  const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(acc, "sparse");
  uint64_t element = (uint64_t)csize * (uint64_t)components;
  out->base = NULL;
  out->count = count;
  out->stride = (uint32_t)element;
  out->component_type = (int)ct;
  out->components = components;
  out->normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(acc, "normalized"));
  if (!cJSON_GetObjectItemCaseSensitive(acc, "bufferView")) {
    if (!sparse) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has no bufferView", what);
    return sparse_materialise(doc, sparse, what, out);
  }
  if (!tress__gltf_get_uint(doc, acc, "bufferView", -1, UINT32_MAX, &view_index, what)) return false;
  tress__gltf_span view;
  uint64_t stride = 0;
  if (!tress__gltf_view_get(doc, view_index, what, &view, &stride)) return false;
  if (stride == 0) stride = element;
  else if (stride < 4 || stride < element || stride % (uint64_t)csize)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "bufferViews[%llu] has a bad byteStride", (unsigned long long)view_index);
  if (acc_offset + stride * (count - 1) + element > view.size)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s (offset %llu, %llu elements of stride %llu) runs past its bufferView of %llu bytes", what,
                 (unsigned long long)acc_offset, (unsigned long long)count, (unsigned long long)stride, (unsigned long long)view.size);
  out->base = view.data + acc_offset;
  out->stride = (uint32_t)stride;
  return sparse ? sparse_materialise(doc, sparse, what, out) : true;
}

/* Component c of element k as a float (normalized integers scaled to 0..1 or -1..1). */
float tress__gltf_read_float(const tress__gltf_accessor *a, uint64_t k, int c) {
  const uint8_t *p = a->base + k * a->stride;
  switch (a->component_type) {
  case TRESS__GLTF_FLOAT: { float f; memcpy(&f, p + 4 * c, 4); return f; }
  case TRESS__GLTF_UBYTE: { float v = p[c]; return a->normalized ? v / 255.0f : v; }
  case TRESS__GLTF_BYTE: { float v = (int8_t)p[c]; return a->normalized ? fmaxf(v / 127.0f, -1.0f) : v; }
  case TRESS__GLTF_USHORT: { uint16_t u; memcpy(&u, p + 2 * c, 2); return a->normalized ? u / 65535.0f : u; }
  case TRESS__GLTF_SHORT: { int16_t s; memcpy(&s, p + 2 * c, 2); return a->normalized ? fmaxf(s / 32767.0f, -1.0f) : s; }
  case TRESS__GLTF_UINT: { uint32_t u; memcpy(&u, p + 4 * c, 4); return (float)u; }
  }
  return 0.0f;
}

uint32_t tress__gltf_read_uint(const tress__gltf_accessor *a, uint64_t k, int c) {
  const uint8_t *p = a->base + k * a->stride;
  switch (a->component_type) {
  case TRESS__GLTF_UBYTE: return p[c];
  case TRESS__GLTF_USHORT: { uint16_t u; memcpy(&u, p + 2 * c, 2); return u; }
  case TRESS__GLTF_UINT: { uint32_t u; memcpy(&u, p + 4 * c, 4); return u; }
  }
  return 0;
}

