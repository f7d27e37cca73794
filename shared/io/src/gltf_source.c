/* gltf_source.c - what a rewrite carries from the glTF file it read (tress/gltf_source.h).
 *
 * Kept small: the container, the buffers a carried part needs (the GLB BIN chunk or a base64
 * data: URI), node matrices for the skin's first joint, and copies of the material arrays. The
 * mesh itself is read by gltf_read.c. An image stored in a bufferView is carried as its bytes
 * (gltf_write.c puts them in the output's buffer); an image with a uri keeps the uri. */
#include "tress/gltf_source.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/gltf.h"
#include "gltf_source_internal.h"

#define MAX_DEPTH 256 /* node parents followed to compose a world matrix */

static uint32_t u32_le(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The JSON text and, for a GLB, its BIN chunk. */
static bool split_container(const uint8_t *data, size_t size, const char **json, size_t *json_len, const uint8_t **bin,
                            size_t *bin_len) {
  *bin = NULL;
  *bin_len = 0;
  if (size < 12 || memcmp(data, "glTF", 4) != 0) { *json = (const char *)data; *json_len = size; return true; }
  if (size < 20 || u32_le(data + 16) != 0x4E4F534Au) return false;
  uint64_t jl = u32_le(data + 12);
  if (20 + jl > size) return false;
  *json = (const char *)data + 20;
  *json_len = (size_t)jl;
  uint64_t at = 20 + ((jl + 3) & ~(uint64_t)3);
  if (at + 8 <= size && u32_le(data + at + 4) == 0x004E4942u) {
    uint64_t bl = u32_le(data + at);
    if (at + 8 + bl <= size) { *bin = data + at + 8; *bin_len = (size_t)bl; }
  }
  return true;
}

/* Buffer i's bytes: the BIN chunk for a GLB's uri-less buffer, or a decoded data: URI (owned). */
static bool buffer_bytes(tress_gltf_source *s, const cJSON *root, int i, const uint8_t *bin, size_t bin_len,
                         const uint8_t **out, size_t *len) {
  const cJSON *buf = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "buffers"), i);
  const cJSON *uri = cJSON_GetObjectItemCaseSensitive(buf, "uri");
  if (!buf) return false;
  if (!uri) { *out = bin; *len = bin_len; return bin != NULL; }
  if (!cJSON_IsString(uri) || strncmp(uri->valuestring, "data:", 5) != 0) return false;
  const char *comma = strchr(uri->valuestring, ',');
  if (!comma || comma - uri->valuestring < 12 || strncmp(comma - 7, ";base64", 7) != 0) return false;
  size_t enc = strlen(comma + 1), cap = enc / 4 * 3 + 3;
  uint8_t *dec = malloc(cap);
  size_t n = 0;
  if (!dec || sodium_base642bin(dec, cap, comma + 1, enc, " \r\n", &n, NULL, sodium_base64_VARIANT_ORIGINAL) != 0) {
    free(dec);
    return false;
  }
  if (s->owned_count >= TRESS__GLTF_SOURCE_MAX_OWNED) { free(dec); return false; }
  s->owned[s->owned_count++] = dec;
  *out = dec;
  *len = n;
  return true;
}

static bool view_bytes(tress_gltf_source *s, const cJSON *root, int view, const uint8_t *bin, size_t bin_len,
                       const uint8_t **out, size_t *len) {
  const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "bufferViews"), view);
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "buffer"), *o = cJSON_GetObjectItemCaseSensitive(v, "byteOffset"),
              *l = cJSON_GetObjectItemCaseSensitive(v, "byteLength");
  if (!cJSON_IsNumber(b) || !cJSON_IsNumber(l) || l->valuedouble < 0) return false;
  double off = cJSON_IsNumber(o) ? o->valuedouble : 0.0;
  const uint8_t *data;
  size_t size;
  if (!buffer_bytes(s, root, b->valueint, bin, bin_len, &data, &size)) return false;
  if (off < 0 || off + l->valuedouble > (double)size) return false;
  *out = data + (size_t)off;
  *len = (size_t)l->valuedouble;
  return true;
}

static void copy_array(cJSON *root, const char *key, cJSON **out) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
  *out = cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0 ? cJSON_Duplicate(a, true) : NULL;
}

/* Images: each bufferView image's bytes copied out (the writer re-homes them), the view dropped. */
static bool carry_images(tress_gltf_source *s, cJSON *root, const uint8_t *bin, size_t bin_len) {
  if (!s->images) return true;
  int n = cJSON_GetArraySize(s->images);
  s->image_bytes = calloc((size_t)n, sizeof *s->image_bytes);
  s->image_sizes = calloc((size_t)n, sizeof *s->image_sizes);
  if (!s->image_bytes || !s->image_sizes) return false;
  for (int i = 0; i < n; i++) {
    cJSON *img = cJSON_GetArrayItem(s->images, i);
    const cJSON *view = cJSON_GetObjectItemCaseSensitive(img, "bufferView");
    if (!view) continue;
    const uint8_t *data;
    size_t len;
    if (!cJSON_IsNumber(view) || !view_bytes(s, root, view->valueint, bin, bin_len, &data, &len)) return false;
    s->image_bytes[i] = malloc(len ? len : 1);
    if (!s->image_bytes[i]) return false;
    memcpy(s->image_bytes[i], data, len);
    s->image_sizes[i] = len;
    cJSON_DeleteItemFromObjectCaseSensitive(img, "bufferView");
  }
  return true;
}

static bool numbers(const cJSON *a, int n, double *out) {
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) return false;
  for (int i = 0; i < n; i++) {
    const cJSON *x = cJSON_GetArrayItem(a, i);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return false;
    out[i] = x->valuedouble;
  }
  return true;
}

/* A node's local matrix (column-major): "matrix", or T * R * S. */
static void node_local(const cJSON *node, double m[16]) {
  if (numbers(cJSON_GetObjectItemCaseSensitive(node, "matrix"), 16, m)) return;
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
  numbers(cJSON_GetObjectItemCaseSensitive(node, "translation"), 3, t);
  numbers(cJSON_GetObjectItemCaseSensitive(node, "rotation"), 4, q);
  numbers(cJSON_GetObjectItemCaseSensitive(node, "scale"), 3, sc);
  double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 1e-12)) len = 1.0, q[3] = 1.0;
  double x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                    {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                    {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  for (int c = 0; c < 3; c++) {
    for (int row = 0; row < 3; row++) m[4 * c + row] = r[row][c] * sc[c];
    m[4 * c + 3] = 0.0;
  }
  m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1.0;
}

static void mul(const double a[16], const double b[16], double out[16]) {
  double t[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      double sum = 0;
      for (int k = 0; k < 4; k++) sum += a[4 * k + r] * b[4 * c + k];
      t[4 * c + r] = sum;
    }
  memcpy(out, t, sizeof t);
}

static int parent_of(const cJSON *nodes, int child) {
  int i = 0;
  for (const cJSON *n = nodes ? nodes->child : NULL; n; n = n->next, i++) {
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children"))
      if (cJSON_IsNumber(c) && c->valueint == child) return i;
  }
  return -1;
}

static bool world_matrix(const cJSON *nodes, int node, double out[16]) {
  double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  for (int depth = 0; node >= 0; depth++) {
    if (depth >= MAX_DEPTH) return false;
    const cJSON *n = cJSON_GetArrayItem(nodes, node);
    if (!n) return false;
    double local[16];
    node_local(n, local);
    mul(local, m, m);
    node = parent_of(nodes, node);
  }
  memcpy(out, m, sizeof m);
  return true;
}

/* The first node with a skin: its mesh's material and the bind placement of joint 0. */
static void read_skin(tress_gltf_source *s, const cJSON *root, const uint8_t *bin, size_t bin_len) {
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes"), *n;
  int index = 0;
  cJSON_ArrayForEach(n, nodes) {
    const cJSON *skin_ref = cJSON_GetObjectItemCaseSensitive(n, "skin");
    if (cJSON_IsNumber(skin_ref) && cJSON_GetObjectItemCaseSensitive(n, "mesh")) break;
    index++;
  }
  if (!n) return;
  double local[16];
  node_local(n, local);
  for (int k = 0; k < 16; k++) s->mesh_node[k] = (float)local[k];
  const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(n, "mesh");
  s->mesh_index = cJSON_IsNumber(mesh) ? mesh->valueint : -1;
  const cJSON *skin = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "skins"), cJSON_GetObjectItemCaseSensitive(n, "skin")->valueint);
  const cJSON *joint0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(skin, "joints"), 0);
  if (!cJSON_IsNumber(joint0)) return;
  double world[16], ibm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  if (!world_matrix(nodes, joint0->valueint, world)) return;
  const cJSON *acc_ref = cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices");
  if (acc_ref) {
    const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "accessors"), acc_ref->valueint);
    const cJSON *view = cJSON_GetObjectItemCaseSensitive(acc, "bufferView"), *off = cJSON_GetObjectItemCaseSensitive(acc, "byteOffset");
    const uint8_t *data;
    size_t len, at = cJSON_IsNumber(off) ? (size_t)off->valuedouble : 0;
    if (!cJSON_IsNumber(view) || !view_bytes(s, root, view->valueint, bin, bin_len, &data, &len) || at + 64 > len) return;
    float f[16];
    memcpy(f, data + at, sizeof f);
    for (int k = 0; k < 16; k++) ibm[k] = f[k];
  }
  double placement[16];
  mul(world, ibm, placement);
  for (int k = 0; k < 16; k++) s->placement[k] = (float)placement[k];
  s->skinned = true;
}

/* The material of the mesh's first primitive (the skinned mesh's, else mesh 0's). */
static void read_material(tress_gltf_source *s, const cJSON *root) {
  const cJSON *mesh = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "meshes"), s->mesh_index >= 0 ? s->mesh_index : 0);
  const cJSON *prim, *first = NULL;
  int distinct_other = 0;
  cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(mesh, "primitives")) {
    const cJSON *mat = cJSON_GetObjectItemCaseSensitive(prim, "material");
    if (!first) { first = mat ? mat : prim; s->material = cJSON_IsNumber(mat) ? mat->valueint : -1; continue; }
    distinct_other += (cJSON_IsNumber(mat) ? mat->valueint : -1) != s->material;
  }
  if (distinct_other)
    snprintf(s->warning + strlen(s->warning), sizeof s->warning - strlen(s->warning),
             "%sthe mesh's primitives use different materials; the output's one primitive uses the first's",
             s->warning[0] ? "; " : "");
}

/* The extensions the carried arrays use (extensionsUsed entries found as keys inside them). */
static bool uses_extension(const cJSON *item, const char *name) {
  if (!item) return false;
  if (item->string && strcmp(item->string, name) == 0) return true;
  for (const cJSON *c = item->child; c; c = c->next)
    if (uses_extension(c, name)) return true;
  return false;
}

static void read_extensions(tress_gltf_source *s, const cJSON *root) {
  const cJSON *used = cJSON_GetObjectItemCaseSensitive(root, "extensionsUsed"), *e;
  cJSON_ArrayForEach(e, used) {
    if (!cJSON_IsString(e)) continue;
    cJSON *parts[4] = {s->materials, s->textures, s->images, s->samplers};
    bool found = false;
    for (int i = 0; i < 4; i++) found |= uses_extension(parts[i], e->valuestring);
    if (!found) continue;
    if (!s->extensions) s->extensions = cJSON_CreateArray();
    cJSON_AddItemToArray(s->extensions, cJSON_CreateString(e->valuestring));
  }
}

static void drop_textures(tress_gltf_source *s) {
  cJSON_Delete(s->materials);
  cJSON_Delete(s->textures);
  cJSON_Delete(s->images);
  cJSON_Delete(s->samplers);
  s->materials = s->textures = s->images = s->samplers = NULL;
  s->material = -1;
  snprintf(s->warning + strlen(s->warning), sizeof s->warning - strlen(s->warning),
           "%smaterials and textures not carried: an image's bytes are in an external buffer or unreadable",
           s->warning[0] ? "; " : "");
}

tress_gltf_source *tress_gltf_source_load(const char *path, tress_error *err) {
  size_t size;
  uint8_t *data = tress_file_read(path, TRESS_GLTF_MAX_FILE_BYTES, &size, err);
  if (!data) return NULL;
  const char *json;
  size_t json_len;
  const uint8_t *bin;
  size_t bin_len;
  cJSON *root = split_container(data, size, &json, &json_len, &bin, &bin_len) ? cJSON_ParseWithLength(json, json_len) : NULL;
  tress_gltf_source *s = root ? calloc(1, sizeof *s) : NULL;
  if (!s) {
    cJSON_Delete(root);
    free(data);
    tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%.150s: not a glTF document", path);
    return NULL;
  }
  s->material = s->mesh_index = -1;
  for (int k = 0; k < 16; k++) s->mesh_node[k] = s->placement[k] = k % 5 == 0 ? 1.0f : 0.0f;
  const cJSON *copyright = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "asset"), "copyright");
  if (cJSON_IsString(copyright)) s->copyright = strdup(copyright->valuestring);
  copy_array(root, "materials", &s->materials);
  copy_array(root, "textures", &s->textures);
  copy_array(root, "images", &s->images);
  copy_array(root, "samplers", &s->samplers);
  if (!carry_images(s, root, bin, bin_len)) drop_textures(s);
  read_skin(s, root, bin, bin_len);
  if (s->materials) read_material(s, root);
  read_extensions(s, root);
  cJSON_Delete(root);
  free(data);
  return s;
}

void tress_gltf_source_destroy(tress_gltf_source *s) {
  if (!s) return;
  int images = s->images ? cJSON_GetArraySize(s->images) : 0;
  for (int i = 0; s->image_bytes && i < images; i++) free(s->image_bytes[i]);
  free(s->image_bytes);
  free(s->image_sizes);
  for (int i = 0; i < s->owned_count; i++) free(s->owned[i]);
  cJSON_Delete(s->materials);
  cJSON_Delete(s->textures);
  cJSON_Delete(s->images);
  cJSON_Delete(s->samplers);
  cJSON_Delete(s->extensions);
  free(s->copyright);
  free(s);
}

const char *tress_gltf_source_get_warning(const tress_gltf_source *s) { return s->warning; }
const char *tress_gltf_source_get_copyright(const tress_gltf_source *s) { return s->copyright; }
int tress_gltf_source_get_material_count(const tress_gltf_source *s) { return s->materials ? cJSON_GetArraySize(s->materials) : 0; }
int tress_gltf_source_get_image_count(const tress_gltf_source *s) { return s->images ? cJSON_GetArraySize(s->images) : 0; }

bool tress_gltf_source_get_bind_placement(const tress_gltf_source *s, float m[16]) {
  memcpy(m, s->placement, sizeof s->placement);
  return s->skinned;
}

void tress_gltf_source_get_mesh_node_matrix(const tress_gltf_source *s, float m[16]) { memcpy(m, s->mesh_node, sizeof s->mesh_node); }
