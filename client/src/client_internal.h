/* client_internal.h - what the client's files share: the client struct, the replica's characters
 * and the internal entry points of replica.c, apply_rig.c, spawns.c and client.c.
 *
 * Files:
 *   client.c     ENet host, connect/reconnect state machine, message dispatch, counters
 *   replica.c    characters built in the local scene from manifests, root motion, accessors
 *   apply_rig.c  rig results: hash check against the local asset, bones + skinned mesh, fallback
 *   spawns.c     this client's own spawns (deep-copied manifests), re-sent after a reconnect
 *   client_uv.c  the network pumped from a libuv loop instead of once per frame
 *   pose_input.c the game's animated skeleton: part poses and bone animated slots, by id or in bulk
 */
#ifndef TRESS_CLIENT_INTERNAL_H
#define TRESS_CLIENT_INTERNAL_H

#include <enet/enet.h>

#include "tress/client.h"
#include "tress/codec.h"
#include "tress/msg.h"
#include "tress/wire_springs.h"

#define TRESS_CLIENT_HELD_RIGS 16

/* One accessory of a replicated character. */
typedef struct replica_accessory {
  tress_id accessory;
  tress_id handle;
  tress_id joint;
  tress_id attachment0, attachment1; /* RigidConstraint only */
  tress_client_rig_state rig_state;
  bool result_received; /* a RIG_RESULT arrived (applied or not): BIND may proceed */
  uint32_t bone_first;  /* into the character's bones array */
  uint32_t bone_count;
} replica_accessory;

/* A rope or cloth sheet of the manifest's attachments section, bound in the client's sim. */
typedef struct replica_attachment {
  char name[TRESS_WIRE_NAME_CAP];
  bool cloth;
  tress_handle_id handle;
} replica_attachment;

typedef struct replica_character {
  uint32_t id;
  uint32_t owner_peer_id;
  uint32_t request_id;
  bool mine;
  tress_wire_manifest manifest; /* deep copy (spawns.c owns the copy helpers) */
  tress_id model;
  tress_id *parts;              /* manifest.part_count */
  replica_accessory *accessories; /* manifest.accessory_count */
  tress_id *bones;              /* every rigged accessory's bones, accessory order */
  uint32_t bone_count, bone_cap;
  tress_xform root;
  tress_xform *part_poses;      /* manifest.part_count, relative to root; the manifest frames until posed */
  uint32_t pose_layout;         /* bumped whenever bones change, so pose maps resolve again */
  bool bound;
  bool have_bind;               /* a BIND arrived; re-applied after a late rig result */
  tress_msg_bind bind;          /* settings from the last BIND (match indices copied) */
  uint8_t match_indices[TRESS_WIRE_MAX_ACCESSORIES];
  uint8_t rigged_indices[TRESS_WIRE_MAX_ACCESSORIES];
  tress_handle_id *handles;
  uint32_t handle_count, handle_cap;
  double added_at, bound_at;
  struct replica_springs *springs; /* BIND's springs section and what it made; NULL when none */
  replica_attachment *attachments;  /* ropes and cloth from the manifest, bound with the character */
  uint32_t attachment_count;
  bool attachments_bound;           /* tried once: the section does not change */
} replica_character;

/* A BIND's springs section, decoded, and what it made in the sim: a collider per section
 * collider (null where the attach name matched nothing; count 0 while not in the sim) and the
 * chains bound by name. One allocation, so a replacement is built aside and swapped in whole. */
typedef struct replica_springs {
  tress_wire_springs section;
  tress_collider_id collider_ids[TRESS_WIRE_MAX_COLLIDERS];
  uint32_t collider_id_count;
  tress_handle_id spring_handles[TRESS_WIRE_MAX_SPRING_CHAINS];
  uint32_t spring_handle_count;
  bool on_character_chain[TRESS_WIRE_MAX_SPRING_CHAINS]; /* entry skipped: its root swings with the
                                                          character's own chain (its limits go there) */
} replica_springs;

/* A character this client asked for; the manifest is re-sent after a reconnect. */
typedef struct owned_spawn {
  uint32_t request_id;
  uint32_t character_id; /* 0 until CHARACTER_ADDED answers */
  tress_wire_manifest manifest;
} owned_spawn;

typedef struct mesh_cache_entry {
  char asset_id[TRESS_WIRE_TEXT_CAP];
  tress_mesh *mesh; /* NULL: tried and unavailable */
  bool hashed;
  uint8_t hash[32]; /* content hash of mesh, computed once */
} mesh_cache_entry;

struct tress_client {
  tress_client_def def;
  char client_name[TRESS_WIRE_NAME_CAP];
  char asset_root[1024];
  tress_scene *scene;
  tress_sim *sim;
  tress_id workspace;

  ENetHost *host;
  ENetPeer *peer;
  char server_host[256];          /* where this attempt goes: connect()'s address, or a REDIRECT's */
  uint16_t server_port;
  char origin_host[256];          /* connect()'s: every new attempt after a lost connection starts here */
  uint16_t origin_port;
  char visited[TRESS_CLIENT_MAX_REDIRECTS + 1][270]; /* "host:port" this attempt went through */
  uint32_t visited_count;
  char token[TRESS_WIRE_TEXT_CAP];
  bool token_sent;          /* a HELLO carried c->token: the next attempt asks def.get_token */
  char room[TRESS_WIRE_NAME_CAP];
  tress_client_state state;
  bool want_connection;
  double state_since;
  double retry_at;
  uint32_t backoff_ms;
  uint32_t peer_id;
  tress_wire_limits limits;

  uint8_t *send_buf;
  size_t send_cap;

  replica_character **characters;
  uint32_t character_count, character_cap;

  owned_spawn *spawns;
  uint32_t spawn_count, spawn_cap;
  uint32_t next_request_id;

  /* RIG_RESULTs (bulk) that overtook their CHARACTER_ADDED (control); replayed on arrival. */
  tress_msg held_rigs[TRESS_CLIENT_HELD_RIGS];
  uint32_t held_count;

  mesh_cache_entry *meshes;
  uint32_t mesh_count, mesh_cap;

  struct client_uv *uv; /* client_uv.c, while attached to a libuv loop */
  struct tress_client_pose_map *pose_maps; /* pose_input.c: live maps, to detach on removal */

  double joined_at;
  tress_client_stats stats;
  char last_error[TRESS_CLIENT_ERROR_MAX];
};

/* client.c */
void tress__client_report(tress_client *c, tress_client_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tress_result tress__client_send(tress_client *c, const tress_msg *msg, tress_error *err);

/* replica.c */
replica_character *tress__replica_find(const tress_client *c, uint32_t character_id);
/* Builds the character from a CHARACTER_ADDED; replaces nothing (a known id is refused). */
tress_result tress__replica_add(tress_client *c, const tress_msg_character_added *m);
/* Releases handles, destroys instances, frees the entry. */
void tress__replica_remove(tress_client *c, uint32_t character_id, uint8_t reason);
void tress__replica_clear(tress_client *c, uint8_t reason);
/* BIND: bind_character with the server's settings and match policy. */
tress_result tress__replica_bind(tress_client *c, replica_character *ch, const tress_msg_bind *bind);
/* After a RIG_RESULT: binds once the BIND and every rig it lists are here; a rig the BIND did
 * not list re-binds (the character's handles are destroyed first). */
void tress__replica_rig_arrived(tress_client *c, replica_character *ch);
/* replica_springs.c: BIND's springs section, decoded into a new set (*out NULL when the BIND
 * has none). A section that does not decode is reported and returns
 * TRESS_ERR_INVALID_ARGUMENT: the caller keeps the springs it has. */
tress_result tress__springs_read(tress_client *c, const replica_character *ch, const tress_msg_bind *bind,
                                        replica_springs **out);
/* Makes next (owned from here on, may be NULL) the character's springs. Unbound: only kept for
 * the bind. Bound: an equal section changes nothing; another one replaces the colliders and
 * named chains whole (new ones added first, so a refusal halfway keeps the old set entirely,
 * reported). The caller then re-applies tress__springs_settings to the character's handles. */
void tress__springs_update(tress_client *c, replica_character *ch, replica_springs *next);
/* After bind_character: puts the springs into the sim (colliders all or none), the default
 * entry on every chain handle, the named chains. */
void tress__springs_apply(tress_client *c, replica_character *ch);
tress_chain_settings tress__springs_settings(const replica_character *ch, const tress_chain_settings *base);
/* After the character's chain settings changed: the section's limits on the character's own
 * chains are put on again with the new joint values (the joints follow the chain). */
void tress__springs_retune(tress_client *c, replica_character *ch);
void tress__springs_release(tress_client *c, replica_character *ch);
void tress__springs_free(replica_character *ch);
void tress__replica_apply_settings(tress_client *c, replica_character *ch, const tress_msg_settings_update *m);
void tress__replica_place(tress_client *c);
/* True while some character waits for a rig or a bind (for the bytes-per-phase split). */
bool tress__replica_settling(const tress_client *c);

/* pose_input.c */
/* The character is going: maps that point at it stop applying (they answer UNKNOWN_CHARACTER). */
void tress__pose_maps_forget(tress_client *c, const replica_character *ch);
/* The client is going: every map is detached (the game still destroys its maps). */
void tress__pose_maps_detach_all(tress_client *c);

/* apply_rig.c */
void tress__apply_rig_result(tress_client *c, const tress_msg_rig_result *m);
void tress__apply_rig_failed(tress_client *c, const tress_msg_rig_failed *m);
/* The local copy of an asset (cached; NULL when unavailable). Borrowed reference. */
tress_mesh *tress__client_local_mesh(tress_client *c, const char *asset_id);
/* Its content hash, computed once per asset. False when there is no local copy. */
bool tress__client_local_hash(tress_client *c, const char *asset_id, uint8_t out[32]);
void tress__client_mesh_cache_clear(tress_client *c);

/* replica_attachments.c */
void tress__attachments_bind(tress_client *c, replica_character *ch);
void tress__attachments_release(tress_client *c, replica_character *ch);

/* spawns.c */
bool tress__manifest_copy(tress_wire_manifest *dst, const tress_wire_manifest *src);
void tress__manifest_free(tress_wire_manifest *m);
void tress__spawns_resend(tress_client *c);
void tress__spawns_free(tress_client *c);
owned_spawn *tress__spawn_find_request(tress_client *c, uint32_t request_id);

#endif
