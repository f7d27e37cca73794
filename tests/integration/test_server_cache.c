/* The rig cache on a real server: a second spawn of the same hair is a memory hit with no new
 * rig; simultaneous spawns share one rig job; a restart is a disk hit; a corrupted file is
 * detected, logged and rebuilt; the memory budget evicts least recently used entries, and counts
 * but never evicts the rigs live characters wear (pinned); the disk budget (cache_disk_bytes) deletes the least recently
 * used files, a hit refreshing its file, and a deleted entry is rigged again. */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/server_harness.h"

static int list_rig_files(const char *dir, char names[8][300]) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strstr(e->d_name, ".tmp.")) fail_msg("stray tmp file %s", e->d_name);
    if (!strstr(e->d_name, ".rig")) continue;
    if (n < 8) snprintf(names[n], 300, "%s", e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static th_client *join(th_server *s) {
  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, s->udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "cache-test", "r"), 0);
  return c;
}

/* Spawns a sample character and returns its (first) rig result, waiting for the BIND. */
static const tress_msg *spawn_rigged(th_client *c, const char *file, uint32_t request_id) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, file, request_id), 0);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *r = th_client_wait(c, TRESS_MSG_RIG_RESULT, 30000);
  assert_non_null(r);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 10000));
  return r;
}

/* Same bones and skin, whichever character wears it. */
static bool same_rig(const tress_msg *a, const tress_msg *b) {
  tress_msg x = *a, y = *b;
  y.rig_result.character_id = x.rig_result.character_id;
  y.rig_result.accessory_index = x.rig_result.accessory_index;
  return tress_msg_is_equal(&x, &y);
}

static double metric(th_server *s, const char *series) { return th_metric(s->http_port, series); }

static void test_cache_memory_disk_corrupt(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "cache");
  assert_int_equal(th_server_start(&s, NULL), 0);
  th_client *c = join(&s);

  tress_msg first_copy;
  assert_int_equal(th_msg_clone(spawn_rigged(c, "ava.json", 1), &first_copy), 0);
  const tress_msg *first = &first_copy;
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 1);
  assert_int_equal((int)metric(&s, "tress_cache_misses_total"), 1);
  char files[8][300];
  assert_int_equal(list_rig_files(s.cache, files), 1);
  char ava_file[1000];
  snprintf(ava_file, sizeof ava_file, "%s/%s", s.cache, files[0]);

  /* Same hair again: a memory hit, no new rig job, the same rig. */
  const tress_msg *second = spawn_rigged(c, "ava.json", 2);
  assert_true(same_rig(first, second));
  assert_int_not_equal(first->rig_result.character_id, second->rig_result.character_id);
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 1);
  assert_int_equal((int)metric(&s, "tress_cache_hits_total{tier=\"memory\"}"), 1);

  /* Three spawns of a new hair in one burst: one rig job serves all three. */
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "kit.json", 10), 0);
  for (int i = 0; i < 3; i++) {
    spawn.spawn_character.request_id = 10 + (uint32_t)i;
    assert_int_equal(th_client_send(c, &spawn), 0);
  }
  th_spawn_free(&spawn);
  const tress_msg *kit[3];
  for (int i = 0; i < 3; i++) {
    kit[i] = th_client_wait(c, TRESS_MSG_RIG_RESULT, 30000);
    assert_non_null(kit[i]);
    assert_int_equal(kit[i]->rig_result.bone_count, 13); /* kit.json asks for 3 x 4 */
  }
  assert_true(same_rig(kit[0], kit[1]));
  assert_true(same_rig(kit[0], kit[2]));
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 2);
  assert_int_equal(th_server_log_count(&s, "event=rig_done asset=\"meshes/hair_ponytail.glb\""), 1);
  assert_int_equal(th_server_log_count(&s, "waiters=3"), 1);
  assert_int_equal(list_rig_files(s.cache, files), 2);
  double entry_bytes = metric(&s, "tress_cache_bytes") / 2;
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);

  /* Restart on the same cache: Ava comes from disk, nothing is rigged. */
  assert_int_equal(th_server_start(&s, NULL), 0);
  c = join(&s);
  const tress_msg *from_disk = spawn_rigged(c, "ava.json", 1);
  assert_true(same_rig(first, from_disk));
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 0);
  assert_int_equal((int)metric(&s, "tress_cache_hits_total{tier=\"disk\"}"), 1);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);

  /* Corrupt Ava's file: detected, logged, rebuilt by a new rig, and the new file is good. */
  FILE *f = fopen(ava_file, "r+b");
  assert_non_null(f);
  struct stat st;
  assert_int_equal(stat(ava_file, &st), 0);
  fseek(f, st.st_size / 2, SEEK_SET);
  int byte = fgetc(f);
  fseek(f, st.st_size / 2, SEEK_SET);
  fputc(byte ^ 0x5a, f);
  fclose(f);
  int corrupt_logs = th_server_log_count(&s, "event=cache_corrupt");
  assert_int_equal(th_server_start(&s, NULL), 0);
  c = join(&s);
  const tress_msg *rebuilt = spawn_rigged(c, "ava.json", 1);
  assert_true(same_rig(first, rebuilt));
  assert_int_equal((int)metric(&s, "tress_cache_corrupt_total"), 1);
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 1);
  assert_int_equal(th_server_log_count(&s, "event=cache_corrupt"), corrupt_logs + 1);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);

  /* And the rebuilt file is a clean disk hit. A budget of 1.5 entries: a rig worn by a live
   * character is pinned, counted and never evicted (evicting it would free nothing), so Ava and
   * Kit both stay while both are worn (over the budget, all of it pinned); Ava's despawn unpins
   * it and gives its bytes back, and the next Ava is a disk hit again. */
  char budget[32];
  snprintf(budget, sizeof budget, "%.0f", entry_bytes * 1.5);
  const char *extra[] = {"--cache-memory-bytes", budget, NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  c = join(&s);
  uint32_t ava_id = spawn_rigged(c, "ava.json", 1)->rig_result.character_id;
  assert_int_equal((int)metric(&s, "tress_cache_pinned_bytes"), (int)metric(&s, "tress_cache_bytes"));
  spawn_rigged(c, "kit.json", 2);
  double both = metric(&s, "tress_cache_bytes");
  assert_int_equal((int)metric(&s, "tress_cache_entries"), 2);
  assert_true(both > entry_bytes * 1.5);
  assert_int_equal((int)metric(&s, "tress_cache_pinned_bytes"), (int)both);
  assert_int_equal((int)metric(&s, "tress_cache_evictions_total"), 0);
  tress_msg despawn;
  memset(&despawn, 0, sizeof despawn);
  despawn.type = TRESS_MSG_DESPAWN_CHARACTER;
  despawn.despawn_character.character_id = ava_id;
  assert_int_equal(th_client_send(c, &despawn), 0);
  assert_non_null(th_client_wait(c, TRESS_MSG_CHARACTER_REMOVED, 5000));
  th_client_pump(c, 100);
  assert_int_equal((int)metric(&s, "tress_cache_evictions_total"), 1);
  assert_int_equal((int)metric(&s, "tress_cache_entries"), 1);
  assert_true(metric(&s, "tress_cache_bytes") <= entry_bytes * 1.5);
  assert_int_equal((int)metric(&s, "tress_cache_pinned_bytes"), (int)metric(&s, "tress_cache_bytes"));
  spawn_rigged(c, "ava.json", 3);
  assert_int_equal((int)metric(&s, "tress_cache_corrupt_total"), 0);
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 0);
  assert_int_equal((int)metric(&s, "tress_cache_hits_total{tier=\"disk\"}"), 3);
  assert_int_equal((int)metric(&s, "tress_cache_hits_total{tier=\"memory\"}"), 0);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);

  /* A file of format version 1 (u16 weights) is an old file, not a current one: it is reported
   * and rebuilt as version 2, whose weights are u8 on the wire. */
  f = fopen(ava_file, "r+b");
  assert_non_null(f);
  uint32_t version = 0;
  fseek(f, 8, SEEK_SET);
  assert_int_equal(fread(&version, 4, 1, f), 1);
  assert_int_equal(version, 2);
  version = 1;
  fseek(f, 8, SEEK_SET);
  assert_int_equal(fwrite(&version, 4, 1, f), 1);
  fclose(f);
  int old_logs = th_server_log_count(&s, "reason=version 1 or length");
  assert_int_equal(th_server_start(&s, NULL), 0);
  c = join(&s);
  const tress_msg *current = spawn_rigged(c, "ava.json", 1);
  assert_int_equal(current->rig_result.skin.weight_format, TRESS_WEIGHTS_U8);
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 1);
  assert_int_equal(th_server_log_count(&s, "reason=version 1 or length"), old_logs + 1);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  f = fopen(ava_file, "rb");
  assert_non_null(f);
  fseek(f, 8, SEEK_SET);
  assert_int_equal(fread(&version, 4, 1, f), 1);
  fclose(f);
  assert_int_equal(version, 2);
  tress_msg_free(&first_copy);
  th_server_cleanup(&s);
}

/* The sample character with its own rig options: one cache key (and file) per options. */
static void spawn_with_segments(th_client *c, uint32_t request_id, uint8_t segments) {
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", request_id), 0);
  tress_wire_manifest *mf = &spawn.spawn_character.manifest;
  mf->has_rig_options = true;
  mf->rig_options = tress_default_wire_rig_options();
  mf->rig_options.segments = segments;
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  assert_non_null(th_client_wait(c, TRESS_MSG_BIND, 30000));
}

/* The one .rig file in dir not named in `known` (count of them), copied to out; asserts one. */
static void new_file(const char *dir, char known[8][300], int count, char out[300]) {
  char names[8][300];
  int n = list_rig_files(dir, names), found = 0;
  for (int i = 0; i < n; i++) {
    bool old = false;
    for (int k = 0; k < count; k++) old = old || strcmp(names[i], known[k]) == 0;
    if (!old) {
      snprintf(out, 300, "%.299s", names[i]);
      found++;
    }
  }
  assert_int_equal(found, 1);
}

static bool has_file(const char *dir, const char *name) {
  char path[900];
  snprintf(path, sizeof path, "%.590s/%.299s", dir, name);
  struct stat st;
  return stat(path, &st) == 0;
}

/* A key's files: its ".rig" and the ops view ".glb" beside it (rig_glb.h), which the disk
 * budget counts and evicts together. */
static void glb_name(const char *rig_name, char out[300]) {
  snprintf(out, 300, "%.*s.glb", (int)(strlen(rig_name) - 4), rig_name);
}

static double key_bytes(const char *dir, const char *rig_name) {
  char path[900], glb[300];
  struct stat st;
  snprintf(path, sizeof path, "%.590s/%.299s", dir, rig_name);
  assert_int_equal(stat(path, &st), 0);
  double total = (double)st.st_size;
  glb_name(rig_name, glb);
  snprintf(path, sizeof path, "%.590s/%.299s", dir, glb);
  if (stat(path, &st) == 0) total += (double)st.st_size;
  return total;
}

static double dir_bytes(const char *dir) {
  char names[8][300];
  int n = list_rig_files(dir, names);
  double total = 0;
  for (int i = 0; i < n; i++) total += key_bytes(dir, names[i]);
  return total;
}

/* cache_disk_bytes: with room for two of three files, A B A(hit) C deletes B (the least recently
 * used, A's hit having refreshed it), the rest fit, and B comes back as a new rig. The memory
 * tier holds nothing (a 1-byte budget), so every request reaches the disk. */
static void test_disk_budget(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "disk-budget");
  const char *no_memory[] = {"--cache-memory-bytes", "1", NULL};
  assert_int_equal(th_server_start(&s, no_memory), 0);
  th_client *c = join(&s);
  char smallest_name[8][300];
  spawn_with_segments(c, 1, 3);
  spawn_with_segments(c, 2, 4);
  spawn_with_segments(c, 3, 5);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  assert_int_equal(list_rig_files(s.cache, smallest_name), 3);
  double total = dir_bytes(s.cache), smallest = total;
  for (int i = 0; i < 3; i++) {
    char path[900], glb[300];
    double bytes = key_bytes(s.cache, smallest_name[i]);
    if (bytes < smallest) smallest = bytes;
    snprintf(path, sizeof path, "%.590s/%.299s", s.cache, smallest_name[i]);
    assert_int_equal(unlink(path), 0);
    glb_name(smallest_name[i], glb);
    snprintf(path, sizeof path, "%.590s/%.299s", s.cache, glb);
    unlink(path);
  }

  char budget[32];
  snprintf(budget, sizeof budget, "%.0f", total - smallest); /* any two fit, not three */
  const char *extra[] = {"--cache-memory-bytes", "1", "--cache-disk-bytes", budget, NULL};
  assert_int_equal(th_server_start(&s, extra), 0);
  c = join(&s);
  char files[8][300];
  spawn_with_segments(c, 1, 3);
  new_file(s.cache, files, 0, files[0]); /* A */
  spawn_with_segments(c, 2, 4);
  new_file(s.cache, files, 1, files[1]); /* B */
  spawn_with_segments(c, 3, 3);          /* A again: a disk hit, now the most recent */
  assert_int_equal((int)metric(&s, "tress_cache_hits_total{tier=\"disk\"}"), 1);
  spawn_with_segments(c, 4, 5);          /* C: over the budget, B goes */
  assert_int_equal((int)metric(&s, "tress_cache_disk_evictions_total"), 1);
  assert_true(has_file(s.cache, files[0]));
  assert_false(has_file(s.cache, files[1]));
  char glb_b[300];
  glb_name(files[1], glb_b);
  assert_false(has_file(s.cache, glb_b)); /* its ops view goes with it */
  char now[8][300];
  assert_int_equal(list_rig_files(s.cache, now), 2);
  assert_true(dir_bytes(s.cache) <= total - smallest);
  assert_int_equal((int)metric(&s, "tress_cache_disk_bytes"), (int)dir_bytes(s.cache));
  /* B again: no file, so a new rig (and now A, the least recent, goes) */
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 3);
  spawn_with_segments(c, 5, 4);
  assert_int_equal((int)metric(&s, "tress_rigs_started_total"), 4);
  assert_true(has_file(s.cache, files[1]));
  assert_false(has_file(s.cache, files[0]));
  assert_int_equal((int)metric(&s, "tress_cache_disk_evictions_total"), 2);
  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(&s, SIGTERM, 15000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache_memory_disk_corrupt), cmocka_unit_test(test_disk_budget)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
