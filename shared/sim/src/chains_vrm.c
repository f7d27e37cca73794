/* chains_vrm.c - the VRM spring model's loops (TRESS_SPRING_VRM, sim.h), run on the tiles whose
 * chains use it. The layout, scene reads, snaps, colliders, carry and scene writes are the
 * batch's own (chains_internal.h); this file holds what the model does differently.
 *
 * VRMC_springBone-1.0 in the batch's terms: node i is the tail of its parent joint p. Per
 * substep, level by level (parents first):
 *   next = cur + (cur - prev) * damping                          inertia with drag
 *        + A_p * axis_i * stiffness * dt                          toward the rest direction
 *        + gravity_dir * gravity_power * dt                       gravity (per joint)
 *   next = pos_p + unit(next - pos_p) * rest_len                  length restored
 *   then pushed out of the chain's colliders (hit radius), link kept.
 * A_p is p's parent's CURRENT rotation times p's rest-and-animated local rotation (cframe x
 * animated): the joint unswung under its swung parent. After a level's tails are final, each
 * node's A comes from its parent's rotation this substep: A_p turned by the shortest arc from
 * where p's first child sits at rest (A_p * its offset) to where it is now. Roots (the chain's
 * first joints) take A from their animated world rotation interpolated to the substep's time.
 *
 * Output: every joint, the first included, keeps its animated local translation (positions
 * are never written) and turns by the shortest arc from its animated aim to where its first
 * child is drawn, measured from its own written position.
 *
 * three-vrm's lengths (TILE_KIND_THREE_VRM_LENGTH, sim.h TRESS_VRM_LENGTH_THREE_VRM): rest_len
 * above becomes, per tail, the distance from its joint's head now to where the tail's bone was
 * last drawn with the anchor where it is now (prepare builds that pose from the transforms the
 * scene holds). The tails then sit off the bones, so each level also keeps its joints' heads
 * (head = parent's head + unit(tail - parent's head) * rest_len), and the next level pivots,
 * measures and aims from the heads instead of the tails. */
#include <math.h>
#include <string.h>

#include "chains_internal.h"

/* three-vrm's lengths: where every bone of the tile was last drawn, with its chain's anchor
 * where it is now (three-vrm reads a child's world matrix before the child's own joint has run:
 * this frame's parents, the last update's local rotations). Parents first: anchor (roots) or
 * the parent's pose, times cframe, times the transform the scene holds, which is the last one
 * written. A node that writes nowhere (a virtual tip, padding, a sleeping chain) is not
 * measured: it keeps its rest length, as three-vrm's childless joints do. */
static void stale_pose_tile(struct tress_chains *c, uint32_t t) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  const tress_xform rest = tress_xform_identity();
  for (uint32_t l = 0; l < c->level_count; l++)
    for (uint32_t i = TILE_LO(c, t, l); i < TILE_HI(c, t, l); i++) {
      uint32_t j = i - w->base;
      uint32_t b = c->bone_slot[i]; /* 0: the sink */
      const tress_xform *drawn = b ? &c->transform_base[b] : &rest;
      tress_xform up = anchor_get(c, ANCHOR_LAST, c->node_slot[i]);
      int32_t parent = l > 0 ? node_parent(c, TILE_LEVEL(c, t, l), i) : -1;
      if (parent >= 0) {
        uint32_t p = (uint32_t)parent - w->base;
        up = (tress_xform){{w->sl_x[p], w->sl_y[p], w->sl_z[p]}, {w->sq_x[p], w->sq_y[p], w->sq_z[p], w->sq_w[p]}};
      }
      float cq[4] = {n->cf_qx[i], n->cf_qy[i], n->cf_qz[i], n->cf_qw[i]}, cp[3] = {n->cf_px[i], n->cf_py[i], n->cf_pz[i]};
      float bq[4], q[4], r[3], s[3];
      tress_quat_mul(up.q, cq, bq);
      tress_quat_mul(bq, drawn->q, q);
      tress_quat_rotate(up.q, cp, r);
      tress_quat_rotate(bq, drawn->p, s);
      w->sl_x[j] = up.p[0] + r[0] + s[0]; w->sl_y[j] = up.p[1] + r[1] + s[1]; w->sl_z[j] = up.p[2] + r[2] + s[2];
      w->sq_x[j] = q[0]; w->sq_y[j] = q[1]; w->sq_z[j] = q[2]; w->sq_w[j] = q[3];
      w->sl_m[j] = b ? 1.0f : 0.0f;
    }
}

/* l = c x n, rotation by rotation over one level run (count whole vectors): cframe x animated
 * local, constant over the frame's substeps so the rotation pass reads it instead of
 * multiplying it again every substep, and the roots' anchor x cframe x animated local. */
HOT_LOOP static void quat_mul_level(uint32_t count, const float *restrict cqx, const float *restrict cqy,
                                    const float *restrict cqz, const float *restrict cqw, const float *restrict nqx,
                                    const float *restrict nqy, const float *restrict nqz, const float *restrict nqw,
                                    float *restrict lx, float *restrict ly, float *restrict lz, float *restrict lw) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float cq[4] = {cqx[j], cqy[j], cqz[j], cqw[j]}, nq[4] = {nqx[j], nqy[j], nqz[j], nqw[j]}, l[4];
    tress_quat_mul(cq, nq, l);
    lx[j] = l[0]; ly[j] = l[1]; lz[j] = l[2]; lw[j] = l[3];
  }
}

/* After prepare (snaps done): each root's animated world rotation at the last frame, its
 * anchor then composed with this frame's cframe and animated local. The substeps turn from it
 * to this frame's (aw_q) as the root positions move from pa_p to aw_p. Also every other
 * level's cframe x animated local (lr). */
void tress__vrm_prepare_roots(struct tress_chains *c, uint32_t t) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0), at = lo - w->base;
  float **g = c->g;
  tress__chain_root_anchors(c, t, ANCHOR_PREV, g); /* rotation in g[3..7) */
  /* (last frame's anchor x cframe) x animated local */
  quat_mul_level(hi - lo, g[3], g[4], g[5], g[6], n->cf_qx + lo, n->cf_qy + lo, n->cf_qz + lo, n->cf_qw + lo, g[7],
                 g[8], g[9], g[10]);
  quat_mul_level(hi - lo, g[7], g[8], g[9], g[10], w->an_qx + at, w->an_qy + at, w->an_qz + at, w->an_qw + at,
                 w->pq_x + at, w->pq_y + at, w->pq_z + at, w->pq_w + at);
  for (uint32_t l = 1; l + 1 < c->level_count; l++) { /* the last level's A is never read */
    uint32_t lo = TILE_LO(c, t, l), at = lo - w->base;
    if (c->still[TILE_LEVEL(c, t, l)]) continue; /* cframe x identity: the substeps read the cframe */
    quat_mul_level(TILE_HI(c, t, l) - lo, n->cf_qx + lo, n->cf_qy + lo, n->cf_qz + lo, n->cf_qw + lo, w->an_qx + at,
                   w->an_qy + at, w->an_qz + at, w->an_qw + at, w->lr_x + at, w->lr_y + at, w->lr_z + at, w->lr_w + at);
  }
  if (c->tile_kind[t] & TILE_KIND_THREE_VRM_LENGTH) stale_pose_tile(c, t);
}

/* Roots: pinned to the animated pose at this substep's time (as in the pose model), and their
 * A: the animated world rotation at that time (nlerp, the shorter way round). Every array is a
 * parameter so the loop vectorizes. */
HOT_LOOP static void pin_roots_level(uint32_t count, float alpha, float *restrict px, float *restrict py,
                                     float *restrict pz, float *restrict ox, float *restrict oy, float *restrict oz,
                                     const float *restrict bx, const float *restrict by, const float *restrict bz,
                                     const float *restrict ax, const float *restrict ay, const float *restrict az,
                                     const float *restrict st, const float *restrict q0x, const float *restrict q0y,
                                     const float *restrict q0z, const float *restrict q0w, const float *restrict q1x,
                                     const float *restrict q1y, const float *restrict q1z, const float *restrict q1w,
                                     float *restrict vx, float *restrict vy, float *restrict vz,
                                     float *restrict vw) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float m = st[j];
    float x = bx[j] + (ax[j] - bx[j]) * alpha, y = by[j] + (ay[j] - by[j]) * alpha, z = bz[j] + (az[j] - bz[j]) * alpha;
    ox[j] += (px[j] - ox[j]) * m;
    oy[j] += (py[j] - oy[j]) * m;
    oz[j] += (pz[j] - oz[j]) * m;
    px[j] += (x - px[j]) * m;
    py[j] += (y - py[j]) * m;
    pz[j] += (z - pz[j]) * m;
    float dot = q0x[j] * q1x[j] + q0y[j] * q1y[j] + q0z[j] * q1z[j] + q0w[j] * q1w[j];
    float sg = dot < 0.0f ? -1.0f : 1.0f;
    float qx = q0x[j] + (sg * q1x[j] - q0x[j]) * alpha, qy = q0y[j] + (sg * q1y[j] - q0y[j]) * alpha;
    float qz = q0z[j] + (sg * q1z[j] - q0z[j]) * alpha, qw = q0w[j] + (sg * q1w[j] - q0w[j]) * alpha;
    float l2 = qx * qx + qy * qy + qz * qz + qw * qw;
    float inv = 1.0f / sqrtf(l2 > 1e-30f ? l2 : 1.0f);
    vx[j] = qx * inv; vy[j] = qy * inv; vz[j] = qz * inv; vw[j] = qw * inv;
  }
}

static void pin_roots(struct tress_chains *c, uint32_t t, float alpha) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t lo = TILE_LO(c, t, 0), at = lo - w->base;
  pin_roots_level(TILE_HI(c, t, 0) - lo, alpha, n->px + lo, n->py + lo, n->pz + lo, n->ox + lo, n->oy + lo,
                  n->oz + lo, n->pa_px + lo, n->pa_py + lo, n->pa_pz + lo, w->aw_px + at, w->aw_py + at,
                  w->aw_pz + at, w->stepping + at, w->pq_x + at, w->pq_y + at, w->pq_z + at, w->pq_w + at,
                  w->aw_qx + at, w->aw_qy + at, w->aw_qz + at, w->aw_qw + at, w->va_x + at, w->va_y + at,
                  w->va_z + at, w->va_w + at);
}

/* One level of one substep: inertia, stiffness along the rest direction, gravity, length. */
HOT_LOOP static void substep_level(uint32_t count, float *restrict px, float *restrict py, float *restrict pz,
                                   float *restrict ox, float *restrict oy, float *restrict oz,
                                   const float *restrict qx, const float *restrict qy, const float *restrict qz,
                                   const float *restrict aqx, const float *restrict aqy, const float *restrict aqz,
                                   const float *restrict aqw, const float *restrict axx, const float *restrict axy,
                                   const float *restrict axz, const float *restrict vgx, const float *restrict vgy,
                                   const float *restrict vgz, const float *restrict damp, const float *restrict stiff,
                                   const float *restrict rest, const float *restrict act, float dt,
                                   float *restrict rdx, float *restrict rdy, float *restrict rdz) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float m = act[j];
    float cx = px[j], cy = py[j], cz = pz[j];
    float a[4] = {aqx[j], aqy[j], aqz[j], aqw[j]}, axis[3] = {axx[j], axy[j], axz[j]}, dir[3];
    tress_quat_rotate(a, axis, dir);
    /* kept: in a linear chain it is also where the parent's aim points at rest */
    rdx[j] = dir[0]; rdy[j] = dir[1]; rdz[j] = dir[2];
    float k = stiff[j] * dt;
    float nx = cx + (cx - ox[j]) * damp[j] + dir[0] * k + vgx[j] * dt;
    float ny = cy + (cy - oy[j]) * damp[j] + dir[1] * k + vgy[j] * dt;
    float nz = cz + (cz - oz[j]) * damp[j] + dir[2] * k + vgz[j] * dt;
    link_and_blend(j, cx, cy, cz, nx, ny, nz, qx[j], qy[j], qz[j], rest[j], m, px, py, pz, ox, oy, oz);
  }
}

/* three-vrm's lengths, one level: from each parent's head now (q) to where the tail's bone was
 * last drawn (sl); rest_len where it is not measured (m 0). */
HOT_LOOP static void measure_level(uint32_t count, const float *restrict qx, const float *restrict qy,
                                   const float *restrict qz, const float *restrict sx, const float *restrict sy,
                                   const float *restrict sz, const float *restrict sm, const float *restrict rest,
                                   float *restrict len) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float dx = sx[j] - qx[j], dy = sy[j] - qy[j], dz = sz[j] - qz[j];
    float d = sqrtf(dx * dx + dy * dy + dz * dz);
    len[j] = rest[j] + (d - rest[j]) * sm[j];
  }
}

/* The heads of one level, its tails final (each at len from its parent's head q): the bone
 * keeps its rest length along the tail's direction. */
HOT_LOOP static void heads_level(uint32_t count, const float *restrict qx, const float *restrict qy,
                                 const float *restrict qz, const float *restrict px, const float *restrict py,
                                 const float *restrict pz, const float *restrict rest, const float *restrict len,
                                 float *restrict hx, float *restrict hy, float *restrict hz) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float s = len[j] > 1e-12f ? rest[j] / len[j] : 1.0f;
    hx[j] = qx[j] + (px[j] - qx[j]) * s;
    hy[j] = qy[j] + (py[j] - qy[j]) * s;
    hz[j] = qz[j] + (pz[j] - qz[j]) * s;
  }
}

/* Where a parent's first child sits at rest under A_p (A_p times its offset), for levels whose
 * nodes are not all their parent's first child; linear levels kept it from the substep. */
HOT_LOOP static void rest_aim_level(uint32_t count, const float *restrict aqx, const float *restrict aqy,
                                    const float *restrict aqz, const float *restrict aqw, const float *restrict rx,
                                    const float *restrict ry, const float *restrict rz, float *restrict fx,
                                    float *restrict fy, float *restrict fz) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float a[4] = {aqx[j], aqy[j], aqz[j], aqw[j]}, off[3] = {rx[j], ry[j], rz[j]}, from[3];
    tress_quat_rotate(a, off, from);
    fx[j] = from[0]; fy[j] = from[1]; fz[j] = from[2];
  }
}

/* A of one level, its tails final: the parent's rotation this substep (A_p turned by the
 * shortest arc from its first child's rest direction `f` to where that child is) times the
 * node's cframe x animated local (lr, from prepare). */
HOT_LOOP static void rotate_level(uint32_t count, const float *restrict qx, const float *restrict qy,
                                  const float *restrict qz, const float *restrict aqx, const float *restrict aqy,
                                  const float *restrict aqz, const float *restrict aqw, const float *restrict sx,
                                  const float *restrict sy, const float *restrict sz, const float *restrict fx,
                                  const float *restrict fy, const float *restrict fz, const float *restrict lx,
                                  const float *restrict ly, const float *restrict lz, const float *restrict lw,
                                  float *restrict vx, float *restrict vy, float *restrict vz, float *restrict vw) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float a[4] = {aqx[j], aqy[j], aqz[j], aqw[j]};
    float arc[4], r[4], l[4] = {lx[j], ly[j], lz[j], lw[j]};
    arc_between(fx[j], fy[j], fz[j], sx[j] - qx[j], sy[j] - qy[j], sz[j] - qz[j], arc);
    tress_quat_mul(arc, a, r);
    float v[4];
    tress_quat_mul(r, l, v);
    vx[j] = v[0]; vy[j] = v[1]; vz[j] = v[2]; vw[j] = v[3];
  }
}

void tress__vrm_substep_tile(struct tress_chains *c, const tress_frame *f, float alpha, uint32_t t) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  pin_roots(c, t, alpha);
  bool collides = (c->tile_flags[t] & TILE_COLLIDES) && c->lanes.slots > 0;
  bool heads = c->tile_kind[t] & TILE_KIND_THREE_VRM_LENGTH; /* pivot on heads, not tails */
  bool limited = c->tile_flags[t] & TILE_LIMITED;
  float *const pos[3] = {n->px, n->py, n->pz};
  float *const head[3] = {w->hd_x, w->hd_y, w->hd_z};
  float *const rot[4] = {w->va_x, w->va_y, w->va_z, w->va_w};
  float *const rest_off[3] = {n->cf_px, n->cf_py, n->cf_pz};
  if (heads) {
    uint32_t lo = TILE_LO(c, t, 0), count = TILE_HI(c, t, 0) - lo;
    memcpy(w->hd_x + (lo - w->base), n->px + lo, count * sizeof(float));
    memcpy(w->hd_y + (lo - w->base), n->py + lo, count * sizeof(float));
    memcpy(w->hd_z + (lo - w->base), n->pz + lo, count * sizeof(float));
  }
  for (uint32_t l = 1; l < c->level_count; l++) {
    size_t tl = TILE_LEVEL(c, t, l);
    uint32_t lo = TILE_LO(c, t, l), hi = TILE_HI(c, t, l), at = lo - w->base, kat = constants_at(c, tl, lo);
    const float *par[3], *pa[4];
    level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, heads ? head : pos, heads ? w->base : 0, 3, par, 0);
    level_view(c, lo, hi, c->parent_shift[tl], false, n->parent, rot, w->base, 4, pa, 3);
    const float *len = w->rest_len + at;
    if (heads) {
      measure_level(hi - lo, par[0], par[1], par[2], w->sl_x + at, w->sl_y + at, w->sl_z + at, w->sl_m + at,
                    w->rest_len + at, w->ln + at);
      len = w->ln + at;
    }
    substep_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, n->ox + lo, n->oy + lo, n->oz + lo, par[0], par[1],
                  par[2], pa[0], pa[1], pa[2], pa[3], n->ax_x + lo, n->ax_y + lo, n->ax_z + lo, n->vg_x + lo,
                  n->vg_y + lo, n->vg_z + lo, w->damping + kat, w->stiffness + kat, len, w->stepping + kat,
                  f->dt, c->g[13], c->g[14], c->g[15]);
    /* the limits in the parents' frames A, after the inertia and again after the colliders */
    if (limited)
      tress__limit_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], pa[0], pa[1], pa[2],
                         pa[3], n, lo, w->rest_len + at, w->stepping + kat);
    if (collides && c->aligned[tl])
      tress__collider_push_level(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], len,
                                w->radius + kat, hi - lo, &c->tile_lanes, TRESS_COLLIDER_PUSH_THEN_RESTORE);
    else if (collides)
      tress__collider_push_level_sets(n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], len,
                                     w->radius + kat, hi - lo, &c->lanes, c->node_slot + lo,
                                     TRESS_COLLIDER_PUSH_THEN_RESTORE);
    if (limited && collides)
      tress__limit_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], pa[0], pa[1], pa[2],
                         pa[3], n, lo, w->rest_len + at, w->stepping + kat);
    if (heads)
      heads_level(hi - lo, par[0], par[1], par[2], n->px + lo, n->py + lo, n->pz + lo, w->rest_len + at, len,
                  w->hd_x + at, w->hd_y + at, w->hd_z + at);
    if (l + 1 == c->level_count) break; /* no level below reads this one's A */
    /* the parent's aim: its first child, which in a linear chain is the node itself (whose rest
     * direction the substep kept in g[13..15]) */
    const float *sib[3];
    bool self = c->sibling_self[tl];
    level_view(c, lo, hi, self ? 0 : -1, true, n->first_sibling, pos, 0, 3, sib, 7);
    if (!self) {
      const float *off[3];
      level_view(c, lo, hi, -1, true, n->first_sibling, rest_off, 0, 3, off, 10);
      rest_aim_level(hi - lo, pa[0], pa[1], pa[2], pa[3], off[0], off[1], off[2], c->g[13], c->g[14], c->g[15]);
    }
    /* cframe x animated local: the cframe itself on a still level */
    bool still = c->still[tl];
    rotate_level(hi - lo, par[0], par[1], par[2], pa[0], pa[1], pa[2], pa[3], sib[0], sib[1], sib[2], c->g[13],
                 c->g[14], c->g[15], still ? n->cf_qx + lo : w->lr_x + at, still ? n->cf_qy + lo : w->lr_y + at,
                 still ? n->cf_qz + lo : w->lr_z + at, still ? n->cf_qw + lo : w->lr_w + at, w->va_x + at,
                 w->va_y + at, w->va_z + at, w->va_w + at);
  }
}

/* Output for one level: base = parent written * cframe; the joint keeps its animated local
 * translation and turns by the shortest arc from its animated aim to where its first child is
 * drawn (a leaf has a zero aim: identity arc). display: children from the carried / blended
 * positions, and a node of weight 0 gets its animated rotation exactly. */
static inline __attribute__((always_inline)) void output_body(struct tress_chains *c, size_t tl, uint32_t lo,
                                                              uint32_t hi, const float *const *par, bool display,
                                                              bool still, bool leaves) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  uint32_t at = lo - w->base;
  const float *kid[3];
  float *const csrc[3] = {display ? w->bl_x : n->px, display ? w->bl_y : n->py, display ? w->bl_z : n->pz};
  level_view(c, lo, hi, c->child_shift[tl], true, n->first_child, csrc, display ? w->base : 0, 3, kid, 7);
  const float *restrict gpx = par[0], *restrict gpy = par[1], *restrict gpz = par[2];
  const float *restrict gqx = par[3], *restrict gqy = par[4], *restrict gqz = par[5], *restrict gqw = par[6];
  const float *restrict ccx = kid[0], *restrict ccy = kid[1], *restrict ccz = kid[2];
  const float *restrict cpx = n->cf_px + lo, *restrict cpy = n->cf_py + lo, *restrict cpz = n->cf_pz + lo;
  const float *restrict cqx = n->cf_qx + lo, *restrict cqy = n->cf_qy + lo, *restrict cqz = n->cf_qz + lo,
                        *restrict cqw = n->cf_qw + lo;
  const float *restrict apx = w->an_px + at, *restrict apy = w->an_py + at, *restrict apz = w->an_pz + at;
  const float *restrict aqx = w->an_qx + at, *restrict aqy = w->an_qy + at, *restrict aqz = w->an_qz + at,
                        *restrict aqw = w->an_qw + at;
  const float *aim_of[3] = {NULL, NULL, NULL};
  if (!leaves) aim_view(c, tl, lo, hi, aim_of); /* a level of leaves reads no aim */
  const float *restrict mx = aim_of[0], *restrict my = aim_of[1], *restrict mz = aim_of[2];
  uint32_t kat = constants_at(c, tl, lo);
  const float *restrict wt = w->weight + kat, *restrict sc = w->sc + kat;
  float *restrict tpx = c->g[G_OUT], *restrict tpy = c->g[G_OUT + 1], *restrict tpz = c->g[G_OUT + 2];
  float *restrict tqx = c->g[G_OUT + 3], *restrict tqy = c->g[G_OUT + 4], *restrict tqz = c->g[G_OUT + 5],
                  *restrict tqw = c->g[G_OUT + 6];
  float *restrict wpx = w->wp_x + at, *restrict wpy = w->wp_y + at, *restrict wpz = w->wp_z + at;
  float *restrict wqx = w->wq_x + at, *restrict wqy = w->wq_y + at, *restrict wqz = w->wq_z + at,
                  *restrict wqw = w->wq_w + at;
  uint32_t count = padded_count(lo, hi);
#pragma GCC ivdep
  for (uint32_t j = 0; j < count; j++) {
    float pq[4] = {gqx[j], gqy[j], gqz[j], gqw[j]}, cq[4] = {cqx[j], cqy[j], cqz[j], cqw[j]};
    float cp[3] = {cpx[j], cpy[j], cpz[j]}, ap[3] = {apx[j], apy[j], apz[j]};
    float aq[4] = {aqx[j], aqy[j], aqz[j], aqw[j]};
    float bq[4], r[3], s[3];
    tress_quat_rotate(pq, cp, r);
    tress_quat_mul(pq, cq, bq);
    float k = sc[j]; /* local offsets in the chain's scale */
    float x = gpx[j] + r[0] * k, y = gpy[j] + r[1] * k, z = gpz[j] + r[2] * k;
    if (!still) { /* still: no animated translation to add, no animated turn */
      tress_quat_rotate(bq, ap, s);
      x += s[0] * k; y += s[1] * k; z += s[2] * k;
    }
    /* a level of leaves aims nowhere (zero aims): the arc is the identity, the bits
     * arc_between gives a zero aim */
    float arc[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (!leaves) {
      float aim[3] = {mx[j], my[j], mz[j]}, from[3] = {aim[0], aim[1], aim[2]}, to[3];
      if (!still) tress_quat_rotate(aq, aim, from);
      float sd[3] = {ccx[j] - x, ccy[j] - y, ccz[j] - z};
      tress_quat_rotate_inv(bq, sd, to);
      arc_between(from[0], from[1], from[2], to[0], to[1], to[2], arc); /* NaN in, NaN out */
    }
    float tq[4] = {arc[0], arc[1], arc[2], arc[3]};
    if (!still) tress_quat_mul(arc, aq, tq);
    if (display) {
      bool sim_on = wt[j] > 0.0f;
      for (int k = 0; k < 4; k++) tq[k] = sim_on ? tq[k] : aq[k];
    }
    float wq[4];
    tress_quat_mul(bq, tq, wq);
    tpx[j] = ap[0]; tpy[j] = ap[1]; tpz[j] = ap[2];
    tqx[j] = tq[0]; tqy[j] = tq[1]; tqz[j] = tq[2]; tqw[j] = tq[3];
    wpx[j] = x; wpy[j] = y; wpz[j] = z;
    wqx[j] = wq[0]; wqy[j] = wq[1]; wqz[j] = wq[2]; wqw[j] = wq[3];
  }
}

HOT_LOOP static void output_plain(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float *const *par) {
  output_body(c, tl, lo, hi, par, false, false, false);
}

HOT_LOOP static void output_plain_still(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi,
                                        const float *const *par) {
  output_body(c, tl, lo, hi, par, false, true, false);
}

HOT_LOOP static void output_leaves_still(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi,
                                         const float *const *par) {
  output_body(c, tl, lo, hi, par, false, true, true);
}

HOT_LOOP static void output_display(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi,
                                    const float *const *par) {
  output_body(c, tl, lo, hi, par, true, false, false); /* carried or blended: one general form */
}

/* One level's output in the form its frame needs (chains_internal.h's c->still; a level of
 * leaves, child_shift 0, skips the arc its zero aims would make the identity). */
static void output_any(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float *const *par,
                       bool display) {
  if (display) output_display(c, tl, lo, hi, par);
  else if (c->still[tl] && c->child_shift[tl] == 0) output_leaves_still(c, tl, lo, hi, par);
  else if (c->still[tl]) output_plain_still(c, tl, lo, hi, par);
  else output_plain(c, tl, lo, hi, par);
}

void tress__vrm_output_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, bool display) {
  tile_scratch *w = &c->tile;
  const float *par[7];
  float *const psrc[7] = {w->wp_x, w->wp_y, w->wp_z, w->wq_x, w->wq_y, w->wq_z, w->wq_w};
  level_view(c, lo, hi, c->parent_shift[tl], false, c->nodes.parent, psrc, w->base, 7, par, 0);
  output_any(c, tl, lo, hi, par, display);
}

/* The first joints turn too: their parent is the chain's anchor (its last finite frame, as the
 * animated poses used). */
void tress__vrm_output_roots(struct tress_chains *c, uint32_t t, bool display) {
  uint32_t lo = TILE_LO(c, t, 0), hi = TILE_HI(c, t, 0);
  tress__chain_root_anchors(c, t, ANCHOR_LAST, c->g);
  const float *par[7] = {c->g[0], c->g[1], c->g[2], c->g[3], c->g[4], c->g[5], c->g[6]};
  output_any(c, TILE_LEVEL(c, t, 0), lo, hi, par, display);
}
