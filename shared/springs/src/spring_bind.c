/* spring_bind.c - an applied spring import into a sim: colliders first (chains name them), then
 * one tress_sim_bind_bone_chain per chain with the chain's own settings and collider set.
 *
 * A chain's root is held (as the import says: the spring's first joint is the one the body
 * drives) and everything below it moves; the importer already refused springs that would move
 * nodes they do not name, so binding from the root down moves exactly the spring's joints.
 */
#include "tress/spring_bind.h"

#include <stdlib.h>
#include <string.h>

bool tress_spring_chain_is_vrm(const tress_spring_chain *chain) {
  return chain && chain->vrm_joints && chain->joint_count > 0 &&
         (chain->source == TRESS_SPRING_FROM_VRM1 || chain->source == TRESS_SPRING_FROM_VRM0);
}

tress_chain_settings tress_spring_chain_get_sim_settings(const tress_spring_chain *chain, const float sim_gravity[3],
                                                     const tress_collider_id *colliders, uint32_t collider_count) {
  tress_chain_settings s = tress_spring_chain_get_settings(chain, sim_gravity);
  if (!chain) return s;
  s.radius = chain->radius;
  s.end_length = chain->end_length;
  if (tress_spring_chain_is_vrm(chain)) {
    /* the model its author tuned it in; the chain's values are its first joint's, and every
     * joint gets its own at bind (tress_handle_set_joint_settings) */
    const tress_joint_settings *j = &chain->vrm_joints[0];
    s.model = TRESS_SPRING_VRM;
    s.stiffness = j->stiffness;
    s.damping = j->damping;
    s.gravity_scale = j->gravity_scale;
    memcpy(s.gravity_dir, j->gravity_dir, sizeof s.gravity_dir);
    s.radius = j->radius;
    s.vrm_length = chain->vrm_length;
  } else {
    /* extras and names: the spring-bones seed, each bone turned to aim at where its child has
     * got to, only rotations written */
    s.rotations_only = true;
  }
  s.collider_count = 0;
  for (uint32_t k = 0; colliders && k < chain->colliders.count && s.collider_count < TRESS_CHAIN_COLLIDERS_MAX; k++) {
    uint32_t i = chain->colliders.index[k];
    if (i < collider_count && colliders[i].index1 != 0) s.colliders[s.collider_count++] = colliders[i];
  }
  return s;
}

/* VRM `center`: the bone of the spring's center node, when it is the root joint or one of its
 * ancestors (the sim's rule), with its motion taken out fully as UniVRM and three-vrm do; any
 * other center leaves the chain in world space rather than failing its bind. */
static void map_center(const tress_sim *sim, const tress_spring_chain *ch, const tress_spring_scene *scene,
                       tress_chain_settings *s) {
  s->center = (tress_id){0};
  if (ch->center < 0 || (uint32_t)ch->center >= scene->node_count) return;
  tress_id center = scene->node_bones[ch->center], root = scene->node_bones[ch->root];
  const tress_scene *world = tress_sim_get_def(sim)->scene;
  if (tress_id_is_null(center) ||
      !(tress_id_is_equal(center, root) || tress_instance_is_descendant_of(world, root, center)))
    return;
  s->center = center;
  s->center_inertia = 1.0f;
}

tress_result tress_spring_bind(tress_sim *sim, const tress_spring_import *imp, const tress_spring_scene *scene,
                               tress_spring_binding *out) {
  if (!out) return TRESS_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (!sim || !imp || !scene) return TRESS_ERR_INVALID_ARGUMENT;
  out->colliders = calloc(scene->collider_count ? scene->collider_count : 1, sizeof *out->colliders);
  out->handles = calloc(imp->chain_count ? imp->chain_count : 1, sizeof *out->handles);
  if (!out->colliders || !out->handles) {
    tress_spring_binding_free(out);
    return TRESS_ERR_OUT_OF_MEMORY;
  }
  out->collider_count = scene->collider_count;
  out->chain_count = imp->chain_count;
  tress_result first = TRESS_OK;
  for (uint32_t i = 0; i < scene->collider_count; i++) {
    tress_result r = tress_sim_create_collider(sim, &scene->colliders[i], &out->colliders[i]);
    if (r != TRESS_OK && first == TRESS_OK) first = r;
  }
  const float *g = tress_sim_get_def(sim)->gravity;
  float ups = tress_sim_get_def(sim)->units_per_stud;
  float gravity[3] = {g[0] * ups, g[1] * ups, g[2] * ups};
  for (uint32_t c = 0; c < imp->chain_count; c++) {
    const tress_spring_chain *ch = &imp->chains[c];
    if (ch->root < 0 || (uint32_t)ch->root >= scene->node_count || tress_id_is_null(scene->node_bones[ch->root])) {
      if (first == TRESS_OK) first = TRESS_ERR_NOTHING_TO_BIND;
      continue;
    }
    tress_chain_settings s = tress_spring_chain_get_sim_settings(ch, gravity, out->colliders, out->collider_count);
    map_center(sim, ch, scene, &s);
    tress_result r = tress_sim_bind_bone_chain(sim, scene->node_bones[ch->root], &s, &out->handles[c]);
    /* a VRM spring tunes every joint: each one's own values (the last joint is only a tail) */
    for (uint32_t j = 0; r == TRESS_OK && tress_spring_chain_is_vrm(ch) && j < ch->joint_count; j++) {
      int32_t node = ch->joints[j];
      if (node < 0 || (uint32_t)node >= scene->node_count || tress_id_is_null(scene->node_bones[node])) continue;
      tress_result jr = tress_handle_set_joint_settings(sim, out->handles[c], scene->node_bones[node], &ch->vrm_joints[j]);
      if (jr == TRESS_ERR_OUT_OF_MEMORY) r = jr;
    }
    if (r == TRESS_OK) out->bound++;
    else if (first == TRESS_OK) first = r;
  }
  return first;
}

void tress_spring_binding_free(tress_spring_binding *b) {
  if (!b) return;
  free(b->colliders);
  free(b->handles);
  memset(b, 0, sizeof *b);
}
