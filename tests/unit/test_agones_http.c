/* The Agones sidecar HTTP client (server/src/agones_http.c) against a real socket: a thread
 * serves one scripted response, byte by byte (so every header, chunk-size line and body line is
 * split across reads), and the client runs on a libuv loop. Framing by Content-Length, chunked
 * (a stream handed over line by line) and EOF; errors, refusals, deadlines and oversize are -1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agones_http.h"

typedef struct scripted_server {
  int listen_fd;
  uint16_t port;
  const char *response; /* NULL: accept, read, never answer */
  size_t response_len;
  bool byte_by_byte;
  char request[2048];
  pthread_t thread;
} scripted_server;

static void *serve_one(void *arg) {
  scripted_server *ss = arg;
  int fd = accept(ss->listen_fd, NULL, NULL);
  if (fd < 0) return NULL;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  size_t got = 0;
  while (got < sizeof ss->request - 1) { /* the header block and a Content-Length body */
    ssize_t r = read(fd, ss->request + got, sizeof ss->request - 1 - got);
    if (r <= 0) break;
    got += (size_t)r;
    ss->request[got] = '\0';
    char *end = strstr(ss->request, "\r\n\r\n");
    const char *cl = strstr(ss->request, "Content-Length: ");
    if (end && (!cl || got >= (size_t)(end + 4 - ss->request) + strtoul(cl + 16, NULL, 10))) break;
  }
  if (!ss->response) {
    usleep(800 * 1000); /* longer than the client's deadline */
  } else if (ss->byte_by_byte) {
    for (size_t i = 0; i < ss->response_len; i++) {
      if (write(fd, ss->response + i, 1) != 1) break;
      usleep(300);
    }
  } else {
    for (size_t off = 0; off < ss->response_len;) {
      ssize_t w = write(fd, ss->response + off, ss->response_len - off);
      if (w <= 0) break;
      off += (size_t)w;
    }
  }
  close(fd);
  return NULL;
}

static void server_start(scripted_server *ss, const char *response, size_t len, bool byte_by_byte) {
  memset(ss, 0, sizeof *ss);
  ss->response = response;
  ss->response_len = len;
  ss->byte_by_byte = byte_by_byte;
  ss->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  socklen_t alen = sizeof a;
  assert_int_equal(bind(ss->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(ss->listen_fd, 4), 0);
  getsockname(ss->listen_fd, (struct sockaddr *)&a, &alen);
  ss->port = ntohs(a.sin_port);
  assert_int_equal(pthread_create(&ss->thread, NULL, serve_one, ss), 0);
}

static void server_join(scripted_server *ss) {
  pthread_join(ss->thread, NULL);
  close(ss->listen_fd);
}

/* What the client saw. */
typedef struct outcome {
  int status;
  bool done;
  char body[TRESS_AGONES_HTTP_RESPONSE_CAP + 1];
  char lines[8][128];
  int line_count;
  double done_after_ms;
} outcome;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double started_ms;

static void on_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  outcome *o = call->data;
  o->status = status;
  o->done = true;
  o->done_after_ms = now_ms() - started_ms;
  memcpy(o->body, body, len + 1);
  tress_agones_http_close(call);
}

static void on_line(tress_agones_http_call *call, const char *line, size_t len) {
  outcome *o = call->data;
  assert_int_equal(strlen(line), len);
  if (o->line_count < 8) snprintf(o->lines[o->line_count++], sizeof o->lines[0], "%s", line);
}

/* One request to port, run to completion. Heap: the call holds ~140 KB of buffers. */
static outcome *run(uint16_t port, const char *method, const char *path, const char *body, uint32_t timeout_ms,
                    bool stream) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  outcome *o = calloc(1, sizeof *o);
  tress_agones_http_call *call = malloc(sizeof *call);
  assert_non_null(o);
  assert_non_null(call);
  o->status = -2;
  tress_agones_http_init(call, &loop, port, o, NULL);
  started_ms = now_ms();
  assert_int_equal(tress_agones_http_start(call, method, path, body, timeout_ms, on_done, stream ? on_line : NULL), 0);
  assert_int_equal(tress_agones_http_start(call, method, path, body, timeout_ms, on_done, NULL), -1); /* busy */
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(uv_loop_close(&loop), 0); /* every handle closed */
  free(call);
  assert_true(o->done);
  return o;
}

static void test_content_length_split_everywhere(void **state) {
  (void)state;
  static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 11\r\n\r\n{\"a\":\"b c\"}"
                             "trailing bytes past the length are not body";
  scripted_server ss;
  server_start(&ss, resp, sizeof resp - 1, true);
  outcome *o = run(ss.port, "POST", "/ready", "{}", 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, 200);
  assert_string_equal(o->body, "{\"a\":\"b c\"}");
  assert_non_null(strstr(ss.request, "POST /ready HTTP/1.1\r\n"));
  assert_non_null(strstr(ss.request, "Content-Type: application/json\r\n"));
  assert_non_null(strstr(ss.request, "Content-Length: 2\r\n\r\n{}"));
  free(o);
}

static void test_chunked_stream_lines(void **state) {
  (void)state;
  /* Lines cut across chunks and a CRLF line end: the client hands over whole lines only. */
  static const char resp[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "5\r\n{\"a\":\r\n"
                             "a;ext=1\r\n1}\n{\"b\":2}\r\n"
                             "4\r\n\r\n\n\n\r\n"
                             "3\r\n{}\n\r\n"
                             "0\r\n\r\n";
  scripted_server ss;
  server_start(&ss, resp, sizeof resp - 1, true);
  outcome *o = run(ss.port, "GET", "/watch/gameserver", NULL, 0, true);
  server_join(&ss);
  assert_int_equal(o->status, 200);
  assert_int_equal(o->line_count, 3);
  assert_string_equal(o->lines[0], "{\"a\":1}");
  assert_string_equal(o->lines[1], "{\"b\":2}");
  assert_string_equal(o->lines[2], "{}");
  assert_non_null(strstr(ss.request, "GET /watch/gameserver HTTP/1.1\r\n"));
  assert_null(strstr(ss.request, "Content-Length")); /* a GET has no body */
  free(o);
}

static void test_chunked_body_and_until_eof(void **state) {
  (void)state;
  static const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  scripted_server ss;
  server_start(&ss, chunked, sizeof chunked - 1, false);
  outcome *o = run(ss.port, "GET", "/gameserver", NULL, 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, 200);
  assert_string_equal(o->body, "abcde");
  free(o);

  static const char eof[] = "HTTP/1.0 404 Not Found\r\n\r\n{\"code\":5}";
  server_start(&ss, eof, sizeof eof - 1, true);
  o = run(ss.port, "POST", "/v1beta1/lists/rooms:removeValue", "{\"value\":\"x\"}", 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, 404); /* an HTTP error is a status, not a failure */
  assert_string_equal(o->body, "{\"code\":5}");
  free(o);
}

static void test_failures_are_minus_one(void **state) {
  (void)state;
  scripted_server ss;
  /* A truncated body: the connection closed 3 bytes short. */
  static const char short_body[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n1234567";
  server_start(&ss, short_body, sizeof short_body - 1, false);
  outcome *o = run(ss.port, "POST", "/health", "{}", 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, -1);
  free(o);

  /* Not HTTP. */
  static const char garbage[] = "SSH-2.0-OpenSSH\r\n\r\n";
  server_start(&ss, garbage, sizeof garbage - 1, false);
  o = run(ss.port, "POST", "/health", "{}", 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, -1);
  free(o);

  /* No answer within the deadline. */
  server_start(&ss, NULL, 0, false);
  o = run(ss.port, "POST", "/health", "{}", 200, false);
  printf("deadline 200 ms: done after %.0f ms\n", o->done_after_ms);
  assert_int_equal(o->status, -1);
  assert_true(o->done_after_ms >= 190 && o->done_after_ms < 700);
  server_join(&ss);
  free(o);

  /* A body larger than the slot holds. */
  size_t big = TRESS_AGONES_HTTP_RESPONSE_CAP + 100;
  char *resp = malloc(big + 64);
  int n = snprintf(resp, 64, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", big);
  memset(resp + n, 'x', big);
  server_start(&ss, resp, (size_t)n + big, false);
  o = run(ss.port, "GET", "/gameserver", NULL, 5000, false);
  server_join(&ss);
  assert_int_equal(o->status, -1);
  free(o);
  free(resp);

  /* Nobody listening. */
  server_start(&ss, "", 0, false);
  uint16_t port = ss.port;
  shutdown(ss.listen_fd, SHUT_RDWR);
  server_join(&ss);
  o = run(port, "POST", "/ready", "{}", 5000, false);
  assert_int_equal(o->status, -1);
  free(o);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN); /* the scripted server writes past a client that has already closed */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_content_length_split_everywhere),
      cmocka_unit_test(test_chunked_stream_lines),
      cmocka_unit_test(test_chunked_body_and_until_eof),
      cmocka_unit_test(test_failures_are_minus_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
