/* game_loop.c - the smallest complete libtress-client integration: connect, spawn a character,
 * and every frame service the network, move the root, step the sim and read bone matrices.
 *
 * usage: game_loop HOST PORT [ROOM] [SECONDS]   (exits 0 once the character swayed, bound) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tress/client.h"
#include "tress/sample_character.h"

static void sleep_seconds(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s HOST PORT [ROOM] [SECONDS]\n", argv[0]);
    return 2;
  }
  const char *room = argc > 3 ? argv[3] : "example";
  double seconds = argc > 4 ? atof(argv[4]) : 2.0;

  tress_client_def def = tress_default_client_def();
  def.client_name = "game-loop-example";
  tress_client *client = tress_client_create(&def);
  if (!client) {
    fprintf(stderr, "out of memory creating the client\n");
    return 1;
  }
  tress_error err;
  if (tress_client_connect(client, argv[1], (uint16_t)atoi(argv[2]), "", room, &err) != TRESS_OK) {
    fprintf(stderr, "connect failed: %s\n", err.message);
    tress_client_destroy(client);
    return 1;
  }
  tress_sample_character sample;
  tress_sample_character_init(&sample, "Example", NULL);
  tress_client_spawn(client, &sample.manifest, NULL, NULL); /* sent once the room is joined */

  const double dt = 1.0 / 60.0;
  float matrices[64 * 16];
  uint32_t character = 0;
  double t = 0.0, swayed = 0.0, waited = 0.0;
  while (swayed < seconds && waited < 10.0) {
    tress_client_service(client); /* never blocks */
    if (!character && tress_client_get_character_ids(client, &character, 1) == 0) character = 0;
    tress_client_character_info info;
    if (character && tress_client_get_character_info(client, character, &info) == TRESS_OK && info.bound) {
      tress_client_set_root(client, character, tress_xform_from_pos(2.0f * (float)t, 0.0f, 0.0f));
      swayed += dt;
    } else {
      waited += dt;
    }
    tress_client_step(client, dt);
    uint32_t bones = character ? tress_client_get_bone_matrices(client, character, matrices, 64) : 0;
    (void)bones; /* a renderer uploads matrices[0 .. 16 * bones) here */
    t += dt;
    sleep_seconds(dt);
  }
  tress_client_stats stats = tress_client_get_stats(client);
  tress_client_character_info info = {0};
  tress_client_get_character_info(client, character, &info);
  printf("character %u: %u bones, %u handles, bound %s, protocol errors %u\n", character, info.bone_count,
         info.handle_count, info.bound ? "yes" : "no", stats.protocol_errors);
  int ok = info.bound && info.bone_count > 0 && stats.protocol_errors == 0;
  tress_client_destroy(client);
  return ok ? 0 : 1;
}
