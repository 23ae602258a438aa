#!/usr/bin/env bash
# What sampling the NAS costs a benchmark (issue 12's target: under 1% of a
# run's wall time), as ratios of `bench --nas-command` against the same
# bench without it, on the lab with its NAS behind a real sshd, medians of
# interleaved runs.  The target's measure is the median run's wall time
# with what the NAS adds to nfsagent's own time around fio (both from the
# lab's methods log).  Shown beside it: the runs' wall times, median and
# mean, and nfsagent's own time, median and mean (a wait in one run of each
# bench, as the first run's for its sessions' handshakes was, moves the
# means only).  The wall times move in the guest wait's steps: after fio's
# expected end nfsagent looks every 0.25 s, so a few milliseconds more of
# fio's (2 cores shared with the NAS's processes) can cost a whole step.
# Also shown: the difference between REPS runs and one, per added run, and
# the whole bench's, the NAS's one-off reading included.  Nothing here
# passes or fails: the target is printed beside the ratio.  With MODE
# "control", the "with NAS" benches run without --nas-command, beside the
# sampler's NAS work run by itself (tests/integration/nas_sample, a pair of
# sessions every 10 s or so): whether that work, sharing the machine with
# the guest's fio, slows the runs.
# Usage: tests/bench/nas_cost.sh [BUILD_DIR] [RUNS] [RUNTIME_S] [REPS] [MODE]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
runs=${2:-3}
runtime=${3:-10}
reps=${4:-3}
mode=${5:-nas}
export LABSIM=$build/labsim NFSAGENT=$build/agent/nfsagent
. tests/integration/lib.sh
. tests/sim/nas_sshd.sh
lab_start -nas-slog
nas_start
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
nas=(--nas-command "ssh -F $NAS_SSH_CONFIG nas")

# wall NAME REPEAT [bench flags]: appends the bench's wall time (s) to
# $WORK/cost-NAME; and, from the lab's methods log, each run's wall time (s)
# to $WORK/cost-NAME-run, from the guest folder made before fio to the host
# counters' query that closes the run, and nfsagent's own part of it (ms)
# to $WORK/cost-NAME-own: up to the call that starts fio, and from the
# process listing that saw fio ended to that query (the NAS's stop and the
# guest clock's fetch are in it; its one-off reading before the first run
# is not).
wall() {
	local name=$1 repeat=$2
	shift 2
	local t0 t1
	: > "$LAB_LOG"
	t0=$(date +%s.%N)
	"$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat "$repeat" --size 4M \
		--runtime "$runtime" --db "$WORK/cost.db" "$@" > /dev/null 2>&1 || fail "bench $name failed"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/cost-$name"
	awk -v run="$WORK/cost-$name-run" -v own="$WORK/cost-$name-own" '
		$2 == "MakeDirectoryInGuest" { made = $1; next }
		$2 == "InitiateFileTransferToGuest" && made { upload = 1; next }
		$2 == "StartProgramInGuest" && upload { start = $1; upload = 0; next }
		$2 == "ListProcessesInGuest" && start { seen = $1; next }
		$2 == "QueryPerf" && start {
			printf "%.3f\n", ($1 - made) / 1000 >> run
			printf "%d\n", (start - made) + ($1 - seen) >> own
			start = made = 0
		}' "$LAB_LOG"
}
# with_nas NAME REPEAT: a bench "with NAS": with --nas-command; in control
# mode, without it, beside the sampler's NAS work run by itself.
with_nas() {
	[ "$mode" = control ] || { wall "$@" "${nas[@]}"; return; }
	(while :; do
		"$build/tests/integration/nas_sample" "ssh -F $NAS_SSH_CONFIG nas" /mnt/tank/vmware 1 10 \
			> /dev/null 2>&1 || sleep 1
	done) &
	local load=$!
	wall "$@"
	{ pkill -P "$load"; kill "$load"; wait "$load"; } 2> /dev/null || true
}
median() { sort -n "$WORK/cost-$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mean() { awk '{s += $1} END {print s / NR}' "$WORK/cost-$1"; }

echo "== NAS sampling ($mode): bench of $reps x ${runtime} s runs, with and without --nas-command, $runs interleaved runs each"
[ "$mode" != control ] || echo "   (control: no bench asks for the NAS; its sampling work runs beside the \"with NAS\" ones)"
for _ in $(seq 1 "$runs"); do
	wall plain "$reps"
	with_nas nas "$reps"
	wall plain1 1
	with_nas nas1 1
done
p=$(median plain) n=$(median nas) p1=$(median plain1) n1=$(median nas1)
pr=$(median plain-run) nr=$(median nas-run) po=$(median plain-own) no=$(median nas-own)
mp=$(mean plain-run) mn=$(mean nas-run) mpo=$(mean plain-own) mno=$(mean nas-own)
awk -v p="$p" -v n="$n" -v p1="$p1" -v n1="$n1" -v k="$reps" -v pr="$pr" -v nr="$nr" \
	-v po="$po" -v no="$no" -v mp="$mp" -v mn="$mn" -v mpo="$mpo" -v mno="$mno" 'BEGIN {
	printf "%-36s %10s %10s %7s   %s\n", "metric", "with NAS", "without", "ratio", "target"
	printf "%-36s %10d %10d %7s\n", "nfsagent'"'"'s own time per run (ms)", no, po, ""
	printf "%-36s %10d %10d %7s   %s\n", "the same, mean (ms)", mno, mpo, "", "(a wait in one run of a bench shows here)"
	printf "%-36s %10.3f %10.3f %7.3f   %s\n", "a run, with what the NAS adds (s)", pr + (no - po) / 1000, pr,
		(pr + (no - po) / 1000) / pr, "<= 1.01"
	printf "%-36s %10.3f %10.3f %7.3f   %s\n", "a run'"'"'s wall time (median s)", nr, pr, nr / pr, "(fio'"'"'s end seen to 0.25 s)"
	printf "%-36s %10.3f %10.3f %7.3f   %s\n", "a run'"'"'s wall time (mean s)", mn, mp, mn / mp, "(its 0.25 s steps averaged)"
	rn = (n - n1) / (k - 1); rp = (p - p1) / (k - 1)
	printf "%-36s %10.2f %10.2f %7.3f   %s\n", "per added run (s)", rn, rp, rn / rp, "(the same)"
	printf "%-36s %10.2f %10.2f %7.3f   %s\n", "bench wall time (median s)", n, p, n / p, "(the NAS read once, too)"
}'
