/* test_gltf_scene.c - the glTF reader against real files built here byte by byte: node
 * transforms (TRS hierarchy with a 0.01 scale and a Y-up rotation, a matrix node, mirroring
 * nodes, a mesh instanced twice, the default scene), a skinned mesh whose node transform is
 * ignored, sparse accessors (over a strided view, over zeros, on normals, every index type) and
 * files that lie about their node tree or their sparse data. Valid fixtures also pass the Khronos
 * validator when node/npm are there.
 *
 * The fixture mesh is a flat-shaded octahedron (24 vertices, one normal per face) with unequal
 * radii and an off-centre middle, so a flat-shaded transform can be checked on its own terms: a
 * transformed normal must equal the face normal of the transformed triangle, and that triangle's
 * winding must agree with it. Expected positions come from applying each node's TRS directly
 * (scale, then the quaternion sandwich, then translate), not from matrices as the reader does. */
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

#include "support/glb_build.h"
#include "support/gltf_validator.h"
#include "tress/gltf.h"

#define TOL 1e-5

enum { UBYTE = 5121, USHORT = 5123, UINT = 5125, FLOAT = 5126, ARRAY_BUFFER = 34962, ELEMENT_ARRAY_BUFFER = 34963 };

static char tmp_dir[1024];
static char validator_prefix[1100];
static bool have_validator;

/* --- the Khronos validator (npm gltf-validator; support/gltf_validator.h installs it) --- */

static int setup(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/gltf-scene-XXXXXX", bin ? bin : "/tmp");
  if (!mkdtemp(tmp_dir)) return -1;
  have_validator = gltf_validator_ready(validator_prefix, sizeof validator_prefix);
  if (!have_validator) print_message("gltf-validator unavailable (no node/npm or no network): fixtures not validated\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* --- a tiny glTF builder: one buffer (the GLB BIN chunk), views 4-byte aligned --- */

typedef struct builder {
  cJSON *root, *views, *accessors, *nodes, *meshes, *scenes;
  uint8_t *bin;
  size_t len, cap;
} builder;

static builder builder_new(void) {
  builder b;
  memset(&b, 0, sizeof b);
  b.root = cJSON_CreateObject();
  cJSON *asset = cJSON_AddObjectToObject(b.root, "asset");
  cJSON_AddStringToObject(asset, "version", "2.0");
  cJSON_AddStringToObject(asset, "generator", "tress test_gltf_scene");
  b.views = cJSON_AddArrayToObject(b.root, "bufferViews");
  b.accessors = cJSON_AddArrayToObject(b.root, "accessors");
  b.meshes = cJSON_AddArrayToObject(b.root, "meshes");
  b.nodes = cJSON_AddArrayToObject(b.root, "nodes");
  b.scenes = cJSON_AddArrayToObject(b.root, "scenes");
  return b;
}

static void builder_free(builder *b) {
  cJSON_Delete(b->root);
  free(b->bin);
}

/* Appends bytes as a new bufferView; stride / target 0 = unset. Returns the view index. */
static int add_view(builder *b, const void *data, size_t size, int stride, int target) {
  size_t at = (b->len + 3) & ~(size_t)3;
  if (at + size > b->cap) {
    b->cap = (at + size) * 2 + 64;
    b->bin = realloc(b->bin, b->cap);
    assert_non_null(b->bin);
  }
  memset(b->bin + b->len, 0, at - b->len);
  memcpy(b->bin + at, data, size);
  b->len = at + size;
  cJSON *v = cJSON_CreateObject();
  cJSON_AddNumberToObject(v, "buffer", 0);
  cJSON_AddNumberToObject(v, "byteOffset", (double)at);
  cJSON_AddNumberToObject(v, "byteLength", (double)size);
  if (stride) cJSON_AddNumberToObject(v, "byteStride", stride);
  if (target) cJSON_AddNumberToObject(v, "target", target);
  cJSON_AddItemToArray(b->views, v);
  return cJSON_GetArraySize(b->views) - 1;
}

/* view < 0: no bufferView (a sparse accessor over zeros). */
static cJSON *add_accessor(builder *b, int view, size_t offset, int ct, const char *type, uint32_t count, int *index) {
  cJSON *a = cJSON_CreateObject();
  if (view >= 0) cJSON_AddNumberToObject(a, "bufferView", view);
  if (offset) cJSON_AddNumberToObject(a, "byteOffset", (double)offset);
  cJSON_AddNumberToObject(a, "componentType", ct);
  cJSON_AddNumberToObject(a, "count", count);
  cJSON_AddStringToObject(a, "type", type);
  cJSON_AddItemToArray(b->accessors, a);
  *index = cJSON_GetArraySize(b->accessors) - 1;
  return a;
}

static void set_bounds(cJSON *acc, const float *pos, uint32_t count) {
  double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t v = 0; v < count; v++)
    for (int k = 0; k < 3; k++) {
      mn[k] = fmin(mn[k], pos[3 * v + k]);
      mx[k] = fmax(mx[k], pos[3 * v + k]);
    }
  cJSON_AddItemToObject(acc, "min", cJSON_CreateDoubleArray(mn, 3));
  cJSON_AddItemToObject(acc, "max", cJSON_CreateDoubleArray(mx, 3));
}

/* sparse: {count, indices {bufferView, componentType}, values {bufferView}}. */
static void add_sparse(builder *b, cJSON *acc, uint32_t count, int index_ct, const void *indices, size_t index_bytes, const void *values,
                       size_t value_bytes) {
  cJSON *s = cJSON_AddObjectToObject(acc, "sparse");
  cJSON_AddNumberToObject(s, "count", count);
  cJSON *i = cJSON_AddObjectToObject(s, "indices");
  cJSON_AddNumberToObject(i, "bufferView", add_view(b, indices, index_bytes, 0, 0));
  cJSON_AddNumberToObject(i, "componentType", index_ct);
  cJSON *v = cJSON_AddObjectToObject(s, "values");
  cJSON_AddNumberToObject(v, "bufferView", add_view(b, values, value_bytes, 0, 0));
}

static int add_mesh(builder *b, int position, int normal, int indices) {
  cJSON *mesh = cJSON_CreateObject(), *prims = cJSON_AddArrayToObject(mesh, "primitives"), *prim = cJSON_CreateObject();
  cJSON *attrs = cJSON_AddObjectToObject(prim, "attributes");
  cJSON_AddNumberToObject(attrs, "POSITION", position);
  if (normal >= 0) cJSON_AddNumberToObject(attrs, "NORMAL", normal);
  if (indices >= 0) cJSON_AddNumberToObject(prim, "indices", indices);
  cJSON_AddItemToArray(prims, prim);
  cJSON_AddItemToArray(b->meshes, mesh);
  return cJSON_GetArraySize(b->meshes) - 1;
}

static int add_node(builder *b, cJSON *node) {
  cJSON_AddItemToArray(b->nodes, node);
  return cJSON_GetArraySize(b->nodes) - 1;
}

static void add_child(builder *b, int parent, int child) {
  cJSON *p = cJSON_GetArrayItem(b->nodes, parent), *c = cJSON_GetObjectItem(p, "children");
  if (!c) c = cJSON_AddArrayToObject(p, "children");
  cJSON_AddItemToArray(c, cJSON_CreateNumber(child));
}

static void add_scene(builder *b, const int *roots, int count) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddItemToObject(s, "nodes", cJSON_CreateIntArray(roots, count));
  cJSON_AddItemToArray(b->scenes, s);
}

/* Packs a .glb into an allocation of exactly its size (so ASan sees any read past it). */
static uint8_t *pack_glb(builder *b, size_t *size) {
  cJSON *buffers = cJSON_GetObjectItem(b->root, "buffers");
  if (buffers) cJSON_DeleteItemFromObject(b->root, "buffers");
  buffers = cJSON_AddArrayToObject(b->root, "buffers");
  size_t bin_len = (b->len + 3) & ~(size_t)3;
  cJSON *buf = cJSON_CreateObject();
  cJSON_AddNumberToObject(buf, "byteLength", (double)bin_len);
  cJSON_AddItemToArray(buffers, buf);
  char *json = cJSON_PrintUnformatted(b->root);
  uint8_t *g = th_glb_pack(json, b->bin, b->len, size);
  free(json);
  return g;
}

static void validate(const uint8_t *glb, size_t size, const char *name) {
  if (!have_validator) return;
  char path[1200], cmd[3000];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(glb, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
  print_message("validating %s\n", name);
  snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s'", validator_prefix, path);
  assert_int_equal(system(cmd), 0);
}

/* Reads a valid fixture (validating it first); fails the test with the reader's message. */
static tress_mesh *load_valid(builder *b, const char *name) {
  size_t size;
  uint8_t *glb = pack_glb(b, &size);
  validate(glb, size, name);
  tress_error err = {0};
  tress_mesh *m = tress_gltf_read_memory(glb, size, NULL, &err);
  if (!m) fail_msg("%s: %s", name, err.message);
  free(glb);
  return m;
}

/* Reads a lying fixture: it must fail with a message containing `expect`. */
static void expect_refused(builder *b, const char *expect) {
  size_t size;
  uint8_t *glb = pack_glb(b, &size);
  tress_error err = {0};
  err.message[0] = 0;
  tress_mesh *m = tress_gltf_read_memory(glb, size, NULL, &err);
  if (m) fail_msg("accepted, expected \"%s\"", expect);
  print_message("refused: %s\n", err.message);
  if (!strstr(err.message, expect)) fail_msg("error \"%s\" does not say \"%s\"", err.message, expect);
  free(glb);
}

/* --- the fixture mesh: a flat-shaded octahedron --- */

#define OCTA_VERTICES 24

typedef struct octa {
  float pos[3 * OCTA_VERTICES], nrm[3 * OCTA_VERTICES];
  uint16_t idx[OCTA_VERTICES];
} octa;

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double v[3]) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int k = 0; k < 3; k++) v[k] /= l;
}

/* Face normal of (a, b, c), unit length. */
static void face_normal(const double a[3], const double b[3], const double c[3], double n[3]) {
  double e1[3], e2[3];
  for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
  cross3(e1, e2, n);
  normalize3(n);
}

static octa make_octa(void) {
  octa o;
  const double centre[3] = {0.3, -0.2, 0.1}, radius[3] = {1.0, 2.0, 0.5};
  int v = 0;
  for (int f = 0; f < 8; f++) {
    double s[3] = {f & 1 ? -1 : 1, f & 2 ? -1 : 1, f & 4 ? -1 : 1}, c[3][3];
    for (int corner = 0; corner < 3; corner++)
      for (int k = 0; k < 3; k++) c[corner][k] = centre[k] + (k == corner ? s[k] * radius[k] : 0.0);
    double n[3];
    face_normal(c[0], c[1], c[2], n);
    bool outward = n[0] * s[0] + n[1] * s[1] + n[2] * s[2] > 0.0;
    int order[3] = {0, outward ? 1 : 2, outward ? 2 : 1};
    face_normal(c[order[0]], c[order[1]], c[order[2]], n);
    for (int corner = 0; corner < 3; corner++, v++)
      for (int k = 0; k < 3; k++) {
        o.pos[3 * v + k] = (float)c[order[corner]][k];
        o.nrm[3 * v + k] = (float)n[k];
      }
  }
  for (int i = 0; i < OCTA_VERTICES; i++) o.idx[i] = (uint16_t)i;
  return o;
}

/* Adds the octahedron as a mesh (positions with bounds, normals, optional ushort indices). */
static int add_octa_mesh(builder *b, const octa *o, bool indexed) {
  int pos, nrm, idx = -1;
  cJSON *pa = add_accessor(b, add_view(b, o->pos, sizeof o->pos, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &pos);
  set_bounds(pa, o->pos, OCTA_VERTICES);
  add_accessor(b, add_view(b, o->nrm, sizeof o->nrm, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &nrm);
  if (indexed) add_accessor(b, add_view(b, o->idx, sizeof o->idx, 0, ELEMENT_ARRAY_BUFFER), 0, USHORT, "SCALAR", OCTA_VERTICES, &idx);
  return add_mesh(b, pos, nrm, idx);
}

/* --- transforms as the test computes them: TRS applied directly --- */

typedef struct trs {
  double t[3], q[4], s[3]; /* q = x, y, z, w */
} trs;

static trs trs_make(double tx, double ty, double tz, double axis_x, double axis_y, double axis_z, double degrees, double sx, double sy,
                    double sz) {
  trs x = {{tx, ty, tz}, {0, 0, 0, 1}, {sx, sy, sz}};
  double len = sqrt(axis_x * axis_x + axis_y * axis_y + axis_z * axis_z), half = degrees * M_PI / 360.0;
  if (len > 0) {
    x.q[0] = axis_x / len * sin(half);
    x.q[1] = axis_y / len * sin(half);
    x.q[2] = axis_z / len * sin(half);
    x.q[3] = cos(half);
  }
  return x;
}

/* p' = t + q (s * p) q^-1, with the rotation as v + 2w (u x v) + 2 u x (u x v). */
static void trs_apply(const trs *x, const double in[3], double out[3]) {
  double v[3] = {in[0] * x->s[0], in[1] * x->s[1], in[2] * x->s[2]}, u[3] = {x->q[0], x->q[1], x->q[2]}, uv[3], uuv[3];
  cross3(u, v, uv);
  cross3(u, uv, uuv);
  for (int k = 0; k < 3; k++) out[k] = v[k] + 2.0 * x->q[3] * uv[k] + 2.0 * uuv[k] + x->t[k];
}

/* chain[0] is the root: world(p) = chain[0](chain[1](...chain[n-1](p))). */
static void chain_apply(const trs *chain, int n, const double in[3], double out[3]) {
  double p[3] = {in[0], in[1], in[2]};
  for (int i = n - 1; i >= 0; i--) {
    trs_apply(&chain[i], p, out);
    memcpy(p, out, sizeof p);
  }
  memcpy(out, p, sizeof p);
}

static double chain_det(const trs *chain, int n) {
  double o[3], e[3][3], zero[3] = {0, 0, 0};
  chain_apply(chain, n, zero, o);
  for (int i = 0; i < 3; i++) {
    double basis[3] = {i == 0, i == 1, i == 2};
    chain_apply(chain, n, basis, e[i]);
    for (int k = 0; k < 3; k++) e[i][k] -= o[k];
  }
  double c[3];
  cross3(e[1], e[2], c);
  return e[0][0] * c[0] + e[0][1] * c[1] + e[0][2] * c[2];
}

static cJSON *trs_node(const trs *x, int mesh) {
  cJSON *n = cJSON_CreateObject();
  cJSON_AddItemToObject(n, "translation", cJSON_CreateDoubleArray(x->t, 3));
  cJSON_AddItemToObject(n, "rotation", cJSON_CreateDoubleArray(x->q, 4));
  cJSON_AddItemToObject(n, "scale", cJSON_CreateDoubleArray(x->s, 3));
  if (mesh >= 0) cJSON_AddNumberToObject(n, "mesh", mesh);
  return n;
}

/* The same transform written as a column-major "matrix", built from where it sends the basis. */
static cJSON *matrix_node(const trs *x, int mesh) {
  double m[16] = {0}, o[3], zero[3] = {0, 0, 0};
  trs_apply(x, zero, o);
  for (int c = 0; c < 3; c++) {
    double basis[3] = {c == 0, c == 1, c == 2}, e[3];
    trs_apply(x, basis, e);
    for (int k = 0; k < 3; k++) m[4 * c + k] = e[k] - o[k];
  }
  for (int k = 0; k < 3; k++) m[12 + k] = o[k];
  m[15] = 1.0;
  cJSON *n = cJSON_CreateObject();
  cJSON_AddItemToObject(n, "matrix", cJSON_CreateDoubleArray(m, 16));
  if (mesh >= 0) cJSON_AddNumberToObject(n, "mesh", mesh);
  return n;
}

/* Output vertex holding corner c of triangle f of the instance starting at vbase / ibase. */
static uint32_t out_corner(const tress_mesh *m, uint32_t vbase, uint32_t ibase, uint32_t f, int c) {
  if (m->indices) return m->indices[ibase + 3 * f + (uint32_t)c];
  return vbase + 3 * f + (uint32_t)c;
}

/* One octahedron instance placed by `chain`: every corner where the TRS puts it (1e-5), every
 * normal along the transformed face (1e-5), and the output winding agreeing with the normals;
 * a mirroring chain must have reversed the corners. Returns how many faces were reversed. */
static int check_instance(const tress_mesh *m, const octa *o, uint32_t vbase, uint32_t ibase, const trs *chain, int n) {
  bool mirror = chain_det(chain, n) < 0.0;
  int reversed = 0;
  for (uint32_t f = 0; f < OCTA_VERTICES / 3; f++) {
    double want[3][3], want_n[3], got[3][3];
    for (int c = 0; c < 3; c++) {
      double src[3] = {o->pos[3 * (3 * f + c)], o->pos[3 * (3 * f + c) + 1], o->pos[3 * (3 * f + c) + 2]};
      chain_apply(chain, n, src, want[c]);
    }
    face_normal(want[0], want[1], want[2], want_n);
    if (mirror)
      for (int k = 0; k < 3; k++) want_n[k] = -want_n[k];
    /* The source corner each output corner must hold: 0 1 2, or 0 2 1 when mirrored. */
    const int expect_src[3] = {0, mirror ? 2 : 1, mirror ? 1 : 2};
    for (int c = 0; c < 3; c++) {
      uint32_t v = out_corner(m, vbase, ibase, f, c);
      assert_true(v >= vbase && v < vbase + OCTA_VERTICES);
      for (int k = 0; k < 3; k++) {
        got[c][k] = m->positions[3 * v + k];
        if (fabs(got[c][k] - want[expect_src[c]][k]) > TOL)
          fail_msg("face %u corner %d axis %d: %.7f, want %.7f", f, c, k, got[c][k], want[expect_src[c]][k]);
        if (fabs(m->normals[3 * v + k] - want_n[k]) > TOL)
          fail_msg("face %u corner %d normal axis %d: %.7f, want %.7f", f, c, k, m->normals[3 * v + k], want_n[k]);
      }
    }
    double got_n[3];
    face_normal(got[0], got[1], got[2], got_n);
    double facing = got_n[0] * want_n[0] + got_n[1] * want_n[1] + got_n[2] * want_n[2];
    if (facing < 0.9999) fail_msg("face %u winding faces %.4f against its normal", f, facing);
    if (expect_src[1] == 2) reversed++;
  }
  return reversed;
}

/* --- node transforms --- */

/* A Y-up conversion on a parent scaled to centimetres, and a child mesh node with its own
 * rotation and unequal scale: positions and normals (inverse-transpose) in world space. */
static void test_trs_parent_and_child(void **state) {
  (void)state;
  octa o = make_octa();
  builder b = builder_new();
  int mesh = add_octa_mesh(&b, &o, true);
  trs chain[2] = {trs_make(0.5, 1.5, -0.25, 1, 0, 0, -90, 0.01, 0.01, 0.01), trs_make(10, 20, 30, 0.3, 1, 0.2, 35, 2, 1, 0.5)};
  int parent = add_node(&b, trs_node(&chain[0], -1));
  int child = add_node(&b, trs_node(&chain[1], mesh));
  add_child(&b, parent, child);
  add_scene(&b, &parent, 1);
  tress_mesh *m = load_valid(&b, "trs_hierarchy.glb");
  assert_int_equal(m->vertex_count, OCTA_VERTICES);
  assert_int_equal(m->index_count, OCTA_VERTICES);
  assert_int_equal(check_instance(m, &o, 0, 0, chain, 2), 0);
  /* In centimetres-to-metres range: the stored mesh is ~2 units tall, the world one ~0.04. */
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  assert_true(mx[0] - mn[0] < 0.1f && mx[1] - mn[1] < 0.1f && mx[2] - mn[2] < 0.1f);
  tress_mesh_release(m);
  builder_free(&b);
}

/* A "matrix" node under a TRS parent, the matrix holding a rotation, unequal scale and offset. */
static void test_matrix_node(void **state) {
  (void)state;
  octa o = make_octa();
  builder b = builder_new();
  int mesh = add_octa_mesh(&b, &o, true);
  trs chain[2] = {trs_make(0, 2, 0, 0, 1, 0, 90, 1, 1, 1), trs_make(-1, 0.5, 3, 1, 1, 0, 60, 3, 0.25, 1.5)};
  int parent = add_node(&b, trs_node(&chain[0], -1));
  int child = add_node(&b, matrix_node(&chain[1], mesh));
  add_child(&b, parent, child);
  add_scene(&b, &parent, 1);
  tress_mesh *m = load_valid(&b, "matrix_node.glb");
  assert_int_equal(check_instance(m, &o, 0, 0, chain, 2), 0);
  tress_mesh_release(m);
  builder_free(&b);
}

/* Mirroring nodes: scale -1 on x (indexed, so the indices turn around) and a matrix flipping z
 * on a non-indexed primitive (so the vertices are swapped instead): faces keep facing out. */
static void test_mirrored_nodes(void **state) {
  (void)state;
  octa o = make_octa();
  for (int indexed = 1; indexed >= 0; indexed--) {
    builder b = builder_new();
    int mesh = add_octa_mesh(&b, &o, indexed);
    trs chain[1] = {indexed ? trs_make(1, 0, 0, 0, 0, 1, 20, -1, 1, 1) : trs_make(0, -1, 2, 0, 1, 0, 45, 1, 2, -1)};
    int node = add_node(&b, indexed ? trs_node(&chain[0], mesh) : matrix_node(&chain[0], mesh));
    add_scene(&b, &node, 1);
    tress_mesh *m = load_valid(&b, indexed ? "mirror_indexed.glb" : "mirror_matrix_unindexed.glb");
    assert_int_equal(m->index_count, indexed ? OCTA_VERTICES : 0);
    assert_true(chain_det(chain, 1) < 0.0);
    assert_int_equal(check_instance(m, &o, 0, 0, chain, 1), OCTA_VERTICES / 3);
    tress_mesh_release(m);
    builder_free(&b);
  }
}

/* One mesh instanced by two nodes gives two copies, in scene order, each placed by its node.
 * The default scene is "scene": 1; scenes[0] holds a decoy mesh node that must not appear, and
 * a node outside every scene does not either. */
static void test_mesh_instanced_twice(void **state) {
  (void)state;
  octa o = make_octa();
  builder b = builder_new();
  int mesh = add_octa_mesh(&b, &o, true);
  trs root = trs_make(0, 0, 0, 0, 0, 1, 10, 2, 2, 2);
  trs at[2] = {trs_make(-3, 0, 0, 0, 1, 0, 0, 1, 1, 1), trs_make(3, 1, 0, 0, 1, 0, 180, 1, 1, 1)};
  int decoy = add_node(&b, trs_node(&at[0], mesh));
  int holder = add_node(&b, trs_node(&root, -1));
  int first = add_node(&b, trs_node(&at[0], mesh));
  int second = add_node(&b, trs_node(&at[1], mesh));
  add_node(&b, trs_node(&at[1], mesh)); /* in no scene */
  add_child(&b, holder, first);
  add_child(&b, holder, second);
  add_scene(&b, &decoy, 1);
  add_scene(&b, &holder, 1);
  cJSON_AddNumberToObject(b.root, "scene", 1);
  tress_mesh *m = load_valid(&b, "instanced_twice.glb");
  assert_int_equal(m->vertex_count, 2 * OCTA_VERTICES);
  assert_int_equal(m->index_count, 2 * OCTA_VERTICES);
  trs chain_a[2] = {root, at[0]}, chain_b[2] = {root, at[1]};
  assert_int_equal(check_instance(m, &o, 0, 0, chain_a, 2), 0);
  assert_int_equal(check_instance(m, &o, OCTA_VERTICES, OCTA_VERTICES, chain_b, 2), 0);
  tress_mesh_release(m);

  /* No "scene" and no scenes: every root node counts (holder's two children, the decoy and the
   * stray node): four copies. */
  cJSON_DeleteItemFromObject(b.root, "scene");
  cJSON_DeleteItemFromObject(b.root, "scenes");
  b.scenes = NULL;
  size_t size;
  uint8_t *glb = pack_glb(&b, &size);
  tress_error err = {0};
  m = tress_gltf_read_memory(glb, size, NULL, &err);
  if (!m) fail_msg("no scenes: %s", err.message);
  assert_int_equal(m->vertex_count, 4 * OCTA_VERTICES);
  assert_int_equal(check_instance(m, &o, 0, 0, &at[0], 1), 0); /* decoy, node 0 */
  assert_int_equal(check_instance(m, &o, OCTA_VERTICES, OCTA_VERTICES, chain_a, 2), 0);
  assert_int_equal(check_instance(m, &o, 2 * OCTA_VERTICES, 2 * OCTA_VERTICES, chain_b, 2), 0);
  assert_int_equal(check_instance(m, &o, 3 * OCTA_VERTICES, 3 * OCTA_VERTICES, &at[1], 1), 0);
  tress_mesh_release(m);
  free(glb);
  builder_free(&b);
}

/* A skinned mesh is placed by its joints: the transform on its node (and its parent's) is
 * ignored and the positions come back exactly as stored, with the bones from the inverse bind
 * matrices. It is the default scene's skinned mesh (not a skinned node earlier in the file that
 * only another scene holds), and the scene's other (unskinned, transformed) mesh is not merged
 * into it. */
static void test_skinned_node_transform_ignored(void **state) {
  (void)state;
  octa o = make_octa();
  builder b = builder_new();
  int plain = add_octa_mesh(&b, &o, true);
  int pos, nrm, idx, joints, weights, ibm;
  cJSON *pa = add_accessor(&b, add_view(&b, o.pos, sizeof o.pos, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &pos);
  set_bounds(pa, o.pos, OCTA_VERTICES);
  add_accessor(&b, add_view(&b, o.nrm, sizeof o.nrm, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &nrm);
  add_accessor(&b, add_view(&b, o.idx, sizeof o.idx, 0, ELEMENT_ARRAY_BUFFER), 0, USHORT, "SCALAR", OCTA_VERTICES, &idx);
  uint8_t j[4 * OCTA_VERTICES] = {0};
  float w[4 * OCTA_VERTICES] = {0};
  for (int v = 0; v < OCTA_VERTICES; v++) {
    j[4 * v] = o.pos[3 * v + 1] > 0.0f ? 1 : 0;
    w[4 * v] = 1.0f;
  }
  add_accessor(&b, add_view(&b, j, sizeof j, 0, ARRAY_BUFFER), 0, UBYTE, "VEC4", OCTA_VERTICES, &joints);
  add_accessor(&b, add_view(&b, w, sizeof w, 0, ARRAY_BUFFER), 0, FLOAT, "VEC4", OCTA_VERTICES, &weights);
  float ibms[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1.5f, 0, 1};
  add_accessor(&b, add_view(&b, ibms, sizeof ibms, 0, 0), 0, FLOAT, "MAT4", 2, &ibm);
  /* A decoy skinned mesh (the octahedron three times larger) in a scene that is not the default. */
  float big[3 * OCTA_VERTICES];
  for (int i = 0; i < 3 * OCTA_VERTICES; i++) big[i] = 3.0f * o.pos[i];
  int big_pos;
  set_bounds(add_accessor(&b, add_view(&b, big, sizeof big, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &big_pos), big, OCTA_VERTICES);
  int skinned = add_mesh(&b, pos, nrm, idx), decoy = add_mesh(&b, big_pos, nrm, idx);
  for (int i = 0; i < 2; i++) {
    cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(b.meshes, i ? decoy : skinned), "primitives"), 0);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(prim, "attributes"), "JOINTS_0", joints);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(prim, "attributes"), "WEIGHTS_0", weights);
  }
  cJSON *dn = cJSON_CreateObject();
  cJSON_AddNumberToObject(dn, "mesh", decoy);
  cJSON_AddNumberToObject(dn, "skin", 0);
  int decoy_node = add_node(&b, dn);
  trs moved = trs_make(5, 0, 0, 0, 0, 1, 30, 0.01, 0.01, 0.01), lifted = trs_make(0, 3, 0, 1, 0, 0, -90, 2, 2, 2);
  int plain_node = add_node(&b, trs_node(&moved, plain));
  int parent = add_node(&b, trs_node(&lifted, -1));
  cJSON *sn = trs_node(&moved, skinned);
  cJSON_AddNumberToObject(sn, "skin", 0);
  int skinned_node = add_node(&b, sn);
  add_child(&b, parent, skinned_node);
  cJSON *j0 = cJSON_CreateObject(), *j1 = cJSON_CreateObject();
  cJSON_AddStringToObject(j0, "name", "Root");
  cJSON_AddItemToObject(j0, "translation", cJSON_CreateDoubleArray((double[]){0, 1, 0}, 3));
  cJSON_AddStringToObject(j1, "name", "Tip");
  cJSON_AddItemToObject(j1, "translation", cJSON_CreateDoubleArray((double[]){0, 0.5, 0}, 3));
  int n0 = add_node(&b, j0), n1 = add_node(&b, j1);
  add_child(&b, n0, n1);
  cJSON *skin = cJSON_CreateObject();
  cJSON_AddNumberToObject(skin, "inverseBindMatrices", ibm);
  cJSON_AddItemToObject(skin, "joints", cJSON_CreateIntArray((int[]){n0, n1}, 2));
  cJSON_AddItemToArray(cJSON_AddArrayToObject(b.root, "skins"), skin);
  add_scene(&b, (int[]){decoy_node, n0}, 2);
  add_scene(&b, (int[]){plain_node, parent, n0}, 3);
  cJSON_AddNumberToObject(b.root, "scene", 1);
  tress_mesh *m = load_valid(&b, "skinned_transformed_node.glb");
  assert_int_equal(m->vertex_count, OCTA_VERTICES);
  assert_memory_equal(m->positions, o.pos, sizeof o.pos);
  assert_memory_equal(m->normals, o.nrm, sizeof o.nrm);
  assert_int_equal(m->bone_count, 2);
  assert_string_equal(m->bones[0].name, "Root");
  assert_string_equal(m->bones[1].name, "Tip");
  assert_int_equal(m->bones[1].parent, 0);
  assert_float_equal(m->bones[0].bind_pos[1], 1.0f, 1e-6f);
  assert_float_equal(m->bones[1].bind_pos[1], 1.5f, 1e-6f);
  for (int v = 0; v < OCTA_VERTICES; v++) assert_int_equal(m->joints[4 * v], j[4 * v]);
  tress_mesh_release(m);
  builder_free(&b);
}

/* --- sparse accessors --- */

/* Positions interleaved with normals (stride 24), two of them replaced by a sparse accessor with
 * UNSIGNED_INT indices; the octahedron's normals replaced in three places by one with
 * UNSIGNED_SHORT indices. The sparse positions also go through a node transform. */
typedef enum sparse_lie {
  SPARSE_VALID, SPARSE_INDEX_PAST_COUNT, SPARSE_INDICES_VIEW_SHORT, SPARSE_VALUES_VIEW_SHORT, SPARSE_UNSORTED, SPARSE_DUPLICATE,
  SPARSE_COUNT_OVER, SPARSE_COUNT_ZERO, SPARSE_INDEX_FLOAT, SPARSE_NO_VALUES, SPARSE_VALUES_VIEW_MISSING, SPARSE_LIE_COUNT
} sparse_lie;

static const char *const sparse_lie_message[SPARSE_LIE_COUNT] = {
  [SPARSE_INDEX_PAST_COUNT] = "sparse index 1 is 24, past its 24 elements",
  [SPARSE_INDICES_VIEW_SHORT] = "sparse indices (2 x 4 bytes from offset 0) run past",
  [SPARSE_VALUES_VIEW_SHORT] = "sparse values (2 x 12 bytes from offset 0) run past",
  [SPARSE_UNSORTED] = "sparse index 1 is 1, below the 7 before it",
  [SPARSE_DUPLICATE] = "sparse index 1 repeats element 7",
  [SPARSE_COUNT_OVER] = "has 25 sparse values for 24 elements",
  [SPARSE_COUNT_ZERO] = "has 0 sparse values for 24 elements",
  [SPARSE_INDEX_FLOAT] = "sparse indices have component type 5126",
  [SPARSE_NO_VALUES] = "sparse needs indices and values",
  [SPARSE_VALUES_VIEW_MISSING] = "bufferViews[99], which does not exist",
};

static const float sparse_new_pos[6] = {4.0f, 5.0f, 6.0f, -7.0f, 0.5f, 0.25f};

static void build_sparse_over_view(builder *b, const octa *o, const trs *place, sparse_lie lie) {
  float inter[6 * OCTA_VERTICES];
  for (int v = 0; v < OCTA_VERTICES; v++) {
    memcpy(inter + 6 * v, o->pos + 3 * v, 12);
    memcpy(inter + 6 * v + 3, o->nrm + 3 * v, 12);
  }
  int view = add_view(b, inter, sizeof inter, 24, ARRAY_BUFFER), pos, nrm, idx;
  cJSON *pa = add_accessor(b, view, 0, FLOAT, "VEC3", OCTA_VERTICES, &pos);
  float effective[3 * OCTA_VERTICES];
  memcpy(effective, o->pos, sizeof effective);
  memcpy(effective + 3 * 1, sparse_new_pos, 12);
  memcpy(effective + 3 * 7, sparse_new_pos + 3, 12);
  set_bounds(pa, effective, OCTA_VERTICES);
  uint32_t at[2] = {1, 7};
  if (lie == SPARSE_INDEX_PAST_COUNT) at[1] = OCTA_VERTICES;
  if (lie == SPARSE_UNSORTED) at[0] = 7, at[1] = 1;
  if (lie == SPARSE_DUPLICATE) at[0] = 7;
  add_sparse(b, pa, 2, UINT, at, lie == SPARSE_INDICES_VIEW_SHORT ? 7 : sizeof at, sparse_new_pos,
             lie == SPARSE_VALUES_VIEW_SHORT ? 20 : sizeof sparse_new_pos);
  cJSON *sp = cJSON_GetObjectItem(pa, "sparse");
  if (lie == SPARSE_COUNT_OVER) cJSON_ReplaceItemInObject(sp, "count", cJSON_CreateNumber(25));
  if (lie == SPARSE_COUNT_ZERO) cJSON_ReplaceItemInObject(sp, "count", cJSON_CreateNumber(0));
  if (lie == SPARSE_INDEX_FLOAT) cJSON_ReplaceItemInObject(cJSON_GetObjectItem(sp, "indices"), "componentType", cJSON_CreateNumber(FLOAT));
  if (lie == SPARSE_NO_VALUES) cJSON_DeleteItemFromObject(sp, "values");
  if (lie == SPARSE_VALUES_VIEW_MISSING) cJSON_ReplaceItemInObject(cJSON_GetObjectItem(sp, "values"), "bufferView", cJSON_CreateNumber(99));
  add_accessor(b, view, 12, FLOAT, "VEC3", OCTA_VERTICES, &nrm);
  add_accessor(b, add_view(b, o->idx, sizeof o->idx, 0, ELEMENT_ARRAY_BUFFER), 0, USHORT, "SCALAR", OCTA_VERTICES, &idx);
  int mesh = add_mesh(b, pos, nrm, idx);
  int node = add_node(b, trs_node(place, mesh));
  add_scene(b, &node, 1);
}

static void test_sparse_positions_over_view(void **state) {
  (void)state;
  octa o = make_octa();
  trs place = trs_make(1, 2, 3, 0, 1, 0, 90, 0.5, 0.5, 0.5);
  builder b = builder_new();
  build_sparse_over_view(&b, &o, &place, SPARSE_VALID);
  tress_mesh *m = load_valid(&b, "sparse_over_strided_view.glb");
  assert_int_equal(m->vertex_count, OCTA_VERTICES);
  for (int v = 0; v < OCTA_VERTICES; v++) {
    const float *src = v == 1 ? sparse_new_pos : v == 7 ? sparse_new_pos + 3 : o.pos + 3 * v;
    double in[3] = {src[0], src[1], src[2]}, want[3];
    trs_apply(&place, in, want);
    for (int k = 0; k < 3; k++) assert_float_equal(m->positions[3 * v + k], want[k], TOL);
  }
  tress_mesh_release(m);
  builder_free(&b);
}

/* Sparse with no bufferView: zeros with values over them (UNSIGNED_BYTE indices), here every
 * vertex but two, which stay at the origin; and NORMAL sparse over its view (UNSIGNED_SHORT). */
static void test_sparse_without_view_and_on_normals(void **state) {
  (void)state;
  octa o = make_octa();
  builder b = builder_new();
  uint8_t at8[OCTA_VERTICES - 2];
  float values[3 * (OCTA_VERTICES - 2)], effective[3 * OCTA_VERTICES] = {0};
  int k = 0;
  for (int v = 0; v < OCTA_VERTICES; v++) {
    if (v == 4 || v == 17) continue;
    at8[k] = (uint8_t)v;
    memcpy(values + 3 * k, o.pos + 3 * v, 12);
    memcpy(effective + 3 * v, o.pos + 3 * v, 12);
    k++;
  }
  int pos, nrm, idx;
  cJSON *pa = add_accessor(&b, -1, 0, FLOAT, "VEC3", OCTA_VERTICES, &pos);
  set_bounds(pa, effective, OCTA_VERTICES);
  add_sparse(&b, pa, OCTA_VERTICES - 2, UBYTE, at8, sizeof at8, values, sizeof values);
  cJSON *na = add_accessor(&b, add_view(&b, o.nrm, sizeof o.nrm, 0, ARRAY_BUFFER), 0, FLOAT, "VEC3", OCTA_VERTICES, &nrm);
  uint16_t at16[3] = {0, 9, 23};
  const float new_nrm[9] = {0, 1, 0, 0.6f, 0, 0.8f, 0, 0, -1};
  add_sparse(&b, na, 3, USHORT, at16, sizeof at16, new_nrm, sizeof new_nrm);
  add_accessor(&b, add_view(&b, o.idx, sizeof o.idx, 0, ELEMENT_ARRAY_BUFFER), 0, USHORT, "SCALAR", OCTA_VERTICES, &idx);
  int mesh = add_mesh(&b, pos, nrm, idx);
  cJSON *node = cJSON_CreateObject();
  cJSON_AddNumberToObject(node, "mesh", mesh);
  int n = add_node(&b, node);
  add_scene(&b, &n, 1);
  tress_mesh *m = load_valid(&b, "sparse_over_zeros.glb");
  assert_memory_equal(m->positions, effective, sizeof effective);
  for (int v = 0; v < OCTA_VERTICES; v++) {
    int s = v == 0 ? 0 : v == 9 ? 1 : v == 23 ? 2 : -1;
    for (int c = 0; c < 3; c++) assert_true(m->normals[3 * v + c] == (s >= 0 ? new_nrm[3 * s + c] : o.nrm[3 * v + c]));
  }
  tress_mesh_release(m);
  builder_free(&b);
}

static void test_sparse_lies(void **state) {
  (void)state;
  octa o = make_octa();
  trs place = trs_make(0, 0, 0, 0, 1, 0, 0, 1, 1, 1);
  for (int lie = SPARSE_VALID + 1; lie < SPARSE_LIE_COUNT; lie++) {
    builder b = builder_new();
    build_sparse_over_view(&b, &o, &place, (sparse_lie)lie);
    expect_refused(&b, sparse_lie_message[lie]);
    builder_free(&b);
  }
}

/* A sparse accessor over zeros has a count no byte backs: the reader expands at most 256 MiB,
 * and instancing one mesh cannot make the output exceed TRESS_GLTF_MAX_VERTICES. */
static void test_sparse_and_instancing_caps(void **state) {
  (void)state;
  const uint32_t counts[2] = {30000000, 3000000};
  const int instances[2] = {1, 6};
  const char *expect[2] = {"more than the reader expands", "too large"};
  for (int c = 0; c < 2; c++) {
    builder b = builder_new();
    int pos;
    cJSON *pa = add_accessor(&b, -1, 0, FLOAT, "VEC3", counts[c], &pos);
    uint8_t at = 0;
    float value[3] = {1, 2, 3};
    add_sparse(&b, pa, 1, UBYTE, &at, 1, value, sizeof value);
    int mesh = add_mesh(&b, pos, -1, -1), roots[8];
    for (int i = 0; i < instances[c]; i++) {
      cJSON *node = cJSON_CreateObject();
      cJSON_AddNumberToObject(node, "mesh", mesh);
      roots[i] = add_node(&b, node);
    }
    add_scene(&b, roots, instances[c]);
    expect_refused(&b, expect[c]);
    builder_free(&b);
  }
}

/* --- node trees that lie --- */

typedef enum tree_lie {
  TREE_CYCLE, TREE_SHARED_CHILD, TREE_CHILD_RANGE, TREE_ZERO_QUATERNION, TREE_MATRIX_PROJECTIVE, TREE_MATRIX_SHORT,
  TREE_TRANSLATION_TEXT, TREE_SCENE_RANGE, TREE_MESH_OUTSIDE_SCENE, TREE_OVERFLOW, TREE_CHILDREN_OBJECT, TREE_LIE_COUNT
} tree_lie;

static const char *const tree_lie_message[TREE_LIE_COUNT] = {
  [TREE_CYCLE] = "node 0 is reached twice from the scene",
  [TREE_SHARED_CHILD] = "node 1 is reached twice from the scene",
  [TREE_CHILD_RANGE] = "a node child is not a node",
  [TREE_ZERO_QUATERNION] = "node 1 rotation is not a quaternion",
  [TREE_MATRIX_PROJECTIVE] = "node 1 matrix is not affine",
  [TREE_MATRIX_SHORT] = "node 1 matrix is not 16 finite numbers",
  [TREE_TRANSLATION_TEXT] = "node 0 translation is not 3 finite numbers",
  [TREE_SCENE_RANGE] = "scenes[5], which does not exist",
  [TREE_MESH_OUTSIDE_SCENE] = "no node of the scene instances a mesh",
  [TREE_OVERFLOW] = "world matrix is not finite",
  [TREE_CHILDREN_OBJECT] = "node 0 children is not an array",
};

static void test_node_tree_lies(void **state) {
  (void)state;
  octa o = make_octa();
  for (int lie = 0; lie < TREE_LIE_COUNT; lie++) {
    builder b = builder_new();
    int mesh = add_octa_mesh(&b, &o, true);
    trs up = trs_make(0, 1, 0, 1, 0, 0, 90, 0.01, 0.01, 0.01), own = trs_make(1, 0, 0, 0, 1, 0, 10, 1, 1, 1);
    int parent = add_node(&b, trs_node(&up, -1));
    int child = add_node(&b, lie == TREE_MATRIX_PROJECTIVE || lie == TREE_MATRIX_SHORT ? matrix_node(&own, mesh) : trs_node(&own, mesh));
    add_child(&b, parent, child);
    int roots[2] = {parent, parent};
    int root_count = 1;
    cJSON *pn = cJSON_GetArrayItem(b.nodes, parent), *cn = cJSON_GetArrayItem(b.nodes, child);
    switch ((tree_lie)lie) {
    case TREE_CYCLE: add_child(&b, child, parent); break;
    case TREE_SHARED_CHILD: {
      roots[1] = add_node(&b, cJSON_CreateObject());
      add_child(&b, roots[1], child);
      root_count = 2;
      break;
    }
    case TREE_CHILD_RANGE: add_child(&b, parent, 99); break;
    case TREE_ZERO_QUATERNION: cJSON_ReplaceItemInObject(cn, "rotation", cJSON_CreateDoubleArray((double[]){0, 0, 0, 0}, 4)); break;
    case TREE_MATRIX_PROJECTIVE: cJSON_ReplaceItemInArray(cJSON_GetObjectItem(cn, "matrix"), 3, cJSON_CreateNumber(0.5)); break;
    case TREE_MATRIX_SHORT: cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cn, "matrix"), 15); break;
    case TREE_TRANSLATION_TEXT: cJSON_ReplaceItemInArray(cJSON_GetObjectItem(pn, "translation"), 1, cJSON_CreateString("1")); break;
    case TREE_SCENE_RANGE: cJSON_AddNumberToObject(b.root, "scene", 5); break;
    case TREE_MESH_OUTSIDE_SCENE: roots[0] = add_node(&b, cJSON_CreateObject()); break;
    case TREE_OVERFLOW:
      cJSON_ReplaceItemInObject(pn, "scale", cJSON_CreateDoubleArray((double[]){1e200, 1e200, 1e200}, 3));
      cJSON_ReplaceItemInObject(cn, "scale", cJSON_CreateDoubleArray((double[]){1e200, 1e200, 1e200}, 3));
      break;
    case TREE_CHILDREN_OBJECT: cJSON_ReplaceItemInObject(pn, "children", cJSON_CreateObject()); break;
    case TREE_LIE_COUNT: break;
    }
    add_scene(&b, roots, root_count);
    expect_refused(&b, tree_lie_message[lie]);
    builder_free(&b);
  }
}

/* Every byte of a sparse, mirrored fixture flipped three ways (each copy its own allocation, so
 * ASan sees any read past it): never a crash, and whatever is accepted is safe to use. */
static void test_corrupted_fixture(void **state) {
  (void)state;
  octa o = make_octa();
  trs place = trs_make(1, 2, 3, 0, 1, 0, 90, -0.5, 0.5, 0.5);
  builder b = builder_new();
  build_sparse_over_view(&b, &o, &place, SPARSE_VALID);
  size_t size, accepted = 0, rejected = 0;
  uint8_t *glb = pack_glb(&b, &size);
  const uint8_t flips[3] = {0xFF, 0x01, 0x80};
  tress_error err = {0};
  tress_mesh *intact = tress_gltf_read_memory(glb, size, NULL, &err);
  if (!intact) fail_msg("the uncorrupted fixture: %s", err.message);
  assert_int_equal(intact->vertex_count, OCTA_VERTICES);
  tress_mesh_release(intact);
  for (size_t at = 0; at < size; at++)
    for (int f = 0; f < 3; f++) {
      uint8_t *copy = malloc(size);
      memcpy(copy, glb, size);
      copy[at] ^= flips[f];
      tress_mesh *m = tress_gltf_read_memory(copy, size, NULL, &err);
      if (m) {
        for (uint32_t i = 0; i < m->index_count; i++) assert_true(m->indices[i] < m->vertex_count);
        for (size_t i = 0; i < 3 * (size_t)m->vertex_count; i++) assert_true(isfinite(m->positions[i]));
        tress_mesh_release(m);
        accepted++;
      } else {
        rejected++;
      }
      free(copy);
    }
  print_message("corrupted %zu-byte sparse glb: %zu accepted, %zu rejected\n", size, accepted, rejected);
  assert_true(rejected > 0 && accepted > 0);
  free(glb);
  builder_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_trs_parent_and_child),
    cmocka_unit_test(test_matrix_node),
    cmocka_unit_test(test_mirrored_nodes),
    cmocka_unit_test(test_mesh_instanced_twice),
    cmocka_unit_test(test_skinned_node_transform_ignored),
    cmocka_unit_test(test_sparse_positions_over_view),
    cmocka_unit_test(test_sparse_without_view_and_on_normals),
    cmocka_unit_test(test_sparse_lies),
    cmocka_unit_test(test_sparse_and_instancing_caps),
    cmocka_unit_test(test_node_tree_lies),
    cmocka_unit_test(test_corrupted_fixture),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
