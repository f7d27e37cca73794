/* test_client_animated_head.c - the animated_head example against a real tress-server on
 * loopback: it binds, runs its procedural nod/turn/run bob through a pose map, and the hair root
 * keeps its frame relative to the animated head (the example's exit status checks it). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/server_harness.h"
#include "support/process.h"

static void test_animated_head_example_runs(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "client-animated-head");
  assert_int_equal(th_server_start(&s, NULL), 0);
  char bin[600], port[16], out[700];
  snprintf(bin, sizeof bin, "%s/client/examples/animated_head", getenv("TRESS_BINARY_DIR"));
  snprintf(port, sizeof port, "%u", s.udp_port);
  snprintf(out, sizeof out, "%s/animated_head.out", s.dir);
  const char *argv[] = {bin, "127.0.0.1", port, "example", "1.5", NULL};
  int status = run_to_file(argv, out);
  char line[512] = "";
  FILE *f = fopen(out, "r");
  if (f && fgets(line, sizeof line, f)) printf("%s", line);
  if (f) fclose(f);
  assert_int_equal(status, 0);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_animated_head_example_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
