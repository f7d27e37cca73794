/* fuzz_store_manifest.c - libFuzzer target for the asset store's manifest.json: listed ids are
 * valid store ids, or the manifest is refused with a reason. White-box (asset_store.h): the store
 * is the server's, with no public header. */
#include <stdlib.h>
#include <string.h>

#include "asset_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_asset_store store;
  memset(&store, 0, sizeof store);
  char err[256] = "";
  if (tress_asset_store_parse_manifest(&store, (const char *)data, size, "manifest.json", err) != 0) {
    if (err[0] == '\0' || store.hash_count != 0) abort();
    return 0;
  }
  for (uint32_t i = 0; i < store.hash_count; i++) {
    if (!tress_asset_id_is_valid(store.hashes[i].id)) abort();
    if (tress_asset_store_has(&store, store.hashes[i].id) != TRESS_CODE_NONE) abort();
  }
  tress_asset_store_close(&store);
  return 0;
}
