#!/usr/bin/env bash
# Says whether the desktop app will want the embedded local model (llama.cpp on 127.0.0.1:8082):
# exits 0 when the effective default provider is the built-in `local` one — no
# `default_provider` in the config file, or `default_provider = "local"` — and also when the file
# can't be read or doesn't load (the app then shows the error and offers the built-in providers,
# the local model first). Exits 1 when another default provider is configured.
#
# Usage: scripts/wants-local-model.sh CONFIG_FILE
set -uo pipefail
config="${1:?usage: scripts/wants-local-model.sh CONFIG_FILE}"

[ -e "$config" ] || exit 0
[ -r "$config" ] || exit 0

if command -v python3 >/dev/null 2>&1 && python3 -c 'import tomllib' 2>/dev/null; then
  # The same reading as the app's, as far as the default goes: a TOML parse, and the settings
  # the app knows (anything else is an error there).
  default="$(python3 - "$config" <<'PY'
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as f:
        config = tomllib.load(f)
except Exception:
    print("")
    sys.exit(0)
known = {"default_provider", "approval", "instructions", "providers"}
default = config.get("default_provider", "local")
if set(config) - known or not isinstance(default, str):
    print("")
else:
    print(default)
PY
)"
else
  # No TOML parser: read the one line that matters; one that isn't a plain string is broken.
  line="$(grep -E '^[[:space:]]*default_provider[[:space:]]*=' "$config" | tail -n 1)"
  re='^[[:space:]]*default_provider[[:space:]]*=[[:space:]]*"([^"]*)"[[:space:]]*(#.*)?$'
  if [ -z "$line" ]; then
    default=local
  elif [[ $line =~ $re ]]; then
    default="${BASH_REMATCH[1]}"
  else
    default=""
  fi
fi

# Empty: the file does not load, so the app falls back to the built-ins.
[ -z "$default" ] || [ "$default" = local ]
