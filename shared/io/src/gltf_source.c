/* gltf_source.c - what a rewrite carries from the glTF file it read (tress/gltf_source.h), read
 * with io's document reader (gltf_document.h: container, buffers, views, nodes, skins). The mesh
 * itself is read by gltf_read.c. An image stored in a bufferView is carried as its bytes
 * (gltf_write.c puts them in the output's buffer); an image with a uri keeps the uri. */
#include "tress/gltf_source.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/gltf.h"
#include "gltf_document.h"
#include "gltf_source_internal.h"

/* bufferView view's bytes (buffers loaded). */
static bool view_bytes(tress__gltf_doc *doc, int view, const uint8_t **out, size_t *len) {
  tress__gltf_span span;
  uint64_t stride;
  if (view < 0 || !tress__gltf_view_get(doc, (uint64_t)view, "image", &span, &stride)) return false;
  *out = span.data;
  *len = (size_t)span.size;
  return true;
}

static void copy_array(cJSON *root, const char *key, cJSON **out) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
  *out = cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0 ? cJSON_Duplicate(a, true) : NULL;
}

/* Images: each bufferView image's bytes copied out (the writer re-homes them), the view dropped. */
static bool carry_images(tress_gltf_source *s, tress__gltf_doc *doc, bool buffers) {
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
    if (!buffers || !cJSON_IsNumber(view) || !view_bytes(doc, view->valueint, &data, &len)) return false;
    s->image_bytes[i] = malloc(len ? len : 1);
    if (!s->image_bytes[i]) return false;
    memcpy(s->image_bytes[i], data, len);
    s->image_sizes[i] = len;
    cJSON_DeleteItemFromObjectCaseSensitive(img, "bufferView");
  }
  return true;
}

/* A node's world matrix at rest: local matrices composed up the (checked) node tree. */
static bool world_matrix(tress__gltf_doc *doc, int32_t node, double out[16]) {
  double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  for (uint32_t depth = 0; node >= 0; depth++) {
    if (depth > doc->node_count || (uint32_t)node >= doc->node_count || doc->nodes[node].bad) return false;
    double local[16];
    if (!tress__gltf_node_matrix(doc, node, local)) return false;
    double product[16]; /* mat_mul's out must not alias an input */
    tress__gltf_mat_mul(local, m, product);
    memcpy(m, product, sizeof m);
    node = doc->nodes[node].parent;
  }
  memcpy(out, m, sizeof m);
  return true;
}

/* The first node with a skin: its mesh, its local matrix and the bind placement of joint 0. */
static void read_skin(tress_gltf_source *s, tress__gltf_doc *doc, bool buffers) {
  int32_t index = -1;
  for (uint32_t i = 0; i < doc->node_count && index < 0; i++) {
    const cJSON *n = doc->nodes[i].json;
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(n, "skin")) && cJSON_GetObjectItemCaseSensitive(n, "mesh")) index = (int32_t)i;
  }
  if (index < 0) return;
  const cJSON *n = doc->nodes[index].json, *mesh = cJSON_GetObjectItemCaseSensitive(n, "mesh");
  s->mesh_index = cJSON_IsNumber(mesh) ? mesh->valueint : -1;
  double local[16], world[16], ibm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  if (tress__gltf_node_matrix(doc, index, local))
    for (int k = 0; k < 16; k++) s->mesh_node[k] = (float)local[k];
  tress__gltf_skin skin;
  memset(&skin, 0, sizeof skin);
  double skin_index = cJSON_GetObjectItemCaseSensitive(n, "skin")->valuedouble;
  if (!buffers || skin_index < 0 || !tress__gltf_skin_read(doc, (uint64_t)skin_index, 65536, &skin)) return;
  bool ok = skin.joint_count > 0 && world_matrix(doc, skin.joint_node[0], world);
  if (ok && skin.has_inverse_binds)
    for (int k = 0; k < 16; k++) ibm[k] = tress__gltf_read_float(&skin.inverse_binds, 0, k);
  tress__gltf_skin_free(&skin);
  if (!ok) return;
  double placement[16];
  tress__gltf_mat_mul(world, ibm, placement);
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
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  tress__gltf_doc doc;
  tress_gltf_source *s = NULL;
  if (tress__gltf_doc_open(&doc, data, size, dir, err) == 0) s = calloc(1, sizeof *s);
  if (!s) {
    tress__gltf_doc_close(&doc);
    free(data);
    if (err && !err->message[0]) tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  /* Buffers that do not load only keep images and the bind placement from being carried. */
  bool buffers = tress__gltf_doc_load_buffers(&doc);
  cJSON *root = doc.root;
  s->material = s->mesh_index = -1;
  for (int k = 0; k < 16; k++) s->mesh_node[k] = s->placement[k] = k % 5 == 0 ? 1.0f : 0.0f;
  const cJSON *copyright = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "asset"), "copyright");
  if (cJSON_IsString(copyright)) s->copyright = strdup(copyright->valuestring);
  copy_array(root, "materials", &s->materials);
  copy_array(root, "textures", &s->textures);
  copy_array(root, "images", &s->images);
  copy_array(root, "samplers", &s->samplers);
  if (!carry_images(s, &doc, buffers)) drop_textures(s);
  read_skin(s, &doc, buffers);
  if (s->materials) read_material(s, root);
  read_extensions(s, root);
  tress__gltf_doc_close(&doc);
  free(data);
  return s;
}

void tress_gltf_source_destroy(tress_gltf_source *s) {
  if (!s) return;
  int images = s->images ? cJSON_GetArraySize(s->images) : 0;
  for (int i = 0; s->image_bytes && i < images; i++) free(s->image_bytes[i]);
  free(s->image_bytes);
  free(s->image_sizes);
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
