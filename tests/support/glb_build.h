/* glb_build.h - GLB files built in tests: packing JSON text and a binary chunk into a GLB, glTF
 * node trees built as cJSON (a node, a child link) and written as a file, and the sparse-accessor
 * bomb the loaders must refuse. Header-only; a test that builds trees links cJSON. */
#ifndef TRESS_TEST_GLB_BUILD_H
#define TRESS_TEST_GLB_BUILD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A GLB in memory (the caller frees it): 12-byte header, JSON chunk padded with spaces, BIN
 * chunk padded with zeros (bin may be NULL when bin_len is 0). The test machines are
 * little-endian, as glTF is. */
static inline uint8_t *th_glb_pack(const char *json, const void *bin, size_t bin_len, size_t *size) {
  size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (bin_len + 3) & ~(size_t)3;
  *size = 12 + 8 + jp + 8 + bp;
  uint8_t *g = calloc(1, *size);
  assert_non_null(g);
  uint32_t head[5] = {0x46546C67u, 2, (uint32_t)*size, (uint32_t)jp, 0x4E4F534Au};
  memcpy(g, head, sizeof head);
  memcpy(g + 20, json, jl);
  memset(g + 20 + jl, ' ', jp - jl);
  uint32_t bin_head[2] = {(uint32_t)bp, 0x004E4942u};
  memcpy(g + 20 + jp, bin_head, sizeof bin_head);
  if (bin_len) memcpy(g + 28 + jp, bin, bin_len);
  return g;
}

/* doc as a GLB file with a 4-byte BIN chunk. */
static inline void th_write_glb(const char *path, const cJSON *doc) {
  char *json = cJSON_PrintUnformatted(doc);
  assert_non_null(json);
  const uint8_t bin[4] = {0, 0, 0, 0};
  size_t size;
  uint8_t *glb = th_glb_pack(json, bin, sizeof bin, &size);
  cJSON_free(json);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(glb, 1, size, f), size);
  fclose(f);
  free(glb);
}

/* The sparse-accessor bomb (a few hundred bytes): POSITION is sparse over zeros with 16,777,215
 * elements (16.7 M vertices, 201 MB dense), one of them set to (1, 2, 3). */
static inline uint8_t *th_glb_sparse_bomb(size_t *size) {
  const char *json =
      "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12}],"
      "\"accessors\":[{\"componentType\":5126,\"count\":16777215,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
      "\"indices\":{\"bufferView\":0,\"componentType\":5125},\"values\":{\"bufferView\":1}}}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
  uint8_t bin[16] = {0};
  const float value[3] = {1, 2, 3};
  memcpy(bin + 4, value, sizeof value);
  return th_glb_pack(json, bin, sizeof bin, size);
}

#endif
