#!/usr/bin/env bash
# Tack's whole test suite: the command the README gives and the one CI (.ci/run) runs.
#
# Stages, in order, stopping at the first failure:
#   setup        scripts/setup.sh (system packages, ui/node_modules, the local model; idempotent)
#   deps         cargo machete: no crate declares a dependency its code does not use
#   ui build     npm run build in ui/ (src-tauri embeds ui/dist, so it must exist first)
#   local model  scripts/local-llm.sh ensure: llama.cpp + SmolLM2-135M on 127.0.0.1
#   rust         cargo nextest run --workspace with TACK_LOCAL_LLM=1 (cargo test without nextest)
#   keychain     the keychain tests again, under a real Secret Service (see KEYCHAIN_TESTS)
#   ui tests     npm test in ui/ (tsc over app and test files, ESLint, vitest), when package.json
#                has a "test" script
#   ui flows     npm run test:e2e:built in ui/ (headless Chromium, on the ui/dist built above),
#                else npm run test:e2e, when that script exists
#   window       the real-window smoke test under Xvfb (see WINDOW_SMOKE)
#
# Arguments, if any, replace `--workspace` in the Rust stage: `scripts/test.sh -p tack-wire`.
# The local model server is stopped at the end if this script started it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# HOOK: keychain tests. Cargo test-runner arguments selecting the tests that need a real Secret
# Service, e.g. (-p tack-engine --test keychain). They run a second time inside a private D-Bus
# session with an unlocked gnome-keyring, with TACK_KEYCHAIN_E2E=1 set; in the main run that
# variable is unset and those tests should skip themselves. Empty: the stage is skipped.
KEYCHAIN_TESTS=(-p tack-engine --test keychain)
# Real-window smoke test: tests/window/run.sh builds the app with the bundled UI, starts its
# own Xvfb on a free display and drives the real window over WebDriver against the local model.
WINDOW_SMOKE=(bash tests/window/run.sh)
# ---------------------------------------------------------------------------------------------

STAGES=()
STARTED_LOCAL_LLM=0

say() { printf '[test] %s\n' "$*" >&2; }

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# Runs one stage with a banner and its wall time; a failing stage ends the script. The stage
# runs in a subshell with errexit on: a function called as `f || ...` would run with errexit
# silently off, and a failing step in the middle of it would go unnoticed.
stage() {
  local name=$1 t0 status
  shift
  say "=== $name"
  t0=$(now)
  set +e
  (set -e; "$@")
  status=$?
  set -e
  if (( status != 0 )); then
    say "=== $name FAILED (exit $status) after $(since "$t0")"
    STAGES+=("$(printf '%-12s FAILED  %s' "$name" "$(since "$t0")")")
    exit "$status"
  fi
  STAGES+=("$(printf '%-12s ok      %s' "$name" "$(since "$t0")")")
}

skip() {
  say "=== $1 skipped: $2"
  STAGES+=("$(printf '%-12s skipped (%s)' "$1" "$2")")
}

cleanup() {
  local status=$?
  if (( STARTED_LOCAL_LLM )); then
    scripts/local-llm.sh stop || true
  fi
  if (( ${#STAGES[@]} )); then
    say "summary:"
    printf '[test]   %s\n' "${STAGES[@]}" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

has_npm_script() {
  [[ -f ui/package.json ]] &&
    node -e 'process.exit(require(process.argv[1]).scripts?.[process.argv[2]] ? 0 : 1)' \
      "$ROOT/ui/package.json" "$1"
}

build_ui() {
  [[ -f ui/package-lock.json ]] ||
    { say "ui/package-lock.json is missing: run npm install in ui/ and commit the lock file"; return 1; }
  # setup.sh has already run `npm ci` when the lock file changed.
  (cd ui && npm run build)
}

start_local_llm() {
  scripts/local-llm.sh ensure >/dev/null
}

rust_tests() {
  local selection=(--workspace)
  (( $# )) && selection=("$@")
  if cargo nextest --version >/dev/null 2>&1; then
    TACK_LOCAL_LLM=1 cargo nextest run "${selection[@]}"
  else
    say "cargo-nextest not found; using cargo test"
    TACK_LOCAL_LLM=1 cargo test "${selection[@]}"
  fi
}

# A private session bus with gnome-keyring's Secret Service, unlocked with a throwaway
# password and keeping its files in temporary folders, so the user's keyring is never touched.
# The daemon exits with the bus when dbus-run-session returns.
keychain_tests() {
  local runner=(cargo test)
  cargo nextest --version >/dev/null 2>&1 && runner=(cargo nextest run)
  # shellcheck disable=SC2016 # the inner script expands its own variables
  dbus-run-session -- bash -euo pipefail -c '
    data=$(mktemp -d) runtime=$(mktemp -d)
    trap "rm -rf \"$data\" \"$runtime\"" EXIT
    chmod 700 "$runtime"
    export XDG_DATA_HOME=$data XDG_RUNTIME_DIR=$runtime
    printf %s tack-ci-keyring | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
    TACK_KEYCHAIN_E2E=1 "$@"
  ' keychain "${runner[@]}" "${KEYCHAIN_TESTS[@]}"
}

window_smoke() {
  "${WINDOW_SMOKE[@]}"
}

main() {
  local t0
  t0=$(now)
  stage setup scripts/setup.sh
  stage deps cargo machete

  if [[ -f ui/package.json ]]; then
    stage "ui build" build_ui
  else
    skip "ui build" "no ui/package.json"
  fi

  # Leave a server someone started before us running afterwards; stop only our own.
  scripts/local-llm.sh status >/dev/null 2>&1 || STARTED_LOCAL_LLM=1
  stage "local model" start_local_llm
  stage rust rust_tests "$@"

  if (( ${#KEYCHAIN_TESTS[@]} )); then
    stage keychain keychain_tests
  else
    skip keychain "no keychain test wired into KEYCHAIN_TESTS yet"
  fi

  if has_npm_script test; then
    stage "ui tests" bash -c 'cd ui && npm test'
  else
    skip "ui tests" "no \"test\" script in ui/package.json"
  fi
  # The "ui build" stage has built ui/dist: run the flows on it rather than build it again.
  if has_npm_script test:e2e:built; then
    stage "ui flows" bash -c 'cd ui && npm run test:e2e:built'
  elif has_npm_script test:e2e; then
    stage "ui flows" bash -c 'cd ui && npm run test:e2e'
  else
    skip "ui flows" "no \"test:e2e\" script in ui/package.json"
  fi

  if (( ${#WINDOW_SMOKE[@]} )); then
    stage window window_smoke
  else
    skip window "no smoke test wired into WINDOW_SMOKE yet"
  fi
  say "all stages passed in $(since "$t0")"
}

main "$@"
