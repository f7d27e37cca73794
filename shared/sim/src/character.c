/* character.c - bind_character: the bulk scan that binds a whole character in one call.
 *
 * A character is bound on every spawn, so the scan must be idempotent: it binds every descendant
 * part that carries bones (tress_sim_bind), then every remaining accessory the match accepts
 * (tress_sim_bind_accessory), and both of those return the existing handle for an already bound
 * root. An accessory whose handle carries bones is already covered by the first pass, and layered
 * clothing (a handle with a wrap layer child) never swings, whatever the match says: not as a
 * pendulum and not as a bone chain either (a layered handle with bones is skipped in both passes). Accessories
 * that cannot swing (no Handle, no steerable joint, bad offsets) are skipped, not errors.
 *
 * Lifecycle: every handle the scan returns remembers the model (handle->character) and listens on
 * it (handle->on_character): when the model is destroyed, or leaves the scene without being
 * destroyed (reparented out of the root, as places that keep old characters do), every handle
 * bound through that model is destroyed. A handle that was bound before and is claimed here
 * releases with the model too. sim.c disconnects on_character when the handle goes.
 */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

bool tress_default_accessory_match(void *user, const tress_scene *scene, tress_id accessory) {
  (void)user;
  switch (tress_accessory_get_type(scene, accessory)) {
  case TRESS_ACCESSORY_HAIR:
  case TRESS_ACCESSORY_HAT:
  case TRESS_ACCESSORY_NECK:
  case TRESS_ACCESSORY_SHOULDER:
  case TRESS_ACCESSORY_FRONT:
  case TRESS_ACCESSORY_BACK:
  case TRESS_ACCESSORY_WAIST:
  case TRESS_ACCESSORY_UNKNOWN: return true;
  default: return false; /* Face and the layered-only types sit on the body */
  }
}

/* The model left the scene or is being destroyed: release every handle bound through it. */
static void on_character_event(tress_scene *scene, tress_id model, tress_event event, void *user) {
  if (event == TRESS_EVENT_ANCESTRY_CHANGED && tress_instance_is_in_scene(scene, model)) return;
  tress_sim *sim = user;
  for (uint32_t i = 0; i < sim->handle_count; i++) {
    tress_handle *h = &sim->handles[i];
    if (h->alive && tress_id_is_equal(h->character, model)) tress_handle_destroy(sim, tress__handle_id(sim, h));
  }
}

typedef struct character_scan {
  tress_sim *sim;
  tress_id model;
  const tress_chain_settings *settings;
  const tress_accessory_settings *accessory_settings;
  tress_accessory_match_fn match;
  void *match_user;
  tress_handle_id *out;
  uint32_t max_out, count;
  tress_result error; /* the first hard failure (out of memory); skips are not failures */
} character_scan;

static void claim(character_scan *scan, tress_handle_id id) {
  tress_sim *sim = scan->sim;
  tress_handle *h = tress__handle_get(sim, id);
  if (!h) return;
  if (!tress_id_is_equal(h->character, scan->model)) {
    tress_connection_disconnect(sim->scene, h->on_character);
    h->character = scan->model;
    h->on_character = tress_instance_connect(sim->scene, scan->model, on_character_event, sim);
  }
  if (scan->count < scan->max_out && scan->out) scan->out[scan->count] = id;
  scan->count++;
}

static bool carries_bones(const tress_scene *scene, tress_id part) {
  return !tress_id_is_null(tress_instance_find_child_of_kind(scene, part, TRESS_KIND_BONE));
}

static bool is_layered(const tress_scene *scene, tress_id part) {
  return !tress_id_is_null(tress_instance_find_child_of_kind(scene, part, TRESS_KIND_WRAP_LAYER));
}

static bool visit_boned_part(tress_scene *scene, tress_id id, void *user) {
  character_scan *scan = user;
  if (tress_instance_get_kind(scene, id) != TRESS_KIND_PART || !carries_bones(scene, id)) return true;
  if (is_layered(scene, id)) return true; /* layered clothing never swings, bones or not */
  tress_handle_id h;
  tress_result r = tress_sim_bind(scan->sim, id, scan->settings, &h);
  if (r == TRESS_OK) claim(scan, h);
  else if ((r == TRESS_ERR_OUT_OF_MEMORY || r == TRESS_ERR_NON_UNIFORM_SCALE) && scan->error == TRESS_OK) scan->error = r;
  return true;
}

static bool visit_accessory(tress_scene *scene, tress_id id, void *user) {
  character_scan *scan = user;
  if (tress_instance_get_kind(scene, id) != TRESS_KIND_ACCESSORY) return true;
  tress_id handle = tress_accessory_get_handle(scene, id);
  if (tress_id_is_null(handle)) return true;
  if (carries_bones(scene, handle)) return true; /* bound as a bone chain in the first pass */
  if (is_layered(scene, handle)) return true;
  if (!scan->match(scan->match_user, scene, id)) return true;
  tress_handle_id h;
  tress_result r = tress_sim_bind_accessory(scan->sim, id, scan->accessory_settings, &h);
  if (r == TRESS_OK) claim(scan, h);
  else if ((r == TRESS_ERR_OUT_OF_MEMORY || r == TRESS_ERR_NON_UNIFORM_SCALE) && scan->error == TRESS_OK) scan->error = r;
  return true;
}

static bool chain_settings_finite(const tress_chain_settings *s) {
  return (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) && isfinite(s->wind_scale));
}

static bool accessory_settings_finite(const tress_accessory_settings *s) {
  return (isfinite(s->damping) && isfinite(s->stiffness) && isfinite(s->gravity_scale) &&
                isfinite(s->wind_scale) && isfinite(s->max_swing_degrees));
}

tress_result tress_sim_bind_character(tress_sim *sim, const tress_character_def *def, tress_handle_id *out,
                                      uint32_t max_out, uint32_t *count) {
  if (count) *count = 0;
  if (!sim || !def || (!out && max_out)) return TRESS_ERR_INVALID_ARGUMENT;
  tress_id model = def->model;
  if (!tress_instance_is_valid(sim->scene, model)) return TRESS_ERR_STALE_ID;
  if (tress_instance_get_kind(sim->scene, model) != TRESS_KIND_MODEL) return TRESS_ERR_INVALID_ARGUMENT;
  /* Refuse bad settings (or a character squashed out of shape) before anything binds, so a
   * refusal changes nothing. */
  float scale[3];
  if (!tress_instance_get_world_scale(sim->scene, model, scale)) return TRESS_ERR_NON_UNIFORM_SCALE;
  if (!chain_settings_finite(&def->chains) || !accessory_settings_finite(&def->accessories))
    return TRESS_ERR_INVALID_ARGUMENT;
  character_scan scan;
  memset(&scan, 0, sizeof scan);
  scan.sim = sim;
  scan.model = model;
  scan.settings = &def->chains;
  scan.accessory_settings = &def->accessories;
  scan.match = def->match ? def->match : tress_default_accessory_match;
  scan.match_user = def->match ? def->match_user : NULL;
  scan.out = out;
  scan.max_out = max_out;
  tress_result walked = tress_instance_visit_descendants(sim->scene, model, visit_boned_part, &scan);
  if (walked == TRESS_OK) walked = tress_instance_visit_descendants(sim->scene, model, visit_accessory, &scan);
  if (walked != TRESS_OK && scan.error == TRESS_OK) scan.error = walked; /* out of memory: what bound stays */
  if (count) *count = scan.count;
  return scan.error;
}
