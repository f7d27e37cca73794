/* debug_draw_chains.c - a bone or part chain's nodes for tress_sim_debug_draw: per node its
 * animated and simulated link from the parent, its strand radius and, for a virtual end tip, a
 * point. Reads the batch's node arrays (chains_internal.h) through the slot's global indices, or
 * the scene for a chain the solver has not run yet. */
#include <string.h>

#include "chains_internal.h"
#include "debug_draw_internal.h"

/* Node i's animated world pose composed from its chain's anchor as the last frame did it
 * (compose_world's operations): for a VRM tile, which composes past the roots only when
 * something reads them (TILE_WORLD). Parents first, so the walk up ends at a root. */
static tress_xform animated_pose(const tress_scene *scene, const struct tress_chains *c, const chain_slot *s,
                                 uint32_t i) {
  const chain_nodes *n = &c->nodes;
  uint32_t g = s->global[i];
  int32_t parent = s->local_parent[i];
  tress_xform up = parent < 0 ? anchor_get(c, ANCHOR_LAST, (uint32_t)(s - c->slots))
                              : animated_pose(scene, c, s, (uint32_t)parent);
  /* what the scene read takes: the bone's animated local, identity for a node it does not read */
  tress_xform an = c->bone_slot[g] ? tress_bone_get_animated(scene, slot_node_id(scene, s, i)) : tress_xform_identity();
  if (!tress_xform_is_finite(an)) an = tress_xform_identity(); /* as the scene read replaces it */
  float cp[3] = {n->cf_px[g], n->cf_py[g], n->cf_pz[g]}, cq[4] = {n->cf_qx[g], n->cf_qy[g], n->cf_qz[g], n->cf_qw[g]};
  float bq[4], r[3], t[3], k = c->per_slot[LANE_SC][s - c->slots];
  tress_xform w;
  tress_quat_rotate(up.q, cp, r);
  tress_quat_mul(up.q, cq, bq);
  tress_quat_rotate(bq, an.p, t);
  tress_quat_mul(bq, an.q, w.q);
  for (int a = 0; a < 3; a++) w.p[a] = up.p[a] + r[a] * k + t[a] * k;
  return w;
}

/* One chain as the solver holds it: composed is false where its tile skipped the animated
 * world past the roots this frame. */
typedef struct solved_chain {
  const tress_scene *scene;
  const struct tress_chains *c;
  const chain_slot *s;
  bool composed;
} solved_chain;

static void node_position(const solved_chain *v, uint32_t i, bool animated, float out[3]) {
  const chain_nodes *n = &v->c->nodes;
  uint32_t g = v->s->global[i];
  if (animated && !v->composed) {
    tress_xform w = animated_pose(v->scene, v->c, v->s, i);
    memcpy(out, w.p, 3 * sizeof(float));
    return;
  }
  /* after a frame, the last frame's animated pose is this frame's (each tile copies it there) */
  out[0] = animated ? n->pa_px[g] : n->px[g];
  out[1] = animated ? n->pa_py[g] : n->py[g];
  out[2] = animated ? n->pa_pz[g] : n->pz[g];
}

static void emit_link(tress_debug_out *out, const solved_chain *v, uint32_t parent, uint32_t i, bool animated,
                      tress_debug_shape *shape) {
  shape->kind = TRESS_DEBUG_LINE;
  shape->role = animated ? TRESS_DEBUG_BONE_ANIMATED : TRESS_DEBUG_BONE_SIMULATED;
  shape->radius = 0.0f;
  node_position(v, parent, animated, shape->a);
  node_position(v, i, animated, shape->b);
  tress__debug_emit(out, shape);
}

static void emit_node(tress_debug_out *out, const solved_chain *v, uint32_t i, tress_debug_shape *shape) {
  const tress_debug_draw_opts *o = out->opts;
  const chain_slot *s = v->s;
  uint32_t g = s->global[i];
  int32_t parent = s->local_parent[i];
  shape->instance = slot_node_id(v->scene, s, i);
  shape->index = i;
  if (parent >= 0 && o->bones_animated) emit_link(out, v, (uint32_t)parent, i, true, shape);
  if (parent >= 0 && o->bones_simulated) emit_link(out, v, (uint32_t)parent, i, false, shape);
  float radius = node_radius(v->c, (uint32_t)(s - v->c->slots), g);
  if (o->strand_radii && radius > 0.0f) {
    shape->kind = TRESS_DEBUG_SPHERE;
    shape->role = TRESS_DEBUG_STRAND_RADIUS;
    shape->radius = radius;
    node_position(v, i, false, shape->a);
    node_position(v, i, false, shape->b);
    tress__debug_emit(out, shape);
  }
  if (o->end_tips && slot_node_is_tip(s, i)) {
    shape->kind = TRESS_DEBUG_POINT;
    shape->role = TRESS_DEBUG_END_TIP;
    shape->radius = 0.0f;
    node_position(v, i, false, shape->a);
    node_position(v, i, false, shape->b);
    tress__debug_emit(out, shape);
  }
}

/* A node's pose from the scene: a bone's animated or drawn world, a part's frame. */
static void scene_position(const tress_scene *scene, const chain_slot *s, uint32_t i, bool animated, float out[3]) {
  bool bone = s->kind == TRESS_HANDLE_BONES;
  tress_id id = slot_node_id(scene, s, i);
  tress_xform w = bone && animated ? tress_bone_get_world_animated(scene, id) : tress_instance_get_world(scene, id);
  memcpy(out, w.p, 3 * sizeof(float));
}

/* A chain with no solver state yet (bound or re-laid out since the last step, or asleep since
 * its bind): its bones and parts as the scene has them, the chain's radius, no virtual tips. */
static void emit_node_from_scene(tress_debug_out *out, const tress_scene *scene, const chain_slot *s, uint32_t i,
                                 tress_debug_shape *shape) {
  const tress_debug_draw_opts *o = out->opts;
  int32_t parent = s->local_parent[i];
  if (slot_node_is_tip(s, i)) return;
  shape->instance = slot_node_id(scene, s, i);
  shape->index = i;
  shape->kind = TRESS_DEBUG_LINE;
  shape->radius = 0.0f;
  for (int animated = 1; parent >= 0 && animated >= 0; animated--) {
    if (animated ? !o->bones_animated : !o->bones_simulated) continue;
    shape->role = animated ? TRESS_DEBUG_BONE_ANIMATED : TRESS_DEBUG_BONE_SIMULATED;
    scene_position(scene, s, (uint32_t)parent, animated, shape->a);
    scene_position(scene, s, i, animated, shape->b);
    tress__debug_emit(out, shape);
  }
  float radius = s->settings.radius * s->scale;
  if (o->strand_radii && radius > 0.0f) {
    shape->kind = TRESS_DEBUG_SPHERE;
    shape->role = TRESS_DEBUG_STRAND_RADIUS;
    shape->radius = radius;
    scene_position(scene, s, i, false, shape->a);
    memcpy(shape->b, shape->a, sizeof shape->b);
    tress__debug_emit(out, shape);
  }
}

void tress__chains_debug_draw(const tress_sim *sim, const tress_handle *h, tress_handle_id id, bool asleep,
                              tress_debug_out *out) {
  const struct tress_chains *c = sim->chains;
  if (!c || h->slot >= c->slot_count) return;
  const chain_slot *s = &c->slots[h->slot];
  if (!s->used) return;
  tress_debug_shape shape = {.handle = id, .asleep = asleep};
  /* a bind since the last step leaves the global indices stale until the next layout */
  bool solved = !c->dirty && !s->fresh && s->global;
  solved_chain v = {sim->scene, c, s, solved && (c->tile_flags[tress__chain_tile(c, h->slot)] & TILE_WORLD)};
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (solved) emit_node(out, &v, i, &shape);
    else emit_node_from_scene(out, sim->scene, s, i, &shape);
  }
}
