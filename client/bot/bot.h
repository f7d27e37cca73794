/* bot.h - what tress-bot's files share: options, one bot (a client and its own characters'
 * scripted paths), the walk/turn/teleport path and the sway picture recorder. */
#ifndef TRESS_BOT_H
#define TRESS_BOT_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/client.h"
#include "tress/join_token.h"

typedef struct bot_options {
  const char *host;
  uint16_t port;
  const char *room;
  const char *token;
  const char *join_key_path;
  const tress_join_key *join_key; /* --join-key: each bot mints its own signed token (NULL: use token) */
  uint32_t characters; /* per bot */
  const char *manifest_path;
  const char *hair;    /* asset id of the built-in character's hair when no manifest is given */
  const char *asset_root;
  int fps;
  double duration;
  uint32_t bots;
  uint32_t room_size;  /* bots per room: bot i joins "<room>-<i / room_size>" (one room "<room>" when all fit) */
  bool json, dump;
  bool allow_fallback; /* a rig that fell back to a pendulum is not a failure (exit 0) */
  const char *picture;
  const char *bake;    /* --bake FILE: bot 0's first character's rig with its sway clip (.glb) */
  double report_tips_at; /* seconds of sim time after the bind; 0 = off */
} bot_options;

/* A root that walks forward, turns 90 degrees every few seconds and now and then teleports; its
 * pose is a function of time alone (path.c), so every frame rate sees the same root motion. */
typedef struct bot_path {
  double origin[3];
  double heading0;    /* radians about +Y at time 0 */
  double time;        /* seconds walked */
  uint32_t teleports;
} bot_path;

void bot_path_init(bot_path *p, uint32_t seed);
/* Advances by dt; returns the root transform at the new time. */
tress_xform bot_path_advance(bot_path *p, double dt);

typedef struct bot {
  uint32_t index;
  char room[96];
  char token[TRESS_JOIN_TOKEN_CAP]; /* the last join token this bot minted */
  tress_client *client;
  const bot_options *options;
  bot_path *paths;        /* one per own character, by spawn order */
  uint32_t *request_ids;
  uint64_t frames;
  uint64_t bound_sum, simulated_sum; /* per frame, summed over frames with everything bound */
  uint64_t settled_frames;
  uint32_t bound_max, simulated_max;
  uint32_t characters_not_bound;
} bot;

/* The picture: a side view of one character's chains over time (picture.c, cairo). */
typedef struct bot_picture bot_picture;
bot_picture *bot_picture_create(double seconds, int fps);
/* Records the character's bones at sim time t (seconds since its bind). */
void bot_picture_record(bot_picture *pic, tress_client *c, uint32_t character_id, double t);
/* Writes the PNG; returns 0 or -1 with a message on stderr. */
int bot_picture_write(bot_picture *pic, const char *path);
void bot_picture_destroy(bot_picture *pic);

/* --bake (bake_clip.c): the character's rigged accessory baked to path; 0 or -1 with a message. */
int bot_bake_write(tress_client *c, uint32_t character_id, const char *path);

#endif
