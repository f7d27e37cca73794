/* client_fake_server.h - a tiny scripted server for client tests: plain ENet + the codec on a
 * loopback ephemeral port, answering HELLO and JOIN_ROOM and sending whatever a test asks. */
#ifndef TRESS_CLIENT_FAKE_SERVER_H
#define TRESS_CLIENT_FAKE_SERVER_H

#include <enet/enet.h>
#include <stdbool.h>
#include <stdint.h>

#include "tress/client.h"
#include "tress/msg.h"
#include "tress/rig.h"

typedef struct fake_server {
  ENetHost *host;
  ENetPeer *peer;       /* the last client that connected */
  uint16_t port;
  uint32_t next_peer_id;
  uint32_t hellos, joins, spawns;
  tress_msg last_spawn; /* decoded, owned */
} fake_server;

bool fake_server_start(fake_server *s);
void fake_server_stop(fake_server *s);
/* Services the server and the clients for about ms milliseconds. */
void fake_server_pump(fake_server *s, tress_client **clients, int n, int ms);
bool fake_server_send(fake_server *s, const tress_msg *m);
bool fake_server_send_raw(fake_server *s, const uint8_t *bytes, size_t len, uint8_t channel);

/* A server-side rig of a mesh file for one accessory, as tress-server would send it. The
 * message points into *storage; free both with fake_rig_free. */
typedef struct fake_rig {
  tress_rig_output output;
  tress_wire_bone *bones;
  uint8_t *joints;
  uint16_t *weights;
  tress_mesh *source;
} fake_rig;
bool fake_rig_make(const char *mesh_path, uint32_t character_id, uint8_t accessory_index,
                   fake_rig *storage, tress_msg *out);
void fake_rig_free(fake_rig *storage);

#endif
