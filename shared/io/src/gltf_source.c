/* gltf_source.c - what a rewrite carries from the glTF file it read (tress/gltf_source.h), read
 * with io's document reader (gltf_document.h: container, buffers, views, nodes, skins). The mesh
 * itself is read by gltf_read.c. An image stored in a bufferView is carried as its bytes
 * (gltf_write.c puts them in the output's buffer); an image with a uri keeps the uri. */
#include "tress/gltf_source.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The media type of an image's bytes, from their signature; NULL when they are none of the
 * types glTF (core, EXT_texture_webp, KHR_texture_basisu) names. */
static const char *sniff_mime_type(const uint8_t *d, uint64_t n) {
  static const uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
  static const uint8_t ktx2[12] = {0xab, 'K', 'T', 'X', ' ', '2', '0', 0xbb, 0x0d, 0x0a, 0x1a, 0x0a};
  if (n >= 8 && memcmp(d, png, 8) == 0) return "image/png";
  if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff) return "image/jpeg";
  if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) return "image/webp";
  if (n >= 12 && memcmp(d, ktx2, 12) == 0) return "image/ktx2";
  return NULL;
}

/* Writes why an image cannot be carried; false. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool why_not(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
  return false;
}

/* Image i's bytes: a bufferView's copied out, a uri's read under the buffers' rules (a data: URI
 * decoded; an external file only beneath the root, no link out). why names a failure. */
static bool image_bytes(tress__gltf_doc *doc, bool buffers, const cJSON *img, int i, uint8_t **out, uint64_t *len, char *why,
                        size_t cap) {
  const cJSON *view = cJSON_GetObjectItemCaseSensitive(img, "bufferView"), *uri = cJSON_GetObjectItemCaseSensitive(img, "uri");
  char what[32];
  snprintf(what, sizeof what, "images[%d]", i);
  if (view) {
    const uint8_t *data;
    size_t size;
    if (!buffers) return why_not(why, cap, "%s is in a buffer that did not load", what);
    if (!cJSON_IsNumber(view) || !view_bytes(doc, view->valueint, &data, &size))
      return why_not(why, cap, "%s has a bad bufferView", what);
    if (!(*out = malloc(size ? size : 1))) return why_not(why, cap, "out of memory");
    memcpy(*out, data, size);
    *len = size;
    return true;
  }
  if (!cJSON_IsString(uri)) return why_not(why, cap, "%s has neither a bufferView nor a uri", what);
  tress_error err = {0};
  doc->err = &err;
  bool ok = tress__gltf_uri_read(doc, uri->valuestring, what, out, len);
  doc->err = NULL;
  return ok || why_not(why, cap, "%s", err.message);
}

/* Images: every image's bytes held for the writer, which puts them in the output's buffer (so
 * the output stands alone), with the mimeType a bufferView image must have: the image's own,
 * else the one its bytes' signature names. Its uri and bufferView are dropped. */
static bool carry_images(tress_gltf_source *s, tress__gltf_doc *doc, bool buffers, char *why, size_t cap) {
  if (!s->images) return true;
  int n = cJSON_GetArraySize(s->images);
  s->image_bytes = calloc((size_t)n, sizeof *s->image_bytes);
  s->image_sizes = calloc((size_t)n, sizeof *s->image_sizes);
  if (!s->image_bytes || !s->image_sizes) return why_not(why, cap, "out of memory");
  for (int i = 0; i < n; i++) {
    cJSON *img = cJSON_GetArrayItem(s->images, i);
    uint64_t len = 0;
    if (!image_bytes(doc, buffers, img, i, &s->image_bytes[i], &len, why, cap)) return false;
    s->image_sizes[i] = (size_t)len;
    const cJSON *mime = cJSON_GetObjectItemCaseSensitive(img, "mimeType");
    const char *sniffed = sniff_mime_type(s->image_bytes[i], len);
    if (!cJSON_IsString(mime) && !sniffed) return why_not(why, cap, "images[%d] is not PNG, JPEG, WebP or KTX2 and names no mimeType", i);
    if (!cJSON_IsString(mime)) cJSON_AddStringToObject(img, "mimeType", sniffed);
    cJSON_DeleteItemFromObjectCaseSensitive(img, "bufferView");
    cJSON_DeleteItemFromObjectCaseSensitive(img, "uri");
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

/* The material of the mesh's first primitive (the skinned mesh's, else mesh 0's): what a mesh
 * without submeshes is drawn with. A mesh read by gltf_read.c names each primitive's own. */
static void read_material(tress_gltf_source *s, const cJSON *root) {
  const cJSON *mesh = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "meshes"), s->mesh_index >= 0 ? s->mesh_index : 0);
  const cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(mesh, "primitives"), 0);
  const cJSON *mat = cJSON_GetObjectItemCaseSensitive(prim, "material");
  s->material = cJSON_IsNumber(mat) ? mat->valueint : -1;
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

/* The carried materials, textures, images (and their bytes) and samplers, emptied. */
static void free_textures(tress_gltf_source *s) {
  int images = s->images ? cJSON_GetArraySize(s->images) : 0;
  for (int i = 0; s->image_bytes && i < images; i++) free(s->image_bytes[i]);
  free(s->image_bytes);
  free(s->image_sizes);
  s->image_bytes = NULL;
  s->image_sizes = NULL;
  cJSON_Delete(s->materials);
  cJSON_Delete(s->textures);
  cJSON_Delete(s->images);
  cJSON_Delete(s->samplers);
  s->materials = s->textures = s->images = s->samplers = NULL;
}

static void drop_textures(tress_gltf_source *s, const char *why) {
  free_textures(s);
  s->material = -1;
  snprintf(s->warning + strlen(s->warning), sizeof s->warning - strlen(s->warning),
           "%smaterials and textures not carried: %s", s->warning[0] ? "; " : "", why);
}

tress_gltf_source *tress_gltf_source_load(const char *path, tress_error *err) { return tress_gltf_source_load_opts(path, NULL, err); }

tress_gltf_source *tress_gltf_source_load_opts(const char *path, const tress_gltf_read_opts *opts, tress_error *err) {
  tress_gltf_read_opts o = opts ? *opts : tress_default_gltf_read_opts();
  size_t size;
  char dir[4096];
  uint8_t *data = tress__gltf_file_read(path, o.max_bytes, &size, dir, sizeof dir, err);
  if (!data) return NULL;
  tress__gltf_doc doc;
  tress_gltf_source *s = NULL;
  if (tress__gltf_doc_open(&doc, data, size, dir, err) == 0) s = calloc(1, sizeof *s);
  if (!s) {
    tress__gltf_doc_close(&doc);
    free(data);
    if (err && !err->message[0]) tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  /* What does not load (buffers, an image) only keeps parts from being carried: the reasons are
   * warnings, never the caller's error. */
  doc.err = NULL;
  doc.root_dir = o.root_dir;
  doc.bytes_left = o.max_bytes - size;
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
  char why[TRESS_ERROR_MESSAGE_MAX] = "";
  if (!carry_images(s, &doc, buffers, why, sizeof why)) drop_textures(s, why);
  read_skin(s, &doc, buffers);
  if (s->materials) read_material(s, root);
  read_extensions(s, root);
  tress__gltf_doc_close(&doc);
  free(data);
  return s;
}

void tress_gltf_source_destroy(tress_gltf_source *s) {
  if (!s) return;
  free_textures(s);
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
