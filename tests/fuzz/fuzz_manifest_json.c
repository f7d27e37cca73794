/* fuzz_manifest_json.c - libFuzzer target for the character manifest JSON parser: a manifest or
 * an error; what parses prints, and the print parses again to the same manifest. */
#include <stdlib.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/manifest_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Equal manifests encode to equal SPAWN_CHARACTER messages. */
static int same(const tress_wire_manifest *a, const tress_wire_manifest *b) {
  tress_msg ma, mb;
  memset(&ma, 0, sizeof ma);
  memset(&mb, 0, sizeof mb);
  ma.type = mb.type = TRESS_MSG_SPAWN_CHARACTER;
  ma.spawn_character.manifest = *a;
  mb.spawn_character.manifest = *b;
  return tress_msg_is_equal(&ma, &mb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_wire_manifest m, again;
  tress_error err = {0};
  if (tress_manifest_json_parse((const char *)data, size, &m, &err) != 0) {
    if (err.message[0] == '\0') abort();
    return 0;
  }
  char *text = tress_manifest_json_print(&m);
  if (!text) abort();
  if (tress_manifest_json_parse(text, strlen(text), &again, &err) != 0) abort();
  if (!same(&m, &again)) abort();
  tress_manifest_json_free(&again);
  free(text);
  tress_manifest_json_free(&m);
  return 0;
}
