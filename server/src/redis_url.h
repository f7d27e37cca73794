/* redis_url.h - the shared cache's address: redis://[user:password@]host[:port][/db]. */
#ifndef TRESS_SERVER_REDIS_URL_H
#define TRESS_SERVER_REDIS_URL_H

#include <stddef.h>
#include <stdint.h>

typedef struct tress_redis_url {
  char host[256];     /* a name or an address (IPv6 without its brackets) */
  uint16_t port;      /* 6379 when the URL has none */
  uint32_t db;        /* SELECT after connecting; 0 when the URL has no path */
  char user[128];     /* "" = AUTH with the password only (the default user) */
  char password[256]; /* "" = no AUTH */
} tress_redis_url;

/* Parses url (user and password may be percent-encoded). 0, or -1 with err saying why. */
int tress_redis_url_parse(const char *url, tress_redis_url *out, char err[256]);
/* url with the password replaced by "***" (for logs and --print-config). */
void tress_redis_url_redact(const char *url, char *out, size_t cap);

#endif
