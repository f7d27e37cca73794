/* test_spring_import.c - the spring importer on .vrm/.glb/.gltf files the test writes itself:
 * VRM 1.0 springs and colliders, VRM 0.x, extras overrides, names, bad input, scene apply, report. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "support/glb_build.h"
#include "tress/gltf.h"
#include "tress/mesh.h"
#include "tress/spring_import.h"
#include "support/spring_import_queries.h"
#include "tress/spring_report.h"
#include "support/scene_build.h"

/* ---- writing model files ---- */

static char g_dir[512];

static void make_dir(void) {
  const char *bin = getenv("TRESS_BINARY_DIR");
  snprintf(g_dir, sizeof g_dir, "%s/test_spring_import_XXXXXX", bin && *bin ? bin : "/tmp");
  assert_non_null(mkdtemp(g_dir));
}

static void path_in_dir(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", g_dir, name); }

static cJSON *doc_new(void) {
  cJSON *doc = cJSON_CreateObject();
  cJSON *asset = cJSON_AddObjectToObject(doc, "asset");
  cJSON_AddStringToObject(asset, "version", "2.0");
  cJSON_AddArrayToObject(doc, "nodes");
  return doc;
}

/* Adds a node hanging `drop` metres below its parent; returns its index. */
static int add_node(cJSON *doc, const char *name, float drop) {
  const float t[3] = {0.0f, -drop, 0.0f};
  return th_gltf_add_node(doc, name, drop != 0.0f ? t : NULL);
}

static cJSON *node_extras(cJSON *doc, int node, const char *key) {
  cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), node);
  cJSON *extras = cJSON_AddObjectToObject(n, "extras");
  cJSON *tress = cJSON_AddObjectToObject(extras, "tress");
  return cJSON_AddObjectToObject(tress, key);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static tress_spring_import *load(const char *path, float units_per_metre) {
  tress_spring_import_def def = tress_default_spring_import_def();
  if (units_per_metre > 0.0f) def.units_per_metre = units_per_metre;
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  int rc = tress_spring_import_load(path, &def, &imp, &err);
  if (rc != 0) fprintf(stderr, "import failed: %s\n", err.message);
  assert_int_equal(rc, 0);
  assert_non_null(imp);
  return imp;
}

/* ---- a VRM 1.0 model with good and bad springs ---- */

static cJSON *vrm_spring(cJSON *springs, const char *name, const int *joints, int n, double stiffness, double power,
                         double drag, double hit) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "name", name);
  cJSON *js = cJSON_AddArrayToObject(s, "joints");
  for (int i = 0; i < n; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "node", joints[i]);
    cJSON_AddNumberToObject(j, "stiffness", stiffness);
    cJSON_AddNumberToObject(j, "gravityPower", power);
    const double dir[3] = {0.0, -1.0, 0.0};
    cJSON_AddItemToObject(j, "gravityDir", cJSON_CreateDoubleArray(dir, 3));
    cJSON_AddNumberToObject(j, "dragForce", drag);
    cJSON_AddNumberToObject(j, "hitRadius", hit);
    cJSON_AddItemToArray(js, j);
  }
  cJSON_AddItemToArray(springs, s);
  return s;
}

static cJSON *vrm_collider(cJSON *cols, int node, bool capsule, const double off[3], const double tail[3],
                          double radius) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddNumberToObject(c, "node", node);
  cJSON *shape = cJSON_AddObjectToObject(c, "shape");
  cJSON *s = cJSON_AddObjectToObject(shape, capsule ? "capsule" : "sphere");
  cJSON_AddItemToObject(s, "offset", cJSON_CreateDoubleArray(off, 3));
  cJSON_AddNumberToObject(s, "radius", radius);
  if (capsule) cJSON_AddItemToObject(s, "tail", cJSON_CreateDoubleArray(tail, 3));
  cJSON_AddItemToArray(cols, c);
  return c;
}

static void group_of(cJSON *groups, const int *cols, int n) {
  cJSON *g = cJSON_CreateObject();
  cJSON *list = cJSON_AddArrayToObject(g, "colliders");
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(list, cJSON_CreateNumber(cols[i]));
  cJSON_AddItemToArray(groups, g);
}

/* Nodes: Root > Head > {HairA_0 > HairA_1 > HairA_2, Tail_0 > .. > Tail_3, Single > Single_1,
 * Side_0 > {Side_1, Side_extra}}. */
static cJSON *vrm_model(void) {
  cJSON *doc = doc_new();
  int root = add_node(doc, "Root", 0.0f), head = add_node(doc, "Head", -1.5f);
  th_gltf_add_child(doc, root, head);
  int prev = head;
  for (int i = 0; i < 3; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "HairA_%d", i);
    int n = add_node(doc, nm, 0.1f);
    th_gltf_add_child(doc, prev, n);
    prev = n;
  }
  prev = head;
  for (int i = 0; i < 4; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "Tail_%d", i);
    int n = add_node(doc, nm, 0.2f);
    th_gltf_add_child(doc, prev, n);
    prev = n;
  }
  int single = add_node(doc, "Single", 0.1f), single1 = add_node(doc, "Single_1", 0.1f);
  th_gltf_add_child(doc, head, single);
  th_gltf_add_child(doc, single, single1);
  int side0 = add_node(doc, "Side_0", 0.1f), side1 = add_node(doc, "Side_1", 0.1f), sidex = add_node(doc, "Side_extra", 0.1f);
  th_gltf_add_child(doc, head, side0);
  th_gltf_add_child(doc, side0, side1);
  th_gltf_add_child(doc, side0, sidex);
  /* indices: Root 0, Head 1, HairA 2-4, Tail 5-8, Single 9-10, Side 11-13 */
  cJSON *ext = cJSON_AddObjectToObject(doc, "extensions");
  cJSON *sb = cJSON_AddObjectToObject(ext, "VRMC_springBone");
  cJSON_AddStringToObject(sb, "specVersion", "1.0");
  cJSON *cols = cJSON_AddArrayToObject(sb, "colliders");
  const double z[3] = {0, 0, 0}, up5[3] = {0, 0.05, 0}, up20[3] = {0, 0.2, 0};
  vrm_collider(cols, 1, false, up5, NULL, 0.1);   /* 0: head sphere */
  vrm_collider(cols, 1, true, z, up20, 0.05);     /* 1: neck capsule */
  vrm_collider(cols, 0, false, z, NULL, -0.1);    /* 2: negative radius */
  vrm_collider(cols, 99, false, z, NULL, 0.1);    /* 3: node out of range */
  vrm_collider(cols, 0, true, up5, up5, 0.1);     /* 4: capsule with no length */
  cJSON *groups = cJSON_AddArrayToObject(sb, "colliderGroups");
  const int g0[2] = {0, 1}, g1[2] = {2, 7};
  group_of(groups, g0, 2);
  group_of(groups, g1, 2);
  cJSON *springs = cJSON_AddArrayToObject(sb, "springs");
  const int hair[3] = {2, 3, 4}, not_chain[2] = {5, 7}, single_j[1] = {9}, oob[2] = {9, 100}, tail[4] = {5, 6, 7, 8},
            side[2] = {11, 12}, neg[2] = {9, 10};
  cJSON *s = vrm_spring(springs, "hairA", hair, 3, 1.0, 0.1, 0.4, 0.02);
  cJSON *cg = cJSON_AddArrayToObject(s, "colliderGroups");
  cJSON_AddItemToArray(cg, cJSON_CreateNumber(0));
  vrm_spring(springs, "notchain", not_chain, 2, 1.0, 0.0, 0.5, 0.0);
  vrm_spring(springs, "single", single_j, 1, 1.0, 0.0, 0.5, 0.0);
  vrm_spring(springs, "oob", oob, 2, 1.0, 0.0, 0.5, 0.0);
  s = vrm_spring(springs, "tail", tail, 4, 0.5, 0.0, 0.2, 0.0);
  cg = cJSON_AddArrayToObject(s, "colliderGroups");
  cJSON_AddItemToArray(cg, cJSON_CreateNumber(1));
  vrm_spring(springs, "side", side, 2, 1.0, 0.0, 0.5, 0.0);
  vrm_spring(springs, "neg", neg, 2, 1.0, 0.0, 0.5, -0.01);
  return doc;
}

static void test_vrm1_springs_and_colliders(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "model.vrm");
  cJSON *doc = vrm_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  tress_spring_import *imp = load(path, 1.0f);
  assert_int_equal(imp->node_count, 14);
  assert_int_equal(imp->chain_count, 2);
  const tress_spring_chain *hair = import_chain_rooted(imp, "HairA_0");
  assert_non_null(hair);
  assert_int_equal(hair->joint_count, 3);
  assert_string_equal(imp->nodes[hair->joints[2]].name, "HairA_2");
  assert_int_equal(hair->source, TRESS_SPRING_FROM_VRM1);
  /* conversions: drag as is, stiffness 1 - exp(-k dt / L) with L = 0.1 m, gravity 60 p dir */
  assert_float_equal(hair->drag, 0.4f, 1e-6f);
  assert_float_equal(hair->damping, 0.6f, 1e-6f);
  assert_float_equal(hair->stiffness, 1.0f - expf(-1.0f / 60.0f / 0.1f), 1e-5f);
  assert_float_equal(hair->gravity[1], -6.0f, 1e-4f);
  assert_float_equal(hair->radius, 0.02f, 1e-6f);
  assert_float_equal(hair->end_length, 0.0f, 0.0f);
  assert_int_equal(hair->colliders.count, 2);
  const tress_spring_chain *tail = import_chain_rooted(imp, "Tail_0");
  assert_non_null(tail);
  assert_int_equal(tail->joint_count, 4);
  assert_int_equal(tail->colliders.count, 0); /* its group held only bad colliders */
  /* colliders: shapes and radii as written, the bad ones skipped */
  assert_int_equal(imp->collider_count, 2);
  assert_int_equal(imp->colliders[0].shape, TRESS_COLLIDER_SPHERE);
  assert_float_equal(imp->colliders[0].radius, 0.1f, 1e-6f);
  assert_float_equal(imp->colliders[0].offset[1], 0.05f, 1e-6f);
  assert_string_equal(imp->nodes[imp->colliders[0].node].name, "Head");
  assert_int_equal(imp->colliders[1].shape, TRESS_COLLIDER_CAPSULE);
  assert_float_equal(imp->colliders[1].radius, 0.05f, 1e-6f);
  assert_float_equal(imp->colliders[1].height, 0.2f, 1e-6f);
  assert_float_equal(imp->colliders[1].tail[1], 0.2f, 1e-6f);
  /* every bad spring and collider is a warning */
  assert_true(import_has_warning(imp, "\"notchain\"", "parent-child"));
  assert_true(import_has_warning(imp, "\"single\"", "at least two"));
  assert_true(import_has_warning(imp, "\"oob\"", "out of range"));
  assert_true(import_has_warning(imp, "\"side\"", "Side_extra"));
  assert_true(import_has_warning(imp, "\"neg\"", "negative hitRadius"));
  assert_true(import_has_warning(imp, "collider 2", "negative radius"));
  assert_true(import_has_warning(imp, "collider 3", "out of range"));
  assert_true(import_has_warning(imp, "collider 4", "no length"));
  assert_true(import_has_warning(imp, "collider group 1", "out of range"));
  tress_spring_import_free(imp);

  /* the default scale turns metres into studs */
  imp = load(path, 0.0f);
  hair = import_chain_rooted(imp, "HairA_0");
  assert_float_equal(hair->radius, 0.02f / 0.28f, 1e-5f);
  assert_float_equal(imp->colliders[0].radius, 0.1f / 0.28f, 1e-5f);
  assert_float_equal(hair->gravity[1], -6.0f / 0.28f, 1e-3f);
  /* and the mean link length for the stiffness mapping is still in metres */
  assert_float_equal(hair->stiffness, 1.0f - expf(-1.0f / 60.0f / 0.1f), 1e-5f);
  tress_spring_import_free(imp);
}

/* ---- names only ---- */

static cJSON *names_model(void) {
  cJSON *doc = doc_new();
  int head = add_node(doc, "Head", 0.0f);
  const char *leaves[] = {"SBC_Sphere_Head_r9", "SBC_Capsule_Neck_r4_h10", "SBC_Capsule_Bad_r3_h0",
                          "SBC_Sphere_Broken_rX", "Hair_Crown_B_00"};
  for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) th_gltf_add_child(doc, head, add_node(doc, leaves[i], 0.0f));
  const char *strands[][3] = {{"Hair_Fringe_A_00", "Hair_Fringe_A_01", "Hair_Fringe_A_02"},
                              {"Hair_Ponytail_Main_00", "Hair_Ponytail_Main_01", NULL},
                              {"Hair_Temple_L_C_00", "Hair_Temple_L_C_01", NULL},
                              {"Hair_Mohawk_D_00", "Hair_Mohawk_D_01", NULL}};
  for (size_t s = 0; s < 4; s++) {
    int prev = head;
    for (int k = 0; k < 3 && strands[s][k]; k++) {
      int n = add_node(doc, strands[s][k], 0.05f);
      th_gltf_add_child(doc, prev, n);
      prev = n;
    }
  }
  return doc;
}

static void test_names_only_model(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "names.glb");
  cJSON *doc = names_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  tress_spring_import *imp = load(path, 1.0f);
  assert_int_equal(imp->chain_count, 4);
  const tress_spring_chain *fringe = import_chain_rooted(imp, "Hair_Fringe_A_00");
  const tress_spring_chain *pony = import_chain_rooted(imp, "Hair_Ponytail_Main_00");
  const tress_spring_chain *temple = import_chain_rooted(imp, "Hair_Temple_L_C_00");
  const tress_spring_chain *mohawk = import_chain_rooted(imp, "Hair_Mohawk_D_00");
  assert_non_null(fringe);
  assert_non_null(pony);
  assert_non_null(temple);
  assert_non_null(mohawk);
  assert_int_equal(fringe->joint_count, 3);
  assert_int_equal(pony->joint_count, 2);
  assert_string_equal(fringe->region, "Fringe");
  assert_string_equal(temple->region, "Temple_L");
  /* a fringe is held close, a ponytail swings */
  assert_true(fringe->stiffness > pony->stiffness);
  assert_true(fringe->drag > pony->drag);
  float s, d;
  assert_true(tress_spring_region_get_preset("Temple_L", &s, &d));
  assert_float_equal(temple->stiffness, s, 0.0f);
  assert_false(tress_spring_region_get_preset("Mohawk", &s, &d));
  assert_float_equal(mohawk->stiffness, 0.1f, 0.0f);
  assert_true(import_has_warning(imp, "Mohawk", "no preset"));
  /* Earth's gravity in the model's metres */
  assert_float_equal(fringe->gravity[1], -9.81f, 1e-5f);
  /* as the sim's settings: damping = 1 - drag, gravity as a scale of the sim's */
  const float sim_g[3] = {0.0f, -30.0f, 0.0f};
  tress_chain_settings cs = tress_spring_chain_get_settings(fringe, sim_g);
  assert_float_equal(cs.damping, 1.0f - fringe->drag, 1e-6f);
  assert_float_equal(cs.stiffness, fringe->stiffness, 0.0f);
  assert_float_equal(cs.gravity_scale, 9.81f / 30.0f, 1e-5f);
  /* colliders from names: radius and height in centimetres, the capsule along +Y */
  assert_int_equal(imp->collider_count, 2);
  assert_int_equal(imp->colliders[0].shape, TRESS_COLLIDER_SPHERE);
  assert_float_equal(imp->colliders[0].radius, 0.09f, 1e-6f);
  assert_int_equal(imp->colliders[1].shape, TRESS_COLLIDER_CAPSULE);
  assert_float_equal(imp->colliders[1].radius, 0.04f, 1e-6f);
  assert_float_equal(imp->colliders[1].height, 0.10f, 1e-6f);
  assert_float_equal(imp->colliders[1].offset[1], -0.05f, 1e-6f);
  assert_float_equal(imp->colliders[1].tail[1], 0.05f, 1e-6f);
  assert_float_equal(imp->colliders[1].tail[0], 0.0f, 0.0f);
  /* every name-made chain is kept out of every collider */
  for (uint32_t i = 0; i < imp->chain_count; i++) assert_int_equal(imp->chains[i].colliders.count, 2);
  assert_true(import_has_warning(imp, "SBC_Capsule_Bad_r3_h0", "no length"));
  assert_true(import_has_warning(imp, "SBC_Sphere_Broken_rX", "_r<cm>"));
  assert_true(import_has_warning(imp, "Hair_Crown_B_00", "no child bones"));
  tress_spring_import_free(imp);
}

/* ---- extras win over VRM; names fill the rest ---- */

static void test_extras_override(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "extras.gltf");
  cJSON *doc = vrm_model();
  /* on the VRM chain's root: override its fields */
  cJSON *sb = node_extras(doc, 2, "springBone");
  cJSON_AddNumberToObject(sb, "stiffness", 0.7);
  cJSON_AddNumberToObject(sb, "drag", 0.1);
  const double g[3] = {0.0, -20.0, 0.0};
  cJSON_AddItemToObject(sb, "gravity", cJSON_CreateDoubleArray(g, 3));
  cJSON_AddNumberToObject(sb, "radius", 0.03);
  cJSON_AddNumberToObject(sb, "endLength", 0.05);
  /* on a node no spring names: a chain of it and what is below it */
  sb = node_extras(doc, 9, "springBone");
  cJSON_AddNumberToObject(sb, "stiffness", 0.25);
  /* on the head: replaces its VRM colliders, which the hair's group still lists */
  cJSON *col = node_extras(doc, 1, "springCollider");
  cJSON_AddStringToObject(col, "shape", "capsule");
  cJSON_AddNumberToObject(col, "radius", 0.2);
  cJSON_AddNumberToObject(col, "height", 0.3);
  /* a new collider on a node with none */
  col = node_extras(doc, 0, "springCollider");
  cJSON_AddNumberToObject(col, "radius", 0.5);
  /* a name convention on a node extras already made a chain of is not applied */
  cJSON_SetValuestring(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), 9), "name"),
                       "Hair_Fringe_S_00");
  char *text = cJSON_Print(doc);
  write_text(path, text);
  cJSON_free(text);
  cJSON_Delete(doc);

  tress_spring_import *imp = load(path, 1.0f);
  const tress_spring_chain *hair = import_chain_rooted(imp, "HairA_0");
  assert_non_null(hair);
  assert_int_equal(hair->joint_count, 3);
  assert_float_equal(hair->stiffness, 0.7f, 1e-6f);
  assert_float_equal(hair->drag, 0.1f, 1e-6f);
  assert_float_equal(hair->damping, 0.9f, 1e-6f);
  assert_float_equal(hair->gravity[1], -20.0f, 1e-5f);
  assert_float_equal(hair->radius, 0.03f, 1e-6f);
  assert_float_equal(hair->end_length, 0.05f, 1e-6f);
  assert_int_equal(hair->colliders.count, 2);
  for (uint32_t k = 0; k < hair->colliders.count; k++) {
    const tress_spring_collider *c = &imp->colliders[hair->colliders.index[k]];
    assert_int_equal(c->shape, TRESS_COLLIDER_CAPSULE);
    assert_float_equal(c->radius, 0.2f, 1e-6f);
    assert_float_equal(c->height, 0.3f, 1e-6f);
    assert_int_equal(c->source, TRESS_SPRING_FROM_EXTRAS);
  }
  const tress_spring_chain *single = import_chain_rooted(imp, "Hair_Fringe_S_00");
  assert_non_null(single);
  assert_int_equal(single->source, TRESS_SPRING_FROM_EXTRAS);
  assert_float_equal(single->stiffness, 0.25f, 1e-6f); /* not the Fringe preset */
  assert_int_equal(single->joint_count, 2);
  assert_int_equal(single->colliders.count, imp->collider_count); /* every collider */
  assert_int_equal(imp->collider_count, 3);
  assert_float_equal(imp->colliders[2].radius, 0.5f, 1e-6f);
  assert_string_equal(imp->nodes[imp->colliders[2].node].name, "Root");
  tress_spring_import_free(imp);
}

/* ---- bad input ---- */

static void test_bad_node_tree_keeps_good_parts(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "cycles.vrm");
  cJSON *doc = doc_new();
  int a = add_node(doc, "A", 0.0f), b = add_node(doc, "B", 0.1f), c = add_node(doc, "C", 0.1f);
  th_gltf_add_child(doc, a, b);
  th_gltf_add_child(doc, b, c);
  th_gltf_add_child(doc, c, b); /* B listed by A and C: a cycle B > C > B */
  int d = add_node(doc, "D", 0.1f), e = add_node(doc, "E", 0.1f);
  th_gltf_add_child(doc, d, e);
  th_gltf_add_child(doc, e, d); /* D > E > D, reachable from no root */
  int h0 = add_node(doc, "Hair_Fringe_A_00", 0.0f), h1 = add_node(doc, "Hair_Fringe_A_01", 0.1f);
  th_gltf_add_child(doc, a, h0);
  th_gltf_add_child(doc, h0, h1);
  th_gltf_add_child(doc, h1, 99); /* out of range */
  int s = add_node(doc, "SBC_Sphere_Loop_r5", 0.0f);
  th_gltf_add_child(doc, e, s); /* below the D-E cycle */
  int ok_col = add_node(doc, "SBC_Sphere_Ok_r5", 0.0f);
  th_gltf_add_child(doc, a, ok_col);
  int hb = add_node(doc, "Hair_Crown_Z_00", 0.0f);
  th_gltf_add_child(doc, c, hb); /* in the bad part */
  th_gltf_add_child(doc, hb, add_node(doc, "Hair_Crown_Z_01", 0.1f));
  cJSON *ext = cJSON_AddObjectToObject(doc, "extensions");
  cJSON *sb = cJSON_AddObjectToObject(ext, "VRMC_springBone");
  cJSON *cols = cJSON_AddArrayToObject(sb, "colliders");
  const double z[3] = {0, 0, 0};
  vrm_collider(cols, d, false, z, NULL, 0.1);
  cJSON *springs = cJSON_AddArrayToObject(sb, "springs");
  const int de[2] = {d, e}, bc[2] = {b, c};
  vrm_spring(springs, "loop", de, 2, 1.0, 0.0, 0.5, 0.0);
  vrm_spring(springs, "bc", bc, 2, 1.0, 0.0, 0.5, 0.0);
  th_write_glb(path, doc);
  cJSON_Delete(doc);

  tress_spring_import *imp = load(path, 1.0f);
  assert_true(imp->nodes[b].bad);
  assert_true(imp->nodes[c].bad);
  assert_true(imp->nodes[d].bad);
  assert_true(imp->nodes[e].bad);
  assert_true(imp->nodes[s].bad);
  assert_false(imp->nodes[a].bad);
  assert_false(imp->nodes[h0].bad);
  assert_true(import_has_warning(imp, "\"B\"", "two"));
  assert_true(import_has_warning(imp, "cycle", NULL));
  assert_true(import_has_warning(imp, "\"Hair_Fringe_A_01\"", "out of range"));
  assert_true(import_has_warning(imp, "\"loop\"", "bad part"));
  assert_true(import_has_warning(imp, "\"bc\"", "bad part"));
  assert_true(import_has_warning(imp, "collider 0", "bad part"));
  /* the good parts are still imported */
  assert_int_equal(imp->chain_count, 1);
  assert_non_null(import_chain_rooted(imp, "Hair_Fringe_A_00"));
  assert_int_equal(imp->collider_count, 1);
  assert_string_equal(imp->nodes[imp->colliders[0].node].name, "SBC_Sphere_Ok_r5");
  tress_spring_import_free(imp);
}

static void test_not_gltf_or_lying_container(void **state) {
  (void)state;
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  const char *junk = "this is not json";
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_read_memory((const uint8_t *)junk, strlen(junk), NULL, &imp, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  assert_null(imp);
  assert_non_null(strstr(err.message, "not glTF"));
  /* a GLB whose header claims more bytes than there are */
  uint8_t glb[40] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 200, 0, 0, 0, 8, 0, 0, 0, 'J', 'S', 'O', 'N', '{', '}', ' ', ' '};
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_read_memory(glb, 24, NULL, &imp, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  assert_non_null(strstr(err.message, "header says"));
  /* a JSON chunk longer than the file */
  glb[8] = 24;
  glb[12] = 100;
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_read_memory(glb, 24, NULL, &imp, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  assert_non_null(strstr(err.message, "overruns"));
  /* version 1 */
  glb[4] = 1;
  glb[12] = 4;
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_read_memory(glb, 24, NULL, &imp, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  assert_non_null(strstr(err.message, "version"));
  /* a minimal valid one: no nodes, nothing imported, no error */
  glb[4] = 2;
  assert_int_equal(tress_spring_import_read_memory(glb, 24, NULL, &imp, &err), 0);
  assert_int_equal(imp->chain_count, 0);
  tress_spring_import_free(imp);
  /* a missing file */
  char path[600];
  path_in_dir(path, sizeof path, "missing.vrm");
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_load(path, NULL, &imp, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  assert_null(imp);
}

/* ---- VRM 0.x ---- */

static void test_vrm0_secondary_animation(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "old.vrm");
  cJSON *doc = doc_new();
  int head = add_node(doc, "Head", 0.0f), h0 = add_node(doc, "hair0", 0.1f), h1 = add_node(doc, "hair1", 0.1f),
      h2 = add_node(doc, "hair2", 0.1f);
  th_gltf_add_child(doc, head, h0);
  th_gltf_add_child(doc, h0, h1);
  th_gltf_add_child(doc, h1, h2);
  cJSON *ext = cJSON_AddObjectToObject(doc, "extensions");
  cJSON *vrm = cJSON_AddObjectToObject(ext, "VRM");
  cJSON *sec = cJSON_AddObjectToObject(vrm, "secondaryAnimation");
  cJSON *cgs = cJSON_AddArrayToObject(sec, "colliderGroups");
  cJSON *cg = cJSON_CreateObject();
  cJSON_AddNumberToObject(cg, "node", head);
  cJSON *cl = cJSON_AddArrayToObject(cg, "colliders");
  cJSON *c = cJSON_CreateObject();
  cJSON *off = cJSON_AddObjectToObject(c, "offset");
  cJSON_AddNumberToObject(off, "x", 0.02);
  cJSON_AddNumberToObject(off, "y", 0.1);
  cJSON_AddNumberToObject(off, "z", 0.0);
  cJSON_AddNumberToObject(c, "radius", 0.12);
  cJSON_AddItemToArray(cl, c);
  cJSON *bad = cJSON_CreateObject();
  cJSON_AddNumberToObject(bad, "radius", -1.0);
  cJSON_AddItemToArray(cl, bad);
  cJSON_AddItemToArray(cgs, cg);
  cJSON *bgs = cJSON_AddArrayToObject(sec, "boneGroups");
  cJSON *bg = cJSON_CreateObject();
  cJSON_AddNumberToObject(bg, "stiffiness", 2.0);
  cJSON_AddNumberToObject(bg, "gravityPower", 0.05);
  cJSON_AddNumberToObject(bg, "dragForce", 0.3);
  cJSON_AddNumberToObject(bg, "hitRadius", 0.01);
  cJSON *bones = cJSON_AddArrayToObject(bg, "bones");
  cJSON_AddItemToArray(bones, cJSON_CreateNumber(h0));
  cJSON_AddItemToArray(bones, cJSON_CreateNumber(42));
  cJSON *groups = cJSON_AddArrayToObject(bg, "colliderGroups");
  cJSON_AddItemToArray(groups, cJSON_CreateNumber(0));
  cJSON_AddItemToArray(bgs, bg);
  th_write_glb(path, doc);
  cJSON_Delete(doc);

  tress_spring_import *imp = load(path, 1.0f);
  assert_int_equal(imp->chain_count, 1);
  const tress_spring_chain *ch = import_chain_rooted(imp, "hair0");
  assert_non_null(ch);
  assert_int_equal(ch->source, TRESS_SPRING_FROM_VRM0);
  assert_int_equal(ch->joint_count, 3);
  assert_float_equal(ch->drag, 0.3f, 1e-6f);
  assert_float_equal(ch->stiffness, 1.0f - expf(-2.0f / 60.0f / 0.1f), 1e-5f);
  assert_float_equal(ch->gravity[1], -3.0f, 1e-4f);
  assert_float_equal(ch->end_length, 0.07f, 1e-6f);
  assert_int_equal(imp->collider_count, 1);
  assert_float_equal(imp->colliders[0].offset[0], 0.02f, 1e-6f); /* three-vrm: (x, y, -z) */
  assert_float_equal(imp->colliders[0].radius, 0.12f, 1e-6f);
  assert_int_equal(ch->colliders.count, 1);
  assert_true(import_has_warning(imp, "negative radius", NULL));
  assert_true(import_has_warning(imp, "bone index out of range", NULL));
  tress_spring_import_free(imp);
}

/* ---- applying to a scene ---- */

typedef struct counter {
  uint32_t bones;
} counter;

static bool count_bones(tress_scene *scene, tress_id id, void *user) {
  if (tress_instance_get_kind(scene, id) == TRESS_KIND_BONE) ((counter *)user)->bones++;
  return true;
}

static void test_apply_builds_bones_and_colliders(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "apply.glb");
  cJSON *doc = names_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  tress_spring_import *imp = load(path, 1.0f);
  tress_scene *scene = th_scene();
  tress_id part = th_instance(scene, TRESS_KIND_PART, "HairPart", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, part, tress_xform_from_pos(0.0f, 10.0f, 0.0f));
  tress_spring_scene ss;
  tress_error err = {0};
  assert_int_equal(tress_spring_import_apply(imp, scene, part, &ss, &err), 0);
  const tress_spring_chain *fringe = import_chain_rooted(imp, "Hair_Fringe_A_00");
  tress_id b0 = ss.node_bones[fringe->joints[0]], b1 = ss.node_bones[fringe->joints[1]];
  assert_false(tress_id_is_null(b0));
  char b1_name[TRESS_NAME_MAX];
  tress_instance_get_name(scene, b1, b1_name);
  assert_string_equal(b1_name, "Hair_Fringe_A_01");
  assert_true(tress_id_is_equal(tress_instance_get_parent(scene, b1), b0));
  tress_id head = ss.node_bones[tress_spring_import_find_node(imp, "Head")];
  assert_true(tress_id_is_equal(tress_instance_get_parent(scene, head), part));
  /* rest transforms from the file: 5 cm below the parent */
  tress_xform w = tress_bone_get_world_rest(scene, b1);
  assert_float_equal(w.p[1], 10.0f - 0.1f, 1e-5f);
  /* colliders follow their node's bone */
  assert_int_equal(ss.collider_count, 2);
  tress_id sphere_bone = ss.node_bones[tress_spring_import_find_node(imp, "SBC_Sphere_Head_r9")];
  assert_true(tress_id_is_equal(ss.colliders[0].attach, sphere_bone));
  tress_collider_world cw = tress_collider_resolve(scene, &ss.colliders[0]);
  assert_float_equal(cw.ay, 10.0f, 1e-5f);
  assert_float_equal(cw.radius, 0.09f, 1e-6f);
  /* nodes nothing needs (a skipped capsule) get no bone */
  assert_true(tress_id_is_null(ss.node_bones[tress_spring_import_find_node(imp, "SBC_Capsule_Bad_r3_h0")]));
  counter before = {0};
  tress_instance_visit_descendants(scene, part, count_bones, &before);
  tress_spring_scene_free(&ss);
  /* applying again maps onto the bones by name instead of building new ones */
  assert_int_equal(tress_spring_import_apply(imp, scene, part, &ss, &err), 0);
  counter after = {0};
  tress_instance_visit_descendants(scene, part, count_bones, &after);
  assert_int_equal(before.bones, after.bones);
  assert_true(tress_id_is_equal(ss.node_bones[fringe->joints[1]], b1));
  tress_spring_scene_free(&ss);
  /* a bone is not a part */
  { /* fails with a code, and err carries the same one */
    int rc = tress_spring_import_apply(imp, scene, b0, &ss, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(rc, err.code);
  }
  tress_scene_destroy(scene);
  tress_spring_import_free(imp);
}

/* ---- the --springs report ---- */

static void test_report_json_and_text(void **state) {
  (void)state;
  char path[600];
  path_in_dir(path, sizeof path, "report.vrm");
  cJSON *doc = vrm_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  tress_spring_import *imp = load(path, 1.0f);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(tress_spring_report_write(imp, path, true, f), 0);
  long size = ftell(f);
  rewind(f);
  char *text = calloc((size_t)size + 1, 1);
  assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  cJSON *r = cJSON_Parse(text);
  free(text);
  assert_non_null(r);
  cJSON *chains = cJSON_GetObjectItem(r, "chains");
  assert_int_equal(cJSON_GetArraySize(chains), 2);
  cJSON *c0 = cJSON_GetArrayItem(chains, 0);
  assert_string_equal(cJSON_GetObjectItem(c0, "root")->valuestring, "HairA_0");
  assert_int_equal(cJSON_GetObjectItem(c0, "joint_count")->valueint, 3);
  assert_float_equal(cJSON_GetObjectItem(c0, "drag")->valuedouble, 0.4, 1e-6);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "colliders")), 2);
  cJSON *cols = cJSON_GetObjectItem(r, "colliders");
  assert_int_equal(cJSON_GetArraySize(cols), 2);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 1), "shape")->valuestring, "capsule");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 1), "node")->valuestring, "Head");
  assert_float_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 1), "height")->valuedouble, 0.2, 1e-6);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "warnings")), (int)imp->warning_count);
  cJSON_Delete(r);

  f = tmpfile();
  assert_int_equal(tress_spring_report_write(imp, "report.vrm", false, f), 0);
  size = ftell(f);
  rewind(f);
  text = calloc((size_t)size + 1, 1);
  assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  assert_non_null(strstr(text, "chain 0  root HairA_0  joints 3"));
  assert_non_null(strstr(text, "collider 1  capsule  node Head"));
  assert_non_null(strstr(text, "warning: VRMC_springBone spring 2 \"single\""));
  free(text);
  tress_spring_import_free(imp);

  /* the command: usage errors, unreadable files */
  char *no_path[] = {"tress-rig", "--springs"};
  assert_int_equal(tress_spring_report_main(2, no_path), 2);
  char missing[600];
  path_in_dir(missing, sizeof missing, "nope.vrm");
  char *bad[] = {"tress-rig", "--springs", missing};
  assert_int_equal(tress_spring_report_main(3, bad), 1);
}

/* A skinned hair mesh written by our glTF writer (the rigger's output format), then the same
 * file with a VRMC_springBone extension added to its JSON chunk (BIN chunk kept as written):
 * names from the writer's bone nodes, and VRM springs on them. */
static void test_our_glb_writer_output(void **state) {
  (void)state;
  const char *names[] = {"HairRoot", "Hair_Fringe_A_00", "Hair_Fringe_A_01", "Hair_Fringe_A_02", "SBC_Sphere_Head_r9"};
  const int32_t parents[] = {-1, 0, 1, 2, 0};
  const float binds[][3] = {{0, 1.6f, 0}, {0, 1.6f, 0.1f}, {0, 1.5f, 0.1f}, {0, 1.4f, 0.1f}, {0, 1.5f, 0}};
  tress_mesh *mesh = tress_mesh_create(&(tress_mesh_def){.vertex_count = 3, .index_count = 3});
  assert_non_null(mesh);
  const float pos[9] = {0, 1.6f, 0.1f, 0.05f, 1.4f, 0.1f, -0.05f, 1.4f, 0.1f};
  memcpy(mesh->positions, pos, sizeof pos);
  for (uint32_t i = 0; i < 3; i++) mesh->indices[i] = i;
  assert_true(tress_mesh_add_skin(mesh, 5));
  for (uint32_t b = 0; b < 5; b++) {
    snprintf(mesh->bones[b].name, sizeof mesh->bones[b].name, "%s", names[b]);
    mesh->bones[b].parent = parents[b];
    memcpy(mesh->bones[b].bind_pos, binds[b], sizeof binds[b]);
  }
  for (uint32_t v = 0; v < 3; v++) {
    mesh->joints[4 * v] = (uint16_t)(v + 1);
    mesh->weights[4 * v] = 1.0f;
  }
  uint8_t *glb = NULL;
  size_t glb_size = 0;
  tress_error gerr = {0};
  assert_int_equal(tress_gltf_write_glb_memory(mesh, &glb, &glb_size, &gerr), 0);
  tress_mesh_release(mesh);

  /* names only, straight from the writer */
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  tress_spring_import_def def = tress_default_spring_import_def();
  def.units_per_metre = 1.0f;
  assert_int_equal(tress_spring_import_read_memory(glb, glb_size, &def, &imp, &err), 0);
  const tress_spring_chain *fringe = import_chain_rooted(imp, "Hair_Fringe_A_00");
  assert_non_null(fringe);
  assert_int_equal(fringe->joint_count, 3);
  assert_int_equal(imp->collider_count, 1);
  assert_float_equal(imp->colliders[0].radius, 0.09f, 1e-6f);
  tress_spring_import_free(imp);

  /* add VRMC_springBone to the JSON chunk and re-pack with the writer's BIN chunk */
  uint32_t jlen;
  memcpy(&jlen, glb + 12, 4);
  assert_true(20u + jlen <= glb_size);
  cJSON *doc = cJSON_ParseWithLength((const char *)glb + 20, jlen);
  assert_non_null(doc);
  int root = -1, h1 = -1, h2 = -1, head = -1, i = 0;
  cJSON *n;
  cJSON_ArrayForEach(n, cJSON_GetObjectItem(doc, "nodes")) {
    const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(n, "name"));
    if (nm && strcmp(nm, "Hair_Fringe_A_00") == 0) root = i;
    if (nm && strcmp(nm, "Hair_Fringe_A_01") == 0) h1 = i;
    if (nm && strcmp(nm, "Hair_Fringe_A_02") == 0) h2 = i;
    if (nm && strcmp(nm, "SBC_Sphere_Head_r9") == 0) head = i;
    i++;
  }
  assert_true(root >= 0 && h1 >= 0 && h2 >= 0 && head >= 0);
  cJSON *used = cJSON_GetObjectItem(doc, "extensionsUsed");
  if (!used) used = cJSON_AddArrayToObject(doc, "extensionsUsed");
  cJSON_AddItemToArray(used, cJSON_CreateString("VRMC_springBone"));
  cJSON *ext = cJSON_GetObjectItem(doc, "extensions");
  if (!ext) ext = cJSON_AddObjectToObject(doc, "extensions");
  cJSON *sb = cJSON_AddObjectToObject(ext, "VRMC_springBone");
  cJSON_AddStringToObject(sb, "specVersion", "1.0");
  const double z[3] = {0, 0, 0};
  vrm_collider(cJSON_AddArrayToObject(sb, "colliders"), head, false, z, NULL, 0.12);
  const int g0[1] = {0};
  group_of(cJSON_AddArrayToObject(sb, "colliderGroups"), g0, 1);
  const int joints[3] = {root, h1, h2};
  cJSON *spring = vrm_spring(cJSON_AddArrayToObject(sb, "springs"), "fringe", joints, 3, 2.0, 0.0, 0.6, 0.01);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(spring, "colliderGroups"), cJSON_CreateNumber(0));
  char *json = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  uint32_t nj = (uint32_t)strlen(json), njpad = (nj + 3u) & ~3u;
  size_t bin_size = glb_size - 20 - jlen;
  size_t total = 20 + njpad + bin_size;
  uint8_t *out = malloc(total);
  assert_non_null(out);
  memcpy(out, glb, 12);
  uint32_t t32 = (uint32_t)total;
  memcpy(out + 8, &t32, 4);
  memcpy(out + 12, &njpad, 4);
  memcpy(out + 16, "JSON", 4);
  memcpy(out + 20, json, nj);
  memset(out + 20 + nj, ' ', njpad - nj);
  memcpy(out + 20 + njpad, glb + 20 + jlen, bin_size);
  cJSON_free(json);
  free(glb);
  char path[600];
  path_in_dir(path, sizeof path, "rigged.vrm");
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(out, 1, total, f), total);
  fclose(f);
  free(out);

  imp = load(path, 1.0f);
  fringe = import_chain_rooted(imp, "Hair_Fringe_A_00");
  assert_non_null(fringe);
  assert_int_equal(fringe->source, TRESS_SPRING_FROM_VRM1); /* VRM first, the name fills nothing */
  assert_int_equal(fringe->joint_count, 3);
  assert_float_equal(fringe->drag, 0.6f, 1e-6f);
  assert_int_equal(fringe->colliders.count, 1);
  /* the VRM collider on the SBC_ node wins over its name */
  assert_int_equal(imp->collider_count, 1);
  assert_float_equal(imp->colliders[0].radius, 0.12f, 1e-6f);
  assert_int_equal(imp->colliders[0].source, TRESS_SPRING_FROM_VRM1);
  tress_spring_import_free(imp);
}

/* Every number of the VRM model mutated at random (indices out of range, negative radii,
 * children that make cycles, huge values): the import never fails on valid JSON and what it
 * returns always holds together. */
static uint32_t lcg(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return *seed >> 8;
}

static void mutate_numbers(cJSON *item, uint32_t *seed) {
  static const double values[] = {-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 13.0, 99999.0, -0.5, 1e30, 0.25, 4294967296.0};
  for (cJSON *c = item ? item->child : NULL; c; c = c->next) {
    if (cJSON_IsNumber(c) && lcg(seed) % 6 == 0) cJSON_SetNumberValue(c, values[lcg(seed) % 12]);
    mutate_numbers(c, seed);
  }
}

static void test_mutated_models_hold_together(void **state) {
  (void)state;
  uint32_t seed = 2026u;
  for (int round = 0; round < 300; round++) {
    cJSON *doc = vrm_model();
    mutate_numbers(doc, &seed);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    tress_spring_import *imp = NULL;
    tress_error err = {0};
    tress_spring_import_def def = tress_default_spring_import_def();
    assert_int_equal(tress_spring_import_read_memory((const uint8_t *)text, strlen(text), &def, &imp, &err), 0);
    cJSON_free(text);
    for (uint32_t i = 0; i < imp->chain_count; i++) {
      const tress_spring_chain *ch = &imp->chains[i];
      assert_true(ch->joint_count >= 2);
      assert_int_equal(ch->joints[0], ch->root);
      for (uint32_t k = 0; k < ch->joint_count; k++) {
        assert_true(ch->joints[k] >= 0 && (uint32_t)ch->joints[k] < imp->node_count);
        assert_false(imp->nodes[ch->joints[k]].bad);
        if (k) assert_true(imp->nodes[ch->joints[k]].parent >= 0);
      }
      assert_true(ch->stiffness >= 0.0f && ch->stiffness <= 1.0f);
      assert_true(ch->drag >= 0.0f && ch->drag <= 1.0f);
      assert_true(ch->radius >= 0.0f);
      for (uint32_t k = 0; k < ch->colliders.count; k++) assert_true(ch->colliders.index[k] < imp->collider_count);
    }
    for (uint32_t i = 0; i < imp->collider_count; i++) {
      const tress_spring_collider *c = &imp->colliders[i];
      assert_true(c->node >= 0 && (uint32_t)c->node < imp->node_count);
      assert_false(imp->nodes[c->node].bad);
      assert_true(c->radius >= 0.0f);
      if (c->shape == TRESS_COLLIDER_CAPSULE) assert_true(c->height > 0.0f);
    }
    /* and it applies to a scene without tripping over anything */
    tress_scene *scene = th_scene();
    tress_id part = th_instance(scene, TRESS_KIND_PART, "P", tress_scene_get_root(scene));
    tress_spring_scene ss;
    assert_int_equal(tress_spring_import_apply(imp, scene, part, &ss, &err), 0);
    for (uint32_t i = 0; i < imp->chain_count; i++)
      for (uint32_t k = 0; k < imp->chains[i].joint_count; k++)
        assert_false(tress_id_is_null(ss.node_bones[imp->chains[i].joints[k]]));
    tress_spring_scene_free(&ss);
    tress_scene_destroy(scene);
    tress_spring_import_free(imp);
  }
}

/* Lists given as objects (the members the arrays would have held, under keys): cJSON walks an
 * object's members like an array's items, and the import sized its tables by the array count
 * (0), so each of these wrote past its table (a fuzzer found the VRM 1.0 colliders). Now each
 * is ignored with a warning. */
static void test_lists_given_as_objects(void **state) {
  (void)state;
  static const char *const docs[] = {
      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Head\"}],\"extensions\":{\"VRMC_springBone\":"
      "{\"specVersion\":\"1.0\",\"colliders\":{\"a\":{\"node\":0,\"shape\":{\"sphere\":{\"radius\":0.1}}},"
      "\"b\":{\"node\":0,\"shape\":{\"sphere\":{\"radius\":0.2}}}},"
      "\"colliderGroups\":{\"a\":{\"colliders\":[0]},\"b\":{\"colliders\":[1]}}}}}",
      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Head\"}],\"extensions\":{\"VRM\":"
      "{\"secondaryAnimation\":{\"colliderGroups\":{\"a\":{\"node\":0,\"colliders\":[{\"radius\":0.1}]},"
      "\"b\":{\"node\":0,\"colliders\":[{\"radius\":0.2}]}}}}}}",
  };
  for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
    tress_spring_import *imp = NULL;
    tress_error err = {0};
    assert_int_equal(tress_spring_import_read_memory((const uint8_t *)docs[d], strlen(docs[d]), NULL, &imp, &err), 0);
    assert_int_equal(imp->collider_count, 0);
    assert_true(import_has_warning(imp, "colliderGroups\" is not an array: ignored", NULL));
    if (d == 0) assert_true(import_has_warning(imp, "\"colliders\" is not an array: ignored", NULL));
    tress_spring_import_free(imp);
  }
}

/* A deep file: one strand 50000 nodes long (a name-made chain and a VRM spring naming every
 * joint) plus a long cycle. Every pass is linear, so this imports in milliseconds; passes that
 * walk up the tree from every node (as the first version did) make about 1e10 steps here. */
static void test_deep_node_tree(void **state) {
  (void)state;
  enum { DEEP = 50000, LOOP = 20000 };
  /* built directly (the helpers look nodes up by index, which is linear in cJSON) */
  cJSON *doc = doc_new();
  cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");
  for (int i = 0; i < DEEP + LOOP; i++) {
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "name", i == 0 ? "Hair_Ponytail_Long_00" : (i < DEEP ? "s" : "loop"));
    const double t[3] = {0.0, -0.01, 0.0};
    cJSON_AddItemToObject(n, "translation", cJSON_CreateDoubleArray(t, 3));
    int child = i + 1 == DEEP ? -1 : (i + 1 == DEEP + LOOP ? DEEP : i + 1); /* the loop closes on itself */
    if (child >= 0) cJSON_AddItemToArray(cJSON_AddArrayToObject(n, "children"), cJSON_CreateNumber(child));
    cJSON_AddItemToArray(nodes, n);
  }
  int first = 0, loop0 = DEEP;
  cJSON *sb = cJSON_AddObjectToObject(cJSON_AddObjectToObject(doc, "extensions"), "VRMC_springBone");
  cJSON *spring = cJSON_CreateObject();
  cJSON *joints = cJSON_AddArrayToObject(spring, "joints");
  for (int i = 0; i < DEEP; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "node", first + i);
    cJSON_AddItemToArray(joints, j);
  }
  cJSON_AddItemToArray(cJSON_AddArrayToObject(sb, "springs"), spring);
  char *text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  assert_int_equal(tress_spring_import_read_memory((const uint8_t *)text, strlen(text), NULL, &imp, &err), 0);
  cJSON_free(text);
  assert_int_equal(imp->chain_count, 1);
  assert_int_equal(imp->chains[0].joint_count, DEEP);
  assert_int_equal(imp->chains[0].source, TRESS_SPRING_FROM_VRM1);
  assert_true(imp->nodes[loop0].bad);
  assert_true(import_has_warning(imp, "cycle", NULL));
  /* and it applies: one bone per strand node, nested, none for the cycle */
  tress_scene *scene = th_scene();
  tress_id part = th_instance(scene, TRESS_KIND_PART, "P", tress_scene_get_root(scene));
  tress_spring_scene ss;
  assert_int_equal(tress_spring_import_apply(imp, scene, part, &ss, &err), 0);
  assert_true(tress_id_is_equal(tress_instance_get_parent(scene, ss.node_bones[DEEP - 1]), ss.node_bones[DEEP - 2]));
  assert_true(tress_id_is_null(ss.node_bones[loop0]));
  counter bones = {0};
  tress_instance_visit_descendants(scene, part, count_bones, &bones);
  assert_int_equal(bones.bones, DEEP);
  tress_spring_scene_free(&ss);
  tress_scene_destroy(scene);
  tress_spring_import_free(imp);
}

/* The real tool, as a user runs it: tress-rig --springs MODEL --json, output parsed back. */
static void test_tress_rig_springs_command(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  char tool[600];
  snprintf(tool, sizeof tool, "%s/shared/tress-rig", bin && *bin ? bin : "build");
  if (access(tool, X_OK) != 0) {
    fprintf(stderr, "%s not built: build the whole tree to run this test\n", tool);
    skip();
  }
  char path[600];
  path_in_dir(path, sizeof path, "tool.vrm");
  cJSON *doc = vrm_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "'%s' --springs '%s' --json", tool, path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char *text = calloc(1 << 20, 1);
  size_t n = fread(text, 1, (1 << 20) - 1, p);
  assert_int_equal(pclose(p), 0);
  assert_true(n > 0);
  cJSON *r = cJSON_Parse(text);
  free(text);
  assert_non_null(r);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "chains")), 2);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "colliders")), 2);
  assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(r, "warnings")) >= 9);
  cJSON_Delete(r);
  /* text mode, and a file that is not a model fails with status 1 */
  snprintf(cmd, sizeof cmd, "'%s' --springs '%s' | grep -c '^chain '", tool, path);
  p = popen(cmd, "r");
  char line[64] = "";
  assert_non_null(fgets(line, sizeof line, p));
  pclose(p);
  assert_int_equal(atoi(line), 2);
  char junk[600];
  path_in_dir(junk, sizeof junk, "junk.vrm");
  write_text(junk, "not a model");
  snprintf(cmd, sizeof cmd, "'%s' --springs '%s' 2>/dev/null", tool, junk);
  int status = system(cmd);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

static int setup(void **state) {
  (void)state;
  make_dir();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[700];
  if (getenv("KEEP")) return 0;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vrm1_springs_and_colliders),
      cmocka_unit_test(test_names_only_model),
      cmocka_unit_test(test_extras_override),
      cmocka_unit_test(test_bad_node_tree_keeps_good_parts),
      cmocka_unit_test(test_not_gltf_or_lying_container),
      cmocka_unit_test(test_vrm0_secondary_animation),
      cmocka_unit_test(test_apply_builds_bones_and_colliders),
      cmocka_unit_test(test_report_json_and_text),
      cmocka_unit_test(test_tress_rig_springs_command),
      cmocka_unit_test(test_our_glb_writer_output),
      cmocka_unit_test(test_mutated_models_hold_together),
      cmocka_unit_test(test_lists_given_as_objects),
      cmocka_unit_test(test_deep_node_tree),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
