/* tress-token - make join keys and mint / check signed join tokens (tress/join_token.h).
 *
 *   tress-token keygen                                          64 hex digits: a key file's content
 *   tress-token mint --key FILE --player ID --room ROOM [--ttl SECONDS] [--expires UNIX]
 *   tress-token verify --key FILE [--max-lifetime SECONDS] [--skew SECONDS] TOKEN
 *
 * A game's backend links tress::protocol and calls tress_join_token_mint itself; this tool is for
 * scripts, tests and a developer's shell. It never prints a key except for keygen's output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/join_token.h"

typedef struct args {
  const char *command;
  const char *key_file, *player, *room, *token;
  uint64_t ttl, expires;
  bool have_expires;
  tress_join_token_opts opts;
} args;

static void usage(FILE *f) {
  fprintf(f, "usage: tress-token keygen\n"
             "       tress-token mint --key FILE --player ID --room ROOM [--ttl SECONDS (300)] [--expires UNIX_SECONDS]\n"
             "       tress-token verify --key FILE [--max-lifetime SECONDS (3600)] [--skew SECONDS (30)] TOKEN\n"
             "The key file holds 64 hex digits (tress-token keygen > key; chmod 600 key).\n");
}

static bool parse_u64(const char *text, uint64_t *out) {
  if (!text || !text[0] || text[0] == '-') return false;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static bool parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->ttl = 300;
  a->opts = tress_default_join_token_opts();
  if (argc < 2) return false;
  a->command = argv[1];
  for (int i = 2; i < argc; i++) {
    const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n = 0;
    if (flag[0] != '-') {
      if (a->token) return false;
      a->token = flag;
      continue;
    }
    if (!value) return false;
    i++;
    if (strcmp(flag, "--key") == 0) a->key_file = value;
    else if (strcmp(flag, "--player") == 0) a->player = value;
    else if (strcmp(flag, "--room") == 0) a->room = value;
    else if (strcmp(flag, "--ttl") == 0 && parse_u64(value, &n)) a->ttl = n;
    else if (strcmp(flag, "--expires") == 0 && parse_u64(value, &n)) a->expires = n, a->have_expires = true;
    else if (strcmp(flag, "--max-lifetime") == 0 && parse_u64(value, &n) && n <= UINT32_MAX)
      a->opts.max_lifetime_seconds = (uint32_t)n;
    else if (strcmp(flag, "--skew") == 0 && parse_u64(value, &n) && n <= UINT32_MAX) a->opts.clock_skew_seconds = (uint32_t)n;
    else return false;
  }
  return true;
}

static int keygen(void) {
  tress_join_key key;
  char hex[TRESS_JOIN_KEY_HEX_CAP];
  tress_join_key_generate(&key);
  tress_join_key_to_hex(&key, hex);
  printf("%s\n", hex);
  tress_join_key_wipe(&key);
  return 0;
}

static int load_key(const args *a, tress_join_key *key) {
  if (!a->key_file) {
    fprintf(stderr, "tress-token: --key FILE is required\n");
    return -1;
  }
  tress_error err;
  if (tress_join_key_read(key, a->key_file, &err) != TRESS_OK) {
    fprintf(stderr, "tress-token: %s\n", err.message);
    return -1;
  }
  return 0;
}

static int mint(const args *a) {
  if (!a->player || !a->room) {
    fprintf(stderr, "tress-token: mint needs --player and --room\n");
    return 2;
  }
  tress_join_key key;
  if (load_key(a, &key) != 0) return 1;
  uint64_t expires = a->have_expires ? a->expires : (uint64_t)time(NULL) + a->ttl;
  char token[TRESS_JOIN_TOKEN_CAP];
  tress_error err;
  tress_result r = tress_join_token_mint(&key, a->player, a->room, expires, token, &err);
  tress_join_key_wipe(&key);
  if (r != TRESS_OK) {
    fprintf(stderr, "tress-token: %s\n", err.message);
    return 1;
  }
  printf("%s\n", token);
  return 0;
}

static int verify(const args *a) {
  if (!a->token) {
    fprintf(stderr, "tress-token: verify needs a TOKEN\n");
    return 2;
  }
  tress_join_key key;
  if (load_key(a, &key) != 0) return 1;
  tress_join_claims claims;
  tress_error err;
  tress_join_token_status st = tress_join_token_verify(&key, a->token, (uint64_t)time(NULL), &a->opts, &claims, &err);
  tress_join_key_wipe(&key);
  if (st != TRESS_JOIN_TOKEN_OK) {
    fprintf(stderr, "tress-token: %s\n", err.message);
    return 1;
  }
  char nonce[2 * TRESS_JOIN_NONCE_BYTES + 1];
  for (int i = 0; i < TRESS_JOIN_NONCE_BYTES; i++) snprintf(nonce + 2 * i, 3, "%02x", claims.nonce[i]);
  printf("player_id=%s room=%s expires_at=%llu nonce=%s\n", claims.player_id, claims.room,
         (unsigned long long)claims.expires_at, nonce);
  return 0;
}

int main(int argc, char **argv) {
  args a;
  if (!parse_args(argc, argv, &a)) {
    usage(stderr);
    return 2;
  }
  if (strcmp(a.command, "keygen") == 0) return keygen();
  if (strcmp(a.command, "mint") == 0) return mint(&a);
  if (strcmp(a.command, "verify") == 0) return verify(&a);
  if (strcmp(a.command, "--help") == 0 || strcmp(a.command, "-h") == 0) {
    usage(stdout);
    return 0;
  }
  usage(stderr);
  return 2;
}
