/* replica_springs.c - a character's springs (BIND section tag 1) in the client's sim.
 *
 * After tress_sim_bind_character binds the rigged hair and the pendulums, the section adds:
 * colliders, each attached to the character's part or bone of its name (so they follow the
 * body; an empty name is world space, a name that matches nothing is skipped with a warning);
 * the default chain entry (root "") on every chain handle, merged with BIND's four chain
 * settings (which SETTINGS_UPDATE keeps changing); and each named chain, bound from its root
 * bone with tress_sim_bind_bone_chain unless another handle already simulates that bone.
 * Everything it adds goes when the character's handles go.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "tress/wire_springs.h"

void tress__springs_free(replica_character *ch) {
  free(ch->springs);
  free(ch->collider_ids);
  free(ch->spring_handles);
  ch->springs = NULL;
  ch->collider_ids = NULL;
  ch->spring_handles = NULL;
  ch->collider_id_count = ch->spring_handle_count = 0;
}

tress_client_result tress__springs_take(tress_client *c, replica_character *ch, const tress_msg_bind *bind) {
  const tress_wire_section *sec = tress_msg_bind_springs(bind);
  if (!sec) return TRESS_CLIENT_OK;
  if (!ch->springs) {
    ch->springs = malloc(sizeof *ch->springs);
    ch->collider_ids = calloc(TRESS_WIRE_MAX_COLLIDERS, sizeof *ch->collider_ids);
    ch->spring_handles = calloc(TRESS_WIRE_MAX_SPRING_CHAINS, sizeof *ch->spring_handles);
    if (!ch->springs || !ch->collider_ids || !ch->spring_handles) {
      tress__springs_free(ch);
      return TRESS_CLIENT_ERR_OUT_OF_MEMORY;
    }
  }
  tress_wire_error err;
  if (tress_wire_springs_decode(sec->bytes, sec->length, ch->springs, &err) != TRESS_WIRE_OK) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: springs section ignored: %s", ch->id,
                         err.message);
    tress__springs_free(ch);
  }
  return TRESS_CLIENT_OK;
}

typedef struct find_named {
  const char *name;
  tress_id found;
} find_named;

static bool find_visit(tress_scene *scene, tress_id id, void *user) {
  find_named *f = user;
  tress_kind k = tress_instance_kind(scene, id);
  if ((k == TRESS_KIND_PART || k == TRESS_KIND_BONE) && strcmp(tress_instance_name(scene, id), f->name) == 0) {
    f->found = id;
    return false;
  }
  return true;
}

static tress_id find_in_character(tress_client *c, const replica_character *ch, const char *name) {
  find_named f = {name, TRESS_NULL_ID};
  tress_instance_visit_descendants(c->scene, ch->model, find_visit, &f);
  return f.found;
}

static const tress_wire_spring_chain *default_entry(const replica_character *ch) {
  if (!ch->springs) return NULL;
  for (uint32_t i = 0; i < ch->springs->chain_count; i++)
    if (ch->springs->chains[i].root[0] == '\0') return &ch->springs->chains[i];
  return NULL;
}

/* A chain entry's settings with its collider indices turned into this sim's collider ids. */
static tress_chain_settings entry_settings(const replica_character *ch, const tress_wire_spring_chain *e,
                                           tress_chain_settings s) {
  s.collider_count = 0;
  for (uint32_t k = 0; k < e->collider_count; k++) {
    uint8_t i = e->colliders[k];
    if (i < ch->collider_id_count && ch->collider_ids[i].index1 != 0) s.colliders[s.collider_count++] = ch->collider_ids[i];
  }
  return s;
}

tress_chain_settings tress__springs_settings(const replica_character *ch, const tress_chain_settings *base) {
  tress_chain_settings s = *base;
  const tress_wire_spring_chain *e = default_entry(ch);
  if (!e) return s;
  const tress_chain_settings *x = &e->settings;
  s.radius = x->radius;
  s.end_length = x->end_length;
  s.wind_gust = x->wind_gust;
  s.wind_frequency = x->wind_frequency;
  s.weight = x->weight;
  s.enabled = x->enabled;
  return entry_settings(ch, e, s);
}

void tress__springs_apply(tress_client *c, replica_character *ch) {
  if (!ch->springs) return;
  const tress_wire_springs *sp = ch->springs;
  ch->collider_id_count = sp->collider_count;
  for (uint32_t i = 0; i < sp->collider_count; i++) {
    const tress_wire_collider *w = &sp->colliders[i];
    tress_collider_def d = tress_default_collider_def();
    d.shape = w->shape == TRESS_COLLIDER_CAPSULE ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE;
    d.attach = w->attach[0] ? find_in_character(c, ch, w->attach) : TRESS_NULL_ID;
    memcpy(d.offset, w->offset, sizeof d.offset);
    memcpy(d.tail, d.shape == TRESS_COLLIDER_CAPSULE ? w->tail : w->offset, sizeof d.tail);
    d.radius = w->radius;
    ch->collider_ids[i] = TRESS_NULL_COLLIDER;
    if (w->attach[0] && tress_id_is_null(d.attach)) {
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: collider %u: no part or bone named '%s'",
                           ch->id, i, w->attach);
      continue;
    }
    tress_result r = tress_sim_add_collider(c->sim, &d, &ch->collider_ids[i]);
    if (r != TRESS_OK)
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: collider %u: %s", ch->id, i,
                           tress_result_string(r));
  }
  /* the default entry on every chain the bind made (pendulums refuse chain settings) */
  if (default_entry(ch)) {
    tress_chain_settings s = tress__springs_settings(ch, &ch->bind.chain_settings);
    for (uint32_t i = 0; i < ch->handle_count; i++) tress_handle_set_chain_settings(c->sim, ch->handles[i], &s);
  }
  ch->spring_handle_count = 0;
  for (uint32_t i = 0; i < sp->chain_count; i++) {
    const tress_wire_spring_chain *e = &sp->chains[i];
    if (!e->root[0]) continue;
    tress_id bone = find_in_character(c, ch, e->root);
    if (tress_id_is_null(bone) || tress_instance_kind(c->scene, bone) != TRESS_KIND_BONE) {
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: spring chain: no bone named '%s'", ch->id,
                           e->root);
      continue;
    }
    if (tress_bone_simulated(c->scene, bone)) continue; /* a rigged accessory's chain has it */
    tress_chain_settings s = entry_settings(ch, e, e->settings);
    tress_handle_id h;
    tress_result r = tress_sim_bind_bone_chain(c->sim, bone, &s, &h);
    if (r == TRESS_OK) ch->spring_handles[ch->spring_handle_count++] = h;
    else
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: spring chain '%s': %s", ch->id, e->root,
                           tress_result_string(r));
  }
}

void tress__springs_release(tress_client *c, replica_character *ch) {
  for (uint32_t i = 0; i < ch->spring_handle_count; i++)
    if (tress_handle_valid(c->sim, ch->spring_handles[i])) tress_handle_destroy(c->sim, ch->spring_handles[i]);
  ch->spring_handle_count = 0;
  for (uint32_t i = 0; i < ch->collider_id_count; i++) tress_sim_remove_collider(c->sim, ch->collider_ids[i]);
  ch->collider_id_count = 0;
}

uint32_t tress_client_colliders(const tress_client *c, uint32_t character_id, tress_collider_def *defs,
                                tress_collider_world *worlds, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < ch->collider_id_count; i++) {
    tress_collider_def d;
    tress_collider_world w;
    if (!tress_sim_collider_get(c->sim, ch->collider_ids[i], &d, &w)) continue;
    if (n < max) {
      if (defs) defs[n] = d;
      if (worlds) worlds[n] = w;
    }
    n++;
  }
  return n;
}
