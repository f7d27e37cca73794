/* Agones integration
 * ------------------
 * The SDK sidecar's REST API (grpc-gateway on 127.0.0.1:$AGONES_SDK_HTTP_PORT), spoken from the
 * server's loop through agones_http.c; no Agones SDK library. Five call slots, each one request
 * at a time, so no kind of call queues behind another:
 *  - control: POST /ready, then PUT /metadata/label (the version), then GET /gameserver (the
 *    health period). A failed step is retried with backoff (100 ms doubling to 2 s): the sidecar
 *    may start after the server.
 *  - health: POST /health {} twice per health period (so one late ping never fails a check),
 *    from a loop timer: a loop that does not turn sends none, which is what Agones must see.
 *  - watch: GET /watch/gameserver, a stream of {"result": GameServer} lines (the period may
 *    change, the state is logged); reopened with backoff when it ends.
 *  - rooms: the `rooms` Counter (PATCH, absolute count, so a retry cannot double count) and the
 *    `rooms` List (addValue / removeValue). What the sidecar holds is kept in `published` and
 *    diffed against the open rooms, so bursts coalesce and an outage needs no queue.
 *  - final: POST /shutdown after the drain.
 * Bodies are JSON as the swagger documents them: int64 as strings, an empty message as {} (the
 * gateway answers 400 to an empty body). */
#include "agones.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agones_http.h"
#include "room_lease.h"
#include "server.h"

#define CONTROL_TIMEOUT_MS 2000
#define CONTROL_BACKOFF_MIN_MS 100
#define CONTROL_BACKOFF_MAX_MS 2000
#define WATCH_BACKOFF_MAX_MS 5000
#define ROOMS_BACKOFF_MIN_MS 500
#define ROOMS_BACKOFF_MAX_MS 30000
#define SHUTDOWN_TIMEOUT_MS 3000
#define DEFAULT_HEALTH_PERIOD_S 5 /* Agones' default spec.health.periodSeconds */

typedef enum control_step { STEP_READY, STEP_LABEL, STEP_GAMESERVER, STEP_DONE } control_step;
typedef enum rooms_op { OP_NONE, OP_COUNTER, OP_LIST_ADD, OP_LIST_REMOVE } rooms_op;

enum { SLOT_CONTROL, SLOT_HEALTH, SLOT_WATCH, SLOT_ROOMS, SLOT_FINAL, SLOT_COUNT };
enum { TIMER_CONTROL, TIMER_HEALTH, TIMER_WATCH, TIMER_ROOMS, TIMER_COUNT };

struct tress_agones {
  tress_server *s;
  uint16_t port;
  tress_agones_http_call calls[SLOT_COUNT];
  uv_timer_t timers[TIMER_COUNT];
  uint32_t handles_open; /* counted down as they close: a is freed at 0 */
  bool shutting_down;

  control_step step;
  uint32_t control_backoff_ms, control_attempts;
  bool ready;

  bool health_disabled;
  uint32_t health_period_s;
  uint64_t health_ok, health_failed;

  uint32_t watch_backoff_ms;
  char state[32]; /* the GameServer's status.state as last seen */
  char advertised_host[TRESS_WIRE_TEXT_CAP]; /* status.address and port as last applied; "" = the default */
  uint16_t advertised_port;

  /* The sidecar's view of the rooms, as last acknowledged. */
  char (*published)[TRESS_WIRE_NAME_CAP];
  uint32_t published_count, published_cap;
  int64_t published_rooms; /* the Counter's count; -1 until set */
  rooms_op op;
  char op_name[TRESS_WIRE_NAME_CAP];
  uint64_t counter_retry_at_ms, list_retry_at_ms;
  uint32_t counter_backoff_ms, list_backoff_ms;
};

static uint32_t backoff_next(uint32_t ms, uint32_t min, uint32_t max) {
  if (ms < min) return min;
  return ms * 2 > max ? max : ms * 2;
}

/* ---- control: ready, label, gameserver --------------------------------------------------- */

static void apply_gameserver(tress_agones *a, const cJSON *gs);
static void health_schedule(tress_agones *a);
static void watch_open(tress_agones *a);
static void rooms_sync(tress_agones *a);
static void control_run(tress_agones *a);
static void control_retry(uv_timer_t *t) { control_run(t->data); }
static void watch_retry(uv_timer_t *t) { watch_open(t->data); }
static void rooms_retry(uv_timer_t *t) { rooms_sync(t->data); }

static const char *version_value(void) {
  const char *space = strrchr(TRESS_SERVER_VERSION, ' ');
  return space ? space + 1 : TRESS_SERVER_VERSION; /* a label value: no spaces */
}

static void control_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  (void)len;
  tress_agones *a = call->data;
  if (a->shutting_down) return;
  static const char *const names[] = {"ready", "label", "gameserver"};
  if (a->step == STEP_LABEL && status >= 400 && status < 500) {
    /* The sidecar refused the label itself: asking again cannot help, and the rest must go on. */
    char q[200];
    tress_log_event(&a->s->log, TRESS_LOG_WARN, "agones_label_refused", "status=%d answer=%s", status,
                    tress_log_quote(body ? body : "", q, sizeof q));
  } else if (status != 200) {
    a->control_attempts++;
    a->control_backoff_ms = backoff_next(a->control_backoff_ms, CONTROL_BACKOFF_MIN_MS, CONTROL_BACKOFF_MAX_MS);
    /* The first miss and then one line in ten: a sidecar that is late is normal, not news. */
    if (a->control_attempts == 1 || a->control_attempts % 10 == 0)
      tress_log_event(&a->s->log, TRESS_LOG_WARN, "agones_retry", "call=%s status=%d attempts=%u retry_ms=%u",
                      names[a->step], status, a->control_attempts, a->control_backoff_ms);
    uv_timer_start(&a->timers[TIMER_CONTROL], control_retry, a->control_backoff_ms, 0);
    return;
  } else {
    tress_log_event(&a->s->log, TRESS_LOG_INFO, "agones_call_ok", "call=%s attempts=%u", names[a->step],
                    a->control_attempts + 1);
  }
  a->control_attempts = 0;
  a->control_backoff_ms = 0;
  if (a->step == STEP_READY) {
    a->ready = true;
    watch_open(a);
    rooms_sync(a);
  } else if (a->step == STEP_GAMESERVER) {
    cJSON *gs = cJSON_Parse(body);
    apply_gameserver(a, gs);
    cJSON_Delete(gs);
  }
  a->step++;
  if (a->step != STEP_DONE) control_run(a);
}

static void control_run(tress_agones *a) {
  if (a->shutting_down || a->step == STEP_DONE) return;
  tress_agones_http_call *call = &a->calls[SLOT_CONTROL];
  int rc = -1;
  if (a->step == STEP_READY) {
    rc = tress_agones_http_start(call, "POST", "/ready", "{}", CONTROL_TIMEOUT_MS, control_done, NULL);
  } else if (a->step == STEP_LABEL) {
    char body[160];
    snprintf(body, sizeof body, "{\"key\":\"%s\",\"value\":\"%s\"}", TRESS_AGONES_VERSION_LABEL, version_value());
    rc = tress_agones_http_start(call, "PUT", "/metadata/label", body, CONTROL_TIMEOUT_MS, control_done, NULL);
  } else {
    rc = tress_agones_http_start(call, "GET", "/gameserver", NULL, CONTROL_TIMEOUT_MS, control_done, NULL);
  }
  if (rc != 0) uv_timer_start(&a->timers[TIMER_CONTROL], control_retry, CONTROL_BACKOFF_MAX_MS, 0);
}

/* ---- the GameServer: health period and state --------------------------------------------- */

static const cJSON *field(const cJSON *o, const char *snake, const char *camel) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, snake);
  return v ? v : cJSON_GetObjectItemCaseSensitive(o, camel); /* the gateway writes proto names; accept both */
}

/* The port of status.ports named TRESS_AGONES_PORT_NAME (the Fleet's), else the first; 0 = none yet. */
static uint16_t status_port(const cJSON *ports) {
  const cJSON *p, *first = NULL;
  cJSON_ArrayForEach(p, ports) {
    const cJSON *port = cJSON_GetObjectItemCaseSensitive(p, "port");
    if (!cJSON_IsNumber(port) || port->valuedouble < 1 || port->valuedouble > 65535) continue;
    if (!first) first = port;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
    if (name && strcmp(name, TRESS_AGONES_PORT_NAME) == 0) return (uint16_t)port->valuedouble;
  }
  return first ? (uint16_t)first->valuedouble : 0;
}

/* Under Agones the pod's name and the container port are not what clients reach: status.address
 * and the allocated port are. They are empty while Scheduled/Creating: the default stays until
 * then. An explicit advertise_address wins. */
static void apply_address(tress_agones *a, const cJSON *status) {
  if (a->s->cfg.advertise_address[0]) return;
  const char *host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "address"));
  uint16_t port = status_port(cJSON_GetObjectItemCaseSensitive(status, "ports"));
  /* no space, quote or '=': a host name or an IP, so the log line needs no quoting */
  if (!host || !host[0] || strpbrk(host, " \"=") || strlen(host) >= sizeof a->advertised_host || !port) return;
  if (strcmp(host, a->advertised_host) == 0 && port == a->advertised_port) return;
  snprintf(a->advertised_host, sizeof a->advertised_host, "%s", host);
  a->advertised_port = port;
  tress_room_lease_set_advertised(a->s->room_lease, host, port);
  tress_log_event(&a->s->log, TRESS_LOG_INFO, "agones_advertised", "address=%s:%u room_leases=%s", host, port,
                  a->s->room_lease ? "on" : "off");
}

static void apply_gameserver(tress_agones *a, const cJSON *gs) {
  if (!cJSON_IsObject(gs)) return;
  apply_address(a, cJSON_GetObjectItemCaseSensitive(gs, "status"));
  const cJSON *health = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gs, "spec"), "health");
  if (cJSON_IsObject(health)) {
    bool disabled = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(health, "disabled"));
    const cJSON *period = field(health, "period_seconds", "periodSeconds");
    uint32_t period_s = cJSON_IsNumber(period) && period->valuedouble >= 1 && period->valuedouble <= 3600
                            ? (uint32_t)period->valuedouble
                            : DEFAULT_HEALTH_PERIOD_S;
    if (disabled != a->health_disabled || period_s != a->health_period_s) {
      a->health_disabled = disabled;
      a->health_period_s = period_s;
      tress_log_event(&a->s->log, TRESS_LOG_INFO, "agones_health_period", "period_s=%u disabled=%s ping_ms=%u",
                      period_s, disabled ? "true" : "false", period_s * 500);
      health_schedule(a);
    }
  }
  const cJSON *state = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gs, "status"), "state");
  if (cJSON_IsString(state) && strcmp(state->valuestring, a->state) != 0) {
    snprintf(a->state, sizeof a->state, "%s", state->valuestring);
    char q[64];
    tress_log_event(&a->s->log, TRESS_LOG_INFO, "agones_state", "state=%s", tress_log_quote(a->state, q, sizeof q));
  }
}

/* ---- health ------------------------------------------------------------------------------ */

static void health_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  (void)body;
  (void)len;
  tress_agones *a = call->data;
  if (status == 200) {
    a->health_ok++;
    return;
  }
  if (a->health_failed++ == 0 || a->health_failed % 20 == 0)
    tress_log_event(&a->s->log, TRESS_LOG_WARN, "agones_health_failed", "status=%d failures=%llu", status,
                    (unsigned long long)a->health_failed);
}

static void health_ping(uv_timer_t *t) {
  tress_agones *a = t->data;
  /* A ping still in flight (a slow sidecar) makes this one redundant. */
  tress_agones_http_start(&a->calls[SLOT_HEALTH], "POST", "/health", "{}", a->health_period_s * 500, health_done,
                          NULL);
}

static void health_schedule(tress_agones *a) {
  uv_timer_stop(&a->timers[TIMER_HEALTH]);
  if (a->shutting_down || a->health_disabled) return;
  uint32_t every_ms = a->health_period_s * 500;
  uv_timer_start(&a->timers[TIMER_HEALTH], health_ping, every_ms, every_ms);
}

/* ---- watch ------------------------------------------------------------------------------- */

static void watch_line(tress_agones_http_call *call, const char *line, size_t len) {
  tress_agones *a = call->data;
  cJSON *msg = cJSON_ParseWithLength(line, len);
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
  if (result) a->watch_backoff_ms = 0; /* a working stream: the next reopen is quick */
  apply_gameserver(a, result);
  cJSON_Delete(msg);
}

static void watch_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  (void)body;
  (void)len;
  tress_agones *a = call->data;
  if (a->shutting_down) return;
  a->watch_backoff_ms = backoff_next(a->watch_backoff_ms, CONTROL_BACKOFF_MIN_MS, WATCH_BACKOFF_MAX_MS);
  tress_log_event(&a->s->log, TRESS_LOG_WARN, "agones_watch_ended", "status=%d reopen_ms=%u", status,
                  a->watch_backoff_ms);
  uv_timer_start(&a->timers[TIMER_WATCH], watch_retry, a->watch_backoff_ms, 0);
}

static void watch_open(tress_agones *a) {
  if (a->shutting_down) return;
  if (tress_agones_http_start(&a->calls[SLOT_WATCH], "GET", "/watch/gameserver", NULL, 0, watch_done, watch_line) != 0)
    uv_timer_start(&a->timers[TIMER_WATCH], watch_retry, WATCH_BACKOFF_MAX_MS, 0);
}

/* ---- rooms: the Counter and the List ----------------------------------------------------- */

static bool room_open(const tress_server *s, const char *name) {
  for (uint32_t i = 0; i < s->cfg.max_peers; i++)
    if (s->rooms[i].used && strcmp(s->rooms[i].name, name) == 0) return true;
  return false;
}

static int32_t published_index(const tress_agones *a, const char *name) {
  for (uint32_t i = 0; i < a->published_count; i++)
    if (strcmp(a->published[i], name) == 0) return (int32_t)i;
  return -1;
}

static void rooms_acknowledged(tress_agones *a) {
  if (a->op == OP_COUNTER) {
    a->published_rooms = strtoll(a->op_name, NULL, 10);
    a->counter_backoff_ms = 0;
    return;
  }
  a->list_backoff_ms = 0;
  int32_t at = published_index(a, a->op_name);
  if (a->op == OP_LIST_ADD && at < 0 && a->published_count < a->published_cap)
    snprintf(a->published[a->published_count++], TRESS_WIRE_NAME_CAP, "%s", a->op_name);
  if (a->op == OP_LIST_REMOVE && at >= 0) {
    memmove(a->published[at], a->published[at + 1], (a->published_count - (uint32_t)at - 1) * TRESS_WIRE_NAME_CAP);
    a->published_count--;
  }
}

static void rooms_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  (void)len;
  tress_agones *a = call->data;
  if (a->shutting_down) return;
  /* The List already in the wanted state: ALREADY_EXISTS (409) for an add, NOT_FOUND (404) for a
   * remove (a missing List holds no value either). */
  bool settled = status == 200 || (a->op == OP_LIST_ADD && status == 409) || (a->op == OP_LIST_REMOVE && status == 404);
  if (settled) {
    rooms_acknowledged(a);
  } else {
    bool counter = a->op == OP_COUNTER;
    uint32_t *backoff = counter ? &a->counter_backoff_ms : &a->list_backoff_ms;
    *backoff = backoff_next(*backoff, ROOMS_BACKOFF_MIN_MS, ROOMS_BACKOFF_MAX_MS);
    *(counter ? &a->counter_retry_at_ms : &a->list_retry_at_ms) = uv_now(a->s->loop) + *backoff;
    char q[200];
    tress_log_event(&a->s->log, TRESS_LOG_WARN, "agones_rooms_failed", "object=%s status=%d retry_ms=%u answer=%s",
                    counter ? "counter" : "list", status, *backoff, tress_log_quote(body ? body : "", q, sizeof q));
  }
  a->op = OP_NONE;
  rooms_sync(a);
}

static int rooms_send(tress_agones *a, rooms_op op, const char *path, cJSON *body) {
  char *json = cJSON_PrintUnformatted(body);
  cJSON_Delete(body);
  int rc = json ? tress_agones_http_start(&a->calls[SLOT_ROOMS], op == OP_COUNTER ? "PATCH" : "POST", path, json,
                                          CONTROL_TIMEOUT_MS, rooms_done, NULL)
                : -1;
  free(json);
  if (rc == 0) a->op = op;
  return rc;
}

static bool rooms_list_step(tress_agones *a) {
  tress_server *s = a->s;
  cJSON *body = cJSON_CreateObject();
  /* Removals first, so a List at capacity has room for the additions. */
  for (uint32_t i = 0; i < a->published_count; i++) {
    if (room_open(s, a->published[i])) continue;
    snprintf(a->op_name, sizeof a->op_name, "%s", a->published[i]);
    cJSON_AddStringToObject(body, "value", a->op_name);
    return rooms_send(a, OP_LIST_REMOVE, "/v1beta1/lists/" TRESS_AGONES_ROOMS ":removeValue", body) == 0;
  }
  for (uint32_t i = 0; i < s->cfg.max_peers; i++) {
    if (!s->rooms[i].used || published_index(a, s->rooms[i].name) >= 0) continue;
    snprintf(a->op_name, sizeof a->op_name, "%s", s->rooms[i].name);
    cJSON_AddStringToObject(body, "value", a->op_name);
    return rooms_send(a, OP_LIST_ADD, "/v1beta1/lists/" TRESS_AGONES_ROOMS ":addValue", body) == 0;
  }
  cJSON_Delete(body);
  return false;
}

static bool rooms_counter_step(tress_agones *a) {
  if (a->published_rooms == (int64_t)a->s->live_rooms) return false;
  cJSON *body = cJSON_CreateObject();
  snprintf(a->op_name, sizeof a->op_name, "%u", a->s->live_rooms); /* int64 travels as a JSON string */
  cJSON_AddStringToObject(body, "count", a->op_name); /* the capacity is the Fleet's: its packing policy */
  return rooms_send(a, OP_COUNTER, "/v1beta1/counters/" TRESS_AGONES_ROOMS, body) == 0;
}

static void rooms_sync(tress_agones *a) {
  if (!a->ready || a->shutting_down || a->op != OP_NONE) return;
  uint64_t now = uv_now(a->s->loop), next_retry = 0;
  if (now >= a->counter_retry_at_ms) {
    if (rooms_counter_step(a)) return;
  } else {
    next_retry = a->counter_retry_at_ms;
  }
  if (now >= a->list_retry_at_ms) {
    if (rooms_list_step(a)) return;
  } else if (!next_retry || a->list_retry_at_ms < next_retry) {
    next_retry = a->list_retry_at_ms;
  }
  if (next_retry) uv_timer_start(&a->timers[TIMER_ROOMS], rooms_retry, next_retry - now, 0);
}

void tress_agones_rooms_changed(tress_agones *a) {
  if (a) rooms_sync(a);
}

/* ---- start and shutdown ------------------------------------------------------------------ */

static void release(tress_agones *a) {
  if (--a->handles_open > 0) return;
  free(a->published);
  free(a);
}

static void timer_closed(uv_handle_t *h) { release(h->data); }
static void call_closed(tress_agones_http_call *call) { release(call->data); }

tress_agones *tress_agones_start(tress_server *s) {
  const char *v = getenv(TRESS_AGONES_PORT_ENV);
  if (!v || !*v) return NULL;
  char *end = NULL;
  unsigned long port = strtoul(v, &end, 10);
  if (*end != '\0' || port == 0 || port > 65535) {
    char q[80];
    tress_log_event(&s->log, TRESS_LOG_ERROR, "agones_disabled", "reason=bad_port value=%s action=standalone",
                    tress_log_quote(v, q, sizeof q));
    return NULL;
  }
  tress_agones *a = calloc(1, sizeof *a);
  if (a) a->published = calloc(s->cfg.max_peers, sizeof *a->published);
  if (!a || !a->published) {
    if (a) free(a);
    tress_log_event(&s->log, TRESS_LOG_ERROR, "agones_disabled", "reason=out_of_memory action=standalone");
    return NULL;
  }
  a->s = s;
  a->port = (uint16_t)port;
  a->published_cap = s->cfg.max_peers;
  a->published_rooms = -1;
  a->health_period_s = DEFAULT_HEALTH_PERIOD_S;
  for (int i = 0; i < SLOT_COUNT; i++) tress_agones_http_init(&a->calls[i], s->loop, a->port, a, call_closed);
  for (int i = 0; i < TIMER_COUNT; i++) {
    uv_timer_init(s->loop, &a->timers[i]);
    a->timers[i].data = a;
  }
  a->handles_open = SLOT_COUNT + TIMER_COUNT;
  tress_log_event(&s->log, TRESS_LOG_INFO, "agones_enabled", "sdk_port=%lu rooms=%s label=%s", port,
                  TRESS_AGONES_ROOMS, TRESS_AGONES_VERSION_LABEL);
  health_schedule(a); /* pings start now: the sidecar counts them from the container's start */
  control_run(a);
  return a;
}

static void close_all(tress_agones *a) {
  for (int i = 0; i < TIMER_COUNT; i++) {
    uv_timer_stop(&a->timers[i]);
    uv_close((uv_handle_t *)&a->timers[i], timer_closed);
  }
  for (int i = 0; i < SLOT_COUNT; i++) tress_agones_http_close(&a->calls[i]);
}

static void shutdown_done(tress_agones_http_call *call, int status, const char *body, size_t len) {
  (void)body;
  (void)len;
  tress_agones *a = call->data;
  tress_log_event(&a->s->log, status == 200 ? TRESS_LOG_INFO : TRESS_LOG_WARN, "agones_shutdown", "status=%d",
                  status);
  close_all(a);
}

void tress_agones_shutdown(tress_agones *a) {
  if (!a || a->shutting_down) return;
  a->shutting_down = true;
  for (int i = 0; i < TIMER_COUNT; i++) uv_timer_stop(&a->timers[i]);
  for (int i = 0; i < SLOT_COUNT; i++) tress_agones_http_cancel(&a->calls[i]);
  if (tress_agones_http_start(&a->calls[SLOT_FINAL], "POST", "/shutdown", "{}", SHUTDOWN_TIMEOUT_MS, shutdown_done,
                              NULL) != 0)
    close_all(a);
}
