/* tress/spring_bind.h - puts an applied spring import into a sim: its colliders become sim
 * colliders, each chain binds from its root bone with its own settings and collider set. */
#ifndef TRESS_SPRING_BIND_H
#define TRESS_SPRING_BIND_H

#include "tress/sim.h"
#include "tress/spring_import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one import bound: collider ids per import collider (null for one the sim refused) and
 * one handle per import chain (null for a chain that did not bind). Free with
 * tress_spring_binding_free (unbinds nothing: handles and colliders stay with the sim). */
typedef struct tress_spring_binding {
  uint32_t collider_count;
  tress_collider_id *colliders;
  uint32_t chain_count;
  tress_handle_id *handles;
  uint32_t bound; /* chains that bound */
} tress_spring_binding;

/* Whether an imported chain moves by the VRM spring model: VRM 1.0 and 0.x springs do (their
 * authors tuned them in it), with each joint's own values; extras and name-convention chains
 * use the pose model with rotations only (the spring-bones seed). */
bool tress_spring_chain_is_vrm(const tress_spring_chain *chain);

/* The full sim settings of an imported chain: tress_spring_chain_get_settings plus strand radius,
 * end length, its spring model (above; a VRM chain's values are its first joint's), and its
 * collider set mapped through `colliders` (the sim ids of the import's colliders; NULL leaves
 * the set empty). */
tress_chain_settings tress_spring_chain_get_sim_settings(const tress_spring_chain *chain, const float sim_gravity[3],
                                                     const tress_collider_id *colliders, uint32_t collider_count);

/* Adds scene->colliders to the sim, then binds every chain of imp whose root has a bone in
 * scene. Returns TRESS_OK when everything bound, else the first failure (the rest still bind). */
tress_result tress_spring_bind(tress_sim *sim, const tress_spring_import *imp, const tress_spring_scene *scene,
                               tress_spring_binding *out);
void tress_spring_binding_free(tress_spring_binding *b);

#ifdef __cplusplus
}
#endif

#endif
