/* auth.h - who may connect: signed join tokens (join_key_file), the shared development secret
 * (auth_token), or anyone (neither set). The checks themselves are in auth.c. */
#ifndef TRESS_SERVER_AUTH_H
#define TRESS_SERVER_AUTH_H

#include <stdbool.h>

#include "token_replay.h"
#include "tress/join_token.h"

typedef enum tress_auth_mode {
  TRESS_AUTH_OPEN = 0,     /* no token needed */
  TRESS_AUTH_SHARED_SECRET, /* HELLO carries cfg.auth_token: development only */
  TRESS_AUTH_SIGNED_TOKENS, /* HELLO carries a join token signed with the key in cfg.join_key_file */
} tress_auth_mode;

typedef struct tress_auth {
  tress_auth_mode mode;
  tress_join_key key;          /* SIGNED_TOKENS: read once at start, wiped at stop, never logged */
  tress_join_token_opts opts;
  tress_token_replay replay;   /* nonces used, until their tokens expire */
} tress_auth;

#endif
