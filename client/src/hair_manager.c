/* hair_manager.c - the seed's HairKit.attach: rig every watched character's hair on the client.
 *
 * Each watched character keeps one deadline. Every accessory that appears in it re-arms the
 * deadline debounce_seconds (0.25) ahead, so a character whose accessories stream in over a few
 * frames gets one pass, after the last. A pass walks the accessories the match accepts: a
 * Handle part with a mesh and no bones is rigged; handles that already carry bones, or are
 * not mesh parts, are left to bind_character.
 *
 * Rigging runs on worker threads (pthreads) with tress_rig_mesh, the scene-free half of rig():
 * the worker reads only the mesh, which it holds a reference to, and writes only its job. The
 * game thread applies the result inside update() (Bone instances, skinned mesh swapped in,
 * size kept), so the scene is never touched off the game thread.
 *
 * Invariants:
 * - a handle being rigged carries a child marker (a Folder named HairKitRigging). A pass that
 *   finds the marker skips that handle, so two passes, or two managers on one scene, never rig
 *   the same hair; the marker lives in the scene, not in global state;
 * - a pass that matched anything binds only when its own jobs are done and no matched handle
 *   of the character is still marked: the pass that finishes last does the bind, and no
 *   character is bound while its hair is half rigged (which would bind a pendulum and then
 *   bones on the same hair);
 * - bind_character is idempotent, so a second manager's bind adds no handle;
 * - a rig that fails, is refused by the gate, or whose part changed meanwhile leaves the
 *   accessory boneless and the bind swings it as a pendulum;
 * - an entry clears when its character is destroyed or leaves the scene; a result for a
 *   cleared entry or a destroyed part is dropped.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"
#include "tress/hair_manager.h"

#define IN_FLIGHT_MARKER "HairKitRigging"
#define MAX_THREADS 8

typedef struct rig_job {
  struct rig_job *next;
  tress_id character;
  tress_id part;
  tress_mesh *mesh; /* one reference, taken and released on the game thread */
  tress_rig_opts opts;
  tress_rig_output out;
  tress_rig_status status;
} rig_job;

typedef struct watched {
  tress_id model;
  tress_id *seen;
  uint32_t seen_count, seen_cap;
  bool armed;
  double deadline;
  uint32_t jobs_in_flight;
  bool bind_pending;
  bool bound; /* bind_character ran: each character is bound once */
} watched;

struct tress_hair_manager {
  tress_hair_manager_def def;
  watched *chars;
  uint32_t char_count, char_cap;
  pthread_t threads[MAX_THREADS];
  uint32_t thread_count;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  rig_job *queue_head, *queue_tail; /* guarded by lock */
  rig_job *done;                    /* guarded by lock */
  bool stopping;                    /* guarded by lock */
  uint32_t in_flight;               /* game thread only */
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
  return d;
}

static void *worker_main(void *arg) {
  tress_hair_manager *m = arg;
  pthread_mutex_lock(&m->lock);
  for (;;) {
    while (!m->queue_head && !m->stopping) pthread_cond_wait(&m->wake, &m->lock);
    if (m->stopping) break;
    rig_job *job = m->queue_head;
    m->queue_head = job->next;
    if (!m->queue_head) m->queue_tail = NULL;
    pthread_mutex_unlock(&m->lock);
    job->status = tress_rig_mesh(job->mesh, &job->opts, &job->out);
    pthread_mutex_lock(&m->lock);
    job->next = m->done;
    m->done = job;
  }
  pthread_mutex_unlock(&m->lock);
  return NULL;
}

tress_hair_manager *tress_hair_manager_create(const tress_hair_manager_def *def) {
  if (!def || !def->scene) return NULL;
  tress_hair_manager *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->def = *def;
  if (m->def.debounce_seconds < 0) m->def.debounce_seconds = 0;
  uint32_t n = m->def.worker_threads ? m->def.worker_threads : 1;
  if (n > MAX_THREADS) n = MAX_THREADS;
  pthread_mutex_init(&m->lock, NULL);
  pthread_cond_init(&m->wake, NULL);
  for (uint32_t i = 0; i < n; i++) {
    if (pthread_create(&m->threads[i], NULL, worker_main, m) != 0) break;
    m->thread_count++;
  }
  if (m->thread_count == 0) {
    tress_hair_manager_destroy(m);
    return NULL;
  }
  return m;
}

static tress_id find_marker(const tress_scene *s, tress_id part) {
  tress_id marker = tress_instance_find_child(s, part, IN_FLIGHT_MARKER);
  return tress_instance_kind(s, marker) == TRESS_KIND_FOLDER ? marker : TRESS_NULL_ID;
}

static void free_job(tress_hair_manager *m, rig_job *job) {
  if (tress_instance_valid(m->def.scene, job->part)) tress_instance_destroy(m->def.scene, find_marker(m->def.scene, job->part));
  tress_mesh_release(job->mesh);
  tress_rig_output_free(&job->out);
  free(job);
}

void tress_hair_manager_destroy(tress_hair_manager *m) {
  if (!m) return;
  pthread_mutex_lock(&m->lock);
  m->stopping = true;
  pthread_cond_broadcast(&m->wake);
  pthread_mutex_unlock(&m->lock);
  for (uint32_t i = 0; i < m->thread_count; i++) pthread_join(m->threads[i], NULL);
  for (rig_job *j = m->queue_head, *next; j; j = next) {
    next = j->next;
    free_job(m, j);
  }
  for (rig_job *j = m->done, *next; j; j = next) {
    next = j->next;
    free_job(m, j);
  }
  for (uint32_t i = 0; i < m->char_count; i++) free(m->chars[i].seen);
  free(m->chars);
  pthread_cond_destroy(&m->wake);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

static watched *find_watched(tress_hair_manager *m, tress_id model) {
  for (uint32_t i = 0; i < m->char_count; i++)
    if (tress_id_equal(m->chars[i].model, model)) return &m->chars[i];
  return NULL;
}

tress_result tress_hair_manager_watch(tress_hair_manager *m, tress_id character) {
  if (!m) return TRESS_ERR_INVALID_ARGUMENT;
  if (!tress_instance_valid(m->def.scene, character)) return TRESS_ERR_STALE_ID;
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
    if (tress_id_equal(m->chars[i].model, character)) {
      drop_entry(m, i);
      return;
    }
}

bool tress_hair_manager_busy(const tress_hair_manager *m) { return m && m->in_flight > 0; }

tress_hair_manager_stats tress_hair_manager_stats_get(const tress_hair_manager *m) {
  tress_hair_manager_stats s;
  memset(&s, 0, sizeof s);
  if (!m) return s;
  s = m->stats;
  s.watched = m->char_count;
  return s;
}

/* ---- the pass ------------------------------------------------------------------------------ */

static bool name_has_hair(const char *name) {
  for (const char *p = name; p[0] && p[1] && p[2] && p[3]; p++)
    if (tolower((unsigned char)p[0]) == 'h' && tolower((unsigned char)p[1]) == 'a' &&
        tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'r')
      return true;
  return false;
}

static bool matches(const tress_hair_manager *m, tress_id accessory) {
  if (m->def.match) return m->def.match(m->def.match_user, m->def.scene, accessory);
  return tress_accessory_get_type(m->def.scene, accessory) == TRESS_ACCESSORY_HAIR ||
         name_has_hair(tress_instance_name(m->def.scene, accessory));
}

static bool has_bones(const tress_scene *s, tress_id part) {
  return !tress_id_is_null(tress_instance_find_child_of_kind(s, part, TRESS_KIND_BONE));
}

static void start_rig(tress_hair_manager *m, watched *w, tress_id handle) {
  tress_scene *s = m->def.scene;
  tress_mesh *mesh = tress_part_mesh(s, handle);
  if (m->def.rig.owns_asset && !m->def.rig.owns_asset(m->def.rig.owns_asset_user, tress_part_asset_id(s, handle))) {
    m->stats.rigs_failed++; /* "no permission to load asset": the pendulum takes it */
    return;
  }
  rig_job *job = calloc(1, sizeof *job);
  tress_id marker = job ? tress_instance_create(s, TRESS_KIND_FOLDER, IN_FLIGHT_MARKER, handle) : TRESS_NULL_ID;
  if (tress_id_is_null(marker)) {
    free(job);
    m->stats.rigs_failed++;
    return;
  }
  job->character = w->model;
  job->part = handle;
  job->mesh = mesh;
  tress_mesh_retain(mesh);
  job->opts = m->def.rig;
  w->jobs_in_flight++;
  m->in_flight++;
  m->stats.rigs_started++;
  pthread_mutex_lock(&m->lock);
  if (m->queue_tail) m->queue_tail->next = job;
  else m->queue_head = job;
  m->queue_tail = job;
  pthread_cond_signal(&m->wake);
  pthread_mutex_unlock(&m->lock);
}

static void run_pass(tress_hair_manager *m, watched *w) {
  tress_scene *s = m->def.scene;
  m->stats.passes++;
  bool matched_any = false;
  for (tress_id a = tress_instance_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_next_sibling(s, a)) {
    if (tress_instance_kind(s, a) != TRESS_KIND_ACCESSORY || !matches(m, a)) continue;
    matched_any = true;
    tress_id handle = tress_accessory_handle(s, a);
    if (tress_instance_kind(s, handle) != TRESS_KIND_PART || has_bones(s, handle)) continue;
    const tress_mesh *mesh = tress_part_mesh(s, handle);
    if (!mesh || mesh->vertex_count == 0) {
      m->stats.rigs_failed++; /* "the MeshPart has no mesh": it swings as a pendulum */
      continue;
    }
    if (!tress_id_is_null(find_marker(s, handle))) {
      m->stats.skipped_in_flight++;
      continue;
    }
    start_rig(m, w, handle);
  }
  if (matched_any && m->def.sim && !w->bound) w->bind_pending = true;
}

/* True while another pass (of this manager or another) is still rigging one of its handles. */
static bool any_marked(const tress_hair_manager *m, const watched *w) {
  const tress_scene *s = m->def.scene;
  for (tress_id a = tress_instance_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_next_sibling(s, a)) {
    if (tress_instance_kind(s, a) != TRESS_KIND_ACCESSORY) continue;
    tress_id handle = tress_accessory_handle(s, a);
    if (!tress_id_is_null(handle) && !tress_id_is_null(find_marker(s, handle))) return true;
  }
  return false;
}

static void bind_once(tress_hair_manager *m, watched *w) {
  tress_handle_id handles[64];
  uint32_t count = 0;
  tress_sim_bind_character(m->def.sim, w->model, m->def.has_settings ? &m->def.settings : NULL,
                           m->def.has_accessory_settings ? &m->def.accessory_settings : NULL, NULL, NULL, handles, 64,
                           &count);
  m->stats.binds++;
  w->bind_pending = false;
  w->bound = true;
}

/* ---- finished rigs ------------------------------------------------------------------------- */

static void apply_job(tress_hair_manager *m, rig_job *job) {
  tress_scene *s = m->def.scene;
  watched *w = find_watched(m, job->character);
  if (w && w->jobs_in_flight) w->jobs_in_flight--;
  tress_id marker = tress_instance_valid(s, job->part) ? find_marker(s, job->part) : TRESS_NULL_ID;
  tress_instance_destroy(s, marker);
  bool usable = w && job->status == TRESS_RIG_OK && tress_instance_valid(s, job->part) &&
                tress_part_mesh(s, job->part) == job->mesh && !has_bones(s, job->part);
  if (!usable) {
    m->stats.rigs_failed++;
    return;
  }
  uint32_t n = job->out.bone_count;
  char(*names)[TRESS_NAME_MAX] = calloc(n, sizeof *names);
  int32_t *parents = calloc(n, sizeof *parents);
  tress_xform *rests = calloc(n, sizeof *rests);
  tress_id *ids = calloc(n, sizeof *ids);
  bool ok = names && parents && rests && ids;
  if (ok) {
    /* rig() step 8: bones scaled by size / mesh size so the skeleton matches the worn scale. */
    float size[3], scale[3];
    tress_part_size(s, job->part, size);
    for (int k = 0; k < 3; k++) scale[k] = job->out.mesh_size[k] > 1e-12f ? size[k] / job->out.mesh_size[k] : 1.0f;
    for (uint32_t b = 0; b < n; b++) {
      snprintf(names[b], sizeof names[b], "%s", job->out.bones[b].name);
      parents[b] = job->out.bones[b].parent;
      rests[b] = job->out.bones[b].rest;
      for (int k = 0; k < 3; k++) rests[b].p[k] *= scale[k];
    }
    ok = tress__build_bones(s, job->part, n, (const char(*)[TRESS_NAME_MAX])names, parents, rests, job->out.mesh, ids);
  }
  if (ok) {
    m->stats.rigs_applied++;
    if (m->def.on_rigged) m->def.on_rigged(m->def.user, job->character, job->part, (const char(*)[TRESS_NAME_MAX])names, n);
  } else {
    m->stats.rigs_failed++;
  }
  free(names);
  free(parents);
  free(rests);
  free(ids);
}

static void collect_finished(tress_hair_manager *m) {
  pthread_mutex_lock(&m->lock);
  rig_job *done = m->done;
  m->done = NULL;
  pthread_mutex_unlock(&m->lock);
  while (done) {
    rig_job *next = done->next;
    m->in_flight--;
    apply_job(m, done);
    free_job(m, done);
    done = next;
  }
}

/* New accessories re-arm the deadline; returns false when the character is gone. */
static bool notice_accessories(tress_hair_manager *m, watched *w, double now) {
  tress_scene *s = m->def.scene;
  if (!tress_instance_valid(s, w->model) || !tress_instance_in_scene(s, w->model)) return false;
  for (tress_id a = tress_instance_first_child(s, w->model); !tress_id_is_null(a); a = tress_instance_next_sibling(s, a)) {
    if (tress_instance_kind(s, a) != TRESS_KIND_ACCESSORY) continue;
    bool known = false;
    for (uint32_t i = 0; i < w->seen_count && !known; i++) known = tress_id_equal(w->seen[i], a);
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
}
