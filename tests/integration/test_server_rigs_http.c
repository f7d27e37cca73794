#define _GNU_SOURCE /* strcasestr: header names are case-insensitive */
/* The ops port's /rigs on a real server (server/src/http.c, rig_glb.c): every rig the server
 * makes is listed and served as its skinned glTF binary, read-only and only with the ops token,
 * with the cross-origin headers the live tuning page (client/web/) needs. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "support/server_harness.h"
#include "tress/gltf.h"

#define TOKEN "Authorization: Bearer rigs-op\r\n"

/* One raw request (any method); the whole answer, headers included, in *out (*len bytes). */
static int http_raw(uint16_t port, const char *method, const char *path, const char *headers, char **out,
                    size_t *len) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct timeval tv = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  char req[1024];
  int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: localhost\r\n%s\r\n", method, path, headers ? headers : "");
  assert_int_equal(write(fd, req, (size_t)n), n);
  size_t cap = 1 << 16;
  *len = 0;
  *out = malloc(cap);
  for (;;) {
    if (*len + 4096 > cap) *out = realloc(*out, cap *= 2);
    ssize_t r = read(fd, *out + *len, cap - *len - 1);
    if (r <= 0) break;
    *len += (size_t)r;
  }
  close(fd);
  (*out)[*len] = '\0';
  int status = -1;
  sscanf(*out, "HTTP/1.%*d %d", &status);
  return status;
}

static const char *body_of(const char *answer) {
  const char *sep = strstr(answer, "\r\n\r\n");
  assert_non_null(sep);
  return sep + 4;
}

static int status_of(uint16_t port, const char *method, const char *path, const char *headers) {
  char *answer;
  size_t len;
  int status = http_raw(port, method, path, headers, &answer, &len);
  free(answer);
  return status;
}

static int setup_server(void **state) {
  *state = calloc(1, sizeof(th_server));
  return *state ? 0 : -1;
}

static int teardown_server(void **state) {
  th_server *s = *state;
  if (s->dir[0]) th_server_cleanup(s);
  free(s);
  return 0;
}

static void test_rigs_are_listed_and_served_with_the_token(void **state) {
  th_server *srv = *state;
  th_server_init(srv, "rigs-http");
  const char *extra[] = {"--ops-token", "rigs-op", NULL};
  assert_int_equal(th_server_start(srv, extra), 0);

  /* nothing rigged yet: an empty list */
  char *answer;
  size_t len;
  assert_int_equal(http_raw(srv->http_port, "GET", "/rigs", TOKEN, &answer, &len), 200);
  assert_string_equal(body_of(answer), "{\"rigs\":[]}\n");
  free(answer);

  th_client *c = calloc(1, sizeof *c);
  assert_int_equal(th_client_connect(c, srv->udp_port), 0);
  assert_int_equal(th_client_hello_join(c, "rigs", "r"), 0);
  tress_msg spawn;
  assert_int_equal(th_spawn_load(&spawn, "ava.json", 1), 0);
  assert_int_equal(th_client_send(c, &spawn), 0);
  th_spawn_free(&spawn);
  const tress_msg *rig = th_client_wait(c, TRESS_MSG_RIG_RESULT, 30000);
  assert_non_null(rig);
  uint32_t bones = rig->rig_result.bone_count;

  /* without the token (or with a wrong one) nothing is shown */
  assert_int_equal(status_of(srv->http_port, "GET", "/rigs", NULL), 403);
  assert_int_equal(status_of(srv->http_port, "GET", "/rigs", "Authorization: Bearer rigs-o\r\n"), 403);

  assert_int_equal(http_raw(srv->http_port, "GET", "/rigs", TOKEN, &answer, &len), 200);
  assert_non_null(strcasestr(answer, "Access-Control-Allow-Origin: *"));
  cJSON *list = cJSON_Parse(body_of(answer));
  free(answer);
  const cJSON *rigs = cJSON_GetObjectItem(list, "rigs");
  assert_int_equal(cJSON_GetArraySize(rigs), 1);
  const char *listed_id = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rigs, 0), "id"));
  assert_non_null(listed_id);
  assert_int_equal(strlen(listed_id), 64);
  char id[65]; /* a copy: the list is freed below */
  snprintf(id, sizeof id, "%s", listed_id);
  double listed_bytes = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rigs, 0), "bytes"));
  char path[128];
  snprintf(path, sizeof path, "/rigs/%s.glb", id);
  cJSON_Delete(list);

  /* the rig itself: the skinned mesh with the rig's bones, as a glTF reader loads it */
  assert_int_equal(status_of(srv->http_port, "GET", path, NULL), 403);
  assert_int_equal(http_raw(srv->http_port, "GET", path, TOKEN, &answer, &len), 200);
  assert_non_null(strcasestr(answer, "Content-Type: model/gltf-binary"));
  const uint8_t *glb = (const uint8_t *)body_of(answer);
  size_t glb_len = len - (size_t)((const char *)glb - answer);
  assert_int_equal((double)glb_len, listed_bytes);
  tress_error err;
  tress_mesh *mesh = tress_gltf_read_memory(glb, glb_len, NULL, &err);
  assert_non_null(mesh);
  assert_true(tress_mesh_is_skinned(mesh));
  assert_int_equal(mesh->bone_count, bones);
  tress_mesh_release(mesh);
  free(answer);

  /* read-only, and only ids: no other method, no path out of the cache, no other file */
  assert_int_equal(status_of(srv->http_port, "POST", path, TOKEN), 405);
  assert_int_equal(status_of(srv->http_port, "DELETE", path, TOKEN), 405);
  assert_int_equal(status_of(srv->http_port, "GET", "/rigs/../manifest.glb", TOKEN), 404);
  char upper[128];
  snprintf(upper, sizeof upper, "%s", path);
  for (char *p = upper + 6; *p && *p != '.'; p++) *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
  assert_int_equal(status_of(srv->http_port, "GET", upper, TOKEN), 404);
  snprintf(upper, sizeof upper, "/rigs/%s.rig", id);
  assert_int_equal(status_of(srv->http_port, "GET", upper, TOKEN), 404); /* the cache file itself */
  /* the page's preflight from another origin */
  assert_int_equal(http_raw(srv->http_port, "OPTIONS", "/rigs", NULL, &answer, &len), 204);
  assert_non_null(strcasestr(answer, "Access-Control-Allow-Headers: Authorization"));
  free(answer);

  th_client_close(c);
  free(c);
  assert_int_equal(th_server_stop(srv, SIGTERM, 15000), 0);
}

/* No ops token configured: /rigs shows nothing to anyone. */
static void test_rigs_without_an_ops_token(void **state) {
  th_server *srv = *state;
  th_server_init(srv, "rigs-none");
  assert_int_equal(th_server_start(srv, NULL), 0);
  assert_int_equal(status_of(srv->http_port, "GET", "/rigs", NULL), 403);
  assert_int_equal(status_of(srv->http_port, "GET", "/rigs", "Authorization: Bearer \r\n"), 403);
  assert_int_equal(th_server_stop(srv, SIGTERM, 15000), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rigs_are_listed_and_served_with_the_token, setup_server, teardown_server),
      cmocka_unit_test_setup_teardown(test_rigs_without_an_ops_token, setup_server, teardown_server),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
