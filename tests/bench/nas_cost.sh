#!/usr/bin/env bash
# What sampling the NAS costs a benchmark (issue 12's target: under 1% of a
# run's wall time), as a ratio: the wall time of `bench --nas-command` over
# that of the same bench without it, on the lab with its NAS behind a real
# sshd, medians of interleaved runs.  The per-run cost is also shown: the
# difference between REPS runs and one, per added run, with the NAS and
# without (the NAS's one-off reading of the dataset and pool cancels out).
# Nothing here passes or fails: the target is printed beside the ratio.
# Usage: tests/bench/nas_cost.sh [BUILD_DIR] [RUNS] [RUNTIME_S] [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
runs=${2:-3}
runtime=${3:-10}
reps=${4:-3}
export LABSIM=$build/labsim NFSAGENT=$build/agent/nfsagent
. tests/integration/lib.sh
. tests/sim/nas_sshd.sh
lab_start -nas-slog
nas_start
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
nas=(--nas-command "ssh -F $NAS_SSH_CONFIG nas")

# wall NAME REPEAT [bench flags]: appends the bench's wall time (s) to $WORK/NAME.
wall() {
	local name=$1 repeat=$2
	shift 2
	local t0 t1
	t0=$(date +%s.%N)
	"$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat "$repeat" --size 4M \
		--runtime "$runtime" --db "$WORK/cost.db" "$@" > /dev/null 2>&1 || fail "bench $name failed"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/cost-$name"
}
median() { sort -n "$WORK/cost-$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "== NAS sampling: bench of $reps x ${runtime} s runs, with and without --nas-command, $runs interleaved runs each"
for _ in $(seq 1 "$runs"); do
	wall plain "$reps"
	wall nas "$reps" "${nas[@]}"
	wall plain1 1
	wall nas1 1 "${nas[@]}"
done
p=$(median plain) n=$(median nas) p1=$(median plain1) n1=$(median nas1)
awk -v p="$p" -v n="$n" -v p1="$p1" -v n1="$n1" -v k="$reps" 'BEGIN {
	printf "%-30s %10s %10s %7s   %s\n", "metric", "with NAS", "without", "ratio", "target"
	printf "%-30s %10.2f %10.2f %7.3f   %s\n", "bench wall time (median s)", n, p, n / p, "<= 1.01"
	rn = (n - n1) / (k - 1); rp = (p - p1) / (k - 1)
	printf "%-30s %10.2f %10.2f %7.3f   %s\n", "per added run (s)", rn, rp, rn / rp, "<= 1.01"
}'
