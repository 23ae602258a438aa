#!/usr/bin/env bash
# mount / unmount: both protocols, idempotence, the mixed NFS 3 / 4.1 refusal,
# names that do not exist, unmount refused while VMs live there.
. "$(dirname "$0")/lib.sh"
lab_start

ds_field() { "$NFSAGENT" ls datastores --json | jq -r --arg n "$1" ".[] | select(.name == \$n) | $2"; }

assert_eq "$(ds_field truenas-vmware .type)" NFS "pre-mounted datastore type"
assert_eq "$(ds_field truenas-vmware '.hosts | length')" 4 "hosts mounting truenas-vmware"

run 0 "$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
	--path /mnt/tank/vmware16k --nfs 4.1
assert_eq "$(grep -c 'mounted truenas-vmware16k (NFS 4.1 10.0.0.5:/mnt/tank/vmware16k, read-write)' <<< "$OUT")" 4 \
	"hosts mounted"
assert_eq "$(ds_field truenas-vmware16k .type)" NFS41 "type"
assert_eq "$(ds_field truenas-vmware16k .export)" /mnt/tank/vmware16k "export"
assert_eq "$(ds_field truenas-vmware16k '.hosts | length')" 4 "hosts"

# The same again is success and changes nothing.
before=$(calls CreateNasDatastore)
run 0 "$NFSAGENT" mount --all-hosts --name truenas-vmware16k --server 10.0.0.5 \
	--path /mnt/tank/vmware16k --nfs 4.1 --json
assert_eq "$(jq -r '[.hosts[] | select(.result == "already mounted")] | length' <<< "$OUT")" 4 "already mounted"
assert_eq "$(calls CreateNasDatastore)" "$before" "mount calls for an idempotent mount"

# A name taken by another export: the error says which export it is.
run 2 "$NFSAGENT" mount --host DC0_H0 --name truenas-vmware16k --server 10.0.0.5 \
	--path /mnt/tank/vmware64k --nfs 4.1
assert_one_line "$ERR"
assert_contains "$ERR" "already exists for another export: 10.0.0.5:/mnt/tank/vmware16k (NFS 4.1)"

# Mixing protocols on one export is refused, naming the hosts; so with a trailing slash.
for path in /mnt/tank/vmware16k /mnt/tank/vmware16k/; do
	run 2 "$NFSAGENT" mount --host DC0_H0 --name sixteen-v3 --server 10.0.0.5 --path "$path" --nfs 3
	assert_contains "$ERR" "the same export is mounted as NFS 4.1 (datastore 'truenas-vmware16k') on DC0_C0_H0"
	assert_contains "$ERR" "can corrupt data"
done
# The same name and export with the other protocol: said as such, one line.
run 2 "$NFSAGENT" mount --host DC0_H0 --name truenas-vmware16k --server 10.0.0.5 \
	--path /mnt/tank/vmware16k --nfs 3
assert_eq "$ERR" "nfsagent: datastore 'truenas-vmware16k' is this export already, mounted as NFS 4.1 on DC0_C0_H0, DC0_C0_H1, DC0_C0_H2, DC0_H0: the same export, other protocol; unmount it first to mount it as NFS 3" \
	"the same export, other protocol"
assert_eq "$(calls CreateNasDatastore)" "$before" "mount calls made by refused mounts"
# NFS 4.1 with several servers: the mount line names every one.
run 0 "$NFSAGENT" mount --host DC0_H0 --name multi41 --server 10.0.0.5,10.0.0.6 \
	--path /mnt/tank/vmware64k --nfs 4.1 --json
assert_eq "$(jq -r .server <<< "$OUT")" "10.0.0.5,10.0.0.6" "servers in JSON"
run 0 "$NFSAGENT" unmount --host DC0_H0 --name multi41 --json
assert_eq "$(jq -r '[.hosts[] | "\(.host)=\(.result)"] | join(",")' <<< "$OUT")" "DC0_H0=unmounted" "unmount's JSON"
assert_eq "$(jq -r .unmounted <<< "$OUT")" 1 "hosts unmounted, in JSON"
run 0 "$NFSAGENT" unmount --host DC0_H0 --name multi41 --json
assert_eq "$(jq -r .known <<< "$OUT")" false "an unmounted datastore is unknown to vCenter"
run 0 "$NFSAGENT" mount --host DC0_H0 --name multi41 --server 10.0.0.5,10.0.0.6 \
	--path /mnt/tank/vmware64k --nfs 4.1
assert_eq "$OUT" "DC0_H0: mounted multi41 (NFS 4.1 10.0.0.5,10.0.0.6:/mnt/tank/vmware64k, read-write)" \
	"the mount line"
run 0 "$NFSAGENT" unmount --host DC0_H0 --name multi41
before=$(calls CreateNasDatastore)

# A cluster.
run 0 "$NFSAGENT" mount --cluster DC0_C0 --name truenas-vmware64k --server 10.0.0.5 \
	--path /mnt/tank/vmware64k --nfs 3 --read-only
assert_eq "$(grep -c 'read-only' <<< "$OUT")" 3 "cluster hosts mounted read-only"
assert_eq "$(ds_field truenas-vmware64k '.hosts | length')" 3 "hosts of the cluster"

# Names that do not exist: one line, near matches, nothing changed.
before=$(calls CreateNasDatastore)
run 2 "$NFSAGENT" mount --host DC0_H9 --name x --server 10.0.0.5 --path /mnt/tank/vmware --nfs 3
assert_contains "$ERR" "no host is named 'DC0_H9'; did you mean 'DC0_H0'"
run 2 "$NFSAGENT" mount --cluster DC0_C1 --name x --server 10.0.0.5 --path /mnt/tank/vmware --nfs 3
assert_contains "$ERR" "no cluster is named 'DC0_C1'; did you mean 'DC0_C0'"
assert_eq "$(calls CreateNasDatastore)" "$before" "mount calls made for unknown names"

# An export the server does not have: the NAS refuses the mount. ESXi's
# faultstring is generic; its reason (faultMessage) follows the headline,
# indented. Exit 1.
run 1 "$NFSAGENT" mount --host DC0_H0 --name nope --server 10.0.0.5 --path /mnt/tank/nope --nfs 3
headline=$(sed -n 1p <<< "$ERR")
assert_contains "$headline" "PlatformConfigFault: An error occurred during host configuration."
assert_eq "$(sed -n 2p <<< "$ERR")" "  reason: NFS mount 10.0.0.5:/mnt/tank/nope failed: The mount request was denied by the NFS server. Check that the export exists and that the client is permitted to mount it. (vob.vmfs.nfs.mount.error.perm.denied)" "the refusal's reason"
# One error, told once: no summary line after it (nothing is mounted
# anywhere: a mount is all or nothing).
assert_eq "$(grep -c . <<< "$ERR")" 2 "stderr lines of a refused mount"
run 1 "$NFSAGENT" mount --host DC0_H0 --name nope --server 10.0.0.5 --path /mnt/tank/nope --nfs 3 --json
assert_eq "$(jq -r '.hosts[0].details' <<< "$OUT")" "reason: NFS mount 10.0.0.5:/mnt/tank/nope failed: The mount request was denied by the NFS server. Check that the export exists and that the client is permitted to mount it. (vob.vmfs.nfs.mount.error.perm.denied)" "the reason in JSON"

# Bad arguments never reach vCenter.
run 2 "$NFSAGENT" mount --host DC0_H0 --name x --server 10.0.0.5 --path /mnt/x --nfs 4
assert_eq "$ERR" "nfsagent: --nfs is 3 or 4.1, not '4'
Try 'nfsagent mount --help'." "a refusal of mount's check, told once"
run 2 "$NFSAGENT" mount --host DC0_H0 --name x --server a,b --path /mnt/x --nfs 3
assert_contains "$ERR" "NFS 3 takes one server"
run 2 "$NFSAGENT" mount --all-hosts --host DC0_H0 --name x --server a --path /mnt/x --nfs 3

# Unmount: refused while VMs live there (listing them), fine otherwise.
run 2 "$NFSAGENT" unmount --all-hosts --name truenas-vmware
assert_contains "$ERR" "refusing to unmount 'truenas-vmware': VMs have files there:"
assert_contains "$ERR" "fiotest"
run 0 "$NFSAGENT" unmount --all-hosts --name truenas-vmware64k
assert_eq "$(grep -c '^DC0_C0_H.: unmounted truenas-vmware64k' <<< "$OUT")" 3 "unmounted"
assert_eq "$(ds_field truenas-vmware64k .name)" "" "datastore left after unmounting from every host"
# Unmounting what is not mounted is success, as mounting what is mounted:
# on hosts that do not mount it, and once vCenter has forgotten it; a typo
# gets its hint.
before=$(calls RemoveDatastore)
run 0 "$NFSAGENT" unmount --all-hosts --name truenas-vmware64k
assert_eq "$OUT" "truenas-vmware64k is not mounted on any host" "unmounting again"
assert_eq "$ERR" "nfsagent: warning: no datastore is named 'truenas-vmware64k'; did you mean 'truenas-vmware16k'?" \
	"the hint when unmounting again"
run 0 "$NFSAGENT" unmount --all-hosts --name truenas-vmware64
assert_eq "$OUT" "truenas-vmware64 is not mounted on any host" "unmounting a name that matches nothing"
assert_contains "$ERR" "no datastore is named 'truenas-vmware64'; did you mean 'truenas-vmware'"
run 0 "$NFSAGENT" mount --host DC0_H0 --name one-host --server 10.0.0.5 --path /mnt/tank/vmware --nfs 3
run 0 "$NFSAGENT" unmount --host DC0_C0_H1 --name one-host
assert_eq "$OUT" "DC0_C0_H1: one-host is not mounted" "a host that does not mount it"
assert_eq "$(calls RemoveDatastore)" "$before" "unmounts of what is not mounted"
lab_stop

# All or nothing: DC0_C0_H1 cannot mount NFS 3, so the hosts mounted before it
# are unmounted again, DC0_C0_H2 is not tried, and no host has the datastore.
# One error line (the fault, its reason under it), exit 1. stdout is
# line-buffered in a pipe: each line comes when it is done, before the error
# (not all at exit).
lab_start -fail-mount DC0_C0_H1:NFS
rc=0
"$NFSAGENT" mount --all-hosts --name late --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3 \
	> "$WORK/both" 2>&1 || rc=$?
assert_eq "$rc" 1 "exit code of a mount that fails on one host"
assert_eq "$(cat "$WORK/both")" "DC0_H0: mounted late (NFS 3 10.0.0.5:/mnt/tank/vmware64k, read-write)
DC0_C0_H0: mounted late (NFS 3 10.0.0.5:/mnt/tank/vmware64k, read-write)
DC0_C0_H1: mounting late failed; unmounting it again from DC0_H0, DC0_C0_H0 (all or nothing)
DC0_H0: unmounted late (NFS 3)
DC0_C0_H0: unmounted late (NFS 3)
nfsagent: mounting 10.0.0.5:/mnt/tank/vmware64k as late on DC0_C0_H1 failed: PlatformConfigFault: An error occurred during host configuration.
  reason: NFS mount 10.0.0.5:/mnt/tank/vmware64k failed: Unable to connect to NFS server. (com.vmware.esx.hostctl.default)" \
	"the lines of a mount undone, in order"
assert_eq "$("$NFSAGENT" ls datastores --json | jq -r '[.[] | select(.name == "late")] | length')" 0 \
	"datastores named late after the failed mount"
assert_eq "$(calls CreateNasDatastore) $(calls RemoveDatastore)" "3 2" "mounts tried, mounts undone"
run 1 "$NFSAGENT" mount --all-hosts --name late --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3 --json
assert_eq "$(jq -r '[.hosts[] | "\(.host)=\(.result)"] | join(" ")' <<< "$OUT")" \
	"DC0_H0=rolled back DC0_C0_H0=rolled back DC0_C0_H1=failed DC0_C0_H2=not tried" "each host's result in JSON"
assert_eq "$(grep '^nfsagent:' <<< "$ERR")" "nfsagent: mounting 10.0.0.5:/mnt/tank/vmware64k as late on DC0_C0_H1 failed: PlatformConfigFault: An error occurred during host configuration." \
	"the one error line with --json"
assert_eq "$(ds_field late .name)" "" "the datastore after the failed JSON mount"
# A host that had it before is not the failed mount's to undo: DC0_H0 keeps it.
run 0 "$NFSAGENT" mount --host DC0_H0 --name late --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3
run 1 "$NFSAGENT" mount --all-hosts --name late --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3
assert_eq "$(head -3 <<< "$OUT")" "DC0_H0: late is already mounted
DC0_C0_H0: mounted late (NFS 3 10.0.0.5:/mnt/tank/vmware64k, read-write)
DC0_C0_H1: mounting late failed; unmounting it again from DC0_C0_H0 (all or nothing)" "a present host is not undone"
assert_eq "$(ds_field late '.hosts | join(",")')" DC0_H0 "hosts of late after the second failed mount"
assert_eq "$(calls RemoveDatastore)" 5 "mounts undone (2 + 2 + 1)"

# nConnect: --connections reaches every host's CreateNasDatastore (the lab
# says what it was asked: vSphere reports no datastore's connections back).
lab_stop
lab_start
run 0 "$NFSAGENT" mount --all-hosts --name conn3 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3 \
	--connections 4
assert_eq "$(grep -c 'mounted conn3 (NFS 3 10.0.0.5:/mnt/tank/vmware64k, read-write, 4 connections)' <<< "$OUT")" 4 \
	"hosts mounted with 4 connections"
assert_eq "$(grep -c 'CreateNasDatastore conn3 on .*: connections 4$' "$WORK/lab.err")" 4 "connections the hosts were asked for"
# What ESXi refuses is refused before any host is asked.
for bad in 0 9 4x; do
	run 2 "$NFSAGENT" mount --all-hosts --name conn9 --server 10.0.0.5 --path /mnt/tank/vmware16k --nfs 3 \
		--connections "$bad"
	assert_contains "$ERR" "--connections is a whole number from 1 to 8, not '$bad'"
done
assert_eq "$(calls CreateNasDatastore)" 4 "mount calls after bad --connections"
# NFS 4.1 takes connections from ESXi 8.0 U3, NFS 3 from 8.0 U1.
lab_stop
lab_start -esxi 8.0.2:22380479
run 2 "$NFSAGENT" mount --all-hosts --name conn41 --server 10.0.0.5 --path /mnt/tank/vmware16k --nfs 4.1 \
	--connections 2
assert_one_line "$ERR"
assert_contains "$ERR" "--connections needs ESXi 8.0 U3 for NFS 4.1; "
assert_contains "$ERR" " runs 8.0.2"
assert_eq "$(calls CreateNasDatastore)" 0 "mount calls on hosts too old for NFS 4.1 connections"
run 0 "$NFSAGENT" mount --host DC0_H0 --name conn3 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3 \
	--connections 2
assert_contains "$(cat "$WORK/lab.err")" "CreateNasDatastore conn3 on DC0_H0: connections 2"
echo "mount: ok"
