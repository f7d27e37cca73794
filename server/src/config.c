/* Configuration
 * -------------
 * Every setting is one row of `config_fields`: its JSON key (snake_case), its type, where it
 * lives in tress_server_config and a line of help. The same row answers to the JSON file key
 * `max_peers`, the environment variable TRESS_MAX_PEERS and the flag --max-peers, so the three
 * sources can never drift apart. Precedence, lowest first: defaults, file, environment, flags.
 * The file comes from --config PATH (or TRESS_CONFIG); a missing explicitly named file is an
 * error, while no file at all is the normal case. Unknown keys, env names or flags are errors
 * too: a typo in an operator's config should stop the server, not be silently ignored. */
#include "config.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "host_port.h"
#include "redis_url.h"
#include "tress/file_read.h"

typedef enum field_type { FIELD_STR, FIELD_U32, FIELD_U64, FIELD_PORT } field_type;

typedef struct config_field {
  const char *key;
  field_type type;
  size_t offset;
  size_t size; /* for strings: capacity */
  const char *help;
} config_field;

#define STR_FIELD(k, h) {#k, FIELD_STR, offsetof(tress_server_config, k), sizeof(((tress_server_config *)0)->k), h}
#define U32_FIELD(k, h) {#k, FIELD_U32, offsetof(tress_server_config, k), 4, h}
#define U64_FIELD(k, h) {#k, FIELD_U64, offsetof(tress_server_config, k), 8, h}
#define PORT_FIELD(k, h) {#k, FIELD_PORT, offsetof(tress_server_config, k), 4, h}

static const config_field config_fields[] = {
    STR_FIELD(host, "ENet (UDP) bind address, and HTTP's unless http_host is set"),
    PORT_FIELD(udp_port, "ENet UDP port (0 = ephemeral); flag alias --port"),
    STR_FIELD(http_host, "HTTP ops endpoint bind address (empty = the same as host)"),
    PORT_FIELD(http_port, "HTTP ops endpoint port (0 = ephemeral)"),
    STR_FIELD(assets_dir, "asset store directory; flag alias --assets"),
    STR_FIELD(cache_dir, "rig cache directory; flag alias --cache"),
    STR_FIELD(port_file, "write \"udp=N http=N\" here once bound"),
    STR_FIELD(log_format, "text (key=value) or json"),
    STR_FIELD(log_level, "debug, info, warn or error"),
    STR_FIELD(ops_token, "/stats lists room names only to \"Authorization: Bearer <ops_token>\" (empty = to nobody)"),
    U32_FIELD(http_max_connections, "ops HTTP connections open at once"),
    U32_FIELD(http_max_connections_per_address, "ops HTTP connections open at once from one IP address"),
    U32_FIELD(http_idle_timeout_s, "an ops HTTP connection idle this many seconds is closed"),
    U32_FIELD(http_header_timeout_ms, "an ops HTTP request header not complete by then is cut, however slowly it trickles"),
    U32_FIELD(healthz_stale_ms, "/healthz answers 503 when the loop thread has not come round for this long"),
    STR_FIELD(auth_token, "shared secret HELLO must carry, development only (empty = none)"),
    STR_FIELD(join_key_file, "key file (64 hex digits) of signed join tokens (empty = none)"),
    U32_FIELD(token_clock_skew_seconds, "clock skew allowed on a join token's expiry"),
    U32_FIELD(max_token_lifetime_seconds, "a join token may expire at most this far ahead"),
    U32_FIELD(max_token_nonces, "used join tokens remembered (replay set; full = refuse new ones)"),
    U32_FIELD(max_peers, "connected peers"),
    U32_FIELD(max_peers_per_address, "connections (half-open ones too) from one IP address"),
    U32_FIELD(hello_timeout_ms, "a connection that has not sent HELLO by then is dropped"),
    U32_FIELD(max_room_peers, "peers per room"),
    U32_FIELD(max_characters_per_peer, "live characters one peer may own"),
    U32_FIELD(max_messages_per_second, "per-peer message rate"),
    U32_FIELD(max_bytes_per_second, "per-peer byte rate"),
    U32_FIELD(max_strikes, "bad messages before a disconnect"),
    U32_FIELD(max_peer_queued_bytes, "a JOIN's replay waits while a peer has this many bytes unacknowledged (at least the largest control message)"),
    U64_FIELD(cache_memory_bytes, "rig cache memory budget (LRU)"),
    U64_FIELD(cache_disk_bytes, "rig cache disk budget: least recently used files are deleted past it (0 = no limit)"),
    STR_FIELD(cache_url, "shared rig cache, redis://[user:password@]host[:port][/db] (empty = none)"),
    STR_FIELD(cache_namespace, "shared cache key prefix ([A-Za-z0-9_.-], fleets sharing one Redis differ here)"),
    U32_FIELD(cache_timeout_ms, "deadline of every Redis call; past it the server rigs locally (degraded)"),
    U32_FIELD(cache_lease_ms, "single-flight lease across servers (renewed while rigging)"),
    U32_FIELD(cache_wait_ms, "wait on another server's rig at most this long, then rig here"),
    U32_FIELD(cache_poll_ms, "a waiting server looks again about this often (jittered)"),
    STR_FIELD(advertise_address, "host:port clients reach this server at, sent in REDIRECT (empty = host, or the host name when host is a wildcard, and the bound UDP port; under Agones the GameServer's status.address and enet port once reported)"),
    U32_FIELD(room_lease_ms, "with cache_url: the lease that keeps a room on one server of the fleet (renewed every third)"),
    U64_FIELD(max_asset_bytes, "largest mesh file the store loads"),
    U32_FIELD(max_pending_rigs, "rig jobs queued or running"),
    U32_FIELD(max_rigs_per_peer, "rig jobs one peer's spawns may have in flight (survives reconnects)"),
    U32_FIELD(failed_rig_ttl_ms, "a failed rig is answered from memory, not re-read, this long (0 = off)"),
    U32_FIELD(shutdown_timeout_ms, "SIGTERM drain bound"),
    U32_FIELD(service_interval_ms, "ENet service timer period"),
};
#define FIELD_COUNT (sizeof config_fields / sizeof config_fields[0])

tress_server_config tress_default_server_config(void) {
  tress_server_config c;
  memset(&c, 0, sizeof c);
  snprintf(c.host, sizeof c.host, "0.0.0.0");
  c.udp_port = 7777;
  c.http_port = 8080;
  snprintf(c.assets_dir, sizeof c.assets_dir, "./assets");
  snprintf(c.cache_dir, sizeof c.cache_dir, "./.tress-cache");
  snprintf(c.log_format, sizeof c.log_format, "text");
  snprintf(c.log_level, sizeof c.log_level, "info");
  c.http_max_connections = 256;
  c.http_max_connections_per_address = 8;
  c.http_idle_timeout_s = 5;
  c.http_header_timeout_ms = 3000;
  c.healthz_stale_ms = 5000;
  c.token_clock_skew_seconds = 30;
  c.max_token_lifetime_seconds = 3600;
  c.max_token_nonces = 65536;
  c.max_peers = 512;
  c.max_peers_per_address = 32;
  c.hello_timeout_ms = 5000;
  c.max_room_peers = 64;
  c.max_characters_per_peer = 8;
  c.max_messages_per_second = 50;
  c.max_bytes_per_second = 256 * 1024;
  c.max_strikes = 8;
  c.max_peer_queued_bytes = TRESS_CONFIG_LARGEST_BULK_MESSAGE + TRESS_CONFIG_LARGEST_CONTROL_MESSAGE;
  c.cache_memory_bytes = 256ull * 1024 * 1024;
  c.cache_disk_bytes = 4ull * 1024 * 1024 * 1024;
  snprintf(c.cache_namespace, sizeof c.cache_namespace, "tress");
  c.cache_timeout_ms = 500;
  c.cache_lease_ms = 10000;
  c.cache_wait_ms = 30000;
  c.cache_poll_ms = 100;
  c.room_lease_ms = 10000;
  c.max_asset_bytes = 64ull * 1024 * 1024;
  c.max_pending_rigs = 256;
  c.max_rigs_per_peer = 4;
  c.failed_rig_ttl_ms = 60000;
  c.shutdown_timeout_ms = 10000;
  c.service_interval_ms = 10;
  return c;
}

static const config_field *field_by_key(const char *key) {
  for (size_t i = 0; i < FIELD_COUNT; i++)
    if (strcmp(config_fields[i].key, key) == 0) return &config_fields[i];
  return NULL;
}

static int set_from_string(tress_server_config *cfg, const config_field *f, const char *value, char *err) {
  char *base = (char *)cfg + f->offset;
  if (f->type == FIELD_STR) {
    if (strlen(value) >= f->size) {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "%s: value longer than %zu bytes", f->key, f->size - 1);
      return -1;
    }
    memcpy(base, value, strlen(value) + 1);
    return 0;
  }
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(value, &end, 10);
  if (errno || end == value || *end != '\0' || value[0] == '-') {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "%s: \"%s\" is not a non-negative integer", f->key, value);
    return -1;
  }
  if ((f->type == FIELD_PORT && v > 65535) || (f->type == FIELD_U32 && v > UINT32_MAX)) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "%s: %llu is out of range", f->key, v);
    return -1;
  }
  if (f->type == FIELD_U64) *(uint64_t *)base = v;
  else *(uint32_t *)base = (uint32_t)v;
  return 0;
}

int tress_server_config_apply_json(tress_server_config *cfg, const char *text, size_t len, const char *path,
                                   char err[TRESS_CONFIG_ERROR_MAX]) {
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!cJSON_IsObject(root)) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "config %s: not a JSON object", path);
    cJSON_Delete(root);
    return -1;
  }
  int rc = 0;
  for (cJSON *item = root->child; item && rc == 0; item = item->next) {
    const config_field *f = field_by_key(item->string);
    if (!f) {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "config %s: unknown key \"%s\"", path, item->string);
      rc = -1;
    } else if (f->type == FIELD_STR) {
      if (!cJSON_IsString(item)) {
        snprintf(err, TRESS_CONFIG_ERROR_MAX, "config %s: %s must be a string", path, f->key);
        rc = -1;
      } else rc = set_from_string(cfg, f, item->valuestring, err);
    } else {
      double d = cJSON_GetNumberValue(item);
      /* range first: casting a double past 2^64 (or NaN) to an integer is undefined */
      if (!cJSON_IsNumber(item) || !(d >= 0 && d < 18446744073709551616.0) || d != (double)(unsigned long long)d) {
        snprintf(err, TRESS_CONFIG_ERROR_MAX, "config %s: %s must be a non-negative integer", path, f->key);
        rc = -1;
      } else {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)d);
        rc = set_from_string(cfg, f, num, err);
      }
    }
  }
  cJSON_Delete(root);
  return rc;
}

static int load_file(tress_server_config *cfg, const char *path, char *err) {
  size_t len = 0;
  char *text = (char *)tress_file_read(path, 1 << 20, &len, NULL);
  if (!text) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "config %s: cannot read: %s", path, strerror(errno));
    return -1;
  }
  int rc = tress_server_config_apply_json(cfg, text, len, path, err);
  free(text);
  return rc;
}

/* "max_peers" -> "MAX_PEERS" or "max-peers". */
static void key_transform(const char *key, char *out, size_t cap, bool upper) {
  size_t i = 0;
  for (; key[i] && i + 1 < cap; i++)
    out[i] = upper ? (char)toupper((unsigned char)key[i]) : (key[i] == '_' ? '-' : key[i]);
  out[i] = '\0';
}

static const config_field *field_by_flag(const char *flag) {
  static const struct { const char *alias, *key; } aliases[] = {
      {"port", "udp_port"}, {"assets", "assets_dir"}, {"cache", "cache_dir"}};
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(flag, aliases[i].alias) == 0) return field_by_key(aliases[i].key);
  char name[64];
  for (size_t i = 0; i < FIELD_COUNT; i++) {
    key_transform(config_fields[i].key, name, sizeof name, false);
    if (strcmp(name, flag) == 0) return &config_fields[i];
  }
  return NULL;
}

/* The ops endpoint's limits: each non-zero (0 would mean "no limit" to libmicrohttpd, or a
 * /healthz that is never healthy), the per-address cap within the total. */
static int check_http_limits(const tress_server_config *cfg, char *err) {
  if (cfg->http_max_connections == 0 || cfg->http_max_connections_per_address == 0 || cfg->http_idle_timeout_s == 0 ||
      cfg->http_header_timeout_ms == 0 || cfg->healthz_stale_ms == 0) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "http limits, timeouts and healthz_stale_ms must be non-zero");
    return -1;
  }
  if (cfg->http_max_connections_per_address > cfg->http_max_connections || cfg->http_max_connections > 65536) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX,
             "http_max_connections must be 1..65536 and at least http_max_connections_per_address");
    return -1;
  }
  return 0;
}

static int check_shared_cache(const tress_server_config *cfg, char *err) {
  if (!cfg->cache_url[0]) return 0;
  tress_redis_url url;
  if (tress_redis_url_parse(cfg->cache_url, &url, err) != 0) return -1;
  size_t n = strlen(cfg->cache_namespace);
  if (n == 0 || strspn(cfg->cache_namespace, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != n) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "cache_namespace must be 1..63 of [A-Za-z0-9_.-]");
    return -1;
  }
  if (cfg->cache_timeout_ms == 0 || cfg->cache_poll_ms == 0 || cfg->cache_lease_ms < 300) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "cache_timeout_ms and cache_poll_ms must be non-zero, cache_lease_ms >= 300");
    return -1;
  }
  if (cfg->room_lease_ms < 300) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "room_lease_ms must be >= 300");
    return -1;
  }
  return 0;
}

tress_config_action tress_server_config_load(tress_server_config *cfg, int argc, char **argv, char **envp,
                                             char err[TRESS_CONFIG_ERROR_MAX]) {
  *cfg = tress_default_server_config();
  err[0] = '\0';
  tress_config_action action = TRESS_CONFIG_RUN;

  /* Pass 1: the config file path and the actions, so the file loads before env and flags. */
  const char *config_path = NULL;
  for (char **e = envp; e && *e; e++)
    if (strncmp(*e, "TRESS_CONFIG=", 13) == 0) config_path = *e + 13;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return TRESS_CONFIG_HELP;
    if (strcmp(argv[i], "--config") == 0) {
      if (i + 1 >= argc) {
        snprintf(err, TRESS_CONFIG_ERROR_MAX, "--config needs a path");
        return TRESS_CONFIG_ERROR;
      }
      config_path = argv[++i];
    } else if (strncmp(argv[i], "--config=", 9) == 0) {
      config_path = argv[i] + 9;
    }
  }
  if (config_path && config_path[0] && load_file(cfg, config_path, err) != 0) return TRESS_CONFIG_ERROR;

  /* Environment. */
  for (char **e = envp; e && *e; e++) {
    if (strncmp(*e, "TRESS_", 6) != 0) continue;
    const char *eq = strchr(*e, '=');
    if (!eq) continue;
    char name[96];
    size_t n = (size_t)(eq - (*e + 6));
    if (n >= sizeof name) continue;
    memcpy(name, *e + 6, n);
    name[n] = '\0';
    if (strcmp(name, "CONFIG") == 0) continue;
    char key_upper[96];
    for (size_t i = 0; i < FIELD_COUNT; i++) {
      key_transform(config_fields[i].key, key_upper, sizeof key_upper, true);
      if (strcmp(key_upper, name) == 0) {
        if (set_from_string(cfg, &config_fields[i], eq + 1, err) != 0) return TRESS_CONFIG_ERROR;
        break;
      }
    }
    /* Other TRESS_* variables belong to other programs (tests, the client): ignore them. */
  }

  /* Flags: --name value or --name=value. */
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--config") == 0) { i++; continue; }
    if (strncmp(arg, "--config=", 9) == 0) continue;
    if (strcmp(arg, "--print-config") == 0) { action = TRESS_CONFIG_PRINT; continue; }
    if (strcmp(arg, "--health-check") == 0) { action = TRESS_CONFIG_HEALTH_CHECK; continue; }
    if (strncmp(arg, "--", 2) != 0) {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "unexpected argument \"%s\" (see --help)", arg);
      return TRESS_CONFIG_ERROR;
    }
    char flag[96];
    const char *value = NULL;
    const char *eq = strchr(arg + 2, '=');
    size_t n = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
    if (n >= sizeof flag) n = sizeof flag - 1;
    memcpy(flag, arg + 2, n);
    flag[n] = '\0';
    const config_field *f = field_by_flag(flag);
    if (!f) {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "unknown flag --%s (see --help)", flag);
      return TRESS_CONFIG_ERROR;
    }
    if (eq) value = eq + 1;
    else if (i + 1 < argc) value = argv[++i];
    else {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "--%s needs a value", flag);
      return TRESS_CONFIG_ERROR;
    }
    if (set_from_string(cfg, f, value, err) != 0) return TRESS_CONFIG_ERROR;
  }

  if (strcmp(cfg->log_format, "text") != 0 && strcmp(cfg->log_format, "json") != 0) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "log_format must be text or json, not \"%s\"", cfg->log_format);
    return TRESS_CONFIG_ERROR;
  }
  if (strcmp(cfg->log_level, "debug") && strcmp(cfg->log_level, "info") && strcmp(cfg->log_level, "warn") &&
      strcmp(cfg->log_level, "error")) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "log_level must be debug, info, warn or error");
    return TRESS_CONFIG_ERROR;
  }
  if (cfg->auth_token[0] && cfg->join_key_file[0]) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "auth_token (development) and join_key_file exclude each other: set one");
    return TRESS_CONFIG_ERROR;
  }
  if (cfg->max_token_nonces == 0 || cfg->max_token_nonces > (1u << 24) || cfg->max_token_lifetime_seconds == 0) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "max_token_nonces must be 1..16777216 and max_token_lifetime_seconds non-zero");
    return TRESS_CONFIG_ERROR;
  }
  if (cfg->max_peers == 0 || cfg->max_peers > 4095 - TRESS_CONFIG_FULL_RESERVE) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "max_peers must be 1..%u (ENet's peer limit less the SERVER_FULL reserve)",
             4095 - TRESS_CONFIG_FULL_RESERVE);
    return TRESS_CONFIG_ERROR;
  }
  if (cfg->max_room_peers == 0 || cfg->max_room_peers > 256) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "max_room_peers must be 1..256 (the wire's room limit)");
    return TRESS_CONFIG_ERROR;
  }
  if (cfg->max_characters_per_peer == 0 || cfg->max_characters_per_peer > 65535 || cfg->max_messages_per_second == 0 ||
      cfg->max_bytes_per_second == 0 || cfg->service_interval_ms == 0 || cfg->max_pending_rigs == 0 ||
      cfg->max_rigs_per_peer == 0 || cfg->max_peers_per_address == 0 || cfg->hello_timeout_ms == 0) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "limits and intervals must be non-zero");
    return TRESS_CONFIG_ERROR;
  }
  /* Below one control message the pacing would only ever send on an empty queue. A larger
   * RIG_RESULT still goes when the peer's queue is empty, so the cap never stalls a replay. */
  if (cfg->max_peer_queued_bytes < TRESS_CONFIG_LARGEST_CONTROL_MESSAGE) {
    snprintf(err, TRESS_CONFIG_ERROR_MAX, "max_peer_queued_bytes must be at least %u (the largest control message)",
             TRESS_CONFIG_LARGEST_CONTROL_MESSAGE);
    return TRESS_CONFIG_ERROR;
  }
  if (check_http_limits(cfg, err) != 0) return TRESS_CONFIG_ERROR;
  if (check_shared_cache(cfg, err) != 0) return TRESS_CONFIG_ERROR;
  if (cfg->advertise_address[0]) {
    char host[256];
    uint16_t port;
    if (tress_host_port_parse(cfg->advertise_address, host, sizeof host, &port) != 0) {
      snprintf(err, TRESS_CONFIG_ERROR_MAX, "advertise_address must be host:port ([v6]:port for IPv6), not \"%.100s\"",
               cfg->advertise_address);
      return TRESS_CONFIG_ERROR;
    }
  }
  return action;
}

void tress_server_config_print_help(FILE *out) {
  tress_server_config d = tress_default_server_config();
  fprintf(out,
          "usage: tress-server [--config FILE] [--FLAG VALUE ...] [--print-config] [--health-check]\n"
          "\n"
          "The rig server: rigs each character's hair once per session on a thread pool and\n"
          "replicates the baked skeleton to every client in the room over ENet.\n"
          "\n"
          "Settings come from defaults, then the JSON file (--config or TRESS_CONFIG), then\n"
          "TRESS_<KEY> environment variables, then flags. Each setting:\n\n");
  char flag[64], env[64], def[TRESS_CONFIG_PATH_MAX + 8];
  for (size_t i = 0; i < FIELD_COUNT; i++) {
    const config_field *f = &config_fields[i];
    const char *base = (const char *)&d + f->offset;
    key_transform(f->key, flag, sizeof flag, false);
    key_transform(f->key, env, sizeof env, true);
    if (f->type == FIELD_STR) snprintf(def, sizeof def, "\"%s\"", base);
    else if (f->type == FIELD_U64) snprintf(def, sizeof def, "%llu", (unsigned long long)*(const uint64_t *)base);
    else snprintf(def, sizeof def, "%u", *(const uint32_t *)base);
    fprintf(out, "  --%-26s TRESS_%-26s %s (default %s)\n", flag, env, f->help, def);
  }
  fprintf(out,
          "\n  --print-config               print the effective config as JSON and exit\n"
          "  --health-check               GET /healthz on http_host (or host; 0.0.0.0 = 127.0.0.1):http_port (0: the port in\n"
          "                               port_file); exit 0 if healthy, else 1\n"
          "  --help                       this text\n"
          "\nSIGTERM or SIGINT drains: clients are told, rig jobs finish or are cancelled, exit 0.\n");
}

char *tress_server_config_to_json(const tress_server_config *cfg) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  for (size_t i = 0; i < FIELD_COUNT; i++) {
    const config_field *f = &config_fields[i];
    const char *base = (const char *)cfg + f->offset;
    if (strcmp(f->key, "auth_token") == 0 || strcmp(f->key, "ops_token") == 0) {
      char set_key[32];
      snprintf(set_key, sizeof set_key, "%s_set", f->key);
      cJSON_AddBoolToObject(root, set_key, base[0] != '\0'); /* never print secrets */
      continue;
    }
    if (strcmp(f->key, "cache_url") == 0) {
      char redacted[sizeof cfg->cache_url + 8];
      tress_redis_url_redact(base, redacted, sizeof redacted);
      cJSON_AddStringToObject(root, f->key, redacted);
      continue;
    }
    if (f->type == FIELD_STR) cJSON_AddStringToObject(root, f->key, base);
    else if (f->type == FIELD_U64) cJSON_AddNumberToObject(root, f->key, (double)*(const uint64_t *)base);
    else cJSON_AddNumberToObject(root, f->key, *(const uint32_t *)base);
  }
  char *s = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  return s;
}
