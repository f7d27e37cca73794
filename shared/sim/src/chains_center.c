/* chains_center.c - center space (sim.h "Center space"): a chain's inertia measured in the frame
 * of a named center instead of the world's. Per chain, never per node of a chain without one:
 * the frame loop calls in only for FEAT_CENTERED slots and TILE_CENTERED tiles. */
#include <math.h>
#include <stdlib.h>

#include "chains_internal.h"

/* Settings bound or changed: where the named center is now (its motion is measured from here),
 * or no center state at all when the settings name none. */
bool tress__center_start(const tress_sim *sim, chain_slot *s) {
  if (tress_id_is_null(s->settings.center)) {
    free(s->center);
    s->center = NULL;
    return true;
  }
  if (!s->center && !(s->center = malloc(sizeof *s->center))) return false;
  tress_xform now = tress_instance_get_world(sim->scene, s->settings.center);
  if (!tress_xform_is_finite(now)) now = tress_xform_identity();
  s->center->prev = s->center->now = s->center->pin = now;
  return true;
}

/* Once per frame (prepare): the center's world pose now. A center that is gone or not finite
 * holds its last pose, so its chain falls back to world inertia rather than jumping. */
void tress__center_read(const tress_sim *sim, chain_slot *s) {
  chain_center *k = s->center;
  k->prev = k->now;
  if (!tress_instance_is_valid(sim->scene, s->settings.center)) return;
  tress_xform now = tress_instance_get_world(sim->scene, s->settings.center);
  if (tress_xform_is_finite(now)) k->now = now;
}

/* The center's pose at substep time alpha (position lerp, rotation nlerp the shorter way), the
 * same path anchor_at gives the chain's roots. */
static tress_xform center_at(const chain_center *k, float alpha) {
  if (alpha >= 1.0f) return k->now;
  const tress_xform *a = &k->prev, *b = &k->now;
  tress_xform r;
  for (int k = 0; k < 3; k++) r.p[k] = a->p[k] + (b->p[k] - a->p[k]) * alpha;
  float dot = a->q[0] * b->q[0] + a->q[1] * b->q[1] + a->q[2] * b->q[2] + a->q[3] * b->q[3];
  float sign = dot < 0.0f ? -1.0f : 1.0f;
  for (int k = 0; k < 4; k++) r.q[k] = a->q[k] + (sign * b->q[k] - a->q[k]) * alpha;
  tress_quat_normalize(r.q);
  return r;
}

/* The part of the center's motion from `from` to `to` that the chain follows, as p' = q (p -
 * pivot) + pivot + t: rotation nlerped from identity by the factor, translation scaled by it
 * (factor 1: exactly to * from^-1). */
typedef struct center_motion {
  float q[4], pivot[3], t[3];
} center_motion;

static center_motion motion_between(const tress_xform *from, const tress_xform *to, float factor) {
  center_motion m;
  float inv[4] = {-from->q[0], -from->q[1], -from->q[2], from->q[3]}, d[4];
  tress_quat_mul(to->q, inv, d);
  float sign = d[3] < 0.0f ? -1.0f : 1.0f; /* the short way round */
  float id[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  for (int k = 0; k < 4; k++) m.q[k] = id[k] + (sign * d[k] - id[k]) * factor;
  tress_quat_normalize(m.q);
  for (int k = 0; k < 3; k++) {
    m.pivot[k] = from->p[k];
    m.t[k] = (to->p[k] - from->p[k]) * factor;
  }
  return m;
}

static void motion_apply(const center_motion *m, const float p[3], float out[3]) {
  float rel[3] = {p[0] - m->pivot[0], p[1] - m->pivot[1], p[2] - m->pivot[2]}, r[3];
  tress_quat_rotate(m->q, rel, r);
  for (int k = 0; k < 3; k++) out[k] = r[k] + m->pivot[k] + m->t[k];
}

/* The root's motion over the frame as the reset checks see it: in the center's frame, what
 * carrying it with the center does not explain. */
void tress__center_root_motion(const chain_slot *s, const float pa[3], const float aw[3], float out[3]) {
  center_motion m = motion_between(&s->center->prev, &s->center->now, s->settings.center_inertia);
  float carried[3];
  motion_apply(&m, pa, carried);
  for (int k = 0; k < 3; k++) out[k] = aw[k] - carried[k];
}

/* Before a substep: every stepping centered chain of the tile, current and previous positions
 * (the VRM model's tails) alike, moved with its center since the last substep. */
void tress__center_substep_tile(struct tress_chains *c, float alpha, uint32_t t) {
  chain_nodes *n = &c->nodes;
  for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used || !(s->features & FEAT_CENTERED) || c->per_slot[LANE_STEP][si] == 0.0f) continue;
    tress_xform now = center_at(s->center, alpha);
    center_motion m = motion_between(&s->center->pin, &now, s->settings.center_inertia);
    s->center->pin = now;
    for (uint32_t k = 0; k < s->node_count; k++) {
      uint32_t i = s->global[k];
      float p[3] = {n->px[i], n->py[i], n->pz[i]}, o[3] = {n->ox[i], n->oy[i], n->oz[i]};
      motion_apply(&m, p, p);
      motion_apply(&m, o, o);
      n->px[i] = p[0]; n->py[i] = p[1]; n->pz[i] = p[2];
      n->ox[i] = o[0]; n->oy[i] = o[1]; n->oz[i] = o[2];
    }
  }
}
