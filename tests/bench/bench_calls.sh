#!/usr/bin/env bash
# One bench's SOAP calls: 2 profiles x REPEAT repetitions of RUNTIME s in
# the lab's fiotest, on realistic semantics; prints the calls, the process
# polls (ListProcessesInGuest) among them, and the wall time. Run it on two
# builds to compare them. Nothing here is a pass/fail test.
# Usage: tests/bench/bench_calls.sh [BUILD_DIR] [RUNTIME] [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
bench_setup "$(realpath "${1:-build}")"
bench_lab -methods-log "$work/m.log"
: > "$work/m.log"
start=$(date +%s.%N)
"$build/agent/nfsagent" bench --vm fiotest --profile randread-4k-qd1 --profile randwrite-4k-qd1 \
	--repeat "${3:-4}" --size 4M --runtime "${2:-1}" --guest-user root --db "$work/r.db" > "$work/out" 2>&1
echo "runs: $((2 * ${3:-4}))"
echo "SOAP calls: $(wc -l < "$work/m.log")"
echo "process polls: $(grep -c ListProcessesInGuest "$work/m.log")"
echo "wall: $(echo "$(date +%s.%N) - $start" | bc) s"
