/* An out-of-tree game that simulates only: a part with a horizontal three-bone chain, bound and
 * stepped for one second. Exits 0 when the chain's tip fell under gravity. Built against an
 * installed tress by both tests/install consumers (find_package and pkg-config). */
#include <math.h>
#include <stdio.h>

#include <tress/scene.h>
#include <tress/sim.h>

int main(void) {
  tress_scene_def scene_def = tress_default_scene_def();
  tress_scene *scene = tress_scene_create(&scene_def);
  tress_instance_def instance = tress_default_instance_def(); /* a detached folder */
  instance.name = "Workspace";
  tress_id workspace, part;
  tress_scene_create_instance(scene, &instance, &workspace);
  instance.kind = TRESS_KIND_PART, instance.name = "Handle", instance.parent = workspace;
  tress_scene_create_instance(scene, &instance, &part);
  tress_id parent = part, tip = part;
  for (int i = 0; i < 3; i++) {
    instance.kind = TRESS_KIND_BONE, instance.name = "Bone", instance.parent = parent;
    instance.cframe = tress_xform_from_pos(i == 0 ? 0.0f : 1.0f, 0.0f, 0.0f);
    if (tress_scene_create_instance(scene, &instance, &tip) != TRESS_OK) return 1;
    parent = tip;
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  tress_sim *sim = tress_sim_create(&def);
  tress_handle_id handle = {0};
  if (!sim || tress_sim_bind(sim, part, NULL, &handle) != TRESS_OK) {
    fprintf(stderr, "bind failed\n");
    return 1;
  }
  float before = tress_bone_get_world(scene, tip).p[1];
  for (int frame = 0; frame < 60; frame++) tress_sim_step(sim, 1.0 / 60.0);
  float after = tress_bone_get_world(scene, tip).p[1];
  printf("tip y %.3f -> %.3f\n", before, after);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return isfinite(after) && after < before - 0.01f ? 0 : 1;
}
