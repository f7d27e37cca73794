/* replica.c - the room's characters, built in the client's own scene from their manifests.
 *
 * Each CHARACTER_ADDED becomes a model under Workspace: one part per manifest part, one
 * accessory per manifest accessory with a Handle part, the joint that wears it (a child of the
 * Handle, part0 = Handle as an engine's AccessoryWeld) and, for a RigidConstraint, the two
 * attachments. Rig results (apply_rig.c) add bones under a Handle; BIND runs bind_character.
 *
 * Invariants:
 * - one replica_character per server character id; a second CHARACTER_ADDED for a known id is a
 *   protocol error and changes nothing;
 * - a character is bound at most once per BIND: bind_character is idempotent and its handles are
 *   kept, so a late rig result destroys exactly those handles before binding again;
 * - removal destroys the character's handles first (poses and joint offsets restored), then the
 *   model subtree, so nothing of it stays in the scene or the sim;
 * - per frame (place, accessors) nothing allocates: parts follow root * their pose (the manifest
 *   frame until the game poses them, pose_input.c) and each Handle follows the enabled joint
 *   that holds it, body side first.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "tress/hair_manager.h"

replica_character *tress__replica_find(const tress_client *c, uint32_t character_id) {
  if (!c) return NULL;
  for (uint32_t i = 0; i < c->character_count; i++)
    if (c->characters[i]->id == character_id) return c->characters[i];
  return NULL;
}

/* HairKit's default match (tress_accessory_is_hair): the server rigs what this accepts. */
static bool wire_hair_match(const tress_wire_accessory *a) {
  return tress_accessory_is_hair((tress_accessory_type)a->type, a->name);
}

static void character_free(tress_client *c, replica_character *ch) {
  (void)c;
  tress__manifest_free(&ch->manifest);
  free(ch->parts);
  free(ch->part_poses);
  free(ch->accessories);
  free(ch->bones);
  free(ch->handles);
  tress__springs_free(ch);
  free(ch);
}

/* Every instance of the replica is made here; a null id when the scene refuses. */
static tress_id make(tress_scene *s, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def def = tress_default_instance_def();
  def.kind = kind;
  def.name = name;
  def.parent = parent;
  tress_id id;
  tress_scene_create_instance(s, &def, &id);
  return id;
}

static tress_id make_part(tress_scene *s, const char *name, tress_id parent, const float size[3], tress_xform cf) {
  tress_instance_def def = tress_default_instance_def();
  def.kind = TRESS_KIND_PART;
  def.name = name;
  def.parent = parent;
  def.cframe = cf;
  memcpy(def.size, size, sizeof def.size);
  tress_id p;
  tress_scene_create_instance(s, &def, &p);
  return p;
}

static bool build_accessory(tress_client *c, replica_character *ch, uint32_t index) {
  tress_scene *s = c->scene;
  const tress_wire_accessory *wa = &ch->manifest.accessories[index];
  replica_accessory *ra = &ch->accessories[index];
  tress_id body = ch->parts[wa->worn_on];
  ra->accessory = make(s, TRESS_KIND_ACCESSORY, wa->name, ch->model);
  if (tress_id_is_null(ra->accessory)) return false;
  tress_accessory_set_type(s, ra->accessory, (tress_accessory_type)wa->type);
  ra->handle = make_part(s, "Handle", ra->accessory, wa->handle_size, tress_xform_mul(ch->root, wa->handle_cframe));
  if (tress_id_is_null(ra->handle)) return false;
  if (wa->mesh_asset_id[0]) {
    tress_part_set_asset_id(s, ra->handle, wa->mesh_asset_id);
    /* The local copy is what a renderer draws and what a rig result is checked against. */
    tress_mesh *local = tress__client_local_mesh(c, wa->mesh_asset_id);
    if (local) {
      tress_part_set_mesh(s, ra->handle, local);
      tress_part_set_size(s, ra->handle, wa->handle_size);
    }
  }
  if (wa->layered && tress_id_is_null(make(s, TRESS_KIND_WRAP_LAYER, "WrapLayer", ra->handle))) return false;
  ra->joint = make(s, TRESS_KIND_JOINT, "AccessoryWeld", ra->handle);
  if (tress_id_is_null(ra->joint)) return false;
  tress_joint j;
  memset(&j, 0, sizeof j);
  j.kind = (tress_joint_kind)wa->joint_kind;
  j.enabled = true;
  j.c0 = tress_xform_identity();
  j.c1 = tress_xform_identity();
  switch (j.kind) {
  case TRESS_JOINT_WELD:
  case TRESS_JOINT_MOTOR6D:
    j.part0 = ra->handle;
    j.part1 = body;
    j.c0 = wa->c0;
    j.c1 = wa->c1;
    break;
  case TRESS_JOINT_RIGID_CONSTRAINT:
    ra->attachment0 = make(s, TRESS_KIND_ATTACHMENT, "HandleAttachment", ra->handle);
    ra->attachment1 = make(s, TRESS_KIND_ATTACHMENT, wa->name, body);
    if (tress_id_is_null(ra->attachment0) || tress_id_is_null(ra->attachment1)) return false;
    tress_attachment_set_cframe(s, ra->attachment0, wa->c0);
    tress_attachment_set_cframe(s, ra->attachment1, wa->c1);
    j.attachment0 = ra->attachment0;
    j.attachment1 = ra->attachment1;
    break;
  case TRESS_JOINT_WELD_CONSTRAINT:
    j.part0 = ra->handle;
    j.part1 = body;
    break;
  }
  tress_joint_set_def(s, ra->joint, &j); /* a WeldConstraint captures the spawn offset here */
  /* hair is rigged by the server; a pre-skinned mesh (has_bones) gets its own skin relayed */
  bool rigged_by_server = wa->mesh_asset_id[0] && !wa->layered && (wa->handle_has_bones || wire_hair_match(wa));
  ra->rig_state = rigged_by_server ? TRESS_RIG_PENDING : TRESS_RIG_NONE;
  return true;
}

tress_result tress__replica_add(tress_client *c, const tress_msg_character_added *m) {
  if (tress__replica_find(c, m->character_id)) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "CHARACTER_ADDED for character %u, which is already known",
                         m->character_id);
    return TRESS_ERR_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < m->manifest.accessory_count; i++) {
    if (m->manifest.accessories[i].worn_on >= m->manifest.part_count) {
      tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "character %u: accessory %u is worn on part %u of %u",
                           m->character_id, i, m->manifest.accessories[i].worn_on, m->manifest.part_count);
      return TRESS_ERR_INVALID_ARGUMENT;
    }
  }
  if (c->character_count == c->character_cap) {
    uint32_t cap = c->character_cap ? 2 * c->character_cap : 16;
    replica_character **n = realloc(c->characters, cap * sizeof *n);
    if (!n) return TRESS_ERR_OUT_OF_MEMORY;
    c->characters = n;
    c->character_cap = cap;
  }
  replica_character *ch = calloc(1, sizeof *ch);
  if (!ch) return TRESS_ERR_OUT_OF_MEMORY;
  ch->id = m->character_id;
  ch->owner_peer_id = m->owner_peer_id;
  ch->request_id = m->request_id;
  ch->mine = m->owner_peer_id == c->peer_id && c->peer_id != 0;
  ch->root = tress_xform_identity();
  ch->added_at = tress_client_get_now(c);
  if (!tress__manifest_copy(&ch->manifest, &m->manifest)) {
    free(ch);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  uint32_t np = ch->manifest.part_count, na = ch->manifest.accessory_count;
  ch->parts = calloc(np ? np : 1, sizeof *ch->parts);
  ch->part_poses = calloc(np ? np : 1, sizeof *ch->part_poses);
  ch->accessories = calloc(na ? na : 1, sizeof *ch->accessories);
  ch->handle_cap = 1 + np + na;
  ch->handles = calloc(ch->handle_cap, sizeof *ch->handles);
  if (!ch->parts || !ch->part_poses || !ch->accessories || !ch->handles) {
    character_free(c, ch);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  tress_scene *s = c->scene;
  ch->model = make(s, TRESS_KIND_MODEL, ch->manifest.character_name, c->workspace);
  bool ok = !tress_id_is_null(ch->model);
  for (uint32_t i = 0; ok && i < np; i++) {
    const tress_wire_part *wp = &ch->manifest.parts[i];
    ch->part_poses[i] = wp->cframe;
    ch->parts[i] = make_part(s, wp->name, ch->model, wp->size, wp->cframe);
    ok = !tress_id_is_null(ch->parts[i]);
  }
  for (uint32_t i = 0; ok && i < na; i++) ok = build_accessory(c, ch, i);
  if (!ok) {
    tress_instance_destroy(s, ch->model);
    character_free(c, ch);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  c->characters[c->character_count++] = ch;
  c->stats.characters_seen++;
  owned_spawn *sp = ch->mine ? tress__spawn_find_request(c, m->request_id) : NULL;
  if (sp) sp->character_id = ch->id;
  if (c->def.callbacks.on_character_added) c->def.callbacks.on_character_added(c->def.callbacks.user, c, ch->id);
  return TRESS_OK;
}

static void destroy_handles(tress_client *c, replica_character *ch) {
  tress__springs_release(c, ch);
  for (uint32_t i = 0; i < ch->handle_count; i++)
    if (tress_handle_is_valid(c->sim, ch->handles[i])) tress_handle_destroy(c->sim, ch->handles[i]);
  ch->handle_count = 0;
  ch->bound = false;
}

void tress__replica_remove(tress_client *c, uint32_t character_id, uint8_t reason) {
  for (uint32_t i = 0; i < c->character_count; i++) {
    replica_character *ch = c->characters[i];
    if (ch->id != character_id) continue;
    if (c->def.callbacks.on_removed) c->def.callbacks.on_removed(c->def.callbacks.user, c, ch->id, reason);
    destroy_handles(c, ch);
    tress__pose_maps_forget(c, ch);
    tress__attachments_release(c, ch);
    /* Body-side attachments live under body parts, so the model subtree covers everything. */
    tress_instance_destroy(c->scene, ch->model);
    memmove(&c->characters[i], &c->characters[i + 1], (c->character_count - i - 1) * sizeof *c->characters);
    c->character_count--;
    character_free(c, ch);
    return;
  }
}

void tress__replica_clear(tress_client *c, uint8_t reason) {
  while (c->character_count) tress__replica_remove(c, c->characters[c->character_count - 1]->id, reason);
}

/* ---- bind ---------------------------------------------------------------------------------- */

typedef struct bind_match {
  const replica_character *ch;
  uint8_t policy;
} bind_match;

static int accessory_index_of(const replica_character *ch, tress_id accessory) {
  for (uint32_t i = 0; i < ch->manifest.accessory_count; i++)
    if (tress_id_is_equal(ch->accessories[i].accessory, accessory)) return (int)i;
  return -1;
}

static bool match_accessory(void *user, const tress_scene *scene, tress_id accessory) {
  const bind_match *bm = user;
  int index = accessory_index_of(bm->ch, accessory);
  if (index < 0) return false;
  switch (bm->policy) {
  case TRESS_MATCH_HAIR_ONLY: return wire_hair_match(&bm->ch->manifest.accessories[index]);
  case TRESS_MATCH_EXPLICIT:
    for (uint32_t i = 0; i < bm->ch->bind.match_count; i++)
      if (bm->ch->match_indices[i] == (uint8_t)index) return true;
    return false;
  default: return tress_default_accessory_match(NULL, scene, accessory);
  }
}

static tress_result bind_now(tress_client *c, replica_character *ch) {
  bind_match bm = {ch, ch->bind.match_policy};
  uint32_t count = 0;
  tress_character_def character = tress_default_character_def();
  character.model = ch->model;
  character.chains = ch->bind.chain_settings;
  character.accessories = ch->bind.accessory_settings;
  character.match = match_accessory;
  character.match_user = &bm;
  tress_result r = tress_sim_bind_character(c->sim, &character, ch->handles, ch->handle_cap, &count);
  if (r == TRESS_OK && count > ch->handle_cap) {
    tress_handle_id *n = realloc(ch->handles, count * sizeof *n);
    if (!n) return TRESS_ERR_OUT_OF_MEMORY;
    ch->handles = n;
    ch->handle_cap = count;
    /* Idempotent: the second call returns the handles the first one made. */
    r = tress_sim_bind_character(c->sim, &character, ch->handles, ch->handle_cap, &count);
  }
  if (r != TRESS_OK) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: bind_character failed: %s", ch->id,
                         tress_result_name(r));
    return TRESS_ERR_INVALID_ARGUMENT;
  }
  ch->handle_count = count;
  ch->bound = true;
  tress__springs_apply(c, ch);
  tress__attachments_bind(c, ch);
  ch->bound_at = tress_client_get_now(c);
  double from = ch->added_at > c->joined_at ? ch->added_at : c->joined_at;
  double latency = ch->bound_at - from;
  c->stats.join_to_bind_sum += latency;
  if (latency > c->stats.join_to_bind_max) c->stats.join_to_bind_max = latency;
  c->stats.join_to_bind_count++;
  if (c->def.callbacks.on_bound) c->def.callbacks.on_bound(c->def.callbacks.user, c, ch->id, count);
  return TRESS_OK;
}

/* PROTOCOL.md 6.3: bind once the BIND and a RIG_RESULT for each accessory it lists are here,
 * so a boneless accessory is never bound as a pendulum first and through its bones later. */
static bool rigs_complete(const replica_character *ch) {
  for (uint32_t i = 0; i < ch->bind.rigged_count; i++) {
    uint8_t index = ch->rigged_indices[i];
    if (index < ch->manifest.accessory_count && !ch->accessories[index].result_received) return false;
  }
  return true;
}

tress_result tress__replica_bind(tress_client *c, replica_character *ch, const tress_msg_bind *bind) {
  uint32_t n = bind->match_count <= TRESS_WIRE_MAX_ACCESSORIES ? bind->match_count : TRESS_WIRE_MAX_ACCESSORIES;
  uint32_t r = bind->rigged_count <= TRESS_WIRE_MAX_ACCESSORIES ? bind->rigged_count : TRESS_WIRE_MAX_ACCESSORIES;
  replica_springs *springs = NULL;
  tress_result sr = tress__springs_read(c, ch, bind, &springs);
  if (sr == TRESS_ERR_OUT_OF_MEMORY) return sr;
  ch->bind = *bind;
  ch->bind.match_count = n;
  ch->bind.rigged_count = r;
  if (n) memcpy(ch->match_indices, bind->match_indices, n);
  if (r) memcpy(ch->rigged_indices, bind->rigged_indices, r);
  /* These point into the decoded message; the copies above are what the replica keeps. */
  ch->bind.match_indices = NULL;
  ch->bind.rigged_indices = NULL;
  ch->bind.sections = NULL;
  ch->bind.section_count = 0;
  ch->have_bind = true;
  /* a section that does not decode was reported: the springs the character has stay */
  if (sr == TRESS_OK) tress__springs_update(c, ch, springs);
  /* A second BIND for a bound character changes settings (and the springs' colliders and named
   * chains when its section differs), never the handle set. */
  if (ch->bound) {
    tress_chain_settings cs = tress__springs_settings(ch, &ch->bind.chain_settings);
    for (uint32_t i = 0; i < ch->handle_count; i++) {
      tress_handle_set_chain_settings(c->sim, ch->handles[i], &cs);
      tress_handle_set_accessory_settings(c->sim, ch->handles[i], &ch->bind.accessory_settings);
    }
    tress__springs_retune(c, ch);
    return TRESS_OK;
  }
  if (!rigs_complete(ch)) return TRESS_OK; /* the bulk channel is still delivering */
  tress__replica_place(c);
  return bind_now(c, ch);
}

void tress__replica_rig_arrived(tress_client *c, replica_character *ch) {
  if (!ch->have_bind) return;
  if (ch->bound) {
    /* A rig the BIND did not announce: its accessory swung as a pendulum until now. */
    destroy_handles(c, ch);
  } else if (!rigs_complete(ch)) {
    return;
  }
  tress__replica_place(c);
  bind_now(c, ch);
}

void tress__replica_apply_settings(tress_client *c, replica_character *ch, const tress_msg_settings_update *m) {
  if (m->has_chain_settings) ch->bind.chain_settings = m->chain_settings;
  if (m->has_accessory_settings) ch->bind.accessory_settings = m->accessory_settings;
  /* the springs section's fields ride along: an update changes the four it carries */
  tress_chain_settings cs = tress__springs_settings(ch, &ch->bind.chain_settings);
  for (uint32_t i = 0; i < ch->handle_count; i++) {
    /* Each call refuses the handle kinds it does not tune; that is expected here. */
    if (m->has_chain_settings) tress_handle_set_chain_settings(c->sim, ch->handles[i], &cs);
    if (m->has_accessory_settings) tress_handle_set_accessory_settings(c->sim, ch->handles[i], &m->accessory_settings);
  }
  if (m->has_chain_settings) tress__springs_retune(c, ch);
}

bool tress__replica_settling(const tress_client *c) {
  for (uint32_t i = 0; i < c->character_count; i++)
    if (!c->characters[i]->bound) return true;
  return false;
}

/* ---- per-frame placement ------------------------------------------------------------------- */

/* The handle side of whichever enabled joint holds the handle: the stored one, or one a
 * pendulum put in its place (a WeldConstraint is swapped for a local Weld while it swings). */
static tress_id holding_joint(const tress_scene *s, const replica_accessory *ra) {
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(s, ra->joint, &j_copy) ? &j_copy : NULL;
  if (j && j->enabled) return ra->joint;
  tress_id scopes[2] = {ra->handle, ra->accessory};
  for (int k = 0; k < 2; k++) {
    for (tress_id ch = tress_instance_get_first_child(s, scopes[k]); !tress_id_is_null(ch);
         ch = tress_instance_get_next_sibling(s, ch)) {
      if (tress_instance_get_kind(s, ch) != TRESS_KIND_JOINT) continue;
      tress_joint o_copy;
      const tress_joint *o = tress_joint_get_def(s, ch, &o_copy) ? &o_copy : NULL;
      if (o && o->enabled) return ch;
    }
  }
  return (tress_id){0};
}

static void place_handle(tress_scene *s, const replica_accessory *ra) {
  tress_joint_place(s, holding_joint(s, ra), ra->handle);
}

void tress__replica_place(tress_client *c) {
  tress_scene *s = c->scene;
  for (uint32_t i = 0; i < c->character_count; i++) {
    replica_character *ch = c->characters[i];
    for (uint32_t p = 0; p < ch->manifest.part_count; p++)
      tress_part_set_cframe(s, ch->parts[p], tress_xform_mul(ch->root, ch->part_poses[p]));
    for (uint32_t a = 0; a < ch->manifest.accessory_count; a++) place_handle(s, &ch->accessories[a]);
  }
}

tress_result tress_client_set_root(tress_client *c, uint32_t character_id, tress_xform root) {
  replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return TRESS_ERR_NOT_FOUND;
  if (!tress_xform_is_finite(root)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_quat_normalize(root.q);
  ch->root = root;
  return TRESS_OK;
}

tress_result tress_client_step(tress_client *c, double dt) {
  if (!c) return TRESS_ERR_INVALID_ARGUMENT;
  tress__replica_place(c);
  tress_result r = tress_sim_step(c->sim, dt);
  /* Pendulums wrote their joints' offsets: put the swung handles where the joints now say. */
  tress__replica_place(c);
  return r;
}

/* ---- accessors ----------------------------------------------------------------------------- */

uint32_t tress_client_get_character_count(const tress_client *c) { return c ? c->character_count : 0; }

uint32_t tress_client_get_character_ids(const tress_client *c, uint32_t *out, uint32_t max) {
  if (!c) return 0;
  uint32_t n = c->character_count < max ? c->character_count : max;
  for (uint32_t i = 0; i < n; i++) out[i] = c->characters[i]->id;
  return n;
}

tress_result tress_client_get_character_info(const tress_client *c, uint32_t character_id,
                                             tress_client_character_info *out) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch || !out) return TRESS_ERR_NOT_FOUND;
  memset(out, 0, sizeof *out);
  out->id = ch->id;
  out->owner_peer_id = ch->owner_peer_id;
  out->mine = ch->mine;
  out->request_id = ch->request_id;
  out->model = ch->model;
  memcpy(out->name, ch->manifest.character_name, sizeof out->name < sizeof ch->manifest.character_name
                                                      ? sizeof out->name
                                                      : sizeof ch->manifest.character_name);
  out->name[sizeof out->name - 1] = '\0';
  out->part_count = ch->manifest.part_count;
  out->accessory_count = ch->manifest.accessory_count;
  out->bone_count = ch->bone_count;
  out->bound = ch->bound;
  out->handle_count = ch->handle_count;
  out->attachment_count = ch->attachment_count;
  out->added_at = ch->added_at;
  out->bound_at = ch->bound_at;
  return TRESS_OK;
}

tress_client_rig_state tress_client_get_accessory_rig_state(const tress_client *c, uint32_t character_id,
                                                        uint32_t accessory_index) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch || accessory_index >= ch->manifest.accessory_count) return TRESS_RIG_NONE;
  return ch->accessories[accessory_index].rig_state;
}

uint32_t tress_client_get_bones(const tress_client *c, uint32_t character_id, tress_id *out, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  for (uint32_t i = 0; i < ch->bone_count && i < max; i++) out[i] = ch->bones[i];
  return ch->bone_count;
}

uint32_t tress_client_get_bone_matrices(const tress_client *c, uint32_t character_id, float *out16, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  for (uint32_t i = 0; i < ch->bone_count && i < max; i++)
    tress_xform_to_mat4(tress_bone_get_world(c->scene, ch->bones[i]), out16 + 16 * (size_t)i);
  return ch->bone_count;
}

uint32_t tress_client_get_skinning_matrices(const tress_client *c, uint32_t character_id, float *out16, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  for (uint32_t i = 0; i < ch->bone_count && i < max; i++) {
    tress_xform drawn = tress_bone_get_world(c->scene, ch->bones[i]);
    tress_xform rest = tress_bone_get_world_rest(c->scene, ch->bones[i]);
    tress_xform_to_mat4(tress_xform_mul(drawn, tress_xform_inverse(rest)), out16 + 16 * (size_t)i);
  }
  return ch->bone_count;
}

tress_result tress_client_get_part_frame(const tress_client *c, uint32_t character_id, uint32_t part_index,
                                         tress_xform *out) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return TRESS_ERR_NOT_FOUND;
  if (part_index >= ch->manifest.part_count || !out) return TRESS_ERR_INVALID_ARGUMENT;
  *out = tress_part_get_cframe(c->scene, ch->parts[part_index]);
  return TRESS_OK;
}

tress_result tress_client_get_accessory_frame(const tress_client *c, uint32_t character_id,
                                              uint32_t accessory_index, tress_id *handle, tress_xform *world,
                                              tress_xform *c0, tress_xform *c1) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return TRESS_ERR_NOT_FOUND;
  if (accessory_index >= ch->manifest.accessory_count) return TRESS_ERR_INVALID_ARGUMENT;
  const replica_accessory *ra = &ch->accessories[accessory_index];
  if (handle) *handle = ra->handle;
  if (world) *world = tress_part_get_cframe(c->scene, ra->handle);
  tress_id jid = holding_joint(c->scene, ra);
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(c->scene, jid, &j_copy) ? &j_copy : NULL;
  tress_xform a = tress_xform_identity(), b = tress_xform_identity();
  if (j && j->kind == TRESS_JOINT_RIGID_CONSTRAINT) {
    a = tress_attachment_get_cframe(c->scene, j->attachment0);
    b = tress_attachment_get_cframe(c->scene, j->attachment1);
  } else if (j) {
    a = j->c0;
    b = j->c1;
  }
  if (c0) *c0 = a;
  if (c1) *c1 = b;
  return TRESS_OK;
}
