/* attachments.c - a manifest's attachments section (tag 2): ropes and cloth sheets, bounded both ways.
 *
 * Layout (little-endian, PROTOCOL.md 7.2):
 *   u8 format (1)
 *   u8 rope count, then per rope: str name, end start, end end, u16 segments, f32 length,
 *      settings
 *   u8 cloth count, then per sheet: str name, str part, u8 width, u8 height, f32 x3 origin,
 *      f32 x3 step_u, f32 x3 step_v, u8 pinned edge, settings
 *   end: u8 pinned (0/1), str part, f32 x3 offset;  settings: f32 damping, gravity_scale, wind_scale
 * It rides in the manifest's opaque sections, so a peer that predates it keeps the bytes and
 * ignores them: no major bump, no new message type.
 */
#include "tress/wire_attachments.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tress/rope.h"
#include "wire_internal.h"

static const char *const EDGE_NAMES[] = {"top", "bottom", "left", "right"};

const char *tress_wire_cloth_edge_name(tress_wire_cloth_edge e) {
  return (unsigned)e < sizeof EDGE_NAMES / sizeof EDGE_NAMES[0] ? EDGE_NAMES[e] : "unknown";
}

bool tress_wire_cloth_edge_from_name(const char *text, tress_wire_cloth_edge *out) {
  for (size_t e = 0; text && out && e < sizeof EDGE_NAMES / sizeof EDGE_NAMES[0]; e++)
    if (strcmp(text, EDGE_NAMES[e]) == 0) {
      *out = (tress_wire_cloth_edge)e;
      return true;
    }
  return false;
}

tress_wire_particle_settings tress_default_wire_particle_settings(void) {
  tress_rope_def d = tress_default_rope_def();
  return (tress_wire_particle_settings){d.settings.damping, d.settings.gravity_scale, d.settings.wind_scale};
}

static tress_wire_status range(float v, float lo, float hi, const char *what, size_t at, tress_wire_error *err) {
  if (!isfinite(v) || v < lo || v > hi)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: %g is not in [%g, %g]", what, (double)v, (double)lo,
                     (double)hi);
  return TRESS_WIRE_OK;
}

static tress_wire_status check_settings(const tress_wire_particle_settings *s, const char *what, size_t at,
                                        tress_wire_error *err) {
  char field[80];
  tress_wire_status st;
  snprintf(field, sizeof field, "%s damping", what);
  if ((st = range(s->damping, 0.0f, 1.0f, field, at, err))) return st;
  snprintf(field, sizeof field, "%s gravity_scale", what);
  if ((st = range(s->gravity_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, field, at, err))) return st;
  snprintf(field, sizeof field, "%s wind_scale", what);
  return range(s->wind_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, field, at, err);
}

static tress_wire_status check_rope(const tress_wire_rope *r, uint32_t i, size_t at, tress_wire_error *err) {
  char what[48];
  snprintf(what, sizeof what, "rope %u", i);
  if (!r->start.pinned)
    return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "%s: its start must be pinned to a part", what);
  const tress_wire_rope_end *ends[2] = {&r->start, &r->end};
  tress_wire_status st;
  for (int e = 0; e < 2; e++) {
    if (ends[e]->pinned && !ends[e]->part[0])
      return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "%s: a pinned %s names no part", what,
                       e ? "end" : "start");
    if ((st = wire_check_vec3(ends[e]->offset, TRESS_WIRE_MAX_COORD, what, at, err))) return st;
  }
  if (r->segments < 1 || r->segments > TRESS_WIRE_MAX_ROPE_SEGMENTS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "%s: %u segments, must be 1..%d", what, r->segments,
                     TRESS_WIRE_MAX_ROPE_SEGMENTS);
  if (!(r->length > 0.0f) || !(r->length <= TRESS_WIRE_MAX_ROPE_LENGTH))
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: length %g is not in (0, %g]", what, (double)r->length,
                     (double)TRESS_WIRE_MAX_ROPE_LENGTH);
  return check_settings(&r->settings, what, at, err);
}

static tress_wire_status check_cloth(const tress_wire_cloth *c, uint32_t i, size_t at, tress_wire_error *err) {
  char what[48];
  snprintf(what, sizeof what, "cloth %u", i);
  if (!c->part[0]) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "%s: names no part to pin to", what);
  if (c->width < 2 || c->width > TRESS_WIRE_MAX_CLOTH_SIDE || c->height < 2 || c->height > TRESS_WIRE_MAX_CLOTH_SIDE)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "%s: %u x %u particles, each side must be 2..%d", what,
                     c->width, c->height, TRESS_WIRE_MAX_CLOTH_SIDE);
  tress_wire_status st;
  if ((st = wire_check_vec3(c->origin, TRESS_WIRE_MAX_COORD, what, at, err)) ||
      (st = wire_check_vec3(c->step_u, TRESS_WIRE_MAX_SIZE, what, at, err)) ||
      (st = wire_check_vec3(c->step_v, TRESS_WIRE_MAX_SIZE, what, at, err)))
    return st;
  float cx = c->step_u[1] * c->step_v[2] - c->step_u[2] * c->step_v[1];
  float cy = c->step_u[2] * c->step_v[0] - c->step_u[0] * c->step_v[2];
  float cz = c->step_u[0] * c->step_v[1] - c->step_u[1] * c->step_v[0];
  if (!(cx * cx + cy * cy + cz * cz > 0.0f))
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: step_u and step_v span no sheet (zero or parallel)", what);
  if (c->pinned_edge > TRESS_CLOTH_EDGE_RIGHT)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, at, "%s: pinned edge %u is not 0..3 (top, bottom, left, right)",
                     what, c->pinned_edge);
  return check_settings(&c->settings, what, at, err);
}

static void write_f3(wire_writer *w, const float v[3]) {
  for (int k = 0; k < 3; k++) wire_write_f32(w, v[k]);
}

static void write_settings(wire_writer *w, const tress_wire_particle_settings *s) {
  wire_write_f32(w, s->damping);
  wire_write_f32(w, s->gravity_scale);
  wire_write_f32(w, s->wind_scale);
}

static tress_wire_status write_end(wire_writer *w, const tress_wire_rope_end *e, tress_wire_error *err) {
  wire_write_u8(w, e->pinned ? 1 : 0);
  tress_wire_status st = wire_write_name(w, e->part, "rope end part", err);
  if (st) return st;
  write_f3(w, e->offset);
  return TRESS_WIRE_OK;
}

tress_wire_status tress_wire_attachments_encode(const tress_wire_attachments *a, uint8_t *buf, size_t cap,
                                                size_t *out_len, tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out_len) *out_len = 0;
  if (!a) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, 0, "no attachments");
  if (a->rope_count > TRESS_WIRE_MAX_ROPES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, 0, "%u ropes, limit %d", a->rope_count, TRESS_WIRE_MAX_ROPES);
  if (a->cloth_count > TRESS_WIRE_MAX_CLOTHS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, 0, "%u cloths, limit %d", a->cloth_count,
                     TRESS_WIRE_MAX_CLOTHS);
  wire_writer w = {buf, buf ? cap : 0, 0, false};
  tress_wire_status st;
  wire_write_u8(&w, TRESS_WIRE_ATTACHMENTS_FORMAT);
  wire_write_u8(&w, (uint8_t)a->rope_count);
  for (uint32_t i = 0; i < a->rope_count; i++) {
    const tress_wire_rope *r = &a->ropes[i];
    if ((st = check_rope(r, i, w.len, err))) return st;
    if ((st = wire_write_name(&w, r->name, "rope name", err)) || (st = write_end(&w, &r->start, err)) ||
        (st = write_end(&w, &r->end, err)))
      return st;
    wire_write_u16(&w, r->segments);
    wire_write_f32(&w, r->length);
    write_settings(&w, &r->settings);
  }
  wire_write_u8(&w, (uint8_t)a->cloth_count);
  for (uint32_t i = 0; i < a->cloth_count; i++) {
    const tress_wire_cloth *c = &a->cloths[i];
    if ((st = check_cloth(c, i, w.len, err))) return st;
    if ((st = wire_write_name(&w, c->name, "cloth name", err)) || (st = wire_write_name(&w, c->part, "cloth part", err)))
      return st;
    wire_write_u8(&w, c->width);
    wire_write_u8(&w, c->height);
    write_f3(&w, c->origin);
    write_f3(&w, c->step_u);
    write_f3(&w, c->step_v);
    wire_write_u8(&w, c->pinned_edge);
    write_settings(&w, &c->settings);
  }
  if (w.len > TRESS_WIRE_MAX_SECTION_BYTES)
    return wire_fail(err, TRESS_WIRE_ERR_TOO_LARGE, 0, "attachments section %zu bytes, limit %u", w.len,
                     TRESS_WIRE_MAX_SECTION_BYTES);
  if (out_len) *out_len = w.len;
  if (buf && w.len > cap)
    return wire_fail(err, TRESS_WIRE_ERR_BUFFER_TOO_SMALL, cap, "needs %zu bytes, have %zu", w.len, cap);
  return TRESS_WIRE_OK;
}

static bool read_f3(wire_reader *r, float v[3], const char *what) {
  return wire_read_f32(r, &v[0], what) && wire_read_f32(r, &v[1], what) && wire_read_f32(r, &v[2], what);
}

static bool read_settings(wire_reader *r, tress_wire_particle_settings *s) {
  return wire_read_f32(r, &s->damping, "damping") && wire_read_f32(r, &s->gravity_scale, "gravity_scale") &&
         wire_read_f32(r, &s->wind_scale, "wind_scale");
}

static bool read_end(wire_reader *r, tress_wire_rope_end *e) {
  size_t at = wire_reader_offset(r);
  uint8_t pinned;
  if (!wire_read_u8(r, &pinned, "rope end pinned")) return false;
  if (pinned > 1) {
    r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_ENUM, at, "rope end pinned %u is not 0 or 1", pinned);
    return false;
  }
  e->pinned = pinned;
  return wire_read_name(r, e->part, "rope end part") && read_f3(r, e->offset, "rope end offset");
}

static tress_wire_status decode_body(wire_reader *r, tress_wire_attachments *out) {
  uint8_t n;
  if (!wire_read_format(r, TRESS_WIRE_ATTACHMENTS_FORMAT, "attachments") ||
      !wire_read_count(r, &n, TRESS_WIRE_MAX_ROPES, "rope count", "ropes"))
    return r->status;
  out->rope_count = n;
  size_t at;
  tress_wire_status st;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_rope *rope = &out->ropes[i];
    at = wire_reader_offset(r);
    if (!wire_read_name(r, rope->name, "rope name") || !read_end(r, &rope->start) || !read_end(r, &rope->end) ||
        !wire_read_u16(r, &rope->segments, "rope segments") || !wire_read_f32(r, &rope->length, "rope length") ||
        !read_settings(r, &rope->settings))
      return r->status;
    if ((st = check_rope(rope, i, at, r->err))) return st;
  }
  if (!wire_read_count(r, &n, TRESS_WIRE_MAX_CLOTHS, "cloth count", "cloths")) return r->status;
  out->cloth_count = n;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_cloth *c = &out->cloths[i];
    at = wire_reader_offset(r);
    if (!wire_read_name(r, c->name, "cloth name") || !wire_read_name(r, c->part, "cloth part") ||
        !wire_read_u8(r, &c->width, "cloth width") || !wire_read_u8(r, &c->height, "cloth height") ||
        !read_f3(r, c->origin, "cloth origin") || !read_f3(r, c->step_u, "cloth step_u") ||
        !read_f3(r, c->step_v, "cloth step_v") || !wire_read_u8(r, &c->pinned_edge, "cloth pinned edge") ||
        !read_settings(r, &c->settings))
      return r->status;
    if ((st = check_cloth(c, i, at, r->err))) return st;
  }
  if (r->remaining)
    return wire_fail(r->err, TRESS_WIRE_ERR_TRAILING_BYTES, wire_reader_offset(r), "%zu bytes after the attachments",
                     r->remaining);
  return TRESS_WIRE_OK;
}

tress_wire_status tress_wire_attachments_decode(const uint8_t *bytes, size_t len, tress_wire_attachments *out,
                                                tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!out || (!bytes && len)) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, 0, "no buffer");
  memset(out, 0, sizeof *out);
  wire_reader r = {bytes, len, len, 0, err, TRESS_WIRE_OK};
  tress_wire_status st = decode_body(&r, out);
  if (st) memset(out, 0, sizeof *out);
  return st;
}

static bool has_part(const tress_wire_manifest *m, const char *name) {
  for (uint32_t i = 0; i < m->part_count; i++)
    if (strcmp(m->parts[i].name, name) == 0) return true;
  return false;
}

tress_wire_status tress_wire_attachments_check_parts(const tress_wire_attachments *a, const tress_wire_manifest *m,
                                                     tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  for (uint32_t i = 0; i < a->rope_count; i++) {
    const tress_wire_rope_end *ends[2] = {&a->ropes[i].start, &a->ropes[i].end};
    for (int e = 0; e < 2; e++)
      if (ends[e]->pinned && !has_part(m, ends[e]->part))
        return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, 0, "rope %u ('%s'): %s part '%s' is not a part of the manifest",
                         i, a->ropes[i].name, e ? "end" : "start", ends[e]->part);
  }
  for (uint32_t i = 0; i < a->cloth_count; i++)
    if (!has_part(m, a->cloths[i].part))
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, 0, "cloth %u ('%s'): part '%s' is not a part of the manifest", i,
                       a->cloths[i].name, a->cloths[i].part);
  return TRESS_WIRE_OK;
}

const tress_wire_section *tress_wire_manifest_get_attachments(const tress_wire_manifest *m) {
  if (!m) return NULL;
  for (uint32_t i = 0; i < m->section_count; i++)
    if (m->sections[i].tag == TRESS_SECTION_ATTACHMENTS) return &m->sections[i];
  return NULL;
}

static bool f3(const float a[3], const float b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

static bool settings_equal(const tress_wire_particle_settings *a, const tress_wire_particle_settings *b) {
  return a->damping == b->damping && a->gravity_scale == b->gravity_scale && a->wind_scale == b->wind_scale;
}

static bool end_equal(const tress_wire_rope_end *a, const tress_wire_rope_end *b) {
  return a->pinned == b->pinned && strcmp(a->part, b->part) == 0 && f3(a->offset, b->offset);
}

bool tress_wire_attachments_is_equal(const tress_wire_attachments *a, const tress_wire_attachments *b) {
  if (a->rope_count != b->rope_count || a->cloth_count != b->cloth_count) return false;
  for (uint32_t i = 0; i < a->rope_count; i++) {
    const tress_wire_rope *x = &a->ropes[i], *y = &b->ropes[i];
    if (strcmp(x->name, y->name) || !end_equal(&x->start, &y->start) || !end_equal(&x->end, &y->end) ||
        x->segments != y->segments || x->length != y->length || !settings_equal(&x->settings, &y->settings))
      return false;
  }
  for (uint32_t i = 0; i < a->cloth_count; i++) {
    const tress_wire_cloth *x = &a->cloths[i], *y = &b->cloths[i];
    if (strcmp(x->name, y->name) || strcmp(x->part, y->part) || x->width != y->width || x->height != y->height ||
        !f3(x->origin, y->origin) || !f3(x->step_u, y->step_u) || !f3(x->step_v, y->step_v) ||
        x->pinned_edge != y->pinned_edge || !settings_equal(&x->settings, &y->settings))
      return false;
  }
  return true;
}
