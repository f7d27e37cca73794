/* gltf_buffers.c - a glTF document's buffers: the GLB BIN chunk, base64 data: URIs and external
 * files under the document's base directory (gltf_document.h). A buffer's declared byteLength
 * must not exceed the bytes it actually resolved to. */
#include "gltf_document.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/gltf.h"

#define GLB_CHUNK_BIN 0x004E4942u

/* The chunk after the JSON one, which must be BIN when there is one. */
static bool glb_bin(tress__gltf_doc *doc, tress__gltf_span *bin, bool *have_bin) {
  *have_bin = false;
  if (!doc->is_glb) return true;
  uint64_t at = doc->glb_after_json, length = doc->glb_length;
  if (at + 8 > length) return true;
  if (tress__gltf_u32_le(doc->glb + at + 4) != GLB_CHUNK_BIN) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB second chunk is not BIN");
  uint32_t bin_len = tress__gltf_u32_le(doc->glb + at);
  if (at + 8 + bin_len > length)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB binary chunk (%u bytes) runs past the file", bin_len);
  *bin = (tress__gltf_span){doc->glb + at + 8, bin_len};
  *have_bin = true;
  return true;
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

static bool data_uri(tress__gltf_doc *doc, int i, const char *uri, const char *what, tress__gltf_span *got) {
  const char *comma = strchr(uri, ',');
  if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7) != 0)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s data URI is not base64", what);
  size_t enc = strlen(comma + 1), cap = enc / 4 * 3 + 3;
  uint8_t *bin = malloc(cap ? cap : 1);
  size_t bin_len = 0;
  if (!bin) return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  doc->owned[i] = bin;
  if (sodium_base642bin(bin, cap, comma + 1, enc, " \r\n", &bin_len, NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s data URI has bad base64", what);
  *got = (tress__gltf_span){bin, bin_len};
  return true;
}

static bool external_file(tress__gltf_doc *doc, int i, const char *uri, const char *what, tress__gltf_span *got) {
  if (!safe_relative_uri(uri))
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' leaves the asset directory", what, uri);
  const char *base = doc->base_dir;
  char path[4096];
  int len = snprintf(path, sizeof path, "%s%s%s", base ? base : "", base && base[0] ? "/" : "", uri);
  if (len < 0 || (size_t)len >= sizeof path) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s path is too long", what);
  size_t size;
  tress_error ferr = {0};
  uint8_t *bin = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, &ferr);
  if (!bin) return tress__gltf_fail(doc, ferr.code, "%s: %s", what, ferr.message);
  doc->owned[i] = bin;
  *got = (tress__gltf_span){bin, size};
  return true;
}

bool tress__gltf_doc_load_buffers(tress__gltf_doc *doc) {
  tress__gltf_span bin = {NULL, 0};
  bool have_bin = false;
  if (!glb_bin(doc, &bin, &have_bin)) return false;
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc->root, "buffers");
  if (!arr) return true;
  if (!cJSON_IsArray(arr)) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "buffers is not an array");
  int n = cJSON_GetArraySize(arr);
  if (n > TRESS__GLTF_MAX_BUFFERS)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "too many buffers (%d, at most %d)", n, TRESS__GLTF_MAX_BUFFERS);
  if (sodium_init() < 0) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "libsodium failed to start");
  int i = 0;
  const cJSON *b;
  cJSON_ArrayForEach(b, arr) {
    char what[32];
    snprintf(what, sizeof what, "buffers[%d]", i);
    if (!cJSON_IsObject(b)) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s is not an object", what);
    uint64_t declared = 0;
    if (!tress__gltf_get_uint(doc, b, "byteLength", -1, TRESS_GLTF_MAX_FILE_BYTES, &declared, what)) return false;
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
    tress__gltf_span got = {NULL, 0};
    if (!uri) {
      if (i != 0 || !have_bin)
        return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has no uri and there is no GLB binary chunk for it", what);
      got = bin;
    } else if (!cJSON_IsString(uri)) {
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri is not a string", what);
    } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
      if (!data_uri(doc, i, uri->valuestring, what, &got)) return false;
    } else if (!external_file(doc, i, uri->valuestring, what, &got)) {
      return false;
    }
    if (declared > got.size)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s says %llu bytes but holds %llu", what,
                              (unsigned long long)declared, (unsigned long long)got.size);
    doc->buffers[i] = (tress__gltf_span){got.data, declared};
    doc->buffer_count = ++i;
  }
  return true;
}
