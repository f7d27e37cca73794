/* owner_tag.h - the tag a scene or sim stamps into the ids it makes (not a public header).
 * Shared by core's scene and the solver so the rule exists once; inline, so nothing is exported. */
#ifndef TRESS_OWNER_TAG_H
#define TRESS_OWNER_TAG_H

#include <stdint.h>
#include <time.h>

/* From the owner's address and the monotonic clock at creation, mixed (splitmix64's finalizer)
 * and folded to 32 bits; never 0, so a zeroed id names no owner. No global counter, so owners in
 * one process share nothing. What it guarantees: two owners alive at once (distinct addresses)
 * get equal tags only with probability 2^-32 per pair, and an owner made later at a freed one's
 * address gets a fresh tag (the clock moved), so ids kept from a destroyed owner are refused by
 * its successor too. On a collision the index and generation checks still hold, so an id never
 * reaches a freed slot. */
static inline uint32_t tress__owner_tag(const void *owner) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t x = (uint64_t)(uintptr_t)owner ^
               ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) * 0x9e3779b97f4a7c15u;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9u;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebu;
  x ^= x >> 31;
  uint32_t tag = (uint32_t)(x ^ (x >> 32));
  return tag ? tag : 1u;
}

#endif
