/* rig_report.h - tress-rig --report: what each chain of a rig holds, read off the skinned mesh. */
#ifndef TRESS_TOOLS_RIG_REPORT_H
#define TRESS_TOOLS_RIG_REPORT_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "tress/rig.h"

#define RIG_REPORT_NAMES_MAX 256

/* Per chain: the vertices whose heaviest bone is on it; its length from HairRoot through its
 * bones; the mesh's connected pieces (faces sharing a vertex or a position) it carries (most of
 * their chain-skinned vertices on it) and those it shares with another chain (a piece that will
 * be pulled apart by two chains); its bones that skin nothing or sit outside the mesh's bounds. */
typedef struct chain_report {
  uint32_t vertices;
  float length;
  uint32_t pieces, shared_pieces;
  uint32_t empty_bones, outside_bones;
  char empty[RIG_REPORT_NAMES_MAX], outside[RIG_REPORT_NAMES_MAX];
} chain_report;

/* Fills chains[0 .. out->sectors). False when out of memory. */
bool rig_report_chains(const tress_rig_output *out, chain_report *chains);

void rig_report_print(FILE *f, const tress_rig_output *out);
void rig_report_add_json(cJSON *j, const tress_rig_output *out);

#endif
