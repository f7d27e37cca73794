/* test_extended_colliders.c - plane, inside sphere and inside capsule colliders (collider.h)
 * through the sim: chains of either model stay in front of a plane and within inside shapes;
 * ropes and cloth stay in front of a plane. Without the shapes each of these hangs through. */
#include "support/sim_fixture.h"
#include "tress/rope.h"
#include "support/scene_build.h"

#define DT (1.0 / 60.0)
#define STRAND 0.05f

/* Signed distance of p from a world collider's boundary, positive where p is allowed. */
static float clearance(const tress_collider_world *c, const float p[3]) {
  if (c->shape == TRESS_COLLIDER_PLANE)
    return (p[0] - c->ax) * c->bx + (p[1] - c->ay) * c->by + (p[2] - c->az) * c->bz;
  float ab[3] = {c->bx - c->ax, c->by - c->ay, c->bz - c->az}, ap[3] = {p[0] - c->ax, p[1] - c->ay, p[2] - c->az};
  float ab2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  float t = ab2 > 0.0f ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / ab2 : 0.0f;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  float d[3] = {ap[0] - ab[0] * t, ap[1] - ab[1] * t, ap[2] - ab[2] * t};
  float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  bool inside = c->shape == TRESS_COLLIDER_INSIDE_SPHERE || c->shape == TRESS_COLLIDER_INSIDE_CAPSULE;
  return inside ? c->radius - dist : dist - c->radius;
}

/* A 6-bone chain (bone 0 at (0, 5.5, 0), links of 0.3 along +x) that would hang 1.5 below
 * its root, against one collider, for 3 s: the worst clearance of any node (less the strand
 * radius) over every frame, and the tip's height at the end. */
typedef struct chain_run {
  float worst;
  float tip_y;
  float tip_clearance; /* at the end */
} chain_run;

static chain_run run_chain(tress_spring_model model, const tress_collider_def *def) {
  tress_scene *scene = th_scene();
  fix_chain c = fix_chain_make(scene, 0, 5, 0, 6, 0.3f);
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_collider_id id;
  assert_int_equal(tress_sim_create_collider(sim, def, &id), TRESS_OK);
  tress_chain_settings s = tress_default_chain_settings();
  s.model = model;
  s.stiffness = 0.01f; /* pose model: a weak hold, so it hangs onto the collider */
  if (model == TRESS_SPRING_VRM) {
    s.stiffness = 0.2f;
    s.damping = 0.6f;
  }
  s.radius = STRAND;
  s.collider_count = 1;
  s.colliders[0] = id;
  assert_int_equal(tress_sim_bind_bone_chain(sim, c.bones[0], &s, NULL), TRESS_OK);
  tress_collider_world w;
  assert_int_equal(tress_collider_get_world(sim, id, &w), TRESS_OK);
  chain_run r = {INFINITY, 0.0f, 0.0f};
  for (int i = 0; i < 180; i++) {
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    for (int b = 1; b < c.count; b++) {
      float p[3];
      fix_world_pos(scene, c.bones[b], p);
      float cl = clearance(&w, p) - STRAND;
      if (cl < r.worst) r.worst = cl;
    }
  }
  float tip[3];
  fix_world_pos(scene, c.bones[c.count - 1], tip);
  r.tip_y = tip[1];
  r.tip_clearance = clearance(&w, tip) - STRAND;
  fix_assert_finite(scene, &c);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
  return r;
}

/* How far a node may get past a shape's boundary. The pose model keeps the link on the
 * boundary; the VRM model restores the link after each push (as VRMC_springBone and three-vrm
 * do), which can leave a swinging node past it by a fraction of a link (the conformance
 * scenes check it is never farther than three-vrm's). */
static float slack(tress_spring_model model) { return model == TRESS_SPRING_VRM ? 0.06f : 2e-3f; }

static void test_chain_stays_in_front_of_plane(void **state) {
  (void)state;
  float point[3] = {0.0f, 5.0f, 0.0f}, normal[3] = {0.0f, 2.0f, 0.0f}; /* any length */
  tress_collider_def floor = tress_collider_plane((tress_id){0}, point, normal);
  for (int m = 0; m < 2; m++) {
    tress_spring_model model = m ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
    chain_run r = run_chain(model, &floor);
    print_message("%s: plane clearance %.4f, tip y %.3f\n", m ? "vrm" : "pose", (double)r.worst, (double)r.tip_y);
    assert_true(r.worst > -slack(model));
    assert_true(r.tip_y > 5.0f - slack(model)); /* it would hang to 4.0 */
  }
}

static void test_chain_tip_stays_within_inside_sphere(void **state) {
  (void)state;
  tress_collider_def cage = tress_default_collider_def();
  cage.shape = TRESS_COLLIDER_INSIDE_SPHERE;
  cage.offset[1] = 5.5f; /* centred on the chain's root */
  cage.radius = 1.2f;
  for (int m = 0; m < 2; m++) {
    tress_spring_model model = m ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
    chain_run r = run_chain(model, &cage);
    print_message("%s: inside sphere clearance %.4f, tip y %.3f\n", m ? "vrm" : "pose", (double)r.worst,
                  (double)r.tip_y);
    assert_true(r.worst > -slack(model));
    assert_true(r.tip_y > 5.5f - 1.2f - slack(model)); /* it would hang to 4.0 */
    assert_true(r.tip_clearance > -2e-3f);             /* settled within */
  }
}

static void test_chain_stays_within_inside_capsule(void **state) {
  (void)state;
  tress_collider_def tube = tress_default_collider_def();
  tube.shape = TRESS_COLLIDER_INSIDE_CAPSULE;
  tube.offset[0] = -1.0f; tube.offset[1] = 5.5f;
  tube.tail[0] = 2.0f; tube.tail[1] = 5.5f;
  tube.radius = 0.6f;
  assert_true(tress_collider_def_is_valid(&tube));
  for (int m = 0; m < 2; m++) {
    tress_spring_model model = m ? TRESS_SPRING_VRM : TRESS_SPRING_POSE;
    chain_run r = run_chain(model, &tube);
    print_message("%s: inside capsule clearance %.4f, tip y %.3f\n", m ? "vrm" : "pose", (double)r.worst,
                  (double)r.tip_y);
    assert_true(r.worst > -slack(model));
    assert_true(r.tip_y > 5.5f - 0.6f - slack(model));
  }
}

/* Free particles after 2 s against a plane: the worst clearance (less the particle radius). */
static float worst_particle(tress_sim *sim, tress_handle_id h, const tress_collider_world *w, float radius) {
  static float xyz[3 * 400];
  uint32_t count = 0;
  assert_int_equal(tress_rope_get_points(sim, h, xyz, 400, &count), TRESS_OK);
  float worst = INFINITY;
  for (uint32_t i = 0; i < count && i < 400; i++) {
    float cl = clearance(w, &xyz[3 * i]) - radius;
    if (cl < worst) worst = cl;
  }
  return worst;
}

static void test_rope_stays_above_plane(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  float point[3] = {0.0f, 0.0f, 0.0f}, normal[3] = {0.3f, 1.0f, 0.0f};
  tress_collider_def ground = tress_collider_plane((tress_id){0}, point, normal);
  tress_collider_id id;
  assert_int_equal(tress_sim_create_collider(sim, &ground, &id), TRESS_OK);
  tress_rope_def def = tress_default_rope_def();
  def.start.position[1] = 10.0f;
  def.end.position[1] = 10.0f;
  def.end.position[0] = 20.0f;
  def.end.pinned = false; /* it falls from the horizontal, 20 long, 10 above the ground */
  def.settings.collider_count = 1;
  def.settings.colliders[0] = id;
  def.settings.collider_radius = 0.25f;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(sim, &def, &h, NULL), TRESS_OK);
  tress_collider_world w;
  assert_int_equal(tress_collider_get_world(sim, id, &w), TRESS_OK);
  float worst = INFINITY;
  for (int i = 0; i < 180; i++) {
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    float f = worst_particle(sim, h, &w, 0.25f);
    if (f < worst) worst = f;
  }
  print_message("rope: plane clearance %.5f\n", (double)worst);
  assert_true(worst > -1e-3f);
  /* a destroyed collider is dropped: the rope falls through */
  tress_collider_destroy(sim, id);
  for (int i = 0; i < 120; i++) assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
  assert_true(worst_particle(sim, h, &w, 0.25f) < -1.0f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_cloth_stays_in_front_of_plane(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  float point[3] = {0.0f, 6.0f, 0.0f}, normal[3] = {0.0f, 0.6f, 0.8f};
  tress_collider_def slope = tress_collider_plane((tress_id){0}, point, normal);
  tress_collider_id id;
  assert_int_equal(tress_sim_create_collider(sim, &slope, &id), TRESS_OK);
  tress_cloth_def def = tress_default_cloth_def();
  def.width = 8;
  def.height = 8;
  def.origin[1] = 10.0f; /* hangs from y 10 to 3: the rows below 6 start behind the plane */
  tress_cloth_pin pins[8];
  for (uint32_t k = 0; k < 8; k++) pins[k] = (tress_cloth_pin){k, (tress_id){0}};
  def.pins = pins;
  def.pin_count = 8;
  def.settings.collider_count = 1;
  def.settings.colliders[0] = id;
  def.settings.collider_radius = 0.1f;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_cloth(sim, &def, &h, NULL), TRESS_OK);
  tress_collider_world w;
  assert_int_equal(tress_collider_get_world(sim, id, &w), TRESS_OK);
  float worst = INFINITY;
  for (int i = 0; i < 120; i++) {
    assert_int_equal(tress_sim_step(sim, DT), TRESS_OK);
    float f = worst_particle(sim, h, &w, 0.1f);
    if (f < worst) worst = f;
  }
  print_message("cloth: plane clearance %.5f\n", (double)worst);
  assert_true(worst > -1e-3f);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

/* Ids a rope cannot use are refused at bind. */
static void test_particle_colliders_refused(void **state) {
  (void)state;
  tress_scene *scene = th_scene();
  tress_sim *sim = fix_sim(scene, 10, 1000.0f);
  tress_collider_def d = tress_default_collider_def();
  tress_collider_id id;
  assert_int_equal(tress_sim_create_collider(sim, &d, &id), TRESS_OK);
  tress_collider_destroy(sim, id);
  tress_rope_def def = tress_default_rope_def();
  def.settings.collider_count = 1;
  def.settings.colliders[0] = id;
  tress_handle_id h;
  assert_int_equal(tress_sim_bind_rope(sim, &def, &h, NULL), TRESS_ERR_STALE_ID);
  tress_sim_destroy(sim);
  tress_scene_destroy(scene);
}

static void test_plane_def(void **state) {
  (void)state;
  float n0[3] = {0.0f, 0.0f, 0.0f};
  tress_collider_def p = tress_collider_plane((tress_id){0}, NULL, n0);
  assert_false(tress_collider_def_is_valid(&p)); /* no normal */
  p = tress_collider_plane((tress_id){0}, NULL, NULL);
  assert_true(tress_collider_def_is_valid(&p)); /* +Z, as VRM's default */
  tress_collider_world w = tress_collider_resolve(NULL, &p);
  assert_int_equal(w.shape, TRESS_COLLIDER_PLANE);
  assert_float_equal(w.bz, 1.0f, 1e-6f);
  assert_string_equal(tress_collider_shape_name(TRESS_COLLIDER_INSIDE_CAPSULE), "inside_capsule");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_stays_in_front_of_plane),
      cmocka_unit_test(test_chain_tip_stays_within_inside_sphere),
      cmocka_unit_test(test_chain_stays_within_inside_capsule),
      cmocka_unit_test(test_rope_stays_above_plane),
      cmocka_unit_test(test_cloth_stays_in_front_of_plane),
      cmocka_unit_test(test_particle_colliders_refused),
      cmocka_unit_test(test_plane_def),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
