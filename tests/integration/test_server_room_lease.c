/* One room on one server, with real tress-servers, a real redis-server and real ENet clients:
 *  - joins for one room id at three servers at once (libtress-client): one owner, two REDIRECTs
 *    followed, every client in the owner's room (they see each other's character);
 *  - the owner killed -9: a join before its lease runs out is still redirected to it; after, the
 *    room moves once, to one survivor, whose rigs come from the shared cache (no rig anywhere);
 *  - the lease is released (compare-and-delete) when the room closes, not left to expire; a 1.1
 *    client is told the owner in an ERROR;
 *  - an open room whose lease another server took keeps its members and redirects new joiners,
 *    and takes the lease back once it is free;
 *  - Redis unreachable: the room opens locally (standalone) and the server says degraded;
 *  - a client sent round in a loop gives up with an error naming it.
 * Skipped (exit 77) when redis-server is not installed. */
#include "shared_cache_fleet.h"
#include "support/client_loop.h"
#include "tress/client.h"
#include "tress/sample_character.h"

#define ROOM_LEASE_MS 1500
#define HAIR "meshes/hair_long.glb"

typedef struct client_log {
  int errors;
  char last[TRESS_CLIENT_ERROR_MAX];
} client_log;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c, (void)kind;
  client_log *l = user;
  l->errors++;
  snprintf(l->last, sizeof l->last, "%s", message);
  fprintf(stderr, "client: %s\n", message);
}

static tress_client *lib_client(uint16_t port, const char *room, client_log *log) {
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.backoff_initial_ms = 100;
  def.backoff_max_ms = 400;
  def.connect_timeout_ms = 1000;
  def.callbacks = (tress_client_callbacks){.user = log, .on_error = on_error};
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", port, "", room, NULL), TRESS_OK);
  return c;
}

static bool all_ready(tress_client **cs, int n) {
  for (int i = 0; i < n; i++)
    if (cs[i] && tress_client_get_state(cs[i]) != TRESS_CLIENT_READY) return false;
  return true;
}

static bool pump_until_ready(tress_client **cs, int n, int timeout_ms) {
  uint64_t deadline = fleet_now_ms() + (uint64_t)timeout_ms;
  while (!all_ready(cs, n) && fleet_now_ms() < deadline) clients_pump(cs, n, 10);
  return all_ready(cs, n);
}

/* Every listed client holds `want` bound characters. */
static bool pump_until_bound(tress_client **cs, int n, uint32_t want, int timeout_ms) {
  uint64_t deadline = fleet_now_ms() + (uint64_t)timeout_ms;
  for (;;) {
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
      if (!cs[i]) continue;
      uint32_t ids[8];
      uint32_t k = tress_client_get_character_ids(cs[i], ids, 8);
      ok = k == want;
      for (uint32_t j = 0; ok && j < k; j++) {
        tress_client_character_info info;
        ok = tress_client_get_character_info(cs[i], ids[j], &info) == TRESS_OK && info.bound && info.bone_count > 0;
      }
    }
    if (ok) return true;
    if (fleet_now_ms() >= deadline) return false;
    clients_pump(cs, n, 10);
  }
}

static void launch(fleet *f, int i, const char *redis_url, const char *lease_ms) {
  th_server_init(&f->s[i], "lease");
  const char *extra[] = {"--cache-url", redis_url, "--cache-lease-ms", "1500", "--cache-poll-ms", "40",
                         "--cache-timeout-ms", "1000", "--room-lease-ms", lease_ms, NULL};
  assert_int_equal(th_server_start(&f->s[i], extra), 0);
}

static void launch_fleet(fleet *f, int n, const char *lease_ms) {
  f->n = n;
  for (int i = 0; i < n; i++) launch(f, i, f->redis.url, lease_ms);
  for (int i = 0; i < n; i++) assert_true(stat_becomes(f, i, "cache.shared.degraded", 0, 10000));
}

static char *lease_value(const fleet *f, const char *room) {
  char *v = th_redis_cmdf(&f->redis, "GET tress:room:%s", room);
  assert_non_null(v);
  return v;
}

static int owner_of(const fleet *f, const char *room) {
  char *v = lease_value(f, room);
  int owner = -1;
  for (int i = 0; i < f->n; i++) {
    char want[32];
    snprintf(want, sizeof want, "127.0.0.1:%u", f->s[i].udp_port);
    if (f->s[i].pid > 0 && strcmp(v, want) == 0) owner = i;
  }
  free(v);
  return owner;
}

/* A raw client's answer (HELLO minor `minor`) to JOIN_ROOM at server i: REDIRECT, ROOM_JOINED
 * or ERROR (the redirect or the error text copied out). */
static tress_msg_type raw_join_minor(fleet *f, int i, const char *room, uint16_t minor, tress_msg_redirect *redirect,
                                     char *error_text) {
  th_client c;
  memset(&c, 0, sizeof c);
  assert_int_equal(th_client_connect(&c, f->s[i].udp_port), 0);
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = minor;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "raw");
  assert_int_equal(th_client_send(&c, &m), 0);
  assert_non_null(th_client_wait(&c, TRESS_MSG_WELCOME, 5000));
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "%s", room);
  assert_int_equal(th_client_send(&c, &m), 0);
  tress_msg_type got = 0;
  uint64_t deadline = fleet_now_ms() + 5000;
  while (!got && fleet_now_ms() < deadline) {
    th_client_pump(&c, 5);
    for (uint32_t k = 0; k < c.inbox_count && !got; k++) {
      if (c.inbox[k].type == TRESS_MSG_REDIRECT) {
        got = TRESS_MSG_REDIRECT;
        if (redirect) *redirect = c.inbox[k].redirect;
      } else if (c.inbox[k].type == TRESS_MSG_ROOM_JOINED) {
        got = TRESS_MSG_ROOM_JOINED;
      } else if (c.inbox[k].type == TRESS_MSG_ERROR) {
        got = TRESS_MSG_ERROR;
        if (error_text) snprintf(error_text, TRESS_WIRE_TEXT_CAP, "%s", c.inbox[k].error.text);
      }
    }
  }
  th_client_close(&c);
  return got;
}

static tress_msg_type raw_join(fleet *f, int i, const char *room, tress_msg_redirect *redirect) {
  return raw_join_minor(f, i, room, TRESS_PROTOCOL_VERSION_MINOR, redirect, NULL);
}

static void test_three_joins_one_owner_then_owner_killed(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  launch_fleet(&f, 3, "1500");

  /* three clients, one per server, the same room, all at once */
  client_log logs[3];
  memset(logs, 0, sizeof logs);
  tress_client *cs[3];
  uint64_t t0 = fleet_now_ms();
  for (int i = 0; i < 3; i++) cs[i] = lib_client(f.s[i].udp_port, "arena", &logs[i]);
  assert_true(pump_until_ready(cs, 3, 20000));
  uint64_t joined_ms = fleet_now_ms() - t0;
  int owner = owner_of(&f, "arena");
  assert_true(owner >= 0);
  uint32_t redirects = 0;
  for (int i = 0; i < 3; i++) redirects += tress_client_get_stats(cs[i]).redirects;
  assert_int_equal(redirects, 2);
  assert_int_equal((int)fleet_sum(&f, "room_leases.redirects"), 2);
  for (int i = 0; i < 3; i++) {
    assert_int_equal((int)stat_of(&f.s[i], "rooms"), i == owner ? 1 : 0);
    assert_int_equal((int)stat_of(&f.s[i], "room_leases.held"), i == owner ? 1 : 0);
    assert_int_equal((int)stat_of(&f.s[i], "room_leases.local_opens"), 0);
  }
  assert_true(stat_becomes(&f, owner, "peers", 3, 5000));
  fprintf(stderr, "three joins at once: owner server %d, all three in its room %llu ms after connect\n", owner,
          (unsigned long long)joined_ms);

  /* one room: a character spawned by a client that was redirected reaches all three */
  int spawner = (owner + 1) % 3, other = (owner + 2) % 3;
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Rehomed", HAIR);
  assert_int_equal(tress_client_spawn(cs[spawner], &sample.manifest, NULL, NULL), TRESS_OK);
  assert_true(pump_until_bound(cs, 3, 1, 60000));
  assert_int_equal((int)stat_of(&f.s[owner], "rigs.started"), 1);

  /* the owner dies */
  assert_int_equal(kill(f.s[owner].pid, SIGKILL), 0);
  uint64_t killed_at = fleet_now_ms();
  th_server_stop(&f.s[owner], SIGKILL, 5000);
  char owner_addr[32];
  snprintf(owner_addr, sizeof owner_addr, "127.0.0.1:%u", f.s[owner].udp_port);
  f.s[owner].pid = 0;
  tress_client_destroy(cs[owner]); /* its only address is the dead server */
  cs[owner] = NULL;
  tress_client *alive[2] = {cs[spawner], cs[other]};
  /* its lease is live a while (renewed every 500 ms): a join now still goes to the dead owner */
  tress_msg_redirect r;
  memset(&r, 0, sizeof r);
  assert_int_equal(raw_join(&f, spawner, "arena", &r), TRESS_MSG_REDIRECT);
  assert_true(fleet_now_ms() - killed_at < ROOM_LEASE_MS); /* the answer came before the lease could run out */
  char got_addr[300];
  snprintf(got_addr, sizeof got_addr, "%s:%u", r.host, r.port);
  assert_string_equal(got_addr, owner_addr);

  /* the survivors' clients notice, start again at their own servers, and find one new owner */
  uint32_t redirects_before = tress_client_get_stats(cs[spawner]).redirects + tress_client_get_stats(cs[other]).redirects;
  uint64_t deadline = fleet_now_ms() + 60000;
  while (fleet_now_ms() < deadline &&
         !(tress_client_get_stats(cs[spawner]).disconnects && tress_client_get_stats(cs[other]).disconnects &&
           all_ready(alive, 2)))
    clients_pump(alive, 2, 10);
  assert_true(all_ready(alive, 2));
  uint64_t rehomed_ms = fleet_now_ms() - killed_at;
  assert_true(pump_until_bound(alive, 2, 1, 60000)); /* the spawner's character came back with it */
  int owner2 = owner_of(&f, "arena");
  assert_true(owner2 == spawner || owner2 == other);
  assert_int_equal((int)stat_of(&f.s[owner2], "rooms"), 1);
  assert_int_equal((int)stat_of(&f.s[owner2 == spawner ? other : spawner], "rooms"), 0);
  /* moved once: at most one more redirect per survivor (the one not holding it), and no rig:
   * the new owner served the hair from the shared cache */
  uint32_t redirects_after = tress_client_get_stats(cs[spawner]).redirects + tress_client_get_stats(cs[other]).redirects;
  assert_true(redirects_after - redirects_before >= 1 && redirects_after - redirects_before <= 2);
  assert_int_equal((int)(stat_of(&f.s[spawner], "rigs.started") + stat_of(&f.s[other], "rigs.started")), 0);
  assert_true(stat_of(&f.s[owner2], "cache.shared.hits") >= 1);
  fprintf(stderr, "owner killed: room rehomed on server %d %llu ms after the kill (lease %d ms; ENet noticed the loss), "
                  "0 rigs\n", owner2, (unsigned long long)rehomed_ms, ROOM_LEASE_MS);

  for (int i = 0; i < 3; i++)
    if (cs[i]) tress_client_destroy(cs[i]);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

static void test_lease_released_on_close(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  launch_fleet(&f, 1, "60000"); /* a lease that would outlive the test: gone means released */
  th_client c;
  memset(&c, 0, sizeof c);
  assert_int_equal(th_client_connect(&c, f.s[0].udp_port), 0);
  assert_int_equal(th_client_hello_join(&c, "solo", "solo-room"), 0);
  char *v = lease_value(&f, "solo-room");
  char want[32];
  snprintf(want, sizeof want, "127.0.0.1:%u", f.s[0].udp_port);
  assert_string_equal(v, want);
  free(v);
  char *ttl = th_redis_cmdf(&f.redis, "PTTL tress:room:solo-room");
  assert_true(atol(ttl) > 50000);
  free(ttl);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.held"), 1);
  th_client_close(&c); /* the last member leaves: the room closes */
  uint64_t deadline = fleet_now_ms() + 3000;
  char *exists = NULL;
  do {
    free(exists);
    exists = th_redis_cmdf(&f.redis, "EXISTS tress:room:solo-room");
  } while (strcmp(exists, "0") != 0 && fleet_now_ms() < deadline);
  assert_string_equal(exists, "0");
  free(exists);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.held"), 0);
  /* compare-and-delete: a lease another server holds is never deleted by this one's close */
  free(th_redis_cmdf(&f.redis, "SET tress:room:other 10.9.9.9:7777"));
  memset(&c, 0, sizeof c);
  tress_msg_redirect r;
  assert_int_equal(raw_join(&f, 0, "other", &r), TRESS_MSG_REDIRECT);
  assert_string_equal(r.host, "10.9.9.9");
  assert_int_equal(r.port, 7777);
  v = lease_value(&f, "other");
  assert_string_equal(v, "10.9.9.9:7777");
  free(v);
  /* a 1.1 client cannot follow a REDIRECT: it is told where the room is in an ERROR */
  char text[TRESS_WIRE_TEXT_CAP] = "";
  assert_int_equal(raw_join_minor(&f, 0, "other", TRESS_PROTOCOL_MINOR_REDIRECT - 1, NULL, text), TRESS_MSG_ERROR);
  assert_non_null(strstr(text, "10.9.9.9:7777"));
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

/* The lease of an open room taken by another server (this one stalled past it, or opened the room
 * while Redis was down): its members stay, new joiners are redirected to the new owner. */
static void test_lease_lost_keeps_members_redirects_joiners(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  launch_fleet(&f, 1, "1500");
  th_client member;
  memset(&member, 0, sizeof member);
  assert_int_equal(th_client_connect(&member, f.s[0].udp_port), 0);
  assert_int_equal(th_client_hello_join(&member, "member", "taken"), 0);
  free(th_redis_cmdf(&f.redis, "SET tress:room:taken 10.9.9.9:7777 PX 60000"));
  uint64_t deadline = fleet_now_ms() + 5000; /* the next renewal (every 500 ms) finds it */
  while (stat_of(&f.s[0], "room_leases.lost") != 1 && fleet_now_ms() < deadline) th_client_pump(&member, 20);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.lost"), 1);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.held"), 0);
  tress_msg_redirect r;
  assert_int_equal(raw_join(&f, 0, "taken", &r), TRESS_MSG_REDIRECT);
  assert_string_equal(r.host, "10.9.9.9");
  th_client_pump(&member, 50);
  assert_false(member.disconnected);
  assert_int_equal((int)stat_of(&f.s[0], "rooms"), 1); /* still open for its member */
  /* the other owner lets go: the renewal takes the lease back, joins come in again */
  free(th_redis_cmdf(&f.redis, "DEL tress:room:taken"));
  deadline = fleet_now_ms() + 5000;
  while (stat_of(&f.s[0], "room_leases.held") != 1 && fleet_now_ms() < deadline) th_client_pump(&member, 20);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.held"), 1);
  assert_int_equal(raw_join(&f, 0, "taken", NULL), TRESS_MSG_ROOM_JOINED);
  th_client_close(&member);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

static void test_redis_down_rooms_open_locally(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis); /* a free port nothing listens on */
  f.n = 1;
  launch(&f, 0, f.redis.url, "1500");
  th_client c;
  memset(&c, 0, sizeof c);
  assert_int_equal(th_client_connect(&c, f.s[0].udp_port), 0);
  uint64_t t0 = fleet_now_ms();
  assert_int_equal(th_client_hello_join(&c, "alone", "offline-room"), 0);
  uint64_t join_ms = fleet_now_ms() - t0;
  assert_true(join_ms < 3000); /* within the call deadline (1 s here) and then some */
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.local_opens"), 1);
  assert_int_equal((int)stat_of(&f.s[0], "cache.shared.degraded"), 1);
  assert_int_equal((int)stat_of(&f.s[0], "rooms"), 1);
  /* Redis comes back: the renewal claims the room for this server */
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  uint64_t deadline = fleet_now_ms() + 10000;
  while (stat_of(&f.s[0], "room_leases.held") != 1 && fleet_now_ms() < deadline) th_client_pump(&c, 20);
  assert_int_equal((int)stat_of(&f.s[0], "room_leases.held"), 1);
  char *v = lease_value(&f, "offline-room");
  char want[32];
  snprintf(want, sizeof want, "127.0.0.1:%u", f.s[0].udp_port);
  assert_string_equal(v, want);
  free(v);
  th_client_close(&c);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

/* Two servers that each think the other holds the room (lease values planted by hand): the
 * client follows one redirect, sees the second lead back and stops with an error saying so. */
static void test_redirect_loop_is_an_error(void **state) {
  (void)state;
  fleet f;
  memset(&f, 0, sizeof f);
  th_redis_init(&f.redis);
  assert_int_equal(th_redis_start(&f.redis, NULL), 0);
  launch_fleet(&f, 1, "60000");
  /* the lease names a second address that is this same server under another spelling: it
   * redirects to "localhost", which redirects to "localhost" again */
  char *ok = th_redis_cmdf(&f.redis, "SET tress:room:loop localhost:%u", f.s[0].udp_port);
  free(ok);
  client_log log;
  memset(&log, 0, sizeof log);
  tress_client *c = lib_client(f.s[0].udp_port, "loop", &log);
  uint64_t deadline = fleet_now_ms() + 15000;
  while (tress_client_get_state(c) != TRESS_CLIENT_IDLE && fleet_now_ms() < deadline) clients_pump(&c, 1, 10);
  assert_int_equal(tress_client_get_state(c), TRESS_CLIENT_IDLE);
  assert_int_equal(tress_client_get_stats(c).redirects, 1);
  assert_non_null(strstr(tress_client_get_last_error(c), "a loop"));
  assert_non_null(strstr(tress_client_get_last_error(c), "room loop"));
  tress_client_destroy(c);
  fleet_stop(&f, SIGTERM);
  th_redis_cleanup(&f.redis);
}

int main(void) {
  int skip = skip_without_redis();
  if (skip) return skip;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_three_joins_one_owner_then_owner_killed),
      cmocka_unit_test(test_lease_released_on_close),
      cmocka_unit_test(test_lease_lost_keeps_members_redirects_joiners),
      cmocka_unit_test(test_redis_down_rooms_open_locally),
      cmocka_unit_test(test_redirect_loop_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
