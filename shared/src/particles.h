/* particles.h - one particle system (a rope or a cloth sheet) as flat arrays, and the tick that
 * moves it: verlet substeps, Gauss-Seidel or Jacobi relaxation, tethers, swept collision. */
#ifndef TRESS_PARTICLES_H
#define TRESS_PARTICLES_H

#include "sim_internal.h"
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
} particle_pin;

/* A tether: a particle may be no farther from a pinned particle than the rest path between them. */
typedef struct particle_tether {
  uint32_t particle, anchor;
  float max_length;
} particle_tether;

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
  /* pins and tethers */
  particle_pin *pins;
  uint32_t pin_count;
  particle_tether *tethers;
  uint32_t tether_count, tether_cap;
  /* settings, already scaled to units */
  tress_particle_settings settings;
  uint32_t segments;    /* ropes: segment count (constraint k's original index is ca[k]) */
  tress_id *output_parts;
  uint32_t output_part_count;
  /* run-time state */
  float h_last;         /* substep length of the last tick, to rescale velocity when it changes */
  uint64_t step_index;  /* fixed steps seen, staggers 15 Hz ticks */
  uint32_t lod_pending; /* fixed steps since the last reduced-rate tick */
  tress_rope_lod lod;
  bool fresh;           /* pins have no previous frame yet */
  bool collision_off;   /* the raycast callback misbehaved */
  bool stopped;         /* a non-finite state was caught: frozen */
  const char *fault;
  float center[3];      /* mean particle position, for culling and LOD */
} tress_particles;

/* Allocates every array for n particles and m_cap constraints (zeroed). NULL on failure. */
tress_particles *tress__particles_alloc(uint32_t n, uint32_t m_cap, uint32_t pin_count);
void tress__particles_free(tress_particles *ps);
/* After constraints or pins change (bind, cut): inverse masses, weights, Jacobi adjacency,
 * tethers. Never allocates. */
void tress__particles_rebuild(tress_particles *ps);
/* Removes constraint k, keeping the order of the rest (no reallocation), and rebuilds. */
void tress__particles_remove_constraint(tress_particles *ps, uint32_t k);

typedef struct particle_env {
  float accel[3]; /* gravity * gravity_scale + wind * wind_scale */
  const tress_sim_def *def; /* task callbacks */
} particle_env;

/* One tick of length tick_dt in `substeps` substeps; pins move from tick_prev to target. */
void tress__particles_tick(tress_particles *ps, const particle_env *env, float tick_dt, int substeps);
void tress__particles_update_center(tress_particles *ps);

/* Registry helpers (rope.c) that cloth.c binds through. */
tress_particle_settings tress__particle_settings_resolve(const tress_particle_settings *in, float units_per_stud);
/* A part or bone that exists; pins accept nothing else. */
bool tress__pin_instance_ok(const tress_scene *scene, tress_id id);
/* Records why a bind failed and returns TRESS_ERR_INVALID_ARGUMENT. */
tress_result tress__ropes_fail(tress_sim *sim, const char *why);
/* Takes ownership of ps (freed on failure): stores it, allocates its handle, listens on its pins. */
tress_result tress__ropes_register(tress_sim *sim, tress_particles *ps, tress_handle_id *out);

#endif
