/* scene_side.c - the scene's side table (scene_side.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "scene_side.h"

/* Fibonacci hashing: consecutive slots spread over the table. */
static uint32_t home(const scene_side *t, uint32_t slot) { return (uint32_t)(slot * 2654435769u) & (t->cap - 1); }

/* Where slot is, or the empty place its probe ends at. */
static uint32_t probe(const scene_side *t, uint32_t slot) {
  uint32_t i = home(t, slot);
  while (t->entries[i].slot && t->entries[i].slot != slot) i = (i + 1) & (t->cap - 1);
  return i;
}

bool scene_side_reserve(scene_side *t, uint32_t count) {
  uint32_t cap = t->cap ? t->cap : 16;
  while ((uint64_t)count * 4 > (uint64_t)cap * 3) cap *= 2; /* at most three quarters full */
  if (cap == t->cap) return true;
  scene_side_entry *grown = calloc(cap, sizeof *grown);
  if (!grown) return false;
  scene_side old = *t;
  t->entries = grown;
  t->cap = cap;
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.entries[i].slot) t->entries[probe(t, old.entries[i].slot)] = old.entries[i];
  free(old.entries);
  return true;
}

scene_side_entry *scene_side_find(const scene_side *t, uint32_t slot) {
  if (!t->cap || !slot) return NULL;
  scene_side_entry *e = &t->entries[probe(t, slot)];
  return e->slot ? e : NULL;
}

scene_side_entry *scene_side_add(scene_side *t, uint32_t slot) {
  scene_side_entry *found = scene_side_find(t, slot);
  if (found) return found;
  if (!scene_side_reserve(t, t->count + 1)) return NULL;
  scene_side_entry *e = &t->entries[probe(t, slot)];
  *e = (scene_side_entry){slot, 0, {1.0f, 1.0f, 1.0f}};
  t->count++;
  return e;
}

void scene_side_remove(scene_side *t, uint32_t slot) {
  scene_side_entry *e = scene_side_find(t, slot);
  if (!e) return;
  uint32_t hole = (uint32_t)(e - t->entries), mask = t->cap - 1;
  /* every later entry of the run that may move back does, so no probe stops short of it */
  for (uint32_t i = (hole + 1) & mask; t->entries[i].slot; i = (i + 1) & mask) {
    uint32_t want = home(t, t->entries[i].slot);
    bool stays = hole <= i ? (hole < want && want <= i) : (hole < want || want <= i);
    if (stays) continue;
    t->entries[hole] = t->entries[i];
    hole = i;
  }
  t->entries[hole].slot = 0;
  t->count--;
}

void scene_side_free(scene_side *t) {
  free(t->entries);
  *t = (scene_side){0};
}

size_t scene_side_bytes(const scene_side *t) { return (size_t)t->cap * sizeof *t->entries; }
