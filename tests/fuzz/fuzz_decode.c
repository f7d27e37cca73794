/* fuzz_decode.c - libFuzzer target for the wire decoder: any bytes must decode to a message or a
 * clear error, never a crash or a read past the end; what decodes must re-encode and decode again
 * to an equal message (the encoder and decoder agree on every rule). A BIND's springs section
 * (tag 1) is opaque to the message decoder, so it is decoded here with the same contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tress/codec.h"
#include "tress/wire_attachments.h"
#include "tress/wire_springs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The springs section under the same rules: a clear error, or an equal round trip. */
static void check_springs(const tress_wire_section *sec) {
  static tress_wire_springs a, b; /* ~15 KiB each; the fuzzer is single-threaded */
  static uint8_t buf[TRESS_WIRE_MAX_SECTION_BYTES];
  tress_wire_error err;
  tress_wire_status st = tress_wire_springs_decode(sec->bytes, sec->length, &a, &err);
  if (st != TRESS_WIRE_OK) {
    if (err.status != st || err.message[0] == '\0') abort();
    return;
  }
  size_t len = 0;
  if (tress_wire_springs_encode(&a, buf, sizeof buf, &len, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "springs re-encode failed: %s\n", err.message);
    abort();
  }
  if (tress_wire_springs_decode(buf, len, &b, &err) != TRESS_WIRE_OK || !tress_wire_springs_is_equal(&a, &b)) abort();
}

/* The attachments section (ropes, cloth) of a manifest under the same rules. */
static void check_attachments(const tress_wire_section *sec) {
  static tress_wire_attachments a, b;
  tress_wire_error err;
  tress_wire_status st = tress_wire_attachments_decode(sec->bytes, sec->length, &a, &err);
  if (st != TRESS_WIRE_OK) {
    if (err.status != st || err.message[0] == '\0') abort();
    return;
  }
  static uint8_t buf[TRESS_WIRE_MAX_SECTION_BYTES];
  size_t len = 0;
  if (tress_wire_attachments_encode(&a, buf, sizeof buf, &len, &err) != TRESS_WIRE_OK) abort();
  if (tress_wire_attachments_decode(buf, len, &b, &err) != TRESS_WIRE_OK || !tress_wire_attachments_is_equal(&a, &b))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tress_msg msg;
  tress_wire_error err;
  tress_wire_status st = tress_msg_decode(data, size, &msg, &err);
  if (st != TRESS_WIRE_OK) {
    if (err.status != st || err.message[0] == '\0') abort(); /* every failure explains itself */
    tress_msg_free(&msg);
    return 0;
  }
  size_t bound = tress_msg_get_encode_bound(&msg);
  if (bound == 0) abort(); /* the decoder accepted what the encoder refuses */
  uint8_t *buf = malloc(bound);
  size_t len = 0;
  if (!buf) abort();
  if (tress_msg_encode(&msg, buf, bound, &len, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "re-encode failed: %s\n", err.message);
    abort();
  }
  tress_msg again;
  if (tress_msg_decode(buf, len, &again, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "re-decode failed: %s\n", err.message);
    abort();
  }
  if (!tress_msg_is_equal(&msg, &again)) abort();
  const tress_wire_section *springs = msg.type == TRESS_MSG_BIND ? tress_msg_bind_get_springs(&msg.bind) : NULL;
  if (springs) check_springs(springs);
  const tress_wire_manifest *manifest = msg.type == TRESS_MSG_SPAWN_CHARACTER  ? &msg.spawn_character.manifest
                                        : msg.type == TRESS_MSG_CHARACTER_ADDED ? &msg.character_added.manifest
                                                                                : NULL;
  const tress_wire_section *attachments = tress_wire_manifest_get_attachments(manifest);
  if (attachments) check_attachments(attachments);
  char *json = tress_msg_to_json_string(&msg);
  free(json);
  tress_msg_free(&again);
  tress_msg_free(&msg);
  free(buf);
  return 0;
}
