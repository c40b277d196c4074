#!/usr/bin/env bash
# Peak resident memory of Tack's engine under heavy load, one process per case:
#   tool-output   1 GiB of command output through `shell` in a session (`yes | head -c 1G`)
#   tiny-deltas   a reply of 1,000,000 one-character text deltas
#   sessions      20 sessions at once, each streaming for 2 minutes
# on the replaying provider (loopback HTTP, in a child process so its bodies are not counted),
# with a simulated front end that serialises every event and spends 1 ms on it (a web view).
# Prints one line per case; the figures are the kernel's VmHWM. Memory should be flat: bounded
# by the caps, not by how much output or how many deltas there were.
#
# Environment (all optional):
#   TACK_RSS_BYTES       tool output in bytes           (default 1073741824)
#   TACK_RSS_DELTAS      tiny deltas                    (default 1000000)
#   TACK_RSS_SESSIONS    concurrent sessions            (default 20)
#   TACK_RSS_SECONDS     how long each session streams  (default 120)
#   TACK_RSS_READER_US   the front end's time per event (default 1000)
#   TACK_RSS_CASES       which cases                    (default "tool-output tiny-deltas sessions")
set -euo pipefail
cd "$(dirname "$0")/.."

bytes="${TACK_RSS_BYTES:-1073741824}"
deltas="${TACK_RSS_DELTAS:-1000000}"
sessions="${TACK_RSS_SESSIONS:-20}"
seconds="${TACK_RSS_SECONDS:-120}"
reader="${TACK_RSS_READER_US:-1000}"
cases="${TACK_RSS_CASES:-tool-output tiny-deltas sessions}"

# The bench profile is an optimised build; build once, then run each case.
cargo bench -q -p tack-engine --bench rss --no-run
for case in $cases; do
  case "$case" in
    tool-output) args=(--bytes "$bytes") ;;
    tiny-deltas) args=(--n "$deltas") ;;
    sessions) args=(--n "$sessions" --seconds "$seconds") ;;
    *) echo "bench-rss: unknown case $case" >&2; exit 2 ;;
  esac
  cargo bench -q -p tack-engine --bench rss -- "$case" "${args[@]}" --reader-us "$reader"
done
