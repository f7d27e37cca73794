/* fuzz_spring_import.c - libFuzzer target for VRM / name-convention spring import from a .glb or
 * .gltf: an import (with warnings for what it skipped) or an error, never a crash. */
#include <stdlib.h>

#include "tress/spring_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_spring_import_def def = tress_default_spring_import_def();
  tress_spring_import *imp = NULL;
  tress_error err = {0};
  if (tress_spring_import_read_memory(data, size, &def, &imp, &err) != 0) {
    if (imp || err.message[0] == '\0') abort();
    return 0;
  }
  if (!imp) abort();
  tress_spring_import_free(imp);
  return 0;
}
