/* gltf_buffers.c - a glTF document's buffers: the GLB BIN chunk, base64 data: URIs and external
 * files beneath the document's root directory (gltf_document.h); and the same URI rules for any
 * other URI a reader resolves (an image's: tress__gltf_uri_read). A buffer's declared byteLength
 * must not exceed the bytes it actually resolved to; what a buffer costs is counted before it is
 * read or decoded; an external file is read only when it is a regular file that resolves beneath
 * the root, and failures name the URI as written, never a resolved path. */
#include "gltf_document.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A URI must be a relative path with no "..", no scheme and no percent-escapes before it is
 * resolved at all. */
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

/* Counts n bytes against what buffers may still take. */
static bool budget_take(tress__gltf_doc *doc, uint64_t n, const char *what, const char *uri) {
  if (n <= doc->bytes_left) {
    doc->bytes_left -= n;
    return true;
  }
  return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' is %llu bytes, more than the read may still load (%llu)",
                          what, uri, (unsigned long long)n, (unsigned long long)doc->bytes_left);
}

/* A base64 data: URI decoded into *owned (malloc'd; the caller frees it, also on failure). */
static bool data_uri(tress__gltf_doc *doc, const char *uri, const char *what, uint8_t **owned, tress__gltf_span *got) {
  const char *comma = strchr(uri, ',');
  if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7) != 0)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s data URI is not base64", what);
  size_t enc = strlen(comma + 1), cap = enc / 4 * 3 + 3;
  if (!budget_take(doc, cap, what, "data:")) return false;
  uint8_t *bin = malloc(cap ? cap : 1);
  size_t bin_len = 0;
  if (!bin) return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  *owned = bin;
  if (sodium_base642bin(bin, cap, comma + 1, enc, " \r\n", &bin_len, NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s data URI has bad base64", what);
  *got = (tress__gltf_span){bin, bin_len};
  return true;
}

/* Opens `relative` (a resolved path below the directory dir_fd is open on) one component at a
 * time, never following a link, the last one non-blocking (a FIFO opens without a writer and is
 * refused by the caller's fstat, never read). Returns the fd or -1 with errno set. */
static int open_beneath(int dir_fd, const char *relative) {
  char part[PATH_MAX];
  int fd = dup(dir_fd);
  const char *p = relative;
  while (fd >= 0 && *p) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0 || n >= sizeof part) {
      close(fd);
      errno = EINVAL;
      return -1;
    }
    memcpy(part, p, n);
    part[n] = 0;
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (slash ? O_DIRECTORY : O_NONBLOCK);
    int next = openat(fd, part, flags);
    int e = errno;
    close(fd);
    errno = e;
    fd = next;
    p = slash ? slash + 1 : p + n;
  }
  return fd;
}

/* The bytes of an opened regular file of `size` bytes: one byte more is asked for, so a file
 * that grew since fstat is refused rather than cut short. */
static uint8_t *read_whole(int fd, uint64_t size) {
  uint8_t *buf = malloc((size_t)size + 1);
  if (!buf) return NULL;
  uint64_t got = 0;
  while (got <= size) {
    ssize_t n = read(fd, buf + got, (size_t)(size + 1 - got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (uint64_t)n;
  }
  if (got != size) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Resolves base_dir/uri (symlinks followed) and the root it must stay beneath; *relative points
 * into resolved, past the root. */
static bool resolve_beneath(tress__gltf_doc *doc, const char *uri, const char *what, char root[PATH_MAX], char resolved[PATH_MAX],
                            const char **relative) {
  const char *base = doc->base_dir && doc->base_dir[0] ? doc->base_dir : ".";
  const char *confine = doc->root_dir && doc->root_dir[0] ? doc->root_dir : base;
  char joined[PATH_MAX];
  int len = snprintf(joined, sizeof joined, "%s/%s", base, uri);
  if (len < 0 || (size_t)len >= sizeof joined)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' makes too long a path", what, uri);
  if (!realpath(confine, root))
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s': the asset directory cannot be opened: %s", what, uri,
                            strerror(errno));
  if (!realpath(joined, resolved))
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' cannot be opened: %s", what, uri, strerror(errno));
  size_t rl = strlen(root);
  if (rl == 1) rl = 0; /* the root is "/" */
  if (strncmp(resolved, root, rl) != 0 || resolved[rl] != '/')
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' leaves the asset directory (through a link)", what, uri);
  *relative = resolved + rl + 1;
  return true;
}

/* An external file beneath the root read whole into *owned (malloc'd; the caller frees it). */
static bool external_file(tress__gltf_doc *doc, const char *uri, const char *what, uint8_t **owned, tress__gltf_span *got) {
  if (!safe_relative_uri(uri))
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' leaves the asset directory", what, uri);
  char root[PATH_MAX], resolved[PATH_MAX];
  const char *relative = NULL;
  if (!resolve_beneath(doc, uri, what, root, resolved, &relative)) return false;
  int dir_fd = open(root, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
  int fd = dir_fd >= 0 ? open_beneath(dir_fd, relative) : -1;
  int e = errno;
  if (dir_fd >= 0) close(dir_fd);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0) close(fd);
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' cannot be opened: %s", what, uri, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' is not a regular file", what, uri);
  }
  if (!budget_take(doc, (uint64_t)st.st_size, what, uri)) {
    close(fd);
    return false;
  }
  uint8_t *bin = read_whole(fd, (uint64_t)st.st_size);
  close(fd);
  if (!bin) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s uri '%.60s' cannot be read whole", what, uri);
  *owned = bin;
  *got = (tress__gltf_span){bin, (uint64_t)st.st_size};
  return true;
}

static bool uri_bytes(tress__gltf_doc *doc, const char *uri, const char *what, uint8_t **owned, tress__gltf_span *got) {
  if (strncmp(uri, "data:", 5) == 0) return data_uri(doc, uri, what, owned, got);
  return external_file(doc, uri, what, owned, got);
}

bool tress__gltf_uri_read(tress__gltf_doc *doc, const char *uri, const char *what, uint8_t **out, uint64_t *size) {
  uint8_t *owned = NULL;
  tress__gltf_span got = {NULL, 0};
  *out = NULL;
  *size = 0;
  if (!uri_bytes(doc, uri, what, &owned, &got)) {
    free(owned);
    return false;
  }
  *out = owned;
  *size = got.size;
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
    } else if (!uri_bytes(doc, uri->valuestring, what, &doc->owned[i], &got)) {
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
