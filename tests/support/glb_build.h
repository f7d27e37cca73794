/* glb_build.h - glTF node trees built as cJSON and written as a GLB, for the spring import tests:
 * a node (name, translation), a child link, and the file (a JSON chunk padded with spaces and a
 * 4-byte BIN chunk). Header-only; the test links cJSON. */
#ifndef TRESS_TEST_GLB_BUILD_H
#define TRESS_TEST_GLB_BUILD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

/* Appends a node to doc's "nodes" (which must exist); translation NULL: none. Its index. */
static inline int th_gltf_add_node(cJSON *doc, const char *name, const float *translation) {
  cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");
  cJSON *n = cJSON_CreateObject();
  cJSON_AddStringToObject(n, "name", name);
  if (translation) {
    const double t[3] = {translation[0], translation[1], translation[2]};
    cJSON_AddItemToObject(n, "translation", cJSON_CreateDoubleArray(t, 3));
  }
  cJSON_AddItemToArray(nodes, n);
  return cJSON_GetArraySize(nodes) - 1;
}

static inline void th_gltf_add_child(cJSON *doc, int parent, int child) {
  cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), parent);
  cJSON *children = cJSON_GetObjectItem(n, "children");
  if (!children) children = cJSON_AddArrayToObject(n, "children");
  cJSON_AddItemToArray(children, cJSON_CreateNumber(child));
}

/* GLB: 12-byte header, JSON chunk padded with spaces, a 4-byte BIN chunk. */
static inline void th_write_glb(const char *path, const cJSON *doc) {
  char *json = cJSON_PrintUnformatted(doc);
  assert_non_null(json);
  uint32_t jlen = (uint32_t)strlen(json), jpad = (jlen + 3u) & ~3u, blen = 4;
  uint32_t header[3] = {0x46546C67u, 2u, 12 + 8 + jpad + 8 + blen};
  uint32_t jhead[2] = {jpad, 0x4E4F534Au}, bhead[2] = {blen, 0x004E4942u};
  uint8_t bin[4] = {0, 0, 0, 0};
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(header, 4, 3, f);
  fwrite(jhead, 4, 2, f);
  fwrite(json, 1, jlen, f);
  for (uint32_t i = jlen; i < jpad; i++) fputc(' ', f);
  fwrite(bhead, 4, 2, f);
  fwrite(bin, 1, blen, f);
  fclose(f);
  cJSON_free(json);
}

#endif
