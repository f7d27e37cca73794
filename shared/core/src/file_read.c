/* file_read.c - whole-file reads with a cap, for the mesh readers. */
#include "tress/file_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_set.h"

uint8_t *tress_file_read(const char *path, size_t max_bytes, size_t *size, tress_error *err) {
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    tress__error_set(err, TRESS__ERR_INVALID_ARGUMENT, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (len > max_bytes) {
      tress__error_set(err, TRESS__ERR_INVALID_ARGUMENT, "%s is larger than %zu bytes", path, max_bytes);
      free(buf);
      fclose(f);
      return NULL;
    }
    if (got == 0 || len < cap) {
      if (ferror(f)) {
        tress__error_set(err, TRESS__ERR_INVALID_ARGUMENT, "cannot read %s", path);
        free(buf);
        fclose(f);
        return NULL;
      }
      if (feof(f)) break;
      continue;
    }
    uint8_t *bigger = realloc(buf, 2 * cap + 1);
    if (!bigger) { free(buf); buf = NULL; break; }
    buf = bigger;
    cap *= 2;
  }
  fclose(f);
  if (!buf) {
    tress__error_set(err, TRESS__ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
    return NULL;
  }
  buf[len] = 0;
  *size = len;
  return buf;
}
