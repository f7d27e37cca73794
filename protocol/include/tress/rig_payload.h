/* tress/rig_payload.h - builds a RIG_RESULT message from the rigger's scene-free output: bones
 * scaled to the worn handle size, weights quantized with largest-remainder rounding. */
#ifndef TRESS_RIG_PAYLOAD_H
#define TRESS_RIG_PAYLOAD_H

#include "tress/codec.h"
#include "tress/msg.h"
#include "tress/rig.h"

/* Fills msg (type RIG_RESULT) from a successful tress_rig_mesh output. Bone rests are scaled by
 * handle_size / mesh_size exactly as tress_rig_part() scales its Bone instances, so a client builds
 * bones from the message without knowing the mesh bounds. The bone and skin arrays live in
 * msg->arena: release with tress_msg_free. `used` is what the server rigged with; its
 * max_influences sets the slots per vertex. Returns INVALID_MESSAGE for more bones or vertices
 * than the wire allows, OUT_OF_MEMORY on allocation failure. */
tress_wire_status tress_rig_payload_build(const tress_rig_output *rig, const float handle_size[3],
                                          uint32_t character_id, uint8_t accessory_index,
                                          const uint8_t mesh_hash[32], const tress_wire_rig_options *used,
                                          tress_weight_format format, tress_compression compression,
                                          tress_msg *msg);

#endif
