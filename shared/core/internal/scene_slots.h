/* scene_slots.h - core's batch access to bone slots for the solver (tress::sim) only.
 * Not a public header (never installed): it hands out pointers into scene storage, which public
 * headers must not (docs/API.md, Ids), but a solver reading and writing thousands of bones per
 * frame cannot afford a lookup per bone per substep. */
#ifndef TRESS_SCENE_SLOTS_H
#define TRESS_SCENE_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/scene.h"

/* The epoch changes whenever instance storage moves or any instance is destroyed; pointers
 * fetched under an older epoch must be re-fetched. */
uint64_t tress__scene_layout_epoch(const tress_scene *scene);
/* Changes whenever some instance's scale is set or an instance is reparented: composed scales
 * read under an older epoch may be stale. */
uint64_t tress__scene_scale_epoch(const tress_scene *scene);
/* The bones' animated and transform arrays, both indexed by tress__bone_slot, and the epoch they
 * stay where they are for. Entry 0 is the root's, never a bone's: the animated one is always the
 * identity (a solver reads it for a node it does not drive), the transform one is never read. */
uint64_t tress__bone_slot_arrays(tress_scene *scene, tress_xform **animated, tress_xform **transform);
/* How many bones hold an animated local that is not bit for bit the identity: with none, every
 * entry of the animated array reads the identity, so a solver may take that without reading. */
uint32_t tress__scene_animated_bones(const tress_scene *scene);
/* A bone's entry in both arrays (never 0). 0 for a stale id, another scene's id or a non-bone. It
 * holds while the bone lives (a destroyed bone moves the layout epoch). */
uint32_t tress__bone_slot(const tress_scene *scene, tress_id bone);
/* Gives the listed bones entries 1, 2, ... in list order (a stale id, another scene's id, a
 * non-bone or a bone listed again is skipped) and every other bone the entries after them, in
 * their old order; each keeps its values. A solver that lists its bones in the order it reads and
 * writes them then streams through both arrays. Moves the layout epoch when an entry moved; false,
 * with nothing changed, when memory runs out. */
bool tress__scene_order_bones(tress_scene *scene, const tress_id *bones, uint32_t count);
/* A part's cframe where the scene keeps it (NULL for a stale id, another scene's id or a
 * non-part), so the solver copies it memory to memory: valid until the layout epoch changes. */
const tress_xform *tress__part_cframe_slot(const tress_scene *scene, tress_id part);

#endif
