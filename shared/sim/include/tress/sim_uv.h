/* tress/sim_uv.h - the one libuv adapter: a sim attached to a loop steps itself from a timer
 * that exists only while at least one handle is bound (the seed's Heartbeat connection). */
#ifndef TRESS_SIM_UV_H
#define TRESS_SIM_UV_H

#include <uv.h>

#include "tress/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* interval_ms is the timer period (0 picks 1000 / fixed_hz). Replaces any earlier attachment.
 * TRESS_ERR_INVALID_ARGUMENT for a NULL sim or loop, TRESS_ERR_OUT_OF_MEMORY. */
tress_result tress_sim_attach_loop(tress_sim *sim, uv_loop_t *loop, unsigned interval_ms);
/* Stops and closes the timer; call before tress_sim_destroy or before closing the loop. */
void tress_sim_detach_loop(tress_sim *sim);
/* True while the sim holds an active timer handle. */
bool tress_sim_is_loop_active(const tress_sim *sim);

#ifdef __cplusplus
}
#endif

#endif
