/* wire_internal.h - the codec's private pieces: a bounded reader and a counting writer over byte
 * buffers, the decoder-owned arena, and the field validators encode and decode both run. */
#ifndef TRESS_WIRE_INTERNAL_H
#define TRESS_WIRE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/msg.h"

/* ---- error reporting ----------------------------------------------------------------------- */

/* Records the first failure only: later, more generic failures never overwrite the cause. */
tress_wire_status wire_fail(tress_wire_error *err, tress_wire_status status, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- reader: (pointer, remaining), never reads past the end ---------------------------------- */

typedef struct wire_reader {
  const uint8_t *p;
  size_t remaining;
  size_t base_len;  /* length of the whole buffer, so offset = base_len - remaining */
  size_t base_off;  /* added to offsets (payloads decoded from an inflated copy report 0-based) */
  tress_wire_error *err;
  tress_wire_status status; /* first failure, sticky */
} wire_reader;

static inline size_t wire_reader_offset(const wire_reader *r) { return r->base_off + (r->base_len - r->remaining); }

static inline bool wire_read_bytes(wire_reader *r, void *dst, size_t n, const char *what) {
  if (r->status != TRESS_WIRE_OK) return false;
  if (n > r->remaining) {
    r->status = wire_fail(r->err, TRESS_WIRE_ERR_TRUNCATED, wire_reader_offset(r),
                          "%s: needs %zu bytes, %zu left", what, n, r->remaining);
    return false;
  }
  if (n) memcpy(dst, r->p, n);
  r->p += n;
  r->remaining -= n;
  return true;
}

static inline bool wire_read_u8(wire_reader *r, uint8_t *v, const char *what) { return wire_read_bytes(r, v, 1, what); }

static inline bool wire_read_u16(wire_reader *r, uint16_t *v, const char *what) {
  uint8_t b[2];
  if (!wire_read_bytes(r, b, 2, what)) return false;
  *v = (uint16_t)(b[0] | (b[1] << 8));
  return true;
}

static inline bool wire_read_u32(wire_reader *r, uint32_t *v, const char *what) {
  uint8_t b[4];
  if (!wire_read_bytes(r, b, 4, what)) return false;
  *v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
  return true;
}

static inline bool wire_read_u64(wire_reader *r, uint64_t *v, const char *what) {
  uint32_t lo, hi;
  if (!wire_read_u32(r, &lo, what) || !wire_read_u32(r, &hi, what)) return false;
  *v = (uint64_t)lo | ((uint64_t)hi << 32);
  return true;
}

static inline bool wire_read_f32(wire_reader *r, float *v, const char *what) {
  uint32_t bits;
  if (!wire_read_u32(r, &bits, what)) return false;
  memcpy(v, &bits, 4);
  return true;
}

/* ---- writer: counts always, stores while it fits --------------------------------------------- */

typedef struct wire_writer {
  uint8_t *buf;  /* NULL: measure only */
  size_t cap;
  size_t len;    /* bytes the message needs so far (may exceed cap) */
  bool bound;    /* measuring an upper bound: compressed payloads count their worst case */
} wire_writer;

static inline void wire_write_bytes(wire_writer *w, const void *src, size_t n) {
  if (w->buf && n && w->len + n <= w->cap) memcpy(w->buf + w->len, src, n);
  w->len += n;
}

static inline void wire_write_u8(wire_writer *w, uint8_t v) { wire_write_bytes(w, &v, 1); }

static inline void wire_write_u16(wire_writer *w, uint16_t v) {
  uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  wire_write_bytes(w, b, 2);
}

static inline void wire_write_u32(wire_writer *w, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  wire_write_bytes(w, b, 4);
}

static inline void wire_write_u64(wire_writer *w, uint64_t v) {
  wire_write_u32(w, (uint32_t)v);
  wire_write_u32(w, (uint32_t)(v >> 32));
}

static inline void wire_write_f32(wire_writer *w, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  wire_write_u32(w, bits);
}

/* ---- arena: every array a decoded message owns, freed at once ------------------------------- */

/* Zeroed storage chained on *arena; NULL on allocation failure. */
void *wire_arena_alloc(void **arena, size_t bytes);
void wire_arena_release(void **arena);

/* ---- validators (shared by encode and decode; offset is for the message only) ---------------- */

/* A name field of a section (u8 length + UTF-8, <= TRESS_WIRE_MAX_NAME_BYTES): writes it, or
 * reads it into dst (TRESS_WIRE_NAME_CAP bytes), setting r->status on failure. */
tress_wire_status wire_write_name(wire_writer *w, const char *s, const char *what, tress_wire_error *err);
bool wire_read_name(wire_reader *r, char *dst, const char *what);
/* A section's leading format byte: BAD_VERSION unless it is `format` ("<section> format %u, this
 * decoder knows %d"). A u8 count: COUNT_OVER_LIMIT at its offset when over `limit` ("%u <things>,
 * limit %d"); `what` names the field when the bytes end. Both set r->status on failure. */
bool wire_read_format(wire_reader *r, uint8_t format, const char *section);
bool wire_read_count(wire_reader *r, uint8_t *n, unsigned limit, const char *what, const char *things);
tress_wire_status wire_check_utf8(const char *s, size_t n, size_t max_bytes, const char *what, size_t offset,
                                  tress_wire_error *err);
tress_wire_status wire_check_xform(const tress_xform *x, const char *what, size_t offset, tress_wire_error *err);
tress_wire_status wire_check_vec3(const float v[3], float max_abs, const char *what, size_t offset,
                                  tress_wire_error *err);
tress_wire_status wire_check_size(const float v[3], const char *what, size_t offset, tress_wire_error *err);
tress_wire_status wire_check_chain_settings(const tress_chain_settings *s, size_t offset, tress_wire_error *err);
tress_wire_status wire_check_accessory_settings(const tress_accessory_settings *s, size_t offset,
                                                tress_wire_error *err);
tress_wire_status wire_check_rig_options(const tress_wire_rig_options *o, size_t offset, tress_wire_error *err);

/* ---- skin payload (skin.c) ------------------------------------------------------------------ */

/* Bytes of the uncompressed weight planes for a skin header. */
size_t wire_skin_raw_bytes(uint32_t vertex_count, uint8_t influences, uint8_t weight_format);
tress_wire_status wire_skin_check(const tress_wire_skin *skin, uint32_t bone_count, size_t offset,
                                  tress_wire_error *err);
tress_wire_status wire_skin_write(wire_writer *w, const tress_wire_skin *skin, tress_wire_error *err);
tress_wire_status wire_skin_read(wire_reader *r, tress_wire_skin *skin, uint32_t bone_count, void **arena);

#endif
