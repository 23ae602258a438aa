#!/usr/bin/env bash
# The ESXi NFS client's settings as provenance (docs/bench-and-results.md):
# two hosts whose NFS.MaxQueueDepth differs (the lab's -host-option), a
# bench on each records its host's settings once per run, results --json
# shows them, compare names the difference as a factor with both values,
# and a group run's members carry their own host's.
. "$(dirname "$0")/lib.sh"
# fleet-01 is on DC0_C0_H0, fleet-02 on DC0_C0_H1 (the lab spreads the fleet
# over the hosts by name).
lab_start -fleet 2 -tools-running fleet-01,fleet-02 -host-option DC0_C0_H1:NFS.MaxQueueDepth=64
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
quick=(--profile randread-4k-qd1 --size 4M --runtime 1 --db "$db")
defaults="NFS.MaxQueueDepth=4294967295 NFS.MaxVolumes=32 SunRPC.MaxConnPerIP=4"
tuned="NFS.MaxQueueDepth=64 NFS.MaxVolumes=32 SunRPC.MaxConnPerIP=4"

# Two repetitions, one reading: NFS., NFS41. (none in the lab: InvalidName,
# not an error) and SunRPC., once for the run.
before=$(calls QueryOptions)
run 0 "$NFSAGENT" bench --vm fleet-01 --repeat 2 --label side=a "${quick[@]}"
assert_eq "$(($(calls QueryOptions) - before))" 3 "QueryOptions calls for one host's run"
assert_not_contains "$ERR" "warning:"
run 0 "$NFSAGENT" bench --vm fleet-02 --repeat 2 --label side=b "${quick[@]}"

run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq -r '[.[] | "\(.host): \(.nfs_client)"] | unique | join(",")' <<< "$OUT")" \
	"DC0_C0_H0: $defaults,DC0_C0_H1: $tuned" "each host's settings"
run 0 "$NFSAGENT" results --db "$db" --where "nfs_client=$tuned" --json
assert_eq "$(jq -r '[.[] | .vm] | unique | join(",")' <<< "$OUT")" fleet-02 "selected by the settings"

# compare: the settings are a factor, named with both values.
run 0 "$NFSAGENT" compare --db "$db" --a side=a --b side=b
assert_contains "$(flat "$OUT")" "nfs_client ($defaults vs $tuned)"
run 0 "$NFSAGENT" compare --db "$db" --a side=a --b side=b --json
assert_contains "$OUT" "nfs_client"

# A group run's members carry their own host's settings.
# (runs of 2 s: at ctest -j8 one guest's fio of 1 s began as the other's ended)
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --repeat 2 --label side=g "${quick[@]}" --runtime 2
run 0 "$NFSAGENT" results --db "$db" --where side=g --json --members
assert_eq "$(jq -r '[.[] | select(.vm | startswith("fleet")) | "\(.vm): \(.nfs_client)"] | unique | join(",")' <<< "$OUT")" \
	"fleet-01: $defaults,fleet-02: $tuned" "the group's members"
# compare takes the group as one run: over hosts whose settings differ it
# went through no one client's, so it has none.
run 0 "$NFSAGENT" compare --db "$db" --a side=g --b side=b
assert_contains "$(flat "$OUT")" "nfs_client (unset vs $tuned)"

echo "nfs_client: ok"
