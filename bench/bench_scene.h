/* bench_scene.h - an instance in one expression for the benches' scene set-up: the default def
 * with kind, name and parent set (tress_scene_create_instance); a null id when it is refused. */
#ifndef TRESS_BENCH_SCENE_H
#define TRESS_BENCH_SCENE_H

#include "tress/scene.h"

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
