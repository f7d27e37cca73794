/* log.h - structured logs: one line per event, either key=value (logfmt) or one JSON object.
 * Callers pass the event name and fields already in logfmt; the JSON form is derived from it. */
#ifndef TRESS_SERVER_LOG_H
#define TRESS_SERVER_LOG_H

#include <stdbool.h>
#include <stdio.h>

typedef enum tress_log_level {
  TRESS_LOG_DEBUG = 0,
  TRESS_LOG_INFO,
  TRESS_LOG_WARN,
  TRESS_LOG_ERROR,
} tress_log_level;

typedef struct tress_log {
  FILE *out;
  bool json;
  tress_log_level min_level;
} tress_log;

void tress_log_init(tress_log *log, FILE *out, const char *format, const char *level);

/* Writes "ts=... level=... event=EVENT <fields>" as one line (one fwrite, so lines from the
 * loop and the HTTP thread never interleave). fields: printf format producing k=v pairs; values
 * with spaces or quotes must be wrapped with tress_log_quote. */
void tress_log_event(const tress_log *log, tress_log_level level, const char *event, const char *fields, ...)
    __attribute__((format(printf, 4, 5)));

/* Quotes a free-text value for logfmt ("a b" -> "\"a b\""), truncating to fit out. */
const char *tress_log_quote(const char *value, char *out, size_t cap);

#endif
