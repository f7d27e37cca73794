/* tress/rig.h - rig(): plan a boneless mesh, skin it, bake a skinned mesh, swap it into the part
 * in place and build the matching Bone instances under it. Fails without changing anything. */
#ifndef TRESS_RIG_H
#define TRESS_RIG_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/result.h"
#include "tress/math.h"
#include "tress/mesh.h"
#include "tress/plan.h"
#include "tress/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_RIG_REASON_MAX 160

typedef enum tress_rig_status {
  TRESS_RIG_OK = 0,
  TRESS_RIG_ERR_NO_MESH,       /* "the MeshPart has no mesh" */
  TRESS_RIG_ERR_NO_PERMISSION, /* "no permission to load asset" */
  TRESS_RIG_ERR_BUDGET,        /* the baked-mesh memory budget is spent */
  TRESS_RIG_ERR_PLAN,          /* plan() refused the mesh or the options (reason says why) */
  TRESS_RIG_ERR_BAKE,          /* the bake lost its skinning */
  TRESS_RIG_ERR_NO_MEMORY,
  TRESS_RIG_ERR_BAD_PART,      /* the id is stale or not a part */
} tress_rig_status;

/* "ok", "no_mesh", "no_permission", ...: a static string; "unknown" for a value not listed. */
const char *tress_rig_status_name(tress_rig_status status);
/* The tress_result a status stands for (what err->code gets): NO_MESH -> TRESS_ERR_NOTHING_TO_BIND,
 * NO_PERMISSION -> _PERMISSION, BUDGET -> _LIMIT, PLAN and BAKE -> _INVALID_ARGUMENT (the mesh or
 * the options are refused), NO_MEMORY -> _OUT_OF_MEMORY, BAD_PART -> _INVALID_ARGUMENT. */
tress_result tress_rig_status_to_result(tress_rig_status status);

/* The memory baked meshes hold, the seed's "editable memory budget". rig() charges a part's
 * bake when it succeeds and a listener gives the bytes back when the part is destroyed, so the
 * budget must outlive the scene's rigged parts. A rig that would pass limit fails, caches and
 * changes nothing. */
typedef struct tress_rig_budget {
  uint64_t limit;
  uint64_t used;
} tress_rig_budget;

/* The permission gate: the server's asset store answers whether it owns an asset id. */
typedef bool (*tress_owns_asset_fn)(void *user, const char *asset_id);

typedef struct tress_rig_opts {
  tress_plan_opts plan;          /* has_root false = top centre of the mesh bounds (the scalp) */
  tress_owns_asset_fn owns_asset;/* NULL = every asset is owned */
  void *owns_asset_user;
  tress_rig_budget *budget;      /* NULL = no budget */
} tress_rig_opts;

tress_rig_opts tress_default_rig_opts(void);

typedef struct tress_rig_bone {
  char name[TRESS_NAME_MAX];
  int32_t parent;     /* 0-based, -1 for HairRoot */
  float bind_pos[3];  /* mesh space */
  /* Rest transform before scaling: HairRoot relative to the mesh bounds centre, a chain bone
   * relative to its parent's bind position. Rotation is identity. */
  tress_xform rest;
} tress_rig_bone;

/* The scene-free result, what the server computes on a worker thread and replicates. */
typedef struct tress_rig_output {
  tress_mesh *mesh;          /* baked skinned mesh; the output owns one reference */
  uint32_t bone_count;
  tress_rig_bone *bones;
  float bounds_center[3];
  float mesh_size[3];        /* bounds size of the mesh */
  float root[3];             /* the root the plan used */
  uint32_t warnings;         /* the plan's tress_plan_warning bits */
  char warning_text[TRESS_PLAN_WARNING_TEXT_MAX]; /* the plan's warnings in words, "" without */
  uint32_t sectors, segments;/* chains and bones per chain as planned (segments may be fewer than asked) */
} tress_rig_output;

/* Plan + skin + bake from a mesh alone. Thread-safe (no shared state): the server runs it on
 * its thread pool. Ignores owns_asset and budget (those belong to the caller). Returns
 * TRESS_RIG_OK, or the status with err (may be NULL) carrying tress_rig_status_to_result(status)
 * as its code and the reason. */
tress_rig_status tress_rig_mesh(const tress_mesh *in, const tress_rig_opts *opts, tress_rig_output *out,
                                tress_error *err);
void tress_rig_output_free(tress_rig_output *out);

/* True when a bake kept its skinning: skin arrays present, bone_count bones, every joint in
 * range and every vertex's weights summing to 1. rig() fails a bake for which this is false. */
bool tress_rig_is_bake_valid(const tress_mesh *baked, uint32_t bone_count);

/* Bytes a bake of `in` with bone_count bones will hold (what the budget is charged). */
uint64_t tress_rig_get_bake_bytes(const tress_mesh *in, uint32_t bone_count);

typedef struct tress_rig_result {
  tress_rig_status status;           /* what tress_rig_part returned (data the hair manager keeps) */
  uint32_t bone_count;
  char (*bone_names)[TRESS_NAME_MAX];
  tress_id *bone_ids;                /* Bone instances, same order as bone_names */
} tress_rig_result;

/* Rigs a part in place. Order as the seed: no mesh, permission gate, budget, plan, skin, bake,
 * swap (size kept), Bone instances. Returns TRESS_RIG_OK with bone names, or the status with err
 * (may be NULL) carrying its tress_result and the reason, and the scene exactly as it was. Free the result with
 * tress_rig_result_free either way. */
tress_rig_status tress_rig_part(tress_scene *scene, tress_id mesh_part, const tress_rig_opts *opts, tress_rig_result *out,
                                tress_error *err);
void tress_rig_result_free(tress_rig_result *result);

/* Builds rig->bones as Bone instances under part (parents before children) and swaps in
 * rig->mesh (NULL keeps the part's mesh) keeping the part's size: rig() step 8. Rests are in mesh
 * space, as tress_rig_mesh() makes them and RIG_RESULT carries them; each bone's rest is scaled
 * by the part's size / rig->mesh_size per axis (an axis the mesh is flat on keeps 1), so the
 * skeleton matches the worn scale. ids gets rig->bone_count ids. False changes nothing. rig(),
 * the hair manager (local rigs) and the client (the server's rigs) all build bones here. */
bool tress_rig_build_bones(tress_scene *scene, tress_id part, const tress_rig_output *rig, tress_id *ids);

#ifdef __cplusplus
}
#endif

#endif
