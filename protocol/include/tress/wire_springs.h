/* tress/wire_springs.h - BIND's springs section (tag TRESS_SECTION_SPRINGS): colliders by the
 * name of the part or bone they follow, and spring chain settings with collider sets. */
#ifndef TRESS_WIRE_SPRINGS_H
#define TRESS_WIRE_SPRINGS_H

#include <stddef.h>
#include <stdint.h>

#include "tress/codec.h"
#include "tress/msg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fits one section: 64 x 93 bytes of colliders + 64 x 136 bytes of chains < 16 KiB. */
#define TRESS_WIRE_MAX_COLLIDERS 64
#define TRESS_WIRE_MAX_SPRING_CHAINS 64
#define TRESS_WIRE_MAX_RADIUS 1000.0f /* collider radius, strand radius, end length, units */
#define TRESS_WIRE_MAX_GUST_HZ 100.0f /* wind_frequency */
#define TRESS_WIRE_MAX_JOINT_LIMITS 16 /* per named chain; the section as a whole still fits 16 KiB */

typedef struct tress_wire_collider {
  uint8_t shape;                    /* tress_collider_shape: 0 sphere, 1 capsule */
  char attach[TRESS_WIRE_NAME_CAP]; /* a part or bone of the character, by name; "" = world */
  float offset[3];                  /* in attach's frame, units; |c| <= TRESS_WIRE_MAX_COORD */
  float tail[3];                    /* capsule's second end centre (a sphere: ignored, sent as 0) */
  float radius;                     /* 0..TRESS_WIRE_MAX_RADIUS */
} tress_wire_collider;

/* One joint's own rotation limit in a named chain: the bone by name (the chain's root or a bone
 * below it), in place of the chain's limit on that joint. kind is never TRESS_LIMIT_NONE. */
typedef struct tress_wire_joint_limit {
  char bone[TRESS_WIRE_NAME_CAP];
  tress_joint_limit limit;
} tress_wire_joint_limit;

/* root "" is the character's default: its spring fields (radius .. enabled, collider set) go
 * to every chain the bind binds, whose first four fields stay BIND's chain_settings (so
 * SETTINGS_UPDATE keeps working). A named root is a bone bound on its own
 * (tress_sim_bind_bone_chain) with all of settings, when no other chain simulates it. */
typedef struct tress_wire_spring_chain {
  char root[TRESS_WIRE_NAME_CAP];
  tress_chain_settings settings; /* collider ids are not sent: collider_count / colliders are */
  uint8_t collider_count;        /* 0..TRESS_CHAIN_COLLIDERS_MAX */
  uint8_t colliders[TRESS_CHAIN_COLLIDERS_MAX]; /* distinct indices < the section's collider_count */
  /* A named chain's rotation limit, on every one of its joints (sim.h, "Rotation limits"); kind
   * TRESS_LIMIT_NONE sends nothing (the default entry must have none). angle and yaw in
   * [0, pi] radians, rotation a unit quaternion. */
  tress_joint_limit limit;
  /* Per-joint limits (named chains only): each bone named once, in place of `limit` there. */
  uint8_t joint_limit_count; /* 0..TRESS_WIRE_MAX_JOINT_LIMITS */
  tress_wire_joint_limit joint_limits[TRESS_WIRE_MAX_JOINT_LIMITS];
} tress_wire_spring_chain;

typedef struct tress_wire_springs {
  uint32_t collider_count; /* 0..TRESS_WIRE_MAX_COLLIDERS */
  tress_wire_collider colliders[TRESS_WIRE_MAX_COLLIDERS];
  uint32_t chain_count;    /* 0..TRESS_WIRE_MAX_SPRING_CHAINS */
  tress_wire_spring_chain chains[TRESS_WIRE_MAX_SPRING_CHAINS];
} tress_wire_springs;

/* Section format version (the first byte); a decoder refuses versions it does not know. A
 * section that carries no limit is written as format 1, byte for byte what it was before limits
 * existed; one with a chain or joint limit is format 2, so a format-1 decoder refuses it
 * (BAD_VERSION) instead of misreading the flags. */
#define TRESS_WIRE_SPRINGS_FORMAT 1
#define TRESS_WIRE_SPRINGS_FORMAT_LIMITS 2

/* Validates and writes the section body to buf (NULL/cap 0 measures); *out_len the bytes. */
tress_wire_status tress_wire_springs_encode(const tress_wire_springs *s, uint8_t *buf, size_t cap, size_t *out_len,
                                            tress_wire_error *err);
/* Decodes a section body exactly (no trailing bytes). *out is fully written on success. */
tress_wire_status tress_wire_springs_decode(const uint8_t *bytes, size_t len, tress_wire_springs *out,
                                            tress_wire_error *err);
/* The springs section of a BIND, or NULL. */
const tress_wire_section *tress_msg_bind_get_springs(const tress_msg_bind *bind);
bool tress_wire_springs_is_equal(const tress_wire_springs *a, const tress_wire_springs *b);

#ifdef __cplusplus
}
#endif

#endif
