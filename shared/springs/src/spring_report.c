/* spring_report.c - the `--springs` report: every chain (root, joint count, motion, chain and
 * collision fields, each joint's own settings, the center), every collider (shape, node, offset, radius, height), then the warnings.
 * Users check an import with it before binding, so it prints what the sim will get, in our
 * units, and names nodes by the file's own names. JSON is built with cJSON so it always parses.
 */
#include "tress/spring_report.h"

#include <cjson/cJSON.h>
#include <string.h>

static const char *shape_name(tress_collider_shape s) {
  return tress_collider_shape_name(s);
}

static const char *node_name(const tress_spring_import *imp, int32_t i) {
  return i >= 0 && (uint32_t)i < imp->node_count ? imp->nodes[i].name : "?";
}

static cJSON *vec3_json(const float v[3]) {
  const double d[3] = {v[0], v[1], v[2]};
  return cJSON_CreateDoubleArray(d, 3);
}

static int write_json(const tress_spring_import *imp, const char *label, FILE *out) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return -1;
  cJSON_AddStringToObject(root, "file", label ? label : "");
  cJSON_AddNumberToObject(root, "units_per_metre", imp->units_per_metre);
  cJSON *chains = cJSON_AddArrayToObject(root, "chains");
  for (uint32_t i = 0; i < imp->chain_count; i++) {
    const tress_spring_chain *c = &imp->chains[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(chains, o);
    cJSON_AddStringToObject(o, "root", node_name(imp, c->root));
    cJSON_AddNumberToObject(o, "joint_count", c->joint_count);
    cJSON *joints = cJSON_AddArrayToObject(o, "joints");
    for (uint32_t k = 0; k < c->joint_count; k++)
      cJSON_AddItemToArray(joints, cJSON_CreateString(node_name(imp, c->joints[k])));
    cJSON *settings = cJSON_AddArrayToObject(o, "joint_settings");
    for (uint32_t k = 0; c->joint_settings && k < c->joint_count; k++) {
      const tress_spring_joint_settings *j = &c->joint_settings[k];
      cJSON *js = cJSON_CreateObject();
      cJSON_AddItemToArray(settings, js);
      cJSON_AddNumberToObject(js, "stiffness", j->stiffness);
      cJSON_AddNumberToObject(js, "rest_stiffness", j->rest_stiffness);
      cJSON_AddNumberToObject(js, "drag", j->drag);
      cJSON_AddItemToObject(js, "gravity", vec3_json(j->gravity));
      cJSON_AddNumberToObject(js, "radius", j->radius);
    }
    if (c->center >= 0)
      cJSON_AddStringToObject(o, "center", node_name(imp, c->center));
    else
      cJSON_AddNullToObject(o, "center");
    cJSON_AddNumberToObject(o, "stiffness", c->stiffness);
    cJSON_AddNumberToObject(o, "drag", c->drag);
    cJSON_AddNumberToObject(o, "damping", c->damping);
    cJSON_AddItemToObject(o, "gravity", vec3_json(c->gravity));
    cJSON_AddNumberToObject(o, "radius", c->radius);
    cJSON_AddNumberToObject(o, "end_length", c->end_length);
    cJSON *set = cJSON_AddArrayToObject(o, "colliders");
    for (uint32_t k = 0; k < c->colliders.count; k++)
      cJSON_AddItemToArray(set, cJSON_CreateNumber(c->colliders.index[k]));
    cJSON_AddStringToObject(o, "source", tress_spring_source_name(c->source));
    if (c->region[0]) cJSON_AddStringToObject(o, "region", c->region);
  }
  cJSON *cols = cJSON_AddArrayToObject(root, "colliders");
  for (uint32_t i = 0; i < imp->collider_count; i++) {
    const tress_spring_collider *c = &imp->colliders[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(cols, o);
    cJSON_AddStringToObject(o, "shape", shape_name(c->shape));
    cJSON_AddStringToObject(o, "node", node_name(imp, c->node));
    cJSON_AddItemToObject(o, "offset", vec3_json(c->offset));
    if (tress_collider_shape_is_capsule(c->shape)) cJSON_AddItemToObject(o, "tail", vec3_json(c->tail));
    if (c->shape == TRESS_COLLIDER_PLANE) cJSON_AddItemToObject(o, "normal", vec3_json(c->normal));
    cJSON_AddNumberToObject(o, "radius", c->radius);
    cJSON_AddNumberToObject(o, "height", c->height);
    cJSON_AddStringToObject(o, "source", tress_spring_source_name(c->source));
  }
  cJSON *warnings = cJSON_AddArrayToObject(root, "warnings");
  for (uint32_t i = 0; i < imp->warning_count; i++)
    cJSON_AddItemToArray(warnings, cJSON_CreateString(imp->warnings[i]));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) return -1;
  int rc = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
  cJSON_free(text);
  return rc;
}

static int write_text(const tress_spring_import *imp, const char *label, FILE *out) {
  fprintf(out, "%s: %u chain%s, %u collider%s, %u warning%s (units per metre %.4g)\n", label ? label : "springs",
          imp->chain_count, imp->chain_count == 1 ? "" : "s", imp->collider_count, imp->collider_count == 1 ? "" : "s",
          imp->warning_count, imp->warning_count == 1 ? "" : "s", (double)imp->units_per_metre);
  for (uint32_t i = 0; i < imp->chain_count; i++) {
    const tress_spring_chain *c = &imp->chains[i];
    fprintf(out, "chain %u  root %s  joints %u  stiffness %.3f  drag %.3f  gravity (%.3f, %.3f, %.3f)  radius %.4f  "
                 "end_length %.4f  colliders [",
            i, node_name(imp, c->root), c->joint_count, (double)c->stiffness, (double)c->drag, (double)c->gravity[0],
            (double)c->gravity[1], (double)c->gravity[2], (double)c->radius, (double)c->end_length);
    for (uint32_t k = 0; k < c->colliders.count; k++) fprintf(out, "%s%u", k ? " " : "", c->colliders.index[k]);
    fprintf(out, "]  from %s", tress_spring_source_name(c->source));
    if (c->region[0]) fprintf(out, " (region %s)", c->region);
    if (c->center >= 0) fprintf(out, "  center %s", node_name(imp, c->center));
    fputc('\n', out);
  }
  for (uint32_t i = 0; i < imp->collider_count; i++) {
    const tress_spring_collider *c = &imp->colliders[i];
    fprintf(out, "collider %u  %s  node %s  offset (%.4f, %.4f, %.4f)  radius %.4f  height %.4f  from %s\n", i,
            shape_name(c->shape), node_name(imp, c->node), (double)c->offset[0], (double)c->offset[1],
            (double)c->offset[2], (double)c->radius, (double)c->height, tress_spring_source_name(c->source));
  }
  for (uint32_t i = 0; i < imp->warning_count; i++) fprintf(out, "warning: %s\n", imp->warnings[i]);
  return ferror(out) ? -1 : 0;
}

int tress_spring_report_write(const tress_spring_import *imp, const char *label, bool json, FILE *out) {
  if (!imp || !out) return -1;
  return json ? write_json(imp, label, out) : write_text(imp, label, out);
}

int tress_spring_report_main(int argc, char **argv) {
  const char *path = NULL;
  bool json = false, springs = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--springs") == 0) {
      springs = true;
      if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) path = argv[++i];
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    }
  }
  if (!springs || !path) {
    fprintf(stderr, "usage: %s --springs MODEL.vrm|.glb|.gltf [--json]\n", argc > 0 ? argv[0] : "tress-rig");
    return 2;
  }
  tress_spring_import_def def = tress_default_spring_import_def();
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  if (tress_spring_import_load(path, &def, &imp, &err) != 0) {
    fprintf(stderr, "%s: %s\n", path, err.message);
    return 1;
  }
  int rc = tress_spring_report_write(imp, path, json, stdout);
  tress_spring_import_free(imp);
  return rc == 0 ? 0 : 1;
}
