/* Rig jobs
 * --------
 * Rigging never runs on the loop thread. A request for (asset id, rig options) resolves in
 * this order, cheapest first (after one stat() of the asset file, which also catches a deleted
 * asset with its own message, and tells whether the file changed since it was last read):
 *   1. the id's content hash is known (an earlier load produced it, from the file as it is now)
 *      and the memory cache has the key: settle now, no job at all;
 *   2. a job for the same (asset id, options, file stat) is already queued or running: wait on
 *      it, so ten characters spawning with the same hair at once cost one rig, but a request
 *      made after an edit never waits on a job that may be reading the old file;
 *   3. a new job on the libuv thread pool: load the mesh from the store, hash it, try the disk
 *      cache (a corrupt file is reported and rebuilt), else rig and write the cache file.
 *      With a shared tier (cache_url, rig_shared.c) a disk miss goes back to the loop thread
 *      first, which asks Redis; the job then returns to the pool once more, to verify the
 *      value Redis had (and write it to disk), or to rig (holding the fleet's lease, or without
 *      it when Redis failed or the wait on another server's lease ran out) and build the value
 *      the loop stores. A value that does not verify is rigged and overwritten.
 * The worker touches only its own job and atomics; everything else (cache insert, store hash
 * table, sessions, the network) happens in the after-work callback on the loop thread.
 * Shutdown cancels jobs that have not started (uv_cancel) and lets running ones finish, so a
 * cache file is always either written whole (atomic rename) or not at all.
 *
 * A pre-skinned accessory (manifest has_bones with a mesh) takes the same road with the file's
 * own skin in place of the rigger (preskinned.c): checked and laid out on the worker, then the
 * same entry, memory cache and RIG_RESULT. Its key is the skin digest (geometry hash + bones +
 * weights, so a re-weighted file is a new key), learned per asset id under skin_store_id(); it
 * skips the disk cache, which would save only a quantize and a zstd of a file the worker has
 * to read and hash anyway. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "preskinned.h"
#include "rig_glb.h"
#include "rig_shared.h"
#include "server.h"
#include "tress/mesh_hash.h"
#include "tress/rig.h"

/* What the next (or current) trip to the thread pool does. */
typedef enum job_stage {
  STAGE_LOAD = 0,     /* load, hash, disk cache; without a shared tier also the rig */
  STAGE_SHARED_VALUE, /* verify a shared value and write it to disk */
  STAGE_RIG,          /* rig (a shared miss), write disk, build the shared value */
} job_stage;

struct tress_rig_job {
  uv_work_t work;
  tress_server *server;
  tress_rig_job *next;
  uint32_t creator_slot, creator_peer_id; /* whose spawn started it (per-peer rig limit) */
  uint32_t creator_host;                  /* and from which IPv4 address (the limit outlives the connection) */
  char creator_player[TRESS_WIRE_NAME_CAP]; /* the join token's player id, "" without signed tokens */
  char asset_id[TRESS_WIRE_TEXT_CAP];
  tress_wire_rig_options options;
  bool pre_skinned; /* the file's own skin, not a rig */
  uint8_t skin_digest[TRESS_PRESKINNED_DIGEST_BYTES];
  tress_asset_file_id seen; /* the loop thread's stat when the job was queued (for joining it) */
  /* inputs the worker reads (copied, so the worker never touches server state) */
  char store_root[PATH_MAX];
  char cache_dir[PATH_MAX];
  tress_asset_load_limits limits;
  bool has_expected_hash;
  uint8_t expected_hash[TRESS_MESH_HASH_BYTES];
  tress_metrics *metrics; /* atomics only */
  /* outputs */
  tress_rig_entry *entry;
  uint16_t fail_code;
  char reason[TRESS_WIRE_TEXT_CAP];
  uint8_t mesh_hash[TRESS_MESH_HASH_BYTES];
  tress_asset_file_id file; /* the worker's stat just before it read the file */
  bool hashed, from_disk, rigged, corrupt;
  char corrupt_reason[TRESS_WIRE_TEXT_CAP];
  char write_error[TRESS_WIRE_TEXT_CAP];
  uint64_t queued_ns, done_ns;
  /* the shared tier (rig_shared.h): asked between the disk miss and the rig */
  job_stage stage;
  bool use_shared;          /* queued with a shared tier: the load stops at a disk miss */
  tress_mesh *mesh;         /* held from the load to the rig while the shared tier is asked */
  tress_shared_flight flight;
  bool flight_started, asking_shared, shared_hit;
  uint8_t *shared_value;    /* in: a stored value to verify; out (after a rig): the value to store */
  size_t shared_value_len;
  char shared_reason[TRESS_WIRE_TEXT_CAP];
  /* who is waiting */
  tress_rig_waiter *waiters;
  uint32_t waiter_count, waiter_cap;
};

static bool options_equal(const tress_wire_rig_options *a, const tress_wire_rig_options *b) {
  return a->sectors == b->sectors && a->segments == b->segments && a->max_influences == b->max_influences &&
         memcmp(a->axis, b->axis, sizeof a->axis) == 0 && a->has_root == b->has_root &&
         (!a->has_root || memcmp(a->root, b->root, sizeof a->root) == 0);
}

/* Where the store remembers an asset's skin digest: a name no asset id can have ('#' is not an
 * id character); false when the id is too long to take the suffix untruncated. */
static bool skin_store_id(const char *asset_id, char out[TRESS_WIRE_TEXT_CAP]) {
  return (size_t)snprintf(out, TRESS_WIRE_TEXT_CAP, "%s#pre-skinned", asset_id) < TRESS_WIRE_TEXT_CAP;
}

/* A pre-skinned entry's cache key: the digest stands in for the mesh hash, with the default
 * options (the digest already covers everything the entry depends on). */
static void skin_cache_key(const uint8_t digest[TRESS_PRESKINNED_DIGEST_BYTES], uint8_t key[TRESS_RIG_KEY_BYTES]) {
  tress_wire_rig_options none = tress_default_wire_rig_options();
  tress_rig_cache_key(digest, &none, key);
}

/* Worker: the file's own skin, checked, as an entry (no rigger, no disk cache). */
static void preskinned_work(tress_rig_job *j, const tress_mesh *mesh) {
  tress_rig_output out;
  uint8_t influences = 1;
  if (!tress_preskinned_read(mesh, &out, &influences, j->skin_digest, j->reason)) {
    j->fail_code = TRESS_CODE_RIG_FAILED;
    return;
  }
  /* what RIG_RESULT says it "rigged with": the defaults, with the slots the file's skin needs
   * (j->options stays as queued: the loop thread reads it to join jobs) */
  tress_wire_rig_options used = tress_default_wire_rig_options();
  used.max_influences = influences;
  j->entry = tress_rig_entry_from_output(&out, j->mesh_hash, &used, j->reason);
  if (j->entry) skin_cache_key(j->skin_digest, j->entry->key);
  else j->fail_code = TRESS_CODE_RIG_FAILED;
  tress_rig_output_free(&out);
}

static bool add_waiter(tress_rig_job *j, uint32_t character_id, uint8_t idx) {
  if (j->waiter_count == j->waiter_cap) {
    uint32_t cap = j->waiter_cap ? j->waiter_cap * 2 : 4;
    tress_rig_waiter *n = realloc(j->waiters, cap * sizeof *n);
    if (!n) return false;
    j->waiters = n;
    j->waiter_cap = cap;
  }
  j->waiters[j->waiter_count++] = (tress_rig_waiter){character_id, idx};
  return true;
}

/* Worker: rig the loaded mesh, write the disk cache, and (with a shared tier) build its value. */
static void rig_stage(tress_rig_job *j, const tress_mesh *mesh) {
  atomic_fetch_add(&j->metrics->cache_misses, 1);
  atomic_fetch_add(&j->metrics->rigs_started, 1);
  j->rigged = true;
  tress_rig_opts ro = tress_default_rig_opts();
  ro.plan.sectors = j->options.sectors;
  ro.plan.segments = j->options.segments;
  ro.plan.max_influences = j->options.max_influences;
  memcpy(ro.plan.axis, j->options.axis, sizeof ro.plan.axis);
  ro.plan.has_root = j->options.has_root;
  if (j->options.has_root) memcpy(ro.plan.root, j->options.root, sizeof ro.plan.root);
  tress_rig_output out;
  memset(&out, 0, sizeof out);
  tress_error rig_err = {0};
  tress_rig_status st = tress_rig_mesh(mesh, &ro, &out, &rig_err);
  if (st != TRESS_RIG_OK) {
    j->fail_code = st == TRESS_RIG_ERR_NO_MEMORY ? TRESS_CODE_OUT_OF_MEMORY : TRESS_CODE_RIG_FAILED;
    snprintf(j->reason, sizeof j->reason, "%s", rig_err.message[0] ? rig_err.message : "the rigger refused the mesh");
  } else {
    j->entry = tress_rig_entry_from_output(&out, j->mesh_hash, &j->options, j->reason);
    if (!j->entry) j->fail_code = TRESS_CODE_RIG_FAILED;
    else if (tress_rig_cache_write_file(j->cache_dir, j->entry, j->write_error) == 0)
      atomic_fetch_add(&j->metrics->cache_disk_writes, 1);
    /* the ops /rigs view (rig_glb.h): best effort, a rig never fails for it */
    if (j->entry) (void)tress_rig_glb_write(j->cache_dir, j->entry->key, out.mesh);
    if (j->entry && j->use_shared) j->shared_value = tress_rig_cache_shared_value(j->entry, &j->shared_value_len);
  }
  tress_rig_output_free(&out);
}

/* Worker: load, hash, disk cache; a disk miss rigs at once, or with a shared tier keeps the mesh
 * for the loop thread to ask Redis first. */
static void load_stage(tress_rig_job *j) {
  tress_mesh *mesh = tress_asset_store_load(j->store_root, j->asset_id, &j->limits, &j->file, &j->fail_code, j->reason);
  if (!mesh) return;
  tress_mesh_get_content_hash(mesh, j->mesh_hash);
  j->hashed = true;
  if (j->has_expected_hash && memcmp(j->mesh_hash, j->expected_hash, TRESS_MESH_HASH_BYTES) != 0) {
    j->fail_code = TRESS_CODE_RIG_FAILED;
    snprintf(j->reason, sizeof j->reason, "asset content does not match the store manifest's mesh_hash");
    j->hashed = false;
    goto done;
  }
  if (j->pre_skinned) {
    preskinned_work(j, mesh);
    goto done;
  }
  uint8_t key[TRESS_RIG_KEY_BYTES];
  tress_rig_cache_key(j->mesh_hash, &j->options, key);
  tress_cache_read cr = tress_rig_cache_read_file(j->cache_dir, key, &j->entry, j->corrupt_reason);
  if (cr == TRESS_CACHE_READ_OK) {
    j->from_disk = true;
    atomic_fetch_add(&j->metrics->cache_hits_disk, 1);
    goto done;
  }
  if (cr == TRESS_CACHE_READ_CORRUPT) {
    j->corrupt = true;
    atomic_fetch_add(&j->metrics->cache_corrupt, 1);
  }
  if (j->use_shared) {
    j->mesh = mesh;
    return;
  }
  rig_stage(j, mesh);
done:
  tress_mesh_release(mesh);
}

/* Worker: a value from the shared tier, verified like a disk file, then written to disk so this
 * server's next restart needs no Redis. Anything that does not verify is a miss (rigged, overwritten). */
static void shared_value_stage(tress_rig_job *j) {
  uint8_t key[TRESS_RIG_KEY_BYTES];
  tress_rig_cache_key(j->mesh_hash, &j->options, key);
  if (tress_rig_cache_parse_shared(key, j->shared_value, j->shared_value_len, &j->entry, j->shared_reason) !=
      TRESS_CACHE_READ_OK) {
    atomic_fetch_add(&j->metrics->cache_shared_corrupt, 1);
  } else {
    j->shared_hit = true;
    atomic_fetch_add(&j->metrics->cache_hits_shared, 1);
    if (tress_rig_cache_write_file(j->cache_dir, j->entry, j->write_error) == 0)
      atomic_fetch_add(&j->metrics->cache_disk_writes, 1);
  }
  free(j->shared_value);
  j->shared_value = NULL;
  j->shared_value_len = 0;
}

static void work_cb(uv_work_t *req) {
  tress_rig_job *j = req->data;
  switch (j->stage) {
    case STAGE_LOAD: load_stage(j); break;
    case STAGE_SHARED_VALUE: shared_value_stage(j); break;
    case STAGE_RIG:
      rig_stage(j, j->mesh);
      tress_mesh_release(j->mesh);
      j->mesh = NULL;
      break;
  }
  j->done_ns = tress_server_now_ns();
}

static void unlink_job(tress_server *s, tress_rig_job *j) {
  for (tress_rig_job **pp = &s->jobs.head; *pp; pp = &(*pp)->next) {
    if (*pp == j) {
      *pp = j->next;
      s->jobs.count--;
      break;
    }
  }
  atomic_store(&s->metrics.rig_jobs_in_flight, s->jobs.count);
}

/* CPU time of the calling thread: what the loop thread itself spends, whatever the load. */
static double thread_cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Keys the failure on the loop's stat (what later requests compare with), and only when the
 * worker read that same file: a file edited between queueing and reading failed as other content.
 * A worker that refused before its stat (no such file, outside the store) leaves file zeroed (no
 * real file has inode 0). */
static void remember_failure(tress_server *s, const tress_rig_job *j) {
  bool stat_taken = j->file.dev != 0 || j->file.ino != 0;
  if (stat_taken && !tress_asset_file_id_equal(&j->file, &j->seen)) return;
  tress_rig_failure f;
  memset(&f, 0, sizeof f);
  snprintf(f.asset_id, sizeof f.asset_id, "%s", j->asset_id);
  f.pre_skinned = j->pre_skinned;
  f.options = j->options;
  f.file = j->seen;
  f.code = j->fail_code;
  snprintf(f.reason, sizeof f.reason, "%s", j->reason);
  tress_rig_failures_put(&s->rig_failures, &f, uv_now(s->loop));
}

/* Loop thread: the job is over (done, failed or cancelled): caches, logs, the waiters, free. */
static void finish_job(tress_rig_job *j, bool cancelled) {
  double cpu_start = thread_cpu_ms();
  tress_server *s = j->server;
  unlink_job(s, j);
  if (j->flight_started) /* store what this server rigged, then give the lease back */
    tress_rig_shared_end(&j->flight, j->rigged && j->entry ? j->shared_value : NULL, j->shared_value_len);
  if (j->mesh) tress_mesh_release(j->mesh);
  char q[300];
  if (cancelled) {
    atomic_fetch_add(&s->metrics.rigs_cancelled, 1);
    if (j->entry) tress_rig_entry_release(j->entry);
    j->entry = NULL;
    j->fail_code = TRESS_CODE_SERVER_SHUTTING_DOWN;
    snprintf(j->reason, sizeof j->reason, "server shutting down");
    tress_log_event(&s->log, TRESS_LOG_INFO, "rig_cancelled", "asset=%s waiters=%u",
                    tress_log_quote(j->asset_id, q, sizeof q), j->waiter_count);
  } else {
    if (j->hashed) tress_asset_store_learn_hash(&s->store, j->asset_id, j->mesh_hash, &j->file);
    char skin_id[TRESS_WIRE_TEXT_CAP];
    if (j->pre_skinned && j->entry && skin_store_id(j->asset_id, skin_id))
      tress_asset_store_learn_hash(&s->store, skin_id, j->skin_digest, &j->file);
    if (j->corrupt)
      tress_log_event(&s->log, TRESS_LOG_WARN, "cache_corrupt", "asset=%s reason=%s action=rebuild",
                      tress_log_quote(j->asset_id, q, sizeof q), j->corrupt_reason);
    if (j->write_error[0])
      tress_log_event(&s->log, TRESS_LOG_WARN, "cache_write_failed", "reason=%s",
                      tress_log_quote(j->write_error, q, sizeof q));
    double seconds = (double)(j->done_ns - j->queued_ns) / 1e9;
    if (j->entry) {
      uint32_t evicted = tress_rig_cache_put(&s->cache, j->entry);
      atomic_fetch_add(&s->metrics.cache_evictions, evicted);
      atomic_store(&s->metrics.cache_entries, s->cache.count);
      atomic_store(&s->metrics.cache_bytes, s->cache.used);
      if (j->rigged) {
        atomic_fetch_add(&s->metrics.rigs_done, 1);
        tress_metrics_observe_rig(&s->metrics, seconds);
      }
      const char *event = j->pre_skinned ? "skin_verified"
                          : j->rigged    ? "rig_done"
                          : j->shared_hit ? "cache_hit_shared"
                                          : "cache_hit_disk";
      tress_log_event(&s->log, TRESS_LOG_INFO, event, "asset=%s bones=%u vertices=%u seconds=%.4f waiters=%u",
                      tress_log_quote(j->asset_id, q, sizeof q), j->entry->bone_count, j->entry->vertex_count, seconds,
                      j->waiter_count);
    } else {
      atomic_fetch_add(&s->metrics.rigs_failed, 1);
      remember_failure(s, j);
      char r[300];
      tress_log_event(&s->log, TRESS_LOG_INFO, "rig_job_failed", "asset=%s code=%s reason=%s",
                      tress_log_quote(j->asset_id, q, sizeof q), tress_wire_code_name((tress_wire_code)j->fail_code),
                      tress_log_quote(j->reason, r, sizeof r));
    }
  }
  for (uint32_t i = 0; i < j->waiter_count; i++)
    tress_session_rig_settled(s, j->waiters[i].character_id, j->waiters[i].accessory_index, j->entry, j->fail_code,
                              j->reason);
  tress_net_flush(s);
  /* the loop thread's whole share of a job (sends included): the stall every other peer sees */
  tress_log_event(&s->log, TRESS_LOG_INFO, "rig_settled", "asset=%s loop_cpu_ms=%.3f",
                  tress_log_quote(j->asset_id, q, sizeof q), thread_cpu_ms() - cpu_start);
  if (j->entry) tress_rig_entry_release(j->entry);
  free(j->shared_value);
  free(j->waiters);
  free(j);
}

static void after_work_cb(uv_work_t *req, int status);

static void queue_stage(tress_rig_job *j, job_stage stage) {
  j->stage = stage;
  if (uv_queue_work(j->server->loop, &j->work, work_cb, after_work_cb) != 0) {
    j->fail_code = TRESS_CODE_INTERNAL;
    snprintf(j->reason, sizeof j->reason, "cannot queue the rig");
    finish_job(j, false);
  }
}

/* The shared tier answered (loop thread, from a Redis reply or the tier's timer). */
static void on_shared_answer(void *owner, tress_shared_outcome outcome, const uint8_t *value, size_t len,
                             const char *why) {
  tress_rig_job *j = owner;
  j->asking_shared = false;
  if (outcome == TRESS_SHARED_VALUE) {
    j->shared_value = malloc(len ? len : 1);
    if (j->shared_value) {
      memcpy(j->shared_value, value, len);
      j->shared_value_len = len;
      queue_stage(j, STAGE_SHARED_VALUE);
      return;
    }
    why = "no memory for the shared value";
  }
  if (outcome != TRESS_SHARED_RIG_LEASED) {
    char q[300], r[300];
    tress_log_event(&j->server->log, TRESS_LOG_INFO, "cache_shared_rig_locally", "asset=%s reason=%s",
                    tress_log_quote(j->asset_id, q, sizeof q), tress_log_quote(why ? why : "", r, sizeof r));
  }
  queue_stage(j, STAGE_RIG);
}

/* A disk miss with a shared tier: ask it, or rig at once when it cannot answer. */
static void ask_shared(tress_rig_job *j) {
  tress_server *s = j->server;
  uint8_t key[TRESS_RIG_KEY_BYTES];
  tress_rig_cache_key(j->mesh_hash, &j->options, key);
  if (s->shared && tress_rig_shared_begin(s->shared, &j->flight, key, on_shared_answer, j)) {
    j->flight_started = true;
    j->asking_shared = true;
    return;
  }
  atomic_fetch_add(&s->metrics.cache_shared_local_rigs, 1);
  queue_stage(j, STAGE_RIG);
}

static void after_work_cb(uv_work_t *req, int status) {
  tress_rig_job *j = req->data;
  if (status == UV_ECANCELED) {
    finish_job(j, true);
    return;
  }
  if (j->stage == STAGE_LOAD && j->mesh) { /* a disk miss kept for the shared tier */
    if (j->server->draining) finish_job(j, true);
    else ask_shared(j);
    return;
  }
  if (j->stage == STAGE_SHARED_VALUE && !j->entry) {
    char q[300], r[300];
    tress_log_event(&j->server->log, TRESS_LOG_WARN, "cache_shared_corrupt", "asset=%s key=%s reason=%s action=rebuild",
                    tress_log_quote(j->asset_id, q, sizeof q), j->flight.value_key,
                    tress_log_quote(j->shared_reason, r, sizeof r));
    queue_stage(j, STAGE_RIG);
    return;
  }
  finish_job(j, false);
}

void tress_rig_jobs_request(tress_server *s, tress_character *c, uint8_t idx) {
  const tress_wire_manifest *mf = &c->spawn.spawn_character.manifest;
  const tress_wire_accessory *a = &mf->accessories[idx];
  tress_wire_rig_options opts = mf->has_rig_options ? mf->rig_options : tress_default_wire_rig_options();
  uint32_t character_id = c->id;
  bool pre_skinned = a->handle_has_bones; /* PROTOCOL.md 6.1: the file carries its own skin */

  tress_wire_code code = tress_asset_store_has(&s->store, a->mesh_asset_id);
  if (code != TRESS_CODE_NONE) {
    tress_session_rig_settled(s, character_id, idx, NULL, (uint16_t)code,
                              code == TRESS_CODE_UNKNOWN_ASSET ? "the store does not have this asset"
                                                               : "asset id is not a path inside the store");
    return;
  }
  tress_asset_file_id file;
  char reason[TRESS_WIRE_TEXT_CAP], q[300];
  code = tress_asset_store_stat(&s->store, a->mesh_asset_id, &file, reason);
  if (code != TRESS_CODE_NONE) {
    tress_session_rig_settled(s, character_id, idx, NULL, (uint16_t)code, reason);
    return;
  }
  uint8_t hash[TRESS_MESH_HASH_BYTES], key[TRESS_RIG_KEY_BYTES];
  bool changed = false;
  bool known = tress_asset_store_known_hash(&s->store, a->mesh_asset_id, &file, hash, &changed);
  char skin_id[TRESS_WIRE_TEXT_CAP];
  if (pre_skinned) /* the fast path needs the skin digest, not just the geometry's hash */
    known = known && skin_store_id(a->mesh_asset_id, skin_id) &&
            tress_asset_store_known_hash(&s->store, skin_id, &file, hash, NULL);
  if (changed)
    tress_log_event(&s->log, TRESS_LOG_INFO, "asset_changed", "asset=%s size=%lld action=reread",
                    tress_log_quote(a->mesh_asset_id, q, sizeof q), (long long)file.size);
  if (known) {
    if (pre_skinned) skin_cache_key(hash, key);
    else tress_rig_cache_key(hash, &opts, key);
    tress_rig_entry *e = tress_rig_cache_get(&s->cache, key);
    if (e) {
      atomic_fetch_add(&s->metrics.cache_hits_memory, 1);
      tress_session_rig_settled(s, character_id, idx, e, 0, NULL);
      tress_rig_entry_release(e);
      return;
    }
  }
  const tress_rig_failure *failed =
      tress_rig_failures_find(&s->rig_failures, a->mesh_asset_id, pre_skinned, &opts, &file, uv_now(s->loop));
  if (failed) {
    atomic_fetch_add(&s->metrics.rig_failures_remembered, 1);
    tress_session_rig_settled(s, character_id, idx, NULL, failed->code, failed->reason);
    return;
  }
  for (tress_rig_job *j = s->jobs.head; j; j = j->next) {
    if (strcmp(j->asset_id, a->mesh_asset_id) == 0 && j->pre_skinned == pre_skinned &&
        (pre_skinned || options_equal(&j->options, &opts)) &&
        tress_asset_file_id_equal(&j->seen, &file)) {
      if (!add_waiter(j, character_id, idx))
        tress_session_rig_settled(s, character_id, idx, NULL, TRESS_CODE_OUT_OF_MEMORY, "no memory");
      return;
    }
  }
  if (s->jobs.count >= s->cfg.max_pending_rigs) {
    tress_session_rig_settled(s, character_id, idx, NULL, TRESS_CODE_OUT_OF_MEMORY, "rig queue is full, retry later");
    return;
  }
  tress_rig_job *j = calloc(1, sizeof *j);
  if (!j || !add_waiter(j, character_id, idx)) {
    free(j);
    tress_session_rig_settled(s, character_id, idx, NULL, TRESS_CODE_OUT_OF_MEMORY, "no memory");
    return;
  }
  j->server = s;
  j->work.data = j;
  snprintf(j->asset_id, sizeof j->asset_id, "%s", a->mesh_asset_id);
  j->options = opts;
  j->pre_skinned = pre_skinned;
  j->seen = file;
  snprintf(j->store_root, sizeof j->store_root, "%s", s->store.root);
  snprintf(j->cache_dir, sizeof j->cache_dir, "%s", s->cache.dir);
  j->limits.max_bytes = s->cfg.max_asset_bytes;
  j->limits.max_vertices = TRESS_WIRE_MAX_VERTICES; /* what a RIG_RESULT carries: refuse before rigging */
  j->has_expected_hash = tress_asset_store_claimed_hash(&s->store, a->mesh_asset_id, j->expected_hash);
  j->metrics = &s->metrics;
  j->use_shared = s->shared != NULL && !pre_skinned; /* pre-skinned results stay in memory (see above) */
  j->queued_ns = tress_server_now_ns();
  if (uv_queue_work(s->loop, &j->work, work_cb, after_work_cb) != 0) {
    free(j->waiters);
    free(j);
    tress_session_rig_settled(s, character_id, idx, NULL, TRESS_CODE_INTERNAL, "cannot queue the rig");
    return;
  }
  j->creator_slot = c->owner_slot;
  j->creator_peer_id = c->owner_peer_id;
  const tress_peer *owner = &s->peers[c->owner_slot];
  j->creator_host = owner->enet ? owner->enet->address.host : 0;
  snprintf(j->creator_player, sizeof j->creator_player, "%s", owner->player_id);
  j->next = s->jobs.head;
  s->jobs.head = j;
  s->jobs.count++;
  atomic_store(&s->metrics.rig_jobs_in_flight, s->jobs.count);
}

/* Whether job j counts against the rig limit of the peer in slot: the limit follows who the
 * client is, not its connection. With a signed token that is the player id (any connection, any
 * address); without, this connection, plus what departed connections from the same address left
 * running (live peers behind one NAT keep their own limits). */
static bool counts_against(const tress_server *s, const tress_rig_job *j, uint32_t slot) {
  const tress_peer *p = &s->peers[slot];
  if (p->player_id[0]) return strcmp(j->creator_player, p->player_id) == 0;
  if (j->creator_player[0]) return false;
  if (j->creator_slot == slot && j->creator_peer_id == p->peer_id) return true;
  const tress_peer *creator = &s->peers[j->creator_slot];
  bool creator_gone = !creator->enet || creator->peer_id != j->creator_peer_id;
  return creator_gone && p->enet && j->creator_host == p->enet->address.host;
}

uint32_t tress_rig_jobs_in_flight_for(const tress_server *s, uint32_t slot) {
  uint32_t n = 0;
  for (const tress_rig_job *j = s->jobs.head; j; j = j->next) n += counts_against(s, j, slot);
  return n;
}

void tress_rig_jobs_cancel_all(tress_server *s) {
  tress_rig_job *next;
  for (tress_rig_job *j = s->jobs.head; j; j = next) {
    next = j->next;
    if (j->asking_shared) finish_job(j, true); /* on the loop, waiting on Redis: nothing runs */
    else uv_cancel((uv_req_t *)&j->work);
  }
}
