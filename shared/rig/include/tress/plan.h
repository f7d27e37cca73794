/* tress/plan.h - plan(): the sector x band skeleton and skin weights for a boneless hair cloud.
 * Pure geometry: vertices in, bones + per-vertex weights out, no scene, no engine, no state. */
#ifndef TRESS_PLAN_H
#define TRESS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Caps so a hostile option cannot ask for millions of bones. 64 x 64 + 1 bones is already far
 * past any chain budget; the seed's defaults are 3 x 3. */
#define TRESS_PLAN_MAX_SECTORS 64
#define TRESS_PLAN_MAX_SEGMENTS 64
#define TRESS_PLAN_BONE_NAME_MAX 64

typedef enum tress_plan_status {
  TRESS_PLAN_OK = 0,
  TRESS_PLAN_ERR_EMPTY,       /* n == 0 or vertices == NULL */
  TRESS_PLAN_ERR_NOT_FINITE,  /* a NaN or infinite coordinate, or one over 1e15 from the root (distances would overflow) */
  TRESS_PLAN_ERR_ABOVE_ROOT,  /* no vertex below the root plane: nothing to hang chains on */
  TRESS_PLAN_ERR_OPTIONS,     /* sectors/segments 0 or over the cap, zero or non-finite axis/root */
  TRESS_PLAN_ERR_NO_ROOT,     /* has_root is false: plan() needs a root (rig() fills one in) */
  TRESS_PLAN_ERR_NO_MEMORY,
} tress_plan_status;

typedef enum tress_plan_mode {
  TRESS_PLAN_MODE_SECTORS = 0, /* the seed's sectors x bands */
  TRESS_PLAN_MODE_STRANDS,     /* one chain per strand group (dense angle between gaps), bones by arc
                                * length along the group's centre line; `sectors` is the group count */
} tress_plan_mode;

const char *tress_plan_mode_name(tress_plan_mode mode); /* "sectors", "strands"; "unknown" */
bool tress_plan_mode_from_name(const char *text, tress_plan_mode *out); /* false for NULL or unknown */

typedef struct tress_plan_opts {
  float root[3];          /* scalp anchor, same space as the vertices; required */
  bool has_root;          /* false = no root given (plan fails; rig uses top centre of bounds) */
  float axis[3];          /* growth direction, default (0, -1, 0); normalized internally */
  uint32_t sectors;       /* radial chains, default 3, 1..TRESS_PLAN_MAX_SECTORS */
  uint32_t segments;      /* bones per chain, default 3, 1..TRESS_PLAN_MAX_SEGMENTS */
  uint32_t max_influences;/* bones per vertex, default 2, clamped to 1..4 (a warning says so) */
  bool scalp_to_root;     /* default true: the scalp cap (hair on the head near the root) binds to HairRoot */
  bool fewer_bands_for_volume; /* default true: a mesh with no strand structure gets (segments + 1) / 2 bands */
  tress_plan_mode mode;   /* default TRESS_PLAN_MODE_SECTORS (the seed's plan) */
  uint32_t max_chains;    /* strand mode: at most this many chains, default 8, 1..TRESS_PLAN_MAX_SECTORS */
} tress_plan_opts;

/* Bits of tress_plan_result.warnings; warning_text says why in words. */
typedef enum tress_plan_warning {
  TRESS_PLAN_WARN_NO_STRANDS = 1u << 0,    /* no strand structure (a filled volume, no angular gaps) */
  TRESS_PLAN_WARN_EMPTY_SECTOR = 1u << 1,  /* a sector has no vertex: its chain follows the axis */
  TRESS_PLAN_WARN_EMPTY_BANDS = 1u << 2,   /* some bands hold no swinging vertex: bones placed on the chain */
  TRESS_PLAN_WARN_NO_GROUPS = 1u << 3,     /* strand mode found no gap between strand groups: sectors used */
  TRESS_PLAN_WARN_OPTION_CLAMPED = 1u << 4, /* an option out of its range was clamped (text: option, given, used) */
} tress_plan_warning;

/* One flag's name: "no_strands", "empty_sector", ...; "unknown" for anything else (several flags). */
const char *tress_plan_warning_name(tress_plan_warning warning);

#define TRESS_PLAN_WARNING_TEXT_MAX 640

/* Bone 0 is HairRoot; chain bone for 1-based sector s and band b is at index
 * 1 + (s - 1) * segments + (b - 1), named "Hair_S{s}_B{b}". Parents are 0-based indices here
 * (the seed's table is 1-based with 0 meaning "none"): HairRoot has -1, every _B1 has 0,
 * every other chain bone has the index just before it. */
typedef struct tress_plan_bone {
  char name[TRESS_PLAN_BONE_NAME_MAX];
  float position[3]; /* bind position in vertex space */
  int32_t parent;
} tress_plan_bone;

/* The plan's result (tress_plan_build fills it, tress_plan_result_free empties it). */
typedef struct tress_plan_result {
  uint32_t bone_count;
  uint32_t sectors, segments, max_influences; /* as used, after clamping */
  uint32_t vertex_count;
  float axis[3];       /* unit growth axis */
  float reference[3];  /* unit direction sector 1 is centred on (perpendicular to axis) */
  float depth;         /* deepest vertex below the root plane */
  uint32_t segments_requested;     /* opts.segments; segments is fewer for a strandless volume */
  bool symmetric;                  /* the hair is its own mirror image and so is the sector frame */
  float mirror_normal[3];          /* normal of that mirror plane (perpendicular to the axis) */
  bool head_found;                 /* a scalp dome was found under the hair */
  float head_centre[3], head_radius;
  uint32_t scalp_vertex_count;     /* below the root plane yet bound to HairRoot as scalp */
  uint32_t warnings;               /* tress_plan_warning bits */
  char warning_text[TRESS_PLAN_WARNING_TEXT_MAX]; /* "" without warnings */
  tress_plan_bone *bones;
  /* max_influences slots per vertex: vertex v's slots are joints/weights[v * max_influences + k],
   * sorted by weight descending; the used ones sum to 1, the rest are {0, 0}. influence_count[v]
   * says how many are used (1..max_influences). Kept this compact (13 bytes per vertex at the
   * default 2) because writing the result is most of plan()'s cost on a big mesh. */
  uint16_t *joints;
  float *weights;
  uint8_t *influence_count;
  void *block_; /* the one allocation behind every array above */
} tress_plan_result;

tress_plan_opts tress_default_plan_opts(void);

/* Plans a skeleton for n xyz vertices. On success fills *out (free with tress_plan_result_free).
 * On failure returns the status and leaves *out zeroed; tress_plan_status_name explains.
 *
 * Sectors come from the hair, not the world's axes: sector boundaries fall where the angular
 * vertex density around the axis is lowest (each boundary within a quarter sector of an even
 * grid), so a dense strand group is not cut; a hair whose density is its own mirror image gets
 * boundaries in mirrored pairs (result.symmetric). Sector 1 holds the densest angle (reference
 * is its centre) and the others follow turning toward axis x reference. Turning the vertices and
 * root about the axis turns the plan with them. Bands split [0, depth] into equal slices.
 *
 * The scalp: a sphere is fitted to the innermost hair near the root (the head); vertices near
 * the root on or inside it bind to HairRoot (scalp_to_root); band centroids still count them, so
 * a bone sits on the hair even where it lies on the head. An empty band's bone is a point on its
 * chain between its neighbours (toward the sector's deepest vertex past the last one); no bone
 * leaves the vertices' bounds. A volume with no strand structure is reported in warnings and gets fewer
 * bands (fewer_bands_for_volume). */
tress_plan_status tress_plan_build(const float *vertices, uint32_t n, const tress_plan_opts *opts, tress_plan_result *out);
void tress_plan_result_free(tress_plan_result *plan);
const char *tress_plan_status_name(tress_plan_status status);
/* The tress_result a status stands for: OK -> TRESS_OK, NO_MEMORY -> TRESS_ERR_OUT_OF_MEMORY, every
 * other (the vertices or the options are refused) -> TRESS_ERR_INVALID_ARGUMENT. */
tress_result tress_plan_status_to_result(tress_plan_status status);

#ifdef __cplusplus
}
#endif

#endif
