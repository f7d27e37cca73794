/* collider.c - colliders: definitions, world resolution, collider sets, and the push a chain
 * node gets after its link constraint (and a rope or cloth particle after its relaxation).
 *
 * Every round shape is a capsule (a sphere is one with coincident end centres) and a plane is a
 * point and a normal, so the push is one branch-free formula over a shape code (probe_shape):
 * the closest point on segment ab (or the plane's signed distance), then along the normal by
 * the penetration, out of an outside shape, into an inside one. The batch routine loops slot-outer, node-inner over contiguous arrays, so the
 * compiler vectorizes the node loop (blends instead of branches; -fno-math-errno for sqrtf).
 * Each push keeps the node's link length to its parent (see push_keep_link), so a strand rests
 * on a collider without sinking in under gravity. A point exactly on a collider's axis has no
 * normal; it is pushed along +Y, a choice that is arbitrary but deterministic.
 */
#include "collider_lanes.h"
#include "simd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tress_collider_def tress_default_collider_def(void) {
  tress_collider_def d;
  memset(&d, 0, sizeof d);
  d.shape = TRESS_COLLIDER_SPHERE;
  d.attach = (tress_id){0};
  d.radius = 10.0f;
  d.normal[2] = 1.0f;
  return d;
}

const char *tress_collider_shape_name(tress_collider_shape shape) {
  switch (shape) {
  case TRESS_COLLIDER_SPHERE: return "sphere";
  case TRESS_COLLIDER_CAPSULE: return "capsule";
  case TRESS_COLLIDER_PLANE: return "plane";
  case TRESS_COLLIDER_INSIDE_SPHERE: return "inside_sphere";
  case TRESS_COLLIDER_INSIDE_CAPSULE: return "inside_capsule";
  }
  return "unknown";
}

tress_collider_def tress_collider_plane(tress_id attach, const float offset[3], const float normal[3]) {
  tress_collider_def d = tress_default_collider_def();
  d.shape = TRESS_COLLIDER_PLANE;
  d.attach = attach;
  d.radius = 0.0f;
  if (offset) memcpy(d.offset, offset, sizeof d.offset);
  if (normal) memcpy(d.normal, normal, sizeof d.normal);
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
  if (!def || !tress_collider_shape_is_capsule(def->shape)) return 0.0f;
  float dx = def->tail[0] - def->offset[0], dy = def->tail[1] - def->offset[1], dz = def->tail[2] - def->offset[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

bool tress_collider_def_is_valid(const tress_collider_def *def) {
  if (!def) return false;
  if (!isfinite(def->radius) || def->radius < 0.0f) return false;
  if (!tress_vec3_is_finite(def->offset)) return false;
  switch (def->shape) {
  case TRESS_COLLIDER_SPHERE:
  case TRESS_COLLIDER_INSIDE_SPHERE: return true;
  case TRESS_COLLIDER_CAPSULE:
  case TRESS_COLLIDER_INSIDE_CAPSULE:
    return tress_vec3_is_finite(def->tail) && tress_collider_def_get_height(def) > 0.0f;
  case TRESS_COLLIDER_PLANE: {
    const float *n = def->normal;
    return tress_vec3_is_finite(n) && n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 1e-12f;
  }
  }
  return false;
}

void tress__collider_resolve_scaled(const tress_xform *frame, float scale, const tress_collider_def *def,
                                    tress_collider_world *out) {
  float off[3] = {def->offset[0], def->offset[1], def->offset[2]};
  float a[3], b[3];
  if (scale != 1.0f)
    for (int k = 0; k < 3; k++) off[k] *= scale;
  tress_quat_rotate(frame->q, off, a);
  for (int k = 0; k < 3; k++) a[k] += frame->p[k];
  if (tress_collider_shape_is_capsule(def->shape)) {
    float tail[3] = {def->tail[0], def->tail[1], def->tail[2]};
    if (scale != 1.0f)
      for (int k = 0; k < 3; k++) tail[k] *= scale;
    tress_quat_rotate(frame->q, tail, b);
    for (int k = 0; k < 3; k++) b[k] += frame->p[k];
  } else if (def->shape == TRESS_COLLIDER_PLANE) {
    /* rotation only (frames carry no scale); unit length so the push is in units */
    tress_quat_rotate(frame->q, def->normal, b);
    float l2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    float inv = l2 > 1e-24f ? 1.0f / sqrtf(l2) : 0.0f;
    for (int k = 0; k < 3; k++) b[k] *= inv;
  } else {
    memcpy(b, a, sizeof b);
  }
  out->ax = a[0]; out->ay = a[1]; out->az = a[2];
  out->bx = b[0]; out->by = b[1]; out->bz = b[2];
  out->radius = def->shape == TRESS_COLLIDER_PLANE ? 0.0f : scale != 1.0f ? def->radius * scale : def->radius;
  out->shape = def->shape;
}

tress_collider_world tress_collider_resolve_in(tress_xform frame, const tress_collider_def *def) {
  tress_collider_world w;
  tress__collider_resolve_scaled(&frame, 1.0f, def, &w);
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

/* Shape codes in the lanes (a float lane, so the kernels select instead of branching). */
#define SHAPE_OUTSIDE 0.0f
#define SHAPE_INSIDE 1.0f
#define SHAPE_PLANE 2.0f

static inline float shape_code(tress_collider_shape s) {
  if (s == TRESS_COLLIDER_PLANE) return SHAPE_PLANE;
  if (s == TRESS_COLLIDER_INSIDE_SPHERE || s == TRESS_COLLIDER_INSIDE_CAPSULE) return SHAPE_INSIDE;
  return SHAPE_OUTSIDE;
}

/*
 * Where a node of strand radius sr stands against one slot, every shape in one formula: u the
 * unit direction the shape pushes along (out of a sphere or capsule, into an inside one, the
 * plane's normal), sd the node's distance along it (from the nearest axis point c, or the
 * plane's signed distance), R the distance it must keep (radius + sr outside, radius - sr
 * inside, sr for a plane). The node is clear when sd >= R (outside, plane) or sd <= R
 * (inside); the push is p += u * (R - sd). A point exactly on a collider's axis has no normal;
 * it is pushed along +Y, a choice that is arbitrary but deterministic. An unused slot (radius
 * TRESS_COLLIDER_UNUSED_RADIUS, outside) never hits.
 */
typedef struct probe {
  float ux, uy, uz, sd, R, cx, cy, cz;
  bool hit, plane;
} probe;

static inline probe probe_shape(float x, float y, float z, float ax, float ay, float az, float bx, float by, float bz,
                                float radius, float kind, float sr) {
  probe o;
  bool plane = kind == SHAPE_PLANE, in = kind == SHAPE_INSIDE;
  float abx = bx - ax, aby = by - ay, abz = bz - az;
  float apx = x - ax, apy = y - ay, apz = z - az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float t = (apx * abx + apy * aby + apz * abz) / (ab2 > 1e-12f ? ab2 : 1e-12f);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  o.cx = ax + abx * t; o.cy = ay + aby * t; o.cz = az + abz * t;
  float dx = x - o.cx, dy = y - o.cy, dz = z - o.cz;
  float d = sqrtf(dx * dx + dy * dy + dz * dz);
  float inv = d > 1e-9f ? 1.0f / d : 0.0f;
  float on_axis = d > 1e-9f ? 0.0f : 1.0f;
  /* a plane keeps its normal in b */
  float s = apx * bx + apy * by + apz * bz;
  o.ux = plane ? bx : dx * inv;
  o.uy = plane ? by : dy * inv + on_axis;
  o.uz = plane ? bz : dz * inv;
  o.sd = plane ? s : d;
  float r = in ? radius - sr : radius + sr;
  o.R = in ? (r > 0.0f ? r : 0.0f) : r;
  o.hit = in ? o.sd > o.R : o.sd < o.R;
  o.plane = plane;
  return o;
}

/*
 * One collider against one node, keeping the link (the pose model's response). A plain push
 * followed by a link restore leaves the node inside by a fraction of the push every step (the
 * restore pulls it back along the chord), so the strand would rest a little inside under
 * gravity. Instead the node goes to the nearest point that satisfies both at once: the circle
 * where the sphere of radius `rest` around the parent meets the shape's boundary (the sphere
 * of radius R around the collider's nearest axis point c, or the plane offset by R). For a
 * capsule, c is taken from the node's current position; the small error that leaves is gone
 * after a substep or two. The same circle serves an inside shape: the nearest allowed point
 * to a node outside it is on that circle too. When no such circle exists (a collider swallows
 * the whole link, or the link cannot reach into an inside one), the node is pushed straight
 * and the final link restore wins: the link is never stretched.
 */
static inline void push_keep_link(float *x, float *y, float *z, float px, float py, float pz, float rest,
                                  float ax, float ay, float az, float bx, float by, float bz, float radius,
                                  float kind, float sr) {
  probe o = probe_shape(*x, *y, *z, ax, ay, az, bx, by, bz, radius, kind, sr);
  float pen = o.R - o.sd;
  float rx = *x + o.ux * pen, ry = *y + o.uy * pen, rz = *z + o.uz * pen;
  /* the circle's axis u from the parent, and its centre's distance h along it */
  float ux = o.cx - px, uy = o.cy - py, uz = o.cz - pz;
  float dc = sqrtf(ux * ux + uy * uy + uz * uz);
  float inv_dc = dc > 1e-9f ? 1.0f / dc : 0.0f;
  float hs = (rest * rest - o.R * o.R + dc * dc) * 0.5f * inv_dc;
  float hp = (px - ax) * bx + (py - ay) * by + (pz - az) * bz - o.R;
  ux = o.plane ? -bx : ux * inv_dc;
  uy = o.plane ? -by : uy * inv_dc;
  uz = o.plane ? -bz : uz * inv_dc;
  float h = o.plane ? hp : hs;
  float rho2 = rest * rest - h * h;
  /* through a float, as the pre-shape kernel did: a bool from && here left a branch gcc would
   * not if-convert, and the loop over a hit block did not vectorize */
  float circle_f = ((o.plane || dc > 1e-9f) && rho2 >= 0.0f) ? 1.0f : 0.0f;
  bool circle = circle_f > 0.0f;
  float rho = sqrtf(rho2 > 0.0f ? rho2 : 0.0f);
  float wx = *x - px, wy = *y - py, wz = *z - pz;
  float wu = wx * ux + wy * uy + wz * uz;
  float vx = wx - ux * wu, vy = wy - uy * wu, vz = wz - uz * wu;
  float vlen = sqrtf(vx * vx + vy * vy + vz * vz);
  /* the node on the circle's axis (a strand hanging straight onto a sphere's top): any
   * direction round the circle will do; take one perpendicular to u, deterministically */
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
  *x = o.hit ? (circle ? kx : rx) : *x;
  *y = o.hit ? (circle ? ky : ry) : *y;
  *z = o.hit ? (circle ? kz : rz) : *z;
}

/* The VRM model's response (VRMC_springBone, three-vrm's VRMSpringBoneJoint._collision): a
 * node inside is pushed straight out and its link length restored at once. */
static inline void push_then_restore(float *x, float *y, float *z, float px, float py, float pz, float rest,
                                     float ax, float ay, float az, float bx, float by, float bz, float radius,
                                     float kind, float sr) {
  probe o = probe_shape(*x, *y, *z, ax, ay, az, bx, by, bz, radius, kind, sr);
  float pen = o.R - o.sd;
  float rx = *x + o.ux * pen - px, ry = *y + o.uy * pen - py, rz = *z + o.uz * pen - pz;
  float len = sqrtf(rx * rx + ry * ry + rz * rz);
  float s = rest / (len > 1e-12f ? len : 1e-12f);
  *x = o.hit ? px + rx * s : *x;
  *y = o.hit ? py + ry * s : *y;
  *z = o.hit ? pz + rz * s : *z;
}

static inline void push_node(tress_collider_response response, float *x, float *y, float *z, float px, float py,
                             float pz, float rest, float ax, float ay, float az, float bx, float by, float bz,
                             float radius, float kind, float sr) {
  if (response == TRESS_COLLIDER_PUSH_THEN_RESTORE)
    push_then_restore(x, y, z, px, py, pz, rest, ax, ay, az, bx, by, bz, radius, kind, sr);
  else
    push_keep_link(x, y, z, px, py, pz, rest, ax, ay, az, bx, by, bz, radius, kind, sr);
}

/* A free particle (rope, cloth): pushed straight out (or in), no link to keep. */
static inline void push_free(float *x, float *y, float *z, float ax, float ay, float az, float bx, float by, float bz,
                             float radius, float kind, float sr) {
  probe o = probe_shape(*x, *y, *z, ax, ay, az, bx, by, bz, radius, kind, sr);
  float pen = o.R - o.sd;
  float nx = *x + o.ux * pen, ny = *y + o.uy * pen, nz = *z + o.uz * pen;
  *x = o.hit ? nx : *x;
  *y = o.hit ? ny : *y;
  *z = o.hit ? nz : *z;
}

static inline void restore_link(float *x, float *y, float *z, float px, float py, float pz, float rest_len) {
  float dx = *x - px, dy = *y - py, dz = *z - pz;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  float s = len > 1e-12f ? rest_len / len : 0.0f;
  *x = px + dx * s;
  *y = py + dy * s;
  *z = pz + dz * s;
}

bool tress__collider_push_point(float p[3], const float parent[3], float rest_len, float strand_radius,
                               const tress_collider_world *colliders, uint32_t n, tress_collider_response response) {
  bool hit = false;
  for (uint32_t k = 0; k < n; k++) {
    const tress_collider_world *c = &colliders[k];
    float kind = shape_code(c->shape);
    hit |= probe_shape(p[0], p[1], p[2], c->ax, c->ay, c->az, c->bx, c->by, c->bz, c->radius, kind, strand_radius).hit;
    push_node(response, &p[0], &p[1], &p[2], parent[0], parent[1], parent[2], rest_len, c->ax, c->ay, c->az, c->bx,
              c->by, c->bz, c->radius, kind, strand_radius);
  }
  restore_link(&p[0], &p[1], &p[2], parent[0], parent[1], parent[2], rest_len);
  return hit;
}

/* Slot-outer, particle-inner: each collider's data is a broadcast, so the particle loop
 * vectorizes like the chains' lanes. A pinned particle (inverse mass 0) stays. */
void tress__collider_push_free(float *restrict x, float *restrict y, float *restrict z, const float *restrict inv_mass,
                              uint32_t count, float particle_radius, const tress_collider_world *colliders,
                              uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    const tress_collider_world c = colliders[k];
    float kind = shape_code(c.shape);
    for (uint32_t j = 0; j < count; j++) {
      float nx = x[j], ny = y[j], nz = z[j];
      push_free(&nx, &ny, &nz, c.ax, c.ay, c.az, c.bx, c.by, c.bz, c.radius, kind, particle_radius);
      bool free_particle = inv_mass[j] > 0.0f;
      x[j] = free_particle ? nx : x[j];
      y[j] = free_particle ? ny : y[j];
      z[j] = free_particle ? nz : z[j];
    }
  }
}

/* ---- lanes ---- */

bool tress__collider_lanes_init(tress_collider_lanes *lanes, uint32_t slots, uint32_t capacity) {
  memset(lanes, 0, sizeof *lanes);
  size_t per = (size_t)(slots ? slots : 1) * (capacity ? capacity : 1);
  float *block = malloc(per * 8 * sizeof(float));
  if (!block) return false;
  float **f[8] = {&lanes->ax, &lanes->ay, &lanes->az, &lanes->bx, &lanes->by, &lanes->bz, &lanes->radius, &lanes->shape};
  for (int i = 0; i < 8; i++) *f[i] = block + per * (size_t)i;
  for (size_t i = 0; i < per; i++) {
    lanes->ax[i] = lanes->ay[i] = lanes->az[i] = lanes->bx[i] = lanes->by[i] = lanes->bz[i] = 0.0f;
    lanes->radius[i] = TRESS_COLLIDER_UNUSED_RADIUS;
    lanes->shape[i] = SHAPE_OUTSIDE;
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

uint32_t tress__collider_lanes_widest(const tress_collider_lanes *lanes, const tress_collider_set *sets,
                                      uint32_t set_count, const uint32_t *set_of_node, uint32_t count) {
  if (count > lanes->stride) count = lanes->stride;
  uint32_t widest = 0;
  for (uint32_t j = 0; j < count; j++) {
    uint32_t si = set_of_node ? set_of_node[j] : j;
    if (si < set_count && sets[si].count > widest) widest = sets[si].count;
  }
  return widest > lanes->slot_cap ? lanes->slot_cap : widest;
}

void tress__collider_lanes_fill(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                               const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                               uint32_t first, uint32_t end, uint32_t widest, uint32_t *shaped_out,
                               uint32_t *capsules_out) {
  if (end > lanes->stride) end = lanes->stride;
  uint32_t shaped = 0, capsules = 0;
  for (uint32_t k = 0; k < widest; k++) {
    size_t o = (size_t)k * lanes->stride;
    float *ax = lanes->ax + o, *ay = lanes->ay + o, *az = lanes->az + o;
    float *bx = lanes->bx + o, *by = lanes->by + o, *bz = lanes->bz + o;
    float *r = lanes->radius + o, *sh = lanes->shape + o;
    for (uint32_t j = first; j < end; j++) {
      uint32_t si = set_of_node ? set_of_node[j] : j;
      const tress_collider_set *s = si < set_count ? &sets[si] : NULL;
      if (s && k < s->count && s->index[k] < world_count) {
        const tress_collider_world *c = &world[s->index[k]];
        ax[j] = c->ax; ay[j] = c->ay; az[j] = c->az;
        bx[j] = c->bx; by[j] = c->by; bz[j] = c->bz;
        r[j] = c->radius;
        sh[j] = c->radius == TRESS_COLLIDER_UNUSED_RADIUS ? SHAPE_OUTSIDE : shape_code(c->shape);
      } else {
        ax[j] = ay[j] = az[j] = bx[j] = by[j] = bz[j] = 0.0f;
        r[j] = TRESS_COLLIDER_UNUSED_RADIUS;
        sh[j] = SHAPE_OUTSIDE;
      }
    }
    /* which kernels the slot needs: its own pass over the contiguous lanes, so it vectorizes */
    int any_shaped = 0, any_segment = 0;
    for (uint32_t j = first; j < end; j++) {
      any_shaped |= sh[j] != SHAPE_OUTSIDE;
      any_segment |= (ax[j] != bx[j]) | (ay[j] != by[j]) | (az[j] != bz[j]); /* ab != 0: not may_hit_sphere's case */
    }
    if (k < 32) {
      shaped |= (uint32_t)any_shaped << k;
      capsules |= (uint32_t)any_segment << k;
    }
  }
  *shaped_out = shaped;
  *capsules_out = capsules;
}

void tress__collider_lanes_gather(tress_collider_lanes *lanes, const tress_collider_world *world, uint32_t world_count,
                                 const tress_collider_set *sets, uint32_t set_count, const uint32_t *set_of_node,
                                 uint32_t count) {
  uint32_t widest = tress__collider_lanes_widest(lanes, sets, set_count, set_of_node, count);
  uint32_t shaped, capsules;
  tress__collider_lanes_fill(lanes, world, world_count, sets, set_count, set_of_node, 0, count, widest, &shaped,
                            &capsules);
  lanes->slots = widest;
  lanes->shaped_slots = shaped;
  lanes->capsule_slots = capsules;
}

/* Whether slot k holds only spheres and capsules, for every node (see shaped_slots). */
static inline bool slot_is_plain(const tress_collider_lanes *lanes, uint32_t k) {
  return k < 32 && !(lanes->shaped_slots >> k & 1u);
}

/* Whether slot k holds only spheres (b == a), for every node. */
static inline bool slot_is_sphere(const tress_collider_lanes *lanes, uint32_t k) {
  return slot_is_plain(lanes, k) && !(lanes->capsule_slots >> k & 1u);
}

tress_collider_lanes tress__collider_lanes_view(const tress_collider_lanes *lanes, uint32_t first) {
  tress_collider_lanes v = *lanes;
  if (first > lanes->stride) first = lanes->stride;
  v.ax += first; v.ay += first; v.az += first;
  v.bx += first; v.by += first; v.bz += first;
  v.radius += first;
  v.shape += first;
  return v;
}

enum { PUSH_BLOCK = 32 };

/* Whether a node may need a push from a slot, with squared distances only (no sqrt, no
 * divide): the distance to segment ab is compared in the form of its clamped region (|ap|^2
 * before a, |bp|^2 past b, |ap x ab|^2 / |ab|^2 between, the divide moved to the other side).
 * Exact up to rounding, so it is a filter for inside shapes too; a plane compares its signed
 * distance (b holds its normal). */
static inline int may_hit(float x, float y, float z, float ax, float ay, float az, float bx, float by, float bz,
                          float radius, float kind, float sr) {
  bool plane = kind == SHAPE_PLANE, in = kind == SHAPE_INSIDE;
  float abx = bx - ax, aby = by - ay, abz = bz - az;
  float apx = x - ax, apy = y - ay, apz = z - az;
  float bpx = x - bx, bpy = y - by, bpz = z - bz;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float tn = apx * abx + apy * aby + apz * abz;
  float ap2 = apx * apx + apy * apy + apz * apz;
  float bp2 = bpx * bpx + bpy * bpy + bpz * bpz;
  bool before = tn <= 0.0f, past = tn >= ab2;
  float lhs = before ? ap2 : (past ? bp2 : ap2 * ab2 - tn * tn);
  float scale = before || past ? 1.0f : ab2;
  float r = in ? radius - sr : radius + sr;
  r = in && r < 0.0f ? 0.0f : r;
  float r2 = r > 0.0f ? r * r : (in ? 0.0f : -1.0f);
  float s = apx * bx + apy * by + apz * bz;
  bool hit = in ? lhs > r2 * scale : lhs < r2 * scale;
  return plane ? s < r : hit;
}

/* may_hit for a sphere slot (ab == 0): tn is 0, so the node is "before a" and the test is
 * |ap|^2 < r^2, the same operations on the same values as may_hit, so the same answer. */
static inline int may_hit_sphere(float x, float y, float z, float ax, float ay, float az, float bx, float by,
                                 float bz, float radius, float kind, float sr) {
  (void)bx, (void)by, (void)bz, (void)kind;
  float apx = x - ax, apy = y - ay, apz = z - az;
  float ap2 = apx * apx + apy * apy + apz * apz;
  float r = radius + sr;
  float r2 = r > 0.0f ? r * r : -1.0f;
  return ap2 < r2;
}

/* Whether any node of a block may need a push from its slot. Kept out of line so each loop is
 * its own loop nest and vectorizes. Each kernel comes twice: KIND csh[j] for a slot with a
 * plane or an inside shape, and the constant SHAPE_OUTSIDE for a sphere/capsule-only slot,
 * where the shape selects fold away and the loop is the sphere/capsule math alone (the
 * same operations on the same values, so the same bits). */
#define BLOCK_MAY_HIT(NAME, TEST, KIND)                                                                                     \
  __attribute__((noinline)) TRESS_VECTOR_CLONES static int NAME(                                                                          \
      const float *restrict x, const float *restrict y, const float *restrict z, const float *restrict cax,          \
      const float *restrict cay, const float *restrict caz, const float *restrict cbx, const float *restrict cby,    \
      const float *restrict cbz, const float *restrict cr, const float *restrict csh,                                 \
      const float *restrict strand_radius, uint32_t n) {                                                              \
    (void)csh;                                                                                                        \
    int any = 0;                                                                                                      \
    for (uint32_t j = 0; j < n; j++)                                                                                  \
      any |= TEST(x[j], y[j], z[j], cax[j], cay[j], caz[j], cbx[j], cby[j], cbz[j], cr[j], KIND, strand_radius[j]);    \
    return any;                                                                                                       \
  }
BLOCK_MAY_HIT(block_may_hit, may_hit, csh[j])
BLOCK_MAY_HIT(block_may_hit_plain, may_hit, SHAPE_OUTSIDE)
BLOCK_MAY_HIT(block_may_hit_sphere, may_hit_sphere, SHAPE_OUTSIDE)
typedef int block_may_hit_fn(const float *restrict, const float *restrict, const float *restrict,
                             const float *restrict, const float *restrict, const float *restrict,
                             const float *restrict, const float *restrict, const float *restrict,
                             const float *restrict, const float *restrict, const float *restrict, uint32_t);

/* One loop per response, so neither carries the other's work. */
#define BLOCK_PUSH(NAME, PUSH, KIND)                                                                                  \
  __attribute__((noinline)) TRESS_VECTOR_CLONES static void NAME(                                                                         \
      float *restrict x, float *restrict y, float *restrict z, const float *restrict px, const float *restrict py,   \
      const float *restrict pz, const float *restrict rest, const float *restrict cax, const float *restrict cay,    \
      const float *restrict caz, const float *restrict cbx, const float *restrict cby, const float *restrict cbz,    \
      const float *restrict cr, const float *restrict csh, const float *restrict strand_radius, uint32_t n) {        \
    (void)csh;                                                                                                        \
    for (uint32_t j = 0; j < n; j++)                                                                                  \
      PUSH(&x[j], &y[j], &z[j], px[j], py[j], pz[j], rest[j], cax[j], cay[j], caz[j], cbx[j], cby[j], cbz[j], cr[j], \
           KIND, strand_radius[j]);                                                                                   \
  }
BLOCK_PUSH(block_push_keep, push_keep_link, csh[j])
BLOCK_PUSH(block_push_restore, push_then_restore, csh[j])
BLOCK_PUSH(block_push_keep_plain, push_keep_link, SHAPE_OUTSIDE)
BLOCK_PUSH(block_push_restore_plain, push_then_restore, SHAPE_OUTSIDE)
typedef void block_push_fn(float *restrict, float *restrict, float *restrict, const float *restrict,
                           const float *restrict, const float *restrict, const float *restrict, const float *restrict,
                           const float *restrict, const float *restrict, const float *restrict, const float *restrict,
                           const float *restrict, const float *restrict, const float *restrict, const float *restrict,
                           uint32_t);

__attribute__((noinline)) TRESS_VECTOR_CLONES static void restore_links(float *restrict x, float *restrict y, float *restrict z,
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
                               const tress_collider_lanes *lanes, tress_collider_response response) {
  if (!lanes || lanes->slots == 0 || count == 0) return;
  bool restore = response == TRESS_COLLIDER_PUSH_THEN_RESTORE;
  for (uint32_t k = 0; k < lanes->slots; k++) {
    size_t o = (size_t)k * lanes->stride;
    const float *cax = lanes->ax + o, *cay = lanes->ay + o, *caz = lanes->az + o;
    const float *cbx = lanes->bx + o, *cby = lanes->by + o, *cbz = lanes->bz + o;
    const float *cr = lanes->radius + o, *csh = lanes->shape + o;
    bool plain = slot_is_plain(lanes, k);
    block_push_fn *push = restore ? (plain ? block_push_restore_plain : block_push_restore)
                                  : (plain ? block_push_keep_plain : block_push_keep);
    block_may_hit_fn *test = slot_is_sphere(lanes, k) ? block_may_hit_sphere : plain ? block_may_hit_plain : block_may_hit;
    /* Blocks of nodes: the cheap test first, the full push only where some node is inside;
     * most nodes touch few of their colliders. */
    for (uint32_t lo = 0; lo < count; lo += PUSH_BLOCK) {
      uint32_t n = count - lo < PUSH_BLOCK ? count - lo : PUSH_BLOCK;
      if (!test(x + lo, y + lo, z + lo, cax + lo, cay + lo, caz + lo, cbx + lo, cby + lo, cbz + lo, cr + lo, csh + lo,
                strand_radius + lo, n))
        continue;
      push(x + lo, y + lo, z + lo, px + lo, py + lo, pz + lo, rest + lo, cax + lo, cay + lo, caz + lo, cbx + lo,
           cby + lo, cbz + lo, cr + lo, csh + lo, strand_radius + lo, n);
    }
  }
  /* The link back to the parent, for every node (a node no collider moved already has it,
   * within rounding, from the solver's link constraint). */
  restore_links(x, y, z, px, py, pz, rest, count);
}

/* ---- the same, reading each node's colliders through its set index ---- */

/* As block_may_hit / the block pushes, with slot data at [set_of_node[j]]: gcc emulates the
 * gathers and still vectorizes the math, so no per-node copy of collider data is ever made.
 * The same two flavours: KIND csh[s], or SHAPE_OUTSIDE for a sphere/capsule-only slot. */
#define BLOCK_MAY_HIT_SETS(NAME, TEST, KIND)                                                                                \
  __attribute__((noinline)) TRESS_VECTOR_CLONES static int NAME(                                                                          \
      const float *restrict x, const float *restrict y, const float *restrict z, const float *restrict cax,          \
      const float *restrict cay, const float *restrict caz, const float *restrict cbx, const float *restrict cby,    \
      const float *restrict cbz, const float *restrict cr, const float *restrict csh,                                 \
      const float *restrict strand_radius, const uint32_t *restrict set, uint32_t n) {                                \
    (void)csh;                                                                                                        \
    int any = 0;                                                                                                      \
    for (uint32_t j = 0; j < n; j++) {                                                                                \
      uint32_t s = set[j];                                                                                            \
      any |= TEST(x[j], y[j], z[j], cax[s], cay[s], caz[s], cbx[s], cby[s], cbz[s], cr[s], KIND, strand_radius[j]);    \
    }                                                                                                                 \
    return any;                                                                                                       \
  }
BLOCK_MAY_HIT_SETS(block_may_hit_sets, may_hit, csh[s])
BLOCK_MAY_HIT_SETS(block_may_hit_sets_plain, may_hit, SHAPE_OUTSIDE)
BLOCK_MAY_HIT_SETS(block_may_hit_sets_sphere, may_hit_sphere, SHAPE_OUTSIDE)
typedef int block_may_hit_sets_fn(const float *restrict, const float *restrict, const float *restrict,
                                  const float *restrict, const float *restrict, const float *restrict,
                                  const float *restrict, const float *restrict, const float *restrict,
                                  const float *restrict, const float *restrict, const float *restrict,
                                  const uint32_t *restrict, uint32_t);

#define BLOCK_PUSH_SETS(NAME, PUSH, KIND)                                                                             \
  __attribute__((noinline)) TRESS_VECTOR_CLONES static void NAME(                                                                         \
      float *restrict x, float *restrict y, float *restrict z, const float *restrict px, const float *restrict py,   \
      const float *restrict pz, const float *restrict rest, const float *restrict cax, const float *restrict cay,    \
      const float *restrict caz, const float *restrict cbx, const float *restrict cby, const float *restrict cbz,    \
      const float *restrict cr, const float *restrict csh, const float *restrict strand_radius,                      \
      const uint32_t *restrict set, uint32_t n) {                                                                     \
    (void)csh;                                                                                                        \
    for (uint32_t j = 0; j < n; j++) {                                                                                \
      uint32_t s = set[j];                                                                                            \
      PUSH(&x[j], &y[j], &z[j], px[j], py[j], pz[j], rest[j], cax[s], cay[s], caz[s], cbx[s], cby[s], cbz[s], cr[s], \
           KIND, strand_radius[j]);                                                                                   \
    }                                                                                                                 \
  }
BLOCK_PUSH_SETS(block_push_keep_sets, push_keep_link, csh[s])
BLOCK_PUSH_SETS(block_push_restore_sets, push_then_restore, csh[s])
BLOCK_PUSH_SETS(block_push_keep_sets_plain, push_keep_link, SHAPE_OUTSIDE)
BLOCK_PUSH_SETS(block_push_restore_sets_plain, push_then_restore, SHAPE_OUTSIDE)
typedef void block_push_sets_fn(float *restrict, float *restrict, float *restrict, const float *restrict,
                                const float *restrict, const float *restrict, const float *restrict,
                                const float *restrict, const float *restrict, const float *restrict,
                                const float *restrict, const float *restrict, const float *restrict,
                                const float *restrict, const float *restrict, const float *restrict,
                                const uint32_t *restrict, uint32_t);

void tress__collider_push_level_sets(float *restrict x, float *restrict y, float *restrict z, const float *restrict px,
                                    const float *restrict py, const float *restrict pz, const float *restrict rest,
                                    const float *restrict strand_radius, uint32_t count,
                                    const tress_collider_lanes *set_lanes, const uint32_t *restrict set_of_node,
                                    tress_collider_response response) {
  if (!set_lanes || set_lanes->slots == 0 || count == 0 || !set_of_node) return;
  bool restore = response == TRESS_COLLIDER_PUSH_THEN_RESTORE;
  for (uint32_t k = 0; k < set_lanes->slots; k++) {
    size_t o = (size_t)k * set_lanes->stride;
    const float *cax = set_lanes->ax + o, *cay = set_lanes->ay + o, *caz = set_lanes->az + o;
    const float *cbx = set_lanes->bx + o, *cby = set_lanes->by + o, *cbz = set_lanes->bz + o;
    const float *cr = set_lanes->radius + o, *csh = set_lanes->shape + o;
    bool plain = slot_is_plain(set_lanes, k);
    block_push_sets_fn *push = restore ? (plain ? block_push_restore_sets_plain : block_push_restore_sets)
                                       : (plain ? block_push_keep_sets_plain : block_push_keep_sets);
    block_may_hit_sets_fn *test = slot_is_sphere(set_lanes, k) ? block_may_hit_sets_sphere
                                  : plain                       ? block_may_hit_sets_plain
                                                                : block_may_hit_sets;
    for (uint32_t lo = 0; lo < count; lo += PUSH_BLOCK) {
      uint32_t n = count - lo < PUSH_BLOCK ? count - lo : PUSH_BLOCK;
      if (!test(x + lo, y + lo, z + lo, cax, cay, caz, cbx, cby, cbz, cr, csh, strand_radius + lo, set_of_node + lo, n))
        continue;
      push(x + lo, y + lo, z + lo, px + lo, py + lo, pz + lo, rest + lo, cax, cay, caz, cbx, cby, cbz, cr, csh,
           strand_radius + lo, set_of_node + lo, n);
    }
  }
  restore_links(x, y, z, px, py, pz, rest, count);
}
