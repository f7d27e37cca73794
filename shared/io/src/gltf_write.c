/* gltf_write.c - writes a mesh as a self-contained glTF 2.0 file on cJSON: binary (.glb) or JSON
 * (.gltf) with its one buffer embedded as a base64 data: URI.
 *
 * Layout: one buffer (the GLB BIN chunk, or the data: URI) holding, each 4-byte aligned, positions, normals, uvs,
 * joints, weights, indices and inverse bind matrices; one bufferView per array. For a skinned
 * mesh the node tree is: node 0 the mesh (a scene root with no transform, as skinned meshes
 * should be), nodes 1.. the bones in mesh bone order, translated from their parent's bind
 * position (HairRoot from the origin), rotation identity. The skin's joints are those nodes and
 * the inverse bind matrix of bone b is a translation by -bind_pos(b), so the bind pose
 * reproduces the mesh exactly. Written to be accepted by the Khronos glTF validator.
 */
#include "tress/gltf.h"

#include "tress/result.h"

#include "gltf_source_internal.h"
#include "gltf_write_internal.h"

#include <cjson/cJSON.h>
#include <sodium.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tress__gltf_bytes_put(gltf_bytes *b, const void *src, size_t n) {
  size_t at = (b->len + 3) & ~(size_t)3;
  if (b->oom) return 0;
  if (at + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < at + n) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) { b->oom = true; return 0; }
    b->data = d;
    b->cap = cap;
  }
  memset(b->data + b->len, 0, at - b->len);
  memcpy(b->data + at, src, n);
  b->len = at + n;
  return at;
}

static void put_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* Appends a bufferView + accessor for n elements; returns the accessor index. Values must be
 * little-endian already (every host we build on is). */
int tress__gltf_add_accessor(cJSON *root, gltf_bytes *bin, const void *data, size_t elem_bytes, uint32_t count, int ctype,
                        const char *type, int target, bool normalized) {
  size_t offset = tress__gltf_bytes_put(bin, data, elem_bytes * count);
  cJSON *views = cJSON_GetObjectItem(root, "bufferViews"), *accs = cJSON_GetObjectItem(root, "accessors");
  cJSON *view = cJSON_CreateObject();
  cJSON_AddNumberToObject(view, "buffer", 0);
  cJSON_AddNumberToObject(view, "byteOffset", (double)offset);
  cJSON_AddNumberToObject(view, "byteLength", (double)(elem_bytes * count));
  if (target) cJSON_AddNumberToObject(view, "target", target);
  cJSON_AddItemToArray(views, view);
  cJSON *acc = cJSON_CreateObject();
  cJSON_AddNumberToObject(acc, "bufferView", cJSON_GetArraySize(views) - 1);
  cJSON_AddNumberToObject(acc, "componentType", ctype);
  cJSON_AddNumberToObject(acc, "count", count);
  cJSON_AddStringToObject(acc, "type", type);
  if (normalized) cJSON_AddBoolToObject(acc, "normalized", true);
  cJSON_AddItemToArray(accs, acc);
  return cJSON_GetArraySize(accs) - 1;
}

cJSON *tress__gltf_float_array(const float *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

static int fail(tress_error *err, const char *msg) {
  return tress_error_set(err, strstr(msg, "out of memory") ? TRESS_ERR_OUT_OF_MEMORY : TRESS_ERR_INVALID_ARGUMENT, "%s", msg);
}

/* The document for m: every JSON object but the buffer, and the buffer's bytes in bin. Returns 0,
 * or the error code with err filled when the mesh cannot be written. */
static void carry_source(cJSON *root, gltf_bytes *bin, const tress_gltf_source *src);
static void place_skeleton(cJSON *root, cJSON *scene_nodes, cJSON *mesh_node, const tress_mesh *m, const tress_gltf_source *src);

/* One run's indices [first, first + count) as an accessor: UNSIGNED_SHORT when every vertex
 * fits, else UNSIGNED_INT; a non-indexed mesh's run numbers its vertices. */
static int add_run_indices(cJSON *root, gltf_bytes *bin, const tress_mesh *m, uint32_t first, uint32_t count) {
  bool narrow = m->vertex_count <= 65536;
  void *ix = malloc((size_t)count * (narrow ? 2 : 4));
  if (!ix) { bin->oom = true; return 0; }
  for (uint32_t i = 0; i < count; i++) {
    uint32_t v = m->indices ? m->indices[first + i] : first + i;
    if (narrow) ((uint16_t *)ix)[i] = (uint16_t)v;
    else ((uint32_t *)ix)[i] = v;
  }
  int acc = tress__gltf_add_accessor(root, bin, ix, narrow ? 2 : 4, count, narrow ? 5123 : 5125, "SCALAR", 34963, false);
  free(ix);
  return acc;
}

/* The material a run's primitive names. With a source that carries its materials: the source's
 * own index. Otherwise (OBJ usemtl groups, a source whose materials were left out) a plain
 * material named as the run's was, one per distinct material index, appended to materials[];
 * made[i] remembers run i's. -1: the run has no material. */
static int run_material(cJSON *root, const tress_mesh_submesh *runs, uint32_t i, const tress_gltf_source *src, int *made) {
  int32_t material = runs[i].material;
  made[i] = -1;
  if (material < 0) return -1;
  if (src && src->materials) return material < cJSON_GetArraySize(src->materials) ? material : -1;
  for (uint32_t j = 0; j < i; j++)
    if (runs[j].material == material) return made[i] = made[j];
  cJSON *materials = cJSON_GetObjectItem(root, "materials");
  if (!materials) materials = cJSON_AddArrayToObject(root, "materials");
  cJSON *plain = cJSON_CreateObject();
  if (runs[i].material_name[0]) cJSON_AddStringToObject(plain, "name", runs[i].material_name);
  cJSON_AddItemToArray(materials, plain);
  return made[i] = cJSON_GetArraySize(materials) - 1;
}

/* One triangle primitive per submesh (a mesh without submeshes is one run with the source's
 * first primitive's material), each over the same vertex attributes with its own indices.
 * A non-indexed mesh drawn as one run keeps no indices. Frees attrs. */
static cJSON *add_primitives(cJSON *root, gltf_bytes *bin, const tress_mesh *m, cJSON *attrs, const tress_gltf_source *src) {
  uint32_t total = m->indices ? m->index_count : m->vertex_count;
  tress_mesh_submesh whole = {0, total, src ? src->material : -1, ""};
  const tress_mesh_submesh *runs = m->submesh_count ? m->submeshes : &whole;
  uint32_t run_count = m->submesh_count ? m->submesh_count : 1;
  int *made = malloc(sizeof *made * run_count);
  cJSON *prims = cJSON_CreateArray();
  if (!made) bin->oom = true;
  for (uint32_t i = 0; made && i < run_count; i++) {
    cJSON *prim = cJSON_CreateObject();
    cJSON_AddItemToObject(prim, "attributes", cJSON_Duplicate(attrs, true));
    cJSON_AddNumberToObject(prim, "mode", 4);
    if (m->indices || run_count > 1)
      cJSON_AddNumberToObject(prim, "indices", add_run_indices(root, bin, m, runs[i].first_index, runs[i].index_count));
    int material = run_material(root, runs, i, src, made);
    if (material >= 0) cJSON_AddNumberToObject(prim, "material", material);
    cJSON_AddItemToArray(prims, prim);
  }
  cJSON_Delete(attrs);
  free(made);
  return prims;
}

static int build_document(const tress_mesh *m, const tress_gltf_source *src, const tress_gltf_animation *anim,
                          cJSON **doc, gltf_bytes *bin_out, tress_error *err) {
  *doc = NULL;
  int checked = anim ? tress__gltf_check_animation(m, anim, err) : 0;
  if (checked != 0) return checked;
  if (!m || m->vertex_count == 0) return fail(err, "nothing to write: the mesh has no vertices");
  if (!m->indices && m->vertex_count % 3) return fail(err, "non-indexed mesh whose vertex count is not a multiple of 3");
  for (uint32_t i = 0; i < m->index_count; i++)
    if (m->indices[i] >= m->vertex_count) return fail(err, "an index is past the vertex count");
  uint32_t drawn = m->indices ? m->index_count : m->vertex_count;
  for (uint32_t i = 0; i < m->submesh_count; i++)
    if (m->submeshes[i].index_count == 0 || m->submeshes[i].first_index > drawn || m->submeshes[i].index_count > drawn - m->submeshes[i].first_index)
      return fail(err, "a submesh's range is empty or runs past the mesh's triangles");
  bool skinned = tress_mesh_is_skinned(m);
  uint32_t n = m->vertex_count;

  cJSON *root = cJSON_CreateObject();
  cJSON *asset = cJSON_AddObjectToObject(root, "asset");
  cJSON_AddStringToObject(asset, "version", "2.0");
  cJSON_AddStringToObject(asset, "generator", "tress");
  cJSON_AddArrayToObject(root, "bufferViews");
  cJSON_AddArrayToObject(root, "accessors");
  gltf_bytes bin = {0};

  /* POSITION with the min/max glTF requires. */
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  int pos = tress__gltf_add_accessor(root, &bin, m->positions, 12, n, 5126, "VEC3", 34962, false);
  cJSON *pos_acc = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"), pos);
  cJSON_AddItemToObject(pos_acc, "min", tress__gltf_float_array(mn, 3));
  cJSON_AddItemToObject(pos_acc, "max", tress__gltf_float_array(mx, 3));
  cJSON *attrs = cJSON_CreateObject();
  cJSON_AddNumberToObject(attrs, "POSITION", pos);

  void *scratch = malloc((size_t)n * 16 > 64 * (size_t)(m->bone_count + 1) ? (size_t)n * 16 : 64 * (size_t)(m->bone_count + 1));
  if (!scratch) { cJSON_Delete(root); free(bin.data); return fail(err, "out of memory"); }
  if (m->normals) {
    /* Normals must be unit length; a degenerate one becomes +Y rather than an invalid file. */
    float *nrm = scratch;
    for (uint32_t v = 0; v < n; v++) {
      const float *s = m->normals + 3 * v;
      float len = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
      if (!(len > 1e-12f) || !isfinite(len)) { nrm[3 * v] = 0; nrm[3 * v + 1] = 1; nrm[3 * v + 2] = 0; continue; }
      for (int k = 0; k < 3; k++) nrm[3 * v + k] = s[k] / len;
    }
    cJSON_AddNumberToObject(attrs, "NORMAL", tress__gltf_add_accessor(root, &bin, nrm, 12, n, 5126, "VEC3", 34962, false));
  }
  if (m->uvs) cJSON_AddNumberToObject(attrs, "TEXCOORD_0", tress__gltf_add_accessor(root, &bin, m->uvs, 8, n, 5126, "VEC2", 34962, false));
  if (skinned) {
    if (m->bone_count <= 256) {
      uint8_t *j8 = scratch;
      for (size_t i = 0; i < 4 * (size_t)n; i++) j8[i] = m->weights[i] > 0.0f ? (uint8_t)m->joints[i] : 0;
      cJSON_AddNumberToObject(attrs, "JOINTS_0", tress__gltf_add_accessor(root, &bin, j8, 4, n, 5121, "VEC4", 34962, false));
    } else {
      uint16_t *j16 = scratch;
      for (size_t i = 0; i < 4 * (size_t)n; i++) j16[i] = m->weights[i] > 0.0f ? m->joints[i] : 0;
      cJSON_AddNumberToObject(attrs, "JOINTS_0", tress__gltf_add_accessor(root, &bin, j16, 8, n, 5123, "VEC4", 34962, false));
    }
    cJSON_AddNumberToObject(attrs, "WEIGHTS_0", tress__gltf_add_accessor(root, &bin, m->weights, 16, n, 5126, "VEC4", 34962, false));
  }
  cJSON *meshes = cJSON_AddArrayToObject(root, "meshes");
  cJSON *mesh = cJSON_CreateObject();
  cJSON_AddStringToObject(mesh, "name", "Hair");
  cJSON_AddItemToObjectCS(mesh, "primitives", add_primitives(root, &bin, m, attrs, src));
  cJSON_AddItemToArray(meshes, mesh);

  cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
  cJSON *mesh_node = cJSON_CreateObject();
  cJSON_AddStringToObject(mesh_node, "name", "Hair");
  cJSON_AddNumberToObject(mesh_node, "mesh", 0);
  cJSON_AddItemToArray(nodes, mesh_node);
  cJSON *scene_nodes = cJSON_CreateArray();
  cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(0));
  if (skinned) {
    float *ibm = scratch;
    cJSON *joints = cJSON_CreateArray();
    for (uint32_t b = 0; b < m->bone_count; b++) {
      const tress_mesh_bone *bone = &m->bones[b];
      int32_t parent = bone->parent >= 0 && (uint32_t)bone->parent < m->bone_count && (uint32_t)bone->parent != b ? bone->parent : -1;
      float t[3];
      for (int k = 0; k < 3; k++) t[k] = bone->bind_pos[k] - (parent >= 0 ? m->bones[parent].bind_pos[k] : 0.0f);
      cJSON *node = cJSON_CreateObject();
      cJSON_AddStringToObject(node, "name", bone->name);
      if (t[0] != 0.0f || t[1] != 0.0f || t[2] != 0.0f) cJSON_AddItemToObject(node, "translation", tress__gltf_float_array(t, 3));
      cJSON_AddItemToArray(nodes, node);
      cJSON_AddItemToArray(joints, cJSON_CreateNumber(1 + b));
      float *mat = ibm + 16 * b;
      memset(mat, 0, 64);
      mat[0] = mat[5] = mat[10] = mat[15] = 1.0f;
      for (int k = 0; k < 3; k++) mat[12 + k] = -bone->bind_pos[k];
    }
    /* Children lists after all nodes exist; a parent must come before its child in bone order
     * (the plan guarantees it), anything else is hung off the scene as its own root. */
    for (uint32_t b = 0; b < m->bone_count; b++) {
      int32_t parent = m->bones[b].parent;
      if (parent >= 0 && (uint32_t)parent < b) {
        cJSON *pn = cJSON_GetArrayItem(nodes, 1 + parent);
        cJSON *children = cJSON_GetObjectItem(pn, "children");
        if (!children) children = cJSON_AddArrayToObject(pn, "children");
        cJSON_AddItemToArray(children, cJSON_CreateNumber(1 + b));
      } else {
        cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(1 + b));
      }
    }
    int ibm_acc = tress__gltf_add_accessor(root, &bin, ibm, 64, m->bone_count, 5126, "MAT4", 0, false);
    cJSON *skins = cJSON_AddArrayToObject(root, "skins");
    cJSON *skin = cJSON_CreateObject();
    cJSON_AddStringToObject(skin, "name", "HairSkin");
    cJSON_AddNumberToObject(skin, "inverseBindMatrices", ibm_acc);
    cJSON_AddNumberToObject(skin, "skeleton", 1);
    cJSON_AddItemToObject(skin, "joints", joints);
    cJSON_AddItemToArray(skins, skin);
    cJSON_AddNumberToObject(mesh_node, "skin", 0);
  }
  free(scratch);
  if (src) {
    carry_source(root, &bin, src);
    if (skinned) place_skeleton(root, scene_nodes, mesh_node, m, src);
  }
  if (anim) tress__gltf_add_animation(root, &bin, scene_nodes, anim);
  cJSON_AddNumberToObject(root, "scene", 0);
  cJSON *scenes = cJSON_AddArrayToObject(root, "scenes");
  cJSON *scene = cJSON_CreateObject();
  cJSON_AddItemToObject(scene, "nodes", scene_nodes);
  cJSON_AddItemToArray(scenes, scene);
  if (bin.oom) {
    cJSON_Delete(root);
    free(bin.data);
    return fail(err, "out of memory");
  }
  *bin_out = bin;
  *doc = root;
  return 0;
}

static bool is_identity(const float m[16]) {
  for (int k = 0; k < 16; k++)
    if (m[k] != (k % 5 == 0 ? 1.0f : 0.0f)) return false;
  return true;
}

/* Carried from the source file: asset.copyright, materials, textures, samplers, images (every
 * image's bytes go into this buffer, so the output stands alone) and the extensions they use.
 * Indices among them are unchanged: the arrays are copied whole and in order, so a primitive
 * names its source material by the source's index (add_primitives). */
static void carry_source(cJSON *root, gltf_bytes *bin, const tress_gltf_source *src) {
  if (src->copyright) cJSON_AddStringToObject(cJSON_GetObjectItem(root, "asset"), "copyright", src->copyright);
  const char *keys[4] = {"materials", "textures", "samplers", "images"};
  const cJSON *parts[4] = {src->materials, src->textures, src->samplers, src->images};
  for (int i = 0; i < 4; i++)
    if (parts[i]) cJSON_AddItemToObject(root, keys[i], cJSON_Duplicate(parts[i], true));
  cJSON *images = cJSON_GetObjectItem(root, "images"), *views = cJSON_GetObjectItem(root, "bufferViews");
  for (int i = 0; images && i < cJSON_GetArraySize(images); i++) {
    if (!src->image_bytes || !src->image_bytes[i]) continue;
    size_t offset = tress__gltf_bytes_put(bin, src->image_bytes[i], src->image_sizes[i]);
    cJSON *view = cJSON_CreateObject();
    cJSON_AddNumberToObject(view, "buffer", 0);
    cJSON_AddNumberToObject(view, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(view, "byteLength", (double)src->image_sizes[i]);
    cJSON_AddItemToArray(views, view);
    cJSON_AddNumberToObject(cJSON_GetArrayItem(images, i), "bufferView", cJSON_GetArraySize(views) - 1);
  }
  if (src->extensions) cJSON_AddItemToObject(root, "extensionsUsed", cJSON_Duplicate(src->extensions, true));
}

/* A re-rigged skinned file keeps where a viewer showed it: the bones hang under a "Skeleton"
 * node whose matrix is the source's bind placement (joint world x inverse bind), so joint world
 * x inverse bind is that placement again for every new bone; the mesh node keeps its matrix. */
static void place_skeleton(cJSON *root, cJSON *scene_nodes, cJSON *mesh_node, const tress_mesh *m, const tress_gltf_source *src) {
  if (!src->skinned) return;
  if (!is_identity(src->mesh_node)) cJSON_AddItemToObject(mesh_node, "matrix", tress__gltf_float_array(src->mesh_node, 16));
  if (is_identity(src->placement)) return;
  cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
  cJSON *skeleton = cJSON_CreateObject();
  cJSON_AddStringToObject(skeleton, "name", "Skeleton");
  cJSON_AddItemToObject(skeleton, "matrix", tress__gltf_float_array(src->placement, 16));
  cJSON *children = cJSON_AddArrayToObject(skeleton, "children");
  int skeleton_index = cJSON_GetArraySize(nodes);
  cJSON_AddItemToArray(nodes, skeleton);
  /* The bone roots move from the scene to the skeleton node. */
  for (int i = cJSON_GetArraySize(scene_nodes) - 1; i >= 1; i--) {
    cJSON *item = cJSON_DetachItemFromArray(scene_nodes, i);
    cJSON_InsertItemInArray(children, 0, item);
  }
  cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(skeleton_index));
  (void)m;
}

/* The one buffer: byteLength padded to 4 (GLB's BIN chunk is; the padding is zeros), and for
 * .gltf the bytes themselves as a base64 data: URI. */
static bool add_buffer(cJSON *root, const gltf_bytes *bin, bool embed) {
  size_t len = (bin->len + 3) & ~(size_t)3;
  cJSON *buffer = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "buffers"), buffer);
  cJSON_AddNumberToObject(buffer, "byteLength", (double)len);
  if (!embed) return true;
  static const char prefix[] = "data:application/octet-stream;base64,";
  size_t b64_cap = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
  char *uri = malloc(sizeof prefix - 1 + b64_cap);
  uint8_t *padded = calloc(1, len ? len : 1);
  bool ok = uri && padded;
  if (ok) {
    if (bin->len) memcpy(padded, bin->data, bin->len);
    memcpy(uri, prefix, sizeof prefix - 1);
    sodium_bin2base64(uri + sizeof prefix - 1, b64_cap, padded, len, sodium_base64_VARIANT_ORIGINAL);
    ok = cJSON_AddStringToObject(buffer, "uri", uri) != NULL;
  }
  free(uri);
  free(padded);
  return ok;
}

int tress_gltf_write_glb_memory(const tress_mesh *m, uint8_t **out, size_t *out_size, tress_error *err) {
  return tress_gltf_write_glb_memory_from(m, NULL, out, out_size, err);
}

int tress_gltf_write_glb_memory_from(const tress_mesh *m, const tress_gltf_source *src, uint8_t **out, size_t *out_size,
                                     tress_error *err) {
  return tress_gltf_write_glb_memory_animated(m, src, NULL, out, out_size, err);
}

int tress_gltf_write_glb_memory_animated(const tress_mesh *m, const tress_gltf_source *src,
                                         const tress_gltf_animation *anim, uint8_t **out, size_t *out_size,
                                         tress_error *err) {
  *out = NULL;
  *out_size = 0;
  gltf_bytes bin = {0};
  cJSON *root;
  int rc = build_document(m, src, anim, &root, &bin, err);
  if (rc != 0) return rc;
  size_t bin_len = (bin.len + 3) & ~(size_t)3;
  add_buffer(root, &bin, false);
  char *json = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  if (!json) {
    free(json);
    free(bin.data);
    return fail(err, "out of memory");
  }
  size_t json_len = strlen(json), json_padded = (json_len + 3) & ~(size_t)3;
  size_t total = 12 + 8 + json_padded + 8 + bin_len;
  if (total > UINT32_MAX) { free(json); free(bin.data); return fail(err, "mesh too large for a GLB"); }
  uint8_t *glb = malloc(total);
  if (!glb) { free(json); free(bin.data); return fail(err, "out of memory"); }
  put_u32(glb, 0x46546C67u);
  put_u32(glb + 4, 2);
  put_u32(glb + 8, (uint32_t)total);
  put_u32(glb + 12, (uint32_t)json_padded);
  put_u32(glb + 16, 0x4E4F534Au);
  memcpy(glb + 20, json, json_len);
  memset(glb + 20 + json_len, ' ', json_padded - json_len);
  uint8_t *chunk = glb + 20 + json_padded;
  put_u32(chunk, (uint32_t)bin_len);
  put_u32(chunk + 4, 0x004E4942u);
  if (bin.len) memcpy(chunk + 8, bin.data, bin.len);
  memset(chunk + 8 + bin.len, 0, bin_len - bin.len);
  free(json);
  free(bin.data);
  *out = glb;
  *out_size = total;
  return 0;
}

int tress_gltf_write_gltf_memory(const tress_mesh *m, char **out, size_t *out_size, tress_error *err) {
  return tress_gltf_write_gltf_memory_from(m, NULL, out, out_size, err);
}

int tress_gltf_write_gltf_memory_from(const tress_mesh *m, const tress_gltf_source *src, char **out, size_t *out_size,
                                      tress_error *err) {
  *out = NULL;
  *out_size = 0;
  gltf_bytes bin = {0};
  cJSON *root;
  int rc = build_document(m, src, NULL, &root, &bin, err);
  if (rc != 0) return rc;
  bool ok = add_buffer(root, &bin, true);
  free(bin.data);
  char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!json) return fail(err, "out of memory");
  *out = json;
  *out_size = strlen(json);
  return 0;
}

/* Writes beside the target and renames, so a reader never sees half a file. Frees data. */
static int write_whole_file(void *data, size_t size, const char *path, tress_error *err) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) { free(data); return fail(err, "path too long"); }
  FILE *f = fopen(tmp, "wb");
  if (!f) { free(data); return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "cannot write %.150s", tmp); }
  bool ok = fwrite(data, 1, size, f) == size;
  ok &= fclose(f) == 0;
  free(data);
  if (!ok || rename(tmp, path) != 0) {
    remove(tmp);
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "cannot write %.150s", path);
  }
  return 0;
}

int tress_gltf_write_glb(const tress_mesh *m, const char *path, tress_error *err) {
  return tress_gltf_write_glb_from(m, NULL, path, err);
}

int tress_gltf_write_gltf(const tress_mesh *m, const char *path, tress_error *err) {
  return tress_gltf_write_gltf_from(m, NULL, path, err);
}

int tress_gltf_write_glb_from(const tress_mesh *m, const tress_gltf_source *src, const char *path, tress_error *err) {
  uint8_t *glb;
  size_t size;
  int rc = tress_gltf_write_glb_memory_from(m, src, &glb, &size, err);
  return rc != 0 ? rc : write_whole_file(glb, size, path, err);
}

int tress_gltf_write_gltf_from(const tress_mesh *m, const tress_gltf_source *src, const char *path, tress_error *err) {
  char *json;
  size_t size;
  int rc = tress_gltf_write_gltf_memory_from(m, src, &json, &size, err);
  return rc != 0 ? rc : write_whole_file(json, size, path, err);
}

int tress_gltf_write_glb_animated(const tress_mesh *m, const tress_gltf_source *src, const tress_gltf_animation *anim,
                                  const char *path, tress_error *err) {
  uint8_t *glb;
  size_t size;
  int rc = tress_gltf_write_glb_memory_animated(m, src, anim, &glb, &size, err);
  return rc != 0 ? rc : write_whole_file(glb, size, path, err);
}
