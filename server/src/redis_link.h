/* redis_link.h - one hiredis connection on the server's libuv loop, where every call has its own
 * deadline: a slow, stopped or vanished Redis fails calls on time instead of stalling anyone,
 * and the link reconnects by itself (with backoff) and says when it is down. Loop thread only. */
#ifndef TRESS_SERVER_REDIS_LINK_H
#define TRESS_SERVER_REDIS_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "log.h"
#include "metrics.h"
#include "redis_url.h"

struct redisReply;
typedef struct tress_redis_link tress_redis_link;
typedef struct tress_redis_call tress_redis_call;

/* reply NULL: the call failed (deadline passed, connection lost, link stopped) and error says
 * why; an error reply from Redis comes as a reply of type REDIS_REPLY_ERROR. */
typedef void (*tress_redis_reply_fn)(void *user, const struct redisReply *reply, const char *error);

/* Starts connecting at once (and again after every failure). NULL when out of memory. */
tress_redis_link *tress_redis_link_start(uv_loop_t *loop, const tress_redis_url *url, uint32_t timeout_ms,
                                         const tress_log *log, tress_metrics *metrics);
/* Fails every pending call, closes the connection and the link's handles; frees the link once
 * the loop has closed them. */
void tress_redis_link_stop(tress_redis_link *link);
bool tress_redis_link_up(const tress_redis_link *link);
/* The shared tier is not doing its job: the link is down, or Redis refused the last write (OOM).
 * Shown as tress_cache_shared_degraded; every change is logged. */
void tress_redis_link_set_write_refused(tress_redis_link *link, bool refused, const char *why);

/* Sends one command (binary-safe argv) that must be answered within the link's timeout. NULL
 * when the link is not up, and then fn is never called; else fn is called exactly once, from the
 * loop, unless the call is forgotten first. */
tress_redis_call *tress_redis_link_call(tress_redis_link *link, tress_redis_reply_fn fn, void *user, int argc,
                                        const char **argv, const size_t *argvlen);
/* The caller no longer wants the answer (its owner is going away): fn will not be called. */
void tress_redis_call_forget(tress_redis_call *call);

#endif
