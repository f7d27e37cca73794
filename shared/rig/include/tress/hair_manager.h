/* tress/hair_manager.h - the seed's HairKit.attach client manager, for games that rig on the
 * client: watch characters, rig their hair off the game thread (the manager's own workers or the
 * game's job system), bind each character once. */
#ifndef TRESS_HAIR_MANAGER_H
#define TRESS_HAIR_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/rig.h"
#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tress_hair_manager tress_hair_manager;

/* The seed's Hair.Rigged, called from tress_hair_manager_update on the game's thread. */
typedef void (*tress_hair_rigged_fn)(void *user, tress_id character, tress_id mesh_part,
                                     const char (*bone_names)[TRESS_NAME_MAX], uint32_t bone_count);

/* The game's job system. run(job) rigs one mesh: it only reads the job's mesh and writes the job
 * (never the scene), so it may run on any thread, or inline inside submit_job. Contract:
 * - run every job exactly once; dropping one leaks it. A full host queue runs the job inline;
 * - a job may be run at any time, also after tress_hair_manager_destroy: destroy cancels the
 *   jobs the host has not started (a cancelled run only frees the job) and
 *   waits only for runs already under way (one rig each), so a host that drains its queue
 *   on the game thread, or only after destroy, can never deadlock it;
 * - submit_job is called only from tress_hair_manager_update, on the game thread. */
typedef void (*tress_hair_submit_job_fn)(void *job_user, void (*run)(void *job), void *job);

/* 64 MiB: a rig holds its source mesh and its bake, about 130 bytes per vertex (a 3.5k-vertex
 * sample hair is 0.47 MiB, a 40k-vertex hero hair about 5 MiB), so 64 MiB keeps a dozen hero
 * hairs or a hundred sample hairs in flight, more than 8 workers can use, while 50 characters
 * attached in one frame no longer hold every bake at once. */
#define TRESS_HAIR_MANAGER_DEFAULT_INFLIGHT_BYTES ((size_t)64 << 20)

/* HairKit's default match, the one rule the hair manager, the rig server and the client share:
 * the Hair accessory type, or "hair" anywhere in the name (any case). name may be NULL. */
bool tress_accessory_is_hair(tress_accessory_type type, const char *name);

typedef struct tress_hair_manager_def {
  tress_scene *scene;              /* required; the manager only touches it inside update() */
  tress_sim *sim;                  /* characters with matched hair bind here once; NULL binds nothing */
  tress_rig_opts rig;              /* plan options and the owns_asset gate (checked before queueing) */
  tress_accessory_match_fn match;  /* NULL: Hair type or "hair" in the name */
  void *match_user;
  bool has_settings;               /* false: the sim's default chain settings */
  tress_chain_settings settings;
  bool has_accessory_settings;
  tress_accessory_settings accessory_settings;
  double debounce_seconds;         /* 0.25: the pass runs this long after the last accessory arrived */
  uint32_t worker_threads;         /* 1 (at most 8); ignored when submit_job is set */
  /* NULL: the manager runs rigs on worker_threads pthreads of its own. Set: it creates no
   * thread and hands every rig to submit_job (see tress_hair_submit_job_fn for the contract);
   * results are still applied only inside tress_hair_manager_update. */
  tress_hair_submit_job_fn submit_job;
  void *job_user;
  /* Bytes of mesh data rigs may hold at once (source mesh + the bake, tress_mesh_get_bytes +
   * tress_rig_get_bake_bytes), from hand-off until the result is applied. A rig that would pass it
   * waits in a FIFO on the game thread until earlier ones are applied (budget comes back only in
   * update(), so about a budget's worth of rigs starts per frame); one larger than the whole
   * budget runs alone. 0 = unlimited. Default TRESS_HAIR_MANAGER_DEFAULT_INFLIGHT_BYTES. */
  size_t max_inflight_bytes;
  tress_hair_rigged_fn on_rigged;
  void *user;
} tress_hair_manager_def;

typedef struct tress_hair_manager_stats {
  uint32_t watched;        /* characters watched now */
  uint32_t passes;         /* character passes run */
  uint32_t rigs_started;   /* jobs handed to a worker or to submit_job */
  uint32_t rigs_applied;   /* bones + skinned mesh swapped in */
  uint32_t rigs_failed;    /* left boneless: the pendulum swings them */
  uint32_t skipped_in_flight; /* handles another pass (or manager) was already rigging */
  uint32_t binds;          /* bind_character calls (one per character per manager) */
  uint32_t queued;         /* rigs waiting now for the in-flight budget (after update's hand-off) */
  uint32_t peak_queued;    /* most rigs left waiting at the end of an update */
  uint64_t inflight_bytes; /* mesh bytes charged now: handed off and not yet applied */
  uint64_t peak_inflight_bytes;
} tress_hair_manager_stats;

tress_hair_manager_def tress_default_hair_manager_def(void);
tress_hair_manager *tress_hair_manager_create(const tress_hair_manager_def *def);
/* Cancels pending passes and rigs not started yet, waits for rigs already running (their
 * results are dropped) and creates nothing more. Jobs still held by the host stay safe to run:
 * they only free themselves. Call it on the game thread, before the scene is destroyed. */
void tress_hair_manager_destroy(tress_hair_manager *m);

/* Watches a character (CharacterAdded). Accessories present now, and every one that arrives
 * later, re-arm the character's deadline. Watching a watched character changes nothing. */
tress_result tress_hair_manager_watch(tress_hair_manager *m, tress_id character);
/* Drops the character's entry and pending deadline (PlayerRemoving). */
void tress_hair_manager_unwatch(tress_hair_manager *m, tress_id character);
/* Once per frame: notices new accessories, runs due passes, applies finished rigs, binds.
 * now is any monotonic clock in seconds. */
void tress_hair_manager_update(tress_hair_manager *m, double now);
/* True while a rig waits for the budget, is queued or running, or its result is not yet
 * applied (tests and shutdown wait on it). */
bool tress_hair_manager_is_busy(const tress_hair_manager *m);
tress_hair_manager_stats tress_hair_manager_get_stats(const tress_hair_manager *m);

#ifdef __cplusplus
}
#endif

#endif
