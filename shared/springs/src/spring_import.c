/* spring_import.c - spring chains and colliders from a glTF / VRM file (tress/spring_import.h).
 *
 * io's glTF document reader (gltf_document.h) parses the container, the JSON and the node
 * tree; only the JSON matters here (node names, hierarchy, TRS, extensions, extras), the mesh
 * and its buffers are never touched. The sources are read in order, each in its own file:
 * VRM 1.0 (spring_vrm1.c) or VRM 0.x (spring_vrm0.c), node extras (spring_extras.c), names
 * (spring_names.c); spring_import_internal.h states the invariants they keep.
 */
#include "spring_import_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tress/file_read.h"
#include "tress/result.h"

const char *tress_spring_source_name(tress_spring_source s) {
  switch (s) {
    case TRESS_SPRING_FROM_VRM1: return "VRMC_springBone";
    case TRESS_SPRING_FROM_VRM0: return "VRM0 secondaryAnimation";
    case TRESS_SPRING_FROM_EXTRAS: return "extras";
    case TRESS_SPRING_FROM_NAME: return "name";
  }
  return "unknown";
}

tress_spring_import_def tress_default_spring_import_def(void) {
  tress_spring_import_def d = {1.0f / 0.28f, true, true, true, TRESS_VRM_LENGTH_FIXED};
  return d;
}

/* The sources in order over an open document; false when memory ran out. */
static bool import_sources(tress__spring_builder *b, const tress__gltf_doc *doc, const tress_spring_import_def *d) {
  tress_spring_import *imp = b->imp;
  if (!tress__spring_read_nodes(b, doc)) return false;
  /* a chain per node at most: this flag array is indexed by chain */
  bool *all_colliders = calloc((size_t)imp->node_count + 1, sizeof *all_colliders);
  if (!all_colliders) return false;
  const cJSON *ext = cJSON_GetObjectItemCaseSensitive(doc->root, "extensions");
  if (!b->oom && d->read_vrm) {
    const cJSON *vrm1 = cJSON_GetObjectItemCaseSensitive(ext, "VRMC_springBone");
    const cJSON *vrm0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ext, "VRM"), "secondaryAnimation");
    if (cJSON_IsObject(vrm1)) {
      tress__spring_read_vrm1(b, vrm1);
      if (cJSON_IsObject(vrm0)) tress__spring_warn(b, "VRM0 secondaryAnimation next to VRMC_springBone: not imported (VRM 1.0 is read)");
    } else if (cJSON_IsObject(vrm0)) {
      tress__spring_read_vrm0(b, vrm0);
    }
  }
  if (!b->oom && d->read_extras) tress__spring_read_extras(b, doc->root, all_colliders);
  if (!b->oom && d->read_names) tress__spring_read_names(b, all_colliders);
  /* extras- and name-made chains are kept out of every collider the model has */
  for (uint32_t i = 0; !b->oom && i < imp->chain_count; i++) {
    if (!all_colliders[i]) continue;
    tress__spring_set_all_colliders(&imp->chains[i], imp);
    if (imp->collider_count > TRESS_COLLIDER_SET_MAX)
      tress__spring_warn(b, "chain \"%s\": %u colliders, the first %d are used", tress__spring_node_name(b, imp->chains[i].root),
                         imp->collider_count, TRESS_COLLIDER_SET_MAX);
  }
  for (uint32_t i = 0; !b->oom && i < imp->chain_count; i++) {
    tress_spring_chain *ch = &imp->chains[i];
    bool vrm = ch->source == TRESS_SPRING_FROM_VRM1 || ch->source == TRESS_SPRING_FROM_VRM0;
    ch->vrm_length = vrm ? d->vrm_length : TRESS_VRM_LENGTH_FIXED;
  }
  free(all_colliders);
  return !b->oom;
}

int tress_spring_import_read_memory(const uint8_t *data, size_t size, const tress_spring_import_def *def,
                                    tress_spring_import **out, tress_error *err) {
  if (out) *out = NULL;
  if (!data || !out) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "no data");
  if (size > TRESS_SPRING_MAX_FILE_BYTES)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "%zu bytes: larger than a model file may be", size);
  tress_spring_import_def d = def ? *def : tress_default_spring_import_def();
  if (!isfinite(d.units_per_metre) || d.units_per_metre <= 0.0f)
    return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "units_per_metre must be positive");
  tress__gltf_doc doc;
  int rc = tress__gltf_doc_open(&doc, data, size, NULL, err);
  tress_spring_import *imp = rc == 0 ? calloc(1, sizeof *imp) : NULL;
  if (rc == 0 && !imp) rc = tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
  if (rc == 0) {
    imp->units_per_metre = d.units_per_metre;
    tress__spring_builder b = {imp, false, d.units_per_metre, NULL, NULL, NULL, NULL, NULL, 0};
    if (!import_sources(&b, &doc, &d)) rc = tress_error_set(err, TRESS_ERR_OUT_OF_MEMORY, "out of memory");
    free(b.first_child);
    free(b.next_sibling);
    free(b.root_chain);
    free(b.in_chain);
    free(b.mark);
  }
  tress__gltf_doc_close(&doc);
  if (rc != 0) {
    tress_spring_import_free(imp);
    return rc;
  }
  *out = imp;
  return 0;
}

int tress_spring_import_load(const char *path, const tress_spring_import_def *def, tress_spring_import **out,
                             tress_error *err) {
  if (out) *out = NULL;
  if (!path) return tress_error_set(err, TRESS_ERR_INVALID_ARGUMENT, "no path");
  size_t size = 0;
  uint8_t *data = tress_file_read(path, TRESS_SPRING_MAX_FILE_BYTES, &size, err);
  if (!data) return err ? err->code : TRESS_ERR_INVALID_ARGUMENT;
  int rc = tress_spring_import_read_memory(data, size, def, out, err);
  free(data);
  return rc;
}

void tress_spring_import_free(tress_spring_import *imp) {
  if (!imp) return;
  for (uint32_t i = 0; i < imp->chain_count; i++) {
    free(imp->chains[i].joints);
    free(imp->chains[i].joint_settings);
    free(imp->chains[i].vrm_joints);
  }
  free(imp->chains);
  free(imp->colliders);
  free(imp->nodes);
  free(imp->warnings);
  free(imp);
}

int32_t tress_spring_import_find_node(const tress_spring_import *imp, const char *name) {
  if (!imp || !name) return -1;
  for (uint32_t i = 0; i < imp->node_count; i++)
    if (strcmp(imp->nodes[i].name, name) == 0) return (int32_t)i;
  return -1;
}

tress_chain_settings tress_spring_chain_get_settings(const tress_spring_chain *chain, const float sim_gravity[3]) {
  tress_chain_settings s = tress_default_chain_settings();
  if (!chain) return s;
  s.damping = chain->damping;
  s.stiffness = chain->stiffness;
  s.wind_scale = 1.0f;
  float g2 = sim_gravity ? sim_gravity[0] * sim_gravity[0] + sim_gravity[1] * sim_gravity[1] +
                               sim_gravity[2] * sim_gravity[2]
                         : 0.0f;
  if (g2 > 1e-12f) {
    float along = chain->gravity[0] * sim_gravity[0] + chain->gravity[1] * sim_gravity[1] +
                  chain->gravity[2] * sim_gravity[2];
    s.gravity_scale = along / g2;
  }
  return s;
}
