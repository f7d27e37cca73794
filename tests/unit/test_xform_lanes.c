/* test_xform_lanes.c - the solver's scene I/O copies: the eight-wide (AVX2) path and the scalar
 * path move exactly the same bits, for any count, through indices in any order (0: the array's
 * entry 0 on a read, the run's `none` slot on a write), and both tell
 * a copy with a value that is not finite (which a write never stores) from one without.
 * White-box (xform_lanes.h): the copies are solver internals with no public entry point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <float.h>
#include <math.h>

#include <cmocka.h>

#include "xform_lanes.h"

enum { SLOTS = 53 };

/* Slots visited in a scrambled order (as a level visits one bone per chain): index[j] into a
 * pool of SLOTS + 1 whose entry 0 is the scene root's (never a bone's), slots[j] the same slot as
 * a pointer, for the checks. */
static void scrambled(tress_xform *pool, tress_xform **slots, uint32_t *index) {
  for (int j = 0; j < SLOTS; j++) {
    index[j] = (uint32_t)((j * 17 + 5) % SLOTS) + 1;
    slots[j] = &pool[index[j]];
  }
}

static tress_xform_slots run_of(tress_xform *pool, const uint32_t *index) { return (tress_xform_slots){pool, index, NULL}; }

static void fill_pool(tress_xform *pool) {
  for (int i = 0; i <= SLOTS; i++) {
    for (int k = 0; k < 3; k++) pool[i].p[k] = (float)(i * 10 + k) + 0.25f;
    for (int k = 0; k < 4; k++) pool[i].q[k] = -(float)(i * 10 + k) - 0.5f;
  }
}

static void test_read_matches_scalar_for_every_count(void **state) {
  (void)state;
  tress_xform pool[SLOTS + 1], *slots[SLOTS];
  uint32_t index[SLOTS];
  fill_pool(pool);
  scrambled(pool, slots, index);
  bool wide_cpu = tress__xform_lanes_wide();
  for (uint32_t count = 0; count <= SLOTS; count++) {
    float a[7][SLOTS], b[7][SLOTS];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    float *ca[7], *cb[7];
    for (int k = 0; k < 7; k++) ca[k] = a[k], cb[k] = b[k];
    assert_true(tress__xforms_read(run_of(pool, index), count, ca, false));
    assert_true(tress__xforms_read(run_of(pool, index), count, cb, wide_cpu));
    assert_memory_equal(a, b, sizeof a);
    for (uint32_t j = 0; j < count; j++) {
      assert_true(a[0][j] == slots[j]->p[0] && a[2][j] == slots[j]->p[2]);
      assert_true(a[3][j] == slots[j]->q[0] && a[6][j] == slots[j]->q[3]);
    }
  }
}

static void test_write_matches_scalar_and_touches_only_its_slots(void **state) {
  (void)state;
  bool wide_cpu = tress__xform_lanes_wide();
  for (uint32_t count = 0; count <= SLOTS; count++) {
    tress_xform pa[SLOTS + 1], pb[SLOTS + 1], *sa[SLOTS], *sb[SLOTS];
    uint32_t ia[SLOTS], ib[SLOTS];
    memset(pa, 0x7f, sizeof pa); /* a recognizable pattern in slots nobody writes */
    memset(pb, 0x7f, sizeof pb);
    scrambled(pa, sa, ia);
    scrambled(pb, sb, ib);
    float comp[7][SLOTS];
    const float *c[7];
    for (int k = 0; k < 7; k++) {
      for (int j = 0; j < SLOTS; j++) comp[k][j] = (float)(k * 100 + j);
      c[k] = comp[k];
    }
    assert_true(tress__xforms_write(run_of(pa, ia), count, c, false));
    assert_true(tress__xforms_write(run_of(pb, ib), count, c, wide_cpu));
    for (int i = 0; i <= SLOTS; i++) {
      assert_memory_equal(pa[i].p, pb[i].p, sizeof pa[i].p);
      assert_memory_equal(pa[i].q, pb[i].q, sizeof pa[i].q);
    }
    for (uint32_t j = 0; j < count; j++) {
      assert_true(sb[j]->p[1] == comp[1][j]);
      assert_true(sb[j]->q[2] == comp[5][j]);
    }
    /* slots past count keep their old bytes */
    for (uint32_t j = count; j < SLOTS; j++) {
      tress_xform untouched;
      memset(&untouched, 0x7f, sizeof untouched);
      assert_memory_equal(sb[j], &untouched, sizeof untouched);
    }
  }
}

/* One NaN or infinity in any component of any slot read: both paths say so; the padding float
 * is not a value. */
static void test_read_reports_values_that_are_not_finite(void **state) {
  (void)state;
  tress_xform pool[SLOTS + 1], *slots[SLOTS];
  uint32_t index[SLOTS];
  bool wide_cpu = tress__xform_lanes_wide();
  const float bad[2] = {NAN, INFINITY};
  for (int path = 0; path < 2; path++)
    for (uint32_t at = 0; at < SLOTS; at += 5)
      for (int k = 0; k < 8; k++) {
        fill_pool(pool);
        scrambled(pool, slots, index);
        float *f = (float *)slots[at];
        f[k] = bad[k % 2];
        float a[7][SLOTS], *ca[7];
        for (int m = 0; m < 7; m++) ca[m] = a[m];
        bool finite = tress__xforms_read(run_of(pool, index), SLOTS, ca, path ? wide_cpu : false);
        assert_int_equal(finite, k == 3); /* float 3 is the padding */
        assert_true(tress__xforms_read(run_of(pool, index), at, ca, path ? wide_cpu : false));
      }
}

/* A write with a value that is not finite says so and never stores such a value. */
static void test_write_never_stores_values_that_are_not_finite(void **state) {
  (void)state;
  bool wide_cpu = tress__xform_lanes_wide();
  for (int path = 0; path < 2; path++)
    for (uint32_t at = 0; at < SLOTS; at += 3)
      for (int k = 0; k < 7; k++) {
        tress_xform pool[SLOTS + 1], *slots[SLOTS];
        uint32_t index[SLOTS];
        fill_pool(pool);
        scrambled(pool, slots, index);
        float comp[7][SLOTS];
        const float *c[7];
        for (int m = 0; m < 7; m++) {
          for (int j = 0; j < SLOTS; j++) comp[m][j] = (float)(m * 100 + j);
          c[m] = comp[m];
        }
        comp[k][at] = k % 2 ? INFINITY : NAN;
        assert_false(tress__xforms_write(run_of(pool, index), SLOTS, c, path ? wide_cpu : false));
        for (int i = 0; i <= SLOTS; i++)
          assert_true(tress_xform_is_finite(pool[i]));
      }
}

/* Index 0: a read takes the array's entry 0 (where the scene keeps the identity), a write stores
 * into the run's `none` slot (the sink) and into no entry of the array, on both paths, wherever
 * it falls in a group of eight. */
static void test_index_zero_is_the_none_slot(void **state) {
  (void)state;
  bool wide_cpu = tress__xform_lanes_wide();
  for (int path = 0; path < 2; path++) {
    tress_xform pool[SLOTS + 1], *slots[SLOTS], none = tress_xform_from_pos(7.0f, 8.0f, 9.0f);
    uint32_t index[SLOTS];
    fill_pool(pool);
    scrambled(pool, slots, index);
    for (int j = 0; j < SLOTS; j += 3) index[j] = 0;
    tress_xform_slots run = {pool, index, &none};
    float a[7][SLOTS], *ca[7];
    for (int k = 0; k < 7; k++) ca[k] = a[k];
    assert_true(tress__xforms_read(run, SLOTS, ca, path ? wide_cpu : false));
    for (int j = 0; j < SLOTS; j++) {
      const tress_xform *want = index[j] ? slots[j] : &pool[0];
      assert_true(a[0][j] == want->p[0] && a[1][j] == want->p[1] && a[6][j] == want->q[3]);
    }
    float comp[7][SLOTS];
    const float *c[7];
    for (int k = 0; k < 7; k++) {
      for (int j = 0; j < SLOTS; j++) comp[k][j] = -(float)(k * 100 + j);
      c[k] = comp[k];
    }
    fill_pool(pool);
    assert_true(tress__xforms_write(run, SLOTS, c, path ? wide_cpu : false));
    for (int j = 0; j < SLOTS; j++)
      if (index[j]) assert_true(slots[j]->p[0] == comp[0][j] && slots[j]->q[3] == comp[6][j]);
      else assert_true(slots[j]->p[0] >= 0.0f); /* never written: still the pool's own (positive) */
    assert_true(none.p[0] <= 0.0f); /* the last index-0 slot's values landed in none */
    assert_true(pool[0].p[0] > 0.0f); /* and not in the array's entry 0 */
  }
}

/* tress_xform_is_finite and tress_vec3_is_finite (math.h, branch-free): false for an infinity
 * or a NaN in any one component, true for every finite value, the largest included. */
static void test_finite_checks_every_component(void **state) {
  (void)state;
  const float bad[3] = {INFINITY, -INFINITY, NAN};
  tress_xform big = {{FLT_MAX, -FLT_MAX, FLT_MIN}, {-0.0f, FLT_MAX, 1e-45f, -FLT_MAX}};
  assert_true(tress_xform_is_finite(big));
  assert_true(tress_vec3_is_finite(big.p));
  for (int k = 0; k < 7; k++)
    for (int b = 0; b < 3; b++) {
      tress_xform x = big;
      float *v = k < 3 ? &x.p[k] : &x.q[k - 3];
      *v = bad[b];
      assert_false(tress_xform_is_finite(x));
      if (k < 3) assert_false(tress_vec3_is_finite(x.p));
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_matches_scalar_for_every_count),
      cmocka_unit_test(test_write_matches_scalar_and_touches_only_its_slots),
      cmocka_unit_test(test_read_reports_values_that_are_not_finite),
      cmocka_unit_test(test_write_never_stores_values_that_are_not_finite),
      cmocka_unit_test(test_index_zero_is_the_none_slot),
      cmocka_unit_test(test_finite_checks_every_component),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
