/* sample_hair.c - procedural hair: a scalp cap plus strands, each strand a thin four-sided tube
 * along a polyline. The strands are plausible rather than pretty: they start on the cap, follow
 * the skull, then fall (bob, long) or sweep to a tie and hang as one tail (ponytail); the afro is
 * a thick volume of short curls instead, hair without strands to follow. A fixed
 * LCG jitters them so the meshes are irregular yet identical on every run. */
#include "tress/sample_hair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_R 0.6f
#define HEAD_Y 0.5f
#define MAX_POINTS 32
#define TUBE_SIDES 4
#define PI_F 3.14159265f

typedef struct builder {
  tress_mesh *m;
  uint32_t v, i;
  uint32_t seed;
} builder;

static float rnd(builder *b) { /* [0, 1) */
  b->seed = b->seed * 1664525u + 1013904223u;
  return (float)(b->seed >> 8) / 16777216.0f;
}

static void head_dir(float polar, float around, float out[3]) {
  out[0] = sinf(polar) * sinf(around);
  out[1] = cosf(polar);
  out[2] = sinf(polar) * cosf(around);
}

static void normalize(float v[3]) {
  float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (l > 1e-12f) { v[0] /= l; v[1] /= l; v[2] /= l; }
}

static void cross(const float a[3], const float b[3], float r[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

/* A tube of radius r (tapering to 40% at the tip) along pts. */
static void add_strand(builder *b, const float (*pts)[3], int n, float r, float u) {
  tress_mesh *m = b->m;
  uint32_t first = b->v;
  for (int k = 0; k < n; k++) {
    float t[3];
    const float *a = pts[k > 0 ? k - 1 : 0], *c = pts[k + 1 < n ? k + 1 : n - 1];
    for (int d = 0; d < 3; d++) t[d] = c[d] - a[d];
    normalize(t);
    float helper[3] = {0, 0, 1}, nx[3], ny[3];
    if (fabsf(t[2]) > 0.9f) { helper[0] = 1; helper[2] = 0; }
    cross(t, helper, nx);
    normalize(nx);
    cross(t, nx, ny);
    float rr = r * (1.0f - 0.6f * (float)k / (float)(n - 1));
    for (int s = 0; s < TUBE_SIDES; s++) {
      float ang = 2.0f * PI_F * (float)s / TUBE_SIDES, cs = cosf(ang), sn = sinf(ang);
      float *p = m->positions + 3 * b->v, *nm = m->normals + 3 * b->v, *uv = m->uvs + 2 * b->v;
      for (int d = 0; d < 3; d++) {
        nm[d] = cs * nx[d] + sn * ny[d];
        p[d] = pts[k][d] + rr * nm[d];
      }
      uv[0] = u;
      uv[1] = (float)k / (float)(n - 1);
      b->v++;
    }
  }
  for (int k = 0; k + 1 < n; k++)
    for (int s = 0; s < TUBE_SIDES; s++) {
      uint32_t a0 = first + (uint32_t)(k * TUBE_SIDES + s), a1 = first + (uint32_t)(k * TUBE_SIDES + (s + 1) % TUBE_SIDES);
      uint32_t b0 = a0 + TUBE_SIDES, b1 = a1 + TUBE_SIDES;
      uint32_t *ix = m->indices + b->i;
      ix[0] = a0; ix[1] = b0; ix[2] = a1;
      ix[3] = a1; ix[4] = b0; ix[5] = b1;
      b->i += 6;
    }
}

/* The scalp cap: the head sphere from the crown down to polar angle max_polar, slightly out. */
static void add_cap(builder *b, int rings, int around, float max_polar) {
  tress_mesh *m = b->m;
  uint32_t first = b->v;
  for (int r = 0; r <= rings; r++)
    for (int a = 0; a <= around; a++) {
      float d[3];
      head_dir(max_polar * (float)r / (float)rings, 2.0f * PI_F * (float)a / (float)around, d);
      float *p = m->positions + 3 * b->v, *nm = m->normals + 3 * b->v, *uv = m->uvs + 2 * b->v;
      for (int k = 0; k < 3; k++) { nm[k] = d[k]; p[k] = d[k] * (HEAD_R + 0.02f); }
      p[1] += HEAD_Y;
      uv[0] = (float)a / (float)around;
      uv[1] = (float)r / (float)rings;
      b->v++;
    }
  for (int r = 0; r < rings; r++)
    for (int a = 0; a < around; a++) {
      uint32_t a0 = first + (uint32_t)(r * (around + 1) + a), a1 = a0 + 1, b0 = a0 + (uint32_t)(around + 1), b1 = b0 + 1;
      uint32_t *ix = m->indices + b->i;
      ix[0] = a0; ix[1] = b0; ix[2] = a1;
      ix[3] = a1; ix[4] = b0; ix[5] = b1;
      b->i += 6;
    }
}

/* A point on the skull surface (plus lift) at polar/around. */
static void on_head(float polar, float around, float lift, float out[3]) {
  float d[3];
  head_dir(polar, around, d);
  for (int k = 0; k < 3; k++) out[k] = d[k] * (HEAD_R + lift);
  out[1] += HEAD_Y;
}

/* Follows the skull from polar0 to polar1, then falls to y_end, flaring outward a little. */
static int falling_strand(builder *b, float pts[][3], float around, float polar0, float polar1, float y_end, float flare) {
  int n = 0, skull = 5, fall = 8;
  for (int k = 0; k < skull; k++) {
    float pol = polar0 + (polar1 - polar0) * (float)k / (float)(skull - 1);
    on_head(pol, around, 0.04f, pts[n++]);
  }
  float start[3];
  memcpy(start, pts[n - 1], sizeof start);
  float out[3] = {sinf(around), 0.0f, cosf(around)};
  for (int k = 1; k <= fall; k++) {
    float t = (float)k / (float)fall;
    for (int d = 0; d < 3; d++) pts[n][d] = start[d] + out[d] * flare * t * t + (rnd(b) - 0.5f) * 0.02f;
    pts[n][1] = start[1] + (y_end - start[1]) * t;
    n++;
  }
  return n;
}

static void build_bob(builder *b) {
  float pts[MAX_POINTS][3];
  int strands = 64;
  for (int s = 0; s < strands; s++) {
    float around = 2.0f * PI_F * ((float)s + rnd(b) * 0.5f) / (float)strands;
    float front = cosf(around); /* 1 at the face */
    float polar0 = 0.15f + 0.25f * rnd(b);
    if (front > 0.6f) {
      /* Bangs: skull to the forehead, then a short fall. */
      int n = falling_strand(b, pts, around, polar0, 1.0f, HEAD_Y + 0.35f, 0.05f);
      add_strand(b, (const float (*)[3])pts, n, 0.035f, (float)s / (float)strands);
    } else {
      int n = falling_strand(b, pts, around, polar0, 1.75f, HEAD_Y - 0.45f + 0.1f * rnd(b), 0.12f);
      add_strand(b, (const float (*)[3])pts, n, 0.04f, (float)s / (float)strands);
    }
  }
}

static void build_long(builder *b) {
  float pts[MAX_POINTS][3];
  int strands = 72;
  for (int s = 0; s < strands; s++) {
    float around = 2.0f * PI_F * ((float)s + rnd(b) * 0.5f) / (float)strands;
    float front = cosf(around);
    float polar0 = 0.1f + 0.3f * rnd(b);
    int n;
    if (front > 0.7f) n = falling_strand(b, pts, around, polar0, 1.05f, HEAD_Y + 0.3f, 0.04f);
    else n = falling_strand(b, pts, around, polar0, 1.8f, HEAD_Y - 1.9f + 0.3f * rnd(b), 0.25f);
    add_strand(b, (const float (*)[3])pts, n, 0.035f, (float)s / (float)strands);
  }
}

static void build_ponytail(builder *b) {
  float pts[MAX_POINTS][3];
  int strands = 56;
  const float tie_polar = 1.75f, tie_around = PI_F; /* back of the head, a little below the equator */
  float tie[3];
  on_head(tie_polar, tie_around, 0.06f, tie);
  for (int s = 0; s < strands; s++) {
    float around = 2.0f * PI_F * ((float)s + rnd(b) * 0.5f) / (float)strands;
    float polar0 = 0.15f + 0.5f * rnd(b);
    int n = 0;
    /* Sweep over the skull toward the tie: interpolate on the sphere between start and tie. */
    float d0[3], d1[3];
    head_dir(polar0, around, d0);
    head_dir(tie_polar, tie_around, d1);
    for (int k = 0; k < 8; k++) {
      float t = (float)k / 7.0f, d[3];
      for (int c = 0; c < 3; c++) d[c] = d0[c] * (1.0f - t) + d1[c] * t;
      normalize(d);
      for (int c = 0; c < 3; c++) pts[n][c] = d[c] * (HEAD_R + 0.04f + 0.02f * t);
      pts[n][1] += HEAD_Y;
      n++;
    }
    /* The tail: out from the tie, then down, bundled with a small spread. */
    float spread_a = 2.0f * PI_F * rnd(b), spread_r = 0.02f + 0.06f * rnd(b);
    float sx = cosf(spread_a) * spread_r, sz = sinf(spread_a) * spread_r;
    for (int k = 1; k <= 10; k++) {
      float t = (float)k / 10.0f;
      pts[n][0] = tie[0] + sx * (1.0f + 1.5f * t);
      pts[n][1] = tie[1] + 0.08f * sinf(t * PI_F) - 1.1f * t * t;
      pts[n][2] = tie[2] - 0.18f * sinf(t * PI_F * 0.5f) + sz * (1.0f + 1.5f * t);
      n++;
    }
    add_strand(b, (const float (*)[3])pts, n, 0.03f, (float)s / (float)strands);
  }
}

/* A volume of short curls filling a thick shell around the head: hair with no strands to follow. */
static void build_afro(builder *b) {
  float pts[MAX_POINTS][3];
  int curls = 400, points = 6;
  for (int c = 0; c < curls; c++) {
    float polar = 1.9f * sqrtf(rnd(b)), around = 2.0f * PI_F * rnd(b), radius = 0.68f + 0.7f * rnd(b);
    float centre[3], axis[3], side[3], up[3] = {0.0f, 1.0f, 0.0f};
    on_head(polar, around, radius - HEAD_R, centre);
    head_dir(1.5f * rnd(b), 2.0f * PI_F * rnd(b), axis);
    cross(axis, up, side);
    if (side[0] * side[0] + side[1] * side[1] + side[2] * side[2] < 1e-4f) side[0] = 1.0f;
    normalize(side);
    float other[3];
    cross(axis, side, other);
    for (int k = 0; k < points; k++) {
      float a = 2.0f * PI_F * (float)k / (float)(points - 1), along = 0.12f * (float)k / (float)(points - 1) - 0.06f;
      for (int d = 0; d < 3; d++) pts[k][d] = centre[d] + axis[d] * along + 0.05f * (cosf(a) * side[d] + sinf(a) * other[d]);
    }
    add_strand(b, (const float (*)[3])pts, points, 0.02f, (float)c / (float)curls);
  }
}

tress_mesh *tress_sample_hair_create(tress_sample_hair_style style) {
  if ((unsigned)style >= TRESS_SAMPLE_HAIR_STYLE_COUNT) return NULL;
  /* Upper bound on size: cap + strands of at most MAX_POINTS points. */
  uint32_t strands = 80, cap_rings = 8, cap_around = 24; /* the afro's 400 six-point curls fit this too */
  uint32_t vmax = (cap_rings + 1) * (cap_around + 1) + strands * MAX_POINTS * TUBE_SIDES;
  uint32_t imax = cap_rings * cap_around * 6 + strands * (MAX_POINTS - 1) * TUBE_SIDES * 6;
  tress_mesh_def mesh_def = {.vertex_count = vmax, .index_count = imax, .has_normals = true, .has_uvs = true};
  tress_mesh *full = tress_mesh_create(&mesh_def);
  if (!full) return NULL;
  builder b = {full, 0, 0, 12345u + (uint32_t)style * 77u};
  add_cap(&b, (int)cap_rings, (int)cap_around, style == TRESS_SAMPLE_HAIR_PONYTAIL ? 1.75f : 1.6f);
  switch (style) {
  case TRESS_SAMPLE_HAIR_BOB: build_bob(&b); break;
  case TRESS_SAMPLE_HAIR_PONYTAIL: build_ponytail(&b); break;
  case TRESS_SAMPLE_HAIR_LONG: build_long(&b); break;
  case TRESS_SAMPLE_HAIR_AFRO: build_afro(&b); break;
  default: break;
  }
  /* Trim to what was built. */
  tress_mesh_def used_def = {.vertex_count = b.v, .index_count = b.i, .has_normals = true, .has_uvs = true};
  tress_mesh *m = tress_mesh_create(&used_def);
  if (m) {
    memcpy(m->positions, full->positions, 12 * (size_t)b.v);
    memcpy(m->normals, full->normals, 12 * (size_t)b.v);
    memcpy(m->uvs, full->uvs, 8 * (size_t)b.v);
    memcpy(m->indices, full->indices, 4 * (size_t)b.i);
  }
  tress_mesh_release(full);
  return m;
}

static const char *const STYLE_NAMES[TRESS_SAMPLE_HAIR_STYLE_COUNT] = {"bob", "ponytail", "long", "afro"};

const char *tress_sample_hair_style_name(tress_sample_hair_style style) {
  return (unsigned)style < TRESS_SAMPLE_HAIR_STYLE_COUNT ? STYLE_NAMES[style] : "unknown";
}

bool tress_sample_hair_style_from_name(const char *text, tress_sample_hair_style *out) {
  for (int s = 0; text && out && s < TRESS_SAMPLE_HAIR_STYLE_COUNT; s++)
    if (strcmp(text, STYLE_NAMES[s]) == 0) {
      *out = (tress_sample_hair_style)s;
      return true;
    }
  return false;
}
