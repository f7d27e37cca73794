/* rig_inputs.h - what rig.c says about a mesh the plan cannot rig: the actual problem (a mesh at one
 * point, faces with no area, a mesh flat across the growth axis), not the plan's symptom. Not a
 * public header. */
#ifndef TRESS_RIG_INPUTS_H
#define TRESS_RIG_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "tress/mesh.h"

/* True, with why filled, when the mesh has indexed faces and every one is degenerate (zero area;
 * collinear or coincident corners) while its vertices do not all sit at one point. */
bool tress__rig_mesh_is_degenerate(const tress_mesh *m, char *why, size_t cap);

/* Why no vertex lies below the root plane: every vertex at one point, the mesh flat across the
 * axis, or the root the caller gave past every vertex. axis need not be unit. */
void tress__rig_explain_no_depth(const tress_mesh *m, const float axis[3], const float root[3], bool root_given,
                                 char *why, size_t cap);

#endif
