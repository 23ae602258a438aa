#!/usr/bin/env bash
# Every command that takes --dry-run (migrate, run) changes nothing: after a
# dry run the lab has seen no call that changes anything, only reads.
. "$(dirname "$0")/lib.sh"
export NFSAGENT_GUEST_PASSWORD=secret

# dry_run EXPECTED_EXIT cmd...: runs cmd on a fresh methods log and fails on
# any call that is not a read; the calls that change things most are also
# counted one by one, so that a failure names them.
dry_run() {
	local expected=$1 m
	shift
	: > "$LAB_LOG"
	run "$expected" "$@"
	for m in RelocateVM_Task CreateNasDatastore RemoveDatastore CreateVirtualDisk_Task \
		DeleteVirtualDisk_Task CreateSnapshot_Task RemoveSnapshot_Task PowerOffVM_Task \
		PowerOnVM_Task MakeDirectory StartProgramInGuest MakeDirectoryInGuest \
		InitiateFileTransferToGuest; do
		assert_eq "$(calls "$m")" 0 "$m calls in '$*'"
	done
	assert_eq "$(not_reads)" "" "calls other than reads in '$*'"
	assert_ge "$(calls)" 1 "calls in '$*'"  # it did look at the lab
}
ds_names() { "$NFSAGENT" ls datastores --json | jq -r '[.[] | "\(.name):\(.type)"] | sort | join(",")'; }
vm_datastores() { "$NFSAGENT" ls vms --json | jq -r --arg n "$1" '.[] | select(.name == $n) | .datastores | join(",")'; }

# ---- migrate: one VM, several, a whole datastore; with and without the NFS 3 fallback
lab_start -nfs41-bug always
"$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
	--path /mnt/tank/vmware16k --nfs 4.1 > /dev/null
before=$(ds_names)
dry_run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --dry-run
assert_contains "$OUT" "Would move 1 VM (" "plan of one VM"
assert_contains "$OUT" ") to truenas-vmware16k, up to 4 at once" "plan of one VM"
grep -qE '^fiotest +DC0_H0 +[0-9.]+ [KMG]?i?B +move$' <<< "$OUT" || fail "fiotest's plan: $OUT"
dry_run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3 --dry-run
assert_contains "$OUT" "Would move 1 VM ("
dry_run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug snapshot \
	--dry-run --json
assert_eq "$(jq -r '[.vms[] | .vm] | join(",")' <<< "$OUT")" fiotest "JSON plan of one VM"
assert_eq "$(jq -r '.dry_run' <<< "$OUT")" true "JSON plan says it is one"
dry_run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug cold \
	--allow-power-off --dry-run
dry_run 0 "$NFSAGENT" migrate --vm fiotest --vm db01 --datastore truenas-vmware16k \
	--on-extent-bug nfs3 --dry-run
assert_contains "$OUT" "Would move 2 VMs ("
dry_run 0 "$NFSAGENT" migrate --from-datastore truenas-vmware --datastore truenas-vmware16k \
	--on-extent-bug nfs3 --dry-run
assert_contains "$OUT" "Would move 3 VMs ("
# A dry run checks as much as a real one: a wrong name still fails, nothing changes.
dry_run 2 "$NFSAGENT" migrate --vm fiotst --datastore truenas-vmware16k --dry-run
assert_contains "$ERR" "did you mean 'fiotest'"
assert_eq "$(vm_datastores fiotest)" truenas-vmware "fiotest's datastores after the dry runs"
assert_eq "$(ds_names)" "$before" "datastores after the dry runs"
lab_stop

# ---- run: a campaign that would mount, probe, move and benchmark
lab_start -export 10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware64k-b -nfs41-bug always
c="$WORK/c.ini"
{
	tiny_campaign dry
	nfs_target v3 bench-v3 /mnt/tank/vmware64k 3
	nfs_target v41 bench-v41 /mnt/tank/vmware64k-b 4.1 on_extent_bug=nfs3
} > "$c"
before=$(ds_names)
dry_run 0 "$NFSAGENT" run "$c" --dry-run
assert_contains "$OUT" "target v41: 10.0.0.5:/mnt/tank/vmware64k-b as NFS 4.1 named bench-v41"
assert_eq "$(ds_names)" "$before" "datastores after run --dry-run"
assert_eq "$(vm_datastores fiotest)" truenas-vmware "fiotest's datastores after run --dry-run"
# No run was claimed: nothing to resume, nothing in the journal.
assert_eq "$(sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "SELECT count(*) FROM campaign_runs")" 0 "campaign runs"
# An NFS 4.1 target whose export is mounted as NFS 3 already: refused by
# the dry run as by a real one, before anything changes.
"$NFSAGENT" mount --all-hosts --name pre3 --server 10.0.0.5 --path /mnt/tank/vmware64k-b --nfs 3 > /dev/null
before=$(ds_names)
dry_run 2 "$NFSAGENT" run "$c" --dry-run
assert_eq "$ERR" "nfsagent: target v41: 10.0.0.5:/mnt/tank/vmware64k-b is mounted as NFS 3 already (datastore 'pre3'); the target asks for NFS 4.1: unmount it first, or set nfs = 3"
assert_eq "$(ds_names)" "$before" "datastores after the refused dry run"
echo "dry_run: ok"
