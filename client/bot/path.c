/* path.c - tress-bot's scripted root motion: walk at a steady pace, turn 90 degrees over one
 * second every four, and teleport 120 units every nine (so the teleport guard is exercised).
 *
 * The pose is a closed-form function of time, never integrated frame by frame: a bot at 30 fps
 * and one at 240 fps then put the root at exactly the same place at the same time, which is what
 * lets `--report-tips-at` compare their simulated tips. Each 4 s cycle walks 3 s straight and 1 s
 * along a quarter arc; four cycles bring the heading back, so the walk's offset after n whole
 * cycles only depends on n mod 4. */
#include <math.h>

#include "bot.h"

#define WALK_SPEED 6.0     /* units per second */
#define TURN_PERIOD 4.0    /* seconds between turns */
#define TURN_TIME 1.0      /* seconds a turn takes */
#define TELEPORT_PERIOD 9.0
#define TELEPORT_DISTANCE 120.0
#define QUARTER_TURN 1.5707963267948966
#define TIME_EPSILON 1e-9  /* 480 x (1/240) and 60 x (1/30) land on the same side of a boundary */

void bot_path_init(bot_path *p, uint32_t seed) {
  p->origin[0] = (double)(seed % 16) * 8.0;
  p->origin[1] = 0.0;
  p->origin[2] = (double)(seed / 16) * 8.0;
  p->heading0 = (double)(seed % 4) * QUARTER_TURN;
  p->time = 0.0;
  p->teleports = 0;
}

/* Walks `straight` seconds at heading h, then `turning` seconds along the arc that turns left
 * at QUARTER_TURN / TURN_TIME radians per second; adds the offset (x, z) to out. */
static void walk(double h, double straight, double turning, double out[2]) {
  const double rate = QUARTER_TURN / TURN_TIME;
  out[0] += WALK_SPEED * straight * sin(h);
  out[1] += WALK_SPEED * straight * cos(h);
  if (turning <= 0.0) return;
  out[0] += WALK_SPEED / rate * (cos(h) - cos(h + rate * turning));
  out[1] += WALK_SPEED / rate * (sin(h + rate * turning) - sin(h));
}

tress_xform bot_path_advance(bot_path *p, double dt) {
  p->time += dt;
  double t = p->time + TIME_EPSILON;
  double cycles = floor(t / TURN_PERIOD);
  double phase = p->time - cycles * TURN_PERIOD;
  if (phase < 0.0) phase = 0.0;
  int whole = (int)fmod(cycles, 4.0);
  double offset[2] = {0.0, 0.0};
  for (int k = 0; k < whole; k++) walk(p->heading0 + k * QUARTER_TURN, TURN_PERIOD - TURN_TIME, TURN_TIME, offset);
  double h = p->heading0 + cycles * QUARTER_TURN;
  double straight = phase < TURN_PERIOD - TURN_TIME ? phase : TURN_PERIOD - TURN_TIME;
  double turning = phase - straight;
  walk(h, straight, turning, offset);
  p->teleports = (uint32_t)floor(t / TELEPORT_PERIOD);

  float axis[3] = {0.0f, 1.0f, 0.0f};
  tress_xform root = tress_xform_from_axis_angle(axis, (float)fmod(h + QUARTER_TURN / TURN_TIME * turning, 8.0 * QUARTER_TURN));
  root.p[0] = (float)(p->origin[0] + offset[0] + TELEPORT_DISTANCE * p->teleports);
  root.p[1] = (float)p->origin[1];
  root.p[2] = (float)(p->origin[2] + offset[1]);
  return root;
}
