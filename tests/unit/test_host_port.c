/* test_host_port.c - the server's "host:port" parser (advertise_address, room lease values that
 * another server wrote to Redis): what REDIRECT may carry, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host_port.h"

static void accepts(const char *text, const char *want_host, uint16_t want_port) {
  char host[64];
  uint16_t port = 0;
  if (tress_host_port_parse(text, host, sizeof host, &port) != 0) fail_msg("refused \"%s\"", text);
  assert_string_equal(host, want_host);
  assert_int_equal(port, want_port);
}

static void refuses(const char *text) {
  char host[64];
  uint16_t port = 0;
  if (tress_host_port_parse(text, host, sizeof host, &port) == 0) fail_msg("accepted \"%s\"", text);
}

static void test_host_port(void **state) {
  (void)state;
  accepts("127.0.0.1:7777", "127.0.0.1", 7777);
  accepts("tress-2.tress.svc.cluster.local:1", "tress-2.tress.svc.cluster.local", 1);
  accepts("[::1]:65535", "::1", 65535);
  accepts("[fe80::1%eth0]:7777", "fe80::1%eth0", 7777);
  refuses("");
  refuses("host");
  refuses(":7777");
  refuses("host:");
  refuses("host:0");
  refuses("host:65536");
  refuses("host:77x7");
  refuses("host:+777");
  refuses("::1:7777"); /* a bare v6 literal: where does the port start? */
  refuses("[]:7777");
  refuses("[::1:7777");
  refuses("a b:7777");
  refuses("a\x7f:7777");
  refuses("h\xc3\xa9:7777");
  char small[4];
  uint16_t port;
  assert_int_equal(tress_host_port_parse("abcd:1", small, sizeof small, &port), -1); /* does not fit */
  assert_int_equal(tress_host_port_parse("abc:1", small, sizeof small, &port), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_host_port)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
