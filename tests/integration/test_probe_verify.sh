#!/usr/bin/env bash
# probe (canary disks, always cleaned up) and verify (hand-damaged descriptors).
. "$(dirname "$0")/lib.sh"

mount41() {
	"$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
		--path /mnt/tank/vmware16k --nfs 4.1 > /dev/null
}
export16k() { echo "$WORK/lab/nfs/10.0.0.5/mnt/tank/vmware16k"; }

lab_start -nfs41-bug off
mount41
: > "$LAB_LOG"
run 0 "$NFSAGENT" probe --host DC0_H0 --datastore truenas-vmware16k --disks 4 --size 64M \
	--trace "$WORK/probe.trace"
assert_contains "$(flat "$OUT")" "clean: 4 of 4 canary disks on datastore truenas-vmware16k (NFS 4.1, host DC0_H0, ESXi 8.0.3 build 24022510)"
assert_le "$(widest "$OUT")" 120 "probe's widest line"
assert_eq "$(ls "$(export16k)")" "" "files left on the export"
# The canaries go with their folder, in one recursive delete.
assert_eq "$(calls DeleteVirtualDisk_Task)" 0 "canaries deleted one by one"
assert_eq "$(calls DeleteDatastoreFile_Task)" 1 "folder deletes"
# The four hosts the canaries are read through: how to reach them, in one read.
hosts_read=$(grep '<RetrievePropertiesEx xmlns' "$WORK/probe.trace" | grep 'sslThumbprint')
assert_eq "$(wc -l <<< "$hosts_read")" 1 "reads of the hosts"
assert_eq "$(grep -o '<obj type="HostSystem">' <<< "$hosts_read" | wc -l)" 4 "hosts in that read"
run 2 "$NFSAGENT" probe --host DC0_H0 --datastore LocalDS_1
assert_contains "$ERR" "no datastore is named 'LocalDS_1'"

# verify: a clean VM, then hand-damaged descriptors.
run 0 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "fiotest: 1 extent checked: all hold what their descriptors declare"
desc="$WORK/lab/nfs/10.0.0.5/mnt/tank/vmware/fiotest/fiotest.vmdk"
sed -i 's/^RW \([0-9]*\) VMFS/RW 99\1 VMFS/' "$desc"
run 3 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "1 SMALLER than their descriptors say"
assert_contains "$OUT" "MISMATCH  [truenas-vmware] fiotest/fiotest-flat.vmdk"
run 3 "$NFSAGENT" verify --vm fiotest --json
assert_eq "$(jq -r .mismatch <<< "$OUT")" true "mismatch"
printf 'garbage\0\1\2' > "$desc"
run 1 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "PROBLEM"
assert_contains "$OUT" "binary data"
lab_stop

lab_start -nfs41-bug always
mount41
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore truenas-vmware16k --disks 4 --size 64M
assert_le "$(widest "$OUT")" 120 "probe's widest line, with a mismatch"
assert_contains "$(flat "$OUT")" "NFS 4.1 extent-size mismatch on datastore truenas-vmware16k (host DC0_C0_H0, ESXi 8.0.3 build 24022510): 4 of 4 canary disks read short by hosts DC0_C0_H0, DC0_C0_H1, DC0_C0_H2, DC0_H0, each whole on the other hosts"
assert_eq "$(ls "$(export16k)")" "" "files left on the export"
lab_stop

lab_start -nfs41-bug flaky:0.3,7
mount41
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore truenas-vmware16k --disks 20 --size 64M --json
bad=$(jq -r .mismatches <<< "$OUT")
assert_ge "$bad" 1 "flaky mismatches"
assert_le "$bad" 19 "flaky mismatches"
assert_eq "$(ls "$(export16k)")" "" "files left on the export"
lab_stop

# Ctrl-C in the middle: the canaries are removed all the same.
lab_start -task-seconds 1 -slow-tasks CreateVirtualDisk_Task
mount41
interrupt_when_called CreateVirtualDisk_Task \
	"$NFSAGENT" probe --host DC0_H0 --datastore truenas-vmware16k --disks 10 --size 64M
assert_eq "$RC" 1 "exit status after Ctrl-C"
assert_contains "$ERR" "interrupted after"
assert_eq "$(ls "$(export16k)")" "" "files left on the export after Ctrl-C"
lab_stop

# A datacenter inside a folder: /folder URLs need its inventory path, F0/DC0.
lab_start -dc-folder
mount41
run 0 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "all hold what their descriptors declare"
run 0 "$NFSAGENT" probe --host DC0_H0 --datastore truenas-vmware16k --disks 2 --size 64M
assert_contains "$(flat "$OUT")" "clean: 2 of 2 canary disks"
lab_stop

# A cluster upgraded host by host: the bug is 8.0 U3's NFS 4.1 client, and
# the host still on 8.0 U2 mounts the same export without it.
# (The canaries are made and read through every host that mounts the
# datastore, so each datastore here is mounted by one host.)
lab_start -nfs41-bug always -nfs41-bug-build 24022510 -esxi-host DC0_H0=8.0.2:22380479
for h in DC0_H0 DC0_C0_H0; do
	"$NFSAGENT" mount --host $h --name "nfs41-$h" --server 10.0.0.5 --path /mnt/tank/vmware16k \
		--nfs 4.1 > /dev/null
done
run 0 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-DC0_H0 --disks 2 --size 64M
assert_contains "$(flat "$OUT")" "clean: 2 of 2 canary disks on datastore nfs41-DC0_H0 (NFS 4.1, host DC0_H0, ESXi 8.0.2 build 22380479)"
run 3 "$NFSAGENT" probe --host DC0_C0_H0 --datastore nfs41-DC0_C0_H0 --disks 2 --size 64M
assert_contains "$(flat "$OUT")" "host DC0_C0_H0, ESXi 8.0.3 build 24022510"
echo "probe/verify: ok"
