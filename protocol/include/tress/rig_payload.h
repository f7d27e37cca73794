/* tress/rig_payload.h - builds a RIG_RESULT message from the rigger's scene-free output: bones
 * in mesh space, weights quantized with largest-remainder rounding. */
#ifndef TRESS_RIG_PAYLOAD_H
#define TRESS_RIG_PAYLOAD_H

#include "tress/codec.h"
#include "tress/msg.h"
#include "tress/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills msg (type RIG_RESULT) from a successful tress_rig_mesh output. Bone rests stay in mesh
 * space, so the message is the same for every wearer but its ids (tress_rig_result_set_ids);
 * the receiver scales them to its handle with tress_rig_build_bones. The bone and skin arrays live in
 * msg->arena: release with tress_msg_free. `used` is what the server rigged with; its
 * max_influences sets the slots per vertex. Returns INVALID_MESSAGE for more bones or vertices
 * than the wire allows, OUT_OF_MEMORY on allocation failure. */
tress_wire_status tress_rig_payload_build(const tress_rig_output *rig, uint32_t character_id, uint8_t accessory_index,
                                          const uint8_t mesh_hash[32], const tress_wire_rig_options *used,
                                          tress_weight_format format, tress_compression compression,
                                          tress_msg *msg);

#ifdef __cplusplus
}
#endif

#endif
