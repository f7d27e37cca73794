/* Agones sidecar HTTP client
 * --------------------------
 * Just enough HTTP/1.1 for grpc-gateway on loopback: a request with Connection: close, a
 * response framed by Content-Length, chunked transfer coding (the watch stream) or EOF. Header
 * and chunk-size bytes go through a small line buffer; body bytes are copied in bulk. Every
 * buffer lives in the slot, so a request allocates nothing. */
#include "agones_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void on_timer_closed(uv_handle_t *h);

void tress_agones_http_init(tress_agones_http_call *call, uv_loop_t *loop, uint16_t port, void *data,
                            void (*on_closed)(tress_agones_http_call *call)) {
  memset(call, 0, sizeof *call);
  call->loop = loop;
  call->port = port;
  call->data = data;
  call->on_closed = on_closed;
  call->status = -1;
  uv_timer_init(loop, &call->deadline);
  call->deadline.data = call;
}

static void maybe_closed(tress_agones_http_call *call) {
  if (call->closing && call->timer_closed && !call->tcp_open && call->on_closed) call->on_closed(call);
}

static void on_tcp_closed(uv_handle_t *h) {
  tress_agones_http_call *call = h->data;
  call->tcp_open = false;
  call->busy = false;
  int status = call->failed || !call->complete ? -1 : call->status;
  tress_agones_http_done_fn done = call->closing ? NULL : call->done;
  call->body[call->body_len] = '\0';
  if (done) done(call, status, call->body, call->body_len);
  maybe_closed(call);
}

/* The request is over, one way or another: the TCP handle closes and then done runs. */
static void finish(tress_agones_http_call *call) {
  if (!call->busy || !call->tcp_open || uv_is_closing((uv_handle_t *)&call->tcp)) return;
  uv_timer_stop(&call->deadline);
  uv_close((uv_handle_t *)&call->tcp, on_tcp_closed);
}

static void fail(tress_agones_http_call *call) {
  call->failed = true;
  finish(call);
}

/* Appends decoded body bytes; a stream hands every complete line over and keeps the rest. */
static void body_append(tress_agones_http_call *call, const char *p, size_t n) {
  if (call->body_len + n > TRESS_AGONES_HTTP_RESPONSE_CAP) {
    fail(call);
    return;
  }
  memcpy(call->body + call->body_len, p, n);
  call->body_len += n;
  if (!call->on_line || call->status != 200) return;
  size_t start = 0;
  for (size_t i = 0; i < call->body_len; i++) {
    if (call->body[i] != '\n') continue;
    size_t len = i - start;
    if (len && call->body[start + len - 1] == '\r') len--;
    if (len) {
      call->body[start + len] = '\0';
      call->on_line(call, call->body + start, len);
    }
    start = i + 1;
  }
  memmove(call->body, call->body + start, call->body_len - start);
  call->body_len -= start;
}

static const char *header_value(const char *head, const char *name) {
  size_t nl = strlen(name);
  for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
    const char *h = line + 2;
    if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
      h += nl + 1;
      while (*h == ' ' || *h == '\t') h++;
      return h;
    }
  }
  return NULL;
}

static void parse_headers(tress_agones_http_call *call) {
  call->head[call->head_len] = '\0';
  int status = -1;
  if (sscanf(call->head, "HTTP/1.%*d %d", &status) != 1 || status < 100) {
    fail(call);
    return;
  }
  call->status = status;
  call->headers_done = true;
  call->head_len = 0;
  const char *te = header_value(call->head, "Transfer-Encoding");
  const char *cl = header_value(call->head, "Content-Length");
  if (te && strncasecmp(te, "chunked", 7) == 0) {
    call->mode = BODY_CHUNKED;
  } else if (cl) {
    call->mode = BODY_LENGTH;
    call->body_left = strtoul(cl, NULL, 10);
    if (call->body_left == 0) call->complete = true;
  } else {
    call->mode = BODY_UNTIL_EOF;
  }
}

static bool head_push(tress_agones_http_call *call, char c) {
  if (call->head_len + 1 >= TRESS_AGONES_HTTP_HEAD_CAP) {
    fail(call);
    return false;
  }
  call->head[call->head_len++] = c;
  return true;
}

static void header_byte(tress_agones_http_call *call, char c) {
  if (!head_push(call, c)) return;
  if (call->head_len >= 4 && memcmp(call->head + call->head_len - 4, "\r\n\r\n", 4) == 0) parse_headers(call);
}

/* A byte of a chunk-size line or of the CRLF that ends a chunk's data. */
static void chunk_line_byte(tress_agones_http_call *call, char c) {
  if (!head_push(call, c)) return;
  if (call->head_len < 2 || memcmp(call->head + call->head_len - 2, "\r\n", 2) != 0) return;
  call->head[call->head_len - 2] = '\0';
  call->head_len = 0;
  if (call->chunk_trailer) {
    call->chunk_trailer = false;
    return;
  }
  char *end = NULL;
  unsigned long size = strtoul(call->head, &end, 16);
  if (end == call->head) {
    fail(call);
    return;
  }
  if (size == 0) call->complete = true; /* trailers, if any, are not needed: the connection closes */
  call->body_left = size;
}

static void feed(tress_agones_http_call *call, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && !call->complete && !call->failed) {
    if (!call->headers_done) {
      header_byte(call, p[i++]);
      continue;
    }
    size_t take = n - i;
    switch (call->mode) {
      case BODY_UNTIL_EOF: body_append(call, p + i, take); break;
      case BODY_LENGTH:
        if (take > call->body_left) take = call->body_left;
        body_append(call, p + i, take);
        call->body_left -= take;
        if (call->body_left == 0) call->complete = true;
        break;
      case BODY_CHUNKED:
        if (call->body_left == 0) {
          chunk_line_byte(call, p[i]);
          take = 1;
          break;
        }
        if (take > call->body_left) take = call->body_left;
        body_append(call, p + i, take);
        call->body_left -= take;
        if (call->body_left == 0) call->chunk_trailer = true;
        break;
    }
    i += take;
  }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  tress_agones_http_call *call = h->data;
  *buf = uv_buf_init(call->read_buf, sizeof call->read_buf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  tress_agones_http_call *call = stream->data;
  if (nread > 0) feed(call, buf->base, (size_t)nread);
  if (nread == UV_EOF && call->headers_done && call->mode == BODY_UNTIL_EOF) call->complete = true;
  if (call->complete) finish(call);
  else if (nread < 0) fail(call);
}

static void on_written(uv_write_t *req, int status) {
  tress_agones_http_call *call = req->data;
  if (status < 0) fail(call);
}

static void on_connected(uv_connect_t *req, int status) {
  tress_agones_http_call *call = req->data;
  if (status < 0 || call->failed) {
    fail(call);
    return;
  }
  uv_buf_t buf = uv_buf_init(call->request, (unsigned)call->request_len);
  if (uv_read_start((uv_stream_t *)&call->tcp, on_alloc, on_read) != 0 ||
      uv_write(&call->write, (uv_stream_t *)&call->tcp, &buf, 1, on_written) != 0)
    fail(call);
}

static void on_deadline(uv_timer_t *t) { fail(t->data); }

int tress_agones_http_start(tress_agones_http_call *call, const char *method, const char *path, const char *json_body,
                            uint32_t timeout_ms, tress_agones_http_done_fn done, tress_agones_http_line_fn on_line) {
  if (call->busy || call->closing) return -1;
  int n = json_body ? snprintf(call->request, sizeof call->request,
                               "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                               "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                               method, path, strlen(json_body), json_body)
                    : snprintf(call->request, sizeof call->request,
                               "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", method, path);
  if (n < 0 || (size_t)n >= sizeof call->request) return -1;
  call->request_len = (size_t)n;
  call->done = done;
  call->on_line = on_line;
  call->status = -1;
  call->failed = call->complete = call->headers_done = call->chunk_trailer = false;
  call->head_len = call->body_len = call->body_left = 0;
  call->mode = BODY_UNTIL_EOF;
  if (uv_tcp_init(call->loop, &call->tcp) != 0) return -1;
  call->tcp.data = call->connect.data = call->write.data = call;
  call->busy = call->tcp_open = true;
  struct sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", call->port, &addr);
  if (timeout_ms) uv_timer_start(&call->deadline, on_deadline, timeout_ms, 0);
  if (uv_tcp_connect(&call->connect, &call->tcp, (const struct sockaddr *)&addr, on_connected) != 0) fail(call);
  return 0;
}

void tress_agones_http_cancel(tress_agones_http_call *call) {
  if (call->busy) fail(call);
}

static void on_timer_closed(uv_handle_t *h) {
  tress_agones_http_call *call = h->data;
  call->timer_closed = true;
  maybe_closed(call);
}

void tress_agones_http_close(tress_agones_http_call *call) {
  if (call->closing) return;
  call->closing = true;
  if (call->busy) fail(call);
  uv_timer_stop(&call->deadline);
  uv_close((uv_handle_t *)&call->deadline, on_timer_closed);
}
