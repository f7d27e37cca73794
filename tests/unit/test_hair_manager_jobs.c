/* test_hair_manager_jobs.c - the hair manager on the game's job system and under its in-flight
 * budget: a host thread pool and an inline submitter rig the sample hairs byte-for-byte like the
 * manager's own pthread worker and create no thread; the budget caps the bytes in flight (in
 * FIFO order, one oversized rig alone) and every character still finishes; destroy with jobs
 * the host has not run, or is running, is safe (ASan) and releases every mesh reference. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tress/hair_manager.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"
#include "support/scene_build.h"

#define MAX_CHARS 64

/* ---- a scene of characters wearing the three sample hairs ----------------------------------- */

typedef struct world {
  tress_scene *scene;
  tress_sim *sim;
  tress_mesh *hairs[TRESS_SAMPLE_HAIR_STYLE_COUNT];
  tress_id models[MAX_CHARS], handles[MAX_CHARS];
  int count;
  tress_id rigged_order[MAX_CHARS];
  int rigged;
} world;

static void world_init(world *w, int characters) {
  memset(w, 0, sizeof *w);
  assert_true(characters <= MAX_CHARS);
  w->scene = th_scene();
  tress_sim_def def = tress_default_sim_def();
  def.scene = w->scene;
  def.device_compute = 1.0f;
  def.max_chains = 4 * MAX_CHARS;
  def.max_distance = 1e5f;
  w->sim = tress_sim_create(&def);
  for (int s = 0; s < TRESS_SAMPLE_HAIR_STYLE_COUNT; s++) {
    w->hairs[s] = tress_sample_hair_create((tress_sample_hair_style)s);
    assert_non_null(w->hairs[s]);
  }
  tress_id workspace = th_instance(w->scene, TRESS_KIND_FOLDER, "Workspace", tress_scene_get_root(w->scene));
  for (int i = 0; i < characters; i++) {
    char name[32];
    snprintf(name, sizeof name, "Character%d", i);
    float x = 4.0f * (float)i;
    tress_id model = th_instance(w->scene, TRESS_KIND_MODEL, name, workspace);
    tress_id head = th_instance(w->scene, TRESS_KIND_PART, "Head", model);
    tress_part_set_cframe(w->scene, head, tress_xform_from_pos(x, 4.6f, 0));
    tress_id acc = th_instance(w->scene, TRESS_KIND_ACCESSORY, "Hair", model);
    tress_accessory_set_type(w->scene, acc, TRESS_ACCESSORY_HAIR);
    tress_id handle = th_instance(w->scene, TRESS_KIND_PART, "Handle", acc);
    tress_mesh *mesh = w->hairs[i % TRESS_SAMPLE_HAIR_STYLE_COUNT];
    float lo[3], hi[3], size[3];
    assert_true(tress_mesh_get_bounds(mesh, lo, hi));
    for (int k = 0; k < 3; k++) size[k] = hi[k] - lo[k];
    tress_part_set_mesh(w->scene, handle, mesh);
    tress_part_set_size(w->scene, handle, size);
    tress_part_set_cframe(w->scene, handle, tress_xform_from_pos(x, 4.7f, 0));
    tress_id joint = th_instance(w->scene, TRESS_KIND_JOINT, "AccessoryWeld", handle);
    tress_joint j = {.kind = TRESS_JOINT_WELD, .part0 = handle, .part1 = head, .enabled = true};
    j.c0 = tress_xform_identity();
    j.c1 = tress_xform_from_pos(0, 0.1f, 0);
    tress_joint_set_def(w->scene, joint, &j);
    w->models[i] = model;
    w->handles[i] = handle;
  }
  w->count = characters;
}

static void world_free(world *w) {
  tress_sim_destroy(w->sim);
  tress_scene_destroy(w->scene);
  for (int s = 0; s < TRESS_SAMPLE_HAIR_STYLE_COUNT; s++) tress_mesh_release(w->hairs[s]);
}

/* What the budget charges one rig of this mesh (the header's formula). */
static uint64_t rig_cost(const tress_mesh *mesh) {
  tress_rig_opts o = tress_default_rig_opts();
  return tress_mesh_get_bytes(mesh) + tress_rig_get_bake_bytes(mesh, 1 + o.plan.sectors * o.plan.segments);
}

static void on_rigged(void *user, tress_id character, tress_id part, const char (*names)[TRESS_NAME_MAX], uint32_t n) {
  (void)part, (void)names, (void)n;
  world *w = user;
  w->rigged_order[w->rigged++] = character;
}

static tress_hair_manager_def manager_def(world *w) {
  tress_hair_manager_def def = tress_default_hair_manager_def();
  def.scene = w->scene;
  def.sim = w->sim;
  def.on_rigged = on_rigged;
  def.user = w;
  return def;
}

static void watch_all(tress_hair_manager *m, world *w) {
  for (int i = 0; i < w->count; i++) assert_int_equal(tress_hair_manager_watch(m, w->models[i]), TRESS_OK);
}

static void nap(void) {
  struct timespec ts = {0, 200000};
  nanosleep(&ts, NULL);
}

/* ---- host job systems ------------------------------------------------------------------------ */

typedef struct host_job {
  void (*run)(void *job);
  void *job;
} host_job;

/* A test-owned thread pool (threads > 0), or a queue that runs only when told (threads == 0). */
typedef struct host_pool {
  pthread_t threads[4];
  int thread_count;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  host_job jobs[4 * MAX_CHARS];
  int head, tail; /* jobs[head, tail) wait; never wraps within a test */
  int submitted, ran;
  bool stopping;
} host_pool;

static void *host_worker(void *arg) {
  host_pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->head == p->tail && !p->stopping) pthread_cond_wait(&p->wake, &p->lock);
    if (p->head == p->tail) break; /* stopping with nothing left: drain before leaving */
    host_job j = p->jobs[p->head++];
    pthread_mutex_unlock(&p->lock);
    j.run(j.job);
    pthread_mutex_lock(&p->lock);
    p->ran++;
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void host_pool_start(host_pool *p, int threads) {
  memset(p, 0, sizeof *p);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  for (int i = 0; i < threads; i++) assert_int_equal(pthread_create(&p->threads[i], NULL, host_worker, p), 0);
  p->thread_count = threads;
}

static void host_submit(void *user, void (*run)(void *job), void *job) {
  host_pool *p = user;
  pthread_mutex_lock(&p->lock);
  assert_true(p->tail < (int)(sizeof p->jobs / sizeof p->jobs[0]));
  p->jobs[p->tail++] = (host_job){run, job};
  p->submitted++;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->lock);
}

/* A queue-only pool: runs what waits, here, on the calling thread. */
static void host_run_held(host_pool *p) {
  while (p->head < p->tail) {
    host_job j = p->jobs[p->head++];
    j.run(j.job);
    p->ran++;
  }
}

/* Runs every job still queued (workers drain before they stop), then joins. */
static void host_pool_stop(host_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->stopping = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->thread_count; i++) pthread_join(p->threads[i], NULL);
  host_run_held(p);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
}

typedef struct inline_host {
  int submitted;
} inline_host;

static void inline_submit(void *user, void (*run)(void *job), void *job) {
  ((inline_host *)user)->submitted++;
  run(job); /* synchronously, inside update() */
}

static int thread_count_now(void) {
  DIR *d = opendir("/proc/self/task");
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* Frames from t = 0 until the pass ran and nothing is in flight; returns the most threads seen. */
static int run_until_idle(tress_hair_manager *m, double *t) {
  int most = thread_count_now();
  for (int frame = 0; frame < 5000; frame++, *t += 1.0 / 60.0) {
    tress_hair_manager_update(m, *t);
    int n = thread_count_now();
    if (n > most) most = n;
    if (*t > 0.3 && !tress_hair_manager_is_busy(m)) return most;
    nap();
  }
  fail_msg("the manager never went idle");
  return most;
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void assert_same_rig(world *a, world *b) {
  for (int i = 0; i < a->count; i++) {
    const tress_mesh *x = tress_part_get_mesh(a->scene, a->handles[i]);
    const tress_mesh *y = tress_part_get_mesh(b->scene, b->handles[i]);
    assert_true(tress_mesh_is_skinned(x));
    assert_true(tress_mesh_is_skinned(y));
    assert_true(x->bone_count == 10 || x->bone_count == 7); /* 3 x 3, or 3 x 2 bands for the strandless afro */
    assert_int_equal(x->bone_count, y->bone_count);
    assert_int_equal(x->vertex_count, y->vertex_count);
    assert_memory_equal(x->weights, y->weights, 4 * sizeof(float) * x->vertex_count);
    assert_memory_equal(x->joints, y->joints, 4 * sizeof(uint16_t) * x->vertex_count);
    assert_memory_equal(x->positions, y->positions, 3 * sizeof(float) * x->vertex_count);
    for (uint32_t k = 0; k < x->bone_count; k++) assert_string_equal(x->bones[k].name, y->bones[k].name);
  }
}

static void test_host_jobs_rig_like_the_pthread_worker(void **state) {
  (void)state;
  enum { N = 9 };
  world own, pooled, inlined;
  world_init(&own, N);
  world_init(&pooled, N);
  world_init(&inlined, N);
  double t = 0;

  tress_hair_manager_def def = manager_def(&own); /* the manager's own pthread worker */
  tress_hair_manager *m = tress_hair_manager_create(&def);
  watch_all(m, &own);
  run_until_idle(m, &t);
  tress_hair_manager_destroy(m);

  host_pool pool;
  host_pool_start(&pool, 2);
  def = manager_def(&pooled);
  def.submit_job = host_submit;
  def.job_user = &pool;
  m = tress_hair_manager_create(&def);
  watch_all(m, &pooled);
  t = 0;
  run_until_idle(m, &t);
  tress_hair_manager_destroy(m);
  host_pool_stop(&pool);
  assert_int_equal(pool.submitted, N);
  assert_int_equal(pool.ran, N);

  inline_host host = {0};
  def = manager_def(&inlined);
  def.submit_job = inline_submit;
  def.job_user = &host;
  m = tress_hair_manager_create(&def);
  watch_all(m, &inlined);
  t = 0;
  run_until_idle(m, &t);
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  tress_hair_manager_destroy(m);
  assert_int_equal(host.submitted, N);
  assert_int_equal(s.rigs_applied, N);
  assert_int_equal(s.binds, N);

  assert_int_equal(own.rigged, N);
  assert_int_equal(pooled.rigged, N);
  assert_int_equal(inlined.rigged, N);
  assert_same_rig(&own, &pooled);
  assert_same_rig(&own, &inlined);
  assert_int_equal(tress_sim_get_stats(pooled.sim).bound, tress_sim_get_stats(own.sim).bound);
  world_free(&own);
  world_free(&pooled);
  world_free(&inlined);
}

static void test_submit_job_creates_no_thread(void **state) {
  (void)state;
  enum { N = 6 };
  world w;
  double t = 0;
  /* The counter sees threads: the manager's own worker shows up. */
  world_init(&w, N);
  int before = thread_count_now();
  tress_hair_manager_def def = manager_def(&w);
  tress_hair_manager *m = tress_hair_manager_create(&def);
  assert_int_equal(thread_count_now(), before + 1);
  tress_hair_manager_destroy(m);
  assert_int_equal(thread_count_now(), before);
  world_free(&w);

  host_pool pool;
  host_pool_start(&pool, 2);
  world_init(&w, N);
  before = thread_count_now();
  def = manager_def(&w);
  def.submit_job = host_submit;
  def.job_user = &pool;
  m = tress_hair_manager_create(&def);
  assert_int_equal(thread_count_now(), before);
  watch_all(m, &w);
  assert_int_equal(run_until_idle(m, &t), before);
  assert_int_equal(tress_hair_manager_get_stats(m).rigs_applied, N);
  tress_hair_manager_destroy(m);
  host_pool_stop(&pool);
  world_free(&w);

  inline_host host = {0};
  world_init(&w, N);
  before = thread_count_now();
  def = manager_def(&w);
  def.submit_job = inline_submit;
  def.job_user = &host;
  m = tress_hair_manager_create(&def);
  watch_all(m, &w);
  t = 0;
  assert_int_equal(run_until_idle(m, &t), before);
  assert_int_equal(tress_hair_manager_get_stats(m).rigs_applied, N);
  tress_hair_manager_destroy(m);
  world_free(&w);
}

/* Rigs N characters with the given budget on a 2-thread host pool (or inline); returns stats. */
static tress_hair_manager_stats rig_with_budget(size_t budget, bool inline_jobs, world *w) {
  host_pool pool;
  inline_host host = {0};
  if (!inline_jobs) host_pool_start(&pool, 2);
  tress_hair_manager_def def = manager_def(w);
  def.submit_job = inline_jobs ? inline_submit : host_submit;
  def.job_user = inline_jobs ? (void *)&host : (void *)&pool;
  def.max_inflight_bytes = budget;
  tress_hair_manager *m = tress_hair_manager_create(&def);
  watch_all(m, w);
  double t = 0;
  run_until_idle(m, &t);
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  tress_hair_manager_destroy(m);
  if (!inline_jobs) host_pool_stop(&pool);
  return s;
}

static void test_budget_caps_bytes_in_flight(void **state) {
  (void)state;
  enum { N = 30 };
  world w;
  world_init(&w, N);
  uint64_t sum = 0, largest = 0;
  for (int i = 0; i < N; i++) {
    uint64_t c = rig_cost(w.hairs[i % TRESS_SAMPLE_HAIR_STYLE_COUNT]);
    sum += c;
    if (c > largest) largest = c;
  }
  /* Unlimited: all 30 are handed off in the frame their passes run. */
  tress_hair_manager_stats s = rig_with_budget(0, false, &w);
  assert_int_equal(s.rigs_applied, N);
  assert_int_equal(s.peak_inflight_bytes, sum);
  assert_int_equal(s.peak_queued, 0); /* none had to wait */
  world_free(&w);

  /* Three rigs' worth: never more in flight, and everyone still finishes, in watch order. */
  const size_t budget = (size_t)(3 * largest);
  for (int mode = 0; mode < 2; mode++) {
    world_init(&w, N);
    s = rig_with_budget(budget, mode == 1, &w);
    assert_true(s.peak_inflight_bytes <= budget);
    assert_true(s.peak_inflight_bytes >= 2 * largest); /* it does use the room it has */
    assert_int_equal(s.rigs_applied, N);
    assert_int_equal(s.binds, N);
    assert_int_equal(s.queued, 0);
    assert_int_equal(s.inflight_bytes, 0);
    assert_int_equal(w.rigged, N);
    world_free(&w);
  }

  /* A budget smaller than any mesh: each rig runs alone, in FIFO order, none is starved. */
  for (int mode = 0; mode < 2; mode++) {
    world_init(&w, N);
    s = rig_with_budget(1, mode == 1, &w);
    assert_int_equal(s.peak_inflight_bytes, largest);
    assert_int_equal(s.rigs_applied, N);
    assert_int_equal(s.binds, N);
    for (int i = 0; i < N; i++) assert_true(tress_id_is_equal(w.rigged_order[i], w.models[i]));
    world_free(&w);
  }
}

/* A rig waiting for the budget whose character is gone by its turn never reaches the host. */
static void test_waiting_rig_of_a_destroyed_character_never_starts(void **state) {
  (void)state;
  world w;
  world_init(&w, 3);
  host_pool held;
  host_pool_start(&held, 0);
  tress_hair_manager_def def = manager_def(&w);
  def.submit_job = host_submit;
  def.job_user = &held;
  def.max_inflight_bytes = 1;
  tress_hair_manager *m = tress_hair_manager_create(&def);
  watch_all(m, &w);
  tress_hair_manager_update(m, 0.0);
  tress_hair_manager_update(m, 0.3);
  assert_int_equal(held.submitted, 1);
  assert_int_equal(tress_hair_manager_get_stats(m).queued, 2);
  tress_instance_destroy(w.scene, w.models[1]);
  double t = 0.35;
  for (int frame = 0; frame < 20 && tress_hair_manager_is_busy(m); frame++, t += 1.0 / 60.0) {
    host_run_held(&held);
    tress_hair_manager_update(m, t);
  }
  assert_false(tress_hair_manager_is_busy(m));
  tress_hair_manager_stats s = tress_hair_manager_get_stats(m);
  assert_int_equal(held.submitted, 2);
  assert_int_equal(s.rigs_started, 2);
  assert_int_equal(s.rigs_applied, 2);
  assert_int_equal(s.rigs_failed, 1);
  assert_int_equal(s.peak_queued, 2);
  tress_hair_manager_destroy(m);
  host_pool_stop(&held);
  world_free(&w);
}

static int32_t total_refs(world *w) {
  int32_t n = 0;
  for (int s = 0; s < TRESS_SAMPLE_HAIR_STYLE_COUNT; s++) n += w->hairs[s]->refcount;
  return n;
}

static int markers(world *w) {
  int n = 0;
  for (int i = 0; i < w->count; i++)
    n += !tress_id_is_null(tress_instance_find_child(w->scene, w->handles[i], "HairKitRigging"));
  return n;
}

/* The host holds every job and runs them only after destroy: destroy returns at once, gives the
 * mesh references and markers back, and the late runs only free themselves (ASan/LSan clean). */
static void test_destroy_with_jobs_the_host_has_not_run(void **state) {
  (void)state;
  enum { N = 6 };
  world w;
  world_init(&w, N);
  int32_t refs = total_refs(&w); /* ours + one per part */
  host_pool held;
  host_pool_start(&held, 0);
  tress_hair_manager_def def = manager_def(&w);
  def.submit_job = host_submit;
  def.job_user = &held;
  tress_hair_manager *m = tress_hair_manager_create(&def);
  watch_all(m, &w);
  tress_hair_manager_update(m, 0.0);
  tress_hair_manager_update(m, 0.3);
  assert_int_equal(held.submitted, N);
  assert_int_equal(total_refs(&w), refs + N);
  assert_int_equal(markers(&w), N);
  for (; held.head < 2; held.head++, held.ran++) held.jobs[held.head].run(held.jobs[held.head].job); /* finished, never collected */
  tress_hair_manager_destroy(m);
  assert_int_equal(total_refs(&w), refs);
  assert_int_equal(markers(&w), 0);
  assert_int_equal(w.rigged, 0);
  world_free(&w); /* the scene goes before the host runs the rest */
  host_run_held(&held);
  assert_int_equal(held.ran, N);
  host_pool_stop(&held);
}

/* destroy while a 2-thread host pool is running and queueing jobs: destroy waits for the runs
 * under way, cancels the rest, and the pool drains them afterwards. */
static void test_destroy_while_the_host_pool_runs(void **state) {
  (void)state;
  enum { N = 40 };
  for (int round = 0; round < 10; round++) {
    world w;
    world_init(&w, N);
    int32_t refs = total_refs(&w);
    host_pool pool;
    host_pool_start(&pool, 2);
    tress_hair_manager_def def = manager_def(&w);
    def.submit_job = host_submit;
    def.job_user = &pool;
    def.max_inflight_bytes = 0;
    tress_hair_manager *m = tress_hair_manager_create(&def);
    watch_all(m, &w);
    tress_hair_manager_update(m, 0.0);
    tress_hair_manager_update(m, 0.3);
    /* Let the pool get going (so runs are under way when destroy comes), further each round. */
    for (int ran = 0; ran < 1 + 3 * round;) {
      pthread_mutex_lock(&pool.lock);
      ran = pool.ran;
      pthread_mutex_unlock(&pool.lock);
    }
    if (round & 1) tress_hair_manager_update(m, 0.31); /* sometimes collect a few first */
    uint32_t applied = tress_hair_manager_get_stats(m).rigs_applied; /* their parts hold the bake now */
    tress_hair_manager_destroy(m);
    assert_int_equal(total_refs(&w), refs - (int32_t)applied);
    assert_int_equal(markers(&w), 0);
    host_pool_stop(&pool);
    assert_int_equal(pool.ran, N);
    world_free(&w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_jobs_rig_like_the_pthread_worker),
      cmocka_unit_test(test_submit_job_creates_no_thread),
      cmocka_unit_test(test_budget_caps_bytes_in_flight),
      cmocka_unit_test(test_waiting_rig_of_a_destroyed_character_never_starts),
      cmocka_unit_test(test_destroy_with_jobs_the_host_has_not_run),
      cmocka_unit_test(test_destroy_while_the_host_pool_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
