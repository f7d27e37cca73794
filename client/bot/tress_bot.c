/* tress_bot.c - tress-bot, the headless client: K clients in one process, each spawning N
 * characters that walk a scripted path, running the sim at a chosen frame rate, and reporting
 * what was received and simulated. Exit status 1 on any protocol error, a character that never
 * got bound or a rig that fell back to a pendulum (unless --allow-fallback), 2 on bad usage. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "manifest_load.h"
#include "tress/codec.h"
#include "tress/sample_character.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: tress-bot --server HOST:PORT [--room R] [--characters N] [--manifest FILE.json]\n"
          "                 [--fps 30|60|240] [--duration S] [--bots K] [--json] [--dump] [--picture out.png] [--bake out.glb]\n"
          "                 [--token T] [--assets DIR] [--hair ASSET_ID] [--report-tips-at SECONDS]\n"
          "                 [--room-size K] [--allow-fallback] [--join-key FILE]\n"
          "--join-key: mint each bot a signed join token for its room (and a fresh one per reconnect)\n"
          "with the server's key file, instead of sending --token\n"
          "--room-size: bots per room (default 32, under the server's default of 64 peers a room); more bots\n"
          "than that are spread over rooms R-0, R-1, ...\n"
          "       tress-bot --check FILE.json [FILE.json ...]\n"
          "--check: validate character manifests without a server (exit 0 when every file loads, 1 if not)\n"
          "--allow-fallback: a hair whose rig failed and swings as a pendulum does not fail the run\n"
          "--report-tips-at: the world positions of bot 0's first character's chain tips, SECONDS of sim\n"
          "time after its bind (the root motion is a function of time, so any fps sees the same walk)\n");
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t) {
  double d = t - now_seconds();
  if (d <= 0) return;
  struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
  nanosleep(&ts, NULL);
}

static int parse_options(int argc, char **argv, bot_options *o) {
  static char host[256];
  static const struct option longs[] = {
      {"server", required_argument, 0, 's'}, {"room", required_argument, 0, 'r'},
      {"characters", required_argument, 0, 'n'}, {"manifest", required_argument, 0, 'm'},
      {"fps", required_argument, 0, 'f'}, {"duration", required_argument, 0, 'd'},
      {"bots", required_argument, 0, 'k'}, {"json", no_argument, 0, 'j'},
      {"dump", no_argument, 0, 'D'}, {"picture", required_argument, 0, 'p'}, {"bake", required_argument, 0, 'B'},
      {"token", required_argument, 0, 't'}, {"assets", required_argument, 0, 'a'},
      {"hair", required_argument, 0, 'H'}, {"report-tips-at", required_argument, 0, 'T'},
      {"allow-fallback", no_argument, 0, 'F'}, {"room-size", required_argument, 0, 'R'},
      {"join-key", required_argument, 0, 'K'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  o->room = "bots";
  o->token = "";
  o->characters = 1;
  o->fps = 60;
  o->duration = 5.0;
  o->bots = 1;
  o->room_size = 32;
  o->asset_root = "assets";
  int ch;
  while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    switch (ch) {
    case 's': {
      const char *colon = strrchr(optarg, ':');
      if (!colon || colon == optarg || (size_t)(colon - optarg) >= sizeof host) return -1;
      memcpy(host, optarg, (size_t)(colon - optarg));
      host[colon - optarg] = '\0';
      long port = strtol(colon + 1, NULL, 10);
      if (port <= 0 || port > 65535) return -1;
      o->host = host;
      o->port = (uint16_t)port;
      break;
    }
    case 'r': o->room = optarg; break;
    case 'n': o->characters = (uint32_t)strtoul(optarg, NULL, 10); break;
    case 'm': o->manifest_path = optarg; break;
    case 'f': o->fps = atoi(optarg); break;
    case 'd': o->duration = atof(optarg); break;
    case 'k': o->bots = (uint32_t)strtoul(optarg, NULL, 10); break;
    case 'j': o->json = true; break;
    case 'D': o->dump = true; break;
    case 'p': o->picture = optarg; break;
    case 'B': o->bake = optarg; break;
    case 't': o->token = optarg; break;
    case 'a': o->asset_root = optarg; break;
    case 'H': o->hair = optarg; break;
    case 'T': o->report_tips_at = atof(optarg); break;
    case 'F': o->allow_fallback = true; break;
    case 'R': o->room_size = (uint32_t)strtoul(optarg, NULL, 10); break;
    case 'K': o->join_key_path = optarg; break;
    case 'h': usage(stdout); exit(0);
    default: return -1;
    }
  }
  if (!o->host || o->fps <= 0 || o->fps > 1000 || o->duration <= 0 || o->bots == 0 || o->bots > 4096 || o->room_size == 0 || o->room_size > 256 ||
      o->characters > 1024 || o->report_tips_at < 0.0 || (o->report_tips_at > 0.0 && o->characters == 0))
    return -1;
  return 0;
}

/* ---- callbacks ----------------------------------------------------------------------------- */

static void on_error(void *user, tress_client *c, tress_client_error_kind kind, const char *message) {
  (void)c;
  const bot *b = user;
  const char *what = kind == TRESS_CLIENT_ERROR_PROTOCOL ? "protocol error"
                     : kind == TRESS_CLIENT_ERROR_SERVER ? "server error"
                                                         : "warning";
  fprintf(stderr, "tress-bot[%u]: %s: %s\n", b->index, what, message);
}

/* A join token good for five minutes, for this bot's room: the first HELLO and every reconnect. */
static const char *mint_token(void *user, tress_client *c) {
  (void)c;
  bot *b = user;
  tress_error err;
  char player[32];
  snprintf(player, sizeof player, "tress-bot-%u", b->index);
  if (tress_join_token_mint(b->options->join_key, player, b->room, (uint64_t)time(NULL) + 300, b->token, &err) != TRESS_OK) {
    fprintf(stderr, "tress-bot[%u]: mint: %s\n", b->index, err.message);
    return NULL;
  }
  return b->token;
}

static void on_message(void *user, tress_client *c, const tress_msg *msg, size_t wire_bytes) {
  (void)c;
  const bot *b = user;
  if (!b->options->dump) return;
  char *json = tress_msg_to_json_string(msg);
  printf("{\"bot\":%u,\"bytes\":%zu,\"message\":%s}\n", b->index, wire_bytes, json ? json : "null");
  free(json);
}

/* ---- the run ------------------------------------------------------------------------------- */

/* Bot 0's first own character with bones: drawn by --picture, its tips reported by
 * --report-tips-at, its rig baked by --bake. */
#define MAX_TIPS 64
typedef struct watched_character {
  bot_picture *picture;
  bool bake;
  uint32_t character_id;
  double bound_time; /* sim seconds since the bind */
  double tips_at;    /* 0 = no tip report */
  bool tips_taken;
  double tips_time;
  uint32_t tip_count;
  float tips[MAX_TIPS][3];
} watched_character;

/* Chain tips: bones no other bone of the character hangs from. */
static void take_tips(watched_character *w, tress_client *c) {
  tress_id bones[MAX_TIPS * 4];
  uint32_t n = tress_client_get_bones(c, w->character_id, bones, MAX_TIPS * 4);
  if (n > MAX_TIPS * 4) n = MAX_TIPS * 4;
  const tress_scene *scene = tress_client_get_scene(c);
  w->tip_count = 0;
  for (uint32_t i = 0; i < n && w->tip_count < MAX_TIPS; i++) {
    bool has_child = false;
    for (uint32_t j = 0; j < n && !has_child; j++)
      has_child = tress_id_is_equal(tress_instance_get_parent(scene, bones[j]), bones[i]);
    if (has_child) continue;
    tress_xform world = tress_bone_get_world(scene, bones[i]);
    memcpy(w->tips[w->tip_count++], world.p, sizeof world.p);
  }
  w->tips_time = w->bound_time;
  w->tips_taken = true;
}

static void frame(bot *b, double dt, watched_character *pic) {
  tress_client *c = b->client;
  tress_client_service(c);
  uint32_t ids[1024];
  uint32_t n = tress_client_get_character_ids(c, ids, 1024);
  bool all_bound = n > 0 && tress_client_get_state(c) == TRESS_CLIENT_READY;
  for (uint32_t i = 0; i < n; i++) {
    tress_client_character_info info;
    if (tress_client_get_character_info(c, ids[i], &info) != TRESS_OK) continue;
    if (!info.bound) all_bound = false;
    if (!info.mine || !info.bound || info.request_id == 0 || info.request_id > b->options->characters) continue;
    tress_client_set_root(c, ids[i], bot_path_advance(&b->paths[info.request_id - 1], dt));
    if (pic && (pic->picture || pic->bake || pic->tips_at > 0.0) && !pic->character_id && info.request_id == 1 &&
        info.bone_count > 0)
      pic->character_id = ids[i];
  }
  tress_client_step(c, dt);
  if (pic && pic->character_id) {
    pic->bound_time += dt;
    if (pic->picture) bot_picture_record(pic->picture, c, pic->character_id, pic->bound_time);
    /* The epsilon: 480 x (1/240) and 60 x (1/30) both reach 2 s despite rounding. */
    if (pic->tips_at > 0.0 && !pic->tips_taken && pic->bound_time >= pic->tips_at - 1e-6) take_tips(pic, c);
  }
  tress_sim_stats s = tress_sim_get_stats(tress_client_get_sim(c));
  b->frames++;
  if (all_bound) {
    b->settled_frames++;
    b->bound_sum += s.bound;
    b->simulated_sum += s.simulated;
    if (s.bound > b->bound_max) b->bound_max = s.bound;
    if (s.simulated > b->simulated_max) b->simulated_max = s.simulated;
  }
}

static uint32_t count_unbound(bot *b) {
  uint32_t ids[1024], missing = 0;
  uint32_t n = tress_client_get_character_ids(b->client, ids, 1024);
  uint32_t mine = 0;
  for (uint32_t i = 0; i < n; i++) {
    tress_client_character_info info;
    tress_client_get_character_info(b->client, ids[i], &info);
    if (!info.bound) missing++;
    if (info.mine) mine++;
  }
  /* A spawn the server never answered is a character that never got bound too. */
  if (mine < b->options->characters) missing += b->options->characters - mine;
  return missing;
}

static cJSON *bot_json(const bot *b, double fps) {
  tress_client_stats s = tress_client_get_stats(b->client);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "bot", b->index);
  cJSON_AddStringToObject(o, "room", b->room);
  cJSON_AddStringToObject(o, "state", tress_client_state_name(tress_client_get_state(b->client)));
  cJSON_AddNumberToObject(o, "characters_seen", s.characters_seen);
  cJSON_AddNumberToObject(o, "characters_now", tress_client_get_character_count(b->client));
  cJSON_AddNumberToObject(o, "characters_not_bound", b->characters_not_bound);
  cJSON_AddNumberToObject(o, "rigs_received", s.rigs_received);
  cJSON_AddNumberToObject(o, "rigs_applied", s.rigs_applied);
  cJSON_AddNumberToObject(o, "rigs_fallback", s.rigs_fallback);
  cJSON_AddNumberToObject(o, "bones_bound", s.bones_bound);
  cJSON_AddNumberToObject(o, "binds", s.binds);
  /* colliders the springs sections put into this bot's sim, over the characters it sees now */
  uint32_t ids[1024], colliders = 0;
  uint32_t nc = tress_client_get_character_ids(b->client, ids, 1024);
  for (uint32_t i = 0; i < nc && i < 1024; i++) colliders += tress_client_get_colliders(b->client, ids[i], NULL, NULL, 0);
  cJSON_AddNumberToObject(o, "colliders", colliders);
  double settled = b->settled_frames ? (double)b->settled_frames : 1.0;
  cJSON_AddNumberToObject(o, "handles_bound_per_frame", (double)b->bound_sum / settled);
  cJSON_AddNumberToObject(o, "handles_bound_max", b->bound_max);
  cJSON_AddNumberToObject(o, "handles_simulated_per_frame", (double)b->simulated_sum / settled);
  cJSON_AddNumberToObject(o, "handles_simulated_max", b->simulated_max);
  cJSON_AddNumberToObject(o, "frames", (double)b->frames);
  cJSON_AddNumberToObject(o, "settled_frames", (double)b->settled_frames);
  cJSON_AddNumberToObject(o, "fps", fps);
  cJSON_AddNumberToObject(o, "join_to_bind_ms_mean",
                          s.join_to_bind_count ? 1000.0 * s.join_to_bind_sum / s.join_to_bind_count : 0.0);
  cJSON_AddNumberToObject(o, "join_to_bind_ms_max", 1000.0 * s.join_to_bind_max);
  cJSON_AddNumberToObject(o, "bytes_received", (double)s.bytes_received);
  cJSON_AddNumberToObject(o, "bytes_rig_bind_phase", (double)s.bytes_rig_phase);
  cJSON_AddNumberToObject(o, "bytes_steady_state", (double)s.bytes_steady);
  cJSON_AddNumberToObject(o, "messages_received", (double)s.messages_received);
  cJSON_AddNumberToObject(o, "protocol_errors", s.protocol_errors);
  cJSON_AddNumberToObject(o, "server_errors", s.server_errors);
  cJSON_AddNumberToObject(o, "warnings", s.warnings);
  cJSON_AddNumberToObject(o, "connects", s.connects);
  cJSON_AddNumberToObject(o, "disconnects", s.disconnects);
  cJSON_AddStringToObject(o, "last_error", tress_client_get_last_error(b->client));
  return o;
}

static void print_text(const bot *b) {
  tress_client_stats s = tress_client_get_stats(b->client);
  double settled = b->settled_frames ? (double)b->settled_frames : 1.0;
  printf("bot %u: %s\n", b->index, tress_client_state_name(tress_client_get_state(b->client)));
  printf("  characters seen %u (now %u, never bound %u)\n", s.characters_seen, tress_client_get_character_count(b->client),
         b->characters_not_bound);
  printf("  rigs received %u (applied %u, pendulum fallback %u), bones bound %u, binds %u\n", s.rigs_received,
         s.rigs_applied, s.rigs_fallback, s.bones_bound, s.binds);
  printf("  handles per frame: bound %.1f (max %u), simulated %.1f (max %u) over %llu settled frames of %llu\n",
         (double)b->bound_sum / settled, b->bound_max, (double)b->simulated_sum / settled, b->simulated_max,
         (unsigned long long)b->settled_frames, (unsigned long long)b->frames);
  printf("  join-to-bind: mean %.1f ms, max %.1f ms over %u binds\n",
         s.join_to_bind_count ? 1000.0 * s.join_to_bind_sum / s.join_to_bind_count : 0.0,
         1000.0 * s.join_to_bind_max, s.join_to_bind_count);
  printf("  bytes received %llu: rig/bind phase %llu, steady state %llu (%llu messages)\n",
         (unsigned long long)s.bytes_received, (unsigned long long)s.bytes_rig_phase,
         (unsigned long long)s.bytes_steady, (unsigned long long)s.messages_received);
  printf("  errors: protocol %u, server %u, warnings %u; connects %u, disconnects %u\n", s.protocol_errors,
         s.server_errors, s.warnings, s.connects, s.disconnects);
}

/* --check: each manifest is read exactly as --manifest would read it; nothing is sent. */
static int check_manifests(int count, char **paths) {
  int refused = 0;
  for (int i = 0; i < count; i++) {
    bot_manifest_file file;
    char err[256];
    if (bot_manifest_load(paths[i], &file, err, sizeof err) != 0) {
      printf("%s\n", err);
      refused++;
      continue;
    }
    const tress_wire_manifest *m = &file.manifest;
    printf("%s: ok: character \"%s\", %u parts, %u accessories", paths[i], m->character_name, m->part_count,
           m->accessory_count);
    for (uint32_t s = 0; s < m->section_count; s++)
      printf(", %s", m->sections[s].tag == TRESS_SECTION_SPRINGS       ? "springs"
                     : m->sections[s].tag == TRESS_SECTION_ATTACHMENTS ? "ropes and cloth"
                                                                       : "another section");
    printf("\n");
    bot_manifest_free(&file);
  }
  return refused ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--check") == 0) {
    if (argc == 2) {
      usage(stderr);
      return 2;
    }
    return check_manifests(argc - 2, argv + 2);
  }
  bot_options o;
  if (parse_options(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  tress_wire_manifest manifest;
  tress_sample_character sample;
  bot_manifest_file file;
  memset(&file, 0, sizeof file);
  if (o.manifest_path) {
    char err[256];
    if (bot_manifest_load(o.manifest_path, &file, err, sizeof err) != 0) {
      fprintf(stderr, "tress-bot: %s\n", err); /* the reader names the file */
      return 2;
    }
    manifest = file.manifest;
  } else {
    tress_sample_character_init(&sample, "Bot", o.hair);
    manifest = sample.manifest;
  }

  tress_join_key join_key;
  if (o.join_key_path) {
    tress_error err;
    if (tress_join_key_read(&join_key, o.join_key_path, &err) != TRESS_OK) {
      fprintf(stderr, "tress-bot: %s\n", err.message);
      return 1;
    }
    o.join_key = &join_key;
  }

  bot *bots = calloc(o.bots, sizeof *bots);
  if (!bots) return 1;
  int status = 0;
  for (uint32_t i = 0; i < o.bots; i++) {
    bot *b = &bots[i];
    b->index = i;
    b->options = &o;
    b->paths = calloc(o.characters ? o.characters : 1, sizeof *b->paths);
    tress_client_def def = tress_default_client_def();
    char name[64];
    snprintf(name, sizeof name, "tress-bot-%u", i);
    def.client_name = name;
    def.asset_root = o.asset_root;
    def.sim.device_compute = 1.0f; /* deterministic budgets: skip the device bench per bot */
    def.callbacks = (tress_client_callbacks){.user = b, .on_error = on_error, .on_message = on_message};
    if (o.join_key) {
      def.get_token = mint_token;
      def.get_token_user = b;
    }
    b->client = tress_client_create(&def);
    if (!b->client || !b->paths) {
      fprintf(stderr, "tress-bot: out of memory creating bot %u\n", i);
      return 1;
    }
    if (o.bots <= o.room_size) snprintf(b->room, sizeof b->room, "%s", o.room);
    else snprintf(b->room, sizeof b->room, "%s-%u", o.room, i / o.room_size);
    tress_error err;
    const char *token = o.join_key ? mint_token(b, NULL) : o.token;
    if (!token) return 1;
    if (tress_client_connect(b->client, o.host, o.port, token, b->room, &err) != TRESS_OK) {
      fprintf(stderr, "tress-bot: connect: %s\n", err.message);
      return 1;
    }
    for (uint32_t k = 0; k < o.characters; k++) {
      snprintf(manifest.character_name, sizeof manifest.character_name, "bot%u_%u", i, k);
      bot_path_init(&b->paths[k], i * o.characters + k);
      if (tress_client_spawn(b->client, &manifest, NULL, &err) != TRESS_OK) {
        fprintf(stderr, "tress-bot: spawn %s: %s\n", manifest.character_name, err.message);
        return 1;
      }
    }
  }

  watched_character pic = {0};
  pic.tips_at = o.report_tips_at;
  if (o.picture) pic.picture = bot_picture_create(o.duration < 4.0 ? o.duration : 4.0, o.fps);
  pic.bake = o.bake != NULL;
  const double dt = 1.0 / o.fps;
  double start = now_seconds();
  uint64_t frames = (uint64_t)(o.duration * o.fps + 0.5);
  for (uint64_t f = 0; f < frames; f++) {
    for (uint32_t i = 0; i < o.bots; i++) frame(&bots[i], dt, i == 0 ? &pic : NULL);
    sleep_until(start + (double)(f + 1) * dt);
  }
  double wall = now_seconds() - start;

  cJSON *report = o.json ? cJSON_CreateObject() : NULL;
  cJSON *list = report ? cJSON_AddArrayToObject(report, "bots") : NULL;
  uint32_t total_errors = 0, total_unbound = 0, total_fallback = 0;
  for (uint32_t i = 0; i < o.bots; i++) {
    bot *b = &bots[i];
    b->characters_not_bound = count_unbound(b);
    tress_client_stats s = tress_client_get_stats(b->client);
    total_errors += s.protocol_errors;
    total_unbound += b->characters_not_bound;
    total_fallback += s.rigs_fallback;
    if (s.connects == 0) total_unbound += o.characters ? 0 : 1; /* never joined counts as a failure */
    if (report) cJSON_AddItemToArray(list, bot_json(b, o.fps));
    else print_text(b);
    if (s.connects == 0) status = 1;
  }
  if (total_errors || total_unbound) status = 1;
  if (total_fallback && !o.allow_fallback) {
    fprintf(stderr, "tress-bot: %u rig(s) fell back to a pendulum (the warnings above say why; --allow-fallback "
                    "accepts that)\n", total_fallback);
    status = 1;
  }
  if (pic.tips_at > 0.0 && !pic.tips_taken) {
    fprintf(stderr, "tress-bot: no tips to report: bot 0's first character was not bound for %.3f s of sim time\n",
            pic.tips_at);
    status = 1;
  }
  if (o.bake && bot_bake_write(bots[0].client, pic.character_id, o.bake) != 0) status = 1;
  if (pic.picture) {
    if (bot_picture_write(pic.picture, o.picture) != 0) status = 1;
    bot_picture_destroy(pic.picture);
  }
  if (report) {
    cJSON_AddNumberToObject(report, "wall_seconds", wall);
    cJSON_AddNumberToObject(report, "protocol_errors", total_errors);
    cJSON_AddNumberToObject(report, "characters_not_bound", total_unbound);
    cJSON_AddNumberToObject(report, "rigs_fallback", total_fallback);
    if (pic.tips_taken) {
      cJSON *tips = cJSON_AddObjectToObject(report, "tips");
      cJSON_AddNumberToObject(tips, "character_id", pic.character_id);
      cJSON_AddNumberToObject(tips, "seconds_after_bind", pic.tips_time);
      cJSON *positions = cJSON_AddArrayToObject(tips, "positions");
      for (uint32_t i = 0; i < pic.tip_count; i++) {
        const double xyz[3] = {pic.tips[i][0], pic.tips[i][1], pic.tips[i][2]};
        cJSON_AddItemToArray(positions, cJSON_CreateDoubleArray(xyz, 3));
      }
    }
    cJSON_AddBoolToObject(report, "ok", status == 0);
    char *text = cJSON_Print(report);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(report);
  } else {
    uint64_t rig_bytes = 0, steady_bytes = 0;
    double latency_sum = 0.0, latency_max = 0.0;
    uint32_t latency_count = 0;
    for (uint32_t i = 0; i < o.bots; i++) {
      tress_client_stats s = tress_client_get_stats(bots[i].client);
      rig_bytes += s.bytes_rig_phase;
      steady_bytes += s.bytes_steady;
      latency_sum += s.join_to_bind_sum;
      latency_count += s.join_to_bind_count;
      if (s.join_to_bind_max > latency_max) latency_max = s.join_to_bind_max;
    }
    printf("all bots: join-to-bind mean %.1f ms (max %.1f ms, %u binds); bytes rig/bind %llu, steady %llu\n",
           latency_count ? 1000.0 * latency_sum / latency_count : 0.0, 1000.0 * latency_max, latency_count,
           (unsigned long long)rig_bytes, (unsigned long long)steady_bytes);
    if (pic.tips_taken) {
      printf("tips of character %u at %.3f s after its bind:", pic.character_id, pic.tips_time);
      for (uint32_t i = 0; i < pic.tip_count; i++)
        printf(" (%.4f %.4f %.4f)", pic.tips[i][0], pic.tips[i][1], pic.tips[i][2]);
      printf("\n");
    }
    printf("%u bot(s), %.2f s wall, %d fps: %s (protocol errors %u, characters never bound %u, rigs fallen back %u)\n",
           o.bots, wall, o.fps, status == 0 ? "ok" : "FAILED", total_errors, total_unbound, total_fallback);
  }
  for (uint32_t i = 0; i < o.bots; i++) {
    tress_client_destroy(bots[i].client);
    free(bots[i].paths);
  }
  free(bots);
  bot_manifest_free(&file);
  return status;
}
