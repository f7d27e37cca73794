/* Integration harness: a real server process and real ENet clients. Nothing here fakes the
 * server; helpers only spawn it, wait for its port file, and speak the wire through the codec. */
#include "support/server_harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tress/manifest_json.h"

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *th_source_dir(void) {
  const char *d = getenv("TRESS_SOURCE_DIR");
  return d ? d : ".";
}

void th_server_init(th_server *s, const char *tag) {
  memset(s, 0, sizeof *s);
  snprintf(s->dir, sizeof s->dir, "/tmp/tress-it-%s-XXXXXX", tag);
  if (!mkdtemp(s->dir)) {
    perror("mkdtemp");
    abort();
  }
  snprintf(s->assets, sizeof s->assets, "%s/assets", th_source_dir());
  snprintf(s->cache, sizeof s->cache, "%s/cache", s->dir);
  snprintf(s->log_path, sizeof s->log_path, "%s/server.log", s->dir);
  snprintf(s->port_file, sizeof s->port_file, "%s/ports", s->dir);
}

int th_server_start(th_server *s, const char *const *extra) {
  const char *bin = getenv("TRESS_SERVER_BIN");
  if (!bin) {
    fprintf(stderr, "TRESS_SERVER_BIN is not set\n");
    return -1;
  }
  unlink(s->port_file);
  const char *argv[64];
  int n = 0;
  argv[n++] = bin;
  argv[n++] = "--host";
  argv[n++] = "127.0.0.1";
  argv[n++] = "--port";
  argv[n++] = "0";
  argv[n++] = "--http-port";
  argv[n++] = "0";
  argv[n++] = "--assets";
  argv[n++] = s->assets;
  argv[n++] = "--cache";
  argv[n++] = s->cache;
  argv[n++] = "--port-file";
  argv[n++] = s->port_file;
  for (int i = 0; extra && extra[i] && n < 62; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 2);
      dup2(fd, 1);
    }
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  s->pid = pid;
  uint64_t deadline = now_ms() + 20000;
  while (now_ms() < deadline) {
    FILE *f = fopen(s->port_file, "r");
    if (f) {
      unsigned udp = 0, http = 0;
      int got = fscanf(f, "udp=%u http=%u", &udp, &http);
      fclose(f);
      if (got == 2) {
        s->udp_port = (uint16_t)udp;
        s->http_port = (uint16_t)http;
        return 0;
      }
    }
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      s->pid = 0;
      fprintf(stderr, "server exited early; log %s\n", s->log_path);
      return -1;
    }
    usleep(10000);
  }
  return -1;
}

int th_server_stop(th_server *s, int sig, int timeout_ms) {
  if (s->pid <= 0) return -1;
  if (sig) kill(s->pid, sig);
  uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(s->pid, &status, WNOHANG);
    if (r == s->pid) break;
    if (now_ms() > deadline) {
      kill(s->pid, SIGKILL);
      waitpid(s->pid, &status, 0);
      s->pid = 0;
      return -1;
    }
    usleep(5000);
  }
  s->pid = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int th_server_log_count(const th_server *s, const char *needle) {
  FILE *f = fopen(s->log_path, "r");
  if (!f) return 0;
  char line[4096];
  int count = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, needle)) count++;
  fclose(f);
  return count;
}

void th_server_cleanup(th_server *s) {
  if (s->pid > 0) th_server_stop(s, SIGKILL, 2000);
  if (getenv("TRESS_KEEP_TEST_DIRS")) return;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", s->dir);
}

int th_http_get(uint16_t port, const char *path, char **body) {
  return th_http_request("127.0.0.1", port, path, NULL, body);
}

int th_http_request(const char *host, uint16_t port, const char *path, const char *extra_headers, char **body) {
  if (body) *body = NULL;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  char req[1024];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: localhost\r\n%s\r\n", path,
                   extra_headers ? extra_headers : "");
  if (n < 0 || n >= (int)sizeof req || write(fd, req, (size_t)n) != n) {
    close(fd);
    return -1;
  }
  size_t cap = 65536, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 4096 > cap) buf = realloc(buf, cap *= 2);
    ssize_t r = read(fd, buf + len, cap - len - 1);
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(fd);
  buf[len] = '\0';
  int status = -1;
  if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) status = -1;
  char *sep = strstr(buf, "\r\n\r\n");
  if (body && sep) *body = strdup(sep + 4);
  free(buf);
  return status;
}

double th_metric(uint16_t http_port, const char *series) {
  char *body = NULL;
  if (th_http_get(http_port, "/metrics", &body) != 200 || !body) {
    free(body);
    return -1;
  }
  double v = -1;
  size_t sl = strlen(series);
  for (char *line = body; line && *line;) {
    char *next = strchr(line, '\n');
    if (strncmp(line, series, sl) == 0 && line[sl] == ' ') {
      v = strtod(line + sl + 1, NULL);
      break;
    }
    line = next ? next + 1 : NULL;
  }
  free(body);
  return v;
}

static void collect(th_client *c, ENetEvent *ev) {
  if (ev->type == ENET_EVENT_TYPE_CONNECT) c->connected = true;
  else if (ev->type == ENET_EVENT_TYPE_DISCONNECT) c->disconnected = true;
  else if (ev->type == ENET_EVENT_TYPE_RECEIVE) {
    c->packets_received++;
    c->bytes_received += ev->packet->dataLength;
    if (c->inbox_count < TH_MAX_INBOX) {
      tress_wire_error err;
      if (tress_msg_decode(ev->packet->data, ev->packet->dataLength, &c->inbox[c->inbox_count], &err) == TRESS_WIRE_OK)
        c->inbox_count++;
      else
        c->decode_failures++;
    }
    enet_packet_destroy(ev->packet);
  }
}

void th_client_pump(th_client *c, int ms) {
  uint64_t deadline = now_ms() + (uint64_t)(ms > 0 ? ms : 0);
  ENetEvent ev;
  do {
    while (enet_host_service(c->host, &ev, 0) > 0) collect(c, &ev);
    if (ms > 0) {
      int64_t left = (int64_t)(deadline - now_ms());
      if (left > 0 && enet_host_service(c->host, &ev, (enet_uint32)(left < 5 ? left : 5)) > 0) collect(c, &ev);
    }
  } while (now_ms() < deadline);
}

int th_client_connect(th_client *c, uint16_t port) {
  memset(c, 0, sizeof *c);
  static int enet_ready;
  if (!enet_ready) {
    if (enet_initialize() != 0) return -1;
    enet_ready = 1;
  }
  c->host = enet_host_create(NULL, 1, TRESS_CHANNEL_COUNT, 0, 0);
  if (!c->host) return -1;
  ENetAddress a;
  enet_address_set_host_ip(&a, "127.0.0.1");
  a.port = port;
  c->peer = enet_host_connect(c->host, &a, TRESS_CHANNEL_COUNT, 0);
  if (!c->peer) return -1;
  uint64_t deadline = now_ms() + 5000;
  while (!c->connected && now_ms() < deadline) th_client_pump(c, 10);
  return c->connected ? 0 : -1;
}

int th_client_send(th_client *c, const tress_msg *m) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  uint8_t *buf = malloc(cap ? cap : 1);
  tress_wire_error err;
  if (tress_msg_encode(m, buf, cap, &len, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "encode failed: %s\n", err.message);
    free(buf);
    return -1;
  }
  int rc = th_client_send_raw(c, buf, len, (uint8_t)tress_msg_type_get_channel(m->type));
  free(buf);
  return rc;
}

int th_client_send_raw(th_client *c, const void *bytes, size_t len, uint8_t channel) {
  ENetPacket *p = enet_packet_create(bytes, len, ENET_PACKET_FLAG_RELIABLE);
  if (!p) return -1;
  if (enet_peer_send(c->peer, channel, p) != 0) { /* e.g. the server already disconnected us */
    enet_packet_destroy(p);
    return -1;
  }
  enet_host_flush(c->host);
  return 0;
}

const tress_msg *th_client_wait(th_client *c, tress_msg_type type, int timeout_ms) {
  uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
  for (;;) {
    for (uint32_t i = c->taken; i < c->inbox_count; i++) {
      if (c->inbox[i].type == type) {
        c->taken = i + 1;
        return &c->inbox[i];
      }
    }
    if (now_ms() >= deadline) return NULL;
    th_client_pump(c, 5);
  }
}

uint32_t th_client_count(const th_client *c, tress_msg_type type) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->inbox_count; i++) n += c->inbox[i].type == type;
  return n;
}

int th_client_hello_join(th_client *c, const char *name, const char *room) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  m.hello.version_minor = TRESS_PROTOCOL_VERSION_MINOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "%s", name);
  if (th_client_send(c, &m) != 0) return -1;
  const tress_msg *w = th_client_wait(c, TRESS_MSG_WELCOME, 5000);
  if (!w) return -1;
  c->peer_id = w->welcome.peer_id;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "%s", room);
  if (th_client_send(c, &m) != 0) return -1;
  return th_client_wait(c, TRESS_MSG_ROOM_JOINED, 5000) ? 0 : -1;
}

void th_client_close(th_client *c) {
  if (c->peer && !c->disconnected) {
    enet_peer_disconnect(c->peer, 0);
    uint64_t deadline = now_ms() + 1000;
    while (!c->disconnected && now_ms() < deadline) th_client_pump(c, 10);
    if (!c->disconnected) enet_peer_reset(c->peer);
  }
  for (uint32_t i = 0; i < c->inbox_count; i++) tress_msg_free(&c->inbox[i]);
  c->inbox_count = 0;
  if (c->host) enet_host_destroy(c->host);
  c->host = NULL;
  c->peer = NULL;
}

th_client *th_client_joined(const th_server *s, const char *name, const char *room) {
  th_client *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (th_client_connect(c, s->udp_port) != 0 || th_client_hello_join(c, name, room) != 0) {
    th_client_drop(c);
    return NULL;
  }
  return c;
}

void th_client_drop(th_client *c) {
  if (!c) return;
  th_client_close(c);
  free(c);
}

int th_write_hair_tube_obj(const char *path, int rings, int around) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  for (int r = 0; r < rings; r++)
    for (int a = 0; a < around; a++) {
      float t = 6.2831853f * (float)a / (float)around, y = 1.0f - 2.0f * (float)r / (float)(rings - 1);
      float radius = 0.8f * (1.0f + 0.05f * sinf(12.0f * t + 0.1f * (float)r));
      fprintf(f, "v %.5f %.5f %.5f\n", radius * cosf(t), y, radius * sinf(t));
    }
  for (int r = 0; r + 1 < rings; r++)
    for (int a = 0; a < around; a++) {
      int i0 = r * around + a + 1, i1 = r * around + (a + 1) % around + 1;
      fprintf(f, "f %d %d %d\nf %d %d %d\n", i0, i0 + around, i1, i1, i0 + around, i1 + around);
    }
  return fclose(f) == 0 ? 0 : -1;
}

int th_spawn_load(tress_msg *spawn, const char *character_file, uint32_t request_id) {
  memset(spawn, 0, sizeof *spawn);
  char path[512];
  tress_error err = {0};
  snprintf(path, sizeof path, "%s/assets/characters/%s", th_source_dir(), character_file);
  spawn->type = TRESS_MSG_SPAWN_CHARACTER;
  spawn->spawn_character.request_id = request_id;
  if (tress_manifest_json_load(path, &spawn->spawn_character.manifest, &err) != 0) {
    fprintf(stderr, "%s: %s\n", path, err.message);
    return -1;
  }
  return 0;
}

void th_spawn_free(tress_msg *spawn) { tress_manifest_json_free(&spawn->spawn_character.manifest); }

int th_msg_clone(const tress_msg *m, tress_msg *out) {
  size_t cap = tress_msg_get_encode_bound(m), len = 0;
  uint8_t *buf = malloc(cap ? cap : 1);
  tress_wire_error err;
  int rc = -1;
  if (buf && tress_msg_encode(m, buf, cap, &len, &err) == TRESS_WIRE_OK &&
      tress_msg_decode(buf, len, out, &err) == TRESS_WIRE_OK)
    rc = 0;
  free(buf);
  return rc;
}
