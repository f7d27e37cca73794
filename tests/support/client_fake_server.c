/* client_fake_server.c - the scripted test server: accepts one client at a time, says WELCOME
 * and ROOM_JOINED, records SPAWN_CHARACTER, and sends test-built (or corrupt) messages. */
#include "support/client_fake_server.h"

#include <stdlib.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/mesh_file.h"
#include "tress/mesh_hash.h"

bool fake_server_start(fake_server *s) {
  memset(s, 0, sizeof *s);
  if (enet_initialize() != 0) return false;
  ENetAddress a;
  enet_address_set_host(&a, "127.0.0.1");
  a.port = 0;
  s->host = enet_host_create(&a, 8, TRESS_CHANNEL_COUNT, 0, 0);
  if (!s->host) return false;
  ENetAddress bound;
  if (enet_socket_get_address(s->host->socket, &bound) != 0) return false;
  s->port = bound.port;
  s->next_peer_id = 1;
  return true;
}

void fake_server_stop(fake_server *s) {
  tress_msg_free(&s->last_spawn);
  if (s->host) enet_host_destroy(s->host);
  s->host = NULL;
  enet_deinitialize();
}

bool fake_server_send_raw(fake_server *s, const uint8_t *bytes, size_t len, uint8_t channel) {
  if (!s->peer) return false;
  ENetPacket *p = enet_packet_create(bytes, len, ENET_PACKET_FLAG_RELIABLE);
  return p && enet_peer_send(s->peer, channel, p) == 0;
}

bool fake_server_send(fake_server *s, const tress_msg *m) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  uint8_t *buf = malloc(cap ? cap : 1);
  tress_wire_error err;
  bool ok = buf && tress_msg_encode(m, buf, cap, &len, &err) == TRESS_WIRE_OK &&
            fake_server_send_raw(s, buf, len, (uint8_t)tress_msg_type_get_channel(m->type));
  free(buf);
  return ok;
}

static void answer(fake_server *s, const tress_msg *in) {
  tress_msg out;
  memset(&out, 0, sizeof out);
  switch (in->type) {
  case TRESS_MSG_HELLO:
    s->hellos++;
    out.type = TRESS_MSG_WELCOME;
    out.welcome.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
    out.welcome.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
    strcpy(out.welcome.server_version, "fake-server");
    out.welcome.session_id = 7;
    out.welcome.peer_id = s->next_peer_id++;
    out.welcome.limits = tress_default_wire_limits();
    fake_server_send(s, &out);
    return;
  case TRESS_MSG_JOIN_ROOM: {
    s->joins++;
    tress_wire_peer me = {.peer_id = s->next_peer_id - 1};
    strcpy(me.name, "client");
    out.type = TRESS_MSG_ROOM_JOINED;
    strcpy(out.room_joined.room, in->join_room.room);
    out.room_joined.member_count = 1;
    out.room_joined.members = &me;
    fake_server_send(s, &out);
    return;
  }
  case TRESS_MSG_SPAWN_CHARACTER:
    s->spawns++;
    tress_msg_free(&s->last_spawn);
    s->last_spawn = *in; /* takes the arena: the caller must not free it */
    return;
  default: return;
  }
}

static void serve(fake_server *s) {
  ENetEvent ev;
  while (enet_host_service(s->host, &ev, 0) > 0) {
    if (ev.type == ENET_EVENT_TYPE_CONNECT) s->peer = ev.peer;
    if (ev.type == ENET_EVENT_TYPE_DISCONNECT && ev.peer == s->peer) s->peer = NULL;
    if (ev.type != ENET_EVENT_TYPE_RECEIVE) continue;
    tress_msg m;
    if (tress_msg_decode(ev.packet->data, ev.packet->dataLength, &m, NULL) == TRESS_WIRE_OK) {
      answer(s, &m);
      if (m.type != TRESS_MSG_SPAWN_CHARACTER) tress_msg_free(&m);
    }
    enet_packet_destroy(ev.packet);
  }
  enet_host_flush(s->host);
}

void fake_server_pump(fake_server *s, tress_client **clients, int n, int ms) {
  for (int t = 0; t < ms; t++) {
    serve(s);
    for (int i = 0; i < n; i++) tress_client_service_wait(clients[i], i == 0 ? 1 : 0);
  }
  serve(s);
}

bool fake_rig_make(const char *mesh_path, uint32_t character_id, uint8_t accessory_index,
                   fake_rig *r, tress_msg *out) {
  memset(r, 0, sizeof *r);
  memset(out, 0, sizeof *out);
  tress_error err = {0};
  r->source = tress_mesh_file_load(mesh_path, &err);
  if (!r->source) return false;
  tress_rig_opts opts = tress_default_rig_opts();
  if (tress_rig_mesh(r->source, &opts, &r->output, NULL) != TRESS_RIG_OK) return false;
  uint32_t nb = r->output.bone_count, nv = r->source->vertex_count;
  r->bones = calloc(nb, sizeof *r->bones);
  r->joints = calloc(4 * (size_t)nv, 1);
  r->weights = calloc(4 * (size_t)nv, sizeof *r->weights);
  if (!r->bones || !r->joints || !r->weights) return false;
  for (uint32_t b = 0; b < nb; b++) {
    strcpy(r->bones[b].name, r->output.bones[b].name);
    r->bones[b].parent = (int16_t)r->output.bones[b].parent;
    r->bones[b].rest = r->output.bones[b].rest; /* mesh space, as the wire carries bones */
  }
  const tress_mesh *baked = r->output.mesh;
  for (size_t i = 0; i < 4 * (size_t)nv; i++) r->joints[i] = (uint8_t)baked->joints[i];
  tress_skin_quantize(baked->weights, nv, 2, TRESS_WEIGHTS_U16, r->weights);
  out->type = TRESS_MSG_RIG_RESULT;
  tress_msg_rig_result *m = &out->rig_result;
  m->character_id = character_id;
  m->accessory_index = accessory_index;
  tress_mesh_get_content_hash(r->source, m->mesh_hash);
  m->options = tress_default_wire_rig_options();
  m->bone_count = nb;
  m->bones = r->bones;
  m->skin.vertex_count = nv;
  m->skin.influences = 2;
  m->skin.weight_format = TRESS_WEIGHTS_U16;
  m->skin.compression = TRESS_COMPRESSION_NONE;
  m->skin.joints = r->joints;
  m->skin.weights = r->weights;
  return true;
}

void fake_rig_free(fake_rig *r) {
  tress_rig_output_free(&r->output);
  tress_mesh_release(r->source);
  free(r->bones);
  free(r->joints);
  free(r->weights);
  memset(r, 0, sizeof *r);
}
