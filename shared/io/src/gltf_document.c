/* gltf_document.c - the glTF container, the JSON and the node tree (gltf_document.h).
 *
 * Trust nothing: a .glb's header length and JSON chunk length must fit the bytes we hold; the
 * tree is built in passes linear in the file's size, so a hostile file cannot make it slow, and
 * without recursion, so a deep chain of nodes cannot overflow the stack. */
#include "gltf_document.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/gltf.h"

#define GLB_MAGIC 0x46546C67u
#define GLB_CHUNK_JSON 0x4E4F534Au

bool tress__gltf_fail(tress__gltf_doc *doc, tress_result code, const char *fmt, ...) {
  doc->code = code;
  if (!doc->err) return false;
  doc->err->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(doc->err->message, sizeof doc->err->message, fmt, ap);
  va_end(ap);
  return false;
}

bool tress__gltf_get_uint(tress__gltf_doc *doc, const cJSON *obj, const char *key, int64_t def, uint64_t limit,
                          uint64_t *out, const char *what) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!it) {
    if (def < 0) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has no %s", what, key);
    *out = (uint64_t)def;
    return true;
  }
  if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0.0) || it->valuedouble != floor(it->valuedouble) ||
      it->valuedouble > (double)limit)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s has a bad %s", what, key);
  *out = (uint64_t)it->valuedouble;
  return true;
}

const cJSON *tress__gltf_array_item(tress__gltf_doc *doc, const char *array, uint64_t index, const char *what) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc->root, array);
  if (!cJSON_IsArray(arr) || index >= (uint64_t)cJSON_GetArraySize(arr)) {
    tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s refers to %s[%llu], which does not exist", what, array,
                     (unsigned long long)index);
    return NULL;
  }
  const cJSON *it = cJSON_GetArrayItem(arr, (int)index);
  if (!cJSON_IsObject(it)) {
    tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "%s[%llu] is not an object", array, (unsigned long long)index);
    return NULL;
  }
  return it;
}

/* ---- the container ---- */

static bool glb_split(tress__gltf_doc *doc, const uint8_t *data, size_t size, const char **json, size_t *json_len) {
  if (size < 20)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB is truncated (%zu bytes, too short for a header and a chunk)",
                            size);
  uint32_t version = tress__gltf_u32_le(data + 4), length = tress__gltf_u32_le(data + 8);
  if (version != 2) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB version %u is not 2", version);
  if (length > size || length < 20)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB header says %u bytes but the file has %zu", length, size);
  uint32_t json_chunk = tress__gltf_u32_le(data + 12);
  if (tress__gltf_u32_le(data + 16) != GLB_CHUNK_JSON) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB first chunk is not JSON");
  if ((uint64_t)json_chunk + 20 > length)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "GLB JSON chunk (%u bytes) overruns the file", json_chunk);
  *json = (const char *)data + 20;
  *json_len = json_chunk;
  doc->is_glb = true;
  doc->glb = data;
  doc->glb_length = length;
  doc->glb_after_json = 20 + (uint64_t)json_chunk;
  return true;
}

/* ---- nodes ---- */

/* Exactly n finite numbers from a JSON array: OK, BAD, or ABSENT when there is no member. */
static tress__gltf_field numbers(const cJSON *arr, int n, double *out) {
  if (!arr) return TRESS__GLTF_ABSENT;
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n) return TRESS__GLTF_BAD;
  double tmp[16];
  int i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) return TRESS__GLTF_BAD;
    tmp[i++] = it->valuedouble;
  }
  memcpy(out, tmp, sizeof(double) * (size_t)n);
  return TRESS__GLTF_OK;
}

static void local_read(const cJSON *node, tress__gltf_local *l) {
  static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  memcpy(l->m, identity, sizeof identity);
  l->t[0] = l->t[1] = l->t[2] = 0.0;
  l->r[0] = l->r[1] = l->r[2] = 0.0;
  l->r[3] = 1.0;
  l->s[0] = l->s[1] = l->s[2] = 1.0;
  l->matrix = numbers(cJSON_GetObjectItemCaseSensitive(node, "matrix"), 16, l->m);
  l->translation = numbers(cJSON_GetObjectItemCaseSensitive(node, "translation"), 3, l->t);
  l->rotation = numbers(cJSON_GetObjectItemCaseSensitive(node, "rotation"), 4, l->r);
  l->scale = numbers(cJSON_GetObjectItemCaseSensitive(node, "scale"), 3, l->s);
}

/* A child entry as a node index, or -1. */
static int32_t child_index(const cJSON *c, uint32_t node_count) {
  if (!cJSON_IsNumber(c)) return -1;
  double d = c->valuedouble;
  if (!(d >= 0.0) || d >= (double)node_count || d != floor(d)) return -1;
  return (int32_t)d;
}

/* Names, local transforms and children of every node, in one pass over the array. */
static bool nodes_read(tress__gltf_doc *doc) {
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc->root, "nodes");
  if (!nodes) return true;
  if (!cJSON_IsArray(nodes)) {
    doc->nodes_not_array = true;
    return true;
  }
  int n = cJSON_GetArraySize(nodes);
  if (n <= 0) return true;
  size_t entries = 0;
  const cJSON *node, *c;
  cJSON_ArrayForEach(node, nodes) {
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children")) entries++;
  }
  doc->nodes = calloc((size_t)n, sizeof *doc->nodes);
  doc->child_pool = malloc((entries ? entries : 1) * sizeof *doc->child_pool);
  if (!doc->nodes || !doc->child_pool) return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  doc->node_count = (uint32_t)n;
  size_t at = 0;
  uint32_t i = 0;
  cJSON_ArrayForEach(node, nodes) {
    tress__gltf_node *nd = &doc->nodes[i++];
    nd->json = node;
    nd->is_object = cJSON_IsObject(node);
    nd->parent = -1;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
    nd->name = cJSON_IsString(name) && name->valuestring ? name->valuestring : NULL;
    local_read(node, &nd->local);
    /* entries are taken from whatever "children" holds (an object's members too): a strict
     * reader refuses a non-array from children_state, a lenient one may use them */
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
    nd->children_state = !children ? TRESS__GLTF_ABSENT : (cJSON_IsArray(children) ? TRESS__GLTF_OK : TRESS__GLTF_BAD);
    nd->children = doc->child_pool + at;
    cJSON_ArrayForEach(c, children) doc->child_pool[at++] = child_index(c, doc->node_count);
    nd->child_count = (uint32_t)(doc->child_pool + at - nd->children);
  }
  return true;
}

static bool problem_add(tress__gltf_doc *doc, tress__gltf_tree_problem_kind kind, int32_t node, int32_t child, int32_t other,
                        uint32_t *cap) {
  if (doc->problem_count == *cap) {
    uint32_t grown = *cap ? *cap * 2 : 8;
    void *p = realloc(doc->problems, (size_t)grown * sizeof *doc->problems);
    if (!p) return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
    doc->problems = p;
    *cap = grown;
  }
  doc->problems[doc->problem_count++] = (tress__gltf_tree_problem){kind, node, child, other};
  return true;
}

/* Parents from the children lists (the first node to list a child is its parent), then cycles
 * in one linear pass: walk up from each unresolved node, stacking the path, until a root, an
 * already resolved node (inherit its badness) or a node on the current path (a cycle: the whole
 * path is bad); then resolve the path top-down. */
static bool tree_build(tress__gltf_doc *doc) {
  uint32_t cap = 0, count = doc->node_count;
  tress__gltf_node *nodes = doc->nodes;
  for (uint32_t i = 0; i < count; i++) {
    for (uint32_t k = 0; k < nodes[i].child_count; k++) {
      int32_t ci = nodes[i].children[k];
      bool ok = true;
      if (ci < 0) {
        ok = problem_add(doc, TRESS__GLTF_CHILD_RANGE, (int32_t)i, -1, -1, &cap);
      } else if ((uint32_t)ci == i) {
        nodes[ci].bad = true;
        ok = problem_add(doc, TRESS__GLTF_SELF_CHILD, (int32_t)i, ci, -1, &cap);
      } else if (nodes[ci].parent >= 0 && nodes[ci].parent != (int32_t)i) {
        nodes[ci].bad = true;
        ok = problem_add(doc, TRESS__GLTF_TWO_PARENTS, (int32_t)i, ci, nodes[ci].parent, &cap);
      } else {
        nodes[ci].parent = (int32_t)i;
      }
      if (!ok) return false;
    }
  }
  uint8_t *state = calloc(count, 1); /* 0 unknown, 1 on the path, 2 resolved */
  int32_t *path = malloc((size_t)count * sizeof *path);
  bool ok = state && path;
  if (!ok) tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  for (uint32_t k = 0; k < count && ok; k++) {
    if (state[k]) continue;
    uint32_t n = 0;
    int32_t p = (int32_t)k;
    while (p >= 0 && state[p] == 0) {
      state[p] = 1;
      path[n++] = p;
      p = nodes[p].parent;
    }
    bool cycle = p >= 0 && state[p] == 1;
    bool bad = cycle || (p >= 0 && nodes[p].bad);
    while (n > 0 && ok) {
      int32_t x = path[--n];
      if (cycle && !nodes[x].bad) ok = problem_add(doc, TRESS__GLTF_CYCLE, x, -1, -1, &cap);
      bad = bad || nodes[x].bad;
      nodes[x].bad = bad;
      state[x] = 2;
    }
  }
  free(state);
  free(path);
  return ok;
}

int tress__gltf_doc_open(tress__gltf_doc *doc, const uint8_t *data, size_t size, const char *base_dir, tress_error *err) {
  memset(doc, 0, sizeof *doc);
  doc->err = err;
  doc->base_dir = base_dir;
  doc->bytes_left = UINT64_MAX;
  doc->expand_left = TRESS__GLTF_MAX_MATERIALISED_BYTES;
  const char *json = (const char *)data;
  size_t json_len = size;
  if (!data || size == 0) {
    tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "empty input");
    return doc->code;
  }
  if (size >= 4 && tress__gltf_u32_le(data) == GLB_MAGIC && !glb_split(doc, data, size, &json, &json_len)) return doc->code;
  doc->root = cJSON_ParseWithLength(json, json_len);
  if (!cJSON_IsObject(doc->root)) {
    tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "not glTF: the JSON does not parse as an object");
    return doc->code;
  }
  if (!nodes_read(doc) || !tree_build(doc)) return doc->code;
  return 0;
}

/* ---- transforms ---- */

void tress__gltf_mat_mul(const double a[16], const double b[16], double out[16]) {
  for (int c = 0; c < 4; c++)
    for (int row = 0; row < 4; row++) {
      double v = 0.0;
      for (int k = 0; k < 4; k++) v += a[4 * k + row] * b[4 * c + k];
      out[4 * c + row] = v;
    }
}

bool tress__gltf_node_matrix(tress__gltf_doc *doc, int32_t index, double m[16]) {
  const tress__gltf_local *l = &doc->nodes[index].local;
  if (l->matrix != TRESS__GLTF_ABSENT) {
    if (l->matrix == TRESS__GLTF_BAD)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d matrix is not 16 finite numbers", index);
    memcpy(m, l->m, sizeof l->m);
    if (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0)
      return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d matrix is not affine (its last row is not 0 0 0 1)",
                              index);
    return true;
  }
  if (l->translation == TRESS__GLTF_BAD)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d translation is not 3 finite numbers", index);
  if (l->rotation == TRESS__GLTF_BAD)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d rotation is not 4 finite numbers", index);
  if (l->scale == TRESS__GLTF_BAD)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d scale is not 3 finite numbers", index);
  const double *t = l->t, *q = l->r, *s = l->s;
  /* Exporters round quaternions; normalising keeps the rotation a rotation. */
  double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 1e-12) || !isfinite(len))
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "node %d rotation is not a quaternion (length %g)", index, len);
  double x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
  double rot[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  for (int c = 0; c < 3; c++) {
    for (int row = 0; row < 3; row++) m[4 * c + row] = rot[row][c] * s[c];
    m[4 * c + 3] = 0.0;
  }
  m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1.0;
  return true;
}

/* ---- skins ---- */

bool tress__gltf_skin_read(tress__gltf_doc *doc, uint64_t index, uint32_t max_joints, tress__gltf_skin *out) {
  memset(out, 0, sizeof *out);
  const cJSON *skin = tress__gltf_array_item(doc, "skins", index, "node skin");
  if (!skin) return false;
  const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
  if (!cJSON_IsArray(joints)) return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "skin has no joints");
  int jn = cJSON_GetArraySize(joints);
  if (jn < 1 || (uint32_t)jn > max_joints)
    return tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "skin has %d joints (1..%u allowed)", jn, max_joints);
  uint32_t node_count = doc->node_count;
  out->joint_node = malloc(sizeof(int32_t) * (size_t)jn);
  out->joint_parent = malloc(sizeof(int32_t) * (size_t)jn);
  int32_t *joint_of_node = malloc(sizeof(int32_t) * (size_t)(node_count ? node_count : 1));
  if (!out->joint_node || !out->joint_parent || !joint_of_node) {
    free(joint_of_node);
    return tress__gltf_fail(doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  }
  out->joint_count = (uint32_t)jn;
  for (uint32_t i = 0; i < node_count; i++) joint_of_node[i] = -1;
  bool ok = true;
  int j = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, joints) {
    if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble >= node_count || it->valuedouble != floor(it->valuedouble)) {
      ok = tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "skin joint %d is not a node", j);
      break;
    }
    int32_t node = (int32_t)it->valuedouble;
    out->joint_node[j] = node;
    out->joint_parent[j] = -1;
    if (joint_of_node[node] >= 0) {
      ok = tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "skin lists node %d twice", node);
      break;
    }
    joint_of_node[node] = j++;
  }
  /* Parents: a joint node listed as a child of another joint node (the last lister wins). */
  for (uint32_t k = 0; k < (uint32_t)jn && ok; k++) {
    const tress__gltf_node *nd = &doc->nodes[out->joint_node[k]];
    for (uint32_t c = 0; c < nd->child_count; c++) {
      int32_t child = nd->children[c];
      if (child >= 0 && joint_of_node[child] >= 0) out->joint_parent[joint_of_node[child]] = (int32_t)k;
    }
  }
  free(joint_of_node);
  if (ok && cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices")) {
    uint64_t ibm_index = 0;
    ok = tress__gltf_get_uint(doc, skin, "inverseBindMatrices", -1, UINT32_MAX, &ibm_index, "skin") &&
         tress__gltf_accessor_get(doc, ibm_index, 16, TRESS__GLTF_ALLOW(TRESS__GLTF_FLOAT), max_joints,
                                  &out->inverse_binds, "inverseBindMatrices");
    if (ok && out->inverse_binds.count < (uint64_t)jn)
      ok = tress__gltf_fail(doc, TRESS_ERR_INVALID_ARGUMENT, "skin has %d joints but %llu inverse bind matrices", jn,
                            (unsigned long long)out->inverse_binds.count);
    out->has_inverse_binds = ok;
  }
  if (!ok) tress__gltf_skin_free(out);
  return ok;
}

void tress__gltf_skin_free(tress__gltf_skin *skin) {
  free(skin->joint_node);
  free(skin->joint_parent);
  memset(skin, 0, sizeof *skin);
}

void tress__gltf_doc_close(tress__gltf_doc *doc) {
  cJSON_Delete(doc->root);
  free(doc->nodes);
  free(doc->child_pool);
  free(doc->problems);
  for (int i = 0; i < TRESS__GLTF_MAX_BUFFERS; i++) free(doc->owned[i]);
  while (doc->scratch) {
    tress__gltf_scratch *next = doc->scratch->next;
    free(doc->scratch);
    doc->scratch = next;
  }
  memset(doc, 0, sizeof *doc);
}

uint8_t *tress__gltf_file_read(const char *path, uint64_t max_bytes, size_t *size, char *dir, size_t dir_cap,
                               tress_error *err) {
  uint64_t cap = max_bytes < TRESS_GLTF_MAX_FILE_BYTES ? max_bytes : TRESS_GLTF_MAX_FILE_BYTES;
  uint8_t *data = tress_file_read(path, (size_t)cap, size, err);
  if (!data) return NULL;
  snprintf(dir, dir_cap, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) slash[slash == dir ? 1 : 0] = 0; /* "/a.gltf": the root directory */
  else snprintf(dir, dir_cap, ".");
  return data;
}
