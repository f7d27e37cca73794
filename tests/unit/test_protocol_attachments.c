/* The manifest's attachments section (ropes and cloth): round trips exactly through the codec
 * and through manifest JSON, and every broken field is refused with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tress/manifest_json.h"
#include "tress/wire_attachments.h"

static tress_wire_attachments sample(void) {
  tress_wire_attachments a;
  memset(&a, 0, sizeof a);
  a.rope_count = 2;
  tress_wire_rope *r = &a.ropes[0];
  snprintf(r->name, sizeof r->name, "Leash");
  r->start = (tress_wire_rope_end){.pinned = true, .part = "LeftHand", .offset = {0.0f, -0.2f, 0.0f}};
  r->end = (tress_wire_rope_end){.pinned = true, .part = "RightHand", .offset = {0.1f, -0.2f, 0.0f}};
  r->segments = 24;
  r->length = 4.8f;
  r->settings = tress_default_wire_particle_settings();
  r = &a.ropes[1];
  snprintf(r->name, sizeof r->name, "Charm");
  r->start = (tress_wire_rope_end){.pinned = true, .part = "UpperTorso", .offset = {0.6f, -0.8f, 0.5f}};
  r->segments = 6;
  r->length = 0.9f;
  r->settings = (tress_wire_particle_settings){0.9f, 0.5f, 2.0f};
  a.cloth_count = 1;
  tress_wire_cloth *c = &a.cloths[0];
  snprintf(c->name, sizeof c->name, "Cape");
  snprintf(c->part, sizeof c->part, "UpperTorso");
  c->width = 9;
  c->height = 12;
  c->origin[1] = 0.75f;
  c->step_u[0] = 0.225f;
  c->step_v[1] = -0.22f;
  c->pinned_edge = TRESS_CLOTH_EDGE_RIGHT;
  c->settings = tress_default_wire_particle_settings();
  return a;
}

static void test_round_trip(void **state) {
  (void)state;
  static tress_wire_attachments a, b;
  a = sample();
  static uint8_t buf[TRESS_WIRE_MAX_SECTION_BYTES];
  size_t n = 0;
  tress_wire_error err;
  assert_int_equal(tress_wire_attachments_encode(&a, buf, sizeof buf, &n, &err), TRESS_WIRE_OK);
  assert_int_equal(tress_wire_attachments_decode(buf, n, &b, &err), TRESS_WIRE_OK);
  assert_true(tress_wire_attachments_is_equal(&a, &b));
  /* every truncation is refused, never read past */
  for (size_t cut = 0; cut < n; cut++) assert_int_not_equal(tress_wire_attachments_decode(buf, cut, &b, &err), TRESS_WIRE_OK);
  buf[n] = 0;
  assert_int_equal(tress_wire_attachments_decode(buf, n + 1, &b, &err), TRESS_WIRE_ERR_TRAILING_BYTES);
  buf[0] = 9;
  assert_int_equal(tress_wire_attachments_decode(buf, n, &b, &err), TRESS_WIRE_ERR_BAD_VERSION);
}

/* One broken field per case, applied to the sample. */
static void break_field(tress_wire_attachments *x, int which) {
  switch (which) {
  case 0: x->ropes[0].start.pinned = false; break;
  case 1: x->ropes[0].end.part[0] = '\0'; break;
  case 2: x->ropes[0].segments = 0; break;
  case 3: x->ropes[0].segments = 300; break;
  case 4: x->ropes[0].length = 0.0f; break;
  case 5: x->ropes[1].settings.damping = 1.5f; break;
  case 6: x->ropes[1].start.offset[2] = 1e9f; break;
  case 7: x->cloths[0].width = 1; break;
  case 8: x->cloths[0].height = 65; break;
  case 9: x->cloths[0].step_v[1] = 0.0f; break;
  case 10: x->cloths[0].pinned_edge = 4; break;
  case 11: x->cloths[0].part[0] = '\0'; break;
  default: x->rope_count = 17; break;
  }
}

static void test_bad_fields_refused(void **state) {
  (void)state;
  const char *reasons[] = {"start must be pinned", "a pinned end names no part", "0 segments", "300 segments",
                           "length 0 is not in", "rope 1 damping: 1.5", "rope 1[2]", "1 x 12 particles",
                           "9 x 65 particles", "span no sheet", "pinned edge 4", "names no part to pin to",
                           "17 ropes, limit 16"};
  for (int i = 0; i < (int)(sizeof reasons / sizeof reasons[0]); i++) {
    static tress_wire_attachments a;
    a = sample();
    break_field(&a, i);
    static uint8_t buf[TRESS_WIRE_MAX_SECTION_BYTES];
    size_t n = 0;
    tress_wire_error err;
    assert_int_not_equal(tress_wire_attachments_encode(&a, buf, sizeof buf, &n, &err), TRESS_WIRE_OK);
    if (!strstr(err.message, reasons[i])) fail_msg("case %d: \"%s\" does not say \"%s\"", i, err.message, reasons[i]);
  }
}

/* Parts are checked against the manifest; JSON "ropes"/"cloths" print and parse back exactly. */
static void test_parts_and_json(void **state) {
  (void)state;
  tress_wire_manifest m;
  tress_error err = {0};
  assert_int_equal(tress_manifest_json_load("assets/characters/rio.json", &m, &err), 0);
  const tress_wire_section *sec = tress_wire_manifest_get_attachments(&m);
  assert_non_null(sec);
  static tress_wire_attachments a, b;
  tress_wire_error werr;
  assert_int_equal(tress_wire_attachments_decode(sec->bytes, sec->length, &a, &werr), TRESS_WIRE_OK);
  assert_int_equal(a.rope_count, 2);
  assert_int_equal(a.cloth_count, 1);
  assert_true(a.ropes[0].end.pinned);
  assert_false(a.ropes[1].end.pinned); /* the charm hangs free */
  assert_int_equal(a.cloths[0].pinned_edge, TRESS_CLOTH_EDGE_TOP);
  assert_int_equal(tress_wire_attachments_check_parts(&a, &m, &werr), TRESS_WIRE_OK);
  char *text = tress_manifest_json_print(&m);
  assert_non_null(text);
  tress_wire_manifest back;
  assert_int_equal(tress_manifest_json_parse(text, strlen(text), &back, &err), 0);
  free(text);
  sec = tress_wire_manifest_get_attachments(&back);
  assert_non_null(sec);
  assert_int_equal(tress_wire_attachments_decode(sec->bytes, sec->length, &b, &werr), TRESS_WIRE_OK);
  assert_true(tress_wire_attachments_is_equal(&a, &b));
  tress_manifest_json_free(&back);
  snprintf(m.parts[3].name, sizeof m.parts[3].name, "Hand");
  assert_int_equal(tress_wire_attachments_check_parts(&a, &m, &werr), TRESS_WIRE_ERR_BAD_INDEX);
  assert_non_null(strstr(werr.message, "rope 0 ('Jumprope'): end part 'RightHand' is not a part of the manifest"));
  tress_manifest_json_free(&m);

  const struct {
    const char *json, *reason;
  } bad[] = {
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"A\"}], \"ropes\": [{\"name\": \"r\", \"start\": {\"part\": \"B\"}}]}",
       "$: rope 0 ('r'): start part 'B' is not a part of the manifest"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"A\"}], \"ropes\": [{\"name\": \"r\"}]}", "$.ropes[0]: missing \"start\""},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"A\"}], \"ropes\": [{\"name\": \"r\", \"start\": {\"part\": \"A\"}, "
       "\"segment\": 3}]}",
       "$.ropes[0].segment: unknown key (did you mean \"segments\"?)"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"A\"}], \"cloths\": [{\"name\": \"c\", \"part\": \"A\", "
       "\"pinned_edge\": \"middle\"}]}",
       "$.cloths[0].pinned_edge: \"middle\" is not top, bottom, left or right"},
      {"{\"character\": \"x\", \"parts\": [{\"name\": \"A\"}], \"cloths\": [{\"name\": \"c\", \"part\": \"A\", \"width\": 1}]}",
       "$.cloths[0].width: must be a whole number in 2..64"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tress_wire_manifest x;
    tress_error e = {0};
    assert_int_not_equal(tress_manifest_json_parse(bad[i].json, strlen(bad[i].json), &x, &e), 0);
    if (!strstr(e.message, bad[i].reason)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, e.message, bad[i].reason);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_bad_fields_refused),
                                     cmocka_unit_test(test_parts_and_json)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
