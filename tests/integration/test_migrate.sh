#!/usr/bin/env bash
# migrate: a clean move, the NFS 4.1 bug with each policy, and the VM always
# ends in a known place.
. "$(dirname "$0")/lib.sh"

mount41() {
	"$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
		--path /mnt/tank/vmware16k --nfs 4.1 > /dev/null
}
vm_field() { "$NFSAGENT" ls vms --json | jq -r --arg n "$1" ".[] | select(.name == \$n) | $2"; }
ds_type() { "$NFSAGENT" ls datastores --json | jq -r --arg n "$1" '.[] | select(.name == $n) | .type'; }

# The bug off: moved and verified.
lab_start -nfs41-bug off
mount41
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k
assert_contains "$OUT" "Moved fiotest to truenas-vmware16k."
assert_contains "$OUT" "fiotest: 1 extent checked: all hold what their descriptors declare"
assert_contains "$OUT" "fiotest is on datastore truenas-vmware16k (host DC0_H0), poweredOn."
assert_eq "$(vm_field fiotest '.datastores | join(",")')" truenas-vmware16k "fiotest's datastores"
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k
assert_contains "$OUT" "fiotest is on truenas-vmware16k already."
assert_not_contains "$OUT" "extents checked" "a VM not moved, nothing checked"
# Two disks on two datastores, and a name with a space and a non-ASCII letter.
run 0 "$NFSAGENT" migrate --vm db01 --datastore truenas-vmware16k --json
assert_eq "$(jq -r '.verify | length' <<< "$OUT")" 2 "extents verified for db01"
assert_eq "$(jq -r '.location.datastores | join(",")' <<< "$OUT")" truenas-vmware16k "db01's datastores"
run 0 "$NFSAGENT" migrate --vm "Bjørn test" --datastore truenas-vmware16k
assert_contains "$OUT" "Bjørn test is on datastore truenas-vmware16k"
# Unknown names: nothing is moved.
run 2 "$NFSAGENT" migrate --vm fiotst --datastore truenas-vmware
assert_contains "$ERR" "no VM is named 'fiotst'; did you mean 'fiotest'"
run 2 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmwar
assert_contains "$ERR" "did you mean 'truenas-vmware'"
run 2 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware --on-extent-bug cold
assert_contains "$ERR" "--allow-power-off"
assert_eq "$(calls RelocateVM_Task)" 3 "relocations"
lab_stop

# The bug always, policy fail: exit 3, the verdict names the bug, VM still on source.
lab_start -nfs41-bug always
mount41
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k
# One error line, the verdict; the evidence (the task's fault among it) above.
assert_eq "$(grep '^nfsagent: ' <<< "$ERR" | grep -v 'warning: ')" "nfsagent: Storage vMotion of fiotest to truenas-vmware16k failed: NFS 4.1 extent-size mismatch on datastore truenas-vmware16k (host DC0_H0, ESXi 8.0.3 build 24022510)" "the error line of a diagnosed failure"
assert_eq "$(grep -c 'extent-size mismatch on datastore' <<< "$OUT")" 0 "the verdict said once, as the error"
assert_contains "$(flat "$OUT")" "Failed to load one or more destination disks"
assert_contains "$(flat "$OUT")" "Size of extent in descriptor file larger than real size"
assert_contains "$(flat "$OUT")" "target: [truenas-vmware16k] fiotest/fiotest-flat.vmdk reads as 0 bytes through host DC0_H0 but whole through DC0_C0_H0, DC0_C0_H1, DC0_C0_H2"
# The evidence quotes long log lines: each wrapped within 120 columns.
assert_le "$(widest "$OUT")" 120 "a failed migrate's widest line"
assert_contains "$OUT" "To move it all the same: --on-extent-bug nfs3 (NFS 3 for the move), snapshot, or cold with --allow-power-off."
assert_contains "$OUT" "fiotest is on datastore truenas-vmware (host DC0_H0), poweredOn."
# What the failed move left on the target is listed with sizes, not deleted.
assert_contains "$OUT" "Left on the targets by failed moves (not deleted; check them, then delete them by hand):"
assert_contains "$OUT" "  [truenas-vmware16k] fiotest/fiotest.vmdk, "
# The retry goes into fiotest_1/ (fiotest/ holds the first attempt's
# leftovers): its diagnosis quotes only the log lines written since its task
# started (ESXi's 3 signature lines; two name the files, in fiotest_1/) and
# checks only fiotest_1/.
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --json
assert_eq "$(jq -r .diagnosis.extent_bug <<< "$OUT")" true "extent_bug"
assert_eq "$(jq -r .moved <<< "$OUT")" false "moved"
evidence=$(jq -r '.diagnosis.evidence[]' <<< "$OUT")
logged=$(grep 'vmware.log: ' <<< "$evidence" || true)
assert_eq "$(grep -c . <<< "$logged")" 3 "log lines quoted for the retry"
assert_eq "$(grep -c 'truenas-vmware16k/fiotest_1/' <<< "$logged")" 2 "quoted lines naming the retry's files"
assert_eq "$(grep -c 'truenas-vmware16k/fiotest/' <<< "$logged" || true)" 0 "quoted lines of the first attempt"
assert_contains "$evidence" "target: [truenas-vmware16k] fiotest_1/fiotest-flat.vmdk"
assert_eq "$(jq -r '[.leftovers[] | select(startswith("[truenas-vmware16k] fiotest_1/fiotest.vmdk, "))] | length' <<< "$OUT")" 1 \
	"the retry's copy among the leftovers"
assert_eq "$(grep -c 'target: \[truenas-vmware16k\] fiotest/' <<< "$evidence" || true)" 0 \
	"evidence from the first attempt's folder"

# Policy nfs3: remounted as NFS 3 on the same hosts, moved, verified.
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3
assert_contains "$OUT" "Remounting truenas-vmware16k (10.0.0.5:/mnt/tank/vmware16k) as NFS 3 on 4 hosts."
assert_contains "$OUT" "DC0_C0_H2: mounted truenas-vmware16k (NFS 3 10.0.0.5:/mnt/tank/vmware16k, read-write)"
assert_contains "$OUT" "Moved fiotest to truenas-vmware16k after the workaround."
assert_contains "$OUT" "all hold what their descriptors declare"
assert_eq "$(ds_type truenas-vmware16k)" NFS "type after the fallback"
assert_eq "$(vm_field fiotest '.datastores | join(",")')" truenas-vmware16k "fiotest's datastores"
lab_stop

# Policy snapshot: the snapshot is taken, the move succeeds, the snapshot goes.
# (VMware Tools take 2 s to come up after a power-on: the cold move below
# waits for them.)
lab_start -nfs41-bug always -tools-boot-seconds 2
mount41
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug snapshot
assert_contains "$OUT" "Moved fiotest to truenas-vmware16k after the workaround."
assert_eq "$(calls CreateSnapshot_Task)" 1 "snapshots taken"
assert_eq "$(calls RemoveSnapshot_Task)" 1 "snapshots removed"
assert_contains "$OUT" "Removed the snapshot 'nfsagent-svmotion' of fiotest."
assert_eq "$(vm_field fiotest '.datastores | join(",")')" truenas-vmware16k "fiotest's datastores"

# Policy cold: powered off, moved, powered on again.
run 0 "$NFSAGENT" migrate --vm db01 --datastore truenas-vmware16k --on-extent-bug cold --allow-power-off
assert_contains "$OUT" "Moved db01 to truenas-vmware16k after the workaround."
assert_contains "$OUT" "db01 is on datastore truenas-vmware16k (host DC0_H0), poweredOn."
assert_contains "$OUT" "Waiting for VMware Tools in db01 (up to 300 s)."
run 0 "$NFSAGENT" ls vms --json
assert_eq "$(jq -r '.[] | select(.name == "db01") | .tools' <<< "$OUT")" guestToolsRunning "db01's Tools after the cold move"
assert_eq "$(calls PowerOffVM_Task)" 1 "power-offs"
assert_eq "$(calls PowerOnVM_Task)" 1 "power-ons"
lab_stop

# Several VMs move at once (2 per source host); the extent-size bug stops new
# starts, and the move in flight ends before the fleet does.
lab_start -nfs41-bug always
mount41
run 0 "$NFSAGENT" migrate --from-datastore truenas-vmware --datastore truenas-vmware16k --dry-run
assert_contains "$OUT" "Would move 3 VMs (" "plan"
assert_contains "$OUT" ") to truenas-vmware16k, up to 4 at once (at most 2 per source host, 8 per datastore): 2 waves of moves at the least." "plan"
assert_eq "$(grep -c ' move$' <<< "$OUT")" 3 "VMs in the plan"
assert_eq "$(calls RelocateVM_Task)" 0 "relocations in a dry run"
run 3 "$NFSAGENT" migrate --from-datastore truenas-vmware --datastore truenas-vmware16k
assert_contains "$OUT" "Bjørn test: started"
assert_contains "$OUT" "Stopped: the extent-size mismatch showed; more moves there would repeat it."
assert_contains "$OUT" "0 of 3 VMs now on truenas-vmware16k ("
grep -qE '^Bjørn test +DC0_H0 .* not moved: NFS 4.1 extent-size mismatch' <<< "$OUT" || fail "Bjørn test's row: $OUT"
grep -qE '^fiotest +DC0_H0 .* not tried$' <<< "$OUT" || fail "fiotest's row: $OUT"
assert_eq "$(calls RelocateVM_Task)" 2 "relocations before the stop (the two that fit the host's limit)"
# A name that matches nothing: nothing moves.
run 2 "$NFSAGENT" migrate --vm db01 --vm fiotst --datastore truenas-vmware16k
assert_contains "$ERR" "did you mean 'fiotest'"
assert_eq "$(calls RelocateVM_Task)" 2 "relocations after a bad name"
# With the NFS 3 fallback the first move remounts, the second needs nothing.
run 0 "$NFSAGENT" migrate --vm fiotest --vm db01 --datastore truenas-vmware16k --on-extent-bug nfs3 --json
assert_eq "$(jq -r '[.vms[] | .moved] | join(",")' <<< "$OUT")" "true,true" "moved"
assert_eq "$(jq -r '.remounted' <<< "$OUT")" "NFS 3" "the workaround"
assert_eq "$(ds_type truenas-vmware16k)" NFS "type after the fallback"
assert_eq "$(vm_field db01 '.datastores | join(",")')" truenas-vmware16k "db01's datastores"
lab_stop

# A VM named twice is refused before anything moves; a failure stops new
# starts, unless --keep-going.
lab_start
"$NFSAGENT" mount --host DC0_H0 --name ro --server 10.0.0.5 --path /mnt/tank/vmware16k --nfs 3 \
	--read-only > /dev/null
run 2 "$NFSAGENT" migrate --vm fiotest --vm fiotest --vm db01 --datastore ro
assert_contains "$ERR" "VM fiotest is named twice"
assert_eq "$(calls RelocateVM_Task)" 0 "relocations after a VM named twice"
run 1 "$NFSAGENT" migrate --vm fiotest --vm db01 --vm "Bjørn test" --datastore ro --parallel 1
assert_contains "$OUT" "Stopped: a move failed (--keep-going carries on after a failure)."
grep -qE '^fiotest +DC0_H0 .* not moved: .*DatastoreNotWritableOnHost' <<< "$OUT" || fail "fiotest's row: $OUT"
grep -qE '^db01 +DC0_H0 .* not tried$' <<< "$OUT" || fail "db01's row: $OUT"
assert_eq "$(calls RelocateVM_Task)" 1 "relocations without --keep-going"
run 1 "$NFSAGENT" migrate --vm fiotest --vm db01 --datastore ro --keep-going --json
assert_eq "$(jq -r '[.vms[] | select(.result == "not tried")] | length' <<< "$OUT")" 0 "VMs not tried with --keep-going"
assert_eq "$(jq -r '[.vms[] | .error.fault] | join(",")' <<< "$OUT")" \
	DatastoreNotWritableOnHost,DatastoreNotWritableOnHost "faults with --keep-going"
assert_eq "$(calls RelocateVM_Task)" 3 "relocations with --keep-going"
# The failures are rows of the result; the end says it in one line.
assert_eq "$(grep '^nfsagent: ' <<< "$ERR" | grep -vc 'warning: ')" 1 "error lines of two failed moves"
assert_contains "$ERR" "nfsagent: 2 of 2 VMs did not move (see the table above)"
lab_stop

# Ctrl-C: the running Storage vMotion finishes and is verified; no other starts.
lab_start -task-seconds 2 -slow-tasks RelocateVM_Task
mount41
interrupt_when_called RelocateVM_Task \
	"$NFSAGENT" migrate --from-datastore truenas-vmware --datastore truenas-vmware16k --parallel 1
assert_eq "$RC" 1 "exit status after Ctrl-C"
assert_contains "$ERR" "interrupted: 2 of 3 VMs not tried"
grep -qE '^Bjørn test +DC0_H0 .* moved, verified$' <<< "$OUT" || fail "Bjørn test's row: $OUT"
grep -qE '^fiotest +DC0_H0 .* not tried$' <<< "$OUT" || fail "fiotest's row: $OUT"
assert_eq "$(calls RelocateVM_Task)" 1 "relocations after Ctrl-C"
assert_contains "$ERR" "nfsagent: stopping: letting the Storage vMotions in flight finish"

# The NFS 3 fallback that unmounting would refuse (vSphere HA heartbeats
# there) is one refusal, before a word of remounting, and changes nothing.
lab_stop
lab_start -nfs41-bug always -ha-heartbeat truenas-vmware16k
mount41
before=$(calls RemoveDatastore)
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3
assert_not_contains "$OUT" "Remounting"
assert_contains "$ERR" "nfsagent: remounting truenas-vmware16k as NFS 3 failed: cannot unmount truenas-vmware16k: vSphere HA uses it for heartbeating"
assert_eq "$(calls RemoveDatastore)" "$before" "unmounts of a refused remount"
assert_eq "$(ds_type truenas-vmware16k)" NFS41 "type after a refused remount"
echo "migrate: ok"
