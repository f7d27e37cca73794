/* bench_scene.h - a scene and an instance in one expression for the benches' set-up: a scene from
 * tress_default_scene_def(), and the default instance def with kind, name and parent set
 * (tress_scene_create_instance; a null id when it is refused). */
#ifndef TRESS_BENCH_SCENE_H
#define TRESS_BENCH_SCENE_H

#include "tress/scene.h"

static inline tress_scene *bench_scene(void) {
  tress_scene_def def = tress_default_scene_def();
  return tress_scene_create(&def);
}

static inline tress_id bench_instance(tress_scene *scene, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def def = tress_default_instance_def();
  def.kind = kind;
  def.name = name;
  def.parent = parent;
  tress_id id = {0};
  tress_scene_create_instance(scene, &def, &id);
  return id;
}

#endif
