/* debug_draw.c - tress_sim_debug_draw: the sim's colliders, then every handle (chains through
 * debug_draw_chains.c, ropes and cloth from their particles, pendulums from hinge to handle), as
 * shapes in the caller's buffer. Reads only; nothing is allocated. */
#include <string.h>

#include "debug_draw_internal.h"
#include "particles.h"

const char *tress_debug_shape_kind_name(tress_debug_shape_kind kind) {
  switch (kind) {
  case TRESS_DEBUG_LINE: return "line";
  case TRESS_DEBUG_POINT: return "point";
  case TRESS_DEBUG_SPHERE: return "sphere";
  case TRESS_DEBUG_CAPSULE: return "capsule";
  case TRESS_DEBUG_PLANE: return "plane";
  }
  return "unknown";
}

const char *tress_debug_role_name(tress_debug_role role) {
  switch (role) {
  case TRESS_DEBUG_BONE_ANIMATED: return "bone_animated";
  case TRESS_DEBUG_BONE_SIMULATED: return "bone_simulated";
  case TRESS_DEBUG_STRAND_RADIUS: return "strand_radius";
  case TRESS_DEBUG_END_TIP: return "end_tip";
  case TRESS_DEBUG_COLLIDER: return "collider";
  case TRESS_DEBUG_ROPE: return "rope";
  case TRESS_DEBUG_CLOTH: return "cloth";
  case TRESS_DEBUG_PENDULUM: return "pendulum";
  }
  return "unknown";
}

tress_debug_draw_opts tress_default_debug_draw_opts(void) {
  return (tress_debug_draw_opts){
      .bones_animated = true,
      .bones_simulated = true,
      .strand_radii = true,
      .end_tips = true,
      .colliders = true,
      .ropes = true,
      .cloth = true,
      .pendulums = true,
      .include_asleep = true,
  };
}

static tress_debug_shape_kind collider_kind(tress_collider_shape shape) {
  switch (shape) {
  case TRESS_COLLIDER_CAPSULE:
  case TRESS_COLLIDER_INSIDE_CAPSULE: return TRESS_DEBUG_CAPSULE;
  case TRESS_COLLIDER_PLANE: return TRESS_DEBUG_PLANE;
  default: return TRESS_DEBUG_SPHERE;
  }
}

static void emit_colliders(const tress_sim *sim, tress_debug_out *out) {
  const tress_sim_colliders *c = sim->colliders;
  if (!c) return;
  for (uint32_t i = 0; i < c->count; i++) {
    if (!c->alive[i]) continue;
    tress_collider_id id = {i + 1, c->generation[i], sim->owner};
    tress_collider_world w;
    if (tress_collider_get_world(sim, id, &w) != TRESS_OK) continue;
    tress_debug_shape shape = {
        .kind = collider_kind(w.shape),
        .role = TRESS_DEBUG_COLLIDER,
        .a = {w.ax, w.ay, w.az},
        .b = {w.bx, w.by, w.bz},
        .radius = w.shape == TRESS_COLLIDER_PLANE ? 0.0f : w.radius,
        .inside = w.shape == TRESS_COLLIDER_INSIDE_SPHERE || w.shape == TRESS_COLLIDER_INSIDE_CAPSULE,
        .collider = id,
    };
    tress__debug_emit(out, &shape);
  }
}

/* A rope's live segments or a cloth sheet's live constraints, between particle positions. */
static void emit_particles(const tress_sim *sim, const tress_handle *h, tress_handle_id id, bool asleep,
                           tress_debug_out *out) {
  bool rope = h->kind == TRESS_HANDLE_ROPE;
  if (rope ? !out->opts->ropes : !out->opts->cloth) return;
  const tress_particles *ps = tress__particles_of(sim, id);
  if (!ps) return;
  tress_debug_shape shape = {.kind = TRESS_DEBUG_LINE,
                             .role = rope ? TRESS_DEBUG_ROPE : TRESS_DEBUG_CLOTH,
                             .asleep = asleep,
                             .handle = id};
  for (uint32_t k = 0; k < ps->m; k++) {
    tress__particle_position(ps, ps->ca[k], shape.a);
    tress__particle_position(ps, ps->cb[k], shape.b);
    shape.index = rope ? ps->ca[k] : k; /* a rope's constraint k joins particles segment, segment + 1 */
    tress__debug_emit(out, &shape);
  }
}

static void emit_pendulum(const tress_sim *sim, const tress_handle *h, tress_handle_id id, bool asleep,
                          tress_debug_out *out) {
  if (!out->opts->pendulums) return;
  tress_debug_shape shape = {
      .kind = TRESS_DEBUG_LINE, .role = TRESS_DEBUG_PENDULUM, .asleep = asleep, .handle = id, .instance = h->root};
  if (!tress__pendulums_root_position(sim, h, shape.a)) return;
  tress_id part = tress_accessory_get_handle(sim->scene, h->root);
  if (tress_id_is_null(part)) return;
  memcpy(shape.b, tress_part_get_cframe(sim->scene, part).p, sizeof shape.b);
  tress__debug_emit(out, &shape);
}

static void emit_handle(const tress_sim *sim, const tress_handle *h, tress_debug_out *out) {
  tress_handle_id id = tress__handle_id(sim, h);
  bool asleep = !h->was_awake;
  if (asleep && !out->opts->include_asleep) return;
  switch (h->kind) {
  case TRESS_HANDLE_BONES:
  case TRESS_HANDLE_PARTS: tress__chains_debug_draw(sim, h, id, asleep, out); break;
  case TRESS_HANDLE_ACCESSORY: emit_pendulum(sim, h, id, asleep, out); break;
  case TRESS_HANDLE_ROPE:
  case TRESS_HANDLE_CLOTH: emit_particles(sim, h, id, asleep, out); break;
  }
}

tress_result tress_sim_debug_draw(const tress_sim *sim, const tress_debug_draw_opts *opts, tress_debug_shape *shapes,
                                  uint32_t max_shapes, uint32_t *count) {
  if (count) *count = 0;
  if (!sim || !count || (max_shapes > 0 && !shapes)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_debug_draw_opts defaults = tress_default_debug_draw_opts();
  tress_debug_out out = {.shapes = shapes, .max = max_shapes, .opts = opts ? opts : &defaults};
  if (out.opts->colliders) emit_colliders(sim, &out);
  for (uint32_t i = 0; i < sim->handle_count; i++)
    if (sim->handles[i].alive) emit_handle(sim, &sim->handles[i], &out);
  *count = out.count;
  return TRESS_OK;
}
