/* rig_report.c - tress-rig --report (rig_report.h). Connectivity: union-find over each face's
 * corners, and vertices at the same position joined too (a UV seam splits a strand's vertices
 * but not the strand). */
#include "rig_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t find(uint32_t *parent, uint32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

static void join(uint32_t *parent, uint32_t a, uint32_t b) {
  a = find(parent, a);
  b = find(parent, b);
  if (a != b) parent[a < b ? b : a] = a < b ? a : b;
}

/* A vertex with its position, so positions sort without a global for qsort's comparison. */
typedef struct placed_vertex {
  float p[3];
  uint32_t v;
} placed_vertex;

static int by_position(const void *pa, const void *pb) {
  const placed_vertex *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a->p[k] != b->p[k]) return a->p[k] < b->p[k] ? -1 : 1;
  return 0;
}

/* piece[v]: the root of v's connected piece. */
static bool connect_pieces(const tress_mesh *m, uint32_t *piece) {
  uint32_t n = m->vertex_count;
  for (uint32_t v = 0; v < n; v++) piece[v] = v;
  uint32_t corners = m->indices ? m->index_count : n;
  for (uint32_t t = 0; t + 2 < corners; t += 3) {
    uint32_t i0 = m->indices ? m->indices[t] : t, i1 = m->indices ? m->indices[t + 1] : t + 1,
             i2 = m->indices ? m->indices[t + 2] : t + 2;
    if (i0 >= n || i1 >= n || i2 >= n) continue;
    join(piece, i0, i1);
    join(piece, i0, i2);
  }
  placed_vertex *order = malloc(sizeof *order * (n ? n : 1));
  if (!order) return false;
  for (uint32_t v = 0; v < n; v++) {
    memcpy(order[v].p, m->positions + 3 * (size_t)v, sizeof order[v].p);
    order[v].v = v;
  }
  qsort(order, n, sizeof *order, by_position);
  for (uint32_t i = 1; i < n; i++)
    if (by_position(&order[i], &order[i - 1]) == 0) join(piece, order[i].v, order[i - 1].v);
  free(order);
  for (uint32_t v = 0; v < n; v++) piece[v] = find(piece, v);
  return true;
}

static uint32_t heaviest_joint(const tress_mesh *m, uint32_t v) {
  uint32_t best = 0;
  for (int k = 1; k < 4; k++)
    if (m->weights[4 * (size_t)v + k] > m->weights[4 * (size_t)v + best]) best = (uint32_t)k;
  return m->joints[4 * (size_t)v + best];
}

static void append_name(char *list, const char *name) {
  size_t used = strlen(list);
  snprintf(list + used, RIG_REPORT_NAMES_MAX - used, "%s%s", used ? " " : "", name);
}

/* Per piece, how many of its vertices each chain dominates (HairRoot's scalp vertices left out):
 * the chain with most carries it, every chain holding some shares it when more than one does. */
static void count_pieces(const tress_rig_output *out, const uint32_t *piece, const int32_t *chain_of, chain_report *chains) {
  const tress_mesh *m = out->mesh;
  uint32_t n = m->vertex_count, S = out->sectors;
  uint32_t *per = calloc((size_t)S, sizeof *per);
  uint32_t *members = malloc(sizeof *members * (n ? n : 1)), *start = calloc((size_t)n + 1, sizeof *start);
  if (!per || !members || !start) { free(per); free(members); free(start); return; }
  for (uint32_t v = 0; v < n; v++) start[piece[v] + 1]++;
  for (uint32_t p = 0; p < n; p++) start[p + 1] += start[p];
  uint32_t *fill = malloc(sizeof *fill * (n ? n : 1));
  if (!fill) { free(per); free(members); free(start); return; }
  memcpy(fill, start, sizeof *fill * n);
  for (uint32_t v = 0; v < n; v++) members[fill[piece[v]]++] = v;
  free(fill);
  for (uint32_t p = 0; p < n; p++) {
    if (start[p + 1] == start[p]) continue;
    memset(per, 0, sizeof *per * S);
    for (uint32_t i = start[p]; i < start[p + 1]; i++) {
      int32_t c = chain_of[members[i]];
      if (c >= 0) per[c]++;
    }
    uint32_t holders = 0, best = 0;
    for (uint32_t s = 0; s < S; s++) {
      holders += per[s] > 0;
      if (per[s] > per[best]) best = s;
    }
    if (!holders) continue;
    chains[best].pieces++;
    for (uint32_t s = 0; holders > 1 && s < S; s++) chains[s].shared_pieces += per[s] > 0;
  }
  free(per);
  free(members);
  free(start);
}

bool rig_report_chains(const tress_rig_output *out, chain_report *chains) {
  const tress_mesh *m = out->mesh;
  uint32_t S = out->sectors, B = out->segments, n = m->vertex_count;
  memset(chains, 0, sizeof(chain_report) * S);
  uint32_t *per_bone = calloc(out->bone_count, sizeof *per_bone), *piece = malloc(sizeof *piece * (n ? n : 1));
  int32_t *chain_of = malloc(sizeof *chain_of * (n ? n : 1));
  bool ok = per_bone && piece && chain_of && connect_pieces(m, piece);
  for (uint32_t v = 0; ok && v < n; v++) {
    uint32_t j = heaviest_joint(m, v);
    per_bone[j]++;
    chain_of[v] = j >= 1 && j < 1 + S * B ? (int32_t)((j - 1) / B) : -1;
  }
  if (ok) count_pieces(out, piece, chain_of, chains);
  float mn[3], mx[3];
  tress_mesh_get_bounds(m, mn, mx);
  for (uint32_t s = 0; ok && s < S; s++) {
    chain_report *c = &chains[s];
    const float *prev = out->bones[0].bind_pos;
    for (uint32_t b = 0; b < B; b++) {
      uint32_t j = 1 + s * B + b;
      const tress_rig_bone *bone = &out->bones[j];
      float d[3] = {bone->bind_pos[0] - prev[0], bone->bind_pos[1] - prev[1], bone->bind_pos[2] - prev[2]};
      c->length += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      prev = bone->bind_pos;
      c->vertices += per_bone[j];
      if (per_bone[j] == 0) { c->empty_bones++; append_name(c->empty, bone->name); }
      bool outside = false;
      for (int k = 0; k < 3; k++) outside |= bone->bind_pos[k] < mn[k] - 1e-5f || bone->bind_pos[k] > mx[k] + 1e-5f;
      if (outside) { c->outside_bones++; append_name(c->outside, bone->name); }
    }
  }
  free(per_bone);
  free(piece);
  free(chain_of);
  return ok;
}

void rig_report_print(FILE *f, const tress_rig_output *out) {
  chain_report chains[TRESS_PLAN_MAX_SECTORS];
  if (!rig_report_chains(out, chains)) { fprintf(f, "report: out of memory\n"); return; }
  fprintf(f, "chains %u x %u bones\n", out->sectors, out->segments);
  for (uint32_t s = 0; s < out->sectors; s++) {
    const chain_report *c = &chains[s];
    fprintf(f, "  Hair_S%u: skins %u vertices in %u connected pieces, length %.3f", s + 1, c->vertices, c->pieces, c->length);
    if (c->shared_pieces) fprintf(f, ", warning: shares %u pieces with other chains (they will be pulled apart)", c->shared_pieces);
    if (c->empty_bones) fprintf(f, ", warning: %u empty bones (%s)", c->empty_bones, c->empty);
    if (c->outside_bones) fprintf(f, ", warning: %u bones outside the mesh's bounds (%s)", c->outside_bones, c->outside);
    fprintf(f, "\n");
  }
}

void rig_report_add_json(cJSON *j, const tress_rig_output *out) {
  chain_report chains[TRESS_PLAN_MAX_SECTORS];
  if (!rig_report_chains(out, chains)) return;
  cJSON *list = cJSON_AddArrayToObject(j, "chains");
  for (uint32_t s = 0; s < out->sectors; s++) {
    cJSON *c = cJSON_CreateObject();
    char name[32];
    snprintf(name, sizeof name, "Hair_S%u", s + 1);
    cJSON_AddStringToObject(c, "name", name);
    cJSON_AddNumberToObject(c, "vertices", chains[s].vertices);
    cJSON_AddNumberToObject(c, "length", chains[s].length);
    cJSON_AddNumberToObject(c, "pieces", chains[s].pieces);
    cJSON_AddNumberToObject(c, "shared_pieces", chains[s].shared_pieces);
    cJSON_AddNumberToObject(c, "empty_bones", chains[s].empty_bones);
    cJSON_AddStringToObject(c, "empty", chains[s].empty);
    cJSON_AddNumberToObject(c, "bones_outside_mesh", chains[s].outside_bones);
    cJSON_AddStringToObject(c, "outside", chains[s].outside);
    cJSON_AddItemToArray(list, c);
  }
}
