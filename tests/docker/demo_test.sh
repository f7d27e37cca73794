#!/usr/bin/env bash
# demo_test.sh SOURCE_DIR BUILD_DIR - scripts/demo in the test suite: a short run on ephemeral
# ports against this build must exit 0 (server healthy, both bots bound, tips agreeing, clean
# drain), print its summary, write both pictures and leave no process behind; a demo stopped
# with SIGTERM mid-run must stop its server and bots too.
set -uo pipefail
SRC=$1
BUILD=$(cd "$2" && pwd)
WORK="$BUILD/tests/docker/demo-test"
rm -rf "$WORK"
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

leftovers() { # processes whose command line names this run's output dir (the server's and bots')
  pgrep -f -- "$1/" || true
}
port_answers() { curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; }

# ---- a whole short run -----------------------------------------------------------------------------
OUT="$WORK/run"
TRESS_DEMO_BUILD_DIR="$BUILD" TRESS_DEMO_EPHEMERAL=1 TRESS_DEMO_SECONDS=${TRESS_DEMO_TEST_SECONDS:-5} \
  TRESS_DEMO_OUT="$OUT" bash "$SRC/scripts/demo" >"$WORK/run.log" 2>&1
rc=$?
cat "$WORK/run.log"
[ "$rc" -eq 0 ] || fail "scripts/demo exited $rc"
for line in "rig      meshes/" "bytes received: rig/bind phase" "agree: largest distance" "demo: ok"; do
  grep -q -- "$line" "$WORK/run.log" || fail "the summary has no '$line'"
done
for fps in 30 240; do
  head -c 8 "$OUT/sway_${fps}fps.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "no PNG picture at $fps fps"
done
HTTP_PORT=$(sed -n 's/.*http=\([0-9]*\).*/\1/p' "$OUT/ports")
[ -n "$HTTP_PORT" ] || fail "no port file"
port_answers "$HTTP_PORT" && fail "the server still answers on $HTTP_PORT after the demo"
[ -z "$(leftovers "$OUT")" ] || fail "processes left behind: $(leftovers "$OUT")"

# ---- stopped mid-run -------------------------------------------------------------------------------
OUT="$WORK/stopped"
TRESS_DEMO_BUILD_DIR="$BUILD" TRESS_DEMO_EPHEMERAL=1 TRESS_DEMO_SECONDS=30 TRESS_DEMO_OUT="$OUT" \
  bash "$SRC/scripts/demo" >"$WORK/stopped.log" 2>&1 &
DEMO_PID=$!
for _ in $(seq 600); do
  [ -n "$(pgrep -f -- "$OUT/sway_30fps")" ] && break # the last process the demo starts
  kill -0 "$DEMO_PID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$(pgrep -f -- "$OUT/sway_30fps")" ] || { cat "$WORK/stopped.log"; kill "$DEMO_PID" 2>/dev/null; fail "the demo never started its bots"; }
HTTP_PORT=$(sed -n 's/.*http=\([0-9]*\).*/\1/p' "$OUT/ports")
kill -TERM "$DEMO_PID"
wait "$DEMO_PID"
rc=$?
[ "$rc" -ne 0 ] || fail "a demo stopped by SIGTERM exited 0"
sleep 0.2
[ -z "$(leftovers "$OUT")" ] || fail "a stopped demo left processes behind: $(leftovers "$OUT")"
port_answers "$HTTP_PORT" && fail "the server still answers on $HTTP_PORT after the demo was stopped"
rm -rf "$WORK"
echo "demo test: ok"
