/* test_chain_rest.c - a chain's rest pose is held once: the bind-time copy in its slot lasts
 * only until the next layout takes it into the node arrays (cf_*), which then carry it through
 * every later layout; a change of tips makes a new copy that the next layout takes in again.
 * White-box (chains_internal.h, sim_internal.h): it reads the slots' copies and the node arrays,
 * which no public call shows apart. The motion test is public: layouts made by other chains
 * binding and going leave a running chain's motion bit for bit as it was. */
#include "support/sim_fixture.h"

#include "chains_internal.h"
#include "support/scene_build.h"

enum { BONES = 6 };

static const chain_slot *slot_of(const tress_sim *sim, tress_handle_id id) {
  return &sim->chains->slots[tress__handle_own(sim, id)->slot];
}

/* Node k's rest as the node arrays hold it equals bone k's cframe. */
static void assert_rest_in_nodes(const tress_sim *sim, const tress_scene *scene, const fix_chain *ch,
                                 tress_handle_id id) {
  const chain_slot *s = slot_of(sim, id);
  const chain_nodes *n = &sim->chains->nodes;
  assert_null(s->rest);
  for (int k = 0; k < BONES; k++) {
    tress_xform r = tress_bone_get_cframe(scene, ch->bones[k]);
    uint32_t i = s->global[k];
    float held[7] = {n->cf_px[i], n->cf_py[i], n->cf_pz[i], n->cf_qx[i], n->cf_qy[i], n->cf_qz[i], n->cf_qw[i]};
    float want[7] = {r.p[0], r.p[1], r.p[2], r.q[0], r.q[1], r.q[2], r.q[3]};
    assert_memory_equal(held, want, sizeof held);
  }
}

static void test_rest_pose_lives_in_the_node_arrays(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 16, 1e6f);
  fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.3f), b = fix_chain_make(scene, 3, 5, 0, BONES, 0.2f);
  tress_handle_id ha, hb;
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, &ha), TRESS_OK);
  assert_non_null(slot_of(sim, ha)->rest); /* no layout yet: the slot holds it */
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  assert_rest_in_nodes(sim, scene, &a, ha);
  /* a second chain re-lays the batch out: the first one's rest comes through from the arrays */
  assert_int_equal(tress_sim_bind(sim, b.part, NULL, &hb), TRESS_OK);
  assert_null(slot_of(sim, ha)->rest);
  assert_non_null(slot_of(sim, hb)->rest);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  assert_rest_in_nodes(sim, scene, &a, ha);
  assert_rest_in_nodes(sim, scene, &b, hb);
  /* tips: a new node list with a new copy, taken in by the next layout (the tip sits end_length
   * along the leaf's direction) */
  tress_chain_settings tips = tress_default_chain_settings();
  tips.end_length = 0.25f;
  assert_int_equal(tress_handle_set_chain_settings(sim, hb, &tips), TRESS_OK);
  const chain_slot *s = slot_of(sim, hb);
  assert_int_equal(s->node_count, BONES + 1);
  assert_non_null(s->rest);
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  assert_rest_in_nodes(sim, scene, &b, hb);
  uint32_t tip = s->global[BONES];
  const chain_nodes *n = &sim->chains->nodes;
  float len = sqrtf(n->cf_px[tip] * n->cf_px[tip] + n->cf_py[tip] * n->cf_py[tip] + n->cf_pz[tip] * n->cf_pz[tip]);
  assert_float_equal(len, 0.25f, 1e-6f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Chain a's tip after 90 frames of a head moving sideways; disturb: another chain binds at frame
 * 30 and goes at frame 60, each time re-laying the batch out. */
static void run_tip(bool disturb, float tip[3]) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 16, 1e6f);
  fix_chain a = fix_chain_make(scene, 0, 5, 0, BONES, 0.3f), b = fix_chain_make(scene, 3, 5, 0, BONES + 2, 0.2f);
  assert_int_equal(tress_sim_bind(sim, a.part, NULL, NULL), TRESS_OK);
  tress_handle_id hb = {0};
  for (int f = 0; f < 90; f++) {
    if (disturb && f == 30) assert_int_equal(tress_sim_bind(sim, b.part, NULL, &hb), TRESS_OK);
    if (disturb && f == 60) tress_handle_destroy(sim, hb);
    tress_part_set_cframe(scene, a.part, tress_xform_from_pos(0.4f * sinf(0.11f * (float)f), 5, 0));
    assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  }
  fix_world_pos(scene, a.bones[BONES - 1], tip);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_layouts_keep_a_running_chain_exact(void **state) {
  (void)state;
  float calm[3], disturbed[3];
  run_tip(false, calm);
  run_tip(true, disturbed);
  assert_memory_equal(calm, disturbed, sizeof calm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rest_pose_lives_in_the_node_arrays),
      cmocka_unit_test(test_layouts_keep_a_running_chain_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
