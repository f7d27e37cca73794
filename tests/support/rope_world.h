/* rope_world.h - the scene + sim the rope tests share: server role (static budgets, no device
 * bench), gravity -98.2 studs/s^2, 60 Hz fixed step. Header-only like sim_fixture.h. */
#ifndef TRESS_TEST_ROPE_WORLD_H
#define TRESS_TEST_ROPE_WORLD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tress/sim.h"
#include "support/scene_build.h"

typedef struct rope_world {
  tress_scene *scene;
  tress_sim *sim;
} rope_world;

/* reference_particle_paths: the sim def's switch to the per-rope and generic cloth loops. */
static inline rope_world rope_world_make_paths(bool reference_particle_paths) {
  rope_world w;
  w.scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = w.scene;
  def.role = TRESS_SIM_SERVER; /* static defaults: no device bench */
  def.gravity[1] = -98.2f;
  def.fixed_hz = 60.0f;
  def.reference_particle_paths = reference_particle_paths;
  w.sim = tress_sim_create(&def);
  assert_non_null(w.sim);
  return w;
}

static inline rope_world rope_world_make(void) { return rope_world_make_paths(false); }

static inline void rope_world_free(rope_world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
}

#endif
