#!/usr/bin/env bash
# Builds nfsagent (warnings are errors) and runs every test: cmocka unit
# tests and integration tests against the simulated lab.
# Extra arguments go to cmake, e.g. -DNFSAGENT_SANITIZE=ON; BUILD_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DNFSAGENT_WERROR=ON "$@" > /dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j 4
