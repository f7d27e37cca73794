/* manifest_load.c - reads --manifest files with the protocol's manifest JSON reader. */
#include "manifest_load.h"

#include <stdio.h>
#include <string.h>

#include "tress/manifest_json.h"

int bot_manifest_load(const char *path, bot_manifest_file *out, char *err, size_t err_cap) {
  memset(out, 0, sizeof *out);
  tress_error why = {0};
  if (tress_manifest_json_load(path, &out->manifest, &why) != 0) {
    snprintf(err, err_cap, "%s", why.message);
    return -1;
  }
  out->loaded = true;
  return 0;
}

void bot_manifest_free(bot_manifest_file *f) {
  if (f->loaded) tress_manifest_json_free(&f->manifest);
  memset(f, 0, sizeof *f);
}
