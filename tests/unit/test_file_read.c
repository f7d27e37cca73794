/* test_file_read.c - tress_file_read, the one whole-file read (meshes, springs, the server's
 * config, store manifest and rig cache files): errno says why it failed, as the server's callers
 * need (a missing cache file is a miss, anything else is corrupt), and only regular files under
 * the cap are read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tress/file_read.h"

static void temp_dir(char *out, size_t n) {
  snprintf(out, n, "/tmp/tress_file_read_XXXXXX");
  assert_non_null(mkdtemp(out));
}

static void test_reads_a_file_whole_with_a_terminating_nul(void **state) {
  (void)state;
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/a.txt", dir);
  FILE *f = fopen(path, "wb");
  fputs("hello", f);
  fclose(f);
  size_t size = 99;
  tress_error err = {0};
  uint8_t *data = tress_file_read(path, 5, &size, &err); /* exactly at the cap */
  assert_non_null(data);
  assert_int_equal(size, 5);
  assert_string_equal((char *)data, "hello");
  free(data);
  errno = 0;
  assert_null(tress_file_read(path, 4, &size, &err));
  assert_int_equal(errno, EFBIG);
  assert_int_equal(size, 0);
  assert_non_null(strstr(err.message, "larger than 4 bytes"));
  unlink(path);
  rmdir(dir);
}

static void test_errno_says_why(void **state) {
  (void)state;
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  size_t size;
  tress_error err = {0};
  snprintf(path, sizeof path, "%s/missing", dir);
  assert_null(tress_file_read(path, 100, &size, &err));
  assert_int_equal(errno, ENOENT);
  assert_non_null(strstr(err.message, "cannot open"));
  assert_null(tress_file_read(dir, 100, &size, NULL)); /* err may be NULL */
  assert_int_equal(errno, EISDIR);
  snprintf(path, sizeof path, "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  /* a FIFO with no writer would block a read forever: it is refused, not read */
  assert_null(tress_file_read(path, 100, &size, &err));
  assert_int_equal(errno, EINVAL);
  assert_non_null(strstr(err.message, "not a regular file"));
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_a_file_whole_with_a_terminating_nul),
      cmocka_unit_test(test_errno_says_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
