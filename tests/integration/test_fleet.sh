#!/usr/bin/env bash
# migrate --parallel: many VMs at once within the limits (asserted from the
# lab's own relocation log), vCenter's queue shown as such, a kill then the
# same command again (each VM relocated exactly once), and 503 storms.
. "$(dirname "$0")/lib.sh"

RELOCATIONS="$WORK/relocations.log"
FLEET=12

fleet_lab() {
	: > "$RELOCATIONS"
	lab_start -seed-vms=false -fleet "$FLEET" -hosts 4 -task-seconds 2 -slow-tasks RelocateVM_Task \
		-relocations-log "$RELOCATIONS" "$@"
	"$NFSAGENT" mount --all-hosts --name tank16k --server 10.0.0.5 --path /mnt/tank/vmware16k \
		--nfs 3 > /dev/null
}
move_fleet() { "$NFSAGENT" migrate --from-datastore truenas-vmware --datastore tank16k "$@"; }

# The most relocations running at once, in all or (with a host) from one
# host, by the lab's clock: +1 at each start, -1 at each end.
most_at_once() {
	sort -n -s -k1,1 "$RELOCATIONS" | awk -v host="${1:-}" '
		$2 == "queued" || (host != "" && $5 != host) { next }
		$2 == "start" { n++; if (n > most) most = n }
		$2 == "end" { n-- }
		END { print most + 0 }'
}
# How many relocations each VM had: one line "COUNT" per VM, sorted unique.
starts_per_vm() { awk '$2 == "start" { print $4 }' "$RELOCATIONS" | sort | uniq -c | awk '{print $1}' | sort -u; }
on_target() {
	"$NFSAGENT" ls vms --json | jq -r '[.[] | select(.name | startswith("fleet-")) |
		select((.datastores | join(",")) == "tank16k")] | length'
}

# ---- the limits: 3 at once, 1 per source host (the lab queues nothing here)
fleet_lab -svmotion-per-host 0
run 0 move_fleet --dry-run --parallel 3 --per-host 1
assert_contains "$OUT" "Would move 12 VMs (" "plan"
assert_contains "$OUT" "up to 3 at once (at most 1 per source host, 8 per datastore): 4 waves of moves at the least." "plan"
assert_eq "$(calls RelocateVM_Task)" 0 "relocations in a dry run"
run 0 move_fleet --parallel 3 --per-host 1
assert_contains "$OUT" "12 of 12 VMs now on tank16k ("
assert_eq "$(grep -cE '^fleet-[0-9]+ .* moved, verified$' <<< "$OUT")" 12 "VMs moved and verified"
assert_eq "$(on_target)" 12 "fleet VMs on the target"
assert_eq "$(most_at_once)" 3 "relocations at once (--parallel 3)"
for h in DC0_H0 DC0_C0_H0 DC0_C0_H1 DC0_C0_H2; do
	assert_eq "$(most_at_once "$h")" 1 "relocations at once from $h (--per-host 1)"
done
assert_eq "$(starts_per_vm)" 1 "relocations per VM"
assert_eq "$(calls RelocateVM_Task)" 12 "RelocateVM_Task calls"
# Again: every VM is there already, said once each, nothing moves.
run 0 "$NFSAGENT" migrate --vm fleet-01 --vm fleet-02 --datastore tank16k
assert_contains "$OUT" "fleet-01 is on tank16k already: skipped."
assert_eq "$(calls RelocateVM_Task)" 12 "RelocateVM_Task calls after a second run"
lab_stop

# ---- on a terminal: the moves in flight and the total redrawn in place,
# the ended moves' lines scrolling above them; on a small one (6 rows, 60
# columns) the block keeps to the screen: 3 VMs, the rest counted, each
# line cut to the width
fleet_lab -svmotion-per-host 0
script -qec "stty cols 60 rows 6; $(printf '%q ' "$NFSAGENT" migrate --from-datastore truenas-vmware \
	--datastore tank16k --parallel 4)" /dev/null > "$WORK/tty.out" 2>&1 ||
	fail "migrate on a terminal: $(cat "$WORK/tty.out")"
tty=$(tr -d '\r' < "$WORK/tty.out")
assert_ge "$(grep -o $'\033\\[[0-9]*A\033\\[J' <<< "$tty" | wc -l)" 6 "live blocks erased"
assert_ge "$(grep -o '  fleet-[0-9]*: moving' <<< "$tty" | wc -l)" 3 "live lines of moves in flight"
assert_contains "$tty" "  ... and 1 more in flight"
assert_eq "$(grep '^  -- ' <<< "$tty" | awk '{ if (length > m) m = length } END { print m }')" \
	59 "a live total cut to the terminal's width"
assert_eq "$(grep -o 'fleet-[0-9]*: moved, verified (' <<< "$tty" | sort -u | wc -l)" 12 "ended moves' lines"
assert_contains "$(grep -B 2 '^12 of 12 VMs now on tank16k' <<< "$tty")" \
	"-- 12 done, 0 moving, 0 queued, 0 failed, 0 waiting;" "the last total, kept"
lab_stop

# ---- vCenter's own queue (2 per host): starting more shows them as queued,
# and a move's time is its own, the time vCenter queued it said apart
fleet_lab
run 0 move_fleet --parallel 12 --per-host 3 --per-datastore 12
assert_contains "$OUT" "queued by vCenter"
assert_ge "$(grep -cE '^fleet-[0-9]+: moved, verified \(0:0[23], after 0:0[1-9] queued\)$' <<< "$OUT")" 1 \
	"moves said with their time queued apart"
assert_eq "$(awk '/^VM +HOST +SIZE +TIME +QUEUED +RESULT/ { t = 1; next } t && $1 ~ /^fleet-/ && $5 !~ /^0:0[23]$/' <<< "$OUT")" \
	"" "the summary's TIME: each move's own 2 s"
assert_ge "$(grep -c ' queued ' "$RELOCATIONS")" 1 "relocations the lab queued"
assert_le "$(most_at_once DC0_H0)" 2 "relocations running at once from DC0_H0"
assert_eq "$(on_target)" 12 "fleet VMs on the target"
assert_eq "$(starts_per_vm)" 1 "relocations per VM"
lab_stop

# ---- a client that sees the ends late (stopped for 5 s while 4 moves of 2 s
# run) still says each move's own time and no time queued: vCenter's clock,
# not when it looked
FLEET=4 fleet_lab -svmotion-per-host 0
# (nfsagent itself, not a shell function: the signal goes to the process)
"$NFSAGENT" migrate --from-datastore truenas-vmware --datastore tank16k --parallel 4 \
	> "$WORK/out" 2> "$WORK/err" &
pid=$!
for _ in $(seq 1 600); do
	[ "$(awk '$2 == "start"' "$RELOCATIONS" | wc -l)" -ge 4 ] && break
	sleep 0.1
done
assert_eq "$(awk '$2 == "start"' "$RELOCATIONS" | wc -l)" 4 "relocations started before the pause"
kill -STOP "$pid"
sleep 5
kill -CONT "$pid"
wait "$pid" || fail "migrate after a pause: $(cat "$WORK/err")"
assert_eq "$(grep -cE '^fleet-[0-9]+: moved, verified \(0:0[23]\)$' "$WORK/out")" 4 \
	"moves seen ended 5 s late, each said with its own 2 s: $(cat "$WORK/out")"
lab_stop

# ---- Ctrl-C stops new starts and lets the moves in flight finish (kills
# and Ctrl-C at every point, then the same command again: test_fleet_stops.sh)
fleet_lab -task-seconds 4
# (nfsagent itself, not a shell function: the signal goes to the process)
interrupt_when_called RelocateVM_Task "$NFSAGENT" migrate --from-datastore truenas-vmware \
	--datastore tank16k --parallel 4
assert_eq "$RC" 1 "exit status after Ctrl-C"
assert_contains "$ERR" "nfsagent: stopping: letting the Storage vMotions in flight finish"
started=$(awk '$2 == "start"' "$RELOCATIONS" | wc -l)
assert_eq "$(calls RelocateVM_Task)" "$started" "relocations asked and run"
assert_eq "$(grep -cE '^fleet-[0-9]+: moved, verified \(0:0[3-5]\)$' <<< "$OUT")" "$started" \
	"moves in flight that finished, each with its own time"
assert_contains "$ERR" "interrupted: $((FLEET - started)) of $FLEET VMs not tried"
lab_stop

# ---- --vms GLOB: the matching VMs, by name; one that matches none is refused
fleet_lab -svmotion-per-host 0
run 0 "$NFSAGENT" migrate --vms 'fleet-0[1-3]' --vm fleet-12 --datastore tank16k --dry-run
assert_contains "$OUT" "Would move 4 VMs ("
assert_eq "$(grep -oE '^fleet-[0-9]+' <<< "$OUT" | tr '\n' ' ')" "fleet-12 fleet-01 fleet-02 fleet-03 " \
	"the VMs planned, --vm first"
run 2 "$NFSAGENT" migrate --vms 'web-*' --datastore tank16k
assert_eq "$ERR" "nfsagent: --vms 'web-*' matches no VM" "a glob matching nothing"
run 2 "$NFSAGENT" migrate --vms 'fleet-*' --from-datastore truenas-vmware --datastore tank16k
assert_contains "$ERR" "nfsagent: give --vm/--vms or --from-datastore, not both"
lab_stop

# ---- HTTP 503 on 20% of calls (and lost answers of relocations): all land, verified
FLEET=8 fleet_lab -fail-503 0.2 -fail-503-late 0.2 -fail-503-after 40 -seed 7
run 0 move_fleet --parallel 4
assert_contains "$OUT" "8 of 8 VMs now on tank16k ("
assert_eq "$(grep -cE '^fleet-[0-9]+ .* moved, verified$' <<< "$OUT")" 8 "VMs moved and verified under 503s"
assert_eq "$(starts_per_vm)" 1 "relocations per VM under 503s"
assert_ge "$(awk '$3 == 503' "$LAB_LOG" | wc -l)" 5 "503 answers the lab gave"
lab_stop

# ---- the extent-size bug on 2 of 8 VMs under --on-extent-bug nfs3: the
# remount waits for the moves in flight, the VMs that landed on NFS 4.1 go
# back first (no unmount under a VM), and all 8 end on NFS 3, verified.
FLEET=8 fleet_lab -nfs41-bug first:2
"$NFSAGENT" mount --all-hosts --name tank41 --server 10.0.0.5 --path /mnt/tank/vmware64k \
	--nfs 4.1 > /dev/null
run 0 "$NFSAGENT" migrate --from-datastore truenas-vmware --datastore tank41 --parallel 4 \
	--on-extent-bug nfs3
assert_contains "$OUT" "8 of 8 VMs now on tank41 ("
assert_contains "$OUT" "tank41 was remounted as NFS 3 on the extent-size bug"
assert_eq "$(grep -cE '^fleet-[0-9]+ .* moved, verified$' <<< "$OUT")" 8 "VMs moved and verified after the remount"
assert_eq "$("$NFSAGENT" ls datastores --json | jq -r '.[] | select(.name == "tank41") | .type')" NFS \
	"tank41's type after the fleet"
assert_eq "$("$NFSAGENT" ls vms --json | jq -r '[.[] | select(.name | startswith("fleet-")) |
	select((.datastores | join(",")) == "tank41")] | length')" 8 "fleet VMs on tank41"
# The two failed moves' copies are listed, never the folder a retry made its home.
assert_eq "$(grep -cE '^  \[tank41\] fleet-[0-9]+/fleet-[0-9]+\.vmdk, ' <<< "$OUT")" 2 "leftovers listed"
# ...each with its flat file (the browser lists the descriptor only) and its length: the longest
# a host reads, a host that reads it short said beside it.
assert_eq "$(grep -cE '^  \[tank41\] fleet-[0-9]+/fleet-[0-9]+-flat\.vmdk, 1\.0 GiB[ ,(]' <<< "$OUT")" 2 \
	"the leftovers' flat files, with their sizes"
assert_not_contains "$OUT" "_1/fleet-"
# ...and they stay on the export (never deleted).
while read -r copy; do
	[ -n "$(find "$WORK/lab" -path "*vmware64k/$copy")" ] || fail "a listed copy is gone from the export: $copy"
done < <(grep -oE '^  \[tank41\] fleet-[0-9]+/fleet-[0-9]+\.vmdk' <<< "$OUT" | sed 's/^  \[tank41\] //')
# The first unmount came after every relocation started before it had ended.
unmount_ms=$(awk '$2 == "RemoveDatastore" { print $1; exit }' "$LAB_LOG")
[ -n "$unmount_ms" ] || fail "no unmount in the lab's log"
last_end=$(awk -v t="$unmount_ms" '$2 == "start" && $1 < t { s[$3] = 1 } $2 == "end" && ($3 in s) { e = $1 } END { printf "%d\n", e }' \
	<(sort -n -s -k1,1 "$RELOCATIONS"))
assert_le "$last_end" "$unmount_ms" "the last end of a relocation started before the unmount"
assert_ge "$(awk '$2 == "start" && $1 < '"$unmount_ms" "$RELOCATIONS" | wc -l)" 4 "relocations before the remount"
lab_stop

# ---- the session expires while the tasks are waited for: the collector and
# its filters are made again, and every VM lands once.
for after in 45 70; do
	FLEET=8 fleet_lab -expire-after "$after"
	run 0 move_fleet --parallel 4
	assert_contains "$OUT" "8 of 8 VMs now on tank16k ("
	assert_eq "$(starts_per_vm)" 1 "relocations per VM across an expired session (call $after)"
	assert_ge "$(calls Login)" 3 "logins (the mount's, the fleet's and its renewal)"
	lab_stop
done

# ---- bad input, refused before anything moves
fleet_lab
run 2 move_fleet --parallel 0
assert_contains "$ERR" "--parallel wants a whole number from 1 to 32, not '0'"
run 2 move_fleet --parallel 33
run 2 move_fleet --per-host x
run 2 "$NFSAGENT" migrate --vm fleet-01 --vm fleet-01 --datastore tank16k
assert_contains "$ERR" "VM fleet-01 is named twice"
run 2 "$NFSAGENT" migrate --vm fleet-01 --vm fleet-99 --datastore tank16k
run 2 move_fleet --datastore no-such-ds
assert_eq "$(calls RelocateVM_Task)" 0 "relocations after bad input"

echo "fleet: ok"
