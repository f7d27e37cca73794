/* springs.c - the BIND springs section (tag 1): colliders and spring chains, bounded both ways.
 *
 * Layout (little-endian, PROTOCOL.md 7.1):
 *   u8 format (1; 2 when some chain carries a limit)
 *   u8 collider count, then per collider: u8 shape, str attach, f32 x3 offset, f32 x3 tail
 *      (a plane's normal), f32 radius
 *   u8 chain count, then per chain: str root, f32 damping, stiffness, gravity_scale, wind_scale,
 *      radius, end_length, wind_gust, wind_frequency, weight, u8 flags (bit 0 enabled, bit 1
 *      limit, bit 2 joint limits), u8 set count, u8 x count collider indices, then with the
 *      limit bit: the limit (u8 kind, tress_limit_kind 1..3, f32 angle, f32 yaw, f32 x4
 *      rotation), then with the joint limits bit: u8 count (1..16), per joint: str bone, limit
 * (A section without limits and extended colliders is format 1, byte for byte what it was
 * before they existed; format 2 allows both.)
 * The section rides in BIND's opaque sections, so a decoder that predates it keeps the bytes
 * and ignores them: no major bump, no new message type.
 */
#include "tress/wire_springs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wire_internal.h"

static tress_wire_status range(float v, float lo, float hi, const char *what, size_t at, tress_wire_error *err) {
  if (!isfinite(v) || v < lo || v > hi)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: %g is not in [%g, %g]", what, (double)v, (double)lo,
                     (double)hi);
  return TRESS_WIRE_OK;
}

static tress_wire_status check_collider(const tress_wire_collider *c, uint32_t i, size_t at, tress_wire_error *err) {
  char what[48];
  snprintf(what, sizeof what, "collider %u", i);
  if (c->shape > TRESS_COLLIDER_INSIDE_CAPSULE)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, at,
                     "%s: shape %u is not 0..4 (sphere, capsule, plane, inside sphere, inside capsule)", what,
                     c->shape);
  tress_wire_status st;
  if ((st = wire_check_vec3(c->offset, TRESS_WIRE_MAX_COORD, what, at, err))) return st;
  if ((st = wire_check_vec3(c->tail, TRESS_WIRE_MAX_COORD, what, at, err))) return st;
  if ((st = wire_check_vec3(c->normal, TRESS_WIRE_MAX_COORD, what, at, err))) return st;
  if ((st = range(c->radius, 0.0f, TRESS_WIRE_MAX_RADIUS, what, at, err))) return st;
  if (c->shape == TRESS_COLLIDER_PLANE &&
      !(c->normal[0] * c->normal[0] + c->normal[1] * c->normal[1] + c->normal[2] * c->normal[2] > 0.0f))
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: a plane with no normal", what);
  if (tress_collider_shape_is_capsule((tress_collider_shape)c->shape)) {
    float dx = c->tail[0] - c->offset[0], dy = c->tail[1] - c->offset[1], dz = c->tail[2] - c->offset[2];
    if (!(dx * dx + dy * dy + dz * dz > 0.0f))
      return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "%s: a capsule with no length", what);
  }
  return TRESS_WIRE_OK;
}

static tress_wire_status check_limit_values(const tress_joint_limit *l, size_t at, tress_wire_error *err);

static tress_wire_status check_limit(const tress_joint_limit *l, const char *root, size_t at, tress_wire_error *err) {
  if (l->kind == TRESS_LIMIT_NONE) return TRESS_WIRE_OK;
  if (l->kind > TRESS_LIMIT_SPHERICAL)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, at, "chain limit kind %u is not 1..3", (unsigned)l->kind);
  if (!root[0])
    return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "the default chain entry cannot carry a limit");
  return check_limit_values(l, at, err);
}

/* A named chain's joint limits: within the count, each a real limit on a bone named once. */
static tress_wire_status check_joint_limits(const tress_wire_spring_chain *c, uint32_t i, size_t at,
                                            tress_wire_error *err) {
  if (c->joint_limit_count > TRESS_WIRE_MAX_JOINT_LIMITS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "chain %u: %u joint limits, limit %d", i,
                     c->joint_limit_count, TRESS_WIRE_MAX_JOINT_LIMITS);
  if (c->joint_limit_count && !c->root[0])
    return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "the default chain entry cannot carry joint limits");
  for (uint32_t k = 0; k < c->joint_limit_count; k++) {
    const tress_wire_joint_limit *j = &c->joint_limits[k];
    if (!j->bone[0]) /* its length is the name writer's and reader's rule */
      return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "chain %u: joint limit %u names no bone", i, k);
    if (j->limit.kind == TRESS_LIMIT_NONE || j->limit.kind > TRESS_LIMIT_SPHERICAL)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, at, "chain %u: joint '%s' limit kind %u is not 1..3", i, j->bone,
                       (unsigned)j->limit.kind);
    tress_wire_status st = check_limit_values(&j->limit, at, err);
    if (st) return st;
    for (uint32_t m = 0; m < k; m++)
      if (strcmp(c->joint_limits[m].bone, j->bone) == 0)
        return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, at, "chain %u: joint '%s' limited twice", i, j->bone);
  }
  return TRESS_WIRE_OK;
}

static tress_wire_status check_limit_values(const tress_joint_limit *l, size_t at, tress_wire_error *err) {
  tress_wire_status st;
  if ((st = range(l->angle, 0.0f, 3.14159265f, "chain limit angle", at, err))) return st;
  if ((st = range(l->yaw, 0.0f, 3.14159265f, "chain limit yaw", at, err))) return st;
  float n2 = 0.0f;
  for (int k = 0; k < 4; k++) {
    if ((st = range(l->rotation[k], -1.0f, 1.0f, "chain limit rotation", at, err))) return st;
    n2 += l->rotation[k] * l->rotation[k];
  }
  if (fabsf(n2 - 1.0f) > 1e-3f)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, at, "chain limit rotation is not a unit quaternion");
  return TRESS_WIRE_OK;
}

static tress_wire_status check_chain(const tress_wire_spring_chain *c, uint32_t i, uint32_t colliders, size_t at,
                                     tress_wire_error *err) {
  tress_wire_status st;
  const tress_chain_settings *s = &c->settings;
  if ((st = wire_check_chain_settings(s, at, err))) return st;
  if ((st = range(s->radius, 0.0f, TRESS_WIRE_MAX_RADIUS, "chain radius", at, err))) return st;
  if ((st = range(s->end_length, 0.0f, TRESS_WIRE_MAX_RADIUS, "chain end_length", at, err))) return st;
  if ((st = range(s->wind_gust, 0.0f, 1.0f, "chain wind_gust", at, err))) return st;
  if ((st = range(s->wind_frequency, 0.0f, TRESS_WIRE_MAX_GUST_HZ, "chain wind_frequency", at, err))) return st;
  if ((st = range(s->weight, 0.0f, 1.0f, "chain weight", at, err))) return st;
  if (c->collider_count > TRESS_CHAIN_COLLIDERS_MAX)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "chain %u: %u colliders, limit %d", i,
                     c->collider_count, TRESS_CHAIN_COLLIDERS_MAX);
  if ((st = check_limit(&c->limit, c->root, at, err))) return st;
  if ((st = check_joint_limits(c, i, at, err))) return st;
  for (uint32_t k = 0; k < c->collider_count; k++) {
    if (c->colliders[k] >= colliders)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, at, "chain %u: collider index %u, only %u colliders", i,
                       c->colliders[k], colliders);
    for (uint32_t j = 0; j < k; j++)
      if (c->colliders[j] == c->colliders[k])
        return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, at, "chain %u: collider %u listed twice", i, c->colliders[k]);
  }
  return TRESS_WIRE_OK;
}

static void write_limit(wire_writer *w, const tress_joint_limit *l) {
  wire_write_u8(w, (uint8_t)l->kind);
  wire_write_f32(w, l->angle);
  wire_write_f32(w, l->yaw);
  for (int k = 0; k < 4; k++) wire_write_f32(w, l->rotation[k]);
}

/* A limit's bytes (kind checked 1..3 here, the values by check_chain afterwards). */
static bool read_limit(wire_reader *r, tress_joint_limit *l, uint32_t i, size_t at) {
  uint8_t kind;
  if (!wire_read_u8(r, &kind, "limit kind")) return false;
  if (kind < 1 || kind > TRESS_LIMIT_SPHERICAL) {
    r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_ENUM, at, "chain %u: limit kind %u is not 1..3", i, kind);
    return false;
  }
  l->kind = (tress_limit_kind)kind;
  if (!wire_read_f32(r, &l->angle, "limit") || !wire_read_f32(r, &l->yaw, "limit")) return false;
  for (int k = 0; k < 4; k++)
    if (!wire_read_f32(r, &l->rotation[k], "limit")) return false;
  return true;
}

tress_wire_status tress_wire_springs_encode(const tress_wire_springs *s, uint8_t *buf, size_t cap, size_t *out_len,
                                            tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out_len) *out_len = 0;
  if (!s) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, 0, "no springs");
  if (s->collider_count > TRESS_WIRE_MAX_COLLIDERS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, 0, "%u colliders, limit %d", s->collider_count,
                     TRESS_WIRE_MAX_COLLIDERS);
  if (s->chain_count > TRESS_WIRE_MAX_SPRING_CHAINS)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, 0, "%u chains, limit %d", s->chain_count,
                     TRESS_WIRE_MAX_SPRING_CHAINS);
  wire_writer w = {buf, buf ? cap : 0, 0, false};
  tress_wire_status st;
  bool extended = false;
  for (uint32_t i = 0; i < s->chain_count; i++)
    extended = extended || s->chains[i].limit.kind != TRESS_LIMIT_NONE || s->chains[i].joint_limit_count;
  for (uint32_t i = 0; i < s->collider_count; i++) extended = extended || s->colliders[i].shape > TRESS_COLLIDER_CAPSULE;
  wire_write_u8(&w, extended ? TRESS_WIRE_SPRINGS_FORMAT_EXTENDED : TRESS_WIRE_SPRINGS_FORMAT);
  wire_write_u8(&w, (uint8_t)s->collider_count);
  for (uint32_t i = 0; i < s->collider_count; i++) {
    const tress_wire_collider *c = &s->colliders[i];
    if ((st = check_collider(c, i, w.len, err))) return st;
    wire_write_u8(&w, c->shape);
    if ((st = wire_write_name(&w, c->attach, "collider attach", err))) return st;
    for (int k = 0; k < 3; k++) wire_write_f32(&w, c->offset[k]);
    const float *second = c->shape == TRESS_COLLIDER_PLANE ? c->normal : c->tail;
    for (int k = 0; k < 3; k++) wire_write_f32(&w, second[k]);
    wire_write_f32(&w, c->radius);
  }
  wire_write_u8(&w, (uint8_t)s->chain_count);
  for (uint32_t i = 0; i < s->chain_count; i++) {
    const tress_wire_spring_chain *c = &s->chains[i];
    if ((st = check_chain(c, i, s->collider_count, w.len, err))) return st;
    if ((st = wire_write_name(&w, c->root, "chain root", err))) return st;
    const tress_chain_settings *t = &c->settings;
    const float f[9] = {t->damping, t->stiffness,  t->gravity_scale,  t->wind_scale, t->radius,
                        t->end_length, t->wind_gust, t->wind_frequency, t->weight};
    for (int k = 0; k < 9; k++) wire_write_f32(&w, f[k]);
    bool limited = c->limit.kind != TRESS_LIMIT_NONE, joints = c->joint_limit_count > 0;
    wire_write_u8(&w, (uint8_t)((t->enabled ? 1 : 0) | (limited ? 2 : 0) | (joints ? 4 : 0)));
    wire_write_u8(&w, c->collider_count);
    wire_write_bytes(&w, c->colliders, c->collider_count);
    if (limited) write_limit(&w, &c->limit);
    if (joints) {
      wire_write_u8(&w, c->joint_limit_count);
      for (uint32_t k = 0; k < c->joint_limit_count; k++) {
        if ((st = wire_write_name(&w, c->joint_limits[k].bone, "joint limit bone", err))) return st;
        write_limit(&w, &c->joint_limits[k].limit);
      }
    }
  }
  if (w.len > TRESS_WIRE_MAX_SECTION_BYTES)
    return wire_fail(err, TRESS_WIRE_ERR_TOO_LARGE, 0, "springs section %zu bytes, limit %u", w.len,
                     TRESS_WIRE_MAX_SECTION_BYTES);
  if (out_len) *out_len = w.len;
  if (buf && w.len > cap)
    return wire_fail(err, TRESS_WIRE_ERR_BUFFER_TOO_SMALL, cap, "needs %zu bytes, have %zu", w.len, cap);
  return TRESS_WIRE_OK;
}

static tress_wire_status decode_body(wire_reader *r, tress_wire_springs *out) {
  uint8_t format, n;
  if (!wire_read_u8(r, &format, "springs format")) return r->status;
  if (format != TRESS_WIRE_SPRINGS_FORMAT && format != TRESS_WIRE_SPRINGS_FORMAT_EXTENDED)
    return wire_fail(r->err, TRESS_WIRE_ERR_BAD_VERSION, 0, "springs format %u, this decoder knows %d and %d", format,
                     TRESS_WIRE_SPRINGS_FORMAT, TRESS_WIRE_SPRINGS_FORMAT_EXTENDED);
  /* format 1 carries no limits: its flags have only the enabled bit */
  unsigned known_flags = format == TRESS_WIRE_SPRINGS_FORMAT ? 1u : 7u;
  size_t at = wire_reader_offset(r);
  if (!wire_read_u8(r, &n, "collider count")) return r->status;
  if (n > TRESS_WIRE_MAX_COLLIDERS)
    return wire_fail(r->err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "%u colliders, limit %d", n, TRESS_WIRE_MAX_COLLIDERS);
  out->collider_count = n;
  tress_wire_status st;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_collider *c = &out->colliders[i];
    at = wire_reader_offset(r);
    if (!wire_read_u8(r, &c->shape, "collider shape") || !wire_read_name(r, c->attach, "collider attach")) return r->status;
    for (int k = 0; k < 3; k++)
      if (!wire_read_f32(r, &c->offset[k], "collider offset")) return r->status;
    if (format == TRESS_WIRE_SPRINGS_FORMAT && c->shape > TRESS_COLLIDER_CAPSULE)
      return wire_fail(r->err, TRESS_WIRE_ERR_BAD_ENUM, at, "collider %u: shape %u in format 1 (sphere or capsule)", i,
                       c->shape);
    float *second = c->shape == TRESS_COLLIDER_PLANE ? c->normal : c->tail;
    for (int k = 0; k < 3; k++)
      if (!wire_read_f32(r, &second[k], "collider tail")) return r->status;
    if (!wire_read_f32(r, &c->radius, "collider radius")) return r->status;
    if ((st = check_collider(c, i, at, r->err))) return st;
  }
  if (!wire_read_count(r, &n, TRESS_WIRE_MAX_SPRING_CHAINS, "chain count", "chains")) return r->status;
  out->chain_count = n;
  for (uint32_t i = 0; i < n; i++) {
    tress_wire_spring_chain *c = &out->chains[i];
    at = wire_reader_offset(r);
    if (!wire_read_name(r, c->root, "chain root")) return r->status;
    c->settings = tress_default_chain_settings();
    tress_chain_settings *t = &c->settings;
    float *f[9] = {&t->damping, &t->stiffness,  &t->gravity_scale,  &t->wind_scale, &t->radius,
                   &t->end_length, &t->wind_gust, &t->wind_frequency, &t->weight};
    for (int k = 0; k < 9; k++)
      if (!wire_read_f32(r, f[k], "chain settings")) return r->status;
    uint8_t flags;
    size_t fat = wire_reader_offset(r);
    if (!wire_read_u8(r, &flags, "chain flags")) return r->status;
    if (flags & ~known_flags)
      return wire_fail(r->err, TRESS_WIRE_ERR_BAD_ENUM, fat, "chain %u: flags 0x%02x (format %u)", i, flags, format);
    t->enabled = flags & 1u;
    if (!wire_read_u8(r, &c->collider_count, "chain collider count")) return r->status;
    if (c->collider_count > TRESS_CHAIN_COLLIDERS_MAX)
      return wire_fail(r->err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, fat, "chain %u: %u colliders, limit %d", i,
                       c->collider_count, TRESS_CHAIN_COLLIDERS_MAX);
    if (!wire_read_bytes(r, c->colliders, c->collider_count, "chain colliders")) return r->status;
    c->limit = (tress_joint_limit){TRESS_LIMIT_NONE, 0.0f, 0.0f, {0.0f, 0.0f, 0.0f, 1.0f}};
    if ((flags & 2u) && !read_limit(r, &c->limit, i, fat)) return r->status;
    c->joint_limit_count = 0;
    if (flags & 4u) {
      size_t cat = wire_reader_offset(r);
      if (!wire_read_u8(r, &c->joint_limit_count, "joint limit count")) return r->status;
      if (c->joint_limit_count < 1 || c->joint_limit_count > TRESS_WIRE_MAX_JOINT_LIMITS)
        return wire_fail(r->err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, cat, "chain %u: %u joint limits, 1..%d", i,
                         c->joint_limit_count, TRESS_WIRE_MAX_JOINT_LIMITS);
      for (uint32_t k = 0; k < c->joint_limit_count; k++) {
        tress_wire_joint_limit *j = &c->joint_limits[k];
        if (!wire_read_name(r, j->bone, "joint limit bone") || !read_limit(r, &j->limit, i, cat)) return r->status;
      }
    }
    if ((st = check_chain(c, i, out->collider_count, at, r->err))) return st;
  }
  if (r->remaining)
    return wire_fail(r->err, TRESS_WIRE_ERR_TRAILING_BYTES, wire_reader_offset(r), "%zu bytes after the springs",
                     r->remaining);
  return TRESS_WIRE_OK;
}

tress_wire_status tress_wire_springs_decode(const uint8_t *bytes, size_t len, tress_wire_springs *out,
                                            tress_wire_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!out || (!bytes && len)) return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, 0, "no buffer");
  memset(out, 0, sizeof *out);
  wire_reader r = {bytes, len, len, 0, err, TRESS_WIRE_OK};
  tress_wire_status st = decode_body(&r, out);
  if (st) memset(out, 0, sizeof *out);
  return st;
}

const tress_wire_section *tress_msg_bind_get_springs(const tress_msg_bind *bind) {
  if (!bind) return NULL;
  for (uint32_t i = 0; i < bind->section_count; i++)
    if (bind->sections[i].tag == TRESS_SECTION_SPRINGS) return &bind->sections[i];
  return NULL;
}

static bool f3(const float a[3], const float b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

static bool limit_equal(const tress_joint_limit *a, const tress_joint_limit *b) {
  if (a->kind != b->kind) return false;
  return a->kind == TRESS_LIMIT_NONE || (a->angle == b->angle && a->yaw == b->yaw && a->rotation[0] == b->rotation[0] &&
                                         a->rotation[1] == b->rotation[1] && a->rotation[2] == b->rotation[2] &&
                                         a->rotation[3] == b->rotation[3]);
}

bool tress_wire_springs_is_equal(const tress_wire_springs *a, const tress_wire_springs *b) {
  if (a->collider_count != b->collider_count || a->chain_count != b->chain_count) return false;
  for (uint32_t i = 0; i < a->collider_count; i++) {
    const tress_wire_collider *x = &a->colliders[i], *y = &b->colliders[i];
    if (x->shape != y->shape || strcmp(x->attach, y->attach) || !f3(x->offset, y->offset) || !f3(x->tail, y->tail) ||
        x->radius != y->radius || !f3(x->normal, y->normal))
      return false;
  }
  for (uint32_t i = 0; i < a->chain_count; i++) {
    const tress_wire_spring_chain *x = &a->chains[i], *y = &b->chains[i];
    const tress_chain_settings *s = &x->settings, *t = &y->settings;
    if (strcmp(x->root, y->root) || s->damping != t->damping || s->stiffness != t->stiffness ||
        s->gravity_scale != t->gravity_scale || s->wind_scale != t->wind_scale || s->radius != t->radius ||
        s->end_length != t->end_length || s->wind_gust != t->wind_gust || s->wind_frequency != t->wind_frequency ||
        s->weight != t->weight || s->enabled != t->enabled || x->collider_count != y->collider_count ||
        memcmp(x->colliders, y->colliders, x->collider_count) || !limit_equal(&x->limit, &y->limit) ||
        x->joint_limit_count != y->joint_limit_count)
      return false;
    for (uint32_t k = 0; k < x->joint_limit_count; k++)
      if (strcmp(x->joint_limits[k].bone, y->joint_limits[k].bone) ||
          !limit_equal(&x->joint_limits[k].limit, &y->joint_limits[k].limit))
        return false;
  }
  return true;
}
