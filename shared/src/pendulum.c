/* pendulum.c - accessory pendulums (placeholder until the writer lands: binds nothing). */
#include <stdlib.h>

#include "sim_internal.h"

struct tress_pendulums {
  int unused;
};

struct tress_pendulums *tress__pendulums_create(void) { return calloc(1, sizeof(struct tress_pendulums)); }
void tress__pendulums_destroy(struct tress_pendulums *p) { free(p); }
void tress__pendulums_unbind(tress_sim *sim, tress_handle *h) { (void)sim; (void)h; }
void tress__pendulums_frame(tress_sim *sim, const tress_frame *frame) { (void)sim; (void)frame; }
bool tress__pendulums_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  (void)sim; (void)h; (void)out;
  return false;
}
