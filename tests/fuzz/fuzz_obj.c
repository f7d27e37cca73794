/* fuzz_obj.c - libFuzzer target for the OBJ reader: a mesh that keeps its invariants, or NULL
 * with a reason. */
#include <stdlib.h>

#include "fuzz_mesh_check.h"
#include "tress/obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_error err = {0};
  tress_mesh *m = tress_obj_read_memory((const char *)data, size, &err);
  if (!m) {
    if (err.message[0] == '\0') abort();
    return 0;
  }
  fuzz_check_mesh(m);
  tress_mesh_release(m);
  return 0;
}
