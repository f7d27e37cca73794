/* sim.c - the simulation: handle registry, fixed-step accumulator, culling, budget, loop hook.
 *
 * One sim steps every bound handle. step(dt) feeds an accumulator drained in 1/fixed_hz slices,
 * capped at max_substeps slices so a hitch never spirals. Eligibility (distance or the
 * should_simulate override, then the max_chains budget, nearest first) is computed once per frame
 * into reused buffers; the writers (chains.c, pendulum.c, rope.c) then run that frame's substeps
 * and write their outputs once.
 *
 * Invariants:
 * - the loop hook is "needed" exactly while live_handles > 0; losing the last handle clears the
 *   accumulator, as the seed's Heartbeat disconnect does;
 * - a handle destroys itself when its root instance is destroyed (DESTROYING listener);
 * - nothing in step() allocates once the cull buffer has grown to the handle count.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_internal.h"
#include "owner_tag.h"

#define TELEPORT_STUDS 50.0f
#define SERVER_MAX_DISTANCE 100.0f
#define SERVER_MAX_CHAINS 20

double tress__clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *tress_sim_role_name(tress_sim_role role) {
  switch (role) {
  case TRESS_SIM_CLIENT: return "client";
  case TRESS_SIM_SERVER: return "server";
  }
  return "unknown";
}

tress_sim_def tress_default_sim_def(void) {
  tress_sim_def d;
  memset(&d, 0, sizeof d);
  d.role = TRESS_SIM_CLIENT;
  d.units_per_stud = 1.0f;
  d.gravity[1] = -30.0f;
  d.fixed_hz = 60.0f;
  d.max_substeps = 3;
  d.max_distance = -1.0f;
  d.max_chains = -1;
  return d;
}

tress_chain_settings tress_default_chain_settings(void) {
  return (tress_chain_settings){.damping = 0.92f,
                                .stiffness = 0.1f,
                                .gravity_scale = 1.0f,
                                .wind_scale = 1.0f,
                                .radius = 0.0f,
                                .end_length = 0.0f,
                                .wind_gust = 0.0f,
                                .wind_frequency = 0.5f,
                                .weight = 1.0f,
                                .enabled = true,
                                .center_inertia = 1.0f,
                                .collider_count = 0};
}

tress_accessory_settings tress_default_accessory_settings(void) {
  return (tress_accessory_settings){
      .damping = 0.9f, .stiffness = 0.08f, .gravity_scale = 0.4f, .wind_scale = 1.0f, .max_swing_degrees = 25.0f};
}

tress_character_def tress_default_character_def(void) {
  tress_character_def d;
  memset(&d, 0, sizeof d);
  d.chains = tress_default_chain_settings();
  d.accessories = tress_default_accessory_settings();
  return d;
}

int tress_device_get_max_chains(float compute) {
  int n = (int)lroundf(10.0f * compute);
  return n < 1 ? 1 : n;
}

float tress_device_get_max_distance(float compute) { return roundf(80.0f * compute); }

static float finite_or(float v, float fallback) { return isfinite(v) ? v : fallback; }

/* Room in the handle registry for cap handles (tress_sim_def.chain_capacity at create, else
 * doubling as handles are made). */
static bool handles_reserve(tress_sim *sim, uint32_t cap) {
  if (cap <= sim->handle_cap) return true;
  tress_handle *b = realloc(sim->handles, cap * sizeof *b);
  if (!b) return false;
  sim->handles = b;
  sim->handle_cap = cap;
  return true;
}

tress_sim *tress_sim_create(const tress_sim_def *def) {
  if (!def || !def->scene) return NULL;
  tress_sim *sim = calloc(1, sizeof *sim);
  if (!sim) return NULL;
  sim->def = *def;
  sim->scene = def->scene;
  sim->owner = tress__owner_tag(sim);
  sim->profiling = def->enable_profile;
  tress_sim_def *d = &sim->def;
  d->units_per_stud = finite_or(d->units_per_stud, 1.0f);
  if (d->units_per_stud <= 0.0f) d->units_per_stud = 1.0f;
  d->fixed_hz = finite_or(d->fixed_hz, 60.0f);
  if (d->fixed_hz < 1.0f) d->fixed_hz = 1.0f;
  if (d->fixed_hz > 1000.0f) d->fixed_hz = 1000.0f;
  if (d->max_substeps < 1) d->max_substeps = 1;
  if (d->max_substeps > 64) d->max_substeps = 64;
  for (int k = 0; k < 3; k++) {
    d->gravity[k] = finite_or(d->gravity[k], 0.0f);
    d->ambient_wind[k] = finite_or(d->ambient_wind[k], 0.0f);
  }
  float ups = d->units_per_stud;
  if (d->role == TRESS_SIM_SERVER) {
    sim->max_distance = SERVER_MAX_DISTANCE * ups;
    sim->max_chains = SERVER_MAX_CHAINS;
  } else if (d->max_distance < 0.0f || d->max_chains < 0) {
    float c = d->device_compute > 0.0f ? d->device_compute : tress_device_measure_compute();
    if (c < 0.25f) c = 0.25f;
    if (c > 4.0f) c = 4.0f;
    d->device_compute = c;
    sim->max_distance = tress_device_get_max_distance(c) * ups;
    sim->max_chains = tress_device_get_max_chains(c);
  }
  if (d->max_distance >= 0.0f && isfinite(d->max_distance)) sim->max_distance = d->max_distance;
  if (d->max_chains >= 0) sim->max_chains = d->max_chains;
  d->jobs.worker_count = tress__jobs_worker_count(&d->jobs);
  sim->chains = tress__chains_create();
  sim->pendulums = tress__pendulums_create();
  sim->ropes = tress__ropes_create();
  sim->colliders = calloc(1, sizeof *sim->colliders);
  if (!sim->chains || !sim->pendulums || !sim->ropes || !sim->colliders ||
      !tress__chains_reserve_workers(sim->chains, d->jobs.worker_count) ||
      !tress__chains_reserve_slots(sim->chains, d->chain_capacity) || !handles_reserve(sim, d->chain_capacity)) {
    tress_sim_destroy(sim);
    return NULL;
  }
  return sim;
}

const tress_sim_def *tress_sim_get_def(const tress_sim *sim) { return sim ? &sim->def : NULL; }

void tress_sim_set_loop_hook(tress_sim *sim, tress_loop_fn fn, void *user) {
  if (!sim) return;
  if (sim->loop_running && sim->loop_fn) sim->loop_fn(sim->loop_user, sim, false);
  sim->loop_fn = fn;
  sim->loop_user = user;
  sim->loop_release = NULL;
  sim->loop_running = false;
  if (fn && sim->live_handles > 0) {
    sim->loop_running = true;
    fn(user, sim, true);
  }
}

void tress_sim_destroy(tress_sim *sim) {
  if (!sim) return;
  for (uint32_t i = 0; i < sim->handle_count; i++) {
    tress_handle *h = &sim->handles[i];
    if (h->alive) tress_handle_destroy(sim, tress__handle_id(sim, h));
  }
  if (sim->loop_running && sim->loop_fn) sim->loop_fn(sim->loop_user, sim, false);
  if (sim->loop_release) sim->loop_release(sim->loop_user);
  if (sim->chains) tress__chains_destroy(sim->chains);
  if (sim->pendulums) tress__pendulums_destroy(sim->pendulums);
  if (sim->ropes) tress__ropes_destroy(sim->ropes);
  tress__colliders_free(sim->colliders);
  free(sim->handles);
  free(sim->by_root);
  free(sim->cull_order);
  free(sim);
}

/* ---- registry ---- */

static void on_root_event(tress_scene *scene, tress_id instance, tress_event event, void *user);

tress_result tress__handle_lookup(const tress_sim *sim, tress_handle_id h, tress_handle **out) {
  *out = NULL;
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  if (h.index1 == 0) return TRESS_ERR_STALE_ID; /* names nothing that exists */
  if (h.owner != sim->owner) return TRESS_ERR_WRONG_OWNER;
  if (h.index1 > sim->handle_count) return TRESS_ERR_STALE_ID;
  tress_handle *handle = &sim->handles[h.index1 - 1];
  if (!handle->alive || handle->generation != h.generation) return TRESS_ERR_STALE_ID;
  *out = handle;
  return TRESS_OK;
}

/* The same checks as tress__handle_lookup without telling them apart: the writers call this
 * per chain per frame, so it stays one flat test. */
tress_handle *tress__handle_get(const tress_sim *sim, tress_handle_id h) {
  if (!sim || h.index1 == 0 || h.index1 > sim->handle_count || h.owner != sim->owner) return NULL;
  tress_handle *handle = &sim->handles[h.index1 - 1];
  return (handle->alive && handle->generation == h.generation) ? handle : NULL;
}

void tress__sim_reset_writers(tress_sim *sim, tress_id root) {
  for (uint32_t i = 0; i < sim->handle_count; i++) {
    tress_handle *h = &sim->handles[i];
    if (!h->alive || h->kind == TRESS_HANDLE_BONES || h->kind == TRESS_HANDLE_PARTS) continue;
    if (!tress_id_is_equal(h->root, root) && !tress_instance_is_descendant_of(sim->scene, h->root, root)) continue;
    if (h->kind == TRESS_HANDLE_ACCESSORY) tress__pendulums_reset(sim, h);
    else tress__ropes_reset(sim, h);
  }
}

tress_handle_id tress__handle_id(const tress_sim *sim, const tress_handle *handle) {
  uint32_t i = (uint32_t)(handle - sim->handles);
  return (tress_handle_id){i + 1, handle->generation, sim->owner};
}

/* First live handle on this root's scene slot (0: none); the list is walked through
 * next_same_root. */
static uint32_t first_on_root(const tress_sim *sim, tress_id root) {
  return root.index1 < sim->by_root_cap ? sim->by_root[root.index1] : 0;
}

/* Room in by_root for scene slot r. */
static bool reserve_root(tress_sim *sim, uint32_t r) {
  if (r >= sim->by_root_cap) {
    uint32_t cap = sim->by_root_cap ? sim->by_root_cap : 64;
    while (cap <= r) cap *= 2;
    uint32_t *b = realloc(sim->by_root, cap * sizeof *b);
    if (!b) return false;
    memset(b + sim->by_root_cap, 0, (cap - sim->by_root_cap) * sizeof *b);
    sim->by_root = b;
    sim->by_root_cap = cap;
  }
  return true;
}

static void link_root(tress_sim *sim, uint32_t i) {
  tress_handle *h = &sim->handles[i - 1];
  h->next_same_root = sim->by_root[h->root.index1];
  sim->by_root[h->root.index1] = i;
}

static void unlink_root(tress_sim *sim, uint32_t i) {
  uint32_t *at = &sim->by_root[sim->handles[i - 1].root.index1];
  while (*at && *at != i) at = &sim->handles[*at - 1].next_same_root;
  if (*at) *at = sim->handles[i - 1].next_same_root;
}

tress_handle_id tress__handle_find(const tress_sim *sim, tress_handle_kind kind, tress_id root) {
  for (uint32_t i = first_on_root(sim, root); i; i = sim->handles[i - 1].next_same_root) {
    const tress_handle *h = &sim->handles[i - 1];
    if (h->alive && h->kind == kind && tress_id_is_equal(h->root, root)) return tress__handle_id(sim, h);
  }
  return (tress_handle_id){0};
}

/* The listener's user pointer carries the handle index; the generation is re-checked. */
typedef struct {
  tress_sim *sim;
} root_listener;

tress_handle_id tress__handle_alloc(tress_sim *sim, tress_handle_kind kind, tress_id root, uint32_t slot) {
  if (!reserve_root(sim, root.index1)) return (tress_handle_id){0};
  uint32_t i;
  if (sim->handle_free) {
    i = sim->handle_free;
    sim->handle_free = sim->handles[i - 1].slot;
  } else {
    if (sim->handle_count == sim->handle_cap && !handles_reserve(sim, sim->handle_cap ? sim->handle_cap * 2 : 16))
      return (tress_handle_id){0};
    i = ++sim->handle_count;
    sim->handles[i - 1].generation = 0;
  }
  tress_handle *h = &sim->handles[i - 1];
  uint32_t gen = h->generation + 1;
  memset(h, 0, sizeof *h);
  h->generation = gen ? gen : 1;
  h->kind = kind;
  h->root = root;
  link_root(sim, i);
  h->alive = true;
  h->slot = slot;
  h->eligible = true;
  /* The listener finds the handles on its root through by_root. */
  h->on_root = tress_instance_connect(sim->scene, root, on_root_event, sim);
  if (!tress_id_is_null(root) && h->on_root.index1 == 0) { /* out of memory: it would not hear its root go */
    unlink_root(sim, i);
    h->alive = false;
    h->slot = sim->handle_free;
    sim->handle_free = i;
    return (tress_handle_id){0};
  }
  sim->live_handles++;
  sim->live_chain_handles += kind == TRESS_HANDLE_BONES || kind == TRESS_HANDLE_PARTS;
  if (sim->live_handles == 1 && sim->loop_fn && !sim->loop_running) {
    sim->loop_running = true;
    sim->loop_fn(sim->loop_user, sim, true);
  }
  return tress__handle_id(sim, h);
}

static void on_root_event(tress_scene *scene, tress_id instance, tress_event event, void *user) {
  (void)scene;
  if (event != TRESS_EVENT_DESTROYING) return;
  tress_sim *sim = user;
  /* destroying unlinks, so start over from the list head after each one */
  for (uint32_t i = first_on_root(sim, instance); i;) {
    tress_handle *h = &sim->handles[i - 1];
    if (h->alive && tress_id_is_equal(h->root, instance)) {
      tress_handle_destroy(sim, tress__handle_id(sim, h));
      i = first_on_root(sim, instance);
    } else {
      i = h->next_same_root;
    }
  }
}

bool tress_handle_is_valid(const tress_sim *sim, tress_handle_id h) { return tress__handle_get(sim, h) != NULL; }

void tress_handle_destroy(tress_sim *sim, tress_handle_id id) {
  tress_handle *h = tress__handle_get(sim, id);
  if (!h) return;
  /* Mark dead first so re-entrant destroys (a writer restoring a joint fires events) are no-ops. */
  h->alive = false;
  switch (h->kind) {
  case TRESS_HANDLE_BONES:
  case TRESS_HANDLE_PARTS: tress__chains_unbind(sim, h); break;
  case TRESS_HANDLE_ACCESSORY: tress__pendulums_unbind(sim, h); break;
  case TRESS_HANDLE_ROPE:
  case TRESS_HANDLE_CLOTH: tress__ropes_unbind(sim, h); break;
  }
  tress_connection_disconnect(sim->scene, h->on_root);
  tress_connection_disconnect(sim->scene, h->on_character);
  unlink_root(sim, id.index1);
  h->generation++;
  h->slot = sim->handle_free;
  sim->handle_free = id.index1;
  sim->live_handles--;
  sim->live_chain_handles -= h->kind == TRESS_HANDLE_BONES || h->kind == TRESS_HANDLE_PARTS;
  if (sim->live_handles == 0) {
    sim->accumulator = 0.0;
    if (sim->loop_running && sim->loop_fn) {
      sim->loop_running = false;
      sim->loop_fn(sim->loop_user, sim, false);
    }
  }
}

bool tress_handle_is_awake(const tress_sim *sim, tress_handle_id id) {
  tress_handle *h = tress__handle_get(sim, id);
  return h && h->was_awake;
}

void tress_sim_set_camera(tress_sim *sim, const float position[3]) {
  if (!sim) return;
  if (!position || !tress_vec3_is_finite(position)) {
    sim->have_camera = false;
    return;
  }
  sim->have_camera = true;
  memcpy(sim->camera, position, sizeof sim->camera);
}

tress_sim_stats tress_sim_get_stats(const tress_sim *sim) {
  tress_sim_stats s = {0};
  if (!sim) return s;
  s = sim->stats;
  s.bound = sim->live_handles;
  return s;
}

size_t tress_sim_get_memory_bytes(const tress_sim *sim) {
  if (!sim) return 0;
  const tress_sim_colliders *k = sim->colliders;
  size_t colliders = sizeof *k + (size_t)k->cap * (sizeof *k->defs + sizeof *k->generation + sizeof *k->alive +
                                                   sizeof *k->world + sizeof *k->attach_scale);
  return sizeof *sim + (size_t)sim->handle_cap * sizeof *sim->handles + (size_t)sim->by_root_cap * sizeof *sim->by_root +
         (size_t)sim->cull_cap * sizeof *sim->cull_order + colliders + tress__chains_memory_bytes(sim->chains) +
         tress__pendulums_memory_bytes(sim->pendulums);
}

tress_sim_profile tress_sim_get_profile(const tress_sim *sim) {
  tress_sim_profile p = {0};
  return sim ? sim->profile : p;
}

/* ---- culling ---- */

/* A handle's root position for the culling, and whether it takes a max_chains place: only
 * enabled chains do (a disabled one shows its animated pose and does no substep work, so it must
 * not put a nearer-ranked enabled chain to sleep); the chains read theirs slot by slot. */
static bool cull_read(const tress_sim *sim, const tress_handle *h, float out[3], bool *budgeted) {
  *budgeted = false;
  switch (h->kind) {
  case TRESS_HANDLE_BONES:
  case TRESS_HANDLE_PARTS: return false; /* the chains key their own (tress__chains_cull_slots) */
  case TRESS_HANDLE_ACCESSORY: return tress__pendulums_root_position(sim, h, out);
  case TRESS_HANDLE_ROPE:
  case TRESS_HANDLE_CLOTH: return tress__ropes_root_position(sim, h, out);
  }
  return false;
}

/* Nearest-first selection of the budgeted chains: only the max_chains smallest keys stay. */
static void select_nearest(tress_sim *sim, uint32_t *order, uint32_t n, uint32_t keep) {
  /* Quickselect on cull_key; order holds handle indices. */
  uint32_t lo = 0, hi = n;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    float pivot = sim->handles[order[mid]].cull_key;
    uint32_t a = lo, b = hi - 1;
    while (a <= b) {
      while (sim->handles[order[a]].cull_key < pivot) a++;
      while (b > 0 && sim->handles[order[b]].cull_key > pivot) b--;
      if (a <= b) {
        uint32_t t = order[a];
        order[a] = order[b];
        order[b] = t;
        a++;
        if (b == 0) break;
        b--;
      }
    }
    if (keep <= b) hi = b + 1;
    else if (keep >= a) lo = a;
    else break;
  }
  for (uint32_t i = keep; i < n; i++) sim->handles[order[i]].eligible = false;
}

/* Handles [start, end): each one's squared distance to the camera from its root (0 without a
 * camera or a finite root), whether it is budgeted, and, without a should_simulate hook, whether
 * it passes the distance test; the count of those that then want a max_chains place is added up
 * (order-free). This pass keys every handle but the chains', which the chains then key slot by
 * slot (tress__chains_cull_slots). Each range writes only its own handles or slots (and those slots' anchor
 * caches), so any split gives the same keys. */
typedef struct cull_job {
  tress_sim *sim;
  atomic_uint wanting; /* eligible and budgeted */
} cull_job;

static void cull_keys_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  cull_job *job = context;
  tress_sim *sim = job->sim;
  uint32_t wanting = 0;
  for (uint32_t i = start; i < end; i++) {
    tress_handle *h = &sim->handles[i];
    if (!h->alive) continue;
    /* a chain's handle is keyed by the chains' slot pass, after this one (every live chain
     * handle has its slot from bind to unbind) */
    if (h->kind == TRESS_HANDLE_BONES || h->kind == TRESS_HANDLE_PARTS) continue;
    float p[3] = {0.0f, 0.0f, 0.0f};
    bool have = cull_read(sim, h, p, &h->budgeted);
    float dx = p[0] - sim->camera[0], dy = p[1] - sim->camera[1], dz = p[2] - sim->camera[2];
    wanting += tress__cull_finish(sim, h, have, dx * dx + dy * dy + dz * dz);
  }
  atomic_fetch_add(&job->wanting, wanting);
}

static void cull_chains_range(uint32_t start, uint32_t end, uint32_t worker, void *context) {
  (void)worker;
  cull_job *job = context;
  atomic_fetch_add(&job->wanting, tress__chains_cull_slots(job->sim, start, end));
}

static void compute_eligibility(tress_sim *sim) {
  if (sim->cull_cap < sim->handle_count) {
    uint32_t *b = realloc(sim->cull_order, sim->handle_count * sizeof *b);
    if (b) {
      sim->cull_order = b;
      sim->cull_cap = sim->handle_count;
    }
  }
  /* the scene reads (one per handle, a cache miss each at thousands of chains) on the workers;
   * the host's should_simulate is called on this thread */
  cull_job job = {sim, 0};
  tress__chains_cull_begin(sim);
  /* the handles' pass has work only for pendulums, ropes and cloth */
  if (sim->live_handles > sim->live_chain_handles)
    tress__jobs_run(&sim->def.jobs, cull_keys_range, sim->handle_count, 256, &job);
  bool hooked = sim->def.should_simulate != NULL;
  bool unselected = !hooked && sim->max_chains >= 0 && sim->live_handles <= (uint32_t)sim->max_chains;
  tress__chains_cull_with_activity(sim->chains, unselected);
  if (unselected) return;
  tress__jobs_run(&sim->def.jobs, cull_chains_range, tress__chains_slot_count(sim->chains), 256, &job);
  /* the nearest-first selection needs the wanting handles in order only when they are too many */
  if (!hooked && atomic_load(&job.wanting) <= (uint32_t)sim->max_chains) return;
  uint32_t n = 0;
  for (uint32_t i = 0; i < sim->handle_count; i++) {
    tress_handle *h = &sim->handles[i];
    if (!h->alive) continue;
    if (hooked) h->eligible = sim->def.should_simulate(sim->def.should_simulate_user, sim->scene, h->root);
    if (h->eligible && h->budgeted && sim->cull_order && n < sim->cull_cap) sim->cull_order[n++] = i;
  }
  if (n > (uint32_t)sim->max_chains) select_nearest(sim, sim->cull_order, n, (uint32_t)sim->max_chains);
}

/* ---- wind ---- */

/* Ambient gusting: a deterministic function of sim time, so every client agrees. The factor
 * moves between about 0.1 and 1 through three incommensurate sines. */
static float gust_factor(double t) {
  double s = 0.5 * sin(t * 0.73) + 0.3 * sin(t * 1.91 + 1.3) + 0.2 * sin(t * 3.17 + 2.1);
  return (float)(0.55 + 0.45 * s);
}

static void sample_wind(tress_sim *sim, float out[3]) {
  if (sim->def.wind) {
    sim->def.wind(sim->def.wind_user, sim->time, out);
    if (!tress_vec3_is_finite(out)) out[0] = out[1] = out[2] = 0.0f;
    return;
  }
  float g = gust_factor(sim->time);
  for (int k = 0; k < 3; k++) out[k] = sim->def.ambient_wind[k] * g;
}

/* ---- step ---- */

/* The frame's culling and writers, each timed into the profile (the chains time their own
 * phases inside). */
static void run_writers_profiled(tress_sim *sim, const tress_frame *frame, double t_start) {
  tress_sim_profile *p = &sim->profile;
  double t0 = tress__clock_ms();
  compute_eligibility(sim);
  double t1 = tress__clock_ms();
  tress__chains_frame(sim, frame);
  double t2 = tress__clock_ms();
  tress__pendulums_frame(sim, frame);
  double t3 = tress__clock_ms();
  tress__ropes_frame(sim, frame);
  double t4 = tress__clock_ms();
  p->cull = t1 - t0;
  p->chains = t2 - t1;
  p->pendulums = t3 - t2;
  p->ropes = t4 - t3;
  p->step = t4 - t_start;
}

tress_result tress_sim_step(tress_sim *sim, double dt) {
  if (!sim) return TRESS_ERR_INVALID_ARGUMENT;
  double t_start = 0.0;
  if (sim->profiling) {
    memset(&sim->profile, 0, sizeof sim->profile);
    t_start = tress__clock_ms();
  }
  sim->stats.simulated = 0;
  sim->stats.substeps = 0;
  if (!isfinite(dt) || dt < 0.0) return TRESS_ERR_INVALID_ARGUMENT;
  if (sim->live_handles == 0) return TRESS_OK;
  double slice = 1.0 / sim->def.fixed_hz;
  double cap = slice * sim->def.max_substeps;
  double span = dt;
  sim->accumulator += dt;
  if (sim->accumulator > cap) {
    span -= sim->accumulator - cap;
    sim->accumulator = cap;
  }
  int substeps = 0;
  /* The epsilon keeps 4 x (1/240) exactly one 60 Hz slice despite rounding. */
  while (substeps < sim->def.max_substeps && sim->accumulator >= slice - 1e-9) {
    sim->accumulator -= slice;
    substeps++;
  }
  if (sim->accumulator < 0.0) sim->accumulator = 0.0;

  tress_frame frame;
  frame.substeps = substeps;
  frame.dt = (float)slice;
  float ups = sim->def.units_per_stud;
  for (int k = 0; k < 3; k++) frame.gravity[k] = sim->def.gravity[k] * ups;
  sample_wind(sim, frame.wind);
  frame.teleport_distance = TELEPORT_STUDS * ups;
  frame.span = span;
  frame.stalled = dt > TRESS_STALL_SECONDS;
  frame.remaining = sim->accumulator;
  sim->time += substeps * slice;
  frame.time = sim->time;
  sim->stats.substeps = (uint32_t)substeps;

  if (sim->profiling) {
    run_writers_profiled(sim, &frame, t_start);
    return TRESS_OK;
  }
  compute_eligibility(sim);
  tress__chains_frame(sim, &frame);
  tress__pendulums_frame(sim, &frame);
  tress__ropes_frame(sim, &frame);
  return TRESS_OK;
}
