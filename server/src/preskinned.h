/* preskinned.h - a pre-skinned accessory (a mesh file that carries its own skin: joints and
 * weights) checked and laid out as the rigger's output, so the server relays the file's bones
 * through the same RIG_RESULT, memory cache and client path as a rigged hair. Nothing is rigged. */
#ifndef TRESS_SERVER_PRESKINNED_H
#define TRESS_SERVER_PRESKINNED_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/mesh.h"
#include "tress/msg.h"
#include "tress/rig.h"

#define TRESS_PRESKINNED_DIGEST_BYTES 32
/* A vertex's weights may be off 1 by this much in the file (8-bit normalized weights, exporters
 * that round); they are renormalized exactly. Further off is a broken file. */
#define TRESS_PRESKINNED_WEIGHT_TOLERANCE 0.01

/* Any thread (a pure function of mesh). Checks the skin the mesh file carries: present, 1..256
 * joints, every joint named (unique, non-empty), parents forming a forest (no cycle), finite
 * bind positions, every vertex's weights finite and summing to 1 within the tolerance. Then
 * fills out as tress_rig_mesh would: bones ordered parents first, each rest the offset from its
 * parent's bind position (a root's from the mesh bounds centre), identity rotations; out->mesh a
 * copy whose joints follow the new order, each vertex's slots heaviest first and weights summing
 * to exactly 1. *influences = the most slots any vertex uses (1..4). digest covers the geometry
 * hash, bones and skin, so a re-weighted file with the same geometry is another cache key.
 * false with a reason naming what is wrong (out untouched). */
bool tress_preskinned_read(const tress_mesh *mesh, tress_rig_output *out, uint8_t *influences,
                           uint8_t digest[TRESS_PRESKINNED_DIGEST_BYTES], char reason[TRESS_WIRE_TEXT_CAP]);

#endif
