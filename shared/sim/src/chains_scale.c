/* chains_scale.c - uniform scale at run time (sim.h "Scale"): one factor per chain, read at
 * bind and again whenever the scene's scales change (never per node, never in a steady frame). */
#include <math.h>

#include "chains_internal.h"
#include "scene_slots.h"

bool tress__chain_scale_read(const tress_sim *sim, const chain_slot *s, float *factor) {
  float w[3];
  bool uniform = tress_instance_get_world_scale(sim->scene, s->part, w);
  /* a scale on one of the chain's own bones would scale the bones below it inside the chain,
   * which one factor per chain cannot follow */
  if (s->kind == TRESS_HANDLE_BONES)
    for (uint32_t k = 0; k < s->node_count && uniform; k++) {
      if (slot_node_is_tip(s, k)) continue; /* an end tip */
      float own[3];
      tress_instance_get_scale(sim->scene, slot_node_id(sim->scene, s, k), own);
      uniform = own[0] == 1.0f && own[1] == 1.0f && own[2] == 1.0f;
    }
  /* part chains measured their links in world units at bind: they follow the change since */
  *factor = s->kind == TRESS_HANDLE_PARTS ? w[0] / s->scale_bind : w[0];
  return uniform;
}

/* The chain's state scaled by ratio about its roots (current and previous positions alike), so
 * its sway carries on at the new size instead of the links snapping to their new lengths. */
static void rescale_state(chain_nodes *n, const chain_slot *s, float ratio) {
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t root = k;
    while (s->local_parent[root] >= 0) root = (uint32_t)s->local_parent[root];
    if (root == k) continue;
    uint32_t i = s->global[k], r = s->global[root];
    n->px[i] = n->px[r] + (n->px[i] - n->px[r]) * ratio;
    n->py[i] = n->py[r] + (n->py[i] - n->py[r]) * ratio;
    n->pz[i] = n->pz[r] + (n->pz[i] - n->pz[r]) * ratio;
    n->ox[i] = n->ox[r] + (n->ox[i] - n->ox[r]) * ratio;
    n->oy[i] = n->oy[r] + (n->oy[i] - n->oy[r]) * ratio;
    n->oz[i] = n->oz[r] + (n->oz[i] - n->oz[r]) * ratio;
  }
}

void tress__chains_refresh_scales(tress_sim *sim, struct tress_chains *c) {
  c->scale_epoch = tress__scene_scale_epoch(sim->scene);
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    float factor;
    bool ok = tress__chain_scale_read(sim, s, &factor) && isfinite(factor) && factor > 0.0f;
    bool changed = false;
    if (ok == s->scale_refused) {
      /* refused chains show their animation exactly (as disabled ones) until it is uniform */
      s->scale_refused = !ok;
      tress__chain_slot_features(c, si);
      changed = true;
    }
    if (ok && factor != s->scale) {
      if (!c->dirty) rescale_state(&c->nodes, s, factor / s->scale);
      s->scale = factor;
      tress__chain_measure(c, s);
      changed = true;
    }
    if (changed && !c->dirty) tress__chain_fill_settings(c, &c->nodes, si);
  }
}

tress_result tress_handle_get_status(const tress_sim *sim, tress_handle_id id) {
  tress_handle *h;
  tress_result found = tress__handle_lookup(sim, id, &h);
  if (found != TRESS_OK) return found;
  if (h->kind == TRESS_HANDLE_ACCESSORY)
    return tress__pendulums_scale_refused(sim, h) ? TRESS_ERR_NON_UNIFORM_SCALE : TRESS_OK;
  if (h->kind != TRESS_HANDLE_BONES && h->kind != TRESS_HANDLE_PARTS) return TRESS_OK;
  const struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count || !c->slots[h->slot].used) return TRESS_ERR_STALE_ID;
  return c->slots[h->slot].scale_refused ? TRESS_ERR_NON_UNIFORM_SCALE : TRESS_OK;
}
