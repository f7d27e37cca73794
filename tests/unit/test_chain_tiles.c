/* test_chain_tiles.c - how the batch cuts its chains into tiles: runs of about TILE_NODES nodes
 * of one tile kind, where what is left of a run after a full tile becomes a tile of its own only
 * when it is at least half a tile; a smaller sliver joins the tile before it (so no tile exceeds
 * one and a half TILE_NODES), and kinds never share a tile.
 * White-box (chains_internal.h, sim_internal.h): the tiles are the solver's own layout. */
#include "support/sim_fixture.h"

#include "chains_internal.h"

/* `chains` chains of `bones` bones, the first `vrm` of them on the VRM model, one step: the
 * layout's tile count; every tile is checked against the rules above. */
static uint32_t tiles_for(int chains, int bones, int vrm) {
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, chains, 1e6f);
  for (int i = 0; i < chains; i++) {
    fix_chain c = fix_chain_make(scene, (float)(i % 40), 5, (float)(i / 40), bones, 0.1f);
    tress_chain_settings s = tress_default_chain_settings();
    s.model = i < vrm ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
    assert_int_equal(tress_sim_bind(sim, c.part, &s, NULL), TRESS_OK);
  }
  assert_int_equal(tress_sim_step(sim, 1.0 / 60.0), TRESS_OK);
  const struct tress_chains *c = sim->chains;
  uint32_t tiles = c->tile_count;
  for (uint32_t t = 0; t < tiles; t++) {
    uint32_t nodes = 0;
    for (uint32_t si = c->tile_slot[t]; si < c->tile_slot[t + 1]; si++)
      if (c->slots[si].used) {
        nodes += c->slots[si].node_count;
        assert_int_equal(c->tile_kind[t], c->tile_kind[tress__chain_tile(c, si)]);
      }
    assert_true(nodes <= TILE_NODES * 3 / 2);
    /* a tile that is not the last of its kind's run is full */
    bool last_of_run = t + 1 == tiles || c->tile_kind[t + 1] != c->tile_kind[t];
    if (!last_of_run) assert_true(nodes >= TILE_NODES);
    if (t > 0 && c->tile_kind[t - 1] == c->tile_kind[t]) assert_true(nodes >= TILE_NODES / 2);
  }
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return tiles;
}

static void test_a_sliver_joins_the_tile_before_it(void **state) {
  (void)state;
  assert_true(TILE_NODES == 2048);   /* the counts below are for this size */
  assert_int_equal(tiles_for(300, 7, 0), 1);  /* 2100 nodes: one tile, not 2048 and 52 */
  assert_int_equal(tiles_for(400, 7, 0), 1);  /* 2800: 752 left is less than half a tile */
  assert_int_equal(tiles_for(500, 7, 0), 2);  /* 3500: 1449 left is a tile of its own */
  assert_int_equal(tiles_for(1000, 10, 0), 5); /* 10000: four full tiles and 1808 */
}

static void test_kinds_never_share_a_tile(void **state) {
  (void)state;
  /* 100 VRM chains (700 nodes) then 200 pose chains (1400): a tile each, small as they are */
  assert_int_equal(tiles_for(300, 7, 100), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_sliver_joins_the_tile_before_it),
      cmocka_unit_test(test_kinds_never_share_a_tile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
