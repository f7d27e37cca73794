/* collider.c - sphere/capsule colliders: definitions, world resolution, collider sets, and the
 * push-out a chain node gets after its link constraint.
 *
 * Every shape is a capsule (a sphere is one with coincident end centres), so the push is one
 * branch-free formula: the closest point on segment ab, then out along the normal by the
 * penetration. The batch routine loops slot-outer, node-inner over contiguous arrays, so the
 * compiler vectorizes the node loop (blends instead of branches; -fno-math-errno for sqrtf).
 * Each push keeps the node's link length to its parent (see push_keep_link), so a strand rests
 * on a collider without sinking in under gravity. A point exactly on a collider's axis has no
 * normal; it is pushed along +Y, a choice that is arbitrary but deterministic.
 */
#include "collider_lanes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tress_collider_def tress_default_collider_def(void) {
  tress_collider_def d;
  memset(&d, 0, sizeof d);
  d.shape = TRESS_COLLIDER_SPHERE;
  d.attach = (tress_id){0};
  d.radius = 10.0f;
  return d;
}

tress_collider_def tress_collider_capsule_y(tress_id attach, const float offset[3], float height, float radius) {
  tress_collider_def d = tress_default_collider_def();
  d.shape = TRESS_COLLIDER_CAPSULE;
  d.attach = attach;
  d.radius = radius;
  float h = 0.5f * height;
  float o[3] = {0.0f, 0.0f, 0.0f};
  if (offset) memcpy(o, offset, sizeof o);
  d.offset[0] = o[0]; d.offset[1] = o[1] - h; d.offset[2] = o[2];
  d.tail[0] = o[0];   d.tail[1] = o[1] + h;   d.tail[2] = o[2];
  return d;
}

float tress_collider_def_get_height(const tress_collider_def *def) {
  if (!def || def->shape != TRESS_COLLIDER_CAPSULE) return 0.0f;
  float dx = def->tail[0] - def->offset[0], dy = def->tail[1] - def->offset[1], dz = def->tail[2] - def->offset[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

bool tress_collider_def_is_valid(const tress_collider_def *def) {
  if (!def) return false;
  if (!isfinite(def->radius) || def->radius < 0.0f) return false;
  if (!tress_vec3_is_finite(def->offset)) return false;
  if (def->shape == TRESS_COLLIDER_CAPSULE) {
    if (!tress_vec3_is_finite(def->tail)) return false;
    if (!(tress_collider_def_get_height(def) > 0.0f)) return false;
  } else if (def->shape != TRESS_COLLIDER_SPHERE) {
    return false;
  }
  return true;
}

tress_collider_world tress_collider_resolve_in(tress_xform frame, const tress_collider_def *def) {
  tress_collider_world w;
  float a[3], b[3];
  tress_xform_point(frame, def->offset, a);
  if (def->shape == TRESS_COLLIDER_CAPSULE) {
    tress_xform_point(frame, def->tail, b);
  } else {
    memcpy(b, a, sizeof b);
  }
  w.ax = a[0]; w.ay = a[1]; w.az = a[2];
  w.bx = b[0]; w.by = b[1]; w.bz = b[2];
  w.radius = def->radius;
  return w;
}

tress_collider_world tress_collider_resolve(const tress_scene *scene, const tress_collider_def *def) {
  tress_xform frame = tress_xform_identity();
  if (scene && !tress_id_is_null(def->attach) && tress_instance_is_valid(scene, def->attach)) {
    frame = tress_instance_get_world(scene, def->attach);
    if (!tress_xform_is_finite(frame)) frame = tress_xform_identity();
  }
  return tress_collider_resolve_in(frame, def);
}

bool tress_collider_set_add(tress_collider_set *set, uint16_t index) {
  if (!set || set->count >= TRESS_COLLIDER_SET_MAX) return false;
  for (uint32_t i = 0; i < set->count; i++)
    if (set->index[i] == index) return false;
  set->index[set->count++] = index;
  return true;
}

/* ---- the push ---- */

/*
 * One collider against one node, keeping the link. A plain radial push followed by a link
 * restore leaves the node inside by a fraction of the push every step (the restore pulls it
 * back along the chord), so the strand would rest a little inside under gravity. Instead the
 * node goes to the nearest point that satisfies both at once: the circle where the sphere of
 * radius `rest` around the parent meets the sphere of radius R = collider + strand around the
 * collider's nearest axis point c (for a capsule, c is taken from the node's current position;
 * the small error that leaves is gone after a substep or two). When no such circle exists
 * (the collider swallows the whole link), the node is pushed radially and the final link
 * restore wins: the link is never stretched.
 */
static inline void push_keep_link(float *x, float *y, float *z, float px, float py, float pz, float rest,
                                  float ax, float ay, float az, float bx, float by, float bz, float radius) {
  float abx = bx - ax, aby = by - ay, abz = bz - az;
  float apx = *x - ax, apy = *y - ay, apz = *z - az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float t = (apx * abx + apy * aby + apz * abz) / (ab2 > 1e-12f ? ab2 : 1e-12f);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  float cx = ax + abx * t, cy = ay + aby * t, cz = az + abz * t;
  float dx = *x - cx, dy = *y - cy, dz = *z - cz;
  float d = sqrtf(dx * dx + dy * dy + dz * dz);
  float pen = radius - d;
  float hit = pen > 0.0f ? 1.0f : 0.0f;
  /* radial fallback (on the axis: no normal, push along +Y) */
  float on_axis = d > 1e-9f ? 0.0f : 1.0f;
  float rs = (1.0f - on_axis) * pen / (d > 1e-9f ? d : 1.0f);
  float rx = *x + dx * rs, ry = *y + dy * rs + on_axis * pen, rz = *z + dz * rs;
  /* the circle of points at `rest` from the parent and `radius` from c */
  float ux = cx - px, uy = cy - py, uz = cz - pz;
  float dc = sqrtf(ux * ux + uy * uy + uz * uz);
  float inv_dc = dc > 1e-9f ? 1.0f / dc : 0.0f;
  ux *= inv_dc; uy *= inv_dc; uz *= inv_dc;
  float h = (rest * rest - radius * radius + dc * dc) * 0.5f * inv_dc;
  float rho2 = rest * rest - h * h;
  float circle = (dc > 1e-9f && rho2 >= 0.0f) ? 1.0f : 0.0f;
  float rho = sqrtf(rho2 > 0.0f ? rho2 : 0.0f);
  float wx = *x - px, wy = *y - py, wz = *z - pz;
  float wu = wx * ux + wy * uy + wz * uz;
  float vx = wx - ux * wu, vy = wy - uy * wu, vz = wz - uz * wu;
  float vlen = sqrtf(vx * vx + vy * vy + vz * vz);
  /* the node on the parent-collider line (a strand hanging straight onto a sphere's top):
   * any direction round the circle will do; take one perpendicular to u, deterministically */
  float use_z = uz * uz < 0.81f ? 1.0f : 0.0f;
  float qx = uy * use_z, qy = -ux * use_z + uz * (1.0f - use_z), qz = -uy * (1.0f - use_z);
  float qlen = sqrtf(qx * qx + qy * qy + qz * qz);
  float has_v = vlen > 1e-7f ? 1.0f : 0.0f;
  float nvx = has_v * vx / (vlen > 1e-7f ? vlen : 1.0f) + (1.0f - has_v) * qx / (qlen > 1e-9f ? qlen : 1.0f);
  float nvy = has_v * vy / (vlen > 1e-7f ? vlen : 1.0f) + (1.0f - has_v) * qy / (qlen > 1e-9f ? qlen : 1.0f);
  float nvz = has_v * vz / (vlen > 1e-7f ? vlen : 1.0f) + (1.0f - has_v) * qz / (qlen > 1e-9f ? qlen : 1.0f);
  float kx = px + ux * h + nvx * rho, ky = py + uy * h + nvy * rho, kz = pz + uz * h + nvz * rho;
  /* selects, not a weighted sum: an unused slot (radius -1e30) makes the untaken candidates
   * inf/NaN, and NaN * 0 would leak into a node that shares a block with a hit */
  bool take = hit > 0.0f, on_circle = circle > 0.0f;
  *x = take ? (on_circle ? kx : rx) : *x;
  *y = take ? (on_circle ? ky : ry) : *y;
  *z = take ? (on_circle ? kz : rz) : *z;
}

static inline void restore_link(float *x, float *y, float *z, float px, float py, float pz, float rest_len) {
  float dx = *x - px, dy = *y - py, dz = *z - pz;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  float s = len > 1e-12f ? rest_len / len : 0.0f;
  *x = px + dx * s;
  *y = py + dy * s;
  *z = pz + dz * s;
}

static inline bool inside(float x, float y, float z, const tress_collider_world *c, float strand_radius) {
  float abx = c->bx - c->ax, aby = c->by - c->ay, abz = c->bz - c->az;
  float apx = x - c->ax, apy = y - c->ay, apz = z - c->az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float t = (apx * abx + apy * aby + apz * abz) / (ab2 > 1e-12f ? ab2 : 1e-12f);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  float dx = apx - abx * t, dy = apy - aby * t, dz = apz - abz * t;
  float r = c->radius + strand_radius;
  return dx * dx + dy * dy + dz * dz < r * r;
}

bool tress__collider_push_point(float p[3], const float parent[3], float rest_len, float strand_radius,
                               const tress_collider_world *colliders, uint32_t n) {
  bool hit = false;
  for (uint32_t k = 0; k < n; k++) {
    const tress_collider_world *c = &colliders[k];
    hit |= inside(p[0], p[1], p[2], c, strand_radius);
    push_keep_link(&p[0], &p[1], &p[2], parent[0], parent[1], parent[2], rest_len, c->ax, c->ay, c->az, c->bx,
                   c->by, c->bz, c->radius + strand_radius);
  }
  restore_link(&p[0], &p[1], &p[2], parent[0], parent[1], parent[2], rest_len);
  return hit;
}

/* ---- lanes ---- */

bool tress__collider_lanes_init(tress_collider_lanes *lanes, uint32_t slots, uint32_t capacity) {
  memset(lanes, 0, sizeof *lanes);
  size_t per = (size_t)(slots ? slots : 1) * (capacity ? capacity : 1);
  float *block = malloc(per * 7 * sizeof(float));
  if (!block) return false;
  float **f[7] = {&lanes->ax, &lanes->ay, &lanes->az, &lanes->bx, &lanes->by, &lanes->bz, &lanes->radius};
  for (int i = 0; i < 7; i++) *f[i] = block + per * (size_t)i;
  for (size_t i = 0; i < per; i++) {
    lanes->ax[i] = lanes->ay[i] = lanes->az[i] = lanes->bx[i] = lanes->by[i] = lanes->bz[i] = 0.0f;
    lanes->radius[i] = TRESS_COLLIDER_UNUSED_RADIUS;
  }
  lanes->slots = 0;
  lanes->slot_cap = slots ? slots : 1;
  lanes->stride = capacity ? capacity : 1;
  return true;
}

void tress__collider_lanes_free(tress_collider_lanes *lanes) {
  if (!lanes) return;
  free(lanes->ax); /* the block's start */
  memset(lanes, 0, sizeof *lanes);
}

void tress__collider_lanes_gather(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                                 const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                                 uint32_t count) {
  if (count > lanes->stride) count = lanes->stride;
  uint32_t widest = 0;
  for (uint32_t j = 0; j < count; j++) {
    uint32_t si = set_of_node ? set_of_node[j] : j;
    uint32_t n = si < set_count ? sets[si].count : 0;
    if (n > widest) widest = n;
  }
  if (widest > lanes->slot_cap) widest = lanes->slot_cap;
  /* slot-outer: each pass writes seven contiguous streams */
  for (uint32_t k = 0; k < widest; k++) {
    size_t o = (size_t)k * lanes->stride;
    float *ax = lanes->ax + o, *ay = lanes->ay + o, *az = lanes->az + o;
    float *bx = lanes->bx + o, *by = lanes->by + o, *bz = lanes->bz + o, *r = lanes->radius + o;
    for (uint32_t j = 0; j < count; j++) {
      uint32_t si = set_of_node ? set_of_node[j] : j;
      const tress_collider_set *s = si < set_count ? &sets[si] : NULL;
      if (s && k < s->count && s->index[k] < world_count) {
        const tress_collider_world *c = &world[s->index[k]];
        ax[j] = c->ax; ay[j] = c->ay; az[j] = c->az;
        bx[j] = c->bx; by[j] = c->by; bz[j] = c->bz;
        r[j] = c->radius;
      } else {
        ax[j] = ay[j] = az[j] = bx[j] = by[j] = bz[j] = 0.0f;
        r[j] = TRESS_COLLIDER_UNUSED_RADIUS;
      }
    }
  }
  lanes->slots = widest;
}

tress_collider_lanes tress__collider_lanes_view(const tress_collider_lanes *lanes, uint32_t first) {
  tress_collider_lanes v = *lanes;
  if (first > lanes->stride) first = lanes->stride;
  v.ax += first; v.ay += first; v.az += first;
  v.bx += first; v.by += first; v.bz += first;
  v.radius += first;
  return v;
}

enum { PUSH_BLOCK = 32 };

/* Whether point p may lie within r of segment ab: compares the squared distance to ab's line
 * (scaled by |ab|^2) and to a; a sphere (ab == 0) reduces to |ap| < r. */
static inline int may_hit(float x, float y, float z, float ax, float ay, float az, float bx, float by, float bz,
                          float r) {
  float abx = bx - ax, aby = by - ay, abz = bz - az;
  float apx = x - ax, apy = y - ay, apz = z - az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float ap_ab = apx * abx + apy * aby + apz * abz;
  float ap2 = apx * apx + apy * apy + apz * apz;
  float r2 = r > 0.0f ? r * r : -1.0f;
  return ap2 * ab2 - ap_ab * ap_ab < r2 * ab2 || ap2 < r2;
}

/* Whether any node of a block may be inside its slot's collider: squared distances only (no
 * sqrt, no divide). The distance to a capsule's infinite axis, |ap|^2 - (ap.ab)^2 / |ab|^2,
 * is a lower bound of the distance to the segment, so this never misses a hit. Kept out of
 * line so each loop is its own loop nest and vectorizes. */
__attribute__((noinline)) static int block_may_hit(const float *restrict x, const float *restrict y,
                                                   const float *restrict z, const float *restrict cax,
                                                   const float *restrict cay, const float *restrict caz,
                                                   const float *restrict cbx, const float *restrict cby,
                                                   const float *restrict cbz, const float *restrict cr,
                                                   const float *restrict strand_radius, uint32_t n) {
  int any = 0;
  for (uint32_t j = 0; j < n; j++)
    any |= may_hit(x[j], y[j], z[j], cax[j], cay[j], caz[j], cbx[j], cby[j], cbz[j], cr[j] + strand_radius[j]);
  return any;
}

__attribute__((noinline)) static void block_push(float *restrict x, float *restrict y, float *restrict z,
                                                 const float *restrict px, const float *restrict py,
                                                 const float *restrict pz, const float *restrict rest,
                                                 const float *restrict cax, const float *restrict cay,
                                                 const float *restrict caz, const float *restrict cbx,
                                                 const float *restrict cby, const float *restrict cbz,
                                                 const float *restrict cr, const float *restrict strand_radius,
                                                 uint32_t n) {
  for (uint32_t j = 0; j < n; j++)
    push_keep_link(&x[j], &y[j], &z[j], px[j], py[j], pz[j], rest[j], cax[j], cay[j], caz[j], cbx[j], cby[j],
                   cbz[j], cr[j] + strand_radius[j]);
}

__attribute__((noinline)) static void restore_links(float *restrict x, float *restrict y, float *restrict z,
                                                    const float *restrict px, const float *restrict py,
                                                    const float *restrict pz, const float *restrict rest,
                                                    uint32_t n) {
  for (uint32_t j = 0; j < n; j++) {
    float dx = x[j] - px[j], dy = y[j] - py[j], dz = z[j] - pz[j];
    float len = sqrtf(dx * dx + dy * dy + dz * dz);
    float s = (len > 1e-12f ? 1.0f : 0.0f) * rest[j] / (len > 1e-12f ? len : 1.0f);
    x[j] = px[j] + dx * s;
    y[j] = py[j] + dy * s;
    z[j] = pz[j] + dz * s;
  }
}

void tress__collider_push_level(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                               const float *restrict py, const float *restrict pz, const float *restrict rest,
                               const float *restrict strand_radius, uint32_t count,
                               const tress_collider_lanes *lanes) {
  if (!lanes || lanes->slots == 0 || count == 0) return;
  for (uint32_t k = 0; k < lanes->slots; k++) {
    size_t o = (size_t)k * lanes->stride;
    const float *cax = lanes->ax + o, *cay = lanes->ay + o, *caz = lanes->az + o;
    const float *cbx = lanes->bx + o, *cby = lanes->by + o, *cbz = lanes->bz + o;
    const float *cr = lanes->radius + o;
    /* Blocks of nodes: the cheap test first, the full push only where some node is inside;
     * most nodes touch few of their colliders. */
    for (uint32_t lo = 0; lo < count; lo += PUSH_BLOCK) {
      uint32_t n = count - lo < PUSH_BLOCK ? count - lo : PUSH_BLOCK;
      if (!block_may_hit(x + lo, y + lo, z + lo, cax + lo, cay + lo, caz + lo, cbx + lo, cby + lo, cbz + lo, cr + lo,
                         strand_radius + lo, n))
        continue;
      block_push(x + lo, y + lo, z + lo, px + lo, py + lo, pz + lo, rest + lo, cax + lo, cay + lo, caz + lo,
                 cbx + lo, cby + lo, cbz + lo, cr + lo, strand_radius + lo, n);
    }
  }
  /* The link back to the parent, for every node (a node no collider moved already has it,
   * within rounding, from the solver's link constraint). */
  restore_links(x, y, z, px, py, pz, rest, count);
}

/* ---- the same, reading each node's colliders through its set index ---- */

/* As block_may_hit / block_push, with slot data at [set_of_node[j]]: gcc emulates the gathers
 * and still vectorizes the math, so no per-node copy of collider data is ever made. */
__attribute__((noinline)) static int block_may_hit_sets(const float *restrict x, const float *restrict y,
                                                        const float *restrict z, const float *restrict cax,
                                                        const float *restrict cay, const float *restrict caz,
                                                        const float *restrict cbx, const float *restrict cby,
                                                        const float *restrict cbz, const float *restrict cr,
                                                        const float *restrict strand_radius,
                                                        const uint32_t *restrict set, uint32_t n) {
  int any = 0;
  for (uint32_t j = 0; j < n; j++) {
    uint32_t s = set[j];
    any |= may_hit(x[j], y[j], z[j], cax[s], cay[s], caz[s], cbx[s], cby[s], cbz[s], cr[s] + strand_radius[j]);
  }
  return any;
}

__attribute__((noinline)) static void block_push_sets(float *restrict x, float *restrict y, float *restrict z,
                                                      const float *restrict px, const float *restrict py,
                                                      const float *restrict pz, const float *restrict rest,
                                                      const float *restrict cax, const float *restrict cay,
                                                      const float *restrict caz, const float *restrict cbx,
                                                      const float *restrict cby, const float *restrict cbz,
                                                      const float *restrict cr, const float *restrict strand_radius,
                                                      const uint32_t *restrict set, uint32_t n) {
  for (uint32_t j = 0; j < n; j++) {
    uint32_t s = set[j];
    push_keep_link(&x[j], &y[j], &z[j], px[j], py[j], pz[j], rest[j], cax[s], cay[s], caz[s], cbx[s], cby[s], cbz[s],
                   cr[s] + strand_radius[j]);
  }
}

void tress__collider_push_level_sets(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                                    const float *restrict py, const float *restrict pz, const float *restrict rest,
                                    const float *restrict strand_radius, uint32_t count,
                                    const tress_collider_lanes *set_lanes, const uint32_t *restrict set_of_node) {
  if (!set_lanes || set_lanes->slots == 0 || count == 0 || !set_of_node) return;
  for (uint32_t k = 0; k < set_lanes->slots; k++) {
    size_t o = (size_t)k * set_lanes->stride;
    const float *cax = set_lanes->ax + o, *cay = set_lanes->ay + o, *caz = set_lanes->az + o;
    const float *cbx = set_lanes->bx + o, *cby = set_lanes->by + o, *cbz = set_lanes->bz + o;
    const float *cr = set_lanes->radius + o;
    for (uint32_t lo = 0; lo < count; lo += PUSH_BLOCK) {
      uint32_t n = count - lo < PUSH_BLOCK ? count - lo : PUSH_BLOCK;
      if (!block_may_hit_sets(x + lo, y + lo, z + lo, cax, cay, caz, cbx, cby, cbz, cr, strand_radius + lo,
                              set_of_node + lo, n))
        continue;
      block_push_sets(x + lo, y + lo, z + lo, px + lo, py + lo, pz + lo, rest + lo, cax, cay, caz, cbx, cby, cbz, cr,
                      strand_radius + lo, set_of_node + lo, n);
    }
  }
  restore_links(x, y, z, px, py, pz, rest, count);
}
