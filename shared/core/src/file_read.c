/* file_read.c - whole-file reads with a cap: the mesh and spring readers and the server's config,
 * store manifest and rig cache files all read through here. Only regular files are read (opened
 * non-blocking, so a FIFO without a writer cannot hang the caller), and an oversized file is
 * refused from its size before a byte is read. */
#include "tress/file_read.h"

#include "tress/result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fills err (when given) and leaves errno at `code`, which formatting may have changed. */
static uint8_t *fail(int fd, uint8_t *buf, int code, tress_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static uint8_t *fail(int fd, uint8_t *buf, int code, tress_error *err, const char *fmt, ...) {
  free(buf);
  if (fd >= 0) close(fd);
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code == ENOMEM ? TRESS_ERR_OUT_OF_MEMORY : TRESS_ERR_INVALID_ARGUMENT;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  errno = code;
  return NULL;
}

/* Reads exactly len bytes, or fewer at end of file. */
static size_t read_full(int fd, uint8_t *buf, size_t len, bool *failed) {
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) *failed = true;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

uint8_t *tress_file_read(const char *path, size_t max_bytes, size_t *size, tress_error *err) {
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    return fail(fd, NULL, e, err, "cannot open %s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode))
    return fail(fd, NULL, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, err, "cannot open %s: not a regular file",
                path);
  if ((uint64_t)st.st_size > (uint64_t)max_bytes)
    return fail(fd, NULL, EFBIG, err, "%s is larger than %zu bytes", path, max_bytes);
  size_t len = (size_t)st.st_size;
  uint8_t *buf = malloc(len + 1);
  if (!buf) return fail(fd, NULL, ENOMEM, err, "out of memory reading %s", path);
  /* one byte more than the size: a file that changed size since fstat is refused, not cut short */
  bool failed = false;
  if (read_full(fd, buf, len + 1, &failed) != len || failed)
    return fail(fd, buf, EIO, err, "cannot read %s", path);
  close(fd);
  buf[len] = 0;
  *size = len;
  return buf;
}
