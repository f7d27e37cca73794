/* debug_draw_internal.h - what tress_sim_debug_draw (debug_draw.c) shares with the writer that
 * reports a chain's nodes (debug_draw_chains.c): the output cursor and one chain's report. */
#ifndef TRESS_DEBUG_DRAW_INTERNAL_H
#define TRESS_DEBUG_DRAW_INTERNAL_H

#include "sim_internal.h"
#include "tress/debug_draw.h"

/* The caller's buffer: shapes past max are counted, not written. */
typedef struct tress_debug_out {
  tress_debug_shape *shapes;
  uint32_t max, count;
  const tress_debug_draw_opts *opts;
} tress_debug_out;

static inline void tress__debug_emit(tress_debug_out *out, const tress_debug_shape *shape) {
  if (out->count < out->max) out->shapes[out->count] = *shape;
  out->count++;
}

/* A bone or part chain's nodes (debug_draw_chains.c); nothing while the batch awaits its layout. */
void tress__chains_debug_draw(const tress_sim *sim, const tress_handle *h, tress_handle_id id, bool asleep,
                              tress_debug_out *out);

#endif
