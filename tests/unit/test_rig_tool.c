/* test_rig_tool.c - the tress-rig command as a real process: rig a committed sample to a skinned
 * .glb with --json output, --generate writes the committed samples, bad arguments fail; --report
 * per chain, the strandless warning, output extensions that cannot hold a rig, skinned inputs
 * refused unless --rerig, clamped options reported, outputs through the Khronos validator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "support/gltf_validator.h"
#include "tress/gltf.h"
#include "tress/sample_hair.h"
#include "support/rig_tool.h"

static rig_tool fixture;
static const char *tmp_dir = fixture.tmp_dir;

static int setup(void **state) {
  (void)state;
  return rig_tool_setup(&fixture, "rig-tool-test");
}

static int teardown(void **state) {
  (void)state;
  return rig_tool_teardown(&fixture);
}

static int run(const char *args, char *out, size_t cap) { return rig_tool_run(&fixture, args, out, cap); }

static void test_rig_json(void **state) {
  (void)state;
  char args[3000], out[16384], path[1100];
  snprintf(path, sizeof path, "%s/bob_rigged.glb", tmp_dir);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s' --sectors 4 --segments 2 --max-influences 3 --json", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  cJSON *bones = cJSON_GetObjectItem(j, "bones");
  assert_int_equal(cJSON_GetArraySize(bones), 9);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bones, 0), "name")->valuestring, "HairRoot");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bones, 8), "name")->valuestring, "Hair_S4_B2");
  assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bones, 8), "parent")->valueint, 7);
  assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "time_ms"), "rig")));
  tress_error err = {0};
  tress_mesh *m = tress_gltf_load(path, &err);
  assert_non_null(m);
  assert_int_equal(cJSON_GetObjectItem(j, "vertices")->valueint, (int)m->vertex_count);
  assert_true(tress_mesh_is_skinned(m));
  assert_int_equal(m->bone_count, 9);
  tress_mesh_release(m);
  cJSON_Delete(j);
  /* Text mode names every bone and the timing. */
  snprintf(args, sizeof args, "assets/meshes/hair_bob.obj -o '%s' --axis 0,-1,0 --root 0,1.2,0", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "Hair_S3_B3"));
  assert_non_null(strstr(out, "vertices 3553"));
  assert_non_null(strstr(out, "time:"));
}

static void test_generate_matches_committed(void **state) {
  (void)state;
  for (int s = 0; s < TRESS_SAMPLE_HAIR_STYLE_COUNT; s++) {
    char args[3000], out[4096], path[1100], committed[256];
    const char *name = tress_sample_hair_style_name((tress_sample_hair_style)s);
    snprintf(path, sizeof path, "%s/%s.glb", tmp_dir, name);
    snprintf(args, sizeof args, "--generate %s -o '%s'", name, path);
    assert_int_equal(run(args, out, sizeof out), 0);
    snprintf(committed, sizeof committed, "assets/meshes/hair_%s.glb", name);
    tress_error err = {0};
    tress_mesh *a = tress_gltf_load(path, &err), *b = tress_gltf_load(committed, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->vertex_count, b->vertex_count);
    assert_memory_equal(a->indices, b->indices, 4 * (size_t)a->index_count);
    tress_mesh_release(a);
    tress_mesh_release(b);
  }
}

static void test_bad_arguments(void **state) {
  (void)state;
  char out[4096], args[3000];
  assert_int_equal(run("", out, sizeof out), 2);
  assert_non_null(strstr(out, "usage"));
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/x.glb' --sectors", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 2);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/x.glb' --axis 1,2", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 2);
  snprintf(args, sizeof args, "--generate mohawk -o '%s/x.glb'", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 2);
  /* Well-formed but refused by plan(): a clear reason and exit 1. */
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/x.glb' --sectors 0", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 1);
  assert_non_null(strstr(out, "sectors and segments"));
  snprintf(args, sizeof args, "assets/meshes/missing.glb -o '%s/x.glb'", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 1);
  assert_non_null(strstr(out, "cannot open"));
}

static void test_report_and_warnings(void **state) {
  (void)state;
  char args[3000], out[16384], path[1100];
  snprintf(path, sizeof path, "%s/bob_report.glb", tmp_dir);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s' --report", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  for (int s = 1; s <= 3; s++) {
    char line[64];
    snprintf(line, sizeof line, "Hair_S%d: skins ", s);
    if (!strstr(out, line)) fail_msg("no report line for chain %d in:\n%s", s, out);
  }
  assert_non_null(strstr(out, "length"));
  /* JSON: one entry per chain; together they skin at most every vertex. */
  snprintf(args, sizeof args, "assets/meshes/hair_long.glb -o '%s' --report --sectors 4 --json", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  cJSON *chains = cJSON_GetObjectItem(j, "chains");
  assert_int_equal(cJSON_GetArraySize(chains), 4);
  int skinned = 0;
  for (int c = 0; c < 4; c++) {
    cJSON *chain = cJSON_GetArrayItem(chains, c);
    skinned += cJSON_GetObjectItem(chain, "vertices")->valueint;
    assert_true(cJSON_GetObjectItem(chain, "length")->valuedouble > 0.0);
    assert_int_equal(cJSON_GetObjectItem(chain, "bones_outside_mesh")->valueint, 0);
  }
  assert_true(skinned > 0 && skinned <= cJSON_GetObjectItem(j, "vertices")->valueint);
  cJSON_Delete(j);
  /* Strand mode: the ponytail's chains follow its groups (at most --max-chains). */
  snprintf(args, sizeof args, "assets/meshes/hair_ponytail.glb -o '%s' --report --mode strands --max-chains 2", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  if (!strstr(out, "chains 1 x 3 bones") && !strstr(out, "chains 2 x 3 bones")) fail_msg("%s", out);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s' --mode braids", path);
  assert_int_equal(run(args, out, sizeof out), 2);
  /* The afro: the strandless warning, and fewer bands. */
  snprintf(args, sizeof args, "assets/meshes/hair_afro.glb -o '%s' --report", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "warning: no strand structure"));
  assert_non_null(strstr(out, "chains 3 x 2 bones"));
}

/* An OBJ of vertical ribbons around the y axis (radius 0.3, y 1 .. 0): ribbon r at angle
 * angles[r] and width width_deg; split_at_mid writes each ribbon as two halves that share no
 * vertex index, only positions (what a UV seam does). */
static void write_ribbons(const char *path, const float *angles, int count, float width_deg, int columns, bool split_at_mid) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  const int rows = 8;
  int base = 1;
  for (int r = 0; r < count; r++) {
    int halves = split_at_mid ? 2 : 1, per_half = split_at_mid ? rows / 2 + 1 : rows;
    for (int h = 0; h < halves; h++) {
      int first_row = split_at_mid ? h * (rows / 2) : 0;
      for (int row = 0; row < per_half; row++)
        for (int c = 0; c < columns; c++) {
          float a = (angles[r] + width_deg * ((float)c / (float)(columns - 1) - 0.5f)) * 3.14159265f / 180.0f;
          float y = 1.0f - (float)(first_row + row) / (float)(rows - 1);
          fprintf(f, "v %f %f %f\n", 0.3f * cosf(a), y, 0.3f * sinf(a));
        }
      for (int row = 0; row + 1 < per_half; row++)
        for (int c = 0; c + 1 < columns; c++) {
          int v = base + row * columns + c;
          fprintf(f, "f %d %d %d\nf %d %d %d\n", v, v + columns, v + 1, v + 1, v + columns, v + columns + 1);
        }
      base += per_half * columns;
    }
  }
  fclose(f);
}

static cJSON *report_json(const char *mesh, const char *extra) {
  char args[3000], out[32768];
  snprintf(args, sizeof args, "'%s' -o '%s/report.glb' --report --json %s", mesh, tmp_dir, extra);
  assert_int_equal(run(args, out, sizeof out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  return j;
}

static int chain_int(cJSON *j, int chain, const char *key) {
  return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "chains"), chain), key)->valueint;
}

/* --report counts the mesh's connected pieces per chain: three separate ribbons (each written as
 * two halves joined only by position) are three pieces, one per chain, none shared; one ring
 * around the axis is one piece every chain shares. */
static void test_report_uses_connectivity(void **state) {
  (void)state;
  char path[1200];
  snprintf(path, sizeof path, "%s/ribbons.obj", tmp_dir);
  const float three[3] = {90.0f, 210.0f, 330.0f};
  write_ribbons(path, three, 3, 20.0f, 4, true);
  cJSON *j = report_json(path, "--sectors 3");
  int vertices = 0;
  for (int c = 0; c < 3; c++) {
    assert_int_equal(chain_int(j, c, "pieces"), 1);
    assert_int_equal(chain_int(j, c, "shared_pieces"), 0);
    vertices += chain_int(j, c, "vertices");
  }
  assert_true(vertices > 0 && vertices <= cJSON_GetObjectItem(j, "vertices")->valueint);
  cJSON_Delete(j);
  /* The ring: one piece, carried by one chain and shared by all three. */
  const float ring[1] = {0.0f};
  write_ribbons(path, ring, 1, 360.0f, 49, false);
  j = report_json(path, "--sectors 3");
  int pieces = 0;
  for (int c = 0; c < 3; c++) {
    pieces += chain_int(j, c, "pieces");
    assert_int_equal(chain_int(j, c, "shared_pieces"), 1);
  }
  assert_int_equal(pieces, 1);
  cJSON_Delete(j);
  /* Text mode says it as a warning. */
  char args[3000], out[16384];
  snprintf(args, sizeof args, "'%s' -o '%s/report.glb' --report --sectors 3", path, tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  if (!strstr(out, "warning: shares 1 pieces with other chains")) fail_msg("%s", out);
}

static void test_output_must_hold_a_rig(void **state) {
  (void)state;
  char args[3000], out[4096];
  const char *cases[][2] = {{"x.obj", "OBJ cannot hold bones"}, {"x.png", "must end in .glb"}};
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/%s'", tmp_dir, cases[i][0]);
    assert_int_equal(run(args, out, sizeof out), 2);
    if (!strstr(out, cases[i][1])) fail_msg("%s: %s", cases[i][0], out);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, cases[i][0]);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing written */
  }
  /* .gltf is glTF JSON (not GLB bytes) holding the whole rig. */
  char path[1200];
  snprintf(path, sizeof path, "%s/rig.gltf", tmp_dir);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s'", path);
  assert_int_equal(run(args, out, sizeof out), 0);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fgetc(f), '{');
  fclose(f);
  tress_error err = {0};
  tress_mesh *m = tress_gltf_load(path, &err);
  if (!m) fail_msg("%s", err.message);
  assert_int_equal(m->bone_count, 10);
  tress_mesh_release(m);
  /* --generate still writes plain OBJ (no skin to lose). */
  snprintf(args, sizeof args, "--generate bob -o '%s/plain.obj'", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
}

static void test_skinned_input_refused_unless_rerig(void **state) {
  (void)state;
  char args[3000], out[8192], first[1100], second[1100];
  snprintf(first, sizeof first, "%s/once.glb", tmp_dir);
  snprintf(second, sizeof second, "%s/twice.glb", tmp_dir);
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s'", first);
  assert_int_equal(run(args, out, sizeof out), 0);
  snprintf(args, sizeof args, "'%s' -o '%s'", first, second);
  assert_int_equal(run(args, out, sizeof out), 1);
  assert_non_null(strstr(out, "already skinned (10 bones)"));
  assert_non_null(strstr(out, "--rerig"));
  assert_int_not_equal(access(second, F_OK), 0);
  snprintf(args, sizeof args, "'%s' -o '%s' --rerig --sectors 2", first, second);
  assert_int_equal(run(args, out, sizeof out), 0);
  tress_error err = {0};
  tress_mesh *m = tress_gltf_load(second, &err);
  assert_non_null(m);
  assert_int_equal(m->bone_count, 7);
  tress_mesh_release(m);
}

/* Each option the rig clamps or does not use is a warning naming it, its value and what was used. */
static void expect_warning(const char *extra, const char *warning) {
  char args[3000], out[8192];
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/warned.glb' %s", tmp_dir, extra);
  assert_int_equal(run(args, out, sizeof out), 0);
  if (!strstr(out, warning)) fail_msg("%s: no \"%s\" in:\n%s", extra, warning, out);
}

static void test_max_influences_clamp_reported(void **state) {
  (void)state;
  expect_warning("--max-influences 6", "max_influences 6 clamped to 4");
  expect_warning("--max-influences 0", "max_influences 0 clamped to 1");
  char args[3000], out[8192];
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/clamped.glb' --max-influences 3", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  assert_null(strstr(out, "clamped to"));
  /* JSON: the same words in "warnings". */
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/clamped.glb' --max-influences 9 --json", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  assert_non_null(strstr(cJSON_GetObjectItem(j, "warnings")->valuestring, "max_influences 9 clamped to 4"));
  cJSON_Delete(j);
}

static void test_max_chains_ignored_in_sector_mode(void **state) {
  (void)state;
  expect_warning("--max-chains 5", "--max-chains 5 ignored: only strand mode");
  char args[3000], out[8192];
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/s.glb' --max-chains 5 --mode strands", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  assert_null(strstr(out, "--max-chains 5 ignored"));
}

static void test_sectors_ignored_in_strand_mode(void **state) {
  (void)state;
  char args[3000], out[8192];
  snprintf(args, sizeof args, "assets/meshes/hair_ponytail.glb -o '%s/s.glb' --mode strands --sectors 5", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  if (!strstr(out, "--sectors 5 ignored: strand mode found")) fail_msg("%s", out);
  /* Not given: nothing to report. */
  snprintf(args, sizeof args, "assets/meshes/hair_ponytail.glb -o '%s/s.glb' --mode strands", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  assert_null(strstr(out, "--sectors"));
}

static void test_rerig_ignored_without_skin(void **state) {
  (void)state;
  expect_warning("--rerig", "--rerig ignored: the input has no skin");
}

static void test_rig_options_ignored_by_generate(void **state) {
  (void)state;
  char args[3000], out[8192];
  snprintf(args, sizeof args, "--generate bob -o '%s/g.glb' --sectors 4 --axis 1,0,0 --report", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 0);
  const char *expected[] = {"--sectors 4 ignored: --generate", "--axis 1,0,0 ignored: --generate", "--report ignored: --generate"};
  for (int i = 0; i < 3; i++)
    if (!strstr(out, expected[i])) fail_msg("no \"%s\" in:\n%s", expected[i], out);
}

/* A degenerate face is named as such, not as "every vertex is above the root plane". */
static void test_degenerate_face_named(void **state) {
  (void)state;
  const char *meshes[][2] = {{"v 0 1 0\nv 0 1 0\nv 0 1 0\nf 1 2 3\n", "all 3 vertices are at one point"},
                             {"v 0 1 0\nv 0 0.5 0\nv 0 0 0\nf 1 2 3\n", "degenerate (zero area"}};
  for (int i = 0; i < 2; i++) {
    char path[1200], args[3000], out[8192];
    snprintf(path, sizeof path, "%s/degenerate%d.obj", tmp_dir, i);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(meshes[i][0], f);
    fclose(f);
    snprintf(args, sizeof args, "'%s' -o '%s/degenerate.glb'", path, tmp_dir);
    assert_int_equal(run(args, out, sizeof out), 1);
    if (!strstr(out, meshes[i][1])) fail_msg("%s", out);
    assert_null(strstr(out, "above the root plane"));
  }
}

/* tress-rig's outputs pass the Khronos validator with no errors and no warnings: every sample
 * (all with UVs, the afro's fewer bands included) in seed and strand mode, as .glb and .gltf. */
static void test_outputs_pass_khronos_validator(void **state) {
  (void)state;
  char prefix[1100];
  if (!gltf_validator_ready(prefix, sizeof prefix)) {
    print_message("SKIP: the Khronos glTF validator needs node and npm (npm install gltf-validator into the build "
                  "directory failed or npm is missing)\n");
    skip();
  }
  const char *samples[] = {"bob", "ponytail", "long", "afro"}, *modes[] = {"sectors", "strands"}, *exts[] = {"glb", "gltf"};
  for (int i = 0; i < 4; i++)
    for (int m = 0; m < 2; m++)
      for (int e = 0; e < 2; e++) {
        char args[3000], out[8192], path[1100], cmd[3400];
        snprintf(path, sizeof path, "%s/%s_%s.%s", tmp_dir, samples[i], modes[m], exts[e]);
        snprintf(args, sizeof args, "assets/meshes/hair_%s.glb -o '%s' --mode %s", samples[i], path, modes[m]);
        assert_int_equal(run(args, out, sizeof out), 0);
        snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s' 2>&1", prefix, path);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int status = pclose(p);
        if (status != 0 || !strstr(out, "errors=0 warnings=0")) fail_msg("%s: %s", path, out);
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rig_json),
    cmocka_unit_test(test_generate_matches_committed),
    cmocka_unit_test(test_bad_arguments),
    cmocka_unit_test(test_report_and_warnings),
    cmocka_unit_test(test_report_uses_connectivity),
    cmocka_unit_test(test_output_must_hold_a_rig),
    cmocka_unit_test(test_skinned_input_refused_unless_rerig),
    cmocka_unit_test(test_max_influences_clamp_reported),
    cmocka_unit_test(test_max_chains_ignored_in_sector_mode),
    cmocka_unit_test(test_sectors_ignored_in_strand_mode),
    cmocka_unit_test(test_rerig_ignored_without_skin),
    cmocka_unit_test(test_rig_options_ignored_by_generate),
    cmocka_unit_test(test_degenerate_face_named),
    cmocka_unit_test(test_outputs_pass_khronos_validator),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
