/* http_deadline.h - a whole-header deadline for the ops HTTP port. libmicrohttpd's own timeout is
 * an idle timeout: a client that sends one header byte every few seconds (slowloris) keeps its
 * connection for ever. This table remembers when each connection was accepted; a watchdog thread
 * cuts (shutdown(2)) the ones whose request header is still incomplete past the deadline. */
#ifndef TRESS_SERVER_HTTP_DEADLINE_H
#define TRESS_SERVER_HTTP_DEADLINE_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct tress_http_deadlines tress_http_deadlines;
typedef struct tress_http_deadline_slot tress_http_deadline_slot;

/* capacity: connections watched at once (more are served but not watched). Each cut adds one to
 * *cut_count. NULL when out of memory or the thread does not start. */
tress_http_deadlines *tress_http_deadlines_start(uint32_t capacity, uint32_t header_timeout_ms,
                                                 atomic_uint_fast64_t *cut_count);
/* Joins the watchdog; call after the HTTP daemon has stopped (every connection closed). */
void tress_http_deadlines_stop(tress_http_deadlines *d);
/* A connection was accepted on socket fd: its slot, or NULL when the table is full. */
tress_http_deadline_slot *tress_http_deadlines_watch(tress_http_deadlines *d, int fd);
/* Its request header arrived in full: the deadline no longer applies. slot may be NULL. */
void tress_http_deadlines_header_done(tress_http_deadlines *d, tress_http_deadline_slot *slot);
/* The connection is closing (before its socket is closed): forget it. slot may be NULL. */
void tress_http_deadlines_forget(tress_http_deadlines *d, tress_http_deadline_slot *slot);

#endif
