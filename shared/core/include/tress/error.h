/* tress/error.h - the caller's error: a code and a message naming the actual problem, filled by
 * functions that take a trailing tress_error *err (may be NULL) when they fail (docs/API.md). */
#ifndef TRESS_ERROR_H
#define TRESS_ERROR_H

typedef struct tress_error {
  int code;          /* the failing call's result code; 0 until something fails */
  char message[256]; /* "" until something fails */
} tress_error;

#endif
