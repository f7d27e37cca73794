/* fuzz_cache_file.c - libFuzzer target for the rig cache's file reader. White-box (rig_cache.h):
 * the cache is tress-server's, with no public header. The first input byte picks what the rest is:
 *   even: a whole cache file (header checks: magic, version, length, checksum);
 *   odd:  a payload, wrapped in a header with a correct checksum (and, when it decodes as a
 *         RIG_RESULT, its own key) so the fuzzer gets past what it cannot forge to the payload
 *         decode, the key check and the id patching.
 * Either way: an entry whose payload re-patches for a wearer, or CORRUPT with a reason. */
#include <stdlib.h>
#include <string.h>

#include "rig_cache.h"
#include "tress/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t key[TRESS_RIG_KEY_BYTES];
  memset(key, 0x5A, sizeof key);
  const uint8_t *file = data + 1;
  size_t len = size - 1;
  uint8_t *wrapped = NULL;
  if (data[0] & 1) {
    tress_msg msg;
    tress_wire_error werr;
    if (tress_msg_decode(file, len, &msg, &werr) == TRESS_WIRE_OK && msg.type == TRESS_MSG_RIG_RESULT)
      tress_rig_cache_key(msg.rig_result.mesh_hash, &msg.rig_result.options, key);
    tress_msg_free(&msg);
    const float mesh_size[3] = {0.3f, 0.2f, 0.25f};
    wrapped = malloc(TRESS_RIG_CACHE_HEADER_BYTES + len + 1);
    if (!wrapped) return 0;
    tress_rig_cache_file_header(key, mesh_size, file, len, wrapped);
    memcpy(wrapped + TRESS_RIG_CACHE_HEADER_BYTES, file, len);
    file = wrapped;
    len += TRESS_RIG_CACHE_HEADER_BYTES;
  }
  tress_rig_entry *e = NULL;
  char reason[TRESS_WIRE_TEXT_CAP] = "";
  tress_cache_read r = tress_rig_cache_parse_file(key, file, len, &e, reason);
  if (r == TRESS_CACHE_READ_OK) {
    if (!e) abort();
    size_t out_len = 0;
    uint8_t *bytes = tress_rig_entry_encode_for(e, 7, 1, &out_len, reason);
    if (!bytes || out_len != e->encoded_bytes) abort();
    free(bytes);
    tress_rig_entry_release(e);
  } else if (e || reason[0] == '\0') {
    abort();
  }
  free(wrapped);
  return 0;
}
