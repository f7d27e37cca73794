/* sim_internal.h - what the sim's writer modules share: the handle registry and the frame.
 *
 * sim.c owns the registry, the accumulator, culling and the frame loop. Each writer keeps its own
 * storage and exposes a small set of tress__<writer>_* functions that sim.c calls:
 *   chains*.c   bone chains and part chains (one structure-of-arrays batch for both; chains_internal.h)
 *   pendulum.c  accessory pendulums
 *   rope.c      ropes and cloth sheets
 * A handle names its writer (kind) and an index into that writer's storage (slot).
 */
#ifndef TRESS_SIM_INTERNAL_H
#define TRESS_SIM_INTERNAL_H

#include "tress/sim.h"

typedef enum tress_handle_kind {
  TRESS_HANDLE_BONES = 1,
  TRESS_HANDLE_PARTS,
  TRESS_HANDLE_ACCESSORY,
  TRESS_HANDLE_ROPE,
  TRESS_HANDLE_CLOTH,
} tress_handle_kind;

typedef struct tress_handle {
  uint32_t generation;
  bool alive;
  tress_handle_kind kind;
  tress_id root;                /* bound part, accessory, first part, or the rope's first pin */
  uint32_t slot;                /* index into the writer's storage */
  uint32_t next_same_root;      /* one-based index of the next live handle on the same root */
  tress_connection on_root;     /* root's DESTROYING listener */
  tress_id character;           /* model when bound by bind_character, else null */
  tress_connection on_character;/* the model's ANCESTRY_CHANGED / DESTROYING listener */
  bool eligible;                /* this frame: passed distance/should_simulate and the budget */
  bool was_awake;               /* last frame it stepped, so waking can snap */
  bool budgeted;                /* this frame: an enabled chain, so it takes a max_chains place */
  float cull_key;               /* squared camera distance, computed once per frame */
} tress_handle;

/* What one frame hands every writer: computed once in tress_sim_step. */
typedef struct tress_frame {
  int substeps;         /* 0..max_substeps */
  float dt;             /* 1 / fixed_hz */
  double time;          /* sim time at the end of the frame (after the substeps) */
  float gravity[3];     /* world units/s^2, already scaled by units_per_stud */
  float wind[3];        /* sampled once for this frame */
  float teleport_distance; /* 50 studs scaled */
  double span;          /* real time this frame covers (dt, or the clamp after a hitch) */
  double remaining;     /* accumulator left after the substeps */
  bool stalled;         /* the step's dt was over TRESS_STALL_SECONDS: chains snap */
} tress_frame;

/* The sim's colliders (sim_colliders.c): defs by index, a generation per index, and each
 * live collider's world pose, resolved once per frame by the chains that use any. */
typedef struct tress_sim_colliders {
  tress_collider_def *defs;
  uint32_t *generation;
  bool *alive;
  tress_collider_world *world;
  float *attach_scale; /* its attach instance's composed scale, re-read when the scene's change */
  uint64_t scale_epoch; /* the scene's scale epoch attach_scale was read at */
  uint32_t count, cap;
  uint32_t free_hint; /* no free index below it: adding scans from here */
} tress_sim_colliders;

void tress__colliders_free(tress_sim_colliders *colliders);
/* The zero-based index of a live collider id of this sim: TRESS_ERR_INVALID_ARGUMENT for a NULL
 * sim, TRESS_ERR_WRONG_OWNER for another sim's id, TRESS_ERR_STALE_ID for a null or destroyed one. O(1). */
tress_result tress__collider_lookup(const tress_sim *sim, tress_collider_id id, uint32_t *index);
/* Index (zero-based) of a live collider id, or -1. */
int32_t tress__collider_index(const tress_sim *sim, tress_collider_id id);
/* collider.c: *out = frame * def with every length (offset, tail, radius) times scale; the
 * pointer form of tress_collider_resolve_in (scale 1 gives its bits), for the per-frame loop. */
void tress__collider_resolve_scaled(const tress_xform *frame, float scale, const tress_collider_def *def,
                                    tress_collider_world *out);
/* world[i] for every index, on the sim's jobs; removed colliders never push (unused radius). */
void tress__colliders_resolve(tress_sim *sim);
/* The same in parts, for a caller that runs it inside a task of its own: the begin on the
 * stepping thread (true: some scale changed, re-read each attach's), then ranges of indices in
 * any split on any workers (each writes only its own entries). */
bool tress__colliders_resolve_begin(tress_sim *sim);
void tress__colliders_resolve_range(tress_sim *sim, bool rescale, uint32_t start, uint32_t end);
/* chains.c: drop collider index from every chain's set (called on remove). */
void tress__chains_forget_collider(tress_sim *sim, uint32_t index);

/* Where substep k falls inside the frame, 0 = the previous frame's poses, 1 = this frame's.
 * Writers interpolate pinned/animated poses with it, so a 30 fps and a 240 fps client that see
 * the same root motion take the same substeps. */
static inline float tress__frame_alpha(const tress_frame *f, int k) {
  if (f->span <= 0.0) return 1.0f;
  double a = 1.0 - (f->remaining + (double)(f->substeps - 1 - k) * f->dt) / f->span;
  return a < 0.0 ? 0.0f : (a > 1.0 ? 1.0f : (float)a);
}

struct tress_chains;
struct tress_pendulums;
struct tress_ropes;

struct tress_sim {
  tress_sim_colliders *colliders;
  uint32_t owner;     /* the tag every id this sim hands out carries (tress__owner_tag, core/internal/owner_tag.h) */
  bool profiling;     /* def.enable_profile: step times its phases into profile */
  tress_sim_profile profile;
  tress_sim_def def;
  tress_scene *scene;
  float max_distance; /* resolved from the role */
  int max_chains;
  tress_handle *handles;
  uint32_t handle_count, handle_cap, handle_free; /* free chain through slot, one-based */
  uint32_t live_handles;
  uint32_t live_chain_handles; /* of those, bone and part chains (the chains' slot pass keys them) */
  /* Per scene slot (root.index1): one-based index of the first live handle bound to it, so
   * bind's dedupe and a root's destruction cost the handles on that root, not all of them. */
  uint32_t *by_root;
  uint32_t by_root_cap;
  double accumulator;
  double time;
  bool have_camera;
  float camera[3];
  tress_sim_stats stats;
  tress_loop_fn loop_fn;
  void *loop_user;
  void (*loop_release)(void *loop_user); /* frees the adapter when the sim goes first */
  bool loop_running;
  /* cull scratch, reused every frame */
  uint32_t *cull_order;
  uint32_t cull_cap;
  struct tress_chains *chains;
  struct tress_pendulums *pendulums;
  struct tress_ropes *ropes;
};

/* Registry (sim.c). alloc connects a DESTROYING listener on root that destroys the handle. */
tress_handle_id tress__handle_alloc(tress_sim *sim, tress_handle_kind kind, tress_id root, uint32_t slot);
tress_handle *tress__handle_get(const tress_sim *sim, tress_handle_id h);
/* The live handle an id names in this sim: TRESS_ERR_INVALID_ARGUMENT for a NULL sim,
 * TRESS_ERR_WRONG_OWNER for another sim's id, TRESS_ERR_STALE_ID for a null or destroyed one. O(1). */
tress_result tress__handle_lookup(const tress_sim *sim, tress_handle_id h, tress_handle **out);
tress_handle_id tress__handle_id(const tress_sim *sim, const tress_handle *handle);
/* A writer's own stored handle (made by this sim, so the owner tag needs no check): the live
 * handle, or NULL once it is gone. Inline because the chains look theirs up every frame. */
static inline tress_handle *tress__handle_own(const tress_sim *sim, tress_handle_id h) {
  if (h.index1 == 0 || h.index1 > sim->handle_count) return NULL;
  tress_handle *handle = &sim->handles[h.index1 - 1];
  return (handle->alive && handle->generation == h.generation) ? handle : NULL;
}
/* The live handle of this kind bound to root, or null (dedupe for bind and bind_accessory). */
tress_handle_id tress__handle_find(const tress_sim *sim, tress_handle_kind kind, tress_id root);

/* Writer entry points sim.c calls. Each frame: prepare (read animated poses), then
 * substep(k) for k in [0, substeps), then write (outputs once per frame). Handles whose
 * `eligible` is false freeze: no integration, no writes. */
struct tress_chains *tress__chains_create(void);
void tress__chains_destroy(struct tress_chains *c);
void tress__chains_unbind(tress_sim *sim, tress_handle *h); /* restore poses, free the slot */
/* With sim->profiling, adds each phase's time (tile by tile) to sim->profile's chain_prepare,
 * chain_substep and chain_output. */
void tress__chains_frame(tress_sim *sim, const tress_frame *frame);
/* Monotonic clock in milliseconds, for the profile. */
double tress__clock_ms(void);
/* The culling's chain part, slots [start, end): each used slot's anchor read once for the frame
 * (the frame's prepare takes it instead of a second read), its root's world position (false when
 * it is not finite), whether it takes a max_chains place (not for a chain that never steps:
 * settings.enabled off or a refused scale) and tress__cull_finish on its handle; a block of
 * slots at a time, so the root positions and keys are one vector loop. Returns how many of those
 * handles want a max_chains place. */
uint32_t tress__chains_cull_slots(tress_sim *sim, uint32_t start, uint32_t end);
/* Before the culling's jobs, on the stepping thread: re-fetches where each chain's anchor is
 * read from when the scene's layout moved or chains were bound since. */
void tress__chains_cull_begin(tress_sim *sim);
uint32_t tress__chains_slot_count(const struct tress_chains *c);
/* No max_chains selection can happen this frame (no hook, no more handles than places), so no
 * handle's eligibility waits on another's: the chains' slots are culled by the frame's activity
 * pass instead (in the tiles, or the pass before them), which saves the frame a hand-off to the
 * workers. Set before tress__chains_frame, which then runs tress__chains_cull_slots itself. */
void tress__chains_cull_with_activity(struct tress_chains *c, bool on);
/* A handle's key from its root position p (have: p exists and is finite) and, without a
 * should_simulate hook, its distance test; 1 when it then wants a max_chains place. */
static inline uint32_t tress__cull_finish(const tress_sim *sim, tress_handle *h, bool have, float key) {
  h->cull_key = have && sim->have_camera ? key : 0.0f;
  if (sim->def.should_simulate) return 0;
  h->eligible = !sim->have_camera || h->cull_key <= sim->max_distance * sim->max_distance;
  return h->eligible && h->budgeted;
}

/* Allocated bytes of each writer's storage (tress_sim_get_memory_bytes). */
size_t tress__chains_memory_bytes(const struct tress_chains *c);
size_t tress__pendulums_memory_bytes(const struct tress_pendulums *p);

struct tress_pendulums *tress__pendulums_create(void);
void tress__pendulums_destroy(struct tress_pendulums *p);
void tress__pendulums_unbind(tress_sim *sim, tress_handle *h);
void tress__pendulums_frame(tress_sim *sim, const tress_frame *frame);
bool tress__pendulums_root_position(const tress_sim *sim, const tress_handle *h, float out[3]);
/* Marks one pendulum to snap to its worn pose on the next frame (a game-marked teleport). */
void tress__pendulums_reset(tress_sim *sim, const tress_handle *h);
/* Whether a non-uniform scale holds the accessory at its worn pose (pendulum.c, "Scale"). */
bool tress__pendulums_scale_refused(const tress_sim *sim, const tress_handle *h);

struct tress_ropes *tress__ropes_create(void);
void tress__ropes_destroy(struct tress_ropes *r);
void tress__ropes_unbind(tress_sim *sim, tress_handle *h);
void tress__ropes_frame(tress_sim *sim, const tress_frame *frame);
bool tress__ropes_root_position(const tress_sim *sim, const tress_handle *h, float out[3]);
/* Moves a rope or cloth with its first pin, at rest (a game-marked teleport). */
void tress__ropes_reset(tress_sim *sim, const tress_handle *h);

/* sim.c: tress_sim_reset's part for the non-chain writers (pendulums, ropes, cloth): every such
 * handle bound at or under root snaps on the next frame. chains.c's tress_sim_reset must call it. */
void tress__sim_reset_writers(tress_sim *sim, tress_id root);

/* Runs fn over [0, count) on the sim's jobs (tress/jobs.h: enqueue, then finish), or inline as
 * worker 0 when the sim has none. jobs.c. */
void tress__jobs_run(const tress_jobs *jobs, tress_task_fn *fn, uint32_t count, uint32_t min_range, void *context);
/* The worker count a def's jobs resolve to: 1 without enqueue_task, else worker_count clamped to
 * [1, TRESS_JOBS_MAX_WORKERS]. */
uint32_t tress__jobs_worker_count(const tress_jobs *jobs);
/* chains_jobs.c: per-worker scratch for the chain tiles (worker 0 is the batch's own). */
bool tress__chains_reserve_workers(struct tress_chains *c, uint32_t worker_count);
/* chains.c: chain slots for n chains (tress_sim_def.chain_capacity); false: out of memory. */
bool tress__chains_reserve_slots(struct tress_chains *c, uint32_t n);

/* Writers count handle-steps here. */
static inline void tress__count_simulated(tress_sim *sim, uint32_t handle_steps) {
  sim->stats.simulated += handle_steps;
}

#endif
