/* bench/colliders.c - what sphere/capsule colliders add to a frame of the real solver.
 *
 * 10000 chains x 10 bones, each a part with one linear bone chain held out sideways over a
 * "body" attached to the part: a head, neck and two shoulder spheres and two upper-arm capsules,
 * so the strands really drape on them. Every part moves on its own path (root motion) and the
 * sim runs one 60 Hz substep per frame through the public API. Run twice, with no colliders and
 * with the six per chain (tress_sim_create_collider, listed in the chain settings, strand radius
 * 0.05); the figures come from the sim's profile (enable_profile, tress_sim_get_profile):
 *   substep   integrate, stiffness, link, and the collider push (ns per node-substep)
 *   set-up    the chains' once-per-frame work outside the tiles: colliders resolved to world
 *             space and their lanes filled (ns per node per frame)
 *   prepare   scene reads, animated world poses (ns per node per frame)
 * and the push's cost is the difference of the two runs. Each figure is the best of three
 * rounds of 120 frames (the machine is shared; the minimum is the least disturbed). Afterwards
 * the drawn bone positions are checked against the colliders' world poses: the fraction of
 * nodes left inside one is printed. Figures are printed, never asserted. `--json` prints one
 * object.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/collider.h"
#include "tress/sim.h"
#include "bench_env.h"
#include "../tests/support/scene_build.h"

enum { CHAINS = 10000, NODES = 10, SPHERES = 4, CAPSULES = 2, COLLIDERS = SPHERES + CAPSULES };
enum { WARM_FRAMES = 60, ROUND_FRAMES = 120, ROUNDS = 3 };

typedef struct rig {
  tress_scene *scene;
  tress_sim *sim;
  tress_id parts[CHAINS];
  tress_id bones[CHAINS][NODES];
  tress_collider_id colliders[CHAINS][COLLIDERS];
  bool with_colliders;
} rig;

static float base_x(uint32_t j) { return (float)(j % 100) * 4.0f; }
static float base_z(uint32_t j) { return (float)(j / 100) * 4.0f; }

/* Head, neck, two shoulder spheres and two upper-arm capsules in the part's frame. */
static void add_body(rig *r, uint32_t j, tress_chain_settings *s) {
  static const float spheres[SPHERES][4] = {
      {0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, -1.2f, 0.0f, 0.5f}, {1.0f, -1.6f, 0.0f, 0.45f}, {-1.0f, -1.6f, 0.0f, 0.45f}};
  static const float arms[CAPSULES][7] = {{1.3f, -1.7f, 0.0f, 1.5f, -3.0f, 0.0f, 0.3f},
                                          {-1.3f, -1.7f, 0.0f, -1.5f, -3.0f, 0.0f, 0.3f}};
  for (uint32_t k = 0; k < COLLIDERS; k++) {
    tress_collider_def d = tress_default_collider_def();
    d.attach = r->parts[j];
    if (k < SPHERES) {
      memcpy(d.offset, spheres[k], sizeof d.offset);
      memcpy(d.tail, spheres[k], sizeof d.tail);
      d.radius = spheres[k][3];
    } else {
      d.shape = TRESS_COLLIDER_CAPSULE;
      memcpy(d.offset, arms[k - SPHERES], sizeof d.offset);
      memcpy(d.tail, arms[k - SPHERES] + 3, sizeof d.tail);
      d.radius = arms[k - SPHERES][6];
    }
    tress_sim_create_collider(r->sim, &d, &r->colliders[j][k]);
    s->colliders[s->collider_count++] = r->colliders[j][k];
  }
  s->radius = 0.05f;
}

static void rig_build(rig *r, bool with_colliders) {
  r->with_colliders = with_colliders;
  r->scene = th_scene();
  tress_id root = tress_scene_get_root(r->scene);
  for (uint32_t j = 0; j < CHAINS; j++) {
    r->parts[j] = th_instance(r->scene, TRESS_KIND_PART, "Body", root);
    tress_part_set_cframe(r->scene, r->parts[j], tress_xform_from_pos(base_x(j), 0.0f, base_z(j)));
    tress_id parent = r->parts[j];
    for (uint32_t l = 0; l < NODES; l++) {
      r->bones[j][l] = th_instance(r->scene, TRESS_KIND_BONE, "Hair", parent);
      /* the root over the head, the rest held out sideways so gravity drapes them */
      tress_bone_set_cframe(r->scene, r->bones[j][l], l == 0 ? tress_xform_from_pos(0, 1.2f, 0) : tress_xform_from_pos(0.25f, 0, 0));
      parent = r->bones[j][l];
    }
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = r->scene;
  def.max_chains = CHAINS;
  def.max_distance = 1e9f;
  def.enable_profile = true;
  r->sim = tress_sim_create(&def);
  if (!r->sim) {
    fprintf(stderr, "sim create failed\n");
    exit(1);
  }
  for (uint32_t j = 0; j < CHAINS; j++) {
    tress_chain_settings s = tress_default_chain_settings();
    s.damping = 0.9f;
    s.stiffness = 0.02f;
    if (with_colliders) add_body(r, j, &s);
    if (tress_sim_bind(r->sim, r->parts[j], &s, NULL) != TRESS_OK) {
      fprintf(stderr, "bind failed\n");
      exit(1);
    }
  }
}

static void rig_free(rig *r) {
  tress_sim_destroy(r->sim);
  tress_scene_destroy(r->scene);
}

static void move_roots(rig *r, float t) {
  for (uint32_t j = 0; j < CHAINS; j++)
    tress_part_set_cframe(r->scene, r->parts[j], tress_xform_from_pos(base_x(j) + 0.1f * sinf(t + (float)j), 0.0f, base_z(j)));
}

typedef struct figures {
  double substep_ns; /* per node-substep: integrate + link (+ collider push) */
  double setup_ns;   /* per node per frame: the chains' per-frame set-up (collider resolve + lanes) */
  double prepare_ns; /* per node per frame: scene reads, animated poses */
  double inside;     /* fraction of non-root nodes left inside a collider after the run */
} figures;

/* Distance test of point p against a world collider, less a small tolerance. */
static bool inside_collider(const float p[3], const tress_collider_world *c, float strand_radius) {
  float abx = c->bx - c->ax, aby = c->by - c->ay, abz = c->bz - c->az;
  float apx = p[0] - c->ax, apy = p[1] - c->ay, apz = p[2] - c->az;
  float ab2 = abx * abx + aby * aby + abz * abz;
  float u = ab2 > 0.0f ? (apx * abx + apy * aby + apz * abz) / ab2 : 0.0f;
  u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
  float dx = apx - abx * u, dy = apy - aby * u, dz = apz - abz * u;
  float rr = c->radius + strand_radius - 0.01f;
  return dx * dx + dy * dy + dz * dz < rr * rr;
}

/* Nodes of the drawn pose inside one of their chain's colliders (the colliders of the run with
 * them, applied to either run so the two are comparable: none has them all at the same place). */
static double inside_fraction(const rig *r, const rig *bodies) {
  uint32_t inside = 0;
  for (uint32_t j = 0; j < CHAINS; j++) {
    tress_collider_world w[COLLIDERS];
    for (uint32_t k = 0; k < COLLIDERS; k++) tress_collider_get_world(bodies->sim, bodies->colliders[j][k], &w[k]);
    for (uint32_t l = 1; l < NODES; l++) {
      tress_xform x = tress_instance_get_world(r->scene, r->bones[j][l]);
      for (uint32_t k = 0; k < COLLIDERS; k++) {
        if (inside_collider(x.p, &w[k], 0.05f)) {
          inside++;
          break;
        }
      }
    }
  }
  return (double)inside / ((double)CHAINS * (NODES - 1));
}

static figures run(rig *r) {
  const double dt = 1.0 / 60.0;
  uint32_t frame = 0;
  figures best = {1e30, 1e30, 1e30, 0.0};
  for (uint32_t i = 0; i < WARM_FRAMES; i++, frame++) {
    move_roots(r, (float)(frame * dt * 3.0));
    tress_sim_step(r->sim, dt);
  }
  const double nodes = (double)CHAINS * NODES;
  for (int round = 0; round < ROUNDS; round++) {
    double substep = 0.0, setup = 0.0, prepare = 0.0;
    for (uint32_t i = 0; i < ROUND_FRAMES; i++, frame++) {
      move_roots(r, (float)(frame * dt * 3.0));
      tress_sim_step(r->sim, dt);
      tress_sim_profile p = tress_sim_get_profile(r->sim);
      substep += p.chain_substep;
      prepare += p.chain_prepare;
      setup += p.chains - p.chain_prepare - p.chain_substep - p.chain_output;
    }
    double per_frame = 1e6 / ROUND_FRAMES / nodes; /* ms per round -> ns per node per frame */
    if (substep * per_frame < best.substep_ns) best.substep_ns = substep * per_frame;
    if (setup * per_frame < best.setup_ns) best.setup_ns = setup * per_frame;
    if (prepare * per_frame < best.prepare_ns) best.prepare_ns = prepare * per_frame;
  }
  return best;
}

int main(int argc, char **argv) {
  bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
  bench_env_print(json ? stderr : stdout, "bench/colliders");
  bench_env_print_yardstick(json ? stderr : stdout);
  static rig bare, body; /* large: keep them off the stack */
  rig_build(&bare, false);
  figures none = run(&bare);
  rig_build(&body, true);
  figures with = run(&body);
  none.inside = inside_fraction(&bare, &body);
  with.inside = inside_fraction(&body, &body);
  rig_free(&bare);
  rig_free(&body);
  if (json) {
    printf("{\"chains\":%d,\"nodes\":%d,\"spheres\":%d,\"capsules\":%d,\"frames\":%d,"
           "\"ns_per_node_substep_no_colliders\":%.3f,\"ns_per_node_substep_colliders\":%.3f,"
           "\"ns_per_node_frame_setup_no_colliders\":%.3f,\"ns_per_node_frame_setup_colliders\":%.3f,"
           "\"ns_per_node_frame_prepare\":%.3f,\"nodes_inside_after\":%.5f,\"nodes_inside_without\":%.5f}\n",
           CHAINS, NODES, SPHERES, CAPSULES, ROUND_FRAMES, none.substep_ns, with.substep_ns, none.setup_ns,
           with.setup_ns, with.prepare_ns, with.inside, none.inside);
    return 0;
  }
  printf("colliders: %d chains x %d bones through tress_sim_step, one 60 Hz substep a frame, best of %d x %d frames\n",
         CHAINS, NODES, ROUNDS, ROUND_FRAMES);
  printf("  no colliders                      %7.3f ns per node-substep\n", none.substep_ns);
  printf("  %d spheres + %d capsules per chain  %7.3f ns per node-substep (push %.3f)\n", SPHERES, CAPSULES,
         with.substep_ns, with.substep_ns - none.substep_ns);
  printf("    + per-frame set-up              %7.3f ns per node per frame (no colliders: %.3f; world poses + lanes)\n",
         with.setup_ns, none.setup_ns);
  printf("  prepare (scene reads, animation)  %7.3f ns per node per frame (no colliders: %.3f)\n", with.prepare_ns,
         none.prepare_ns);
  printf("  nodes left inside a collider      %7.3f%% (no colliders: %.3f%%)\n", with.inside * 100.0,
         none.inside * 100.0);
  return 0;
}
