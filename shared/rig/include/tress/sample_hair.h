/* tress/sample_hair.h - the project's own procedural boneless hair meshes (bob, ponytail, long, afro)
 * for the demo, tests and benchmarks: y up, scalp near the top, ~1 unit = 1 stud. */
#ifndef TRESS_SAMPLE_HAIR_H
#define TRESS_SAMPLE_HAIR_H

#include "tress/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tress_sample_hair_style {
  TRESS_SAMPLE_HAIR_BOB = 0, /* chin-length strands around a scalp cap, short bangs */
  TRESS_SAMPLE_HAIR_PONYTAIL,/* strands swept back to a tie, then one gathered tail */
  TRESS_SAMPLE_HAIR_LONG,    /* strands falling well below the shoulders */
  TRESS_SAMPLE_HAIR_AFRO,    /* a thick volume of short curls around the head: no strand structure */
  TRESS_SAMPLE_HAIR_STYLE_COUNT
} tress_sample_hair_style;

/* Deterministic (same bytes every run). Indexed triangles with unit normals and uvs; no skin.
 * The head is a sphere of radius 0.6 centred at (0, 0.5, 0); the face looks toward +Z. */
tress_mesh *tress_sample_hair_create(tress_sample_hair_style style);
const char *tress_sample_hair_style_name(tress_sample_hair_style style);
/* false (and *out untouched) for NULL or a name no style has. */
bool tress_sample_hair_style_from_name(const char *text, tress_sample_hair_style *out);

#ifdef __cplusplus
}
#endif

#endif
