/* test_spring_limit_import.c - VRMC_springBone_limit-1.0 (draft) from a VRM file the test
 * writes: cone, hinge and spherical limits on a spring's joints are imported (a limit on the
 * last joint is ignored and a malformed one named in a warning), bound into a sim with the VRM
 * model, and every imported limit holds through 600 frames of violent head motion that the same
 * file without its limits does not survive inside them. */
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

#include "support/glb_build.h"
#include "tress/math.h"
#include "tress/spring_bind.h"
#include "tress/spring_import.h"
#include "support/spring_import_queries.h"
#include "support/scene_build.h"

#define PI_F 3.14159265358979f
#define DT (1.0 / 60.0)
#define SLACK 2e-3f

static cJSON *add_node(cJSON *nodes, const char *name, double drop, int child) {
  cJSON *n = cJSON_CreateObject();
  cJSON_AddStringToObject(n, "name", name);
  const double t[3] = {0.0, -drop, 0.0};
  cJSON_AddItemToObject(n, "translation", cJSON_CreateDoubleArray(t, 3));
  if (child >= 0) {
    cJSON *c = cJSON_AddArrayToObject(n, "children");
    cJSON_AddItemToArray(c, cJSON_CreateNumber(child));
  }
  cJSON_AddItemToArray(nodes, n);
  return n;
}

/* {"specVersion": "1.0-draft", "limit": {kind: {angle | pitch+yaw, rotation}}} on a joint. */
static void add_limit(cJSON *joint, const char *kind, double a, double yaw, const double *rotation) {
  cJSON *ext = cJSON_AddObjectToObject(cJSON_AddObjectToObject(joint, "extensions"), "VRMC_springBone_limit");
  cJSON_AddStringToObject(ext, "specVersion", "1.0-draft");
  cJSON *shape = cJSON_AddObjectToObject(cJSON_AddObjectToObject(ext, "limit"), kind);
  if (strcmp(kind, "spherical") == 0) {
    cJSON_AddNumberToObject(shape, "pitch", a);
    cJSON_AddNumberToObject(shape, "yaw", yaw);
  } else {
    cJSON_AddNumberToObject(shape, "angle", a);
  }
  if (rotation) cJSON_AddItemToObject(shape, "rotation", cJSON_CreateDoubleArray(rotation, 4));
}

/* Head > H0 > H1 > H2 > H3 (hanging down), one spring H0..H3: H0 a cone, H1 a hinge turned
 * 30 degrees about its Y, H2 a spherical limit, H3 (the tail) a limit the draft says to ignore.
 * A second spring on Head > B0 > B1 carries a limit with two shapes (malformed). */
static cJSON *limit_model(void) {
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(cJSON_AddObjectToObject(doc, "asset"), "version", "2.0");
  cJSON *nodes = cJSON_AddArrayToObject(doc, "nodes");
  cJSON *head = add_node(nodes, "Head", -1.6, 1); /* 0 */
  add_node(nodes, "H0", 0.05, 2);                 /* 1 */
  add_node(nodes, "H1", 0.12, 3);                 /* 2 */
  add_node(nodes, "H2", 0.12, 4);                 /* 3 */
  add_node(nodes, "H3", 0.12, -1);                /* 4 */
  cJSON_AddItemToArray(cJSON_GetObjectItem(head, "children"), cJSON_CreateNumber(5));
  add_node(nodes, "B0", 0.05, 6); /* 5 */
  add_node(nodes, "B1", 0.12, -1); /* 6 */
  cJSON *sb = cJSON_AddObjectToObject(cJSON_AddObjectToObject(doc, "extensions"), "VRMC_springBone");
  cJSON_AddStringToObject(sb, "specVersion", "1.0");
  cJSON *springs = cJSON_AddArrayToObject(sb, "springs");
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "name", "limited");
  cJSON *joints = cJSON_AddArrayToObject(s, "joints");
  for (int i = 1; i <= 4; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "node", i);
    cJSON_AddNumberToObject(j, "stiffness", 0.3);
    cJSON_AddNumberToObject(j, "gravityPower", 0.5);
    cJSON_AddNumberToObject(j, "dragForce", 0.2);
    const double half = 0.2617993877991494; /* 15 degrees: a 30 degree turn about Y */
    const double turned[4] = {0.0, sin(half), 0.0, cos(half)};
    if (i == 1) add_limit(j, "cone", 0.3, 0.0, NULL);
    if (i == 2) add_limit(j, "hinge", 0.4, 0.0, turned);
    if (i == 3) add_limit(j, "spherical", 0.5, 0.15, NULL);
    if (i == 4) add_limit(j, "cone", 0.1, 0.0, NULL);
    cJSON_AddItemToArray(joints, j);
  }
  cJSON_AddItemToArray(springs, s);
  cJSON *bad = cJSON_CreateObject();
  cJSON_AddStringToObject(bad, "name", "malformed");
  cJSON *bj = cJSON_AddArrayToObject(bad, "joints");
  for (int i = 5; i <= 6; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "node", i);
    if (i == 5) {
      add_limit(j, "cone", 0.3, 0.0, NULL);
      cJSON *limit = cJSON_GetObjectItem(
          cJSON_GetObjectItem(cJSON_GetObjectItem(j, "extensions"), "VRMC_springBone_limit"), "limit");
      cJSON_AddNumberToObject(cJSON_AddObjectToObject(limit, "hinge"), "angle", 0.2);
    }
    cJSON_AddItemToArray(bj, j);
  }
  cJSON_AddItemToArray(springs, bad);
  return doc;
}

static tress_spring_import *load_written_model(void) {
  const char *dir = getenv("TRESS_BINARY_DIR");
  char path[600];
  snprintf(path, sizeof path, "%s/test_spring_limit_import.vrm", dir && *dir ? dir : "/tmp");
  cJSON *doc = limit_model();
  th_write_glb(path, doc);
  cJSON_Delete(doc);
  tress_spring_import_def def = tress_default_spring_import_def();
  def.units_per_metre = 1.0f;
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  int rc = tress_spring_import_load(path, &def, &imp, &err);
  if (rc != 0) fprintf(stderr, "import failed: %s\n", err.message);
  assert_int_equal(rc, 0);
  remove(path);
  return imp;
}

static void test_limits_are_imported(void **state) {
  (void)state;
  tress_spring_import *imp = load_written_model();
  const tress_spring_chain *c = import_chain_rooted(imp, "H0");
  assert_non_null(c);
  assert_int_equal(c->joint_count, 4);
  const tress_joint_limit *l = &c->vrm_joints[0].limit;
  assert_int_equal(l->kind, TRESS_LIMIT_CONE);
  assert_float_equal(l->angle, 0.3f, 1e-6f);
  assert_float_equal(l->rotation[3], 1.0f, 0.0f);
  l = &c->vrm_joints[1].limit;
  assert_int_equal(l->kind, TRESS_LIMIT_HINGE);
  assert_float_equal(l->angle, 0.4f, 1e-6f);
  assert_float_equal(l->rotation[1], sinf(PI_F / 12.0f), 1e-6f);
  l = &c->vrm_joints[2].limit;
  assert_int_equal(l->kind, TRESS_LIMIT_SPHERICAL);
  assert_float_equal(l->angle, 0.5f, 1e-6f);
  assert_float_equal(l->yaw, 0.15f, 1e-6f);
  assert_int_equal(c->vrm_joints[3].limit.kind, TRESS_LIMIT_NONE); /* the tail's: ignored */
  assert_true(import_has_warning(imp, "spring 0 \"limited\"", "on the last joint (only a tail): ignored"));
  assert_false(import_has_warning(imp, "VRMC_springBone_limit", "is not imported"));
  const tress_spring_chain *b = import_chain_rooted(imp, "B0");
  assert_non_null(b);
  assert_int_equal(b->vrm_joints[0].limit.kind, TRESS_LIMIT_NONE);
  assert_true(import_has_warning(imp, "spring 1 \"malformed\": joint 0 VRMC_springBone_limit not imported",
                                 "more than one"));
  tress_spring_import_free(imp);
}

/* How far joint k's link (bone k to bone k+1) is outside its limit: the VRM model's frame, the
 * drawn parent's rotation times the joint's cframe rotation, then the arc from +Y to the rest
 * tail direction and the limit's rotation. */
static float excess(const tress_scene *scene, const tress_id *bones, tress_id parent0, int k,
                    const tress_joint_limit *lim) {
  tress_id parent = k == 0 ? parent0 : bones[k - 1];
  float frame[4], up[3] = {0, 1, 0}, axis[4], lf[4], full[4];
  tress_quat_mul(tress_bone_get_world(scene, parent).q, tress_bone_get_cframe(scene, bones[k]).q, frame);
  tress_quat_from_to(up, tress_bone_get_cframe(scene, bones[k + 1]).p, axis);
  tress_quat_mul(axis, lim->rotation, lf);
  tress_quat_mul(frame, lf, full);
  tress_xform a = tress_bone_get_world(scene, bones[k]), b = tress_bone_get_world(scene, bones[k + 1]);
  float d[3] = {b.p[0] - a.p[0], b.p[1] - a.p[1], b.p[2] - a.p[2]}, v[3];
  float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int i = 0; i < 3; i++) d[i] /= len;
  tress_quat_rotate_inv(full, d, v);
  float y = fminf(1.0f, fmaxf(-1.0f, v[1])), side = asinf(fminf(1.0f, fabsf(v[0])));
  float pitch = fabsf(atan2f(v[2], v[1])) - lim->angle;
  if (lim->kind == TRESS_LIMIT_CONE) return acosf(y) - lim->angle;
  if (lim->kind == TRESS_LIMIT_HINGE) return fmaxf(side, pitch);
  return fmaxf(side - lim->yaw, pitch);
}

/* The imported springs bound and swung; the worst excess over joints 0..2 of "limited", each
 * against the limit the file gives it (the `file` copy, whatever the import was told). */
static float worst_excess(tress_spring_import *imp, const tress_joint_limit *file) {
  tress_scene *scene = th_scene();
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_spring_scene ss;
  tress_error err = {0};
  assert_int_equal(tress_spring_import_apply(imp, scene, part, &ss, &err), 0);
  tress_sim_def def = tress_default_sim_def();
  def.scene = scene;
  def.max_chains = 10;
  def.max_distance = 1000.0f;
  tress_sim *sim = tress_sim_create(&def);
  tress_spring_binding binding;
  assert_int_equal(tress_spring_bind(sim, imp, &ss, &binding), TRESS_OK);
  const tress_spring_chain *c = import_chain_rooted(imp, "H0");
  tress_id bones[4];
  for (int k = 0; k < 4; k++) bones[k] = ss.node_bones[c->joints[k]];
  tress_id head = ss.node_bones[tress_spring_import_find_node(imp, "Head")];
  float worst = -10.0f;
  for (int f = 0; f < 600; f++) {
    float t = (float)(f * DT), a[4], b[4], sa, sb;
    tress_xform x = tress_xform_identity();
    x.p[0] = 0.3f * sinf(2.0f * PI_F * 2.0f * t);
    x.p[2] = 0.2f * sinf(2.0f * PI_F * 1.3f * t);
    sa = 0.7f * sinf(2.0f * PI_F * 1.5f * t);
    sb = 0.5f * sinf(2.0f * PI_F * 2.5f * t);
    float qa[4] = {0, 0, sinf(sa), cosf(sa)}, qb[4] = {sinf(sb), 0, 0, cosf(sb)};
    memcpy(a, qa, sizeof a);
    memcpy(b, qb, sizeof b);
    tress_quat_mul(a, b, x.q);
    tress_part_set_cframe(scene, part, x);
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    for (int k = 0; k < 3; k++) worst = fmaxf(worst, excess(scene, bones, head, k, &file[k]));
  }
  tress_spring_binding_free(&binding);
  tress_sim_destroy(sim);
  tress_spring_scene_free(&ss);
  tress_scene_destroy(scene);
  return worst;
}

static void test_imported_limits_hold(void **state) {
  (void)state;
  tress_spring_import *imp = load_written_model();
  tress_spring_chain *c = (tress_spring_chain *)import_chain_rooted(imp, "H0");
  tress_joint_limit file[3];
  for (int k = 0; k < 3; k++) file[k] = c->vrm_joints[k].limit;
  float held = worst_excess(imp, file);
  for (int k = 0; k < 3; k++) c->vrm_joints[k].limit.kind = TRESS_LIMIT_NONE;
  float free_run = worst_excess(imp, file);
  print_message("imported limits: exceeded by %.5f rad; the same file unlimited by %.3f rad\n", (double)held,
                (double)free_run);
  assert_true(free_run > 0.1f);
  assert_true(held <= SLACK);
  tress_spring_import_free(imp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_limits_are_imported),
      cmocka_unit_test(test_imported_limits_hold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
