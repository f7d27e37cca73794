/* test_sim_chains_churn.c - the batched layout under churn. Chains of mixed shapes (lengths,
 * branches, tips) are bound, retuned, unbound and destroyed at random while frames run at mixed
 * rates (stepless frames, hitches), animated inputs move and sometimes go non-finite; tiles,
 * padding, in-place and gathered levels, collider lanes and the render carry are all rebuilt
 * many times. Every drawn pose stays finite and every live, unblended chain keeps its links. */
#include "support/sim_fixture.h"
#include "support/scene_build.h"

enum { POOL = 160, FRAMES = 900 };

/* Deterministic xorshift: the churn is the same every run. */
static uint32_t next_u32(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}
static float unit(uint32_t *s) { return (float)(next_u32(s) >> 8) / 16777216.0f; }

typedef struct slot {
  fix_chain chain;
  tress_id branch; /* a second bone under the root: a two-child root (sectors) */
  bool alive, bound;
  bool blended; /* weight < 1: positions blend toward the animation, links need not hold */
  tress_collider_id ball; /* a sphere on its part, in the strand's swing */
  bool collides;          /* the ball is in its set: no bone may be drawn inside it */
  bool stepped;           /* a substep ran since it was bound or retuned (it starts drawn) */
  tress_handle_id handle;
} slot;

#define BALL_RADIUS 0.2f
static const float ball_offset[3] = {0.55f, 0.4f, 0.0f};

static void make(tress_scene *scene, tress_sim *sim, slot *s, uint32_t *rng, int k) {
  s->chain = fix_chain_make(scene, (float)(k % 16) * 2.0f, 5, (float)(k / 16) * 2.0f, 1 + (int)(next_u32(rng) % 9), 0.25f);
  s->branch = (tress_id){0};
  if (next_u32(rng) % 3 == 0) {
    s->branch = th_instance(scene, TRESS_KIND_BONE, "Sector", s->chain.bones[0]);
    tress_bone_set_cframe(scene, s->branch, tress_xform_from_pos(0, 0, 0.25f));
  }
  s->alive = true;
  s->bound = false;
  tress_collider_def d = tress_default_collider_def();
  d.attach = s->chain.part;
  memcpy(d.offset, ball_offset, sizeof d.offset);
  memcpy(d.tail, ball_offset, sizeof d.tail);
  d.radius = BALL_RADIUS;
  assert_int_equal(tress_sim_create_collider(sim, &d, &s->ball), TRESS_OK);
}

static void test_churn_keeps_every_chain_finite_and_linked(void **state) {
  (void)state;
  uint32_t rng = 0x9e3779b9u;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, POOL, 1e6f);
  slot *s = calloc(POOL, sizeof *s);
  for (int k = 0; k < POOL; k++) make(scene, sim, &s[k], &rng, k);
  const double rates[] = {1.0 / 60.0, 1.0 / 144.0, 1.0 / 100.0, 1.0 / 30.0, 0.0, 0.3};
  uint32_t rebinds = 0, destroyed = 0, retuned = 0, nan_frames = 0;
  for (int f = 0; f < FRAMES; f++) {
    double t = f / 60.0;
    for (int e = 0; e < 6; e++) {
      int k = (int)(next_u32(&rng) % POOL);
      slot *x = &s[k];
      uint32_t what = next_u32(&rng) % 10;
      if (!x->alive) {
        tress_collider_destroy(sim, x->ball);
        make(scene, sim, x, &rng, k);
      } else if (what < 4 && !x->bound) {
        tress_chain_settings st = tress_default_chain_settings();
        st.end_length = next_u32(&rng) % 2 ? 0.2f : 0.0f;
        st.weight = next_u32(&rng) % 4 == 0 ? 0.5f : 1.0f;
        st.wind_gust = next_u32(&rng) % 3 == 0 ? 0.7f : 0.0f;
        x->collides = next_u32(&rng) % 2 == 0;
        if (x->collides) st.colliders[st.collider_count++] = x->ball;
        st.enabled = next_u32(&rng) % 8 != 0;
        assert_int_equal(tress_sim_bind(sim, x->chain.part, &st, &x->handle), TRESS_OK);
        x->blended = st.weight < 1.0f || !st.enabled;
        x->stepped = false;
        x->bound = true;
        rebinds++;
      } else if (what < 6 && x->bound) {
        tress_chain_settings st = tress_default_chain_settings();
        st.damping = 0.5f + 0.5f * unit(&rng);
        st.end_length = next_u32(&rng) % 2 ? 0.15f : 0.0f;
        st.weight = next_u32(&rng) % 2 ? 1.0f : unit(&rng);
        if (x->collides) st.colliders[st.collider_count++] = x->ball;
        assert_int_equal(tress_handle_set_chain_settings(sim, x->handle, &st), TRESS_OK);
        x->blended = st.weight < 1.0f;
        x->stepped = false;
        retuned++;
      } else if (what < 8 && x->bound) {
        tress_handle_destroy(sim, x->handle);
        x->bound = false;
      } else if (what == 8) {
        tress_instance_destroy(scene, x->chain.part); /* takes its handle with it */
        x->alive = x->bound = false;
        destroyed++;
      }
    }
    bool poison = f % 97 == 13;
    for (int k = 0; k < POOL; k++) {
      if (!s[k].alive) continue;
      tress_xform x = tress_xform_from_pos((float)(k % 16) * 2.0f + 0.8f * (float)sin(t * 5.0 + k), 5,
                                           (float)(k / 16) * 2.0f + (float)(0.3 * t));
      tress_part_set_cframe(scene, s[k].chain.part, x);
      if (poison && k % 5 == 0) {
        tress_xform bad = tress_xform_identity();
        bad.q[0] = NAN;
        tress_bone_set_animated(scene, s[k].chain.bones[s[k].chain.count - 1], bad);
      } else if (k % 5 == 0) {
        tress_bone_set_animated(scene, s[k].chain.bones[s[k].chain.count - 1], tress_xform_identity());
      }
    }
    nan_frames += poison;
    assert_int_equal(tress_sim_step(sim, rates[next_u32(&rng) % 6]), TRESS_OK);
    bool substepped = tress_sim_get_stats(sim).substeps > 0;
    for (int k = 0; k < POOL; k++) {
      if (!s[k].alive || !s[k].bound) continue;
      fix_assert_finite(scene, &s[k].chain);
      if (s[k].blended) continue;
      tress_xform part = tress_part_get_cframe(scene, s[k].chain.part), center = tress_xform_mul(part, tress_xform_from_pos(ball_offset[0], ball_offset[1], ball_offset[2]));
      s[k].stepped = s[k].stepped || substepped;
      for (int b = 1; s[k].collides && s[k].stepped && b < s[k].chain.count; b++) {
        float p[3];
        fix_world_pos(scene, s[k].chain.bones[b], p);
        float inside = BALL_RADIUS - fix_dist(p, center.p);
        if (inside > 5e-2f) fail_msg("frame %d chain %d bone %d drawn %g inside its ball", f, k, b, (double)inside);
      }
      for (int b = 1; b < s[k].chain.count; b++) {
        float p[3], q[3];
        fix_world_pos(scene, s[k].chain.bones[b], p);
        fix_world_pos(scene, s[k].chain.bones[b - 1], q);
        float stretch = fabsf(fix_dist(p, q) - s[k].chain.link);
        if (stretch > 2e-3f) fail_msg("frame %d chain %d link %d stretched by %g", f, k, b, (double)stretch);
      }
    }
  }
  print_message("%u binds, %u retunes, %u parts destroyed, %u poisoned frames over %d frames\n", rebinds, retuned,
                destroyed, nan_frames, FRAMES);
  assert_true(rebinds > 500 && retuned > 100 && destroyed > 100);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_churn_keeps_every_chain_finite_and_linked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
