/* asset_id.c - what a valid asset id is. The server checks it before any file system call and
 * the client before it opens a local copy, so both ends refuse the same ids. */
#include <stddef.h>
#include <string.h>

#include "tress/msg.h"

static bool id_byte_ok(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

/* "." and ".." name the folder itself or its parent; an empty component is "a//b" or "a/". */
static bool component_ok(const char *start, size_t len) {
  if (len == 0) return false;
  if (len == 1 && start[0] == '.') return false;
  return !(len == 2 && start[0] == '.' && start[1] == '.');
}

bool tress_asset_id_is_valid(const char *id) {
  if (!id || !id[0] || id[0] == '/') return false;
  size_t n = strnlen(id, TRESS_WIRE_TEXT_CAP);
  if (n >= TRESS_WIRE_TEXT_CAP) return false;
  const char *component = id;
  for (size_t i = 0; i <= n; i++) {
    char c = id[i];
    if (c == '/' || c == '\0') {
      if (!component_ok(component, (size_t)(id + i - component))) return false;
      component = id + i + 1;
    } else if (!id_byte_ok(c)) {
      return false; /* backslash, ':', spaces, control bytes, UTF-8 */
    }
  }
  return true;
}
