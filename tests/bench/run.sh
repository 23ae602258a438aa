#!/usr/bin/env bash
# Benchmarks nfsagent against a govmomi client doing the same work on the
# same simulated lab, and reports ratios (nfsagent / govmomi; below 1 is
# better).  Wall times are medians of interleaved runs.  Nothing here is a
# pass/fail test: the targets are printed next to the ratios.
# Usage: tests/bench/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${2:-7}
. tests/bench/lib.sh
peer=${1:-build}/govmomi_peer
find_vm=${1:-build}/tests/bench/find_vm
bench_setup "${1:-build}" "$peer" "$find_vm"
lab_start() { bench_lab -hosts 50 -vms "$1" -methods-log "$work/m.log"; }

# measure NAME cmd...: appends "seconds maxrss_kb calls" to $work/NAME.
measure() {
	local name=$1
	shift
	: > "$work/m.log"
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null
	echo "$(cat "$work/time") $(wc -l < "$work/m.log")" >> "$work/$name"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$2" '{print $c}' "$work/$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }

echo "== ls vms: 50 hosts, 2000 VMs, $runs interleaved runs each"
lab_start 2000
for _ in $(seq 1 "$runs"); do
	measure agent "$nfsagent" ls vms --json
	measure peer "$peer" ls-vms
done
a_t=$(col agent 1 | median); p_t=$(col peer 1 | median)
a_m=$(col agent 2 | sort -n | tail -1); p_m=$(col peer 2 | sort -n | tail -1)
a_c=$(col agent 3 | sort -n | tail -1); p_c=$(col peer 3 | sort -n | tail -1)
printf '%-22s %10s %10s %7s   %s\n' metric nfsagent govmomi ratio target
printf '%-22s %10s %10s %7s   %s\n' "SOAP calls" "$a_c" "$p_c" "$(ratio "$a_c" "$p_c")" "<= 1.00"
printf '%-22s %10s %10s %7s   %s\n' "wall time (median s)" "$a_t" "$p_t" "$(ratio "$a_t" "$p_t")" "<= 1.00"
printf '%-22s %10s %10s %7s   %s\n' "peak memory (KiB)" "$a_m" "$p_m" "$(ratio "$a_m" "$p_m")" "<= 0.50"

echo "== find one VM with its host and datastores"
measure agent_find "$find_vm" DC0_H0_VM0
measure peer_find "$peer" find-vm DC0_H0_VM0
printf '%-22s %10s %10s %7s   %s\n' "SOAP calls" "$(col agent_find 3)" "$(col peer_find 3)" \
	"$(ratio "$(col agent_find 3)" "$(col peer_find 3)")" "< 1.00"
bench_lab_stop

echo "== memory as the inventory grows (peak KiB of ls vms --json)"
printf '%-8s %10s %10s\n' VMs nfsagent govmomi
for n in 200 2000 10000; do
	lab_start "$n"
	rm -f "$work/ga" "$work/gp"
	measure ga "$nfsagent" ls vms --json --page-size 500
	measure gp "$peer" ls-vms
	printf '%-8s %10s %10s\n' "$n" "$(col ga 2)" "$(col gp 2)"
	bench_lab_stop
done

# The NAS sampler's cost to a benchmark (its own lab, with the NAS's sshd).
tests/bench/nas_cost.sh "$build"
