/* path.c - tress-bot's scripted root motion: walk at a steady pace, turn 90 degrees over one
 * second every four, and teleport 120 units every nine (so the teleport guard is exercised). */
#include <math.h>

#include "bot.h"

#define WALK_SPEED 6.0f   /* units per second */
#define TURN_PERIOD 4.0   /* seconds between turns */
#define TURN_TIME 1.0     /* seconds a turn takes */
#define TELEPORT_PERIOD 9.0
#define TELEPORT_DISTANCE 120.0f

void bot_path_init(bot_path *p, uint32_t seed) {
  p->position[0] = (float)(seed % 16) * 8.0f;
  p->position[1] = 0.0f;
  p->position[2] = (float)(seed / 16) * 8.0f;
  p->heading = (float)(seed % 4) * 1.5707963f;
  p->time = 0.0;
  p->next_teleport = TELEPORT_PERIOD;
  p->teleports = 0;
}

tress_xform bot_path_advance(bot_path *p, double dt) {
  double phase = fmod(p->time, TURN_PERIOD);
  if (phase >= TURN_PERIOD - TURN_TIME) p->heading += (float)(1.5707963 * dt / TURN_TIME);
  p->position[0] += WALK_SPEED * (float)dt * sinf(p->heading);
  p->position[2] += WALK_SPEED * (float)dt * cosf(p->heading);
  p->time += dt;
  if (p->time >= p->next_teleport) {
    p->position[0] += TELEPORT_DISTANCE;
    p->next_teleport += TELEPORT_PERIOD;
    p->teleports++;
  }
  float axis[3] = {0.0f, 1.0f, 0.0f};
  tress_xform root = tress_xform_from_axis_angle(axis, p->heading);
  root.p[0] = p->position[0];
  root.p[1] = p->position[1];
  root.p[2] = p->position[2];
  return root;
}
