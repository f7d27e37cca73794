/* config.h - tress-server settings: built-in defaults, then a JSON file, then TRESS_* environment
 * variables, then command-line flags. One table names every setting for all three sources. */
#ifndef TRESS_SERVER_CONFIG_H
#define TRESS_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRESS_CONFIG_PATH_MAX 1024
#define TRESS_CONFIG_ERROR_MAX 256
/* ENet slots beyond max_peers: a connection that lands there is told REJECT SERVER_FULL and let
 * go, instead of ENet ignoring its CONNECT and the client timing out without knowing why. */
#define TRESS_CONFIG_FULL_RESERVE 32

typedef enum tress_log_format {
  TRESS_LOG_FORMAT_TEXT = 0, /* key=value (logfmt) */
  TRESS_LOG_FORMAT_JSON = 1, /* one JSON object per line */
} tress_log_format;

/* The protocol's largest messages (msg.h's TRESS_WIRE_MAX_*_MESSAGE_BYTES, which replay.c checks
 * these against): the config library does not link the protocol. */
#define TRESS_CONFIG_LARGEST_CONTROL_MESSAGE (64u * 1024u)
#define TRESS_CONFIG_LARGEST_BULK_MESSAGE (8u * 1024u * 1024u)

typedef struct tress_server_config {
  char host[64];                        /* ENet (UDP) bind address; HTTP's too unless http_host is set */
  uint32_t udp_port;                    /* 7777; 0 = ephemeral */
  char http_host[64];                   /* ops HTTP bind address; "" = the same as host */
  uint32_t http_port;                   /* 8080; 0 = ephemeral */
  char assets_dir[TRESS_CONFIG_PATH_MAX];
  char cache_dir[TRESS_CONFIG_PATH_MAX];
  char port_file[TRESS_CONFIG_PATH_MAX];/* "" = none; else "udp=N http=N" written after binding */
  char log_format[8];                   /* "text" | "json" */
  char log_level[8];                    /* "debug" | "info" | "warn" | "error" */
  char ops_token[256];                  /* /stats shows room names only to "Authorization: Bearer <it>"; "" = to nobody */
  uint32_t http_max_connections;        /* ops HTTP connections open at once */
  uint32_t http_max_connections_per_address; /* ... of them from one IP address */
  uint32_t http_idle_timeout_s;         /* an HTTP connection silent this long is closed (libmicrohttpd: seconds) */
  uint32_t http_header_timeout_ms;      /* a request whose header is not complete by then is cut, however it trickles */
  uint32_t healthz_stale_ms;            /* /healthz answers 503 when the loop thread's heartbeat is older */
  char auth_token[256];                 /* shared development secret; "" = none */
  char join_key_file[TRESS_CONFIG_PATH_MAX]; /* signed join tokens' key (64 hex digits); "" = none */
  uint32_t token_clock_skew_seconds;    /* a token's expiry is honoured this much either way */
  uint32_t max_token_lifetime_seconds;  /* a token expiring further ahead is refused */
  uint32_t max_token_nonces;            /* used-token nonces remembered until expiry (the replay set) */
  uint32_t max_peers;
  uint32_t max_peers_per_address;       /* ENet connections (half-open ones too) from one IP */
  uint32_t hello_timeout_ms;            /* a peer (or ENet handshake) without HELLO by then is dropped */
  uint32_t max_room_peers;
  uint32_t max_characters_per_peer;
  uint32_t max_peer_queued_bytes; /* a replay sends while the peer's unacknowledged bytes stay under it */
  uint32_t max_messages_per_second;     /* token bucket, burst = 2 s worth */
  uint32_t max_bytes_per_second;
  uint32_t max_strikes;                 /* malformed / over-limit messages before a disconnect */
  uint64_t cache_memory_bytes;          /* rig cache byte budget (LRU) */
  uint64_t cache_disk_bytes;            /* disk rig cache byte budget (LRU by last use; 0 = no limit) */
  char cache_url[512];                  /* "" = no shared tier; redis://[user:password@]host[:port][/db] */
  char cache_namespace[64];             /* the shared tier's key prefix */
  uint32_t cache_timeout_ms;            /* every Redis call's deadline */
  uint32_t cache_lease_ms;              /* single-flight lease across servers */
  uint32_t cache_wait_ms;               /* wait on another server's lease at most this long, then rig */
  uint32_t cache_poll_ms;               /* a waiter's mean interval between looks */
  char advertise_address[128];          /* host:port clients reach this server at (REDIRECT); "" = from the bind */
  uint32_t room_lease_ms;               /* one room on one server: the room's lease in Redis (renewed every third) */
  uint64_t max_asset_bytes;             /* a mesh file larger than this is refused */
  uint32_t max_pending_rigs;            /* rig jobs queued or running at once */
  uint32_t max_rigs_per_peer;           /* rig jobs one peer's spawns may have in flight */
  uint32_t failed_rig_ttl_ms;           /* a failed rig is answered from memory this long (0 = never) */
  uint32_t shutdown_timeout_ms;         /* SIGTERM drain bound */
  uint32_t service_interval_ms;         /* ENet service timer (retransmits, pings) */
} tress_server_config;

tress_server_config tress_default_server_config(void);

typedef enum tress_config_action {
  TRESS_CONFIG_RUN = 0,
  TRESS_CONFIG_HELP,          /* --help */
  TRESS_CONFIG_PRINT,         /* --print-config: the effective config as JSON */
  TRESS_CONFIG_HEALTH_CHECK,  /* --health-check: GET /healthz on http_host (or host):http_port */
  TRESS_CONFIG_ERROR,
} tress_config_action;

/* Builds the effective config: defaults, the --config / TRESS_CONFIG file, TRESS_* env, flags.
 * envp is the environment (NULL-terminated). On TRESS_CONFIG_ERROR err says why. */
tress_config_action tress_server_config_load(tress_server_config *cfg, int argc, char **argv, char **envp,
                                             char err[TRESS_CONFIG_ERROR_MAX]);
/* Applies one config file's JSON text (named `path` in errors) over cfg: 0, or -1 with err. */
int tress_server_config_apply_json(tress_server_config *cfg, const char *text, size_t len, const char *path,
                                   char err[TRESS_CONFIG_ERROR_MAX]);
void tress_server_config_print_help(FILE *out);
/* Heap string (free()) with the config as one JSON object. */
char *tress_server_config_to_json(const tress_server_config *cfg);

#endif
