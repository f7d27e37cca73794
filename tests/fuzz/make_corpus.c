/* make_corpus.c - writes the fuzz seed corpus (one valid message of every type and variant) or,
 * with --check, verifies that every committed corpus file still decodes and round-trips.
 *   fuzz_make_corpus DIR           write DIR/<type>_<variant>.bin
 *   fuzz_make_corpus --check DIR   exit 1 unless every file decodes and re-encodes equal (and
 *                                  BIND springs sections decode; at least one must exist) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/samples.h"
#include "tress/codec.h"
#include "tress/wire_springs.h"

static int write_one(const char *dir, const char *name, const tress_msg *msg) {
  size_t bound = tress_msg_get_encode_bound(msg), len;
  uint8_t *buf = malloc(bound);
  tress_wire_error err;
  if (!buf || tress_msg_encode(msg, buf, bound, &len, &err) != TRESS_WIRE_OK) {
    fprintf(stderr, "%s: %s\n", name, err.message);
    free(buf);
    return 1;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(buf, 1, len, f) != len) {
    perror(path);
    if (f) fclose(f);
    free(buf);
    return 1;
  }
  fclose(f);
  free(buf);
  printf("%-40s %7zu bytes\n", path, len);
  return 0;
}

static int generate(const char *dir) {
  static const char *const variants[] = {"min", "typical", "max"};
  sample_store st = {0};
  int failures = 0;
  for (int t = TRESS_MSG_HELLO; t <= TRESS_MSG_TYPE_MAX; t++)
    for (int v = 0; v < SAMPLE_VARIANTS; v++) {
      tress_msg msg;
      sample_message((tress_msg_type)t, v, &msg, &st, 120);
      char name[64], lower[32];
      const char *tn = tress_msg_type_name((tress_msg_type)t);
      size_t i = 0;
      for (; tn[i] && i + 1 < sizeof lower; i++) lower[i] = (char)(tn[i] >= 'A' && tn[i] <= 'Z' ? tn[i] + 32 : tn[i]);
      lower[i] = '\0';
      snprintf(name, sizeof name, "%02d_%s_%s", t, lower, variants[v]);
      failures += write_one(dir, name, &msg);
    }
  /* The rig payload's other encodings: u16 weights, raw and zstd. */
  for (int fmt = TRESS_WEIGHTS_U8; fmt <= TRESS_WEIGHTS_U16; fmt++)
    for (int c = TRESS_COMPRESSION_NONE; c <= TRESS_COMPRESSION_ZSTD; c++) {
      tress_msg msg = {.type = TRESS_MSG_RIG_RESULT};
      sample_rig_result(&msg.rig_result, &st, SAMPLE_TYPICAL, 0, (uint8_t)fmt, (uint8_t)c);
      msg.rig_result.skin.vertex_count = 300; /* keep seeds small */
      char name[64];
      snprintf(name, sizeof name, "10_rig_result_%s_%s", fmt == TRESS_WEIGHTS_U8 ? "u8" : "u16",
               c ? "zstd" : "raw");
      failures += write_one(dir, name, &msg);
    }
  /* BIND with a springs section (tag 1), so the fuzzer reaches the springs decoder. */
  static const char *const springs_variants[] = {"typical", "max"};
  static uint8_t springs_bytes[TRESS_WIRE_MAX_SECTION_BYTES];
  tress_wire_springs *springs = malloc(sizeof *springs);
  for (int v = 0; springs && v < 2; v++) {
    sample_springs(springs, v ? SAMPLE_MAX : SAMPLE_TYPICAL);
    size_t n = 0;
    tress_wire_error err;
    if (tress_wire_springs_encode(springs, springs_bytes, sizeof springs_bytes, &n, &err) != TRESS_WIRE_OK) {
      fprintf(stderr, "springs %s: %s\n", springs_variants[v], err.message);
      failures++;
      continue;
    }
    tress_msg msg;
    sample_message(TRESS_MSG_BIND, SAMPLE_TYPICAL, &msg, &st, 120);
    tress_wire_section section = {.tag = TRESS_SECTION_SPRINGS, .length = (uint32_t)n, .bytes = springs_bytes};
    msg.bind.section_count = 1;
    msg.bind.sections = &section;
    char name[64];
    snprintf(name, sizeof name, "%02d_bind_springs_%s", TRESS_MSG_BIND, springs_variants[v]);
    failures += write_one(dir, name, &msg);
  }
  if (!springs) failures++;
  free(springs);
  sample_store_free(&st);
  return failures ? 1 : 0;
}

static int check(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return 1;
  }
  int files = 0, failures = 0, springs_sections = 0;
  tress_wire_springs *springs = malloc(sizeof *springs);
  if (!springs) {
    closedir(d);
    return 1;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    static uint8_t buf[TRESS_WIRE_MAX_BULK_MESSAGE_BYTES + 1];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    files++;
    tress_msg msg, again;
    tress_wire_error err;
    if (tress_msg_decode(buf, len, &msg, &err) != TRESS_WIRE_OK) {
      fprintf(stderr, "%s: %s at %zu: %s\n", path, tress_wire_status_name(err.status), err.offset, err.message);
      failures++;
      continue;
    }
    size_t bound = tress_msg_get_encode_bound(&msg), n;
    uint8_t *out = malloc(bound);
    if (!out || tress_msg_encode(&msg, out, bound, &n, &err) || tress_msg_decode(out, n, &again, &err) ||
        !tress_msg_is_equal(&msg, &again)) {
      fprintf(stderr, "%s: does not round-trip: %s\n", path, err.message);
      failures++;
    } else {
      tress_msg_free(&again);
    }
    /* a BIND's springs section must decode too: it is what seeds the springs decoder */
    const tress_wire_section *sec = msg.type == TRESS_MSG_BIND ? tress_msg_bind_get_springs(&msg.bind) : NULL;
    if (sec) {
      springs_sections++;
      if (tress_wire_springs_decode(sec->bytes, sec->length, springs, &err) != TRESS_WIRE_OK) {
        fprintf(stderr, "%s: springs section: %s\n", path, err.message);
        failures++;
      }
    }
    free(out);
    tress_msg_free(&msg);
  }
  closedir(d);
  free(springs);
  printf("%d corpus files (%d with a springs section), %d failed\n", files, springs_sections, failures);
  /* Every message type must be represented, and BIND's springs section. */
  return failures || files < TRESS_MSG_TYPE_MAX || springs_sections == 0 ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--check")) return check(argv[2]);
  if (argc == 2) return generate(argv[1]);
  fprintf(stderr, "usage: %s DIR | --check DIR\n", argv[0]);
  return 2;
}
