/* room_lease.h - one room on one server across a fleet. With cache_url, every open room holds a
 * lease in the shared Redis ("<cache_namespace>:room:<room name>" = this server's advertised
 * host:port, SET NX PX room_lease_ms, renewed every third of it while the room is open, released
 * by compare-and-delete when it closes). A JOIN_ROOM for a room another server holds is answered
 * with REDIRECT (PROTOCOL.md 4.15). Redis unreachable: rooms open here, standalone, and the
 * server shows degraded (the link's gauge). Loop thread only. */
#ifndef TRESS_SERVER_ROOM_LEASE_H
#define TRESS_SERVER_ROOM_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "redis_link.h"

struct tress_server;
typedef struct tress_room_lease tress_room_lease;

/* After the ENet bind (the default advertised port is the bound one). NULL when out of memory
 * or when the advertised address cannot be made (err says why). */
tress_room_lease *tress_room_lease_start(struct tress_server *s, tress_redis_link *link, char err[256]);
/* Forgets every pending call; leases still held expire by themselves (rooms close first on a drain). */
void tress_room_lease_stop(tress_room_lease *lease);
/* "host:port" as REDIRECT names this server. */
const char *tress_room_lease_address(const tress_room_lease *lease);
/* The address clients reach this server at changed (Agones' status.address and port). Joins
 * claim with it from now on; leases held under the previous value are still ours (CLAIM and
 * RELEASE accept both) and are rewritten to the new one at their next renewal. NULL lease: no-op. */
void tress_room_lease_set_advertised(tress_room_lease *lease, const char *host, uint16_t port);

/* room.c's hooks. admit: may this JOIN_ROOM go on now? false: it was answered (REDIRECT or an
 * ERROR) or waits for Redis, and the lease calls tress_room_join again once it may. */
bool tress_room_lease_admit(struct tress_server *s, uint32_t slot, const char *room);
void tress_room_lease_opened(struct tress_server *s, int32_t room);
void tress_room_lease_closed(struct tress_server *s, int32_t room);
/* The peer is leaving: an answer for its pending join is dropped. */
void tress_room_lease_forget_join(struct tress_server *s, uint32_t slot);

#endif
