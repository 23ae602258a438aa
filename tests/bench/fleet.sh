#!/usr/bin/env bash
# Fleet migrations: 16 VMs over 4 hosts, each Storage vMotion taking 2 s,
# vCenter's limit of 2 per source host, onto one datastore.  Reports, from
# runs interleaved in one session (nothing here is a pass/fail test):
#   - wall time of --parallel 8 against --parallel 1 (the goal: <= 0.2);
#   - --parallel 8 against the ideal, waves x task time (the goal: <= 1.5);
#   - SOAP calls per VM moved, by method, and WaitForUpdatesEx per VM.
# Usage: tests/bench/fleet.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${2:-3}
. tests/bench/lib.sh
bench_setup "${1:-build}"
vms=16 hosts=4 task_s=2 per_host=2

lab_start() {
	bench_lab -seed-vms=false -fleet $vms -hosts $hosts -task-seconds $task_s \
		-slow-tasks RelocateVM_Task -svmotion-per-host $per_host -methods-log "$work/m.log"
	"$nfsagent" mount --all-hosts --name tank16k --server 10.0.0.5 --path /mnt/tank/vmware16k \
		--nfs 3 > /dev/null
}

# measure NAME PARALLEL: one fleet in a new lab; appends "seconds calls waits" to $work/NAME.
measure() {
	lab_start
	: > "$work/m.log"
	local t0 t1
	t0=$(date +%s.%N)
	"$nfsagent" migrate --from-datastore truenas-vmware --datastore tank16k --parallel "$2" \
		--per-host $per_host > /dev/null
	t1=$(date +%s.%N)
	cp "$work/m.log" "$work/$1.calls"
	echo "$(calc "$t1 - $t0") $(wc -l < "$work/m.log") $(awk '$2 == "WaitForUpdatesEx"' "$work/m.log" | wc -l)" >> "$work/$1"
	bench_lab_stop
}
calc() { awk "BEGIN { print $* }"; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$2" '{print $c}' "$work/$1" | median; }

for _ in $(seq 1 "$runs"); do
	measure p8 8
	measure p1 1
done
# The fewest waves the limits allow: 16 VMs, 8 at once, 2 per host over 4 hosts.
waves=$(( (vms + 7) / 8 ))
host_waves=$(( (vms / hosts + per_host - 1) / per_host ))
[ $host_waves -gt $waves ] && waves=$host_waves
ideal=$(( waves * task_s ))
p8=$(col p8 1) p1=$(col p1 1)
printf 'fleet of %d VMs, %d s per move, %d per host over %d hosts (%d runs each, medians)\n' \
	$vms $task_s $per_host $hosts "$runs"
printf '  --parallel 8: %.1f s   --parallel 1: %.1f s   ratio %.3f (goal <= 0.2)\n' "$p8" "$p1" \
	"$(calc "$p8 / $p1")"
printf '  --parallel 8 against the ideal %d waves x %d s = %d s: %.2f (goal <= 1.5)\n' $waves $task_s \
	$ideal "$(calc "$p8 / $ideal")"
printf '  SOAP calls per VM moved: --parallel 8 %.1f, --parallel 1 %.1f\n' \
	"$(calc "$(col p8 2) / $vms")" "$(calc "$(col p1 2) / $vms")"
printf '  WaitForUpdatesEx per VM moved: --parallel 8 %.2f, --parallel 1 %.2f\n' \
	"$(calc "$(col p8 3) / $vms")" "$(calc "$(col p1 3) / $vms")"
echo "  calls by method, --parallel 8 (last run):"
awk '{print $2}' "$work/p8.calls" | sort | uniq -c | sort -rn | awk -v n=$vms '{printf "    %-28s %5.2f per VM\n", $2, $1 / n}'
