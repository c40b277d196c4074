#!/usr/bin/env bash
# Runs the fuzz targets in fuzz/ with cargo-fuzz (libFuzzer), on stable Rust: `--sanitizer none`
# keeps libFuzzer's coverage instrumentation and drops the nightly-only address sanitizer, which
# safe Rust parsers don't need to find panics.
#
# Usage:
#   scripts/fuzz.sh [SECONDS] [TARGET...]   fuzz each target for SECONDS (default 60)
#   scripts/fuzz.sh --replay [TARGET...]    run each target once over its seeds and corpus
#
# Seeds (fuzz/seeds/<target>/, our own small inputs) are read; what the fuzzer finds new goes to
# fuzz/corpus/<target>/ and a crashing input to fuzz/artifacts/<target>/ (both git-ignored).
# Installs cargo-fuzz with `cargo install` when it is missing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
cd "$ROOT"
say() { printf '[fuzz] %s\n' "$*" >&2; }

ALL=(swe_agent_reply mini_swe_agent_reply terminus_2_reply text_call_recovery wire_decode command_safety)
replay=0
seconds=60
if [[ "${1:-}" == "--replay" ]]; then
  replay=1
  shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL[@]}")

if ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked
fi
command -v c++ >/dev/null || { say "libFuzzer needs a C++ compiler: apt-get install g++"; exit 1; }

for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  if (( replay )); then
    say "$t: replaying $(find "fuzz/seeds/$t" "fuzz/corpus/$t" -type f | wc -l) inputs"
    cargo fuzz run --sanitizer none "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- -runs=0
  else
    say "$t: fuzzing for ${seconds}s"
    cargo fuzz run --sanitizer none "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- -max_total_time="$seconds"
  fi
done
say "done: ${targets[*]}"
