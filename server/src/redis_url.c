/* Redis URLs
 * ----------
 * redis://[user:password@]host[:port][/db], as redis-cli and most clients take it: "user:" may
 * be left out (":password@host" authenticates the default user), host may be a bracketed IPv6
 * address, the path is a database number. rediss:// (TLS) and unix sockets are refused with a
 * reason rather than misread: a typo in cache_url stops the server at startup. */
#include "redis_url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes [s, s+n) into out; -1 on a bad escape or when it does not fit. */
static int decode_part(const char *s, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '%') {
      int hi = i + 2 < n ? hex_digit(s[i + 1]) : -1;
      int lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
      if (lo < 0) return -1;
      c = (char)(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0' || o + 1 >= cap) return -1;
    out[o++] = c;
  }
  out[o] = '\0';
  return 0;
}

static int parse_number(const char *s, size_t n, unsigned long max, unsigned long *out) {
  if (n == 0 || n > 10) return -1;
  unsigned long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return -1;
    v = v * 10 + (unsigned long)(s[i] - '0');
  }
  if (v > max) return -1;
  *out = v;
  return 0;
}

static int fail(char err[256], const char *why) {
  snprintf(err, 256, "cache_url: %s (expected redis://[user:password@]host[:port][/db])", why);
  return -1;
}

static int parse_userinfo(const char *s, size_t n, tress_redis_url *out, char err[256]) {
  const char *colon = memchr(s, ':', n);
  if (!colon) return fail(err, "credentials need a password (user:password@ or :password@)");
  if (decode_part(s, (size_t)(colon - s), out->user, sizeof out->user) != 0 ||
      decode_part(colon + 1, n - (size_t)(colon + 1 - s), out->password, sizeof out->password) != 0)
    return fail(err, "bad percent-escape or over-long user or password");
  if (!out->password[0]) return fail(err, "empty password");
  return 0;
}

/* host[:port] or [v6][:port] in [s, s+n). */
static int parse_hostport(const char *s, size_t n, tress_redis_url *out, char err[256]) {
  const char *host = s, *port = NULL;
  size_t host_len = n;
  if (n && s[0] == '[') {
    const char *close = memchr(s, ']', n);
    if (!close) return fail(err, "unclosed [ in host");
    host = s + 1;
    host_len = (size_t)(close - host);
    if (close + 1 < s + n) {
      if (close[1] != ':') return fail(err, "junk after ]");
      port = close + 2;
    }
  } else {
    const char *colon = memchr(s, ':', n);
    if (colon) {
      host_len = (size_t)(colon - s);
      port = colon + 1;
    }
  }
  if (host_len == 0 || host_len >= sizeof out->host) return fail(err, "missing or over-long host");
  for (size_t i = 0; i < host_len; i++)
    if (!isalnum((unsigned char)host[i]) && !strchr("-._:%", host[i])) return fail(err, "bad character in host");
  memcpy(out->host, host, host_len);
  out->host[host_len] = '\0';
  out->port = 6379;
  if (port) {
    unsigned long p = 0;
    if (parse_number(port, (size_t)(s + n - port), 65535, &p) != 0 || p == 0) return fail(err, "bad port");
    out->port = (uint16_t)p;
  }
  return 0;
}

int tress_redis_url_parse(const char *url, tress_redis_url *out, char err[256]) {
  memset(out, 0, sizeof *out);
  static const char scheme[] = "redis://";
  if (strncmp(url, "rediss://", 9) == 0) return fail(err, "TLS (rediss://) is not supported; use a TLS sidecar");
  if (strncmp(url, scheme, sizeof scheme - 1) != 0) return fail(err, "must start with redis://");
  const char *rest = url + sizeof scheme - 1;
  const char *slash = strchr(rest, '/');
  const char *end = slash ? slash : rest + strlen(rest);
  if (memchr(rest, '?', (size_t)(end - rest)) || (slash && strchr(slash, '?')))
    return fail(err, "query parameters are not supported");
  const char *at = NULL;
  for (const char *p = rest; p < end; p++)
    if (*p == '@') at = p; /* the last '@': a raw '@' in the password still parses */
  const char *hostport = rest;
  if (at) {
    if (parse_userinfo(rest, (size_t)(at - rest), out, err) != 0) return -1;
    hostport = at + 1;
  }
  if (parse_hostport(hostport, (size_t)(end - hostport), out, err) != 0) return -1;
  if (slash && slash[1]) {
    unsigned long db = 0;
    if (parse_number(slash + 1, strlen(slash + 1), 1000000, &db) != 0) return fail(err, "the path must be a database number");
    out->db = (uint32_t)db;
  }
  return 0;
}

void tress_redis_url_redact(const char *url, char *out, size_t cap) {
  const char *rest = strstr(url, "://");
  rest = rest ? rest + 3 : url;
  const char *slash = strchr(rest, '/');
  const char *end = slash ? slash : rest + strlen(rest);
  const char *at = NULL, *colon = NULL;
  for (const char *p = rest; p < end; p++)
    if (*p == '@') at = p;
  if (at) colon = memchr(rest, ':', (size_t)(at - rest));
  if (!colon) {
    snprintf(out, cap, "%s", url);
    return;
  }
  snprintf(out, cap, "%.*s***%s", (int)(colon + 1 - url), url, at);
}
