/* bench/server_load.c - tress-server under load, on loopback, with bounded counts and time.
 *
 * Starts a real tress-server (TRESS_SERVER_BIN, or ../server/tress-server next to this binary)
 * with ephemeral ports and a scratch cache, and drives it with ENet bots from one client host:
 *   1. join-to-bind latency, cache miss: a new bot connects, says HELLO, joins, spawns a sample
 *      character whose rig options no earlier spawn used (a new cache key), and waits for BIND;
 *   2. the same, cache hit: every bot spawns the same, already rigged, hair;
 *   3. rigs per second: a burst of spawns with distinct keys, first send to last BIND;
 *   4. peers held: bots connect (HELLO + JOIN, rooms of 50; each room's first bot spawns, so every
 *      bot receives one character: added, rig result, bind), then everyone idles for 5 s;
 *      reports how many are connected and bound, the time, and the server's RSS.
 * Figures are printed, never asserted. Usage: server_load [--peers N] [--samples N]
 */
#include <enet/enet.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tress/codec.h"
#include "tress/manifest_json.h"
#include "tress/msg.h"
#include "bench_env.h"

typedef struct bot {
  ENetPeer *peer;
  int state; /* 0 connecting, 1 connected, 2 welcomed, 3 joined, 4 bound, -1 gone */
  double t_start, t_bound;
  uint32_t binds;
  int room;    /* JOIN_ROOM "bench-<room>" */
  bool leader; /* spawns the room's one character */
} bot;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_msg(ENetPeer *peer, const tress_msg *m) {
  static uint8_t buf[1 << 16];
  size_t len = 0;
  tress_wire_error err;
  if (tress_msg_encode(m, buf, sizeof buf, &len, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "encode: %s\n", err.message);
    exit(1);
  }
  enet_peer_send(peer, 0, enet_packet_create(buf, len, ENET_PACKET_FLAG_RELIABLE));
}

static void send_hello(bot *b) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_HELLO;
  m.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  snprintf(m.hello.client_name, sizeof m.hello.client_name, "bench");
  send_msg(b->peer, &m);
}

static void send_join(bot *b, int room) {
  tress_msg m;
  memset(&m, 0, sizeof m);
  m.type = TRESS_MSG_JOIN_ROOM;
  snprintf(m.join_room.room, sizeof m.join_room.room, "bench-%d", room);
  send_msg(b->peer, &m);
}

typedef struct bench {
  ENetHost *host;
  bot *bots;
  int bot_count;
  tress_wire_manifest manifest;
} bench;

/* Services the host once (up to wait_ms), advancing each bot's state machine. */
static void pump(bench *B, int wait_ms, const tress_msg *spawn_template) {
  ENetEvent ev;
  int waited = 0;
  while (enet_host_service(B->host, &ev, waited ? 0 : (enet_uint32)wait_ms) > 0) {
    waited = 1;
    bot *b = ev.peer->data;
    if (!b) {
      if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
      continue;
    }
    if (ev.type == ENET_EVENT_TYPE_CONNECT) {
      b->state = 1;
      send_hello(b);
    } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
      b->state = -1;
    } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
      tress_msg m;
      if (tress_msg_decode(ev.packet->data, ev.packet->dataLength, &m, NULL) == TRESS_WIRE_OK) {
        if (m.type == TRESS_MSG_WELCOME) {
          b->state = 2;
          send_join(b, b->room);
        } else if (m.type == TRESS_MSG_ROOM_JOINED) {
          b->state = 3;
          /* In rooms, only each room's first bot spawns; everyone gets that character's BIND. */
          if (spawn_template && b->leader) send_msg(b->peer, spawn_template);
        } else if (m.type == TRESS_MSG_BIND) {
          b->binds++;
          if (b->state == 3) {
            b->state = 4;
            b->t_bound = now_s();
          }
        }
        tress_msg_free(&m);
      }
      enet_packet_destroy(ev.packet);
    }
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p) {
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  int i = (int)(p * (n - 1) + 0.5);
  return v[i];
}

static bot *new_bot(bench *B, ENetAddress *addr, int room, bool leader) {
  bot *b = &B->bots[B->bot_count++];
  memset(b, 0, sizeof *b);
  b->room = room;
  b->leader = leader;
  b->t_start = now_s();
  b->peer = enet_host_connect(B->host, addr, TRESS_CHANNEL_COUNT, 0);
  if (!b->peer) {
    b->state = -1;
    return b;
  }
  b->peer->data = b;
  enet_peer_timeout(b->peer, 0, 10000, 30000);
  return b;
}

/* One bot at a time: connect .. BIND, with the given spawn. Returns seconds or -1. */
static double join_to_bind(bench *B, ENetAddress *addr, const tress_msg *spawn) {
  static int room;
  bot *b = new_bot(B, addr, 100000 + room++, true); /* a room of its own */
  double deadline = now_s() + 30;
  while (b->state >= 0 && b->state != 4 && now_s() < deadline) pump(B, 1, spawn);
  double t = b->state == 4 ? b->t_bound - b->t_start : -1;
  if (b->peer) enet_peer_disconnect(b->peer, 0);
  pump(B, 5, NULL);
  return t;
}

static long server_rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  bench_env_print(stdout, "bench/server_load");
  bench_env_print_yardstick(stdout);
  int target_peers = 1000, samples = 30;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--peers") == 0) target_peers = atoi(argv[++i]);
    else if (strcmp(argv[i], "--samples") == 0) samples = atoi(argv[++i]);
  }
  if (target_peers < 1) target_peers = 1;
  if (samples < 2) samples = 2;
  if (samples > 60) samples = 60;
  char server_bin[1024];
  if (getenv("TRESS_SERVER_BIN")) snprintf(server_bin, sizeof server_bin, "%s", getenv("TRESS_SERVER_BIN"));
  else {
    snprintf(server_bin, sizeof server_bin, "%s", argv[0]);
    char *slash = strrchr(server_bin, '/');
    if (slash) *slash = '\0';
    else snprintf(server_bin, sizeof server_bin, ".");
    strncat(server_bin, "/../server/tress-server", sizeof server_bin - strlen(server_bin) - 1);
  }
  const char *src = getenv("TRESS_SOURCE_DIR") ? getenv("TRESS_SOURCE_DIR") : ".";
  char dir[] = "/tmp/tress-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char assets[1024], cache[64], ports[64], log[64], manifest_path[1200], peers_flag[16];
  snprintf(assets, sizeof assets, "%s/assets", src);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(ports, sizeof ports, "%s/ports", dir);
  snprintf(log, sizeof log, "%s/server.log", dir);
  snprintf(manifest_path, sizeof manifest_path, "%s/characters/kit.json", assets);
  snprintf(peers_flag, sizeof peers_flag, "%d", target_peers + 16);

  pid_t pid = fork();
  if (pid == 0) {
    FILE *lf = freopen(log, "w", stderr);
    (void)lf;
    execl(server_bin, server_bin, "--host", "127.0.0.1", "--port", "0", "--http-port", "0", "--assets", assets,
          "--cache", cache, "--port-file", ports, "--max-peers", peers_flag, "--max-room-peers", "50",
          "--max-characters-per-peer", "200", "--max-rigs-per-peer", "1000", "--max-messages-per-second", "1000", "--log-level", "warn", (char *)NULL);
    _exit(127);
  }
  unsigned udp = 0, http = 0;
  for (int i = 0; i < 2000 && udp == 0; i++) {
    FILE *f = fopen(ports, "r");
    if (f) {
      if (fscanf(f, "udp=%u http=%u", &udp, &http) != 2) udp = 0;
      fclose(f);
    }
    usleep(5000);
  }
  if (!udp) {
    fprintf(stderr, "server did not start (%s); log %s\n", server_bin, log);
    kill(pid, SIGKILL);
    return 1;
  }
  enet_initialize();
  bench B;
  memset(&B, 0, sizeof B);
  B.bots = calloc((size_t)(target_peers + 4 * samples + 256), sizeof *B.bots);
  B.host = enet_host_create(NULL, (size_t)(target_peers + 4 * samples + 256), TRESS_CHANNEL_COUNT, 0, 0);
  /* One client socket carries every bot: give it room for bursts (the kernel caps this at
   * rmem_max), or a drain's 2 x peers datagrams overflow it and ENet waits out retransmits. */
  enet_socket_set_option(B.host->socket, ENET_SOCKOPT_RCVBUF, 8 << 20);
  enet_socket_set_option(B.host->socket, ENET_SOCKOPT_SNDBUF, 8 << 20);
  ENetAddress addr;
  enet_address_set_host_ip(&addr, "127.0.0.1");
  addr.port = (enet_uint16)udp;
  tress_error err = {0};
  tress_msg spawn;
  memset(&spawn, 0, sizeof spawn);
  spawn.type = TRESS_MSG_SPAWN_CHARACTER;
  spawn.spawn_character.request_id = 1;
  if (tress_manifest_json_load(manifest_path, &spawn.spawn_character.manifest, &err) != 0) {
    fprintf(stderr, "%s: %s\n", manifest_path, err.message);
    kill(pid, SIGKILL);
    return 1;
  }
  tress_wire_manifest *mf = &spawn.spawn_character.manifest;
  mf->has_rig_options = true;
  printf("tress-server load bench (loopback, %ld cores online; mesh: %s, ~4k vertices)\n", sysconf(_SC_NPROCESSORS_ONLN),
         mf->accessories[0].mesh_asset_id);

  /* 1. cache miss: a distinct (sectors, segments) per sample = a distinct cache key. */
  double miss[64], hit[64];
  int nm = 0, nh = 0;
  for (int i = 0; i < samples; i++) {
    mf->rig_options = tress_default_wire_rig_options();
    mf->rig_options.sectors = (uint8_t)(1 + i % 8);
    mf->rig_options.segments = (uint8_t)(2 + i / 8);
    double t = join_to_bind(&B, &addr, &spawn);
    if (t >= 0) miss[nm++] = t;
  }
  /* 2. cache hit: the default options, rigged once first. */
  mf->rig_options = tress_default_wire_rig_options();
  mf->rig_options.sectors = 5; /* (5, 12): a key phase 1 never used */
  mf->rig_options.segments = 12;
  join_to_bind(&B, &addr, &spawn);
  for (int i = 0; i < samples; i++) {
    double t = join_to_bind(&B, &addr, &spawn);
    if (t >= 0) hit[nh++] = t;
  }
  printf("join-to-bind, cache miss: n=%d p50=%.2f ms p99=%.2f ms\n", nm, 1e3 * pct(miss, nm, 0.5), 1e3 * pct(miss, nm, 0.99));
  printf("join-to-bind, cache hit:  n=%d p50=%.2f ms p99=%.2f ms\n", nh, 1e3 * pct(hit, nh, 0.5), 1e3 * pct(hit, nh, 0.99));

  /* 3. rigs per second: one bot, a burst of distinct keys (3 meshes x options). */
  {
    bot *b = new_bot(&B, &addr, 99999, true);
    while (b->state >= 0 && b->state != 3) pump(&B, 1, NULL);
    const char *meshes[] = {"meshes/hair_bob.glb", "meshes/hair_long.glb", "meshes/hair_ponytail.glb"};
    int burst = 0;
    double t0 = now_s();
    for (int m = 0; m < 3; m++)
      for (int k = 0; k < 16; k++) {
        snprintf(mf->accessories[0].mesh_asset_id, sizeof mf->accessories[0].mesh_asset_id, "%s", meshes[m]);
        mf->rig_options = tress_default_wire_rig_options();
        mf->rig_options.sectors = (uint8_t)(9 + k % 4);
        mf->rig_options.segments = (uint8_t)(3 + k / 4);
        send_msg(b->peer, &spawn);
        burst++;
      }
    double deadline = now_s() + 120;
    while ((int)b->binds < burst && now_s() < deadline) pump(&B, 1, NULL);
    double dt = now_s() - t0;
    printf("rigs per second: %d rigs (distinct keys, 3 meshes) in %.3f s = %.1f rigs/s (libuv pool, default 4 threads)\n",
           (int)b->binds, dt, b->binds / dt);
    enet_peer_disconnect(b->peer, 0);
    snprintf(mf->accessories[0].mesh_asset_id, sizeof mf->accessories[0].mesh_asset_id, "meshes/hair_ponytail.glb");
  }

  /* 4. peers held: connect in waves of 100, each bot joins a room of 50 and spawns (cache hit). */
  mf->rig_options = tress_default_wire_rig_options();
  int first = B.bot_count;
  double t0 = now_s();
  while (B.bot_count - first < target_peers && now_s() - t0 < 60) {
    int wave = target_peers - (B.bot_count - first);
    if (wave > 100) wave = 100;
    for (int i = 0; i < wave; i++) {
      int k = B.bot_count - first;
      new_bot(&B, &addr, k / 50, k % 50 == 0);
    }
    double until = now_s() + 0.3;
    while (now_s() < until) pump(&B, 1, &spawn);
  }
  double deadline = now_s() + 30;
  int bound = 0;
  while (now_s() < deadline) {
    pump(&B, 1, &spawn);
    bound = 0;
    for (int i = first; i < B.bot_count; i++) bound += B.bots[i].state == 4;
    if (bound == B.bot_count - first) break;
  }
  double t_all = now_s() - t0;
  double idle_until = now_s() + 5;
  while (now_s() < idle_until) pump(&B, 1, NULL);
  int alive = 0;
  for (int i = first; i < B.bot_count; i++) alive += B.bots[i].state == 4;
  printf("peers held: %d/%d bots connected+joined+bound in %.2f s; %d still connected after 5 s idle; server RSS %ld kB\n",
         bound, B.bot_count - first, t_all, alive, server_rss_kb(pid));
  char cmd[256];
  snprintf(cmd, sizeof cmd, "curl -s localhost:%u/stats 2>/dev/null | head -c 600; echo", http);
  if (system(cmd) != 0) printf("(no /stats)\n");

  kill(pid, SIGTERM);
  double ts = now_s();
  while (now_s() - ts < 15) {
    pump(&B, 1, NULL);
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      printf("SIGTERM with %d peers connected: exit %d after %.2f s\n", alive,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, now_s() - ts);
      break;
    }
  }
  snprintf(cmd, sizeof cmd, "grep -h shutdown %s | cut -c1-200", log);
  if (system(cmd) != 0) printf("(no shutdown log lines)\n");
  enet_host_destroy(B.host);
  tress_manifest_json_free(mf);
  free(B.bots);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return 1;
  return 0;
}
