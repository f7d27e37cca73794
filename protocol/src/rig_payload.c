/* rig_payload.c - tress_rig_output -> RIG_RESULT. The one place that knows both the rigger's
 * output layout and the wire's, so the server and the benchmarks build identical payloads. */
#include "tress/rig_payload.h"

#include <stdio.h>
#include <stdlib.h>

#include "wire_internal.h"

tress_wire_status tress_rig_payload_build(const tress_rig_output *rig, uint32_t character_id, uint8_t accessory_index,
                                          const uint8_t mesh_hash[32], const tress_wire_rig_options *used,
                                          tress_weight_format format, tress_compression compression,
                                          tress_msg *msg) {
  memset(msg, 0, sizeof *msg);
  msg->type = TRESS_MSG_RIG_RESULT;
  const tress_mesh *mesh = rig->mesh;
  if (!mesh || !mesh->weights || !mesh->joints || rig->bone_count < 1 || rig->bone_count > TRESS_WIRE_MAX_BONES ||
      mesh->vertex_count > TRESS_WIRE_MAX_VERTICES)
    return TRESS_WIRE_ERR_INVALID_MESSAGE;
  tress_msg_rig_result *m = &msg->rig_result;
  m->character_id = character_id;
  m->accessory_index = accessory_index;
  memcpy(m->mesh_hash, mesh_hash, 32);
  m->options = *used;

  m->bone_count = rig->bone_count;
  m->bones = wire_arena_alloc(&msg->arena, sizeof *m->bones * rig->bone_count);
  size_t n = mesh->vertex_count;
  uint8_t *joints = wire_arena_alloc(&msg->arena, n * 4 + 1);
  uint16_t *weights = wire_arena_alloc(&msg->arena, (n * 4 + 1) * sizeof(uint16_t));
  if (!m->bones || !joints || !weights) {
    tress_msg_free(msg);
    return TRESS_WIRE_ERR_OUT_OF_MEMORY;
  }
  for (uint32_t b = 0; b < rig->bone_count; b++) {
    tress_wire_bone *wb = &m->bones[b];
    snprintf(wb->name, sizeof wb->name, "%s", rig->bones[b].name);
    wb->parent = (int16_t)rig->bones[b].parent;
    wb->rest = rig->bones[b].rest; /* mesh space: the wire's bone space */
  }
  uint8_t k = used->max_influences < 1 ? 1 : (used->max_influences > 4 ? 4 : used->max_influences);
  /* The rigger sorts influences by weight, so the first k slots are the ones worth keeping. */
  for (size_t i = 0; i < n * 4; i++) joints[i] = (uint8_t)(mesh->joints[i] < rig->bone_count ? mesh->joints[i] : 0);
  tress_skin_quantize(mesh->weights, (uint32_t)n, k, format, weights);
  m->skin = (tress_wire_skin){(uint32_t)n, k, (uint8_t)format, (uint8_t)compression, joints, weights};
  return TRESS_WIRE_OK;
}
