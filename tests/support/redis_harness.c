/* Integration harness for the shared rig cache: a real redis-server process, nothing faked. */
#include "support/redis_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *th_redis_server_path(void) {
  static const char *const candidates[] = {"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    if (access(candidates[i], X_OK) == 0) return candidates[i];
  return NULL;
}

static uint16_t free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

void th_redis_init(th_redis *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->dir, sizeof r->dir, "/tmp/tress-redis-XXXXXX");
  if (!mkdtemp(r->dir)) abort();
  r->port = free_port();
  snprintf(r->url, sizeof r->url, "redis://127.0.0.1:%u", r->port);
}

int th_redis_start(th_redis *r, const char *const *extra) {
  const char *bin = th_redis_server_path();
  if (!bin) return -1;
  char port[8], log[300];
  snprintf(port, sizeof port, "%u", r->port);
  snprintf(log, sizeof log, "%s/redis.log", r->dir);
  const char *argv[40] = {bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                          "--dir", r->dir, "--daemonize", "no", "--protected-mode", "no"};
  int n = 15;
  for (int i = 0; extra && extra[i] && n < 38; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  r->pid = pid;
  uint64_t deadline = now_ms() + 10000;
  while (now_ms() < deadline) {
    char *pong = th_redis_cmdf(r, "PING");
    bool up = pong && strcmp(pong, "PONG") == 0;
    free(pong);
    if (up) return 0;
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      r->pid = 0;
      fprintf(stderr, "redis-server exited early; log %s\n", log);
      return -1;
    }
    usleep(10000);
  }
  return -1;
}

void th_redis_kill(th_redis *r, int sig) {
  if (r->pid <= 0) return;
  kill(r->pid, SIGCONT); /* a stopped process would not act on SIGTERM */
  kill(r->pid, sig);
  int status;
  waitpid(r->pid, &status, 0);
  r->pid = 0;
}

void th_redis_cleanup(th_redis *r) {
  th_redis_kill(r, SIGKILL);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", r->dir);
}

static void append(char **out, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 2 > *cap) {
    *cap = (*len + n + 2) * 2;
    *out = realloc(*out, *cap);
  }
  memcpy(*out + *len, s, n);
  *len += n;
  (*out)[*len] = '\0';
}

static void reply_text(const redisReply *rep, char **out, size_t *len, size_t *cap) {
  char num[32];
  switch (rep->type) {
    case REDIS_REPLY_INTEGER:
      snprintf(num, sizeof num, "%lld", rep->integer);
      append(out, len, cap, num, strlen(num));
      break;
    case REDIS_REPLY_NIL: append(out, len, cap, "(nil)", 5); break;
    case REDIS_REPLY_ARRAY:
      for (size_t i = 0; i < rep->elements; i++) {
        if (i) append(out, len, cap, "\n", 1);
        reply_text(rep->element[i], out, len, cap);
      }
      break;
    default: append(out, len, cap, rep->str ? rep->str : "", rep->str ? (size_t)rep->len : 0); break;
  }
}

char *th_redis_cmd(const th_redis *r, size_t *len, int argc, const char **argv, const size_t *argvlen) {
  struct timeval tv = {1, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", r->port, tv);
  if (!c || c->err) {
    if (c) redisFree(c);
    return NULL;
  }
  redisSetTimeout(c, tv);
  redisReply *rep = redisCommandArgv(c, argc, argv, argvlen);
  char *out = NULL;
  size_t n = 0, cap = 0;
  if (rep) {
    append(&out, &n, &cap, "", 0);
    reply_text(rep, &out, &n, &cap);
    freeReplyObject(rep);
  }
  redisFree(c);
  if (len) *len = n;
  return out;
}

char *th_redis_cmdf(const th_redis *r, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const char *argv[16];
  size_t lens[16];
  int argc = 0;
  for (char *save = NULL, *tok = strtok_r(text, " ", &save); tok && argc < 16; tok = strtok_r(NULL, " ", &save)) {
    argv[argc] = tok;
    lens[argc++] = strlen(tok);
  }
  return th_redis_cmd(r, NULL, argc, argv, lens);
}
