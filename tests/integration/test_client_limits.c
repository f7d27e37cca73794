/* test_client_limits.c - rotation limits from a manifest, end to end: a real tress-server on
 * loopback and two real clients. Coral (assets/characters/cape_limits.json) wears the sample
 * pre-skinned cape, and her manifest's springs limit the cape: a cone on every joint of the
 * chain from CapeRoot, and per-joint limits on three bones (a hinge, a spherical limit and a
 * turned cone). Cora (cape.json) wears the same cape unlimited. One client spawns both, both
 * clients bind them through the server, the root is thrown and spun hard for five seconds, and
 * on both clients every joint of Coral's cape stays within its limit every frame while Cora's
 * leaves the same limits far behind (so the limits, not the motion, hold it). The same manifest
 * puts a plane behind the back (an extended collider): it reaches both clients as that plane
 * (shape, attach, point, normal, world normal). */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/limit_excess.h"
#include "support/server_harness.h"
#include "support/scene_names.h"
#include "tress/client.h"
#include "tress/manifest_json.h"
#include "tress/math.h"
#include "tress/wire_springs.h"

#define CAPE_BONES 13
#define FRAMES 300
#define DT (1.0 / 60.0)
#define PI_F 3.14159265358979f
#define WHERE_CAP (2 * TRESS_NAME_MAX + 32) /* "joint -> tail (frame n)" */
#define SLACK 2e-3f /* radians: float round-off between the solver's frame and this test's */

static int protocol_errors, warnings, limit_warnings;

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c, (void)user;
  if (kind == TRESS_CLIENT_ERROR_PROTOCOL) protocol_errors++;
  if (kind == TRESS_CLIENT_ERROR_WARNING) {
    warnings++;
    /* the entry's spring fields are the cape chain's; its limits go on that chain */
    if (strstr(message, "spring chain 'CapeRoot' skipped") && strstr(message, "rotation limits are put on that chain"))
      limit_warnings++;
  }
  fprintf(stderr, "client: %s\n", message);
}

static tress_client *client(th_server *s) {
  tress_client_def def = tress_default_client_def();
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.sim.max_distance = 1e5f;
  def.connect_timeout_ms = 1000;
  def.callbacks = (tress_client_callbacks){.on_error = on_error};
  tress_client *c = tress_client_create(&def);
  assert_non_null(c);
  assert_int_equal(tress_client_connect(c, "127.0.0.1", s->udp_port, "", "limits", NULL), TRESS_OK);
  return c;
}

static void pump(tress_client **cs, int n, int ms) {
  for (int t = 0; t < ms; t += 2)
    for (int i = 0; i < n; i++) tress_client_service_wait(cs[i], i == 0 ? 2 : 0);
}

/* The id of c's character named `name` once it is bound with the cape's bones; 0 before. */
static uint32_t bound_named(tress_client *c, const char *name) {
  uint32_t ids[8];
  uint32_t n = tress_client_get_character_ids(c, ids, 8);
  for (uint32_t i = 0; i < n; i++) {
    tress_client_character_info info;
    if (tress_client_get_character_info(c, ids[i], &info) != TRESS_OK) continue;
    if (strcmp(info.name, name) == 0 && info.bound && info.bone_count == CAPE_BONES) return ids[i];
  }
  return 0;
}

/* ---- the limits the manifest sets, read from its springs section ------------------------- */

typedef struct limits {
  tress_wire_springs section;
  const tress_wire_spring_chain *chain; /* the CapeRoot entry */
} limits;

static void limits_load(limits *l) {
  char path[512];
  snprintf(path, sizeof path, "%s/assets/characters/cape_limits.json", th_source_dir());
  tress_wire_manifest m;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_load(path, &m, &err), 0);
  assert_int_equal(m.section_count, 1);
  tress_wire_error werr;
  assert_int_equal(tress_wire_springs_decode(m.sections[0].bytes, m.sections[0].length, &l->section, &werr),
                   TRESS_WIRE_OK);
  tress_manifest_json_free(&m);
  assert_int_equal(l->section.chain_count, 2); /* the default entry (the plane) and CapeRoot */
  l->chain = &l->section.chains[1];
  assert_string_equal(l->chain->root, "CapeRoot");
  assert_int_equal(l->chain->limit.kind, TRESS_LIMIT_CONE);
  assert_int_equal(l->chain->joint_limit_count, 3);
}

/* The limit the manifest puts on `bone`: its own, else the chain's. */
static const tress_joint_limit *limit_on(const limits *l, const char *bone) {
  for (uint32_t k = 0; k < l->chain->joint_limit_count; k++)
    if (strcmp(l->chain->joint_limits[k].bone, bone) == 0) return &l->chain->joint_limits[k].limit;
  return &l->chain->limit;
}

/* The worst excess over every joint of a character's cape that has a tail (CAPE_BONES bones),
 * each joint held to the limit the manifest puts on it; where names the worst one. */
static float worst_excess(tress_client *c, uint32_t id, const limits *l, char where[WHERE_CAP]) {
  tress_scene *scene = tress_client_get_scene(c);
  tress_id bones[64];
  assert_int_equal(tress_client_get_bones(c, id, bones, 64), CAPE_BONES);
  float worst = -10.0f;
  for (uint32_t i = 0; i < CAPE_BONES; i++) {
    const tress_joint_limit *lim = limit_on(l, name_of(scene, bones[i]).s);
    for (tress_id t = tress_instance_get_first_child(scene, bones[i]); !tress_id_is_null(t);
         t = tress_instance_get_next_sibling(scene, t)) {
      if (tress_instance_get_kind(scene, t) != TRESS_KIND_BONE) continue;
      float e = limit_excess(scene, bones[i], t, lim);
      if (e > worst) {
        worst = e;
        snprintf(where, WHERE_CAP, "%s -> %s", name_of(scene, bones[i]).s, name_of(scene, t).s);
      }
    }
  }
  return worst;
}

/* How far the character's deepest cape bone is behind its plane collider (<= 0: in front). */
static float behind_plane(tress_client *c, uint32_t id) {
  tress_collider_def def;
  tress_collider_world w;
  assert_int_equal(tress_client_get_colliders(c, id, &def, &w, 1), 1);
  assert_int_equal(w.shape, TRESS_COLLIDER_PLANE);
  tress_scene *scene = tress_client_get_scene(c);
  tress_id bones[64];
  assert_int_equal(tress_client_get_bones(c, id, bones, 64), CAPE_BONES);
  float worst = -1e9f;
  for (uint32_t i = 0; i < CAPE_BONES; i++) {
    tress_xform b = tress_bone_get_world(scene, bones[i]);
    float d = (b.p[0] - w.ax) * w.bx + (b.p[1] - w.ay) * w.by + (b.p[2] - w.az) * w.bz;
    worst = fmaxf(worst, -d);
  }
  return worst;
}

/* The character root thrown sideways and up and spun about two axes: a new pose every frame. */
static tress_xform thrown(int frame) {
  float t = (float)(frame * DT);
  float a[4], b[4], za[3] = {0, 0, 1}, xa[3] = {1, 0, 0};
  tress_xform spin_z = tress_xform_from_axis_angle(za, 1.3f * sinf(2.0f * PI_F * 1.5f * t));
  tress_xform spin_x = tress_xform_from_axis_angle(xa, 1.0f * sinf(2.0f * PI_F * 2.5f * t));
  memcpy(a, spin_z.q, sizeof a);
  memcpy(b, spin_x.q, sizeof b);
  tress_xform x = tress_xform_identity();
  tress_quat_mul(a, b, x.q);
  x.p[0] = 3.0f * sinf(2.0f * PI_F * 2.0f * t);
  x.p[1] = 1.5f * sinf(2.0f * PI_F * 3.0f * t);
  x.p[2] = 2.0f * sinf(2.0f * PI_F * 1.3f * t);
  return x;
}

static void test_manifest_limits_hold_on_every_client(void **state) {
  (void)state;
  limits l;
  limits_load(&l);
  th_server s;
  th_server_init(&s, "limits");
  assert_int_equal(th_server_start(&s, NULL), 0);
  tress_client *cs[2] = {client(&s), client(&s)};
  pump(cs, 2, 300);
  const char *files[2] = {"cape_limits.json", "cape.json"};
  for (int i = 0; i < 2; i++) {
    tress_msg spawn;
    assert_int_equal(th_spawn_load(&spawn, files[i], (uint32_t)i + 1), 0);
    assert_int_equal(tress_client_spawn(cs[0], &spawn.spawn_character.manifest, NULL, NULL), TRESS_OK);
    th_spawn_free(&spawn);
  }
  uint32_t limited[2] = {0}, free_cape[2] = {0};
  for (int t = 0; t < 20000; t += 10) {
    pump(cs, 2, 10);
    for (int i = 0; i < 2; i++) {
      limited[i] = bound_named(cs[i], "Coral");
      free_cape[i] = bound_named(cs[i], "Cora");
    }
    if (limited[0] && limited[1] && free_cape[0] && free_cape[1]) break;
  }
  for (int i = 0; i < 2; i++) assert_true(limited[i] != 0 && free_cape[i] != 0);
  assert_int_equal(limited[0], limited[1]);
  /* one notice a client: CapeRoot swings with the cape's own chain, which takes the limits */
  assert_int_equal(limit_warnings, 2);
  assert_int_equal(warnings, 2);

  /* the plane arrived as a plane: on the torso, facing back (-Z) */
  for (int i = 0; i < 2; i++) {
    tress_collider_def def;
    assert_int_equal(tress_client_get_colliders(cs[i], limited[i], &def, NULL, 1), 1);
    assert_int_equal(def.shape, TRESS_COLLIDER_PLANE);
    assert_string_equal(name_of(tress_client_get_scene(cs[i]), def.attach).s, "UpperTorso");
    assert_float_equal(def.normal[2], -1.0f, 0.0f);
    assert_float_equal(def.offset[2], -0.4f, 1e-6f);
    tress_collider_world w;
    assert_int_equal(tress_client_get_colliders(cs[i], limited[i], NULL, &w, 1), 1);
    assert_int_equal(w.shape, TRESS_COLLIDER_PLANE);
    assert_float_equal(w.bz, -1.0f, 1e-5f); /* the torso is unturned before the throw */
  }
  float held[2] = {-10.0f, -10.0f}, loose[2] = {-10.0f, -10.0f}, behind[2] = {-1e9f, -1e9f};
  char held_at[2][2 * WHERE_CAP] = {"", ""}, loose_at[2 * WHERE_CAP] = "";
  for (int f = 1; f <= FRAMES; f++) {
    tress_xform root = thrown(f);
    for (int i = 0; i < 2; i++) {
      assert_int_equal(tress_client_set_root(cs[i], limited[i], root), TRESS_OK);
      assert_int_equal(tress_client_set_root(cs[i], free_cape[i], root), TRESS_OK);
      assert_int_equal(tress_client_step(cs[i], DT), TRESS_OK);
      char where[WHERE_CAP];
      float e = worst_excess(cs[i], limited[i], &l, where);
      if (e > held[i]) {
        held[i] = e;
        snprintf(held_at[i], sizeof held_at[i], "%s (frame %d)", where, f);
      }
      behind[i] = fmaxf(behind[i], behind_plane(cs[i], limited[i]));
      e = worst_excess(cs[i], free_cape[i], &l, where);
      if (e > loose[i]) {
        loose[i] = e;
        if (i == 0) snprintf(loose_at, sizeof loose_at, "%s (frame %d)", where, f);
      }
    }
    if (f % 30 == 0) pump(cs, 2, 0);
  }
  for (int i = 0; i < 2; i++)
    printf("client %d: limited cape at most %.5f rad outside (%s); the unlimited one %.3f rad\n", i, (double)held[i],
           held_at[i], (double)loose[i]);
  printf("unlimited worst: %s\n", loose_at);
  for (int i = 0; i < 2; i++) {
    /* reported, not held to 0: a limit has the last word over a collider (sim.h), and the
     * middle hinge pushes CapeM_3 up to ~0.1 behind it when the cape twists */
    printf("client %d: the deepest cape bone %.5f behind the plane\n", i, (double)behind[i]);
    assert_true(held[i] <= SLACK);
    assert_true(loose[i] > 0.2f);
  }
  assert_int_equal(protocol_errors, 0);
  tress_client_destroy(cs[0]);
  tress_client_destroy(cs[1]);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_manifest_limits_hold_on_every_client),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
