/* test_client_attachments.c - every accessory kind over the network on one character
 * (assets/characters/rio.json): a rigged ponytail, a pre-skinned cape whose own bones become
 * chains, and the manifest's "ropes" and "cloths" (the attachments section): a jump rope between
 * the hands, a charm hanging from the torso and a cloth cloak on the shoulders. Both clients of
 * the room bind the same chains, ropes and sheet, they swing alike at 30 and 60 fps (two fixed
 * steps a frame against one: bones within 1e-4, rope and cloak within 1e-3; at sim level
 * tests/unit/test_rope_frame_rate.c), and after bind the server sends nothing more. A bad
 * attachment is refused at spawn. A real tress-server on loopback. */
#include <math.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/client_loop.h"
#include "support/server_harness.h"
#include "tress/client.h"
#include "tress/manifest_json.h"
#include "tress/rope.h"

typedef struct counted {
  int protocol_errors, server_errors, bound;
  char last[256];
} counted;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c;
  counted *k = user;
  if (kind == TRESS_CLIENT_ERROR_PROTOCOL) k->protocol_errors++;
  if (kind == TRESS_CLIENT_ERROR_SERVER) k->server_errors++;
  snprintf(k->last, sizeof k->last, "%s", message);
  fprintf(stderr, "client: %s\n", message);
}

static void on_bound(void *user, tress_client *c, uint32_t id, uint32_t n) {
  (void)c, (void)id, (void)n;
  ((counted *)user)->bound++;
}

static tress_client *client(const th_server *s, counted *k) {
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.sim.max_distance = 1e5f;
  def.callbacks = (tress_client_callbacks){.user = k, .on_error = on_error, .on_bound = on_bound};
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", s->udp_port, "", "ropes", NULL), TRESS_OK);
  return c;
}

/* The first character of c once it is bound with its three attachments; 0 before. */
static uint32_t ready_character(tress_client *c) {
  uint32_t id;
  if (tress_client_get_character_ids(c, &id, 1) == 0) return 0;
  tress_client_character_info info;
  if (tress_client_get_character_info(c, id, &info) != TRESS_OK || !info.bound) return 0;
  return info.attachment_count == 3 ? id : 0;
}

/* The root walks at (WALK_X t, 0, WALK_Z t) studs: a function of time. */
#define WALK_X 3.0
#define WALK_Z 1.0

static float largest_difference(const float *a, const float *b, uint32_t n) {
  float worst = 0.0f;
  for (uint32_t i = 0; i < n; i++) worst = fmaxf(worst, fabsf(a[i] - b[i]));
  return worst;
}

static void test_ropes_and_cloth_reach_every_client(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "client-ropes");
  assert_int_equal(th_server_start(&s, NULL), 0);
  counted ka = {0}, kb = {0};
  tress_client *cs[2] = {client(&s, &ka), client(&s, &kb)};
  tress_wire_manifest rio;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_load("assets/characters/rio.json", &rio, &err), 0);
  assert_int_equal(tress_client_spawn(cs[0], &rio, NULL, NULL), TRESS_OK);
  tress_manifest_json_free(&rio);
  for (int t = 0; t < 20000 && !(ready_character(cs[0]) && ready_character(cs[1])); t += 10) clients_pump(cs, 2, 10);
  uint32_t a = ready_character(cs[0]), b = ready_character(cs[1]);
  assert_true(a != 0 && a == b);

  tress_client_attachment att[4];
  assert_int_equal(tress_client_get_attachments(cs[1], b, att, 4), 3);
  assert_string_equal(att[0].name, "Jumprope");
  assert_false(att[0].cloth);
  assert_string_equal(att[1].name, "Charm");
  assert_string_equal(att[2].name, "Cloak");
  assert_true(att[2].cloth);
  static float rope0[64 * 3], rope1[64 * 3], cape0[256 * 3], cape1[256 * 3], laid[256 * 3];
  uint32_t n0 = 0, n1 = 0;
  assert_int_equal(tress_client_get_attachment_points(cs[0], a, "Cloak", laid, 256, &n0), TRESS_OK);
  assert_int_equal(n0, 9 * 12);
  tress_client_stats before = tress_client_get_stats(cs[1]);

  client_walk(cs[0], a, 30, 2.0, WALK_X, WALK_Z);
  client_walk(cs[1], b, 60, 2.0, WALK_X, WALK_Z);

  assert_int_equal(tress_client_get_attachment_points(cs[0], a, "Jumprope", rope0, 64, &n0), TRESS_OK);
  assert_int_equal(tress_client_get_attachment_points(cs[1], b, "Jumprope", rope1, 64, &n1), TRESS_OK);
  assert_int_equal(n0, 25);
  assert_int_equal(n1, 25);
  float rope_diff = largest_difference(rope0, rope1, 3 * n0);
  assert_int_equal(tress_client_get_attachment_points(cs[0], a, "Cloak", cape0, 256, &n0), TRESS_OK);
  assert_int_equal(tress_client_get_attachment_points(cs[1], b, "Cloak", cape1, 256, &n1), TRESS_OK);
  assert_int_equal(n0, n1);
  float cape_diff = largest_difference(cape0, cape1, 3 * n0);
  /* the hair and the pre-skinned cape: the same bones, drawn the same, on both clients */
  assert_int_equal(tress_client_get_accessory_rig_state(cs[0], a, 1), TRESS_RIG_APPLIED);
  assert_int_equal(tress_client_get_accessory_rig_state(cs[1], b, 1), TRESS_RIG_APPLIED);
  static float ma[64 * 16], mb[64 * 16];
  uint32_t na = tress_client_get_bone_matrices(cs[0], a, ma, 64), nb = tress_client_get_bone_matrices(cs[1], b, mb, 64);
  assert_int_equal(na, nb);
  assert_true(na > 13); /* the ponytail's bones and the cape's 13 */
  float bone_diff = largest_difference(ma, mb, 16 * na);
  printf("30 vs 60 fps after 2 s: jump rope %.3g, cloak %.3g, %u bones %.3g\n", (double)rope_diff,
         (double)cape_diff, na, (double)bone_diff);
  assert_true(bone_diff < 1e-4f);
  assert_true(rope_diff < 1e-3f);
  assert_true(cape_diff < 1e-3f);

  /* The rope hangs between the hands: its ends on the hands' pins, its middle sagging below. */
  tress_xform left, right;
  assert_int_equal(tress_client_get_part_frame(cs[0], a, 2, &left), TRESS_OK);
  assert_int_equal(tress_client_get_part_frame(cs[0], a, 3, &right), TRESS_OK);
  float pin[3];
  tress_xform_point(left, (const float[3]){0.0f, -0.2f, 0.0f}, pin);
  assert_true(fabsf(rope0[0] - pin[0]) + fabsf(rope0[1] - pin[1]) + fabsf(rope0[2] - pin[2]) < 1e-3f);
  assert_true(rope0[3 * 12 + 1] < pin[1] - 1.0f);
  /* The cape's top row rides the torso, the rest fell and trails the walk. */
  float moved = 0.0f;
  for (uint32_t i = 9; i < n0; i++) moved = fmaxf(moved, fabsf(cape0[3 * i + 1] - laid[3 * i + 1]));
  assert_true(moved > 0.05f);

  /* Nothing travels once bound: 200 ms more of service receives no byte. */
  clients_pump(cs, 2, 200);
  tress_client_stats after = tress_client_get_stats(cs[1]);
  assert_int_equal(after.bytes_received, before.bytes_received);
  assert_int_equal(ka.protocol_errors + kb.protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

/* An attachment pinned to a part the manifest does not have is refused at spawn (BAD_MANIFEST):
 * no client ever sees the character. */
static void test_attachment_on_a_missing_part_is_refused(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "client-ropes-bad");
  assert_int_equal(th_server_start(&s, NULL), 0);
  counted ka = {0};
  tress_client *cs[1] = {client(&s, &ka)};
  tress_wire_manifest rio;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_load("assets/characters/rio.json", &rio, &err), 0);
  /* rename the part the cape hangs from: the section now names a part that is not there */
  for (uint32_t i = 0; i < rio.part_count; i++)
    if (strcmp(rio.parts[i].name, "UpperTorso") == 0) snprintf(rio.parts[i].name, sizeof rio.parts[i].name, "Torso");
  rio.accessory_count = 1; /* the cape is worn on the torso too: keep only the ponytail */
  assert_int_equal(tress_client_spawn(cs[0], &rio, NULL, NULL), TRESS_OK);
  tress_manifest_json_free(&rio);
  for (int t = 0; t < 5000 && ka.server_errors == 0; t += 10) clients_pump(cs, 1, 10);
  assert_int_equal(ka.server_errors, 1);
  assert_non_null(strstr(ka.last, "attachments section"));
  assert_non_null(strstr(ka.last, "'UpperTorso' is not a part of the manifest"));
  assert_int_equal(tress_client_get_character_count(cs[0]), 0);
  tress_client_destroy(cs[0]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ropes_and_cloth_reach_every_client),
      cmocka_unit_test(test_attachment_on_a_missing_part_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
