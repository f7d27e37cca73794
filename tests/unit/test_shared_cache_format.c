/* test_shared_cache_format.c - the shared rig tier's pure parts. White-box (redis_url.h,
 * rig_cache.h): they are tress-server's, with no public header, so their sources are compiled in:
 * cache_url parsing (credentials, IPv6, db, refusals), the redaction --print-config uses, the
 * content-address key (mesh and options in it), and the self-verifying value: a good one
 * round-trips; a truncated, bit-flipped, re-versioned, foreign (another key's) or non-tress value
 * is refused with a reason, never accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "redis_url.h"
#include "rig_cache.h"
#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"
#include "tress/rig.h"

static void test_url_full(void **state) {
  (void)state;
  tress_redis_url u;
  char err[256];
  assert_int_equal(tress_redis_url_parse("redis://fleet:s%40cr%3At@redis.tress.svc:6380/3", &u, err), 0);
  assert_string_equal(u.user, "fleet");
  assert_string_equal(u.password, "s@cr:t");
  assert_string_equal(u.host, "redis.tress.svc");
  assert_int_equal(u.port, 6380);
  assert_int_equal(u.db, 3);
}

static void test_url_defaults_and_forms(void **state) {
  (void)state;
  tress_redis_url u;
  char err[256];
  assert_int_equal(tress_redis_url_parse("redis://127.0.0.1", &u, err), 0);
  assert_int_equal(u.port, 6379);
  assert_int_equal(u.db, 0);
  assert_string_equal(u.user, "");
  assert_string_equal(u.password, "");
  assert_int_equal(tress_redis_url_parse("redis://:pw@h:1/", &u, err), 0); /* the default user */
  assert_string_equal(u.user, "");
  assert_string_equal(u.password, "pw");
  assert_int_equal(u.db, 0);
  assert_int_equal(tress_redis_url_parse("redis://[::1]:7000/2", &u, err), 0);
  assert_string_equal(u.host, "::1");
  assert_int_equal(u.port, 7000);
  assert_int_equal(u.db, 2);
  assert_int_equal(tress_redis_url_parse("redis://u:p@w@h", &u, err), 0); /* a raw '@' in the password */
  assert_string_equal(u.password, "p@w");
}

static void test_url_refusals(void **state) {
  (void)state;
  tress_redis_url u;
  char err[256];
  const char *bad[] = {"http://h", "rediss://h", "redis://", "redis://h:0", "redis://h:65536", "redis://h:x",
                       "redis://h/db", "redis://h/1?x=1", "redis://user@h", "redis://u:@h", "redis://[::1",
                       "redis://u:%zz@h", "redis://h h"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    if (tress_redis_url_parse(bad[i], &u, err) != -1) fail_msg("accepted %s", bad[i]);
    assert_non_null(strstr(err, "cache_url"));
  }
  assert_int_equal(tress_redis_url_parse("rediss://h", &u, err), -1);
  assert_non_null(strstr(err, "TLS"));
}

static void test_url_redact(void **state) {
  (void)state;
  char out[128];
  tress_redis_url_redact("redis://fleet:secret@h:1/2", out, sizeof out);
  assert_string_equal(out, "redis://fleet:***@h:1/2");
  tress_redis_url_redact("redis://:secret@h", out, sizeof out);
  assert_string_equal(out, "redis://:***@h");
  tress_redis_url_redact("redis://h:1/2", out, sizeof out);
  assert_string_equal(out, "redis://h:1/2");
}

/* A real rig of a sample mesh, as the server's worker makes it. */
static tress_rig_entry *sample_entry(void) {
  tress_error err = {0};
  tress_mesh *mesh = tress_mesh_file_load("assets/meshes/hair_bob.glb", &err);
  assert_non_null(mesh);
  uint8_t hash[TRESS_MESH_HASH_BYTES];
  tress_mesh_get_content_hash(mesh, hash);
  tress_rig_opts ro = tress_default_rig_opts();
  tress_rig_output out;
  memset(&out, 0, sizeof out);
  assert_int_equal(tress_rig_mesh(mesh, &ro, &out, &err), TRESS_RIG_OK);
  tress_wire_rig_options opts = tress_default_wire_rig_options();
  char reason[TRESS_WIRE_TEXT_CAP];
  tress_rig_entry *e = tress_rig_entry_from_output(&out, hash, &opts, reason);
  assert_non_null(e);
  tress_rig_output_free(&out);
  tress_mesh_release(mesh);
  return e;
}

static int setup_entry(void **state) {
  *state = sample_entry();
  return 0;
}

static int teardown_entry(void **state) {
  tress_rig_entry_release(*state);
  return 0;
}

static tress_cache_read parse(const tress_rig_entry *e, const uint8_t *v, size_t len, char reason[TRESS_WIRE_TEXT_CAP]) {
  tress_rig_entry *got = NULL;
  reason[0] = '\0';
  tress_cache_read r = tress_rig_cache_parse_shared(e->key, v, len, &got, reason);
  if (got) tress_rig_entry_release(got);
  return r;
}

static void test_value_round_trip(void **state) {
  const tress_rig_entry *e = *state;
  size_t len = 0;
  uint8_t *v = tress_rig_cache_shared_value(e, &len);
  assert_non_null(v);
  assert_int_equal(len, TRESS_RIG_SHARED_HEADER_BYTES + e->encoded_bytes);
  tress_rig_entry *got = NULL;
  char reason[TRESS_WIRE_TEXT_CAP];
  assert_int_equal(tress_rig_cache_parse_shared(e->key, v, len, &got, reason), TRESS_CACHE_READ_OK);
  assert_memory_equal(got->key, e->key, TRESS_RIG_KEY_BYTES);
  assert_int_equal(got->encoded_bytes, e->encoded_bytes);
  assert_memory_equal(got->payload, e->payload, e->encoded_bytes);
  assert_memory_equal(got->mesh_size, e->mesh_size, sizeof e->mesh_size);
  tress_rig_entry_release(got);
  free(v);
}

static void test_value_refusals(void **state) {
  const tress_rig_entry *e = *state;
  size_t len = 0;
  uint8_t *v = tress_rig_cache_shared_value(e, &len);
  char reason[TRESS_WIRE_TEXT_CAP];
  /* truncated anywhere: header, payload */
  assert_int_equal(parse(e, v, 10, reason), TRESS_CACHE_READ_CORRUPT);
  assert_int_equal(parse(e, v, len - 1, reason), TRESS_CACHE_READ_CORRUPT);
  assert_non_null(strstr(reason, "length"));
  /* a flipped bit in the payload, the mesh size or the checksum */
  size_t spots[] = {TRESS_RIG_SHARED_HEADER_BYTES + e->encoded_bytes / 2, 50, 70, len - 1};
  for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
    v[spots[i]] ^= 0x10;
    assert_int_equal(parse(e, v, len, reason), TRESS_CACHE_READ_CORRUPT);
    assert_string_equal(reason, "checksum mismatch");
    v[spots[i]] ^= 0x10;
  }
  /* another format version */
  v[8] ^= 0x02;
  assert_int_equal(parse(e, v, len, reason), TRESS_CACHE_READ_CORRUPT);
  assert_non_null(strstr(reason, "version"));
  v[8] ^= 0x02;
  /* a value another key wrote (here: read under a different key) */
  tress_rig_entry other = *e;
  other.key[0] ^= 1;
  assert_int_equal(parse(&other, v, len, reason), TRESS_CACHE_READ_CORRUPT);
  assert_non_null(strstr(reason, "foreign"));
  /* not ours at all */
  const char junk[] = "{\"some\":\"other app's json under our key, long enough to pass the header size check\"}";
  assert_int_equal(parse(e, (const uint8_t *)junk, sizeof junk, reason), TRESS_CACHE_READ_CORRUPT);
  assert_non_null(strstr(reason, "magic"));
  /* and the untouched value still verifies */
  assert_int_equal(parse(e, v, len, reason), TRESS_CACHE_READ_OK);
  free(v);
}

static void test_key_covers_rigger_options_mesh(void **state) {
  (void)state;
  uint8_t hash[TRESS_MESH_HASH_BYTES] = {1, 2, 3};
  tress_wire_rig_options o = tress_default_wire_rig_options();
  uint8_t a[TRESS_RIG_KEY_BYTES], b[TRESS_RIG_KEY_BYTES];
  tress_rig_cache_key(hash, &o, a);
  tress_rig_cache_key(hash, &o, b);
  assert_memory_equal(a, b, sizeof a);
  o.segments++;
  tress_rig_cache_key(hash, &o, b);
  assert_memory_not_equal(a, b, sizeof a);
  o.segments--;
  hash[5] = 9;
  tress_rig_cache_key(hash, &o, b);
  assert_memory_not_equal(a, b, sizeof a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_url_full),
      cmocka_unit_test(test_url_defaults_and_forms),
      cmocka_unit_test(test_url_refusals),
      cmocka_unit_test(test_url_redact),
      cmocka_unit_test_setup_teardown(test_value_round_trip, setup_entry, teardown_entry),
      cmocka_unit_test_setup_teardown(test_value_refusals, setup_entry, teardown_entry),
      cmocka_unit_test(test_key_covers_rigger_options_mesh),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
