/* Asset store
 * -----------
 * Asset ids arrive from the network, so they are hostile until proven otherwise. Two walls:
 *  1. Syntax (tress_asset_id_is_valid, on the loop thread, before any file system call): a small
 *     alphabet, relative, no "." / ".." / empty components, no backslashes or control bytes.
 *  2. Resolution (tress_asset_store_load, on a worker): realpath() of root/id must still start
 *     with root + "/", so a symlink inside the store that points outside it is refused too.
 * The optional manifest narrows the store to the listed ids, and a listed mesh_hash is a claim
 * every load must match (a changed file is refused, not rigged). The cache is keyed only on
 * hashes a load actually produced, so a stale manifest can never serve another mesh's rig.
 * Edits while the server runs: each rig request stats the file once (loop thread, ~1 us on a
 * warm dentry; no watcher thread, no inotify) and compares it with the stat taken just before the
 * read that produced the known hash. Any difference (rename over, in-place write, truncation,
 * chmod) sends the request to a worker that re-reads and re-hashes, so new content gets its own
 * cache key while the old rig stays valid for whoever holds it. Stat-before-read errs on the
 * safe side: a write racing the read leaves an older stat behind, so the next request re-reads. */
#include "asset_store.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_util.h"
#include "tress/file_read.h"
#include "tress/gltf.h"
#include "tress/obj.h"

static int hex_decode(const char *hex, uint8_t *out, size_t n) {
  if (!hex || strlen(hex) != 2 * n) return -1;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
    out[i] = (uint8_t)v;
  }
  return 0;
}

static tress_asset_hash *find_hash(const tress_asset_store *store, const char *id) {
  for (uint32_t i = 0; i < store->hash_count; i++)
    if (strcmp(store->hashes[i].id, id) == 0) return &store->hashes[i];
  return NULL;
}

static tress_asset_hash *add_hash(tress_asset_store *store, const char *id) {
  tress_asset_hash *h = find_hash(store, id);
  if (h) return h;
  if (store->hash_count == store->hash_cap) {
    uint32_t cap = store->hash_cap ? store->hash_cap * 2 : 16;
    tress_asset_hash *n = realloc(store->hashes, cap * sizeof *n);
    if (!n) return NULL;
    store->hashes = n;
    store->hash_cap = cap;
  }
  h = &store->hashes[store->hash_count++];
  memset(h, 0, sizeof *h);
  snprintf(h->id, sizeof h->id, "%s", id);
  return h;
}

int tress_asset_store_open(tress_asset_store *store, const char *dir, char err[256]) {
  memset(store, 0, sizeof *store);
  if (!realpath(dir, store->root)) {
    snprintf(err, 256, "asset store %s: %s", dir, strerror(errno));
    return -1;
  }
  struct stat st;
  if (stat(store->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(err, 256, "asset store %s: not a directory", dir);
    return -1;
  }
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/manifest.json", store->root);
  size_t len = 0;
  char *text = (char *)tress_file_read(path, 16u << 20, &len, NULL);
  if (!text) return errno == ENOENT ? 0 : (snprintf(err, 256, "%.200s: %s", path, strerror(errno)), -1);
  int rc = tress_asset_store_parse_manifest(store, text, len, path, err);
  free(text);
  return rc;
}

int tress_asset_store_parse_manifest(tress_asset_store *store, const char *text, size_t len, const char *path,
                                     char err[256]) {
  cJSON *root = cJSON_ParseWithLength(text, len);
  cJSON *assets = cJSON_GetObjectItemCaseSensitive(root, "assets");
  if (!cJSON_IsObject(assets)) {
    snprintf(err, 256, "%.200s: expected {\"assets\": {id: {\"mesh_hash\": hex}}}", path);
    cJSON_Delete(root);
    return -1;
  }
  store->has_manifest = true;
  for (cJSON *a = assets->child; a; a = a->next) {
    if (!tress_asset_id_is_valid(a->string)) {
      snprintf(err, 256, "%.120s: asset id \"%.64s\" is not a valid store id", path, a->string);
      cJSON_Delete(root);
      tress_asset_store_close(store);
      return -1;
    }
    tress_asset_hash *h = add_hash(store, a->string);
    if (!h) break;
    h->listed = true;
    const char *hex = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "mesh_hash"));
    if (hex && hex_decode(hex, h->hash, TRESS_MESH_HASH_BYTES) != 0) {
      snprintf(err, 256, "%.120s: %.64s: mesh_hash must be 64 hex digits", path, a->string);
      cJSON_Delete(root);
      tress_asset_store_close(store);
      return -1;
    }
    h->claimed = hex != NULL;
  }
  cJSON_Delete(root);
  return 0;
}

void tress_asset_store_close(tress_asset_store *store) {
  free(store->hashes);
  store->hashes = NULL;
  store->hash_count = store->hash_cap = 0;
}

tress_wire_code tress_asset_store_has(const tress_asset_store *store, const char *id) {
  if (!tress_asset_id_is_valid(id)) return TRESS_CODE_ASSET_PATH_REJECTED;
  if (store->has_manifest) {
    const tress_asset_hash *h = find_hash(store, id);
    if (!h || !h->listed) return TRESS_CODE_UNKNOWN_ASSET;
  }
  return TRESS_CODE_NONE;
}

static void file_id_from_stat(const struct stat *st, tress_asset_file_id *out) {
  memset(out, 0, sizeof *out);
  out->dev = (uint64_t)st->st_dev;
  out->ino = (uint64_t)st->st_ino;
  out->size = (int64_t)st->st_size;
  out->mtime = st->st_mtim;
  out->ctime = st->st_ctim;
  out->mode = (uint32_t)st->st_mode;
}

bool tress_asset_file_id_equal(const tress_asset_file_id *a, const tress_asset_file_id *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mode == b->mode &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
         a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

tress_wire_code tress_asset_store_stat(const tress_asset_store *store, const char *id, tress_asset_file_id *now,
                                       char reason[TRESS_WIRE_TEXT_CAP]) {
  char path[PATH_MAX + TRESS_WIRE_TEXT_CAP + 2];
  snprintf(path, sizeof path, "%s/%s", store->root, id);
  struct stat st;
  if (stat(path, &st) != 0) {
    int e = errno;
    const tress_asset_hash *h = find_hash(store, id);
    if (e == ENOENT || e == ENOTDIR) {
      if (h && h->was_read)
        snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" was deleted from the store", id);
      else
        snprintf(reason, TRESS_WIRE_TEXT_CAP, "the store has no asset \"%.120s\"", id);
      return TRESS_CODE_UNKNOWN_ASSET;
    }
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" cannot be read: %s", id, strerror(e));
    return TRESS_CODE_RIG_FAILED;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" is not a file", id);
    return TRESS_CODE_UNKNOWN_ASSET;
  }
  file_id_from_stat(&st, now);
  return TRESS_CODE_NONE;
}

bool tress_asset_store_known_hash(const tress_asset_store *store, const char *id, const tress_asset_file_id *now,
                                  uint8_t out[TRESS_MESH_HASH_BYTES], bool *changed) {
  const tress_asset_hash *h = find_hash(store, id);
  bool differs = h && h->verified && !tress_asset_file_id_equal(&h->file, now);
  if (changed) *changed = differs;
  if (!h || !h->verified || differs) return false;
  memcpy(out, h->hash, TRESS_MESH_HASH_BYTES);
  return true;
}

bool tress_asset_store_claimed_hash(const tress_asset_store *store, const char *id, uint8_t out[TRESS_MESH_HASH_BYTES]) {
  const tress_asset_hash *h = find_hash(store, id);
  if (!h || !h->claimed) return false;
  memcpy(out, h->hash, TRESS_MESH_HASH_BYTES);
  return true;
}

void tress_asset_store_learn_hash(tress_asset_store *store, const char *id, const uint8_t hash[TRESS_MESH_HASH_BYTES],
                                  const tress_asset_file_id *file) {
  tress_asset_hash *h = add_hash(store, id);
  if (!h) return;
  if (h->claimed && memcmp(h->hash, hash, TRESS_MESH_HASH_BYTES) != 0) return;
  memcpy(h->hash, hash, TRESS_MESH_HASH_BYTES);
  h->file = *file;
  h->verified = true;
  h->was_read = true;
}

/* Drops every "root/" from msg, so a loader's text names store-relative paths only (the
 * server's directory layout is nobody's business, and logs should match what clients see). */
static void scrub_root(char *msg, const char *root) {
  size_t rl = strlen(root);
  if (rl == 0) return;
  for (char *at = strstr(msg, root); at; at = strstr(at, root)) {
    size_t cut = at[rl] == '/' ? rl + 1 : rl;
    memmove(at, at + cut, strlen(at + cut) + 1);
  }
}

/* The hardened reader for glTF: external buffers confined to the store, every byte (the file
 * and its buffers) counted against the asset limit before it is read, the vertex limit checked
 * before a sparse accessor expands or the rigger sees the mesh. */
static tress_mesh *load_mesh(const char *root, const char *resolved, const tress_asset_load_limits *limits,
                             tress_error *err) {
  const char *dot = strrchr(resolved, '.');
  if (dot && strcasecmp(dot, ".obj") == 0) return tress_obj_load(resolved, err); /* size checked above; no buffers */
  tress_gltf_read_opts opts = tress_default_gltf_read_opts();
  opts.root_dir = root;
  opts.max_bytes = limits->max_bytes;
  if (limits->max_vertices && limits->max_vertices < opts.max_vertices) opts.max_vertices = limits->max_vertices;
  return tress_gltf_load_opts(resolved, &opts, err);
}

tress_mesh *tress_asset_store_load(const char *root, const char *id, const tress_asset_load_limits *limits,
                                   tress_asset_file_id *file, uint16_t *code, char reason[TRESS_WIRE_TEXT_CAP]) {
  uint64_t max_bytes = limits->max_bytes;
  if (!tress_asset_id_is_valid(id)) {
    *code = TRESS_CODE_ASSET_PATH_REJECTED;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset id is not a store path");
    return NULL;
  }
  char joined[PATH_MAX + TRESS_WIRE_TEXT_CAP + 2], resolved[PATH_MAX];
  snprintf(joined, sizeof joined, "%s/%s", root, id);
  if (!realpath(joined, resolved)) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      *code = TRESS_CODE_UNKNOWN_ASSET;
      snprintf(reason, TRESS_WIRE_TEXT_CAP, "the store has no asset \"%.120s\"", id);
    } else {
      *code = TRESS_CODE_RIG_FAILED;
      snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" cannot be read: %s", id, strerror(e));
    }
    return NULL;
  }
  size_t rl = strlen(root);
  if (strncmp(resolved, root, rl) != 0 || resolved[rl] != '/') {
    *code = TRESS_CODE_ASSET_PATH_REJECTED;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" resolves outside the store", id);
    return NULL;
  }
  struct stat st;
  if (stat(resolved, &st) != 0 || !S_ISREG(st.st_mode)) {
    *code = TRESS_CODE_UNKNOWN_ASSET;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" is not a file", id);
    return NULL;
  }
  file_id_from_stat(&st, file);
  if (st.st_size == 0) {
    *code = TRESS_CODE_RIG_FAILED;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" is empty (truncated?)", id);
    return NULL;
  }
  if ((uint64_t)st.st_size > max_bytes) {
    *code = TRESS_CODE_TOO_LARGE;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" is %lld bytes, limit %llu", id, (long long)st.st_size,
             (unsigned long long)max_bytes);
    return NULL;
  }
  /* the loader's own message for an unreadable file is generic: say plainly it is a permission */
  int fd = open(resolved, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *code = TRESS_CODE_RIG_FAILED;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" is not readable by the server: %s", id, strerror(errno));
    return NULL;
  }
  close(fd);
  tress_error err = {0};
  tress_mesh *mesh = load_mesh(root, resolved, limits, &err);
  if (!mesh) {
    scrub_root(err.message, root);
    *code = TRESS_CODE_RIG_FAILED;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.60s\" does not load: %.150s", id, err.message);
    return NULL;
  }
  if (limits->max_vertices && mesh->vertex_count > limits->max_vertices) { /* an OBJ: the glTF reader checked */
    *code = TRESS_CODE_TOO_LARGE;
    snprintf(reason, TRESS_WIRE_TEXT_CAP, "asset \"%.120s\" has %u vertices, limit %u", id, mesh->vertex_count,
             limits->max_vertices);
    tress_mesh_release(mesh);
    return NULL;
  }
  *code = TRESS_CODE_NONE;
  return mesh;
}
