#!/usr/bin/env bash
# image_test.sh SOURCE_DIR BUILD_DIR - builds docker/Dockerfile with docker or podman and checks
# the container: it runs as the non-root user, answers /healthz, passes its own HEALTHCHECK
# command, rigs for a tress-bot on the host and for the image's own tress-bot (baked sample
# assets), and exits 0 on `stop` (SIGTERM to tress-server as PID 1). Host networking and
# ephemeral ports: the server writes its ports to a file in a mounted directory.
# Where no engine can build and run images it prints "SKIPPED: test_docker_image: <why>" and
# exits 77 (ctest's SKIP_RETURN_CODE), as it does with TRESS_SKIP_IMAGE_TEST=1.
# TRESS_CONTAINER_ENGINE=docker|podman picks the engine.
set -uo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
NAME=test_docker_image
IMAGE=localhost/tress-server:ctest
CONTAINER=tress-ctest-$$
BASE=debian:bookworm-slim
skip() { echo "SKIPPED: $NAME: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -n "${ENGINE:-}" ] && "$ENGINE" logs "$CONTAINER" 2>&1 | tail -30; exit 1; }

[ "${TRESS_SKIP_IMAGE_TEST:-0}" = 1 ] && skip "TRESS_SKIP_IMAGE_TEST=1"

# ---- an engine that can run a container here ---------------------------------------------------------
ENGINE=
ENGINE_ARGS=()
engine_runs() { "$ENGINE" run --rm --network=host "${ENGINE_ARGS[@]}" "$BASE" true >/dev/null 2>&1; }
candidates=(${TRESS_CONTAINER_ENGINE:-docker podman})
for e in "${candidates[@]}"; do
  command -v "$e" >/dev/null 2>&1 || continue
  "$e" info >/dev/null 2>&1 || continue
  ENGINE=$e
  ENGINE_ARGS=()
  engine_runs && break
  if [ "$e" = podman ] && command -v runc >/dev/null 2>&1; then
    # crun refuses some hybrid cgroup v1/v2 hosts where runc works; a sandbox without
    # CAP_SYS_RESOURCE refuses podman's default nofile limit, so ask for what the shell has.
    hn=$(ulimit -Hn); [ "$hn" = unlimited ] && hn=1048576
    hu=$(ulimit -Hu); { [ "$hu" = unlimited ] || [ "$hu" -gt 32768 ]; } && hu=32768
    ENGINE_ARGS=(--runtime runc --ulimit "nofile=$hn:$hn" --ulimit "nproc=$hu:$hu")
    engine_runs && break
  fi
  ENGINE=
done
[ -n "$ENGINE" ] || skip "no docker or podman here that can run a $BASE container (engine, runtime or base image missing)"
BUILD_ARGS=()
HEALTH_FIELD='{{json .Config.Healthcheck}}'
if [ "$ENGINE" = podman ]; then
  # The same --runtime and --ulimit; the docker format, since OCI images drop HEALTHCHECK.
  BUILD_ARGS=(--format docker "${ENGINE_ARGS[@]}")
  HEALTH_FIELD='{{json .HealthCheck}}'
fi
echo "$NAME: engine $ENGINE ${ENGINE_ARGS[*]}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tress-image-test.XXXXXX")
cleanup() {
  "$ENGINE" rm -f "$CONTAINER" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- build -----------------------------------------------------------------------------------------------
t0=$(date +%s)
if ! "$ENGINE" build --network=host "${BUILD_ARGS[@]}" -f "$SRC/docker/Dockerfile" -t "$IMAGE" "$SRC" \
     >"$WORK/build.log" 2>&1; then
  tail -40 "$WORK/build.log"
  fail "$ENGINE build failed"
fi
echo "$NAME: image built in $(( $(date +%s) - t0 )) s"

# ---- run with ephemeral ports -----------------------------------------------------------------------------
mkdir -p "$WORK/run" && chmod 0777 "$WORK/run" # the image's user (uid 10001) writes the port file
"$ENGINE" run -d --name "$CONTAINER" --network=host "${ENGINE_ARGS[@]}" \
  -e TRESS_UDP_PORT=0 -e TRESS_HTTP_PORT=0 -e TRESS_PORT_FILE=/run/tress-test/ports -v "$WORK/run:/run/tress-test" \
  "$IMAGE" >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log"; fail "$ENGINE run failed"; }
for _ in $(seq 300); do
  [ -s "$WORK/run/ports" ] && break
  [ "$("$ENGINE" inspect -f '{{.State.Running}}' "$CONTAINER" 2>/dev/null)" = true ] || break
  sleep 0.1
done
[ -s "$WORK/run/ports" ] || fail "the container wrote no port file"
UDP_PORT=$(sed -n 's/.*udp=\([0-9]*\).*/\1/p' "$WORK/run/ports")
HTTP_PORT=$(sed -n 's/.*http=\([0-9]*\).*/\1/p' "$WORK/run/ports")

uid=$("$ENGINE" exec "$CONTAINER" id -u) || fail "exec id -u failed"
[ "$uid" != 0 ] || fail "the server runs as root"
body=$(curl -fsS --max-time 5 "http://127.0.0.1:$HTTP_PORT/healthz") || fail "/healthz did not answer on $HTTP_PORT"
echo "$NAME: /healthz answered '$body' (uid $uid)"
# The image's HEALTHCHECK command, run the way the engine runs it (inside the container).
hc=$("$ENGINE" image inspect -f "$HEALTH_FIELD" "$IMAGE")
case "$hc" in *tress-server*--health-check*) ;; *) fail "unexpected HEALTHCHECK $hc" ;; esac
"$ENGINE" exec "$CONTAINER" tress-server --health-check || fail "the HEALTHCHECK command failed in the container"

# A bot on the host (this build) and the image's own bot with the baked sample assets.
"$BUILD/client/bot/tress-bot" --server "127.0.0.1:$UDP_PORT" --room ctest --manifest "$SRC/assets/characters/ava.json" \
  --assets "$SRC/assets" --duration 2 --json >"$WORK/bot_host.json" 2>&1 || { cat "$WORK/bot_host.json"; fail "host tress-bot failed"; }
grep -q '"rigs_applied":[[:space:]]*[1-9]' "$WORK/bot_host.json" || { cat "$WORK/bot_host.json"; fail "host tress-bot applied no rig"; }
"$ENGINE" run --rm --network=host "${ENGINE_ARGS[@]}" --entrypoint tress-bot "$IMAGE" --server "127.0.0.1:$UDP_PORT" \
  --room ctest --manifest /srv/tress/assets/characters/kit.json --assets /srv/tress/assets --duration 2 --json \
  >"$WORK/bot_image.json" 2>&1 || { cat "$WORK/bot_image.json"; fail "the image's tress-bot failed"; }
grep -q '"rigs_applied":[[:space:]]*[1-9]' "$WORK/bot_image.json" || { cat "$WORK/bot_image.json"; fail "the image's tress-bot applied no rig"; }
stats=$(curl -fsS --max-time 5 "http://127.0.0.1:$HTTP_PORT/stats") || fail "/stats did not answer"
echo "$NAME: bots bound; server /stats: $stats"

# ---- SIGTERM to PID 1 --------------------------------------------------------------------------------------
"$ENGINE" stop -t 20 "$CONTAINER" >/dev/null || fail "$ENGINE stop failed"
code=$("$ENGINE" inspect -f '{{.State.ExitCode}}' "$CONTAINER")
[ "$code" = 0 ] || fail "tress-server exited $code on SIGTERM as PID 1"
"$ENGINE" logs "$CONTAINER" 2>&1 | grep -q '"shutdown_complete"\|event=shutdown_complete' || fail "no shutdown_complete in the logs"
echo "$NAME: ok (stopped with exit 0)"
