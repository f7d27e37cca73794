/* result.c - result code names and the tress_error filler every component shares. */
#include "tress/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const result_names[] = {
    [TRESS_OK] = "ok",
    [TRESS_ERR_INVALID_ARGUMENT] = "invalid_argument",
    [TRESS_ERR_STALE_ID] = "stale_id",
    [TRESS_ERR_NOTHING_TO_BIND] = "nothing_to_bind",
    [TRESS_ERR_TOO_FEW_PARTS] = "too_few_parts",
    [TRESS_ERR_OUT_OF_MEMORY] = "out_of_memory",
    [TRESS_ERR_WRONG_OWNER] = "wrong_owner",
    [TRESS_ERR_NOT_CONNECTED] = "not_connected",
    [TRESS_ERR_ADDRESS] = "address",
    [TRESS_ERR_NETWORK] = "network",
    [TRESS_ERR_NOT_FOUND] = "not_found",
    [TRESS_ERR_LIMIT] = "limit",
    [TRESS_ERR_PROTOCOL] = "protocol",
    [TRESS_ERR_UNSUPPORTED] = "unsupported",
    [TRESS_ERR_PERMISSION] = "permission",
    [TRESS_ERR_NON_UNIFORM_SCALE] = "non_uniform_scale",
};
#define RESULT_COUNT (sizeof result_names / sizeof result_names[0])

const char *tress_result_name(tress_result result) {
  if ((unsigned)result >= RESULT_COUNT || !result_names[result]) return "unknown";
  return result_names[result];
}

bool tress_result_from_name(const char *text, tress_result *out) {
  if (!text || !out) return false;
  for (unsigned i = 0; i < RESULT_COUNT; i++) {
    if (result_names[i] && strcmp(result_names[i], text) == 0) {
      *out = (tress_result)i;
      return true;
    }
  }
  return false;
}

tress_result tress_error_set(tress_error *err, tress_result code, const char *format, ...) {
  if (!err) return code;
  err->code = code;
  err->message[0] = '\0';
  if (format) {
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
  }
  return code;
}

void tress_error_clear(tress_error *err) {
  if (!err) return;
  err->code = TRESS_OK;
  err->message[0] = '\0';
}
