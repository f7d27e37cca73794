/* bench/solver.c - what one frame of bone chains costs, phase by phase.
 *
 * For 300 chains x 7 bones, 1000 x 10 and 10000 x 10: every chain is a part with one linear
 * bone chain held out sideways, so gravity swings it, and every part moves on its own fast
 * path each frame (root motion). The budget and cull distance admit every chain. Each 60 Hz
 * frame is one substep; the phases come from the sim's public profile (enable_profile in the
 * def, tress_sim_get_profile), which times them where they really run: tile by tile, each
 * tile's prepare, substep and output back to back (so prepare pays for bringing a tile's data
 * into cache; the clock reads cost ~0.1%):
 *   prepare   scene reads (animated inputs, part frames), animated world poses, snap checks
 *   substep   integrate, stiffness, inextensible link (ns per node-substep)
 *   output    shortest-arc poses against the parent's written pose, each level's local
 *             transforms scattered into the scene's bone transform slots while still in cache
 * then a whole tress_sim_step(1/60) is timed end to end (culling, wind, everything) on a second
 * copy of the rig built without profiling, so the step figures pay for no clock reads.
 * The same three configurations run again with 4 sphere and 2 capsule colliders per chain
 * (attached to its part, strand radius 0.05): the "+6c" rows, beside the collider-free ones.
 * The "vrm" rows run the same six configurations with TRESS_SPRING_VRM (the VRMC_springBone
 * model: stiffness under the parent's current rotation, every joint turned, rotations only), and
 * the last table gives each VRM row's cost over its pose-model row, measured in the same run.
 * The "+lim" rows run the VRM configurations again with a cone limit (0.6 rad, which the swing
 * reaches) on every joint (tress_joint_limit), and a last table gives their cost over the same
 * VRM rows without limits.
 * Bytes per node: what the scene and the sim hold (tress_scene_get_memory_bytes +
 * tress_sim_get_memory_bytes, allocated capacity) over the node count, after the warm-up, each
 * and their sum. The scene and sim are made with capacities for the rig, as a game that knows
 * its cast would make them: instances 1 + chains x (1 + bones), parts and listeners (one per
 * bound chain) = chains, no joints (tress_scene_def), chain_capacity = chains (tress_sim_def);
 * the colliders are the sim's, not scene instances. Doubling past a default would otherwise
 * leave up to half of each array unused.
 * Every figure is the median over the frames (robust on a shared machine), divided by the node
 * count; `--best` reports the fastest frame instead (what a quiet core does). Figures are printed, never asserted. `--json` prints one object per configuration.
 * Ratios measured in the same run (bench_env.h): each whole step over the yardstick's frame at the
 * same size (limit.c's fastest variant on this CPU, median frame; for +6c it tests 4 spheres and
 * no capsules), and three-vrm's update per joint (bench/threevrm.mjs: the same sizes, chains held
 * out sideways under gravity, each head on its own path) over tress's whole step per node at
 * 300 x 7, 1000 x 10 and 10000 x 10 (three-vrm's median frame, or with --best its fastest, as
 * tress's; 600 frames up to 10000 joints, fewer above so each size costs it about as much).
 * `--three-vrm-large` adds 100000 x 10 (a million joints, about 90 s of three-vrm) against the
 * speed-up table's one-worker pose step. The yardstick reports median frames only, so its ratios
 * are like for like without --best and flatter tress with it. `--no-yardstick` skips both.
 * Speed-up on 2 workers (10000 x 10 and 100000 x 10, with and without colliders): the pose rig
 * built twice, one sim stepping on the calling thread, the other on tests/support/job_pool.h's
 * pthreads behind tress_sim_def.jobs, stepped in alternating blocks; whole-step medians and their
 * ratio. `--speedup` prints only that table (not in --json). 100000 x 10 +6c is not run: its
 * 600000 colliders are more than one sim holds (65535), and the table says so.
 * Every call that builds a rig is checked: a failed one stops the bench rather than time a
 * half-built rig.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tress/sim.h"
#include "bench_env.h"
#include "../tests/support/scene_build.h"
#include "../tests/support/job_pool.h"

typedef struct config {
  uint32_t chains, bones;
  bool colliders; /* 4 spheres + 2 capsules per chain, attached to its part, strand radius 0.05 */
  tress_spring_model model;
  bool limits; /* a cone limit (0.6 rad) on every joint: the VRM "+lim" rows */
  uint32_t workers; /* 0 or 1: the sim runs on the calling thread; more: a job_pool of that many */
  bool animated; /* every bone carries an animated local (a constant small turn): the "+anim" rows */
} config;

typedef struct result {
  config cfg;
  uint32_t frames;
  double prepare_ns, substep_ns, output_ns; /* per node (per node-substep for substep) */
  double frame_ns;     /* per node per 60 Hz frame: substep + output (scene write included) */
  double frame_all_ns; /* the same plus prepare */
  double step_ns;      /* per node, a whole tress_sim_step(1/60) */
  double frame_ms;     /* one whole tress_sim_step for every chain */
  double step144_ns;   /* per node, mean whole tress_sim_step(1/144) (mostly frames between steps) */
  double bind_us;      /* per chain: scene set-up, colliders added and tress_sim_bind, then the first step */
  double bytes_per_node; /* scene + sim, as allocated (tress_*_get_memory_bytes), after the warm-up */
  double scene_bytes_per_node, sim_bytes_per_node; /* its two parts */
} result;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v (sorted in place), or its smallest value when best is set. */
static double median(double *v, uint32_t n, bool best) {
  qsort(v, n, sizeof *v, cmp_double);
  if (best) return v[0];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct rig {
  tress_scene *scene;
  tress_sim *sim;
  tress_id *parts;
  float *base;  /* grid position per chain */
  uint32_t chains;
  job_pool *pool; /* cfg.workers > 1: the game's job system, as a test pool of pthreads */
} rig;

/* A sim holds at most TRESS_SIM_COLLIDERS_MAX colliders: a colliding rig of more chains than fit
 * cannot be built as one sim. */
enum { RIG_COLLIDERS_PER_CHAIN = 6 };
static bool rig_fits(config cfg) {
  return !cfg.colliders || (uint64_t)cfg.chains * RIG_COLLIDERS_PER_CHAIN <= TRESS_SIM_COLLIDERS_MAX;
}

/* Every call that builds the rig must work: a figure from a half-built rig would be a lie. */
static void rig_check(bool ok, const char *what, uint32_t chain) {
  if (ok) return;
  fprintf(stderr, "bench/solver: building the rig failed: %s (chain %u)\n", what, chain);
  exit(1);
}

static void rig_build(rig *r, config cfg, bool profile) {
  /* sized for the rig: the root, each chain's part and bones; each bound chain's root listener */
  tress_scene_def sd = tress_default_scene_def();
  sd.instance_capacity = 1 + cfg.chains * (1 + cfg.bones);
  sd.part_capacity = cfg.chains;
  sd.bone_capacity = cfg.chains * cfg.bones;
  sd.listener_capacity = cfg.chains;
  sd.joint_capacity = 0;
  r->scene = tress_scene_create(&sd);
  r->chains = cfg.chains;
  r->parts = calloc(cfg.chains, sizeof *r->parts);
  r->base = calloc(cfg.chains * 3, sizeof *r->base);
  tress_id root = tress_scene_get_root(r->scene);
  uint32_t side = (uint32_t)ceil(sqrt((double)cfg.chains));
  for (uint32_t c = 0; c < cfg.chains; c++) {
    tress_id part = th_instance(r->scene, TRESS_KIND_PART, "Head", root);
    r->base[3 * c] = (float)(c % side) * 3.0f;
    r->base[3 * c + 1] = 5.0f;
    r->base[3 * c + 2] = (float)(c / side) * 3.0f;
    tress_part_set_cframe(r->scene, part, tress_xform_from_pos(r->base[3 * c], r->base[3 * c + 1], r->base[3 * c + 2]));
    tress_id parent = part;
    for (uint32_t b = 0; b < cfg.bones; b++) {
      tress_id bone = th_instance(r->scene, TRESS_KIND_BONE, "Hair", parent);
      /* root at the part's top, the rest stick out sideways and slightly down */
      tress_bone_set_cframe(r->scene, bone, b == 0 ? tress_xform_from_pos(0, 0.5f, 0) : tress_xform_from_pos(0.3f, -0.05f, 0));
      if (cfg.animated) {
        tress_xform turn = tress_xform_identity(); /* 0.1 rad about z, so the strand curls down a little */
        turn.q[2] = sinf(0.05f);
        turn.q[3] = cosf(0.05f);
        tress_bone_set_animated(r->scene, bone, turn);
      }
      parent = bone;
    }
    r->parts[c] = part;
  }
  tress_sim_def def = tress_default_sim_def();
  def.scene = r->scene;
  def.max_chains = (int)cfg.chains;
  def.max_distance = 1e9f;
  def.ambient_wind[2] = 6.0f;
  def.enable_profile = profile;
  def.chain_capacity = cfg.chains;
  r->pool = cfg.workers > 1 ? job_pool_create(cfg.workers) : NULL;
  def.jobs = job_pool_jobs(r->pool);
  r->sim = tress_sim_create(&def);
  float cam[3] = {0, 5, 0};
  tress_sim_set_camera(r->sim, cam);
  for (uint32_t c = 0; c < cfg.chains; c++) {
    tress_chain_settings s = tress_default_chain_settings();
    if (cfg.model == TRESS_SPRING_VRM) {
      /* a stiff VRM strand (drag 0.4, VRM's default) that holds about the shape the pose
       * model does, so both rows test their colliders against a similar strand */
      s.model = TRESS_SPRING_VRM;
      s.stiffness = 4.0f;
      s.damping = 0.6f;
      s.gravity_scale = 0.5f;
    }
    if (cfg.colliders) {
      /* a head under the strand's middle, shoulders, a neck capsule and a collar capsule: the
       * strand swings into some of them every frame, most of its nodes are clear of most */
      static const float spheres[4][4] = {{0.9f, -0.4f, 0.0f, 0.5f}, {0.0f, -0.6f, 0.6f, 0.3f},
                                          {0.0f, -0.6f, -0.6f, 0.3f}, {1.6f, -1.2f, 0.0f, 0.3f}};
      for (int k = 0; k < 4; k++) {
        tress_collider_def d = tress_default_collider_def();
        d.attach = r->parts[c];
        memcpy(d.offset, spheres[k], 3 * sizeof(float));
        memcpy(d.tail, spheres[k], 3 * sizeof(float));
        d.radius = spheres[k][3];
        rig_check(tress_sim_create_collider(r->sim, &d, &s.colliders[s.collider_count++]) == TRESS_OK,
                  "tress_sim_create_collider", c);
      }
      const float neck[3] = {0.0f, -1.0f, 0.0f}, collar[3] = {0.0f, -1.3f, 0.0f};
      tress_collider_def d = tress_collider_capsule_y(r->parts[c], neck, 0.6f, 0.2f);
      rig_check(tress_sim_create_collider(r->sim, &d, &s.colliders[s.collider_count++]) == TRESS_OK,
                "tress_sim_create_collider", c);
      d = tress_collider_capsule_y(r->parts[c], collar, 0.0f, 0.25f);
      d.offset[0] = -0.6f;
      d.tail[0] = 0.6f;
      rig_check(tress_sim_create_collider(r->sim, &d, &s.colliders[s.collider_count++]) == TRESS_OK,
                "tress_sim_create_collider", c);
      s.radius = 0.05f;
    }
    tress_handle_id h;
    rig_check(tress_sim_bind(r->sim, r->parts[c], &s, &h) == TRESS_OK, "tress_sim_bind", c);
    if (cfg.limits) {
      tress_joint_settings j = tress_chain_settings_get_joint(&s);
      j.limit.kind = TRESS_LIMIT_CONE;
      j.limit.angle = 0.6f;
      tress_id bone = r->parts[c];
      for (uint32_t b = 0; b < cfg.bones; b++) {
        bone = tress_instance_get_first_child(r->scene, bone);
        rig_check(tress_handle_set_joint_settings(r->sim, h, bone, &j) == TRESS_OK, "tress_handle_set_joint_settings", c);
      }
    }
  }
}

static void rig_free(rig *r) {
  tress_sim_destroy(r->sim);
  job_pool_destroy(r->pool);
  tress_scene_destroy(r->scene);
  free(r->parts);
  free(r->base);
}

/* Head-like motion: a quick figure eight plus a nod, different phase per chain. */
static void move_roots(rig *r, double t) {
  for (uint32_t c = 0; c < r->chains; c++) {
    double ph = t * 6.0 + c * 0.37;
    tress_xform x = tress_xform_from_pos(r->base[3 * c] + (float)(0.4 * sin(ph)), r->base[3 * c + 1] + (float)(0.1 * sin(2 * ph)),
                                         r->base[3 * c + 2] + (float)(0.3 * cos(ph)));
    float axis[3] = {0, 1, 0};
    x.q[0] = 0; x.q[1] = (float)sin(0.2 * sin(ph)); x.q[2] = 0; x.q[3] = (float)cos(0.2 * sin(ph));
    (void)axis;
    tress_part_set_cframe(r->scene, r->parts[c], x);
  }
}

static result run(config cfg, double budget_node_frames, bool best) {
  result res;
  memset(&res, 0, sizeof res);
  res.cfg = cfg;
  rig r;
  double bind_start = now_ns();
  rig_build(&r, cfg, false);
  tress_sim_step(r.sim, 1.0 / 60.0); /* the layout rebuild after the binds */
  res.bind_us = (now_ns() - bind_start) / 1e3 / cfg.chains;
  double nodes = (double)cfg.chains * cfg.bones;
  uint32_t frames = (uint32_t)(budget_node_frames / nodes);
  if (frames < 50) frames = 50;
  res.frames = frames;
  const double dt = 1.0 / 60.0;
  double t = 0.0;
  /* warm up: binds, rebuild, first snaps, caches */
  for (int i = 0; i < 30; i++) {
    t += dt;
    move_roots(&r, t);
    tress_sim_step(r.sim, dt);
  }
  res.scene_bytes_per_node = (double)tress_scene_get_memory_bytes(r.scene) / nodes;
  res.sim_bytes_per_node = (double)tress_sim_get_memory_bytes(r.sim) / nodes;
  res.bytes_per_node = res.scene_bytes_per_node + res.sim_bytes_per_node;
  double *tp = calloc(frames, sizeof *tp), *ts = calloc(frames, sizeof *ts), *to = calloc(frames, sizeof *to);
  double *tf = calloc(frames, sizeof *tf), *tall = calloc(frames, sizeof *tall), *tstep = calloc(frames, sizeof *tstep);
  for (uint32_t i = 0; i < frames; i++) {
    t += dt;
    move_roots(&r, t);
    double a = now_ns();
    tress_sim_step(r.sim, dt);
    tstep[i] = now_ns() - a;
  }
  double step = median(tstep, frames, best);
  res.step_ns = step / nodes;
  res.frame_ms = step / 1e6;
  uint32_t simulated = tress_sim_get_stats(r.sim).simulated; /* of the last 60 Hz step */
  /* A 144 Hz game: most frames take no 60 Hz step, and each draws the chains carried with their
   * anchors; the mean over frames is what such a game pays per node per drawn frame. */
  const double dt144 = 1.0 / 144.0;
  uint32_t frames144 = frames * 144 / 60;
  double sum144 = 0.0;
  for (uint32_t i = 0; i < frames144; i++) {
    t += dt144;
    move_roots(&r, t);
    double a = now_ns();
    tress_sim_step(r.sim, dt144);
    sum144 += now_ns() - a;
  }
  res.step144_ns = sum144 / frames144 / nodes;
  rig_free(&r);
  /* The phases, from the profile of a rig that asks for it (a few clock reads per tile). */
  rig_build(&r, cfg, true);
  t = 0.0;
  for (int i = 0; i < 31; i++) {
    t += dt;
    move_roots(&r, t);
    tress_sim_step(r.sim, dt);
  }
  for (uint32_t i = 0; i < frames; i++) {
    t += dt;
    move_roots(&r, t);
    tress_sim_step(r.sim, dt);
    tress_sim_profile p = tress_sim_get_profile(r.sim);
    tp[i] = p.chain_prepare * 1e6; ts[i] = p.chain_substep * 1e6; to[i] = p.chain_output * 1e6;
    tf[i] = (p.chain_substep + p.chain_output) * 1e6; tall[i] = p.chains * 1e6;
  }
  res.prepare_ns = median(tp, frames, best) / nodes;
  res.substep_ns = median(ts, frames, best) / nodes;
  res.output_ns = median(to, frames, best) / nodes;
  res.frame_ns = median(tf, frames, best) / nodes;
  res.frame_all_ns = median(tall, frames, best) / nodes;
  free(tp); free(ts); free(to); free(tf); free(tall); free(tstep);
  if (simulated != cfg.chains) fprintf(stderr, "warning: %u of %u chains simulated\n", simulated, cfg.chains);
  rig_free(&r);
  return res;
}

/* Speed-up on workers: the same rig built twice, on the calling thread alone and on a pool of
 * `workers` threads, stepped in alternating blocks of frames so a load that changes during the
 * run lands on both alike; medians of whole tress_sim_step(1/60) per node. */
typedef struct speedup {
  config cfg;
  double one_ns, many_ns; /* per node per step */
  double pool_share;      /* of the ranges run on the pool's side, the share its own threads ran */
} speedup;

static void step_block(rig *r, double *t, double *out, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    *t += 1.0 / 60.0;
    move_roots(r, *t);
    double a = now_ns();
    tress_sim_step(r->sim, 1.0 / 60.0);
    out[i] = now_ns() - a;
  }
}

static speedup measure_speedup(config cfg, uint32_t workers, double budget_node_frames, bool best) {
  speedup sp = {cfg, 0.0, 0.0, 0.0};
  if (!rig_fits(cfg)) return sp; /* printed as not run */
  double nodes = (double)cfg.chains * cfg.bones;
  uint32_t frames = (uint32_t)(budget_node_frames / nodes);
  if (frames < 40) frames = 40;
  const uint32_t blocks = 8;
  frames = (frames + blocks - 1) / blocks * blocks;
  rig one, many;
  config cm = cfg;
  cm.workers = workers;
  rig_build(&one, cfg, false);
  rig_build(&many, cm, false);
  double t1 = 0.0, t2 = 0.0, warm[30];
  step_block(&one, &t1, warm, 30);
  step_block(&many, &t2, warm, 30);
  double *a = calloc(frames, sizeof *a), *b = calloc(frames, sizeof *b);
  for (uint32_t k = 0; k < blocks; k++) {
    step_block(&one, &t1, a + k * (frames / blocks), frames / blocks);
    step_block(&many, &t2, b + k * (frames / blocks), frames / blocks);
  }
  sp.one_ns = median(a, frames, best) / nodes;
  sp.many_ns = median(b, frames, best) / nodes;
  long ranges = atomic_load(&many.pool->ranges);
  sp.pool_share = ranges ? (double)atomic_load(&many.pool->ranges_on_threads) / (double)ranges : 0.0;
  free(a);
  free(b);
  rig_free(&one);
  rig_free(&many);
  return sp;
}

static void print_speedups(const speedup *sp, size_t n, uint32_t workers) {
  printf("\nspeed-up on %u workers (a job_pool of pthreads behind tress_sim_def.jobs), same run, whole step\n"
         "ns per node, alternating blocks of frames (target >= 1.7x at 10000 x 10)\n",
         workers);
  printf("pool threads = share of the tile ranges the pool's own threads ran (the rest ran on the\n"
         "stepping thread, which takes ranges until none is left instead of waiting for a late thread)\n");
  printf("%-16s %10s %10s %9s %13s\n", "config", "1 worker", "workers", "speed-up", "pool threads");
  for (size_t i = 0; i < n; i++) {
    char name[48];
    snprintf(name, sizeof name, "%u x %u%s", sp[i].cfg.chains, sp[i].cfg.bones, sp[i].cfg.colliders ? " +6c" : "");
    if (!rig_fits(sp[i].cfg)) {
      printf("%-16s not run: %llu colliders, a sim holds at most %u (its collider sets index them in 16 bits)\n",
             name, (unsigned long long)sp[i].cfg.chains * RIG_COLLIDERS_PER_CHAIN, (unsigned)TRESS_SIM_COLLIDERS_MAX);
      continue;
    }
    printf("%-16s %10.2f %10.2f %8.2fx %12.0f%%\n", name, sp[i].one_ns, sp[i].many_ns, sp[i].one_ns / sp[i].many_ns,
           100.0 * sp[i].pool_share);
  }
}

/* The yardstick at one configuration's size, and three-vrm at each collider-free one (bench_env.h). */
typedef struct yard {
  bool have;
  double ns; /* its ns per node per frame */
  char variant[32];
} yard;

typedef struct three_vrm {
  bool have;
  double ns; /* per joint per frame */
  char note[1200];
} three_vrm;

/* three-vrm's frames at a size: 600 after 300 up to 10000 joints, then fewer so a size costs it
 * about as many joint updates as 10000 joints do (at least 20 frames after 10). */
static void three_vrm_frames(uint32_t joints, uint32_t *frames, uint32_t *warmup) {
  uint64_t f = joints <= 10000 ? 600 : 6000000ull / joints;
  *frames = (uint32_t)(f < 20 ? 20 : f);
  *warmup = *frames / 2 < 300 ? *frames / 2 : 300;
}

static void three_vrm_at(uint32_t chains, uint32_t bones, bool best, three_vrm *tv) {
  uint32_t frames, warmup;
  three_vrm_frames(chains * bones, &frames, &warmup);
  tv->have = bench_three_vrm_joint_ns(chains, bones, frames, warmup, best, &tv->ns, tv->note, sizeof tv->note);
}

static void measure_yardsticks(const result *res, size_t sizes, bool enabled, bool best, yard *ys, three_vrm *tv) {
  memset(ys, 0, sizes * sizeof *ys);
  memset(tv, 0, sizes * sizeof *tv);
  if (!enabled) {
    for (size_t i = 0; i < sizes; i++) snprintf(tv[i].note, sizeof tv[i].note, "--no-yardstick");
    return;
  }
  bench_yardstick y;
  bench_yardstick_prepare(&y);
  fprintf(stderr, "# %s\n", y.note);
  for (size_t i = 0; i < sizes; i++) {
    const config *c = &res[i].cfg;
    ys[i].have = bench_yardstick_frame_ns(&y, c->chains, c->bones, c->colliders ? 4 : 0, &ys[i].ns, ys[i].variant,
                                          sizeof ys[i].variant);
    /* the same statistic as tress's figures: median frames, or with --best the fastest; its
     * scene has no colliders, so only the collider-free sizes */
    if (!c->colliders) three_vrm_at(c->chains, c->bones, best, &tv[i]);
    else snprintf(tv[i].note, sizeof tv[i].note, "colliders: not measured");
  }
}

/* One three-vrm row: its ns per joint over each model's whole step per node. */
static void print_three_vrm_row(const char *name, const three_vrm *tv, const result *pose, const result *vrm) {
  if (!tv->have) {
    printf("%-16s not measured: %s\n", name, tv->note);
    return;
  }
  printf("%-16s %12.1f %10.2f %8.0fx", name, tv->ns, pose->step_ns, tv->ns / pose->step_ns);
  if (vrm) printf(" %10.2f %8.0fx", vrm->step_ns, tv->ns / vrm->step_ns);
  printf("\n");
}

static void print_yardsticks(const result *res, size_t n, size_t sizes, const yard *ys, const three_vrm *tv) {
  printf("\nwhole step over the yardstick's frame at the same size, same run (limit.c: the pose algorithm on\n"
         "flat arrays, no scene; its fastest variant on this CPU, median frame; +6c: it tests 4 spheres, no capsules)\n");
  printf("pose +anim: the pose row at that size with every bone animated (the yardstick's frame is the same)\n");
  printf("%-16s %10s %10s %9s %9s %11s\n", "config", "yardstick", "variant", "pose", "vrm", "pose +anim");
  for (size_t i = 0; i < sizes; i++) {
    const result *p = &res[i], *v = i + sizes < n ? &res[i + sizes] : NULL, *a = NULL;
    for (size_t k = 3 * sizes; k < n; k++)
      if (res[k].cfg.animated && res[k].cfg.chains == p->cfg.chains && res[k].cfg.bones == p->cfg.bones &&
          res[k].cfg.colliders == p->cfg.colliders && res[k].cfg.model == p->cfg.model)
        a = &res[k];
    char name[32];
    snprintf(name, sizeof name, "%u x %u%s", p->cfg.chains, p->cfg.bones, p->cfg.colliders ? " +6c" : "");
    if (!ys[i].have) {
      printf("%-16s %10s\n", name, "-");
      continue;
    }
    printf("%-16s %10.2f %10s %8.2fx %8.2fx", name, ys[i].ns, ys[i].variant, p->step_ns / ys[i].ns,
           v ? v->step_ns / ys[i].ns : 0.0);
    if (a) printf(" %10.2fx", a->step_ns / ys[i].ns);
    printf("\n");
  }
  printf("\nthree-vrm per joint over tress's whole step per node, same scene sizes, same run (goal >= 100x)\n");
  for (size_t i = 0; i < sizes; i++)
    if (tv[i].have) {
      printf("  %s\n", tv[i].note);
      break;
    }
  printf("%-16s %12s %10s %9s %10s %9s\n", "config", "three-vrm ns", "pose ns", "ratio", "vrm ns", "ratio");
  for (size_t i = 0; i < sizes; i++) {
    if (res[i].cfg.colliders) continue;
    char name[32];
    snprintf(name, sizeof name, "%u x %u", res[i].cfg.chains, res[i].cfg.bones);
    print_three_vrm_row(name, &tv[i], &res[i], i + sizes < n ? &res[i + sizes] : NULL);
  }
}

static void config_name(const config *c, char *name, size_t cap) {
  snprintf(name, cap, "%s%u x %u%s%s%s", c->model == TRESS_SPRING_VRM ? "vrm " : "", c->chains, c->bones,
           c->colliders ? " +6c" : "", c->limits ? " +lim" : "", c->animated ? " +anim" : "");
}

/* --only NAME --steps N: the rig, its warm-up and N whole 60 Hz steps, nothing else (no profile
 * rig, no 144 Hz frames), so an instruction count (callgrind --toggle-collect=tress_sim_step) or
 * a whole-process timing is the step's alone. */
static void run_steps(config cfg, uint32_t steps, const char *name) {
  rig r;
  rig_build(&r, cfg, false);
  double t = 0.0, nodes = (double)cfg.chains * cfg.bones, sum = 0.0;
  for (uint32_t i = 0; i < 31 + steps; i++) {
    t += 1.0 / 60.0;
    move_roots(&r, t);
    double a = now_ns();
    tress_sim_step(r.sim, 1.0 / 60.0);
    if (i >= 31) sum += now_ns() - a;
  }
  double scene_b = (double)tress_scene_get_memory_bytes(r.scene) / nodes, sim_b = (double)tress_sim_get_memory_bytes(r.sim) / nodes;
  printf("%-16s %u steps: mean step %.2f ns/node, %.0f bytes/node (scene %.0f, sim %.0f)\n", name, steps, sum / steps / nodes,
         scene_b + sim_b, scene_b, sim_b);
  rig_free(&r);
}

/* --only: one configuration's row and nothing else (no yardsticks), e.g. under callgrind. */
static int run_only(const config *cfgs, size_t n, const char *only, double budget, bool best, uint32_t steps) {
  for (size_t i = 0; i < n; i++) {
    char name[32];
    config_name(&cfgs[i], name, sizeof name);
    if (strcmp(name, only) != 0) continue;
    if (steps) {
      run_steps(cfgs[i], steps, name);
      return 0;
    }
    result r = run(cfgs[i], budget, best);
    printf("%-16s prepare %.2f substep %.2f output %.2f step %.2f ns/node, %.0f bytes/node (scene %.0f, sim %.0f)\n", name,
           r.prepare_ns, r.substep_ns, r.output_ns, r.step_ns, r.bytes_per_node, r.scene_bytes_per_node, r.sim_bytes_per_node);
    return 0;
  }
  fprintf(stderr, "--only: no configuration named \"%s\"\n", only);
  return 2;
}

int main(int argc, char **argv) {
  bool json = false, report_best = false, yardsticks = true, speedup_only = false, three_vrm_large = false;
  const char *only = NULL; /* --only NAME: run just the configuration printed as NAME (profiling) */
  uint32_t steps = 0;      /* --steps N (with --only): just N whole steps after the warm-up */
  double budget = 3e7; /* node-frames per configuration: a second or two each */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = true;
    else if (strcmp(argv[i], "--quick") == 0) budget = 3e6;
    else if (strcmp(argv[i], "--best") == 0) report_best = true;
    else if (strcmp(argv[i], "--no-yardstick") == 0) yardsticks = false;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--speedup") == 0) speedup_only = true;
    else if (strcmp(argv[i], "--three-vrm-large") == 0) three_vrm_large = true;
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = (uint32_t)strtoul(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: %s [--json] [--quick] [--best] [--no-yardstick] [--speedup] [--three-vrm-large] [--only \"vrm 300 x 7 +6c\" [--steps N]]\n",
              argv[0]);
      return 2;
    }
  }
  bench_env_print(json ? stderr : stdout, "bench/solver");
  /* 2 workers at 10000 x 10 and 100000 x 10, with and without colliders */
  const uint32_t speedup_workers = 2;
  const config speedup_cfgs[] = {{10000, 10, false, TRESS_SPRING_POSE}, {10000, 10, true, TRESS_SPRING_POSE},
                                 {100000, 10, false, TRESS_SPRING_POSE}, {100000, 10, true, TRESS_SPRING_POSE}};
  enum { SPEEDUP_CONFIGS = sizeof speedup_cfgs / sizeof speedup_cfgs[0] };
  speedup sps[SPEEDUP_CONFIGS];
  for (size_t i = 0; i < SPEEDUP_CONFIGS && (speedup_only || (!json && !only)); i++)
    sps[i] = measure_speedup(speedup_cfgs[i], speedup_workers, budget, report_best);
  if (speedup_only) {
    print_speedups(sps, SPEEDUP_CONFIGS, speedup_workers);
    return 0;
  }
  const config cfgs[] = {{300, 7, false, TRESS_SPRING_POSE},  {1000, 10, false, TRESS_SPRING_POSE},
                         {10000, 10, false, TRESS_SPRING_POSE}, {300, 7, true, TRESS_SPRING_POSE},
                         {1000, 10, true, TRESS_SPRING_POSE},   {10000, 10, true, TRESS_SPRING_POSE},
                         {300, 7, false, TRESS_SPRING_VRM},     {1000, 10, false, TRESS_SPRING_VRM},
                         {10000, 10, false, TRESS_SPRING_VRM},  {300, 7, true, TRESS_SPRING_VRM},
                         {1000, 10, true, TRESS_SPRING_VRM},    {10000, 10, true, TRESS_SPRING_VRM},
                         {300, 7, false, TRESS_SPRING_VRM, true},     {1000, 10, false, TRESS_SPRING_VRM, true},
                         {10000, 10, false, TRESS_SPRING_VRM, true},  {300, 7, true, TRESS_SPRING_VRM, true},
                         {1000, 10, true, TRESS_SPRING_VRM, true},    {10000, 10, true, TRESS_SPRING_VRM, true},
                         {300, 7, false, TRESS_SPRING_POSE, false, 0, true},
                         {1000, 10, false, TRESS_SPRING_POSE, false, 0, true},
                         {10000, 10, false, TRESS_SPRING_POSE, false, 0, true}};
  const size_t ncfg = sizeof cfgs / sizeof cfgs[0];
  enum { POSE_CONFIGS = 6 };
  result res[sizeof cfgs / sizeof cfgs[0]];
  if (only) return run_only(cfgs, ncfg, only, budget, report_best, steps);
  for (size_t i = 0; i < ncfg; i++) res[i] = run(cfgs[i], budget, report_best);
  yard ys[POSE_CONFIGS];
  three_vrm tv[POSE_CONFIGS];
  measure_yardsticks(res, POSE_CONFIGS, yardsticks, report_best, ys, tv);
  if (json) {
    printf("[\n");
    for (size_t i = 0; i < ncfg; i++) {
      const result *r = &res[i];
      printf("  {\"model\": \"%s\", \"limits\": %s, \"animated\": %s, \"chains\": %u, \"bones\": %u, \"colliders_per_chain\": %d, \"nodes\": %u, \"frames\": %u, "
             "\"ns_per_node_substep\": %.3f, "
             "\"ns_per_node_output\": %.3f, \"ns_per_node_prepare\": %.3f, "
             "\"ns_per_node_frame\": %.3f, \"ns_per_node_frame_with_prepare\": %.3f, \"ns_per_node_step\": %.3f, "
             "\"ms_per_frame\": %.4f, \"ns_per_node_step_144hz_mean\": %.3f, \"us_per_chain_bind\": %.3f, "
             "\"bytes_per_node\": %.1f, \"scene_bytes_per_node\": %.1f, \"sim_bytes_per_node\": %.1f",
             tress_spring_model_name(r->cfg.model), r->cfg.limits ? "true" : "false", r->cfg.animated ? "true" : "false",
             r->cfg.chains, r->cfg.bones,
             r->cfg.colliders ? 6 : 0, r->cfg.chains * r->cfg.bones, r->frames, r->substep_ns, r->output_ns,
             r->prepare_ns, r->frame_ns, r->frame_all_ns, r->step_ns, r->frame_ms, r->step144_ns, r->bind_us, r->bytes_per_node,
             r->scene_bytes_per_node, r->sim_bytes_per_node);
      const yard *y = &ys[i % POSE_CONFIGS];
      if (y->have)
        printf(", \"yardstick\": \"%s\", \"yardstick_ns_per_node_frame\": %.3f, \"step_over_yardstick\": %.3f", y->variant,
               y->ns, r->step_ns / y->ns);
      const three_vrm *tv_i = &tv[i % POSE_CONFIGS];
      if (tv_i->have)
        printf(", \"three_vrm_ns_per_joint\": %.3f, \"three_vrm_over_step\": %.2f", tv_i->ns, tv_i->ns / r->step_ns);
      printf("}%s\n", i + 1 < ncfg ? "," : "");
    }
    printf("]\n");
    return 0;
  }
  printf("bench/solver: one 60 Hz substep per frame; ns per node (substep: per node-substep), %s of frames\n",
         report_best ? "fastest" : "median");
  printf("output = poses + scene write; frame = substep + output; step = a whole tress_sim_step(1/60),\n");
  printf("prepare (scene reads, animated poses) and culling included; ms/frame = one step for all chains;\n");
  printf("step144 = mean ns per node of tress_sim_step(1/144): most frames take no step and draw carried chains;\n");
  printf("bind = us per chain to build its scene part, add its colliders, bind it and lay out the batch;\n");
  printf("B/node = bytes per node (scene + sim), as allocated (tress_scene/sim_get_memory_bytes; goal <= 250),\n");
  printf("scene and sim made with capacities for the rig (tress_scene_def, tress_sim_def.chain_capacity); scene B, sim B: its parts\n\n");
  printf("+6c: every chain tests 4 spheres and 2 capsules (strand radius 0.05)\n");
  printf("bones carry no animation of their own (the parts move) unless +anim: then every bone has a constant\n");
  printf("animated local (a 0.1 rad turn), so prepare reads each from the scene and no level takes the still forms\n\n");
  printf("%-16s %8s %9s %9s %9s %9s %9s %10s %9s %9s %7s %8s %6s\n", "config", "nodes", "prepare", "substep", "output",
         "frame", "step", "ms/frame", "step144", "bind", "B/node", "scene B", "sim B");
  for (size_t i = 0; i < ncfg; i++) {
    const result *r = &res[i];
    char name[32];
    config_name(&r->cfg, name, sizeof name);
    printf("%-16s %8u %9.2f %9.2f %9.2f %9.2f %9.2f %10.3f %9.2f %9.2f %7.0f %8.0f %6.0f\n", name, r->cfg.chains * r->cfg.bones,
           r->prepare_ns, r->substep_ns, r->output_ns, r->frame_ns, r->step_ns, r->frame_ms, r->step144_ns, r->bind_us,
           r->bytes_per_node, r->scene_bytes_per_node, r->sim_bytes_per_node);
  }
  printf("\nvrm / pose, same run (goal: <= 1.5)\n%-16s %9s %9s %9s %9s %9s\n", "config", "substep", "output", "frame",
         "step", "step144");
  for (size_t i = 0; i < POSE_CONFIGS && i + POSE_CONFIGS < ncfg; i++) {
    const result *p = &res[i], *v = &res[i + POSE_CONFIGS];
    char name[32];
    snprintf(name, sizeof name, "%u x %u%s", p->cfg.chains, p->cfg.bones, p->cfg.colliders ? " +6c" : "");
    printf("%-16s %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, v->substep_ns / p->substep_ns, v->output_ns / p->output_ns,
           v->frame_ns / p->frame_ns, v->step_ns / p->step_ns, v->step144_ns / p->step144_ns);
  }
  printf("\nvrm +lim / vrm, same run\n%-16s %9s %9s %9s %9s %9s\n", "config", "substep", "output", "frame", "step",
         "step144");
  for (size_t i = 0; i < POSE_CONFIGS && i + 2 * POSE_CONFIGS < ncfg; i++) {
    const result *v = &res[i + POSE_CONFIGS], *l = &res[i + 2 * POSE_CONFIGS];
    char name[32];
    snprintf(name, sizeof name, "%u x %u%s", v->cfg.chains, v->cfg.bones, v->cfg.colliders ? " +6c" : "");
    printf("%-16s %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, l->substep_ns / v->substep_ns, l->output_ns / v->output_ns,
           l->frame_ns / v->frame_ns, l->step_ns / v->step_ns, l->step144_ns / v->step144_ns);
  }
  print_yardsticks(res, ncfg, POSE_CONFIGS, ys, tv);
  if (three_vrm_large && yardsticks) {
    /* a million joints: about a minute and a half of three-vrm, so only when asked; set against
     * the speed-up table's one-worker pose step at that size (no VRM row runs there) */
    three_vrm big;
    memset(&big, 0, sizeof big);
    three_vrm_at(sps[2].cfg.chains, sps[2].cfg.bones, report_best, &big);
    result one = {.cfg = sps[2].cfg, .step_ns = sps[2].one_ns};
    print_three_vrm_row("100000 x 10", &big, &one, NULL);
  }
  print_speedups(sps, SPEEDUP_CONFIGS, speedup_workers);
  return 0;
}
