#!/usr/bin/env bash
# A failed campaign run resumes from where things really are, not from what
# its cleanup journaled: the VM (every disk) ends where it started, a target
# the failed run unmounted is mounted again, and a VM with disks on two
# datastores gets each disk back on its own.
. "$(dirname "$0")/lib.sh"
DB="$XDG_DATA_HOME/nfsagent/results.db"

campaign() {  # campaign FILE NAME VM TARGET-LINES
	{
		tiny_campaign "$2" vm="$3"
		printf '\n[target t]\nprobe = no\n%s\n' "$4"
	} > "$1"
}
vm_datastores() {  # the datastores of VM $1, comma separated
	"$NFSAGENT" ls vms --json | jq -r --arg vm "$1" '.[] | select(.name == $vm) | .datastores | sort | join(",")'
}
bench_datastores() {
	"$NFSAGENT" ls datastores --json | jq '[.[] | select(.name | startswith("bench-"))] | length'
}
step() { sqlite3 "$DB" "SELECT detail FROM campaign_steps WHERE run = (SELECT run FROM campaign_runs WHERE name = '$1') AND step = '$2'"; }

lab_start -export 10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware16k
c="$WORK/c.ini"
"$NFSAGENT" mount --all-hosts --name pre16k --server 10.0.0.5 --path /mnt/tank/vmware16k --nfs 3 > /dev/null

# 1. An existing datastore as target, a wrong guest password: the failed
# run's cleanup journals "home"; the resumed run moves the VM there again
# and must bring it back.
campaign "$c" pw fiotest "datastore = pre16k"
NFSAGENT_GUEST_PASSWORD=wrong run 1 "$NFSAGENT" run "$c"
assert_contains "$ERR" "InvalidGuestLogin: the guest user name or password is wrong"
assert_eq "$(step pw start)" truenas-vmware "the start, journaled"
assert_eq "$(step pw start-power)" poweredOn "the start's power state"
assert_eq "$(vm_datastores fiotest)" truenas-vmware "fiotest after the failed run"
NFSAGENT_GUEST_PASSWORD=secret run 0 "$NFSAGENT" run "$c" --resume
assert_contains "$OUT" "  t  1 ok"
assert_eq "$(vm_datastores fiotest)" truenas-vmware "fiotest after the resume"

# 2. A target the campaign mounts: the failed run's cleanup unmounted it,
# the resume mounts it again (and unmounts it at the end).
campaign "$c" mnt fiotest "datastore = bench-v3
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3"
NFSAGENT_GUEST_PASSWORD=wrong run 1 "$NFSAGENT" run "$c"
assert_eq "$(bench_datastores)" 0 "campaign datastores after the failed run"
NFSAGENT_GUEST_PASSWORD=secret run 0 "$NFSAGENT" run "$c" --resume
assert_not_contains "$ERR" "no datastore is named"
assert_contains "$OUT" "  t  1 ok, over NFS 3"
assert_eq "$(vm_datastores fiotest)" truenas-vmware "fiotest after the resume"
assert_eq "$(bench_datastores)" 0 "campaign datastores after the resume"

# 2b. A mount of the campaign's that a host of the target lost while the
# run was stopped (an admin; or the VM now runs in another cluster): the
# resume mounts it there again, not only where it is gone everywhere.
{
	tiny_campaign lost cleanup=no
	nfs_target t bench-v3 /mnt/tank/vmware64k 3 probe=no hosts=all
} > "$c"
NFSAGENT_GUEST_PASSWORD=wrong run 1 "$NFSAGENT" run "$c"
run 0 "$NFSAGENT" unmount --host DC0_C0_H1 --name bench-v3
NFSAGENT_GUEST_PASSWORD=secret run 0 "$NFSAGENT" run "$c" --resume
assert_contains "$OUT" "DC0_C0_H1: mounted bench-v3 (NFS 3 10.0.0.5:/mnt/tank/vmware64k, read-write)"
assert_not_contains "$OUT" "was mounted before the campaign"
assert_eq "$(step lost mount:t)" mounted "the mount, still the campaign's"
run 0 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware  # cleanup = no left it there
run 0 "$NFSAGENT" unmount --all-hosts --name bench-v3

# 3. db01 has a disk on truenas-vmware and one on LocalDS_0: both go to the
# target, and each comes back to its own datastore.
export NFSAGENT_GUEST_PASSWORD=secret
campaign "$c" two db01 "datastore = bench-v3
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3"
before=$(calls RelocateVM_Task)
run 0 "$NFSAGENT" run "$c" --trace "$WORK/trace"
# The whole inventory is read once (and once per mount, by the mount): a move,
# a mount or an unmount reads only the datastores and the VM again.  Only a
# whole walk reads the clusters.
assert_le "$(grep -c '<type>ClusterComputeResource</type><pathSet>name' "$WORK/trace")" 2 "whole inventory walks"
assert_contains "$OUT" "  t  1 ok"
assert_contains "$OUT" "Moving 1 disk of db01 back to its own datastore."
# The end state is read back from vCenter and checked, disk by disk.
assert_contains "$OUT" "End state, read from vCenter:"
assert_contains "$OUT" "  db01: files on truenas-vmware, host DC0_H0, poweredOn: as it started"
assert_contains "$OUT" "  Hard disk 2: on LocalDS_0: as it started"
assert_eq "$(step two start-disk:2001)" LocalDS_0 "db01's second disk, journaled"
assert_eq "$(vm_datastores db01)" LocalDS_0,truenas-vmware "db01's datastores"
# There, home, the second disk to LocalDS_0.
assert_eq "$(( $(calls RelocateVM_Task) - before ))" 3 "Storage vMotions of db01"

# 4. Killed (SIGKILL) during a cold move, right after the VM was powered off:
# the resume powers it on first (it ran at the start), waits for VMware
# Tools to come up (3 s after the power-on), finishes, and the VM ends home
# and running.
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -nfs41-bug always -task-seconds 2 \
	-slow-tasks RelocateVM_Task -tools-boot-seconds 3
{
	tiny_campaign cold allow_power_off=yes
	nfs_target t bench-v41 /mnt/tank/vmware64k 4.1 probe=no on_extent_bug=cold
} > "$c"
"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" &
pid=$!
# The warm move fails on the bug, the VM is powered off, the cold move runs: kill.
for i in $(seq 1 300); do
	[ "$(calls PowerOffVM_Task)" -ge 1 ] && [ "$(calls RelocateVM_Task)" -ge 2 ] && break
	sleep 0.1
done
kill -KILL "$pid"
RC=0
wait "$pid" || RC=$?
assert_eq "$RC" 137 "exit status of the run killed during the cold move"
sleep 2.5  # the cold move finishes without nfsagent: the VM is off on the target
run 0 "$NFSAGENT" run "$c" --resume
assert_contains "$OUT" "Powering fiotest on: it ran when the campaign started."
assert_contains "$OUT" "Waiting for VMware Tools in fiotest (up to 300 s)."
assert_contains "$OUT" "  fiotest: files on truenas-vmware, host DC0_H0, poweredOn: as it started"
assert_contains "$OUT" "  t  1 ok"
run 0 "$NFSAGENT" ls vms --json
assert_eq "$(jq -r '.[] | select(.name == "fiotest") | "\(.datastores | join(",")) \(.power_state)"' <<< "$OUT")" \
	"truenas-vmware poweredOn" "fiotest after the resume"
# 5. Another VM moved onto the campaign's datastore while the campaign ran
# (an admin, DRS): the cleanup reads who is there now, not what the
# inventory said at the start, and refuses to unmount (nothing removed);
# once that VM is gone, the resume unmounts it.
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -task-seconds 2 -slow-tasks RelocateVM_Task
{
	tiny_campaign intruder
	nfs_target t bench-v3 /mnt/tank/vmware64k 3 probe=no
} > "$c"
"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" &
pid=$!
for i in $(seq 1 300); do
	[ "$(calls RelocateVM_Task)" -ge 1 ] && break
	sleep 0.1
done
# (The simulator's own VMs have no real descriptors: their verify fails.)
"$NFSAGENT" migrate --vm DC0_H0_VM0 --datastore bench-v3 > /dev/null 2>&1 || true
assert_eq "$(vm_datastores DC0_H0_VM0)" bench-v3 "DC0_H0_VM0 moved onto the campaign's datastore"
RC=0
wait "$pid" || RC=$?
assert_eq "$RC" 1 "exit status of the run whose datastore another VM uses"
assert_contains "$(cat "$WORK/err")" "refusing to unmount 'bench-v3': VMs have files there: DC0_H0_VM0"
assert_eq "$(calls RemoveDatastore)" 0 "datastores removed while DC0_H0_VM0 is there"
"$NFSAGENT" migrate --vm DC0_H0_VM0 --datastore truenas-vmware > /dev/null 2>&1 || true
assert_eq "$(vm_datastores DC0_H0_VM0)" truenas-vmware "DC0_H0_VM0 moved away"
run 0 "$NFSAGENT" run "$c" --resume
assert_eq "$(bench_datastores)" 0 "campaign datastores after the resume"
# 6. A datastore the admin mounted on one host: the campaign mounts it on
# the target's other hosts too (hosts = all), and cleanup takes exactly
# those away again (the admin's host keeps it).
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k
run 0 "$NFSAGENT" mount --host DC0_H0 --name bench-v3 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3
{
	tiny_campaign added
	nfs_target t bench-v3 /mnt/tank/vmware64k 3 probe=no hosts=all
} > "$c"
run 0 "$NFSAGENT" run "$c"
assert_contains "$OUT" "Target t: bench-v3 was mounted before the campaign; cleanup unmounts it again from the 3 hosts the campaign added."
assert_eq "$(grep -c ': unmounted bench-v3$' <<< "$OUT")" 3 "hosts the cleanup unmounted"
assert_not_contains "$OUT" "DC0_H0: unmounted bench-v3"
run 0 "$NFSAGENT" ls datastores --json
assert_eq "$(jq -r '.[] | select(.name == "bench-v3") | .hosts | join(",")' <<< "$OUT")" DC0_H0 "bench-v3's hosts after the campaign"
# 7. A guest without fio: said before anything moves or mounts (once, not
# after a Storage vMotion per target).
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -guest-fio missing
{
	tiny_campaign nofio
	nfs_target t bench-v3 /mnt/tank/vmware64k 3 probe=no
} > "$c"
run 2 "$NFSAGENT" run "$c"  # as bench: the guest lacks what it needs
assert_contains "$ERR" "nfsagent: preparing fiotest for benchmarks failed: fiotest has no fio: install it in the guest"
assert_eq "$(calls RelocateVM_Task)" 0 "Storage vMotions of a campaign whose guest has no fio"
assert_eq "$(find "$WORK/lab/guests" -name 'nfsagent-*' | wc -l)" 0 "nfsagent folders left in the guest by the fio check"
assert_eq "$(bench_datastores)" 0 "campaign datastores after it"
# 8. The guest's folders are made once a campaign and kept from round to
# round; a cold move's power cycle may empty the guest's /tmp (the lab's
# default, as a tmpfs; -guest-tmp-kept: not), and nfsagent cannot know:
# the next round makes them and uploads its job again.
rounds() {  # rounds NAME LAB-FLAGS...: 2 x (NFS 3, NFS 4.1 moved cold on the bug)
	local name=$1
	shift
	lab_stop
	lab_start -export 10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware16k -tools-boot-seconds 1 "$@"
	{
		tiny_campaign "$name" repeat=2 allow_power_off=yes
		nfs_target t3 bench-v3 /mnt/tank/vmware64k 3 probe=no
		nfs_target t41 bench-v41 /mnt/tank/vmware16k 4.1 probe=no on_extent_bug=cold
	} > "$c"
	run 0 "$NFSAGENT" run "$c"
	assert_eq "$(sqlite3 "$DB" "SELECT count(*) FROM results WHERE status = 'ok' AND campaign = (SELECT run FROM campaign_runs WHERE name = '$name')")" 4 "results of $name"
	assert_eq "$(find "$WORK/lab/guests" -name 'nfsagent-*' | wc -l)" 0 "nfsagent folders left in the guest by $name"
}
rounds warm -nfs41-bug off
assert_eq "$(calls MakeDirectoryInGuest)" 2 "guest folders made by 4 rounds without a power cycle"
assert_eq "$(calls InitiateFileTransferToGuest)" 1 "job texts uploaded by them"
for lab in "" -guest-tmp-kept; do
	# shellcheck disable=SC2086
	rounds "powercycled$lab" -nfs41-bug always $lab
	assert_eq "$(grep -c "Powered fiotest back on" <<< "$OUT")" 2 "cold moves ($lab)"
	assert_eq "$(calls MakeDirectoryInGuest)" 6 "guest folders made: at the start, after each power cycle ($lab)"
	assert_eq "$(calls InitiateFileTransferToGuest)" 3 "job texts uploaded: at first, after each power cycle ($lab)"
done
# 9. The kept folders gone without a power cycle (a reboot by HA, a tmp
# cleaner): a run that was writing there when they went fails, and the next
# start, refused for them, makes them again and starts once more (the
# campaign does not fail, nor every run after).
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware16k -nfs41-bug off
{
	tiny_campaign cleaned repeat=2
	nfs_target t3 bench-v3 /mnt/tank/vmware64k 3 probe=no
	nfs_target t41 bench-v41 /mnt/tank/vmware16k 4.1 probe=no
} > "$c"
"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" &
pid=$!
ran() { sqlite3 "$DB" "SELECT count(*) FROM results WHERE campaign = (SELECT run FROM campaign_runs WHERE name = 'cleaned')" 2> /dev/null || echo 0; }
began=$SECONDS
until [ "$(ran)" -ge 1 ]; do
	kill -0 "$pid" 2> /dev/null || fail "the campaign ended before its first result: $(cat "$WORK/out" "$WORK/err")"
	[ $((SECONDS - began)) -lt 90 ] || fail "no first result in 90 s"
	sleep 0.05
done
find "$WORK/lab/guests" -maxdepth 3 -name 'nfsagent-*' -exec rm -rf {} +
rc=0; wait "$pid" || rc=$?
assert_le "$rc" 1 "the campaign's exit code (a failed result at most)"
cat "$WORK/out" "$WORK/err"
q="SELECT group_concat(status, ' ') FROM (SELECT status FROM results WHERE campaign = (SELECT run FROM campaign_runs WHERE name = 'cleaned') ORDER BY id)"
statuses=$(sqlite3 "$DB" "$q")
case "$statuses" in "ok ok ok ok" | "ok failed ok ok") ;; *) fail "each round's result after the folders went: $statuses" ;; esac
assert_contains "$(cat "$WORK/out")" "randread-4k-qd1 #2 on t41: ok"
assert_eq "$(find "$WORK/lab/guests" -name 'nfsagent-*' | wc -l)" 0 "nfsagent folders left in the guest"
echo "campaign_reconcile: ok"
