#!/usr/bin/env bash
# Builds everything (dev preset) and runs every test. The README's test command.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset dev
cmake --build --preset dev
# Tests in parallel, one per core: none of them measures wall time.
ctest --preset dev -j "$(nproc)"
