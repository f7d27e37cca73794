/* scene_build.h - an instance in one expression for tests that build scenes: the default def
 * with kind, name and parent set (tress_scene_create_instance); a null id when it is refused.
 * Header-only: a one-line helper. */
#ifndef TRESS_TEST_SCENE_BUILD_H
#define TRESS_TEST_SCENE_BUILD_H

#include "tress/scene.h"

static inline tress_id th_instance(tress_scene *scene, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def def = tress_default_instance_def();
  def.kind = kind;
  def.name = name;
  def.parent = parent;
  tress_id id = {0};
  tress_scene_create_instance(scene, &def, &id);
  return id;
}

#endif
