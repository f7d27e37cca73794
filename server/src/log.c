/* Structured logging
 * ------------------
 * Every log line is one event: `ts=... level=info event=rig_done key=value ...`. Call sites
 * always build logfmt; with log_format=json the same pairs are re-emitted as one JSON object,
 * so there is one way to write a log call and two ways to read it. The logger is a value the
 * server owns (no global state) and writes each line with a single stdio call. */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

void tress_log_init(tress_log *log, FILE *out, const char *format, const char *level) {
  log->out = out;
  log->json = format && strcmp(format, "json") == 0;
  log->min_level = TRESS_LOG_INFO;
  if (level && strcmp(level, "debug") == 0) log->min_level = TRESS_LOG_DEBUG;
  if (level && strcmp(level, "warn") == 0) log->min_level = TRESS_LOG_WARN;
  if (level && strcmp(level, "error") == 0) log->min_level = TRESS_LOG_ERROR;
}

static const char *level_name(tress_log_level l) {
  switch (l) {
    case TRESS_LOG_DEBUG: return "debug";
    case TRESS_LOG_INFO: return "info";
    case TRESS_LOG_WARN: return "warn";
    default: return "error";
  }
}

const char *tress_log_quote(const char *value, char *out, size_t cap) {
  size_t o = 0;
  if (cap < 3) {
    if (cap) out[0] = '\0';
    return out;
  }
  out[o++] = '"';
  for (const char *p = value; *p && o + 3 < cap; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c < 0x20) {
      out[o++] = ' ';
    } else {
      out[o++] = (char)c;
    }
  }
  out[o++] = '"';
  out[o] = '\0';
  return out;
}

/* True when v[0..n) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *v, size_t n) {
  size_t i = 0;
  if (i < n && v[i] == '-') i++;
  if (i >= n) return false;
  if (v[i] == '0') i++;
  else if (v[i] >= '1' && v[i] <= '9')
    while (i < n && v[i] >= '0' && v[i] <= '9') i++;
  else
    return false;
  if (i < n && v[i] == '.') {
    size_t start = ++i;
    while (i < n && v[i] >= '0' && v[i] <= '9') i++;
    if (i == start) return false;
  }
  if (i < n && (v[i] == 'e' || v[i] == 'E')) {
    i++;
    if (i < n && (v[i] == '+' || v[i] == '-')) i++;
    size_t start = i;
    while (i < n && v[i] >= '0' && v[i] <= '9') i++;
    if (i == start) return false;
  }
  return i == n;
}

/* Appends logfmt pairs as JSON members: numbers stay bare, quoted values are re-escaped. */
static size_t logfmt_to_json(const char *in, char *out, size_t cap) {
  size_t o = 0;
  const char *p = in;
#define PUT(ch) do { if (o + 2 < cap) out[o++] = (ch); } while (0)
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    const char *key = p;
    while (*p && *p != '=' && *p != ' ') p++;
    size_t key_len = (size_t)(p - key);
    PUT(',');
    PUT('"');
    for (size_t i = 0; i < key_len; i++) PUT(key[i]);
    PUT('"');
    PUT(':');
    if (*p != '=') {
      PUT('t'); PUT('r'); PUT('u'); PUT('e');
      continue;
    }
    p++;
    if (*p == '"') {
      p++;
      PUT('"');
      while (*p && *p != '"') {
        if (*p == '\\' && p[1]) {
          PUT('\\');
          p++;
        }
        PUT(*p);
        p++;
      }
      if (*p == '"') p++;
      PUT('"');
    } else {
      const char *v = p;
      while (*p && *p != ' ') p++;
      size_t vl = (size_t)(p - v);
      bool numeric = is_json_number(v, vl);
      if (!numeric) PUT('"');
      for (size_t i = 0; i < vl; i++) {
        if (v[i] == '"' || v[i] == '\\') PUT('\\');
        PUT(v[i]);
      }
      if (!numeric) PUT('"');
    }
  }
#undef PUT
  out[o] = '\0';
  return o;
}

void tress_log_event(const tress_log *log, tress_log_level level, const char *event, const char *fields, ...) {
  if (!log || !log->out || level < log->min_level) return;
  char body[1536] = "";
  if (fields) {
    va_list ap;
    va_start(ap, fields);
    vsnprintf(body, sizeof body, fields, ap);
    va_end(ap);
  }

  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char when[40];
  size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(when + n, sizeof when - n, ".%03ldZ", ts.tv_nsec / 1000000);

  char line[4096];
  if (log->json) {
    char members[3072];
    logfmt_to_json(body, members, sizeof members);
    snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"event\":\"%s\"%s}\n", when, level_name(level), event,
             members);
  } else {
    snprintf(line, sizeof line, "ts=%s level=%s event=%s%s%s\n", when, level_name(level), event, body[0] ? " " : "",
             body);
  }
  fputs(line, log->out);
  fflush(log->out);
}
