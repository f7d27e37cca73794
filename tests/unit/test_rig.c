/* test_rig.c - rig() on a real scene: bones under the part, names, scaling by size / mesh size,
 * size kept, the bake kept alive by the part, every failure reason in the seed's order with the
 * scene unchanged, the budget, the scene-free core on several threads, and the content hash. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tress/mesh_hash.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"
#include "tress/scene.h"
#include "support/scene_build.h"

typedef struct fixture {
  tress_scene *scene;
  tress_id model, accessory, part;
  tress_mesh *mesh; /* the boneless source (the part holds one reference, we hold one) */
} fixture;

static void make_fixture(fixture *f, tress_mesh *mesh) {
  f->scene = th_scene();
  f->model = th_instance(f->scene, TRESS_KIND_MODEL, "Avatar", tress_scene_get_root(f->scene));
  f->accessory = th_instance(f->scene, TRESS_KIND_ACCESSORY, "HairAccessory", f->model);
  tress_accessory_set_type(f->scene, f->accessory, TRESS_ACCESSORY_HAIR);
  f->part = th_instance(f->scene, TRESS_KIND_PART, "Handle", f->accessory);
  tress_part_set_cframe(f->scene, f->part, tress_xform_from_pos(3.0f, 5.0f, -2.0f));
  f->mesh = mesh;
  if (mesh) {
    tress_part_set_mesh(f->scene, f->part, mesh);
    tress_part_set_asset_id(f->scene, f->part, "hair-bob");
    float ms[3];
    tress_part_get_mesh_size(f->scene, f->part, ms);
    /* Worn at a different scale on each axis. */
    float size[3] = {ms[0] * 2.0f, ms[1] * 0.5f, ms[2] * 1.5f};
    tress_part_set_size(f->scene, f->part, size);
  }
}

static void free_fixture(fixture *f) {
  tress_scene_destroy(f->scene);
  tress_mesh_release(f->mesh);
}

typedef struct snapshot {
  uint32_t instances;
  const tress_mesh *mesh;
  int32_t refcount;
  bool skinned;
  float size[3], mesh_size[3];
  tress_id first_child;
  uint64_t budget_used;
} snapshot;

static snapshot take(const fixture *f, const tress_rig_budget *budget) {
  snapshot s;
  memset(&s, 0, sizeof s);
  s.instances = tress_scene_get_instance_count(f->scene);
  s.mesh = tress_part_get_mesh(f->scene, f->part);
  s.refcount = s.mesh ? s.mesh->refcount : 0;
  s.skinned = tress_mesh_is_skinned(s.mesh);
  tress_part_get_size(f->scene, f->part, s.size);
  tress_part_get_mesh_size(f->scene, f->part, s.mesh_size);
  s.first_child = tress_instance_get_first_child(f->scene, f->part);
  s.budget_used = budget ? budget->used : 0;
  return s;
}

static void assert_unchanged(const snapshot *a, const snapshot *b) {
  assert_int_equal(a->instances, b->instances);
  assert_ptr_equal(a->mesh, b->mesh);
  assert_int_equal(a->refcount, b->refcount);
  assert_int_equal(a->skinned, b->skinned);
  assert_memory_equal(a->size, b->size, sizeof a->size);
  assert_memory_equal(a->mesh_size, b->mesh_size, sizeof a->mesh_size);
  assert_true(tress_id_is_equal(a->first_child, b->first_child));
  assert_int_equal(a->budget_used, b->budget_used);
}

static void test_rig_builds_bones_and_swaps_in_place(void **state) {
  (void)state;
  tress_error err = {0};
  fixture f;
  make_fixture(&f, tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB));
  float size_before[3], mesh_size[3];
  tress_part_get_size(f.scene, f.part, size_before);
  tress_part_get_mesh_size(f.scene, f.part, mesh_size);
  tress_rig_opts opts = tress_default_rig_opts();
  tress_rig_result r;
  assert_int_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_OK);
  assert_string_equal(err.message, "");
  assert_int_equal(r.bone_count, 10);

  /* The part now holds a new, skinned mesh; the source is untouched and only ours again. */
  tress_mesh *baked = tress_part_get_mesh(f.scene, f.part);
  assert_ptr_not_equal(baked, f.mesh);
  assert_true(tress_mesh_is_skinned(baked));
  assert_false(tress_mesh_is_skinned(f.mesh));
  assert_int_equal(f.mesh->refcount, 1);
  assert_int_equal(baked->refcount, 1); /* the part's reference keeps the bake alive */
  assert_int_equal(baked->vertex_count, f.mesh->vertex_count);
  assert_memory_equal(baked->positions, f.mesh->positions, 12 * (size_t)f.mesh->vertex_count);
  float size_after[3];
  tress_part_get_size(f.scene, f.part, size_after);
  assert_memory_equal(size_before, size_after, sizeof size_after);

  /* Bone instances: HairRoot under the part, chains under it, names exactly the plan's. */
  float mn[3], mx[3], centre[3], scale[3];
  tress_mesh_get_bounds(baked, mn, mx);
  for (int k = 0; k < 3; k++) {
    centre[k] = 0.5f * (mn[k] + mx[k]);
    scale[k] = size_before[k] / mesh_size[k];
  }
  for (uint32_t b = 0; b < r.bone_count; b++) {
    tress_id id = r.bone_ids[b];
    assert_int_equal(tress_instance_get_kind(f.scene, id), TRESS_KIND_BONE);
    char name[TRESS_NAME_MAX];
    tress_instance_get_name(f.scene, id, name);
    assert_string_equal(name, r.bone_names[b]);
    assert_string_equal(baked->bones[b].name, r.bone_names[b]);
    int32_t parent = baked->bones[b].parent;
    tress_id expected_parent = parent < 0 ? f.part : r.bone_ids[parent];
    assert_true(tress_id_is_equal(tress_instance_get_parent(f.scene, id), expected_parent));
    /* Rest cframe: root from the bounds centre, chain from the parent, scaled per axis. */
    const float *origin = parent < 0 ? centre : baked->bones[parent].bind_pos;
    tress_xform cf = tress_bone_get_cframe(f.scene, id);
    for (int k = 0; k < 3; k++)
      assert_float_equal(cf.p[k], (baked->bones[b].bind_pos[k] - origin[k]) * scale[k], 1e-4f);
    /* So the rest world position is the bind position, centred and scaled, in the part's frame. */
    tress_xform world = tress_bone_get_world_rest(f.scene, id);
    tress_xform part_cf = tress_part_get_cframe(f.scene, f.part);
    for (int k = 0; k < 3; k++)
      assert_float_equal(world.p[k], part_cf.p[k] + (baked->bones[b].bind_pos[k] - centre[k]) * scale[k], 1e-3f);
  }
  assert_string_equal(r.bone_names[0], "HairRoot");
  assert_string_equal(r.bone_names[9], "Hair_S3_B3");
  assert_true(tress_id_is_equal(tress_instance_find_child(f.scene, f.part, "HairRoot"), r.bone_ids[0]));
  tress_rig_result_free(&r);

  /* The bake lives exactly as long as the part. */
  tress_instance_destroy(f.scene, f.part);
  assert_false(tress_instance_is_valid(f.scene, f.part));
  free_fixture(&f);
}

static bool owns_only(void *user, const char *asset_id) {
  int *calls = user;
  (*calls)++;
  return strcmp(asset_id, "hair-owned") == 0;
}

static void test_no_mesh_first(void **state) {
  (void)state;
  tress_error err = {0};
  fixture f;
  make_fixture(&f, NULL);
  tress_part_set_asset_id(f.scene, f.part, "not-owned");
  int calls = 0;
  tress_rig_opts opts = tress_default_rig_opts();
  opts.owns_asset = owns_only;
  opts.owns_asset_user = &calls;
  tress_rig_budget budget = {0, 0}; /* spent too: the mesh check still comes first */
  opts.budget = &budget;
  snapshot before = take(&f, &budget);
  tress_rig_result r;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_NO_MESH);
  /* the caller's error carries the status's tress_result */
  assert_int_equal(err.code, TRESS_ERR_NOTHING_TO_BIND);
  assert_int_equal(tress_rig_status_to_result(r.status), err.code);
  assert_string_equal(tress_rig_status_name(r.status), "no_mesh");
  assert_string_equal(err.message, "the MeshPart has no mesh");
  assert_int_equal(calls, 0); /* rejected before the permission gate is asked */
  snapshot after = take(&f, &budget);
  assert_unchanged(&before, &after);
  tress_rig_result_free(&r);
  /* An empty mesh is no mesh either. */
  tress_mesh *empty = tress_mesh_create(&(tress_mesh_def){0});
  tress_part_set_mesh(f.scene, f.part, empty);
  before = take(&f, &budget);
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_string_equal(err.message, "the MeshPart has no mesh");
  after = take(&f, &budget);
  assert_unchanged(&before, &after);
  tress_rig_result_free(&r);
  tress_mesh_release(empty);
  /* A stale id is refused too. */
  tress_id stale = f.part;
  tress_instance_destroy(f.scene, f.part);
  assert_int_not_equal(tress_rig_part(f.scene, stale, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_BAD_PART);
  free_fixture(&f);
}

static void test_permission_gate(void **state) {
  (void)state;
  tress_error err = {0};
  fixture f;
  make_fixture(&f, tress_sample_hair_create(TRESS_SAMPLE_HAIR_PONYTAIL));
  int calls = 0;
  tress_rig_opts opts = tress_default_rig_opts();
  opts.owns_asset = owns_only;
  opts.owns_asset_user = &calls;
  tress_rig_budget budget = {0, 0}; /* spent: the permission gate still comes first */
  opts.budget = &budget;
  snapshot before = take(&f, &budget);
  tress_rig_result r;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_NO_PERMISSION);
  assert_int_equal(err.code, TRESS_ERR_PERMISSION);
  assert_string_equal(err.message, "no permission to load asset");
  assert_int_equal(calls, 1);
  snapshot after = take(&f, &budget);
  assert_unchanged(&before, &after);
  tress_rig_result_free(&r);
  /* The same part with an owned asset and room in the budget rigs. */
  tress_part_set_asset_id(f.scene, f.part, "hair-owned");
  budget.limit = 64u << 20;
  assert_int_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(calls, 2);
  tress_rig_result_free(&r);
  free_fixture(&f);
}

static void test_budget(void **state) {
  (void)state;
  tress_error err = {0};
  fixture f;
  make_fixture(&f, tress_sample_hair_create(TRESS_SAMPLE_HAIR_LONG));
  tress_rig_opts opts = tress_default_rig_opts();
  uint64_t cost = tress_rig_get_bake_bytes(f.mesh, 10);
  tress_rig_budget budget = {cost - 1, 0};
  opts.budget = &budget;
  snapshot before = take(&f, &budget);
  tress_rig_result r;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_BUDGET);
  assert_int_equal(err.code, TRESS_ERR_LIMIT);
  assert_non_null(strstr(err.message, "budget is spent"));
  snapshot after = take(&f, &budget);
  assert_unchanged(&before, &after);
  tress_rig_result_free(&r);
  /* Not cached: once there is room, the same rig succeeds and is charged exactly its cost. */
  budget.limit = cost;
  assert_int_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(budget.used, cost);
  assert_int_equal(tress_rig_get_bake_bytes(tress_part_get_mesh(f.scene, f.part), 10), cost);
  tress_rig_result_free(&r);
  /* A second part does not fit any more. */
  tress_id other = th_instance(f.scene, TRESS_KIND_PART, "Handle2", f.accessory);
  tress_part_set_mesh(f.scene, other, f.mesh);
  assert_int_not_equal(tress_rig_part(f.scene, other, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_BUDGET);
  tress_rig_result_free(&r);
  /* Destroying the rigged part gives its bytes back, and then the other part fits. */
  tress_instance_destroy(f.scene, f.part);
  assert_int_equal(budget.used, 0);
  assert_int_equal(tress_rig_part(f.scene, other, &opts, &r, &err), TRESS_RIG_OK);
  tress_rig_result_free(&r);
  free_fixture(&f);
}

static void test_plan_failures_leave_scene_unchanged(void **state) {
  (void)state;
  tress_error err = {0};
  /* A 1-vertex mesh: the default root (top centre of bounds) is the vertex itself. */
  tress_mesh *one = tress_mesh_create(&(tress_mesh_def){.vertex_count = 1});
  one->positions[0] = 0.2f; one->positions[1] = 1.0f; one->positions[2] = 0.3f;
  fixture f;
  make_fixture(&f, one);
  tress_rig_opts opts = tress_default_rig_opts();
  snapshot before = take(&f, NULL);
  tress_rig_result r;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_PLAN);
  assert_non_null(strstr(err.message, "only vertex is at (0.2, 1, 0.3): it has no extent"));
  snapshot after = take(&f, NULL);
  assert_unchanged(&before, &after);
  tress_rig_result_free(&r);
  /* With a root above it, the 1-vertex mesh rigs. */
  opts.plan.has_root = true;
  opts.plan.root[1] = 2.0f;
  assert_int_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.bone_count, 10);
  tress_rig_result_free(&r);
  free_fixture(&f);

  /* NaN vertex, absurd segments. */
  tress_mesh *bob = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  bob->positions[3 * 100 + 1] = NAN;
  make_fixture(&f, bob);
  opts = tress_default_rig_opts();
  before = take(&f, NULL);
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_non_null(strstr(err.message, "NaN"));
  tress_rig_result_free(&r);
  bob->positions[3 * 100 + 1] = 0.5f;
  opts.plan.segments = 100000;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  assert_int_equal(r.status, TRESS_RIG_ERR_PLAN);
  assert_non_null(strstr(err.message, "sectors and segments"));
  tress_rig_result_free(&r);
  opts.plan.segments = 0;
  assert_int_not_equal(tress_rig_part(f.scene, f.part, &opts, &r, &err), TRESS_RIG_OK);
  tress_rig_result_free(&r);
  after = take(&f, NULL);
  assert_unchanged(&before, &after);
  free_fixture(&f);
}

static void test_verify_bake(void **state) {
  (void)state;
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  assert_false(tress_rig_is_bake_valid(m, 10)); /* a bake with no skin lost its skinning */
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(m, NULL, &out, NULL), TRESS_RIG_OK);
  assert_true(tress_rig_is_bake_valid(out.mesh, 10));
  assert_false(tress_rig_is_bake_valid(out.mesh, 11));
  out.mesh->joints[4 * 7] = 10; /* a joint past the skeleton */
  assert_false(tress_rig_is_bake_valid(out.mesh, 10));
  out.mesh->joints[4 * 7] = 1;
  out.mesh->weights[4 * 7] = 0.5f; /* weights no longer sum to 1 */
  assert_false(tress_rig_is_bake_valid(out.mesh, 10));
  tress_rig_output_free(&out);
  tress_mesh_release(m);
}

/* The scene-free core rigs the same on several threads at once as on one. */
typedef struct job {
  const tress_mesh *mesh;
  tress_rig_output out;
  tress_rig_status status;
} job;

static void *run_job(void *p) {
  job *j = p;
  tress_rig_opts opts = tress_default_rig_opts();
  opts.plan.sectors = 4;
  j->status = tress_rig_mesh(j->mesh, &opts, &j->out, NULL);
  return NULL;
}

static void test_rig_mesh_threads(void **state) {
  (void)state;
  tress_mesh *m = tress_sample_hair_create(TRESS_SAMPLE_HAIR_LONG);
  job serial = {m};
  run_job(&serial);
  assert_int_equal(serial.status, TRESS_RIG_OK);
  job jobs[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (job){m};
    assert_int_equal(pthread_create(&threads[i], NULL, run_job, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(jobs[i].status, TRESS_RIG_OK);
    assert_int_equal(jobs[i].out.bone_count, 13);
    assert_memory_equal(jobs[i].out.bones, serial.out.bones, sizeof(tress_rig_bone) * 13);
    assert_memory_equal(jobs[i].out.mesh->weights, serial.out.mesh->weights, 16 * (size_t)m->vertex_count);
    assert_memory_equal(jobs[i].out.mesh->joints, serial.out.mesh->joints, 8 * (size_t)m->vertex_count);
    tress_rig_output_free(&jobs[i].out);
  }
  /* Rest transforms: root from the bounds centre, chain bones from their parent. */
  for (uint32_t b = 1; b < serial.out.bone_count; b++) {
    const tress_rig_bone *bone = &serial.out.bones[b];
    for (int k = 0; k < 3; k++)
      assert_float_equal(bone->rest.p[k], bone->bind_pos[k] - serial.out.bones[bone->parent].bind_pos[k], 1e-6f);
  }
  for (int k = 0; k < 3; k++)
    assert_float_equal(serial.out.bones[0].rest.p[k], serial.out.root[k] - serial.out.bounds_center[k], 1e-6f);
  /* The default root is the top centre of the bounds. */
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  assert_float_equal(serial.out.root[1], mx[1], 1e-6f);
  assert_float_equal(serial.out.root[0], 0.5f * (mn[0] + mx[0]), 1e-6f);
  tress_rig_output_free(&serial.out);
  tress_mesh_release(m);
}

static void test_content_hash(void **state) {
  (void)state;
  tress_mesh *a = tress_sample_hair_create(TRESS_SAMPLE_HAIR_BOB);
  tress_mesh *b = tress_mesh_clone(a);
  uint8_t ha[32], hb[32];
  assert_int_equal(tress_mesh_get_content_hash(a, ha), 0);
  assert_int_equal(tress_mesh_get_content_hash(b, hb), 0);
  assert_memory_equal(ha, hb, 32);
  /* Normals and skins are not content; positions and indices are. */
  b->normals[0] = -b->normals[0];
  tress_rig_output out;
  assert_int_equal(tress_rig_mesh(a, NULL, &out, NULL), TRESS_RIG_OK);
  assert_int_equal(tress_mesh_get_content_hash(out.mesh, hb), 0);
  assert_memory_equal(ha, hb, 32);
  tress_rig_output_free(&out);
  b->positions[5] += 1e-6f;
  tress_mesh_get_content_hash(b, hb);
  assert_memory_not_equal(ha, hb, 32);
  b->positions[5] = a->positions[5];
  uint32_t t = b->indices[0];
  b->indices[0] = b->indices[1];
  b->indices[1] = t;
  tress_mesh_get_content_hash(b, hb);
  assert_memory_not_equal(ha, hb, 32);
  /* Different styles differ; hex is 64 lower-case digits. */
  tress_mesh *c = tress_sample_hair_create(TRESS_SAMPLE_HAIR_LONG);
  tress_mesh_get_content_hash(c, hb);
  assert_memory_not_equal(ha, hb, 32);
  char hex[65];
  tress_mesh_hash_to_hex(ha, hex);
  assert_int_equal(strlen(hex), 64);
  assert_int_equal(strspn(hex, "0123456789abcdef"), 64);
  assert_int_equal(tress_mesh_get_content_hash(NULL, ha), -1);
  tress_mesh_release(a);
  tress_mesh_release(b);
  tress_mesh_release(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rig_builds_bones_and_swaps_in_place),
    cmocka_unit_test(test_no_mesh_first),
    cmocka_unit_test(test_permission_gate),
    cmocka_unit_test(test_budget),
    cmocka_unit_test(test_plan_failures_leave_scene_unchanged),
    cmocka_unit_test(test_verify_bake),
    cmocka_unit_test(test_rig_mesh_threads),
    cmocka_unit_test(test_content_hash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
