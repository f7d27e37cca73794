/* file_util.h - small POSIX file helpers the server shares: atomic durable writes (tmp + fsync +
 * rename + directory fsync) and mkdir -p. Whole-file reads are core's tress_file_read. */
#ifndef TRESS_SERVER_FILE_UTIL_H
#define TRESS_SERVER_FILE_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Writes path atomically: path.tmp.<unique> is written and fsync'd, renamed over path, and the
 * directory is fsync'd. A crash leaves either the old file, the new one, or a stray *.tmp.*
 * (which tress_file_remove_stray_tmp sweeps); never a half-written path. 0 or -1 with errno. */
int tress_file_write_atomic(const char *path, const void *a, size_t a_len, const void *b, size_t b_len);

/* Removes leftover "*.tmp.*" files in dir; returns how many. */
int tress_file_remove_stray_tmp(const char *dir);

/* mkdir -p; 0 when the directory exists afterwards. */
int tress_file_mkdirs(const char *path);

#endif
