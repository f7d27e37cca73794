/* tuner.c - see tuner.h. Everything is made at create and bind; a step allocates nothing. */
#include "tuner.h"

#include <stdlib.h>
#include <string.h>

#include "tress/debug_draw.h"
#include "tress/scene.h"
#include "tress/sim.h"

#define NO_BONE (-1)

struct tress_tuner {
  tress_scene *scene;
  tress_sim *sim;
  tress_id head;
  tress_handle_id handle;
  tress_chain_settings settings;
  float wind[3];
  uint32_t bone_capacity, bone_count, tip_count;
  tress_id *bones;
  int32_t *parents;
  uint32_t *tip_bones; /* the leaves, found once at bind */
  tress_xform *rests;   /* each bone's cframe, as added */
  tress_xform *drawn;   /* each bone's drawn world pose, parents first */
  uint32_t shape_cap;
  tress_debug_shape *shapes; /* the debug draw's buffer, made at bind */
  float *shape_floats;       /* shape_cap * TRESS_TUNER_SHAPE_FLOATS */
  float *worlds; /* bone_capacity * 7 */
  float *tips;   /* bone_capacity * 3 */
  bool bound;
};

static const char *const setting_names[TRESS_TUNER_SETTING_COUNT] = {
    "damping", "stiffness", "gravity_scale", "wind_scale", "radius",
    "end_length", "wind_gust", "wind_frequency", "weight", "enabled",
};

const char *tress_tuner_setting_name(tress_tuner_setting s) {
  return (unsigned)s < TRESS_TUNER_SETTING_COUNT ? setting_names[s] : "unknown";
}

bool tress_tuner_setting_from_name(const char *text, tress_tuner_setting *out) {
  if (!text || !out) return false;
  for (int s = 0; s < TRESS_TUNER_SETTING_COUNT; s++)
    if (strcmp(text, setting_names[s]) == 0) {
      *out = (tress_tuner_setting)s;
      return true;
    }
  return false;
}

static tress_xform xform_from(const float v[7]) {
  tress_xform x = tress_xform_identity();
  memcpy(x.p, v, 3 * sizeof(float));
  memcpy(x.q, v + 3, 4 * sizeof(float));
  return x;
}

static void xform_to(tress_xform x, float out[7]) {
  memcpy(out, x.p, 3 * sizeof(float));
  memcpy(out + 3, x.q, 4 * sizeof(float));
}

/* The sim samples this once per step: the page's wind slider without recreating the sim. */
static void tuner_wind(void *user, double sim_time, float out[3]) {
  (void)sim_time;
  const tress_tuner *t = user;
  memcpy(out, t->wind, sizeof t->wind);
}

tress_tuner *tress_tuner_create(uint32_t bone_capacity) {
  tress_tuner *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->bone_capacity = bone_capacity;
  t->bones = calloc(bone_capacity + 1, sizeof *t->bones);
  t->parents = calloc(bone_capacity + 1, sizeof *t->parents);
  t->tip_bones = calloc(bone_capacity + 1, sizeof *t->tip_bones);
  t->rests = calloc(bone_capacity + 1, sizeof *t->rests);
  t->drawn = calloc(bone_capacity + 1, sizeof *t->drawn);
  t->worlds = calloc((size_t)bone_capacity * 7 + 1, sizeof *t->worlds);
  t->tips = calloc((size_t)bone_capacity * 3 + 1, sizeof *t->tips);
  tress_scene_def sd = tress_default_scene_def();
  sd.instance_capacity = bone_capacity + 8;
  t->scene = tress_scene_create(&sd);
  tress_instance_def head = tress_default_instance_def();
  head.kind = TRESS_KIND_PART;
  head.name = "Head";
  if (t->scene) head.parent = tress_scene_get_root(t->scene);
  if (!t->bones || !t->parents || !t->tip_bones || !t->rests || !t->drawn || !t->worlds || !t->tips || !t->scene ||
      tress_scene_create_instance(t->scene, &head, &t->head) != TRESS_OK) {
    tress_tuner_destroy(t);
    return NULL;
  }
  t->settings = tress_default_chain_settings();
  return t;
}

void tress_tuner_destroy(tress_tuner *t) {
  if (!t) return;
  if (t->sim) tress_sim_destroy(t->sim);
  if (t->scene) tress_scene_destroy(t->scene);
  free(t->bones);
  free(t->parents);
  free(t->tip_bones);
  free(t->rests);
  free(t->drawn);
  free(t->shapes);
  free(t->shape_floats);
  free(t->worlds);
  free(t->tips);
  free(t);
}

int32_t tress_tuner_add_bone(tress_tuner *t, const char *name, int32_t parent, const float rest[7]) {
  if (t->bound || t->bone_count >= t->bone_capacity || parent < NO_BONE || parent >= (int32_t)t->bone_count)
    return NO_BONE;
  tress_instance_def def = tress_default_instance_def();
  def.kind = TRESS_KIND_BONE;
  def.name = name;
  def.parent = parent == NO_BONE ? t->head : t->bones[parent];
  def.cframe = xform_from(rest);
  uint32_t index = t->bone_count;
  if (tress_scene_create_instance(t->scene, &def, &t->bones[index]) != TRESS_OK) return NO_BONE;
  t->parents[index] = parent;
  t->rests[index] = def.cframe;
  t->bone_count++;
  return (int32_t)index;
}

static bool bone_is_leaf(const tress_tuner *t, uint32_t bone) {
  for (uint32_t b = bone + 1; b < t->bone_count; b++)
    if (t->parents[b] == (int32_t)bone) return false;
  return true;
}

static void find_tips(tress_tuner *t) {
  t->tip_count = 0;
  for (uint32_t b = 0; b < t->bone_count; b++)
    if (bone_is_leaf(t, b)) t->tip_bones[t->tip_count++] = b;
}

/* The drawn world poses, parents first: a bone under a bone is its parent's pose times its cframe
 * times its transform, the two products tress_bone_get_world makes for an unscaled bone (bit for
 * bit), without walking every ancestor again for every bone. */
static void read_outputs(tress_tuner *t) {
  for (uint32_t b = 0; b < t->bone_count; b++) {
    int32_t parent = t->parents[b];
    t->drawn[b] = parent == NO_BONE ? tress_bone_get_world(t->scene, t->bones[b])
                                    : tress_xform_mul(tress_xform_mul(t->drawn[parent], t->rests[b]),
                                                      tress_bone_get_transform(t->scene, t->bones[b]));
    xform_to(t->drawn[b], t->worlds + (size_t)b * 7);
  }
  for (uint32_t i = 0; i < t->tip_count; i++)
    memcpy(t->tips + (size_t)3 * i, t->worlds + (size_t)7 * t->tip_bones[i], 3 * sizeof(float));
}

int tress_tuner_bind(tress_tuner *t) {
  if (t->bound) return TRESS_ERR_INVALID_ARGUMENT;
  tress_sim_def def = tress_default_sim_def();
  def.scene = t->scene;
  def.units_per_stud = 0.28f; /* metres */
  def.max_chains = 1000;
  def.max_distance = 1e9f;
  def.device_compute = 1.0f; /* no device bench: the page and the native check run alike */
  def.wind = tuner_wind;
  def.wind_user = t;
  t->sim = tress_sim_create(&def);
  if (!t->sim) return TRESS_ERR_OUT_OF_MEMORY;
  tress_result r = tress_sim_bind(t->sim, t->head, &t->settings, &t->handle);
  if (r != TRESS_OK) return r;
  /* per node at most an animated and a simulated link, a radius and an end tip */
  t->shape_cap = 4 * t->bone_count + 16;
  t->shapes = calloc(t->shape_cap, sizeof *t->shapes);
  t->shape_floats = calloc((size_t)t->shape_cap * TRESS_TUNER_SHAPE_FLOATS, sizeof *t->shape_floats);
  if (!t->shapes || !t->shape_floats) return TRESS_ERR_OUT_OF_MEMORY;
  t->bound = true;
  find_tips(t);
  r = tress_sim_step(t->sim, 0.0); /* the chains start at the pose they are drawn in */
  read_outputs(t);
  return r;
}

void tress_tuner_set_head(tress_tuner *t, const float world[7]) {
  tress_part_set_cframe(t->scene, t->head, xform_from(world));
}

void tress_tuner_set_wind(tress_tuner *t, float x, float y, float z) {
  t->wind[0] = x;
  t->wind[1] = y;
  t->wind[2] = z;
}

static float *setting_slot(tress_chain_settings *s, tress_tuner_setting which) {
  switch (which) {
  case TRESS_TUNER_DAMPING: return &s->damping;
  case TRESS_TUNER_STIFFNESS: return &s->stiffness;
  case TRESS_TUNER_GRAVITY_SCALE: return &s->gravity_scale;
  case TRESS_TUNER_WIND_SCALE: return &s->wind_scale;
  case TRESS_TUNER_RADIUS: return &s->radius;
  case TRESS_TUNER_END_LENGTH: return &s->end_length;
  case TRESS_TUNER_WIND_GUST: return &s->wind_gust;
  case TRESS_TUNER_WIND_FREQUENCY: return &s->wind_frequency;
  case TRESS_TUNER_WEIGHT: return &s->weight;
  default: return NULL;
  }
}

int tress_tuner_set_setting(tress_tuner *t, tress_tuner_setting s, float value) {
  tress_chain_settings next = t->settings;
  float *slot = setting_slot(&next, s);
  if (s == TRESS_TUNER_ENABLED)
    next.enabled = value != 0.0f;
  else if (slot)
    *slot = value;
  else
    return TRESS_ERR_INVALID_ARGUMENT;
  if (t->bound) {
    tress_result r = tress_handle_set_chain_settings(t->sim, t->handle, &next);
    if (r != TRESS_OK) return r;
  }
  t->settings = next;
  return TRESS_OK;
}

float tress_tuner_get_setting(const tress_tuner *t, tress_tuner_setting s) {
  if (s == TRESS_TUNER_ENABLED) return t->settings.enabled ? 1.0f : 0.0f;
  tress_chain_settings copy = t->settings;
  const float *slot = setting_slot(&copy, s);
  return slot ? *slot : 0.0f;
}

int tress_tuner_step(tress_tuner *t, double dt) {
  if (!t->bound) return TRESS_ERR_INVALID_ARGUMENT;
  tress_result r = tress_sim_step(t->sim, dt);
  read_outputs(t);
  return r;
}

uint32_t tress_tuner_debug_draw(tress_tuner *t) {
  uint32_t total = 0;
  if (!t->bound || tress_sim_debug_draw(t->sim, NULL, t->shapes, t->shape_cap, &total) != TRESS_OK) return 0;
  uint32_t n = total < t->shape_cap ? total : t->shape_cap;
  for (uint32_t i = 0; i < n; i++) {
    const tress_debug_shape *s = &t->shapes[i];
    float *f = t->shape_floats + (size_t)i * TRESS_TUNER_SHAPE_FLOATS;
    f[0] = (float)s->kind;
    f[1] = (float)s->role;
    memcpy(f + 2, s->a, sizeof s->a);
    memcpy(f + 5, s->b, sizeof s->b);
    f[8] = s->radius;
    f[9] = s->asleep ? 1.0f : 0.0f;
  }
  return n;
}

const float *tress_tuner_get_debug_shapes(const tress_tuner *t) { return t->shape_floats; }

uint32_t tress_tuner_get_bone_count(const tress_tuner *t) { return t->bone_count; }
const float *tress_tuner_get_bone_worlds(const tress_tuner *t) { return t->worlds; }
uint32_t tress_tuner_get_tip_count(const tress_tuner *t) { return t->tip_count; }
const float *tress_tuner_get_tips(const tress_tuner *t) { return t->tips; }
bool tress_tuner_is_awake(const tress_tuner *t) { return t->bound && tress_handle_is_awake(t->sim, t->handle); }
