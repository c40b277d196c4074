#!/usr/bin/env bash
# The real-window smoke test under a private Xvfb: builds the app with the bundled UI
# (`--features custom-protocol`, a no-op when it is up to date), starts Xvfb on a free display,
# runs tests/window/smoke.py against it, and stops Xvfb by PID afterwards, pass or fail.
#
# Usage: tests/window/run.sh [smoke.py options]      e.g. --keep, --driver tauri-driver
#
# Environment:
#   TACK_APP_BIN         use this app binary and skip the build (it must have custom-protocol)
#   TACK_LOCAL_LLM_URL   the local model server (default http://127.0.0.1:8082/v1)
#   TACK_WINDOW_SIZE     Xvfb screen, default 1440x900x24 (the window opens at 1280x820)
#
# Prints `skipped: …` and exits 0 when Xvfb, WebKitWebDriver, cargo or the local model is
# missing; exits non-zero when the smoke test fails.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly ROOT
cd "$ROOT"

say() { printf '[window] %s\n' "$*" >&2; }

command -v Xvfb >/dev/null || { echo "skipped: no Xvfb (apt-get install xvfb)"; exit 0; }
command -v WebKitWebDriver >/dev/null || { echo "skipped: no WebKitWebDriver (apt-get install webkit2gtk-driver)"; exit 0; }

if [[ -z "${TACK_APP_BIN:-}" ]]; then
  command -v cargo >/dev/null || { echo "skipped: no cargo to build the app (or set TACK_APP_BIN)"; exit 0; }
  [[ -d ui/dist ]] || { say "ui/dist is missing: run npm run build in ui/ first"; exit 1; }
  say "building the app with the bundled UI"
  cargo build -p tack-app --features custom-protocol
  # target/debug/tack-app is also what a plain `cargo build` (dev server URL, no bundled UI)
  # writes: run a copy, so a build next door can't swap the binary under the test.
  mkdir -p target/window-smoke
  cp target/debug/tack-app target/window-smoke/tack-app.new
  mv -f target/window-smoke/tack-app.new target/window-smoke/tack-app
  export TACK_APP_BIN="$ROOT/target/window-smoke/tack-app"
fi

XVFB_PID=
SMOKE_PID=
FD_FILE=$(mktemp)
cleanup() {
  # The smoke test stops what it started (driver, app, WebKit) when it gets SIGTERM.
  if [[ -n "$SMOKE_PID" ]] && kill -0 "$SMOKE_PID" 2>/dev/null; then
    kill "$SMOKE_PID" 2>/dev/null || true
    wait "$SMOKE_PID" 2>/dev/null || true
  fi
  if [[ -n "$XVFB_PID" ]]; then
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
  fi
  rm -f "$FD_FILE"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -displayfd: Xvfb picks a free display number and writes it to fd 3 once it accepts clients.
Xvfb -displayfd 3 -screen 0 "${TACK_WINDOW_SIZE:-1440x900x24}" -nolisten tcp 3>"$FD_FILE" >/dev/null 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 100); do
  [[ -s "$FD_FILE" ]] && break
  kill -0 "$XVFB_PID" 2>/dev/null || { say "Xvfb exited before it was ready"; exit 1; }
  sleep 0.1
done
DISPLAY_NUMBER=$(tr -dc '0-9' <"$FD_FILE")
[[ -n "$DISPLAY_NUMBER" ]] || { say "Xvfb did not report a display"; exit 1; }
say "Xvfb on :$DISPLAY_NUMBER (pid $XVFB_PID)"

DISPLAY=":$DISPLAY_NUMBER" python3 tests/window/smoke.py "$@" &
SMOKE_PID=$!
status=0
wait "$SMOKE_PID" || status=$?
SMOKE_PID=
exit "$status"
