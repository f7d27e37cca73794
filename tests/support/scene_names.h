/* scene_names.h - an instance's name as a value, for asserts and formatting within one
 * expression (name_of(scene, id).s). Header-only: a one-line helper. */
#ifndef TRESS_TEST_SCENE_NAMES_H
#define TRESS_TEST_SCENE_NAMES_H

#include "tress/scene.h"

typedef struct name_buf {
  char s[TRESS_NAME_MAX];
} name_buf;

static inline name_buf name_of(const tress_scene *scene, tress_id id) {
  name_buf b;
  tress_instance_get_name(scene, id, b.s);
  return b;
}

#endif
