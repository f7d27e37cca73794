/* validate.c - the field rules of the wire: UTF-8 strings without NULs, finite transforms with
 * unit quaternions, sizes and settings in range. Encode and decode run the same checks, so a
 * message the encoder accepts is one every decoder accepts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wire_internal.h"

tress_wire_status wire_check_utf8(const char *s, size_t n, size_t max_bytes, const char *what, size_t offset,
                                  tress_wire_error *err) {
  if (n > max_bytes)
    return wire_fail(err, TRESS_WIRE_ERR_STRING_TOO_LONG, offset, "%s: %zu bytes, limit %zu", what, n, max_bytes);
  const uint8_t *p = (const uint8_t *)s;
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    if (c == 0) return wire_fail(err, TRESS_WIRE_ERR_EMBEDDED_NUL, offset, "%s: NUL at byte %zu", what, i);
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else return wire_fail(err, TRESS_WIRE_ERR_BAD_UTF8, offset, "%s: invalid UTF-8 lead byte at byte %zu", what, i);
    if (len > n - i)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_UTF8, offset, "%s: UTF-8 sequence cut short at byte %zu", what, i);
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80)
        return wire_fail(err, TRESS_WIRE_ERR_BAD_UTF8, offset, "%s: invalid UTF-8 continuation at byte %zu", what,
                         i + k);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return wire_fail(err, TRESS_WIRE_ERR_BAD_UTF8, offset, "%s: overlong, surrogate or out-of-range code point at byte %zu",
                       what, i);
    i += len;
  }
  return TRESS_WIRE_OK;
}

tress_wire_status wire_check_vec3(const float v[3], float max_abs, const char *what, size_t offset,
                                  tress_wire_error *err) {
  for (int i = 0; i < 3; i++)
    if (!isfinite(v[i]) || fabsf(v[i]) > max_abs)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, offset, "%s[%d]: %g is not finite or beyond %g", what, i,
                       (double)v[i], (double)max_abs);
  return TRESS_WIRE_OK;
}

tress_wire_status wire_check_size(const float v[3], const char *what, size_t offset, tress_wire_error *err) {
  for (int i = 0; i < 3; i++)
    if (!isfinite(v[i]) || v[i] < 0.0f || v[i] > TRESS_WIRE_MAX_SIZE)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, offset, "%s[%d]: %g is not in [0, %g]", what, i, (double)v[i],
                       (double)TRESS_WIRE_MAX_SIZE);
  return TRESS_WIRE_OK;
}

tress_wire_status wire_check_xform(const tress_xform *x, const char *what, size_t offset, tress_wire_error *err) {
  tress_wire_status s = wire_check_vec3(x->p, TRESS_WIRE_MAX_COORD, what, offset, err);
  if (s) return s;
  for (int i = 0; i < 4; i++)
    if (!isfinite(x->q[i]))
      return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, offset, "%s: quaternion component %d is not finite", what, i);
  double n2 = (double)x->q[0] * x->q[0] + (double)x->q[1] * x->q[1] + (double)x->q[2] * x->q[2] +
              (double)x->q[3] * x->q[3];
  double n = sqrt(n2);
  if (fabs(n - 1.0) > TRESS_WIRE_QUAT_TOLERANCE)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_QUATERNION, offset, "%s: quaternion length %g is not 1", what, n);
  return TRESS_WIRE_OK;
}

static tress_wire_status check_range(float v, float lo, float hi, const char *what, size_t offset,
                                     tress_wire_error *err) {
  if (!isfinite(v) || v < lo || v > hi)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, offset, "%s: %g is not in [%g, %g]", what, (double)v, (double)lo,
                     (double)hi);
  return TRESS_WIRE_OK;
}

tress_wire_status wire_check_chain_settings(const tress_chain_settings *s, size_t offset, tress_wire_error *err) {
  tress_wire_status r;
  if ((r = check_range(s->damping, 0.0f, 1.0f, "chain damping", offset, err))) return r;
  if ((r = check_range(s->stiffness, 0.0f, 1.0f, "chain stiffness", offset, err))) return r;
  if ((r = check_range(s->gravity_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, "chain gravity_scale", offset, err)))
    return r;
  return check_range(s->wind_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, "chain wind_scale", offset, err);
}

tress_wire_status wire_check_accessory_settings(const tress_accessory_settings *s, size_t offset,
                                                tress_wire_error *err) {
  tress_wire_status r;
  if ((r = check_range(s->damping, 0.0f, 1.0f, "accessory damping", offset, err))) return r;
  if ((r = check_range(s->stiffness, 0.0f, 1.0f, "accessory stiffness", offset, err))) return r;
  if ((r = check_range(s->gravity_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, "accessory gravity_scale",
                       offset, err)))
    return r;
  if ((r = check_range(s->wind_scale, -TRESS_WIRE_MAX_SCALE, TRESS_WIRE_MAX_SCALE, "accessory wind_scale", offset, err)))
    return r;
  return check_range(s->max_swing_degrees, 0.0f, 180.0f, "accessory max_swing_degrees", offset, err);
}

tress_wire_status wire_check_rig_options(const tress_wire_rig_options *o, size_t offset, tress_wire_error *err) {
  if (o->sectors < 1 || o->sectors > 64 || o->segments < 1 || o->segments > 64)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, offset, "rig options: sectors %u, segments %u not in 1..64",
                     o->sectors, o->segments);
  if (1u + (uint32_t)o->sectors * o->segments > TRESS_WIRE_MAX_BONES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, offset,
                     "rig options: 1 + %u x %u bones is over the limit of %d", o->sectors, o->segments,
                     TRESS_WIRE_MAX_BONES);
  if (o->max_influences < 1 || o->max_influences > TRESS_WIRE_MAX_INFLUENCES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, offset, "rig options: max_influences %u not in 1..4",
                     o->max_influences);
  tress_wire_status r;
  if ((r = wire_check_vec3(o->axis, TRESS_WIRE_MAX_COORD, "rig options axis", offset, err))) return r;
  if (fabsf(o->axis[0]) + fabsf(o->axis[1]) + fabsf(o->axis[2]) < 1e-6f)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_FLOAT, offset, "rig options axis: zero vector");
  return wire_check_vec3(o->root, TRESS_WIRE_MAX_COORD, "rig options root", offset, err);
}

/* A name field (u8 length + UTF-8 bytes, at most TRESS_WIRE_MAX_NAME_BYTES), both ways. */
tress_wire_status wire_write_name(wire_writer *w, const char *s, const char *what, tress_wire_error *err) {
  size_t n = strnlen(s, TRESS_WIRE_MAX_NAME_BYTES + 1);
  tress_wire_status st = wire_check_utf8(s, n, TRESS_WIRE_MAX_NAME_BYTES, what, w->len, err);
  if (st) return st;
  wire_write_u8(w, (uint8_t)n);
  wire_write_bytes(w, s, n);
  return TRESS_WIRE_OK;
}

bool wire_read_format(wire_reader *r, uint8_t format, const char *section) {
  uint8_t got;
  char what[48];
  snprintf(what, sizeof what, "%s format", section);
  if (!wire_read_u8(r, &got, what)) return false;
  if (got == format) return true;
  r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_VERSION, 0, "%s format %u, this decoder knows %u", section, got,
                        format);
  return false;
}

bool wire_read_count(wire_reader *r, uint8_t *n, unsigned limit, const char *what, const char *things) {
  size_t at = wire_reader_offset(r);
  if (!wire_read_u8(r, n, what)) return false;
  if (*n <= limit) return true;
  r->status = wire_fail(r->err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, at, "%u %s, limit %u", *n, things, limit);
  return false;
}

bool wire_read_name(wire_reader *r, char *dst, const char *what) {
  size_t at = wire_reader_offset(r);
  uint8_t n;
  if (!wire_read_u8(r, &n, what)) return false;
  if (n > TRESS_WIRE_MAX_NAME_BYTES) {
    r->status = wire_fail(r->err, TRESS_WIRE_ERR_STRING_TOO_LONG, at, "%s: %u bytes, limit %d", what, n,
                          TRESS_WIRE_MAX_NAME_BYTES);
    return false;
  }
  if (!wire_read_bytes(r, dst, n, what)) return false;
  dst[n] = '\0';
  tress_wire_status st = wire_check_utf8(dst, n, TRESS_WIRE_MAX_NAME_BYTES, what, at, r->err);
  if (st) r->status = st;
  return st == TRESS_WIRE_OK;
}
