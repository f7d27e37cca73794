/* fuzz_gltf.c - libFuzzer target for the glTF / GLB reader, the largest surface the server
 * parses from files: any bytes give a mesh that keeps its invariants, or NULL with a reason.
 * External buffer URIs resolve inside a directory that does not exist, so nothing outside the
 * input is ever read. */
#include <stdlib.h>

#include "fuzz_mesh_check.h"
#include "tress/gltf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_error err = {0};
  tress_mesh *m = tress_gltf_read_memory(data, size, "/nonexistent-tress-fuzz", &err);
  if (!m) {
    if (err.message[0] == '\0') abort(); /* every refusal explains itself */
    return 0;
  }
  fuzz_check_mesh(m);
  tress_mesh_release(m);
  return 0;
}
