/* tress-rig - rig a boneless hair mesh offline, or write the project's sample hair meshes.
 *
 *   tress-rig hair.glb -o hair_rigged(.glb|.gltf) [--sectors N] [--segments N] [--max-influences N]
 *             [--axis x,y,z] [--root x,y,z] [--mode sectors|strands] [--max-chains N]
 *             [--rerig] [--report] [--json] [--bake SECONDS]
 *   tress-rig --generate bob|ponytail|long|afro -o FILE(.glb|.gltf|.obj) [--json]
 *   tress-rig --springs MODEL(.vrm|.glb|.gltf) [--json]   (spring_report.c: what the importer made)
 *
 * main() only parses and dispatches to one small function per mode, so a new mode is one more
 * function and one more branch. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "tress/gltf_source.h"
#include "tress/mesh_file.h"
#include "tress/rig.h"
#include "tress/sample_hair.h"
#include "tress/spring_report.h"

#include "bake.h"
#include "rig_report.h"

/* The rig options, so the tool can say which were given and which it did not use. */
typedef enum rig_option {
  OPT_SECTORS, OPT_SEGMENTS, OPT_MAX_INFLUENCES, OPT_AXIS, OPT_ROOT, OPT_MODE, OPT_MAX_CHAINS, OPT_RERIG, OPT_REPORT,
  OPT_COUNT
} rig_option;

static const char *const OPTION_NAMES[OPT_COUNT] = {"--sectors", "--segments", "--max-influences", "--axis", "--root",
                                                     "--mode", "--max-chains", "--rerig", "--report"};

#define TOOL_WARNINGS_MAX 1024

typedef struct args {
  const char *given[OPT_COUNT]; /* the value as typed ("" for a flag), NULL when not given */
  const char *input;
  const char *output;
  const char *generate;
  bool json;
  bool rerig;  /* rig an input that is already skinned (its skin is replaced) */
  bool report; /* per chain: vertices skinned, length, empty bones, bones outside the mesh */
  double bake;  /* --bake SECONDS: the output also holds the sway clip (bake.h); 0 = off */
  tress_rig_opts rig;
} args;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tress-rig MESH(.glb|.gltf|.obj) -o OUT(.glb|.gltf) [--sectors N] [--segments N] [--max-influences N]\n"
          "                 [--axis x,y,z] [--root x,y,z] [--mode sectors|strands]\n"
          "                 [--max-chains N] [--rerig] [--report] [--json] [--bake SECONDS]\n"
          "       tress-rig SKINNED(.glb|.gltf) -o OUT.glb --bake SECONDS   (bakes the skin as it is)\n"
          "       tress-rig --generate bob|ponytail|long|afro -o OUT(.glb|.gltf|.obj) [--json]\n"
          "       tress-rig --springs MODEL(.vrm|.glb|.gltf) [--json]\n");
}

static bool parse_vec3(const char *s, float out[3]) {
  char tail;
  return sscanf(s, "%f,%f,%f%c", &out[0], &out[1], &out[2], &tail) == 3;
}

static bool parse_count(const char *s, uint32_t *out) {
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end || v > 1000000) return false;
  *out = (uint32_t)v;
  return true;
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->rig = tress_default_rig_opts();
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (strcmp(s, "--json") == 0) { a->json = true; continue; }
    if (strcmp(s, "--rerig") == 0) { a->rerig = true; a->given[OPT_RERIG] = ""; continue; }
    if (strcmp(s, "--report") == 0) { a->report = true; a->given[OPT_REPORT] = ""; continue; }
    if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) { usage(stdout); exit(0); }
    if (s[0] != '-') {
      if (a->input) { fprintf(stderr, "tress-rig: more than one input (%s)\n", s); return 2; }
      a->input = s;
      continue;
    }
    if (!val) { fprintf(stderr, "tress-rig: %s needs a value\n", s); return 2; }
    i++;
    if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) a->output = val;
    else if (strcmp(s, "--generate") == 0) a->generate = val;
    else if (strcmp(s, "--bake") == 0) {
      char *end;
      a->bake = strtod(val, &end);
      ok = end != val && !*end && a->bake > 0.0 && a->bake <= 600.0;
    }
    else if (strcmp(s, "--sectors") == 0) ok = parse_count(val, &a->rig.plan.sectors);
    else if (strcmp(s, "--segments") == 0) ok = parse_count(val, &a->rig.plan.segments);
    else if (strcmp(s, "--max-influences") == 0) ok = parse_count(val, &a->rig.plan.max_influences);
    else if (strcmp(s, "--axis") == 0) ok = parse_vec3(val, a->rig.plan.axis);
    else if (strcmp(s, "--mode") == 0) {
      ok = tress_plan_mode_from_name(val, &a->rig.plan.mode);
    } else if (strcmp(s, "--max-chains") == 0) ok = parse_count(val, &a->rig.plan.max_chains);
    else if (strcmp(s, "--root") == 0) ok = a->rig.plan.has_root = parse_vec3(val, a->rig.plan.root);
    else { fprintf(stderr, "tress-rig: unknown option %s\n", s); usage(stderr); return 2; }
    if (!ok) { fprintf(stderr, "tress-rig: bad value for %s: %s\n", s, val); return 2; }
    for (int o = 0; o < OPT_COUNT; o++)
      if (strcmp(s, OPTION_NAMES[o]) == 0) a->given[o] = val;
  }
  if (!a->output || (!a->input && !a->generate)) { usage(stderr); return 2; }
  return 0;
}

static int write_mesh(const tress_mesh *m, const char *path) {
  tress_error err = {0};
  int rc = tress_mesh_file_write(m, path, &err);
  if (rc != 0) fprintf(stderr, "tress-rig: %s\n", err.message);
  return rc;
}

static int cmd_generate(const args *a) {
  tress_sample_hair_style style;
  if (!tress_sample_hair_style_from_name(a->generate, &style)) {
    fprintf(stderr, "tress-rig: unknown style '%s' (bob, ponytail, long, afro)\n", a->generate);
    return 2;
  }
  for (int o = 0; o < OPT_COUNT; o++)
    if (a->given[o])
      fprintf(stderr, "tress-rig: warning: %s%s%s ignored: --generate writes an unrigged sample\n", OPTION_NAMES[o],
              a->given[o][0] ? " " : "", a->given[o]);
  tress_mesh *m = tress_sample_hair_create(style);
  if (!m) { fprintf(stderr, "tress-rig: out of memory\n"); return 1; }
  int rc = write_mesh(m, a->output);
  if (rc == 0) {
    if (a->json) printf("{\"style\":\"%s\",\"output\":\"%s\",\"vertices\":%u,\"triangles\":%u}\n", a->generate, a->output, m->vertex_count, m->index_count / 3);
    else printf("wrote %s: %s hair, %u vertices, %u triangles\n", a->output, a->generate, m->vertex_count, m->index_count / 3);
  }
  tress_mesh_release(m);
  return rc ? 1 : 0;
}

static void print_rig(const args *a, const tress_rig_output *out, const char *warnings, double load_ms, double rig_ms,
                      double write_ms) {
  if (warnings[0] && !a->json) fprintf(stderr, "tress-rig: warning: %s\n", warnings); /* JSON: "warnings" */
  if (!a->json) {
    printf("%s -> %s\n", a->input, a->output);
    printf("vertices %u, bones %u, root (%.3f, %.3f, %.3f)\n", out->mesh->vertex_count, out->bone_count, out->root[0], out->root[1], out->root[2]);
    for (uint32_t b = 0; b < out->bone_count; b++) {
      const tress_rig_bone *bone = &out->bones[b];
      printf("  [%u] %-12s parent %3d  at (%7.3f, %7.3f, %7.3f)\n", b, bone->name, bone->parent, bone->bind_pos[0], bone->bind_pos[1], bone->bind_pos[2]);
    }
    if (a->report) rig_report_print(stdout, out);
    printf("time: load %.2f ms, rig %.2f ms, write %.2f ms\n", load_ms, rig_ms, write_ms);
    return;
  }
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "input", a->input);
  cJSON_AddStringToObject(j, "output", a->output);
  cJSON_AddNumberToObject(j, "vertices", out->mesh->vertex_count);
  cJSON *bones = cJSON_AddArrayToObject(j, "bones");
  for (uint32_t b = 0; b < out->bone_count; b++) {
    cJSON *bone = cJSON_CreateObject();
    cJSON_AddStringToObject(bone, "name", out->bones[b].name);
    cJSON_AddNumberToObject(bone, "parent", out->bones[b].parent);
    cJSON_AddItemToObject(bone, "position", cJSON_CreateFloatArray(out->bones[b].bind_pos, 3));
    cJSON_AddItemToArray(bones, bone);
  }
  cJSON_AddStringToObject(j, "warnings", warnings);
  if (a->report) rig_report_add_json(j, out);
  cJSON *t = cJSON_AddObjectToObject(j, "time_ms");
  cJSON_AddNumberToObject(t, "load", load_ms);
  cJSON_AddNumberToObject(t, "rig", rig_ms);
  cJSON_AddNumberToObject(t, "write", write_ms);
  char *s = cJSON_PrintUnformatted(j);
  if (s) puts(s);
  free(s);
  cJSON_Delete(j);
}

static void append_warning(char *list, const char *format, ...) {
  size_t used = strlen(list);
  if (used) used += (size_t)snprintf(list + used, TOOL_WARNINGS_MAX - used, "; ");
  if (used >= TOOL_WARNINGS_MAX) return;
  va_list ap;
  va_start(ap, format);
  vsnprintf(list + used, TOOL_WARNINGS_MAX - used, format, ap);
  va_end(ap);
}

/* Options the rig did not use, as warnings naming the option, its value and what was used
 * instead (plan() reports its own clamps, e.g. max_influences, in the rig's warning text). */
static void note_ignored_options(const args *a, bool input_skinned, const tress_rig_output *out, char *warnings) {
  const char *const *given = a->given;
  if (given[OPT_RERIG] && !input_skinned) append_warning(warnings, "--rerig ignored: the input has no skin to replace");
  bool strands = a->rig.plan.mode == TRESS_PLAN_MODE_STRANDS;
  if (given[OPT_MAX_CHAINS] && !strands)
    append_warning(warnings, "--max-chains %s ignored: only strand mode (--mode strands) uses it", given[OPT_MAX_CHAINS]);
  bool groups_used = strands && !(out->warnings & TRESS_PLAN_WARN_NO_GROUPS);
  if (given[OPT_SECTORS] && groups_used)
    append_warning(warnings, "--sectors %s ignored: strand mode found %u strand groups and made %u chains (--max-chains caps them)",
                   given[OPT_SECTORS], out->sectors, out->sectors);
}

/* The source file's document (materials, textures, copyright, bind placement) for a glTF
 * input; NULL for OBJ. A document that cannot be read carries nothing, with a warning. */
static tress_gltf_source *load_source(const char *path, char *warnings) {
  size_t n = strlen(path);
  if (n >= 4 && strcasecmp(path + n - 4, ".obj") == 0) return NULL;
  tress_error err = {0};
  tress_gltf_source *src = tress_gltf_source_load(path, &err);
  if (!src) append_warning(warnings, "nothing carried from the input's document: %s", err.message);
  else if (tress_gltf_source_get_warning(src)[0]) append_warning(warnings, "%s", tress_gltf_source_get_warning(src));
  return src;
}

/* --rerig of a skinned file: the plan works in the mesh's bind space, which a viewer shows
 * through the bind placement M. The growth axis and root are meant in the viewer's space, so
 * they are taken back through M's inverse (rotation and scale; the root also by translation). */
static void options_into_bind_space(const float m[16], tress_plan_opts *plan, char *warnings) {
  const float *c0 = m, *c1 = m + 4, *c2 = m + 8;
  float det = c0[0] * (c1[1] * c2[2] - c2[1] * c1[2]) - c1[0] * (c0[1] * c2[2] - c2[1] * c0[2]) + c2[0] * (c0[1] * c1[2] - c1[1] * c0[2]);
  if (!(fabsf(det) > 1e-12f)) return;
  bool identity = true;
  for (int k = 0; k < 16; k++) identity &= fabsf(m[k] - (k % 5 == 0 ? 1.0f : 0.0f)) < 1e-6f;
  if (identity) return;
  float inv[3][3]; /* inverse of the 3x3 A (A[row][col] = m[4 * col + row]) */
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) {
      int r1 = (k + 1) % 3, r2 = (k + 2) % 3, k1 = (r + 1) % 3, k2 = (r + 2) % 3;
      inv[r][k] = (m[4 * k1 + r1] * m[4 * k2 + r2] - m[4 * k2 + r1] * m[4 * k1 + r2]) / det;
    }
  float axis[3], root[3], d[3] = {plan->root[0] - m[12], plan->root[1] - m[13], plan->root[2] - m[14]};
  for (int r = 0; r < 3; r++) {
    axis[r] = inv[r][0] * plan->axis[0] + inv[r][1] * plan->axis[1] + inv[r][2] * plan->axis[2];
    root[r] = inv[r][0] * d[0] + inv[r][1] * d[1] + inv[r][2] * d[2];
  }
  append_warning(warnings, "--rerig: axis (%g, %g, %g) is (%.3g, %.3g, %.3g) in the mesh's bind space", plan->axis[0],
                 plan->axis[1], plan->axis[2], axis[0], axis[1], axis[2]);
  memcpy(plan->axis, axis, sizeof axis);
  if (plan->has_root) memcpy(plan->root, root, sizeof root);
}

/* --bake: the rigged (or already skinned) mesh with its sway under the scripted head motion. */
static int bake_to(const args *a, const tress_mesh *m, const tress_gltf_source *src) {
  bake_opts o = bake_default_opts();
  o.seconds = a->bake;
  bake_clip clip;
  tress_error err = {0};
  if (bake_write(m, src, &o, a->output, &clip, &err) != 0) {
    fprintf(stderr, "tress-rig: bake: %s\n", err.message);
    return 1;
  }
  if (!a->json)
    fprintf(stderr, "tress-rig: baked %s: %u frames at %g Hz, %u rotation channels (walk, turn, nod, stop)\n", a->output,
            clip.frame_count, o.fixed_hz, clip.channel_count);
  bake_clip_free(&clip);
  return 0;
}

/* --bake of a file that is skinned already (no --rerig): its own skin, baked as it is. */
static int cmd_bake_skinned(const args *a, tress_mesh *in) {
  char warnings[TOOL_WARNINGS_MAX] = "";
  tress_gltf_source *src = load_source(a->input, warnings);
  if (warnings[0]) fprintf(stderr, "tress-rig: warning: %s\n", warnings);
  int rc = bake_to(a, in, src);
  if (rc == 0) {
    if (a->json) printf("{\"input\":\"%s\",\"output\":\"%s\",\"bones\":%u,\"baked_seconds\":%g}\n", a->input, a->output, in->bone_count, a->bake);
    else printf("%s -> %s (baked %g s, %u bones)\n", a->input, a->output, a->bake, in->bone_count);
  }
  tress_gltf_source_destroy(src);
  tress_mesh_release(in);
  return rc;
}

static int cmd_rig(const args *a) {
  const char *problem = tress_mesh_file_output_problem(a->output, true); /* a rig is a skin */
  if (problem) { fprintf(stderr, "tress-rig: %s: %s\n", a->output, problem); return 2; }
  size_t out_len = strlen(a->output);
  if (a->bake > 0.0 && (out_len < 4 || strcasecmp(a->output + out_len - 4, ".glb") != 0)) {
    fprintf(stderr, "tress-rig: %s: --bake writes a glTF binary (.glb)\n", a->output);
    return 2;
  }
  tress_error err = {0};
  double t0 = now_ms();
  tress_mesh *in = tress_mesh_file_load(a->input, &err);
  if (!in) { fprintf(stderr, "tress-rig: %s: %s\n", a->input, err.message); return 1; }
  bool input_skinned = tress_mesh_is_skinned(in);
  if (input_skinned && !a->rerig && a->bake > 0.0) return cmd_bake_skinned(a, in);
  if (input_skinned && !a->rerig) {
    fprintf(stderr, "tress-rig: %s: the mesh is already skinned (%u bones); rigging would replace its skin. "
                    "Pass --rerig to replace it\n", a->input, in->bone_count);
    tress_mesh_release(in);
    return 1;
  }
  char warnings[TOOL_WARNINGS_MAX] = "";
  tress_gltf_source *src = load_source(a->input, warnings);
  tress_rig_opts opts = a->rig;
  float placement[16];
  if (src && input_skinned && tress_gltf_source_get_bind_placement(src, placement))
    options_into_bind_space(placement, &opts.plan, warnings);
  double t1 = now_ms();
  tress_rig_output out;
  tress_error rig_err = {0};
  tress_rig_status st = tress_rig_mesh(in, &opts, &out, &rig_err);
  double t2 = now_ms();
  tress_mesh_release(in);
  if (st != TRESS_RIG_OK) {
    fprintf(stderr, "tress-rig: rig failed: %s\n", rig_err.message);
    tress_gltf_source_destroy(src);
    return 1;
  }
  err = (tress_error){0};
  int rc = a->bake > 0.0 ? bake_to(a, out.mesh, src) : tress_mesh_file_write_from(out.mesh, src, a->output, &err);
  if (rc != 0 && a->bake <= 0.0) fprintf(stderr, "tress-rig: %s\n", err.message);
  tress_gltf_source_destroy(src);
  double t3 = now_ms();
  if (out.warning_text[0]) append_warning(warnings, "%s", out.warning_text);
  note_ignored_options(a, input_skinned, &out, warnings);
  if (rc == 0) print_rig(a, &out, warnings, t1 - t0, t2 - t1, t3 - t2);
  tress_rig_output_free(&out);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--springs") == 0) return tress_spring_report_main(argc, argv);
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  if (a.generate) return cmd_generate(&a);
  return cmd_rig(&a);
}
