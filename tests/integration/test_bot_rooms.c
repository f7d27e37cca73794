/* test_bot_rooms.c - tress-bot spreads many bots over rooms (--room-size) so one process can hold
 * more bots than a room takes: against a server whose rooms hold 8 peers, 20 bots in rooms of 8
 * bind in rooms of 8, 8 and 4, each seeing exactly its room's characters; the same 20 in one room
 * are refused past 8. A real tress-server and the real tress-bot (small rooms keep the run light
 * on a loaded machine; the 1000-bot figure is measured by hand, see client/README.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "support/server_harness.h"

static cJSON *run_bot(const th_server *s, const char *extra, int *exit_status) {
  char cmd[1600], out[700];
  snprintf(out, sizeof out, "%s/bot.json", s->dir);
  snprintf(cmd, sizeof cmd,
           "'%s/client/bot/tress-bot' --server 127.0.0.1:%u --room crowd --bots 20 --characters 1 --duration 4 --json "
           "%s >'%s' 2>/dev/null",
           getenv("TRESS_BINARY_DIR"), s->udp_port, extra, out);
  int status = system(cmd);
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  FILE *f = fopen(out, "rb");
  if (!f) return NULL;
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return cJSON_Parse(text);
}

static void test_bots_spread_over_rooms_all_bind(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "bot-rooms");
  const char *small_rooms[] = {"--max-room-peers", "8", NULL};
  assert_int_equal(th_server_start(&s, small_rooms), 0);
  int status = -1;
  cJSON *report = run_bot(&s, "--room-size 8", &status);
  assert_non_null(report);
  assert_int_equal(status, 0);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  assert_int_equal(cJSON_GetObjectItem(report, "characters_not_bound")->valueint, 0);
  int bots = 0, in_room[3] = {0, 0, 0};
  cJSON *bot;
  cJSON_ArrayForEach(bot, cJSON_GetObjectItem(report, "bots")) {
    const char *room = cJSON_GetObjectItem(bot, "room")->valuestring;
    int index = cJSON_GetObjectItem(bot, "bot")->valueint;
    char want[32];
    snprintf(want, sizeof want, "crowd-%d", index / 8);
    assert_string_equal(room, want);
    in_room[index / 8]++;
    bots++;
  }
  assert_int_equal(bots, 20);
  cJSON_ArrayForEach(bot, cJSON_GetObjectItem(report, "bots")) {
    int index = cJSON_GetObjectItem(bot, "bot")->valueint;
    /* one character per bot: a bot sees exactly the characters of its own room */
    assert_int_equal(cJSON_GetObjectItem(bot, "characters_now")->valueint, in_room[index / 8]);
  }
  assert_int_equal(in_room[2], 4);
  cJSON_Delete(report);

  /* all 20 in one room: the server's 8-peer room limit refuses the rest, and the run fails */
  report = run_bot(&s, "--room-size 20", &status);
  assert_non_null(report);
  assert_int_equal(status, 1);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  assert_true(cJSON_GetObjectItem(report, "characters_not_bound")->valueint >= 12);
  cJSON_Delete(report);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bots_spread_over_rooms_all_bind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
