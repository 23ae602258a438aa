#!/usr/bin/env bash
# Paging, session expiry mid-listing (both shapes), HTTP 503 bursts: the
# listing comes back whole, each VM exactly once, and the user sees nothing.
. "$(dirname "$0")/lib.sh"

check_all_vms() {
	assert_eq "$(jq length <<< "$OUT")" $((2000 + SEED_VMS)) "VMs listed"
	assert_eq "$(jq '[.[].moref] | unique | length' <<< "$OUT")" $((2000 + SEED_VMS)) "distinct VMs"
	assert_eq "$ERR" "" "stderr"
}

lab_start -hosts 50 -vms 2000
run 0 "$NFSAGENT" ls vms --json --page-size 100
check_all_vms
assert_ge "$(calls ContinueRetrievePropertiesEx)" 20 "pages fetched with ContinueRetrievePropertiesEx"
assert_eq "$(calls Login)" 1 "logins"
lab_stop

# Calls: 1 RetrieveServiceContent, 2 Login, 3 CreateContainerView,
# 4 RetrievePropertiesEx, 5.. ContinueRetrievePropertiesEx.  Expiring at call
# 7 kills the session in the middle of the paging (HTTP 500 NotAuthenticated).
lab_start -hosts 50 -vms 2000 -expire-after 7
run 0 "$NFSAGENT" ls vms --json --page-size 100
check_all_vms
assert_eq "$(calls Login)" 2 "logins (one re-login)"
assert_eq "$(calls CreateContainerView)" 2 "container views (recreated after re-login)"
lab_stop

# Expiring at call 4 makes RetrievePropertiesEx answer HTTP 200 with every
# property in missingSet (NotAuthenticated): the other shape.
lab_start -hosts 50 -vms 2000 -expire-after 4
run 0 "$NFSAGENT" ls vms --json --page-size 100
check_all_vms
assert_eq "$(calls Login)" 2 "logins (one re-login)"
lab_stop

# A burst of HTTP 503 replies in the middle of the paging is retried.
lab_start -hosts 50 -vms 2000 -fail-503-after 6 -fail-burst 3
run 0 "$NFSAGENT" ls vms --json --page-size 100
check_all_vms
assert_eq "$(awk '$3 == 503' "$LAB_LOG" | wc -l)" 3 "503 replies sent"
lab_stop

# Random 503s on 20% of the calls after login.
lab_start -hosts 50 -vms 2000 -fail-503 0.2 -fail-503-after 2 -seed 7
run 0 "$NFSAGENT" ls vms --json --page-size 100
check_all_vms
assert_ge "$(awk '$3 == 503' "$LAB_LOG" | wc -l)" 1 "503 replies sent"
lab_stop

# A paging token is the session's too: a session that ends in the middle of
# reading a VM's recent tasks (the check for a running relocation before a
# move, one task per page) is renewed and the read starts over. The moves
# are the same each time, so the first lab tells which call that is.
moves() {  # moves LAB_FLAGS...: two moves, then a third one read page by page
	lab_start -nfs41-bug off -export 10.0.0.5:/mnt/tank/vmware16k "$@"
	run 0 "$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
		--path /mnt/tank/vmware16k --nfs 4.1
	run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k
	run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware
	run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --page-size 1
}
moves
# The last ContinueRetrievePropertiesEx before the third RelocateVM_Task.
at=$(awk '$2 == "ContinueRetrievePropertiesEx" { last = NR }
	$2 == "RelocateVM_Task" && ++moves == 3 { print last; exit }' "$LAB_LOG")
logins=$(calls Login)
lab_stop
moves -expire-after "$at"
assert_contains "$(cat "$WORK/lab.err")" "call $at (ContinueRetrievePropertiesEx): expired"
# The read the expiry cut was the VM's disks with its recent tasks (one
# object a page), and it started over after the re-login: its pages again,
# then the listing of the target's folders and its task, the move.
assert_eq "$(awk -v at="$at" 'NR >= at - 2 && NR <= at + 7 { printf "%s ", $2 }' "$LAB_LOG")" \
	"RetrievePropertiesEx ContinueRetrievePropertiesEx ContinueRetrievePropertiesEx Login RetrievePropertiesEx ContinueRetrievePropertiesEx ContinueRetrievePropertiesEx SearchDatastore_Task RetrievePropertiesEx RelocateVM_Task " \
	"the calls around the expired one"
assert_eq "$(calls Login)" "$((logins + 1))" "logins (one re-login during the paging)"
assert_eq "$(calls RelocateVM_Task)" 3 "Storage vMotions"
echo "resilience: ok"
