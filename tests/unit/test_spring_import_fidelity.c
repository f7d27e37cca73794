/* test_spring_import_fidelity.c - what the spring importer keeps of a file: world scale, VRM 0.x
 * collider axes, per-joint settings, the full gravity direction, `center`, the seed's
 * extras.estella keys, the VRM joint length it binds with, and a named warning for each part it
 * does not import. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "tress/spring_bind.h"
#include "tress/spring_import.h"
#include "support/spring_import_queries.h"
#include "tress/spring_report.h"

/* Imports glTF JSON text in metres (units_per_metre 1). */
static tress_spring_import *import_text(const char *json) {
  tress_spring_import_def def = tress_default_spring_import_def();
  def.units_per_metre = 1.0f;
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  int rc = tress_spring_import_read_memory((const uint8_t *)json, strlen(json), &def, &imp, &err);
  if (rc != 0) fprintf(stderr, "import failed: %s\n", err.message);
  assert_int_equal(rc, 0);
  assert_non_null(imp);
  return imp;
}

static float length3(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Root (scale 0.25) > Head > H0 > H1 > H2, links 0.4 m in the file: 0.1 m in the world. A head
 * sphere 0.4 m up of radius 0.2, hit radius 0.04. */
static const char SCALED[] =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":["
    "{\"name\":\"Root\",\"scale\":[0.25,0.25,0.25],\"children\":[1]},"
    "{\"name\":\"Head\",\"translation\":[0,1.6,0],\"children\":[2]},"
    "{\"name\":\"H0\",\"translation\":[0,-0.4,0],\"children\":[3]},"
    "{\"name\":\"H1\",\"translation\":[0,-0.4,0],\"children\":[4]},"
    "{\"name\":\"H2\",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,-0.4,0,1]}],"
    "\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\","
    "\"colliders\":[{\"node\":1,\"shape\":{\"sphere\":{\"offset\":[0,0.4,0],\"radius\":0.2}}}],"
    "\"colliderGroups\":[{\"colliders\":[0]}],"
    "\"springs\":[{\"joints\":[{\"node\":2,\"stiffness\":1,\"hitRadius\":0.04},"
    "{\"node\":3,\"stiffness\":1,\"hitRadius\":0.04},{\"node\":4}],\"colliderGroups\":[0]}]}}}";

static void test_spring_under_a_scaled_node(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(SCALED);
  const tress_spring_chain *ch = import_chain_rooted(imp, "H0");
  assert_non_null(ch);
  assert_int_equal(ch->joint_count, 3);
  /* links, offsets and radii are a quarter of what the file writes */
  assert_float_equal(length3(imp->nodes[ch->joints[1]].local.p), 0.1f, 1e-6f);
  assert_float_equal(length3(imp->nodes[ch->joints[2]].local.p), 0.1f, 1e-6f);
  assert_float_equal(imp->nodes[tress_spring_import_find_node(imp, "Head")].local.p[1], 0.4f, 1e-6f);
  assert_float_equal(imp->nodes[ch->joints[1]].scale, 0.25f, 1e-6f);
  assert_float_equal(imp->colliders[0].offset[1], 0.1f, 1e-6f);
  assert_float_equal(imp->colliders[0].radius, 0.05f, 1e-6f);
  assert_float_equal(ch->radius, 0.01f, 1e-6f);
  assert_float_equal(ch->joint_settings[0].radius, 0.01f, 1e-6f);
  /* and the stiffness is that of a 0.1 m link */
  assert_float_equal(ch->stiffness, 1.0f - expf(-1.0f / 60.0f / 0.1f), 1e-5f);
  assert_int_equal(imp->warning_count, 0);
  tress_spring_import_free(imp);
}

/* VRM 0.x: a collider in front of the face. Unity's forward is +z; UniVRM writes VRM 0.x with z
 * reversed, so in the glTF the face looks down -z and the collider belongs at z < 0. */
static const char VRM0_FACE[] =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"VRM\"],\"nodes\":["
    "{\"name\":\"Head\",\"children\":[1]},{\"name\":\"Bang0\",\"translation\":[0,0.1,-0.1],\"children\":[2]},"
    "{\"name\":\"Bang1\",\"translation\":[0,-0.1,0]}],"
    "\"extensions\":{\"VRM\":{\"secondaryAnimation\":{"
    "\"colliderGroups\":[{\"node\":0,\"colliders\":[{\"offset\":{\"x\":0.02,\"y\":0.05,\"z\":0.08},\"radius\":0.05}]}],"
    "\"boneGroups\":[{\"stiffiness\":1,\"gravityPower\":0.1,\"gravityDir\":{\"x\":0.6,\"y\":-0.8,\"z\":0},"
    "\"dragForce\":0.4,\"hitRadius\":0.02,\"center\":0,\"bones\":[1],\"colliderGroups\":[0]}]}}}}";

static void test_vrm0_collider_in_front_of_the_face(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(VRM0_FACE);
  assert_int_equal(imp->collider_count, 1);
  /* three-vrm's VRMSpringBoneLoaderPlugin: (x, y, -z) */
  assert_float_equal(imp->colliders[0].offset[0], 0.02f, 1e-6f);
  assert_float_equal(imp->colliders[0].offset[1], 0.05f, 1e-6f);
  assert_float_equal(imp->colliders[0].offset[2], -0.08f, 1e-6f);
  /* the gravity direction as written, sideways part included (three-vrm converts nothing) */
  const tress_spring_chain *ch = import_chain_rooted(imp, "Bang0");
  assert_non_null(ch);
  assert_float_equal(ch->gravity[0], 0.6f * 0.1f * 60.0f, 1e-4f);
  assert_float_equal(ch->gravity[1], -0.8f * 0.1f * 60.0f, 1e-4f);
  assert_int_equal(ch->center, tress_spring_import_find_node(imp, "Head"));
  tress_spring_import_free(imp);
}

/* Three joints with their own settings, links of 0.1 and 0.2 m, a sideways gravity on the
 * second, a center node. */
static const char PER_JOINT[] =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":["
    "{\"name\":\"Hips\",\"children\":[1]},{\"name\":\"T0\",\"translation\":[0,0.5,0],\"children\":[2]},"
    "{\"name\":\"T1\",\"translation\":[0,0,-0.1],\"children\":[3]},{\"name\":\"T2\",\"translation\":[0,0,-0.2]}],"
    "\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\",\"springs\":[{\"name\":\"tail\",\"center\":0,"
    "\"joints\":["
    "{\"node\":1,\"stiffness\":2,\"dragForce\":0.1,\"gravityPower\":0.5,\"gravityDir\":[0,-1,0],\"hitRadius\":0.01},"
    "{\"node\":2,\"stiffness\":0.5,\"dragForce\":0.7,\"gravityPower\":0.2,\"gravityDir\":[1,0,0],\"hitRadius\":0.03},"
    "{\"node\":3,\"stiffness\":9,\"dragForce\":0.9,\"gravityPower\":9,\"hitRadius\":0.05}]}]}}}";

static void test_per_joint_settings_and_gravity_direction(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(PER_JOINT);
  const tress_spring_chain *ch = import_chain_rooted(imp, "T0");
  assert_non_null(ch);
  assert_int_equal(ch->joint_count, 3);
  const tress_spring_joint_settings *j = ch->joint_settings;
  /* joint 0 moves the 0.1 m link to T1, joint 1 the 0.2 m link to T2 */
  assert_float_equal(j[0].stiffness, 1.0f - expf(-2.0f / 60.0f / 0.1f), 1e-5f);
  assert_float_equal(j[1].stiffness, 1.0f - expf(-0.5f / 60.0f / 0.2f), 1e-5f);
  assert_float_equal(j[0].rest_stiffness, 2.0f, 1e-6f);
  assert_float_equal(j[1].rest_stiffness, 0.5f, 1e-6f);
  assert_float_equal(j[0].drag, 0.1f, 1e-6f);
  assert_float_equal(j[1].drag, 0.7f, 1e-6f);
  assert_float_equal(j[0].gravity[1], -30.0f, 1e-4f);
  assert_float_equal(j[1].gravity[0], 12.0f, 1e-4f); /* sideways, kept */
  assert_float_equal(j[1].gravity[1], 0.0f, 1e-6f);
  assert_float_equal(j[0].radius, 0.01f, 1e-6f);
  assert_float_equal(j[1].radius, 0.03f, 1e-6f);
  assert_float_equal(j[2].drag, 0.9f, 1e-6f); /* the file's, though VRM moves nothing with it */
  /* the chain's single values: means over the two moving joints (the tail joint's not counted) */
  assert_float_equal(ch->drag, 0.4f, 1e-6f);
  assert_float_equal(ch->gravity[0], 6.0f, 1e-4f);
  assert_float_equal(ch->gravity[1], -15.0f, 1e-4f);
  assert_float_equal(ch->radius, 0.05f, 1e-6f);
  assert_int_equal(ch->center, 0);
  tress_spring_import_free(imp);
}

/* VRM springs bind with the def's joint length (tress_vrm_length): fixed by default, three-vrm's
 * when asked for. */
static void test_vrm_length_from_the_def(void **state) {
  (void)state;
  const float gravity[3] = {0.0f, -9.81f, 0.0f};
  for (int mode = 0; mode < 2; mode++) {
    tress_spring_import_def def = tress_default_spring_import_def();
    def.units_per_metre = 1.0f;
    if (mode) def.vrm_length = TRESS_VRM_LENGTH_THREE_VRM;
    tress_spring_import *imp = NULL;
    tress_error err = {0};
    assert_int_equal(tress_spring_import_read_memory((const uint8_t *)SCALED, strlen(SCALED), &def, &imp, &err), 0);
    const tress_spring_chain *ch = import_chain_rooted(imp, "H0");
    assert_non_null(ch);
    tress_vrm_length want = mode ? TRESS_VRM_LENGTH_THREE_VRM : TRESS_VRM_LENGTH_FIXED;
    assert_int_equal(ch->vrm_length, want);
    tress_chain_settings s = tress_spring_chain_get_sim_settings(ch, gravity, NULL, 0);
    assert_int_equal(s.model, TRESS_SPRING_VRM);
    assert_int_equal(s.vrm_length, want);
    tress_spring_import_free(imp);
  }
}

/* The springs report shows each joint's own settings and the center. */
static void test_report_shows_joint_settings_and_center(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(PER_JOINT);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(tress_spring_report_write(imp, "tail.gltf", true, f), 0);
  long size = ftell(f);
  rewind(f);
  char *text = calloc((size_t)size + 1, 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  cJSON *r = cJSON_Parse(text);
  free(text);
  cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "chains"), 0);
  assert_string_equal(cJSON_GetObjectItem(c0, "center")->valuestring, "Hips");
  cJSON *js = cJSON_GetObjectItem(c0, "joint_settings");
  assert_int_equal(cJSON_GetArraySize(js), 3);
  assert_float_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(js, 1), "drag")->valuedouble, 0.7, 1e-6);
  assert_float_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(js, 1), "gravity"), 0)->valuedouble, 12.0,
                     1e-4);
  cJSON_Delete(r);
  tress_spring_import_free(imp);
}

/* The seed's keys make chains and colliders; the older tress key is an alias; where both
 * are on a node, estella's is read and the other named in a warning. */
static const char ESTELLA[] =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":["
    "{\"name\":\"Head\",\"children\":[1,3,5],\"extras\":{\"estella\":{\"springCollider\":"
    "{\"shape\":\"capsule\",\"radius\":0.08,\"height\":0.1,\"offset\":[0,0.1,0]}}}},"
    "{\"name\":\"Tail\",\"children\":[2],\"extras\":{\"estella\":{\"springBone\":"
    "{\"stiffness\":0.3,\"drag\":0.25,\"gravity\":[0,-5,1],\"radius\":0.02,\"endLength\":0.05,\"wind\":[1,0,0]}}}},"
    "{\"name\":\"Tail_1\",\"translation\":[0,-0.1,0]},"
    "{\"name\":\"Old\",\"children\":[4],\"extras\":{\"tress\":{\"springBone\":{\"stiffness\":0.6}}}},"
    "{\"name\":\"Old_1\",\"translation\":[0,-0.1,0]},"
    "{\"name\":\"Both\",\"children\":[6],\"extras\":{\"tress\":{\"springBone\":{\"stiffness\":0.9}},"
    "\"estella\":{\"springBone\":{\"stiffness\":0.2}}}},"
    "{\"name\":\"Both_1\",\"translation\":[0,-0.1,0]}]}";

static void test_estella_extras_keys(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(ESTELLA);
  const tress_spring_chain *tail = import_chain_rooted(imp, "Tail");
  assert_non_null(tail);
  assert_int_equal(tail->source, TRESS_SPRING_FROM_EXTRAS);
  assert_float_equal(tail->stiffness, 0.3f, 1e-6f);
  assert_float_equal(tail->drag, 0.25f, 1e-6f);
  assert_float_equal(tail->gravity[2], 1.0f, 1e-6f);
  assert_float_equal(tail->end_length, 0.05f, 1e-6f);
  assert_float_equal(tail->joint_settings[1].stiffness, 0.3f, 1e-6f);
  assert_float_equal(tail->joint_settings[1].gravity[1], -5.0f, 1e-6f);
  assert_float_equal(tail->joint_settings[0].radius, 0.02f, 1e-6f);
  /* its rest stiffness turns a 0.1 m link as fast as 0.3 a step does */
  assert_float_equal(tail->joint_settings[0].rest_stiffness, -logf(0.7f) * 0.1f * 60.0f, 1e-4f);
  assert_true(import_has_warning(imp, "extras.estella.springBone on \"Tail\"", "\"wind\" is not imported"));
  assert_int_equal(imp->collider_count, 1);
  assert_int_equal(imp->colliders[0].shape, TRESS_COLLIDER_CAPSULE);
  assert_float_equal(imp->colliders[0].radius, 0.08f, 1e-6f);
  assert_float_equal(imp->colliders[0].height, 0.1f, 1e-6f);
  const tress_spring_chain *old = import_chain_rooted(imp, "Old");
  assert_non_null(old);
  assert_float_equal(old->stiffness, 0.6f, 1e-6f);
  const tress_spring_chain *both = import_chain_rooted(imp, "Both");
  assert_non_null(both);
  assert_float_equal(both->stiffness, 0.2f, 1e-6f);
  assert_true(import_has_warning(imp, "extras.tress.springBone on \"Both\"", "extras.estella.springBone is read"));
  tress_spring_import_free(imp);
}

/* Parts read but not imported: each is named. */
static const char UNIMPORTED[] =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":["
    "{\"name\":\"Head\",\"children\":[1,3]},{\"name\":\"A0\",\"scale\":[1,2,1],\"children\":[2]},"
    "{\"name\":\"A1\",\"translation\":[0,-0.1,0]},{\"name\":\"Face\"}],"
    "\"extensions\":{\"VRM\":{\"secondaryAnimation\":{\"boneGroups\":[]}},"
    "\"VRMC_springBone\":{\"specVersion\":\"0.9\","
    "\"colliders\":[{\"node\":3,\"shape\":{\"sphere\":{\"offset\":[0,0,-10000],\"radius\":10000}},"
    "\"extensions\":{\"VRMC_springBone_extended_collider\":{\"specVersion\":\"1.0\",\"shape\":"
    "{\"plane\":{\"offset\":[0,0,0],\"normal\":[0,0,1]}}}}},"
    "{\"node\":0,\"shape\":{\"sphere\":{\"radius\":0.1}},"
    "\"extensions\":{\"VRMC_springBone_extended_collider\":{\"specVersion\":\"1.0\",\"shape\":"
    "{\"sphere\":{\"radius\":0.3,\"inside\":true}}}}},"
    "{\"node\":0,\"shape\":{\"capsule\":{\"tail\":[0,0.1,0],\"radius\":0.05}},"
    "\"extensions\":{\"VRMC_springBone_extended_collider\":{\"specVersion\":\"2.0\",\"shape\":"
    "{\"plane\":{\"normal\":[0,1,0]}}}}}],"
    "\"springs\":[{\"name\":\"a\",\"joints\":[{\"node\":1,\"extensions\":{\"VRMC_springBone_limit\":"
    "{\"limit\":{\"cone\":{\"angle\":0.5}}}}},{\"node\":2}]}]}}}";

static void test_unimported_parts_are_named(void **state) {
  (void)state;
  tress_spring_import *imp = import_text(UNIMPORTED);
  assert_int_equal(imp->chain_count, 1);
  /* extended colliders are imported (their fallbacks are not used); one of an unknown
   * specVersion keeps its fallback, named */
  assert_int_equal(imp->collider_count, 3);
  assert_int_equal(imp->colliders[0].shape, TRESS_COLLIDER_PLANE);
  assert_float_equal(imp->colliders[0].normal[2], 1.0f, 1e-6f);
  assert_float_equal(imp->colliders[0].offset[2], 0.0f, 1e-6f);
  assert_int_equal(imp->colliders[1].shape, TRESS_COLLIDER_INSIDE_SPHERE);
  assert_float_equal(imp->colliders[1].radius, 0.3f, 1e-6f);
  assert_int_equal(imp->colliders[2].shape, TRESS_COLLIDER_CAPSULE);
  assert_false(import_has_warning(imp, "collider 0 on \"Face\"", NULL));
  assert_false(import_has_warning(imp, "collider 1 on \"Head\"", NULL));
  assert_true(import_has_warning(imp, "collider 2 on \"Head\"", "specVersion is not \"1.0\"): its fallback capsule"));
  /* rotation limits are imported (test_spring_limit_import); this one lacks its specVersion */
  assert_true(import_has_warning(imp, "spring 0 \"a\": joint 0 VRMC_springBone_limit", "read as the draft"));
  assert_int_equal(imp->chains[0].vrm_joints[0].limit.kind, TRESS_LIMIT_CONE);
  assert_true(import_has_warning(imp, "VRM0 secondaryAnimation", "not imported"));
  assert_true(import_has_warning(imp, "specVersion \"0.9\"", NULL));
  assert_true(import_has_warning(imp, "\"A0\"", "non-uniform scale"));
  tress_spring_import_free(imp);
}

static void test_bad_center_is_named(void **state) {
  (void)state;
  const char *json =
      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"A0\",\"children\":[1]},"
      "{\"name\":\"A1\",\"translation\":[0,-0.1,0]}],\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\","
      "\"springs\":[{\"name\":\"a\",\"center\":7,\"joints\":[{\"node\":0},{\"node\":1}]}]}}}";
  tress_spring_import *imp = import_text(json);
  assert_int_equal(imp->chain_count, 1);
  assert_int_equal(imp->chains[0].center, -1);
  assert_true(import_has_warning(imp, "spring 0 \"a\"", "center is not a node index"));
  tress_spring_import_free(imp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spring_under_a_scaled_node),
      cmocka_unit_test(test_vrm0_collider_in_front_of_the_face),
      cmocka_unit_test(test_per_joint_settings_and_gravity_direction),
      cmocka_unit_test(test_report_shows_joint_settings_and_center),
      cmocka_unit_test(test_estella_extras_keys),
      cmocka_unit_test(test_unimported_parts_are_named),
      cmocka_unit_test(test_bad_center_is_named),
      cmocka_unit_test(test_vrm_length_from_the_def),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
