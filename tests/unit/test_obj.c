/* test_obj.c - OBJ reader: the committed sample matches its .glb twin, polygons fan into
 * triangles, negative and v/vt/vn indices resolve, bad files fail with a line number. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tress/gltf.h"
#include "tress/mesh_file.h"
#include "tress/obj.h"
#include "tress/rig.h"

static void test_sample_obj_matches_glb(void **state) {
  (void)state;
  tress_error err = {0};
  tress_mesh *obj = tress_mesh_file_load("assets/meshes/hair_bob.obj", &err);
  if (!obj) fail_msg("%s", err.message);
  tress_mesh *glb = tress_mesh_file_load("assets/meshes/hair_bob.glb", &err);
  assert_non_null(glb);
  assert_int_equal(obj->vertex_count, glb->vertex_count);
  assert_int_equal(obj->index_count, glb->index_count);
  /* OBJ vertices come in first-use order, so compare corner by corner through the indices. */
  for (size_t i = 0; i < obj->index_count; i++)
    for (int k = 0; k < 3; k++) {
      assert_float_equal(obj->positions[3 * obj->indices[i] + k], glb->positions[3 * glb->indices[i] + k], 1e-5f);
      assert_float_equal(obj->normals[3 * obj->indices[i] + k], glb->normals[3 * glb->indices[i] + k], 1e-5f);
    }
  assert_non_null(obj->uvs);
  /* Texture coordinates too: OBJ's bottom-up v becomes glTF's top-down v on the way in. */
  for (size_t i = 0; i < obj->index_count; i++)
    for (int k = 0; k < 2; k++)
      assert_float_equal(obj->uvs[2 * obj->indices[i] + k], glb->uvs[2 * glb->indices[i] + k], 1e-5f);
  /* And it rigs like the glb does. */
  tress_rig_output a, b;
  assert_int_equal(tress_rig_mesh(obj, NULL, &a, NULL), TRESS_RIG_OK);
  assert_int_equal(tress_rig_mesh(glb, NULL, &b, NULL), TRESS_RIG_OK);
  for (uint32_t j = 0; j < a.bone_count; j++) {
    assert_string_equal(a.bones[j].name, b.bones[j].name);
    for (int k = 0; k < 3; k++) assert_float_equal(a.bones[j].bind_pos[k], b.bones[j].bind_pos[k], 1e-4f);
  }
  tress_rig_output_free(&a);
  tress_rig_output_free(&b);
  tress_mesh_release(obj);
  tress_mesh_release(glb);
}

static void test_polygons_and_indices(void **state) {
  (void)state;
  const char *text =
    "# a quad and a pentagon\r\n"
    "o thing\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
    "vn 0 0 1\n"
    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
    "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
    "v 2 0 0\nv 3 0 0\nv 3 1 0\nv 2.5 2 0\nv 2 1 0\n"
    "f -5 -4 -3 -2 -1   # negative indices, position only\n";
  tress_error err = {0};
  tress_mesh *m = tress_obj_read_memory(text, strlen(text), &err);
  if (!m) fail_msg("%s", err.message);
  /* Quad: 4 corners -> 2 triangles; pentagon: 5 corners -> 3 triangles. */
  assert_int_equal(m->index_count, 3 * (2 + 3));
  assert_int_equal(m->vertex_count, 4 + 5);
  /* Corners without a normal mean the mesh keeps no normals; fan from the first corner. */
  assert_null(m->normals);
  uint32_t expect[15] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 4, 7, 8};
  assert_memory_equal(m->indices, expect, sizeof expect);
  assert_float_equal(m->positions[3 * 7], 2.5f, 0);
  assert_float_equal(m->positions[3 * 7 + 1], 2.0f, 0);
  tress_mesh_release(m);

  /* OBJ's v runs up from the image's bottom, glTF's down from its top: vt 1 0.25 is (1, 0.75). */
  const char *textured = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0.25\nvt 0 1\nf 1/1 2/2 3/3\n";
  m = tress_obj_read_memory(textured, strlen(textured), &err);
  assert_non_null(m);
  assert_non_null(m->uvs);
  const float want[6] = {0, 1, 1, 0.75f, 0, 0};
  for (int k = 0; k < 6; k++) assert_float_equal(m->uvs[k], want[k], 1e-6f);
  tress_mesh_release(m);

  /* Shared corners are one vertex; normals kept when every corner has one. */
  const char *shared = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 2//1 4//1 3//1\n";
  m = tress_obj_read_memory(shared, strlen(shared), &err);
  assert_non_null(m);
  assert_int_equal(m->vertex_count, 4);
  assert_non_null(m->normals);
  assert_float_equal(m->normals[2], 1.0f, 0);
  tress_mesh_release(m);
}

static void test_bad_obj(void **state) {
  (void)state;
  struct { const char *text, *expect; } cases[] = {
    {"v 0 0 0\nv 1 0 0\nf 1 2 3\n", "position index 3 out of range"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "face with 2 corners"},
    {"v 0 0 zero\n", "bad number"},
    {"v nan 0 0\n", "bad number"},
    {"v 0 0\n", "expected 3 numbers"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", "out of range"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "out of range"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/5 2 3\n", "uv index 5 out of range"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2 3\n", "normal index 1 out of range"},
    {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1x 2 3\n", "bad face corner"},
    {"v 0 0 0\n", "no faces"},
    {"", "no faces"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tress_error err = {0};
    tress_mesh *m = tress_obj_read_memory(cases[i].text, strlen(cases[i].text), &err);
    if (m) fail_msg("case %zu accepted", i);
    if (!strstr(err.message, cases[i].expect)) fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].expect);
    assert_int_not_equal(err.code, 0); /* the caller's error has a code as well as words */
    /* err may be NULL: the same refusal, nothing written anywhere */
    assert_null(tress_obj_read_memory(cases[i].text, strlen(cases[i].text), NULL));
  }
  tress_error err = {0};
  assert_null(tress_obj_load("assets/meshes/does_not_exist.obj", &err));
  assert_non_null(strstr(err.message, "cannot open"));
  assert_int_not_equal(err.code, 0);
  assert_null(tress_obj_load("assets/meshes/does_not_exist.obj", NULL));
  /* a failed write returns the code it puts in err */
  tress_mesh *empty = tress_mesh_create(&(tress_mesh_def){0});
  tress_error werr = {0};
  int rc = tress_obj_write(empty, "/nonexistent-dir/x.obj", &werr);
  assert_int_not_equal(rc, 0);
  assert_int_equal(rc, werr.code);
  assert_true(werr.message[0] != '\0');
  tress_mesh_release(empty);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sample_obj_matches_glb),
    cmocka_unit_test(test_polygons_and_indices),
    cmocka_unit_test(test_bad_obj),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
