/* xform_lanes.h - moving tress_xform slots to and from seven component arrays.
 *
 * The solver keeps poses as component arrays (px py pz qx qy qz qw, one float per node); the
 * scene keeps one tress_xform per bone in an array, reached through an index per node (4 bytes,
 * where a pointer per node and direction took 16). These two copies
 * are the solver's whole scene I/O. In vector registers (simd.h) they move four nodes at a
 * time: four 32-byte slots are loaded (or stored) as eight 4-float halves and transposed in
 * registers, instead of 7 scalar loads and 7 scalar stores per node. Both check that the
 * values are finite while they are in registers, so the solver makes no separate pass over
 * the arrays for it.
 */
#ifndef TRESS_XFORM_LANES_H
#define TRESS_XFORM_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "tress/math.h"

/* Whether this build runs the four-wide copies (checked once, kept by the caller). */
bool tress__xform_lanes_wide(void);

/* A run of slots: slot j is array[index[j]]. Index 0 is a node the solver neither reads nor
 * writes (sleeping, padding): a read takes array[0], which the scene keeps the identity (its
 * root's entry: no bone), a write goes to *none (a sink of the caller's, never read). */
typedef struct tress_xform_slots {
  tress_xform *array;
  const uint32_t *index;
  tress_xform *none;
} tress_xform_slots;

/* comp[k][j] = component k of slot j, for j < count; k: p0 p1 p2 q0 q1 q2 q3. True when
 * every value copied is finite (a slot's padding is not looked at). */
bool tress__xforms_read(tress_xform_slots slots, uint32_t count, float *const comp[7], bool wide);

/* slot j = the pose in comp[k][j], for j < count, and true, when every value is finite (the
 * wide path writes the 32-byte slot whole, its padding included). Otherwise false: no value that
 * is not finite was written, some slots may have been (the caller then goes node by node). */
bool tress__xforms_write(tress_xform_slots slots, uint32_t count, const float *const comp[7], bool wide);

#endif
