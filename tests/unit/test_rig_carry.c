/* test_rig_carry.c - tress-rig carries the input's document into its output: asset.copyright,
 * materials, textures, samplers and images (their bytes), and the primitive's material; a mesh
 * of two primitives with two materials comes out as two primitives, each with its material and
 * its own triangles (.glb, .gltf and --rerig); a .gltf whose image is a separate file (uri
 * "tex.png") comes out with the image's bytes embedded, while an image outside the input's
 * folder (a "../" uri, a symlink out) is never read; and
 * --rerig of a skinned glb keeps where a viewer shows it: the output's mesh node transform is the
 * input's, and every joint's world matrix x inverse bind matrix is the input's bind placement (a
 * skeleton turned 90 degrees about X here); both outputs pass the Khronos validator with no
 * errors or warnings. Inputs are written by the test into a temp dir. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "support/gltf_validator.h"
#include "support/rig_tool.h"
#include "tress/gltf.h"

static rig_tool fixture;
static const char *tmp_dir = fixture.tmp_dir;

static int setup(void **state) {
  (void)state;
  return rig_tool_setup(&fixture, "rig-carry-test");
}

static int teardown(void **state) {
  (void)state;
  return rig_tool_teardown(&fixture);
}

static int run(const char *args, char *out, size_t cap) { return rig_tool_run(&fixture, args, out, cap); }

/* A GLB split into its JSON and BIN chunk (bin is malloc'd, with room to append). */
typedef struct glb {
  cJSON *json;
  uint8_t *bin;
  size_t bin_len;
} glb;

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static glb read_glb(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  size_t n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc(n);
  assert_int_equal(fread(d, 1, n, f), n);
  fclose(f);
  assert_memory_equal(d, "glTF", 4);
  uint32_t jl = u32(d + 12);
  glb g = {cJSON_ParseWithLength((const char *)d + 20, jl), NULL, 0};
  assert_non_null(g.json);
  size_t at = 20 + jl;
  g.bin_len = u32(d + at);
  g.bin = malloc(g.bin_len + 4096);
  memcpy(g.bin, d + at + 8, g.bin_len);
  free(d);
  return g;
}

static void put32(FILE *f, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  fwrite(b, 1, 4, f);
}

static void write_glb(const char *path, glb *g) {
  while (g->bin_len % 4) g->bin[g->bin_len++] = 0;
  cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "buffers"), 0), "byteLength"), (double)g->bin_len);
  char *js = cJSON_PrintUnformatted(g->json);
  size_t jl = strlen(js), jp = (jl + 3) & ~(size_t)3;
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  put32(f, 0x46546C67u); put32(f, 2); put32(f, (uint32_t)(12 + 8 + jp + 8 + g->bin_len));
  put32(f, (uint32_t)jp); put32(f, 0x4E4F534Au);
  fwrite(js, 1, jl, f);
  for (size_t i = jl; i < jp; i++) fputc(' ', f);
  put32(f, (uint32_t)g->bin_len); put32(f, 0x004E4942u);
  fwrite(g->bin, 1, g->bin_len, f);
  fclose(f);
  free(js);
}

static void free_glb(glb *g) {
  cJSON_Delete(g->json);
  free(g->bin);
}

/* A real 1x1 PNG: the image bytes the output must carry unchanged. */
static const uint8_t PNG[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
                              0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
                              0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0x68, 0x60, 0x60, 0x00,
                              0x00, 0x00, 0x84, 0x00, 0x81, 0x8e, 0x4b, 0x6a, 0x3b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
                              0x44, 0xae, 0x42, 0x60, 0x82};

#define COPYRIGHT "(c) 2026 A. Hair Artist, CC-BY 4.0"

/* Adds a copyright, a textured material on the primitive (image in a bufferView), a sampler. */
static void add_material(glb *g) {
  cJSON *asset = cJSON_GetObjectItem(g->json, "asset");
  cJSON_AddStringToObject(asset, "copyright", COPYRIGHT);
  size_t at = g->bin_len;
  memcpy(g->bin + at, PNG, sizeof PNG);
  g->bin_len += sizeof PNG;
  cJSON *views = cJSON_GetObjectItem(g->json, "bufferViews");
  cJSON *view = cJSON_CreateObject();
  cJSON_AddNumberToObject(view, "buffer", 0);
  cJSON_AddNumberToObject(view, "byteOffset", (double)at);
  cJSON_AddNumberToObject(view, "byteLength", sizeof PNG);
  cJSON_AddItemToArray(views, view);
  cJSON *images = cJSON_AddArrayToObject(g->json, "images"), *img = cJSON_CreateObject();
  cJSON_AddNumberToObject(img, "bufferView", cJSON_GetArraySize(views) - 1);
  cJSON_AddStringToObject(img, "mimeType", "image/png");
  cJSON_AddItemToArray(images, img);
  cJSON *samplers = cJSON_AddArrayToObject(g->json, "samplers"), *sampler = cJSON_CreateObject();
  cJSON_AddNumberToObject(sampler, "magFilter", 9729);
  cJSON_AddItemToArray(samplers, sampler);
  cJSON *textures = cJSON_AddArrayToObject(g->json, "textures"), *tex = cJSON_CreateObject();
  cJSON_AddNumberToObject(tex, "source", 0);
  cJSON_AddNumberToObject(tex, "sampler", 0);
  cJSON_AddItemToArray(textures, tex);
  cJSON *materials = cJSON_AddArrayToObject(g->json, "materials");
  cJSON *mat = cJSON_Parse("{\"name\":\"HairMat\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},"
                           "\"baseColorFactor\":[0.3,0.2,0.1,1]}}");
  cJSON_AddItemToArray(materials, mat);
  cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "meshes"), 0), "primitives"), 0);
  cJSON_AddNumberToObject(prim, "material", 0);
}

static void assert_material_carried(const glb *out) {
  const cJSON *j = out->json;
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "asset"), "copyright")->valuestring, COPYRIGHT);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "materials"), 0), "name")->valuestring, "HairMat");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "samplers")), 1);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "textures")), 1);
  const cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0), "primitives"), 0);
  assert_int_equal(cJSON_GetObjectItem(prim, "material")->valueint, 0);
  const cJSON *img = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "images"), 0);
  assert_string_equal(cJSON_GetObjectItem(img, "mimeType")->valuestring, "image/png");
  const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "bufferViews"), cJSON_GetObjectItem(img, "bufferView")->valueint);
  assert_int_equal(cJSON_GetObjectItem(view, "byteLength")->valueint, (int)sizeof PNG);
  assert_memory_equal(out->bin + cJSON_GetObjectItem(view, "byteOffset")->valueint, PNG, sizeof PNG);
}

static int validate(const char *path, char *out, size_t cap) {
  char prefix[1100], cmd[3000];
  if (!gltf_validator_ready(prefix, sizeof prefix)) return -1;
  snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s' 2>&1", prefix, path);
  FILE *p = popen(cmd, "r");
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  return pclose(p) == 0 && strstr(out, "errors=0 warnings=0") ? 0 : 1;
}

static void test_materials_carried(void **state) {
  (void)state;
  char in[1200], out_path[1200], args[3000], out[16384];
  snprintf(in, sizeof in, "%s/textured.glb", tmp_dir);
  glb g = read_glb("assets/meshes/hair_bob.glb");
  add_material(&g);
  write_glb(in, &g);
  free_glb(&g);
  snprintf(out_path, sizeof out_path, "%s/textured_rigged.glb", tmp_dir);
  snprintf(args, sizeof args, "'%s' -o '%s'", in, out_path);
  if (run(args, out, sizeof out) != 0) fail_msg("%s", out);
  glb o = read_glb(out_path);
  assert_material_carried(&o);
  free_glb(&o);
  int v = validate(out_path, out, sizeof out);
  if (v < 0) print_message("SKIP validation: gltf-validator needs node and npm\n");
  else if (v) fail_msg("%s", out);
}

/* Column-major local matrix of a node written with matrix or TRS. */
static void node_matrix(const cJSON *n, double m[16]) {
  const cJSON *mat = cJSON_GetObjectItem(n, "matrix");
  if (mat) { for (int k = 0; k < 16; k++) m[k] = cJSON_GetArrayItem(mat, k)->valuedouble; return; }
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1};
  const cJSON *jt = cJSON_GetObjectItem(n, "translation"), *jr = cJSON_GetObjectItem(n, "rotation");
  for (int k = 0; jt && k < 3; k++) t[k] = cJSON_GetArrayItem(jt, k)->valuedouble;
  for (int k = 0; jr && k < 4; k++) q[k] = cJSON_GetArrayItem(jr, k)->valuedouble;
  assert_null(cJSON_GetObjectItem(n, "scale"));
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                    {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                    {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  for (int c = 0; c < 3; c++) { for (int row = 0; row < 3; row++) m[4 * c + row] = r[row][c]; m[4 * c + 3] = 0; }
  m[12] = t[0]; m[13] = t[1]; m[14] = t[2]; m[15] = 1;
}

static void mul(const double a[16], const double b[16], double out[16]) {
  double t[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) { t[4 * c + r] = 0; for (int k = 0; k < 4; k++) t[4 * c + r] += a[4 * k + r] * b[4 * c + k]; }
  memcpy(out, t, sizeof t);
}

static void world_of(const cJSON *nodes, int node, double out[16]) {
  double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  while (node >= 0) {
    double local[16];
    node_matrix(cJSON_GetArrayItem(nodes, node), local);
    mul(local, m, m);
    int parent = -1, i = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) {
      const cJSON *c;
      cJSON_ArrayForEach(c, cJSON_GetObjectItem(n, "children")) if (c->valueint == node) parent = i;
      i++;
    }
    node = parent;
  }
  memcpy(out, m, sizeof m);
}

/* Every joint's world x inverse bind, which must be placement. */
static void assert_bind_placement(const glb *g, const double placement[16], const char *what) {
  const cJSON *j = g->json, *nodes = cJSON_GetObjectItem(j, "nodes");
  const cJSON *skin = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "skins"), 0);
  const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "accessors"), cJSON_GetObjectItem(skin, "inverseBindMatrices")->valueint);
  const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "bufferViews"), cJSON_GetObjectItem(acc, "bufferView")->valueint);
  const uint8_t *ibms = g->bin + cJSON_GetObjectItem(view, "byteOffset")->valueint;
  int i = 0;
  const cJSON *joint;
  cJSON_ArrayForEach(joint, cJSON_GetObjectItem(skin, "joints")) {
    double world[16], ibm[16], product[16];
    float f[16];
    memcpy(f, ibms + 64 * i++, sizeof f);
    for (int k = 0; k < 16; k++) ibm[k] = f[k];
    world_of(nodes, joint->valueint, world);
    mul(world, ibm, product);
    for (int k = 0; k < 16; k++)
      if (fabs(product[k] - placement[k]) > 1e-5) fail_msg("%s, joint %d: world x inverse bind [%d] = %g, placement %g", what, i - 1, k, product[k], placement[k]);
  }
}

static void test_rerig_keeps_bind_pose(void **state) {
  (void)state;
  char once[1200], in[1200], args[3000], out[16384];
  snprintf(once, sizeof once, "%s/once.glb", tmp_dir);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s'", once);
  assert_int_equal(run(args, out, sizeof out), 0);
  /* The skinned input: its skeleton under an Armature turned 90 degrees about X (so the bind
   * placement is that turn), a textured material. Its mesh node has no transform of its own:
   * glTF ignores one on a skinned mesh node and the validator warns about it. */
  glb g = read_glb(once);
  add_material(&g);
  cJSON *nodes = cJSON_GetObjectItem(g.json, "nodes");
  cJSON *armature = cJSON_Parse("{\"name\":\"Armature\",\"rotation\":[0.70710678,0,0,0.70710678],\"children\":[1]}");
  cJSON_AddItemToArray(nodes, armature);
  cJSON *scene_nodes = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "scenes"), 0), "nodes");
  assert_int_equal(cJSON_GetArrayItem(scene_nodes, 1)->valueint, 1); /* HairRoot was a scene root */
  cJSON_ReplaceItemInArray(scene_nodes, 1, cJSON_CreateNumber(cJSON_GetArraySize(nodes) - 1));
  double placement[16];
  node_matrix(armature, placement);
  snprintf(in, sizeof in, "%s/skinned_turned.glb", tmp_dir);
  write_glb(in, &g);
  assert_bind_placement(&g, placement, "input"); /* the input as written has that placement */
  free_glb(&g);
  const char *outputs[] = {"rerigged.glb", "rerigged.gltf"};
  for (int i = 0; i < 2; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, outputs[i]);
    snprintf(args, sizeof args, "'%s' --rerig -o '%s'", in, path);
    if (run(args, out, sizeof out) != 0) fail_msg("%s", out);
    int v = validate(path, out, sizeof out);
    if (v < 0) print_message("SKIP validation: gltf-validator needs node and npm\n");
    else if (v) fail_msg("%s: %s", path, out);
    if (i == 1) { /* .gltf: checked for being JSON; the glb below gets the full check */
      FILE *f = fopen(path, "rb");
      assert_int_equal(fgetc(f), '{');
      fclose(f);
      continue;
    }
    glb o = read_glb(path);
    assert_material_carried(&o);
    assert_bind_placement(&o, placement, path);
    double mesh_node[16];
    node_matrix(cJSON_GetArrayItem(cJSON_GetObjectItem(o.json, "nodes"), 0), mesh_node);
    for (int k = 0; k < 16; k++) assert_true(fabs(mesh_node[k] - (k % 5 == 0 ? 1.0 : 0.0)) < 1e-6);
    free_glb(&o);
  }
}

static void run_or_fail(const char *args) {
  char out[16384];
  if (run(args, out, sizeof out) != 0) fail_msg("tress-rig %s: %s", args, out);
}

static void validate_or_fail(const char *path) {
  char out[16384];
  int v = validate(path, out, sizeof out);
  if (v < 0) print_message("SKIP validation: gltf-validator needs node and npm\n");
  else if (v) fail_msg("%s: %s", path, out);
}

/* hair_bob with its triangles split into two primitives over the same vertices: the first half
 * drawn with "HairMat" (textured, materials[0]), the rest with "StrandMat" (materials[1]). */
static void write_two_material_glb(const char *path) {
  glb g = read_glb("assets/meshes/hair_bob.glb");
  add_material(&g);
  cJSON *materials = cJSON_GetObjectItem(g.json, "materials");
  cJSON_AddItemToArray(materials, cJSON_Parse("{\"name\":\"StrandMat\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.1,0.1,0.1,1]}}"));
  cJSON *accessors = cJSON_GetObjectItem(g.json, "accessors");
  cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "meshes"), 0), "primitives");
  cJSON *first = cJSON_GetArrayItem(prims, 0);
  cJSON *indices = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(first, "indices")->valueint);
  assert_int_equal(cJSON_GetObjectItem(indices, "componentType")->valueint, 5123);
  int count = cJSON_GetObjectItem(indices, "count")->valueint, half = count / 6 * 3;
  cJSON *rest = cJSON_Duplicate(indices, true);
  cJSON_SetNumberValue(cJSON_GetObjectItem(indices, "count"), half);
  cJSON_SetNumberValue(cJSON_GetObjectItem(rest, "count"), count - half);
  cJSON_AddNumberToObject(rest, "byteOffset", 2.0 * half);
  cJSON_AddItemToArray(accessors, rest);
  cJSON *second = cJSON_Duplicate(first, true);
  cJSON_SetNumberValue(cJSON_GetObjectItem(second, "indices"), cJSON_GetArraySize(accessors) - 1);
  cJSON_SetNumberValue(cJSON_GetObjectItem(second, "material"), 1);
  cJSON_AddItemToArray(prims, second);
  write_glb(path, &g);
  free_glb(&g);
}

/* The name of the material a primitive of a written file draws with. */
static const char *primitive_material(const cJSON *j, int prim) {
  const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0), "primitives"), prim);
  const cJSON *m = cJSON_GetObjectItem(p, "material");
  assert_non_null(m);
  return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "materials"), m->valueint), "name")->valuestring;
}

/* The output draws what the input drew: the same runs of triangles (corner by corner, by
 * position) with materials of the same names. */
static void assert_same_runs(const char *in_path, const char *out_path) {
  tress_error err = {0};
  tress_mesh *in = tress_gltf_load(in_path, &err), *out = tress_gltf_load(out_path, &err);
  if (!in || !out) fail_msg("%s", err.message);
  assert_int_equal(in->submesh_count, 2);
  assert_int_equal(out->submesh_count, 2);
  assert_int_equal(out->index_count, in->index_count);
  assert_int_equal(out->vertex_count, in->vertex_count); /* two primitives over one vertex set, read once */
  for (uint32_t s = 0; s < 2; s++) {
    assert_int_equal(out->submeshes[s].first_index, in->submeshes[s].first_index);
    assert_int_equal(out->submeshes[s].index_count, in->submeshes[s].index_count);
    assert_string_equal(out->submeshes[s].material_name, in->submeshes[s].material_name);
  }
  for (uint32_t i = 0; i < in->index_count; i++)
    assert_memory_equal(out->positions + 3 * out->indices[i], in->positions + 3 * in->indices[i], 12);
  tress_mesh_release(in);
  tress_mesh_release(out);
}

static void assert_two_primitives(const char *path, bool is_glb) {
  cJSON *j;
  glb g = {0};
  if (is_glb) {
    g = read_glb(path);
    j = g.json;
  } else {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[4 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    j = cJSON_Parse(text);
    assert_non_null(j);
  }
  const cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0), "primitives");
  assert_int_equal(cJSON_GetArraySize(prims), 2);
  assert_string_equal(primitive_material(j, 0), "HairMat");
  assert_string_equal(primitive_material(j, 1), "StrandMat");
  if (is_glb) {
    assert_material_carried(&g);
    free_glb(&g);
  } else {
    cJSON_Delete(j);
  }
}

static void test_two_materials_carried(void **state) {
  (void)state;
  char in[1200], path[1200], rerigged[1200], args[3000];
  snprintf(in, sizeof in, "%s/two_materials.glb", tmp_dir);
  write_two_material_glb(in);
  const char *outputs[] = {"two_rigged.glb", "two_rigged.gltf"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, outputs[i]);
    snprintf(args, sizeof args, "'%s' -o '%s'", in, path);
    run_or_fail(args);
    assert_two_primitives(path, i == 0);
    assert_same_runs(in, path);
    validate_or_fail(path);
  }
  /* --rerig of the rigged glb keeps both runs and both materials */
  snprintf(path, sizeof path, "%s/two_rigged.glb", tmp_dir);
  snprintf(rerigged, sizeof rerigged, "%s/two_rerigged.glb", tmp_dir);
  snprintf(args, sizeof args, "'%s' --rerig --sectors 4 -o '%s'", path, rerigged);
  run_or_fail(args);
  assert_two_primitives(rerigged, true);
  assert_same_runs(in, rerigged);
  validate_or_fail(rerigged);
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* dir/hair.gltf: hair_bob as JSON with its buffer in dir/hair.bin and one textured material whose
 * image is image_uri (no mimeType: the bytes say what they are). */
static void write_external_gltf(const char *dir, const char *image_uri) {
  char path[1300];
  glb g = read_glb("assets/meshes/hair_bob.glb");
  add_material(&g);
  cJSON *img = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "images"), 0);
  cJSON_DeleteItemFromObject(img, "bufferView");
  cJSON_DeleteItemFromObject(img, "mimeType");
  cJSON_AddStringToObject(img, "uri", image_uri);
  g.bin_len -= sizeof PNG; /* the PNG add_material appended is now a file of its own; its view goes */
  cJSON *views = cJSON_GetObjectItem(g.json, "bufferViews");
  cJSON_DeleteItemFromArray(views, cJSON_GetArraySize(views) - 1);
  cJSON *buffer = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "buffers"), 0);
  cJSON_SetNumberValue(cJSON_GetObjectItem(buffer, "byteLength"), (double)g.bin_len);
  cJSON_AddStringToObject(buffer, "uri", "hair.bin");
  snprintf(path, sizeof path, "%s/hair.bin", dir);
  write_file(path, g.bin, g.bin_len);
  char *js = cJSON_PrintUnformatted(g.json);
  snprintf(path, sizeof path, "%s/hair.gltf", dir);
  write_file(path, js, strlen(js));
  free(js);
  free_glb(&g);
}

static void make_dir(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/%s", tmp_dir, name);
  assert_int_equal(mkdir(out, 0700), 0);
}

static void test_external_image_embedded(void **state) {
  (void)state;
  char dir[1200], path[1300], args[3000];
  make_dir(dir, sizeof dir, "external");
  write_external_gltf(dir, "tex.png");
  snprintf(path, sizeof path, "%s/tex.png", dir);
  write_file(path, PNG, sizeof PNG);
  const char *outputs[] = {"external_rigged.glb", "external_rigged.gltf"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, outputs[i]);
    snprintf(args, sizeof args, "'%s/hair.gltf' -o '%s'", dir, path);
    run_or_fail(args);
    validate_or_fail(path); /* the validator script refuses any external resource */
    if (i == 0) {
      glb o = read_glb(path);
      assert_material_carried(&o); /* the PNG's bytes in the output's buffer, mimeType image/png */
      assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o.json, "images"), 0), "uri"));
      free_glb(&o);
    }
  }
}

/* Bytes that must never reach an output: a PNG signature, then a marker. */
static const char SECRET[] = "\x89PNG\r\n\x1a\nSECRET-OUTSIDE-THE-ASSET-FOLDER";

static bool file_contains(const char *path, const char *needle) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char data[8 << 20];
  size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  size_t k = strlen(needle);
  for (size_t at = 0; at + k <= n; at++)
    if (memcmp(data + at, needle, k) == 0) return true;
  return false;
}

static void test_external_image_confined(void **state) {
  (void)state;
  char outside[1300], dir[1200], path[1300], args[3000], out[16384];
  snprintf(outside, sizeof outside, "%s/outside.png", tmp_dir);
  write_file(outside, SECRET, sizeof SECRET - 1);
  struct { const char *folder, *uri, *reason; } cases[] = {
    {"dotdot", "../outside.png", "leaves the asset directory"},
    {"linked", "tex.png", "leaves the asset directory (through a link)"},
  };
  for (int i = 0; i < 2; i++) {
    make_dir(dir, sizeof dir, cases[i].folder);
    write_external_gltf(dir, cases[i].uri);
    snprintf(path, sizeof path, "%s/tex.png", dir);
    if (i == 1) assert_int_equal(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/%s.glb", tmp_dir, cases[i].folder);
    snprintf(args, sizeof args, "'%s/hair.gltf' -o '%s'", dir, path);
    if (run(args, out, sizeof out) != 0) fail_msg("%s", out);
    if (!strstr(out, "materials and textures not carried") || !strstr(out, cases[i].reason)) fail_msg("%s: %s", cases[i].uri, out);
    assert_false(file_contains(path, "SECRET-OUTSIDE"));
    glb o = read_glb(path);
    assert_null(cJSON_GetObjectItem(o.json, "images"));
    assert_null(cJSON_GetObjectItem(o.json, "textures"));
    assert_string_equal(primitive_material(o.json, 0), "HairMat"); /* the run keeps its material's name */
    free_glb(&o);
    validate_or_fail(path);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_materials_carried),
    cmocka_unit_test(test_rerig_keeps_bind_pose),
    cmocka_unit_test(test_two_materials_carried),
    cmocka_unit_test(test_external_image_embedded),
    cmocka_unit_test(test_external_image_confined),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
