/* server_harness.h - integration test helpers: run a real tress-server on loopback with
 * ephemeral ports, talk to it with real ENet clients through the codec, scrape its HTTP. */
#ifndef TRESS_SERVER_HARNESS_H
#define TRESS_SERVER_HARNESS_H

#include <enet/enet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tress/codec.h"
#include "tress/msg.h"

typedef struct th_server {
  pid_t pid;
  char dir[256];        /* scratch directory of this run (cache, logs, port file) */
  char assets[512];
  char cache[512];
  char log_path[600];
  char port_file[600];
  uint16_t udp_port, http_port;
} th_server;

/* A fresh scratch dir under /tmp; cache = dir/cache; assets = the repo's assets/ unless set. */
void th_server_init(th_server *s, const char *tag);
/* Starts tress-server with the harness flags plus extra (NULL-terminated), waits for the port
 * file. Returns 0 or -1. */
int th_server_start(th_server *s, const char *const *extra);
/* Sends sig and waits up to timeout_ms; returns the exit status (0..255), 128+signal, or -1 on
 * timeout (the process is then killed). */
int th_server_stop(th_server *s, int sig, int timeout_ms);
/* Counts occurrences of needle in the server log. */
int th_server_log_count(const th_server *s, const char *needle);
void th_server_cleanup(th_server *s); /* removes the scratch dir */

/* HTTP: GET path on 127.0.0.1; returns status code (-1: no connection or no HTTP answer), body in
 * malloc'd *body (may be NULL). */
int th_http_get(uint16_t port, const char *path, char **body);
/* The same on host (IPv4 text) with extra_headers ("Name: value\r\n"..., or NULL) in the request. */
int th_http_request(const char *host, uint16_t port, const char *path, const char *extra_headers, char **body);
/* A Prometheus sample's value (exact series text, e.g. "tress_cache_hits_total{tier=\"disk\"}"), -1 if absent. */
double th_metric(uint16_t http_port, const char *series);

/* ---- ENet test client -------------------------------------------------------------------- */

#define TH_MAX_INBOX 4096

typedef struct th_client {
  ENetHost *host;
  ENetPeer *peer;
  bool connected, disconnected;
  uint32_t peer_id;
  tress_msg inbox[TH_MAX_INBOX]; /* every decoded message received, in order */
  uint32_t inbox_count;
  uint32_t taken;                /* th_client_wait scans from here */
  uint64_t packets_received, bytes_received;
  uint32_t decode_failures;
} th_client;

int th_client_connect(th_client *c, uint16_t port);
/* HELLO + wait WELCOME, JOIN_ROOM + wait ROOM_JOINED. */
int th_client_hello_join(th_client *c, const char *name, const char *room);
int th_client_send(th_client *c, const tress_msg *m);
int th_client_send_raw(th_client *c, const void *bytes, size_t len, uint8_t channel);
/* Services the host for ms milliseconds (collecting messages). */
void th_client_pump(th_client *c, int ms);
/* Waits for the next message of `type` after the last taken one; NULL on timeout. */
const tress_msg *th_client_wait(th_client *c, tress_msg_type type, int timeout_ms);
/* Counts messages of type in the whole inbox. */
uint32_t th_client_count(const th_client *c, tress_msg_type type);
void th_client_close(th_client *c);
/* A heap client connected to s and joined to room as name (HELLO, JOIN), or NULL on any failure. */
th_client *th_client_joined(const th_server *s, const char *name, const char *room);
/* Closes and frees a th_client_joined client (NULL is a no-op). */
void th_client_drop(th_client *c);
/* Writes an OBJ tube of hair, rings x around vertices, hanging from y=1 to y=-1 (the rig's cost
 * grows with rings x around: tests use it to keep a rig running for a moment). 0 or -1. */
int th_write_hair_tube_obj(const char *path, int rings, int around);

/* A SPAWN_CHARACTER from assets/characters/<file>; free with th_spawn_free. */
int th_spawn_load(tress_msg *spawn, const char *character_file, uint32_t request_id);
void th_spawn_free(tress_msg *spawn);

const char *th_source_dir(void);
/* A deep copy that outlives the client's inbox (encode + decode); tress_msg_free it. */
int th_msg_clone(const tress_msg *m, tress_msg *out);

#endif
