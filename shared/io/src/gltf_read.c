/* gltf_read.c - "the mesh" of a glTF 2.0 file (.glb and .gltf) on io's glTF document reader
 * (gltf_document.h: the container, buffers, views, accessors, the node tree and skins, each
 * checked before a byte of it is used).
 *
 * Trust nothing: every number that reaches a memory access is checked first.
 *   - indices must be < the primitive's vertex count, joints < the skin's joint count;
 *   - the scene's node tree must be a tree (each node reached once), its transforms finite, and
 *     the merged output under TRESS_GLTF_MAX_VERTICES / _INDICES however often a mesh is instanced.
 */
#include "tress/gltf.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_document.h"
#include "tress/result.h"

#define MAX_PRIMITIVES 256

#define ALLOW(ct) TRESS__GLTF_ALLOW(ct)
enum { CT_UBYTE = TRESS__GLTF_UBYTE, CT_USHORT = TRESS__GLTF_USHORT, CT_UINT = TRESS__GLTF_UINT, CT_FLOAT = TRESS__GLTF_FLOAT };

/* One read: the document and the limits of what it may make. */
typedef struct reader {
  tress__gltf_doc doc;
  tress_gltf_read_opts opts;
} reader;

typedef tress__gltf_accessor accessor_view;
/* The reader's failures are the document's (the last one sets the message). */
#define failf(r, ...) tress__gltf_fail(&(r)->doc, TRESS_ERR_INVALID_ARGUMENT, __VA_ARGS__)
#define oom(r) tress__gltf_fail(&(r)->doc, TRESS_ERR_OUT_OF_MEMORY, "out of memory")
#define read_float tress__gltf_read_float
#define read_uint tress__gltf_read_uint

typedef struct prim_info {
  accessor_view pos, nrm, uv, joints, weights, idx;
  bool has_nrm, has_uv, has_skin, has_idx;
  int32_t material; /* -1: none */
  int32_t shares;   /* an earlier primitive of the mesh whose vertices this one indexes, -1: its own */
} prim_info;

static bool same_view(const accessor_view *a, const accessor_view *b) {
  return a->base == b->base && a->count == b->count && a->stride == b->stride && a->component_type == b->component_type &&
         a->components == b->components && a->normalized == b->normalized;
}

/* Primitives of one mesh that index the same vertex data (exporters split a mesh by material
 * this way, and so does gltf_write.c) read it once, so a file read and written again keeps its
 * vertex count. */
static bool same_vertices(const prim_info *a, const prim_info *b) {
  if (!a->has_idx || !b->has_idx || a->has_nrm != b->has_nrm || a->has_uv != b->has_uv || a->has_skin != b->has_skin) return false;
  return same_view(&a->pos, &b->pos) && (!a->has_nrm || same_view(&a->nrm, &b->nrm)) && (!a->has_uv || same_view(&a->uv, &b->uv)) &&
         (!a->has_skin || (same_view(&a->joints, &b->joints) && same_view(&a->weights, &b->weights)));
}

static bool optional_attr(reader *r, const cJSON *attrs, const char *name, int comps, unsigned allowed, accessor_view *a, bool *has,
                          uint64_t vertex_count) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(attrs, name);
  *has = false;
  if (!it) return true;
  if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble != floor(it->valuedouble)) return failf(r, "attribute %s is not an index", name);
  /* at most POSITION's count: a longer (sparse) accessor is refused before it is expanded */
  if (!tress__gltf_accessor_get(&r->doc, (uint64_t)it->valuedouble, comps, allowed, vertex_count, a, name)) return false;
  if (a->count != vertex_count)
    return failf(r, "attribute %s has %llu elements but POSITION has %llu", name, (unsigned long long)a->count, (unsigned long long)vertex_count);
  *has = true;
  return true;
}

static bool read_primitive(reader *r, const cJSON *prim, prim_info *p) {
  memset(p, 0, sizeof *p);
  uint64_t mode = 0;
  if (!tress__gltf_get_uint(&r->doc, prim, "mode", 4, 6, &mode, "primitive")) return false;
  if (mode != 4) return failf(r, "primitive mode %llu is not triangles", (unsigned long long)mode);
  const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
  if (!cJSON_IsObject(attrs)) return failf(r, "primitive has no attributes");
  uint64_t pos_index = 0;
  if (!tress__gltf_get_uint(&r->doc, attrs, "POSITION", -1, UINT32_MAX, &pos_index, "primitive attributes")) return false;
  if (!tress__gltf_accessor_get(&r->doc, pos_index, 3, ALLOW(CT_FLOAT), r->opts.max_vertices, &p->pos, "POSITION")) return false;
  uint64_t n = p->pos.count;
  bool has_joints, has_weights;
  if (!optional_attr(r, attrs, "NORMAL", 3, ALLOW(CT_FLOAT), &p->nrm, &p->has_nrm, n) ||
      !optional_attr(r, attrs, "TEXCOORD_0", 2, ALLOW(CT_FLOAT) | ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->uv, &p->has_uv, n) ||
      !optional_attr(r, attrs, "JOINTS_0", 4, ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->joints, &has_joints, n) ||
      !optional_attr(r, attrs, "WEIGHTS_0", 4, ALLOW(CT_FLOAT) | ALLOW(CT_UBYTE) | ALLOW(CT_USHORT), &p->weights, &has_weights, n))
    return false;
  if (has_joints != has_weights) return failf(r, "JOINTS_0 and WEIGHTS_0 must come together");
  p->has_skin = has_joints;
  p->material = -1;
  if (cJSON_GetObjectItemCaseSensitive(prim, "material")) {
    uint64_t material = 0;
    if (!tress__gltf_get_uint(&r->doc, prim, "material", -1, INT32_MAX, &material, "primitive") ||
        !tress__gltf_array_item(&r->doc, "materials", material, "a primitive's material"))
      return false;
    p->material = (int32_t)material;
  }
  const cJSON *ind = cJSON_GetObjectItemCaseSensitive(prim, "indices");
  if (ind) {
    uint64_t idx_index = 0;
    if (!tress__gltf_get_uint(&r->doc, prim, "indices", -1, UINT32_MAX, &idx_index, "primitive")) return false;
    if (!tress__gltf_accessor_get(&r->doc, idx_index, 1, ALLOW(CT_UBYTE) | ALLOW(CT_USHORT) | ALLOW(CT_UINT), r->opts.max_indices, &p->idx,
                                  "indices"))
      return false;
    if (p->idx.count % 3) return failf(r, "index count %llu is not a multiple of 3", (unsigned long long)p->idx.count);
    p->has_idx = true;
  } else if (n % 3) {
    return failf(r, "non-indexed primitive has %llu vertices, not a multiple of 3", (unsigned long long)n);
  }
  return true;
}

/* --- the scene: which nodes instance which meshes, under which world matrices --- */

/* Column-major 4x4 (glTF's order): element (row, col) is m[4 * col + row]. Doubles, so a long
 * chain of scales and rotations does not add float error before the one cast per vertex. */
typedef struct mesh_instance {
  uint64_t mesh;
  int64_t skin; /* -1: none */
  int node;     /* -1: the file has no nodes */
  bool identity;
  double world[16];
} mesh_instance;

static const double IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* A child entry that must be a node index (the document reader gives -1 for one that is not). */
static bool child_ref(reader *r, int32_t entry, int *out) {
  if (entry < 0) return failf(r, "a node child is not a node");
  *out = entry;
  return true;
}

/* A member that must be a node index. */
static bool node_ref(reader *r, const cJSON *it, int node_count, int *out, const char *what) {
  if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble >= node_count || it->valuedouble != floor(it->valuedouble))
    return failf(r, "%s is not a node", what);
  *out = (int)it->valuedouble;
  return true;
}

typedef struct node_walk {
  int node;
  double parent_world[16];
} node_walk;

/* The roots of the default scene ("scene", else scenes[0], else every node no node lists as a
 * child); roots has room for every node. */
static bool scene_roots(reader *r, int *roots, int *root_count) {
  int node_count = (int)r->doc.node_count;
  const cJSON *scene_key = cJSON_GetObjectItemCaseSensitive(r->doc.root, "scene");
  const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(r->doc.root, "scenes");
  *root_count = 0;
  if (scene_key || cJSON_GetArraySize(scenes) > 0) {
    uint64_t scene_index = 0;
    const cJSON *scene = NULL;
    if (!tress__gltf_get_uint(&r->doc, r->doc.root, "scene", 0, UINT32_MAX, &scene_index, "the document") ||
        !(scene = tress__gltf_array_item(&r->doc, "scenes", scene_index, "the document")))
      return false;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(scene, "nodes"), *it;
    if (list && !cJSON_IsArray(list)) return failf(r, "scenes[%llu].nodes is not an array", (unsigned long long)scene_index);
    cJSON_ArrayForEach(it, list) {
      if (*root_count == node_count) return failf(r, "scenes[%llu] lists more roots than there are nodes", (unsigned long long)scene_index);
      if (!node_ref(r, it, node_count, &roots[(*root_count)++], "a scene root")) return false;
    }
    return true;
  }
  /* No scenes: every node nobody lists as a child is a root. */
  for (int n = 0; n < node_count; n++) {
    const tress__gltf_node *nd = &r->doc.nodes[n];
    if (nd->children_state == TRESS__GLTF_BAD) return failf(r, "node %d children is not an array", n);
    for (uint32_t k = 0; k < nd->child_count; k++) {
      int child = 0;
      if (!child_ref(r, nd->children[k], &child)) return false;
    }
  }
  for (int n = 0; n < node_count; n++)
    if (r->doc.nodes[n].parent < 0) roots[(*root_count)++] = n;
  return true;
}

/* Every node of the default scene that instances a mesh, depth first in document order, with
 * its world matrix. Each node may be reached once: a node listed under two parents, or a cycle,
 * fails. Without a stack of recursion, so a deep chain of nodes cannot overflow anything. */
static bool collect_instances(reader *r, mesh_instance **out, int *out_count) {
  *out = NULL;
  *out_count = 0;
  if (r->doc.nodes_not_array) return failf(r, "nodes is not an array");
  int node_count = (int)r->doc.node_count;
  if (node_count == 0) return true;
  uint8_t *seen = calloc((size_t)node_count, 1);
  node_walk *stack = malloc(sizeof *stack * (size_t)node_count);
  mesh_instance *inst = malloc(sizeof *inst * (size_t)node_count);
  int *roots = malloc(sizeof *roots * (size_t)node_count);
  bool ok = seen && stack && inst && roots;
  if (!ok) oom(r);
  int root_count = 0, found = 0;
  for (int i = 0; i < node_count && ok; i++)
    if (!r->doc.nodes[i].is_object) ok = failf(r, "nodes[%d] is not an object", i);
  if (ok) ok = scene_roots(r, roots, &root_count);
  for (int ri = 0; ri < root_count && ok; ri++) {
    int depth = 0;
    if (seen[roots[ri]]) { ok = failf(r, "node %d is reached twice from the scene", roots[ri]); break; }
    seen[roots[ri]] = 1;
    stack[depth].node = roots[ri];
    memcpy(stack[depth++].parent_world, IDENTITY, sizeof IDENTITY);
    while (depth > 0 && ok) {
      node_walk at = stack[--depth];
      const tress__gltf_node *node = &r->doc.nodes[at.node];
      double local[16], world[16];
      if (!(ok = tress__gltf_node_matrix(&r->doc, at.node, local))) break;
      tress__gltf_mat_mul(at.parent_world, local, world);
      for (int k = 0; k < 16; k++)
        if (!isfinite(world[k])) { ok = failf(r, "node %d world matrix is not finite", at.node); break; }
      if (ok && cJSON_GetObjectItemCaseSensitive(node->json, "mesh")) {
        mesh_instance *mi = &inst[found++];
        uint64_t skin = 0;
        char what[32];
        snprintf(what, sizeof what, "nodes[%d]", at.node);
        ok = tress__gltf_get_uint(&r->doc, node->json, "mesh", -1, UINT32_MAX, &mi->mesh, what);
        bool has_skin = cJSON_GetObjectItemCaseSensitive(node->json, "skin") != NULL;
        if (ok && has_skin) ok = tress__gltf_get_uint(&r->doc, node->json, "skin", -1, UINT32_MAX, &skin, what);
        mi->skin = has_skin ? (int64_t)skin : -1;
        mi->node = at.node;
        memcpy(mi->world, world, sizeof world);
        mi->identity = memcmp(world, IDENTITY, sizeof world) == 0;
      }
      /* Children are pushed in order, then that run of the stack is reversed, so they pop in
       * document order. */
      if (node->children_state == TRESS__GLTF_BAD) { ok = failf(r, "node %d children is not an array", at.node); break; }
      int first_child = depth;
      for (uint32_t k = 0; k < node->child_count && ok; k++) {
        int child = 0;
        if (!(ok = child_ref(r, node->children[k], &child))) break;
        if (seen[child]) { ok = failf(r, "node %d is reached twice from the scene (a cycle or a shared child)", child); break; }
        seen[child] = 1;
        stack[depth].node = child;
        memcpy(stack[depth++].parent_world, world, sizeof world);
      }
      for (int lo = first_child, hi = depth - 1; lo < hi; lo++, hi--) {
        node_walk swap = stack[lo];
        stack[lo] = stack[hi];
        stack[hi] = swap;
      }
    }
  }
  free(seen);
  free(stack);
  free(roots);
  if (!ok) { free(inst); return false; }
  *out = inst;
  *out_count = found;
  return true;
}

/* No inverse bind matrices: a joint's bind position is its node translation plus its parent
 * joint's. Each joint is summed once, parents first through a path stack, so a chain of n joints
 * costs n steps (not n per joint); a cycle of joints ends the sum where it closes. */
static bool bind_from_translations(reader *r, const tress__gltf_skin *skin, tress_mesh *m) {
  uint32_t jn = skin->joint_count;
  uint8_t *state = calloc(jn, 1); /* 0 not summed, 1 on the path, 2 summed */
  uint32_t *path = malloc(sizeof *path * jn);
  if (!state || !path) {
    free(state);
    free(path);
    return oom(r);
  }
  for (uint32_t j = 0; j < jn; j++) {
    uint32_t depth = 0;
    int32_t b = (int32_t)j;
    while (b >= 0 && state[b] == 0) {
      state[b] = 1;
      path[depth++] = (uint32_t)b;
      b = m->bones[b].parent;
    }
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    const float *base = b >= 0 && state[b] == 2 ? m->bones[b].bind_pos : zero;
    while (depth > 0) {
      uint32_t x = path[--depth];
      const tress__gltf_local *l = &r->doc.nodes[skin->joint_node[x]].local;
      for (int k = 0; k < 3; k++) m->bones[x].bind_pos[k] = base[k] + (l->translation == TRESS__GLTF_OK ? (float)l->t[k] : 0.0f);
      state[x] = 2;
      base = m->bones[x].bind_pos;
    }
  }
  free(state);
  free(path);
  return true;
}

/* Bind positions from the inverse bind matrices: each one's inverse's translation. */
static bool bind_from_inverse_binds(reader *r, const tress__gltf_skin *skin, tress_mesh *m) {
  for (uint32_t j = 0; j < skin->joint_count; j++) {
    mat4 inv, world;
    for (int c = 0; c < 4; c++)
      for (int k = 0; k < 4; k++) inv[c][k] = read_float(&skin->inverse_binds, (uint64_t)j, 4 * c + k);
    glm_mat4_inv(inv, world);
    /* a singular matrix inverts to infinities: there is no bind pose to read */
    for (int k = 0; k < 3; k++)
      if (!isfinite(world[3][k])) return failf(r, "inverse bind matrix of joint %u is not invertible", j);
    for (int k = 0; k < 3; k++) m->bones[j].bind_pos[k] = world[3][k];
  }
  return true;
}

/* Reads the skin's joints as bones: names, parents (from node children), bind positions. Linear
 * in joints and nodes. */
static bool read_skin(reader *r, uint64_t skin_index, tress_mesh *m) {
  tress__gltf_skin skin;
  if (!tress__gltf_skin_read(&r->doc, skin_index, r->opts.max_joints, &skin)) return false;
  uint32_t jn = skin.joint_count;
  bool ok = tress_mesh_add_skin(m, jn) || oom(r);
  for (uint32_t j = 0; j < jn && ok; j++) {
    const char *name = r->doc.nodes[skin.joint_node[j]].name;
    snprintf(m->bones[j].name, sizeof m->bones[j].name, "%s", name ? name : "");
    m->bones[j].parent = skin.joint_parent[j];
  }
  if (ok) ok = skin.has_inverse_binds ? bind_from_inverse_binds(r, &skin, m) : bind_from_translations(r, &skin, m);
  tress__gltf_skin_free(&skin);
  return ok;
}

/* The primitives of one mesh, read once however many nodes instance it. */
typedef struct mesh_slot {
  uint32_t first_prim, prim_count;
  uint64_t vertices, indices;
} mesh_slot;

/* The normal matrix of world's upper 3x3 A: the cofactor matrix, det(A) * inverse-transpose,
 * whose columns are a1 x a2, a2 x a0, a0 x a1. Times sign(det) it points normals the way the
 * inverse-transpose does without dividing by det (a zero scale gives zero, not infinity);
 * every transformed normal is renormalised anyway. */
static double normal_matrix(const double w[16], double n[9]) {
  const double *a0 = w, *a1 = w + 4, *a2 = w + 8;
  double cols[3][3] = {{a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2], a1[0] * a2[1] - a1[1] * a2[0]},
                       {a2[1] * a0[2] - a2[2] * a0[1], a2[2] * a0[0] - a2[0] * a0[2], a2[0] * a0[1] - a2[1] * a0[0]},
                       {a0[1] * a1[2] - a0[2] * a1[1], a0[2] * a1[0] - a0[0] * a1[2], a0[0] * a1[1] - a0[1] * a1[0]}};
  double det = a0[0] * cols[0][0] + a0[1] * cols[0][1] + a0[2] * cols[0][2];
  double sign = det < 0.0 ? -1.0 : 1.0;
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < 3; k++) n[3 * c + k] = sign * cols[c][k];
  return det;
}

/* Writes one primitive instance into m at vbase / ibase (vbase: the shared primitive's, for one
 * that shares its vertices). An identity instance copies the data as
 * stored (bit for bit); any other moves positions by world, normals by the normal matrix, and a
 * mirroring world (det < 0) reverses each triangle so its front face stays the outside. */
static bool emit_primitive(reader *r, const prim_info *p, const mesh_instance *in, tress_mesh *m, uint32_t vbase, uint32_t ibase,
                           bool all_nrm, bool all_uv) {
  uint32_t n = (uint32_t)p->pos.count;
  uint32_t vertices = p->shares < 0 ? n : 0; /* a sharing primitive writes its indices alone */
  double nm[9] = {0};
  bool flip = !in->identity && normal_matrix(in->world, nm) < 0.0;
  const double *w = in->world;
  /* Non-indexed output is one non-indexed primitive: a flip swaps its vertices 1 and 2 instead. */
  bool swap_vertices = flip && !m->indices;
  for (uint32_t v = 0; v < vertices; v++) {
    uint32_t src = swap_vertices && v % 3 ? (v % 3 == 1 ? v + 1 : v - 1) : v;
    float *pos = m->positions + 3 * (size_t)(vbase + v);
    float *nrm = all_nrm ? m->normals + 3 * (size_t)(vbase + v) : NULL;
    for (int k = 0; k < 3; k++) {
      pos[k] = read_float(&p->pos, src, k);
      if (nrm) nrm[k] = read_float(&p->nrm, src, k);
    }
    if (!in->identity) {
      double x = pos[0], y = pos[1], z = pos[2];
      for (int k = 0; k < 3; k++) pos[k] = (float)(w[k] * x + w[4 + k] * y + w[8 + k] * z + w[12 + k]);
      if (nrm) {
        double a = nrm[0], b = nrm[1], c = nrm[2], t[3];
        for (int k = 0; k < 3; k++) t[k] = nm[k] * a + nm[3 + k] * b + nm[6 + k] * c;
        double len = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int k = 0; k < 3; k++) nrm[k] = (float)(len > 0.0 && isfinite(len) ? t[k] / len : 0.0);
      }
    }
    for (int k = 0; k < 3; k++)
      if (!isfinite(pos[k])) return failf(r, "POSITION %u of node %d's mesh is not finite", src, in->node);
    if (all_uv)
      for (int k = 0; k < 2; k++) m->uvs[2 * (size_t)(vbase + v) + k] = read_float(&p->uv, src, k);
    if (m->bones) {
      for (int k = 0; k < 4; k++) {
        uint32_t j = read_uint(&p->joints, src, k);
        float wt = read_float(&p->weights, src, k);
        if (!(wt >= 0.0f && wt <= 1.0001f)) return failf(r, "vertex %u has a bad weight", src);
        if (wt > 0.0f && j >= m->bone_count) return failf(r, "vertex %u uses joint %u of %u", src, j, m->bone_count);
        m->joints[4 * (size_t)(vbase + v) + k] = (uint16_t)(wt > 0.0f ? j : 0);
        m->weights[4 * (size_t)(vbase + v) + k] = wt;
      }
    }
  }
  if (m->indices) {
    uint32_t count = p->has_idx ? (uint32_t)p->idx.count : n;
    for (uint32_t k = 0; k < count; k++) {
      uint32_t ix = p->has_idx ? read_uint(&p->idx, k, 0) : k;
      if (ix >= n) return failf(r, "index %u is %u, past the primitive's %u vertices", k, ix, n);
      uint32_t slot = flip && k % 3 ? (k % 3 == 1 ? k + 1 : k - 1) : k;
      m->indices[ibase + slot] = vbase + ix;
    }
  }
  return true;
}

/* One primitive instance's triangles: where they start in the index list, how many, its material. */
typedef struct prim_run {
  uint32_t first, count;
  int32_t material;
} prim_run;

/* Appends a primitive instance's run, extending the last one when the material is the same (a
 * mesh instanced twice draws as one run per material change, not one per copy). */
static void add_run(prim_run *runs, uint32_t *count, uint32_t first, uint32_t n, int32_t material) {
  if (*count && runs[*count - 1].material == material) runs[*count - 1].count += n;
  else runs[(*count)++] = (prim_run){first, n, material};
}

/* The runs as the mesh's submeshes, each named from its material. */
static bool set_submeshes(reader *r, tress_mesh *m, const prim_run *runs, uint32_t count) {
  if (count > TRESS_GLTF_MAX_SUBMESHES)
    return failf(r, "the scene's meshes change material %u times (at most %u material runs are kept)", count, TRESS_GLTF_MAX_SUBMESHES);
  tress_mesh_submesh *subs = calloc(count ? count : 1, sizeof *subs);
  if (!subs) return oom(r);
  const cJSON *materials = cJSON_GetObjectItemCaseSensitive(r->doc.root, "materials");
  for (uint32_t i = 0; i < count; i++) {
    subs[i].first_index = runs[i].first;
    subs[i].index_count = runs[i].count;
    subs[i].material = runs[i].material;
    const cJSON *name = runs[i].material >= 0 ? cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(materials, runs[i].material), "name") : NULL;
    if (cJSON_IsString(name)) snprintf(subs[i].material_name, sizeof subs[i].material_name, "%s", name->valuestring);
  }
  tress_result rc = tress_mesh_set_submeshes(m, subs, count);
  free(subs);
  return rc == TRESS_OK || oom(r);
}

static bool within_limits(reader *r, uint64_t vertices, uint64_t indices) {
  if (vertices <= r->opts.max_vertices && indices <= r->opts.max_indices) return true;
  return failf(r, "the scene's meshes are too large (more than %u vertices or %u indices)", r->opts.max_vertices,
               r->opts.max_indices);
}

/* "The mesh" of a file, as the rigger sees it:
 *   - a node of the scene with a skin: that node's mesh alone, as stored (a skinned mesh is
 *     placed by its joints, never by its node), with its skin as bones;
 *   - else every mesh instance of the scene merged into one, each in world space, a mesh
 *     instanced by n nodes giving n copies;
 *   - a file with no node instancing any mesh: mesh 0 as stored. */
static tress_mesh *read_document(reader *r) {
  mesh_instance *inst = NULL, fallback = {0, -1, -1, true, {0}};
  int count = 0;
  if (!collect_instances(r, &inst, &count)) return NULL;
  for (int i = 0; i < count; i++)
    if (inst[i].skin >= 0) {
      inst[0] = inst[i];
      inst[0].identity = true;
      count = 1;
      break;
    }
  if (count == 0) {
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(r->doc.root, "nodes")) {
      if (cJSON_GetObjectItemCaseSensitive(n, "mesh")) {
        free(inst);
        failf(r, "no node of the scene instances a mesh");
        return NULL;
      }
    }
    free(inst);
    inst = &fallback;
    count = 1;
  }
  tress_mesh *m = NULL;
  const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(r->doc.root, "meshes");
  int mesh_count = cJSON_IsArray(meshes) ? cJSON_GetArraySize(meshes) : 0;
  int *slot_of = malloc(sizeof(int) * (size_t)(mesh_count ? mesh_count : 1));
  mesh_slot *slots = calloc((size_t)count, sizeof *slots);
  const cJSON **prims_of = calloc((size_t)count, sizeof *prims_of);
  prim_info *info = NULL;
  prim_run *runs = NULL;
  uint32_t slot_count = 0, prim_total = 0, run_count = 0;
  if (!slot_of || !slots || !prims_of) { failf(r, "out of memory"); goto done; }
  for (int i = 0; i < mesh_count; i++) slot_of[i] = -1;
  /* Each distinct mesh once: count its primitives, then read them all. */
  for (int i = 0; i < count; i++) {
    const cJSON *mesh = tress__gltf_array_item(&r->doc, "meshes", inst[i].mesh, inst[i].node >= 0 ? "a node" : "the document");
    if (!mesh) goto done;
    if (slot_of[inst[i].mesh] >= 0) continue;
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
    int pn = cJSON_IsArray(prims) ? cJSON_GetArraySize(prims) : 0;
    if (pn < 1 || pn > MAX_PRIMITIVES) { failf(r, "mesh %llu has %d primitives (1..%d allowed)", (unsigned long long)inst[i].mesh, pn, MAX_PRIMITIVES); goto done; }
    slot_of[inst[i].mesh] = (int)slot_count;
    prims_of[slot_count] = prims;
    slots[slot_count++] = (mesh_slot){prim_total, (uint32_t)pn, 0, 0};
    prim_total += (uint32_t)pn;
  }
  info = calloc(prim_total, sizeof *info);
  if (!info) { failf(r, "out of memory"); goto done; }
  bool all_nrm = true, all_uv = true, all_skin = true, any_idx = false;
  uint64_t read_vertices = 0, read_indices = 0;
  for (uint32_t s = 0; s < slot_count; s++) {
    int k = 0;
    const cJSON *prim;
    cJSON_ArrayForEach(prim, prims_of[s]) {
      prim_info *p = &info[slots[s].first_prim + (uint32_t)k++];
      if (!read_primitive(r, prim, p)) goto done;
      p->shares = -1;
      for (int e = 0; e < k - 1 && p->shares < 0; e++)
        if (info[slots[s].first_prim + (uint32_t)e].shares < 0 && same_vertices(&info[slots[s].first_prim + (uint32_t)e], p)) p->shares = e;
      uint64_t own = p->shares < 0 ? p->pos.count : 0;
      slots[s].vertices += own;
      slots[s].indices += p->has_idx ? p->idx.count : p->pos.count;
      read_vertices += own;
      read_indices += p->has_idx ? p->idx.count : p->pos.count;
      /* the distinct meshes alone already too large: stop before reading (expanding) more */
      if (!within_limits(r, read_vertices, read_indices)) goto done;
      all_nrm &= p->has_nrm;
      all_uv &= p->has_uv;
      all_skin &= p->has_skin;
      any_idx |= p->has_idx;
    }
  }
  uint64_t vertices = 0, indices = 0, prim_instances = 0;
  for (int i = 0; i < count; i++) {
    const mesh_slot *ms = &slots[slot_of[inst[i].mesh]];
    vertices += ms->vertices;
    indices += ms->indices;
    prim_instances += ms->prim_count;
    if (!within_limits(r, vertices, indices)) goto done;
  }
  tress_mesh_def mesh_def = {.vertex_count = (uint32_t)vertices,
                             .index_count = any_idx || prim_instances > 1 ? (uint32_t)indices : 0,
                             .has_normals = all_nrm, .has_uvs = all_uv};
  m = tress_mesh_create(&mesh_def);
  runs = malloc(sizeof *runs * (size_t)prim_instances);
  if (!m || !runs) { failf(r, "out of memory"); goto fail; }
  if (inst[0].skin >= 0 && all_skin && !read_skin(r, (uint64_t)inst[0].skin, m)) goto fail;
  uint32_t vbase = 0, ibase = 0, prim_vbase[MAX_PRIMITIVES];
  for (int i = 0; i < count; i++) {
    const mesh_slot *ms = &slots[slot_of[inst[i].mesh]];
    for (uint32_t k = 0; k < ms->prim_count; k++) {
      const prim_info *p = &info[ms->first_prim + k];
      prim_vbase[k] = p->shares < 0 ? vbase : prim_vbase[p->shares];
      if (!emit_primitive(r, p, &inst[i], m, prim_vbase[k], ibase, all_nrm, all_uv)) goto fail;
      uint32_t drawn = (uint32_t)(p->has_idx ? p->idx.count : p->pos.count);
      add_run(runs, &run_count, ibase, drawn, p->material);
      if (p->shares < 0) vbase += (uint32_t)p->pos.count;
      ibase += drawn;
    }
  }
  if (!set_submeshes(r, m, runs, run_count)) goto fail;
  goto done;
fail:
  tress_mesh_release(m);
  m = NULL;
done:
  free(runs);
  free(info);
  free(prims_of);
  free(slots);
  free(slot_of);
  if (inst != &fallback) free(inst);
  return m;
}

tress_gltf_read_opts tress_default_gltf_read_opts(void) {
  tress_gltf_read_opts o = {NULL, NULL, TRESS_GLTF_MAX_FILE_BYTES, TRESS_GLTF_MAX_VERTICES, TRESS_GLTF_MAX_INDICES,
                            TRESS_GLTF_MAX_JOINTS};
  return o;
}

tress_mesh *tress_gltf_read_memory_opts(const uint8_t *data, size_t size, const tress_gltf_read_opts *opts, tress_error *err) {
  reader r;
  r.opts = opts ? *opts : tress_default_gltf_read_opts();
  if (!data || size == 0) {
    tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "empty input");
    return NULL;
  }
  if (size > TRESS_GLTF_MAX_FILE_BYTES || size > r.opts.max_bytes) {
    tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "input is too large");
    return NULL;
  }
  tress_mesh *m = NULL;
  if (tress__gltf_doc_open(&r.doc, data, size, r.opts.base_dir, err) == 0) {
    r.doc.root_dir = r.opts.root_dir;
    r.doc.bytes_left = r.opts.max_bytes - size;
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(r.doc.root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2) != 0)
      failf(&r, "not glTF 2.x (asset.version)");
    else if (tress__gltf_doc_load_buffers(&r.doc))
      m = read_document(&r);
  }
  tress__gltf_doc_close(&r.doc);
  return m;
}

tress_mesh *tress_gltf_read_memory(const uint8_t *data, size_t size, const char *base_dir, tress_error *err) {
  tress_gltf_read_opts opts = tress_default_gltf_read_opts();
  opts.base_dir = base_dir;
  return tress_gltf_read_memory_opts(data, size, &opts, err);
}

tress_mesh *tress_gltf_load_opts(const char *path, const tress_gltf_read_opts *opts, tress_error *err) {
  tress_gltf_read_opts o = opts ? *opts : tress_default_gltf_read_opts();
  size_t size;
  char dir[4096];
  uint8_t *data = tress__gltf_file_read(path, o.max_bytes, &size, dir, sizeof dir, err);
  if (!data) return NULL;
  o.base_dir = dir;
  tress_mesh *m = tress_gltf_read_memory_opts(data, size, &o, err);
  free(data);
  return m;
}

tress_mesh *tress_gltf_load(const char *path, tress_error *err) { return tress_gltf_load_opts(path, NULL, err); }
