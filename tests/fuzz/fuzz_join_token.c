/* fuzz_join_token.c - libFuzzer target for join token verification (tress/join_token.h): any text
 * is refused with a status or accepted, never read past; an accepted one re-encodes to itself. */
#include <stdlib.h>
#include <string.h>

#include "tress/join_token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char text[512];
  if (size >= sizeof text) size = sizeof text - 1;
  memcpy(text, data, size);
  text[size] = '\0';
  tress_join_key key; /* the PROTOCOL.md test vector's key, so seeds can be valid tokens */
  for (int i = 0; i < TRESS_JOIN_KEY_BYTES; i++) key.bytes[i] = (uint8_t)(8 + i);
  tress_join_claims claims;
  tress_error err;
  tress_join_token_status st = tress_join_token_verify(&key, text, 1800000000u, NULL, &claims, &err);
  if (st >= TRESS_JOIN_TOKEN_STATUS_COUNT || (st != TRESS_JOIN_TOKEN_OK && err.message[0] == '\0')) abort();
  if (st == TRESS_JOIN_TOKEN_OK) {
    char again[TRESS_JOIN_TOKEN_CAP];
    if (tress_join_token_encode(&key, &claims, again, NULL) != TRESS_OK || strcmp(again, text) != 0) abort();
  }
  return 0;
}
