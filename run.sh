#!/usr/bin/env bash
# Builds (release preset) and runs the MoE layer on the built-in default scenario, both
# dispatch designs, verified against the golden references. Extra arguments go to
# `moe-sim run`, e.g. ./run.sh --trace trace.json
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --target moe-sim
exec build/release/app/moe-sim run --verify "$@"
