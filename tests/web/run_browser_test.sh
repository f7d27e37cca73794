#!/usr/bin/env bash
# run_browser_test.sh PAGE_DIR TUNER_TRACE - builds the live tuning page into PAGE_DIR
# (scripts/build-web) and runs the headless Chromium test on it. Exits 77 (ctest: skipped) with
# the reason when emscripten, Chromium, node or the page's npm packages are missing.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
skip() { echo "SKIPPED: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (bash scripts/setup)"
command -v emcc >/dev/null || skip "emscripten is not installed (apt-get install emscripten, or bash scripts/setup)"
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || skip "Chromium is not installed (apt-get install chromium)"
[ -f "$ROOT/client/web/node_modules/ws/package.json" ] || (cd "$ROOT/client/web" && npm ci --no-audit --no-fund --silent) ||
  skip "client/web's npm packages (three, ws) could not be installed"
bash "$ROOT/scripts/build-web" "$1" > "$1.build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  cat "$1.build.log"
  exit $rc
fi
exec node "$ROOT/tests/web/browser_test.mjs" --page "$1" --trace "$2"
