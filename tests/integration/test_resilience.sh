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
echo "resilience: ok"
