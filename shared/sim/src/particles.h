/* particles.h - one particle system (a rope or a cloth sheet) as flat arrays, the tick that moves
 * it, and rope groups: ropes of one shape interleaved lane by lane so one tick moves 16 at once. */
#ifndef TRESS_PARTICLES_H
#define TRESS_PARTICLES_H

#include "sim_internal.h"
#include "simd.h"
#include "tress/rope.h"

typedef struct particle_pin {
  uint32_t particle;
  tress_id instance;   /* null: fixed world point */
  float local[3];      /* offset in the instance's frame, or the world point */
  float frame_prev[3]; /* pin world position at the end of the previous frame */
  float frame_cur[3];  /* ... of this frame */
  float target[3];     /* where the current tick ends */
  float tick_prev[3];  /* where the last tick ended: substeps interpolate from here to target */
  tress_connection on_destroy; /* only for instances other than the handle's root */
  uint32_t source;     /* index into the handle's sources */
} particle_pin;

/* What the pins follow, once per distinct instance (null: fixed world points, never moving).
 * Display carry (rope.c): between ticks the particle state stays where the last tick left it
 * while the pins move on, so what a game reads is carried with each source from its pose at the
 * last tick to its pose now: drawn = carry_q * p + carry_t, a rigid motion that puts the source's
 * reference pin exactly on its point now. The state itself never changes. */
typedef struct particle_source {
  tress_id instance;
  uint32_t ref_pin;           /* a pin on this instance: the carry maps it exactly */
  tress_xform world;          /* the instance's world pose this frame (read once for all its pins) */
  float q_prev[4], q_cur[4];  /* its rotation at the end of the last / this frame */
  float q_tick[4], p_tick[3]; /* its rotation, and the reference pin's point, where the last tick ended */
  float carry_q[4], carry_t[3]; /* this frame's carry (identity while nothing moved since the tick) */
  float carry_m[9];           /* carry_q as a row-major matrix: reads apply m * p + t */
} particle_source;

/* A tether: a particle may be no farther from a pinned particle than the rest path between them. */
typedef struct particle_tether {
  uint32_t particle, anchor;
  float max_length;
} particle_tether;

struct rope_group;

typedef struct tress_particles {
  tress_handle_kind kind;
  tress_handle_id handle;
  uint32_t slot;
  /* particles */
  uint32_t n;
  float *x, *y, *z;    /* position */
  float *px, *py, *pz; /* position at the start of the substep (verlet previous) */
  float *w;            /* inverse mass: 0 pinned, 1 free */
  /* distance constraints, compacted in place on cut (m <= m_cap, never reallocated) */
  uint32_t m, m_cap;
  uint32_t *ca, *cb;
  float *rest;
  float *cwa, *cwb;     /* w[a] / (w[a] + w[b]) and w[b] / (...): how the correction splits */
  float *sx, *sy, *sz;  /* Jacobi: per-constraint correction; direct: constraint directions */
  float *tri_diag, *tri_upper, *tri_rhs; /* direct: the tridiagonal system along the chain */
  uint32_t *adj_start;  /* Jacobi: n + 1 offsets into adj_c / adj_k */
  uint32_t *adj_k;      /* constraint index */
  float *adj_c;         /* +cwa for the constraint's a end, -cwb for its b end */
  float *relax_scale;   /* over_relaxation / incident constraint count (0 for none) */
  /* Cloth grids: the Jacobi passes run as stencils. Constraint families H (i, i+1), V (i, i+w),
   * D1 (i, i+w+1), D2 (i+1, i+w), each indexed by its cell's top-left particle i; a missing or
   * cut constraint has zero weights. Arrays are padded by w+1 zeros on both sides so the
   * neighbour reads at i-w-1 .. i+w+1 need no bounds tests. */
  uint32_t grid_w;      /* 0: not a grid (CSR Jacobi) */
  float *grid_block;
  float *st_rest[4], *st_cwa[4], *st_cwb[4], *st_sx[4], *st_sy[4], *st_sz[4];
  /* pins and tethers */
  particle_pin *pins;
  uint32_t pin_count;
  particle_tether *tethers;
  uint32_t tether_count, tether_cap;
  /* display carry: sources (at most one per pin), and how each particle blends them */
  particle_source *sources;
  uint32_t source_count;
  bool carried;         /* this frame some source moved since the last tick: reads are carried */
  bool carry_whole;     /* every particle follows sources[0] alone (rigid) */
  uint32_t rope_source[2]; /* ropes: the start / end pin's source, UINT32_MAX when not pinned */
  uint32_t start_to, end_from; /* ropes: particles [0, start_to] hang on particle 0 (no cut
                                  between), [end_from, n) on the last one */
  uint32_t *carry_src;  /* cloth with several sources: per particle its two nearest ones ... */
  float *carry_w;       /* ... and their weights (sum 1), two per particle; NULL otherwise */
  /* settings, already scaled to units */
  tress_particle_settings settings;
  /* colliders: the settings' ids as sim indices (bind), and their world poses this frame */
  tress_collider_set collider_set;
  tress_collider_world collider_world[TRESS_PARTICLE_COLLIDERS_MAX];
  uint32_t collider_world_count;
  uint32_t segments;    /* ropes: segment count (constraint k's original index is ca[k]) */
  tress_id *output_parts;
  uint32_t output_part_count;
  /* run-time state */
  float h_last;         /* substep length of the last tick, to rescale velocity when it changes */
  uint64_t step_index;  /* fixed steps seen, staggers 15 Hz ticks */
  uint32_t lod_pending; /* fixed steps since the last reduced-rate tick */
  tress_rope_lod lod;
  bool collision_off;   /* the raycast callback misbehaved */
  bool stopped;         /* a non-finite state was caught: frozen */
  const char *fault;
  float center[3];      /* mean particle position, for culling and LOD */
  /* Interleaved ropes (rope_lanes.c): while group is set, the group's lane holds the positions
   * and x..pz here are scratch for the per-rope path (15 Hz LOD ticks copy the lane out and in). */
  struct rope_group *group;
  uint32_t lane;
  float accel[3];       /* this frame's gravity * gravity_scale + wind * wind_scale */
  float damp_h, damp;   /* powf(damping, h * 60) cached for substep length damp_h */
  uint32_t ticks;       /* ticks this frame */
} tress_particles;

/* Lanes per rope group: 16 floats are one AVX-512 register or two AVX2 ones, so two Thomas
 * recurrences are in flight at once (8 lanes measured 3.8 ns per projection, 16 lanes 2.3). */
#define ROPE_LANES 16
/* A group holding fewer ropes ticks them one by one: 16 lanes computed for one rope cost more
 * than the per-rope path (about 36 vs 20 ns per projection); from two ropes on, lanes win. */
#define ROPE_GROUP_MIN_USED 2

/* Ropes with the same particle count, substeps, iterations and relaxation (direct or
 * Gauss-Seidel), without collision (raycast or colliders), interleaved: element [i * ROPE_LANES + lane] is particle
 * (or segment) i of the lane's rope. Every per-particle loop then runs over ROPE_LANES
 * independent ropes side by side, which the compiler turns into vector instructions; even the
 * Thomas algorithm's serial recurrence runs 16 ropes per instruction pair. Lanes that do not tick this
 * fixed step (free, frozen, on their 15 Hz tick, stopped) are masked: inverse mass 0 and no pin
 * or tether writes, so their state stays bit-identical. Per lane the arithmetic is exactly the
 * per-rope path's, so a rope moves bit-identically in a group or alone. A cut segment stays in
 * the lane as a dead row (alive 0: no correction, no coupling) instead of being compacted. */
typedef struct rope_group {
  uint32_t n, m;             /* particles and segments per rope */
  int substeps, iterations;
  tress_relax_mode relax;    /* TRESS_RELAX_DIRECT or TRESS_RELAX_GAUSS_SEIDEL */
  uint32_t used;             /* lanes holding a rope */
  tress_particles *rope[ROPE_LANES];
  float *block;              /* one allocation for every array below */
  float *x, *y, *z, *px, *py, *pz; /* [particle][lane] */
  float *w;                  /* inverse mass, 0 pinned or empty lane */
  float *tmax[2];            /* tether length to the start / end pin, INFINITY for none */
  float *rest, *alive, *cwa, *cwb;     /* [segment][lane]; a cut segment has alive = cwa = cwb = 0 */
  float *nx, *ny, *nz, *diag, *upper, *rhs; /* direct solve scratch */
  /* per lane, set when it is armed for this fixed step */
  float act[ROPE_LANES];     /* 1 ticks now, 0 masked */
  float damp[ROPE_LANES];
  float accel[3][ROPE_LANES];
  float pin_on[2][ROPE_LANES];                /* start / end pinned (and armed) */
  float pin_from[2][3][ROPE_LANES], pin_to[2][3][ROPE_LANES];
  bool tethers;              /* some lane has a tether */
} rope_group;

typedef struct rope_groups {
  rope_group **items;
  uint32_t count, cap;
} rope_groups;

/* Puts a rope into a group of its shape (bind time; may allocate). A rope that does not fit the
 * interleaved path (collision, Jacobi, cloth) or meets an allocation failure stays per-rope. */
void tress__rope_groups_join(rope_groups *gs, tress_particles *ps);
/* Takes the rope out of its group (unbind); an empty group is freed. */
void tress__rope_groups_leave(rope_groups *gs, tress_particles *ps);
void tress__rope_groups_free(rope_groups *gs);
/* After a cut or rebuild: weights, rest lengths, alive flags and tethers copied into the lane. */
void tress__rope_lane_sync_topology(tress_particles *ps);
/* Lane positions to the rope's own arrays, and back (the per-rope path runs in between). */
void tress__rope_lane_load(tress_particles *ps);
void tress__rope_lane_store(tress_particles *ps);
/* Arms the rope's lane for the next group tick: pins (tick_prev -> target) and accel. */
void tress__rope_lane_arm(tress_particles *ps);
/* Ticks every group with an armed lane by tick_dt, then disarms: pins' tick_prev = target,
 * center updated, ticks counted, a non-finite lane stopped like the per-rope path does. */
void tress__rope_groups_tick(rope_groups *gs, float tick_dt, const tress_jobs *jobs); /* groups on the jobs */

/* The handle's particle system, or NULL: tests and benchmarks look at which path it runs. */
tress_particles *tress__particles_of(const tress_sim *sim, tress_handle_id h);
/* Takes a rope out of its group for good: it runs the per-rope path (benchmarks compare). */
void tress__rope_ungroup(tress_sim *sim, tress_handle_id h);

/* Particle i's position wherever it lives. */
static inline void tress__particle_position(const tress_particles *ps, uint32_t i, float out[3]) {
  if (ps->group) {
    size_t at = (size_t)i * ROPE_LANES + ps->lane;
    out[0] = ps->group->x[at];
    out[1] = ps->group->y[at];
    out[2] = ps->group->z[at];
  } else {
    out[0] = ps->x[i];
    out[1] = ps->y[i];
    out[2] = ps->z[i];
  }
}

/* Hot loops are built by simd.h's rule (as in chains_internal.h): the same bits on every build. */
#define TRESS_HOT_CLONES TRESS_VECTOR_CLONES

/* TRESS_IVDEP: iterations of the next loop touch disjoint elements (vectorize without alias
 * checks). TRESS_KEEP_LOOP: do not unroll it into scalar copies before the vectorizer sees it. */
#if defined(__GNUC__) && !defined(__clang__) /* clang: its own choice, warning-free */
#define TRESS_IVDEP _Pragma("GCC ivdep")
#define TRESS_KEEP_LOOP _Pragma("GCC unroll 1")
#else
#define TRESS_IVDEP
#define TRESS_KEEP_LOOP
#endif

/* Allocates every array for n particles and m_cap constraints (zeroed). NULL on failure. */
tress_particles *tress__particles_alloc(uint32_t n, uint32_t m_cap, uint32_t pin_count);
void tress__particles_free(tress_particles *ps);
/* Makes ps a grid of width w for the stencil Jacobi path (cloth bind). false on no memory. */
bool tress__particles_alloc_grid(tress_particles *ps, uint32_t w);
/* After constraints or pins change (bind, cut): inverse masses, weights, Jacobi adjacency,
 * tethers. Never allocates. */
void tress__particles_rebuild(tress_particles *ps);
/* Removes constraint k, keeping the order of the rest (no reallocation), and rebuilds. */
void tress__particles_remove_constraint(tress_particles *ps, uint32_t k);

typedef struct particle_env {
  float accel[3]; /* gravity * gravity_scale + wind * wind_scale */
  const tress_jobs *jobs; /* the Jacobi passes' workers; NULL: inline (the handle itself runs on one) */
} particle_env;

/* One tick of length tick_dt in `substeps` substeps; pins move from tick_prev to target. */
void tress__particles_tick(tress_particles *ps, const particle_env *env, float tick_dt, int substeps);
void tress__particles_update_center(tress_particles *ps);
/* powf(damping, h * 60), cached per substep length. */
float tress__particles_damping(tress_particles *ps, float h);
/* A non-finite particle: every non-finite coordinate back to the center, frozen, fault set. */
void tress__particles_stop_if_not_finite(tress_particles *ps);

/* Cloth with several pin sources (cloth.c, at bind): every particle's two nearest sources by
 * distance in the bind layout, weighted inversely to those distances. false on no memory. */
bool tress__cloth_carry_weights(tress_particles *ps);

/* Registry helpers (rope.c) that cloth.c binds through. */
tress_particle_settings tress__particle_settings_resolve(const tress_particle_settings *in, float units_per_stud);
/* A part or bone that exists; pins accept nothing else. */
bool tress__pin_instance_ok(const tress_scene *scene, tress_id id);
/* A refused def: err (may be NULL) gets TRESS_ERR_INVALID_ARGUMENT and why. */
tress_result tress__ropes_fail(tress_error *err, const char *why);
/* A bind's result, with err filled from the code when the failure left no message (out of memory). */
tress_result tress__ropes_finish_bind(tress_result r, tress_error *err);
/* Takes ownership of ps (freed on failure): its collider ids to indices (a stale or foreign id
 * fails), stores it, allocates its handle, listens on its pins. */
tress_result tress__ropes_register(tress_sim *sim, tress_particles *ps, tress_handle_id *out);
/* Drops collider index from every rope's and sheet's set (sim_colliders.c, on destroy). */
void tress__ropes_forget_collider(tress_sim *sim, uint32_t index);

#endif
