/* tress/spring_report.h - what `tress-rig --springs MODEL` prints: the chains and colliders the
 * spring importer made from a model file, then its warnings, as text or JSON. */
#ifndef TRESS_SPRING_REPORT_H
#define TRESS_SPRING_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "tress/spring_import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the report of an import; `label` names the file in it. Returns 0, -1 on a write or
 * memory failure. */
int tress_spring_report_write(const tress_spring_import *imp, const char *label, bool json, FILE *out);

/* The `--springs MODEL.vrm|.glb|.gltf [--json]` command; argv as the tool's main got it (the
 * arguments after argv[0] are searched for --springs PATH and --json). Prints to stdout;
 * errors to stderr. Returns 0, 1 when the file cannot be imported, 2 on a usage error. */
int tress_spring_report_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
