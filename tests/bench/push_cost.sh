#!/usr/bin/env bash
# What pushing N results (default 10,000) to a central PostgreSQL database
# costs against recording them in SQLite, as a ratio in one run
# (push_cost.c), against a server this script starts as test_central.sh
# does (initdb in a temporary folder, a Unix socket), with fsync on as
# SQLite's commits have it; both files live where lib.sh puts $WORK
# (/dev/shm when there is one: TMPDIR=/var/tmp measures a disk).  Nothing
# passes or fails.
# Usage: tests/bench/push_cost.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
export LABSIM=$build/labsim NFSAGENT=$build/agent/nfsagent
. tests/integration/lib.sh
PG_FSYNC=on
. tests/integration/pg.sh
pg_start
newdb bench
"$build/tests/bench/push_cost" "$WORK/results.db" "$(url bench)" "${2:-10000}"
