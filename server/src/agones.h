/* agones.h - the game server's side of Agones, over the SDK sidecar's REST API, active only when
 * AGONES_SDK_HTTP_PORT is set: Ready (retried until the sidecar answers), health pings from the
 * loop at the GameServer's period, the GameServer watch stream, the `rooms` Counter and List, a
 * version label, and Shutdown once the drain is over. */
#ifndef TRESS_AGONES_H
#define TRESS_AGONES_H

#include <stdint.h>

#define TRESS_AGONES_PORT_ENV "AGONES_SDK_HTTP_PORT"
#define TRESS_AGONES_ROOMS "rooms"               /* the Counter's and the List's name */
#define TRESS_AGONES_PORT_NAME "enet"            /* deploy/fleet.yaml's port: the one advertised */
#define TRESS_AGONES_VERSION_LABEL "tress-version" /* the sidecar prefixes it with agones.dev/sdk- */

struct tress_server;
typedef struct tress_agones tress_agones;

/* After the ENet bind. NULL when AGONES_SDK_HTTP_PORT is unset (standalone), or when it is not a
 * port (logged: the server then runs standalone too). */
tress_agones *tress_agones_start(struct tress_server *s);
/* A room opened or closed: the Counter and the List follow (coalesced, one request at a time). */
void tress_agones_rooms_changed(tress_agones *a);
/* The drain is over: POST /shutdown (with a deadline), then every handle closes and a is freed.
 * NULL is a no-op. */
void tress_agones_shutdown(tress_agones *a);

#endif
