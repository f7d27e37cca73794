/* animated_head.c - a character whose head nods, turns and bobs with a run cycle: the game's own
 * skeleton array goes to libtress-client every frame through a pose map, so the hair follows.
 * The lines between GAME BEGIN and GAME END are what a game writes (the rest is the harness).
 *
 * usage: animated_head HOST PORT [ROOM] [SECONDS]
 * exits 0 once bound and the hair root followed the animated head for SECONDS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tress/client.h"
#include "tress/sample_character.h"

static void sleep_seconds(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* GAME BEGIN: the game's skeleton, as an engine keeps it (model space, x y z w quaternions) */
typedef struct game_bone { float position[3], rotation[4]; } game_bone;
static const char *const SKELETON[] = {"Hips", "HumanoidRootPart", "UpperTorso", "Neck", "Head"};
enum { BONES = 5, TORSO = 2, HEAD = 4 };

/* A procedural run: the body bobs twice per stride, the head nods and turns on top of it. */
static void animate(game_bone *bones, const tress_sample_character *rest, double t) {
  float bob = 0.08f * (float)fabs(sin(2.0 * M_PI * 1.5 * t));
  float nod = 0.25f * (float)sin(2.0 * M_PI * 0.7 * t), turn = 0.5f * (float)sin(2.0 * M_PI * 0.3 * t);
  for (int i = 0; i < 3; i++) { /* root, torso and head bob together */
    const tress_xform *p = &rest->parts[i].cframe;
    game_bone *b = &bones[i == 0 ? 1 : i == 1 ? TORSO : HEAD];
    b->position[0] = p->p[0], b->position[1] = p->p[1] + bob, b->position[2] = p->p[2];
    b->rotation[0] = 0, b->rotation[1] = 0, b->rotation[2] = 0, b->rotation[3] = 1;
  }
  /* yaw then pitch, about the neck: q = yaw * pitch */
  float cy = cosf(0.5f * turn), sy = sinf(0.5f * turn), cp = cosf(0.5f * nod), sp = sinf(0.5f * nod);
  float q[4] = {cy * sp, sy * cp, -sy * sp, cy * cp};
  float neck_y = rest->parts[2].cframe.p[1] - 0.5f * rest->parts[2].size[1], up = rest->parts[2].size[1] * 0.5f;
  float v[3] = {0, up, 0}, r[3]; /* head centre relative to the neck, turned */
  tress_quat_rotate(q, v, r);
  game_bone *h = &bones[HEAD];
  h->position[0] = r[0], h->position[1] = neck_y + bob + r[1], h->position[2] = r[2];
  for (int k = 0; k < 4; k++) h->rotation[k] = q[k];
}
/* GAME END */

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s HOST PORT [ROOM] [SECONDS]\n", argv[0]);
    return 2;
  }
  const char *room = argc > 3 ? argv[3] : "example";
  double seconds = argc > 4 ? atof(argv[4]) : 2.0;
  tress_client_def def = tress_default_client_def();
  def.client_name = "animated-head-example";
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
  tress_sample_character_init(&sample, "Runner", "meshes/hair_long.glb");
  tress_client_spawn(client, &sample.manifest, NULL, NULL);

  /* GAME BEGIN: once per character, then once per frame */
  game_bone bones[BONES] = {{{0, 0, 0}, {0, 0, 0, 1}}};
  tress_pose_array poses = {bones[0].position, bones[0].rotation, sizeof(game_bone), sizeof(game_bone), BONES};
  tress_client_pose_map *map = NULL;
  /* GAME END */
  const double dt = 1.0 / 60.0;
  uint32_t character = 0;
  double t = 0.0, ran = 0.0, waited = 0.0, worst = 0.0;
  while (ran < seconds && waited < 10.0) {
    tress_client_service(client);
    if (!character && tress_client_get_character_ids(client, &character, 1) == 0) character = 0;
    tress_client_character_info info;
    bool bound = character && tress_client_get_character_info(client, character, &info) == TRESS_OK && info.bound;
    /* GAME BEGIN */
    if (bound && !map) {
      tress_client_pose_map_def md = tress_default_client_pose_map_def();
      md.character_id = character, md.names = SKELETON, md.count = BONES;
      if (tress_client_pose_map_create(client, &md, &map, NULL) != TRESS_OK) break;
    }
    if (map) {
      animate(bones, &sample, t);
      tress_client_set_root(client, character, tress_xform_from_pos(3.0f * (float)t, 0.0f, 0.0f));
      tress_client_pose_map_apply(map, &poses);
    }
    tress_client_step(client, dt);
    /* GAME END */
    if (map) {
      /* the hair root rides the head: its frame relative to the head never changes */
      tress_id handle, bone;
      tress_xform head, root_bone;
      tress_client_get_part_frame(client, character, 2, &head);
      tress_client_get_accessory_frame(client, character, 0, &handle, NULL, NULL, NULL);
      if (tress_client_get_bones(client, character, &bone, 1) == 1) {
        root_bone = tress_bone_get_world(tress_client_get_scene(client), bone);
        static tress_xform first;
        static bool have_first;
        tress_xform rel = tress_xform_inv_mul(head, root_bone);
        if (!have_first) first = rel, have_first = true;
        float d = sqrtf(powf(rel.p[0] - first.p[0], 2) + powf(rel.p[1] - first.p[1], 2) + powf(rel.p[2] - first.p[2], 2));
        if (d > worst) worst = d;
      }
      ran += dt;
    } else {
      waited += dt;
    }
    t += dt;
    sleep_seconds(dt);
  }
  tress_client_character_info info = {0};
  tress_client_get_character_info(client, character, &info);
  tress_xform head = tress_xform_identity();
  tress_client_get_part_frame(client, character, 2, &head);
  printf("character %u: %u bones, bound %s, ran %.1f s, head at (%.2f %.2f %.2f), hair root drift from head %.2g\n",
         character, info.bone_count, info.bound ? "yes" : "no", ran, (double)head.p[0], (double)head.p[1],
         (double)head.p[2], worst);
  int ok = info.bound && info.bone_count > 0 && ran >= seconds && worst < 1e-3;
  tress_client_pose_map_destroy(map);
  tress_client_destroy(client);
  return ok ? 0 : 1;
}
