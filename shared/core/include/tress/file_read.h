/* tress/file_read.h - read a whole file into memory with a size cap.
 * Every reader (meshes, springs, configs, manifests) uses it so a huge or endless file is refused before it is parsed. */
#ifndef TRESS_FILE_READ_H
#define TRESS_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "tress/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the regular file at path whole. Returns a malloc'd buffer (NUL-terminated one past size,
 * for text parsers), or NULL with err (may be NULL) naming the file and the problem, and errno
 * set: the open's own (ENOENT, EACCES, ...), EISDIR or EINVAL for a directory or another
 * non-regular file, EFBIG over max_bytes (refused before reading), ENOMEM, or EIO for a short read. */
uint8_t *tress_file_read(const char *path, size_t max_bytes, size_t *size, tress_error *err);

#ifdef __cplusplus
}
#endif

#endif
