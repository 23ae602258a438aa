#!/usr/bin/env bash
# Waiting is event-driven: a Storage vMotion stretched to 30 s with 10
# progress steps costs one WaitForUpdatesEx per change plus a handful.
. "$(dirname "$0")/lib.sh"
lab_start -task-seconds 30 -task-steps 10 -slow-tasks RelocateVM_Task
"$NFSAGENT" mount --all-hosts --name truenas-vmware64k --server 10.0.0.5 \
	--path /mnt/tank/vmware64k --nfs 3 > /dev/null
: > "$LAB_LOG"
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware64k
assert_eq "$(grep -c '^Relocating fiotest to truenas-vmware64k: ' <<< "$ERR")" 11 "progress lines (0..100 by 10)"
during=$(awk '/RelocateVM_Task/ {on = 1; next} on && /DestroyPropertyFilter/ {exit} on' "$LAB_LOG" | wc -l)
assert_le "$during" 14 "SOAP calls while the 30 s Storage vMotion ran"
# 13: one is the listing of the target's folders before the move (which
# folder the attempt will use, for a diagnosis), a SearchDatastore_Task.
assert_le "$(calls WaitForUpdatesEx)" 13 "WaitForUpdatesEx calls"
# A Storage vMotion a killed nfsagent left running: the next migrate sees
# it in the same read as the VM's disks, waits for it, and starts none.
lab_stop
lab_start -task-seconds 4 -slow-tasks RelocateVM_Task
"$NFSAGENT" mount --all-hosts --name truenas-vmware64k --server 10.0.0.5 \
	--path /mnt/tank/vmware64k --nfs 3 > /dev/null
"$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware64k > /dev/null 2>&1 &
pid=$!
wait_for_call RelocateVM_Task
kill -KILL "$pid"
wait "$pid" 2> /dev/null || true
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware64k
assert_eq "$(calls RelocateVM_Task)" 1 "Storage vMotions (the killed run's, waited for)"
assert_contains "$OUT" "fiotest is on datastore truenas-vmware64k"
echo "migrate waiting: ok"
