/* tress/wire_attachments.h - a manifest's attachments section (tag TRESS_SECTION_ATTACHMENTS):
 * ropes and cloth sheets pinned to the character's parts by name, bound on every client. */
#ifndef TRESS_WIRE_ATTACHMENTS_H
#define TRESS_WIRE_ATTACHMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/codec.h"
#include "tress/msg.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_WIRE_ATTACHMENTS_FORMAT 1
#define TRESS_WIRE_MAX_ROPES 16
#define TRESS_WIRE_MAX_CLOTHS 8
#define TRESS_WIRE_MAX_ROPE_SEGMENTS 256
#define TRESS_WIRE_MAX_CLOTH_SIDE 64   /* particles along either side of a sheet */
#define TRESS_WIRE_MAX_ROPE_LENGTH 1000.0f

/* One end of a rope: pinned to a part of the character (by name) at an offset in its frame, or
 * free (it hangs; the offset from the other end's part lays the rope out at bind). */
typedef struct tress_wire_rope_end {
  bool pinned;
  char part[TRESS_WIRE_NAME_CAP]; /* a part of the manifest; required when pinned */
  float offset[3];                /* in the part's frame, units */
} tress_wire_rope_end;

/* Damping, gravity and wind of a rope or sheet (the rest of tress_particle_settings keeps the
 * sim's defaults on every client, so every client simulates the same thing). */
typedef struct tress_wire_particle_settings {
  float damping;       /* 0..1 */
  float gravity_scale; /* |.| <= TRESS_WIRE_MAX_SCALE */
  float wind_scale;
} tress_wire_particle_settings;

typedef struct tress_wire_rope {
  char name[TRESS_WIRE_NAME_CAP];
  tress_wire_rope_end start, end; /* start must be pinned */
  uint16_t segments;              /* 1..TRESS_WIRE_MAX_ROPE_SEGMENTS */
  float length;                   /* (0, TRESS_WIRE_MAX_ROPE_LENGTH] units */
  tress_wire_particle_settings settings;
} tress_wire_rope;

/* Which edge of the sheet is pinned to the part: every particle on it follows the part. */
typedef enum tress_wire_cloth_edge {
  TRESS_CLOTH_EDGE_TOP = 0, /* row 0 (a cape on the shoulders) */
  TRESS_CLOTH_EDGE_BOTTOM,  /* the last row */
  TRESS_CLOTH_EDGE_LEFT,    /* column 0 */
  TRESS_CLOTH_EDGE_RIGHT,   /* the last column (a flag on a pole) */
} tress_wire_cloth_edge;

/* A width x height grid laid out in the part's frame at origin + column * step_u + row * step_v. */
typedef struct tress_wire_cloth {
  char name[TRESS_WIRE_NAME_CAP];
  char part[TRESS_WIRE_NAME_CAP];
  uint8_t width, height;          /* 2..TRESS_WIRE_MAX_CLOTH_SIDE */
  float origin[3], step_u[3], step_v[3];
  uint8_t pinned_edge;            /* tress_wire_cloth_edge */
  tress_wire_particle_settings settings;
} tress_wire_cloth;

typedef struct tress_wire_attachments {
  uint32_t rope_count; /* 0..TRESS_WIRE_MAX_ROPES */
  tress_wire_rope ropes[TRESS_WIRE_MAX_ROPES];
  uint32_t cloth_count; /* 0..TRESS_WIRE_MAX_CLOTHS */
  tress_wire_cloth cloths[TRESS_WIRE_MAX_CLOTHS];
} tress_wire_attachments;

const char *tress_wire_cloth_edge_name(tress_wire_cloth_edge e); /* "top", ...; "unknown" */
bool tress_wire_cloth_edge_from_name(const char *text, tress_wire_cloth_edge *out); /* false for NULL or unknown */
/* The settings a rope or sheet gets when a manifest does not say: the sim's defaults. */
tress_wire_particle_settings tress_default_wire_particle_settings(void);

/* Validates and writes the section body to buf (NULL/cap 0 measures); *out_len the bytes. */
tress_wire_status tress_wire_attachments_encode(const tress_wire_attachments *a, uint8_t *buf, size_t cap,
                                                size_t *out_len, tress_wire_error *err);
/* Decodes a section body exactly (no trailing bytes). *out is fully written on success. */
tress_wire_status tress_wire_attachments_decode(const uint8_t *bytes, size_t len, tress_wire_attachments *out,
                                                tress_wire_error *err);
/* Every part name a rope end or a sheet pins to is one of the manifest's parts; otherwise false
 * with the name and attachment in err (BAD_INDEX). */
tress_wire_status tress_wire_attachments_check_parts(const tress_wire_attachments *a, const tress_wire_manifest *m,
                                                     tress_wire_error *err);
/* The manifest's attachments section, or NULL. */
const tress_wire_section *tress_wire_manifest_get_attachments(const tress_wire_manifest *m);
bool tress_wire_attachments_is_equal(const tress_wire_attachments *a, const tress_wire_attachments *b);

#ifdef __cplusplus
}
#endif

#endif
