/* replica_springs.c - a character's springs (BIND section tag 1) in the client's sim.
 *
 * After tress_sim_bind_character binds the rigged hair and the pendulums, the section adds:
 * colliders, each attached to the character's part or bone of its name (so they follow the
 * body; an empty name is world space, a name that matches nothing is skipped with a warning);
 * the default chain entry (root "") on every chain handle, merged with BIND's four chain
 * settings (which SETTINGS_UPDATE keeps changing); and each named chain, bound from its root
 * bone with tress_sim_bind_bone_chain unless another handle already simulates that bone.
 * Everything it adds goes when the character's handles go.
 *
 * Rotation limits go where the bones swing: a named chain's limit on its root and every bone
 * below it, then its per-joint limits on the bones they name, whichever chain simulates them -
 * the one the entry bound, or, when the root already swings with one of the character's own
 * chains (a rigged accessory, a pre-skinned cape), that chain (the entry's other fields are
 * skipped there, with a warning). Those joints keep the character's chain values and follow its
 * settings updates (tress__springs_retune); a replaced section gives them back first.
 *
 * A later BIND replaces the section: an equal one (compared decoded) touches nothing; another
 * one's colliders are added first and only then do the old colliders and named chains go, so
 * a sim that refuses a collider halfway leaves the old set whole (the new one is taken back and
 * the refusal reported). A section is in the sim whole or not at all: when even the first bind
 * cannot add every collider, the character is bound as if BIND had carried no section.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

void tress__springs_free(replica_character *ch) {
  free(ch->springs);
  ch->springs = NULL;
}

tress_result tress__springs_read(tress_client *c, const replica_character *ch, const tress_msg_bind *bind,
                                 replica_springs **out) {
  *out = NULL;
  const tress_wire_section *sec = tress_msg_bind_get_springs(bind);
  if (!sec) return TRESS_OK;
  replica_springs *sp = calloc(1, sizeof *sp);
  if (!sp) return TRESS_ERR_OUT_OF_MEMORY;
  tress_wire_error err;
  if (tress_wire_springs_decode(sec->bytes, sec->length, &sp->section, &err) != TRESS_WIRE_OK) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: springs section ignored: %s%s", ch->id,
                         err.message, ch->springs ? " (the previous springs stay)" : "");
    free(sp);
    return TRESS_ERR_INVALID_ARGUMENT;
  }
  *out = sp;
  return TRESS_OK;
}

typedef struct find_named {
  const char *name;
  tress_id found;
} find_named;

static bool find_visit(tress_scene *scene, tress_id id, void *user) {
  find_named *f = user;
  tress_kind k = tress_instance_get_kind(scene, id);
  if (k != TRESS_KIND_PART && k != TRESS_KIND_BONE) return true;
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(scene, id, name);
  if (strcmp(name, f->name) == 0) {
    f->found = id;
    return false;
  }
  return true;
}

static tress_id find_in_character(tress_client *c, const replica_character *ch, const char *name) {
  find_named f = {name, (tress_id){0}};
  tress_instance_visit_descendants(c->scene, ch->model, find_visit, &f);
  return f.found;
}

static const tress_wire_spring_chain *default_entry(const replica_springs *sp) {
  if (!sp) return NULL;
  for (uint32_t i = 0; i < sp->section.chain_count; i++)
    if (sp->section.chains[i].root[0] == '\0') return &sp->section.chains[i];
  return NULL;
}

/* A chain entry's settings with its collider indices turned into this sim's collider ids. */
static tress_chain_settings entry_settings(const replica_springs *sp, const tress_wire_spring_chain *e,
                                           tress_chain_settings s) {
  s.collider_count = 0;
  for (uint32_t k = 0; k < e->collider_count; k++) {
    uint8_t i = e->colliders[k];
    if (i < sp->collider_id_count && sp->collider_ids[i].index1 != 0)
      s.colliders[s.collider_count++] = sp->collider_ids[i];
  }
  return s;
}

tress_chain_settings tress__springs_settings(const replica_character *ch, const tress_chain_settings *base) {
  tress_chain_settings s = *base;
  const tress_wire_spring_chain *e = default_entry(ch->springs);
  if (!e) return s;
  const tress_chain_settings *x = &e->settings;
  s.radius = x->radius;
  s.end_length = x->end_length;
  s.wind_gust = x->wind_gust;
  s.wind_frequency = x->wind_frequency;
  s.weight = x->weight;
  s.enabled = x->enabled;
  return entry_settings(ch->springs, e, s);
}

static void remove_colliders(tress_client *c, replica_springs *sp) {
  for (uint32_t i = 0; i < sp->collider_id_count; i++) tress_collider_destroy(c->sim, sp->collider_ids[i]);
  sp->collider_id_count = 0;
}

/* Adds every collider of sp to the sim, or none: on a refusal the ones added are removed again
 * and the refusal is reported (what names the outcome for the log). */
static bool add_colliders(tress_client *c, const replica_character *ch, replica_springs *sp, const char *what) {
  const tress_wire_springs *w = &sp->section;
  sp->collider_id_count = 0;
  for (uint32_t i = 0; i < w->collider_count; i++) {
    const tress_wire_collider *wc = &w->colliders[i];
    tress_collider_def d = tress_default_collider_def();
    d.shape = wc->shape == TRESS_COLLIDER_CAPSULE ? TRESS_COLLIDER_CAPSULE : TRESS_COLLIDER_SPHERE;
    d.attach = wc->attach[0] ? find_in_character(c, ch, wc->attach) : (tress_id){0};
    memcpy(d.offset, wc->offset, sizeof d.offset);
    memcpy(d.tail, d.shape == TRESS_COLLIDER_CAPSULE ? wc->tail : wc->offset, sizeof d.tail);
    d.radius = wc->radius;
    sp->collider_ids[i] = (tress_collider_id){0};
    sp->collider_id_count = i + 1;
    if (wc->attach[0] && tress_id_is_null(d.attach)) {
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: collider %u: no part or bone named '%s'",
                           ch->id, i, wc->attach);
      continue;
    }
    tress_result r = tress_sim_create_collider(c->sim, &d, &sp->collider_ids[i]);
    if (r != TRESS_OK) {
      remove_colliders(c, sp);
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                           "character %u: springs %s: the sim refused collider %u of %u: %s", ch->id, what, i,
                           w->collider_count, tress_result_name(r));
      return false;
    }
  }
  return true;
}

/* The chains an entry's limits may land on, the joint values they keep (the chain's), and
 * whether the limits go on (or the joints are given back to their chain). */
typedef struct limit_target {
  tress_sim *sim;
  const tress_handle_id *handles;
  uint32_t handle_count;
  tress_joint_settings joint;
  bool clear;
} limit_target;

/* Whichever of the target's chains holds the bone takes it; false when none does. */
static bool limit_put(const limit_target *t, tress_id bone, const tress_joint_limit *limit) {
  tress_joint_settings j = t->joint;
  j.limit = *limit;
  for (uint32_t i = 0; i < t->handle_count; i++)
    if (tress_handle_set_joint_settings(t->sim, t->handles[i], bone, t->clear ? NULL : &j) == TRESS_OK) return true;
  return false;
}

typedef struct limit_walk {
  const limit_target *target;
  const tress_joint_limit *limit;
} limit_walk;

static bool limit_visit(tress_scene *scene, tress_id id, void *user) {
  limit_walk *w = user;
  /* a bone no chain of the target holds is refused by the sim and skipped */
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE) (void)limit_put(w->target, id, w->limit);
  return true;
}

/* Entry e's limits from its root bone down: the chain limit on every bone, then each joint limit
 * on its bone (a name that no chain of the target holds is reported once, when put on). */
static void limit_entry(tress_client *c, const replica_character *ch, tress_id root, const tress_wire_spring_chain *e,
                        const limit_target *t) {
  if (e->limit.kind != TRESS_LIMIT_NONE) {
    limit_walk w = {t, &e->limit};
    limit_visit(c->scene, root, &w);
    tress_instance_visit_descendants(c->scene, root, limit_visit, &w);
  }
  for (uint32_t k = 0; k < e->joint_limit_count; k++) {
    const tress_wire_joint_limit *j = &e->joint_limits[k];
    tress_id bone = find_in_character(c, ch, j->bone);
    bool put = !tress_id_is_null(bone) && tress_instance_get_kind(c->scene, bone) == TRESS_KIND_BONE &&
               limit_put(t, bone, &j->limit);
    if (!put && !t->clear)
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                           "character %u: spring chain '%s': joint limit on '%s' skipped: no bone of that name "
                           "swings with the chain",
                           ch->id, e->root, j->bone);
  }
}

static bool entry_has_limits(const tress_wire_spring_chain *e) {
  return e->limit.kind != TRESS_LIMIT_NONE || e->joint_limit_count > 0;
}

/* The limits of sp's entries whose roots swing with the character's own chains (rigged or
 * pre-skinned): put on those chains' joints, or (clear) given back to them. */
static void limit_character_chains(tress_client *c, const replica_character *ch, const replica_springs *sp,
                                   bool clear) {
  tress_chain_settings cs = tress__springs_settings(ch, &ch->bind.chain_settings);
  limit_target t = {c->sim, ch->handles, ch->handle_count, tress_chain_settings_get_joint(&cs), clear};
  for (uint32_t i = 0; i < sp->section.chain_count; i++) {
    const tress_wire_spring_chain *e = &sp->section.chains[i];
    if (!sp->on_character_chain[i] || !entry_has_limits(e)) continue;
    tress_id bone = find_in_character(c, ch, e->root);
    if (!tress_id_is_null(bone)) limit_entry(c, ch, bone, e, &t);
  }
}

void tress__springs_retune(tress_client *c, replica_character *ch) {
  if (ch->bound && ch->springs) limit_character_chains(c, ch, ch->springs, false);
}

/* The section's named chains, from their root bones (sp's colliders already in the sim). */
static void bind_named_chains(tress_client *c, const replica_character *ch, replica_springs *sp) {
  sp->spring_handle_count = 0;
  for (uint32_t i = 0; i < sp->section.chain_count; i++) {
    const tress_wire_spring_chain *e = &sp->section.chains[i];
    sp->on_character_chain[i] = false;
    if (!e->root[0]) continue;
    tress_id bone = find_in_character(c, ch, e->root);
    if (tress_id_is_null(bone) || tress_instance_get_kind(c->scene, bone) != TRESS_KIND_BONE) {
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: spring chain: no bone named '%s'", ch->id,
                           e->root);
      continue;
    }
    if (tress_bone_is_simulated(c->scene, bone)) {
      /* a rigged accessory's chain has it (PROTOCOL.md 7.1): say so, or the entry's tuning
       * silently does nothing; its limits still go on those joints (limit_character_chains) */
      sp->on_character_chain[i] = true;
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING,
                           "character %u: spring chain '%s' skipped: its bones already swing with a rigged chain "
                           "(tune those through BIND's chain settings and the default entry)%s",
                           ch->id, e->root, entry_has_limits(e) ? "; its rotation limits are put on that chain" : "");
      continue;
    }
    tress_chain_settings s = entry_settings(sp, e, e->settings);
    tress_handle_id h;
    tress_result r = tress_sim_bind_bone_chain(c->sim, bone, &s, &h);
    if (r == TRESS_OK) {
      sp->spring_handles[sp->spring_handle_count++] = h;
      limit_target t = {c->sim, &h, 1, tress_chain_settings_get_joint(&s), false};
      limit_entry(c, ch, bone, e, &t);
    } else
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: spring chain '%s': %s", ch->id, e->root,
                           tress_result_name(r));
  }
}

static void release(tress_client *c, replica_springs *sp) {
  for (uint32_t i = 0; i < sp->spring_handle_count; i++)
    if (tress_handle_is_valid(c->sim, sp->spring_handles[i])) tress_handle_destroy(c->sim, sp->spring_handles[i]);
  sp->spring_handle_count = 0;
  remove_colliders(c, sp);
}

void tress__springs_apply(tress_client *c, replica_character *ch) {
  if (!ch->springs) return;
  if (!add_colliders(c, ch, ch->springs, "not applied, bound without them")) {
    tress__springs_free(ch);
    return;
  }
  /* the default entry on every chain the bind made (pendulums refuse chain settings) */
  if (default_entry(ch->springs)) {
    tress_chain_settings s = tress__springs_settings(ch, &ch->bind.chain_settings);
    for (uint32_t i = 0; i < ch->handle_count; i++) tress_handle_set_chain_settings(c->sim, ch->handles[i], &s);
  }
  bind_named_chains(c, ch, ch->springs);
  limit_character_chains(c, ch, ch->springs, false);
}

void tress__springs_update(tress_client *c, replica_character *ch, replica_springs *next) {
  replica_springs *old = ch->springs;
  if (!ch->bound) {
    /* nothing of the old section is in the sim (it goes in with the bind) */
    free(old);
    ch->springs = next;
    return;
  }
  if (!old && !next) return;
  if (old && next && tress_wire_springs_is_equal(&old->section, &next->section)) {
    free(next); /* the same section: keep its colliders and chains, ids and all */
    return;
  }
  if (next && !add_colliders(c, ch, next, "update refused, the previous springs stay")) {
    free(next);
    return;
  }
  /* next is whole in the sim: the old section's chains and colliders go (its limits on the
   * character's chains with them), next's chains come */
  if (old) limit_character_chains(c, ch, old, true);
  ch->springs = next;
  if (old) release(c, old);
  free(old);
  if (next) {
    bind_named_chains(c, ch, next);
    limit_character_chains(c, ch, next, false);
  }
}

void tress__springs_release(tress_client *c, replica_character *ch) {
  if (ch->springs) release(c, ch->springs);
}

uint32_t tress_client_get_colliders(const tress_client *c, uint32_t character_id, tress_collider_def *defs,
                                tress_collider_world *worlds, uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch || !ch->springs) return 0;
  const replica_springs *sp = ch->springs;
  uint32_t n = 0;
  for (uint32_t i = 0; i < sp->collider_id_count; i++) {
    tress_collider_def d;
    tress_collider_world w;
    if (tress_collider_get_def(c->sim, sp->collider_ids[i], &d) != TRESS_OK) continue;
    if (tress_collider_get_world(c->sim, sp->collider_ids[i], &w) != TRESS_OK) continue;
    if (n < max) {
      if (defs) defs[n] = d;
      if (worlds) worlds[n] = w;
    }
    n++;
  }
  return n;
}

uint32_t tress_client_get_collider_ids(const tress_client *c, uint32_t character_id, tress_collider_id *out,
                                   uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch || !ch->springs) return 0;
  const replica_springs *sp = ch->springs;
  uint32_t n = 0;
  for (uint32_t i = 0; i < sp->collider_id_count; i++) {
    if (!tress_collider_is_valid(c->sim, sp->collider_ids[i])) continue;
    if (out && n < max) out[n] = sp->collider_ids[i];
    n++;
  }
  return n;
}
