/* pendulum.c - accessory pendulums: a boneless accessory swung as one verlet bob that steers the
 * joint holding it on.
 *
 * Most catalog hair has no bones, so an accessory is modelled as a pendulum hinged at the joint
 * that holds its Handle on (the seed's "pendulum model", steps 1-5):
 *   1. the worn pose is J * inverse(original handle-side offset), where J is the joint's current
 *      world frame taken from the body side, so the accessory follows animation of the body part;
 *   2. the rest lever runs from the hinge (J's position) to the worn handle centre; a lever under
 *      0.1 units gets a synthetic 0.75-unit lever down the handle's own up vector, i.e. the rest
 *      bob hangs at hinge - 0.75 * UpVector (both scaled by units_per_stud);
 *   3. the bob integrates with the chain nodes' verlet step (damping, gravity * gravity_scale,
 *      wind * wind_scale, stiffness toward the rest bob), then goes back to the lever length;
 *   4. the swing angle from the rest lever is clamped to max_swing_degrees (every substep, so
 *      the bob's state never wanders past the clamp, and again on output);
 *   5. the worn pose rotates about the hinge by the clamped swing and the handle-side offset is
 *      written so the joint itself holds the swung pose; the handle part then follows through the
 *      joint, as an engine's joint solver would place it.
 *
 * Steering, by joint kind (the seed's table):
 *   Weld / Motor6D   the handle-side offset (c0 when the handle is part0, else c1) rotates; only
 *                    its rotation changes, because the hinge is the joint origin itself.
 *   RigidConstraint  the handle-side attachment's cframe rotates; nothing swapped or disabled.
 *   WeldConstraint   it has no offset to rotate, so an equivalent Weld named "CKSwayWeld" takes
 *                    its place (same part0/part1, c0/c1 chosen so part0*c0 == part1*c1 holds at
 *                    the current poses) and the constraint is disabled. The weld's frame sits at
 *                    the handle's first Attachment (where an accessory is worn), or at the handle
 *                    centre when the handle has none (which then swings on the synthetic lever).
 *
 * Which joint: the first enabled joint that holds the handle, searched (pre-order) under the
 * handle, then under the accessory, then anywhere in the nearest enclosing model. A joint that
 * names the handle but whose other side is destroyed refuses the bind with TRESS_ERR_STALE_ID when
 * no usable joint exists; none at all is TRESS_ERR_NOTHING_TO_BIND; a non-finite offset or pose
 * is TRESS_ERR_INVALID_ARGUMENT. Every refusal leaves the scene untouched.
 *
 * Scale (sim.h "Scale"): the joint offsets are the game's geometry, measured in world units at
 * bind, when the handle's composed scale is scale_bind; the lever (and so the handle-side offset's
 * position, which the pendulum writes) follows scale / scale_bind after that. What the pendulum
 * measures in its own units follows the composed scale itself: the minimum and synthetic
 * levers, gravity and wind, the teleport distance. A non-uniform scale on the way is refused at
 * bind (TRESS_ERR_NON_UNIFORM_SCALE); one that appears later holds the accessory at its worn pose
 * until the scale is uniform again (tress_handle_get_status reports it).
 *
 * Invariants:
 * - the original offsets are captured once, at the first bind: a second bind returns the existing
 *   handle, so a swung offset is never captured as rest;
 * - destroy restores both Weld/Motor6D offsets (or the attachment cframe) bit for bit, or puts the
 *   handle back at its worn pose, destroys CKSwayWeld and enables the constraint again;
 * - a joint destroyed elsewhere (listener) or left pointing at destroyed instances (checked every
 *   frame) destroys the handle;
 * - records live in one growable array indexed by the handle's slot; a frame never allocates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_slots.h"
#include "sim_internal.h"

#define LEVER_MIN_STUDS 0.1f
#define SYNTHETIC_LEVER_STUDS 0.75f
#define SWAY_WELD_NAME "CKSwayWeld"

typedef struct pendulum {
  bool used;
  bool fresh;            /* bound since the last frame: the bob starts at rest */
  tress_handle_id handle;
  tress_id accessory, handle_part;
  tress_id joint;        /* the joint written: Weld/Motor6D, RigidConstraint, or CKSwayWeld */
  tress_joint_kind kind; /* of `joint` (CKSwayWeld is a Weld) */
  bool handle_is_side0;  /* handle is part0 (writes c0) or attachment0's parent */
  tress_id handle_attachment, body_attachment; /* RigidConstraint */
  tress_id constraint;   /* the WeldConstraint swapped out, or null */
  tress_xform orig_constraint_offset; /* its captured offset, restored bit for bit */
  tress_xform orig_c0, orig_c1; /* Weld/Motor6D (or CKSwayWeld as created) at first bind */
  tress_xform orig_attachment;  /* RigidConstraint: handle-side attachment cframe at first bind */
  tress_xform orig_offset;      /* the handle-side offset at first bind */
  float lever_local[3];         /* rest lever from the hinge, in the joint frame */
  float lever_len;
  tress_accessory_settings settings;
  float cos_max, sin_max;       /* of max_swing_degrees */
  float scale, scale_bind;      /* the handle's composed scale now and at bind (see "Scale") */
  bool scale_refused;           /* a non-uniform scale holds it at its worn pose */
  float bob[3], prev[3];        /* verlet state, world */
  float hinge_last[3], rest_last[3]; /* last frame's hinge and rest bob: interpolation start */
  tress_connection on_joint, on_constraint;
  uint8_t outcome;              /* this frame's (OUTCOME_*), from the parallel pass */
  tress_xform offset;           /* OUTCOME_WRITE: the swung handle-side offset */
} pendulum;

/* What a pendulum's step decided, acted on in slot order after every step ran. */
enum { OUTCOME_NONE, OUTCOME_LOST, OUTCOME_HELD, OUTCOME_ASLEEP, OUTCOME_WRITE, OUTCOME_SNAPPED };

struct tress_pendulums {
  pendulum *items;
  uint32_t count, cap;
  uint64_t scale_epoch; /* the scene's scale epoch the records' scales were read at */
};

size_t tress__pendulums_memory_bytes(const struct tress_pendulums *p) {
  return sizeof *p + (size_t)p->cap * sizeof(pendulum);
}

struct tress_pendulums *tress__pendulums_create(void) { return calloc(1, sizeof(struct tress_pendulums)); }

void tress__pendulums_destroy(struct tress_pendulums *p) {
  if (!p) return;
  free(p->items);
  free(p);
}

/* ---- settings ---- */

static bool settings_valid(const tress_accessory_settings *s) {
  return !s || (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) &&
                isfinite(s->wind_scale) && isfinite(s->max_swing_degrees));
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* NaN/inf are refused before this; ranges clamp: damping and stiffness to [0, 1], the swing to
 * [0, 180] degrees. The scales are free (negative wind_scale blows the other way). */
static tress_accessory_settings sanitize(const tress_accessory_settings *in) {
  tress_accessory_settings s = in ? *in : tress_default_accessory_settings();
  s.damping = clampf(s.damping, 0.0f, 1.0f);
  s.stiffness = clampf(s.stiffness, 0.0f, 1.0f);
  s.max_swing_degrees = clampf(s.max_swing_degrees, 0.0f, 180.0f);
  return s;
}

static void apply_settings(pendulum *p, const tress_accessory_settings *in) {
  p->settings = sanitize(in);
  float rad = p->settings.max_swing_degrees * (float)(M_PI / 180.0);
  p->cos_max = cosf(rad);
  p->sin_max = sinf(rad);
}

/* ---- joints ---- */

static bool is_kind(const tress_scene *scene, tress_id id, tress_kind kind) {
  return tress_instance_is_valid(scene, id) && tress_instance_get_kind(scene, id) == kind;
}

/* What the search found: a joint holding the handle, and which side is the handle's. */
typedef struct joint_pick {
  tress_id joint;
  tress_joint_kind kind;
  bool handle_is_side0;
  tress_id body_part;         /* Weld kinds */
  tress_id handle_attachment; /* RigidConstraint */
  tress_id body_attachment;
} joint_pick;

typedef enum { HOLDS_NOT = 0, HOLDS_YES, HOLDS_STALE } holds_result;

/* Whether `joint` holds `handle` on, and through which side. HOLDS_STALE: it names the handle but
 * its other side is gone. Disabled joints hold nothing. */
static holds_result joint_holds(const tress_scene *scene, tress_id joint, tress_id handle, joint_pick *out) {
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, joint, &j_copy) ? &j_copy : NULL;
  if (!j || !j->enabled) return HOLDS_NOT;
  memset(out, 0, sizeof *out);
  out->joint = joint;
  out->kind = j->kind;
  switch (j->kind) {
  case TRESS_JOINT_WELD:
  case TRESS_JOINT_MOTOR6D:
  case TRESS_JOINT_WELD_CONSTRAINT: {
    tress_id other;
    if (tress_id_is_equal(j->part1, handle)) {
      out->handle_is_side0 = false;
      other = j->part0;
    } else if (tress_id_is_equal(j->part0, handle)) {
      out->handle_is_side0 = true;
      other = j->part1;
    } else {
      return HOLDS_NOT;
    }
    if (tress_id_is_equal(other, handle)) return HOLDS_NOT;
    if (!is_kind(scene, other, TRESS_KIND_PART)) return HOLDS_STALE;
    out->body_part = other;
    return HOLDS_YES;
  }
  case TRESS_JOINT_RIGID_CONSTRAINT: {
    tress_id a0 = j->attachment0, a1 = j->attachment1;
    bool a0_on = is_kind(scene, a0, TRESS_KIND_ATTACHMENT) && tress_id_is_equal(tress_instance_get_parent(scene, a0), handle);
    bool a1_on = is_kind(scene, a1, TRESS_KIND_ATTACHMENT) && tress_id_is_equal(tress_instance_get_parent(scene, a1), handle);
    if (a1_on) {
      out->handle_is_side0 = false;
      out->handle_attachment = a1;
      out->body_attachment = a0;
    } else if (a0_on) {
      out->handle_is_side0 = true;
      out->handle_attachment = a0;
      out->body_attachment = a1;
    } else {
      return HOLDS_NOT;
    }
    if (tress_id_is_equal(out->body_attachment, out->handle_attachment)) return HOLDS_NOT;
    if (!is_kind(scene, out->body_attachment, TRESS_KIND_ATTACHMENT)) return HOLDS_STALE;
    tress_id body = tress_instance_get_parent(scene, out->body_attachment);
    if (!is_kind(scene, body, TRESS_KIND_PART) || tress_id_is_equal(body, handle)) return HOLDS_STALE;
    out->body_part = body;
    return HOLDS_YES;
  }
  }
  return HOLDS_NOT;
}

typedef struct joint_search {
  tress_id handle;
  joint_pick pick;
  bool found, saw_stale;
  bool out_of_memory; /* a walk could not list its subtree */
} joint_search;

static bool visit_joint(tress_scene *scene, tress_id id, void *user) {
  joint_search *s = user;
  if (tress_instance_get_kind(scene, id) != TRESS_KIND_JOINT) return true;
  joint_pick pick;
  holds_result r = joint_holds(scene, id, s->handle, &pick);
  if (r == HOLDS_STALE) s->saw_stale = true;
  if (r != HOLDS_YES) return true;
  s->pick = pick;
  s->found = true;
  return false;
}

static tress_id enclosing_model(const tress_scene *scene, tress_id id) {
  for (tress_id p = tress_instance_get_parent(scene, id); !tress_id_is_null(p); p = tress_instance_get_parent(scene, p))
    if (tress_instance_get_kind(scene, p) == TRESS_KIND_MODEL) return p;
  return (tress_id){0};
}

/* Search order: under the handle, then under the accessory, then the nearest enclosing model. */
static void find_joint(tress_scene *scene, tress_id accessory, tress_id handle, joint_search *s) {
  memset(s, 0, sizeof *s);
  s->handle = handle;
  tress_id model = enclosing_model(scene, accessory);
  const tress_id where[3] = {handle, accessory, model};
  /* nearest first: a walk that cannot run stops the search (a farther joint is not the one) */
  for (int k = 0; k < 3 && !s->found && !s->out_of_memory && !tress_id_is_null(where[k]); k++)
    s->out_of_memory = tress_instance_visit_descendants(scene, where[k], visit_joint, s) == TRESS_ERR_OUT_OF_MEMORY;
}

/* ---- per-record scene access ---- */

static tress_xform handle_side_offset(const tress_scene *scene, const pendulum *p) {
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT) return tress_attachment_get_cframe(scene, p->handle_attachment);
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, p->joint, &j_copy) ? &j_copy : NULL;
  if (!j) return p->orig_offset;
  return p->handle_is_side0 ? j->c0 : j->c1;
}

/* The joint's world frame from the body side, this frame. False when the joint, its parts or its
 * attachments are gone or no longer hold this handle (the handle must then destroy itself). */
static bool joint_world(const tress_scene *scene, const pendulum *p, tress_xform *out) {
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, p->joint, &j_copy) ? &j_copy : NULL;
  if (!j || !is_kind(scene, p->handle_part, TRESS_KIND_PART)) return false;
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT) {
    tress_id ha = p->handle_is_side0 ? j->attachment0 : j->attachment1;
    tress_id ba = p->handle_is_side0 ? j->attachment1 : j->attachment0;
    if (!tress_id_is_equal(ha, p->handle_attachment) || !tress_id_is_equal(ba, p->body_attachment)) return false;
    if (!is_kind(scene, ha, TRESS_KIND_ATTACHMENT) || !is_kind(scene, ba, TRESS_KIND_ATTACHMENT)) return false;
    if (!tress_id_is_equal(tress_instance_get_parent(scene, ha), p->handle_part)) return false;
    if (!is_kind(scene, tress_instance_get_parent(scene, ba), TRESS_KIND_PART)) return false;
    *out = tress_attachment_get_world(scene, ba);
    return true;
  }
  tress_id hp = p->handle_is_side0 ? j->part0 : j->part1;
  tress_id bp = p->handle_is_side0 ? j->part1 : j->part0;
  if (!tress_id_is_equal(hp, p->handle_part) || !is_kind(scene, bp, TRESS_KIND_PART)) return false;
  *out = tress_xform_mul(tress_part_get_cframe(scene, bp), p->handle_is_side0 ? j->c1 : j->c0);
  return true;
}

/* Whether the joint still names the handle on the recorded side (safe to write back into). */
static bool joint_still_ours(const tress_scene *scene, const pendulum *p) {
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, p->joint, &j_copy) ? &j_copy : NULL;
  if (!j) return false;
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT)
    return tress_id_is_equal(p->handle_is_side0 ? j->attachment0 : j->attachment1, p->handle_attachment);
  return tress_id_is_equal(p->handle_is_side0 ? j->part0 : j->part1, p->handle_part);
}

static void write_offset(tress_scene *scene, const pendulum *p, tress_xform off) {
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT) {
    tress_attachment_set_cframe(scene, p->handle_attachment, off);
    return;
  }
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, p->joint, &j_copy) ? &j_copy : NULL;
  if (!j) return;
  if (p->handle_is_side0) tress_joint_set_offsets(scene, p->joint, off, j->c1);
  else tress_joint_set_offsets(scene, p->joint, j->c0, off);
}

/* Moves the handle part where the joint now holds it (either side). */
static void place_handle(tress_scene *scene, const pendulum *p) { tress_joint_place(scene, p->joint, p->handle_part); }

/* ---- listeners ---- */

/* The written joint (or the swapped-out constraint) was destroyed elsewhere: unbind. */
static void on_joint_event(tress_scene *scene, tress_id instance, tress_event event, void *user) {
  (void)scene;
  if (event != TRESS_EVENT_DESTROYING) return;
  tress_sim *sim = user;
  struct tress_pendulums *P = sim->pendulums;
  for (uint32_t i = 0; i < P->count; i++) {
    pendulum *p = &P->items[i];
    if (p->used && (tress_id_is_equal(p->joint, instance) || tress_id_is_equal(p->constraint, instance)))
      tress_handle_destroy(sim, p->handle);
  }
}

/* ---- bind ---- */

static uint32_t record_new(struct tress_pendulums *P) {
  for (uint32_t i = 0; i < P->count; i++)
    if (!P->items[i].used) return i;
  if (P->count == P->cap) {
    uint32_t cap = P->cap ? P->cap * 2 : 16;
    pendulum *b = realloc(P->items, cap * sizeof *b);
    if (!b) return UINT32_MAX;
    P->items = b;
    P->cap = cap;
  }
  memset(&P->items[P->count], 0, sizeof(pendulum));
  return P->count++;
}

/* The handle's first Attachment child: where an accessory is worn. */
static tress_id first_attachment(const tress_scene *scene, tress_id part) {
  return tress_instance_find_child_of_kind(scene, part, TRESS_KIND_ATTACHMENT);
}

/* Every pose and offset the pendulum will read must be finite before anything is written. */
static bool pick_finite(const tress_scene *scene, const joint_pick *pick, tress_id handle) {
  if (!tress_xform_is_finite(tress_part_get_cframe(scene, handle))) return false;
  if (!tress_xform_is_finite(tress_part_get_cframe(scene, pick->body_part))) return false;
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, pick->joint, &j_copy) ? &j_copy : NULL;
  switch (pick->kind) {
  case TRESS_JOINT_WELD:
  case TRESS_JOINT_MOTOR6D: return tress_xform_is_finite(j->c0) && tress_xform_is_finite(j->c1);
  case TRESS_JOINT_RIGID_CONSTRAINT:
    return tress_xform_is_finite(tress_attachment_get_cframe(scene, pick->handle_attachment)) &&
           tress_xform_is_finite(tress_attachment_get_cframe(scene, pick->body_attachment));
  case TRESS_JOINT_WELD_CONSTRAINT: {
    tress_id att = first_attachment(scene, handle);
    return tress_id_is_null(att) || tress_xform_is_finite(tress_attachment_get_cframe(scene, att));
  }
  }
  return false;
}

/* Swaps a WeldConstraint for an equivalent Weld named CKSwayWeld and disables the constraint.
 * Returns the weld, or null when it could not be created (nothing changed then). */
static tress_id swap_weld_constraint(tress_scene *scene, const joint_pick *pick, tress_id handle) {
  tress_joint wc_copy;
  const tress_joint *wc = tress_joint_get_def(scene, pick->joint, &wc_copy) ? &wc_copy : NULL;
  tress_id parent = tress_instance_get_parent(scene, pick->joint);
  if (tress_id_is_null(parent)) parent = handle;
  tress_id att = first_attachment(scene, handle);
  tress_xform handle_side = tress_id_is_null(att) ? tress_xform_identity() : tress_attachment_get_cframe(scene, att);
  tress_xform hinge = tress_xform_mul(tress_part_get_cframe(scene, handle), handle_side);
  tress_xform body_side = tress_xform_inv_mul(tress_part_get_cframe(scene, pick->body_part), hinge);
  tress_joint def;
  memset(&def, 0, sizeof def);
  def.kind = TRESS_JOINT_WELD;
  def.part0 = wc->part0;
  def.part1 = wc->part1;
  def.c0 = pick->handle_is_side0 ? handle_side : body_side;
  def.c1 = pick->handle_is_side0 ? body_side : handle_side;
  def.enabled = true;
  tress_instance_def weld_def = tress_default_instance_def();
  weld_def.kind = TRESS_KIND_JOINT;
  weld_def.name = SWAY_WELD_NAME;
  weld_def.parent = parent;
  tress_id weld;
  if (tress_scene_create_instance(scene, &weld_def, &weld) != TRESS_OK) return weld; /* null */
  tress_joint_set_def(scene, weld, &def);
  tress_joint_set_enabled(scene, pick->joint, false);
  return weld;
}

static void undo_swap(tress_scene *scene, tress_id weld, tress_id constraint) {
  tress_instance_destroy(scene, weld);
  tress_joint_set_enabled(scene, constraint, true);
}

tress_result tress_sim_bind_accessory(tress_sim *sim, tress_id accessory, const tress_accessory_settings *settings,
                                      tress_handle_id *out) {
  if (out) *out = (tress_handle_id){0};
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  tress_scene *scene = sim->scene;
  if (!tress_instance_is_valid(scene, accessory)) return TRESS_ERR_STALE_ID;
  if (tress_instance_get_kind(scene, accessory) != TRESS_KIND_ACCESSORY) return TRESS_ERR_INVALID_ARGUMENT;
  if (!settings_valid(settings)) return TRESS_ERR_INVALID_ARGUMENT;
  /* Already bound: the existing handle, never a second capture of a swung offset as rest. */
  tress_handle_id existing = tress__handle_find(sim, TRESS_HANDLE_ACCESSORY, accessory);
  if (!tress_handle_is_null(existing)) {
    if (out) *out = existing;
    return TRESS_OK;
  }
  tress_id handle = tress_accessory_get_handle(scene, accessory);
  if (tress_id_is_null(handle)) return TRESS_ERR_NOTHING_TO_BIND;
  joint_search search;
  find_joint(scene, accessory, handle, &search);
  if (search.out_of_memory) return TRESS_ERR_OUT_OF_MEMORY;
  if (!search.found) return search.saw_stale ? TRESS_ERR_STALE_ID : TRESS_ERR_NOTHING_TO_BIND;
  joint_pick pick = search.pick;
  if (!pick_finite(scene, &pick, handle)) return TRESS_ERR_INVALID_ARGUMENT;
  float scale[3];
  if (!tress_instance_get_world_scale(scene, handle, scale)) return TRESS_ERR_NON_UNIFORM_SCALE;

  struct tress_pendulums *P = sim->pendulums;
  uint32_t slot = record_new(P);
  if (slot == UINT32_MAX) return TRESS_ERR_OUT_OF_MEMORY;

  /* Scene changes last, once every check has passed, so a refusal changes nothing. */
  tress_id weld = (tress_id){0}, constraint = (tress_id){0};
  if (pick.kind == TRESS_JOINT_WELD_CONSTRAINT) {
    constraint = pick.joint;
    weld = swap_weld_constraint(scene, &pick, handle);
    if (tress_id_is_null(weld)) return TRESS_ERR_OUT_OF_MEMORY;
    pick.joint = weld;
    pick.kind = TRESS_JOINT_WELD;
  }
  tress_handle_id h = tress__handle_alloc(sim, TRESS_HANDLE_ACCESSORY, accessory, slot);
  if (tress_handle_is_null(h)) {
    if (!tress_id_is_null(weld)) undo_swap(scene, weld, constraint);
    return TRESS_ERR_OUT_OF_MEMORY;
  }

  pendulum *p = &P->items[slot]; /* after every call that could grow the array */
  memset(p, 0, sizeof *p);
  p->used = true;
  p->fresh = true;
  p->handle = h;
  p->accessory = accessory;
  p->handle_part = handle;
  p->joint = pick.joint;
  p->kind = pick.kind;
  p->handle_is_side0 = pick.handle_is_side0;
  p->handle_attachment = pick.handle_attachment;
  p->body_attachment = pick.body_attachment;
  p->constraint = constraint;
  if (!tress_id_is_null(constraint)) p->orig_constraint_offset = tress_joint_get_weld_constraint_offset(scene, constraint);
  tress_joint j_copy;
  const tress_joint *j = tress_joint_get_def(scene, p->joint, &j_copy) ? &j_copy : NULL;
  p->orig_c0 = j->c0;
  p->orig_c1 = j->c1;
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT) p->orig_attachment = tress_attachment_get_cframe(scene, p->handle_attachment);
  p->orig_offset = handle_side_offset(scene, p);
  apply_settings(p, settings);
  p->scale = p->scale_bind = scale[0];

  /* Step 2 at bind: the worn handle seen from the joint frame is inverse(offset), so the lever
   * is fixed in that frame; only its world placement follows the body. */
  float ups = sim->def.units_per_stud * p->scale_bind; /* the pendulum's own lengths, at its scale */
  tress_xform worn_local = tress_xform_inverse(p->orig_offset);
  float len = sqrtf(worn_local.p[0] * worn_local.p[0] + worn_local.p[1] * worn_local.p[1] +
                    worn_local.p[2] * worn_local.p[2]);
  if (len < LEVER_MIN_STUDS * ups) {
    const float up[3] = {0.0f, 1.0f, 0.0f};
    float handle_up[3];
    tress_quat_rotate(worn_local.q, up, handle_up);
    len = SYNTHETIC_LEVER_STUDS * ups;
    for (int k = 0; k < 3; k++) p->lever_local[k] = -handle_up[k] * len;
  } else {
    memcpy(p->lever_local, worn_local.p, sizeof p->lever_local);
  }
  p->lever_len = len;

  p->on_joint = tress_instance_connect(scene, p->joint, on_joint_event, sim);
  if (!tress_id_is_null(constraint)) p->on_constraint = tress_instance_connect(scene, constraint, on_joint_event, sim);
  if (out) *out = h;
  return TRESS_OK;
}

void tress__pendulums_unbind(tress_sim *sim, tress_handle *h) {
  struct tress_pendulums *P = sim->pendulums;
  if (h->slot >= P->count || !P->items[h->slot].used) return;
  pendulum *p = &P->items[h->slot];
  tress_scene *scene = sim->scene;
  /* Unused first: the writes below may fire listeners that scan the records. */
  p->used = false;
  tress_connection_disconnect(scene, p->on_joint);
  tress_connection_disconnect(scene, p->on_constraint);
  if (p->kind == TRESS_JOINT_RIGID_CONSTRAINT) {
    if (is_kind(scene, p->handle_attachment, TRESS_KIND_ATTACHMENT))
      tress_attachment_set_cframe(scene, p->handle_attachment, p->orig_attachment);
    if (joint_still_ours(scene, p)) place_handle(scene, p);
  } else if (joint_still_ours(scene, p)) {
    tress_joint_set_offsets(scene, p->joint, p->orig_c0, p->orig_c1);
    place_handle(scene, p);
  }
  if (!tress_id_is_null(p->constraint)) {
    /* The handle is back at its worn pose, so the re-enabled constraint captures the worn
     * offset, not a swung one. */
    tress_instance_destroy(scene, p->joint);
    tress_joint c_copy;
    const tress_joint *c = tress_joint_get_def(scene, p->constraint, &c_copy) ? &c_copy : NULL;
    if (c && c->kind == TRESS_JOINT_WELD_CONSTRAINT) {
      tress_joint_set_enabled(scene, p->constraint, true);
      tress_joint_set_weld_constraint_offset(scene, p->constraint, p->orig_constraint_offset);
    }
  }
}

tress_result tress_handle_set_accessory_settings(tress_sim *sim, tress_handle_id id, const tress_accessory_settings *s) {
  tress_handle *h;
  tress_result found = tress__handle_lookup(sim, id, &h);
  if (found != TRESS_OK) return found;
  if (h->kind != TRESS_HANDLE_ACCESSORY || !s || !settings_valid(s)) return TRESS_ERR_INVALID_ARGUMENT;
  apply_settings(&sim->pendulums->items[h->slot], s);
  return TRESS_OK;
}

/* ---- the frame ---- */

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Keeps the direction of v within the clamp cone around the unit rest direction and sets its
 * length to len (step 4; also restores the lever length, step 3's last part). Writes the unit
 * direction to dir. */
static void clamp_swing(const pendulum *p, const float rest_dir[3], float v[3], float len, float dir[3]) {
  float vl = sqrtf(dot3(v, v));
  if (!(vl > 1e-12f)) {
    memcpy(dir, rest_dir, 3 * sizeof(float));
  } else {
    for (int k = 0; k < 3; k++) dir[k] = v[k] / vl;
    float c = dot3(rest_dir, dir);
    if (c < p->cos_max) {
      float perp[3] = {dir[0] - rest_dir[0] * c, dir[1] - rest_dir[1] * c, dir[2] - rest_dir[2] * c};
      float pl = sqrtf(dot3(perp, perp));
      if (pl < 1e-6f) {
        /* straight opposite: any direction perpendicular to rest */
        float ax[3] = {0.0f, 0.0f, 0.0f};
        ax[fabsf(rest_dir[0]) < 0.9f ? 0 : 1] = 1.0f;
        float d = dot3(ax, rest_dir);
        for (int k = 0; k < 3; k++) perp[k] = ax[k] - rest_dir[k] * d;
        pl = sqrtf(dot3(perp, perp));
      }
      for (int k = 0; k < 3; k++) dir[k] = rest_dir[k] * p->cos_max + perp[k] / pl * p->sin_max;
    }
  }
  for (int k = 0; k < 3; k++) v[k] = dir[k] * len;
}

/* The lever follows the scale's change since bind (the offsets were measured at scale_bind). */
static float lever_ratio(const pendulum *p) { return p->scale / p->scale_bind; }
static float lever_len(const pendulum *p) { return p->lever_len * lever_ratio(p); }

static void snap(pendulum *p, const float hinge[3], const float rest[3]) {
  memcpy(p->bob, rest, sizeof p->bob);
  memcpy(p->prev, rest, sizeof p->prev);
  memcpy(p->hinge_last, hinge, sizeof p->hinge_last);
  memcpy(p->rest_last, rest, sizeof p->rest_last);
}

/* One verlet substep of one bob (step 3 and 4) at interpolation alpha. */
static void substep(pendulum *p, const tress_frame *f, float alpha, const float hinge_now[3], const float rest_now[3]) {
  float dt2 = f->dt * f->dt;
  const tress_accessory_settings *s = &p->settings;
  float hinge[3], rest[3], next[3];
  for (int k = 0; k < 3; k++) {
    hinge[k] = p->hinge_last[k] + (hinge_now[k] - p->hinge_last[k]) * alpha;
    rest[k] = p->rest_last[k] + (rest_now[k] - p->rest_last[k]) * alpha;
    float v = (p->bob[k] - p->prev[k]) * s->damping;
    /* accelerations in units follow the scale, so the swing keeps its shape and timing */
    next[k] = p->bob[k] + v + (f->gravity[k] * s->gravity_scale + f->wind[k] * s->wind_scale) * p->scale * dt2;
    next[k] += (rest[k] - next[k]) * s->stiffness;
  }
  float rest_dir[3] = {rest[0] - hinge[0], rest[1] - hinge[1], rest[2] - hinge[2]};
  float rl = sqrtf(dot3(rest_dir, rest_dir));
  for (int k = 0; k < 3; k++) rest_dir[k] = rl > 1e-12f ? rest_dir[k] / rl : (k == 1 ? -1.0f : 0.0f);
  float v[3] = {next[0] - hinge[0], next[1] - hinge[1], next[2] - hinge[2]}, dir[3];
  clamp_swing(p, rest_dir, v, lever_len(p), dir);
  memcpy(p->prev, p->bob, sizeof p->prev);
  for (int k = 0; k < 3; k++) p->bob[k] = hinge[k] + v[k];
}

/* Step 5: rotate the worn pose about the hinge by the clamped swing R. With handle = J *
 * inverse(offset), the swung handle is R about J's origin, which is offset * (J.q^-1 R^-1 J.q):
 * the offset keeps its position and only turns. */
static tress_xform swung_offset(const pendulum *p, tress_xform J, const float swing[4]) {
  float jc[4] = {-J.q[0], -J.q[1], -J.q[2], J.q[3]};
  float rc[4] = {-swing[0], -swing[1], -swing[2], swing[3]};
  float t[4], local[4];
  tress_quat_mul(jc, rc, t);
  tress_quat_mul(t, J.q, local);
  tress_xform off = p->orig_offset;
  /* the handle sits at -R(off)^-1 off.p from the hinge: scaling off.p scales the lever */
  float ratio = lever_ratio(p);
  if (ratio != 1.0f)
    for (int k = 0; k < 3; k++) off.p[k] *= ratio;
  tress_quat_mul(p->orig_offset.q, local, off.q);
  tress_quat_normalize(off.q);
  return off;
}

/* The state scaled by ratio about the hinge, so a swing carries on at the new size. */
static void rescale_state(pendulum *p, float ratio) {
  for (int k = 0; k < 3; k++) {
    float h = p->hinge_last[k];
    p->bob[k] = h + (p->bob[k] - h) * ratio;
    p->prev[k] = h + (p->prev[k] - h) * ratio;
    p->rest_last[k] = h + (p->rest_last[k] - h) * ratio;
  }
}

/* Once per frame when some scale in the scene changed: every record's scale read again. */
static void refresh_scales(tress_scene *scene, struct tress_pendulums *P) {
  P->scale_epoch = tress__scene_scale_epoch(scene);
  for (uint32_t i = 0; i < P->count; i++) {
    pendulum *p = &P->items[i];
    if (!p->used) continue;
    float w[3];
    bool ok = tress_instance_get_world_scale(scene, p->handle_part, w) && isfinite(w[0]) && w[0] > 0.0f;
    p->scale_refused = !ok;
    if (!ok || w[0] == p->scale) continue;
    if (!p->fresh) rescale_state(p, w[0] / p->scale);
    p->scale = w[0];
  }
}

/* Held by a scale it cannot follow: the worn pose, as at bind; it starts from rest afterwards. */
static void hold_worn(tress_scene *scene, pendulum *p) {
  write_offset(scene, p, p->orig_offset);
  place_handle(scene, p);
}

/* One pendulum's frame up to its output, which it keeps (outcome, offset): it reads the scene
 * and writes only its own record, so any number of them run at once. */
static void step_pendulum(const tress_sim *sim, pendulum *p, const tress_frame *f) {
  p->outcome = OUTCOME_NONE;
  if (!p->used) return;
  tress_handle *h = tress__handle_get(sim, p->handle);
  if (!h) return;
  tress_xform J;
  if (!joint_world(sim->scene, p, &J)) {
    p->outcome = OUTCOME_LOST;
    return;
  }
  if (p->scale_refused) { /* a scale it cannot follow: held at the worn pose, on the caller's thread */
    p->outcome = OUTCOME_HELD;
    return;
  }
  bool active = h->eligible && (f->substeps > 0 || h->was_awake);
  if (!active || !tress_xform_is_finite(J)) {
    p->outcome = OUTCOME_ASLEEP;
    return;
  }
  float tele2 = f->teleport_distance * f->teleport_distance;
  /* Steps 1-2: hinge and rest bob from the joint's current frame. */
  float hinge[3] = {J.p[0], J.p[1], J.p[2]}, rest[3], lever[3];
  for (int k = 0; k < 3; k++) lever[k] = p->lever_local[k] * lever_ratio(p);
  tress_xform_point(J, lever, rest);
  float dx = hinge[0] - p->hinge_last[0], dy = hinge[1] - p->hinge_last[1], dz = hinge[2] - p->hinge_last[2];
  bool teleport = dx * dx + dy * dy + dz * dz > tele2 * p->scale * p->scale;
  if (p->fresh || !h->was_awake || teleport || !tress_vec3_is_finite(p->bob)) snap(p, hinge, rest);
  p->fresh = false;
  for (int k = 0; k < f->substeps; k++) substep(p, f, tress__frame_alpha(f, k), hinge, rest);
  /* Output against this frame's rest lever, clamped again: the last substep may sit a little
   * before the frame's end when the accumulator keeps a remainder. */
  float rest_dir[3] = {rest[0] - hinge[0], rest[1] - hinge[1], rest[2] - hinge[2]};
  float rl = sqrtf(dot3(rest_dir, rest_dir));
  for (int k = 0; k < 3; k++) rest_dir[k] /= rl;
  float v[3] = {p->bob[0] - hinge[0], p->bob[1] - hinge[1], p->bob[2] - hinge[2]}, dir[3];
  clamp_swing(p, rest_dir, v, lever_len(p), dir);
  float swing[4];
  tress_quat_from_to(rest_dir, dir, swing);
  p->offset = swung_offset(p, J, swing);
  if (tress_xform_is_finite(p->offset)) {
    p->outcome = OUTCOME_WRITE;
  } else {
    snap(p, hinge, rest);
    p->outcome = OUTCOME_SNAPPED;
  }
  memcpy(p->hinge_last, hinge, sizeof p->hinge_last);
  memcpy(p->rest_last, rest, sizeof p->rest_last);
}

typedef struct pendulums_task {
  const tress_sim *sim;
  const tress_frame *f;
} pendulums_task;

static void step_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  pendulums_task *k = context;
  pendulum *items = k->sim->pendulums->items;
  for (uint32_t i = start; i < end; i++) step_pendulum(k->sim, &items[i], k->f);
}

/* Every pendulum steps on the sim's workers, reading the scene as the chains left it; then, in
 * slot order on this thread, the outcomes: the joint writes and handle placements (scene writes
 * that fire events), and the unbinds of pendulums whose joint is gone. */
void tress__pendulums_frame(tress_sim *sim, const tress_frame *f) {
  struct tress_pendulums *P = sim->pendulums;
  if (P->scale_epoch != tress__scene_scale_epoch(sim->scene)) refresh_scales(sim->scene, P);
  pendulums_task task = {sim, f};
  tress__jobs_run(&sim->def.jobs, step_range, P->count, 16, &task);
  uint32_t awake = 0;
  for (uint32_t i = 0; i < P->count; i++) {
    pendulum *p = &P->items[i];
    uint8_t outcome = p->outcome;
    p->outcome = OUTCOME_NONE;
    if (outcome == OUTCOME_NONE) continue;
    /* the joint or what it holds was destroyed elsewhere: the seed's "a joint write throws" */
    if (outcome == OUTCOME_LOST) {
      tress_handle_destroy(sim, p->handle);
      continue;
    }
    tress_handle *h = tress__handle_get(sim, p->handle);
    if (!h) continue;
    if (outcome == OUTCOME_HELD) {
      hold_worn(sim->scene, p);
      h->was_awake = false;
      continue;
    }
    h->was_awake = outcome != OUTCOME_ASLEEP;
    if (outcome == OUTCOME_ASLEEP) continue;
    if (f->substeps > 0) awake++;
    if (outcome == OUTCOME_WRITE) {
      write_offset(sim->scene, p, p->offset);
      place_handle(sim->scene, p);
    }
  }
  tress__count_simulated(sim, awake * (uint32_t)f->substeps);
}

void tress__pendulums_reset(tress_sim *sim, const tress_handle *h) {
  struct tress_pendulums *P = sim->pendulums;
  if (h->slot >= P->count || !P->items[h->slot].used) return;
  P->items[h->slot].fresh = true; /* the next frame snaps the bob to its worn pose, no velocity */
}

bool tress__pendulums_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  struct tress_pendulums *P = sim->pendulums;
  if (h->slot >= P->count || !P->items[h->slot].used) return false;
  const pendulum *p = &P->items[h->slot];
  tress_xform J;
  if (joint_world(sim->scene, p, &J)) memcpy(out, J.p, 3 * sizeof(float));
  else memcpy(out, tress_part_get_cframe(sim->scene, p->handle_part).p, 3 * sizeof(float));
  return tress_vec3_is_finite(out);
}

bool tress__pendulums_scale_refused(const tress_sim *sim, const tress_handle *h) {
  const struct tress_pendulums *P = sim->pendulums;
  return h->slot < P->count && P->items[h->slot].used && P->items[h->slot].scale_refused;
}
