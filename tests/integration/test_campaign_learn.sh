#!/usr/bin/env bash
# A campaign learns from its probe: once the NFS 4.1 extent-size bug showed on
# a target whose policy is nfs3, its rounds mount it as NFS 3 from the start
# (no move into the bug); a target the bug stopped makes run exit 3.
. "$(dirname "$0")/lib.sh"
export NFSAGENT_GUEST_PASSWORD=secret

campaign() {  # campaign FILE NAME POLICY
	{
		tiny_campaign "$2" repeat=2 probe_disks=1 probe_size=16M
		nfs_target v41 bench-v41 /mnt/tank/vmware64k 4.1 on_extent_bug="$3"
	} > "$1"
}

lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always
c="$WORK/learn.ini"
campaign "$c" learn nfs3
# Ctrl-C after repetition 1: the resumed run knows what the stopped one learned.
"$NFSAGENT" run "$c" > "$WORK/run.out" 2>&1 &
pid=$!
for i in $(seq 1 600); do grep -q "randread-4k-qd1 #1 on v41: ok" "$WORK/run.out" && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
assert_eq "$rc" 1 "exit status after Ctrl-C"
OUT=$(cat "$WORK/run.out")
assert_contains "$(flat "$OUT")" "Target v41: the NFS 4.1 extent-size bug showed in its probe; on_extent_bug = nfs3, so its rounds mount bench-v41 as NFS 3 from the start."
assert_contains "$OUT" "Repetition 1 on target v41 (as NFS 3: the extent-size bug showed on NFS 4.1):"
assert_contains "$OUT" "Target v41: NFS 4.1 leaves /mnt/tank/vmware64k first."
run 0 "$NFSAGENT" run "$c" --resume
assert_contains "$OUT" "Repetition 2 on target v41 (as NFS 3: the extent-size bug showed on NFS 4.1):"
assert_not_contains "$OUT" "leaves /mnt/tank/vmware64k first" "the resumed run's output"
assert_contains "$OUT" "  v41  2 ok, over NFS 3: all fell back to NFS 3"
# results names what ran: the target's NFS 3 rows say so.
run 0 "$NFSAGENT" results
assert_ge "$(grep -c ' v41 (ran as NFS 3) ' <<< "$OUT")" 2 "results rows of v41 named as run"
assert_eq "$(grep -c ' v41  ' <<< "$OUT")" 0 "results rows of v41 not named"
run 0 "$NFSAGENT" results --json
assert_eq "$(jq -c '[.[] | .ran_as_nfs3] | unique' <<< "$OUT")" "[true]" "ran_as_nfs3 in results --json"
run 0 "$NFSAGENT" results --csv
assert_eq "$(python3 -c 'import csv, sys; print(sorted({r["ran_as_nfs3"] for r in csv.DictReader(sys.stdin)}))' <<< "$OUT")" \
	"['true']" "ran_as_nfs3 in results --csv"
# Two moves only (there and home): none went into the bug first.
assert_eq "$(calls RelocateVM_Task)" 2 "Storage vMotions"
# Mounted as NFS 4.1 on the VM's host for the probe, then as NFS 3 once.
assert_eq "$(calls CreateNasDatastore)" 2 "NFS mounts"
assert_eq "$(sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "SELECT COUNT(*) FROM findings WHERE kind = 'migration'")" 0 "failed moves"

# Policy fail: the bug stops the move, the target gives nothing: exit 3.
campaign "$c" stopped fail
run 3 "$NFSAGENT" run "$c"
assert_contains "$OUT" "  v41  no results: the extent-size bug stopped the move there"
assert_contains "$ERR" "target v41: its benchmarks are skipped: Storage vMotion of fiotest to "
assert_contains "$ERR" "failed: NFS 4.1 extent-size mismatch on datastore "
run 1 "$NFSAGENT" run "$c" --resume
assert_contains "$ERR" "no unfinished run to resume"

# An export the admin mounted as NFS 4.1 before the campaign: the learned
# switch to NFS 3 unmounts it, and cleanup puts the admin's mount back as it
# was: NFS 4.1 on the same two hosts, one of them read-only (the campaign's
# own NFS 3 mount went to the VM's host).
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always
run 0 "$NFSAGENT" mount --host DC0_H0 --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
run 0 "$NFSAGENT" mount --host DC0_C0_H1 --read-only --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
campaign "$c" admins nfs3
run 0 "$NFSAGENT" run "$c"
assert_contains "$OUT" "Target v41: mounting bench-v41 as NFS 4.1 again, as it was before the campaign."
assert_contains "$OUT" "DC0_H0: mounted bench-v41 (NFS 4.1 10.0.0.5:/mnt/tank/vmware64k, read-write)"
assert_contains "$OUT" "DC0_C0_H1: mounted bench-v41 (NFS 4.1 10.0.0.5:/mnt/tank/vmware64k, read-only)"
assert_contains "$OUT" "  v41  2 ok, over NFS 3: all fell back to NFS 3"
# results names what ran: the target's NFS 3 rows say so.
run 0 "$NFSAGENT" results
assert_ge "$(grep -c ' v41 (ran as NFS 3) ' <<< "$OUT")" 2 "results rows of v41 named as run"
assert_eq "$(grep -c ' v41  ' <<< "$OUT")" 0 "results rows of v41 not named"
run 0 "$NFSAGENT" results --json
assert_eq "$(jq -c '[.[] | .ran_as_nfs3] | unique' <<< "$OUT")" "[true]" "ran_as_nfs3 in results --json"
run 0 "$NFSAGENT" ls datastores --json
assert_eq "$(jq -r '.[] | select(.name == "bench-v41") | "\(.type) \(.hosts | length)"' <<< "$OUT")" "NFS41 2" "the admin's bench-v41 after the campaign"
# Killed right after it journaled the admin's mount, before the switch to
# NFS 3; the world then as the switch leaves it part-way (the admin's mount
# gone from DC0_H0 only) or wholly (gone from both hosts). The resume takes
# the record it made first, not the mounts left, and gives the admin's mount
# back exactly (both hosts, DC0_C0_H1 read-only).
: "${KILL_AFTER_COMMIT:?KILL_AFTER_COMMIT must name the kill_after_commit shim}"
for cut in DC0_H0 all; do
	lab_stop
	lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always
	run 0 "$NFSAGENT" mount --host DC0_H0 --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
	run 0 "$NFSAGENT" mount --host DC0_C0_H1 --read-only --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
	campaign "$c" "cut-$cut" nfs3
	rc=0
	KILL_AFTER_STEP_NAMED=put-back: LD_PRELOAD="$KILL_AFTER_COMMIT" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$NFSAGENT" run "$c" > "$WORK/out" 2>&1 || rc=$?
	assert_eq "$rc" 137 "exit status of the run killed after journaling the admin's mount"
	if [ "$cut" = all ]; then
		run 0 "$NFSAGENT" unmount --all-hosts --name bench-v41
	else
		run 0 "$NFSAGENT" unmount --host "$cut" --name bench-v41
	fi
	run 0 "$NFSAGENT" run "$c" --resume
	assert_contains "$OUT" "DC0_H0: mounted bench-v41 (NFS 4.1 10.0.0.5:/mnt/tank/vmware64k, read-write)"
	assert_contains "$OUT" "DC0_C0_H1: mounted bench-v41 (NFS 4.1 10.0.0.5:/mnt/tank/vmware64k, read-only)"
	run 0 "$NFSAGENT" ls datastores --json
	assert_eq "$(jq -r '.[] | select(.name == "bench-v41") | "\(.type) \(.hosts | sort | join(","))"' <<< "$OUT")" \
		"NFS41 DC0_C0_H1,DC0_H0" "the admin's bench-v41 after a kill, cut on $cut, and the resume"
done
# Without a probe the move itself meets the bug, and migrate's nfs3 policy
# remounts the admin's datastore as NFS 3 on its own hosts: that mount is
# journaled before the move, so cleanup puts the admin's NFS 4.1 back exactly
# (both hosts, DC0_C0_H1 read-only), for a target that names the export and
# for one that names only the datastore.
for form in export name; do
	lab_stop
	lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always
	run 0 "$NFSAGENT" mount --host DC0_H0 --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
	run 0 "$NFSAGENT" mount --host DC0_C0_H1 --read-only --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
	{
		tiny_campaign "moved-$form" repeat=1
		if [ "$form" = export ]; then
			nfs_target v41 bench-v41 /mnt/tank/vmware64k 4.1 on_extent_bug=nfs3 probe=no
		else
			printf '\n[target v41]\ndatastore = bench-v41\non_extent_bug = nfs3\nprobe = no\n'
		fi
	} > "$c"
	run 0 "$NFSAGENT" run "$c"
	assert_contains "$OUT" "Target v41: mounting bench-v41 as NFS 4.1 again, as it was before the campaign." "$form"
	assert_contains "$OUT" "DC0_C0_H1: mounted bench-v41 (NFS 4.1 10.0.0.5:/mnt/tank/vmware64k, read-only)" "$form"
	run 0 "$NFSAGENT" ls datastores --json
	assert_eq "$(jq -r '.[] | select(.name == "bench-v41") | "\(.type) \(.hosts | sort | join(","))"' <<< "$OUT")" \
		"NFS41 DC0_C0_H1,DC0_H0" "the admin's bench-v41 after a move that remounted it as NFS 3 ($form)"
done
# The nfs3 workaround refused (vSphere HA heartbeats on the admin's
# datastore, so it cannot be unmounted): the target is stopped by the bug
# (exit 3) and why the workaround failed is said.
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always -ha-heartbeat bench-v41
run 0 "$NFSAGENT" mount --all-hosts --name bench-v41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1
{
	tiny_campaign refused repeat=1
	printf '\n[target v41]\ndatastore = bench-v41\non_extent_bug = nfs3\nprobe = no\n'
} > "$c"
run 3 "$NFSAGENT" run "$c"
assert_contains "$ERR" "nfsagent: warning: target v41: its benchmarks are skipped: remounting bench-v41 as NFS 3 failed: "
assert_contains "$ERR" "vSphere HA"
echo "campaign_learn: ok"
