/* test_gltf.c - glTF I/O: skinned .glb round trips to the same bones and weights, passes the
 * Khronos validator, .gltf with external and data: buffers, the committed samples, and files
 * that lie (bad accessors, views, buffers, counts, indices, joints) or are truncated/corrupted at
 * many offsets: each gives a clear error and never a crash (run under ASan too). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sodium.h>

#include "support/gltf_validator.h"
#include "support/rigged_mesh.h"
#include "tress/gltf.h"
#include "tress/mesh_file.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"

static char tmp_dir[1024];

static int setup_tmp(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/gltf-test-XXXXXX", bin ? bin : "/tmp");
  if (!mkdtemp(tmp_dir)) return -1;
  return 0;
}

static int teardown_tmp(void **state) {
  (void)state;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static tress_mesh *rigged(tress_sample_hair_style style, uint32_t sectors, uint32_t segments, uint32_t max_inf) {
  tress_mesh *m = tress_sample_hair_create(style);
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.sectors = sectors;
  opts.plan.segments = segments;
  opts.plan.max_influences = max_inf;
  return th_rig_and_keep(m, &opts);
}

/* A small skinned mesh (two ribbon strands) for the byte-level corruption sweeps. */
static tress_mesh *small_rigged(void) {
  uint32_t rows = 6, n = 2 * 2 * rows;
  tress_mesh_def mesh_def = {.vertex_count = n, .index_count = 2 * 6 * (rows - 1), .has_normals = true};
  tress_mesh *m = tress_mesh_create(&mesh_def);
  uint32_t v = 0, ix = 0;
  for (int s = 0; s < 2; s++) {
    uint32_t first = v;
    for (uint32_t r = 0; r < rows; r++)
      for (int side = 0; side < 2; side++) {
        m->positions[3 * v] = (s ? -2.0f : 2.0f) + (side ? 0.1f : -0.1f);
        m->positions[3 * v + 1] = 10.0f - (float)r;
        m->normals[3 * v + 2] = 1.0f;
        v++;
      }
    for (uint32_t r = 0; r + 1 < rows; r++) {
      uint32_t a = first + 2 * r;
      uint32_t tri[6] = {a, a + 2, a + 1, a + 1, a + 2, a + 3};
      memcpy(m->indices + ix, tri, sizeof tri);
      ix += 6;
    }
  }
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.sectors = 2;
  return th_rig_and_keep(m, &opts);
}

static tress_mesh *roundtrip(const tress_mesh *m) {
  uint8_t *glb;
  size_t size;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory(m, &glb, &size, &err), 0);
  assert_int_equal(size % 4, 0);
  tress_mesh *back = tress_gltf_read_memory(glb, size, NULL, &err);
  if (!back) fail_msg("re-import failed: %s", err.message);
  free(glb);
  return back;
}

static void test_roundtrip_skinned(void **state) {
  (void)state;
  for (uint32_t mi = 1; mi <= 4; mi++) {
    tress_mesh *m = rigged(TRESS_SAMPLE_HAIR_BOB, 3, 3, mi);
    tress_mesh *back = roundtrip(m);
    th_assert_same_mesh(m, back);
    assert_string_equal(back->bones[0].name, "HairRoot");
    assert_int_equal(back->bones[0].parent, -1);
    tress_mesh_release(back);
    tress_mesh_release(m);
  }
  /* 401 bones: joints go out as UNSIGNED_SHORT and still come back the same. */
  tress_mesh *big = rigged(TRESS_SAMPLE_HAIR_LONG, 20, 20, 2);
  assert_int_equal(big->bone_count, 401);
  tress_mesh *back = roundtrip(big);
  th_assert_same_mesh(big, back);
  tress_mesh_release(back);
  tress_mesh_release(big);
  /* Unskinned meshes round trip too. */
  tress_mesh *plain = tress_sample_hair_create(TRESS_SAMPLE_HAIR_PONYTAIL);
  back = roundtrip(plain);
  th_assert_same_mesh(plain, back);
  tress_mesh_release(back);
  tress_mesh_release(plain);
}

/* --- the Khronos validator (npm gltf-validator; support/gltf_validator.h installs it) --- */

static int validate(const char *prefix, const char *path) {
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s'", prefix, path);
  int rc = system(cmd);
  return rc;
}

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
}

static void test_glb_passes_khronos_validator(void **state) {
  (void)state;
  char prefix[1100];
  if (!gltf_validator_ready(prefix, sizeof prefix)) {
    print_message("gltf-validator unavailable (no node/npm or no network): skipped\n");
    skip();
  }
  struct { tress_mesh *mesh; const char *name; } cases[] = {
    {rigged(TRESS_SAMPLE_HAIR_BOB, 3, 3, 2), "bob_rigged.glb"},
    {rigged(TRESS_SAMPLE_HAIR_PONYTAIL, 4, 5, 4), "ponytail_rigged.glb"},
    {rigged(TRESS_SAMPLE_HAIR_LONG, 20, 20, 1), "long_401_bones.glb"},
    {small_rigged(), "small_rigged.glb"},
    {tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB), "bob_plain.glb"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[1200];
    tress_error err = {0};
    snprintf(path, sizeof path, "%s/%s", tmp_dir, cases[i].name);
    assert_int_equal(tress_gltf_write_glb(cases[i].mesh, path, &err), 0);
    print_message("validating %s\n", cases[i].name);
    assert_int_equal(validate(prefix, path), 0);
    /* And the file on disk re-imports to the same bones and weights. */
    tress_mesh *back = tress_gltf_load(path, &err);
    assert_non_null(back);
    th_assert_same_mesh(cases[i].mesh, back);
    tress_mesh_release(back);
    tress_mesh_release(cases[i].mesh);
  }
  /* The committed samples too. */
  const char *assets[] = {"assets/meshes/hair_bob.glb", "assets/meshes/hair_ponytail.glb", "assets/meshes/hair_long.glb",
                          "assets/meshes/cape_skinned.glb"};
  for (int i = 0; i < 4; i++) assert_int_equal(validate(prefix, assets[i]), 0);
}

/* --- GLB surgery helpers: split into JSON + BIN, edit, pack again --- */

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }

typedef struct glb_parts {
  cJSON *json;
  uint8_t *bin;
  uint32_t bin_len;
} glb_parts;

static glb_parts glb_split(const uint8_t *glb) {
  glb_parts p;
  uint32_t json_len = rd32(glb + 12);
  p.json = cJSON_ParseWithLength((const char *)glb + 20, json_len);
  assert_non_null(p.json);
  p.bin_len = rd32(glb + 20 + json_len);
  p.bin = malloc(p.bin_len);
  memcpy(p.bin, glb + 28 + json_len, p.bin_len);
  return p;
}

static uint8_t *glb_pack(const glb_parts *p, size_t *size) {
  char *json = cJSON_PrintUnformatted(p->json);
  size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = ((size_t)p->bin_len + 3) & ~(size_t)3;
  *size = 28 + jp + bp;
  uint8_t *g = calloc(1, *size);
  wr32(g, 0x46546C67u);
  wr32(g + 4, 2);
  wr32(g + 8, (uint32_t)*size);
  wr32(g + 12, (uint32_t)jp);
  wr32(g + 16, 0x4E4F534Au);
  memcpy(g + 20, json, jl);
  memset(g + 20 + jl, ' ', jp - jl);
  wr32(g + 20 + jp, (uint32_t)bp);
  wr32(g + 24 + jp, 0x004E4942u);
  memcpy(g + 28 + jp, p->bin, p->bin_len);
  free(json);
  return g;
}

static cJSON *item(cJSON *root, const char *array, int index) { return cJSON_GetArrayItem(cJSON_GetObjectItem(root, array), index); }

static int attr_accessor(cJSON *root, const char *attr) {
  cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(item(root, "meshes", 0), "primitives"), 0);
  if (strcmp(attr, "indices") == 0) return cJSON_GetObjectItem(prim, "indices")->valueint;
  return cJSON_GetObjectItem(cJSON_GetObjectItem(prim, "attributes"), attr)->valueint;
}

static void set_num(cJSON *obj, const char *key, double v) {
  if (cJSON_GetObjectItem(obj, key)) cJSON_ReplaceItemInObject(obj, key, cJSON_CreateNumber(v));
  else cJSON_AddNumberToObject(obj, key, v);
}

/* Offset in BIN of an accessor's first byte. */
static uint32_t bin_offset(cJSON *root, int accessor) {
  cJSON *acc = item(root, "accessors", accessor);
  cJSON *view = item(root, "bufferViews", cJSON_GetObjectItem(acc, "bufferView")->valueint);
  cJSON *ao = cJSON_GetObjectItem(acc, "byteOffset"), *vo = cJSON_GetObjectItem(view, "byteOffset");
  return (uint32_t)((ao ? ao->valueint : 0) + (vo ? vo->valueint : 0));
}

enum lie {
  LIE_POSITION_COUNT, LIE_POSITION_OFFSET, LIE_VIEW_PAST_BUFFER, LIE_BUFFER_LENGTH, LIE_NORMAL_COUNT, LIE_INDEX_FLOAT,
  LIE_INDEX_RANGE, LIE_JOINT_NODE, LIE_IBM_COUNT, LIE_STRIDE, LIE_POSITION_TYPE, LIE_HUGE_COUNT, LIE_ABSURD_COUNT,
  LIE_NEGATIVE_COUNT, LIE_MESH_INDEX, LIE_JOINT_VALUE, LIE_VIEW_INDEX, LIE_NO_BUFFERS, LIE_INDEX_COUNT_NOT_3,
  LIE_WEIGHTS_ONLY, LIE_SPARSE, LIE_VERSION, LIE_COUNT
};

static void apply_lie(glb_parts *p, int lie) {
  cJSON *root = p->json;
  int pos = attr_accessor(root, "POSITION");
  cJSON *pos_acc = item(root, "accessors", pos);
  switch (lie) {
  case LIE_POSITION_COUNT: set_num(pos_acc, "count", cJSON_GetObjectItem(pos_acc, "count")->valuedouble + 1000); break;
  case LIE_POSITION_OFFSET: set_num(pos_acc, "byteOffset", 12); break; /* one element past the view */
  case LIE_VIEW_PAST_BUFFER: set_num(item(root, "bufferViews", 0), "byteLength", (double)p->bin_len + 4); break;
  case LIE_BUFFER_LENGTH: set_num(item(root, "buffers", 0), "byteLength", (double)p->bin_len + 4); break;
  case LIE_NORMAL_COUNT: {
    cJSON *n = item(root, "accessors", attr_accessor(root, "NORMAL"));
    set_num(n, "count", cJSON_GetObjectItem(n, "count")->valuedouble - 1);
    break;
  }
  case LIE_INDEX_FLOAT: set_num(item(root, "accessors", attr_accessor(root, "indices")), "componentType", 5126); break;
  case LIE_INDEX_RANGE: wr32(p->bin + bin_offset(root, attr_accessor(root, "indices")), 0xFFFFu); break;
  case LIE_JOINT_NODE: cJSON_ReplaceItemInArray(cJSON_GetObjectItem(item(root, "skins", 0), "joints"), 1, cJSON_CreateNumber(9999)); break;
  case LIE_IBM_COUNT: set_num(item(root, "accessors", cJSON_GetObjectItem(item(root, "skins", 0), "inverseBindMatrices")->valueint), "count", 1); break;
  case LIE_STRIDE: set_num(item(root, "bufferViews", 0), "byteStride", 2); break;
  case LIE_POSITION_TYPE: cJSON_ReplaceItemInObject(pos_acc, "type", cJSON_CreateString("VEC2")); break;
  case LIE_HUGE_COUNT: set_num(pos_acc, "count", 4294967295.0); break;
  case LIE_ABSURD_COUNT: set_num(pos_acc, "count", 1e300); break;
  case LIE_NEGATIVE_COUNT: set_num(pos_acc, "count", -3); break;
  case LIE_MESH_INDEX: set_num(item(root, "nodes", 0), "mesh", 99); break;
  case LIE_JOINT_VALUE: p->bin[bin_offset(root, attr_accessor(root, "JOINTS_0"))] = 200; break;
  case LIE_VIEW_INDEX: set_num(pos_acc, "bufferView", 1e6); break;
  case LIE_NO_BUFFERS: cJSON_DeleteItemFromObject(root, "buffers"); break;
  case LIE_INDEX_COUNT_NOT_3: {
    cJSON *ia = item(root, "accessors", attr_accessor(root, "indices"));
    set_num(ia, "count", cJSON_GetObjectItem(ia, "count")->valuedouble - 1);
    break;
  }
  case LIE_WEIGHTS_ONLY: {
    cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(item(root, "meshes", 0), "primitives"), 0);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(prim, "attributes"), "JOINTS_0");
    break;
  }
  case LIE_SPARSE: cJSON_AddItemToObject(pos_acc, "sparse", cJSON_CreateObject()); break;
  case LIE_VERSION: cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "asset"), "version", cJSON_CreateString("1.0")); break;
  }
}

static void test_lying_glb(void **state) {
  (void)state;
  tress_mesh *m = small_rigged();
  uint8_t *glb;
  size_t size;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory(m, &glb, &size, &err), 0);
  for (int lie = 0; lie < LIE_COUNT; lie++) {
    glb_parts p = glb_split(glb);
    apply_lie(&p, lie);
    size_t bad_size;
    uint8_t *bad = glb_pack(&p, &bad_size);
    err.message[0] = 0;
    tress_mesh *back = tress_gltf_read_memory(bad, bad_size, NULL, &err);
    if (back) fail_msg("lie %d was accepted", lie);
    assert_true(strlen(err.message) > 8);
    print_message("lie %2d: %s\n", lie, err.message);
    free(bad);
    cJSON_Delete(p.json);
    free(p.bin);
  }
  /* The untouched split + pack is accepted (the helpers themselves are sound). */
  glb_parts p = glb_split(glb);
  size_t ok_size;
  uint8_t *ok = glb_pack(&p, &ok_size);
  tress_mesh *back = tress_gltf_read_memory(ok, ok_size, NULL, &err);
  assert_non_null(back);
  th_assert_same_mesh(m, back);
  tress_mesh_release(back);
  free(ok);
  cJSON_Delete(p.json);
  free(p.bin);

  /* Header lies. */
  uint8_t *copy = malloc(size);
  struct { uint32_t at, value; const char *expect; } heads[] = {
    {8, (uint32_t)size + 4, "header says"}, {4, 1, "version"}, {12, (uint32_t)size, "JSON chunk"}, {16, 0x12345678u, "not JSON"}};
  for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
    memcpy(copy, glb, size);
    wr32(copy + heads[i].at, heads[i].value);
    assert_null(tress_gltf_read_memory(copy, size, NULL, &err));
    assert_non_null(strstr(err.message, heads[i].expect));
  }
  /* BIN chunk longer than the file. */
  memcpy(copy, glb, size);
  uint32_t json_len = rd32(copy + 12);
  wr32(copy + 20 + json_len, (uint32_t)size);
  assert_null(tress_gltf_read_memory(copy, size, NULL, &err));
  assert_non_null(strstr(err.message, "binary chunk"));
  free(copy);
  free(glb);
  tress_mesh_release(m);
}

/* Every mesh the reader returns must be safe to use, whatever the input was. */
static void assert_mesh_sane(const tress_mesh *m) {
  for (uint32_t i = 0; i < m->index_count; i++) assert_true(m->indices[i] < m->vertex_count);
  for (size_t i = 0; i < 3 * (size_t)m->vertex_count; i++) assert_true(isfinite(m->positions[i]));
  if (tress_mesh_is_skinned(m))
    for (size_t i = 0; i < 4 * (size_t)m->vertex_count; i++)
      if (m->weights[i] > 0.0f) assert_true(m->joints[i] < m->bone_count);
}

static void test_truncated_and_corrupted(void **state) {
  (void)state;
  tress_mesh *m = small_rigged();
  uint8_t *glb;
  size_t size;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_glb_memory(m, &glb, &size, &err), 0);
  /* Every truncation fails cleanly: the header's length no longer matches. Each prefix is copied
   * to its own allocation so ASan sees any read past it. */
  for (size_t len = 0; len < size; len++) {
    uint8_t *cut = malloc(len ? len : 1);
    memcpy(cut, glb, len);
    assert_null(tress_gltf_read_memory(cut, len, NULL, &err));
    assert_true(err.message[0] != 0);
    free(cut);
  }
  /* Corrupt every byte in turn (three ways): never a crash, and anything accepted is sane. */
  uint8_t *copy = malloc(size);
  const uint8_t flips[3] = {0xFF, 0x01, 0x80};
  size_t accepted = 0, rejected = 0;
  for (size_t at = 0; at < size; at++)
    for (int f = 0; f < 3; f++) {
      memcpy(copy, glb, size);
      copy[at] ^= flips[f];
      tress_mesh *back = tress_gltf_read_memory(copy, size, NULL, &err);
      if (back) {
        assert_mesh_sane(back);
        tress_mesh_release(back);
        accepted++;
      } else {
        rejected++;
      }
    }
  print_message("corrupted %zu-byte glb: %zu accepted (harmless bytes), %zu rejected\n", size, accepted, rejected);
  assert_true(rejected > 0);
  free(copy);
  free(glb);
  tress_mesh_release(m);
  /* Not glTF at all. */
  const char *junk = "hello";
  assert_null(tress_gltf_read_memory((const uint8_t *)junk, 5, NULL, &err));
  assert_null(tress_gltf_read_memory(NULL, 0, NULL, &err));
}

static void test_gltf_external_and_data_uri(void **state) {
  (void)state;
  tress_mesh *m = rigged(TRESS_SAMPLE_HAIR_BOB, 3, 3, 2);
  uint8_t *glb;
  size_t size;
  tress_error err = {0};
  char path[1200];
  assert_int_equal(tress_gltf_write_glb_memory(m, &glb, &size, &err), 0);
  glb_parts p = glb_split(glb);

  /* External .bin next to the .gltf. */
  snprintf(path, sizeof path, "%s/hair.bin", tmp_dir);
  write_file(path, p.bin, p.bin_len);
  cJSON_AddStringToObject(item(p.json, "buffers", 0), "uri", "hair.bin");
  char *text = cJSON_Print(p.json);
  snprintf(path, sizeof path, "%s/hair.gltf", tmp_dir);
  write_file(path, text, strlen(text));
  free(text);
  tress_mesh *back = tress_mesh_file_load(path, &err);
  if (!back) fail_msg("external .gltf: %s", err.message);
  th_assert_same_mesh(m, back);
  tress_mesh_release(back);

  /* Escaping the asset directory is refused. */
  const char *escapes[] = {"../hair.bin", "/etc/passwd", "sub/../../hair.bin", "file:///etc/passwd", "missing.bin"};
  for (int i = 0; i < 5; i++) {
    cJSON_ReplaceItemInObject(item(p.json, "buffers", 0), "uri", cJSON_CreateString(escapes[i]));
    text = cJSON_Print(p.json);
    write_file(path, text, strlen(text));
    free(text);
    assert_null(tress_gltf_load(path, &err));
    print_message("uri %s: %s\n", escapes[i], err.message);
  }

  /* data: URI with base64. */
  size_t b64_len = sodium_base64_ENCODED_LEN(p.bin_len, sodium_base64_VARIANT_ORIGINAL);
  char *uri = malloc(b64_len + 64);
  strcpy(uri, "data:application/octet-stream;base64,");
  sodium_bin2base64(uri + strlen(uri), b64_len, p.bin, p.bin_len, sodium_base64_VARIANT_ORIGINAL);
  cJSON_ReplaceItemInObject(item(p.json, "buffers", 0), "uri", cJSON_CreateString(uri));
  text = cJSON_PrintUnformatted(p.json);
  back = tress_gltf_read_memory((const uint8_t *)text, strlen(text), NULL, &err);
  if (!back) fail_msg("data uri: %s", err.message);
  th_assert_same_mesh(m, back);
  tress_mesh_release(back);
  free(text);
  /* Broken base64 and a data URI shorter than its byteLength. */
  uri[strlen(uri) - 10] = '!';
  cJSON_ReplaceItemInObject(item(p.json, "buffers", 0), "uri", cJSON_CreateString(uri));
  text = cJSON_PrintUnformatted(p.json);
  assert_null(tress_gltf_read_memory((const uint8_t *)text, strlen(text), NULL, &err));
  free(text);
  cJSON_ReplaceItemInObject(item(p.json, "buffers", 0), "uri", cJSON_CreateString("data:application/octet-stream;base64,AAAA"));
  text = cJSON_PrintUnformatted(p.json);
  assert_null(tress_gltf_read_memory((const uint8_t *)text, strlen(text), NULL, &err));
  assert_non_null(strstr(err.message, "holds"));
  free(text);
  free(uri);
  cJSON_Delete(p.json);
  free(p.bin);
  free(glb);
  tress_mesh_release(m);
}

/* The committed samples are what the generator makes, and load as boneless meshes. */
static void test_committed_samples(void **state) {
  (void)state;
  const char *paths[] = {"assets/meshes/hair_bob.glb", "assets/meshes/hair_ponytail.glb", "assets/meshes/hair_long.glb"};
  for (int s = 0; s < 3; s++) {
    tress_error err = {0};
    tress_mesh *file = tress_gltf_load(paths[s], &err);
    if (!file) fail_msg("%s: %s", paths[s], err.message);
    tress_mesh *made = tress_sample_hair_create((tress_sample_hair_style)s);
    assert_int_equal(file->vertex_count, made->vertex_count);
    assert_int_equal(file->index_count, made->index_count);
    assert_true(file->vertex_count >= 2000 && file->vertex_count <= 8000);
    assert_false(tress_mesh_is_skinned(file));
    assert_non_null(file->normals);
    for (size_t i = 0; i < 3 * (size_t)made->vertex_count; i++) assert_float_equal(file->positions[i], made->positions[i], 1e-5f);
    assert_memory_equal(file->indices, made->indices, 4 * (size_t)made->index_count);
    /* y up, scalp near the top: the top of the bounds is the crown of a 0.6-radius head. */
    float mn[3], mx[3];
    tress_mesh_get_bounds(file, mn, mx);
    assert_true(mx[1] > 1.0f && mx[1] < 1.3f);
    assert_true(mn[1] < mx[1] - 0.8f);
    tress_mesh_release(file);
    tress_mesh_release(made);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip_skinned),
    cmocka_unit_test(test_glb_passes_khronos_validator),
    cmocka_unit_test(test_lying_glb),
    cmocka_unit_test(test_truncated_and_corrupted),
    cmocka_unit_test(test_gltf_external_and_data_uri),
    cmocka_unit_test(test_committed_samples),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
