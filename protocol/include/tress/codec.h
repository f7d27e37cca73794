/* tress/codec.h - the bounded binary codec for tress_msg: encode into a caller buffer, decode
 * from (bytes, length) with every count and float checked, and a cJSON rendering for logs. */
#ifndef TRESS_CODEC_H
#define TRESS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "tress/msg.h"
#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Codec results. Values are stable (tests and logs refer to them). */
typedef enum tress_wire_status {
  TRESS_WIRE_OK = 0,
  TRESS_WIRE_ERR_TRUNCATED,        /* the bytes end inside a field */
  TRESS_WIRE_ERR_TRAILING_BYTES,   /* bytes left after the last field */
  TRESS_WIRE_ERR_UNKNOWN_TYPE,     /* first byte is no tress_msg_type */
  TRESS_WIRE_ERR_TOO_LARGE,        /* message longer than its type allows */
  TRESS_WIRE_ERR_COUNT_OVER_LIMIT, /* a count above its documented limit */
  TRESS_WIRE_ERR_STRING_TOO_LONG,  /* a string above its documented limit */
  TRESS_WIRE_ERR_BAD_UTF8,
  TRESS_WIRE_ERR_EMBEDDED_NUL,
  TRESS_WIRE_ERR_BAD_FLOAT,        /* NaN, infinite, or outside the field's range */
  TRESS_WIRE_ERR_BAD_QUATERNION,   /* not unit length within TRESS_WIRE_QUAT_TOLERANCE */
  TRESS_WIRE_ERR_BAD_ENUM,         /* an enum or flag byte with an undefined value */
  TRESS_WIRE_ERR_BAD_INDEX,        /* a parent, joint, part or accessory index out of range */
  TRESS_WIRE_ERR_BAD_WEIGHTS,      /* a vertex's weights exceed the unit */
  TRESS_WIRE_ERR_BAD_VERSION,      /* HELLO / WELCOME with another protocol major */
  TRESS_WIRE_ERR_BAD_COMPRESSION,  /* a zstd payload that does not inflate to its stated size */
  TRESS_WIRE_ERR_UNSUPPORTED,      /* zstd requested but this build has no zstd */
  TRESS_WIRE_ERR_OUT_OF_MEMORY,
  TRESS_WIRE_ERR_BUFFER_TOO_SMALL, /* encode: cap is below the encoded size */
  TRESS_WIRE_ERR_INVALID_MESSAGE,  /* encode: the struct breaks a rule the decoder would reject */
  TRESS_WIRE_ERR_EMPTY_STRING,     /* a string that must not be empty (a room name) is */
} tress_wire_status;

const char *tress_wire_status_name(tress_wire_status s); /* "TRUNCATED", ... */
/* The tress_result a status stands for, for callers that report one error shape (the client):
 * OK -> TRESS_OK, OUT_OF_MEMORY -> TRESS_ERR_OUT_OF_MEMORY, UNSUPPORTED -> TRESS_ERR_UNSUPPORTED,
 * BUFFER_TOO_SMALL -> TRESS_ERR_INVALID_ARGUMENT (the caller's cap), every other status (bytes or a
 * struct that break a wire rule) -> TRESS_ERR_PROTOCOL. */
tress_result tress_wire_status_to_result(tress_wire_status s);

/* Where and why a decode (or encode) failed. */
typedef struct tress_wire_error {
  tress_wire_status status;
  size_t offset;      /* byte offset of the field that failed */
  char message[192];  /* e.g. "accessory 3 mesh_asset_id: invalid UTF-8 at byte 7" */
} tress_wire_error;

/* Exact encoded size of msg, 0 when msg is invalid. For a zstd rig result this compresses. */
size_t tress_msg_get_encoded_size(const tress_msg *msg);
/* An upper bound without compressing: size a buffer with this. */
size_t tress_msg_get_encode_bound(const tress_msg *msg);
/* Validates msg as the decoder would, then writes it to buf. *out_len gets the bytes written. */
tress_wire_status tress_msg_encode(const tress_msg *msg, uint8_t *buf, size_t cap, size_t *out_len,
                                   tress_wire_error *err);

/* Rewrites the wearer of an encoded RIG_RESULT in place (character_id non-zero, accessory_index
 * below TRESS_WIRE_MAX_ACCESSORIES). Everything else in a RIG_RESULT is the rig's own (bones in
 * mesh space, the skin), so a server encodes a rig once and sends a patched copy per wearer.
 * INVALID_MESSAGE when the bytes are not a RIG_RESULT, BAD_INDEX for bad ids; nothing changes then. */
tress_wire_status tress_rig_result_set_ids(uint8_t *encoded, size_t len, uint32_t character_id, uint8_t accessory_index);

/* Decodes exactly one message from bytes[0..len). On success *out owns its arrays until
 * tress_msg_free(out); on failure *out is left empty (nothing to free) and err (may be NULL)
 * says why. A HELLO or WELCOME with another major fails with BAD_VERSION but still fills
 * out->hello / out->welcome version fields so the server can answer with a precise REJECT. */
tress_wire_status tress_msg_decode(const uint8_t *bytes, size_t len, tress_msg *out, tress_wire_error *err);
/* Releases what decode allocated; safe on caller-built and zeroed messages. Leaves *msg zeroed. */
void tress_msg_free(tress_msg *msg);

/* Field-by-field equality (arrays compared by content), for tests and the fuzzer. */
bool tress_msg_is_equal(const tress_msg *a, const tress_msg *b);

/* A JSON object for logs and `tress-bot --dump`. Skin arrays are summarized, not listed.
 * Caller frees with cJSON_Delete. NULL on allocation failure. */
struct cJSON *tress_msg_to_json(const tress_msg *msg);
/* The same, printed unformatted on one line; caller free()s. */
char *tress_msg_to_json_string(const tress_msg *msg);

#ifdef __cplusplus
}
#endif

#endif
