/* hair_manager.c - the seed's HairKit.attach: rig every watched character's hair on the client.
 *
 * Each watched character keeps one deadline. Every accessory that appears in it re-arms the
 * deadline debounce_seconds (0.25) ahead, so a character whose accessories stream in over a few
 * frames gets one pass, after the last. A pass walks the accessories the match accepts: a
 * Handle part with a mesh and no bones is rigged; handles that already carry bones, or are
 * not mesh parts, are left to bind_character.
 *
 * Rigging runs off the game thread with tress_rig_mesh, the scene-free half of rig(): a job
 * reads only the mesh, which it holds a reference to, and writes only itself. Jobs run on the
 * manager's own pthreads, or on the game's job system through def.submit_job (then the
 * manager creates no thread). The game thread applies the result inside update() (Bone
 * instances, skinned mesh swapped in, size kept), so the scene is never touched off it.
 *
 * A job's life: WAITING in the budget FIFO (game thread only) -> SUBMITTED to a worker or the
 * host -> RUNNING -> DONE on the hub's done list -> applied and freed in update(). Jobs and the
 * manager share a refcounted hub (lock, done list, running count), so a job the host runs after
 * destroy() finds its state CANCELLED and only frees itself and drops its hub reference: destroy
 * never waits on the host, only on runs already under way, and nothing is used after free.
 * Mesh references are taken and released on the game thread only (the refcount is not atomic):
 * a cancelled job's mesh is released by destroy, a finished one's by update or destroy.
 *
 * The in-flight budget charges each job its source mesh plus the bake it allocates from the
 * moment it is handed off until its result is applied. Jobs that would pass the budget wait,
 * in order, in the FIFO; the head always starts when nothing is in flight, so a mesh larger
 * than the whole budget still runs (alone) and the queue never stalls.
 *
 * Invariants:
 * - a handle being rigged (waiting, running or not yet applied) carries a child marker (a
 *   Folder named HairKitRigging). A pass that finds the marker skips that handle, so two
 *   passes, or two managers on one scene, never rig the same hair; the marker lives in the
 *   scene, not in global state;
 * - a pass that matched anything binds only when its own jobs are done and no matched handle
 *   of the character is still marked: the pass that finishes last does the bind, and no
 *   character is bound while its hair is half rigged (which would bind a pendulum and then
 *   bones on the same hair);
 * - bind_character is idempotent, so a second manager's bind adds no handle;
 * - a rig that fails, is refused by the gate, or whose part changed meanwhile leaves the
 *   accessory boneless and the bind swings it as a pendulum;
 * - an entry clears when its character is destroyed or leaves the scene; a result for a
 *   cleared entry or a destroyed part is dropped, and a waiting job for one never starts.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/hair_manager.h"

#define IN_FLIGHT_MARKER "HairKitRigging"
#define MAX_THREADS 8

typedef enum job_state { JOB_WAITING, JOB_SUBMITTED, JOB_RUNNING, JOB_DONE, JOB_CANCELLED } job_state;

typedef struct job_hub job_hub;

typedef struct rig_job {
  struct rig_job *next;              /* budget FIFO, worker queue or done list: one at a time */
  struct rig_job *live_prev, *live_next; /* handed off and not yet collected; game thread only */
  job_hub *hub;
  job_state state;                   /* guarded by hub->lock once handed off */
  tress_id character;
  tress_id part;
  tress_mesh *mesh; /* one reference, taken and released on the game thread */
  uint64_t cost;    /* bytes charged against max_inflight_bytes */
  tress_rig_opts opts;
  tress_rig_output out;
  tress_rig_status status;
} rig_job;

/* Shared by the manager and every job handed off; freed by whichever lets go last. */
struct job_hub {
  pthread_mutex_t lock;
  pthread_cond_t ran;  /* a run finished: destroy waits on it while running > 0 */
  uint32_t refs;       /* the manager + each handed-off job not yet finished or collected */
  uint32_t running;
  rig_job *done;
};

/* The built-in job system: worker_threads pthreads over one FIFO. */
typedef struct worker_pool {
  pthread_t threads[MAX_THREADS];
  uint32_t thread_count;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  rig_job *head, *tail; /* guarded by lock */
  bool stopping;        /* guarded by lock */
} worker_pool;

typedef struct watched {
  tress_id model;
  tress_id *seen;
  uint32_t seen_count, seen_cap;
  bool armed;
  double deadline;
  uint32_t jobs_in_flight; /* waiting, handed off, or finished and not yet applied */
  bool bind_pending;
  bool bound; /* bind_character ran: each character is bound once */
} watched;

struct tress_hair_manager {
  tress_hair_manager_def def;
  watched *chars;
  uint32_t char_count, char_cap;
  job_hub *hub;
  worker_pool *pool;                 /* NULL when def.submit_job is set */
  rig_job *wait_head, *wait_tail;    /* the budget FIFO; game thread only */
  rig_job *live;                     /* handed off, not yet collected; game thread only */
  uint32_t handed_off;               /* jobs on the live list */
  tress_hair_manager_stats stats;
};

tress_hair_manager_def tress_default_hair_manager_def(void) {
  tress_hair_manager_def d;
  memset(&d, 0, sizeof d);
  d.rig = tress_default_rig_opts();
  d.settings = tress_default_chain_settings();
  d.accessory_settings = tress_default_accessory_settings();
  d.debounce_seconds = 0.25;
  d.worker_threads = 1;
  d.max_inflight_bytes = TRESS_HAIR_MANAGER_DEFAULT_INFLIGHT_BYTES;
  return d;
}

/* ---- jobs and the hub ---------------------------------------------------------------------- */

static job_hub *hub_create(void) {
  job_hub *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  pthread_mutex_init(&h->lock, NULL);
  pthread_cond_init(&h->ran, NULL);
  h->refs = 1;
  return h;
}

/* Called with h->lock held; unlocks it, and frees the hub when this was the last reference. */
static void hub_unref_unlock(job_hub *h) {
  bool last = --h->refs == 0;
  pthread_mutex_unlock(&h->lock);
  if (!last) return;
  pthread_cond_destroy(&h->ran);
  pthread_mutex_destroy(&h->lock);
  free(h);
}

/* The job entry point handed to workers and to submit_job: any thread, or inline. */
static void run_job(void *arg) {
  rig_job *job = arg;
  job_hub *h = job->hub;
  pthread_mutex_lock(&h->lock);
  if (job->state == JOB_CANCELLED) { /* destroy already released its mesh and marker */
    free(job);
    hub_unref_unlock(h);
    return;
  }
  job->state = JOB_RUNNING;
  h->running++;
  pthread_mutex_unlock(&h->lock);
  job->status = tress_rig_mesh(job->mesh, &job->opts, &job->out, NULL);
  pthread_mutex_lock(&h->lock);
  job->state = JOB_DONE;
  job->next = h->done;
  h->done = job;
  h->running--;
  pthread_cond_broadcast(&h->ran);
  pthread_mutex_unlock(&h->lock); /* the job's hub reference goes when update() collects it */
}

static void *worker_main(void *arg) {
  worker_pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->head && !p->stopping) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stopping) break;
    rig_job *job = p->head;
    p->head = job->next;
    if (!p->head) p->tail = NULL;
    pthread_mutex_unlock(&p->lock);
    run_job(job);
    pthread_mutex_lock(&p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void pool_submit(void *user, void (*run)(void *job), void *arg) {
  (void)run; /* always run_job */
  worker_pool *p = user;
  rig_job *job = arg;
  pthread_mutex_lock(&p->lock);
  job->next = NULL;
  if (p->tail) p->tail->next = job;
  else p->head = job;
  p->tail = job;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->lock);
}

static worker_pool *pool_create(uint32_t threads) {
  worker_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  for (uint32_t i = 0; i < threads; i++) {
    if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) break;
    p->thread_count++;
  }
  return p;
}

/* Stops the workers; jobs still queued are run here (they are cancelled by now: they only free). */
static void pool_destroy(worker_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stopping = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (uint32_t i = 0; i < p->thread_count; i++) pthread_join(p->threads[i], NULL);
  for (rig_job *j = p->head, *next; j; j = next) {
    next = j->next;
    run_job(j);
  }
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

tress_hair_manager *tress_hair_manager_create(const tress_hair_manager_def *def) {
  if (!def || !def->scene) return NULL;
  tress_hair_manager *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->def = *def;
  if (m->def.debounce_seconds < 0) m->def.debounce_seconds = 0;
  m->hub = hub_create();
  if (!m->hub) {
    free(m);
    return NULL;
  }
  if (!m->def.submit_job) {
    uint32_t n = m->def.worker_threads ? m->def.worker_threads : 1;
    if (n > MAX_THREADS) n = MAX_THREADS;
    m->pool = pool_create(n);
    if (!m->pool || m->pool->thread_count == 0) {
      tress_hair_manager_destroy(m);
      return NULL;
    }
  }
  return m;
}

static tress_id find_marker(const tress_scene *s, tress_id part) {
  tress_id marker = tress_instance_find_child(s, part, IN_FLIGHT_MARKER);
  return tress_instance_get_kind(s, marker) == TRESS_KIND_FOLDER ? marker : (tress_id){0};
}

/* Game thread: the job is no longer handed off (waiting, collected, or never started). */
static void free_job(tress_hair_manager *m, rig_job *job) {
  if (tress_instance_is_valid(m->def.scene, job->part)) tress_instance_destroy(m->def.scene, find_marker(m->def.scene, job->part));
  tress_mesh_release(job->mesh);
  tress_rig_output_free(&job->out);
  free(job);
}

static void live_remove(tress_hair_manager *m, rig_job *job) {
  if (job->live_prev) job->live_prev->live_next = job->live_next;
  else m->live = job->live_next;
  if (job->live_next) job->live_next->live_prev = job->live_prev;
  job->live_prev = job->live_next = NULL;
  m->handed_off--;
  m->stats.inflight_bytes -= job->cost;
}

void tress_hair_manager_destroy(tress_hair_manager *m) {
  if (!m) return;
  job_hub *h = m->hub;
  rig_job *done = NULL;
  if (h) {
    /* Cancel what the host has not started (it may run those whenever it likes: they only free
     * themselves), wait for runs already under way, then take every finished job back. */
    pthread_mutex_lock(&h->lock);
    for (rig_job *j = m->live; j; j = j->live_next)
      if (j->state == JOB_SUBMITTED) {
        j->state = JOB_CANCELLED;
        if (tress_instance_is_valid(m->def.scene, j->part)) tress_instance_destroy(m->def.scene, find_marker(m->def.scene, j->part));
        tress_mesh_release(j->mesh);
        j->mesh = NULL;
      }
    while (h->running > 0) pthread_cond_wait(&h->ran, &h->lock);
    done = h->done;
    h->done = NULL;
    pthread_mutex_unlock(&h->lock);
  }
  pool_destroy(m->pool);
  while (done) { /* finished jobs: each still holds its hub reference */
    rig_job *next = done->next;
    free_job(m, done);
    pthread_mutex_lock(&h->lock);
    hub_unref_unlock(h);
    done = next;
  }
  for (rig_job *j = m->wait_head, *next; j; j = next) {
    next = j->next;
    free_job(m, j);
  }
  for (uint32_t i = 0; i < m->char_count; i++) free(m->chars[i].seen);
  free(m->chars);
  if (h) {
    pthread_mutex_lock(&h->lock);
    hub_unref_unlock(h); /* the manager's own; cancelled jobs the host still holds keep it alive */
  }
  free(m);
}

static watched *find_watched(tress_hair_manager *m, tress_id model) {
  for (uint32_t i = 0; i < m->char_count; i++)
    if (tress_id_is_equal(m->chars[i].model, model)) return &m->chars[i];
  return NULL;
}

tress_result tress_hair_manager_watch(tress_hair_manager *m, tress_id character) {
  if (!m) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_is_valid(m->def.scene, character)) return TRESS_ERR_STALE_ID;
  if (find_watched(m, character)) return TRESS_OK;
  if (m->char_count == m->char_cap) {
    uint32_t cap = m->char_cap ? 2 * m->char_cap : 8;
    watched *n = realloc(m->chars, cap * sizeof *n);
    if (!n) return TRESS_ERR_OUT_OF_MEMORY;
    m->chars = n;
    m->char_cap = cap;
  }
  watched *w = &m->chars[m->char_count++];
  memset(w, 0, sizeof *w);
  w->model = character;
  return TRESS_OK;
}

static void drop_entry(tress_hair_manager *m, uint32_t index) {
  free(m->chars[index].seen);
  m->chars[index] = m->chars[--m->char_count];
}

void tress_hair_manager_unwatch(tress_hair_manager *m, tress_id character) {
  if (!m) return;
  for (uint32_t i = 0; i < m->char_count; i++)
    if (tress_id_is_equal(m->chars[i].model, character)) {
      drop_entry(m, i);
      return;
    }
}

bool tress_hair_manager_is_busy(const tress_hair_manager *m) { return m && (m->handed_off > 0 || m->wait_head); }

tress_hair_manager_stats tress_hair_manager_get_stats(const tress_hair_manager *m) {
  tress_hair_manager_stats s;
  memset(&s, 0, sizeof s);
  if (!m) return s;
  s = m->stats;
  s.watched = m->char_count;
  return s;
}

/* ---- the pass ------------------------------------------------------------------------------ */

bool tress_accessory_is_hair(tress_accessory_type type, const char *name) {
  if (type == TRESS_ACCESSORY_HAIR) return true;
  for (const char *p = name; p && p[0] && p[1] && p[2] && p[3]; p++)
    if (tolower((unsigned char)p[0]) == 'h' && tolower((unsigned char)p[1]) == 'a' &&
        tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'r')
      return true;
  return false;
}

static bool matches(const tress_hair_manager *m, tress_id accessory) {
  if (m->def.match) return m->def.match(m->def.match_user, m->def.scene, accessory);
  char name[TRESS_NAME_MAX];
  tress_instance_get_name(m->def.scene, accessory, name);
  return tress_accessory_is_hair(tress_accessory_get_type(m->def.scene, accessory), name);
}

static bool has_bones(const tress_scene *s, tress_id part) {
  return !tress_id_is_null(tress_instance_find_child_of_kind(s, part, TRESS_KIND_BONE));
}

/* Bones a plan with these options makes (as rig() charges its budget). */
static uint32_t planned_bones(const tress_rig_opts *o) {
  uint32_t sectors = o->plan.sectors <= TRESS_PLAN_MAX_SECTORS ? o->plan.sectors : 0;
  uint32_t segments = o->plan.segments <= TRESS_PLAN_MAX_SEGMENTS ? o->plan.segments : 0;
  return 1 + sectors * segments;
}

/* Marks the handle and puts a job at the back of the budget FIFO; pump_jobs hands it off. */
static void queue_rig(tress_hair_manager *m, watched *w, tress_id handle) {
  tress_scene *s = m->def.scene;
  tress_mesh *mesh = tress_part_get_mesh(s, handle);
  char asset_id[TRESS_ASSET_ID_MAX];
  tress_part_get_asset_id(s, handle, asset_id);
  if (m->def.rig.owns_asset && !m->def.rig.owns_asset(m->def.rig.owns_asset_user, asset_id)) {
    m->stats.rigs_failed++; /* "no permission to load asset": the pendulum takes it */
    return;
  }
  rig_job *job = calloc(1, sizeof *job);
  tress_instance_def marker_def = tress_default_instance_def();
  marker_def.name = IN_FLIGHT_MARKER; /* a folder */
  marker_def.parent = handle;
  tress_id marker = {0};
  if (!job || tress_scene_create_instance(s, &marker_def, &marker) != TRESS_OK) {
    free(job);
    m->stats.rigs_failed++;
    return;
  }
  job->state = JOB_WAITING;
  job->character = w->model;
  job->part = handle;
  job->mesh = mesh;
  tress_mesh_retain(mesh);
  job->opts = m->def.rig;
  job->cost = tress_mesh_get_bytes(mesh) + tress_rig_get_bake_bytes(mesh, planned_bones(&job->opts));
  w->jobs_in_flight++;
  if (m->wait_tail) m->wait_tail->next = job;
  else m->wait_head = job;
  m->wait_tail = job;
  m->stats.queued++;
}

static void run_pass(tress_hair_manager *m, watched *w) {
  tress_scene *s = m->def.scene;
  m->stats.passes++;
  bool matched_any = false;
  for (tress_id a = tress_instance_get_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_get_next_sibling(s, a)) {
    if (tress_instance_get_kind(s, a) != TRESS_KIND_ACCESSORY || !matches(m, a)) continue;
    matched_any = true;
    tress_id handle = tress_accessory_get_handle(s, a);
    if (tress_instance_get_kind(s, handle) != TRESS_KIND_PART || has_bones(s, handle)) continue;
    const tress_mesh *mesh = tress_part_get_mesh(s, handle);
    if (!mesh || mesh->vertex_count == 0) {
      m->stats.rigs_failed++; /* "the MeshPart has no mesh": it swings as a pendulum */
      continue;
    }
    if (!tress_id_is_null(find_marker(s, handle))) {
      m->stats.skipped_in_flight++;
      continue;
    }
    queue_rig(m, w, handle);
  }
  if (matched_any && m->def.sim && !w->bound) w->bind_pending = true;
}

/* True while another pass (of this manager or another) is still rigging one of its handles. */
static bool any_marked(const tress_hair_manager *m, const watched *w) {
  const tress_scene *s = m->def.scene;
  for (tress_id a = tress_instance_get_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_get_next_sibling(s, a)) {
    if (tress_instance_get_kind(s, a) != TRESS_KIND_ACCESSORY) continue;
    tress_id handle = tress_accessory_get_handle(s, a);
    if (!tress_id_is_null(handle) && !tress_id_is_null(find_marker(s, handle))) return true;
  }
  return false;
}

static void bind_once(tress_hair_manager *m, watched *w) {
  tress_handle_id handles[64];
  uint32_t count = 0;
  tress_character_def character = tress_default_character_def();
  character.model = w->model;
  if (m->def.has_settings) character.chains = m->def.settings;
  if (m->def.has_accessory_settings) character.accessories = m->def.accessory_settings;
  tress_sim_bind_character(m->def.sim, &character, handles, 64, &count);
  m->stats.binds++;
  w->bind_pending = false;
  w->bound = true;
}

/* ---- finished rigs ------------------------------------------------------------------------- */

static void apply_job(tress_hair_manager *m, rig_job *job) {
  tress_scene *s = m->def.scene;
  watched *w = find_watched(m, job->character);
  if (w && w->jobs_in_flight) w->jobs_in_flight--;
  tress_id marker = tress_instance_is_valid(s, job->part) ? find_marker(s, job->part) : (tress_id){0};
  tress_instance_destroy(s, marker);
  bool usable = w && job->status == TRESS_RIG_OK && tress_instance_is_valid(s, job->part) &&
                tress_part_get_mesh(s, job->part) == job->mesh && !has_bones(s, job->part);
  if (!usable) {
    m->stats.rigs_failed++;
    return;
  }
  uint32_t n = job->out.bone_count;
  char(*names)[TRESS_NAME_MAX] = calloc(n, sizeof *names); /* on_rigged's view of the bones */
  tress_id *ids = calloc(n, sizeof *ids);
  bool ok = names && ids && tress_rig_build_bones(s, job->part, &job->out, ids);
  if (ok) {
    for (uint32_t b = 0; b < n; b++) snprintf(names[b], sizeof names[b], "%s", job->out.bones[b].name);
    m->stats.rigs_applied++;
    if (m->def.on_rigged) m->def.on_rigged(m->def.user, job->character, job->part, (const char(*)[TRESS_NAME_MAX])names, n);
  } else {
    m->stats.rigs_failed++;
  }
  free(names);
  free(ids);
}

static void collect_finished(tress_hair_manager *m) {
  job_hub *h = m->hub;
  pthread_mutex_lock(&h->lock);
  rig_job *done = h->done;
  h->done = NULL;
  pthread_mutex_unlock(&h->lock);
  uint32_t collected = 0;
  while (done) {
    rig_job *next = done->next;
    live_remove(m, done);
    apply_job(m, done);
    free_job(m, done);
    collected++;
    done = next;
  }
  if (collected) {
    pthread_mutex_lock(&h->lock);
    h->refs -= collected; /* never the last: the manager holds its own */
    pthread_mutex_unlock(&h->lock);
  }
}

/* A waiting job whose character or part is gone (or changed) never starts. */
static bool still_wanted(tress_hair_manager *m, const rig_job *job) {
  return find_watched(m, job->character) && tress_instance_is_valid(m->def.scene, job->part) &&
         tress_part_get_mesh(m->def.scene, job->part) == job->mesh;
}

/* Hands waiting jobs off, in order, while they fit the budget (the head always fits when
 * nothing is in flight). An inline submit_job finishes jobs during the hand-off, so their
 * results are applied here and the budget they held goes to the next ones. */
static void pump_jobs(tress_hair_manager *m) {
  uint64_t budget = m->def.max_inflight_bytes;
  while (m->wait_head) {
    rig_job *job = m->wait_head;
    bool fits = !budget || m->handed_off == 0 || (m->stats.inflight_bytes < budget && job->cost <= budget - m->stats.inflight_bytes);
    if (!fits) {
      pthread_mutex_lock(&m->hub->lock);
      bool any_done = m->hub->done != NULL;
      pthread_mutex_unlock(&m->hub->lock);
      if (!any_done) break;
      collect_finished(m);
      continue;
    }
    m->wait_head = job->next;
    if (!m->wait_head) m->wait_tail = NULL;
    job->next = NULL;
    m->stats.queued--;
    if (!still_wanted(m, job)) {
      job->status = TRESS_RIG_ERR_BAD_PART;
      apply_job(m, job); /* counts it failed, keeps the character's job count right */
      free_job(m, job);
      continue;
    }
    job->hub = m->hub;
    job->state = JOB_SUBMITTED;
    job->live_next = m->live;
    if (m->live) m->live->live_prev = job;
    m->live = job;
    m->handed_off++;
    m->stats.inflight_bytes += job->cost;
    if (m->stats.inflight_bytes > m->stats.peak_inflight_bytes) m->stats.peak_inflight_bytes = m->stats.inflight_bytes;
    m->stats.rigs_started++;
    pthread_mutex_lock(&m->hub->lock);
    m->hub->refs++;
    pthread_mutex_unlock(&m->hub->lock);
    if (m->def.submit_job) m->def.submit_job(m->def.job_user, run_job, job);
    else pool_submit(m->pool, run_job, job);
  }
  /* Counted after the hand-off: only rigs that really wait for the budget. */
  if (m->stats.queued > m->stats.peak_queued) m->stats.peak_queued = m->stats.queued;
}

/* New accessories re-arm the deadline; returns false when the character is gone. */
static bool notice_accessories(tress_hair_manager *m, watched *w, double now) {
  tress_scene *s = m->def.scene;
  if (!tress_instance_is_valid(s, w->model) || !tress_instance_is_in_scene(s, w->model)) return false;
  for (tress_id a = tress_instance_get_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_get_next_sibling(s, a)) {
    if (tress_instance_get_kind(s, a) != TRESS_KIND_ACCESSORY) continue;
    bool known = false;
    for (uint32_t i = 0; i < w->seen_count && !known; i++) known = tress_id_is_equal(w->seen[i], a);
    if (known) continue;
    if (w->seen_count == w->seen_cap) {
      uint32_t cap = w->seen_cap ? 2 * w->seen_cap : 8;
      tress_id *n = realloc(w->seen, cap * sizeof *n);
      if (!n) continue;
      w->seen = n;
      w->seen_cap = cap;
    }
    w->seen[w->seen_count++] = a;
    w->armed = true;
    w->deadline = now + m->def.debounce_seconds;
  }
  return true;
}

void tress_hair_manager_update(tress_hair_manager *m, double now) {
  if (!m) return;
  collect_finished(m);
  for (uint32_t i = 0; i < m->char_count;) {
    watched *w = &m->chars[i];
    if (!notice_accessories(m, w, now)) {
      drop_entry(m, i);
      continue;
    }
    if (w->armed && now >= w->deadline) {
      w->armed = false;
      run_pass(m, w);
    }
    if (w->bind_pending && w->jobs_in_flight == 0 && !w->armed && !any_marked(m, w)) bind_once(m, w);
    i++;
  }
  pump_jobs(m);
}
