/* rig_glb.c - see rig_glb.h. */
#include "rig_glb.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_util.h"
#include "tress/file_read.h"
#include "tress/gltf.h"

#define GLB_SUFFIX ".glb"

static void glb_path(const char *dir, const char *id, size_t id_len, char *out, size_t cap) {
  snprintf(out, cap, "%s/%.*s" GLB_SUFFIX, dir, (int)id_len, id);
}

int tress_rig_glb_write(const char *dir, const uint8_t key[TRESS_RIG_KEY_BYTES], const tress_mesh *mesh) {
  char id[TRESS_RIG_GLB_ID_CHARS + 1];
  for (int i = 0; i < TRESS_RIG_KEY_BYTES; i++) snprintf(id + 2 * i, 3, "%02x", key[i]);
  uint8_t *glb = NULL;
  size_t size = 0;
  tress_error err;
  if (tress_gltf_write_glb_memory(mesh, &glb, &size, &err) != 0) {
    errno = EINVAL;
    return -1;
  }
  char path[PATH_MAX];
  glb_path(dir, id, TRESS_RIG_GLB_ID_CHARS, path, sizeof path);
  int rc = tress_file_write_atomic(path, glb, size, NULL, 0);
  free(glb);
  return rc;
}

int tress_rig_glb_id_is_valid(const char *text, size_t len) {
  if (len != TRESS_RIG_GLB_ID_CHARS) return 0;
  for (size_t i = 0; i < len; i++)
    if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return 0;
  return 1;
}

typedef struct listed_rig {
  char id[TRESS_RIG_GLB_ID_CHARS + 1];
  long long bytes;
} listed_rig;

static int by_id(const void *a, const void *b) { return strcmp(((const listed_rig *)a)->id, ((const listed_rig *)b)->id); }

/* The directory's rig files (a stray tmp or any other name is not one). */
static size_t list_rigs(const char *dir, listed_rig *out) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0;
  struct dirent *e;
  while (n < TRESS_RIG_GLB_LIST_MAX && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len != TRESS_RIG_GLB_ID_CHARS + strlen(GLB_SUFFIX) || strcmp(e->d_name + TRESS_RIG_GLB_ID_CHARS, GLB_SUFFIX) != 0 ||
        !tress_rig_glb_id_is_valid(e->d_name, TRESS_RIG_GLB_ID_CHARS))
      continue;
    char path[PATH_MAX];
    struct stat st;
    glb_path(dir, e->d_name, TRESS_RIG_GLB_ID_CHARS, path, sizeof path);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    memcpy(out[n].id, e->d_name, TRESS_RIG_GLB_ID_CHARS);
    out[n].id[TRESS_RIG_GLB_ID_CHARS] = '\0';
    out[n].bytes = (long long)st.st_size;
    n++;
  }
  closedir(d);
  qsort(out, n, sizeof *out, by_id);
  return n;
}

char *tress_rig_glb_list_json(const char *dir) {
  listed_rig *rigs = malloc(TRESS_RIG_GLB_LIST_MAX * sizeof *rigs);
  if (!rigs) return NULL;
  size_t n = list_rigs(dir, rigs);
  /* each entry: {"id":"<64>","bytes":<20>}, plus separators */
  size_t cap = 16 + n * (TRESS_RIG_GLB_ID_CHARS + 48);
  char *json = malloc(cap);
  if (json) {
    size_t at = (size_t)snprintf(json, cap, "{\"rigs\":[");
    for (size_t i = 0; i < n; i++)
      at += (size_t)snprintf(json + at, cap - at, "%s{\"id\":\"%s\",\"bytes\":%lld}", i ? "," : "", rigs[i].id, rigs[i].bytes);
    snprintf(json + at, cap - at, "]}\n");
  }
  free(rigs);
  return json;
}

uint8_t *tress_rig_glb_read(const char *dir, const char *id, size_t id_len, size_t *len) {
  if (!tress_rig_glb_id_is_valid(id, id_len)) return NULL;
  char path[PATH_MAX];
  glb_path(dir, id, id_len, path, sizeof path);
  tress_error err;
  return tress_file_read(path, TRESS_RIG_GLB_MAX_BYTES, len, &err);
}
