/* chains.c - bone chains and part chains: binding, settings, unbinding and resets. The batch
 * they share and how a frame runs it: chains_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chains_internal.h"
#include "xform_lanes.h"

struct tress_chains *tress__chains_create(void) {
  struct tress_chains *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->identity = c->sink = tress_xform_identity();
  c->wide = tress__xform_lanes_wide();
  return c;
}

static void slot_free(chain_slot *s) {
  free(s->ids);
  free(s->local_parent);
  free(s->depth);
  free(s->global);
  free(s->rest);
  memset(s, 0, sizeof *s);
}

void tress__chains_destroy(struct tress_chains *c) {
  if (!c) return;
  for (uint32_t i = 0; i < c->slot_count; i++)
    if (c->slots[i].used) slot_free(&c->slots[i]);
  free(c->slots);
  free(c->sets);
  free(c->own_sets);
  tress_collider_lanes_free(&c->lanes);
  tress_collider_lanes_free(&c->tile_lanes);
  free(c->tile_flags);
  tress__chain_nodes_free(&c->nodes);
#define FREE_TILE_FIELD(name) free(c->tile.name);
  TILE_FIELDS(FREE_TILE_FIELD)
#undef FREE_TILE_FIELD
  for (int k = 0; k < G_SCRATCH; k++) free(c->g[k]);
  free(c->parent_shift);
  free(c->child_shift);
  free(c->aligned);
  free(c->node_slot);
  free(c->tile_slot);
  free(c->tile_end);
  free(c->tile_lo);
  free(c->tile_fill);
  free(c->tile_hi);
  free(c->in_ptr);
  free(c->out_ptr);
  free(c);
}

/* ---- settings ---- */

static chain_params params_of(tress_chain_settings s) {
  return (chain_params){s.damping, s.stiffness, s.gravity_scale, s.wind_scale, s.radius, s.end_length, s.wind_gust,
                        s.wind_frequency, s.weight, s.enabled};
}


static float clamp01(float v, float fallback) {
  if (!isfinite(v)) return fallback;
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static tress_chain_settings sanitize(const tress_chain_settings *in) {
  tress_chain_settings d = tress_default_chain_settings();
  if (!in) return d;
  tress_chain_settings s = *in;
  s.damping = clamp01(in->damping, d.damping);
  s.stiffness = clamp01(in->stiffness, d.stiffness);
  s.gravity_scale = isfinite(in->gravity_scale) ? in->gravity_scale : d.gravity_scale;
  s.wind_scale = isfinite(in->wind_scale) ? in->wind_scale : d.wind_scale;
  s.radius = isfinite(in->radius) && in->radius > 0.0f ? in->radius : 0.0f;
  s.end_length = isfinite(in->end_length) && in->end_length > 0.0f ? in->end_length : 0.0f;
  s.wind_gust = clamp01(in->wind_gust, d.wind_gust);
  s.wind_frequency = isfinite(in->wind_frequency) && in->wind_frequency > 0.0f ? in->wind_frequency : 0.0f;
  s.weight = clamp01(in->weight, d.weight);
  return s;
}

static bool settings_valid(const tress_chain_settings *s) {
  return !s || (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) &&
                isfinite(s->wind_scale) && isfinite(s->radius) && isfinite(s->end_length) &&
                isfinite(s->wind_gust) && isfinite(s->wind_frequency) && isfinite(s->weight) &&
                s->collider_count <= TRESS_CHAIN_COLLIDERS_MAX);
}

/* The settings' collider ids as a set of indices; false when one is stale. */
static bool settings_set(const tress_sim *sim, const tress_chain_settings *s, tress_collider_set *out) {
  memset(out, 0, sizeof *out);
  if (!s) return true;
  for (uint32_t k = 0; k < s->collider_count; k++) {
    int32_t i = tress__collider_index(sim, s->colliders[k]);
    if (i < 0) return false;
    tress_collider_set_add(out, (uint16_t)i);
  }
  return true;
}

/* What the lanes gather reads for a slot: its set while awake, nothing while asleep or disabled. */
static void sync_set(struct tress_chains *c, uint32_t si) {
  const chain_slot *s = &c->slots[si];
  if (s->used && s->act_last != 0.0f && !(s->features & FEAT_DISABLED)) c->sets[si] = c->own_sets[si];
  else memset(&c->sets[si], 0, sizeof c->sets[si]);
}

/* One slot's feature byte from its settings (none once unused), keeping the count of chains
 * that use colliders. Per slot, so binding one chain costs the same however many are bound. */
static void slot_features(struct tress_chains *c, uint32_t si) {
  chain_slot *s = &c->slots[si];
  if (s->features & FEAT_COLLIDES) c->collider_chains--;
  uint8_t was_disabled = s->features & FEAT_DISABLED;
  s->features = 0;
  if (!s->used) return;
  const chain_params *st = &s->settings;
  s->features = (uint8_t)((c->own_sets[si].count > 0 ? FEAT_COLLIDES : 0u) |
                          (!st->enabled || st->weight < 1.0f ? FEAT_WEIGHTED : 0u) |
                          (st->wind_gust > 0.0f ? FEAT_GUSTY : 0u) | (!st->enabled ? FEAT_DISABLED : 0u));
  if (s->features & FEAT_COLLIDES) c->collider_chains++;
  /* enabled toggled: refill the node masks (the substep mask depends on it) */
  if ((s->features & FEAT_DISABLED) != was_disabled && s->act_last >= 0.0f) s->act_last = -1.0f;
}

void tress__chains_forget_collider(tress_sim *sim, uint32_t index) {
  struct tress_chains *c = sim->chains;
  for (uint32_t i = 0; i < c->slot_count; i++) {
    chain_slot *s = &c->slots[i];
    if (!s->used) continue;
    tress_collider_set *set = &c->own_sets[i];
    uint32_t w = 0;
    for (uint32_t k = 0; k < set->count; k++)
      if (set->index[k] != index) set->index[w++] = set->index[k];
    set->count = w;
    sync_set(c, i);
    slot_features(c, i);
  }
}

/* ---- binding ---- */

static uint32_t slot_new(struct tress_chains *c) {
  while (c->slot_hint < c->slot_count && c->slots[c->slot_hint].used) c->slot_hint++;
  if (c->slot_hint < c->slot_count) return c->slot_hint;
  if (c->slot_count == c->slot_cap) {
    uint32_t cap = c->slot_cap ? c->slot_cap * 2 : 16;
    chain_slot *b = realloc(c->slots, cap * sizeof *b);
    if (!b) return UINT32_MAX;
    c->slots = b;
    tress_collider_set *sets = realloc(c->sets, cap * sizeof *sets);
    if (!sets) return UINT32_MAX;
    c->sets = sets;
    tress_collider_set *own = realloc(c->own_sets, cap * sizeof *own);
    if (!own) return UINT32_MAX;
    c->own_sets = own;
    c->slot_cap = cap;
  }
  memset(&c->slots[c->slot_count], 0, sizeof(chain_slot));
  memset(&c->sets[c->slot_count], 0, sizeof(tress_collider_set));
  memset(&c->own_sets[c->slot_count], 0, sizeof(tress_collider_set));
  return c->slot_count++;
}

static bool slot_reserve(chain_slot *s, uint32_t n) {
  s->ids = calloc(n, sizeof *s->ids);
  s->local_parent = calloc(n, sizeof *s->local_parent);
  s->depth = calloc(n, sizeof *s->depth);
  s->global = calloc(n, sizeof *s->global);
  s->rest = calloc(n, sizeof *s->rest);
  return s->ids && s->local_parent && s->depth && s->global && s->rest;
}

static void slot_free_nodes(chain_slot *s) {
  free(s->ids);
  free(s->local_parent);
  free(s->depth);
  free(s->global);
  free(s->rest);
  s->ids = NULL;
  s->local_parent = NULL;
  s->depth = NULL;
  s->global = NULL;
  s->rest = NULL;
  s->node_count = 0;
}

typedef struct bone_walk {
  const tress_scene *scene;
  chain_slot *slot; /* NULL: count only */
  uint32_t count;
} bone_walk;

static void walk_visit(bone_walk *w, tress_id bone, int32_t parent_local, uint32_t depth);

/* Pre-order over the bone hierarchies under a part or bone: parents always come first. */
static void walk_bones(bone_walk *w, tress_id parent, int32_t parent_local, uint32_t depth) {
  for (tress_id c = tress_instance_get_first_child(w->scene, parent); !tress_id_is_null(c);
       c = tress_instance_get_next_sibling(w->scene, c)) {
    if (tress_instance_get_kind(w->scene, c) != TRESS_KIND_BONE) continue;
    walk_visit(w, c, parent_local, depth);
  }
}

static void walk_visit(bone_walk *w, tress_id bone, int32_t parent_local, uint32_t depth) {
  uint32_t me = w->count++;
  if (w->slot) {
    w->slot->ids[me] = bone;
    w->slot->local_parent[me] = parent_local;
    w->slot->depth[me] = depth;
    w->slot->rest[me] = tress_bone_get_cframe(w->scene, bone);
  }
  if (depth < 255) walk_bones(w, bone, (int32_t)me, depth + 1);
}

/* (Re)builds a bone slot's node list from the scene: the bones under s->part (or from
 * s->root_bone down), then one virtual tip per leaf when end_length > 0. A tip has a null id
 * (it reads identity and writes nowhere) and a rest offset of end_length along its leaf's
 * parent-to-leaf direction in the leaf's frame (+Y for a leaf that is a root, or sits on its
 * parent). Also the chain's length for the jump reset. */
static tress_result slot_build_bones(tress_sim *sim, chain_slot *s) {
  bone_walk w = {sim->scene, NULL, 0};
  if (s->from_bone) walk_visit(&w, s->root_bone, -1, 0);
  else walk_bones(&w, s->part, -1, 0);
  if (w.count == 0) return TRESS_ERR_NOTHING_TO_BIND;
  uint32_t bones = w.count;
  float tip = s->settings.end_length;
  slot_free_nodes(s);
  /* worst case every bone is a leaf: one tip each */
  if (!slot_reserve(s, tip > 0.0f ? 2 * bones : bones)) return TRESS_ERR_OUT_OF_MEMORY;
  w.slot = s;
  w.count = 0;
  if (s->from_bone) walk_visit(&w, s->root_bone, -1, 0);
  else walk_bones(&w, s->part, -1, 0);
  s->node_count = bones;
  /* A non-finite rest pose would poison every pose below it: refuse the bind. */
  for (uint32_t i = 0; i < bones; i++)
    if (!tress_xform_is_finite(s->rest[i])) return TRESS_ERR_INVALID_ARGUMENT;
  if (tip > 0.0f) {
    bool *has_child = calloc(bones, sizeof *has_child);
    if (!has_child) return TRESS_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < bones; i++)
      if (s->local_parent[i] >= 0) has_child[s->local_parent[i]] = true;
    for (uint32_t i = 0; i < bones; i++) {
      if (has_child[i] || s->depth[i] >= 255) continue;
      float dir[3] = {0.0f, 1.0f, 0.0f};
      if (s->local_parent[i] >= 0) {
        float d[3];
        tress_quat_rotate_inv(s->rest[i].q, s->rest[i].p, d);
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 1e-6f)
          for (int k = 0; k < 3; k++) dir[k] = d[k] / len;
      }
      uint32_t t = s->node_count++;
      s->ids[t] = (tress_id){0};
      s->local_parent[t] = (int32_t)i;
      s->depth[t] = s->depth[i] + 1;
      s->rest[t] = tress_xform_from_pos(dir[0] * tip, dir[1] * tip, dir[2] * tip);
    }
    free(has_child);
  }
  return TRESS_OK;
}

/* The longest rest path from a root (tips included): what "a few chain lengths" measures. */
static void slot_measure(chain_slot *s) {
  float reach = 0.0f;
  float *path = calloc(s->node_count ? s->node_count : 1, sizeof *path);
  if (path) {
    for (uint32_t k = 0; k < s->node_count; k++) {
      if (s->local_parent[k] < 0) continue;
      const float *p = s->rest[k].p;
      path[k] = path[s->local_parent[k]] + sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      if (path[k] > reach) reach = path[k];
    }
    free(path);
  }
  float jump = TRESS_JUMP_RESET_CHAINS * reach;
  /* a chain with no length has nothing to whip; keep the check from firing on rounding */
  if (jump < 1e-3f) jump = 1e-3f;
  s->jump2 = jump * jump;
}

static void set_bones_simulated(tress_scene *scene, const chain_slot *s, bool on) {
  for (uint32_t i = 0; i < s->node_count; i++)
    if (!tress_id_is_null(s->ids[i])) tress_bone_set_simulated(scene, s->ids[i], on);
}

static tress_result bind_bones(tress_sim *sim, tress_id anchor, tress_id root_bone, tress_id handle_root,
                               const tress_chain_settings *settings, tress_handle_id *out) {
  tress_collider_set set;
  if (!settings_set(sim, settings, &set)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  uint32_t si = slot_new(c);
  if (si == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;
  chain_slot *s = &c->slots[si];
  s->kind = TRESS_HANDLE_BONES;
  s->part = anchor;
  s->from_bone = !tress_id_is_null(root_bone);
  s->root_bone = root_bone;
  s->last_part = s->prev_part = s->pin = tress_xform_identity();
  s->settings = params_of(sanitize(settings));
  c->own_sets[si] = set;
  s->fresh = true;
  tress_result r = slot_build_bones(sim, s);
  if (r != TRESS_OK) {
    slot_free(s);
    return r;
  }
  slot_measure(s);
  s->used = true;
  set_bones_simulated(sim->scene, s, true);
  tress_handle_id h = tress__handle_alloc(sim, TRESS_HANDLE_BONES, handle_root, si);
  if (tress_handle_is_null(h)) {
    set_bones_simulated(sim->scene, s, false);
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->handle = h;
  sync_set(c, si);
  slot_features(c, si);
  c->dirty = true;
  if (out) *out = h;
  return TRESS_OK;
}

tress_result tress_sim_bind(tress_sim *sim, tress_id root_part, const tress_chain_settings *settings,
                            tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_is_valid(sim->scene, root_part)) return TRESS_ERR_STALE_ID;
  if (tress_instance_get_kind(sim->scene, root_part) != TRESS_KIND_PART) return TRESS_ERR_INVALID_ARGUMENT;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle_id existing = tress__handle_find(sim, TRESS_HANDLE_BONES, root_part);
  if (!tress_handle_is_null(existing)) {
    if (out) *out = existing;
    return TRESS_OK;
  }
  return bind_bones(sim, root_part, (tress_id){0}, root_part, settings, out);
}

tress_result tress_sim_bind_bone_chain(tress_sim *sim, tress_id root_bone, const tress_chain_settings *settings,
                                       tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_is_valid(sim->scene, root_bone)) return TRESS_ERR_STALE_ID;
  if (tress_instance_get_kind(sim->scene, root_bone) != TRESS_KIND_BONE) return TRESS_ERR_INVALID_ARGUMENT;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_id anchor = tress_instance_get_parent(sim->scene, root_bone);
  tress_kind ak = tress_instance_get_kind(sim->scene, anchor);
  if (ak != TRESS_KIND_PART && ak != TRESS_KIND_BONE) return TRESS_ERR_INVALID_ARGUMENT;
  tress_handle_id existing = tress__handle_find(sim, TRESS_HANDLE_BONES, root_bone);
  if (!tress_handle_is_null(existing)) {
    if (out) *out = existing;
    return TRESS_OK;
  }
  return bind_bones(sim, anchor, root_bone, root_bone, settings, out);
}

tress_result tress_sim_bind_parts(tress_sim *sim, const tress_id *parts, uint32_t count,
                                  const tress_chain_settings *settings, tress_handle_id *out) {
  if (out) *out = TRESS_NULL_HANDLE;
  if (!sim || (!parts && count)) return TRESS_ERR_INVALID_ARGUMENT;
  if (count < 2) return TRESS_ERR_TOO_FEW_PARTS;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  if (!settings_set(sim, settings, &set)) return TRESS_ERR_STALE_ID;
  for (uint32_t i = 0; i < count; i++) {
    if (!tress_instance_is_valid(sim->scene, parts[i])) return TRESS_ERR_STALE_ID;
    if (tress_instance_get_kind(sim->scene, parts[i]) != TRESS_KIND_PART) return TRESS_ERR_INVALID_ARGUMENT;
    if (!tress_xform_is_finite(tress_part_get_cframe(sim->scene, parts[i]))) return TRESS_ERR_INVALID_ARGUMENT;
  }
  struct tress_chains *c = sim->chains;
  uint32_t si = slot_new(c);
  if (si == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;
  chain_slot *s = &c->slots[si];
  if (!slot_reserve(s, count)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->used = true;
  s->kind = TRESS_HANDLE_PARTS;
  s->part = parts[0];
  s->last_part = s->prev_part = s->pin = tress_xform_identity();
  s->settings = params_of(sanitize(settings));
  c->own_sets[si] = set;
  s->node_count = count;
  s->fresh = true;
  for (uint32_t i = 0; i < count; i++) {
    s->ids[i] = parts[i];
    s->local_parent[i] = (int32_t)i - 1;
    s->depth[i] = i;
    s->rest[i] = i == 0 ? tress_xform_identity()
                        : tress_xform_inv_mul(tress_part_get_cframe(sim->scene, parts[i - 1]),
                                              tress_part_get_cframe(sim->scene, parts[i]));
  }
  slot_measure(s);
  tress_handle_id h = tress__handle_alloc(sim, TRESS_HANDLE_PARTS, parts[0], si);
  if (tress_handle_is_null(h)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->handle = h;
  sync_set(c, si);
  slot_features(c, si);
  c->dirty = true;
  if (out) *out = h;
  return TRESS_OK;
}

void tress__chains_unbind(tress_sim *sim, tress_handle *h) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count) return;
  chain_slot *s = &c->slots[h->slot];
  if (!s->used) return;
  if (s->kind == TRESS_HANDLE_BONES) {
    /* Give every bone back: its animated value (identity when nothing animates it). */
    for (uint32_t i = 0; i < s->node_count; i++) {
      if (tress_id_is_null(s->ids[i])) continue; /* an end tip */
      tress_bone_set_simulated(sim->scene, s->ids[i], false);
      tress_bone_set_transform(sim->scene, s->ids[i], tress_bone_get_animated(sim->scene, s->ids[i]));
    }
  }
  s->used = false;
  slot_features(c, h->slot); /* drops its collider count */
  slot_free(s);
  memset(&c->sets[h->slot], 0, sizeof c->sets[h->slot]);
  memset(&c->own_sets[h->slot], 0, sizeof c->own_sets[h->slot]);
  if (h->slot < c->slot_hint) c->slot_hint = h->slot;
  c->dirty = true;
}

/* Per-node copies of a slot's settings (static until the settings change). */
void tress__chain_fill_settings(chain_nodes *n, const chain_slot *s) {
  const chain_params *st = &s->settings;
  float weight = st->enabled ? st->weight : 0.0f;
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k];
    n->damping[i] = st->damping;
    n->stiffness[i] = st->stiffness;
    n->gscale[i] = st->gravity_scale;
    n->wscale[i] = st->wind_scale;
    n->radius[i] = st->radius;
    n->weight[i] = weight;
  }
}

tress_result tress_handle_set_chain_settings(tress_sim *sim, tress_handle_id id, const tress_chain_settings *in) {
  tress_handle *h = tress__handle_get(sim, id);
  if (!h) return TRESS_ERR_STALE_ID;
  if (h->kind != TRESS_HANDLE_BONES && h->kind != TRESS_HANDLE_PARTS) return TRESS_ERR_INVALID_ARGUMENT;
  if (!in || !settings_valid(in)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  if (!settings_set(sim, in, &set)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  chain_slot *s = &c->slots[h->slot];
  tress_chain_settings next = sanitize(in);
  if (s->kind == TRESS_HANDLE_BONES && next.end_length != s->settings.end_length) {
    /* tips come and go: rebuild the node list aside, swap it in only when it worked; the
     * chain restarts from its animated pose */
    chain_slot tmp = *s;
    tmp.ids = NULL;
    tmp.local_parent = NULL;
    tmp.depth = NULL;
    tmp.global = NULL;
    tmp.rest = NULL;
    tmp.settings = params_of(next);
    tress_result r = slot_build_bones(sim, &tmp);
    if (r != TRESS_OK) {
      slot_free_nodes(&tmp);
      return r;
    }
    slot_free_nodes(s);
    *s = tmp;
    slot_measure(s);
    s->fresh = true;
    c->dirty = true;
  }
  s->settings = params_of(next);
  c->own_sets[h->slot] = set;
  slot_features(c, h->slot);
  sync_set(c, h->slot);
  if (!c->dirty) {
    tress__chain_fill_settings(&c->nodes, s);
  }
  return TRESS_OK;
}

bool tress__chains_enabled(const tress_sim *sim, const tress_handle *h) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count || !c->slots[h->slot].used) return false;
  return c->slots[h->slot].settings.enabled;
}

bool tress__chains_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count || !c->slots[h->slot].used) return false;
  const chain_slot *s = &c->slots[h->slot];
  tress_xform w = tress__chain_anchor(sim, s);
  if (s->kind == TRESS_HANDLE_BONES) w = tress_xform_mul(w, s->rest[0]);
  memcpy(out, w.p, 3 * sizeof(float));
  return tress_vec3_is_finite(out);
}

tress_result tress_sim_reset(tress_sim *sim, tress_id root) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_is_valid(sim->scene, root)) return TRESS_ERR_STALE_ID;
  struct tress_chains *c = sim->chains;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    tress_handle *h = tress__handle_get(sim, s->handle);
    if (!h) continue;
    if (tress_id_is_equal(h->root, root) || tress_instance_is_descendant_of(sim->scene, h->root, root)) s->reset = true;
  }
  tress__sim_reset_writers(sim, root); /* pendulums, ropes and cloth under root snap too */
  return TRESS_OK;
}
