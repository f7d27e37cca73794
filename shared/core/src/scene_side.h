/* scene_side.h - what few instances have, kept beside the instance array instead of in every
 * slot: a scale other than (1, 1, 1) and the head of a listener list. A hair rig is mostly bones,
 * which have neither; the characters' parts each have a listener or two. One open-addressing
 * table keyed by slot (linear probing, deletion by backward shift) holds both, so an instance is
 * 80 bytes, not 96. Scales are read when a world pose composes them and listeners when an event
 * fires, never per bone per frame (an instance without an entry is looked up not at all: its
 * `side` flag). Private to scene.c. */
#ifndef TRESS_SCENE_SIDE_H
#define TRESS_SCENE_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct scene_side_entry {
  uint32_t slot;           /* one-based; 0 for an empty place */
  uint32_t first_listener; /* one-based, 0: none */
  float scale[3];
} scene_side_entry;

typedef struct scene_side {
  scene_side_entry *entries; /* cap places, cap a power of two (or 0) */
  uint32_t cap, count;
} scene_side;

/* Room for `count` entries without growing (false when memory runs out, the table unchanged). */
bool scene_side_reserve(scene_side *t, uint32_t count);
/* Slot's entry, NULL when it has none. */
scene_side_entry *scene_side_find(const scene_side *t, uint32_t slot);
/* Slot's entry, made (scale 1, no listener) when it has none; NULL when memory runs out. */
scene_side_entry *scene_side_add(scene_side *t, uint32_t slot);
/* Drops slot's entry (none: nothing happens). */
void scene_side_remove(scene_side *t, uint32_t slot);
void scene_side_free(scene_side *t);
size_t scene_side_bytes(const scene_side *t);

#endif
