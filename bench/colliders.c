/* bench/colliders.c - what sphere/capsule colliders add to a chain substep.
 *
 * 10000 chains x 10 nodes in depth-level structure-of-arrays (level 0 = pinned roots), the
 * same integrate / stiffness / inextensible-link loop as chains.c's substep, one 60 Hz substep
 * per frame, every root moving on its own path. Run twice: with no colliders, and with
 * 4 spheres + 2 capsules per chain (head, neck and two shoulder spheres, two upper-arm
 * capsules around each chain's root, so the strands really drape on them), pushed out by
 * tress_collider_push_level after the link constraint. Colliders follow the root (the body),
 * so their world poses and the per-node lanes are refreshed once per frame over every node
 * (one lanes block, a view per level), and that cost is printed on its own; a second variant
 * keeps one lane per chain's collider set and lets each node read it through its set index
 * (tress_collider_push_level_sets: per-frame work per set, not per node). Root
 * pinning is left out of the timed substep (it has a sinf). Each figure is the best of three
 * runs. Figures are printed, never asserted. `--json` prints one object.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/collider.h"

enum { CHAINS = 10000, NODES = 10, SPHERES = 4, CAPSULES = 2, COLLIDERS = SPHERES + CAPSULES };

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct level_soa {
  float *px, *py, *pz, *ox, *oy, *oz; /* verlet state */
  float *ax, *ay, *az;                /* animated world (stiffness target) */
  float *rest, *damp, *stiff, *gs, *act, *strand_radius;
  float *gx, *gy, *gz;                /* parent gather scratch, one level wide */
} level_soa;

static float *alloc_floats(size_t n) {
  float *p = calloc(n, sizeof(float));
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

static void soa_init(level_soa *s) {
  size_t n = (size_t)CHAINS * NODES;
  float **f[] = {&s->px, &s->py, &s->pz, &s->ox, &s->oy, &s->oz, &s->ax, &s->ay, &s->az,
                 &s->rest, &s->damp, &s->stiff, &s->gs, &s->act, &s->strand_radius};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) *f[i] = alloc_floats(n);
  s->gx = alloc_floats(CHAINS);
  s->gy = alloc_floats(CHAINS);
  s->gz = alloc_floats(CHAINS);
  for (uint32_t l = 0; l < NODES; l++)
    for (uint32_t j = 0; j < CHAINS; j++) {
      size_t i = (size_t)l * CHAINS + j;
      float bx = (float)(j % 100) * 4.0f, bz = (float)(j / 100) * 4.0f;
      /* held out sideways over the head so gravity drapes it over the colliders */
      s->px[i] = s->ox[i] = s->ax[i] = bx + 0.25f * (float)l;
      s->py[i] = s->oy[i] = s->ay[i] = 1.2f;
      s->pz[i] = s->oz[i] = s->az[i] = bz;
      s->rest[i] = l ? 0.25f : 0.0f;
      s->damp[i] = 0.9f;
      s->stiff[i] = 0.02f;
      s->gs[i] = 1.0f;
      s->act[i] = 1.0f;
      s->strand_radius[i] = 0.05f;
    }
}

/* Per chain, in the chain's own frame (its root's base): head, neck, two shoulder spheres and
 * two upper-arm capsules. */
static void colliders_world(tress_collider_world *w, float t) {
  for (uint32_t j = 0; j < CHAINS; j++) {
    float bx = (float)(j % 100) * 4.0f + 0.1f * sinf(t + (float)j), bz = (float)(j / 100) * 4.0f;
    tress_collider_world *c = &w[(size_t)j * COLLIDERS];
    c[0] = (tress_collider_world){bx, 0.0f, bz, bx, 0.0f, bz, 1.0f};          /* head */
    c[1] = (tress_collider_world){bx, -1.2f, bz, bx, -1.2f, bz, 0.5f};        /* neck */
    c[2] = (tress_collider_world){bx + 1.0f, -1.6f, bz, bx + 1.0f, -1.6f, bz, 0.45f};
    c[3] = (tress_collider_world){bx - 1.0f, -1.6f, bz, bx - 1.0f, -1.6f, bz, 0.45f};
    c[4] = (tress_collider_world){bx + 1.3f, -1.7f, bz, bx + 1.5f, -3.0f, bz, 0.3f};
    c[5] = (tress_collider_world){bx - 1.3f, -1.7f, bz, bx - 1.5f, -3.0f, bz, 0.3f};
  }
}

static void pin_roots(level_soa *s, float t) {
  for (uint32_t j = 0; j < CHAINS; j++) {
    float x = (float)(j % 100) * 4.0f + 0.1f * sinf(t + (float)j);
    s->ox[j] = s->px[j];
    s->oy[j] = s->py[j];
    s->oz[j] = s->pz[j];
    s->px[j] = x;
    s->ax[j] = x;
  }
}

/* The shape of chains.c's substep for one level: gather parents, then one vectorized loop. */
static void substep_level(level_soa *s, uint32_t l, float gy) {
  size_t lo = (size_t)l * CHAINS, plo = lo - CHAINS;
  for (uint32_t j = 0; j < CHAINS; j++) {
    s->gx[j] = s->px[plo + j];
    s->gy[j] = s->py[plo + j];
    s->gz[j] = s->pz[plo + j];
  }
  float *restrict px = s->px + lo, *restrict py = s->py + lo, *restrict pz = s->pz + lo;
  float *restrict ox = s->ox + lo, *restrict oy = s->oy + lo, *restrict oz = s->oz + lo;
  const float *restrict ax = s->ax + lo, *restrict ay = s->ay + lo, *restrict az = s->az + lo;
  const float *restrict damp = s->damp + lo, *restrict stiff = s->stiff + lo, *restrict gs = s->gs + lo;
  const float *restrict rest = s->rest + lo, *restrict act = s->act + lo;
  const float *restrict qx = s->gx, *restrict qy = s->gy, *restrict qz = s->gz;
  for (uint32_t j = 0; j < CHAINS; j++) {
    float m = act[j];
    float cx = px[j], cy = py[j], cz = pz[j];
    float vx = (cx - ox[j]) * damp[j], vy = (cy - oy[j]) * damp[j], vz = (cz - oz[j]) * damp[j];
    float nx = cx + vx, ny = cy + vy + gy * gs[j], nz = cz + vz;
    nx += (ax[j] - nx) * stiff[j];
    ny += (ay[j] - ny) * stiff[j];
    nz += (az[j] - nz) * stiff[j];
    float dx = nx - qx[j], dy = ny - qy[j], dz = nz - qz[j];
    float len = sqrtf(dx * dx + dy * dy + dz * dz);
    float k = len > 1e-12f ? rest[j] / len : 0.0f;
    nx = qx[j] + dx * k;
    ny = qy[j] + dy * k;
    nz = qz[j] + dz * k;
    ox[j] = cx + (ox[j] - cx) * (1.0f - m);
    oy[j] = cy + (oy[j] - cy) * (1.0f - m);
    oz[j] = cz + (oz[j] - cz) * (1.0f - m);
    px[j] = cx + (nx - cx) * m;
    py[j] = cy + (ny - cy) * m;
    pz[j] = cz + (nz - cz) * m;
  }
}

typedef struct figures {
  double substep_ns; /* per node-substep, integrate + link (+ colliders) */
  double prep_ns;    /* per node per frame: collider world poses + lane gather */
  double inside;     /* fraction of nodes left inside a collider after the run */
} figures;

typedef enum mode {
  NO_COLLIDERS,
  LANES_PER_FRAME, /* one lanes block over every node, gathered once per frame; a view per level */
  SET_LANES,       /* one lane per chain's set, filled once per frame; nodes read it by set index */
} mode;

static figures run(mode m, uint32_t frames) {
  bool with_colliders = m != NO_COLLIDERS;
  level_soa s;
  soa_init(&s);
  tress_collider_world *world = calloc((size_t)CHAINS * COLLIDERS, sizeof *world);
  tress_collider_set *sets = calloc(CHAINS, sizeof *sets);
  uint32_t *chain_of_node = calloc((size_t)CHAINS * NODES, sizeof *chain_of_node);
  tress_collider_lanes lanes;
  uint32_t lane_nodes = m == LANES_PER_FRAME ? CHAINS * NODES : CHAINS; /* SET_LANES: one per set */
  if (!world || !sets || !chain_of_node || !tress_collider_lanes_init(&lanes, COLLIDERS, lane_nodes)) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  /* chain j's set lists its own six colliders, world[j * 6 .. j * 6 + 5] (60000 < 65536) */
  for (uint32_t j = 0; j < CHAINS; j++)
    for (uint32_t k = 0; k < COLLIDERS; k++) tress_collider_set_add(&sets[j], (uint16_t)(j * COLLIDERS + k));
  /* nodes in level order, chain by chain inside a level: the map chains.c keeps */
  for (uint32_t i = 0; i < CHAINS * NODES; i++) chain_of_node[i] = i % CHAINS;
  const float dt = 1.0f / 60.0f, gy = -30.0f * dt * dt;
  double sub_ns = 0.0, prep_ns = 0.0;
  uint32_t warm = 60;
  for (uint32_t f = 0; f < warm + frames; f++) {
    float t = (float)f * dt * 3.0f;
    double t0 = now_ns(), t_prep = t0;
    if (with_colliders) {
      colliders_world(world, t);
    }
    if (m == LANES_PER_FRAME) {
      tress_collider_lanes_gather(&lanes, world, (uint32_t)((size_t)CHAINS * COLLIDERS), sets, CHAINS, chain_of_node,
                                  CHAINS * NODES);
      t_prep = now_ns();
    } else if (m == SET_LANES) {
      tress_collider_lanes_gather(&lanes, world, (uint32_t)((size_t)CHAINS * COLLIDERS), sets, CHAINS, NULL, CHAINS);
      t_prep = now_ns();
    }
    pin_roots(&s, t);
    double t1 = now_ns();
    for (uint32_t l = 1; l < NODES; l++) {
      substep_level(&s, l, gy);
      if (with_colliders) {
        size_t lo = (size_t)l * CHAINS, plo = lo - CHAINS;
        if (m == SET_LANES) {
          tress_collider_push_level_sets(s.px + lo, s.py + lo, s.pz + lo, s.px + plo, s.py + plo, s.pz + plo,
                                         s.rest + lo, s.strand_radius + lo, CHAINS, &lanes, chain_of_node + lo);
        } else {
          tress_collider_lanes view = tress_collider_lanes_view(&lanes, (uint32_t)lo);
          tress_collider_push_level(s.px + lo, s.py + lo, s.pz + lo, s.px + plo, s.py + plo, s.pz + plo,
                                    s.rest + lo, s.strand_radius + lo, CHAINS, &view);
        }
      }
    }
    double t2 = now_ns();
    if (f >= warm) {
      prep_ns += t_prep - t0;
      sub_ns += t2 - t1;
    }
  }
  uint32_t inside = 0;
  colliders_world(world, (float)(warm + frames - 1) * dt * 3.0f);
  for (uint32_t l = 1; l < NODES; l++)
    for (uint32_t j = 0; j < CHAINS; j++) {
      size_t i = (size_t)l * CHAINS + j;
      for (uint32_t k = 0; k < COLLIDERS; k++) {
        const tress_collider_world *c = &world[(size_t)j * COLLIDERS + k];
        float abx = c->bx - c->ax, aby = c->by - c->ay, abz = c->bz - c->az;
        float apx = s.px[i] - c->ax, apy = s.py[i] - c->ay, apz = s.pz[i] - c->az;
        float ab2 = abx * abx + aby * aby + abz * abz;
        float u = ab2 > 0.0f ? (apx * abx + apy * aby + apz * abz) / ab2 : 0.0f;
        u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
        float dx = apx - abx * u, dy = apy - aby * u, dz = apz - abz * u;
        float r = c->radius + s.strand_radius[i] - 0.01f;
        if (dx * dx + dy * dy + dz * dz < r * r) {
          inside++;
          break;
        }
      }
    }
  double node_substeps = (double)frames * CHAINS * (NODES - 1);
  figures out = {sub_ns / node_substeps, prep_ns / ((double)frames * CHAINS * NODES),
                 (double)inside / ((double)CHAINS * (NODES - 1))};
  tress_collider_lanes_free(&lanes);
  free(world);
  free(sets);
  free(chain_of_node);
  float **f[] = {&s.px, &s.py, &s.pz, &s.ox, &s.oy, &s.oz, &s.ax, &s.ay, &s.az,
                 &s.rest, &s.damp, &s.stiff, &s.gs, &s.act, &s.strand_radius, &s.gx, &s.gy, &s.gz};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) free(*f[i]);
  return out;
}

static figures best_of(mode m, uint32_t frames, int runs) {
  figures best = run(m, frames);
  for (int i = 1; i < runs; i++) {
    figures f = run(m, frames);
    if (f.substep_ns < best.substep_ns) best.substep_ns = f.substep_ns;
    if (f.prep_ns < best.prep_ns) best.prep_ns = f.prep_ns;
  }
  return best;
}

int main(int argc, char **argv) {
  bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
  uint32_t frames = 120;
  /* best of three runs each: the machine is shared, and the minimum is the least disturbed */
  figures none = best_of(NO_COLLIDERS, frames, 3);
  figures with = best_of(LANES_PER_FRAME, frames, 3);
  figures sets = best_of(SET_LANES, frames, 3);
  if (json) {
    printf("{\"chains\":%d,\"nodes\":%d,\"spheres\":%d,\"capsules\":%d,\"frames\":%u,"
           "\"ns_per_node_substep_no_colliders\":%.3f,\"ns_per_node_substep_colliders\":%.3f,"
           "\"ns_per_node_frame_collider_prep\":%.3f,\"ns_per_node_substep_set_lanes\":%.3f,"
           "\"ns_per_node_frame_set_lanes_prep\":%.3f,\"nodes_inside_after\":%.5f}\n",
           CHAINS, NODES, SPHERES, CAPSULES, frames, none.substep_ns, with.substep_ns, with.prep_ns, sets.substep_ns,
           sets.prep_ns, sets.inside);
    return 0;
  }
  printf("colliders: %d chains x %d nodes, %u frames of one 60 Hz substep\n", CHAINS, NODES, frames);
  printf("  no colliders                      %7.3f ns per node-substep\n", none.substep_ns);
  printf("  %d spheres + %d capsules per chain  %7.3f ns per node-substep (push %.3f)\n", SPHERES, CAPSULES,
         with.substep_ns, with.substep_ns - none.substep_ns);
  printf("    + per-node lanes, once a frame  %7.3f ns per node per frame (world poses + gather)\n", with.prep_ns);
  printf("  the same through set lanes        %7.3f ns per node-substep (push %.3f)\n", sets.substep_ns,
         sets.substep_ns - none.substep_ns);
  printf("    + set lanes, once a frame       %7.3f ns per node per frame (world poses + one lane per set)\n",
         sets.prep_ns);
  printf("  nodes left inside a collider      %7.3f%% / %.3f%% (no colliders: %.3f%%)\n", with.inside * 100.0,
         sets.inside * 100.0, none.inside * 100.0);
  return 0;
}
