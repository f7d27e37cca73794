/* tress/msg.h - the wire messages as C structs: types, limits, error codes, the tress_msg union.
 * The codec (tress/codec.h) turns these into bytes and back; protocol/PROTOCOL.md is the spec. */
#ifndef TRESS_MSG_H
#define TRESS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tress/math.h"
#include "tress/scene.h"
#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version and channels ------------------------------------------------------------------ */

/* Same major required on both ends; a minor bump only adds (new optional sections, new message
 * types a peer sends only after seeing the other side's minor). */
#define TRESS_PROTOCOL_VERSION_MAJOR 1
#define TRESS_PROTOCOL_VERSION_MINOR 2
/* 1.1 added the TOKEN_* codes: a server sends them only to a peer whose HELLO minor is at least
 * this, and AUTH_FAILED to older ones. */
#define TRESS_PROTOCOL_MINOR_TOKEN_CODES 1
/* 1.2 added REDIRECT (a fleet hosts each room on one server): sent only to a peer whose HELLO
 * minor is at least this; older peers get ERROR SERVER_FULL naming the owner instead. */
#define TRESS_PROTOCOL_MINOR_REDIRECT 2

/* ENet channels. Both reliable and ordered; bulk keeps big rig payloads from delaying control. */
typedef enum tress_channel {
  TRESS_CHANNEL_CONTROL = 0,
  TRESS_CHANNEL_BULK = 1,
  TRESS_CHANNEL_COUNT = 2,
} tress_channel;

const char *tress_channel_name(tress_channel channel); /* "control", "bulk"; "unknown" */

/* ---- limits (protocol maxima; a server may advertise lower ones in WELCOME) ---------------- */

#define TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES (64u * 1024u)       /* every type but RIG_RESULT */
#define TRESS_WIRE_MAX_BULK_MESSAGE_BYTES (8u * 1024u * 1024u)   /* RIG_RESULT */
#define TRESS_WIRE_MAX_NAME_BYTES 63      /* character, part, accessory, bone, client, room names */
#define TRESS_WIRE_MAX_TEXT_BYTES 255     /* reasons, error text, asset ids, auth token, versions */
#define TRESS_WIRE_MAX_PARTS 64           /* parts per manifest */
#define TRESS_WIRE_MAX_ACCESSORIES 32     /* accessories per manifest */
#define TRESS_WIRE_MAX_BONES 256          /* bones per rig result (joint indices fit a u8) */
#define TRESS_WIRE_MAX_VERTICES 1000000u  /* vertices per rig result */
#define TRESS_WIRE_MAX_INFLUENCES 4       /* joints per vertex */
#define TRESS_WIRE_MAX_ROOM_PEERS 256     /* members listed in ROOM_JOINED */
#define TRESS_WIRE_MAX_SECTIONS 16        /* extension sections per manifest / bind */
#define TRESS_WIRE_MAX_SECTION_BYTES (16u * 1024u) /* bytes of one extension section */
#define TRESS_WIRE_MAX_SIZE 2048.0f       /* part / handle size per axis, units */
#define TRESS_WIRE_MAX_COORD 1.0e6f       /* |position component|, units */
#define TRESS_WIRE_QUAT_TOLERANCE 1.0e-3f /* |1 - |q|| accepted; anything further is rejected */
#define TRESS_WIRE_MAX_SCALE 100.0f       /* |gravity_scale|, |wind_scale| */

/* Char arrays hold the longest string plus its NUL. */
#define TRESS_WIRE_NAME_CAP (TRESS_WIRE_MAX_NAME_BYTES + 1)
#define TRESS_WIRE_TEXT_CAP (TRESS_WIRE_MAX_TEXT_BYTES + 1)

/* ---- message types ------------------------------------------------------------------------- */

/* The first byte of every message. Values are wire values: never renumber. */
typedef enum tress_msg_type {
  TRESS_MSG_HELLO = 1,             /* client -> server, first message */
  TRESS_MSG_WELCOME = 2,           /* server -> client */
  TRESS_MSG_REJECT = 3,            /* server -> client, then disconnect */
  TRESS_MSG_JOIN_ROOM = 4,         /* client -> server */
  TRESS_MSG_ROOM_JOINED = 5,       /* server -> client */
  TRESS_MSG_SPAWN_CHARACTER = 6,   /* client -> server */
  TRESS_MSG_DESPAWN_CHARACTER = 7, /* client -> server */
  TRESS_MSG_CHARACTER_ADDED = 8,   /* server -> room */
  TRESS_MSG_CHARACTER_REMOVED = 9, /* server -> room */
  TRESS_MSG_RIG_RESULT = 10,       /* server -> room, bulk channel */
  TRESS_MSG_RIG_FAILED = 11,       /* server -> room */
  TRESS_MSG_BIND = 12,             /* server -> room */
  TRESS_MSG_SETTINGS_UPDATE = 13,  /* owner -> server, then server -> room */
  TRESS_MSG_ERROR = 14,            /* server -> client */
  TRESS_MSG_REDIRECT = 15,         /* server -> client (1.2): the room is hosted by another server */
  TRESS_MSG_TYPE_MAX = 15,
} tress_msg_type;

/* Codes carried by REJECT, ERROR and RIG_FAILED (u16 on the wire). Never renumber. */
typedef enum tress_wire_code {
  TRESS_CODE_NONE = 0,
  TRESS_CODE_MALFORMED = 1,            /* a message failed to decode */
  TRESS_CODE_UNKNOWN_TYPE = 2,
  TRESS_CODE_TOO_LARGE = 3,            /* message or payload over a limit */
  TRESS_CODE_BAD_VERSION = 4,          /* protocol major differs */
  TRESS_CODE_AUTH_FAILED = 5,
  TRESS_CODE_UNEXPECTED_MESSAGE = 6,   /* not allowed in this connection state or direction */
  TRESS_CODE_NOT_IN_ROOM = 7,
  TRESS_CODE_ALREADY_IN_ROOM = 8,
  TRESS_CODE_ROOM_FULL = 9,
  TRESS_CODE_UNKNOWN_CHARACTER = 10,
  TRESS_CODE_NOT_OWNER = 11,
  TRESS_CODE_RATE_LIMITED = 12,
  TRESS_CODE_UNKNOWN_ASSET = 13,       /* the asset id names nothing in the server's store */
  TRESS_CODE_ASSET_PATH_REJECTED = 14, /* the asset id tries to leave the store */
  TRESS_CODE_RIG_FAILED = 15,          /* the rigger refused the mesh */
  TRESS_CODE_SERVER_SHUTTING_DOWN = 16,
  TRESS_CODE_SERVER_FULL = 17,
  TRESS_CODE_CHARACTER_LIMIT = 18,     /* too many live characters for this peer or room */
  TRESS_CODE_BAD_MANIFEST = 19,        /* decodes, but refers to a missing part / accessory */
  TRESS_CODE_INTERNAL = 20,
  TRESS_CODE_OUT_OF_MEMORY = 21,       /* a server memory budget is spent (retry later) */
  /* 1.1: why a signed join token was refused (tress/join_token.h) */
  TRESS_CODE_TOKEN_MALFORMED = 22,     /* not a token of a version this server reads */
  TRESS_CODE_TOKEN_BAD_SIGNATURE = 23, /* tampered, or signed with another key */
  TRESS_CODE_TOKEN_EXPIRED = 24,
  TRESS_CODE_TOKEN_LIFETIME_TOO_LONG = 25, /* expires further ahead than the server accepts */
  TRESS_CODE_TOKEN_REPLAYED = 26,      /* this token's nonce was already used */
  TRESS_CODE_TOKEN_WRONG_ROOM = 27,    /* JOIN_ROOM names another room than the token */
  TRESS_CODE_COUNT
} tress_wire_code;

/* An asset id names a file below an asset root and never leaves it: relative, at most
 * TRESS_WIRE_MAX_TEXT_BYTES bytes of [A-Za-z0-9._-] in '/'-separated components, none of them
 * empty, "." or "..". The server refuses any other id with ASSET_PATH_REJECTED and a client
 * never opens a local file for one. */
bool tress_asset_id_is_valid(const char *id);

const char *tress_msg_type_name(tress_msg_type type);   /* "HELLO", ...; "unknown" */
const char *tress_wire_code_name(tress_wire_code code); /* "MALFORMED", ...; "unknown" */

/* ---- common pieces ------------------------------------------------------------------------- */

/* Opaque extension data: old decoders keep (and re-encode) sections whose tag they do not
 * know. Tags below 0x8000 are assigned in PROTOCOL.md; 0x8000 and up are free for experiments. */
typedef struct tress_wire_section {
  uint16_t tag;
  uint32_t length;
  const uint8_t *bytes; /* length bytes */
} tress_wire_section;

#define TRESS_SECTION_SPRINGS 1 /* BIND: colliders and spring chains (tress/wire_springs.h) */
#define TRESS_SECTION_ATTACHMENTS 2 /* manifest: ropes and cloth sheets (tress/wire_attachments.h) */
#define TRESS_SECTION_COLLIDERS TRESS_SECTION_SPRINGS /* the name it was reserved under */

/* HairKit rig options (plan + rig). Bones = 1 + sectors * segments <= TRESS_WIRE_MAX_BONES. */
typedef struct tress_wire_rig_options {
  uint8_t sectors;        /* 1..64, default 3 */
  uint8_t segments;       /* 1..64, default 3 */
  uint8_t max_influences; /* 1..4, default 2 */
  float axis[3];          /* growth direction, non-zero, default (0, -1, 0) */
  bool has_root;          /* false: top centre of the mesh bounds */
  float root[3];          /* mesh-space scalp anchor when has_root */
} tress_wire_rig_options;

tress_wire_rig_options tress_default_wire_rig_options(void);

/* ---- the manifest -------------------------------------------------------------------------- */

typedef struct tress_wire_part {
  char name[TRESS_WIRE_NAME_CAP]; /* "Head", "UpperTorso", ... unique within the manifest */
  float size[3];                  /* 0..TRESS_WIRE_MAX_SIZE */
  tress_xform cframe;             /* world (character space) transform at spawn */
} tress_wire_part;

/* An accessory worn on parts[worn_on] through one joint. The joint's part0 is the Handle and
 * part1 the body part (as an engine's AccessoryWeld), so c0 is the handle-side offset:
 *   WELD, MOTOR6D:     handle.cframe * c0 == body.cframe * c1
 *   RIGID_CONSTRAINT:  c0 = attachment on the handle, c1 = attachment on the body part
 *   WELD_CONSTRAINT:   no offsets (c0, c1 are identity); holds handle_cframe as spawned */
typedef struct tress_wire_accessory {
  char name[TRESS_WIRE_NAME_CAP];
  uint8_t type;                        /* tress_accessory_type */
  char mesh_asset_id[TRESS_WIRE_TEXT_CAP]; /* server asset store id; "" for a handle without mesh */
  float handle_size[3];
  tress_xform handle_cframe;           /* world transform of the handle at spawn */
  uint8_t joint_kind;                  /* tress_joint_kind */
  tress_xform c0, c1;
  uint8_t worn_on;                     /* index into the manifest's parts */
  bool layered;                        /* the handle carries a wrap layer: never swings */
  bool handle_has_bones;               /* pre-skinned: the mesh's own skin is relayed, not rigged (PROTOCOL.md 4.10.1) */
} tress_wire_accessory;

typedef struct tress_wire_manifest {
  char character_name[TRESS_WIRE_NAME_CAP];
  uint32_t part_count; /* 0..TRESS_WIRE_MAX_PARTS */
  tress_wire_part *parts;
  uint32_t accessory_count; /* 0..TRESS_WIRE_MAX_ACCESSORIES */
  tress_wire_accessory *accessories;
  bool has_chain_settings;
  tress_chain_settings chain_settings;
  bool has_accessory_settings;
  tress_accessory_settings accessory_settings;
  bool has_rig_options;
  tress_wire_rig_options rig_options;
  uint32_t section_count; /* 0..TRESS_WIRE_MAX_SECTIONS */
  tress_wire_section *sections;
} tress_wire_manifest;

/* ---- rig payloads -------------------------------------------------------------------------- */

typedef enum tress_weight_format {
  TRESS_WEIGHTS_U8 = 1,  /* unit 255 */
  TRESS_WEIGHTS_U16 = 2, /* unit 65535 */
} tress_weight_format;

typedef enum tress_compression {
  TRESS_COMPRESSION_NONE = 0,
  TRESS_COMPRESSION_ZSTD = 1,
} tress_compression;

const char *tress_weight_format_name(tress_weight_format format); /* "u8", "u16"; "unknown" */
const char *tress_compression_name(tress_compression compression); /* "none", "zstd"; "unknown" */

static inline uint32_t tress_weight_unit(tress_weight_format f) { return f == TRESS_WEIGHTS_U16 ? 65535u : 255u; }

typedef struct tress_wire_bone {
  char name[TRESS_WIRE_NAME_CAP];
  int16_t parent;   /* -1 for a root, else an index below this bone's own */
  tress_xform rest; /* relative to the parent bone, or to the handle part for a root; worn scale */
} tress_wire_bone;

/* Four slots per vertex in memory whatever the wire carries; slots at or past `influences` are
 * {0, 0}. Weights are integers in 1/unit steps and the first `influences` slots of every vertex
 * sum to exactly the unit: the wire omits the last slot's weight and the decoder derives it. */
typedef struct tress_wire_skin {
  uint32_t vertex_count;  /* 0..TRESS_WIRE_MAX_VERTICES */
  uint8_t influences;     /* 1..4 slots per vertex on the wire */
  uint8_t weight_format;  /* tress_weight_format */
  uint8_t compression;    /* encode: what to send; decode: what arrived */
  uint8_t *joints;        /* 4 * vertex_count bone indices */
  uint16_t *weights;      /* 4 * vertex_count quantized weights */
} tress_wire_skin;

/* ---- messages ------------------------------------------------------------------------------ */

typedef struct tress_msg_hello {
  uint16_t version_major, version_minor;
  char client_name[TRESS_WIRE_NAME_CAP];
  char auth_token[TRESS_WIRE_TEXT_CAP];
} tress_msg_hello;

/* What this server accepts; each at or below the protocol maximum. */
typedef struct tress_wire_limits {
  uint32_t max_control_message_bytes;
  uint32_t max_bulk_message_bytes;
  uint32_t max_vertices;
  uint16_t max_bones;
  uint16_t max_parts;
  uint16_t max_accessories;
  uint16_t max_room_peers;
  uint16_t max_characters_per_peer; /* live characters one peer may own */
  uint16_t max_name_bytes;
  uint16_t max_text_bytes;
} tress_wire_limits;

tress_wire_limits tress_default_wire_limits(void); /* the protocol maxima; 8 characters per peer */

typedef struct tress_msg_welcome {
  uint16_t version_major, version_minor;
  char server_version[TRESS_WIRE_TEXT_CAP]; /* software version string, e.g. "tress-server 0.1.0" */
  uint64_t session_id;                      /* random per connection, for logs */
  uint32_t peer_id;                         /* non-zero, unique on this server while connected */
  tress_wire_limits limits;
} tress_msg_welcome;

typedef struct tress_msg_reject {
  uint16_t code; /* tress_wire_code */
  uint16_t server_major, server_minor;
  char reason[TRESS_WIRE_TEXT_CAP];
} tress_msg_reject;

typedef struct tress_msg_join_room {
  char room[TRESS_WIRE_NAME_CAP]; /* non-empty */
} tress_msg_join_room;

typedef struct tress_wire_peer {
  uint32_t peer_id;
  char name[TRESS_WIRE_NAME_CAP];
} tress_wire_peer;

typedef struct tress_msg_room_joined {
  char room[TRESS_WIRE_NAME_CAP];
  uint32_t member_count; /* 0..TRESS_WIRE_MAX_ROOM_PEERS, the joiner included */
  tress_wire_peer *members;
} tress_msg_room_joined;

typedef struct tress_msg_spawn_character {
  uint32_t request_id; /* client-chosen; echoed in CHARACTER_ADDED and ERROR */
  tress_wire_manifest manifest;
} tress_msg_spawn_character;

typedef struct tress_msg_despawn_character {
  uint32_t character_id;
} tress_msg_despawn_character;

typedef struct tress_msg_character_added {
  uint32_t character_id; /* server-assigned, non-zero, unique per server run */
  uint32_t owner_peer_id;
  uint32_t request_id;   /* the owner's SPAWN request id */
  tress_wire_manifest manifest;
} tress_msg_character_added;

typedef enum tress_removed_reason {
  TRESS_REMOVED_DESPAWNED = 0,  /* the owner sent DESPAWN_CHARACTER */
  TRESS_REMOVED_OWNER_LEFT = 1, /* the owner disconnected or left the room */
  TRESS_REMOVED_SERVER = 2,     /* the server removed it (shutdown, admin, limit) */
} tress_removed_reason;

const char *tress_removed_reason_name(tress_removed_reason reason); /* "despawned", "owner_left", "server" */

typedef struct tress_msg_character_removed {
  uint32_t character_id;
  uint8_t reason; /* tress_removed_reason */
} tress_msg_character_removed;

typedef struct tress_msg_rig_result {
  uint32_t character_id;
  uint8_t accessory_index;     /* into the character's manifest accessories */
  uint8_t mesh_hash[32];       /* tress_mesh_get_content_hash (BLAKE2b-256) of the handle mesh */
  tress_wire_rig_options options; /* as used by the server */
  uint32_t bone_count;         /* 1..TRESS_WIRE_MAX_BONES */
  tress_wire_bone *bones;
  tress_wire_skin skin;
} tress_msg_rig_result;

typedef struct tress_msg_rig_failed {
  uint32_t character_id;
  uint8_t accessory_index;
  uint16_t code; /* tress_wire_code: UNKNOWN_ASSET, ASSET_PATH_REJECTED, RIG_FAILED, TOO_LARGE, ... */
  char reason[TRESS_WIRE_TEXT_CAP];
} tress_msg_rig_failed;

typedef enum tress_match_policy {
  TRESS_MATCH_DEFAULT = 0,   /* tress_default_accessory_match: the swing types */
  TRESS_MATCH_HAIR_ONLY = 1, /* Hair type or "hair" in the name (HairKit's match) */
  TRESS_MATCH_EXPLICIT = 2,  /* exactly the listed accessory indices */
} tress_match_policy;

const char *tress_match_policy_name(tress_match_policy policy); /* "default", "hair_only", "explicit" */

typedef struct tress_msg_bind {
  uint32_t character_id;
  tress_chain_settings chain_settings;
  tress_accessory_settings accessory_settings;
  uint8_t match_policy;      /* tress_match_policy */
  uint32_t match_count;      /* EXPLICIT only: 0..TRESS_WIRE_MAX_ACCESSORIES */
  uint8_t *match_indices;    /* distinct, each < TRESS_WIRE_MAX_ACCESSORIES */
  /* Accessories that have a RIG_RESULT. Those travel on the bulk channel and may arrive after
   * this BIND: a client binds once it holds every one of them. */
  uint32_t rigged_count;     /* 0..TRESS_WIRE_MAX_ACCESSORIES */
  uint8_t *rigged_indices;   /* distinct, each < TRESS_WIRE_MAX_ACCESSORIES */
  uint32_t section_count;    /* 0..TRESS_WIRE_MAX_SECTIONS; springs and colliders: tag 1 */
  tress_wire_section *sections;
} tress_msg_bind;

typedef struct tress_msg_settings_update {
  uint32_t character_id;
  bool has_chain_settings;
  tress_chain_settings chain_settings;
  bool has_accessory_settings;
  tress_accessory_settings accessory_settings;
} tress_msg_settings_update;

typedef struct tress_msg_error {
  uint16_t code;          /* tress_wire_code */
  uint8_t offending_type; /* the message type that caused it, 0 when none */
  uint32_t request_id;    /* the SPAWN request it answers, 0 when none */
  uint32_t character_id;  /* the character concerned, 0 when none */
  char text[TRESS_WIRE_TEXT_CAP];
} tress_msg_error;

/* 1.2: the answer to a JOIN_ROOM for a room another server of the fleet hosts. The client
 * connects to host:port and joins the same room there (PROTOCOL.md 4.15). */
typedef struct tress_msg_redirect {
  char room[TRESS_WIRE_NAME_CAP]; /* the room the JOIN_ROOM named, non-empty */
  char host[TRESS_WIRE_TEXT_CAP]; /* the owner's address clients reach it at: a DNS name or an IP literal, non-empty */
  uint16_t port;                  /* its ENet port, non-zero */
} tress_msg_redirect;

/* A tagged union. Messages a caller builds point at the caller's arrays (arena stays NULL);
 * decoded messages own theirs through `arena`, released by tress_msg_free. */
typedef struct tress_msg {
  tress_msg_type type;
  union {
    tress_msg_hello hello;
    tress_msg_welcome welcome;
    tress_msg_reject reject;
    tress_msg_join_room join_room;
    tress_msg_room_joined room_joined;
    tress_msg_spawn_character spawn_character;
    tress_msg_despawn_character despawn_character;
    tress_msg_character_added character_added;
    tress_msg_character_removed character_removed;
    tress_msg_rig_result rig_result;
    tress_msg_rig_failed rig_failed;
    tress_msg_bind bind;
    tress_msg_settings_update settings_update;
    tress_msg_error error;
    tress_msg_redirect redirect;
  };
  void *arena; /* decoder-owned storage; NULL for caller-built messages */
} tress_msg;

/* The channel a message type travels on (RIG_RESULT: bulk; everything else: control). */
tress_channel tress_msg_type_get_channel(tress_msg_type type);
/* The largest encoded size the protocol allows for a type. */
size_t tress_msg_type_get_max_bytes(tress_msg_type type);

/* ---- skin weight quantization -------------------------------------------------------------- */

/* Quantizes float weights (4 slots per vertex, slots past `influences` ignored) to integers in
 * 1/unit steps with largest-remainder rounding, so each vertex sums to exactly the unit. Each
 * vertex's kept weights are renormalized first; a vertex whose weights are all zero or not
 * finite gets the whole unit on slot 0. out: 4 * vertex_count, unused slots 0. */
void tress_skin_quantize(const float *weights, uint32_t vertex_count, uint8_t influences,
                         tress_weight_format format, uint16_t *out);
/* Back to floats: each vertex's four floats are within 1/unit of the quantized value and add up
 * (in slot order, in float) to exactly 1.0f. */
void tress_skin_dequantize(const uint16_t *weights, uint32_t vertex_count, tress_weight_format format, float *out);

#ifdef __cplusplus
}
#endif

#endif
