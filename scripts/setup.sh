#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine needs to build, run and test Tack, and nothing that
# is already there: a second run does no installing and takes a second or two.
#
# Expects what the base image has: Rust (cargo, with cargo-nextest for scripts/test.sh),
# Node.js >= 20 with npm, Python >= 3.10. Installs:
#   - Debian packages for the Tauri build, the headless test stack and the keychain tests;
#   - cargo-machete (the unused-dependency check of scripts/test.sh), when it is missing:
#     `cargo install --locked`, about 3 CPU-minutes to build (2 to 10 minutes on 2 cores);
#   - ui/node_modules with `npm ci`, when ui/package-lock.json exists;
#   - the local model server's venv and weights (scripts/local-llm.sh install).
#
# Run as root, or as a user with sudo. Environment: TACK_SETUP_SKIP_APT=1 skips the Debian
# packages (e.g. on a machine you manage yourself).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
SUMMARY=()

say() { printf '[setup] %s\n' "$*" >&2; }
now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
done_() { SUMMARY+=("$*"); }

# Debian packages, each for a reason (Tauri 2 on Debian 12; docs/sources.md):
APT_PACKAGES=(
  libwebkit2gtk-4.1-dev  # Tauri's web view; pulls in the GTK, libsoup and libdbus headers
  xvfb                   # a display for the real-window smoke test
  webkit2gtk-driver      # WebKitWebDriver, to drive the real window
  gnome-keyring          # a real Secret Service for the keychain tests
  dbus-x11               # dbus-launch; dbus-run-session comes with dbus itself
  libsecret-tools        # secret-tool, to look into the keyring when a keychain test fails
  chromium               # headless browser for the UI flows (Playwright drives it)
  chromium-driver        # chromedriver, for WebDriver-based UI tests
  imagemagick            # screenshots of the Xvfb display (import)
  xdotool                # real clicks and keys in the Xvfb window
  tmux                   # driving the terminal UI of `tack` in tests
  curl                   # health checks in scripts/local-llm.sh
  bubblewrap             # the sandbox every model-caused command runs in (bwrap)
)

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root for: $*  (run as root or install sudo)"
  fi
}

installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == "ii " ]]
}

setup_apt() {
  if [[ "${TACK_SETUP_SKIP_APT:-}" == 1 ]]; then
    done_ "apt: skipped (TACK_SETUP_SKIP_APT=1)"
    return
  fi
  command -v dpkg-query >/dev/null || die "this script expects Debian or Ubuntu (no dpkg-query)"
  local wanted=("${APT_PACKAGES[@]}") missing=() pkg
  # Debian's own python3 ships without venv support; other Pythons (pyenv, the base image's)
  # usually have it. Only ask for the package when the Python we will use lacks it.
  if ! "${TACK_PYTHON:-python3}" -c 'import ensurepip, venv' 2>/dev/null; then
    wanted+=(python3-venv)
  fi
  for pkg in "${wanted[@]}"; do
    installed "$pkg" || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    done_ "apt: all ${#wanted[@]} packages already installed"
    return
  fi
  local t0
  t0=$(now)
  say "installing ${#missing[@]} Debian package(s): ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  done_ "apt: installed ${missing[*]} ($(since "$t0"))"
}

check_toolchains() {
  command -v cargo >/dev/null || die "cargo not found: install Rust (rustup) first"
  command -v node >/dev/null || die "node not found: install Node.js 20 or newer"
  command -v npm >/dev/null || die "npm not found: install Node.js with npm"
  local node_major
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  (( node_major >= 20 )) || die "Node.js $(node --version) is too old; Tack's UI needs 20 or newer"
  if ! cargo nextest --version >/dev/null 2>&1; then
    done_ "note: cargo-nextest is missing; scripts/test.sh falls back to cargo test (cargo install cargo-nextest --locked to add it)"
  fi
}

# cargo-machete finds dependencies that no code of their crate uses (scripts/test.sh, stage
# "deps"). Chosen over cargo-shear because it builds in a fraction of the time (no
# rust-analyzer parser). Pinned, so every machine runs the same check.
CARGO_MACHETE_VERSION=0.9.2

setup_cargo_machete() {
  local have
  have=$(cargo machete --version 2>/dev/null || true)
  if [[ "$have" == *"$CARGO_MACHETE_VERSION"* ]]; then
    done_ "cargo-machete: $CARGO_MACHETE_VERSION already installed"
    return
  fi
  local t0
  t0=$(now)
  say "installing cargo-machete $CARGO_MACHETE_VERSION (cargo install --locked; a few minutes)"
  cargo install --locked --quiet cargo-machete --version "$CARGO_MACHETE_VERSION"
  done_ "cargo-machete: installed $CARGO_MACHETE_VERSION ($(since "$t0"))"
}

setup_ui() {
  local ui="$ROOT/ui"
  if [[ ! -f "$ui/package-lock.json" ]]; then
    done_ "npm: skipped (no ui/package-lock.json yet)"
    return
  fi
  # `npm ci` always deletes node_modules and starts over (8+ s), so remember which lock file
  # the current node_modules was installed from and skip when it has not changed.
  local stamp="$ui/node_modules/.tack-lock-sha256" want
  want=$(sha256sum "$ui/package-lock.json" | cut -d' ' -f1)
  if [[ -f "$stamp" && "$(<"$stamp")" == "$want" ]]; then
    done_ "npm: ui/node_modules matches package-lock.json"
    return
  fi
  local t0
  t0=$(now)
  say "npm ci in ui/"
  (cd "$ui" && npm ci --no-audit --no-fund)
  printf '%s\n' "$want" >"$stamp"
  done_ "npm: ci in ui/ ($(since "$t0"))"
}

setup_local_llm() {
  local llm="$ROOT/scripts/local-llm.sh" t0
  if "$llm" installed; then
    done_ "local model: already installed"
    return
  fi
  t0=$(now)
  "$llm" install
  done_ "local model: installed ($(since "$t0"))"
}

main() {
  local t0
  t0=$(now)
  setup_apt
  check_toolchains
  setup_cargo_machete
  setup_ui
  setup_local_llm
  say "done in $(since "$t0"):"
  printf '[setup]   %s\n' "${SUMMARY[@]}" >&2
}

main "$@"
