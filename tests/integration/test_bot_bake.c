/* test_bot_bake.c - `tress-bot --bake FILE` against a real tress-server: the rig the server made
 * for the bot's character (kit: a hair rig with colliders) comes back as a .glb that passes the
 * Khronos validator with no error or warning and holds a "Sway" clip with one rotation channel
 * per bone of the rig (tress-rig --bake's test, test_bake.c, checks the sampled values against
 * the sim). A bot whose character has nothing rigged fails loudly instead of writing a file. */
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
#include <cjson/cJSON.h>

#include "support/gltf_validator.h"
#include "support/server_harness.h"
#include "tress/gltf.h"

static int run_bot(const th_server *s, const char *args) {
  char cmd[2000];
  snprintf(cmd, sizeof cmd, "'%s/client/bot/tress-bot' --server 127.0.0.1:%u --room bake --duration 2 %s >'%s/bot.log' 2>&1",
           getenv("TRESS_BINARY_DIR"), s->udp_port, args, s->dir);
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static cJSON *glb_json(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static unsigned char data[1 << 21];
  size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  assert_true(n > 20);
  uint32_t json_len = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
  return cJSON_ParseWithLength((const char *)data + 20, json_len);
}

static void test_bot_bakes_its_characters_rig(void **state) {
  (void)state;
  th_server s;
  th_server_init(&s, "bot-bake");
  assert_int_equal(th_server_start(&s, NULL), 0);
  char out[700], args[1400];
  snprintf(out, sizeof out, "%s/kit_baked.glb", s.dir);
  snprintf(args, sizeof args, "--manifest assets/characters/kit.json --bake '%s'", out);
  assert_int_equal(run_bot(&s, args), 0);

  tress_error err = {0};
  tress_mesh *m = tress_gltf_load(out, &err);
  assert_non_null(m);
  assert_true(m->bone_count > 1);
  cJSON *doc = glb_json(out);
  assert_non_null(doc);
  const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "animations"), 0);
  assert_string_equal(cJSON_GetObjectItem(anim, "name")->valuestring, "Sway");
  uint32_t bone_channels = 0;
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItem(anim, "channels")) {
    const cJSON *target = cJSON_GetObjectItem(ch, "target");
    int node = cJSON_GetObjectItem(target, "node")->valueint;
    if (node >= 1 && node <= (int)m->bone_count) {
      assert_string_equal(cJSON_GetObjectItem(target, "path")->valuestring, "rotation");
      bone_channels++;
    }
  }
  assert_int_equal(bone_channels, m->bone_count); /* every bone of a hair rig is simulated */
  cJSON_Delete(doc);
  tress_mesh_release(m);

  char prefix[1100];
  if (gltf_validator_ready(prefix, sizeof prefix)) {
    char cmd[3000], line[256] = "";
    snprintf(cmd, sizeof cmd, "node tests/gltf_validate.js '%s' '%s'", prefix, out);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(line, sizeof line, p));
    pclose(p);
    print_message("%s", line);
    assert_int_equal(strncmp(line, "errors=0 warnings=0 ", 20), 0);
  } else {
    print_message("gltf-validator unavailable (no node/npm or no network): validation skipped\n");
  }

  /* no character of its own: nothing to bake, a failure and no file */
  snprintf(out, sizeof out, "%s/none.glb", s.dir);
  snprintf(args, sizeof args, "--characters 0 --bake '%s'", out);
  assert_int_equal(run_bot(&s, args), 1);
  assert_int_not_equal(access(out, F_OK), 0);
  assert_int_equal(th_server_stop(&s, SIGTERM, 10000), 0);
  th_server_cleanup(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bot_bakes_its_characters_rig)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
