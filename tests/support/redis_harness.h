/* redis_harness.h - a real redis-server for integration tests: started on a free loopback port in
 * a scratch directory, stopped (or killed, stopped with SIGSTOP) by the test, and a plain
 * synchronous hiredis connection for the test's own looks at the keys. */
#ifndef TRESS_REDIS_HARNESS_H
#define TRESS_REDIS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct th_redis {
  pid_t pid;
  uint16_t port;
  char dir[256];
  char url[64]; /* redis://127.0.0.1:<port> */
} th_redis;

/* The redis-server binary, or NULL when it is not installed (the test then skips, saying so). */
const char *th_redis_server_path(void);
/* Picks a free loopback port (kept for restarts) and a scratch dir; starts nothing. */
void th_redis_init(th_redis *r);
/* Starts redis-server on r->port with no persistence plus extra args (NULL-terminated), and waits
 * for it to answer PING. 0 or -1. */
int th_redis_start(th_redis *r, const char *const *extra);
/* SIGKILL (or another signal) and wait for the exit. */
void th_redis_kill(th_redis *r, int sig);
void th_redis_cleanup(th_redis *r);

/* One command on a fresh short-lived connection; the reply as text (integer, status, string,
 * array elements joined by '\n'; "(nil)" for none), malloc'd, NULL when Redis did not answer
 * within 1 s. *len (may be NULL) gets its length: values are binary. */
char *th_redis_cmd(const th_redis *r, size_t *len, int argc, const char **argv, const size_t *argvlen);
/* printf-style convenience for text-only commands ("GET %s"). */
char *th_redis_cmdf(const th_redis *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
