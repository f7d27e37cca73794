/* test_protocol.c - the wire codec: round trips of every message at extreme values, truncation
 * at every offset, the specific error for each kind of bad input, and encoder buffer safety. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/samples.h"
#include "tress/codec.h"

/* Encodes msg into a fresh exactly-sized heap buffer (so ASan sees any read past the end). */
static uint8_t *encode_exact(const tress_msg *msg, size_t *len) {
  size_t bound = tress_msg_get_encode_bound(msg);
  assert_true(bound > 0);
  uint8_t *tmp = malloc(bound);
  assert_non_null(tmp);
  tress_wire_error err;
  tress_wire_status st = tress_msg_encode(msg, tmp, bound, len, &err);
  if (st) fail_msg("encode %s: %s: %s", tress_msg_type_name(msg->type), tress_wire_status_name(st), err.message);
  uint8_t *out = malloc(*len);
  assert_non_null(out);
  memcpy(out, tmp, *len);
  free(tmp);
  return out;
}

static tress_wire_status decode_copy(const uint8_t *bytes, size_t len, tress_wire_error *err) {
  uint8_t *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  if (len) memcpy(copy, bytes, len);
  tress_msg out;
  tress_wire_status st = tress_msg_decode(copy, len, &out, err);
  tress_msg_free(&out);
  free(copy);
  return st;
}

static void round_trip(const tress_msg *msg) {
  size_t len;
  uint8_t *bytes = encode_exact(msg, &len);
  assert_int_equal(tress_msg_get_encoded_size(msg), len);
  assert_true(tress_msg_get_encode_bound(msg) >= len);
  tress_msg back;
  tress_wire_error err;
  tress_wire_status st = tress_msg_decode(bytes, len, &back, &err);
  if (st) fail_msg("decode %s: %s at %zu: %s", tress_msg_type_name(msg->type), tress_wire_status_name(st), err.offset,
                   err.message);
  assert_true(tress_msg_is_equal(msg, &back));
  /* And once more: what the decoder produced encodes to the same bytes. */
  size_t len2;
  uint8_t *again = encode_exact(&back, &len2);
  assert_int_equal(len, len2);
  assert_memory_equal(bytes, again, len);
  tress_msg_free(&back);
  assert_null(back.arena);
  free(again);
  free(bytes);
}

/* The one error shape: a wire status maps to the tress_result a client reports. */
static void test_wire_status_to_result(void **state) {
  (void)state;
  assert_int_equal(tress_wire_status_to_result(TRESS_WIRE_OK), TRESS_OK);
  assert_int_equal(tress_wire_status_to_result(TRESS_WIRE_ERR_OUT_OF_MEMORY), TRESS_ERR_OUT_OF_MEMORY);
  assert_int_equal(tress_wire_status_to_result(TRESS_WIRE_ERR_UNSUPPORTED), TRESS_ERR_UNSUPPORTED);
  assert_int_equal(tress_wire_status_to_result(TRESS_WIRE_ERR_BUFFER_TOO_SMALL), TRESS_ERR_INVALID_ARGUMENT);
  for (int s = TRESS_WIRE_ERR_TRUNCATED; s <= TRESS_WIRE_ERR_EMPTY_STRING; s++)
    assert_int_not_equal(tress_wire_status_to_result((tress_wire_status)s), TRESS_OK);
  /* a real failure: one byte of a HELLO is truncated, which is a protocol error */
  const uint8_t one = (uint8_t)TRESS_MSG_HELLO;
  tress_msg out;
  tress_wire_error err;
  memset(&err, 0, sizeof err);
  tress_wire_status st = tress_msg_decode(&one, 1, &out, &err);
  assert_int_equal(st, TRESS_WIRE_ERR_TRUNCATED);
  assert_int_equal(tress_wire_status_to_result(st), TRESS_ERR_PROTOCOL);
}

static void test_round_trip_every_type_and_variant(void **state) {
  (void)state;
  sample_store st = {0};
  for (int t = TRESS_MSG_HELLO; t <= TRESS_MSG_TYPE_MAX; t++)
    for (int v = 0; v < SAMPLE_VARIANTS; v++) {
      tress_msg msg;
      assert_true(sample_message((tress_msg_type)t, v, &msg, &st, 5000));
      round_trip(&msg);
    }
  sample_store_free(&st);
}

/* The limits themselves: a million-vertex rig with four influences, 256 bones, longest names. */
static void test_round_trip_max_rig_result(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
  assert_true(sample_rig_result(&msg.rig_result, &st, SAMPLE_MAX, TRESS_WIRE_MAX_VERTICES, TRESS_WEIGHTS_U8,
                                TRESS_COMPRESSION_NONE));
  assert_int_equal(msg.rig_result.bone_count, TRESS_WIRE_MAX_BONES);
  round_trip(&msg);
  /* u16 weights at four influences do not fit raw under the bulk limit: the encoder says so. */
  msg.rig_result.skin.weight_format = TRESS_WEIGHTS_U16;
  for (uint32_t v = 0; v < TRESS_WIRE_MAX_VERTICES; v++) { /* rescale u8 units to u16 units exactly */
    uint16_t *w = st.weights + (size_t)v * 4;
    for (int s = 0; s < 4; s++) w[s] = (uint16_t)(w[s] * 257u);
  }
  assert_int_equal(tress_msg_get_encoded_size(&msg), 0);
  tress_wire_error err;
  size_t len;
  uint8_t small[16];
  assert_int_equal(tress_msg_encode(&msg, small, sizeof small, &len, &err), TRESS_WIRE_ERR_TOO_LARGE);
  /* ...but compressed they do, and come back intact. */
  msg.rig_result.skin.compression = TRESS_COMPRESSION_ZSTD;
  round_trip(&msg);
  sample_store_free(&st);
}

static void test_round_trip_weight_formats_and_compression(void **state) {
  (void)state;
  sample_store st = {0};
  for (int fmt = TRESS_WEIGHTS_U8; fmt <= TRESS_WEIGHTS_U16; fmt++)
    for (int c = TRESS_COMPRESSION_NONE; c <= TRESS_COMPRESSION_ZSTD; c++)
      for (int v = 0; v < SAMPLE_VARIANTS; v++) {
        tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
        assert_true(sample_rig_result(&msg.rig_result, &st, v, 3000, (uint8_t)fmt, (uint8_t)c));
        round_trip(&msg);
      }
  sample_store_free(&st);
}

static void test_truncation_at_every_offset(void **state) {
  (void)state;
  sample_store st = {0};
  for (int t = TRESS_MSG_HELLO; t <= TRESS_MSG_TYPE_MAX; t++)
    for (int v = 0; v < SAMPLE_VARIANTS; v++) {
      tress_msg msg;
      assert_true(sample_message((tress_msg_type)t, v, &msg, &st, 200));
      size_t len;
      uint8_t *bytes = encode_exact(&msg, &len);
      for (size_t cut = 0; cut < len; cut++) {
        tress_wire_error err;
        tress_wire_status s = decode_copy(bytes, cut, &err);
        if (s != TRESS_WIRE_ERR_TRUNCATED && !(s == TRESS_WIRE_ERR_BAD_COMPRESSION && t == TRESS_MSG_RIG_RESULT))
          fail_msg("%s variant %d cut at %zu of %zu: %s (%s)", tress_msg_type_name((tress_msg_type)t), v, cut, len,
                   tress_wire_status_name(s), err.message);
        assert_true(err.message[0] != '\0');
      }
      /* One extra byte is just as clear. */
      uint8_t *longer = malloc(len + 1);
      memcpy(longer, bytes, len);
      longer[len] = 0;
      assert_int_equal(decode_copy(longer, len + 1, NULL), TRESS_WIRE_ERR_TRAILING_BYTES);
      free(longer);
      free(bytes);
    }
  sample_store_free(&st);
}

/* Replaces the first occurrence of a 4-byte pattern; the samples use distinctive values. */
static void patch_f32(uint8_t *bytes, size_t len, float find, float replace) {
  uint8_t f[4], r[4];
  memcpy(f, &find, 4);
  memcpy(r, &replace, 4);
  for (size_t i = 0; i + 4 <= len; i++)
    if (!memcmp(bytes + i, f, 4)) {
      memcpy(bytes + i, r, 4);
      return;
    }
  fail_msg("pattern %g not found", (double)find);
}

static tress_wire_status decode_status(const uint8_t *bytes, size_t len) { return decode_copy(bytes, len, NULL); }

static void test_bad_floats_and_quaternions(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg;
  sample_message(TRESS_MSG_SPAWN_CHARACTER, SAMPLE_TYPICAL, &msg, &st, 0);
  st.parts[0].size[0] = 1.234567f;
  st.parts[1].cframe.p[2] = 7.654321f;
  st.accessories[0].handle_size[1] = 2.345678f;
  st.accessories[1].c1.q[0] = 0.6f;
  st.accessories[1].c1.q[3] = 0.8f;
  msg.spawn_character.manifest.chain_settings.damping = 0.876543f;
  size_t len;
  uint8_t *good = encode_exact(&msg, &len);
  assert_int_equal(decode_status(good, len), TRESS_WIRE_OK);
  uint8_t *b = malloc(len);
  struct {
    float find, replace;
    tress_wire_status expect;
  } cases[] = {
      {1.234567f, NAN, TRESS_WIRE_ERR_BAD_FLOAT},          /* NaN size */
      {1.234567f, -1.0f, TRESS_WIRE_ERR_BAD_FLOAT},        /* negative size */
      {1.234567f, INFINITY, TRESS_WIRE_ERR_BAD_FLOAT},     /* infinite size */
      {2.345678f, 1.0e9f, TRESS_WIRE_ERR_BAD_FLOAT},       /* handle size over the limit */
      {7.654321f, NAN, TRESS_WIRE_ERR_BAD_FLOAT},          /* NaN position */
      {7.654321f, 2.0e6f, TRESS_WIRE_ERR_BAD_FLOAT},       /* position beyond the coordinate limit */
      {0.8f, 2.0f, TRESS_WIRE_ERR_BAD_QUATERNION},         /* |q| = 2.09 */
      {0.8f, 0.0f, TRESS_WIRE_ERR_BAD_QUATERNION},         /* |q| = 0.6 */
      {0.8f, NAN, TRESS_WIRE_ERR_BAD_FLOAT},               /* NaN in a quaternion */
      {0.876543f, 1.5f, TRESS_WIRE_ERR_BAD_FLOAT},         /* damping above 1 */
      {0.876543f, -0.1f, TRESS_WIRE_ERR_BAD_FLOAT},        /* negative damping */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memcpy(b, good, len);
    patch_f32(b, len, cases[i].find, cases[i].replace);
    tress_wire_error err;
    tress_wire_status s = decode_copy(b, len, &err);
    if (s != cases[i].expect)
      fail_msg("case %zu: got %s (%s), want %s", i, tress_wire_status_name(s), err.message,
               tress_wire_status_name(cases[i].expect));
  }
  /* The encoder refuses the same values. */
  st.parts[0].size[0] = NAN;
  tress_wire_error err;
  uint8_t buf[4096];
  assert_int_equal(tress_msg_encode(&msg, buf, sizeof buf, &len, &err), TRESS_WIRE_ERR_BAD_FLOAT);
  assert_int_equal(len, 0);
  st.parts[0].size[0] = 1.0f;
  st.parts[1].cframe.q[3] = 3.0f;
  assert_int_equal(tress_msg_encode(&msg, buf, sizeof buf, &len, &err), TRESS_WIRE_ERR_BAD_QUATERNION);
  free(b);
  free(good);
  sample_store_free(&st);
}

static void test_bad_strings(void **state) {
  (void)state;
  tress_msg msg = {.type = TRESS_MSG_HELLO};
  msg.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR;
  strcpy(msg.hello.client_name, "abcdef");
  strcpy(msg.hello.auth_token, "tok");
  size_t len;
  uint8_t *good = encode_exact(&msg, &len);
  /* layout: type, u16 major, u16 minor, u8 len, "abcdef", u8 len, "tok" */
  assert_int_equal(good[5], 6);
  uint8_t b[64];
  struct {
    size_t at;
    uint8_t value;
    tress_wire_status expect;
  } cases[] = {
      {7, 0x00, TRESS_WIRE_ERR_EMBEDDED_NUL}, /* "a\0cdef" */
      {7, 0xFF, TRESS_WIRE_ERR_BAD_UTF8},     /* never valid in UTF-8 */
      {7, 0xC3, TRESS_WIRE_ERR_BAD_UTF8},     /* lead byte followed by ASCII */
      {7, 0x80, TRESS_WIRE_ERR_BAD_UTF8},     /* stray continuation */
      {11, 0xC3, TRESS_WIRE_ERR_BAD_UTF8},    /* sequence cut by the string's end */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memcpy(b, good, len);
    b[cases[i].at] = cases[i].value;
    assert_int_equal(decode_status(b, len), cases[i].expect);
  }
  /* Overlong encoding of '/' (C0 AF) and a UTF-16 surrogate (ED A0 80). */
  memcpy(b, good, len);
  b[6] = 0xC0, b[7] = 0xAF;
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_UTF8);
  memcpy(b, good, len);
  b[6] = 0xED, b[7] = 0xA0, b[8] = 0x80;
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_UTF8);
  /* A name length over 63: build the bytes by hand. */
  uint8_t longname[1 + 4 + 1 + 64 + 1];
  memcpy(longname, good, 5);
  longname[5] = 64;
  memset(longname + 6, 'n', 64);
  longname[70] = 0;
  assert_int_equal(decode_status(longname, sizeof longname), TRESS_WIRE_ERR_STRING_TOO_LONG);
  /* The encoder refuses an unterminated or too long name. */
  memset(msg.hello.client_name, 'n', sizeof msg.hello.client_name);
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(&msg, b, sizeof b, &len, &err), TRESS_WIRE_ERR_STRING_TOO_LONG);
  /* An empty room name is refused both ways. */
  tress_msg join = {.type = TRESS_MSG_JOIN_ROOM};
  assert_int_equal(tress_msg_encode(&join, b, sizeof b, &len, &err), TRESS_WIRE_ERR_EMPTY_STRING);
  uint8_t empty_room[] = {TRESS_MSG_JOIN_ROOM, 0};
  assert_int_equal(decode_status(empty_room, sizeof empty_room), TRESS_WIRE_ERR_EMPTY_STRING);
  free(good);
}

static void test_wrong_version(void **state) {
  (void)state;
  tress_msg msg = {.type = TRESS_MSG_HELLO};
  msg.hello.version_major = TRESS_PROTOCOL_VERSION_MAJOR + 1;
  msg.hello.version_minor = 3;
  strcpy(msg.hello.client_name, "future-client");
  size_t len;
  uint8_t *bytes = encode_exact(&msg, &len);
  tress_msg out;
  tress_wire_error err;
  assert_int_equal(tress_msg_decode(bytes, len, &out, &err), TRESS_WIRE_ERR_BAD_VERSION);
  /* The server learns which version to name in its REJECT. */
  assert_int_equal(out.type, TRESS_MSG_HELLO);
  assert_int_equal(out.hello.version_major, TRESS_PROTOCOL_VERSION_MAJOR + 1);
  assert_int_equal(out.hello.version_minor, 3);
  assert_non_null(strstr(err.message, "major"));
  tress_msg_free(&out);
  free(bytes);
  /* Even a HELLO from a future major whose body we cannot parse is a version error. */
  uint8_t future[] = {TRESS_MSG_HELLO, 9, 0, 0, 0, 0xFF};
  assert_int_equal(tress_msg_decode(future, sizeof future, &out, &err), TRESS_WIRE_ERR_BAD_VERSION);
  assert_int_equal(out.hello.version_major, 9);
  tress_msg_free(&out);
  /* WELCOME too. */
  tress_msg w;
  sample_store st = {0};
  sample_message(TRESS_MSG_WELCOME, SAMPLE_TYPICAL, &w, &st, 0);
  w.welcome.version_major = 0;
  bytes = encode_exact(&w, &len);
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_VERSION);
  free(bytes);
}

static void test_unknown_type_and_size_limits(void **state) {
  (void)state;
  uint8_t zero[] = {0}, high[] = {TRESS_MSG_TYPE_MAX + 1, 0, 0}, ff[] = {0xFF};
  assert_int_equal(decode_status(zero, 1), TRESS_WIRE_ERR_UNKNOWN_TYPE);
  assert_int_equal(decode_status(high, 3), TRESS_WIRE_ERR_UNKNOWN_TYPE);
  assert_int_equal(decode_status(ff, 1), TRESS_WIRE_ERR_UNKNOWN_TYPE);
  assert_int_equal(decode_status(zero, 0), TRESS_WIRE_ERR_TRUNCATED);
  /* A control message longer than the control limit is refused before parsing. */
  size_t big = TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES + 1;
  uint8_t *b = calloc(big, 1);
  b[0] = TRESS_MSG_JOIN_ROOM;
  assert_int_equal(decode_status(b, big), TRESS_WIRE_ERR_TOO_LARGE);
  b[0] = TRESS_MSG_RIG_RESULT; /* ...which is fine for the bulk type (it fails later, on content) */
  assert_int_not_equal(decode_status(b, big), TRESS_WIRE_ERR_TOO_LARGE);
  free(b);
  assert_int_equal(tress_msg_type_get_channel(TRESS_MSG_RIG_RESULT), TRESS_CHANNEL_BULK);
  assert_int_equal(tress_msg_type_get_channel(TRESS_MSG_BIND), TRESS_CHANNEL_CONTROL);
}

static void put_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put_u32(uint8_t *p, uint32_t v) { put_u16(p, (uint16_t)v), put_u16(p + 2, (uint16_t)(v >> 16)); }

static void test_oversized_counts(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg;
  size_t len;
  uint8_t *bytes;

  /* SPAWN_CHARACTER (min): type, u32 request, u8 name len 0, u8 parts, u8 accessories, ... */
  sample_message(TRESS_MSG_SPAWN_CHARACTER, SAMPLE_MIN, &msg, &st, 0);
  bytes = encode_exact(&msg, &len);
  bytes[6] = TRESS_WIRE_MAX_PARTS + 1;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  bytes[6] = 5; /* within the limit but more than the bytes left: no allocation, a clear error */
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_TRUNCATED);
  bytes[6] = 0;
  bytes[7] = TRESS_WIRE_MAX_ACCESSORIES + 1;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  bytes[7] = 0;
  bytes[8] = 0x80; /* undefined manifest flag bit */
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_ENUM);
  bytes[8] = 0;
  bytes[9] = TRESS_WIRE_MAX_SECTIONS + 1;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  free(bytes);

  /* ROOM_JOINED (min): type, u8 room len 0, u16 members */
  sample_message(TRESS_MSG_ROOM_JOINED, SAMPLE_MIN, &msg, &st, 0);
  bytes = encode_exact(&msg, &len);
  put_u16(bytes + 2, TRESS_WIRE_MAX_ROOM_PEERS + 1);
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  put_u16(bytes + 2, 0xFFFF);
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  free(bytes);

  /* RIG_RESULT (min): type, u32 id, u8 accessory, 32 hash, 28 options, u16 bones at 66 ... skin
   * header (u32 vertices, u8 influences, u8 format, u8 compression) is the last 7 bytes. */
  sample_message(TRESS_MSG_RIG_RESULT, SAMPLE_MIN, &msg, &st, 0);
  bytes = encode_exact(&msg, &len);
  uint8_t *b = malloc(len);
  memcpy(b, bytes, len);
  put_u16(b + 66, TRESS_WIRE_MAX_BONES + 1);
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  put_u16(b + 66, 0);
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  memcpy(b, bytes, len);
  put_u32(b + len - 7, TRESS_WIRE_MAX_VERTICES + 1);
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  put_u32(b + len - 7, TRESS_WIRE_MAX_VERTICES); /* allowed, but the bytes are not there */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_TRUNCATED);
  memcpy(b, bytes, len);
  b[len - 3] = 5; /* influences */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  memcpy(b, bytes, len);
  b[len - 2] = 3; /* weight format */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_ENUM);
  memcpy(b, bytes, len);
  b[len - 1] = 2; /* compression */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_ENUM);
  memcpy(b, bytes, len);
  b[38] = 200; /* sectors: 1 + 200 x 3 bones */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  free(b);
  free(bytes);
  sample_store_free(&st);
}

static void test_bad_indices_and_weights(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
  /* Typical rig, raw u8, 2 influences: skin planes are joints[slot0], joints[slot1], weights[slot0]. */
  sample_rig_result(&msg.rig_result, &st, SAMPLE_TYPICAL, 0, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_NONE);
  uint32_t n = msg.rig_result.skin.vertex_count;
  size_t len;
  uint8_t *bytes = encode_exact(&msg, &len);
  size_t planes = len - (size_t)n * 3;
  uint8_t *b = malloc(len);
  memcpy(b, bytes, len);
  b[planes + 5] = (uint8_t)msg.rig_result.bone_count; /* joint index == bone count */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_INDEX);
  /* A weight can only exceed the unit in u16 format (u8 cannot hold 256); see below. */
  memcpy(b, bytes, len);
  put_u16(b + 66 + 2 + 1 + 8 + 0, 0); /* bone 0 parent -1 -> 0: not below its own index */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_INDEX);
  free(b);
  free(bytes);

  sample_rig_result(&msg.rig_result, &st, SAMPLE_TYPICAL, 0, TRESS_WEIGHTS_U16, TRESS_COMPRESSION_NONE);
  bytes = encode_exact(&msg, &len);
  b = malloc(len);
  memcpy(b, bytes, len);
  put_u16(b + len - 2, 65535); /* last vertex's slot-0 weight */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_OK); /* exactly the unit: slot 1 gets 0 */
  put_u16(b + len - 2, 0); /* 0: slot 1 gets it all, also fine */
  assert_int_equal(decode_status(b, len), TRESS_WIRE_OK);
  free(b);
  free(bytes);
  /* The encoder refuses weights that do not sum to the unit and joints out of range. */
  st.weights[4] += 1;
  uint8_t buf[64];
  tress_wire_error err;
  assert_int_equal(tress_msg_encode(&msg, buf, sizeof buf, &len, &err), TRESS_WIRE_ERR_BAD_WEIGHTS);
  st.weights[4] -= 1;
  st.joints[0] = 200;
  assert_int_equal(tress_msg_encode(&msg, buf, sizeof buf, &len, &err), TRESS_WIRE_ERR_BAD_INDEX);
  sample_store_free(&st);

  /* Four influences in u16: three sent weights summing past the unit. */
  sample_rig_result(&msg.rig_result, &st, SAMPLE_MAX, 30, TRESS_WEIGHTS_U16, TRESS_COMPRESSION_NONE);
  bytes = encode_exact(&msg, &len);
  b = malloc(len);
  memcpy(b, bytes, len);
  /* weight planes: 3 planes of 30 u16 at the end; set vertex 0 of planes 0 and 1 to 40000 */
  put_u16(b + len - 3 * 60, 40000);
  put_u16(b + len - 2 * 60, 40000);
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_WEIGHTS);
  free(b);
  free(bytes);

  /* Accessory worn on a part that does not exist; repeated explicit match index. */
  sample_message(TRESS_MSG_SPAWN_CHARACTER, SAMPLE_TYPICAL, &msg, &st, 0);
  st.accessories[1].worn_on = 3;
  assert_int_equal(tress_msg_encode(&msg, buf, sizeof buf, &len, &err), TRESS_WIRE_ERR_BAD_INDEX);
  sample_message(TRESS_MSG_BIND, SAMPLE_TYPICAL, &msg, &st, 0);
  bytes = encode_exact(&msg, &len);
  /* type, id, 16 chain, 20 accessory, policy, count, idx, idx, sections */
  assert_int_equal(bytes[42], 2);
  bytes[44] = bytes[43];
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_INDEX);
  bytes[44] = 40;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_INDEX);
  bytes[44] = 0;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_OK);
  /* then the rigged set: count 1, index 0 */
  assert_int_equal(bytes[45], 1);
  bytes[46] = 32;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_INDEX);
  bytes[45] = 33;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_COUNT_OVER_LIMIT);
  bytes[45] = 1, bytes[46] = 0;
  bytes[41] = 3;
  assert_int_equal(decode_status(bytes, len), TRESS_WIRE_ERR_BAD_ENUM);
  free(bytes);
  /* A zero character id is no id. */
  uint8_t despawn[] = {TRESS_MSG_DESPAWN_CHARACTER, 0, 0, 0, 0};
  assert_int_equal(decode_status(despawn, sizeof despawn), TRESS_WIRE_ERR_BAD_INDEX);
  sample_store_free(&st);
}

static void test_bad_compression(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
  sample_rig_result(&msg.rig_result, &st, SAMPLE_TYPICAL, 0, TRESS_WEIGHTS_U8, TRESS_COMPRESSION_ZSTD);
  size_t len;
  uint8_t *bytes = encode_exact(&msg, &len);
  /* Find the zstd magic (28 B5 2F FD) and break it. */
  size_t at = 0;
  for (size_t i = 0; i + 4 <= len; i++)
    if (bytes[i] == 0x28 && bytes[i + 1] == 0xB5 && bytes[i + 2] == 0x2F && bytes[i + 3] == 0xFD) at = i;
  assert_true(at > 0);
  uint8_t *b = malloc(len);
  memcpy(b, bytes, len);
  b[at] ^= 0xFF;
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_COMPRESSION);
  /* A frame that inflates to the wrong size: claim one vertex more. */
  memcpy(b, bytes, len);
  uint32_t n = msg.rig_result.skin.vertex_count + 1;
  put_u32(b + at - 4 - 7, n);
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_BAD_COMPRESSION);
  /* A compressed length past the end. */
  memcpy(b, bytes, len);
  put_u32(b + at - 4, (uint32_t)(len - at + 1));
  assert_int_equal(decode_status(b, len), TRESS_WIRE_ERR_TRUNCATED);
  free(b);
  free(bytes);
  sample_store_free(&st);
}

static void test_encode_never_writes_past_cap(void **state) {
  (void)state;
  sample_store st = {0};
  tress_msg msg;
  sample_message(TRESS_MSG_CHARACTER_ADDED, SAMPLE_MAX, &msg, &st, 0);
  size_t need = tress_msg_get_encoded_size(&msg);
  assert_true(need > 1000 && need <= TRESS_WIRE_MAX_CONTROL_MESSAGE_BYTES);
  uint8_t *buf = malloc(need + 64);
  for (size_t cap = 0; cap < need; cap += 97) {
    memset(buf, 0xAB, need + 64);
    size_t len = 123;
    tress_wire_error err;
    assert_int_equal(tress_msg_encode(&msg, buf, cap, &len, &err), TRESS_WIRE_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(len, 0);
    for (size_t i = cap; i < need + 64; i++) assert_int_equal(buf[i], 0xAB);
  }
  size_t len;
  assert_int_equal(tress_msg_encode(&msg, buf, need, &len, NULL), TRESS_WIRE_OK);
  assert_int_equal(len, need);
  free(buf);
  sample_store_free(&st);
}

static void test_json_rendering(void **state) {
  (void)state;
  sample_store st = {0};
  for (int t = TRESS_MSG_HELLO; t <= TRESS_MSG_TYPE_MAX; t++) {
    tress_msg msg;
    sample_message((tress_msg_type)t, SAMPLE_TYPICAL, &msg, &st, 0);
    char *s = tress_msg_to_json_string(&msg);
    assert_non_null(s);
    cJSON *o = cJSON_Parse(s);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, tress_msg_type_name((tress_msg_type)t));
    if (t == TRESS_MSG_HELLO) assert_null(strstr(s, "dev-token")); /* credentials stay out of logs */
    if (t == TRESS_MSG_CHARACTER_ADDED) {
      cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "manifest"), "accessories"), 0);
      assert_string_equal(cJSON_GetObjectItem(acc, "type")->valuestring, "Hair");
      assert_string_equal(cJSON_GetObjectItem(acc, "mesh_asset_id")->valuestring, "hair/long_wavy.glb");
    }
    if (t == TRESS_MSG_RIG_RESULT) {
      cJSON *skin = cJSON_GetObjectItem(o, "skin");
      assert_int_equal(cJSON_GetObjectItem(skin, "vertex_count")->valueint, 2000);
      assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "bones")), 10);
    }
    cJSON_Delete(o);
    free(s);
  }
  sample_store_free(&st);
}


/* Deterministic xorshift so the weights are varied but the test is repeatable. */
/* REDIRECT (1.2) from hand-written bytes, as PROTOCOL.md 4.15 lays it out: room str, host str,
 * port u16 little-endian; an empty room or host, port 0, a cut or a trailing byte is refused. */
static void test_redirect_wire_layout(void **state) {
  (void)state;
  uint8_t bytes[64] = {TRESS_MSG_REDIRECT, 5, 'l', 'o', 'b', 'b', 'y', 8, '1', '0', '.', '0', '.', '0', '.', '7',
                       0x61, 0x1e}; /* port 7777 */
  size_t n = 18;
  tress_msg m;
  tress_wire_error err;
  assert_int_equal(tress_msg_decode(bytes, n, &m, &err), TRESS_WIRE_OK);
  assert_int_equal(m.type, TRESS_MSG_REDIRECT);
  assert_string_equal(m.redirect.room, "lobby");
  assert_string_equal(m.redirect.host, "10.0.0.7");
  assert_int_equal(m.redirect.port, 7777);
  /* the encoder writes exactly these bytes back */
  uint8_t again[64];
  size_t len = 0;
  assert_int_equal(tress_msg_encode(&m, again, sizeof again, &len, &err), TRESS_WIRE_OK);
  assert_int_equal(len, n);
  assert_memory_equal(again, bytes, n);
  tress_msg_free(&m);

  bytes[n] = 0;
  assert_int_equal(decode_copy(bytes, n + 1, NULL), TRESS_WIRE_ERR_TRAILING_BYTES);
  assert_int_equal(decode_copy(bytes, n - 1, NULL), TRESS_WIRE_ERR_TRUNCATED);
  uint8_t zero_port[64];
  memcpy(zero_port, bytes, n);
  zero_port[n - 2] = zero_port[n - 1] = 0;
  assert_int_equal(decode_copy(zero_port, n, &err), TRESS_WIRE_ERR_BAD_INDEX);
  assert_non_null(strstr(err.message, "port"));
  const uint8_t empty_room[] = {TRESS_MSG_REDIRECT, 0, 1, 'h', 0x61, 0x1e};
  assert_int_equal(decode_copy(empty_room, sizeof empty_room, &err), TRESS_WIRE_ERR_EMPTY_STRING);
  const uint8_t empty_host[] = {TRESS_MSG_REDIRECT, 1, 'r', 0, 0x61, 0x1e};
  assert_int_equal(decode_copy(empty_host, sizeof empty_host, &err), TRESS_WIRE_ERR_EMPTY_STRING);
  assert_non_null(strstr(err.message, "host"));
  /* and the encoder refuses what the decoder would */
  tress_msg bad = {.type = TRESS_MSG_REDIRECT};
  snprintf(bad.redirect.room, sizeof bad.redirect.room, "r");
  snprintf(bad.redirect.host, sizeof bad.redirect.host, "h");
  assert_int_equal(tress_msg_encode(&bad, again, sizeof again, &len, &err), TRESS_WIRE_ERR_BAD_INDEX);
  bad.redirect.port = 1;
  bad.redirect.host[0] = '\0';
  assert_int_equal(tress_msg_encode(&bad, again, sizeof again, &len, &err), TRESS_WIRE_ERR_EMPTY_STRING);
  assert_string_equal(tress_msg_type_name(TRESS_MSG_REDIRECT), "REDIRECT");
}

static uint32_t next_random(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* 10k vertices: half HairKit-style two-bone blends, half random 1..4 influences. Quantized, sent
 * (raw and zstd), decoded and dequantized, every weight is within one step of the normalized
 * original, the integers sum to exactly the unit and the floats to exactly 1.0f. */
static void test_quantized_weights_10k(void **state) {
  (void)state;
  const uint32_t n = 10000;
  float *orig = calloc((size_t)n * 4, sizeof(float));
  uint8_t *joints = calloc((size_t)n * 4, 1);
  uint16_t *q = calloc((size_t)n * 4, sizeof(uint16_t));
  float *back = calloc((size_t)n * 4, sizeof(float));
  sample_hair_weights(n / 2, 3, 3, orig, joints);
  uint32_t seed = 12345;
  for (uint32_t v = n / 2; v < n; v++) {
    uint32_t k = 1 + next_random(&seed) % 4;
    for (uint32_t s = 0; s < k; s++) {
      orig[v * 4 + s] = (float)(next_random(&seed) % 10000) / 10000.0f + 1e-4f;
      joints[v * 4 + s] = (uint8_t)(next_random(&seed) % 10);
    }
  }
  tress_wire_bone bones[10];
  memset(bones, 0, sizeof bones);
  for (int b = 0; b < 10; b++) {
    bones[b].parent = (int16_t)(b - 1);
    bones[b].rest = tress_xform_identity();
    snprintf(bones[b].name, sizeof bones[b].name, "B%d", b);
  }
  for (int fmt = TRESS_WEIGHTS_U8; fmt <= TRESS_WEIGHTS_U16; fmt++)
    for (int c = TRESS_COMPRESSION_NONE; c <= TRESS_COMPRESSION_ZSTD; c++) {
      uint32_t unit = tress_weight_unit((tress_weight_format)fmt);
      tress_skin_quantize(orig, n, 4, (tress_weight_format)fmt, q);
      tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
      msg.rig_result.character_id = 1;
      msg.rig_result.options = tress_default_wire_rig_options();
      msg.rig_result.bone_count = 10;
      msg.rig_result.bones = bones;
      msg.rig_result.skin = (tress_wire_skin){n, 4, (uint8_t)fmt, (uint8_t)c, joints, q};
      size_t len;
      uint8_t *bytes = encode_exact(&msg, &len);
      tress_msg dec;
      assert_int_equal(tress_msg_decode(bytes, len, &dec, NULL), TRESS_WIRE_OK);
      const tress_wire_skin *skin = &dec.rig_result.skin;
      tress_skin_dequantize(skin->weights, n, (tress_weight_format)fmt, back);
      for (uint32_t v = 0; v < n; v++) {
        float total = 0.0f;
        uint32_t isum = 0;
        for (int s = 0; s < 4; s++) total += orig[v * 4 + s];
        for (int s = 0; s < 4; s++) {
          isum += skin->weights[v * 4 + s];
          float want = orig[v * 4 + s] / total;
          if (fabsf(back[v * 4 + s] - want) > 1.0f / (float)unit)
            fail_msg("fmt %d vertex %u slot %d: %g vs %g", fmt, v, s, (double)back[v * 4 + s], (double)want);
          if (orig[v * 4 + s] > 0.0f) assert_int_equal(skin->joints[v * 4 + s], joints[v * 4 + s]);
        }
        assert_int_equal(isum, unit);
        float sum = ((back[v * 4 + 0] + back[v * 4 + 1]) + back[v * 4 + 2]) + back[v * 4 + 3];
        if (sum != 1.0f) fail_msg("fmt %d vertex %u sums to %.9g", fmt, v, (double)sum);
      }
      tress_msg_free(&dec);
      free(bytes);
    }
  free(orig);
  free(joints);
  free(q);
  free(back);
}

/* Largest remainder: a three-way even split of 255 is 85/85/85, of 65535 is 21845 x 3, and
 * 1/3 : 2/3 in u8 is 85/170 (not 85/171 or 86/170). */
static void test_largest_remainder_rounding(void **state) {
  (void)state;
  float w[8] = {1, 1, 1, 0, 1, 2, 0, 0};
  uint16_t q[8];
  tress_skin_quantize(w, 2, 4, TRESS_WEIGHTS_U8, q);
  assert_int_equal(q[0], 85), assert_int_equal(q[1], 85), assert_int_equal(q[2], 85), assert_int_equal(q[3], 0);
  assert_int_equal(q[4], 85), assert_int_equal(q[5], 170);
  float w3[4] = {0.5f, 0.5f, 0.0f, 0.0f}; /* 127.5 each: remainders tie, the earlier slot wins */
  tress_skin_quantize(w3, 1, 4, TRESS_WEIGHTS_U8, q);
  assert_int_equal(q[0], 128), assert_int_equal(q[1], 127), assert_int_equal(q[2], 0);
  float w5[4] = {0.5f, 0.25f, 0.25f, 0.0f}; /* 127.5, 63.75, 63.75: the two .75s get the units */
  tress_skin_quantize(w5, 1, 4, TRESS_WEIGHTS_U8, q);
  assert_int_equal(q[0], 127), assert_int_equal(q[1], 64), assert_int_equal(q[2], 64);
  /* Slots past `influences` are dropped and the rest renormalized. */
  float w4[4] = {0.6f, 0.2f, 0.2f, 0.0f};
  tress_skin_quantize(w4, 1, 1, TRESS_WEIGHTS_U16, q);
  assert_int_equal(q[0], 65535), assert_int_equal(q[1], 0);
  /* Garbage in (NaN, all zero) gives a valid vertex bound to slot 0. */
  float bad[8] = {NAN, 1, 0, 0, 0, 0, 0, 0};
  tress_skin_quantize(bad, 2, 2, TRESS_WEIGHTS_U8, q);
  assert_int_equal(q[0], 255), assert_int_equal(q[4], 255), assert_int_equal(q[5], 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_every_type_and_variant),
      cmocka_unit_test(test_round_trip_max_rig_result),
      cmocka_unit_test(test_wire_status_to_result),
      cmocka_unit_test(test_round_trip_weight_formats_and_compression),
      cmocka_unit_test(test_truncation_at_every_offset),
      cmocka_unit_test(test_bad_floats_and_quaternions),
      cmocka_unit_test(test_bad_strings),
      cmocka_unit_test(test_wrong_version),
      cmocka_unit_test(test_unknown_type_and_size_limits),
      cmocka_unit_test(test_oversized_counts),
      cmocka_unit_test(test_bad_indices_and_weights),
      cmocka_unit_test(test_bad_compression),
      cmocka_unit_test(test_encode_never_writes_past_cap),
      cmocka_unit_test(test_json_rendering),
      cmocka_unit_test(test_redirect_wire_layout),
      cmocka_unit_test(test_quantized_weights_10k),
      cmocka_unit_test(test_largest_remainder_rounding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
