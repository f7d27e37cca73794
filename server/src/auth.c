/* Authentication
 * --------------
 * Signed tokens (PROTOCOL.md 5.1): HELLO's auth_token is checked for form, signature, version and
 * expiry (with cfg.token_clock_skew_seconds either way), then its nonce must be new: a token is
 * good for one connection. The token's player id and room are bound to the connection, and
 * JOIN_ROOM must name that room. Every refusal is a REJECT with its own TOKEN_* code (AUTH_FAILED
 * to a 1.0 client, which does not know them) and a sentence saying which check failed; the token
 * itself and the key are never logged. The shared secret stays for development: one cleartext
 * string for everyone, compared in constant time. */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server.h"

int tress_auth_start(tress_server *s, char err[256]) {
  tress_auth *a = &s->auth;
  memset(a, 0, sizeof *a);
  a->opts.clock_skew_seconds = s->cfg.token_clock_skew_seconds;
  a->opts.max_lifetime_seconds = s->cfg.max_token_lifetime_seconds;
  if (s->cfg.join_key_file[0]) {
    tress_error e;
    if (tress_join_key_read(&a->key, s->cfg.join_key_file, &e) != TRESS_OK) {
      snprintf(err, 256, "%s", e.message);
      return -1;
    }
    if (tress_token_replay_init(&a->replay, s->cfg.max_token_nonces) != 0) {
      tress_join_key_wipe(&a->key);
      snprintf(err, 256, "no memory for %u token nonces", s->cfg.max_token_nonces);
      return -1;
    }
    a->mode = TRESS_AUTH_SIGNED_TOKENS;
    tress_log_event(&s->log, TRESS_LOG_INFO, "auth_mode", "mode=signed_tokens key_file=%s max_lifetime_s=%u skew_s=%u",
                    tress_log_quote(s->cfg.join_key_file, (char[300]){0}, 300), a->opts.max_lifetime_seconds,
                    a->opts.clock_skew_seconds);
  } else if (s->cfg.auth_token[0]) {
    a->mode = TRESS_AUTH_SHARED_SECRET;
    tress_log_event(&s->log, TRESS_LOG_WARN, "auth_mode", "mode=shared_secret note=development_only");
  } else {
    tress_log_event(&s->log, TRESS_LOG_INFO, "auth_mode", "mode=open");
  }
  return 0;
}

void tress_auth_stop(tress_server *s) {
  tress_join_key_wipe(&s->auth.key);
  tress_token_replay_free(&s->auth.replay);
}

/* 1.0 clients know none of the TOKEN_* codes (PROTOCOL.md 7: new values wait for the peer's minor). */
static tress_wire_code code_for_peer(const tress_peer *p, tress_wire_code code) {
  if (code >= TRESS_CODE_TOKEN_MALFORMED && p->client_minor < TRESS_PROTOCOL_MINOR_TOKEN_CODES)
    return TRESS_CODE_AUTH_FAILED;
  return code;
}

static bool refuse(tress_server *s, uint32_t slot, tress_wire_code code, const char *reason) {
  tress_peer *p = &s->peers[slot];
  atomic_fetch_add(&s->metrics.auth_refused, 1);
  tress_log_event(&s->log, TRESS_LOG_INFO, "auth_refused", "peer=%u code=%s", p->peer_id, tress_wire_code_name(code));
  tress_peer_reject(s, slot, code_for_peer(p, code), reason);
  return false;
}

static bool check_shared_secret(tress_server *s, uint32_t slot, const char *token) {
  size_t n = strlen(s->cfg.auth_token);
  if (strlen(token) != n || sodium_memcmp(token, s->cfg.auth_token, n) != 0)
    return refuse(s, slot, TRESS_CODE_AUTH_FAILED, "bad auth token");
  return true;
}

static bool check_signed_token(tress_server *s, uint32_t slot, const char *token) {
  tress_auth *a = &s->auth;
  tress_peer *p = &s->peers[slot];
  uint64_t now = (uint64_t)time(NULL);
  tress_join_claims claims;
  tress_error e;
  tress_join_token_status st = tress_join_token_verify(&a->key, token, now, &a->opts, &claims, &e);
  if (st != TRESS_JOIN_TOKEN_OK) return refuse(s, slot, tress_join_token_status_to_code(st), e.message);
  switch (tress_token_replay_add(&a->replay, claims.nonce, claims.expires_at + a->opts.clock_skew_seconds, now)) {
  case TRESS_TOKEN_REPLAY_SEEN: return refuse(s, slot, TRESS_CODE_TOKEN_REPLAYED, "join token already used");
  case TRESS_TOKEN_REPLAY_FULL:
    return refuse(s, slot, TRESS_CODE_SERVER_FULL, "too many live join tokens, try again later");
  case TRESS_TOKEN_REPLAY_ADDED: break;
  }
  snprintf(p->player_id, sizeof p->player_id, "%s", claims.player_id);
  snprintf(p->token_room, sizeof p->token_room, "%s", claims.room);
  char qp[96], qr[96];
  tress_log_event(&s->log, TRESS_LOG_INFO, "peer_authenticated", "peer=%u player=%s room=%s expires_in_s=%lld",
                  p->peer_id, tress_log_quote(p->player_id, qp, sizeof qp), tress_log_quote(p->token_room, qr, sizeof qr),
                  (long long)(claims.expires_at - now));
  return true;
}

bool tress_auth_check_hello(tress_server *s, uint32_t slot, const tress_msg_hello *h) {
  s->peers[slot].client_minor = h->version_minor;
  switch (s->auth.mode) {
  case TRESS_AUTH_OPEN: return true;
  case TRESS_AUTH_SHARED_SECRET: return check_shared_secret(s, slot, h->auth_token);
  case TRESS_AUTH_SIGNED_TOKENS: return check_signed_token(s, slot, h->auth_token);
  }
  return false;
}

bool tress_auth_check_join(tress_server *s, uint32_t slot, const char *room) {
  const tress_peer *p = &s->peers[slot];
  if (s->auth.mode != TRESS_AUTH_SIGNED_TOKENS || strcmp(room, p->token_room) == 0) return true;
  char reason[TRESS_WIRE_TEXT_CAP];
  snprintf(reason, sizeof reason, "this join token is for another room than \"%.63s\"", room);
  return refuse(s, slot, TRESS_CODE_TOKEN_WRONG_ROOM, reason);
}
