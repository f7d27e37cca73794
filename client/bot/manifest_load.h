/* manifest_load.h - tress-bot's --manifest: a character manifest read from a JSON file
 * (assets/characters/NAME.json) through the protocol's manifest JSON reader. */
#ifndef TRESS_BOT_MANIFEST_LOAD_H
#define TRESS_BOT_MANIFEST_LOAD_H

#include <stddef.h>

#include "tress/msg.h"

#include <stdbool.h>

typedef struct bot_manifest_file {
  tress_wire_manifest manifest; /* arrays owned by this struct */
  bool loaded;
} bot_manifest_file;

int bot_manifest_load(const char *path, bot_manifest_file *out, char *err, size_t err_cap);
void bot_manifest_free(bot_manifest_file *f);

#endif
