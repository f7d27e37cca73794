#include "support/client_loop.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

void clients_pump(tress_client **cs, int n, int ms) {
  for (int t = 0; t < ms; t += 2)
    for (int i = 0; i < n; i++) tress_client_service_wait(cs[i], i == 0 ? 2 : 0);
}

void client_walk(tress_client *c, uint32_t id, int fps, double seconds, double vx, double vz) {
  int frames = (int)(seconds * fps + 0.5);
  for (int f = 1; f <= frames; f++) {
    double t = (double)f / fps;
    tress_client_set_root(c, id, tress_xform_from_pos((float)(vx * t), 0.0f, (float)(vz * t)));
    assert_int_equal(tress_client_step(c, 1.0 / fps), TRESS_OK);
  }
}
