/* fuzz_config_json.c - libFuzzer target for tress-server's JSON config file: applied over the
 * defaults or refused with a reason, and the result always prints as JSON. White-box (config.h):
 * the config reader is the server's, with no public header. */
#include <stdlib.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_server_config cfg = tress_default_server_config();
  char err[TRESS_CONFIG_ERROR_MAX] = "";
  if (tress_server_config_apply_json(&cfg, (const char *)data, size, "fuzz.json", err) != 0 && err[0] == '\0') abort();
  char *json = tress_server_config_to_json(&cfg);
  if (!json) abort();
  free(json);
  return 0;
}
