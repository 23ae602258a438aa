#!/usr/bin/env bash
# Fleet migrations: 16 VMs over 4 hosts onto one datastore, each Storage
# vMotion and each datastore search taking 2 s (a busy NFS datastore),
# vCenter's limit of 2 per source host.  Reports, from runs interleaved in
# one session (nothing here is a pass/fail test):
#   - wall time of migrate --parallel 8 against the ideal, waves x task time
#     (the goal: <= 1.3);
#   - the same against a client that fires every RelocateVM_Task and then
#     waits for all (govmomi, PowerCLI's Move-VM -RunAsync pattern; the
#     goal: <= 1.3);
#   - from the lab's own relocation log: the most moves at once from one
#     host (never more than 2) and how many vCenter queued (nfsagent: none);
#   - SOAP calls per VM moved, by method.
# Usage: tests/bench/fleet.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${2:-3}
. tests/bench/lib.sh
bench_setup "${1:-build}" "${1:-build}/govmomi_peer"
peer=$build/govmomi_peer
vms=16 hosts=4 task_s=2 per_host=2

lab_start() {
	: > "$work/relocations"
	bench_lab -seed-vms=false -fleet $vms -hosts $hosts -task-seconds $task_s \
		-slow-tasks RelocateVM_Task,SearchDatastore_Task -svmotion-per-host $per_host \
		-methods-log "$work/m.log" -relocations-log "$work/relocations"
	"$nfsagent" mount --all-hosts --name tank16k --server 10.0.0.5 --path /mnt/tank/vmware16k \
		--nfs 3 > /dev/null
	: > "$work/m.log"
}

# The most relocations running at once from one host, by the lab's clock.
most_per_host() {
	sort -n -s -k1,1 "$work/relocations" | awk '
		$2 == "start" { n[$5]++; if (n[$5] > most) most = n[$5] }
		$2 == "end" { n[$5]-- }
		END { print most + 0 }'
}

# measure NAME COMMAND...: one fleet in a new lab; appends
# "seconds calls most-per-host queued" to $work/NAME.
measure() {
	local name=$1 t0 t1
	shift
	lab_start
	t0=$(date +%s.%N)
	"$@" > /dev/null
	t1=$(date +%s.%N)
	cp "$work/m.log" "$work/$name.calls"
	echo "$(calc "$t1 - $t0") $(wc -l < "$work/m.log") $(most_per_host) $(grep -c ' queued ' "$work/relocations" || true)" >> "$work/$name"
	bench_lab_stop
}
calc() { awk "BEGIN { print $* }"; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$2" '{print $c}' "$work/$1" | median; }

for _ in $(seq 1 "$runs"); do
	measure p8 "$nfsagent" migrate --from-datastore truenas-vmware --datastore tank16k --parallel 8 \
		--per-host $per_host
	measure peer "$peer" move-all truenas-vmware tank16k
done
# The fewest waves the limits allow: 16 VMs, 8 at once, 2 per host over 4 hosts.
waves=$(( (vms + 7) / 8 ))
host_waves=$(( (vms / hosts + per_host - 1) / per_host ))
[ $host_waves -gt $waves ] && waves=$host_waves
ideal=$(( waves * task_s ))
p8=$(col p8 1) peer=$(col peer 1)
printf 'fleet of %d VMs, %d s per move and per datastore search, %d per host over %d hosts (%d runs each, medians)\n' \
	$vms $task_s $per_host $hosts "$runs"
printf '  migrate --parallel 8: %.1f s; against the ideal %d waves x %d s = %d s: %.2f (goal <= 1.3)\n' \
	"$p8" $waves $task_s $ideal "$(calc "$p8 / $ideal")"
printf '  fire-all-then-wait client (govmomi): %.1f s; nfsagent against it: %.2f (goal <= 1.3)\n' "$peer" \
	"$(calc "$p8 / $peer")"
printf '  most moves at once from one host: nfsagent %d, client %d (limit %d); queued by vCenter: nfsagent %d, client %d\n' \
	"$(col p8 3)" "$(col peer 3)" $per_host "$(col p8 4)" "$(col peer 4)"
printf '  SOAP calls per VM moved: nfsagent %.1f, client %.1f\n' "$(calc "$(col p8 2) / $vms")" \
	"$(calc "$(col peer 2) / $vms")"
echo "  nfsagent's calls by method (last run):"
awk '{print $2}' "$work/p8.calls" | sort | uniq -c | sort -rn | awk -v n=$vms '{printf "    %-28s %5.2f per VM\n", $2, $1 / n}'
