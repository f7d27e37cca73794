/* test_client_pose.c - the game's animated skeleton reaches the hair in a real libtress-client
 * (against the scripted ENet server, client_fake_server.c): a head that nods 30 degrees carries
 * the hair's root bones exactly and the tips swing behind it; pose maps resolve part names, bone
 * names and "Accessory/Bone", pick up bones that arrive later, detach when the character goes;
 * by-id poses; and a frame of bulk input for a 60-bone game skeleton allocates nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "support/client_fake_server.h"
#include "support/scene_names.h"
#include "tress/client.h"
#include "tress/sample_character.h"
#include "support/alloc_count.h"

#define HAIR_ASSET "meshes/hair_long.glb"
#define HAIR_PATH "assets/" HAIR_ASSET
#define CHARACTER_ID 7
#define DT (1.0 / 60.0)
#define HEAD 2 /* the sample character's part index */

typedef struct rig_world {
  fake_server server;
  tress_client *client;
  tress_sample_character sample;
  fake_rig rig;
  tress_msg rig_msg;
  int bound;
} rig_world;

static void on_bound(void *user, tress_client *c, uint32_t id, uint32_t n) {
  (void)c, (void)id, (void)n;
  ((rig_world *)user)->bound++;
}

static void settle(rig_world *w, int ms) { fake_server_pump(&w->server, &w->client, 1, ms); }

/* Connected, CHARACTER_ADDED sent; the rig and the BIND follow in send_rig_and_bind. */
static void world_start(rig_world *w) {
  memset(w, 0, sizeof *w);
  tress_sample_character_init(&w->sample, "Nodder", HAIR_ASSET);
  assert_true(fake_rig_make(HAIR_PATH, CHARACTER_ID, 0, &w->rig, &w->rig_msg));
  assert_true(fake_server_start(&w->server));
  tress_client_def def = tress_default_client_def();
  def.client_name = "test-pose";
  def.sim.device_compute = 1.0f;
  def.sim.max_chains = 100;
  def.sim.max_distance = 1e5f;
  def.callbacks = (tress_client_callbacks){.user = w, .on_bound = on_bound};
  w->client = tress_client_create(&def);
  assert_non_null(w->client);
  assert_int_equal(tress_client_connect(w->client, "127.0.0.1", w->server.port, "", "room", NULL), TRESS_OK);
  for (int i = 0; i < 200 && tress_client_get_state(w->client) != TRESS_CLIENT_READY; i++) settle(w, 10);
  assert_int_equal(tress_client_get_state(w->client), TRESS_CLIENT_READY);
  tress_msg m = {.type = TRESS_MSG_CHARACTER_ADDED};
  m.character_added.character_id = CHARACTER_ID;
  m.character_added.owner_peer_id = 99;
  m.character_added.manifest = w->sample.manifest;
  assert_true(fake_server_send(&w->server, &m));
  for (int i = 0; i < 100 && tress_client_get_character_count(w->client) == 0; i++) settle(w, 10);
  assert_int_equal(tress_client_get_character_count(w->client), 1);
}

static void send_rig_and_bind(rig_world *w) {
  assert_true(fake_server_send(&w->server, &w->rig_msg));
  tress_msg m = {.type = TRESS_MSG_BIND};
  m.bind.character_id = CHARACTER_ID;
  m.bind.chain_settings = tress_default_chain_settings();
  m.bind.accessory_settings = tress_default_accessory_settings();
  m.bind.match_policy = TRESS_MATCH_DEFAULT;
  uint8_t rigged[1] = {0};
  m.bind.rigged_count = 1;
  m.bind.rigged_indices = rigged;
  assert_true(fake_server_send(&w->server, &m));
  for (int i = 0; i < 200 && !w->bound; i++) settle(w, 10);
  assert_int_equal(w->bound, 1);
}

static void world_stop(rig_world *w) {
  tress_client_destroy(w->client);
  fake_server_stop(&w->server);
  fake_rig_free(&w->rig);
}

/* The head turned by `degrees` about axis (x, y, z) around the neck (the head's bottom centre),
 * in model space (relative to the character root). */
static tress_xform head_pose(const tress_sample_character *s, float degrees, float x, float y, float z) {
  tress_xform rest = s->parts[HEAD].cframe;
  float half = 0.5f * degrees * (float)M_PI / 180.0f;
  tress_xform turn = {{0, 0, 0}, {x * sinf(half), y * sinf(half), z * sinf(half), cosf(half)}};
  tress_xform neck = tress_xform_from_pos(rest.p[0], rest.p[1] - 0.5f * s->parts[HEAD].size[1], rest.p[2]);
  /* neck * turn * neck^-1 * rest: the head pivots about the neck */
  return tress_xform_mul(tress_xform_mul(neck, turn), tress_xform_inv_mul(neck, rest));
}

static float distance(const float a[3], const float b[3]) {
  float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static bool is_leaf(tress_scene *scene, tress_id bone) {
  return tress_id_is_null(tress_instance_find_child_of_kind(scene, bone, TRESS_KIND_BONE));
}

/* The bones hanging directly from the Handle (pinned) and the leaves (free tips). */
typedef struct hair_bones {
  tress_id roots[8], tips[64];
  uint32_t root_count, tip_count;
} hair_bones;

static hair_bones find_hair_bones(rig_world *w) {
  hair_bones h;
  memset(&h, 0, sizeof h);
  tress_scene *scene = tress_client_get_scene(w->client);
  tress_id handle;
  assert_int_equal(tress_client_get_accessory_frame(w->client, CHARACTER_ID, 0, &handle, NULL, NULL, NULL), TRESS_OK);
  tress_id bones[256];
  uint32_t n = tress_client_get_bones(w->client, CHARACTER_ID, bones, 256);
  assert_true(n > 2 && n <= 256);
  for (uint32_t i = 0; i < n; i++) {
    if (tress_id_is_equal(tress_instance_get_parent(scene, bones[i]), handle) && h.root_count < 8) h.roots[h.root_count++] = bones[i];
    else if (is_leaf(scene, bones[i]) && h.tip_count < 64) h.tips[h.tip_count++] = bones[i];
  }
  assert_true(h.root_count >= 1);
  assert_true(h.tip_count >= 2);
  return h;
}

/* Nods the head 30 degrees over 0.3 s through a pose map and checks every frame that the root
 * bones sit exactly where the head carries them, and at the end that the tips lag. Without the
 * skeleton input (parts placed at root * manifest frame every step) the first check fails. */
static void nod_and_check(void) {
  rig_world w;
  world_start(&w);
  send_rig_and_bind(&w);
  tress_scene *scene = tress_client_get_scene(w.client);
  const char *names[] = {"Hips", "HumanoidRootPart", "UpperTorso", "Head", "LeftHand"};
  tress_client_pose_map_def def = tress_default_client_pose_map_def();
  def.character_id = CHARACTER_ID;
  def.names = names;
  def.count = 5;
  tress_client_pose_map *map = NULL;
  assert_int_equal(tress_client_pose_map_create(w.client, &def, &map, NULL), TRESS_OK);
  assert_int_equal(tress_client_pose_map_get_matched_count(map), 3);
  tress_xform pose[5];
  for (int i = 0; i < 5; i++) pose[i] = tress_xform_identity();
  for (int i = 0; i < 3; i++) pose[i + 1] = w.sample.parts[i].cframe;
  tress_pose_array array = {pose[0].p, pose[0].q, sizeof pose[0], sizeof pose[0], 5};

  for (int f = 0; f < 120; f++) assert_int_equal(tress_client_step(w.client, DT), TRESS_OK); /* hang at rest */
  hair_bones h = find_hair_bones(&w);
  tress_xform root_rest[8];
  float tip_rest[64][3];
  for (uint32_t i = 0; i < h.root_count; i++) root_rest[i] = tress_bone_get_world(scene, h.roots[i]);
  for (uint32_t i = 0; i < h.tip_count; i++) memcpy(tip_rest[i], tress_bone_get_world(scene, h.tips[i]).p, sizeof tip_rest[i]);
  const tress_xform head_rest = w.sample.parts[HEAD].cframe;

  const int frames = 18; /* 0.3 s */
  tress_xform carry = tress_xform_identity();
  for (int f = 1; f <= frames; f++) {
    pose[3] = head_pose(&w.sample, 30.0f * (float)f / (float)frames, 1, 0, 0);
    assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
    tress_client_set_root(w.client, CHARACTER_ID, tress_xform_identity());
    assert_int_equal(tress_client_step(w.client, DT), TRESS_OK);
    /* what the nod does to everything rigidly attached to the head */
    carry = tress_xform_mul(pose[3], tress_xform_inverse(head_rest));
    for (uint32_t i = 0; i < h.root_count; i++) {
      tress_xform want = tress_xform_mul(carry, root_rest[i]);
      tress_xform got = tress_bone_get_world(scene, h.roots[i]);
      assert_true(distance(want.p, got.p) < 1e-4f);
      float dot = fabsf(want.q[0] * got.q[0] + want.q[1] * got.q[1] + want.q[2] * got.q[2] + want.q[3] * got.q[3]);
      assert_true(dot > 1.0f - 1e-5f);
    }
  }
  /* the tips swing behind: away from where the head would have carried them rigidly, and
   * opposite to that motion */
  float lag_sum = 0.0f, moved_sum = 0.0f, behind = 0.0f;
  for (uint32_t i = 0; i < h.tip_count; i++) {
    float rigid[3];
    tress_xform_point(carry, tip_rest[i], rigid);
    const float *tip = tress_bone_get_world(scene, h.tips[i]).p;
    float moved[3] = {rigid[0] - tip_rest[i][0], rigid[1] - tip_rest[i][1], rigid[2] - tip_rest[i][2]};
    float lag[3] = {tip[0] - rigid[0], tip[1] - rigid[1], tip[2] - rigid[2]};
    lag_sum += distance(tip, rigid);
    moved_sum += distance(rigid, tip_rest[i]);
    behind += lag[0] * moved[0] + lag[1] * moved[1] + lag[2] * moved[2];
  }
  print_message("nod 30 deg: %u root bones exact, %u tips moved %.3f and lag %.3f units on average\n", h.root_count,
                h.tip_count, (double)(moved_sum / (float)h.tip_count), (double)(lag_sum / (float)h.tip_count));
  /* a twentieth of the way: far above float noise; a rigidly carried tip shows 0 */
  assert_true(lag_sum > 0.05f * moved_sum);
  assert_true(behind < 0.0f);
  /* the drawn head is where the pose put it */
  tress_xform head;
  assert_int_equal(tress_client_get_part_frame(w.client, CHARACTER_ID, HEAD, &head), TRESS_OK);
  assert_true(distance(head.p, pose[3].p) < 1e-5f);
  tress_client_pose_map_destroy(map);
  world_stop(&w);
}

static void test_a_nod_carries_the_roots_and_the_tips_swing_behind(void **state) {
  (void)state;
  nod_and_check();
}

static void test_pose_map_names_and_late_bones(void **state) {
  (void)state;
  rig_world w;
  world_start(&w);
  const char *names[] = {"Head", "Hair/HairRoot", "HairRoot", "Hat/HairRoot", "Nope", "UpperTorso"};
  tress_client_pose_map_def def = tress_default_client_pose_map_def();
  def.character_id = CHARACTER_ID;
  def.names = names;
  def.count = 6;
  tress_client_pose_map *map = NULL;
  assert_int_equal(tress_client_pose_map_create(w.client, &def, &map, NULL), TRESS_OK);
  assert_int_equal(tress_client_pose_map_get_matched_count(map), 2); /* no bones before the rig */
  tress_xform pose[6];
  for (int i = 0; i < 6; i++) pose[i] = tress_xform_identity();
  tress_pose_array array = {pose[0].p, pose[0].q, sizeof pose[0], sizeof pose[0], 6};
  array.count = 5;
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_ERR_INVALID_ARGUMENT);
  array.count = 6;
  send_rig_and_bind(&w);
  /* the rig arrived: the next apply resolves the bones */
  pose[1] = tress_xform_from_pos(0.0f, 0.0f, 0.25f);
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
  assert_int_equal(tress_client_pose_map_get_matched_count(map), 4);
  tress_scene *scene = tress_client_get_scene(w.client);
  tress_id bones[256];
  assert_true(tress_client_get_bones(w.client, CHARACTER_ID, bones, 256) > 0);
  assert_string_equal(name_of(scene, bones[0]).s, "HairRoot");
  /* "HairRoot" (entry 2, identity) came after "Hair/HairRoot" (entry 1): the last write wins */
  assert_true(fabsf(tress_bone_get_animated(scene, bones[0]).p[2]) < 1e-6f);
  pose[2] = tress_xform_from_pos(0.0f, 0.0f, 0.25f);
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
  assert_true(fabsf(tress_bone_get_animated(scene, bones[0]).p[2] - 0.25f) < 1e-6f);
  /* a non-finite entry is skipped: the head keeps its last pose */
  pose[0] = tress_xform_from_pos(1.0f, 2.0f, 3.0f);
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
  pose[0].p[1] = NAN;
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
  tress_client_step(w.client, DT);
  tress_xform head;
  tress_client_get_part_frame(w.client, CHARACTER_ID, HEAD, &head);
  assert_true(distance(head.p, (float[3]){1.0f, 2.0f, 3.0f}) < 1e-5f);
  /* the character goes: the map answers UNKNOWN_CHARACTER and is destroyed after the client */
  pose[0].p[1] = 2.0f;
  tress_msg rm = {.type = TRESS_MSG_CHARACTER_REMOVED};
  rm.character_removed.character_id = CHARACTER_ID;
  assert_true(fake_server_send(&w.server, &rm));
  for (int i = 0; i < 100 && tress_client_get_character_count(w.client); i++) settle(&w, 10);
  assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_ERR_NOT_FOUND);
  world_stop(&w);
  tress_client_pose_map_destroy(map);
}

static void test_set_pose_by_id(void **state) {
  (void)state;
  rig_world w;
  world_start(&w);
  send_rig_and_bind(&w);
  tress_id parts[8], bones[256];
  assert_int_equal(tress_client_get_parts(w.client, CHARACTER_ID, parts, 8), 3);
  assert_true(tress_client_get_bones(w.client, CHARACTER_ID, bones, 256) > 0);
  tress_xform up = tress_xform_from_pos(0.0f, 5.0f, 0.0f);
  tress_client_set_root(w.client, CHARACTER_ID, tress_xform_from_pos(10.0f, 0.0f, 0.0f));
  assert_int_equal(tress_client_set_pose(w.client, CHARACTER_ID, parts[HEAD], up), TRESS_OK);
  tress_xform nudge = tress_xform_from_pos(0.0f, 0.1f, 0.0f);
  assert_int_equal(tress_client_set_pose(w.client, CHARACTER_ID, bones[0], nudge), TRESS_OK);
  tress_id handle;
  tress_client_get_accessory_frame(w.client, CHARACTER_ID, 0, &handle, NULL, NULL, NULL);
  assert_int_equal(tress_client_set_pose(w.client, CHARACTER_ID, handle, up), TRESS_ERR_INVALID_ARGUMENT);
  up.q[3] = NAN;
  assert_int_equal(tress_client_set_pose(w.client, CHARACTER_ID, parts[HEAD], up), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_client_set_pose(w.client, CHARACTER_ID + 1, parts[HEAD], nudge),
                   TRESS_ERR_NOT_FOUND);
  tress_client_step(w.client, DT);
  tress_xform head;
  tress_client_get_part_frame(w.client, CHARACTER_ID, HEAD, &head);
  /* model space: root (10, 0, 0) * pose (0, 5, 0) */
  assert_true(distance(head.p, (float[3]){10.0f, 5.0f, 0.0f}) < 1e-5f);
  tress_scene *scene = tress_client_get_scene(w.client);
  assert_true(fabsf(tress_bone_get_animated(scene, bones[0]).p[1] - 0.1f) < 1e-6f);
  world_stop(&w);
}

/* A game skeleton of 60 bones (a humanoid's, most of which tress does not know), 3 of them the
 * character's parts and the rest its hair bones or unknown: 200 frames of apply + step allocate
 * nothing once the first frames laid the batch out. */
static void test_bulk_input_of_60_bones_allocates_nothing(void **state) {
  (void)state;
  alloc_count_install();
  rig_world w;
  world_start(&w);
  send_rig_and_bind(&w);
  enum { N = 60 };
  char storage[N][80];
  const char *names[N];
  tress_id bones[256];
  tress_scene *scene = tress_client_get_scene(w.client);
  uint32_t nb = tress_client_get_bones(w.client, CHARACTER_ID, bones, 256);
  for (int i = 0; i < N; i++) {
    if (i < 3) snprintf(storage[i], sizeof storage[i], "%s", w.sample.parts[i].name);
    else if ((uint32_t)(i - 3) < nb && i < 40) snprintf(storage[i], sizeof storage[i], "Hair/%s", name_of(scene, bones[i - 3]).s);
    else snprintf(storage[i], sizeof storage[i], "mixamorig:Spine%d", i);
    names[i] = storage[i];
  }
  tress_client_pose_map_def def = tress_default_client_pose_map_def();
  def.character_id = CHARACTER_ID;
  def.names = names;
  def.count = N;
  tress_client_pose_map *map = NULL;
  assert_int_equal(tress_client_pose_map_create(w.client, &def, &map, NULL), TRESS_OK);
  uint32_t matched = tress_client_pose_map_get_matched_count(map);
  assert_true(matched >= 10); /* 3 parts + the hair's bones */
  static float positions[N][3], rotations[N][4];
  tress_pose_array array = {positions[0], rotations[0], 0, 0, N};
  double t = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) alloc_count_start();
    for (int f = 0; f < 100; f++) {
      t += DT;
      for (int i = 0; i < N; i++) {
        tress_xform x = i < 3 ? w.sample.parts[i].cframe : tress_xform_identity();
        if (i == HEAD) x = head_pose(&w.sample, 20.0f * (float)sin(6.0 * t), 1, 0, 0);
        memcpy(positions[i], x.p, sizeof positions[i]);
        memcpy(rotations[i], x.q, sizeof rotations[i]);
      }
      assert_int_equal(tress_client_pose_map_apply(map, &array), TRESS_OK);
      assert_int_equal(tress_client_step(w.client, DT), TRESS_OK);
    }
    if (pass == 1) {
      long calls = alloc_count_stop();
      print_message("allocations in 100 frames of a 60-bone pose map (%u matched): %ld\n", matched, calls);
      assert_int_equal(calls, 0);
    }
  }
  tress_client_pose_map_destroy(map);
  world_stop(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_nod_carries_the_roots_and_the_tips_swing_behind),
      cmocka_unit_test(test_pose_map_names_and_late_bones),
      cmocka_unit_test(test_set_pose_by_id),
      cmocka_unit_test(test_bulk_input_of_60_bones_allocates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
