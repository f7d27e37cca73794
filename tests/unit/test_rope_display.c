/* test_rope_display.c - what a game draws of ropes and cloth between fixed steps. The sim steps at
 * 60 Hz; a game drawing at 144 or 100 Hz gets frames with no step, or with time left after the
 * last one, while the parts the pins follow have moved on. What tress_rope_get_points returns (and the
 * output parts) must still be attached to where the pins are now: carried with the pins since the
 * last tick, never trailing them and snapping back at the next step. The simulation itself must
 * not change: aligned (60 fps) frames read the particle state bit for bit. White-box (particles.h,
 * sim_internal.h): it compares the drawn points with the simulated particles and the accumulator. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "particles.h" /* tress__particles_of, tress__particle_position: the simulated state */
#include "sim_internal.h"
#include "tress/rope.h"
#include "support/alloc_count.h"
#include "support/rope_world.h"
#include "support/scene_build.h"

#define MAXP 512

static tress_id make_part(tress_scene *scene) {
  tress_id part = th_instance(scene, TRESS_KIND_PART, "Head", tress_scene_get_root(scene));
  tress_part_set_cframe(scene, part, tress_xform_from_pos(0, 10, 0));
  return part;
}

/* A head running along +x at 6 units/s while turning about y; `phase` varies the turn per part. */
static tress_xform head_at(double t, double phase, float z) {
  float axis[3] = {0, 1, 0};
  tress_xform x = tress_xform_from_axis_angle(axis, (float)(0.6 * sin((t + phase) * 3.0)));
  x.p[0] = (float)(6.0 * t);
  x.p[1] = 10.0f;
  x.p[2] = z;
  return x;
}

static float dist3(const float *a, const float *b) {
  float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

static uint32_t read_points(const rope_world *w, tress_handle_id h, float *xyz) {
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(w->sim, h, xyz, MAXP, &count), TRESS_OK);
  assert_true(count <= MAXP);
  return count;
}

/* The simulated particle state, as the solver holds it. */
static uint32_t read_state(const rope_world *w, tress_handle_id h, float *xyz) {
  tress_particles *ps = tress__particles_of(w->sim, h);
  assert_non_null(ps);
  for (uint32_t i = 0; i < ps->n; i++) tress__particle_position(ps, i, xyz + 3 * i);
  return ps->n;
}

/* ---- the scenes ---- */

enum { ROPE_ONE_PIN, ROPE_TWO_PARTS, CLOTH_ONE_PART, CLOTH_TWO_PARTS, SCENES };
static const char *scene_name[SCENES] = {"rope, one pin", "rope, two parts", "cloth, one part", "cloth, two parts"};

#define CW 8
#define CH 8

typedef struct scene_run {
  rope_world w;
  tress_id part[2];
  tress_handle_id h;
  uint32_t pinned[CW];       /* pinned particles */
  int pinned_part[CW];       /* which part each follows */
  float pin_local[CW][3];    /* its offset in that part's frame */
  uint32_t pin_count;
  uint32_t ca[4 * CW * CH], cb[4 * CW * CH]; /* constraints to measure, with rest lengths */
  float rest[4 * CW * CH];
  uint32_t m;
  uint32_t probe;            /* the particle next to the first pin */
} scene_run;

static void place_parts(scene_run *s, double t) {
  tress_part_set_cframe(s->w.scene, s->part[0], head_at(t, 0.0, 0.0f));
  tress_part_set_cframe(s->w.scene, s->part[1], head_at(t, 0.7, 3.0f));
}

static void scene_bind(scene_run *s, int which) {
  memset(s, 0, sizeof *s);
  s->w = rope_world_make();
  s->part[0] = make_part(s->w.scene);
  s->part[1] = make_part(s->w.scene);
  place_parts(s, 0.0);
  if (which == ROPE_ONE_PIN || which == ROPE_TWO_PARTS) {
    tress_rope_def d = tress_default_rope_def();
    d.segments = 10;
    d.length = 5.0f;
    /* offset from the part's origin, so its turning moves the pin too */
    d.start = (tress_rope_pin){.pinned = true, .instance = s->part[0], .position = {0.5f, 0, 0}};
    d.end = (tress_rope_pin){.pinned = false, .position = {0.5f, 5, 0}};
    if (which == ROPE_TWO_PARTS) d.end = (tress_rope_pin){.pinned = true, .instance = s->part[1], .position = {0, 0, 0.5f}};
    assert_int_equal(tress_sim_bind_rope(s->w.sim, &d, &s->h, NULL), TRESS_OK);
    s->pin_count = which == ROPE_TWO_PARTS ? 2 : 1;
    s->pinned[0] = 0;
    memcpy(s->pin_local[0], d.start.position, sizeof d.start.position);
    s->pinned[1] = d.segments;
    s->pinned_part[1] = 1;
    memcpy(s->pin_local[1], d.end.position, sizeof d.end.position);
    for (uint32_t k = 0; k < d.segments; k++) {
      s->ca[k] = k;
      s->cb[k] = k + 1;
      s->rest[k] = d.length / (float)d.segments;
    }
    s->m = d.segments;
    s->probe = 1;
    return;
  }
  /* A CW x CH banner 1 unit apart laid out around part 0, hanging from its top row pinned to
   * part 0; with two parts, from its top corners only, the left on part 0 and the right on
   * part 1 (a banner between two poles). */
  tress_cloth_def d = tress_default_cloth_def();
  d.width = CW;
  d.height = CH;
  tress_xform p0 = tress_part_get_cframe(s->w.scene, s->part[0]);
  d.origin[0] = p0.p[0] - 3.5f;
  d.origin[1] = p0.p[1];
  d.origin[2] = p0.p[2] + 0.5f;
  tress_cloth_pin pins[CW];
  for (uint32_t i = 0; i < CW; i++) {
    uint32_t particle = which == CLOTH_TWO_PARTS ? (i ? CW - 1 : 0) : i;
    int on = which == CLOTH_TWO_PARTS && i ? 1 : 0;
    pins[i] = (tress_cloth_pin){particle, s->part[on]};
    s->pinned[i] = particle;
    s->pinned_part[i] = on;
    float world_at[3] = {d.origin[0] + (float)particle, d.origin[1], d.origin[2]};
    tress_xform inv = tress_xform_inverse(tress_part_get_cframe(s->w.scene, s->part[on]));
    tress_xform_point(inv, world_at, s->pin_local[i]);
  }
  d.pins = pins;
  d.pin_count = which == CLOTH_TWO_PARTS ? 2 : CW;
  assert_int_equal(tress_sim_bind_cloth(s->w.sim, &d, &s->h, NULL), TRESS_OK);
  s->pin_count = d.pin_count;
  s->probe = CW;
  for (uint32_t r = 0; r < CH; r++)
    for (uint32_t c = 0; c < CW; c++) {
      uint32_t i = r * CW + c;
      if (c + 1 < CW) s->ca[s->m] = i, s->cb[s->m] = i + 1, s->rest[s->m++] = 1.0f;
      if (r + 1 < CH) s->ca[s->m] = i, s->cb[s->m] = i + CW, s->rest[s->m++] = 1.0f;
    }
}

typedef struct display_figures {
  float pin_gap;      /* worst drawn distance between a pinned particle and its pin's point now */
  double mean_gap;    /* mean of each frame's worst pin gap */
  float stretch;      /* worst drawn |length - rest| of a measured constraint */
  float attached;     /* the same with each pinned particle drawn at its pin's point now, as a
                         game drawing the rope from the hand holding it sees it */
  float jerk;         /* worst change, frame to frame, of the motion of the particle next to the
                         first pin seen from part 0: drawn late and snapping back, it saws */
  float prev_rel[3], prev_step[3];
  long frames;
} display_figures;

/* One frame of what is drawn (p: n points) into f. */
static void take(display_figures *f, const scene_run *s, const float *p, uint32_t n) {
  float gap = 0.0f, q[3 * MAXP];
  memcpy(q, p, 3 * n * sizeof(float));
  for (uint32_t k = 0; k < s->pin_count; k++) {
    float *now = q + 3 * s->pinned[k];
    tress_xform_point(tress_part_get_cframe(s->w.scene, s->part[s->pinned_part[k]]), s->pin_local[k], now);
    gap = fmaxf(gap, dist3(p + 3 * s->pinned[k], now));
  }
  for (uint32_t k = 0; k < s->m; k++) {
    f->stretch = fmaxf(f->stretch, fabsf(dist3(p + 3 * s->ca[k], p + 3 * s->cb[k]) - s->rest[k]));
    f->attached = fmaxf(f->attached, fabsf(dist3(q + 3 * s->ca[k], q + 3 * s->cb[k]) - s->rest[k]));
  }
  tress_xform head = tress_part_get_cframe(s->w.scene, s->part[0]);
  float rel[3], step[3];
  for (int k = 0; k < 3; k++) {
    rel[k] = p[3 * s->probe + k] - head.p[k];
    step[k] = rel[k] - f->prev_rel[k];
  }
  if (f->frames >= 2) f->jerk = fmaxf(f->jerk, dist3(step, f->prev_step));
  memcpy(f->prev_rel, rel, sizeof rel);
  memcpy(f->prev_step, step, sizeof step);
  f->pin_gap = fmaxf(f->pin_gap, gap);
  f->mean_gap += gap;
  f->frames++;
}

static uint64_t fnv(uint64_t h, const void *data, size_t size) {
  const unsigned char *b = data;
  for (size_t i = 0; i < size; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

typedef struct display_run {
  display_figures drawn; /* tress_rope_get_points */
  display_figures state; /* the particle state: what tress_rope_get_points returned before the carry */
  uint64_t state_hash;   /* FNV-1a of the state after every frame: the carry never changes it */
  bool drawn_is_state;   /* every frame, bit for bit */
  float carry_strain;    /* worst change of a constraint's length by the carry (drawn vs state) */
} display_run;

/* Steps a scene at `fps` for `seconds` with its parts moving, and measures what is drawn (after a
 * second, once the initial fall has settled into steady motion). */
static display_run measure(int which, int fps, double seconds) {
  scene_run *s = calloc(1, sizeof *s);
  assert_non_null(s);
  scene_bind(s, which);
  display_run r;
  memset(&r, 0, sizeof r);
  r.state_hash = 14695981039346656037ull;
  r.drawn_is_state = true;
  long frames = lround(seconds * fps);
  for (long i = 1; i <= frames; i++) {
    double t = (double)i / fps;
    place_parts(s, t);
    assert_int_equal(tress_sim_step(s->w.sim, 1.0 / fps), TRESS_OK);
    float p[3 * MAXP], q[3 * MAXP];
    uint32_t n = read_state(&s->w, s->h, p);
    assert_int_equal(read_points(&s->w, s->h, q), n);
    r.state_hash = fnv(r.state_hash, p, 3 * n * sizeof(float));
    r.drawn_is_state = r.drawn_is_state && memcmp(p, q, 3 * n * sizeof(float)) == 0;
    if (t < 1.0) continue;
    for (uint32_t k = 0; k < s->m; k++) {
      float drawn = dist3(q + 3 * s->ca[k], q + 3 * s->cb[k]), held = dist3(p + 3 * s->ca[k], p + 3 * s->cb[k]);
      r.carry_strain = fmaxf(r.carry_strain, fabsf(drawn - held));
    }
    take(&r.state, s, p, n);
    take(&r.drawn, s, q, n);
  }
  r.state.mean_gap /= (double)r.state.frames;
  r.drawn.mean_gap /= (double)r.drawn.frames;
  rope_world_free(&s->w);
  free(s);
  return r;
}

static void print_figures(const char *what, const display_run r[3]) {
  print_message("  %-8s pin gap worst (mean) / stretch drawn / attached / near-pin jerk:\n", what);
  static const int fps[3] = {60, 144, 100};
  for (int k = 0; k < 3; k++) {
    const display_figures *f = strcmp(what, "drawn") == 0 ? &r[k].drawn : &r[k].state;
    print_message("    %3d fps %.2e (%.1e) / %.2e / %.2e / %.2e\n", fps[k], (double)f->pin_gap, f->mean_gap,
                  (double)f->stretch, (double)f->attached, (double)f->jerk);
  }
}

static void test_drawn_ropes_and_cloth_stay_on_their_pins(void **state) {
  (void)state;
  for (int which = 0; which < SCENES; which++) {
    display_run r[3] = {measure(which, 60, 4.0), measure(which, 144, 4.0), measure(which, 100, 4.0)};
    print_message("%s (state hash %016llx %016llx %016llx)\n", scene_name[which],
                  (unsigned long long)r[0].state_hash, (unsigned long long)r[1].state_hash,
                  (unsigned long long)r[2].state_hash);
    print_message("  carry strain (drawn vs state length change) 60 / 144 / 100 fps: %.2e %.2e %.2e\n",
                  (double)r[0].carry_strain, (double)r[1].carry_strain, (double)r[2].carry_strain);
    print_figures("state", r);
    print_figures("drawn", r);
    /* aligned frames draw the state bit for bit */
    assert_true(r[0].drawn_is_state);
    assert_false(r[1].drawn_is_state);
    /* one source moves every particle rigidly (lengths kept); two blend their motions across the
     * sheet or rope instead of tearing it where one's region ends (nearest-pin carry: 0.17) */
    bool two = which == ROPE_TWO_PARTS || which == CLOTH_TWO_PARTS;
    assert_true(r[1].carry_strain < (two ? 0.03f : 1e-4f));
    assert_true(r[2].carry_strain < (two ? 0.03f : 1e-4f));
    const display_figures *at60 = &r[0].drawn;
    for (int k = 1; k < 3; k++) {
      const display_figures *f = &r[k].drawn;
      /* drawn pins sit on their points now (within float rounding and the pins' own interpolated
       * path: a pin off its part's origin moves along a chord between steps, < 1e-3 here) */
      assert_true(f->pin_gap < 1e-3f);
      /* the carry stretches nothing beyond the relative motion of two pins within one step,
       * spread over the segments, whether the pins are drawn at the particles or at their points */
      assert_true(f->stretch < 1.5f * at60->stretch + 5e-3f);
      assert_true(f->attached < 1.5f * at60->attached + 5e-3f);
      /* and near the pins it no longer saws (the rope's own motion still shows its 60 Hz steps) */
      assert_true(f->jerk < 0.7f * r[k].state.jerk);
    }
  }
}

/* A pin's point now, for rope pins given in a part's frame. */
static void pin_point(const rope_world *w, tress_id part, const float local[3], float out[3]) {
  tress_xform_point(tress_part_get_cframe(w->scene, part), local, out);
}

/* Output parts follow what is drawn: carried on frames with no step (the first link stays on the
 * pin), and left alone by a frame where nothing moved (no step, pins where they were). */
static void test_output_parts_are_carried_and_left_alone_when_still(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_id head = make_part(w.scene);
  enum { SEGS = 6 };
  tress_id links[SEGS];
  for (int i = 0; i < SEGS; i++) links[i] = make_part(w.scene);
  tress_rope_def d = tress_default_rope_def();
  d.segments = SEGS;
  d.length = 3.0f;
  d.start = (tress_rope_pin){.pinned = true, .instance = head, .position = {0.5f, 0, 0}};
  d.end = (tress_rope_pin){.pinned = false, .position = {0.5f, 7, 0}};
  d.output_parts = links;
  d.output_part_count = SEGS;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  int no_step_frames = 0;
  float worst_half = 0.0f;
  for (int i = 1; i <= 144; i++) {
    tress_part_set_cframe(w.scene, head, head_at(i / 144.0, 0.0, 0.0f));
    assert_int_equal(tress_sim_step(w.sim, 1.0 / 144), TRESS_OK);
    no_step_frames += tress_sim_get_stats(w.sim).substeps == 0;
    float p[3 * MAXP];
    read_points(&w, h, p);
    for (int sgm = 0; sgm < SEGS; sgm++) {
      tress_xform t = tress_part_get_cframe(w.scene, links[sgm]);
      for (int k = 0; k < 3; k++) assert_float_equal(t.p[k], 0.5f * (p[3 * sgm + k] + p[3 * sgm + 3 + k]), 1e-5f);
    }
    /* the first link hangs from the pin's point now: its midpoint half a segment away */
    float now[3];
    pin_point(&w, head, d.start.position, now);
    float half = fabsf(dist3(tress_part_get_cframe(w.scene, links[0]).p, now) - 0.25f);
    worst_half = fmaxf(worst_half, half);
  }
  print_message("output parts: first link's midpoint off half a segment from the pin by at most %.2e\n",
                (double)worst_half);
  assert_true(worst_half < 1e-4f);
  assert_true(no_step_frames > 40);
  /* Find a frame with no step ahead, then hold the head still: that frame writes nothing. */
  while (w.sim->accumulator + 1.0 / 144 >= 1.0 / 60 - 1e-9) assert_int_equal(tress_sim_step(w.sim, 1.0 / 144), TRESS_OK);
  float before[3 * MAXP], after[3 * MAXP];
  read_points(&w, h, before);
  tress_xform sentinel = tress_xform_from_pos(-100, -100, -100);
  tress_part_set_cframe(w.scene, links[0], sentinel);
  assert_int_equal(tress_sim_step(w.sim, 1.0 / 144), TRESS_OK);
  assert_int_equal(tress_sim_get_stats(w.sim).substeps, 0);
  read_points(&w, h, after);
  assert_memory_equal(before, after, sizeof(float) * 3 * (SEGS + 1));
  assert_float_equal(tress_part_get_cframe(w.scene, links[0]).p[0], -100.0f, 0.0f);
  rope_world_free(&w);
}

/* A rope between two parts, cut in the middle: each piece follows only the pin it hangs on. With
 * part 0 still and part 1 moving, the start piece draws its state bit for bit, the end piece is
 * carried with part 1 (its pin exactly on its point). */
static void test_cut_pieces_follow_their_own_pin(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_id a = make_part(w.scene), b = make_part(w.scene);
  tress_part_set_cframe(w.scene, b, tress_xform_from_pos(4, 10, 0));
  tress_rope_def d = tress_default_rope_def();
  d.segments = 10;
  d.length = 6.0f;
  d.start = (tress_rope_pin){.pinned = true, .instance = a};
  d.end = (tress_rope_pin){.pinned = true, .instance = b, .position = {0, 0, 0.5f}};
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  assert_int_equal(tress_rope_cut(w.sim, h, 4), TRESS_OK);
  float worst_gap = 0.0f;
  int carried_frames = 0;
  for (int i = 1; i <= 288; i++) {
    tress_xform x = head_at(i / 144.0, 0.3, 0.0f);
    x.p[0] += 4.0f;
    tress_part_set_cframe(w.scene, b, x);
    assert_int_equal(tress_sim_step(w.sim, 1.0 / 144), TRESS_OK);
    float p[3 * MAXP], q[3 * MAXP], end[3];
    read_state(&w, h, p);
    read_points(&w, h, q);
    assert_memory_equal(p, q, sizeof(float) * 3 * 5); /* particles 0..4 hang on the still part */
    carried_frames += memcmp(p + 15, q + 15, sizeof(float) * 3 * 6) != 0;
    pin_point(&w, b, d.end.position, end);
    worst_gap = fmaxf(worst_gap, dist3(q + 30, end));
  }
  print_message("cut rope: end piece carried on %d of 288 frames, worst drawn end pin gap %.2e\n", carried_frames,
                (double)worst_gap);
  assert_true(carried_frames > 100);
  assert_true(worst_gap < 1e-5f);
  rope_world_free(&w);
}

/* A rope ticking at 15 Hz (camera beyond lod_distance) is drawn carried too, even at 60 fps. */
static void test_reduced_rate_rope_is_drawn_on_its_pin(void **state) {
  (void)state;
  rope_world w = rope_world_make();
  tress_id head = make_part(w.scene);
  tress_rope_def d = tress_default_rope_def();
  d.segments = 10;
  d.length = 5.0f;
  d.start = (tress_rope_pin){.pinned = true, .instance = head, .position = {0.5f, 0, 0}};
  d.end = (tress_rope_pin){.pinned = false, .position = {0.5f, 5, 0}};
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(w.sim, &d, &h, NULL), TRESS_OK);
  float camera[3] = {0, 0, 250};
  tress_sim_set_camera(w.sim, camera);
  float worst_state = 0.0f, worst_drawn = 0.0f;
  for (int i = 1; i <= 120; i++) {
    tress_part_set_cframe(w.scene, head, head_at(i / 60.0, 0.0, 0.0f));
    assert_int_equal(tress_sim_step(w.sim, 1.0 / 60), TRESS_OK);
    float p[3 * MAXP], q[3 * MAXP], now[3];
    read_state(&w, h, p);
    read_points(&w, h, q);
    pin_point(&w, head, d.start.position, now);
    worst_state = fmaxf(worst_state, dist3(p, now));
    worst_drawn = fmaxf(worst_drawn, dist3(q, now));
  }
  assert_int_equal(tress_rope_get_lod(w.sim, h), TRESS_ROPE_REDUCED);
  print_message("15 Hz rope at 60 fps: worst pin gap state %.2e, drawn %.2e\n", (double)worst_state,
                (double)worst_drawn);
  assert_true(worst_state > 0.1f);
  assert_true(worst_drawn < 1e-5f);
  rope_world_free(&w);
}

/* Carried frames allocate nothing: interleaved ropes, a per-rope one, a cloth on two parts. */
static void test_carried_frames_allocate_nothing(void **state) {
  (void)state;
  alloc_count_install();
  void *(*volatile allocate)(size_t) = malloc; /* the hook must see allocations */
  alloc_count_start();
  free(allocate(16));
  assert_true(alloc_count_stop() >= 1);

  scene_run *s = calloc(1, sizeof *s);
  assert_non_null(s);
  scene_bind(s, CLOTH_TWO_PARTS);
  enum { ROPES = 3 };
  tress_handle_id ropes[ROPES];
  tress_rope_def d = tress_default_rope_def();
  d.segments = 10;
  d.length = 5.0f;
  d.start = (tress_rope_pin){.pinned = true, .instance = s->part[0], .position = {0.5f, 0, 0}};
  d.end = (tress_rope_pin){.pinned = false, .position = {0.5f, 5, 0}};
  for (int r = 0; r < ROPES; r++) assert_int_equal(tress_sim_bind_rope(s->w.sim, &d, &ropes[r], NULL), TRESS_OK);
  tress__rope_ungroup(s->w.sim, ropes[2]);
  assert_non_null(tress__particles_of(s->w.sim, ropes[0])->group);
  assert_null(tress__particles_of(s->w.sim, ropes[2])->group);
  float p[3 * MAXP];
  long allocs = 0;
  float worst = 0.0f;
  assert_int_equal(tress_sim_step(s->w.sim, 1.0 / 144), TRESS_OK); /* the sim's first frame sizes its cull buffer */
  for (int i = 2; i <= 145; i++) {
    place_parts(s, i / 144.0);
    alloc_count_start();
    assert_int_equal(tress_sim_step(s->w.sim, 1.0 / 144), TRESS_OK);
    read_points(&s->w, s->h, p);
    for (int r = 0; r < ROPES; r++) {
      read_points(&s->w, ropes[r], p);
      float now[3];
      pin_point(&s->w, s->part[0], d.start.position, now);
      worst = fmaxf(worst, dist3(p, now));
    }
    allocs += alloc_count_stop();
  }
  print_message("carried frames: %ld allocations in 144 frames, worst rope pin gap %.2e\n", allocs, (double)worst);
  assert_int_equal(allocs, 0);
  assert_true(worst < 1e-5f);
  rope_world_free(&s->w);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drawn_ropes_and_cloth_stay_on_their_pins),
      cmocka_unit_test(test_output_parts_are_carried_and_left_alone_when_still),
      cmocka_unit_test(test_cut_pieces_follow_their_own_pin),
      cmocka_unit_test(test_reduced_rate_rope_is_drawn_on_its_pin),
      cmocka_unit_test(test_carried_frames_allocate_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
