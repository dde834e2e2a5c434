#!/usr/bin/env bash
# Builds (release preset) and opens the workbench on the built-in default scenario. Extra
# arguments go to moe-workbench (e.g. a scenario file). `./run.sh --cli [ARGS]` instead runs
# the headless `moe-sim run --verify` on the default scenario, both dispatch designs,
# verified against the golden references (e.g. ./run.sh --cli --trace trace.json).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset release
if [ "${1:-}" = "--cli" ]; then
  shift
  cmake --build --preset release --target moe-sim
  exec build/release/app/moe-sim run --verify "$@"
fi
cmake --build --preset release --target moe-sim moe-workbench
exec build/release/app/moe-workbench "$@"
