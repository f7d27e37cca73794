/* spring_nodes.c - the import's node table from io's glTF document: names, local transforms
 * with the composed (world) uniform scale baked in, and the tree's problems as warnings. */
#include "spring_import_internal.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
static float uniform_scale(tress__spring_builder *b, int index, const char *name, const float sc[3]) {
  float mean = (sc[0] + sc[1] + sc[2]) / 3.0f;
  float lo = fminf(sc[0], fminf(sc[1], sc[2])), hi = fmaxf(sc[0], fmaxf(sc[1], sc[2]));
  if (!(lo > 0.0f)) {
    tress__spring_warn(b, "node %d \"%s\": scale (%g, %g, %g) is not positive: 1 is used", index, name, (double)sc[0],
         (double)sc[1], (double)sc[2]);
    return 1.0f;
  }
  if (hi - lo > 1e-4f * hi)
    tress__spring_warn(b, "node %d \"%s\": non-uniform scale (%g, %g, %g) is not modelled: %g is used", index, name,
         (double)sc[0], (double)sc[1], (double)sc[2], (double)mean);
  return mean;
}

/* Bakes the composed scale in, parents first: a node's translation is in its parent's scaled
 * frame, and node.scale becomes the node's world scale. Tops are roots and nodes below a bad
 * link (those sit in no good child list). */
static bool compose_scale(tress__spring_builder *b) {
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

/* A node's name, local transform and uniform scale from the document's node (glTF defaults for
 * members that are absent or not well-formed). */
static void node_from_doc(tress__spring_builder *b, const tress__gltf_node *gn, int i, tress_spring_node *nd) {
  nd->parent = -1;
  nd->local = tress_xform_identity();
  if (gn->name)
    snprintf(nd->name, sizeof nd->name, "%s", gn->name);
  else
    snprintf(nd->name, sizeof nd->name, "node%d", i);
  const tress__gltf_local *l = &gn->local;
  float sc[3] = {1.0f, 1.0f, 1.0f};
  if (l->matrix == TRESS__GLTF_OK) {
    float m[16];
    for (int k = 0; k < 16; k++) m[k] = (float)l->m[k];
    matrix_to_xform(m, &nd->local, sc);
  } else {
    if (l->scale == TRESS__GLTF_OK)
      for (int k = 0; k < 3; k++) sc[k] = (float)l->s[k];
    if (l->translation == TRESS__GLTF_OK)
      for (int k = 0; k < 3; k++) nd->local.p[k] = (float)l->t[k];
    if (l->rotation == TRESS__GLTF_OK) {
      for (int k = 0; k < 4; k++) nd->local.q[k] = (float)l->r[k];
      tress_quat_normalize(nd->local.q);
    }
  }
  nd->scale = uniform_scale(b, i, nd->name, sc);
}

/* The document's tree problems as warnings, in file order. */
static void warn_tree_problems(tress__spring_builder *b, const tress__gltf_doc *doc) {
  const tress_spring_node *nodes = b->imp->nodes;
  for (uint32_t k = 0; k < doc->problem_count; k++) {
    const tress__gltf_tree_problem *p = &doc->problems[k];
    switch (p->kind) {
    case TRESS__GLTF_CHILD_RANGE:
      tress__spring_warn(b, "node %d \"%s\" lists a child index out of range: ignored", p->node, nodes[p->node].name);
      break;
    case TRESS__GLTF_SELF_CHILD:
      tress__spring_warn(b, "node %d \"%s\" lists itself as a child (a cycle): nothing imported from it", p->node,
                         nodes[p->node].name);
      break;
    case TRESS__GLTF_TWO_PARENTS:
      tress__spring_warn(b, "node %d \"%s\" is listed as a child by two nodes (%d and %d): nothing imported from it or below it",
                         p->child, nodes[p->child].name, p->other, p->node);
      break;
    case TRESS__GLTF_CYCLE:
      tress__spring_warn(b, "node %d \"%s\" is in or below a cycle of the node tree: nothing imported from it", p->node,
                         nodes[p->node].name);
      break;
    }
  }
}

bool tress__spring_read_nodes(tress__spring_builder *b, const tress__gltf_doc *doc) {
  tress_spring_import *imp = b->imp;
  uint32_t n = doc->node_count;
  if (n == 0) return true; /* no nodes: nothing to import, not an error */
  if (n > 200000) {
    tress__spring_warn(b, "%u nodes: more than a model has, nothing imported", n);
    return true;
  }
  imp->nodes = calloc(n, sizeof *imp->nodes);
  b->first_child = malloc((size_t)n * sizeof *b->first_child);
  b->next_sibling = malloc((size_t)n * sizeof *b->next_sibling);
  b->root_chain = malloc((size_t)n * sizeof *b->root_chain);
  b->in_chain = calloc(n, 1);
  b->mark = calloc(n, sizeof *b->mark);
  if (!imp->nodes || !b->first_child || !b->next_sibling || !b->root_chain || !b->in_chain || !b->mark) return false;
  imp->node_count = n;
  for (uint32_t i = 0; i < n; i++) node_from_doc(b, &doc->nodes[i], (int)i, &imp->nodes[i]);
  warn_tree_problems(b, doc);
  for (uint32_t k = 0; k < n; k++) {
    imp->nodes[k].parent = doc->nodes[k].parent;
    imp->nodes[k].bad = doc->nodes[k].bad;
    b->first_child[k] = b->next_sibling[k] = b->root_chain[k] = -1;
  }
  /* child lists of the good tree, in file order */
  for (uint32_t k = n; k-- > 0;) {
    int32_t p = imp->nodes[k].parent;
    if (p < 0 || imp->nodes[k].bad || imp->nodes[p].bad) continue;
    b->next_sibling[k] = b->first_child[p];
    b->first_child[p] = (int32_t)k;
  }
  return compose_scale(b);
}
