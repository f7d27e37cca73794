/* tress/sample_character.h - a small built-in character manifest (root, torso, head, rigged
 * hair, a pendulum hat) for tress-bot, the examples and the tests, with no JSON file needed. */
#ifndef TRESS_SAMPLE_CHARACTER_H
#define TRESS_SAMPLE_CHARACTER_H

#include "tress/msg.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRESS_SAMPLE_CHARACTER_PARTS 3
#define TRESS_SAMPLE_CHARACTER_ACCESSORIES 2

/* The manifest points into this struct's arrays: keep it alive (and unmoved) while used. */
typedef struct tress_sample_character {
  tress_wire_manifest manifest;
  tress_wire_part parts[TRESS_SAMPLE_CHARACTER_PARTS];
  tress_wire_accessory accessories[TRESS_SAMPLE_CHARACTER_ACCESSORIES];
} tress_sample_character;

/* hair_asset_id: one of the committed sample meshes ("meshes/hair_bob.glb", hair_long,
 * hair_ponytail; NULL = bob), sized and placed on the head as the sample mesh is modelled.
 * Parts: 0 HumanoidRootPart, 1 UpperTorso, 2 Head. Accessories: 0 Hair (Weld to the head),
 * 1 Hat (RigidConstraint to the head, no mesh: a pendulum). */
void tress_sample_character_init(tress_sample_character *s, const char *name, const char *hair_asset_id);

#ifdef __cplusplus
}
#endif

#endif
