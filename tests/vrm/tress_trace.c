/* tress_trace.c - the tress side of the VRM conformance test: loads a scene written by
 * make_scenes.mjs through tress's spring import + bind, drives the scene's driven node on the
 * path in its extras.conformance at 60 fps (tress_sim_step with dt = 1/60) and prints every
 * joint's world position each frame in reference.mjs's JSON shape ({scene, dt, joints, frames}).
 *
 *   tress_trace SCENE.gltf [--length fixed|three-vrm] > trace.json
 *
 * --length: how the VRM springs measure their joints' lengths (tress_vrm_length, sim.h). The
 * default, three-vrm, is how the reference moves them as it is; fixed is the specification's
 * and UniVRM's length, which reference.mjs --fixed-length gives three-vrm too.
 *
 * Lengths are metres (units_per_metre 1, units_per_stud 0.28). The driven node's path is the
 * one reference.mjs computes: translation base + amplitude * w, rotation base * yaw(w) with
 * w = sin(2 pi f min(frame, move) / fps); it is given as the node's animated value on top of
 * its rest cframe (the scenes' driven nodes have no rest rotation, so the two agree). Frame 0
 * is a step of dt 0, which starts the chains at the frame-0 pose as three-vrm's setInitState
 * does (without it they would start at frame 1's pose, a frame behind the reference). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/spring_bind.h"
#include "tress/spring_import.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct drive_path {
  int node;
  float amplitude[3];
  float yaw, frequency, fps;
  int move, settle;
} drive_path;

static int read_drive(const char *path, drive_path *d) {
  tress_error err;
  size_t size = 0;
  uint8_t *text = tress_file_read(path, 64u << 20, &size, &err);
  if (!text) {
    fprintf(stderr, "%s\n", err.message);
    return -1;
  }
  cJSON *doc = cJSON_ParseWithLength((const char *)text, size);
  free(text);
  const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "extras"), "conformance");
  const cJSON *amp = cJSON_GetObjectItem(c, "amplitude");
  if (!cJSON_IsObject(c) || cJSON_GetArraySize(amp) != 3) {
    fprintf(stderr, "%s: no extras.conformance\n", path);
    cJSON_Delete(doc);
    return -1;
  }
  d->node = cJSON_GetObjectItem(c, "node")->valueint;
  for (int a = 0; a < 3; a++) d->amplitude[a] = (float)cJSON_GetArrayItem(amp, a)->valuedouble;
  d->yaw = (float)cJSON_GetObjectItem(c, "yaw")->valuedouble;
  d->frequency = (float)cJSON_GetObjectItem(c, "frequency")->valuedouble;
  d->fps = (float)cJSON_GetObjectItem(c, "fps")->valuedouble;
  d->move = cJSON_GetObjectItem(c, "move")->valueint;
  d->settle = cJSON_GetObjectItem(c, "settle")->valueint;
  cJSON_Delete(doc);
  return 0;
}

static tress_xform drive_pose(const drive_path *d, int frame) {
  int f = frame < d->move ? frame : d->move;
  double w = sin(2.0 * M_PI * d->frequency * ((double)f / d->fps));
  tress_xform x = tress_xform_identity();
  for (int a = 0; a < 3; a++) x.p[a] = (float)(d->amplitude[a] * w);
  double half = 0.5 * d->yaw * w;
  x.q[1] = (float)sin(half);
  x.q[3] = (float)cos(half);
  return x;
}

/* Joints in reference.mjs's order: each chain's joints, first appearance. */
static uint32_t joint_list(const tress_spring_import *imp, int32_t *out) {
  uint32_t n = 0;
  for (uint32_t c = 0; c < imp->chain_count; c++)
    for (uint32_t k = 0; k < imp->chains[c].joint_count; k++) {
      int32_t j = imp->chains[c].joints[k];
      bool seen = false;
      for (uint32_t i = 0; i < n && !seen; i++) seen = out[i] == j;
      if (!seen) out[n++] = j;
    }
  return n;
}

static void print_frame(const tress_scene *scene, const tress_spring_scene *ss, const int32_t *joints, uint32_t n,
                        bool first) {
  printf("%s[", first ? "" : ",");
  for (uint32_t i = 0; i < n; i++) {
    tress_xform w = tress_bone_get_world(scene, ss->node_bones[joints[i]]);
    printf("%s%.7f,%.7f,%.7f", i ? "," : "", (double)w.p[0], (double)w.p[1], (double)w.p[2]);
  }
  printf("]");
}

int main(int argc, char **argv) {
  tress_vrm_length length = TRESS_VRM_LENGTH_THREE_VRM;
  bool usage = argc != 2 && !(argc == 4 && strcmp(argv[2], "--length") == 0);
  if (usage || (argc == 4 && !tress_vrm_length_from_name(argv[3], &length))) {
    fprintf(stderr, "usage: tress_trace SCENE.gltf [--length fixed|three-vrm]\n");
    return 2;
  }
  drive_path drive;
  if (read_drive(argv[1], &drive) != 0) return 1;
  tress_spring_import_def def = tress_default_spring_import_def();
  def.units_per_metre = 1.0f;
  def.vrm_length = length;
  tress_spring_import *imp = NULL;
  tress_error err;
  if (tress_spring_import_load(argv[1], &def, &imp, &err) != 0) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  for (uint32_t i = 0; i < imp->warning_count; i++) fprintf(stderr, "%s: warning: %s\n", argv[1], imp->warnings[i]);
  tress_scene_def scene_def = tress_default_scene_def();
  tress_scene *scene = tress_scene_create(&scene_def);
  tress_id part;
  {
    tress_instance_def instance_def = tress_default_instance_def();
    instance_def.kind = TRESS_KIND_PART;
    instance_def.name = "Character";
    instance_def.parent = tress_scene_get_root(scene);
    tress_scene_create_instance(scene, &instance_def, &part);
  }
  tress_spring_scene ss = {0};
  tress_sim_def sd = tress_default_sim_def();
  sd.scene = scene;
  sd.units_per_stud = 0.28f; /* our units are metres here */
  sd.max_chains = 1000;
  sd.max_distance = 1e9f;
  tress_sim *sim = NULL;
  tress_spring_binding bind = {0};
  int32_t *joints = malloc(((size_t)imp->node_count + 1) * sizeof *joints);
  int rc = 1;
  if (!joints || tress_spring_import_apply(imp, scene, part, &ss, &err) != 0) {
    fprintf(stderr, "%s: apply: %s\n", argv[1], err.message);
    goto done;
  }
  sim = tress_sim_create(&sd);
  tress_result r = sim ? tress_spring_bind(sim, imp, &ss, &bind) : TRESS_ERR_OUT_OF_MEMORY;
  if (r != TRESS_OK) {
    fprintf(stderr, "%s: bind: %s\n", argv[1], tress_result_name(r));
    goto done;
  }
  if (drive.node < 0 || (uint32_t)drive.node >= ss.node_count || tress_id_is_null(ss.node_bones[drive.node])) {
    fprintf(stderr, "%s: the driven node has no bone\n", argv[1]);
    goto done;
  }
  uint32_t n = joint_list(imp, joints);
  tress_id driven = ss.node_bones[drive.node];
  double dt = 1.0 / drive.fps;
  printf("{\"scene\":\"%s\",\"dt\":%.9f,\"joints\":[", argv[1], dt);
  for (uint32_t i = 0; i < n; i++) printf("%s\"%s\"", i ? "," : "", imp->nodes[joints[i]].name);
  printf("],\"frames\":[");
  tress_bone_set_animated(scene, driven, drive_pose(&drive, 0));
  tress_sim_step(sim, 0.0); /* three-vrm's setInitState: the chains start at the frame-0 pose */
  print_frame(scene, &ss, joints, n, true);
  for (int f = 1; f <= drive.move + drive.settle; f++) {
    tress_bone_set_animated(scene, driven, drive_pose(&drive, f));
    tress_sim_step(sim, dt);
    print_frame(scene, &ss, joints, n, false);
  }
  printf("]}\n");
  rc = 0;
done:
  tress_spring_binding_free(&bind);
  if (sim) tress_sim_destroy(sim);
  tress_spring_scene_free(&ss);
  tress_scene_destroy(scene);
  tress_spring_import_free(imp);
  free(joints);
  return rc;
}
