/* replica_attachments.c - a character's ropes and cloth sheets (the manifest's attachments
 * section), bound in the client's own sim when the character binds.
 *
 * Every client builds them from the same manifest bytes and the same part poses, and the sim is
 * deterministic, so every client swings the same rope with nothing on the wire after bind. The
 * section does not change during a character's life, so they are bound once (a later BIND or a
 * late rig result rebinds the chains and leaves these alone) and go with the character. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "tress/rope.h"
#include "tress/wire_attachments.h"

static tress_id part_named(const replica_character *ch, const char *name) {
  for (uint32_t i = 0; i < ch->manifest.part_count; i++)
    if (strcmp(ch->manifest.parts[i].name, name) == 0) return ch->parts[i];
  return (tress_id){0};
}

static tress_particle_settings particle_settings(tress_particle_settings base, const tress_wire_particle_settings *w) {
  base.damping = w->damping;
  base.gravity_scale = w->gravity_scale;
  base.wind_scale = w->wind_scale;
  return base;
}

static tress_rope_pin rope_pin(const replica_character *ch, const tress_wire_rope_end *e) {
  tress_rope_pin pin = {.pinned = e->pinned, .instance = part_named(ch, e->part)};
  memcpy(pin.position, e->offset, sizeof pin.position);
  return pin;
}

static tress_result bind_rope(tress_client *c, const replica_character *ch, const tress_wire_rope *w,
                              tress_handle_id *out, tress_error *err) {
  tress_rope_def def = tress_default_rope_def();
  def.start = rope_pin(ch, &w->start);
  def.end = rope_pin(ch, &w->end);
  if (tress_id_is_null(def.end.instance)) {
    /* a free end with no part: the rope is laid out hanging straight down from its start */
    tress_xform start = tress_instance_get_world(c->scene, def.start.instance);
    tress_xform_point(start, w->start.offset, def.end.position);
    def.end.position[1] -= w->length;
  }
  def.segments = w->segments;
  def.length = w->length;
  def.settings = particle_settings(def.settings, &w->settings);
  return tress_sim_bind_rope(c->sim, &def, out, err);
}

static bool on_edge(const tress_wire_cloth *w, uint32_t row, uint32_t col) {
  switch (w->pinned_edge) {
  case TRESS_CLOTH_EDGE_TOP: return row == 0;
  case TRESS_CLOTH_EDGE_BOTTOM: return row + 1 == w->height;
  case TRESS_CLOTH_EDGE_LEFT: return col == 0;
  default: return col + 1 == w->width;
  }
}

static tress_result bind_cloth(tress_client *c, const replica_character *ch, const tress_wire_cloth *w,
                               tress_handle_id *out, tress_error *err) {
  tress_id part = part_named(ch, w->part);
  tress_xform frame = tress_instance_get_world(c->scene, part);
  tress_cloth_pin pins[2 * TRESS_WIRE_MAX_CLOTH_SIDE];
  uint32_t pin_count = 0;
  for (uint32_t row = 0; row < w->height; row++)
    for (uint32_t col = 0; col < w->width; col++)
      if (on_edge(w, row, col)) pins[pin_count++] = (tress_cloth_pin){row * w->width + col, part};
  tress_cloth_def def = tress_default_cloth_def();
  def.width = w->width;
  def.height = w->height;
  tress_xform_point(frame, w->origin, def.origin);
  tress_quat_rotate(frame.q, w->step_u, def.step_u);
  tress_quat_rotate(frame.q, w->step_v, def.step_v);
  def.pins = pins;
  def.pin_count = pin_count;
  def.settings = particle_settings(def.settings, &w->settings);
  return tress_sim_bind_cloth(c->sim, &def, out, err);
}

void tress__attachments_bind(tress_client *c, replica_character *ch) {
  if (ch->attachments_bound) return;
  const tress_wire_section *sec = tress_wire_manifest_get_attachments(&ch->manifest);
  if (!sec) return;
  ch->attachments_bound = true;
  tress_wire_attachments *a = malloc(sizeof *a);
  tress_wire_error werr;
  if (!a || tress_wire_attachments_decode(sec->bytes, sec->length, a, &werr) != TRESS_WIRE_OK) {
    tress__client_report(c, TRESS_CLIENT_ERROR_PROTOCOL, "character %u: attachments section: %s", ch->id,
                         a ? werr.message : "out of memory");
    free(a);
    return;
  }
  uint32_t n = a->rope_count + a->cloth_count;
  ch->attachments = calloc(n ? n : 1, sizeof *ch->attachments);
  if (!ch->attachments) {
    tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: out of memory binding ropes and cloth", ch->id);
    free(a);
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    replica_attachment *at = &ch->attachments[ch->attachment_count];
    bool rope = i < a->rope_count;
    const char *name = rope ? a->ropes[i].name : a->cloths[i - a->rope_count].name;
    tress_error err;
    tress_result r = rope ? bind_rope(c, ch, &a->ropes[i], &at->handle, &err)
                          : bind_cloth(c, ch, &a->cloths[i - a->rope_count], &at->handle, &err);
    if (r != TRESS_OK) {
      tress__client_report(c, TRESS_CLIENT_ERROR_WARNING, "character %u: %s '%s' not bound: %s", ch->id,
                           rope ? "rope" : "cloth", name, err.message);
      continue;
    }
    snprintf(at->name, sizeof at->name, "%s", name);
    at->cloth = !rope;
    ch->attachment_count++;
  }
  free(a);
}

void tress__attachments_release(tress_client *c, replica_character *ch) {
  for (uint32_t i = 0; i < ch->attachment_count; i++)
    if (tress_handle_is_valid(c->sim, ch->attachments[i].handle)) tress_handle_destroy(c->sim, ch->attachments[i].handle);
  free(ch->attachments);
  ch->attachments = NULL;
  ch->attachment_count = 0;
  ch->attachments_bound = false;
}

uint32_t tress_client_get_attachments(const tress_client *c, uint32_t character_id, tress_client_attachment *out,
                                      uint32_t max) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return 0;
  for (uint32_t i = 0; out && i < ch->attachment_count && i < max; i++) {
    const replica_attachment *at = &ch->attachments[i];
    memset(&out[i], 0, sizeof out[i]);
    snprintf(out[i].name, sizeof out[i].name, "%s", at->name);
    out[i].cloth = at->cloth;
    out[i].handle = at->handle;
  }
  return ch->attachment_count;
}

tress_result tress_client_get_attachment_points(const tress_client *c, uint32_t character_id, const char *name,
                                                float *xyz, uint32_t max_points, uint32_t *count) {
  const replica_character *ch = tress__replica_find(c, character_id);
  if (!ch) return TRESS_ERR_NOT_FOUND;
  for (uint32_t i = 0; name && i < ch->attachment_count; i++)
    if (strcmp(ch->attachments[i].name, name) == 0)
      return tress_rope_get_points(c->sim, ch->attachments[i].handle, xyz, max_points, count) == TRESS_OK
                 ? TRESS_OK
                 : TRESS_ERR_INVALID_ARGUMENT;
  return TRESS_ERR_INVALID_ARGUMENT;
}
