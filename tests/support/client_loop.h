/* client_loop.h - driving real tress_client instances in integration tests: servicing several
 * clients together and walking a character's root at a constant speed (a function of time, so
 * clients at different frame rates see the same motion). */
#ifndef TRESS_TEST_CLIENT_LOOP_H
#define TRESS_TEST_CLIENT_LOOP_H

#include <stdint.h>

#include "tress/client.h"

/* Services n clients for about ms milliseconds: the first waits 2 ms a round, the rest poll. */
void clients_pump(tress_client **cs, int n, int ms);
/* Steps c for `seconds` at fps with character id's root at (vx t, 0, vz t); the test fails if a
 * step does. */
void client_walk(tress_client *c, uint32_t id, int fps, double seconds, double vx, double vz);

#endif
