#include "support/gltf_validator.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool gltf_validator_ready(char *prefix, size_t cap) {
  const char *bin = getenv("TRESS_BINARY_DIR");
  if (!bin) return false;
  snprintf(prefix, cap, "%s/npm", bin);
  char probe[1200], cmd[1400];
  snprintf(probe, sizeof probe, "%s/node_modules/gltf-validator/package.json", prefix);
  if (access(probe, R_OK) == 0) return true;
  snprintf(cmd, sizeof cmd, "command -v node >/dev/null && command -v npm >/dev/null && "
           "npm install --prefix '%s' gltf-validator --no-audit --no-fund --silent >/dev/null 2>&1", prefix);
  if (system(cmd) != 0) return false;
  return access(probe, R_OK) == 0;
}
