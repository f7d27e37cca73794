/* spring_import.c - spring chains and colliders from a glTF / VRM file's JSON.
 *
 * Only the JSON matters here (node names, hierarchy, TRS, extensions, extras); the mesh and
 * its buffers are gltf_read.c's business. The GLB container is walked by hand with every
 * length checked against what is left, then cJSON parses the JSON chunk.
 *
 * Invariants the passes keep:
 *  - nodes[] is validated first: a node is "bad" when it is in a cycle, listed as a child by
 *    two parents, or below such a node; nothing is imported from a bad node, and no pass
 *    follows a parent link without a step limit.
 *  - each source only adds what earlier ones left unsaid (extras override VRM fields), so a
 *    node is the root of at most one chain, and a node with colliders gets none from names.
 *  - a warning names the file's own indices and names, so a user can find the part.
 * The unit conversions are derived in tress/spring_import.h.
 */
#include "tress/spring_import.h"

#include <cjson/cJSON.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/result.h"
#include "tress/file_read.h"

#define TRESS_SPRING_ERROR_MAX 200 /* the parsers' message buffers */

#define STEP_DT (1.0f / 60.0f)
#define EARTH_G 9.81f
#define VRM0_END_LENGTH_M 0.07f
#define MAX_WARNINGS 1000u
#define MAX_COLLIDERS 4096u

const char *tress_spring_source_name(tress_spring_source s) {
  switch (s) {
    case TRESS_SPRING_FROM_VRM1: return "VRMC_springBone";
    case TRESS_SPRING_FROM_VRM0: return "VRM0 secondaryAnimation";
    case TRESS_SPRING_FROM_EXTRAS: return "extras";
    case TRESS_SPRING_FROM_NAME: return "name";
  }
  return "?";
}

tress_spring_import_def tress_default_spring_import_def(void) {
  tress_spring_import_def d = {1.0f / 0.28f, true, true, true};
  return d;
}

typedef struct region_preset {
  const char *region;
  float stiffness, drag;
} region_preset;

/* A fringe is held close to the face; temples and crown a little looser; a ponytail swings. */
static const region_preset PRESETS[] = {
    {"Fringe", 0.35f, 0.6f},  {"Temple_L", 0.2f, 0.55f}, {"Temple_R", 0.2f, 0.55f},
    {"Crest", 0.25f, 0.5f},   {"Crown", 0.2f, 0.5f},     {"Ponytail", 0.04f, 0.3f},
};

bool tress_spring_region_get_preset(const char *region, float *stiffness, float *drag) {
  for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++) {
    if (region && strcmp(region, PRESETS[i].region) == 0) {
      if (stiffness) *stiffness = PRESETS[i].stiffness;
      if (drag) *drag = PRESETS[i].drag;
      return true;
    }
  }
  if (stiffness) *stiffness = 0.1f;
  if (drag) *drag = 0.5f;
  return false;
}

/* ---- the import under construction ---- */

typedef struct builder {
  tress_spring_import *imp;
  bool oom;
  float scale; /* units per metre */
  /* per node, so every pass is linear in the file's size (a hostile file cannot make it slow) */
  int32_t *first_child, *next_sibling; /* child lists of the good tree */
  int32_t *root_chain;                 /* the chain rooted here, or -1 */
  uint8_t *in_chain;                   /* a joint of some chain */
  uint32_t *mark;                      /* scratch stamps, one per node */
  uint32_t stamp;
} builder;

static void warn(builder *b, const char *fmt, ...) {
  tress_spring_import *imp = b->imp;
  if (imp->warning_count >= MAX_WARNINGS) return;
  if (imp->warning_count == imp->warning_cap) {
    uint32_t cap = imp->warning_cap ? imp->warning_cap * 2 : 16;
    void *p = realloc(imp->warnings, (size_t)cap * sizeof *imp->warnings);
    if (!p) {
      b->oom = true;
      return;
    }
    imp->warnings = p;
    imp->warning_cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(imp->warnings[imp->warning_count], TRESS_SPRING_WARNING_MAX, fmt, ap);
  va_end(ap);
  imp->warning_count++;
  if (imp->warning_count == MAX_WARNINGS)
    snprintf(imp->warnings[imp->warning_count - 1], TRESS_SPRING_WARNING_MAX, "more warnings left out");
}

static const char *node_name(const builder *b, int32_t i) {
  return i >= 0 && (uint32_t)i < b->imp->node_count ? b->imp->nodes[i].name : "?";
}

static tress_spring_collider *collider_add(builder *b) {
  tress_spring_import *imp = b->imp;
  if (imp->collider_count >= MAX_COLLIDERS) {
    warn(b, "more than %u colliders: the rest are left out", MAX_COLLIDERS);
    return NULL;
  }
  if (imp->collider_count == imp->collider_cap) {
    uint32_t cap = imp->collider_cap ? imp->collider_cap * 2 : 8;
    void *p = realloc(imp->colliders, (size_t)cap * sizeof *imp->colliders);
    if (!p) {
      b->oom = true;
      return NULL;
    }
    imp->colliders = p;
    imp->collider_cap = cap;
  }
  tress_spring_collider *c = &imp->colliders[imp->collider_count++];
  memset(c, 0, sizeof *c);
  return c;
}

/* World length in metres of joint i's tail link: to its first child (a joint: chains are whole
 * subtrees), else its end tip, else the link from its parent. */
static float joint_link_m(const builder *b, const tress_spring_chain *c, uint32_t i) {
  const tress_spring_node *nodes = b->imp->nodes;
  int32_t child = b->first_child[c->joints[i]];
  float len;
  if (child >= 0) {
    const float *p = nodes[child].local.p;
    len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / b->scale;
  } else if (c->end_length > 0.0f) {
    len = c->end_length / b->scale;
  } else {
    const float *p = nodes[c->joints[i]].local.p;
    len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / b->scale;
  }
  return len < 1e-4f ? 1e-4f : len;
}

/* Our per-step pull s and VRM's stiffness k (m/s) describe the same turn rate on a link of
 * length L (spring_import.h): s = 1 - exp(-k dt / L). */
static float pose_stiffness_from_vrm(float k, float len_m) { return 1.0f - expf(-k * STEP_DT / len_m); }

static float vrm_stiffness_from_pose(float s, float len_m) {
  if (s > 0.999999f) s = 0.999999f;
  return -logf(1.0f - s) * len_m / STEP_DT;
}

/* Every joint takes the chain's single values (extras and name chains have no per-joint ones). */
static void joints_from_chain(const builder *b, tress_spring_chain *c) {
  for (uint32_t i = 0; i < c->joint_count; i++) {
    tress_spring_joint_settings *j = &c->joint_settings[i];
    j->stiffness = c->stiffness;
    j->rest_stiffness = vrm_stiffness_from_pose(c->stiffness, joint_link_m(b, c, i)) * b->scale;
    j->drag = c->drag;
    memcpy(j->gravity, c->gravity, sizeof j->gravity);
    j->radius = c->radius;
  }
}

static tress_spring_chain *chain_add(builder *b, int32_t root, const int32_t *joints, uint32_t joint_count) {
  tress_spring_import *imp = b->imp;
  if (imp->chain_count == imp->chain_cap) {
    uint32_t cap = imp->chain_cap ? imp->chain_cap * 2 : 8;
    void *p = realloc(imp->chains, (size_t)cap * sizeof *imp->chains);
    if (!p) {
      b->oom = true;
      return NULL;
    }
    imp->chains = p;
    imp->chain_cap = cap;
  }
  int32_t *copy = malloc((size_t)joint_count * sizeof *copy);
  tress_spring_joint_settings *js = calloc(joint_count, sizeof *js);
  if (!copy || !js) {
    free(copy);
    free(js);
    b->oom = true;
    return NULL;
  }
  memcpy(copy, joints, (size_t)joint_count * sizeof *copy);
  b->root_chain[root] = (int32_t)imp->chain_count;
  for (uint32_t k = 0; k < joint_count; k++) b->in_chain[joints[k]] = 1;
  tress_spring_chain *c = &imp->chains[imp->chain_count++];
  memset(c, 0, sizeof *c);
  c->root = root;
  c->joints = copy;
  c->joint_settings = js;
  c->joint_count = joint_count;
  c->center = -1;
  c->stiffness = 0.1f;
  c->drag = 0.5f;
  c->damping = 0.5f;
  c->gravity[1] = -EARTH_G * b->scale;
  joints_from_chain(b, c);
  return c;
}

static int32_t chain_of_root(const builder *b, int32_t node) { return b->root_chain[node]; }

static bool node_in_any_chain(const builder *b, int32_t node) { return b->in_chain[node] != 0; }

static bool node_has_collider(const tress_spring_import *imp, int32_t node) {
  for (uint32_t i = 0; i < imp->collider_count; i++)
    if (imp->colliders[i].node == node) return true;
  return false;
}

/* ---- JSON helpers ---- */

static bool json_float(const cJSON *obj, const char *key, float *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return false;
  *out = (float)v->valuedouble;
  return isfinite(*out);
}

static bool json_index(const cJSON *v, int32_t *out) {
  if (!cJSON_IsNumber(v)) return false;
  double d = v->valuedouble;
  if (!(d >= -2147483648.0 && d <= 2147483647.0) || d != floor(d)) return false;
  *out = (int32_t)d;
  return true;
}

/* A float array of exactly n finite numbers. */
static bool json_vec(const cJSON *v, float *out, int n) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return false;
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, v) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return false;
    out[i++] = (float)e->valuedouble;
  }
  return true;
}

/* VRM 0.x writes vectors as {x, y, z}. */
static bool json_xyz(const cJSON *v, float out[3]) {
  return cJSON_IsObject(v) && json_float(v, "x", &out[0]) && json_float(v, "y", &out[1]) &&
         json_float(v, "z", &out[2]);
}

/* ---- nodes ---- */

static void matrix_to_xform(const float m[16], tress_xform *t, float scale[3]) {
  /* column-major; columns normalised to take the rotation out of a scaled matrix */
  float c0[3] = {m[0], m[1], m[2]}, c1[3] = {m[4], m[5], m[6]}, c2[3] = {m[8], m[9], m[10]};
  float s0 = sqrtf(c0[0] * c0[0] + c0[1] * c0[1] + c0[2] * c0[2]);
  float s1 = sqrtf(c1[0] * c1[0] + c1[1] * c1[1] + c1[2] * c1[2]);
  float s2 = sqrtf(c2[0] * c2[0] + c2[1] * c2[1] + c2[2] * c2[2]);
  t->p[0] = m[12]; t->p[1] = m[13]; t->p[2] = m[14];
  scale[0] = s0; scale[1] = s1; scale[2] = s2;
  if (s0 < 1e-12f || s1 < 1e-12f || s2 < 1e-12f) {
    t->q[0] = t->q[1] = t->q[2] = 0.0f; t->q[3] = 1.0f;
    return;
  }
  mat3 r = {{c0[0] / s0, c0[1] / s0, c0[2] / s0}, {c1[0] / s1, c1[1] / s1, c1[2] / s1}, {c2[0] / s2, c2[1] / s2, c2[2] / s2}};
  glm_mat3_quat(r, t->q);
  tress_quat_normalize(t->q);
}

/* The one factor a bone without scale can carry: the mean, warned about when the three differ. */
static float uniform_scale(builder *b, int index, const char *name, const float sc[3]) {
  float mean = (sc[0] + sc[1] + sc[2]) / 3.0f;
  float lo = fminf(sc[0], fminf(sc[1], sc[2])), hi = fmaxf(sc[0], fmaxf(sc[1], sc[2]));
  if (!(lo > 0.0f)) {
    warn(b, "node %d \"%s\": scale (%g, %g, %g) is not positive: 1 is used", index, name, (double)sc[0],
         (double)sc[1], (double)sc[2]);
    return 1.0f;
  }
  if (hi - lo > 1e-4f * hi)
    warn(b, "node %d \"%s\": non-uniform scale (%g, %g, %g) is not modelled: %g is used", index, name,
         (double)sc[0], (double)sc[1], (double)sc[2], (double)mean);
  return mean;
}

/* Bakes the composed scale in, parents first: a node's translation is in its parent's scaled
 * frame, and node.scale becomes the node's world scale. Tops are roots and nodes below a bad
 * link (those sit in no good child list). */
static bool compose_scale(builder *b) {
  tress_spring_import *imp = b->imp;
  int32_t *queue = malloc((size_t)imp->node_count * sizeof *queue);
  if (!queue) return false;
  uint32_t n = 0;
  for (uint32_t k = 0; k < imp->node_count; k++) {
    int32_t p = imp->nodes[k].parent;
    if (p < 0 || imp->nodes[k].bad || imp->nodes[p].bad) queue[n++] = (int32_t)k;
  }
  for (uint32_t head = 0; head < n; head++) {
    tress_spring_node *nd = &imp->nodes[queue[head]];
    bool top = nd->parent < 0 || nd->bad || imp->nodes[nd->parent].bad;
    float parent_scale = top ? 1.0f : imp->nodes[nd->parent].scale;
    for (int a = 0; a < 3; a++) nd->local.p[a] *= parent_scale * b->scale;
    nd->scale *= parent_scale;
    for (int32_t c = b->first_child[queue[head]]; c >= 0 && n < imp->node_count; c = b->next_sibling[c]) queue[n++] = c;
  }
  free(queue);
  return true;
}

static bool read_nodes(builder *b, const cJSON *root) {
  tress_spring_import *imp = b->imp;
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
  if (!cJSON_IsArray(nodes)) return true; /* no nodes: nothing to import, not an error */
  int n = cJSON_GetArraySize(nodes);
  if (n <= 0) return true;
  if (n > 200000) {
    warn(b, "%d nodes: more than a model has, nothing imported", n);
    return true;
  }
  imp->nodes = calloc((size_t)n, sizeof *imp->nodes);
  if (!imp->nodes) return false;
  imp->node_count = (uint32_t)n;
  int i = 0;
  const cJSON *node;
  cJSON_ArrayForEach(node, nodes) {
    tress_spring_node *nd = &imp->nodes[i];
    nd->parent = -1;
    nd->local = tress_xform_identity();
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
    if (cJSON_IsString(name) && name->valuestring)
      snprintf(nd->name, sizeof nd->name, "%s", name->valuestring);
    else
      snprintf(nd->name, sizeof nd->name, "node%d", i);
    float m[16], tr[3], rot[4], sc[3] = {1.0f, 1.0f, 1.0f};
    if (json_vec(cJSON_GetObjectItemCaseSensitive(node, "matrix"), m, 16)) {
      matrix_to_xform(m, &nd->local, sc);
    } else {
      json_vec(cJSON_GetObjectItemCaseSensitive(node, "scale"), sc, 3);
      if (json_vec(cJSON_GetObjectItemCaseSensitive(node, "translation"), tr, 3)) memcpy(nd->local.p, tr, sizeof tr);
      if (json_vec(cJSON_GetObjectItemCaseSensitive(node, "rotation"), rot, 4)) {
        memcpy(nd->local.q, rot, sizeof rot);
        tress_quat_normalize(nd->local.q);
      }
    }
    nd->scale = uniform_scale(b, i, nd->name, sc);
    i++;
  }
  /* parents from children lists */
  i = 0;
  cJSON_ArrayForEach(node, nodes) {
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
    const cJSON *c;
    cJSON_ArrayForEach(c, children) {
      int32_t ci;
      if (!json_index(c, &ci) || ci < 0 || (uint32_t)ci >= imp->node_count) {
        warn(b, "node %d \"%s\" lists a child index out of range: ignored", i, imp->nodes[i].name);
        continue;
      }
      tress_spring_node *child = &imp->nodes[ci];
      if (ci == i) {
        warn(b, "node %d \"%s\" lists itself as a child (a cycle): nothing imported from it", i, imp->nodes[i].name);
        child->bad = true;
      } else if (child->parent >= 0 && child->parent != i) {
        warn(b, "node %d \"%s\" is listed as a child by two nodes (%d and %d): nothing imported from it or below it", ci, child->name,
             child->parent, i);
        child->bad = true;
      } else {
        child->parent = i;
      }
    }
    i++;
  }
  /* Cycles, in one linear pass: walk up from each unresolved node, stacking the path, until a
   * root, an already resolved node (inherit its badness) or a node on the current path (a
   * cycle: the whole path is bad). Then resolve the path top-down, a node being bad when its
   * parent is or when it was marked bad itself above (listed twice, its own child). */
  uint8_t *state = calloc(imp->node_count, 1); /* 0 unknown, 1 on the path, 2 resolved */
  int32_t *path = malloc((size_t)imp->node_count * sizeof *path);
  b->first_child = malloc((size_t)imp->node_count * sizeof *b->first_child);
  b->next_sibling = malloc((size_t)imp->node_count * sizeof *b->next_sibling);
  b->root_chain = malloc((size_t)imp->node_count * sizeof *b->root_chain);
  b->in_chain = calloc(imp->node_count, 1);
  b->mark = calloc(imp->node_count, sizeof *b->mark);
  if (!state || !path || !b->first_child || !b->next_sibling || !b->root_chain || !b->in_chain || !b->mark) {
    free(state);
    free(path);
    return false;
  }
  for (uint32_t k = 0; k < imp->node_count; k++) {
    if (state[k]) continue;
    uint32_t n = 0;
    int32_t p = (int32_t)k;
    while (p >= 0 && state[p] == 0) {
      state[p] = 1;
      path[n++] = p;
      p = imp->nodes[p].parent;
    }
    bool cycle = p >= 0 && state[p] == 1;
    bool bad = cycle || (p >= 0 && imp->nodes[p].bad);
    while (n > 0) {
      int32_t x = path[--n];
      if (cycle && !imp->nodes[x].bad)
        warn(b, "node %d \"%s\" is in or below a cycle of the node tree: nothing imported from it", x,
             imp->nodes[x].name);
      bad = bad || imp->nodes[x].bad;
      imp->nodes[x].bad = bad;
      state[x] = 2;
    }
  }
  free(state);
  free(path);
  /* child lists of the good tree, in file order */
  for (uint32_t k = 0; k < imp->node_count; k++) {
    b->first_child[k] = b->next_sibling[k] = b->root_chain[k] = -1;
  }
  for (uint32_t k = imp->node_count; k-- > 0;) {
    int32_t p = imp->nodes[k].parent;
    if (p < 0 || imp->nodes[k].bad || imp->nodes[p].bad) continue;
    b->next_sibling[k] = b->first_child[p];
    b->first_child[p] = (int32_t)k;
  }
  return compose_scale(b);
}

static bool node_ok(const builder *b, int32_t i) {
  return i >= 0 && (uint32_t)i < b->imp->node_count && !b->imp->nodes[i].bad;
}

/* The root and every good node below it, parents first (breadth-first over the child lists).
 * Returns the count, or 0 on allocation failure; *out is malloc'd. */
static uint32_t subtree(builder *b, int32_t root, int32_t **out) {
  tress_spring_import *imp = b->imp;
  int32_t *list = malloc((size_t)imp->node_count * sizeof *list);
  if (!list) {
    b->oom = true;
    return 0;
  }
  uint32_t n = 0;
  list[n++] = root;
  for (uint32_t head = 0; head < n; head++)
    for (int32_t c = b->first_child[list[head]]; c >= 0 && n < imp->node_count; c = b->next_sibling[c]) list[n++] = c;
  *out = list;
  return n;
}

/* ---- 1. VRM 1.0 ---- */

static void vrm_set_all_colliders(tress_spring_chain *c, const tress_spring_import *imp) {
  memset(&c->colliders, 0, sizeof c->colliders);
  for (uint32_t i = 0; i < imp->collider_count && i < TRESS_COLLIDER_SET_MAX; i++)
    tress_collider_set_add(&c->colliders, (uint16_t)i);
}

/* A VRM chain's per-joint settings from the file's values (n entries: one per joint, or 1 shared
 * by all, as VRM 0.x bone groups have), then the chain's single values: means over the joints
 * that move something (VRM 1.0: all but the tail joint; VRM 0.x: those with a child link). */
static void chain_from_vrm_joints(builder *b, tress_spring_chain *c, const float *k, const float *power,
                                  const float (*dir)[3], const float *drag, const float *hit, uint32_t n) {
  const tress_spring_node *nodes = b->imp->nodes;
  float sk = 0.0f, sd = 0.0f, g[3] = {0.0f, 0.0f, 0.0f}, r = 0.0f;
  uint32_t moving = 0;
  for (uint32_t i = 0; i < c->joint_count; i++) {
    uint32_t si = n == 1 ? 0 : i;
    tress_spring_joint_settings *j = &c->joint_settings[i];
    float len = joint_link_m(b, c, i);
    j->stiffness = pose_stiffness_from_vrm(k[si], len);
    j->rest_stiffness = k[si] * b->scale;
    j->drag = drag[si] < 0.0f ? 0.0f : (drag[si] > 1.0f ? 1.0f : drag[si]);
    for (int a = 0; a < 3; a++) j->gravity[a] = dir[si][a] * power[si] / STEP_DT * b->scale;
    j->radius = hit[si] * nodes[c->joints[i]].scale * b->scale;
    r = j->radius > r ? j->radius : r;
    bool moves = n == 1 ? b->first_child[c->joints[i]] >= 0 : i + 1 < c->joint_count;
    if (!moves) continue;
    moving++;
    sk += j->stiffness;
    sd += j->drag;
    for (int a = 0; a < 3; a++) g[a] += j->gravity[a];
  }
  if (moving == 0) moving = 1;
  c->stiffness = sk / (float)moving;
  c->drag = sd / (float)moving;
  c->damping = 1.0f - c->drag;
  for (int a = 0; a < 3; a++) c->gravity[a] = g[a] / (float)moving;
  c->radius = r;
  /* the VRM model's own values, per joint (VRM 0.x gives one set for every joint: n = 1) */
  free(c->vrm_joints);
  c->vrm_joints = calloc(c->joint_count ? c->joint_count : 1, sizeof *c->vrm_joints);
  for (uint32_t i = 0; c->vrm_joints && i < c->joint_count; i++) {
    uint32_t si = n == 1 ? 0 : i;
    const tress_spring_joint_settings *js = &c->joint_settings[i];
    tress_joint_settings *v = &c->vrm_joints[i];
    v->stiffness = js->rest_stiffness; /* a speed: units/s along the rest direction */
    v->damping = 1.0f - js->drag;
    v->gravity_scale = power[si] * b->scale;
    for (int a = 0; a < 3; a++) v->gravity_dir[a] = dir[si][a];
    v->radius = js->radius;
  }
}

/* Warns and returns false when the listed joints are not a chain this sim can move as named. */
static bool joints_are_chain(builder *b, const char *what, const int32_t *joints, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    if (b->imp->nodes[joints[i]].parent != joints[i - 1]) {
      warn(b, "%s: joint \"%s\" is not a child of \"%s\" (joints must be a parent-child chain): skipped", what,
           node_name(b, joints[i]), node_name(b, joints[i - 1]));
      return false;
    }
  }
  /* the sim moves everything below the root: every such node must be named */
  int32_t *below = NULL;
  uint32_t count = subtree(b, joints[0], &below);
  if (!below) return false;
  b->stamp++;
  for (uint32_t i = 0; i < n; i++) b->mark[joints[i]] = b->stamp;
  bool ok = true;
  for (uint32_t i = 1; i < count && ok; i++) {
    if (b->mark[below[i]] != b->stamp) {
      warn(b, "%s: would also move \"%s\", which it does not name: skipped", what, node_name(b, below[i]));
      ok = false;
    }
  }
  free(below);
  return ok;
}

/* `center` of a VRM 1.0 spring or a VRM 0.x bone group: a node index, or -1 (VRM 0.x writes -1
 * for none). */
static int32_t read_center(builder *b, const char *what, const cJSON *obj) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "center");
  int32_t center;
  if (!v) return -1;
  if (!json_index(v, &center) || center < -1 || center >= (int32_t)b->imp->node_count) {
    warn(b, "%s: center is not a node index: not imported (the spring runs in world space)", what);
    return -1;
  }
  if (center >= 0 && b->imp->nodes[center].bad) {
    warn(b, "%s: center \"%s\" is in a bad part of the node tree: not imported", what, b->imp->nodes[center].name);
    return -1;
  }
  return center;
}

/* The sim has spheres and capsules only (outside): an extended collider's plane or inside shape
 * is not imported, and the spec's fallback shape stands in for it. */
static void warn_extended_collider(builder *b, int index, const char *node, const cJSON *col, const char *fallback) {
  const cJSON *exts = cJSON_GetObjectItemCaseSensitive(col, "extensions");
  const cJSON *e;
  cJSON_ArrayForEach(e, exts) {
    if (!e->string) continue;
    if (strcmp(e->string, "VRMC_springBone_extended_collider") != 0) {
      warn(b, "VRMC_springBone collider %d on \"%s\": extension %s is not imported", index, node, e->string);
      continue;
    }
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *kind = cJSON_IsObject(shape) ? shape->child : NULL;
    bool inside = kind && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kind, "inside"));
    warn(b, "VRMC_springBone collider %d on \"%s\": VRMC_springBone_extended_collider %s%s is not imported: its "
            "fallback %s is used",
         index, node, inside ? "inside " : "", kind && kind->string ? kind->string : "shape", fallback);
  }
}

/* Joint extensions (VRMC_springBone_limit's rotation limits, others) are not imported: one
 * warning per spring and extension. */
static void warn_joint_extensions(builder *b, const char *what, const cJSON *joints) {
  const cJSON *joint;
  const char *seen[8];
  int seen_count = 0;
  cJSON_ArrayForEach(joint, joints) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(joint, "extensions")) {
      if (!e->string) continue;
      bool dup = false;
      for (int k = 0; k < seen_count; k++) dup = dup || strcmp(seen[k], e->string) == 0;
      if (dup) continue;
      if (seen_count < 8) seen[seen_count++] = e->string;
      warn(b, "%s: joint extension %s%s is not imported", what, e->string,
           strcmp(e->string, "VRMC_springBone_limit") == 0 ? " (rotation limits)" : "");
    }
  }
}

static void read_vrm1(builder *b, const cJSON *ext) {
  tress_spring_import *imp = b->imp;
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(ext, "specVersion");
  const char *v = cJSON_IsString(version) && version->valuestring ? version->valuestring : "";
  if (strcmp(v, "1.0") != 0 && strcmp(v, "1.0-beta") != 0)
    warn(b, "VRMC_springBone specVersion \"%s\" is not 1.0: read as 1.0", v);
  /* colliders: file index -> ours (-1 when skipped) */
  const cJSON *colliders = cJSON_GetObjectItemCaseSensitive(ext, "colliders");
  int ncol = cJSON_IsArray(colliders) ? cJSON_GetArraySize(colliders) : 0;
  int32_t *map = calloc((size_t)(ncol > 0 ? ncol : 1), sizeof *map);
  if (!map) {
    b->oom = true;
    return;
  }
  int ci = 0;
  const cJSON *col;
  cJSON_ArrayForEach(col, colliders) {
    map[ci] = -1;
    int32_t node;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(col, "shape");
    const cJSON *sphere = cJSON_GetObjectItemCaseSensitive(shape, "sphere");
    const cJSON *capsule = cJSON_GetObjectItemCaseSensitive(shape, "capsule");
    const cJSON *s = sphere ? sphere : capsule;
    float radius = 0.0f, offset[3] = {0, 0, 0}, tail[3] = {0, 0, 0};
    if (!json_index(cJSON_GetObjectItemCaseSensitive(col, "node"), &node) || node < 0 ||
        (uint32_t)node >= imp->node_count) {
      warn(b, "VRMC_springBone collider %d: node index out of range: skipped", ci);
    } else if (imp->nodes[node].bad) {
      warn(b, "VRMC_springBone collider %d: node \"%s\" is in a bad part of the node tree: skipped", ci,
           imp->nodes[node].name);
    } else if (!cJSON_IsObject(s)) {
      warn(b, "VRMC_springBone collider %d on \"%s\": no sphere or capsule shape: skipped", ci, imp->nodes[node].name);
    } else {
      json_vec(cJSON_GetObjectItemCaseSensitive(s, "offset"), offset, 3);
      if (capsule && !sphere) json_vec(cJSON_GetObjectItemCaseSensitive(s, "tail"), tail, 3);
      if (!json_float(s, "radius", &radius)) radius = 0.0f;
      float dx = tail[0] - offset[0], dy = tail[1] - offset[1], dz = tail[2] - offset[2];
      float height = sqrtf(dx * dx + dy * dy + dz * dz);
      if (radius < 0.0f) {
        warn(b, "VRMC_springBone collider %d on \"%s\": negative radius %g: skipped", ci, imp->nodes[node].name,
             (double)radius);
      } else if (capsule && !sphere && !(height > 0.0f)) {
        warn(b, "VRMC_springBone collider %d on \"%s\": capsule with no length: skipped", ci, imp->nodes[node].name);
      } else {
        tress_spring_collider *c = collider_add(b);
        if (c) {
          c->shape = sphere ? TRESS_COLLIDER_SPHERE : TRESS_COLLIDER_CAPSULE;
          c->node = node;
          float sc = imp->nodes[node].scale * b->scale;
          for (int a = 0; a < 3; a++) {
            c->offset[a] = offset[a] * sc;
            c->tail[a] = (sphere ? offset[a] : tail[a]) * sc;
          }
          c->radius = radius * sc;
          c->height = sphere ? 0.0f : height * sc;
          warn_extended_collider(b, ci, imp->nodes[node].name, col, sphere ? "sphere" : "capsule");
          c->source = TRESS_SPRING_FROM_VRM1;
          map[ci] = (int32_t)(imp->collider_count - 1);
        }
      }
    }
    ci++;
  }
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(ext, "colliderGroups");
  int ngroups = cJSON_IsArray(groups) ? cJSON_GetArraySize(groups) : 0;

  const cJSON *springs = cJSON_GetObjectItemCaseSensitive(ext, "springs");
  int si = 0;
  const cJSON *spring;
  cJSON_ArrayForEach(spring, springs) {
    char what[96];
    const cJSON *sname = cJSON_GetObjectItemCaseSensitive(spring, "name");
    snprintf(what, sizeof what, "VRMC_springBone spring %d \"%s\"", si,
             cJSON_IsString(sname) && sname->valuestring ? sname->valuestring : "");
    si++;
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(spring, "joints");
    int n = cJSON_IsArray(joints) ? cJSON_GetArraySize(joints) : 0;
    if (n < 2) {
      warn(b, "%s: names %d joint%s, a spring needs at least two: skipped", what, n, n == 1 ? "" : "s");
      continue;
    }
    if ((uint32_t)n > imp->node_count) {
      warn(b, "%s: more joints than the file has nodes: skipped", what);
      continue;
    }
    int32_t *ids = malloc((size_t)n * sizeof *ids);
    float *k = malloc((size_t)n * sizeof *k), *power = malloc((size_t)n * sizeof *power);
    float *drag = malloc((size_t)n * sizeof *drag), *hit = malloc((size_t)n * sizeof *hit);
    float(*dir)[3] = malloc((size_t)n * sizeof *dir);
    bool ok = ids && k && power && drag && hit && dir;
    if (!ok) b->oom = true;
    int j = 0;
    const cJSON *joint;
    cJSON_ArrayForEach(joint, joints) {
      if (!ok) break;
      if (!json_index(cJSON_GetObjectItemCaseSensitive(joint, "node"), &ids[j]) || ids[j] < 0 ||
          (uint32_t)ids[j] >= imp->node_count) {
        warn(b, "%s: joint %d has a node index out of range: skipped", what, j);
        ok = false;
        break;
      }
      if (imp->nodes[ids[j]].bad) {
        warn(b, "%s: joint \"%s\" is in a bad part of the node tree: skipped", what, imp->nodes[ids[j]].name);
        ok = false;
        break;
      }
      /* VRM 1.0 defaults */
      k[j] = 1.0f; power[j] = 0.0f; drag[j] = 0.5f; hit[j] = 0.0f;
      dir[j][0] = 0.0f; dir[j][1] = -1.0f; dir[j][2] = 0.0f;
      json_float(joint, "stiffness", &k[j]);
      json_float(joint, "gravityPower", &power[j]);
      json_float(joint, "dragForce", &drag[j]);
      json_float(joint, "hitRadius", &hit[j]);
      json_vec(cJSON_GetObjectItemCaseSensitive(joint, "gravityDir"), dir[j], 3);
      if (hit[j] < 0.0f || k[j] < 0.0f) {
        warn(b, "%s: joint \"%s\" has a negative %s: skipped", what, imp->nodes[ids[j]].name,
             hit[j] < 0.0f ? "hitRadius" : "stiffness");
        ok = false;
        break;
      }
      j++;
    }
    if (ok && chain_of_root(b, ids[0]) >= 0) {
      warn(b, "%s: \"%s\" is already the root of a spring: skipped", what, imp->nodes[ids[0]].name);
      ok = false;
    }
    if (ok) ok = joints_are_chain(b, what, ids, (uint32_t)n);
    if (ok) warn_joint_extensions(b, what, joints);
    if (ok) {
      tress_spring_chain *c = chain_add(b, ids[0], ids, (uint32_t)n);
      if (c) {
        c->source = TRESS_SPRING_FROM_VRM1;
        c->center = read_center(b, what, spring);
        chain_from_vrm_joints(b, c, k, power, (const float(*)[3])dir, drag, hit, (uint32_t)n);
        const cJSON *cg = cJSON_GetObjectItemCaseSensitive(spring, "colliderGroups");
        const cJSON *g;
        cJSON_ArrayForEach(g, cg) {
          int32_t gi;
          if (!json_index(g, &gi) || gi < 0 || gi >= ngroups) {
            warn(b, "%s: collider group index out of range: ignored", what);
            continue;
          }
          const cJSON *list = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(groups, gi), "colliders");
          const cJSON *e;
          cJSON_ArrayForEach(e, list) {
            int32_t cidx;
            if (!json_index(e, &cidx) || cidx < 0 || cidx >= ncol) {
              warn(b, "collider group %d: collider index out of range: ignored", gi);
              continue;
            }
            if (map[cidx] < 0) continue; /* skipped above, already warned */
            if (c->colliders.count >= TRESS_COLLIDER_SET_MAX) {
              warn(b, "%s: more than %d colliders: the rest are left out", what, TRESS_COLLIDER_SET_MAX);
              break;
            }
            tress_collider_set_add(&c->colliders, (uint16_t)map[cidx]);
          }
        }
      }
    }
    free(ids); free(k); free(power); free(drag); free(hit); free(dir);
  }
  free(map);
}

/* ---- 1b. VRM 0.x ---- */

static void read_vrm0(builder *b, const cJSON *sec) {
  tress_spring_import *imp = b->imp;
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(sec, "colliderGroups");
  int ngroups = cJSON_IsArray(groups) ? cJSON_GetArraySize(groups) : 0;
  /* group -> [first, end) of our colliders */
  uint32_t(*range)[2] = calloc((size_t)(ngroups > 0 ? ngroups : 1), sizeof *range);
  if (!range) {
    b->oom = true;
    return;
  }
  int gi = 0;
  const cJSON *group;
  cJSON_ArrayForEach(group, groups) {
    range[gi][0] = range[gi][1] = imp->collider_count;
    int32_t node;
    if (!json_index(cJSON_GetObjectItemCaseSensitive(group, "node"), &node) || !node_ok(b, node)) {
      warn(b, "VRM0 collider group %d: node index out of range or in a bad part of the node tree: skipped", gi);
      gi++;
      continue;
    }
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(group, "colliders");
    const cJSON *col;
    cJSON_ArrayForEach(col, cols) {
      float off[3] = {0, 0, 0}, radius = 0.0f;
      json_xyz(cJSON_GetObjectItemCaseSensitive(col, "offset"), off);
      json_float(col, "radius", &radius);
      if (radius < 0.0f) {
        warn(b, "VRM0 collider group %d on \"%s\": negative radius %g: skipped", gi, imp->nodes[node].name,
             (double)radius);
        continue;
      }
      tress_spring_collider *c = collider_add(b);
      if (!c) break;
      c->shape = TRESS_COLLIDER_SPHERE;
      c->node = node;
      off[2] = -off[2]; /* Unity axes -> glTF, as three-vrm's loader does: (x, y, -z) */
      float sc = imp->nodes[node].scale * b->scale;
      for (int a = 0; a < 3; a++) c->offset[a] = c->tail[a] = off[a] * sc;
      c->radius = radius * sc;
      c->source = TRESS_SPRING_FROM_VRM0;
    }
    range[gi][1] = imp->collider_count;
    gi++;
  }
  const cJSON *bgs = cJSON_GetObjectItemCaseSensitive(sec, "boneGroups");
  int bi = 0;
  const cJSON *bg;
  cJSON_ArrayForEach(bg, bgs) {
    float k = 1.0f, power = 0.0f, drag = 0.4f, hit = 0.02f, dir[3] = {0.0f, -1.0f, 0.0f};
    if (!json_float(bg, "stiffiness", &k)) json_float(bg, "stiffness", &k); /* the spec's spelling first */
    json_float(bg, "gravityPower", &power);
    json_float(bg, "dragForce", &drag);
    json_float(bg, "hitRadius", &hit);
    json_xyz(cJSON_GetObjectItemCaseSensitive(bg, "gravityDir"), dir); /* as written, as three-vrm reads it */
    char what[64];
    snprintf(what, sizeof what, "VRM0 bone group %d", bi);
    int32_t center = read_center(b, what, bg);
    if (hit < 0.0f || k < 0.0f) {
      warn(b, "VRM0 bone group %d: negative %s: skipped", bi, hit < 0.0f ? "hitRadius" : "stiffness");
      bi++;
      continue;
    }
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(bg, "bones");
    const cJSON *bone;
    cJSON_ArrayForEach(bone, bones) {
      int32_t root;
      if (!json_index(bone, &root) || root < 0 || (uint32_t)root >= imp->node_count) {
        warn(b, "VRM0 bone group %d: bone index out of range: skipped", bi);
        continue;
      }
      if (imp->nodes[root].bad) {
        warn(b, "VRM0 bone group %d: \"%s\" is in a bad part of the node tree: skipped", bi, imp->nodes[root].name);
        continue;
      }
      if (chain_of_root(b, root) >= 0) continue;
      int32_t *joints = NULL;
      uint32_t n = subtree(b, root, &joints);
      if (n < 2) {
        if (n) warn(b, "VRM0 bone group %d: \"%s\" has no child bones: skipped", bi, imp->nodes[root].name);
        free(joints);
        continue;
      }
      tress_spring_chain *c = chain_add(b, root, joints, n);
      free(joints);
      if (!c) continue;
      c->source = TRESS_SPRING_FROM_VRM0;
      c->center = center;
      c->end_length = VRM0_END_LENGTH_M * imp->nodes[root].scale * b->scale;
      float ks[1] = {k}, ps[1] = {power}, ds[1] = {drag}, hs[1] = {hit};
      float dirs[1][3] = {{dir[0], dir[1], dir[2]}};
      chain_from_vrm_joints(b, c, ks, ps, (const float(*)[3])dirs, ds, hs, 1);
      const cJSON *cg = cJSON_GetObjectItemCaseSensitive(bg, "colliderGroups");
      const cJSON *g;
      cJSON_ArrayForEach(g, cg) {
        int32_t gidx;
        if (!json_index(g, &gidx) || gidx < 0 || gidx >= ngroups) {
          warn(b, "VRM0 bone group %d: collider group index out of range: ignored", bi);
          continue;
        }
        for (uint32_t ci = range[gidx][0]; ci < range[gidx][1]; ci++) tress_collider_set_add(&c->colliders, (uint16_t)ci);
      }
    }
    bi++;
  }
  free(range);
}

/* ---- 2. extras ---- */

/* extras.estella.<key> (the seed's), else extras.tress.<key> (our older alias). *what gets the
 * key's full name for warnings. */
static const cJSON *node_extras(builder *b, const cJSON *node, const char *nm, const char *key, char *what,
                                size_t what_size) {
  const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node, "extras");
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(extras, "estella"), key);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(extras, "tress"), key);
  if (cJSON_IsObject(e) && cJSON_IsObject(t))
    warn(b, "extras.tress.%s on \"%s\": not imported, extras.estella.%s is read instead", key, nm, key);
  const cJSON *v = cJSON_IsObject(e) ? e : (cJSON_IsObject(t) ? t : NULL);
  snprintf(what, what_size, "extras.%s.%s on \"%s\"", v == e ? "estella" : "tress", key, nm);
  return v;
}

/* A field the importer does not read (the seed's wind, weight, enabled, ...) is warned about. */
static void warn_unread_fields(builder *b, const char *what, const cJSON *obj, const char *const *known, size_t n) {
  const cJSON *f;
  cJSON_ArrayForEach(f, obj) {
    bool ok = false;
    for (size_t k = 0; k < n && !ok; k++) ok = f->string && strcmp(f->string, known[k]) == 0;
    if (!ok) warn(b, "%s: \"%s\" is not imported", what, f->string ? f->string : "?");
  }
}

static const char *const SPRING_BONE_FIELDS[] = {"stiffness", "drag", "gravity", "radius", "endLength"};
static const char *const SPRING_COLLIDER_FIELDS[] = {"shape", "radius", "height", "offset"};

/* An extras override of one field reaches every joint of the chain. */
static void joints_set_stiffness(const builder *b, tress_spring_chain *c) {
  for (uint32_t i = 0; i < c->joint_count; i++) {
    c->joint_settings[i].stiffness = c->stiffness;
    c->joint_settings[i].rest_stiffness = vrm_stiffness_from_pose(c->stiffness, joint_link_m(b, c, i)) * b->scale;
  }
}

static void read_extras(builder *b, const cJSON *root, bool *all_colliders) {
  tress_spring_import *imp = b->imp;
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
  int i = 0;
  const cJSON *node;
  cJSON_ArrayForEach(node, nodes) {
    if ((uint32_t)i >= imp->node_count) break;
    const char *nm = imp->nodes[i].name;
    char what[TRESS_SPRING_WARNING_MAX];
    const cJSON *col = node_extras(b, node, nm, "springCollider", what, sizeof what);
    if (col && imp->nodes[i].bad) {
      warn(b, "%s: node in a bad part of the node tree: skipped", what);
    } else if (col) {
      warn_unread_fields(b, what, col, SPRING_COLLIDER_FIELDS, sizeof SPRING_COLLIDER_FIELDS / sizeof *SPRING_COLLIDER_FIELDS);
      const cJSON *shape = cJSON_GetObjectItemCaseSensitive(col, "shape");
      bool capsule = cJSON_IsString(shape) && shape->valuestring && strcmp(shape->valuestring, "capsule") == 0;
      float radius = 0.0f, height = 0.0f, off[3] = {0, 0, 0};
      json_float(col, "radius", &radius);
      json_float(col, "height", &height);
      json_vec(cJSON_GetObjectItemCaseSensitive(col, "offset"), off, 3);
      if (cJSON_IsString(shape) && shape->valuestring && !capsule && strcmp(shape->valuestring, "sphere") != 0) {
        warn(b, "%s: unknown shape \"%s\": skipped", what, shape->valuestring);
      } else if (radius < 0.0f || height < 0.0f) {
        warn(b, "%s: negative %s: skipped", what, radius < 0.0f ? "radius" : "height");
      } else if (capsule && !(height > 0.0f)) {
        warn(b, "%s: capsule with no length: skipped", what);
      } else {
        float ns = imp->nodes[i].scale * b->scale;
        float so[3] = {off[0] * ns, off[1] * ns, off[2] * ns};
        tress_collider_def d = capsule ? tress_collider_capsule_y((tress_id){0}, so, height * ns, radius * ns)
                                       : tress_default_collider_def();
        if (!capsule) {
          memcpy(d.offset, so, sizeof so);
          memcpy(d.tail, so, sizeof so);
          d.radius = radius * ns;
        }
        /* these win over VRM for this node: rewrite its colliders in place (groups keep them) */
        bool replaced = false;
        for (uint32_t c = 0; c < imp->collider_count; c++) {
          tress_spring_collider *sc = &imp->colliders[c];
          if (sc->node != i) continue;
          replaced = true;
          sc->shape = d.shape;
          memcpy(sc->offset, d.offset, sizeof d.offset);
          memcpy(sc->tail, d.tail, sizeof d.tail);
          sc->radius = d.radius;
          sc->height = capsule ? height * ns : 0.0f;
          sc->source = TRESS_SPRING_FROM_EXTRAS;
        }
        tress_spring_collider *sc = replaced ? NULL : collider_add(b);
        if (sc) {
          sc->shape = d.shape;
          sc->node = i;
          memcpy(sc->offset, d.offset, sizeof d.offset);
          memcpy(sc->tail, d.tail, sizeof d.tail);
          sc->radius = d.radius;
          sc->height = capsule ? height * ns : 0.0f;
          sc->source = TRESS_SPRING_FROM_EXTRAS;
        }
      }
    }
    const cJSON *sb = node_extras(b, node, nm, "springBone", what, sizeof what);
    if (sb && imp->nodes[i].bad) {
      warn(b, "%s: node in a bad part of the node tree: skipped", what);
    } else if (sb) {
      warn_unread_fields(b, what, sb, SPRING_BONE_FIELDS, sizeof SPRING_BONE_FIELDS / sizeof *SPRING_BONE_FIELDS);
      int32_t ci = chain_of_root(b, i);
      tress_spring_chain *c = ci >= 0 ? &imp->chains[ci] : NULL;
      float v;
      bool bad_value = (json_float(sb, "radius", &v) && v < 0.0f) || (json_float(sb, "endLength", &v) && v < 0.0f);
      if (bad_value) {
        warn(b, "%s: negative radius or endLength: skipped", what);
      } else {
        if (!c) {
          int32_t *joints = NULL;
          uint32_t n = subtree(b, i, &joints);
          if (n == 1) warn(b, "%s: no child bones below it: skipped", what);
          if (n >= 2) {
            c = chain_add(b, i, joints, n);
            if (c) {
              c->source = TRESS_SPRING_FROM_EXTRAS;
              all_colliders[imp->chain_count - 1] = true;
            }
          }
          free(joints);
        }
        if (c) {
          c->source = TRESS_SPRING_FROM_EXTRAS;
          float sc = imp->nodes[i].scale * b->scale;
          /* endLength first: it is the leaves' link length the stiffness conversion uses */
          if (json_float(sb, "endLength", &v)) c->end_length = v * sc;
          if (json_float(sb, "stiffness", &v)) {
            c->stiffness = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            joints_set_stiffness(b, c);
          }
          if (json_float(sb, "drag", &v)) {
            c->drag = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            c->damping = 1.0f - c->drag;
            for (uint32_t k = 0; k < c->joint_count; k++) c->joint_settings[k].drag = c->drag;
          }
          float g[3];
          bool has_g = true;
          if (json_vec(cJSON_GetObjectItemCaseSensitive(sb, "gravity"), g, 3)) {
            for (int a = 0; a < 3; a++) c->gravity[a] = g[a] * b->scale;
          } else if (json_float(sb, "gravity", &v)) {
            c->gravity[0] = c->gravity[2] = 0.0f;
            c->gravity[1] = -v * b->scale;
          } else {
            has_g = false;
          }
          for (uint32_t k = 0; has_g && k < c->joint_count; k++)
            memcpy(c->joint_settings[k].gravity, c->gravity, sizeof c->gravity);
          if (json_float(sb, "radius", &v)) {
            c->radius = v * sc;
            for (uint32_t k = 0; k < c->joint_count; k++) c->joint_settings[k].radius = c->radius;
          }
        }
      }
    }
    i++;
  }
}

/* ---- 3. names ---- */

/* Parses a non-negative decimal number filling [s, end); false otherwise. */
static bool parse_cm(const char *s, const char *end, float *out) {
  if (s >= end || end - s > 15) return false;
  char buf[16];
  size_t n = (size_t)(end - s);
  memcpy(buf, s, n);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i++)
    if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.')) return false;
  char *stop = NULL;
  double v = strtod(buf, &stop);
  if (stop != buf + n || !isfinite(v)) return false;
  *out = (float)v;
  return true;
}

/* "SBC_Sphere_<name>_r<cm>" / "SBC_Capsule_<name>_r<cm>_h<cm>". Returns 0 not a collider name,
 * 1 parsed, -1 malformed (warned). */
static int parse_collider_name(builder *b, const char *nm, bool *capsule, float *r_cm, float *h_cm) {
  const char *sp = "SBC_Sphere_", *cp = "SBC_Capsule_";
  *capsule = strncmp(nm, cp, strlen(cp)) == 0;
  if (!*capsule && strncmp(nm, sp, strlen(sp)) != 0) return 0;
  const char *body = nm + strlen(*capsule ? cp : sp);
  const char *end = nm + strlen(nm);
  *h_cm = 0.0f;
  if (*capsule) {
    const char *h = NULL;
    for (const char *p = body; p + 1 < end; p++)
      if (p[0] == '_' && p[1] == 'h') h = p;
    if (!h || !parse_cm(h + 2, end, h_cm)) {
      warn(b, "\"%s\": a capsule name ends in _r<cm>_h<cm>: skipped", nm);
      return -1;
    }
    end = h;
  }
  const char *r = NULL;
  for (const char *p = body; p + 1 < end; p++)
    if (p[0] == '_' && p[1] == 'r') r = p;
  if (!r || !parse_cm(r + 2, end, r_cm)) {
    warn(b, "\"%s\": a collider name ends in _r<cm>%s: skipped", nm, *capsule ? "_h<cm>" : "");
    return -1;
  }
  return 1;
}

/* "Hair_<region>_<chain>_00": region is everything between "Hair_" and the last "_<chain>". */
static bool parse_hair_name(const char *nm, char *region, size_t region_size) {
  const char *pre = "Hair_";
  size_t len = strlen(nm), pl = strlen(pre);
  if (strncmp(nm, pre, pl) != 0 || len < pl + 3 + 3 || strcmp(nm + len - 3, "_00") != 0) return false;
  const char *mid = nm + pl, *mid_end = nm + len - 3;
  const char *last = NULL;
  for (const char *p = mid; p < mid_end; p++)
    if (*p == '_') last = p;
  if (!last || last == mid || last + 1 >= mid_end) return false;
  size_t n = (size_t)(last - mid);
  if (n >= region_size) n = region_size - 1;
  memcpy(region, mid, n);
  region[n] = '\0';
  return true;
}

static void read_names(builder *b, bool *all_colliders) {
  tress_spring_import *imp = b->imp;
  for (uint32_t i = 0; i < imp->node_count; i++) {
    const char *nm = imp->nodes[i].name;
    if (strncmp(nm, "SBC_", 4) != 0) continue;
    bool capsule;
    float r_cm, h_cm;
    if (parse_collider_name(b, nm, &capsule, &r_cm, &h_cm) != 1) continue;
    if (imp->nodes[i].bad) {
      warn(b, "\"%s\": node in a bad part of the node tree: skipped", nm);
      continue;
    }
    if (node_has_collider(imp, (int32_t)i)) continue; /* VRM or extras said it */
    if (capsule && !(h_cm > 0.0f)) {
      warn(b, "\"%s\": capsule with no length: skipped", nm);
      continue;
    }
    tress_spring_collider *c = collider_add(b);
    if (!c) break;
    float zero[3] = {0, 0, 0};
    float sc = imp->nodes[i].scale * b->scale;
    float r = r_cm * 0.01f * sc, h = h_cm * 0.01f * sc;
    tress_collider_def d = capsule ? tress_collider_capsule_y((tress_id){0}, zero, h, r) : tress_default_collider_def();
    c->shape = capsule ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE;
    c->node = (int32_t)i;
    if (capsule) {
      memcpy(c->offset, d.offset, sizeof d.offset);
      memcpy(c->tail, d.tail, sizeof d.tail);
    }
    c->radius = r;
    c->height = h;
    c->source = TRESS_SPRING_FROM_NAME;
  }
  for (uint32_t i = 0; i < imp->node_count; i++) {
    const char *nm = imp->nodes[i].name;
    char region[32];
    if (!parse_hair_name(nm, region, sizeof region)) continue;
    if (imp->nodes[i].bad) {
      warn(b, "\"%s\": node in a bad part of the node tree: skipped", nm);
      continue;
    }
    if (node_in_any_chain(b, (int32_t)i)) continue; /* VRM or extras said it */
    int32_t *joints = NULL;
    uint32_t n = subtree(b, (int32_t)i, &joints);
    if (n == 1) warn(b, "\"%s\": a chain root with no child bones below it: skipped", nm);
    if (n >= 2) {
      tress_spring_chain *c = chain_add(b, (int32_t)i, joints, n);
      if (c) {
        c->source = TRESS_SPRING_FROM_NAME;
        snprintf(c->region, sizeof c->region, "%s", region);
        if (!tress_spring_region_get_preset(region, &c->stiffness, &c->drag))
          warn(b, "\"%s\": region \"%s\" has no preset: stiffness %.2f, drag %.2f", nm, region, (double)c->stiffness,
               (double)c->drag);
        c->damping = 1.0f - c->drag;
        joints_from_chain(b, c);
        all_colliders[imp->chain_count - 1] = true;
      }
    }
    free(joints);
  }
}

/* ---- entry points ---- */

static const uint8_t *glb_json(const uint8_t *data, size_t size, size_t *json_size, char *err) {
  /* header: magic "glTF", version 2, total length; then chunks of (length, type, data) */
  if (size < 20) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "GLB: %zu bytes is too short for a header and a chunk", size);
    return NULL;
  }
  uint32_t version = (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
  uint32_t length = (uint32_t)data[8] | (uint32_t)data[9] << 8 | (uint32_t)data[10] << 16 | (uint32_t)data[11] << 24;
  uint32_t clen = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
  if (version != 2) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "GLB: version %u, only 2 is read", version);
    return NULL;
  }
  if (length > size || length < 20) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "GLB: header says %u bytes, the file has %zu", length, size);
    return NULL;
  }
  if (memcmp(data + 16, "JSON", 4) != 0) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "GLB: the first chunk is not JSON");
    return NULL;
  }
  if (clen > length - 20) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "GLB: JSON chunk of %u bytes overruns the file", clen);
    return NULL;
  }
  *json_size = clen;
  return data + 20;
}

/* The parsers below write one message into a char buffer; the public entry points turn it into
 * the caller's tress_error. */
static int to_error(int rc, const char *message, tress_error *err) {
  if (rc == 0) return 0;
  int code = strcmp(message, "out of memory") == 0 ? TRESS_ERR_OUT_OF_MEMORY : TRESS_ERR_INVALID_ARGUMENT;
  return tress_error_set(err, code, "%s", message);
}

static int import_memory(const uint8_t *data, size_t size, const tress_spring_import_def *def,
                         tress_spring_import **out, char err[TRESS_SPRING_ERROR_MAX]) {
  err[0] = '\0';
  if (out) *out = NULL;
  if (!data || !out) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "no data");
    return -1;
  }
  if (size > TRESS_SPRING_MAX_FILE_BYTES) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "%zu bytes: larger than a model file may be", size);
    return -1;
  }
  tress_spring_import_def d = def ? *def : tress_default_spring_import_def();
  if (!isfinite(d.units_per_metre) || d.units_per_metre <= 0.0f) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "units_per_metre must be positive");
    return -1;
  }
  const uint8_t *json = data;
  size_t json_size = size;
  if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
    json = glb_json(data, size, &json_size, err);
    if (!json) return -1;
  }
  cJSON *root = cJSON_ParseWithLength((const char *)json, json_size);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    snprintf(err, TRESS_SPRING_ERROR_MAX, "not glTF: the JSON does not parse as an object");
    return -1;
  }
  tress_spring_import *imp = calloc(1, sizeof *imp);
  if (!imp) {
    cJSON_Delete(root);
    snprintf(err, TRESS_SPRING_ERROR_MAX, "out of memory");
    return -1;
  }
  imp->units_per_metre = d.units_per_metre;
  builder b = {imp, false, d.units_per_metre, NULL, NULL, NULL, NULL, NULL, 0};
  bool *all_colliders = NULL;
  if (!read_nodes(&b, root)) b.oom = true;
  /* a chain per node at most: this flag array is indexed by chain */
  if (!b.oom) {
    all_colliders = calloc((size_t)imp->node_count + 1, sizeof *all_colliders);
    if (!all_colliders) b.oom = true;
  }
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(root, "extensions");
  if (!b.oom && d.read_vrm) {
    const cJSON *vrm1 = cJSON_GetObjectItemCaseSensitive(ext, "VRMC_springBone");
    const cJSON *vrm0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ext, "VRM"),
                                                         "secondaryAnimation");
    if (cJSON_IsObject(vrm1)) {
      read_vrm1(&b, vrm1);
      if (cJSON_IsObject(vrm0)) warn(&b, "VRM0 secondaryAnimation next to VRMC_springBone: not imported (VRM 1.0 is read)");
    } else if (cJSON_IsObject(vrm0)) {
      read_vrm0(&b, vrm0);
    }
  }
  if (!b.oom && d.read_extras) read_extras(&b, root, all_colliders);
  if (!b.oom && d.read_names) read_names(&b, all_colliders);
  /* extras- and name-made chains are kept out of every collider the model has */
  for (uint32_t i = 0; !b.oom && i < imp->chain_count; i++) {
    if (!all_colliders[i]) continue;
    vrm_set_all_colliders(&imp->chains[i], imp);
    if (imp->collider_count > TRESS_COLLIDER_SET_MAX)
      warn(&b, "chain \"%s\": %u colliders, the first %d are used", node_name(&b, imp->chains[i].root),
           imp->collider_count, TRESS_COLLIDER_SET_MAX);
  }
  free(all_colliders);
  free(b.first_child);
  free(b.next_sibling);
  free(b.root_chain);
  free(b.in_chain);
  free(b.mark);
  cJSON_Delete(root);
  if (b.oom) {
    tress_spring_import_free(imp);
    snprintf(err, TRESS_SPRING_ERROR_MAX, "out of memory");
    return -1;
  }
  *out = imp;
  return 0;
}

int tress_spring_import_read_memory(const uint8_t *data, size_t size, const tress_spring_import_def *def,
                                    tress_spring_import **out, tress_error *err) {
  char message[TRESS_SPRING_ERROR_MAX];
  return to_error(import_memory(data, size, def, out, message), message, err);
}

int tress_spring_import_load(const char *path, const tress_spring_import_def *def, tress_spring_import **out,
                             tress_error *err) {
  if (out) *out = NULL;
  if (!path) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "no path");
  size_t size = 0;
  uint8_t *data = tress_file_read(path, TRESS_SPRING_MAX_FILE_BYTES, &size, err);
  if (!data) return err ? err->code : TRESS_ERR_INVALID_ARGUMENT;
  int rc = tress_spring_import_read_memory(data, size, def, out, err);
  free(data);
  return rc;
}

void tress_spring_import_free(tress_spring_import *imp) {
  if (!imp) return;
  for (uint32_t i = 0; i < imp->chain_count; i++) {
    free(imp->chains[i].joints);
    free(imp->chains[i].joint_settings);
    free(imp->chains[i].vrm_joints);
  }
  free(imp->chains);
  free(imp->colliders);
  free(imp->nodes);
  free(imp->warnings);
  free(imp);
}

int32_t tress_spring_import_find_node(const tress_spring_import *imp, const char *name) {
  if (!imp || !name) return -1;
  for (uint32_t i = 0; i < imp->node_count; i++)
    if (strcmp(imp->nodes[i].name, name) == 0) return (int32_t)i;
  return -1;
}

tress_chain_settings tress_spring_chain_get_settings(const tress_spring_chain *chain, const float sim_gravity[3]) {
  tress_chain_settings s = tress_default_chain_settings();
  if (!chain) return s;
  s.damping = chain->damping;
  s.stiffness = chain->stiffness;
  s.wind_scale = 1.0f;
  float g2 = sim_gravity ? sim_gravity[0] * sim_gravity[0] + sim_gravity[1] * sim_gravity[1] +
                               sim_gravity[2] * sim_gravity[2]
                         : 0.0f;
  if (g2 > 1e-12f) {
    float along = chain->gravity[0] * sim_gravity[0] + chain->gravity[1] * sim_gravity[1] +
                  chain->gravity[2] * sim_gravity[2];
    s.gravity_scale = along / g2;
  }
  return s;
}

/* ---- applying to a scene ---- */

typedef struct find_bone {
  const char *name;
  tress_id found;
} find_bone;

static bool find_bone_visit(tress_scene *scene, tress_id id, void *user) {
  find_bone *f = user;
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(scene, id, name);
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE && strcmp(name, f->name) == 0) {
    f->found = id;
    return false;
  }
  return true;
}

static bool any_bone_visit(tress_scene *scene, tress_id id, void *user) {
  find_bone *f = user;
  if (tress_instance_get_kind(scene, id) != TRESS_KIND_BONE) return true;
  f->found = id;
  return false;
}

static int import_apply(const tress_spring_import *imp, tress_scene *scene, tress_id part, tress_spring_scene *out,
                        char err[TRESS_SPRING_ERROR_MAX]) {
  err[0] = '\0';
  if (!out) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "no output");
    return -1;
  }
  memset(out, 0, sizeof *out);
  if (!imp || !scene || !tress_instance_is_valid(scene, part) || tress_instance_get_kind(scene, part) != TRESS_KIND_PART) {
    snprintf(err, TRESS_SPRING_ERROR_MAX, "an import and a valid part are needed");
    return -1;
  }
  uint32_t n = imp->node_count;
  bool *need = calloc((size_t)n + 1, sizeof *need);
  out->node_bones = calloc((size_t)n + 1, sizeof *out->node_bones);
  out->colliders = calloc((size_t)imp->collider_count + 1, sizeof *out->colliders);
  if (!need || !out->node_bones || !out->colliders) {
    free(need);
    tress_spring_scene_free(out);
    snprintf(err, TRESS_SPRING_ERROR_MAX, "out of memory");
    return -1;
  }
  out->node_count = n;
  out->collider_count = imp->collider_count;
  /* what chains and colliders need, with their ancestors (bounded walks: no cycles reach here) */
  for (uint32_t c = 0; c < imp->chain_count; c++)
    for (uint32_t k = 0; k < imp->chains[c].joint_count; k++) need[imp->chains[c].joints[k]] = true;
  for (uint32_t c = 0; c < imp->collider_count; c++) need[imp->colliders[c].node] = true;
  for (uint32_t i = 0; i < n; i++) {
    if (!need[i]) continue;
    uint32_t steps = 0;
    for (int32_t p = imp->nodes[i].parent; p >= 0 && steps <= n; p = imp->nodes[p].parent, steps++) need[p] = true;
  }
  /* a part with no bones yet (the usual case) needs no name lookups */
  find_bone any = {NULL, (tress_id){0}};
  tress_instance_visit_descendants(scene, part, any_bone_visit, &any);
  bool has_bones = !tress_id_is_null(any.found);
  /* parents before children: from each needed node walk up to the nearest ancestor that has
   * its bone already (or the part), then build down that path; each node is built once */
  int32_t *path = malloc(((size_t)n + 1) * sizeof *path);
  if (!path) {
    free(need);
    tress_spring_scene_free(out);
    snprintf(err, TRESS_SPRING_ERROR_MAX, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!need[i] || imp->nodes[i].bad || !tress_id_is_null(out->node_bones[i])) continue;
    uint32_t depth = 0;
    int32_t p = (int32_t)i;
    while (p >= 0 && tress_id_is_null(out->node_bones[p]) && depth < n) {
      path[depth++] = p;
      p = imp->nodes[p].parent;
    }
    tress_id parent_id = p >= 0 ? out->node_bones[p] : part;
    while (depth > 0) {
      int32_t k = path[--depth];
      find_bone f = {imp->nodes[k].name, (tress_id){0}};
      if (has_bones) tress_instance_visit_descendants(scene, part, find_bone_visit, &f);
      tress_id bone = f.found;
      if (tress_id_is_null(bone)) {
        tress_instance_def bone_def = tress_default_instance_def();
        bone_def.kind = TRESS_KIND_BONE;
        bone_def.name = imp->nodes[k].name;
        bone_def.parent = parent_id;
        if (tress_scene_create_instance(scene, &bone_def, &bone) != TRESS_OK) {
          free(path);
          free(need);
          tress_spring_scene_free(out);
          snprintf(err, TRESS_SPRING_ERROR_MAX, "could not create bone \"%s\"", imp->nodes[k].name);
          return -1;
        }
        tress_bone_set_cframe(scene, bone, imp->nodes[k].local);
      }
      out->node_bones[k] = bone;
      parent_id = bone;
    }
  }
  free(path);
  for (uint32_t c = 0; c < imp->collider_count; c++) {
    const tress_spring_collider *sc = &imp->colliders[c];
    tress_collider_def *d = &out->colliders[c];
    *d = tress_default_collider_def();
    d->shape = sc->shape;
    d->attach = out->node_bones[sc->node];
    memcpy(d->offset, sc->offset, sizeof d->offset);
    memcpy(d->tail, sc->tail, sizeof d->tail);
    d->radius = sc->radius;
  }
  free(need);
  return 0;
}

void tress_spring_scene_free(tress_spring_scene *s) {
  if (!s) return;
  free(s->node_bones);
  free(s->colliders);
  memset(s, 0, sizeof *s);
}

int tress_spring_import_apply(const tress_spring_import *imp, tress_scene *scene, tress_id part,
                              tress_spring_scene *out, tress_error *err) {
  char message[TRESS_SPRING_ERROR_MAX];
  return to_error(import_apply(imp, scene, part, out, message), message, err);
}
