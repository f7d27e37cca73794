/* skin.c - the bulk part of a rig result: quantized skin weights, packed as planes, optionally
 * zstd-compressed.
 *
 * Wire layout (after the u32 vertex_count, u8 influences k, u8 weight_format, u8 compression
 * header) is k joint planes then k - 1 weight planes, slot-major:
 *   joints[slot 0] for every vertex (u8), ..., joints[slot k-1] for every vertex,
 *   weights[slot 0] for every vertex (u8 or u16 LE), ..., weights[slot k-2] for every vertex.
 * The last slot's weight is never sent: the decoder sets it to unit - (sum of the others), so
 * every vertex sums to exactly the quantization unit by construction and the only thing left
 * to check is that the sent weights do not exceed the unit. Slot-major planes put similar bytes
 * side by side (neighbouring band bones, smooth blends), which is what zstd compresses well.
 * A compressed payload is u32 compressed length + one zstd frame that must inflate to exactly
 * the plane size the header implies; that size is bounded by the vertex limit, so a hostile
 * frame cannot make the decoder allocate more than the documented maximum. */
#include <math.h>
#include <stdlib.h>

#ifdef TRESS_HAVE_ZSTD
#include <zstd.h>
#endif

#include "wire_internal.h"

/* Rig results are encoded once per rig and served to every client, late joiners included, so
 * a high level is a good trade for hair-sized payloads (milliseconds); past a megabyte the high
 * levels cost seconds for a few percent, so big payloads use a fast level. */
static int zstd_level(size_t raw) { return raw <= (1u << 20) ? 19 : 6; }

/* ---- quantization -------------------------------------------------------------------------- */

void tress_skin_quantize(const float *weights, uint32_t vertex_count, uint8_t influences,
                         tress_weight_format format, uint16_t *out) {
  uint32_t unit = tress_weight_unit(format);
  uint32_t k = influences < 1 ? 1 : (influences > 4 ? 4 : influences);
  for (uint32_t v = 0; v < vertex_count; v++) {
    const float *w = weights + (size_t)v * 4;
    uint16_t *q = out + (size_t)v * 4;
    double sum = 0.0;
    bool ok = true;
    for (uint32_t s = 0; s < k; s++) {
      if (!isfinite(w[s]) || w[s] < 0.0f) ok = false;
      else sum += w[s];
    }
    q[0] = q[1] = q[2] = q[3] = 0;
    if (!ok || sum <= 0.0) {
      q[0] = (uint16_t)unit;
      continue;
    }
    /* Largest remainder: floor every share, then hand the leftover units to the largest
     * fractional parts (earlier slot first on ties), so the total is exactly the unit. */
    double frac[4] = {0};
    uint32_t total = 0;
    for (uint32_t s = 0; s < k; s++) {
      double exact = (double)w[s] / sum * unit;
      double fl = floor(exact);
      if (fl > unit) fl = unit;
      q[s] = (uint16_t)fl;
      frac[s] = exact - fl;
      total += q[s];
    }
    while (total < unit) {
      uint32_t best = 0;
      for (uint32_t s = 1; s < k; s++)
        if (frac[s] > frac[best]) best = s;
      q[best]++;
      frac[best] = -1.0;
      total++;
    }
    while (total > unit) { /* only reachable through rounding of pathological inputs */
      uint32_t best = 0;
      for (uint32_t s = 1; s < k; s++)
        if (q[s] > q[best]) best = s;
      q[best]--;
      total--;
    }
  }
}

void tress_skin_dequantize(const uint16_t *weights, uint32_t vertex_count, tress_weight_format format, float *out) {
  float inv = 1.0f / (float)tress_weight_unit(format);
  for (uint32_t v = 0; v < vertex_count; v++) {
    const uint16_t *q = weights + (size_t)v * 4;
    float *w = out + (size_t)v * 4;
    int last = -1;
    for (int s = 0; s < 4; s++) {
      w[s] = (float)q[s] * inv;
      if (q[s]) last = s;
    }
    if (last < 0) continue;
    /* The last non-zero slot takes the complement of the slots before it, summed in slot order
     * as a shader adds them: for a partial sum S in [0, 1), fl(S + fl(1 - S)) is exactly 1 in
     * round-to-nearest (1 - S is exact when S >= 0.5; otherwise its rounding error is at most
     * 2^-25, which rounds back to 1), and the zero slots after it add nothing. S < 1 because
     * the integer weights before `last` leave at least one step for it, so the complement stays
     * positive and within a rounding error of q[last] / unit. */
    float partial = 0.0f;
    for (int s = 0; s < last; s++) partial += w[s];
    w[last] = 1.0f - partial;
  }
}

/* ---- wire ---------------------------------------------------------------------------------- */

size_t wire_skin_raw_bytes(uint32_t vertex_count, uint8_t influences, uint8_t weight_format) {
  size_t wbytes = weight_format == TRESS_WEIGHTS_U16 ? 2 : 1;
  return (size_t)vertex_count * influences + (size_t)vertex_count * (influences - 1u) * wbytes;
}

static tress_wire_status check_header(uint32_t vertex_count, uint8_t influences, uint8_t weight_format,
                                      uint8_t compression, size_t offset, tress_wire_error *err) {
  if (vertex_count > TRESS_WIRE_MAX_VERTICES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, offset, "skin: %u vertices, limit %u", vertex_count,
                     TRESS_WIRE_MAX_VERTICES);
  if (influences < 1 || influences > TRESS_WIRE_MAX_INFLUENCES)
    return wire_fail(err, TRESS_WIRE_ERR_COUNT_OVER_LIMIT, offset, "skin: %u influences, must be 1..4", influences);
  if (weight_format != TRESS_WEIGHTS_U8 && weight_format != TRESS_WEIGHTS_U16)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, offset, "skin: weight format %u", weight_format);
  if (compression != TRESS_COMPRESSION_NONE && compression != TRESS_COMPRESSION_ZSTD)
    return wire_fail(err, TRESS_WIRE_ERR_BAD_ENUM, offset, "skin: compression %u", compression);
#ifndef TRESS_HAVE_ZSTD
  if (compression == TRESS_COMPRESSION_ZSTD)
    return wire_fail(err, TRESS_WIRE_ERR_UNSUPPORTED, offset, "skin: zstd payload but this build has no zstd");
#endif
  return TRESS_WIRE_OK;
}

tress_wire_status wire_skin_check(const tress_wire_skin *skin, uint32_t bone_count, size_t offset,
                                  tress_wire_error *err) {
  tress_wire_status s =
      check_header(skin->vertex_count, skin->influences, skin->weight_format, skin->compression, offset, err);
  if (s) return s;
  if (skin->vertex_count && (!skin->joints || !skin->weights))
    return wire_fail(err, TRESS_WIRE_ERR_INVALID_MESSAGE, offset, "skin: %u vertices but no arrays", skin->vertex_count);
  uint32_t unit = tress_weight_unit((tress_weight_format)skin->weight_format);
  for (uint32_t v = 0; v < skin->vertex_count; v++) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < skin->influences; k++) {
      size_t i = (size_t)v * 4 + k;
      if (skin->joints[i] >= bone_count)
        return wire_fail(err, TRESS_WIRE_ERR_BAD_INDEX, offset, "skin: vertex %u slot %u joint %u >= %u bones", v, k,
                         skin->joints[i], bone_count);
      sum += skin->weights[i];
    }
    if (sum != unit)
      return wire_fail(err, TRESS_WIRE_ERR_BAD_WEIGHTS, offset, "skin: vertex %u weights sum to %u, not %u", v, sum,
                       unit);
  }
  return TRESS_WIRE_OK;
}

/* Writes the planes into dst (raw_bytes long). */
static void pack_planes(const tress_wire_skin *skin, uint8_t *dst) {
  uint32_t n = skin->vertex_count, k = skin->influences;
  for (uint32_t s = 0; s < k; s++)
    for (uint32_t v = 0; v < n; v++) *dst++ = skin->joints[(size_t)v * 4 + s];
  for (uint32_t s = 0; s + 1 < k; s++)
    for (uint32_t v = 0; v < n; v++) {
      uint16_t q = skin->weights[(size_t)v * 4 + s];
      *dst++ = (uint8_t)q;
      if (skin->weight_format == TRESS_WEIGHTS_U16) *dst++ = (uint8_t)(q >> 8);
    }
}

tress_wire_status wire_skin_write(wire_writer *w, const tress_wire_skin *skin, tress_wire_error *err) {
  wire_write_u32(w, skin->vertex_count);
  wire_write_u8(w, skin->influences);
  wire_write_u8(w, skin->weight_format);
  wire_write_u8(w, skin->compression);
  size_t raw = wire_skin_raw_bytes(skin->vertex_count, skin->influences, skin->weight_format);
  if (skin->compression == TRESS_COMPRESSION_NONE) {
    if (w->buf && w->len + raw <= w->cap) pack_planes(skin, w->buf + w->len);
    w->len += raw;
    return TRESS_WIRE_OK;
  }
#ifdef TRESS_HAVE_ZSTD
  size_t bound = ZSTD_compressBound(raw);
  if (w->bound) {
    w->len += 4 + bound;
    return TRESS_WIRE_OK;
  }
  uint8_t *planes = malloc(raw ? raw : 1);
  uint8_t *packed = malloc(bound);
  if (!planes || !packed) {
    free(planes);
    free(packed);
    return wire_fail(err, TRESS_WIRE_ERR_OUT_OF_MEMORY, w->len, "skin: no memory to compress %zu bytes", raw);
  }
  pack_planes(skin, planes);
  size_t clen = ZSTD_compress(packed, bound, planes, raw, zstd_level(raw));
  free(planes);
  if (ZSTD_isError(clen)) {
    free(packed);
    return wire_fail(err, TRESS_WIRE_ERR_BAD_COMPRESSION, w->len, "skin: zstd: %s", ZSTD_getErrorName(clen));
  }
  wire_write_u32(w, (uint32_t)clen);
  wire_write_bytes(w, packed, clen);
  free(packed);
  return TRESS_WIRE_OK;
#else
  (void)raw;
  return wire_fail(err, TRESS_WIRE_ERR_UNSUPPORTED, w->len, "skin: zstd requested but this build has no zstd");
#endif
}

/* Parses the planes from r into the 4-wide arrays, deriving each vertex's last weight. */
static tress_wire_status read_planes(wire_reader *r, tress_wire_skin *skin, uint32_t bone_count) {
  uint32_t n = skin->vertex_count, k = skin->influences;
  uint32_t unit = tress_weight_unit((tress_weight_format)skin->weight_format);
  size_t raw = wire_skin_raw_bytes(n, skin->influences, skin->weight_format);
  if (raw > r->remaining)
    return r->status = wire_fail(r->err, TRESS_WIRE_ERR_TRUNCATED, wire_reader_offset(r),
                                 "skin: %u vertices need %zu bytes, %zu left", n, raw, r->remaining);
  const uint8_t *p = r->p;
  for (uint32_t s = 0; s < k; s++)
    for (uint32_t v = 0; v < n; v++) {
      uint8_t j = *p++;
      if (j >= bone_count)
        return r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_INDEX, wire_reader_offset(r) + (size_t)(p - 1 - r->p),
                                     "skin: vertex %u slot %u joint %u >= %u bones", v, s, j, bone_count);
      skin->joints[(size_t)v * 4 + s] = j;
    }
  for (uint32_t s = 0; s + 1 < k; s++)
    for (uint32_t v = 0; v < n; v++) {
      uint16_t q = *p++;
      if (skin->weight_format == TRESS_WEIGHTS_U16) q |= (uint16_t)(*p++ << 8);
      skin->weights[(size_t)v * 4 + s] = q;
    }
  for (uint32_t v = 0; v < n; v++) {
    uint32_t sum = 0;
    for (uint32_t s = 0; s + 1 < k; s++) sum += skin->weights[(size_t)v * 4 + s];
    if (sum > unit)
      return r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_WEIGHTS, wire_reader_offset(r),
                                   "skin: vertex %u weights sum to %u, over the unit %u", v, sum, unit);
    skin->weights[(size_t)v * 4 + k - 1] = (uint16_t)(unit - sum);
  }
  r->p += raw;
  r->remaining -= raw;
  return TRESS_WIRE_OK;
}

tress_wire_status wire_skin_read(wire_reader *r, tress_wire_skin *skin, uint32_t bone_count, void **arena) {
  size_t at = wire_reader_offset(r);
  if (!wire_read_u32(r, &skin->vertex_count, "skin vertex_count") || !wire_read_u8(r, &skin->influences, "skin influences") ||
      !wire_read_u8(r, &skin->weight_format, "skin weight_format") || !wire_read_u8(r, &skin->compression, "skin compression"))
    return r->status;
  tress_wire_status s =
      check_header(skin->vertex_count, skin->influences, skin->weight_format, skin->compression, at, r->err);
  if (s) return r->status = s;
  size_t raw = wire_skin_raw_bytes(skin->vertex_count, skin->influences, skin->weight_format);
  size_t n4 = (size_t)skin->vertex_count * 4;

  if (skin->compression == TRESS_COMPRESSION_NONE) {
    /* Check the bytes exist before allocating anything for them. */
    if (raw > r->remaining)
      return r->status = wire_fail(r->err, TRESS_WIRE_ERR_TRUNCATED, wire_reader_offset(r),
                                   "skin: %u vertices need %zu bytes, %zu left", skin->vertex_count, raw, r->remaining);
    skin->joints = wire_arena_alloc(arena, n4);
    skin->weights = wire_arena_alloc(arena, n4 * sizeof(uint16_t));
    if (!skin->joints || !skin->weights)
      return r->status = wire_fail(r->err, TRESS_WIRE_ERR_OUT_OF_MEMORY, at, "skin: no memory for %u vertices",
                                   skin->vertex_count);
    return read_planes(r, skin, bone_count);
  }

#ifdef TRESS_HAVE_ZSTD
  uint32_t clen;
  if (!wire_read_u32(r, &clen, "skin compressed length")) return r->status;
  size_t frame_at = wire_reader_offset(r);
  if (clen > r->remaining)
    return r->status = wire_fail(r->err, TRESS_WIRE_ERR_TRUNCATED, frame_at, "skin: zstd frame of %u bytes, %zu left",
                                 clen, r->remaining);
  unsigned long long declared = ZSTD_getFrameContentSize(r->p, clen);
  if (declared != (unsigned long long)raw)
    return r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_COMPRESSION, frame_at,
                                 "skin: zstd frame declares %lld bytes, header implies %zu",
                                 declared >= ZSTD_CONTENTSIZE_ERROR ? -1LL : (long long)declared, raw);
  uint8_t *planes = malloc(raw ? raw : 1);
  skin->joints = wire_arena_alloc(arena, n4);
  skin->weights = wire_arena_alloc(arena, n4 * sizeof(uint16_t));
  if (!planes || !skin->joints || !skin->weights) {
    free(planes);
    return r->status = wire_fail(r->err, TRESS_WIRE_ERR_OUT_OF_MEMORY, at, "skin: no memory for %u vertices",
                                 skin->vertex_count);
  }
  size_t got = ZSTD_decompress(planes, raw, r->p, clen);
  if (ZSTD_isError(got) || got != raw) {
    free(planes);
    return r->status = wire_fail(r->err, TRESS_WIRE_ERR_BAD_COMPRESSION, frame_at,
                                 "skin: zstd frame does not inflate to %zu bytes (%s)", raw,
                                 ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
  }
  wire_reader inner = {planes, raw, raw, frame_at, r->err, TRESS_WIRE_OK};
  s = read_planes(&inner, skin, bone_count);
  free(planes);
  if (s) return r->status = s;
  r->p += clen;
  r->remaining -= clen;
  return TRESS_WIRE_OK;
#else
  return r->status = TRESS_WIRE_ERR_UNSUPPORTED;
#endif
}
