#!/usr/bin/env bash
# ls hosts|datastores|vms against what the lab holds.
. "$(dirname "$0")/lib.sh"
lab_start -hosts 6 -vms 10

run 0 "$NFSAGENT" ls hosts --json
assert_eq "$(jq length <<< "$OUT")" 6 "host count"
assert_eq "$(jq -r '[.[].name] | sort | .[0]' <<< "$OUT")" "DC0_C0_H0" "first host"
assert_eq "$(jq -r '[.[] | select(.version == null or .build == null)] | length' <<< "$OUT")" 0 \
	"hosts without version or build"
hosts_json=$OUT

run 0 "$NFSAGENT" ls hosts
assert_eq "$(sed -n 1p <<< "$OUT" | tr -s ' ')" "NAME VERSION BUILD STATE" "header"
assert_eq "$(($(wc -l <<< "$OUT") - 1))" 6 "host rows"
first_build=$(jq -r '.[0].build' <<< "$hosts_json")
assert_contains "$OUT" "$first_build"

run 0 "$NFSAGENT" ls datastores --json
ds_json=$OUT
assert_ge "$(jq length <<< "$ds_json")" 1 "datastore count"
local_ds=$(jq -r '.[0].name' <<< "$ds_json")
assert_ge "$(jq -r '.[0].capacity' <<< "$ds_json")" 1 "capacity"
assert_ge "$(jq -r '.[0].hosts | length' <<< "$ds_json")" 1 "hosts mounting it"

run 0 "$NFSAGENT" ls datastores
assert_contains "$(sed -n 1p <<< "$OUT")" "NAME"
assert_contains "$OUT" "$local_ds"

run 0 "$NFSAGENT" ls vms --json
assert_eq "$(jq length <<< "$OUT")" $((10 + SEED_VMS)) "vm count"
# Hosts and datastores are shown by name, never as morefs.
assert_eq "$(jq -r '[.[] | select(.host | startswith("host-"))] | length' <<< "$OUT")" 0 "host names"
assert_eq "$(jq -r '[.[] | .datastores[] | select(startswith("datastore-"))] | length' <<< "$OUT")" 0 \
	"datastore names"
assert_ge "$(jq -r '[.[] | select(.power_state == "poweredOn")] | length' <<< "$OUT")" 1 "powered-on VMs"
host_of_first=$(jq -r '.[0].host' <<< "$OUT")
jq -e --arg h "$host_of_first" 'map(.name) | index($h)' <<< "$hosts_json" > /dev/null ||
	fail "VM host '$host_of_first' is not a listed host"

run 0 "$NFSAGENT" ls vms
assert_eq "$(sed -n 1p <<< "$OUT" | tr -s ' ')" "NAME POWER HOST DATASTORES TOOLS" "header"
assert_eq "$(($(wc -l <<< "$OUT") - 1))" $((10 + SEED_VMS)) "vm rows"
assert_contains "$OUT" "Bjørn test"

run 2 "$NFSAGENT" ls clusters
assert_contains "$ERR" "cannot list 'clusters'"
echo "ls: ok"
