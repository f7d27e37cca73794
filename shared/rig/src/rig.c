/* rig.c - the seed's rig(): skin, bake, swap in place, Bone instances.
 *
 * tress_rig_mesh() is the scene-free core (plan -> new skinned mesh -> bone rest transforms); it
 * touches nothing shared, so the server runs it on worker threads. tress_rig_part() wraps it with the
 * seed's gates in the seed's order and applies the result to a part:
 *   1. the part has a mesh            else "the MeshPart has no mesh" (before anything else)
 *   2. the asset store owns the asset else "no permission to load asset"
 *   3. the baked-mesh budget has room else a budget reason, nothing charged or cached
 *   4. plan, skin, bake; a bake that lost its skinning fails
 *   5. Bone instances are built first, then the mesh is swapped and the size restored, so a
 *      failure at any step leaves the part as it was (created bones are destroyed again).
 * The part holds the baked mesh by reference until it is destroyed: that keeps the bake alive.
 * A DESTROYING listener hands the bake's bytes back to the budget.
 */
#include "tress/rig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/result.h"

#include "rig_inputs.h"

tress_rig_opts tress_default_rig_opts(void) {
  tress_rig_opts o;
  memset(&o, 0, sizeof o);
  o.plan = tress_default_plan_opts();
  return o;
}

static uint64_t mesh_geometry_bytes(const tress_mesh *m) {
  uint64_t n = m->vertex_count;
  uint64_t b = sizeof(tress_mesh) + 12 * n + (uint64_t)m->index_count * 4;
  if (m->normals) b += 12 * n;
  if (m->uvs) b += 8 * n;
  b += (uint64_t)m->submesh_count * sizeof(tress_mesh_submesh);
  return b;
}

uint64_t tress_rig_get_bake_bytes(const tress_mesh *in, uint32_t bone_count) {
  if (!in) return 0;
  return mesh_geometry_bytes(in) + (uint64_t)bone_count * sizeof(tress_mesh_bone) + (uint64_t)in->vertex_count * (8 + 16);
}

bool tress_rig_is_bake_valid(const tress_mesh *m, uint32_t bone_count) {
  if (!tress_mesh_is_skinned(m) || m->bone_count != bone_count) return false;
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    float sum = 0.0f;
    for (int k = 0; k < 4; k++) {
      float w = m->weights[4 * v + k];
      if (!(w >= 0.0f) || (w > 0.0f && m->joints[4 * v + k] >= bone_count)) return false;
      sum += w;
    }
    if (fabsf(sum - 1.0f) > 1e-4f) return false;
  }
  return true;
}

/* A copy of the geometry (no skin) with room for the plan's skin. */
static tress_mesh *bake_from_plan(const tress_mesh *in, const tress_plan_result *plan) {
  tress_mesh_def mesh_def = {.vertex_count = in->vertex_count, .index_count = in->index_count,
                             .has_normals = in->normals != NULL, .has_uvs = in->uvs != NULL};
  tress_mesh *m = tress_mesh_create(&mesh_def);
  if (!m) return NULL;
  size_t n = in->vertex_count;
  memcpy(m->positions, in->positions, 12 * n);
  if (in->normals) memcpy(m->normals, in->normals, 12 * n);
  if (in->uvs) memcpy(m->uvs, in->uvs, 8 * n);
  if (in->index_count) memcpy(m->indices, in->indices, 4 * (size_t)in->index_count);
  /* the triangles are unchanged, so each material keeps its run */
  if (tress_mesh_set_submeshes(m, in->submeshes, in->submesh_count) != TRESS_OK || !tress_mesh_add_skin(m, plan->bone_count)) {
    tress_mesh_release(m);
    return NULL;
  }
  for (uint32_t b = 0; b < plan->bone_count; b++) {
    snprintf(m->bones[b].name, sizeof m->bones[b].name, "%s", plan->bones[b].name);
    m->bones[b].parent = plan->bones[b].parent;
    memcpy(m->bones[b].bind_pos, plan->bones[b].position, sizeof m->bones[b].bind_pos);
  }
  for (size_t v = 0; v < n; v++) {
    uint32_t count = plan->influence_count[v], stride = plan->max_influences;
    for (uint32_t k = 0; k < count; k++) {
      m->joints[4 * v + k] = plan->joints[stride * v + k];
      m->weights[4 * v + k] = plan->weights[stride * v + k];
    }
  }
  return m;
}

static void top_centre(const float mn[3], const float mx[3], const float axis_in[3], float root[3]) {
  float len = sqrtf(axis_in[0] * axis_in[0] + axis_in[1] * axis_in[1] + axis_in[2] * axis_in[2]);
  float axis[3] = {0.0f, -1.0f, 0.0f};
  if (len > 1e-12f && isfinite(len))
    for (int k = 0; k < 3; k++) axis[k] = axis_in[k] / len;
  /* The bounds centre moved against the axis to the box's face: (cx, max y, cz) for straight down. */
  float reach = 0.0f;
  for (int k = 0; k < 3; k++) reach += fabsf(axis[k]) * 0.5f * (mx[k] - mn[k]);
  for (int k = 0; k < 3; k++) root[k] = 0.5f * (mn[k] + mx[k]) - axis[k] * reach;
}

const char *tress_rig_status_name(tress_rig_status status) {
  switch (status) {
  case TRESS_RIG_OK: return "ok";
  case TRESS_RIG_ERR_NO_MESH: return "no_mesh";
  case TRESS_RIG_ERR_NO_PERMISSION: return "no_permission";
  case TRESS_RIG_ERR_BUDGET: return "budget";
  case TRESS_RIG_ERR_PLAN: return "plan";
  case TRESS_RIG_ERR_BAKE: return "bake";
  case TRESS_RIG_ERR_NO_MEMORY: return "no_memory";
  case TRESS_RIG_ERR_BAD_PART: return "bad_part";
  }
  return "unknown";
}

tress_result tress_rig_status_to_result(tress_rig_status status) {
  switch (status) {
  case TRESS_RIG_OK: return TRESS_OK;
  case TRESS_RIG_ERR_NO_MESH: return TRESS_ERR_NOTHING_TO_BIND;
  case TRESS_RIG_ERR_NO_PERMISSION: return TRESS_ERR_PERMISSION;
  case TRESS_RIG_ERR_BUDGET: return TRESS_ERR_LIMIT;
  case TRESS_RIG_ERR_NO_MEMORY: return TRESS_ERR_OUT_OF_MEMORY;
  case TRESS_RIG_ERR_PLAN:
  case TRESS_RIG_ERR_BAKE:
  case TRESS_RIG_ERR_BAD_PART: return TRESS_ERR_INVALID_ARGUMENT;
  }
  return TRESS_ERR_INVALID_ARGUMENT;
}

/* Fills the caller's error (its tress_result and the reason) and returns the status. */
static tress_rig_status rig_error(tress_error *err, tress_rig_status status, const char *reason) {
  tress_error_set(err, tress_rig_status_to_result(status), "%s", reason);
  return status;
}

tress_rig_status tress_rig_mesh(const tress_mesh *in, const tress_rig_opts *opts_in, tress_rig_output *out,
                                tress_error *err) {
  memset(out, 0, sizeof *out);
  tress_rig_opts opts = opts_in ? *opts_in : tress_default_rig_opts();
  if (!in || in->vertex_count == 0 || !in->positions) {
    return rig_error(err, TRESS_RIG_ERR_NO_MESH, "the MeshPart has no mesh");
  }
  char why[TRESS_ERROR_MESSAGE_MAX];
  if (tress__rig_mesh_is_degenerate(in, why, sizeof why)) return rig_error(err, TRESS_RIG_ERR_PLAN, why);
  float mn[3], mx[3];
  tress_mesh_get_bounds(in, mn, mx);
  bool root_given = opts.plan.has_root;
  if (!opts.plan.has_root) {
    top_centre(mn, mx, opts.plan.axis, opts.plan.root);
    opts.plan.has_root = true;
  }
  tress_plan_result plan;
  tress_plan_status ps = tress_plan_build(in->positions, in->vertex_count, &opts.plan, &plan);
  if (ps == TRESS_PLAN_ERR_ABOVE_ROOT) {
    tress__rig_explain_no_depth(in, opts.plan.axis, opts.plan.root, root_given, why, sizeof why);
    return rig_error(err, TRESS_RIG_ERR_PLAN, why);
  }
  if (ps != TRESS_PLAN_OK) {
    snprintf(why, sizeof why, "plan failed: %s", tress_plan_status_name(ps));
    return rig_error(err, ps == TRESS_PLAN_ERR_NO_MEMORY ? TRESS_RIG_ERR_NO_MEMORY : TRESS_RIG_ERR_PLAN, why);
  }
  tress_mesh *baked = bake_from_plan(in, &plan);
  tress_rig_bone *bones = calloc(plan.bone_count, sizeof *bones);
  if (!baked || !bones) {
    tress_mesh_release(baked);
    free(bones);
    tress_plan_result_free(&plan);
    return rig_error(err, TRESS_RIG_ERR_NO_MEMORY, "out of memory");
  }
  if (!tress_rig_is_bake_valid(baked, plan.bone_count)) {
    tress_mesh_release(baked);
    free(bones);
    tress_plan_result_free(&plan);
    return rig_error(err, TRESS_RIG_ERR_BAKE, "the bake lost its skinning");
  }
  for (int k = 0; k < 3; k++) {
    out->bounds_center[k] = 0.5f * (mn[k] + mx[k]);
    out->mesh_size[k] = mx[k] - mn[k];
    out->root[k] = opts.plan.root[k];
  }
  for (uint32_t b = 0; b < plan.bone_count; b++) {
    const tress_plan_bone *pb = &plan.bones[b];
    tress_rig_bone *rb = &bones[b];
    snprintf(rb->name, sizeof rb->name, "%s", pb->name);
    rb->parent = pb->parent;
    memcpy(rb->bind_pos, pb->position, sizeof rb->bind_pos);
    const float *origin = pb->parent < 0 ? out->bounds_center : plan.bones[pb->parent].position;
    rb->rest = tress_xform_from_pos(pb->position[0] - origin[0], pb->position[1] - origin[1], pb->position[2] - origin[2]);
  }
  out->mesh = baked;
  out->bones = bones;
  out->bone_count = plan.bone_count;
  out->warnings = plan.warnings;
  snprintf(out->warning_text, sizeof out->warning_text, "%s", plan.warning_text);
  out->sectors = plan.sectors;
  out->segments = plan.segments;
  tress_plan_result_free(&plan);
  return TRESS_RIG_OK;
}

void tress_rig_output_free(tress_rig_output *out) {
  if (!out) return;
  tress_mesh_release(out->mesh);
  free(out->bones);
  memset(out, 0, sizeof *out);
}

static tress_rig_status fail(tress_rig_result *r, tress_error *err, tress_rig_status status, const char *reason) {
  r->status = status;
  return rig_error(err, status, reason);
}

/* Gives a destroyed part's bake back to the budget it was charged to. */
static void refund_budget(tress_scene *scene, tress_id part, tress_event event, void *user) {
  if (event != TRESS_EVENT_DESTROYING) return;
  tress_rig_budget *budget = user;
  const tress_mesh *m = tress_part_get_mesh(scene, part);
  if (!tress_mesh_is_skinned(m)) return;
  uint64_t bytes = tress_rig_get_bake_bytes(m, m->bone_count);
  budget->used = budget->used > bytes ? budget->used - bytes : 0;
}

tress_rig_status tress_rig_part(tress_scene *scene, tress_id part, const tress_rig_opts *opts_in, tress_rig_result *r,
                                tress_error *err) {
  memset(r, 0, sizeof *r);
  tress_rig_opts opts = opts_in ? *opts_in : tress_default_rig_opts();
  if (!scene || tress_instance_get_kind(scene, part) != TRESS_KIND_PART || !tress_instance_is_valid(scene, part))
    return fail(r, err, TRESS_RIG_ERR_BAD_PART, "not a MeshPart");
  const tress_mesh *source = tress_part_get_mesh(scene, part);
  if (!source || source->vertex_count == 0) return fail(r, err, TRESS_RIG_ERR_NO_MESH, "the MeshPart has no mesh");
  char asset_id[TRESS_ASSET_ID_MAX];
  tress_part_get_asset_id(scene, part, asset_id);
  if (opts.owns_asset && !opts.owns_asset(opts.owns_asset_user, asset_id))
    return fail(r, err, TRESS_RIG_ERR_NO_PERMISSION, "no permission to load asset");

  uint32_t sectors = opts.plan.sectors, segments = opts.plan.segments;
  uint32_t bone_count = 1 + (sectors <= TRESS_PLAN_MAX_SECTORS ? sectors : 0) * (segments <= TRESS_PLAN_MAX_SEGMENTS ? segments : 0);
  uint64_t cost = tress_rig_get_bake_bytes(source, bone_count);
  if (opts.budget && (opts.budget->used > opts.budget->limit || cost > opts.budget->limit - opts.budget->used)) {
    char why[TRESS_RIG_REASON_MAX];
    snprintf(why, sizeof why, "the baked mesh memory budget is spent (%llu of %llu bytes used, bake needs %llu)",
             (unsigned long long)opts.budget->used, (unsigned long long)opts.budget->limit, (unsigned long long)cost);
    return fail(r, err, TRESS_RIG_ERR_BUDGET, why);
  }

  tress_rig_output baked;
  tress_rig_status st = tress_rig_mesh(source, &opts, &baked, err);
  if (st != TRESS_RIG_OK) {
    r->status = st;
    return st;
  }

  r->bone_names = calloc(baked.bone_count, sizeof *r->bone_names);
  r->bone_ids = calloc(baked.bone_count, sizeof *r->bone_ids);
  if (!r->bone_names || !r->bone_ids) {
    tress_rig_output_free(&baked);
    tress_rig_result_free(r);
    return fail(r, err, TRESS_RIG_ERR_NO_MEMORY, "out of memory");
  }

  /* Bones first, then the swap (the part takes its own reference to the bake, size kept). */
  if (!tress_rig_build_bones(scene, part, &baked, r->bone_ids)) {
    tress_rig_output_free(&baked);
    tress_rig_result_free(r);
    return fail(r, err, TRESS_RIG_ERR_NO_MEMORY, "out of memory creating bones");
  }
  for (uint32_t b = 0; b < baked.bone_count; b++)
    snprintf(r->bone_names[b], sizeof r->bone_names[b], "%s", baked.bones[b].name);
  r->bone_count = baked.bone_count;
  if (opts.budget) {
    opts.budget->used += tress_rig_get_bake_bytes(baked.mesh, baked.bone_count);
    tress_instance_connect(scene, part, refund_budget, opts.budget);
  }
  tress_rig_output_free(&baked);
  r->status = TRESS_RIG_OK;
  return TRESS_RIG_OK;
}

/* The one worn-scale rule: part size / mesh size per axis; an axis the mesh is flat on keeps 1. */
static void worn_scale(const float part_size[3], const float mesh_size[3], float scale[3]) {
  for (int k = 0; k < 3; k++) scale[k] = mesh_size[k] > 1e-12f ? part_size[k] / mesh_size[k] : 1.0f;
}

bool tress_rig_build_bones(tress_scene *scene, tress_id part, const tress_rig_output *rig, tress_id *ids) {
  float size[3], scale[3];
  tress_part_get_size(scene, part, size);
  worn_scale(size, rig->mesh_size, scale);
  for (uint32_t b = 0; b < rig->bone_count; b++) {
    const tress_rig_bone *rb = &rig->bones[b];
    tress_instance_def bone = tress_default_instance_def();
    bone.kind = TRESS_KIND_BONE;
    bone.name = rb->name;
    bone.parent = rb->parent < 0 ? part : ids[rb->parent];
    bone.cframe = rb->rest;
    for (int k = 0; k < 3; k++) bone.cframe.p[k] *= scale[k];
    if (tress_scene_create_instance(scene, &bone, &ids[b]) != TRESS_OK) {
      for (uint32_t k = 0; k < b; k++)
        if (rig->bones[k].parent < 0) tress_instance_destroy(scene, ids[k]);
      return false;
    }
  }
  if (rig->mesh) {
    tress_part_set_mesh(scene, part, rig->mesh);
    tress_part_set_size(scene, part, size);
  }
  return true;
}

void tress_rig_result_free(tress_rig_result *r) {
  if (!r) return;
  free(r->bone_names);
  free(r->bone_ids);
  r->bone_names = NULL;
  r->bone_ids = NULL;
  r->bone_count = 0;
}
