/* tress/client.h - libtress-client: connect to a tress-server, keep a replica of the room's
 * characters in a local scene, apply rig results and binds to a local sim, expose bone poses. */
#ifndef TRESS_CLIENT_H
#define TRESS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/math.h"
#include "tress/mesh.h"
#include "tress/msg.h"
#include "tress/pose.h"
#include "tress/result.h"
#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tress_client tress_client;

#define TRESS_CLIENT_ERROR_MAX 256
/* REDIRECTs followed in one attempt (PROTOCOL.md 4.15) before the client gives up with an error;
 * a redirect back to a server already visited in the attempt is a loop and stops it at once. */
#define TRESS_CLIENT_MAX_REDIRECTS 4

/* Fallible calls return tress_result (tress/result.h): TRESS_ERR_NOT_CONNECTED, _ADDRESS, _NETWORK,
 * _NOT_FOUND (no such character), _LIMIT (the server's spawn limit), _PROTOCOL (a message that
 * would break a wire rule), _INVALID_ARGUMENT, _OUT_OF_MEMORY. The calls whose reason needs words
 * (connect, spawn, despawn, pose map create) take a trailing tress_error *err (may be NULL).
 * What goes wrong later, inside service() (a lost connection, a server error, a warning), is
 * reported through on_error and kept as tress_client_get_last_error(). */

/* Where the connection is. READY = in the room, spawns flowing. */
typedef enum tress_client_state {
  TRESS_CLIENT_IDLE = 0,     /* never connected, or disconnected for good */
  TRESS_CLIENT_CONNECTING,   /* ENet handshake */
  TRESS_CLIENT_HELLO_SENT,   /* waiting for WELCOME */
  TRESS_CLIENT_JOINING,      /* waiting for ROOM_JOINED */
  TRESS_CLIENT_READY,
  TRESS_CLIENT_BACKOFF,      /* connection lost; the next attempt is scheduled */
} tress_client_state;

const char *tress_client_state_name(tress_client_state s);

/* Why on_error fired. Protocol errors are what tress-bot counts as failures. */
typedef enum tress_client_error_kind {
  TRESS_CLIENT_ERROR_PROTOCOL = 1, /* a message from the server failed to decode or broke the state machine */
  TRESS_CLIENT_ERROR_SERVER,       /* the server sent ERROR or REJECT */
  TRESS_CLIENT_ERROR_WARNING,      /* recoverable, e.g. a rig that failed on the server or a mesh hash
                                      mismatch here (the accessory swings as a pendulum): the message says
                                      which character, accessory and asset, and why */
} tress_client_error_kind;

const char *tress_client_error_kind_name(tress_client_error_kind kind); /* "protocol", "server", "warning" */

/* Accessory state after the rig phase. */
typedef enum tress_client_rig_state {
  TRESS_RIG_NONE = 0,      /* not rigged by the server (no mesh, already boned, not hair) */
  TRESS_RIG_PENDING,       /* a rig is expected (hair with a mesh) */
  TRESS_RIG_APPLIED,       /* bones + skinned mesh on the handle */
  TRESS_RIG_FALLBACK,      /* failed on the server or did not verify here: swings as a pendulum */
} tress_client_rig_state;

const char *tress_client_rig_state_name(tress_client_rig_state state); /* "none", "pending", "applied", "fallback" */

typedef struct tress_client_callbacks {
  void *user;
  void (*on_character_added)(void *user, tress_client *c, uint32_t character_id);
  /* The seed's Hair.Rigged: bones are already in the scene under mesh_part. */
  void (*on_rigged)(void *user, tress_client *c, uint32_t character_id, tress_id mesh_part,
                    const char (*bone_names)[TRESS_NAME_MAX], uint32_t bone_count);
  /* The server could not rig it (on_error gets a warning with the same reason too). */
  void (*on_rig_failed)(void *user, tress_client *c, uint32_t character_id, uint32_t accessory_index,
                        const char *reason);
  /* After bind_character: handle_count handles simulate this character. */
  void (*on_bound)(void *user, tress_client *c, uint32_t character_id, uint32_t handle_count);
  /* Before the character's instances are destroyed (handles release, poses restored). */
  void (*on_removed)(void *user, tress_client *c, uint32_t character_id, uint8_t reason);
  void (*on_connected)(void *user, tress_client *c);   /* READY, room joined */
  void (*on_disconnected)(void *user, tress_client *c, bool will_retry);
  void (*on_error)(void *user, tress_client *c, tress_client_error_kind kind, const char *message);
  /* Every decoded message, for logging and `tress-bot --dump`. */
  void (*on_message)(void *user, tress_client *c, const tress_msg *msg, size_t wire_bytes);
} tress_client_callbacks;

/* Loads a local mesh for an asset id (hash verification and skinning). NULL when unavailable.
 * The returned mesh is owned by the caller of this hook (one reference). */
typedef tress_mesh *(*tress_client_mesh_loader_fn)(void *user, const char *asset_id);

/* A fresh auth token for the next connection attempt (a signed join token is good for one
 * connection: PROTOCOL.md 5.1), copied at once; NULL keeps the previous one. The game's backend
 * mints it for the same room. */
typedef const char *(*tress_client_token_fn)(void *user, tress_client *c);

typedef struct tress_client_def {
  const char *client_name;       /* sent in HELLO, "tress-client" */
  tress_sim_def sim;             /* the client's own sim (scene is ignored: the client owns one) */
  tress_client_callbacks callbacks;
  const char *asset_root;        /* local asset copies: <asset_root>/<asset_id>; "assets" */
  tress_client_mesh_loader_fn load_mesh; /* NULL: glTF/GLB from asset_root */
  void *load_mesh_user;
  tress_client_token_fn get_token; /* NULL: every attempt sends connect()'s token again */
  void *get_token_user;
  bool reconnect;                /* retry a lost connection with backoff (true) */
  uint32_t backoff_initial_ms;   /* 250 */
  uint32_t backoff_max_ms;       /* 5000, doubling */
  uint32_t connect_timeout_ms;   /* one attempt's ENet handshake, 3000 */
} tress_client_def;

tress_client_def tress_default_client_def(void);

tress_client *tress_client_create(const tress_client_def *def);
/* Disconnects, destroys every character (handles released) and the sim and scene. */
void tress_client_destroy(tress_client *c);

/* Starts connecting; returns at once. service() drives HELLO, JOIN_ROOM and the rest (following
 * REDIRECTs to the server of the fleet that hosts the room; a lost connection starts again at
 * this host and port, which may redirect to the room's new owner). token goes
 * in HELLO: a signed join token for room (tress/join_token.h), the server's development secret,
 * or NULL / "" for an open server. A reconnect asks def.get_token for a new one when it is set.
 * TRESS_ERR_INVALID_ARGUMENT, _ADDRESS (host did not resolve) or _NETWORK; err names the host. */
tress_result tress_client_connect(tress_client *c, const char *host, uint16_t port, const char *token,
                                  const char *room, tress_error *err);
/* Leaves for good (no reconnect). Characters stay in the replica until destroy. */
void tress_client_disconnect(tress_client *c);
/* Pumps the network without blocking: call once per frame. Returns events handled. */
int tress_client_service(tress_client *c);
/* The same but waits up to timeout_ms for the first event (for tools and tests). */
int tress_client_service_wait(tress_client *c, uint32_t timeout_ms);
/* The ENet socket (-1 before connect). */
int tress_client_get_socket(const tress_client *c);

/* Pumps the network from a libuv loop instead of service() per frame: a uv_poll_t on the
 * socket plus a short timer for ENet's resends and the reconnect clock. The game still steps
 * (tress_client_step) from wherever it draws. Detach before destroying the client or closing
 * the loop; the handles close asynchronously, so run the loop once more after detaching. */
struct uv_loop_s;
/* TRESS_ERR_INVALID_ARGUMENT, _OUT_OF_MEMORY, or _NETWORK when libuv refuses (last_error says why). */
tress_result tress_client_attach_loop(tress_client *c, struct uv_loop_s *loop);
void tress_client_detach_loop(tress_client *c);

/* Asks the server to spawn a character. The manifest is copied and re-sent after a reconnect,
 * so the character comes back. *request_id (may be NULL) matches on_character_added's owner id.
 * TRESS_ERR_LIMIT past the server's spawn limit, _PROTOCOL for a manifest that breaks a wire
 * rule (err says which; it is not kept), _OUT_OF_MEMORY, _NETWORK. */
tress_result tress_client_spawn(tress_client *c, const tress_wire_manifest *manifest, uint32_t *request_id,
                                tress_error *err);
/* TRESS_ERR_NOT_FOUND for a character that is neither spawned here nor in the replica,
 * _NOT_CONNECTED while not in the room. */
tress_result tress_client_despawn(tress_client *c, uint32_t character_id, tress_error *err);

/* Moves a character's root: every part is placed at root * its pose (its manifest frame until
 * the game poses it, below), then handles follow their joints. Call before tress_client_step. */
tress_result tress_client_set_root(tress_client *c, uint32_t character_id, tress_xform root);

/* ---- the game's animated skeleton (docs/ENGINES.md maps an engine's skeleton onto this) ---- */
/*
 * Every frame before tress_client_step the game may pose a character's parts and bones; what
 * hangs from them (rigged hair, pendulum accessories, springs) follows. Poses persist until
 * changed.
 * - A part's pose is its frame relative to the character's root (tress_client_set_root), i.e.
 *   model space, not world space: the root carries the character through the world and the
 *   teleport guard, the pose is what the animation does to the body. Until posed, a part sits at
 *   its manifest frame.
 * - A bone's pose is its `animated` value: the extra transform after its rest cframe
 *   (TRESS_BONE_POSE_ANIMATED), or its full frame relative to its parent bone or Handle
 *   (TRESS_BONE_POSE_LOCAL, pose map only). The solver's output stays in `transform`.
 */
/* One instance of the character (a part from tress_client_get_parts or a bone from
 * tress_client_get_bones). TRESS_ERR_INVALID_ARGUMENT for an instance of another character,
 * a Handle (handles follow their joints) or a non-finite pose. */
tress_result tress_client_set_pose(tress_client *c, uint32_t character_id, tress_id instance,
                                   tress_xform pose);
/* The character's parts in manifest order. Returns the count (writes at most max). */
uint32_t tress_client_get_parts(const tress_client *c, uint32_t character_id, tress_id *out, uint32_t max);

/* In bulk: the game's skeleton names, resolved once, then one apply per frame straight from the
 * game's own pose array (no lookup, no allocation). A name is a manifest part name, a bone name
 * (the first accessory that has it) or "Accessory/Bone"; names that match nothing are skipped.
 * Bones that arrive later (a rig result) are picked up by the next apply. */
typedef struct tress_client_pose_map tress_client_pose_map;
typedef struct tress_client_pose_map_def {
  uint32_t character_id;
  const char *const *names; /* copied */
  uint32_t count;
  tress_bone_pose_space bone_space; /* TRESS_BONE_POSE_ANIMATED */
} tress_client_pose_map_def;

tress_client_pose_map_def tress_default_client_pose_map_def(void);
/* TRESS_ERR_NOT_FOUND (no such character), _INVALID_ARGUMENT or _OUT_OF_MEMORY, err saying
 * which; *out NULL then. */
tress_result tress_client_pose_map_create(tress_client *c, const tress_client_pose_map_def *def,
                                          tress_client_pose_map **out, tress_error *err);
/* Destroy maps before or after their client: a map outlives the client only to be destroyed. */
void tress_client_pose_map_destroy(tress_client_pose_map *map);
/* Names that matched a part or a bone now. */
uint32_t tress_client_pose_map_get_matched_count(const tress_client_pose_map *map);
/* Copies entry i of poses into name i's part or bone. TRESS_ERR_NOT_FOUND once the
 * character is gone (removed, or a reconnect re-added it under a new id: make a new map). */
tress_result tress_client_pose_map_apply(tress_client_pose_map *map, const tress_pose_array *poses);
/* Places parts and handles, steps the sim by dt, places swung handles. No allocation. */
tress_result tress_client_step(tress_client *c, double dt);

tress_sim *tress_client_get_sim(tress_client *c);
tress_scene *tress_client_get_scene(tress_client *c);
tress_client_state tress_client_get_state(const tress_client *c);
/* The message of the last on_error report or lost connection ("" before any). */
const char *tress_client_get_last_error(const tress_client *c);
uint32_t tress_client_get_peer_id(const tress_client *c);

/* ---- the replica, for renderers ------------------------------------------------------------ */

typedef struct tress_client_character_info {
  uint32_t id;
  uint32_t owner_peer_id;
  bool mine;             /* spawned by this client */
  uint32_t request_id;   /* the owner's spawn request id (tress_client_spawn's) */
  tress_id model;
  char name[TRESS_NAME_MAX];
  uint32_t part_count;
  uint32_t accessory_count;
  uint32_t bone_count;   /* bones of every rigged accessory */
  bool bound;
  uint32_t handle_count; /* handles bind_character made */
  uint32_t attachment_count; /* ropes and cloth sheets of the manifest bound in this client's sim */
  double added_at;       /* seconds on the client's clock (tress_client_get_now) */
  double bound_at;       /* 0 until bound */
} tress_client_character_info;

uint32_t tress_client_get_character_count(const tress_client *c);
/* The character ids, in arrival order; returns how many were written. */
uint32_t tress_client_get_character_ids(const tress_client *c, uint32_t *out, uint32_t max);
tress_result tress_client_get_character_info(const tress_client *c, uint32_t character_id,
                                             tress_client_character_info *out);
tress_client_rig_state tress_client_get_accessory_rig_state(const tress_client *c, uint32_t character_id,
                                                        uint32_t accessory_index);

/* Bones of a character: every rigged accessory in manifest order, each in rig order. Ids stay
 * valid until the character is removed. Returns the count (writes at most max). */
uint32_t tress_client_get_bones(const tress_client *c, uint32_t character_id, tress_id *out, uint32_t max);
/* Colliders BIND's springs section put into this client's sim for a character (definitions
 * with their attach ids in this client's scene, and world poses now). Returns the count. */
uint32_t tress_client_get_colliders(const tress_client *c, uint32_t character_id, tress_collider_def *defs,
                                tress_collider_world *worlds, uint32_t max);
/* Their ids in tress_client_get_sim(c), same order (for tress_collider_get_def / _get_world / _is_valid). A later
 * BIND whose springs section differs replaces them; an identical one keeps them. */
uint32_t tress_client_get_collider_ids(const tress_client *c, uint32_t character_id, tress_collider_id *out,
                                   uint32_t max);
/* A rope or cloth sheet of a character's manifest ("ropes" / "cloths"), bound when the
 * character binds, on every client alike. handle is in tress_client_get_sim(c) (tress/rope.h). */
typedef struct tress_client_attachment {
  char name[TRESS_NAME_MAX];
  bool cloth;
  tress_handle_id handle;
} tress_client_attachment;
/* Writes up to max attachments (manifest order, ropes first); returns how many are bound. */
uint32_t tress_client_get_attachments(const tress_client *c, uint32_t character_id, tress_client_attachment *out,
                                      uint32_t max);
/* The drawn points of the attachment called name (tress_rope_get_points: a rope's segments + 1, a
 * sheet's particles row-major). */
tress_result tress_client_get_attachment_points(const tress_client *c, uint32_t character_id, const char *name,
                                                float *xyz, uint32_t max_points, uint32_t *count);
/* Column-major world matrices of the drawn pose (16 floats per bone), same order. */
uint32_t tress_client_get_bone_matrices(const tress_client *c, uint32_t character_id, float *out16, uint32_t max);
/* Skinning matrices: world * inverse(rest world), the world-space deformation of each bone, so
 * a vertex already in world space (part mesh-to-world applied) skins as sum(w * S * v). */
uint32_t tress_client_get_skinning_matrices(const tress_client *c, uint32_t character_id, float *out16, uint32_t max);
/* World frames of the manifest's parts (index as in the manifest). */
tress_result tress_client_get_part_frame(const tress_client *c, uint32_t character_id, uint32_t part_index,
                                         tress_xform *out);
/* An accessory's Handle world frame and its joint's handle-side / body-side offsets (c0, c1;
 * for a RigidConstraint the attachment frames). A pendulum swings c0. */
tress_result tress_client_get_accessory_frame(const tress_client *c, uint32_t character_id,
                                              uint32_t accessory_index, tress_id *handle, tress_xform *world,
                                              tress_xform *c0, tress_xform *c1);

/* ---- counters (tress-bot reports these) ---------------------------------------------------- */

typedef struct tress_client_stats {
  uint64_t bytes_received;        /* ENet payload bytes of every message */
  uint64_t bytes_rig_phase;       /* while some known character was not yet bound */
  uint64_t bytes_steady;          /* while every known character was bound */
  uint64_t messages_received;
  uint64_t messages_by_type[TRESS_MSG_TYPE_MAX + 1];
  uint32_t characters_seen;       /* CHARACTER_ADDED handled (over reconnects) */
  uint32_t rigs_received;         /* RIG_RESULT messages */
  uint32_t rigs_applied;          /* verified and applied */
  uint32_t rigs_fallback;         /* hash mismatch, missing asset or RIG_FAILED */
  uint32_t bones_bound;           /* bones created from rig results */
  uint32_t binds;                 /* BIND messages applied */
  uint32_t protocol_errors;
  uint32_t server_errors;
  uint32_t warnings;
  uint32_t connects;              /* successful joins (1 + reconnects) */
  uint32_t disconnects;
  uint32_t redirects;             /* REDIRECTs followed (over reconnects) */
  double join_to_bind_sum;        /* seconds from ROOM_JOINED / CHARACTER_ADDED (later of) to bound */
  double join_to_bind_max;
  uint32_t join_to_bind_count;
} tress_client_stats;

tress_client_stats tress_client_get_stats(const tress_client *c);
/* Seconds on the client's monotonic clock. */
double tress_client_get_now(const tress_client *c);

#ifdef __cplusplus
}
#endif

#endif
