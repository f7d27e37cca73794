/* tress/rope.h - ropes and cloth sheets in the same sim: verlet particles, distance constraints,
 * pins that follow parts, bones or world points, collision through a host raycast, cutting, LOD. */
#ifndef TRESS_ROPE_H
#define TRESS_ROPE_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The host's world query: the first hit on the segment from -> to. Return false for no hit.
 * A non-finite hit or normal is treated as a broken callback: collision stops for that handle
 * and tress_rope_get_fault() says why (the rope keeps simulating without it). When the sim has
 * jobs (tress_sim_def.jobs), it is called from the game's workers, for several handles at once. */
typedef bool (*tress_raycast_fn)(void *user, const float from[3], const float to[3], float hit[3],
                                 float normal[3]);

typedef enum tress_relax_mode {
  TRESS_RELAX_DIRECT = 0,       /* ropes: one exact tridiagonal Newton solve along the chain per
                                   iteration; strain stays tiny at any substep length (rope default) */
  TRESS_RELAX_GAUSS_SEIDEL,     /* serial, in place, one projection per constraint per pass */
  TRESS_RELAX_JACOBI,           /* per-particle delta buffers averaged by constraint count and
                                   over-relaxed; a lone sheet splits it over the sim's jobs (cloth default) */
} tress_relax_mode;

const char *tress_relax_mode_name(tress_relax_mode mode); /* "direct", "gauss_seidel", "jacobi"; "unknown" */

/* One end of a rope. instance null: `position` is a fixed world point. Otherwise `position` is
 * an offset in the part's or bone's frame and the pin follows it (interpolated across substeps).
 * pinned false leaves the end free; its position still lays the rope out at bind. */
typedef struct tress_rope_pin {
  bool pinned;
  tress_id instance;
  float position[3];
} tress_rope_pin;

/* Colliders a rope or cloth sheet lists (tress_particle_settings.colliders). */
#define TRESS_PARTICLE_COLLIDERS_MAX 8

/* Settings shared by ropes and cloth. For skin, lod_distance and freeze_distance, 0 picks the
 * default in studs times the sim's units_per_stud; a value you set is in units. */
typedef struct tress_particle_settings {
  float damping;         /* 0.985: velocity kept per 1/60 s (frame-rate independent) */
  float gravity_scale;   /* 1 */
  float wind_scale;      /* 1 */
  int substeps;          /* per fixed step (rope 2, cloth 4); for iterative relaxation substeps buy
                            more stiffness per cost than iterations */
  int iterations;        /* relaxation passes (direct: Newton steps) per substep (rope 2, cloth 2) */
  tress_relax_mode relax;
  float over_relaxation; /* Jacobi only: 1.5, clamped to [1, 1.9] */
  bool tethers;          /* long-range tethers from every particle to the pins it hangs from (true) */
  tress_raycast_fn raycast; /* NULL: no collision */
  void *raycast_user;
  bool segment_collision;   /* also test each constraint segment (false) */
  float skin;               /* 0.01 studs: how far above a hit surface a particle is put back */
  float lod_distance;       /* 150 studs: beyond it the handle ticks at 15 Hz with lod_substeps; < 0: never */
  int lod_substeps;         /* 4 per 15 Hz tick */
  float freeze_distance;    /* 450 studs: beyond it the handle freezes; < 0: never */
  /* The sim's colliders (tress_sim_create_collider) every free particle is pushed out of (into,
   * for an inside shape; in front of, for a plane) after relaxation, each substep, in order,
   * keeping collider_radius clear. Bind refuses a destroyed or another sim's id
   * (TRESS_ERR_STALE_ID / TRESS_ERR_WRONG_OWNER); a collider destroyed later is dropped. */
  uint32_t collider_count;  /* 0 */
  tress_collider_id colliders[TRESS_PARTICLE_COLLIDERS_MAX];
  float collider_radius;    /* 0 units */
} tress_particle_settings;

typedef struct tress_rope_def {
  tress_rope_pin start, end;
  uint32_t segments;          /* 20 */
  float length;               /* 20 units (scaled by units_per_stud) */
  tress_particle_settings settings;
  /* Optional: one part per segment, placed at the segment midpoint with its +Y axis along the
   * segment of the drawn points (see tress_rope_get_points), written on frames where they moved.
   * NULL for render-only ropes (read tress_rope_get_points). */
  const tress_id *output_parts;
  uint32_t output_part_count; /* 0 or segments */
} tress_rope_def;

typedef struct tress_cloth_pin {
  uint32_t particle;  /* row * width + column */
  tress_id instance;  /* null: stays at its bind position; else follows the part or bone, offset captured at bind */
} tress_cloth_pin;

/* A width x height grid laid out at origin + column * step_u + row * step_v, with structural
 * (horizontal, vertical) and shear (both diagonals) constraints: (w-1)h + w(h-1) + 2(w-1)(h-1). */
typedef struct tress_cloth_def {
  uint32_t width, height;    /* 20 x 20 */
  float origin[3];
  float step_u[3];           /* (1, 0, 0) */
  float step_v[3];           /* (0, -1, 0) */
  const tress_cloth_pin *pins;
  uint32_t pin_count;
  tress_particle_settings settings;
} tress_cloth_def;

tress_rope_def tress_default_rope_def(void);
tress_cloth_def tress_default_cloth_def(void);

/* Ropes and cloth are sim handles: tress_handle_destroy and tress_handle_is_valid apply.
 * Errors: TRESS_ERR_INVALID_ARGUMENT (0 segments, length <= 0 or not finite, a pin on a stale or
 * non-part/bone instance, bad grid) with the reason in *err (which may be NULL); err is emptied
 * on success. The handle destroys itself when any instance it is pinned to is destroyed (like
 * every sim handle whose root goes): its points are gone with it and tress_handle_is_valid()
 * turns false. */
tress_result tress_sim_bind_rope(tress_sim *sim, const tress_rope_def *def, tress_handle_id *out, tress_error *err);
tress_result tress_sim_bind_cloth(tress_sim *sim, const tress_cloth_def *def, tress_handle_id *out, tress_error *err);

/* Particle positions as drawn this frame (x y z per point, rope: segments + 1, cloth: row-major).
 * Writes up to max_points and returns the total count in *count. Works for ropes and cloth.
 * The sim steps at fixed_hz; on a frame that took no fixed step, or had time left after the last
 * one (a 144 Hz game), the points are the last step's particles carried with the pins' parts from
 * where that step left them to where they are now, so a drawn rope stays on its pins instead of
 * trailing them and snapping back. One pinned part (or all pins on one part): every point moves
 * rigidly with it. A rope pinned to two parts blends the two motions by arc length from its ends
 * (a piece cut off a pin follows only the pins it still hangs on); cloth pinned to several blends
 * each particle's two nearest parts, weighted inversely to their bind-layout distance. Display
 * only: the simulation never sees it, and on a frame whose last step ended at the frame's end
 * (a 60 Hz game) the points are the particle state bit for bit. Output parts follow the same
 * points and are rewritten only on frames where they moved. */
tress_result tress_rope_get_points(const tress_sim *sim, tress_handle_id h, float *xyz, uint32_t max_points,
                               uint32_t *count);
/* Removes segment [0, segments) without reallocating; tethers are rebuilt from the pins, so a
 * piece no pin holds falls freely. Cutting an already cut segment is TRESS_ERR_INVALID_ARGUMENT. */
tress_result tress_rope_cut(tress_sim *sim, tress_handle_id h, uint32_t segment);
/* Removes the cloth constraint between particles a and b (any order), without reallocating. */
tress_result tress_cloth_cut(tress_sim *sim, tress_handle_id h, uint32_t a, uint32_t b);
/* Live distance constraints (structural + shear for cloth, segments for a rope). */
uint32_t tress_rope_get_constraint_count(const tress_sim *sim, tress_handle_id h);
/* A safe stop that happened at run time (a raycast returning NaN, a non-finite state), or NULL. */
const char *tress_rope_get_fault(const tress_sim *sim, tress_handle_id h);

typedef enum tress_rope_lod {
  TRESS_ROPE_FULL = 0,  /* every fixed step */
  TRESS_ROPE_REDUCED,   /* 15 Hz with lod_substeps */
  TRESS_ROPE_FROZEN,
} tress_rope_lod;
/* "full", "reduced", "frozen"; "unknown" for a value not listed. */
const char *tress_rope_lod_name(tress_rope_lod lod);
tress_rope_lod tress_rope_get_lod(const tress_sim *sim, tress_handle_id h);

#ifdef __cplusplus
}
#endif

#endif
