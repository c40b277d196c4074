#!/usr/bin/env bash
# Builds and launches the Tack desktop app.
#
# The first run installs what is missing (system packages, npm packages, the local model; see
# scripts/setup.sh); later runs only rebuild what changed. When the default provider is the
# built-in local one (none configured, or `default_provider = "local"`), or the config file does
# not load, the embedded local model (llama.cpp on 127.0.0.1:8082) is started for the session
# and stopped when the window closes, so a fresh machine has a working model at once.
#
# Usage: scripts/run.sh [app arguments]
#   TACK_SKIP_SETUP=1   skip scripts/setup.sh (already set up)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf '[run] %s\n' "$*" >&2; }

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  say "no display found (DISPLAY/WAYLAND_DISPLAY unset)."
  say "run this from a desktop session, or headless under a virtual display: xvfb-run -a scripts/run.sh"
  exit 1
fi

if [ "${TACK_SKIP_SETUP:-0}" != 1 ]; then
  scripts/setup.sh
fi

say "building the UI"
(cd ui && npm run build --silent)

config="${TACK_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/tack}/config.toml"
started_llm=0
if scripts/wants-local-model.sh "$config"; then
  if scripts/local-llm.sh status >/dev/null 2>&1; then
    say "local model already running"
  else
    say "the default provider is the built-in local model (or $config does not load): starting the embedded local model"
    scripts/local-llm.sh start >/dev/null
    started_llm=1
  fi
fi
cleanup() {
  if [ "$started_llm" = 1 ]; then
    scripts/local-llm.sh stop >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

say "building the app (the first build takes several minutes)"
cargo build -p tack-app --features custom-protocol
say "starting Tack"
target/debug/tack-app "$@"
