/* manifest_load.c - reads --manifest files with the protocol's manifest JSON reader when the
 * build has it (protocol/include/tress/manifest_json.h); otherwise says so. */
#include "manifest_load.h"

#include <stdio.h>
#include <string.h>

int bot_manifest_load(const char *path, bot_manifest_file *out, char *err, size_t err_cap) {
  memset(out, 0, sizeof *out);
  (void)path;
  snprintf(err, err_cap, "this build has no manifest JSON reader (protocol/include/tress/manifest_json.h)");
  return -1;
}

void bot_manifest_free(bot_manifest_file *f) { memset(f, 0, sizeof *f); }
