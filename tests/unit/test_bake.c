/* test_bake.c - `tress-rig --bake SECONDS`: the baked .glb passes the Khronos validator with no
 * error or warning, has one LINEAR rotation channel per simulated bone over one time accessor
 * at the fixed rate, and its sampled rotations equal the native sim's bone rotations at the same
 * times, from this test's own scene and sim run under the same scripted head motion.
 * White-box on one point: the script itself (bake_head_pose) is compiled in from shared/tools,
 * so the test drives the sim with exactly the head motion the tool used. */
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

#include "bake.h"
#include "support/gltf_validator.h"
#include "support/rig_tool.h"
#include "tress/gltf.h"
#include "tress/scene.h"
#include "tress/sim.h"

#define SECONDS 2.0
#define HZ 60.0f

static rig_tool tool;

static int setup(void **state) {
  (void)state;
  return rig_tool_setup(&tool, "bake");
}

static int teardown(void **state) {
  (void)state;
  return rig_tool_teardown(&tool);
}

static void run_ok(const char *args) {
  char out[8192];
  int rc = rig_tool_run(&tool, args, out, sizeof out);
  if (rc != 0) fail_msg("tress-rig %s: exit %d\n%s", args, rc, out);
}

/* The baked file: its JSON and BIN chunk. */
typedef struct glb {
  uint8_t *data;
  cJSON *json;
  const uint8_t *bin;
  uint32_t bin_len;
} glb;

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static glb glb_load(const char *path) {
  glb g = {0};
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  g.data = malloc((size_t)size);
  assert_int_equal(fread(g.data, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  assert_int_equal(u32(g.data), 0x46546C67u);
  uint32_t json_len = u32(g.data + 12);
  g.json = cJSON_ParseWithLength((const char *)g.data + 20, json_len);
  assert_non_null(g.json);
  g.bin_len = u32(g.data + 20 + json_len);
  g.bin = g.data + 20 + json_len + 8;
  return g;
}

static void glb_free(glb *g) {
  cJSON_Delete(g->json);
  free(g->data);
}

static int item_int(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  assert_non_null(v);
  return v->valueint;
}

/* An accessor's floats (tightly packed, as the writer makes them) and its count. */
static const float *accessor_floats(const glb *g, int index, int *count, const char *type) {
  const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "accessors"), index);
  assert_non_null(acc);
  assert_int_equal(item_int(acc, "componentType"), 5126);
  assert_string_equal(cJSON_GetObjectItem(acc, "type")->valuestring, type);
  *count = item_int(acc, "count");
  const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "bufferViews"), item_int(acc, "bufferView"));
  assert_true((uint32_t)item_int(view, "byteOffset") + (uint32_t)item_int(view, "byteLength") <= g->bin_len);
  return (const float *)(const void *)(g->bin + item_int(view, "byteOffset"));
}

/* The validator's verdict line; true for no error and no warning. */
static bool validates_clean(const char *prefix, const char *path) {
  char cmd[3000], line[256] = "";
  snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s'", prefix, path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char all[8192];
  size_t n = fread(all, 1, sizeof all - 1, p);
  all[n] = 0;
  pclose(p);
  sscanf(all, "%255[^\n]", line);
  print_message("%s: %s\n", path, all);
  return strncmp(line, "errors=0 warnings=0 ", 20) == 0;
}

/* The native run: the baked file's own skin as scene bones under a Head part, the sim at the
 * same fixed rate and chain settings (rotations only), stepped once per frame under the script. */
typedef struct native {
  tress_scene *scene;
  tress_sim *sim;
  tress_id head;
  tress_id bones[256];
} native;

static tress_id make_instance(tress_scene *scene, tress_kind kind, const char *name, tress_id parent) {
  tress_instance_def d = tress_default_instance_def();
  d.kind = kind;
  d.name = name;
  d.parent = parent;
  tress_id id;
  assert_int_equal(tress_scene_create_instance(scene, &d, &id), TRESS_OK);
  return id;
}

static void native_make(native *n, const tress_mesh *m) {
  assert_true(m->bone_count <= 256);
  tress_scene_def sd = tress_default_scene_def();
  n->scene = tress_scene_create(&sd);
  n->head = make_instance(n->scene, TRESS_KIND_PART, "Head", tress_scene_get_root(n->scene));
  for (uint32_t i = 0; i < m->bone_count; i++) {
    int32_t p = m->bones[i].parent;
    n->bones[i] = make_instance(n->scene, TRESS_KIND_BONE, m->bones[i].name, p >= 0 ? n->bones[p] : n->head);
    float local[3];
    for (int k = 0; k < 3; k++) local[k] = m->bones[i].bind_pos[k] - (p >= 0 ? m->bones[p].bind_pos[k] : 0.0f);
    tress_bone_set_cframe(n->scene, n->bones[i], tress_xform_from_pos(local[0], local[1], local[2]));
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = n->scene;
  def.role = TRESS_SIM_SERVER;
  def.fixed_hz = HZ;
  def.max_chains = 1000;
  def.max_distance = 1e30f;
  n->sim = tress_sim_create(&def);
  tress_chain_settings s = tress_default_chain_settings();
  s.rotations_only = true;
  assert_int_equal(tress_sim_bind(n->sim, n->head, &s, NULL), TRESS_OK);
}

static void native_free(native *n) {
  tress_sim_destroy(n->sim);
  tress_scene_destroy(n->scene);
}

static float quat_distance(const float a[4], const float b[4]) {
  float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  float s = dot < 0.0f ? -1.0f : 1.0f, worst = 0.0f;
  for (int k = 0; k < 4; k++) worst = fmaxf(worst, fabsf(a[k] - s * b[k]));
  return worst;
}

static void test_baked_clip_validates_and_equals_the_native_sim(void **state) {
  (void)state;
  char prefix[1100], pony[1200], baked[1200], args[2600];
  snprintf(pony, sizeof pony, "%s/pony.glb", tool.tmp_dir);
  snprintf(baked, sizeof baked, "%s/baked.glb", tool.tmp_dir);
  snprintf(args, sizeof args, "--generate ponytail -o '%s'", pony);
  run_ok(args);
  snprintf(args, sizeof args, "'%s' -o '%s' --bake %g", pony, baked, SECONDS);
  run_ok(args);
  if (gltf_validator_ready(prefix, sizeof prefix)) assert_true(validates_clean(prefix, baked));
  else print_message("gltf-validator unavailable (no node/npm or no network): validation skipped\n");

  glb g = glb_load(baked);
  tress_error err = {0};
  tress_mesh *m = tress_gltf_load(baked, &err);
  assert_non_null(m);
  native n;
  native_make(&n, m);
  uint32_t simulated = 0;
  for (uint32_t b = 0; b < m->bone_count; b++) simulated += tress_bone_is_simulated(n.scene, n.bones[b]);
  assert_true(simulated > 0);

  const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "animations"), 0);
  assert_non_null(anim);
  const cJSON *channels = cJSON_GetObjectItem(anim, "channels"), *samplers = cJSON_GetObjectItem(anim, "samplers");
  const uint32_t frames = (uint32_t)ceil(SECONDS * HZ) + 1;
  int input = -1;
  uint32_t bone_channels = 0;
  bool seen[256] = {false};
  const float *rot[256] = {NULL};
  const float *head_p = NULL;
  const cJSON *ch;
  cJSON_ArrayForEach(ch, channels) {
    const cJSON *sampler = cJSON_GetArrayItem(samplers, item_int(ch, "sampler"));
    assert_string_equal(cJSON_GetObjectItem(sampler, "interpolation")->valuestring, "LINEAR");
    if (input < 0) input = item_int(sampler, "input");
    assert_int_equal(item_int(sampler, "input"), input); /* one time accessor */
    const cJSON *target = cJSON_GetObjectItem(ch, "target");
    int node = item_int(target, "node");
    const char *path = cJSON_GetObjectItem(target, "path")->valuestring;
    int count;
    if (node >= 1 && node <= (int)m->bone_count) {
      uint32_t b = (uint32_t)node - 1;
      assert_string_equal(path, "rotation");
      assert_false(seen[b]);
      assert_true(tress_bone_is_simulated(n.scene, n.bones[b]));
      seen[b] = true;
      rot[b] = accessor_floats(&g, item_int(sampler, "output"), &count, "VEC4");
      assert_int_equal(count, frames);
      bone_channels++;
    } else if (strcmp(path, "translation") == 0) {
      head_p = accessor_floats(&g, item_int(sampler, "output"), &count, "VEC3");
      assert_int_equal(count, frames);
    }
  }
  assert_int_equal(bone_channels, simulated); /* one channel per simulated bone */
  assert_non_null(head_p);
  int count;
  const float *times = accessor_floats(&g, input, &count, "SCALAR");
  assert_int_equal(count, frames);
  const cJSON *time_acc = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "accessors"), input);
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(time_acc, "min"), 0)->valuedouble == 0.0);
  assert_true(fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(time_acc, "max"), 0)->valuedouble - (frames - 1) / HZ) < 1e-5);

  float worst = 0.0f, sway = 0.0f;
  const float identity[4] = {0, 0, 0, 1};
  for (uint32_t k = 0; k < frames; k++) {
    assert_true(fabsf(times[k] - (float)k / HZ) < 1e-6f);
    tress_xform head = bake_head_pose(m, (double)k / HZ, SECONDS);
    tress_part_set_cframe(n.scene, n.head, head);
    assert_int_equal(tress_sim_step(n.sim, k == 0 ? 0.0 : 1.0 / HZ), TRESS_OK);
    for (int i = 0; i < 3; i++) assert_true(fabsf(head_p[3 * k + i] - head.p[i]) < 1e-6f);
    for (uint32_t b = 0; b < m->bone_count; b++) {
      if (!rot[b]) continue;
      float q[4];
      memcpy(q, tress_bone_get_transform(n.scene, n.bones[b]).q, sizeof q);
      tress_quat_normalize(q);
      worst = fmaxf(worst, quat_distance(rot[b] + 4 * k, q));
      sway = fmaxf(sway, quat_distance(rot[b] + 4 * k, identity));
    }
  }
  print_message("%u frames, %u channels: largest difference from the native sim %.3g, largest sway %.3f\n", frames,
                bone_channels, worst, sway);
  assert_true(worst < 1e-6f);
  assert_true(sway > 0.05f); /* the hair really swung: not a clip of identities */
  native_free(&n);
  tress_mesh_release(m);
  glb_free(&g);
}

/* An already skinned file is baked as it is (no --rerig), and validates too. */
static void test_skinned_input_bakes_as_it_is(void **state) {
  (void)state;
  char prefix[1100], pony[1200], rigged[1200], baked[1200], args[2600], out[8192];
  snprintf(pony, sizeof pony, "%s/pony2.glb", tool.tmp_dir);
  snprintf(rigged, sizeof rigged, "%s/rigged.glb", tool.tmp_dir);
  snprintf(baked, sizeof baked, "%s/baked_skinned.glb", tool.tmp_dir);
  snprintf(args, sizeof args, "--generate ponytail -o '%s'", pony);
  run_ok(args);
  snprintf(args, sizeof args, "'%s' -o '%s'", pony, rigged);
  run_ok(args);
  snprintf(args, sizeof args, "'%s' -o '%s' --bake 1", rigged, baked);
  run_ok(args);
  tress_error err = {0};
  tress_mesh *a = tress_gltf_load(rigged, &err), *b = tress_gltf_load(baked, &err);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a->bone_count, b->bone_count);
  assert_int_equal(a->vertex_count, b->vertex_count);
  tress_mesh_release(a);
  tress_mesh_release(b);
  if (gltf_validator_ready(prefix, sizeof prefix)) assert_true(validates_clean(prefix, baked));
  /* a .gltf output is refused: the bake writes a glTF binary */
  snprintf(args, sizeof args, "'%s' -o '%s/x.gltf' --bake 1", rigged, tool.tmp_dir);
  assert_int_equal(rig_tool_run(&tool, args, out, sizeof out), 2);
  snprintf(args, sizeof args, "'%s' -o '%s/x.glb' --bake -1", rigged, tool.tmp_dir);
  assert_int_equal(rig_tool_run(&tool, args, out, sizeof out), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_baked_clip_validates_and_equals_the_native_sim),
      cmocka_unit_test(test_skinned_input_bakes_as_it_is),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
