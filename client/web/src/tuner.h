/* tuner.h - the live tuning page's solver side: one skinned accessory's bones hung from a head
 * part, bound as bone chains and stepped by the real tress sim. The page (through wasm) and the
 * native check program (tests/web/tuner_trace.c) drive the same calls, so both run one scene.
 *
 * Transforms cross this edge as 7 floats: position x y z, rotation x y z w. Units are metres
 * (the sim runs with units_per_stud 0.28, so its stud-tuned defaults keep their feel). */
#ifndef TRESS_WEB_TUNER_H
#define TRESS_WEB_TUNER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tress_tuner tress_tuner;

/* The chain settings the page shows, in the manifest's names (protocol/manifest.schema.json,
 * spring_chain). */
typedef enum tress_tuner_setting {
  TRESS_TUNER_DAMPING = 0,
  TRESS_TUNER_STIFFNESS,
  TRESS_TUNER_GRAVITY_SCALE,
  TRESS_TUNER_WIND_SCALE,
  TRESS_TUNER_RADIUS,
  TRESS_TUNER_END_LENGTH,
  TRESS_TUNER_WIND_GUST,
  TRESS_TUNER_WIND_FREQUENCY,
  TRESS_TUNER_WEIGHT,
  TRESS_TUNER_ENABLED,
  TRESS_TUNER_SETTING_COUNT,
} tress_tuner_setting;

const char *tress_tuner_setting_name(tress_tuner_setting s); /* "damping", ...; "unknown" */
bool tress_tuner_setting_from_name(const char *text, tress_tuner_setting *out);

/* bone_capacity: the most bones add_bone will be given. NULL when memory runs out. */
tress_tuner *tress_tuner_create(uint32_t bone_capacity);
void tress_tuner_destroy(tress_tuner *t);

/* A bone at its rest transform relative to its parent (an earlier bone's index, or -1 for the
 * head). Returns its index, or -1 (full, bad parent, after bind). */
int32_t tress_tuner_add_bone(tress_tuner *t, const char *name, int32_t parent, const float rest[7]);
/* Binds every bone hierarchy under the head as a chain with the default settings and starts
 * them at the rest pose. A tress_result (0 = TRESS_OK). */
int tress_tuner_bind(tress_tuner *t);

/* The head's world transform, the animation the chains follow (the page's mouse drag). */
void tress_tuner_set_head(tress_tuner *t, const float world[7]);
/* Ambient wind, world units/s^2 (each chain scales it by wind_scale). */
void tress_tuner_set_wind(tress_tuner *t, float x, float y, float z);
/* Applies to every chain at once; the next step moves with it. A tress_result. */
int tress_tuner_set_setting(tress_tuner *t, tress_tuner_setting s, float value);
float tress_tuner_get_setting(const tress_tuner *t, tress_tuner_setting s);

/* One drawn frame: tress_sim_step(dt), then the outputs below are refilled. A tress_result. */
int tress_tuner_step(tress_tuner *t, double dt);

uint32_t tress_tuner_get_bone_count(const tress_tuner *t);
/* bone_count * 7 floats: each bone's drawn world transform after the last step (rest before). */
const float *tress_tuner_get_bone_worlds(const tress_tuner *t);
/* The tips: every leaf bone's drawn world position, 3 floats each, in bone order. */
uint32_t tress_tuner_get_tip_count(const tress_tuner *t);
const float *tress_tuner_get_tips(const tress_tuner *t);
/* The sim's debug draw (tress/debug_draw.h) of the last step into the tuner's reused buffer (made
 * at bind, room for every shape the chains can report): returns how many shapes it holds.
 * Each is TRESS_TUNER_SHAPE_FLOATS floats: kind (tress_debug_shape_kind), role
 * (tress_debug_role), a xyz, b xyz, radius, asleep (0 / 1). */
#define TRESS_TUNER_SHAPE_FLOATS 10
uint32_t tress_tuner_debug_draw(tress_tuner *t);
const float *tress_tuner_get_debug_shapes(const tress_tuner *t);
/* Whether the chains stepped in the last frame (tress_handle_is_awake: false while asleep). */
bool tress_tuner_is_awake(const tress_tuner *t);

#endif
