/* chains_limit.c - rotation limits on bone-chain joints: cone, hinge and spherical, as the
 * VRMC_springBone_limit-1.0 draft defines them (vrm-specification, specification/
 * VRMC_springBone_limit-1.0/README.md: "Rotation", "Singular Directions" and the appendix's
 * reference implementations; three-vrm 3.5 and UniVRM do not implement it yet).
 *
 * The limit's frame (the draft's `parent.worldRotation * localSpaceInitialRotation *
 * axisRotation * limit.rotation`): the joint's rest-and-animated orientation under its parent's
 * current rotation (the VRM model's A of the joint; the pose model builds it, see
 * tress__limit_pose_level), turned by the shortest arc from +Y to the tail's rest direction in
 * the joint's frame (its cframe offset; a half turn about X when that is -Y), then by the
 * limit's rotation. The part after A is constant per tail: fill_node stores it (lm_q).
 *
 * In that frame the tail direction d is clamped, branch-free so the level loop vectorizes:
 * - cone: d.y >= cos(angle), the sideways part scaled onto the rim (d = -Y: the +Z rim);
 * - hinge and spherical are one shape (LIMIT_SWING): yaw = asin(d.x) clamped to [-yaw, yaw]
 *   (a hinge has yaw 0), pitch = atan2(d.z, d.y) clamped to [-pitch, pitch], d rebuilt as
 *   (sin yaw, cos yaw cos pitch, cos yaw sin pitch). Clamping the angles is done on their
 *   sines and cosines (a clamped x, and the (y, z) direction clamped to the pitch's arc), with
 *   no trigonometry; d = +-X gives pitch 0 and d = -Y the +Z side, as the draft's table says.
 * The tail is then put back at its link length along the clamped direction. */
#include "chains_internal.h"

#include <string.h>

static float clampf(float v, float lo, float hi) {
  if (!isfinite(v)) return lo;
  return v < lo ? lo : (v > hi ? hi : v);
}

#define PI_F 3.14159265358979f

joint_limit tress__limit_of(const tress_joint_limit *in) {
  joint_limit l;
  memset(&l, 0, sizeof l);
  l.rotation[3] = 1.0f;
  l.given = *in;
  if (in->kind != TRESS_LIMIT_CONE && in->kind != TRESS_LIMIT_HINGE && in->kind != TRESS_LIMIT_SPHERICAL) {
    memset(&l.given, 0, sizeof l.given);
    l.given.rotation[3] = 1.0f;
    return l;
  }
  float angle = clampf(in->angle, 0.0f, PI_F);
  float yaw = in->kind == TRESS_LIMIT_SPHERICAL ? clampf(in->yaw, 0.0f, PI_F * 0.5f) : 0.0f;
  l.kind = in->kind == TRESS_LIMIT_CONE ? LIMIT_CONE : LIMIT_SWING;
  l.cos_angle = cosf(angle);
  l.sin_angle = sinf(angle);
  l.sin_yaw = sinf(yaw);
  const float *q = in->rotation;
  float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (isfinite(n2) && n2 > 1e-12f) {
    float inv = 1.0f / sqrtf(n2);
    for (int k = 0; k < 4; k++) l.rotation[k] = q[k] * inv;
  }
  return l;
}

void tress__limit_fill_node(chain_nodes *n, uint32_t i, const joint_limit *l) {
  n->lm_kind[i] = l ? (float)l->kind : 0.0f;
  n->lm_cos[i] = l ? l->cos_angle : 1.0f;
  n->lm_sin[i] = l ? l->sin_angle : 0.0f;
  n->lm_sy[i] = l ? l->sin_yaw : 0.0f;
  float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  if (l && l->kind != LIMIT_NONE) {
    /* the shortest arc from +Y to the rest direction (cross(Y, a), 1 + dot), or a half turn
     * about X when the rest direction is -Y (the draft's rule) */
    float ax = n->ax_x[i], ay = n->ax_y[i], az = n->ax_z[i], arc[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    if (ay > -1.0f + 1e-6f) {
      float w = ay + 1.0f, inv = 1.0f / sqrtf(az * az + ax * ax + w * w);
      arc[0] = az * inv; arc[1] = 0.0f; arc[2] = -ax * inv; arc[3] = w * inv;
    }
    tress_quat_mul(arc, l->rotation, q);
  }
  n->lm_qx[i] = q[0]; n->lm_qy[i] = q[1]; n->lm_qz[i] = q[2]; n->lm_qw[i] = q[3];
}

/* One level's tails (positions p, parents q, parent joints' frames f) inside their limits. */
HOT_LOOP static void limit_kernel(uint32_t count, float *restrict px, float *restrict py, float *restrict pz,
                                  const float *restrict qx, const float *restrict qy, const float *restrict qz,
                                  const float *restrict fqx, const float *restrict fqy, const float *restrict fqz,
                                  const float *restrict fqw, const float *restrict lqx, const float *restrict lqy,
                                  const float *restrict lqz, const float *restrict lqw, const float *restrict kind,
                                  const float *restrict lc, const float *restrict ls, const float *restrict lsy,
                                  const float *restrict rest, const float *restrict act) {
  count &= ~(LEVEL_LANES - 1);
  for (uint32_t j = 0; j < count; j++) {
    float dx = px[j] - qx[j], dy = py[j] - qy[j], dz = pz[j] - qz[j];
    float len2 = dx * dx + dy * dy + dz * dz;
    float inv = 1.0f / sqrtf(len2 > 1e-24f ? len2 : 1e-24f);
    float d[3] = {dx * inv, dy * inv, dz * inv};
    float f[4] = {fqx[j], fqy[j], fqz[j], fqw[j]}, l[4] = {lqx[j], lqy[j], lqz[j], lqw[j]}, r[4], v[3];
    tress_quat_mul(f, l, r);
    tress_quat_rotate_inv(r, d, v);
    float ca = lc[j], sa = ls[j], sy = lsy[j];
    /* cone */
    float h2 = 1.0f - v[1] * v[1];
    bool side = h2 > 1e-12f;
    float k = sa / sqrtf(side ? h2 : 1.0f);
    bool out_cone = v[1] < ca;
    float cx = out_cone ? (side ? v[0] * k : 0.0f) : v[0];
    float cy = out_cone ? ca : v[1];
    float cz = out_cone ? (side ? v[2] * k : sa) : v[2];
    /* swing: yaw toward X, pitch in the YZ plane */
    float sx = v[0] < -sy ? -sy : (v[0] > sy ? sy : v[0]);
    float r2 = v[1] * v[1] + v[2] * v[2];
    bool planar = r2 > 1e-12f;
    float ir = 1.0f / sqrtf(planar ? r2 : 1.0f);
    float ey = planar ? v[1] * ir : 1.0f, ez = planar ? v[2] * ir : 0.0f;
    bool out_pitch = ey < ca;
    float zs = ez < 0.0f ? -sa : sa;
    ey = out_pitch ? ca : ey;
    ez = out_pitch ? zs : ez;
    float c2 = 1.0f - sx * sx;
    float cyaw = sqrtf(c2 > 0.0f ? c2 : 0.0f);
    bool cone = kind[j] == (float)LIMIT_CONE;
    float o[3] = {cone ? cx : sx, cone ? cy : cyaw * ey, cone ? cz : cyaw * ez}, w[3];
    tress_quat_rotate(r, o, w);
    /* sleeping, unlimited and zero-length tails keep their place */
    float m = kind[j] != (float)LIMIT_NONE && len2 > 1e-24f ? act[j] : 0.0f;
    float nx = qx[j] + w[0] * rest[j], ny = qy[j] + w[1] * rest[j], nz = qz[j] + w[2] * rest[j];
    px[j] += (nx - px[j]) * m;
    py[j] += (ny - py[j]) * m;
    pz[j] += (nz - pz[j]) * m;
  }
}

void tress__limit_level(uint32_t count, float *px, float *py, float *pz, const float *qx, const float *qy,
                        const float *qz, const float *fqx, const float *fqy, const float *fqz, const float *fqw,
                        const chain_nodes *n, uint32_t lo, const float *rest_len, const float *stepping) {
  limit_kernel(count, px, py, pz, qx, qy, qz, fqx, fqy, fqz, fqw, n->lm_qx + lo, n->lm_qy + lo, n->lm_qz + lo,
               n->lm_qw + lo, n->lm_kind + lo, n->lm_cos + lo, n->lm_sin + lo, n->lm_sy + lo, rest_len, stepping);
}

/* The pose model has no solved parent rotation during the substeps; the one its output will
 * write is used: a pinned root's animated rotation, any other parent's animated rotation
 * turned by the shortest arc from its animated incoming link to its simulated one (in a linear
 * chain exactly what the output turns it by; a parent that is not its own parent's first child
 * is turned by its own link). Gathered per node into g[3..6] (g[0..2] may hold `par`). */
void tress__limit_pose_level(struct tress_chains *c, size_t tl, uint32_t lo, uint32_t hi, const float *const *par) {
  chain_nodes *n = &c->nodes;
  tile_scratch *w = &c->tile;
  float *fx = c->g[3], *fy = c->g[4], *fz = c->g[5], *fw = c->g[6];
  uint32_t count = padded_count(lo, hi);
  for (uint32_t i = lo; i < lo + count; i++) {
    int32_t p = node_parent(c, tl, i);
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (p >= 0) {
      uint32_t at = (uint32_t)p - w->base;
      float a[4] = {w->aw_qx[at], w->aw_qy[at], w->aw_qz[at], w->aw_qw[at]};
      int32_t g = node_parent(c, tl - 1, (uint32_t)p); /* p is on the level above */
      if (g >= 0) {
        float arc[4];
        uint32_t ag = (uint32_t)g - w->base; /* its chain's: the same tile */
        arc_between(w->aw_px[at] - w->aw_px[ag], w->aw_py[at] - w->aw_py[ag], w->aw_pz[at] - w->aw_pz[ag],
                    n->px[p] - n->px[g], n->py[p] - n->py[g], n->pz[p] - n->pz[g], arc);
        tress_quat_mul(arc, a, q);
      } else {
        memcpy(q, a, sizeof q);
      }
    }
    uint32_t j = i - lo;
    fx[j] = q[0]; fy[j] = q[1]; fz[j] = q[2]; fw[j] = q[3];
  }
  tress__limit_level(hi - lo, n->px + lo, n->py + lo, n->pz + lo, par[0], par[1], par[2], fx, fy, fz, fw, n, lo,
                     w->rest_len + (lo - w->base), w->stepping + constants_at(c, tl, lo));
}
