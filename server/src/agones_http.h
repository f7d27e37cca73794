/* agones_http.h - a minimal HTTP/1.1 client on the libuv loop for the Agones SDK sidecar's REST
 * API on 127.0.0.1. One call slot runs one request at a time (Connection: close); nothing in it
 * blocks the loop: connect, write and read are libuv callbacks and every request has a deadline.
 * A streamed response (the GameServer watch) is handed over line by line as it arrives. */
#ifndef TRESS_AGONES_HTTP_H
#define TRESS_AGONES_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define TRESS_AGONES_HTTP_REQUEST_CAP 8192
#define TRESS_AGONES_HTTP_RESPONSE_CAP 65536 /* a GameServer object with its labels fits */
#define TRESS_AGONES_HTTP_HEAD_CAP 4096

typedef struct tress_agones_http_call tress_agones_http_call;

/* The request ended: status is the HTTP status, or -1 when there was no complete answer
 * (refused, reset, deadline, oversized). body is the decoded body (NUL-terminated, not for a
 * stream). The slot is idle again: the callback may start the next request on it. */
typedef void (*tress_agones_http_done_fn)(tress_agones_http_call *call, int status, const char *body, size_t len);
/* A stream call: one complete body line (without its '\n'), as it arrives, status 200 only. */
typedef void (*tress_agones_http_line_fn)(tress_agones_http_call *call, const char *line, size_t len);

typedef enum tress_agones_body_mode { BODY_UNTIL_EOF, BODY_LENGTH, BODY_CHUNKED } tress_agones_body_mode;

struct tress_agones_http_call {
  uv_loop_t *loop;
  uint16_t port;
  uv_tcp_t tcp;
  uv_connect_t connect;
  uv_write_t write;
  uv_timer_t deadline;
  bool busy, tcp_open, closing, timer_closed;
  int status;            /* parsed from the status line; -1 until then and on failure */
  bool failed, complete;
  tress_agones_http_done_fn done;
  tress_agones_http_line_fn on_line; /* non-NULL: a stream call */
  void *data;            /* the caller's */
  /* response parsing */
  void (*on_closed)(tress_agones_http_call *call); /* after tress_agones_http_close, once libuv let go */
  bool headers_done;
  tress_agones_body_mode mode;
  size_t body_left;      /* BODY_LENGTH: bytes still expected; BODY_CHUNKED: of the current chunk */
  bool chunk_trailer;    /* BODY_CHUNKED: the CRLF after a chunk's data is due */
  size_t head_len, body_len, request_len;
  char head[TRESS_AGONES_HTTP_HEAD_CAP]; /* raw bytes being parsed: the header block, a chunk-size line */
  char body[TRESS_AGONES_HTTP_RESPONSE_CAP + 1]; /* decoded body; a stream keeps only its unfinished line */
  char request[TRESS_AGONES_HTTP_REQUEST_CAP];
  char read_buf[4096];
};

/* Sets a slot up (inits its deadline timer). on_closed may be NULL. */
void tress_agones_http_init(tress_agones_http_call *call, uv_loop_t *loop, uint16_t port, void *data,
                            void (*on_closed)(tress_agones_http_call *call));
/* Starts METHOD path with a JSON body (NULL: no body, GET). timeout_ms 0: no deadline (streams).
 * -1 when the slot is busy or the request does not fit. */
int tress_agones_http_start(tress_agones_http_call *call, const char *method, const char *path, const char *json_body,
                            uint32_t timeout_ms, tress_agones_http_done_fn done, tress_agones_http_line_fn on_line);
/* Ends a request under way (done runs with -1). */
void tress_agones_http_cancel(tress_agones_http_call *call);
/* Ends any request (without calling done) and closes the slot's handles; on_closed runs once
 * libuv has let go of them, and only then may the slot's memory be freed. */
void tress_agones_http_close(tress_agones_http_call *call);

#endif
