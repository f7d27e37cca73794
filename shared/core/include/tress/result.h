/* tress/result.h - the one error shape of every tress component: a tress_result code, and where
 * the reason needs words, a tress_error the caller passes (or NULL) that gets the code and a message. */
#ifndef TRESS_RESULT_H
#define TRESS_RESULT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values are stable: new codes are appended, never renumbered. */
typedef enum tress_result {
  TRESS_OK = 0,
  TRESS_ERR_INVALID_ARGUMENT, /* NULL, NaN, out of range, a def that is refused */
  TRESS_ERR_STALE_ID,         /* an instance, handle or collider id that no longer exists */
  TRESS_ERR_NOTHING_TO_BIND,  /* a part with no bones, an accessory with no handle or joint */
  TRESS_ERR_TOO_FEW_PARTS,    /* bind_parts needs a pin and at least one link */
  TRESS_ERR_OUT_OF_MEMORY,
  TRESS_ERR_WRONG_OWNER,      /* an id made by another sim (or scene): refused, never acted on */
  TRESS_ERR_NOT_CONNECTED,    /* the call needs a connection (or a pending one) */
  TRESS_ERR_ADDRESS,          /* a host name did not resolve */
  TRESS_ERR_NETWORK,          /* the network layer could not make a host, a peer or a packet */
  TRESS_ERR_NOT_FOUND,        /* no such thing by that number or name (a character, an attachment) */
  TRESS_ERR_LIMIT,            /* a documented limit is reached (a spawn limit, a memory budget) */
  TRESS_ERR_PROTOCOL,         /* a message breaks a wire rule: it would not encode or did not decode */
  TRESS_ERR_UNSUPPORTED,      /* this build lacks what the call needs (zstd) */
  TRESS_ERR_PERMISSION,       /* the host refused access (an asset the caller may not load) */
  TRESS_ERR_NON_UNIFORM_SCALE, /* a scale the simulation cannot follow (not the same on every axis) */
} tress_result;

/* "ok", "invalid_argument", "stale_id", ...: a static string; "unknown" for a value not listed. */
const char *tress_result_name(tress_result result);
/* The code whose name is text; false (and *out untouched) when none is. */
bool tress_result_from_name(const char *text, tress_result *out);

#define TRESS_ERROR_MESSAGE_MAX 256
/* Filled on failure by functions that take a trailing tress_error *err (which may be NULL). The
 * message is a copy in the caller's struct, so it is safe to keep, print or send. */
typedef struct tress_error {
  tress_result code;
  char message[TRESS_ERROR_MESSAGE_MAX]; /* "" when code is TRESS_OK */
} tress_error;

/* For implementations (and hosts' callbacks): when err is not NULL, sets its code and the
 * printf-formatted message (truncated to fit). Returns code, so a failing path can
 * `return tress_error_set(err, TRESS_ERR_..., "...", ...);`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
tress_result tress_error_set(tress_error *err, tress_result code, const char *format, ...);
/* Empties err (code TRESS_OK, message ""); NULL is fine. */
void tress_error_clear(tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
