/* chains_layout.c - the chain batch's layout: tiles of whole chains, levels inside a tile padded
 * to whole vectors, the shifts that let a level read its parents in place, and the scratch a
 * frame runs in. Rebuilt on the next frame after chains bind or unbind (chains_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chains_internal.h"

void tress__chain_nodes_free(chain_nodes *n) {
#define FREE_FIELD(name) free(n->name);
  CHAIN_FIELDS(FREE_FIELD)
#undef FREE_FIELD
  free(n->parent);
  free(n->first_child);
  free(n->first_sibling);
  memset(n, 0, sizeof *n);
}

/* Node arrays start on a cache line, so padded level runs are whole aligned vectors. */
static float *floats_alloc(uint32_t count) {
  size_t bytes = ((size_t)(count ? count : 1) * sizeof(float) + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

/* Scratch needs no contents kept: free, then a fresh aligned block. */
static float *aligned_realloc_floats(float *old, uint32_t count) {
  free(old);
  return floats_alloc(count);
}

bool tress__chain_per_slot_reserve(struct tress_chains *c, uint32_t cap) {
  if (cap <= c->per_cap) return true;
  uint16_t *frame = calloc(cap, sizeof *frame);
  uint32_t *root = calloc(cap, sizeof *root);
  const tress_xform **src = calloc(cap, sizeof *src);
  float *grown[SLOT_FIELDS] = {0};
  bool ok = frame && root && src;
  for (int k = 0; k < SLOT_FIELDS && ok; k++) ok = (grown[k] = floats_alloc(cap)) != NULL;
  if (!ok) {
    free(frame);
    free(root);
    free(src);
    for (int k = 0; k < SLOT_FIELDS; k++) free(grown[k]);
    return false;
  }
  for (int k = 0; k < SLOT_FIELDS; k++) {
    /* identity anchors past the slots in use: a root lane never reads a non-finite value */
    float fill = k < LANE_VX && k % 7 == 6 ? 1.0f : 0.0f;
    if (c->per_cap) memcpy(grown[k], c->per_slot[k], c->per_cap * sizeof(float));
    for (uint32_t i = c->per_cap; i < cap; i++) grown[k][i] = fill;
    free(c->per_slot[k]);
    c->per_slot[k] = grown[k];
  }
  if (c->per_cap) memcpy(frame, c->slot_frame, c->per_cap * sizeof *frame);
  if (c->per_cap) memcpy(root, c->slot_root, c->per_cap * sizeof *root);
  if (c->per_cap) memcpy(src, c->anchor_src, c->per_cap * sizeof *src);
  free(c->slot_frame);
  free(c->slot_root);
  free(c->anchor_src);
  c->slot_frame = frame;
  c->slot_root = root;
  c->anchor_src = src;
  c->per_cap = cap;
  return true;
}

/* Whether the field at offset `at` in chain_nodes is allocated for these groups (NODE_GROUP_*):
 * the optional ones are runs of the field list (ax_*, vg_*, lm_*). */
static bool field_wanted(size_t at, uint8_t groups) {
#define IN_RUN(first, last) (at >= offsetof(chain_nodes, first) && at <= offsetof(chain_nodes, last))
  if (IN_RUN(ax_x, ax_z)) return (groups & (NODE_GROUP_VRM | NODE_GROUP_LIMIT)) != 0;
  if (IN_RUN(vg_x, vg_z)) return (groups & NODE_GROUP_VRM) != 0;
  if (IN_RUN(lm_kind, lm_qw)) return (groups & NODE_GROUP_LIMIT) != 0;
  if (IN_RUN(jt_damping, jt_radius)) return (groups & NODE_GROUP_JOINTS) != 0;
#undef IN_RUN
  return true;
}

static bool nodes_alloc(chain_nodes *n, uint32_t cap, uint8_t groups) {
  memset(n, 0, sizeof *n);
  bool ok = true;
#define ALLOC_FIELD(name) \
  ok = ok && (!field_wanted(offsetof(chain_nodes, name), groups) || (n->name = floats_alloc(cap)) != NULL);
  CHAIN_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
  ok = ok && (n->parent = malloc((cap ? cap : 1) * sizeof(int32_t))) != NULL;
  ok = ok && (n->first_child = malloc((cap ? cap : 1) * sizeof(int32_t))) != NULL;
  /* only the VRM rotation pass reads siblings */
  ok = ok && (!(groups & NODE_GROUP_VRM) || (n->first_sibling = malloc((cap ? cap : 1) * sizeof(int32_t))) != NULL);
  n->cap = cap;
  n->groups = groups;
  if (!ok) tress__chain_nodes_free(n);
  return ok;
}

/* ---- layout rebuild ---- */

bool tress__chain_level_scratch_grow(struct tress_chains *c, uint32_t n) {
  if (n <= c->g_cap) return true;
  c->g_cap = 0;
  bool ok = true;
  for (int k = 0; k < G_SCRATCH; k++) ok = (c->g[k] = aligned_realloc_floats(c->g[k], n)) != NULL && ok;
  if (ok) c->g_cap = n;
  return ok;
}

/* The model-specific groups exist only while the layout has a tile of their kind. */
bool tress__chain_tile_scratch_grow(tile_scratch *w, uint32_t n, uint8_t kinds) {
  kinds &= TILE_KIND_VRM | TILE_KIND_THREE_VRM_LENGTH;
  if (n <= w->cap && kinds == w->kinds) return true;
  if (n < w->cap) n = w->cap;
  bool vrm = kinds & TILE_KIND_VRM, three = kinds & TILE_KIND_THREE_VRM_LENGTH;
  w->cap = 0;
  bool ok = true;
#define GROW_TILE_FIELD(name) ok = (w->name = aligned_realloc_floats(w->name, n)) != NULL && ok;
#define VRM_TILE_FIELD(name) if (vrm) GROW_TILE_FIELD(name) else { free(w->name); w->name = NULL; }
#define THREE_TILE_FIELD(name) if (three) GROW_TILE_FIELD(name) else { free(w->name); w->name = NULL; }
  TILE_FIELDS(GROW_TILE_FIELD)
  TILE_VRM_FIELDS(VRM_TILE_FIELD)
  TILE_THREE_VRM_FIELDS(THREE_TILE_FIELD)
#undef THREE_TILE_FIELD
#undef VRM_TILE_FIELD
#undef GROW_TILE_FIELD
  w->kinds = kinds;
  if (ok) w->cap = n;
  return ok;
}

void tress__chain_tile_scratch_free(tile_scratch *w) {
#define FREE_TILE_FIELD(name) free(w->name);
  TILE_FIELDS(FREE_TILE_FIELD)
  TILE_VRM_FIELDS(FREE_TILE_FIELD)
  TILE_THREE_VRM_FIELDS(FREE_TILE_FIELD)
#undef FREE_TILE_FIELD
  memset(w, 0, sizeof *w);
}

uint32_t tress__chain_tile(const struct tress_chains *c, uint32_t si) {
  uint32_t lo = 0, hi = c->tile_count; /* the last tile whose first slot is <= si */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (c->tile_slot[mid] <= si) lo = mid;
    else hi = mid;
  }
  return lo;
}


/* The constant distance from every node of tile-level tl to its parent (toward_children: to its
 * first child), or -1 when the nodes disagree. Real nodes must all agree; the padding must land
 * inside the neighbouring level of the same tile, so its in-place reads stay inert. */
static int64_t level_shift(const struct tress_chains *c, uint32_t t, uint32_t l, bool toward_children) {
  const chain_nodes *n = &c->nodes;
  uint32_t L = c->level_count, tl = t * L + l;
  if (toward_children ? l + 1 >= L : l == 0) return -1;
  uint32_t lo = c->tile_lo[tl], fill = c->tile_fill[tl], hi = c->tile_hi[tl];
  uint32_t nb = toward_children ? tl + 1 : tl - 1; /* the neighbouring level */
  const int32_t *link = toward_children ? n->first_child : n->parent;
  if (fill == lo || link[lo] < 0) return -1;
  int64_t shift = toward_children ? (int64_t)link[lo] - lo : (int64_t)lo - link[lo];
  for (uint32_t i = lo; i < fill; i++) {
    int64_t d = toward_children ? (int64_t)link[i] - i : (int64_t)i - link[i];
    if (link[i] < 0 || d != shift) return -1;
  }
  int64_t first = toward_children ? (int64_t)lo + shift : (int64_t)lo - shift;
  int64_t last = toward_children ? (int64_t)hi - 1 + shift : (int64_t)hi - 1 - shift;
  if (first < c->tile_lo[nb] || last >= c->tile_hi[nb]) return -1;
  return shift;
}

/* When every level's parents and first children sit at constant shifts (uniform chains), no
 * gather reads the link arrays and node_parent takes the shift: they go, 8 bytes per node. The
 * next layout builds them again from the slots. */
static void drop_links_when_shifted(struct tress_chains *c) {
  for (uint32_t t = 0; t < c->tile_count; t++)
    for (uint32_t l = 0; l < c->level_count; l++) {
      size_t tl = (size_t)t * c->level_count + l;
      if (c->tile_hi[tl] == c->tile_lo[tl]) continue;
      if ((l > 0 && c->parent_shift[tl] < 0) || c->child_shift[tl] < 0) return;
    }
  free(c->nodes.parent);
  free(c->nodes.first_child);
  c->nodes.parent = c->nodes.first_child = NULL;
}

/* Per-node slot index, pointer caches (re-fetched next frame) and the per tile-level shifts that
 * let a level whose parents (children) sit at a constant distance skip its gathers. */
static bool index_levels(struct tress_chains *c, uint32_t total) {
  if (total > c->ptr_cap) {
    uint32_t *ns = realloc(c->node_slot, total * sizeof *ns);
    if (ns) c->node_slot = ns;
    uint32_t *bs = realloc(c->bone_slot, total * sizeof *bs);
    if (bs) c->bone_slot = bs;
    if (!ns || !bs) return false;
    c->ptr_cap = total;
  }
  size_t tls = (size_t)c->tile_count * c->level_count + 1;
  int64_t *ps = realloc(c->parent_shift, tls * sizeof *ps);
  if (ps) c->parent_shift = ps;
  int64_t *cs = realloc(c->child_shift, tls * sizeof *cs);
  if (cs) c->child_shift = cs;
  uint8_t *al = realloc(c->aligned, tls);
  if (al) c->aligned = al;
  uint8_t *sib = realloc(c->sibling_self, tls);
  if (sib) c->sibling_self = sib;
  uint8_t *still = realloc(c->still, tls);
  if (still) c->still = still;
  tress_xform *sinks = realloc(c->sinks, (c->tile_count + 1) * sizeof *sinks);
  if (sinks) c->sinks = sinks;
  uint8_t *dense = realloc(c->roots_dense, c->tile_count + 1);
  if (dense) c->roots_dense = dense;
  if (!ps || !cs || !al || !sib || !still || !sinks || !dense) return false;
  memset(c->still, 0, tls);
  for (uint32_t t = 0; t < c->tile_count; t++) {
    c->sinks[t] = tress_xform_identity();
    /* padding belongs to the tile's first chain: valid for the collider lanes, never read back */
    for (uint32_t i = c->tile_lo[(size_t)t * c->level_count]; i < c->tile_end[t]; i++) {
      c->node_slot[i] = c->tile_slot[t];
      c->bone_slot[i] = 0;
    }
  }
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    s->act_last = -1.0f;
    for (uint32_t k = 0; k < s->node_count; k++) c->node_slot[s->global[k]] = si;
  }
  for (uint32_t t = 0; t < c->tile_count; t++) {
    uint32_t lo = TILE_LO(c, t, 0), fill = TILE_FILL(c, t, 0), first = c->tile_slot[t];
    bool dense = fill - lo == c->tile_slot[t + 1] - first;
    for (uint32_t i = lo; dense && i < fill; i++) dense = c->node_slot[i] == first + (i - lo);
    c->roots_dense[t] = dense;
    /* an unused slot among the tile's reads the tile's first node: its root checks stay in the tile */
    for (uint32_t si = first; si < c->tile_slot[t + 1]; si++)
      if (!c->slots[si].used) c->slot_root[si] = lo;
  }
  c->unaligned_levels = false;
  for (uint32_t t = 0; t < c->tile_count; t++)
    for (uint32_t l = 0; l < c->level_count; l++) {
      size_t tl = (size_t)t * c->level_count + l;
      c->parent_shift[tl] = level_shift(c, t, l, false);
      c->child_shift[tl] = level_shift(c, t, l, true);
      /* a level of leaves (the last of uniform chains) reads each node itself, as the gather
       * does for a leaf: in place, shift 0 */
      bool leaves = true;
      for (uint32_t i = c->tile_lo[tl]; i < c->tile_hi[tl]; i++) leaves = leaves && c->nodes.first_child[i] < 0;
      if (c->child_shift[tl] < 0 && leaves) c->child_shift[tl] = 0;
      bool self = c->nodes.first_sibling != NULL;
      for (uint32_t i = c->tile_lo[tl]; self && i < c->tile_fill[tl]; i++)
        self = c->nodes.first_sibling[i] == (int32_t)i;
      c->sibling_self[tl] = self;
      bool aligned = l == 0 || (c->aligned[tl - 1] && c->parent_shift[tl] >= 0 &&
                                (int64_t)c->tile_lo[tl] - c->parent_shift[tl] == (int64_t)c->tile_lo[tl - 1]);
      size_t t0 = (size_t)t * c->level_count;
      bool full = c->tile_fill[tl] - c->tile_lo[tl] == c->tile_fill[t0] - c->tile_lo[t0];
      c->aligned[tl] = aligned ? (full ? ALIGNED_FULL : ALIGNED) : 0u;
      if (!aligned && c->tile_hi[tl] > c->tile_lo[tl]) c->unaligned_levels = true;
    }
  drop_links_when_shifted(c);
  c->ptr_valid = false;
  return true;
}

/* Inert padding and fresh nodes: zeros everywhere (finite, so masked blends stay finite) and
 * identity rotations. */
static void node_clear(chain_nodes *n, uint32_t i) {
  uint32_t nf;
  float *const *f = tress__chain_fields(n, &nf);
  for (uint32_t k = 0; k < nf; k++)
    if (f[k]) f[k][i] = 0.0f;
  n->cf_qw[i] = 1.0f;
  n->parent[i] = n->first_child[i] = -1;
  if (n->first_sibling) n->first_sibling[i] = -1;
}

/* Whether used slot si starts a new tile: si is of another tile kind (a tile runs one kind's
 * loops, so it never mixes them), or the running one is full and what is left of this kind's
 * run (run_left: its nodes from si on) is worth a tile of its own. A sliver of less than half a
 * tile joins the tile before it instead, whose per-level set-up it would otherwise pay again
 * (300 x 7, 2100 nodes: one tile, not 2048 nodes and 52). */
static bool tile_starts(const struct tress_chains *c, uint32_t si, uint32_t in_tile, int kind, const uint32_t *run_left) {
  if (chain_tile_kind(&c->slots[si].settings) != kind) return true;
  return in_tile >= TILE_NODES && run_left[si] >= TILE_NODES / 2;
}

/* run_left[si] for every used slot: its own nodes and those of the used slots after it up to
 * the first of another tile kind. */
static void fill_run_left(const struct tress_chains *c, uint32_t *run_left) {
  uint32_t left = 0;
  int kind = -1;
  for (uint32_t si = c->slot_count; si-- > 0;) {
    if (!c->slots[si].used) continue;
    int k = chain_tile_kind(&c->slots[si].settings);
    if (k != kind) left = 0;
    kind = k;
    left += c->slots[si].node_count;
    run_left[si] = left;
  }
}

/* Tiles are runs of whole chains (consecutive used slots of one tile kind) of about
 * TILE_NODES nodes. Inside a tile, nodes go level by level and chain by chain inside a level,
 * each level padded to whole vectors: tile t, level l holds real nodes [tile_lo, tile_fill)
 * and padding up to tile_hi. */
static bool plan_tiles(struct tress_chains *c, uint32_t levels, uint32_t *total_out) {
  uint32_t *run_left = malloc((c->slot_count ? c->slot_count : 1) * sizeof *run_left);
  if (!run_left) return false;
  fill_run_left(c, run_left);
  uint32_t tiles = 0, in_tile = TILE_NODES;
  int kind = -1; /* the running tile's */
  for (uint32_t si = 0; si < c->slot_count; si++) {
    if (!c->slots[si].used) continue;
    if (tile_starts(c, si, in_tile, kind, run_left)) {
      tiles++;
      in_tile = 0;
      kind = chain_tile_kind(&c->slots[si].settings);
    }
    in_tile += c->slots[si].node_count;
  }
  size_t tl = (size_t)(tiles ? tiles : 1) * (levels ? levels : 1);
  uint32_t *tile_slot = malloc((tiles + 1) * sizeof *tile_slot);
  uint32_t *tile_end = malloc((tiles + 1) * sizeof *tile_end);
  uint32_t *lo = malloc(tl * sizeof *lo), *fill = calloc(tl, sizeof *fill), *hi = malloc(tl * sizeof *hi);
  uint8_t *flags = calloc(tiles + 1, 1), *tile_kind = calloc(tiles + 1, 1);
  uint32_t *stepping = calloc(tiles + 1, sizeof *stepping);
  if (!tile_slot || !tile_end || !lo || !fill || !hi || !flags || !tile_kind || !stepping) {
    free(tile_slot); free(tile_end); free(lo); free(fill); free(hi); free(flags); free(tile_kind); free(stepping);
    free(run_left);
    return false;
  }
  uint32_t t = 0;
  in_tile = TILE_NODES;
  kind = -1;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    if (!c->slots[si].used) continue;
    if (tile_starts(c, si, in_tile, kind, run_left)) {
      kind = chain_tile_kind(&c->slots[si].settings);
      tile_kind[t] = (uint8_t)kind;
      tile_slot[t++] = si;
      in_tile = 0;
    }
    in_tile += c->slots[si].node_count;
  }
  tile_slot[tiles] = c->slot_count;
  free(run_left);
  uint32_t total = 0;
  for (t = 0; t < tiles; t++) {
    uint32_t *width = fill + (size_t)t * levels;
    for (uint32_t si = tile_slot[t]; si < tile_slot[t + 1]; si++) {
      const chain_slot *s = &c->slots[si];
      if (!s->used) continue;
      for (uint32_t k = 0; k < s->node_count; k++) width[slot_depth(s, k)]++;
    }
    for (uint32_t l = 0; l < levels; l++) {
      uint32_t w = width[l];
      lo[(size_t)t * levels + l] = total;
      width[l] = total + w; /* the count becomes the end of the real nodes */
      total += round_lanes(w);
      hi[(size_t)t * levels + l] = total;
    }
    tile_end[t] = total;
  }
  tile_end[tiles] = total;
  free(c->tile_slot); free(c->tile_end); free(c->tile_lo); free(c->tile_fill); free(c->tile_hi);
  free(c->tile_flags);
  free(c->tile_kind);
  free(c->tile_stepping);
  c->tile_stepping = stepping;
  c->tile_kind = tile_kind;
  c->tile_slot = tile_slot;
  c->tile_end = tile_end;
  c->tile_lo = lo;
  c->tile_fill = fill;
  c->tile_hi = hi;
  c->tile_flags = flags;
  c->tile_count = tiles;
  c->level_count = levels;
  *total_out = total;
  return true;
}

bool tress__chains_rebuild(struct tress_chains *c) {
  uint32_t levels = 0, total = 0;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    for (uint32_t k = 0; k < s->node_count; k++)
      if (slot_depth(s, k) + 1 > levels) levels = slot_depth(s, k) + 1;
  }
  if (!plan_tiles(c, levels, &total)) return false;
  uint32_t widest = 1;
  for (size_t k = 0; k < (size_t)c->tile_count * levels; k++)
    if (c->tile_hi[k] - c->tile_lo[k] > widest) widest = c->tile_hi[k] - c->tile_lo[k];
  if (!tress__chain_level_scratch_grow(c, widest)) return false;
  c->root_width = 0;
  for (uint32_t t = 0; t < c->tile_count; t++)
    if (TILE_HI(c, t, 0) - TILE_LO(c, t, 0) > c->root_width) c->root_width = TILE_HI(c, t, 0) - TILE_LO(c, t, 0);
  uint32_t tile_nodes = 1;
  for (uint32_t t = 0; t < c->tile_count; t++)
    if (c->tile_end[t] - c->tile_lo[(size_t)t * levels] > tile_nodes) tile_nodes = c->tile_end[t] - c->tile_lo[(size_t)t * levels];
  uint8_t kinds = 0;
  for (uint32_t t = 0; t < c->tile_count; t++) kinds |= c->tile_kind[t];
  if (!tress__chain_tile_scratch_grow(&c->tile, tile_nodes, kinds)) return false;
  uint32_t *cursor = malloc((levels ? levels : 1) * sizeof *cursor);
  chain_nodes fresh;
  uint8_t groups = 0;
  for (uint32_t si = 0; si < c->slot_count; si++)
    if (c->slots[si].used) groups |= slot_node_groups(&c->slots[si]);
  if (!cursor || !nodes_alloc(&fresh, total, groups)) {
    free(cursor);
    return false;
  }
  fresh.count = total;
  for (uint32_t i = 0; i < total; i++) node_clear(&fresh, i);
  chain_nodes *old = &c->nodes;
  uint32_t nf;
  float *const *from = tress__chain_fields(old, &nf);
  float *const *to = tress__chain_fields(&fresh, &nf);
  for (uint32_t t = 0; t < c->tile_count; t++) {
    memcpy(cursor, c->tile_lo + (size_t)t * levels, levels * sizeof *cursor);
    for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++) {
      chain_slot *s = &c->slots[si];
      if (!s->used) continue;
      for (uint32_t k = 0; k < s->node_count; k++) {
        uint32_t i = cursor[slot_depth(s, k)]++;
        /* carry the state over from the last layout; a chain whose nodes are new (bound, or its
         * tips changed: rest pending) starts from the cleared node */
        if (!s->rest)
          for (uint32_t f = 0; f < nf; f++)
            if (to[f] && from[f]) to[f][i] = from[f][s->global[k]];
        s->global[k] = i;
      }
      s->root = s->node_count ? s->global[0] : 0;
    }
  }
  free(cursor);
  for (uint32_t si = 0; si < c->slot_count; si++) c->slot_root[si] = c->slots[si].used ? c->slots[si].root : 0;
  /* Static per-node data: the rest pose from the node arrays (carried above), or for new nodes
   * from the bind-time copy, which the arrays then replace (freed below). */
  for (uint32_t si = 0; si < c->slot_count; si++) {
    chain_slot *s = &c->slots[si];
    if (!s->used) continue;
    for (uint32_t k = 0; k < s->node_count; k++) {
      uint32_t i = s->global[k];
      if (s->rest) {
        const tress_xform *r = &s->rest[k];
        fresh.cf_px[i] = r->p[0]; fresh.cf_py[i] = r->p[1]; fresh.cf_pz[i] = r->p[2];
        fresh.cf_qx[i] = r->q[0]; fresh.cf_qy[i] = r->q[1]; fresh.cf_qz[i] = r->q[2]; fresh.cf_qw[i] = r->q[3];
      }
      float r[3] = {fresh.cf_px[i], fresh.cf_py[i], fresh.cf_pz[i]};
      float len = s->local_parent[k] < 0 ? 0.0f : sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      fresh.parent[i] = s->local_parent[k] < 0 ? -1 : (int32_t)s->global[s->local_parent[k]];
      fresh.first_child[i] = -1;
      /* the VRM bone axis: the unit rest offset from the parent (none for a zero offset) */
      float inv = len > 1e-12f ? 1.0f / len : 0.0f;
      if (fresh.ax_x) {
        fresh.ax_x[i] = r[0] * inv; fresh.ax_y[i] = r[1] * inv; fresh.ax_z[i] = r[2] * inv;
      }
    }
    tress__chain_fill_settings(c, &fresh, si);
    /* First child in bind order: the one a bone with several children aims at. */
    for (uint32_t k = s->node_count; k-- > 0;) {
      if (s->local_parent[k] < 0) continue;
      uint32_t p = s->global[s->local_parent[k]];
      uint32_t i = s->global[k];
      fresh.first_child[p] = (int32_t)i; /* its rest aim: the child's cframe position (aim_view) */
    }
    for (uint32_t k = 0; fresh.first_sibling && k < s->node_count; k++) {
      int32_t p = s->local_parent[k];
      fresh.first_sibling[s->global[k]] = p < 0 ? -1 : fresh.first_child[s->global[p]];
    }
  }
  tress__chain_nodes_free(old);
  c->nodes = fresh;
  for (uint32_t si = 0; si < c->slot_count; si++) {
    free(c->slots[si].rest); /* the node arrays hold it now */
    c->slots[si].rest = NULL;
  }
  if (!index_levels(c, total)) return false;
  c->dirty = false;
  return true;
}

float *const *tress__chain_fields(const chain_nodes *n, uint32_t *count) {
  /* The struct is a run of float pointers followed by the index arrays. */
  *count = (uint32_t)(offsetof(chain_nodes, parent) / sizeof(float *));
  return (float *const *)n;
}

/* ---- memory ---- */

static size_t lanes_bytes(const tress_collider_lanes *l) {
  return l->ax ? (size_t)8 * l->slot_cap * l->stride * sizeof(float) : 0;
}

/* Per node, as allocated: every float field (rounded up to whole cache lines, as floats_alloc
 * does) and the three index arrays. */
static size_t nodes_bytes(const chain_nodes *n) {
  uint32_t nf;
  float *const *f = tress__chain_fields(n, &nf);
  size_t line = ((size_t)(n->cap ? n->cap : 1) * sizeof(float) + 63) & ~(size_t)63, total = 0;
  for (uint32_t k = 0; k < nf; k++) total += f[k] ? line : 0;
  size_t links = (n->parent ? 2 : 0) + (n->first_sibling ? 1 : 0);
  return total + links * n->cap * sizeof(int32_t);
}

static size_t tile_scratch_bytes(const tile_scratch *w) {
  size_t total = 0, line = ((size_t)w->cap * sizeof(float) + 63) & ~(size_t)63;
#define COUNT_TILE_FIELD(name) total += w->name ? line : 0;
  TILE_FIELDS(COUNT_TILE_FIELD)
  TILE_VRM_FIELDS(COUNT_TILE_FIELD)
  TILE_THREE_VRM_FIELDS(COUNT_TILE_FIELD)
#undef COUNT_TILE_FIELD
  return total;
}

static size_t slot_bytes(const chain_slot *s) {
  if (!s->used) return 0;
  size_t per_node = sizeof *s->ids + sizeof *s->local_parent + sizeof *s->depth + sizeof *s->global +
                    (s->rest ? sizeof *s->rest : 0);
  return (size_t)s->node_count * per_node + (size_t)s->joint_count * sizeof *s->joints +
         (s->center ? sizeof *s->center : 0);
}

size_t tress__chains_memory_bytes(const struct tress_chains *c) {
  size_t total = sizeof *c + (size_t)c->slot_cap * sizeof *c->slots + (size_t)c->set_cap * 2 * sizeof *c->sets;
  total += (size_t)SLOT_FIELDS * ((((size_t)c->per_cap * sizeof(float)) + 63) & ~(size_t)63);
  total += (size_t)c->per_cap * (sizeof *c->slot_frame + sizeof *c->slot_root + sizeof *c->anchor_src);
  for (uint32_t si = 0; si < c->slot_count; si++) total += slot_bytes(&c->slots[si]);
  total += lanes_bytes(&c->lanes) + lanes_bytes(&c->tile_lanes);
  total += nodes_bytes(&c->nodes) + tile_scratch_bytes(&c->tile);
  total += (size_t)G_SCRATCH * ((((size_t)c->g_cap * sizeof(float)) + 63) & ~(size_t)63);
  total += (size_t)c->ptr_cap * (sizeof *c->node_slot + sizeof *c->bone_slot);
  if (c->tile_slot) {
    size_t tiles = c->tile_count, tile_levels = tiles * c->level_count;
    total += (tiles + 1) * (3 * sizeof(uint32_t) + 3);  /* tile_slot, tile_end, tile_stepping, tile_flags, tile_kind, roots_dense */
    total += tile_levels * 3 * sizeof(uint32_t);        /* tile_lo, tile_fill, tile_hi */
    total += (tile_levels + 1) * (2 * sizeof(int64_t) + 3); /* the shifts, sibling_self, aligned, still */
  }
  return total;
}
