#include "support/mesh_hash_hex.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"

void mesh_file_hash_hex(const char *path, char hex[65]) {
  tress_error err = {0};
  tress_mesh *m = tress_mesh_file_load(path, &err);
  assert_non_null(m);
  uint8_t h[TRESS_MESH_HASH_BYTES];
  assert_int_equal(tress_mesh_get_content_hash(m, h), 0);
  tress_mesh_hash_to_hex(h, hex);
  tress_mesh_release(m);
}
