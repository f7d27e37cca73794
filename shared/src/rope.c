/* rope.c - ropes and cloth (placeholder until the writer lands: binds nothing). */
#include <stdlib.h>

#include "sim_internal.h"

struct tress_ropes {
  int unused;
};

struct tress_ropes *tress__ropes_create(void) { return calloc(1, sizeof(struct tress_ropes)); }
void tress__ropes_destroy(struct tress_ropes *r) { free(r); }
void tress__ropes_unbind(tress_sim *sim, tress_handle *h) { (void)sim; (void)h; }
void tress__ropes_frame(tress_sim *sim, const tress_frame *frame) { (void)sim; (void)frame; }
bool tress__ropes_root_position(const tress_sim *sim, const tress_handle *h, float out[3]) {
  (void)sim; (void)h; (void)out;
  return false;
}
