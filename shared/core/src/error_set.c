/* error_set.c - fills a caller's tress_error (core/internal/error_set.h). */
#include "error_set.h"

#include <stdarg.h>
#include <stdio.h>

int tress__error_set(tress_error *err, int code, const char *format, ...) {
  if (!err) return code;
  err->code = code;
  va_list ap;
  va_start(ap, format);
  vsnprintf(err->message, sizeof err->message, format, ap);
  va_end(ap);
  return code;
}
