/* spring_limit_import.h - VRMC_springBone_limit-1.0 (draft) on a VRMC_springBone joint: its
 * extension object read into a tress_joint_limit. Internal to the springs component. */
#ifndef TRESS_SPRING_LIMIT_IMPORT_H
#define TRESS_SPRING_LIMIT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "tress/sim.h"

/* ext is the joint's extensions.VRMC_springBone_limit object. True with *out filled when it
 * holds one cone, hinge or spherical limit; false with a sentence in why (why_size bytes, for
 * the caller's warning) when it is not a limit tress can read. A specVersion other than
 * "1.0-draft" is read all the same (the shape is the draft's) and noted in why with true. */
bool tress__spring_limit_read(const cJSON *ext, tress_joint_limit *out, char *why, size_t why_size);

#endif
