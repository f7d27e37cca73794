/* client_uv.c - drives a client's network from a libuv loop: a uv_poll_t wakes service() when
 * the ENet socket is readable, and a 10 ms timer covers ENet's resends and pings, the connect
 * timeout and the reconnect backoff (which have no socket event). The socket appears on the
 * first connect, so the timer starts the poll once there is one.
 *
 * The handles live in one heap block that their close callbacks free, so detaching never
 * waits for the loop and a client can be destroyed right after detach. */
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "client_internal.h"

#define CLIENT_UV_TICK_MS 10

typedef struct client_uv {
  uv_poll_t poll;
  uv_timer_t timer;
  tress_client *client; /* NULL once detached */
  bool polling;
  int poll_fd;
  int open_handles;
} client_uv;

static void on_closed(uv_handle_t *h) {
  client_uv *u = h->data;
  if (--u->open_handles == 0) free(u);
}

static void on_readable(uv_poll_t *p, int status, int events) {
  (void)status, (void)events;
  client_uv *u = p->data;
  if (u->client) tress_client_service(u->client);
}

static void on_tick(uv_timer_t *t) {
  client_uv *u = t->data;
  if (!u->client) return;
  int fd = tress_client_get_socket(u->client);
  if (!u->polling && fd >= 0) {
    if (uv_poll_init_socket(t->loop, &u->poll, fd) == 0) {
      u->poll.data = u;
      u->open_handles++;
      u->polling = uv_poll_start(&u->poll, UV_READABLE, on_readable) == 0;
      u->poll_fd = fd;
    }
  }
  tress_client_service(u->client);
}

tress_result tress_client_attach_loop(tress_client *c, struct uv_loop_s *loop) {
  if (!c || !loop) return TRESS_ERR_INVALID_ARGUMENT;
  tress_client_detach_loop(c);
  client_uv *u = calloc(1, sizeof *u);
  if (!u) return TRESS_ERR_OUT_OF_MEMORY;
  u->client = c;
  u->poll_fd = -1;
  int r = uv_timer_init(loop, &u->timer);
  if (r != 0) {
    free(u);
    snprintf(c->last_error, sizeof c->last_error, "attach loop: uv_timer_init: %s", uv_strerror(r));
    return r == UV_ENOMEM ? TRESS_ERR_OUT_OF_MEMORY : TRESS_ERR_NETWORK;
  }
  u->timer.data = u;
  u->open_handles = 1;
  c->uv = u;
  /* a timer on an initialised loop handle does not fail to start (libuv returns 0 unless closing) */
  uv_timer_start(&u->timer, on_tick, 0, CLIENT_UV_TICK_MS);
  return TRESS_OK;
}

void tress_client_detach_loop(tress_client *c) {
  if (!c || !c->uv) return;
  client_uv *u = c->uv;
  c->uv = NULL;
  u->client = NULL;
  uv_timer_stop(&u->timer);
  uv_close((uv_handle_t *)&u->timer, on_closed);
  if (u->open_handles > 1) {
    uv_poll_stop(&u->poll);
    uv_close((uv_handle_t *)&u->poll, on_closed);
  }
}
