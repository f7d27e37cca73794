/* Pre-skinned accessories
 * -----------------------
 * A cape or tail exported with its own skin needs no rigger: its joints are the chains every
 * client simulates. The server's part is to refuse a file that would bind differently (or not
 * at all) on clients, and to lay the skin out the way RIG_RESULT carries a rig:
 *   - bones parents first (glTF lists joints in any order; the wire needs parents first);
 *   - rests as offsets between bind positions with identity rotations, as the rigger's are,
 *     because the client rebuilds mesh-space bind positions from rests and the handle's bounds;
 *     the file's joint orientations are not carried (a chain aims each bone at its child);
 *   - per vertex, slots heaviest first (the wire keeps the first k) and weights summing to 1.
 * Every refusal names the joint or vertex, so an artist can find it in the file. */
#include "preskinned.h"

#include <math.h>
#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/mesh_hash.h"

__attribute__((format(printf, 2, 3))) static bool fail(char reason[TRESS_WIRE_TEXT_CAP], const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, TRESS_WIRE_TEXT_CAP, fmt, ap);
  va_end(ap);
  return false;
}

/* Names: each joint is addressed by name on every client (springs chains, pose maps). */
static bool check_names(const tress_mesh *m, char reason[TRESS_WIRE_TEXT_CAP]) {
  for (uint32_t b = 0; b < m->bone_count; b++) {
    if (!m->bones[b].name[0]) return fail(reason, "pre-skinned: joint %u has no name", b);
    for (uint32_t o = 0; o < b; o++)
      if (strcmp(m->bones[o].name, m->bones[b].name) == 0)
        return fail(reason, "pre-skinned: two joints are named \"%.64s\" (joint %u and an earlier one)",
                    m->bones[b].name, b);
    for (int k = 0; k < 3; k++)
      if (!isfinite(m->bones[b].bind_pos[k]))
        return fail(reason, "pre-skinned: joint \"%.64s\" (%u) has no finite bind position", m->bones[b].name, b);
  }
  return true;
}

/* order[new] = old index, parents first: roots in file order, each followed depth-first by its
 * children in file order. A parent chain that loops never reaches a root, so it is left out:
 * fewer ordered bones than joints is a cycle. */
static bool order_bones(const tress_mesh *m, uint32_t *order, uint32_t *stack, char reason[TRESS_WIRE_TEXT_CAP]) {
  uint32_t n = m->bone_count, placed = 0;
  for (uint32_t b = 0; b < n; b++)
    if (m->bones[b].parent >= (int32_t)n || m->bones[b].parent < -1)
      return fail(reason, "pre-skinned: joint \"%.64s\" (%u) has no such parent", m->bones[b].name, b);
  for (uint32_t r = 0; r < n; r++) {
    if (m->bones[r].parent != -1) continue;
    uint32_t top = 0;
    stack[top++] = r;
    while (top) {
      uint32_t b = stack[--top];
      order[placed++] = b;
      /* push children in reverse so they come out in file order */
      for (uint32_t c = n; c-- > 0;)
        if (m->bones[c].parent == (int32_t)b) stack[top++] = c;
    }
  }
  if (placed < n) {
    for (uint32_t b = 0; b < n; b++) {
      bool found = false;
      for (uint32_t i = 0; i < placed && !found; i++) found = order[i] == b;
      if (!found)
        return fail(reason, "pre-skinned: joint \"%.64s\" (%u) is in a parent cycle (the joints do not form a tree)",
                    m->bones[b].name, b);
    }
  }
  return true;
}

static bool check_weights(const tress_mesh *m, char reason[TRESS_WIRE_TEXT_CAP]) {
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
      float w = m->weights[4 * (size_t)v + k];
      if (!isfinite(w) || w < 0.0f) return fail(reason, "pre-skinned: vertex %u has a weight that is not a finite number >= 0", v);
      if (w > 0.0f && m->joints[4 * (size_t)v + k] >= m->bone_count)
        return fail(reason, "pre-skinned: vertex %u uses a joint past the skin's", v);
      sum += w;
    }
    if (fabs(sum - 1.0) > TRESS_PRESKINNED_WEIGHT_TOLERANCE)
      return fail(reason, "pre-skinned: vertex %u's weights sum to %.4f, not 1", v, sum);
  }
  return true;
}

/* Slots heaviest first (earlier slot on ties), remapped to the new bone order, summing to 1;
 * returns how many slots carry weight. */
static uint32_t sort_vertex(uint16_t *joints, float *weights, const uint32_t *new_of_old) {
  uint16_t j[4];
  float w[4];
  double sum = 0.0;
  for (int k = 0; k < 4; k++) {
    j[k] = joints[k];
    w[k] = weights[k];
    sum += w[k];
  }
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && w[b] > w[b - 1]; b--) {
      float tw = w[b];
      w[b] = w[b - 1];
      w[b - 1] = tw;
      uint16_t tj = j[b];
      j[b] = j[b - 1];
      j[b - 1] = tj;
    }
  uint32_t used = 0;
  float total = 0.0f;
  for (int k = 0; k < 4; k++) {
    weights[k] = (float)(w[k] / sum);
    joints[k] = w[k] > 0.0f ? (uint16_t)new_of_old[j[k]] : 0;
    if (w[k] > 0.0f) used++;
    if (k > 0) total += weights[k];
  }
  weights[0] = 1.0f - total; /* the heaviest slot takes the rounding, so the sum is exactly 1 */
  return used;
}

static void digest_of(const tress_rig_output *out, const uint8_t mesh_hash[TRESS_MESH_HASH_BYTES],
                      uint8_t digest[TRESS_PRESKINNED_DIGEST_BYTES]) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, NULL, 0, TRESS_PRESKINNED_DIGEST_BYTES);
  crypto_generichash_update(&st, (const uint8_t *)"tress-preskinned-v1", 19);
  crypto_generichash_update(&st, mesh_hash, TRESS_MESH_HASH_BYTES);
  uint32_t n = out->bone_count;
  crypto_generichash_update(&st, (const uint8_t *)&n, sizeof n);
  for (uint32_t b = 0; b < n; b++) {
    char name[TRESS_NAME_MAX] = {0};
    snprintf(name, sizeof name, "%s", out->bones[b].name);
    crypto_generichash_update(&st, (const uint8_t *)name, sizeof name);
    crypto_generichash_update(&st, (const uint8_t *)&out->bones[b].parent, sizeof out->bones[b].parent);
    crypto_generichash_update(&st, (const uint8_t *)out->bones[b].bind_pos, sizeof out->bones[b].bind_pos);
  }
  size_t slots = 4 * (size_t)out->mesh->vertex_count;
  crypto_generichash_update(&st, (const uint8_t *)out->mesh->joints, slots * sizeof *out->mesh->joints);
  crypto_generichash_update(&st, (const uint8_t *)out->mesh->weights, slots * sizeof *out->mesh->weights);
  crypto_generichash_final(&st, digest, TRESS_PRESKINNED_DIGEST_BYTES);
}

/* The bones in their new order: bind positions as the file has them, rests relative to the
 * parent (a root relative to the mesh bounds centre, where the client's handle origin is). */
static void fill_bones(const tress_mesh *m, const uint32_t *order, const uint32_t *new_of_old, tress_rig_output *out) {
  for (uint32_t i = 0; i < m->bone_count; i++) {
    const tress_mesh_bone *src = &m->bones[order[i]];
    tress_rig_bone *dst = &out->bones[i];
    tress_mesh_bone *baked = &out->mesh->bones[i];
    snprintf(dst->name, sizeof dst->name, "%s", src->name);
    dst->parent = src->parent < 0 ? -1 : (int32_t)new_of_old[src->parent];
    memcpy(dst->bind_pos, src->bind_pos, sizeof dst->bind_pos);
    const float *origin = dst->parent < 0 ? out->bounds_center : out->bones[dst->parent].bind_pos;
    dst->rest = tress_xform_identity();
    for (int k = 0; k < 3; k++) dst->rest.p[k] = src->bind_pos[k] - origin[k];
    *baked = *src;
    baked->parent = dst->parent;
  }
}

bool tress_preskinned_read(const tress_mesh *mesh, tress_rig_output *out, uint8_t *influences,
                           uint8_t digest[TRESS_PRESKINNED_DIGEST_BYTES], char reason[TRESS_WIRE_TEXT_CAP]) {
  if (!tress_mesh_is_skinned(mesh) || mesh->bone_count == 0)
    return fail(reason, "pre-skinned: the mesh has no skin (no skinned node with JOINTS_0 and WEIGHTS_0)");
  if (mesh->bone_count > TRESS_WIRE_MAX_BONES)
    return fail(reason, "pre-skinned: the skin has %u joints, the wire carries at most %d", mesh->bone_count,
                TRESS_WIRE_MAX_BONES);
  if (!check_names(mesh, reason) || !check_weights(mesh, reason)) return false;
  uint32_t n = mesh->bone_count;
  uint32_t *order = malloc(3 * (size_t)n * sizeof *order);
  tress_rig_output o;
  memset(&o, 0, sizeof o);
  if (!order) return fail(reason, "pre-skinned: out of memory");
  uint32_t *stack = order + n, *new_of_old = order + 2 * (size_t)n;
  bool ok = order_bones(mesh, order, stack, reason);
  if (ok) {
    for (uint32_t i = 0; i < n; i++) new_of_old[order[i]] = i;
    o.mesh = tress_mesh_clone(mesh);
    o.bones = calloc(n, sizeof *o.bones);
    ok = o.mesh && o.bones && tress_mesh_is_skinned(o.mesh);
    if (!ok) fail(reason, "pre-skinned: out of memory");
  }
  if (ok) {
    o.bone_count = n;
    float mn[3], mx[3];
    tress_mesh_get_bounds(mesh, mn, mx);
    for (int k = 0; k < 3; k++) {
      o.bounds_center[k] = 0.5f * (mn[k] + mx[k]);
      o.mesh_size[k] = mx[k] - mn[k];
    }
    fill_bones(mesh, order, new_of_old, &o);
    uint32_t most = 1;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
      uint32_t used = sort_vertex(o.mesh->joints + 4 * (size_t)v, o.mesh->weights + 4 * (size_t)v, new_of_old);
      if (used > most) most = used;
    }
    *influences = (uint8_t)most;
    uint8_t mesh_hash[TRESS_MESH_HASH_BYTES];
    tress_mesh_get_content_hash(mesh, mesh_hash);
    digest_of(&o, mesh_hash, digest);
    *out = o;
  } else {
    tress_rig_output_free(&o);
  }
  free(order);
  return ok;
}
