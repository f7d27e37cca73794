/* The shared rig cache when Redis misbehaves, on real servers and a real redis-server: absent at
 * startup, killed mid-run, stopped (SIGSTOP) for 5 s, and out of memory under a tiny maxmemory.
 * Each time every rig is still delivered, promptly (the stop lasts 5 s; the rig arrives long
 * before it ends: no call waits on Redis past its deadline), the degraded gauge rises (and the
 * log says so once), and it falls again by itself when Redis is back. Skipped (exit 77) when
 * redis-server is not installed. Labelled slow (the 5 s stop, reconnect backoffs). */
#include "shared_cache_fleet.h"

/* One spawn on server 0's client, delivered within `within_ms`; returns the time it took. */
static uint64_t spawn_delivered(fleet *f, const char *file, uint32_t request_id, int within_ms) {
  const int one[] = {0};
  const tress_msg *got[1];
  spawn_on(f, one, 1, file, request_id);
  uint64_t ms = wait_rigs(f, one, 1, got, within_ms);
  assert_true(got[0]->rig_result.bone_count > 0);
  return ms;
}

static void flushall(fleet *f) {
  char *ok = th_redis_cmdf(&f->redis, "FLUSHALL");
  assert_non_null(ok);
  free(ok);
}

static void test_redis_absent_at_start(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis); /* a port with nobody on it */
  f.n = 1;
  fleet_start_server(&f, 0, "absent", f.redis.url);
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 1, 2000));
  spawn_delivered(&f, "ava.json", 1, 30000);
  assert_int_equal((int)stat_of(&f.s[0], "rigs.started"), 1);
  assert_true(stat_of(&f.s[0], "cache.shared.local_rigs") >= 1);
  /* refused connects surface at the handshake deadline (hiredis' libuv adapter drops poll errors) */
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded_total", 1, 3000));
  assert_int_equal(th_server_log_count(&f.s[0], "event=cache_shared_degraded"), 1);

  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 0, 5000));
  assert_int_equal(th_server_log_count(&f.s[0], "event=cache_shared_recovered"), 1);
  spawn_delivered(&f, "kit.json", 2, 30000); /* a new hair: rigged under the lease and stored */
  assert_true(stat_becomes(&f.s[0], "cache.shared.writes", 1, 3000));
  assert_int_equal((int)stat_of(&f.s[0], "cache.shared.misses"), 1);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

static void test_redis_killed_mid_run(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  fleet_start(&f, 1);
  th_redis_kill(&f.redis, SIGKILL);
  spawn_delivered(&f, "ava.json", 1, 30000);
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 1, 2000));
  assert_int_equal((int)stat_of(&f.s[0], "rigs.started"), 1);
  assert_int_equal(th_server_log_count(&f.s[0], "event=cache_shared_degraded"), 1);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0); /* same port, empty */
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 0, 5000));
  spawn_delivered(&f, "kit.json", 2, 30000);
  assert_true(stat_becomes(&f.s[0], "cache.shared.writes", 1, 3000));
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

static void test_redis_stopped_5s(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  fleet_start(&f, 2);
  assert_int_equal(kill(f.redis.pid, SIGSTOP), 0);
  uint64_t stopped_at = fleet_now_ms();
  /* both servers ask the stopped Redis: the call's 300 ms deadline, then a local rig */
  const int both[] = {0, 1};
  const tress_msg *got[2];
  spawn_on(&f, both, 2, "ava.json", 1);
  uint64_t ms = wait_rigs(&f, both, 2, got, 30000);
  fprintf(stderr, "Redis stopped: both rigs delivered in %llu ms\n", (unsigned long long)ms);
  assert_true(fleet_now_ms() - stopped_at < 4500); /* well inside the 5 s stop */
  assert_true(same_rig(got[0], got[1]));
  for (int i = 0; i < 2; i++) {
    assert_int_equal((int)stat_of(&f.s[i], "cache.shared.degraded"), 1);
    assert_int_equal((int)stat_of(&f.s[i], "rigs.started"), 1);
  }
  uint64_t elapsed = fleet_now_ms() - stopped_at;
  if (elapsed < 5000) {
    struct timespec ts = {(time_t)((5000 - elapsed) / 1000), (long)((5000 - elapsed) % 1000) * 1000000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(kill(f.redis.pid, SIGCONT), 0);
  for (int i = 0; i < 2; i++) {
    assert_true(stat_becomes(&f.s[i], "cache.shared.degraded", 0, 6000));
    assert_int_equal(th_server_log_count(&f.s[i], "event=cache_shared_degraded"), 1);
    assert_int_equal(th_server_log_count(&f.s[i], "event=cache_shared_recovered"), 1);
  }
  /* back in business: a new hair is single-flight again */
  spawn_on(&f, both, 2, "kit.json", 2);
  wait_rigs(&f, both, 2, got, 30000);
  assert_int_equal((int)fleet_sum(&f, "rigs.started"), 3);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

static void test_redis_out_of_memory(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  /* under Redis' own footprint: eviction finds nothing to evict, every write is refused (OOM) */
  const char *tiny[] = {"--maxmemory", "100kb", "--maxmemory-policy", "allkeys-lru", NULL};
  assert_int_equal(th_redis_start(&f.redis, tiny), 0);
  fleet_start(&f, 1);
  flushall(&f);
  spawn_delivered(&f, "ava.json", 1, 30000);
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 1, 3000));
  assert_true(stat_of(&f.s[0], "cache.shared.write_failures") + stat_of(&f.s[0], "cache.shared.errors") >= 1);
  assert_int_equal(th_server_log_count(&f.s[0], "event=cache_shared_degraded"), 1);
  char *ok = th_redis_cmdf(&f.redis, "CONFIG SET maxmemory 0");
  assert_string_equal(ok, "OK");
  free(ok);
  spawn_delivered(&f, "kit.json", 2, 30000);
  assert_true(stat_becomes(&f.s[0], "cache.shared.degraded", 0, 3000));
  assert_true(stat_of(&f.s[0], "cache.shared.writes") >= 1);
  assert_int_equal((int)stat_of(&f.s[0], "rigs.started"), 2);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

int main(void) {
  int skip = skip_without_redis();
  if (skip) return skip;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_redis_absent_at_start),
      cmocka_unit_test(test_redis_killed_mid_run),
      cmocka_unit_test(test_redis_stopped_5s),
      cmocka_unit_test(test_redis_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
