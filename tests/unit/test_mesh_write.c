/* test_mesh_write.c - writing by extension: .glb binary, .gltf JSON with its buffer embedded as a
 * base64 data: URI (reads back to the same skinned mesh, no external file), .obj only for an
 * unskinned mesh (a skinned one is refused with a message and nothing is written), any other
 * extension refused. Real files in a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/rigged_mesh.h"
#include "tress/gltf.h"
#include "tress/mesh_file.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"

static char tmp_dir[1024];

static int setup_tmp(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/mesh-write-test-XXXXXX", bin ? bin : "/tmp");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown_tmp(void **state) {
  (void)state;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static tress_mesh *rigged_bob(void) {
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.max_influences = 4;
  return th_rig_and_keep(m, &opts);
}

static char *read_text(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  *size = (size_t)n;
  return s;
}

static void test_gltf_is_json_with_embedded_buffer(void **state) {
  (void)state;
  tress_mesh *m = rigged_bob();
  char *json;
  size_t size;
  tress_error err = {0};
  assert_int_equal(tress_gltf_write_gltf_memory(m, &json, &size, &err), 0);
  assert_int_equal(json[0], '{');
  assert_int_equal(strlen(json), size);
  assert_non_null(strstr(json, "\"uri\":\"data:application/octet-stream;base64,"));
  /* No base directory: a reference to any other file would fail to load. */
  tress_mesh *back = tress_gltf_read_memory((const uint8_t *)json, size, NULL, &err);
  if (!back) fail_msg("%s", err.message);
  assert_true(tress_mesh_is_skinned(back));
  th_assert_same_mesh(m, back);
  tress_mesh_release(back);
  free(json);
  tress_mesh_release(m);
}

static void test_write_by_extension(void **state) {
  (void)state;
  tress_mesh *m = rigged_bob();
  const char *names[] = {"rig.glb", "rig.gltf", "RIG.GLTF"};
  for (int i = 0; i < 3; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, names[i]);
    tress_error err = {0};
    assert_int_equal(tress_mesh_file_write(m, path, &err), 0);
    size_t size;
    char *bytes = read_text(path, &size);
    bool is_glb = size >= 4 && memcmp(bytes, "glTF", 4) == 0;
    assert_int_equal(is_glb, i == 0); /* .gltf is JSON, never GLB */
    free(bytes);
    tress_mesh *back = tress_mesh_file_load(path, &err);
    if (!back) fail_msg("%s: %s", names[i], err.message);
    assert_true(tress_mesh_is_skinned(back));
    th_assert_same_mesh(m, back);
    tress_mesh_release(back);
  }
  tress_mesh_release(m);
}

static void test_refused_outputs_write_nothing(void **state) {
  (void)state;
  tress_mesh *skinned = rigged_bob(), *plain = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  struct { const tress_mesh *mesh; const char *name, *why; } cases[] = {
    {skinned, "rig.obj", "OBJ cannot hold bones"},
    {skinned, "rig.png", "must end in .glb"},
    {plain, "plain.fbx", "must end in .glb"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, cases[i].name);
    tress_error err = {0};
    assert_int_not_equal(tress_mesh_file_write(cases[i].mesh, path, &err), 0);
    if (!strstr(err.message, cases[i].why)) fail_msg("%s: %s", cases[i].name, err.message);
    assert_int_not_equal(access(path, F_OK), 0);
  }
  /* An unskinned mesh still goes to OBJ. */
  char path[1200];
  snprintf(path, sizeof path, "%s/plain.obj", tmp_dir);
  assert_int_equal(tress_mesh_file_write(plain, path, NULL), 0);
  tress_mesh *back = tress_mesh_file_load(path, NULL);
  assert_non_null(back);
  assert_int_equal(back->vertex_count, plain->vertex_count);
  tress_mesh_release(back);
  tress_mesh_release(plain);
  tress_mesh_release(skinned);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gltf_is_json_with_embedded_buffer),
    cmocka_unit_test(test_write_by_extension),
    cmocka_unit_test(test_refused_outputs_write_nothing),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
