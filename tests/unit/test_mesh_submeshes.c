/* test_mesh_submeshes.c - a mesh's material runs (tress_mesh submeshes): the rules
 * tress_mesh_set_submeshes enforces, clone and rig keep them; the glTF reader makes one run per
 * primitive instance (same-material neighbours merged, a missing material refused, primitives
 * over the same vertex data reading it once, so a write and a read keep the vertex count); OBJ usemtl
 * groups become runs and the OBJ writer writes them back; a write without a source makes plain
 * named materials; a source's external image is confined to the folder, or to root_dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tress/gltf.h"
#include "tress/gltf_source.h"
#include "tress/mesh.h"
#include "tress/obj.h"
#include "tress/rig.h"

static char tmp_dir[1024];

static int setup(void **state) {
  (void)state;
  const char *bin = getenv("TRESS_BINARY_DIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/submesh-test-XXXXXX", bin ? bin : "/tmp");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static tress_mesh_submesh run(uint32_t first, uint32_t count, int32_t material, const char *name) {
  tress_mesh_submesh s = {first, count, material, ""};
  snprintf(s.material_name, sizeof s.material_name, "%s", name);
  return s;
}

static tress_mesh *two_triangles(void) {
  tress_mesh_def def = {.vertex_count = 4, .index_count = 6};
  tress_mesh *m = tress_mesh_create(&def);
  const uint32_t ix[6] = {0, 1, 2, 0, 2, 3};
  const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  memcpy(m->indices, ix, sizeof ix);
  memcpy(m->positions, pos, sizeof pos);
  return m;
}

static void test_set_submeshes_rules(void **state) {
  (void)state;
  tress_mesh *m = two_triangles();
  tress_mesh_submesh gap[2] = {run(0, 3, 0, "a"), run(4, 2, 1, "b")};
  tress_mesh_submesh short_[1] = {run(0, 3, 0, "a")};
  tress_mesh_submesh empty[2] = {run(0, 0, 0, "a"), run(0, 6, 1, "b")};
  tress_mesh_submesh partial[2] = {run(0, 4, 0, "a"), run(4, 2, 1, "b")};
  assert_int_equal(tress_mesh_set_submeshes(m, gap, 2), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_mesh_set_submeshes(m, short_, 1), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_mesh_set_submeshes(m, empty, 2), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(tress_mesh_set_submeshes(m, partial, 2), TRESS_ERR_INVALID_ARGUMENT);
  assert_int_equal(m->submesh_count, 0);
  tress_mesh_submesh good[2] = {run(0, 3, 1, "Strands"), run(3, 3, 0, "Cap")};
  assert_int_equal(tress_mesh_set_submeshes(m, good, 2), TRESS_OK);
  tress_mesh *copy = tress_mesh_clone(m);
  assert_int_equal(copy->submesh_count, 2);
  assert_memory_equal(copy->submeshes, good, sizeof good);
  assert_int_equal(tress_mesh_set_submeshes(m, NULL, 0), TRESS_OK);
  assert_int_equal(m->submesh_count, 0);
  tress_mesh_release(copy);
  tress_mesh_release(m);
}

/* Writes dir/t.bin (4 positions, two triangles as two index accessors) and returns a .gltf
 * with meshes and nodes as given. */
static void write_gltf(const char *name, const char *meshes, const char *nodes) {
  const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  const uint16_t ix[6] = {0, 1, 2, 0, 2, 3};
  char path[1200];
  snprintf(path, sizeof path, "%s/t.bin", tmp_dir);
  FILE *f = fopen(path, "wb");
  fwrite(pos, 1, sizeof pos, f);
  fwrite(ix, 1, sizeof ix, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  f = fopen(path, "w");
  fprintf(f,
          "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"t.bin\",\"byteLength\":60}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
          "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
          "{\"bufferView\":1,\"byteOffset\":6,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
          "\"materials\":[{\"name\":\"Cap\"},{\"name\":\"Strands\"}],\"meshes\":%s,\"nodes\":%s}",
          meshes, nodes);
  fclose(f);
}

#define PRIM(indices, material) "{\"attributes\":{\"POSITION\":0},\"indices\":" #indices material "}"

static tress_mesh *load(const char *name, tress_error *err) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  return tress_gltf_load(path, err);
}

static void assert_runs(const tress_mesh *m, const tress_mesh_submesh *want, uint32_t count) {
  assert_int_equal(m->submesh_count, count);
  for (uint32_t i = 0; i < count; i++) {
    assert_int_equal(m->submeshes[i].first_index, want[i].first_index);
    assert_int_equal(m->submeshes[i].index_count, want[i].index_count);
    assert_int_equal(m->submeshes[i].material, want[i].material);
    assert_string_equal(m->submeshes[i].material_name, want[i].material_name);
  }
}

static void test_gltf_primitives_are_runs(void **state) {
  (void)state;
  tress_error err = {0};
  write_gltf("two.gltf", "[{\"primitives\":[" PRIM(1, ",\"material\":1") "," PRIM(2, ",\"material\":0") "]}]", "[{\"mesh\":0}]");
  tress_mesh *m = load("two.gltf", &err);
  if (!m) fail_msg("%s", err.message);
  tress_mesh_submesh two[2] = {run(0, 3, 1, "Strands"), run(3, 3, 0, "Cap")};
  assert_runs(m, two, 2);
  assert_int_equal(m->vertex_count, 4); /* both primitives index one POSITION: read once */
  tress_mesh_release(m);
  /* instanced twice: a run per material change, in instance order */
  write_gltf("twice.gltf", "[{\"primitives\":[" PRIM(1, ",\"material\":1") "," PRIM(2, ",\"material\":0") "]}]",
             "[{\"mesh\":0},{\"mesh\":0,\"translation\":[0,0,1]}]");
  m = load("twice.gltf", &err);
  if (!m) fail_msg("%s", err.message);
  tress_mesh_submesh four[4] = {run(0, 3, 1, "Strands"), run(3, 3, 0, "Cap"), run(6, 3, 1, "Strands"), run(9, 3, 0, "Cap")};
  assert_runs(m, four, 4);
  assert_int_equal(m->vertex_count, 8);
  assert_int_equal(m->indices[9], 4); /* the second copy's Cap indexes the second copy's vertices */
  tress_mesh_release(m);
  /* neighbours of one material are one run; no material is -1 */
  write_gltf("same.gltf", "[{\"primitives\":[" PRIM(1, ",\"material\":0") "," PRIM(2, ",\"material\":0") "," PRIM(1, "") "]}]",
             "[{\"mesh\":0}]");
  m = load("same.gltf", &err);
  if (!m) fail_msg("%s", err.message);
  tress_mesh_submesh merged[2] = {run(0, 6, 0, "Cap"), run(6, 3, -1, "")};
  assert_runs(m, merged, 2);
  tress_mesh_release(m);
  write_gltf("missing.gltf", "[{\"primitives\":[" PRIM(1, ",\"material\":5") "]}]", "[{\"mesh\":0}]");
  assert_null(load("missing.gltf", &err));
  assert_non_null(strstr(err.message, "materials[5]"));
}

/* Written without a source and read back: the same runs, each with a plain material of its name. */
static void test_write_keeps_runs(void **state) {
  (void)state;
  tress_mesh *m = two_triangles();
  tress_mesh_submesh good[2] = {run(0, 3, 4, "Strands"), run(3, 3, 2, "Cap")};
  assert_int_equal(tress_mesh_set_submeshes(m, good, 2), TRESS_OK);
  const char *names[2] = {"w.glb", "w.gltf"};
  for (int i = 0; i < 2; i++) {
    char path[1200];
    tress_error err = {0};
    snprintf(path, sizeof path, "%s/%s", tmp_dir, names[i]);
    assert_int_equal(i ? tress_gltf_write_gltf(m, path, &err) : tress_gltf_write_glb(m, path, &err), 0);
    tress_mesh *back = tress_gltf_load(path, &err);
    if (!back) fail_msg("%s", err.message);
    tress_mesh_submesh want[2] = {run(0, 3, 0, "Strands"), run(3, 3, 1, "Cap")}; /* materials in order of use */
    assert_runs(back, want, 2);
    assert_memory_equal(back->indices, m->indices, sizeof(uint32_t) * 6);
    tress_mesh_release(back);
  }
  tress_mesh_release(m);
}

static void test_obj_usemtl_runs(void **state) {
  (void)state;
  const char *text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                     "f 1 2 3\n"
                     "usemtl Cap\nf 1 2 3\nf 1 3 4\n"
                     "usemtl Strands # comment\nf 1 3 4\n"
                     "usemtl Cap\nf 2 3 4\n";
  tress_error err = {0};
  tress_mesh *m = tress_obj_read_memory(text, strlen(text), &err);
  if (!m) fail_msg("%s", err.message);
  tress_mesh_submesh want[4] = {run(0, 3, -1, ""), run(3, 6, 0, "Cap"), run(9, 3, 1, "Strands"), run(12, 3, 0, "Cap")};
  assert_runs(m, want, 4);
  char path[1200];
  snprintf(path, sizeof path, "%s/u.obj", tmp_dir);
  assert_int_equal(tress_obj_write(m, path, &err), 0);
  tress_mesh *back = tress_obj_load(path, &err);
  if (!back) fail_msg("%s", err.message);
  assert_runs(back, want, 4);
  tress_mesh_release(back);
  tress_mesh_release(m);
  const char *plain = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n";
  m = tress_obj_read_memory(plain, strlen(plain), &err);
  assert_int_equal(m->submesh_count, 0);
  tress_mesh_release(m);
}

static void test_rig_keeps_runs(void **state) {
  (void)state;
  tress_error err = {0};
  tress_mesh *m = tress_gltf_load("assets/meshes/hair_bob.glb", &err);
  if (!m) fail_msg("%s", err.message);
  uint32_t half = m->index_count / 6 * 3;
  tress_mesh_submesh runs[2] = {run(0, half, 0, "Cap"), run(half, m->index_count - half, 1, "Strands")};
  assert_int_equal(tress_mesh_set_submeshes(m, runs, 2), TRESS_OK);
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(m, NULL, &out, &err), TRESS_RIG_OK);
  assert_runs(out.mesh, runs, 2);
  tress_rig_output_free(&out);
  tress_mesh_release(m);
}

/* A .gltf in root/asset/ whose image is a symlink to root/shared/tex.png: outside the input's
 * folder (refused by default) but inside root_dir (carried when the store root is given). */
static void test_source_image_root_dir(void **state) {
  (void)state;
  static const uint8_t png[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0};
  char root[1100], dir[1200], path[1300], target[1300];
  snprintf(root, sizeof root, "%s/root", tmp_dir);
  snprintf(dir, sizeof dir, "%s/asset", root);
  snprintf(target, sizeof target, "%s/shared", root);
  assert_int_equal(mkdir(root, 0700), 0);
  assert_int_equal(mkdir(dir, 0700), 0);
  assert_int_equal(mkdir(target, 0700), 0);
  snprintf(target, sizeof target, "%s/shared/tex.png", root);
  FILE *f = fopen(target, "wb");
  fwrite(png, 1, sizeof png, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/tex.png", dir);
  assert_int_equal(symlink("../shared/tex.png", path), 0);
  snprintf(path, sizeof path, "%s/a.gltf", dir);
  f = fopen(path, "w");
  fputs("{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"tex.png\"}],\"textures\":[{\"source\":0}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]}", f);
  fclose(f);
  tress_error err = {0};
  tress_gltf_source *s = tress_gltf_source_load(path, &err);
  assert_non_null(s);
  assert_int_equal(tress_gltf_source_get_image_count(s), 0);
  assert_non_null(strstr(tress_gltf_source_get_warning(s), "leaves the asset directory (through a link)"));
  tress_gltf_source_destroy(s);
  tress_gltf_read_opts opts = tress_default_gltf_read_opts();
  opts.root_dir = root;
  s = tress_gltf_source_load_opts(path, &opts, &err);
  assert_non_null(s);
  assert_string_equal(tress_gltf_source_get_warning(s), "");
  assert_int_equal(tress_gltf_source_get_image_count(s), 1);
  assert_int_equal(tress_gltf_source_get_material_count(s), 1);
  tress_gltf_source_destroy(s);
  /* the image counts against max_bytes: a budget that holds the file but not the image */
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  opts.max_bytes = (uint64_t)st.st_size + sizeof png - 1;
  s = tress_gltf_source_load_opts(path, &opts, &err);
  assert_non_null(s);
  assert_int_equal(tress_gltf_source_get_image_count(s), 0);
  assert_non_null(strstr(tress_gltf_source_get_warning(s), "more than the read may still load"));
  tress_gltf_source_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_set_submeshes_rules),
    cmocka_unit_test(test_gltf_primitives_are_runs),
    cmocka_unit_test(test_write_keeps_runs),
    cmocka_unit_test(test_obj_usemtl_runs),
    cmocka_unit_test(test_rig_keeps_runs),
    cmocka_unit_test(test_source_image_root_dir),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
