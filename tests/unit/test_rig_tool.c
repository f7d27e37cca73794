/* test_rig_tool.c - the tress-rig command as a real process: rig a committed sample to a skinned
 * .glb with --json output, --generate writes the committed samples, bad arguments fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "tress/gltf.h"
#include "tress/sample_hair.h"

static char tool[1024], tmp_dir[1024];

static int setup(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  if (!bin) return -1;
  snprintf(tool, sizeof tool, "%s/shared/tress-rig", bin);
  snprintf(tmp_dir, sizeof tmp_dir, "%s/rig-tool-test-XXXXXX", bin);
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs a command, captures stdout into out, returns the exit status. */
static int run(const char *args, char *out, size_t cap) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", tool, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

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
  snprintf(args, sizeof args, "--generate afro -o '%s/x.glb'", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 2);
  /* Well-formed but refused by plan(): a clear reason and exit 1. */
  snprintf(args, sizeof args, "assets/meshes/hair_bob.glb -o '%s/x.glb' --sectors 0", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 1);
  assert_non_null(strstr(out, "sectors and segments"));
  snprintf(args, sizeof args, "assets/meshes/missing.glb -o '%s/x.glb'", tmp_dir);
  assert_int_equal(run(args, out, sizeof out), 1);
  assert_non_null(strstr(out, "cannot open"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rig_json),
    cmocka_unit_test(test_generate_matches_committed),
    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
