/* The shared rig cache (Redis) on real servers and a real redis-server:
 *  - four servers, one Redis, the same hair spawned through every server at once: exactly one rig
 *    fleet-wide (the servers' rig counters summed) and the same payload on every client; then the
 *    whole fleet killed (-9) and restarted on fresh disks against the same Redis: zero rigs;
 *  - the lease holder killed -9 mid-rig: at most one extra rig, the value left in Redis verifies,
 *    and the waiters are served within the lease plus a grace;
 *  - a corrupt, a foreign (another key's) and a non-tress value under a key: a miss, rigged,
 *    overwritten with the good value; no client sees anything but the rig.
 * Skipped (exit 77) when redis-server is not installed. */
#include "shared_cache_fleet.h"

static void test_fleet_one_rig_then_restart(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  fleet_start(&f, 4);
  const int all[] = {0, 1, 2, 3};
  const tress_msg *got[4];
  spawn_on(&f, all, 4, "ava.json", 1);
  wait_rigs(&f, all, 4, got, 60000);
  assert_int_equal((int)fleet_sum(&f, "rigs.started"), 1);
  assert_int_equal((int)fleet_sum(&f, "cache.shared.misses"), 1); /* one lease won */
  assert_int_equal((int)fleet_sum(&f, "cache.shared.hits"), 3);
  assert_int_equal((int)fleet_sum(&f, "cache.shared.local_rigs"), 0);
  assert_int_equal((int)fleet_sum(&f, "cache.shared.corrupt"), 0);
  tress_msg first;
  assert_int_equal(th_msg_clone(got[0], &first), 0);
  for (int i = 1; i < 4; i++) assert_true(same_rig(&first, got[i]));
  char *values = redis_keys(&f, "tress:rig:1:*[0-9a-f]");
  char *leases = redis_keys(&f, "tress:rig:1:*:lease");
  assert_int_equal(count_lines(values), 1);
  assert_int_equal(count_lines(leases), 0); /* released after the store */
  free(values);
  free(leases);

  /* The whole fleet dies at once and comes back on empty disks: every rig comes from Redis. */
  fleet_stop(&f, SIGKILL);
  fleet_start(&f, 4);
  spawn_on(&f, all, 4, "ava.json", 1);
  wait_rigs(&f, all, 4, got, 60000);
  assert_int_equal((int)fleet_sum(&f, "rigs.started"), 0);
  assert_int_equal((int)fleet_sum(&f, "cache.shared.hits"), 4);
  for (int i = 0; i < 4; i++) assert_true(same_rig(&first, got[i]));
  tress_msg_free(&first);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

/* The lease's holder: polls Redis for the lease key and returns the pid in its token. */
static long wait_lease_holder(const fleet *f, char *lease_key, size_t cap) {
  uint64_t deadline = fleet_now_ms() + 30000;
  while (fleet_now_ms() < deadline) {
    char *keys = redis_keys(f, "tress:rig:1:*:lease");
    if (keys[0]) {
      snprintf(lease_key, cap, "%s", keys);
      free(keys);
      char *token = th_redis_cmdf(&f->redis, "GET %s", lease_key);
      long pid = 0;
      if (token && sscanf(token, "pid=%ld", &pid) == 1) {
        free(token);
        return pid;
      }
      free(token);
    } else {
      free(keys);
    }
  }
  fail_msg("no lease appeared in Redis");
  return -1;
}

static void test_lease_holder_killed(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  fleet_start(&f, 3);
  const int all[] = {0, 1, 2};
  spawn_on(&f, all, 3, "kit.json", 1);
  char lease_key[200];
  long pid = wait_lease_holder(&f, lease_key, sizeof lease_key);
  int holder = -1;
  for (int i = 0; i < 3; i++)
    if (f.s[i].pid == pid) holder = i;
  assert_true(holder >= 0);
  assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
  uint64_t killed_at = fleet_now_ms();
  char value_key[200];
  snprintf(value_key, sizeof value_key, "%.*s", (int)(strlen(lease_key) - strlen(":lease")), lease_key);
  char *value = th_redis_cmdf(&f.redis, "EXISTS %s", value_key);
  assert_string_equal(value, "0"); /* killed mid-rig: it never stored anything */
  free(value);
  th_server_stop(&f.s[holder], SIGKILL, 5000);
  f.s[holder].pid = 0;
  fleet_drop_client(&f, holder);

  int survivors[2], k = 0;
  for (int i = 0; i < 3; i++)
    if (i != holder) survivors[k++] = i;
  const tress_msg *got[2];
  wait_rigs(&f, survivors, 2, got, 60000);
  uint64_t served_ms = fleet_now_ms() - killed_at;
  /* the dead holder's lease runs out (LEASE_MS at most), one survivor takes it and rigs */
  assert_true(served_ms < LEASE_MS + 6000);
  assert_true(same_rig(got[0], got[1]));
  double rigs = stat_of(&f.s[survivors[0]], "rigs.started") + stat_of(&f.s[survivors[1]], "rigs.started");
  assert_int_equal((int)rigs, 1); /* the dead one's rig plus exactly one more */
  assert_int_equal((int)(stat_of(&f.s[survivors[0]], "cache.shared.wait_timeouts") +
                         stat_of(&f.s[survivors[1]], "cache.shared.wait_timeouts")),
                   0);
  fprintf(stderr, "lease holder killed: survivors served %llu ms after the kill (lease %d ms)\n",
          (unsigned long long)served_ms, LEASE_MS);

  /* what Redis holds now verifies: a newcomer is served from it with no rig */
  fleet_start_server(&f, holder, "newcomer", f.redis.url);
  assert_true(stat_becomes(&f.s[holder], "cache.shared.degraded", 0, 5000));
  const int newcomer[] = {holder};
  spawn_on(&f, newcomer, 1, "kit.json", 1);
  wait_rigs(&f, newcomer, 1, got, 30000);
  assert_int_equal((int)stat_of(&f.s[holder], "rigs.started"), 0);
  assert_int_equal((int)stat_of(&f.s[holder], "cache.shared.hits"), 1);
  assert_int_equal((int)stat_of(&f.s[holder], "cache.shared.corrupt"), 0);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

/* The one value under "tress:rig:1:*" (binary, malloc'd) and its key. */
static uint8_t *only_value(const fleet *f, char *key, size_t cap, size_t *len) {
  char *keys = redis_keys(f, "tress:rig:1:*[0-9a-f]");
  assert_int_equal(count_lines(keys), 1);
  snprintf(key, cap, "%s", keys);
  free(keys);
  const char *argv[2] = {"GET", key};
  size_t lens[2] = {3, strlen(key)};
  uint8_t *v = (uint8_t *)th_redis_cmd(&f->redis, len, 2, argv, lens);
  assert_non_null(v);
  return v;
}

static void put_value(const fleet *f, const char *key, const void *v, size_t len) {
  const char *argv[3] = {"SET", key, v};
  size_t lens[3] = {3, strlen(key), len};
  char *ok = th_redis_cmd(&f->redis, NULL, 3, argv, lens);
  assert_non_null(ok);
  assert_string_equal(ok, "OK");
  free(ok);
}

/* A fresh server spawns ava with `bad` under ava's key: one rig, counted and logged as a shared
 * miss (reason containing `reason`), the client gets the rig, and the good value is back. */
static void bad_value_is_a_miss(fleet *f, const char *key, const void *bad, size_t bad_len, const uint8_t *good,
                                size_t good_len, const char *reason, const tress_msg *expected) {
  put_value(f, key, bad, bad_len);
  fleet_start(f, 1);
  const int one[] = {0};
  const tress_msg *got[1];
  spawn_on(f, one, 1, "ava.json", 1);
  wait_rigs(f, one, 1, got, 30000);
  assert_true(same_rig(expected, got[0]));
  assert_int_equal((int)stat_of(&f->s[0], "rigs.started"), 1);
  assert_int_equal((int)stat_of(&f->s[0], "cache.shared.corrupt"), 1);
  assert_int_equal((int)stat_of(&f->s[0], "rigs.failed"), 0);
  assert_true(stat_becomes(&f->s[0], "cache.shared.writes", 1, 5000));
  assert_int_equal(th_server_log_count(&f->s[0], "event=cache_shared_corrupt"), 1);
  assert_true(th_server_log_count(&f->s[0], reason) >= 1);
  size_t len = 0;
  const char *argv[2] = {"GET", key};
  size_t lens[2] = {3, strlen(key)};
  uint8_t *now = (uint8_t *)th_redis_cmd(&f->redis, &len, 2, argv, lens);
  assert_int_equal(len, good_len);
  assert_memory_equal(now, good, good_len); /* overwritten with the rig (deterministic bytes) */
  free(now);
  fleet_stop(f, SIGTERM);
}

static void test_corrupt_and_foreign_values(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  /* kit's value first, to have another key's bytes at hand */
  fleet_start(&f, 1);
  const int one[] = {0};
  const tress_msg *got[1];
  spawn_on(&f, one, 1, "kit.json", 1);
  wait_rigs(&f, one, 1, got, 30000);
  fleet_stop(&f, SIGTERM);
  char kit_key[200], ava_key[200];
  size_t kit_len = 0, ava_len = 0;
  uint8_t *kit = only_value(&f, kit_key, sizeof kit_key, &kit_len);
  char *del = th_redis_cmdf(&f.redis, "DEL %s", kit_key);
  free(del);
  fleet_start(&f, 1);
  spawn_on(&f, one, 1, "ava.json", 1);
  wait_rigs(&f, one, 1, got, 30000);
  tress_msg ava_rig;
  assert_int_equal(th_msg_clone(got[0], &ava_rig), 0);
  fleet_stop(&f, SIGTERM);
  uint8_t *ava = only_value(&f, ava_key, sizeof ava_key, &ava_len);

  uint8_t *flipped = malloc(ava_len);
  memcpy(flipped, ava, ava_len);
  flipped[ava_len / 2] ^= 0x40;
  bad_value_is_a_miss(&f, ava_key, flipped, ava_len, ava, ava_len, "checksum mismatch", &ava_rig);
  bad_value_is_a_miss(&f, ava_key, kit, kit_len, ava, ava_len, "foreign value", &ava_rig);
  const char junk[] = "not a rig at all";
  bad_value_is_a_miss(&f, ava_key, junk, sizeof junk - 1, ava, ava_len, "bad magic", &ava_rig);
  bad_value_is_a_miss(&f, ava_key, ava, ava_len - 7, ava, ava_len, "does not match the value", &ava_rig);

  /* and once repaired it is a plain hit */
  fleet_start(&f, 1);
  spawn_on(&f, one, 1, "ava.json", 1);
  wait_rigs(&f, one, 1, got, 30000);
  assert_int_equal((int)stat_of(&f.s[0], "rigs.started"), 0);
  assert_int_equal((int)stat_of(&f.s[0], "cache.shared.hits"), 1);
  fleet_stop(&f, SIGTERM);
  tress_msg_free(&ava_rig);
  free(flipped);
  free(kit);
  free(ava);
  th_redis_cleanup(&f.redis);
}

int main(void) {
  int skip = skip_without_redis();
  if (skip) return skip;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fleet_one_rig_then_restart),
      cmocka_unit_test(test_lease_holder_killed),
      cmocka_unit_test(test_corrupt_and_foreign_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
