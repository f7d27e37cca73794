/* chains.c - bone chains and part chains: binding, settings, unbinding and resets. The batch
 * they share and how a frame runs it: chains_internal.h. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chains_internal.h"
#include "xform_lanes.h"
#include "scene_slots.h"

struct tress_chains *tress__chains_create(void) {
  struct tress_chains *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->wide = tress__xform_lanes_wide();
  return c;
}

static void slot_free(chain_slot *s) {
  free(s->joints);
  free(s->center);
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
  for (int k = 0; k < SLOT_FIELDS; k++) free(c->per_slot[k]);
  free(c->slot_frame);
  free(c->slot_root);
  free(c->anchor_src);
  free(c->roots_dense);
  free(c->sets);
  free(c->own_sets);
  tress__collider_lanes_free(&c->lanes);
  tress__collider_lanes_free(&c->tile_lanes);
  free(c->tile_flags);
  free(c->tile_stepping);
  tress__chain_nodes_free(&c->nodes);
  tress__chains_free_workers(c);
  tress__chain_tile_scratch_free(&c->tile);
  for (int k = 0; k < G_SCRATCH; k++) free(c->g[k]);
  free(c->sinks);
  free(c->parent_shift);
  free(c->child_shift);
  free(c->aligned);
  free(c->sibling_self);
  free(c->still);
  free(c->tile_kind);
  free(c->node_slot);
  free(c->tile_slot);
  free(c->tile_end);
  free(c->tile_lo);
  free(c->tile_fill);
  free(c->tile_hi);
  free(c->bone_slot);
  free(c);
}

/* ---- settings ---- */

const char *tress_spring_model_name(tress_spring_model m) {
  switch (m) {
  case TRESS_SPRING_POSE: return "pose";
  case TRESS_SPRING_VRM: return "vrm";
  }
  return "unknown";
}

const char *tress_vrm_length_name(tress_vrm_length m) {
  switch (m) {
  case TRESS_VRM_LENGTH_FIXED: return "fixed";
  case TRESS_VRM_LENGTH_THREE_VRM: return "three-vrm";
  }
  return "unknown";
}

const char *tress_limit_kind_name(tress_limit_kind k) {
  switch (k) {
  case TRESS_LIMIT_NONE: return "none";
  case TRESS_LIMIT_CONE: return "cone";
  case TRESS_LIMIT_HINGE: return "hinge";
  case TRESS_LIMIT_SPHERICAL: return "spherical";
  }
  return "unknown";
}

bool tress_vrm_length_from_name(const char *text, tress_vrm_length *out) {
  const tress_vrm_length all[] = {TRESS_VRM_LENGTH_FIXED, TRESS_VRM_LENGTH_THREE_VRM};
  for (size_t k = 0; text && out && k < sizeof all / sizeof all[0]; k++)
    if (strcmp(text, tress_vrm_length_name(all[k])) == 0) {
      *out = all[k];
      return true;
    }
  return false;
}

bool tress_limit_kind_from_name(const char *name, tress_limit_kind *out) {
  if (!name || !out) return false;
  for (int k = TRESS_LIMIT_NONE; k <= TRESS_LIMIT_SPHERICAL; k++)
    if (strcmp(name, tress_limit_kind_name((tress_limit_kind)k)) == 0) {
      *out = (tress_limit_kind)k;
      return true;
    }
  return false;
}

tress_joint_settings tress_chain_settings_get_joint(const tress_chain_settings *s) {
  tress_chain_settings d = tress_default_chain_settings();
  if (!s) s = &d;
  return (tress_joint_settings){.stiffness = s->stiffness, .damping = s->damping, .gravity_scale = s->gravity_scale,
                                .gravity_dir = {s->gravity_dir[0], s->gravity_dir[1], s->gravity_dir[2]},
                                .radius = s->radius, .limit = {.kind = TRESS_LIMIT_NONE, .rotation = {0, 0, 0, 1}}};
}

tress_joint_settings tress_default_joint_settings(void) {
  tress_chain_settings d = tress_default_chain_settings();
  d.gravity_dir[0] = d.gravity_dir[1] = d.gravity_dir[2] = 0.0f;
  return tress_chain_settings_get_joint(&d);
}

/* v's squared length, with v copied to scaled; when that overflows (|v| above about 1.8e19),
 * scaled is v over its largest component and the length is its (finite v only: settings reject
 * the rest). */
static float direction_length2(const float v[3], float scaled[3]) {
  float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  for (int k = 0; k < 3; k++) scaled[k] = v[k];
  if (l2 <= FLT_MAX) return l2;
  float m = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(v[2])));
  for (int k = 0; k < 3; k++) scaled[k] = v[k] / m;
  return scaled[0] * scaled[0] + scaled[1] * scaled[1] + scaled[2] * scaled[2];
}

/* The chain's unit gravity direction: its own when it gives one, else the sim's gravity's, else
 * none (zero). */
static void resolve_gravity_dir(const tress_sim *sim, const float dir[3], float out[3]) {
  float from[3];
  float l2 = direction_length2(dir, from);
  if (!(l2 > 1e-20f)) l2 = direction_length2(sim->def.gravity, from);
  float inv = l2 > 1e-20f ? 1.0f / sqrtf(l2) : 0.0f;
  for (int k = 0; k < 3; k++) out[k] = from[k] * inv;
}

static chain_params params_of(const tress_sim *sim, tress_chain_settings s) {
  chain_params p = {s.damping,   s.stiffness,      s.gravity_scale, s.wind_scale, s.radius,
                    s.end_length, s.wind_gust,     s.wind_frequency, s.weight,    s.enabled,
                    (uint8_t)s.model, s.rotations_only, {0.0f, 0.0f, 0.0f}, s.center, s.center_inertia,
                    (uint8_t)s.vrm_length};
  resolve_gravity_dir(sim, s.gravity_dir, p.gravity_dir);
  return p;
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
  /* the pose model's stiffness is a fraction per step; VRM's is a speed (any value >= 0) */
  s.stiffness = in->model == TRESS_SPRING_VRM ? (in->stiffness > 0.0f ? in->stiffness : 0.0f)
                                              : clamp01(in->stiffness, d.stiffness);
  s.gravity_scale = isfinite(in->gravity_scale) ? in->gravity_scale : d.gravity_scale;
  s.wind_scale = isfinite(in->wind_scale) ? in->wind_scale : d.wind_scale;
  s.radius = isfinite(in->radius) && in->radius > 0.0f ? in->radius : 0.0f;
  s.end_length = isfinite(in->end_length) && in->end_length > 0.0f ? in->end_length : 0.0f;
  s.wind_gust = clamp01(in->wind_gust, d.wind_gust);
  s.wind_frequency = isfinite(in->wind_frequency) && in->wind_frequency > 0.0f ? in->wind_frequency : 0.0f;
  s.weight = clamp01(in->weight, d.weight);
  s.center_inertia = clamp01(in->center_inertia, d.center_inertia);
  return s;
}

static bool settings_valid(const tress_chain_settings *s) {
  return !s || (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) &&
                isfinite(s->wind_scale) && isfinite(s->radius) && isfinite(s->end_length) &&
                isfinite(s->wind_gust) && isfinite(s->wind_frequency) && isfinite(s->weight) &&
                isfinite(s->center_inertia) && isfinite(s->gravity_dir[0]) && isfinite(s->gravity_dir[1]) && isfinite(s->gravity_dir[2]) &&
                (s->model == TRESS_SPRING_POSE || s->model == TRESS_SPRING_VRM) &&
                (s->vrm_length == TRESS_VRM_LENGTH_FIXED || s->vrm_length == TRESS_VRM_LENGTH_THREE_VRM) &&
                s->collider_count <= TRESS_CHAIN_COLLIDERS_MAX);
}

/* A center must be the chain's root or one of its ancestors (what it hangs under). */
static bool center_valid(const tress_sim *sim, const tress_chain_settings *s, tress_id root) {
  if (!s || tress_id_is_null(s->center)) return true;
  if (!tress_instance_is_valid(sim->scene, s->center)) return false;
  return tress_id_is_equal(s->center, root) || tress_instance_is_descendant_of(sim->scene, root, s->center);
}

/* The settings' collider ids as this sim's collider indices: TRESS_ERR_STALE_ID for a destroyed
 * collider, TRESS_ERR_WRONG_OWNER for another sim's. */
static tress_result settings_set(const tress_sim *sim, const tress_chain_settings *s, tress_collider_set *out) {
  memset(out, 0, sizeof *out);
  if (!s) return TRESS_OK;
  for (uint32_t k = 0; k < s->collider_count; k++) {
    uint32_t i;
    tress_result r = tress__collider_lookup(sim, s->colliders[k], &i);
    if (r != TRESS_OK) return r;
    tress_collider_set_add(out, (uint16_t)i);
  }
  return TRESS_OK;
}

/* What the lanes gather reads for a slot: its set while awake, nothing while asleep or disabled. */
void tress__chain_sync_set(struct tress_chains *c, uint32_t si) {
  const chain_slot *s = &c->slots[si];
  if (!c->sets) return; /* no chain has had colliders: every set is empty */
  if (s->used && s->act_last != 0.0f && !(s->features & FEAT_DISABLED)) c->sets[si] = c->own_sets[si];
  else memset(&c->sets[si], 0, sizeof c->sets[si]);
}

static bool slot_has_limits(const chain_slot *s) {
  for (uint32_t k = 0; s->joints && k < s->joint_count; k++)
    if (s->joints[k].set && s->joints[k].limit.kind != LIMIT_NONE) return true;
  return false;
}

/* One slot's feature byte from its settings (none once unused), keeping the count of chains
 * that use colliders. Per slot, so binding one chain costs the same however many are bound. */
void tress__chain_slot_features(struct tress_chains *c, uint32_t si) {
  chain_slot *s = &c->slots[si];
  if (s->features & FEAT_COLLIDES) c->collider_chains--;
  uint8_t was_disabled = s->features & FEAT_DISABLED;
  s->features = 0;
  if (!s->used) return;
  const chain_params *st = &s->settings;
  s->features = (uint8_t)((c->own_sets && c->own_sets[si].count > 0 ? FEAT_COLLIDES : 0u) |
                          (!st->enabled || s->scale_refused || st->weight < 1.0f ? FEAT_WEIGHTED : 0u) |
                          (st->wind_gust > 0.0f ? FEAT_GUSTY : 0u) | (!st->enabled || s->scale_refused ? FEAT_DISABLED : 0u) |
                          (!tress_id_is_null(st->center) && st->center_inertia > 0.0f ? FEAT_CENTERED : 0u) |
                          (slot_has_limits(s) ? FEAT_LIMITED : 0u));
  if (s->features & FEAT_COLLIDES) c->collider_chains++;
  /* enabled toggled: refill the node masks (the substep mask depends on it) */
  if ((s->features & FEAT_DISABLED) != was_disabled && s->act_last >= 0.0f) s->act_last = -1.0f;
}

void tress__chains_forget_collider(tress_sim *sim, uint32_t index) {
  struct tress_chains *c = sim->chains;
  for (uint32_t i = 0; c->own_sets && i < c->slot_count; i++) {
    chain_slot *s = &c->slots[i];
    if (!s->used) continue;
    tress_collider_set *set = &c->own_sets[i];
    uint32_t w = 0;
    for (uint32_t k = 0; k < set->count; k++)
      if (set->index[k] != index) set->index[w++] = set->index[k];
    set->count = w;
    tress__chain_sync_set(c, i);
    tress__chain_slot_features(c, i);
  }
}

/* ---- binding ---- */

/* The collider sets (two per slot, parallel to the slots) exist from the first chain given
 * colliders on: a sim whose chains have none holds none. New entries are empty. */
static bool sets_reserve(struct tress_chains *c) {
  if (c->set_cap >= c->slot_cap) return true;
  tress_collider_set *sets = realloc(c->sets, c->slot_cap * sizeof *sets);
  if (!sets) return false;
  c->sets = sets;
  tress_collider_set *own = realloc(c->own_sets, c->slot_cap * sizeof *own);
  if (!own) return false;
  c->own_sets = own;
  size_t fresh = (size_t)(c->slot_cap - c->set_cap) * sizeof *sets;
  memset(c->sets + c->set_cap, 0, fresh);
  memset(c->own_sets + c->set_cap, 0, fresh);
  c->set_cap = c->slot_cap;
  return true;
}

/* A slot's own collider set (the one its settings name); false: out of memory. */
static bool slot_own_set(struct tress_chains *c, uint32_t si, const tress_collider_set *set) {
  if (!c->own_sets && set->count == 0) return true;
  if (!sets_reserve(c)) return false;
  c->own_sets[si] = *set;
  return true;
}

static uint32_t slot_new(struct tress_chains *c) {
  while (c->slot_hint < c->slot_count && c->slots[c->slot_hint].used) c->slot_hint++;
  if (c->slot_hint < c->slot_count) return c->slot_hint;
  if (c->slot_count == c->slot_cap) {
    uint32_t cap = c->slot_cap ? c->slot_cap * 2 : 16;
    chain_slot *b = realloc(c->slots, cap * sizeof *b);
    if (!b) return UINT32_MAX;
    c->slots = b;
    c->slot_cap = cap;
  }
  if (!tress__chain_per_slot_reserve(c, c->slot_cap)) return UINT32_MAX;
  /* the sets follow the slots (again, after a reserve that ran out of memory) */
  if (c->sets && c->slot_count >= c->set_cap && !sets_reserve(c)) return UINT32_MAX;
  memset(&c->slots[c->slot_count], 0, sizeof(chain_slot));
  return c->slot_count++;
}

/* Slots for n chains made at create (tress_sim_def.chain_capacity), so binding that many moves
 * no slot array; slot_new doubles from there. */
bool tress__chains_reserve_slots(struct tress_chains *c, uint32_t n) {
  if (n <= c->slot_cap) return true;
  chain_slot *b = realloc(c->slots, n * sizeof *b);
  if (!b) return false;
  c->slots = b;
  c->slot_cap = n;
  return tress__chain_per_slot_reserve(c, n) && (!c->sets || sets_reserve(c));
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
    w->slot->ids[me] = node_ref_of(bone);
    w->slot->local_parent[me] = parent_local;
    w->slot->depth[me] = (uint8_t)depth; /* < 256: the walk stops at 255 */
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
      s->ids[t] = (node_ref){0, 0};
      s->local_parent[t] = (int32_t)i;
      s->depth[t] = (uint8_t)(s->depth[i] + 1);
      s->rest[t] = tress_xform_from_pos(dir[0] * tip, dir[1] * tip, dir[2] * tip);
    }
    free(has_child);
  }
  return TRESS_OK;
}

/* The longest rest path from a root (tips included): what "a few chain lengths" measures. */
void tress__chain_measure(struct tress_chains *c, chain_slot *s) {
  const chain_nodes *n = &c->nodes;
  uint32_t si = (uint32_t)(s - c->slots);
  float root_rest[3] = {0.0f, 0.0f, 0.0f};
  if (s->node_count) slot_rest_offset(n, s, 0, root_rest);
  for (int k = 0; k < 3; k++) c->per_slot[LANE_RX + k][si] = root_rest[k];
  c->per_slot[LANE_BONE][si] = s->kind == TRESS_HANDLE_BONES ? 1.0f : 0.0f;
  float reach = 0.0f;
  float *path = calloc(s->node_count ? s->node_count : 1, sizeof *path);
  if (path) {
    for (uint32_t k = 0; k < s->node_count; k++) {
      if (s->local_parent[k] < 0) continue;
      float p[3];
      slot_rest_offset(n, s, k, p);
      path[k] = path[s->local_parent[k]] + sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      if (path[k] > reach) reach = path[k];
    }
    free(path);
  }
  float jump = TRESS_JUMP_RESET_CHAINS * reach * s->scale;
  /* a chain with no length has nothing to whip; keep the check from firing on rounding */
  if (jump < 1e-3f) jump = 1e-3f;
  c->per_slot[LANE_JUMP2][si] = jump * jump;
  c->per_slot[LANE_SCALE][si] = s->scale;
}

/* A filled, measured slot gets its handle and joins the solver's sets. The caller frees the
 * slot when this fails. */
static tress_result slot_publish(tress_sim *sim, uint32_t si, tress_id handle_root, tress_handle_id *out) {
  struct tress_chains *c = sim->chains;
  chain_slot *s = &c->slots[si];
  tress_handle_id h = tress__handle_alloc(sim, s->kind, handle_root, si);
  if (tress_handle_is_null(h)) return TRESS_ERR_OUT_OF_MEMORY;
  s->handle = h;
  tress__chain_sync_set(c, si);
  tress__chain_slot_features(c, si);
  c->dirty = true;
  c->anchor_stale = true; /* the culling fetches its anchor's source */
  if (out) *out = h;
  return TRESS_OK;
}

/* A new slot's anchor poses, settings, center and collider set; false: out of memory. */
static bool slot_start(tress_sim *sim, uint32_t si, const tress_chain_settings *settings,
                       const tress_collider_set *set) {
  chain_slot *s = &sim->chains->slots[si];
  s->pin = tress_xform_identity();
  for (int which = ANCHOR_NOW; which <= ANCHOR_PREV; which += 7) anchor_put(sim->chains, which, si, s->pin);
  for (int k = 0; k < 3; k++) sim->chains->per_slot[LANE_VX + k][si] = 0.0f;
  s->settings = params_of(sim, sanitize(settings));
  return tress__center_start(sim, s) && slot_own_set(sim->chains, si, set);
}

static void set_bones_simulated(tress_scene *scene, const chain_slot *s, bool on) {
  for (uint32_t i = 0; i < s->node_count; i++)
    if (!slot_node_is_tip(s, i)) tress_bone_set_simulated(scene, slot_node_id(scene, s, i), on);
}

static tress_result bind_bones(tress_sim *sim, tress_id anchor, tress_id root_bone, tress_id handle_root,
                               const tress_chain_settings *settings, tress_handle_id *out) {
  if (!center_valid(sim, settings, handle_root)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  tress_result set_result = settings_set(sim, settings, &set);
  if (set_result != TRESS_OK) return set_result;
  struct tress_chains *c = sim->chains;
  uint32_t si = slot_new(c);
  if (si == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;
  chain_slot *s = &c->slots[si];
  s->kind = TRESS_HANDLE_BONES;
  s->part = anchor;
  s->from_bone = !tress_id_is_null(root_bone);
  s->root_bone = root_bone;
  if (!slot_start(sim, si, settings, &set)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->fresh = true;
  s->scale = s->scale_bind = 1.0f;
  tress_result r = slot_build_bones(sim, s);
  if (r == TRESS_OK && !tress__chain_scale_read(sim, s, &s->scale)) r = TRESS_ERR_NON_UNIFORM_SCALE;
  if (r != TRESS_OK) {
    slot_free(s);
    return r;
  }
  tress__chain_measure(c, s);
  s->used = true;
  set_bones_simulated(sim->scene, s, true);
  r = slot_publish(sim, si, handle_root, out);
  if (r != TRESS_OK) {
    set_bones_simulated(sim->scene, s, false);
    slot_free(s);
  }
  return r;
}

tress_result tress_sim_bind(tress_sim *sim, tress_id root_part, const tress_chain_settings *settings,
                            tress_handle_id *out) {
  if (out) *out = (tress_handle_id){0};
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
  if (out) *out = (tress_handle_id){0};
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
  if (out) *out = (tress_handle_id){0};
  if (!sim || (!parts && count)) return TRESS_ERR_INVALID_ARGUMENT;
  if (count < 2) return TRESS_ERR_TOO_FEW_PARTS;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  /* the VRM model and rotations_only write bone rotations only: a part chain has none */
  if (settings && (settings->model != TRESS_SPRING_POSE || settings->rotations_only)) return TRESS_ERR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < count; i++) {
    if (!tress_instance_is_valid(sim->scene, parts[i])) return TRESS_ERR_STALE_ID;
    if (tress_instance_get_kind(sim->scene, parts[i]) != TRESS_KIND_PART) return TRESS_ERR_INVALID_ARGUMENT;
    if (!tress_xform_is_finite(tress_part_get_cframe(sim->scene, parts[i]))) return TRESS_ERR_INVALID_ARGUMENT;
  }
  if (!center_valid(sim, settings, parts[0])) return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  tress_result set_result = settings_set(sim, settings, &set);
  if (set_result != TRESS_OK) return set_result;
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
  float pin_scale[3];
  if (!tress_instance_get_world_scale(sim->scene, parts[0], pin_scale)) {
    slot_free(s);
    return TRESS_ERR_NON_UNIFORM_SCALE;
  }
  s->scale = 1.0f; /* the links are measured below at this scale */
  s->scale_bind = pin_scale[0];
  if (!slot_start(sim, si, settings, &set)) {
    slot_free(s);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  s->node_count = count;
  s->fresh = true;
  for (uint32_t i = 0; i < count; i++) {
    s->ids[i] = node_ref_of(parts[i]);
    s->local_parent[i] = (int32_t)i - 1;
    s->rest[i] = i == 0 ? tress_xform_identity()
                        : tress_xform_inv_mul(tress_part_get_cframe(sim->scene, parts[i - 1]),
                                              tress_part_get_cframe(sim->scene, parts[i]));
  }
  tress__chain_measure(c, s);
  tress_result r = slot_publish(sim, si, parts[0], out);
  if (r != TRESS_OK) slot_free(s);
  return r;
}

void tress__chains_unbind(tress_sim *sim, tress_handle *h) {
  struct tress_chains *c = sim->chains;
  if (h->slot >= c->slot_count) return;
  chain_slot *s = &c->slots[h->slot];
  if (!s->used) return;
  if (s->kind == TRESS_HANDLE_BONES) {
    /* Give every bone back: its animated value (identity when nothing animates it). */
    for (uint32_t i = 0; i < s->node_count; i++) {
      if (slot_node_is_tip(s, i)) continue;
      tress_id bone = slot_node_id(sim->scene, s, i);
      tress_bone_set_simulated(sim->scene, bone, false);
      tress_bone_set_transform(sim->scene, bone, tress_bone_get_animated(sim->scene, bone));
    }
  }
  s->used = false;
  c->anchor_stale = true; /* its anchor's source goes with it */
  tress__chain_slot_features(c, h->slot); /* drops its collider count */
  slot_free(s);
  if (c->sets) {
    memset(&c->sets[h->slot], 0, sizeof c->sets[h->slot]);
    memset(&c->own_sets[h->slot], 0, sizeof c->own_sets[h->slot]);
  }
  if (h->slot < c->slot_hint) c->slot_hint = h->slot;
  c->dirty = true;
}

/* Slot si's settings as its constants' lanes (CHAIN_CONSTANTS) and per-node copies (static until
 * the settings or the chain's scale change): a node moves by its parent joint's own values where
 * that joint has them (jt_*), else by the chain's. Everything measured in units follows the
 * chain's scale k (sim.h, "Scale"): link lengths, the strand radius, the accelerations (gravity
 * and wind scales; the VRM model's stiffness and gravity power, which are units/s); fractions
 * (damping, pose stiffness, weight) do not. The substep mask (LANE_STEP) is the activity pass's. */
void tress__chain_fill_settings(struct tress_chains *c, chain_nodes *n, uint32_t si) {
  const chain_slot *s = &c->slots[si];
  const chain_params *st = &s->settings;
  float weight = st->enabled && !s->scale_refused ? st->weight : 0.0f;
  float k_scale = s->scale;
  bool vrm = st->model == TRESS_SPRING_VRM;
  float *const *lane = c->per_slot;
  lane[LANE_DAMPING][si] = st->damping;
  lane[LANE_STIFFNESS][si] = st->stiffness * (vrm ? k_scale : 1.0f);
  lane[LANE_GSCALE][si] = st->gravity_scale * k_scale;
  lane[LANE_RADIUS][si] = st->radius * k_scale;
  lane[LANE_WSCALE][si] = st->wind_scale * k_scale;
  lane[LANE_WEIGHT][si] = weight;
  lane[LANE_SC][si] = k_scale;
  for (uint32_t k = 0; k < s->node_count; k++) {
    uint32_t i = s->global[k];
    int32_t p = s->local_parent[k];
    const joint_params *j = s->joints && p >= 0 && (uint32_t)p < s->joint_count && s->joints[p].set ? &s->joints[p]
                                                                                                     : NULL;
    const float *dir = j ? j->gravity_dir : st->gravity_dir;
    float power = (j ? j->gravity_scale : st->gravity_scale) * k_scale;
    if (n->jt_damping) {
      n->jt_damping[i] = j ? j->damping : st->damping;
      n->jt_stiffness[i] = (j ? j->stiffness : st->stiffness) * (vrm ? k_scale : 1.0f);
      n->jt_gscale[i] = power;
      n->jt_radius[i] = (j ? j->radius : st->radius) * k_scale;
    }
    if (n->vg_x) {
      n->vg_x[i] = dir[0] * power;
      n->vg_y[i] = dir[1] * power;
      n->vg_z[i] = dir[2] * power;
    }
    if (n->lm_kind) tress__limit_fill_node(n, i, j ? &j->limit : NULL);
  }
}

/* After a slot's settings changed: its per-node copies refilled in place, or, when it now reads an
 * optional node group the layout did not allocate (a first limit, a first VRM chain), the batch
 * re-laid out on the next frame, which allocates it and fills every copy. */
static void refill_settings(struct tress_chains *c, uint32_t si) {
  if (slot_node_groups(&c->slots[si]) & ~c->nodes.groups) c->dirty = true;
  if (!c->dirty) tress__chain_fill_settings(c, &c->nodes, si);
}

/* A joint's values sanitized as the chain settings are, for the chain's model. */
static joint_params joint_of(const tress_sim *sim, const tress_joint_settings *in, uint8_t model) {
  tress_chain_settings cs = tress_default_chain_settings();
  cs.model = (tress_spring_model)model;
  cs.stiffness = in->stiffness;
  cs.damping = in->damping;
  cs.gravity_scale = in->gravity_scale;
  cs.radius = in->radius;
  memcpy(cs.gravity_dir, in->gravity_dir, sizeof cs.gravity_dir);
  chain_params p = params_of(sim, sanitize(&cs));
  joint_params j = {true, p.stiffness, p.damping, p.gravity_scale, {0}, p.radius, tress__limit_of(&in->limit)};
  memcpy(j.gravity_dir, p.gravity_dir, sizeof j.gravity_dir);
  return j;
}

static bool limit_valid(const tress_joint_limit *l) {
  return (l->kind == TRESS_LIMIT_NONE || l->kind == TRESS_LIMIT_CONE || l->kind == TRESS_LIMIT_HINGE ||
          l->kind == TRESS_LIMIT_SPHERICAL) &&
         isfinite(l->angle) && isfinite(l->yaw) && isfinite(l->rotation[0]) && isfinite(l->rotation[1]) &&
         isfinite(l->rotation[2]) && isfinite(l->rotation[3]);
}

tress_result tress_handle_set_joint_settings(tress_sim *sim, tress_handle_id id, tress_id bone,
                                             const tress_joint_settings *in) {
  tress_handle *h = tress__handle_get(sim, id);
  if (!h) return TRESS_ERR_STALE_ID;
  if (h->kind != TRESS_HANDLE_BONES) return TRESS_ERR_INVALID_ARGUMENT;
  if (in && !(isfinite(in->stiffness) && isfinite(in->damping) && isfinite(in->gravity_scale) &&
              isfinite(in->gravity_dir[0]) && isfinite(in->gravity_dir[1]) && isfinite(in->gravity_dir[2]) &&
              isfinite(in->radius) && limit_valid(&in->limit)))
    return TRESS_ERR_INVALID_ARGUMENT;
  struct tress_chains *c = sim->chains;
  chain_slot *s = &c->slots[h->slot];
  uint32_t bones = 0, k = UINT32_MAX;
  for (uint32_t i = 0; i < s->node_count; i++) {
    if (slot_node_is_tip(s, i)) continue; /* tips come after every bone */
    if (tress_id_is_equal(slot_node_id(sim->scene, s, i), bone)) k = i;
    bones = i + 1;
  }
  if (tress_id_is_null(bone) || k == UINT32_MAX) return TRESS_ERR_INVALID_ARGUMENT;
  if (!s->joints || s->joint_count != bones) {
    if (!in) return TRESS_OK; /* nothing was set */
    joint_params *j = calloc(bones, sizeof *j);
    if (!j) return TRESS_ERR_OUT_OF_MEMORY;
    free(s->joints);
    s->joints = j;
    s->joint_count = bones;
  }
  if (in) s->joints[k] = joint_of(sim, in, s->settings.model);
  else s->joints[k].set = false;
  tress__chain_slot_features(c, h->slot);
  refill_settings(c, h->slot);
  return TRESS_OK;
}

tress_result tress_handle_set_chain_settings(tress_sim *sim, tress_handle_id id, const tress_chain_settings *in) {
  tress_handle *h;
  tress_result found = tress__handle_lookup(sim, id, &h);
  if (found != TRESS_OK) return found;
  if (h->kind != TRESS_HANDLE_BONES && h->kind != TRESS_HANDLE_PARTS) return TRESS_ERR_INVALID_ARGUMENT;
  if (!in || !settings_valid(in)) return TRESS_ERR_INVALID_ARGUMENT;
  if (h->kind == TRESS_HANDLE_PARTS && (in->model != TRESS_SPRING_POSE || in->rotations_only))
    return TRESS_ERR_INVALID_ARGUMENT;
  tress_collider_set set;
  tress_result set_result = settings_set(sim, in, &set);
  if (set_result != TRESS_OK) return set_result;
  struct tress_chains *c = sim->chains;
  chain_slot *s = &c->slots[h->slot];
  if (!center_valid(sim, in, s->from_bone ? s->root_bone : s->part)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_chain_settings next = sanitize(in);
  /* a first center's state and the first collider sets, before anything changes (nothing
   * below can fail then) */
  if (!tress_id_is_null(next.center) && !s->center && !(s->center = calloc(1, sizeof *s->center)))
    return TRESS_ERR_OUT_OF_MEMORY;
  if (set.count > 0 && !sets_reserve(c)) return TRESS_ERR_OUT_OF_MEMORY;
  /* a tile holds one kind: moving a chain to another re-lays the batch out */
  chain_params next_params = params_of(sim, next);
  if (chain_tile_kind(&next_params) != chain_tile_kind(&s->settings)) c->dirty = true;
  if (s->kind == TRESS_HANDLE_BONES && next.end_length != s->settings.end_length) {
    /* tips come and go: rebuild the node list aside, swap it in only when it worked; the
     * chain restarts from its animated pose */
    chain_slot tmp = *s;
    tmp.ids = NULL;
    tmp.local_parent = NULL;
    tmp.depth = NULL;
    tmp.global = NULL;
    tmp.rest = NULL;
    tmp.settings = params_of(sim, next);
    tress_result r = slot_build_bones(sim, &tmp);
    if (r != TRESS_OK) {
      slot_free_nodes(&tmp);
      return r;
    }
    slot_free_nodes(s);
    *s = tmp;
    tress__chain_measure(c, s);
    s->fresh = true;
    c->dirty = true;
  }
  uint8_t was_model = s->settings.model;
  bool new_center = !tress_id_is_equal(next.center, s->settings.center);
  s->settings = params_of(sim, next);
  if (new_center) tress__center_start(sim, s);
  /* joints keep their values, re-sanitized when the model (and so their meaning) changed */
  if (s->joints && was_model != s->settings.model)
    for (uint32_t k = 0; k < s->joint_count; k++)
      if (s->joints[k].set) {
        const joint_params *o = &s->joints[k];
        tress_joint_settings js = {o->stiffness, o->damping, o->gravity_scale,
                                   {o->gravity_dir[0], o->gravity_dir[1], o->gravity_dir[2]}, o->radius,
                                   o->limit.given};
        s->joints[k] = joint_of(sim, &js, s->settings.model);
      }
  if (c->own_sets) c->own_sets[h->slot] = set; /* made above when this set is the first */
  tress__chain_slot_features(c, h->slot);
  tress__chain_sync_set(c, h->slot);
  refill_settings(c, h->slot);
  return TRESS_OK;
}

uint32_t tress__chains_slot_count(const struct tress_chains *c) { return c->slot_count; }

void tress__chains_cull_with_activity(struct tress_chains *c, bool on) { c->cull_with_activity = on; }

/* Root positions of a block: anchor position plus, for bone chains (mask 1), the anchor's
 * rotation of rest[0]'s position (tress_quat_rotate's operations), and each one's squared
 * distance to the camera; key NaN where a position is not finite. */
#define CULL_BLOCK 64
HOT_LOOP static void cull_block_keys(uint32_t count, const float *restrict px, const float *restrict py,
                                     const float *restrict pz, const float *restrict qx, const float *restrict qy,
                                     const float *restrict qz, const float *restrict qw, const float *restrict rx,
                                     const float *restrict ry, const float *restrict rz, const float *restrict bone,
                                     const float camera[3], float *restrict key) {
  const float cx = camera[0], cy = camera[1], cz = camera[2];
  for (uint32_t j = 0; j < count; j++) {
    float q[4] = {qx[j], qy[j], qz[j], qw[j]}, v[3] = {rx[j], ry[j], rz[j]}, r[3];
    tress_quat_rotate(q, v, r);
    bool b = bone[j] != 0.0f;
    float x = px[j] + (b ? r[0] : 0.0f), y = py[j] + (b ? r[1] : 0.0f), z = pz[j] + (b ? r[2] : 0.0f);
    float dx = x - cx, dy = y - cy, dz = z - cz;
    float d2 = dx * dx + dy * dy + dz * dz;
    bool finite = (x - x) + (y - y) + (z - z) == 0.0f;
    key[j] = finite ? d2 : NAN;
  }
}

void tress__chains_cull_begin(tress_sim *sim) {
  struct tress_chains *c = sim->chains;
  uint64_t epoch = tress__scene_layout_epoch(sim->scene);
  if (!c->anchor_stale && c->anchor_epoch == epoch) return;
  c->anchors_outside_tiles = true;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    const chain_slot *s = &c->slots[si];
    c->anchor_src[si] = s->used && !s->from_bone ? tress__part_cframe_slot(sim->scene, s->part) : NULL;
    /* a part chain writes parts another chain may hang from; a bone's world reads transforms */
    if (s->used && (s->kind != TRESS_HANDLE_BONES || s->from_bone)) c->anchors_outside_tiles = false;
  }
  c->anchor_epoch = epoch;
  c->anchor_stale = false;
}

uint32_t tress__chains_cull_slots(tress_sim *sim, uint32_t start, uint32_t end) {
  struct tress_chains *c = sim->chains;
  float key[CULL_BLOCK];
  float *const *now = c->per_slot + ANCHOR_NOW, *const *rest = c->per_slot + LANE_RX;
  uint32_t wanting = 0;
  const float no_camera[3] = {0.0f, 0.0f, 0.0f};
  for (uint32_t b0 = start; b0 < end; b0 += CULL_BLOCK) {
    uint32_t n = end - b0 < CULL_BLOCK ? end - b0 : CULL_BLOCK;
    /* the frame about to run takes this read instead of a second one (an unused slot's lanes
     * hold finite leftovers: its key is never used) */
    for (uint32_t j = 0; j < n; j++) {
      const tress_xform *src = c->anchor_src[b0 + j];
      if (src) anchor_put(c, ANCHOR_NOW, b0 + j, *src);
      else if (c->slots[b0 + j].used) anchor_put(c, ANCHOR_NOW, b0 + j, tress__chain_anchor(sim, &c->slots[b0 + j]));
    }
    cull_block_keys(n, now[0] + b0, now[1] + b0, now[2] + b0, now[3] + b0, now[4] + b0, now[5] + b0, now[6] + b0,
                    rest[0] + b0, rest[1] + b0, rest[2] + b0, c->per_slot[LANE_BONE] + b0,
                    sim->have_camera ? sim->camera : no_camera, key);
    for (uint32_t j = 0; j < n; j++) {
      chain_slot *s = &c->slots[b0 + j];
      if (!s->used) continue;
      tress_handle *h = tress__handle_own(sim, s->handle);
      if (!h) continue;
      h->budgeted = !(s->features & FEAT_DISABLED); /* disabled or refused: never stepped */
      bool have = key[j] == key[j];
      wanting += tress__cull_finish(sim, h, have, have ? key[j] : 0.0f);
    }
  }
  return wanting;
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
