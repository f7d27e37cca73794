/* tress/hair_manager.h - the seed's HairKit.attach client manager, for games that rig on the
 * client: watch characters, rig their hair on a worker thread, bind each character once. */
#ifndef TRESS_HAIR_MANAGER_H
#define TRESS_HAIR_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/rig.h"
#include "tress/scene.h"
#include "tress/sim.h"

typedef struct tress_hair_manager tress_hair_manager;

/* The seed's Hair.Rigged, called from tress_hair_manager_update on the game's thread. */
typedef void (*tress_hair_rigged_fn)(void *user, tress_id character, tress_id mesh_part,
                                     const char (*bone_names)[TRESS_NAME_MAX], uint32_t bone_count);

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
  uint32_t worker_threads;         /* 1 */
  tress_hair_rigged_fn on_rigged;
  void *user;
} tress_hair_manager_def;

typedef struct tress_hair_manager_stats {
  uint32_t watched;        /* characters watched now */
  uint32_t passes;         /* character passes run */
  uint32_t rigs_started;   /* jobs sent to the worker */
  uint32_t rigs_applied;   /* bones + skinned mesh swapped in */
  uint32_t rigs_failed;    /* left boneless: the pendulum swings them */
  uint32_t skipped_in_flight; /* handles another pass (or manager) was already rigging */
  uint32_t binds;          /* bind_character calls (one per character per manager) */
} tress_hair_manager_stats;

tress_hair_manager_def tress_default_hair_manager_def(void);
tress_hair_manager *tress_hair_manager_create(const tress_hair_manager_def *def);
/* Cancels pending passes and waits for running rigs (their results are dropped). */
void tress_hair_manager_destroy(tress_hair_manager *m);

/* Watches a character (CharacterAdded). Accessories present now, and every one that arrives
 * later, re-arm the character's deadline. Watching a watched character changes nothing. */
tress_result tress_hair_manager_watch(tress_hair_manager *m, tress_id character);
/* Drops the character's entry and pending deadline (PlayerRemoving). */
void tress_hair_manager_unwatch(tress_hair_manager *m, tress_id character);
/* Once per frame: notices new accessories, runs due passes, applies finished rigs, binds.
 * now is any monotonic clock in seconds. */
void tress_hair_manager_update(tress_hair_manager *m, double now);
/* True while a rig is queued or running (tests and shutdown wait on it). */
bool tress_hair_manager_busy(const tress_hair_manager *m);
tress_hair_manager_stats tress_hair_manager_stats_get(const tress_hair_manager *m);

#endif
