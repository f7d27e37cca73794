/* error_set.h - how components fill a caller's tress_error (not a public header).
 * The codes mirror tress_result's values until tress/result.h gives them their public names. */
#ifndef TRESS_ERROR_SET_H
#define TRESS_ERROR_SET_H

#include "tress/error.h"

#define TRESS__ERR_INVALID_ARGUMENT 1 /* a file or text that does not parse, a def that is refused */
#define TRESS__ERR_OUT_OF_MEMORY 5

/* When err is not NULL: its code and the printf-formatted message (cut to fit). Returns code. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int tress__error_set(tress_error *err, int code, const char *format, ...);

#endif
