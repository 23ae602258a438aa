#!/usr/bin/env bash
# Unmounting that knows vSphere: a datastore vSphere HA heartbeats on, or one
# where vCLS VMs live, is refused by unmount and by the NFS 3 fallback of
# migrate before any RemoveDatastore; a remount that fails on one host puts
# every host back, or says which host has which mount.
. "$(dirname "$0")/lib.sh"

mount41() {
	"$NFSAGENT" mount --all-hosts --name "$1" --server 10.0.0.5 --path "/mnt/tank/${1#truenas-}" \
		--nfs 4.1 > /dev/null
}
# stderr without the progress lines.
errors() { grep '^nfsagent:' <<< "$ERR"; }
ds_field() { "$NFSAGENT" ls datastores --json | jq -r --arg n "$1" ".[] | select(.name == \$n) | $2"; }
vm_field() { "$NFSAGENT" ls vms --json | jq -r --arg n "$1" ".[] | select(.name == \$n) | $2"; }

HA_LINE="nfsagent: cannot unmount truenas-vmware16k: vSphere HA uses it for heartbeating in cluster DC0_C0; pick other heartbeat datastores (cluster > Configure > vSphere Availability > Heartbeat Datastores) and retry"
# The lab names each host's agent VM after the host (DC0_C0_H0, _H1, _H2).
VCLS_VMS="vCLS-9da09caa-6c95-16f9-b79a-e3b3ce9c84fa, vCLS-45a2cab4-c3b4-6cc1-50b8-f4c11d59f77e, vCLS-7326202b-7a6d-fa30-63e8-777fed669665"
VCLS_LINE="nfsagent: cannot unmount truenas-vmware64k: vSphere Cluster Services VMs $VCLS_VMS live there; enable retreat mode for cluster DC0_C0 or move them"

lab_start -nfs41-bug always -ha-heartbeat truenas-vmware16k -vcls truenas-vmware64k
mount41 truenas-vmware16k
mount41 truenas-vmware64k
assert_eq "$(vm_field "vCLS-45a2cab4-c3b4-6cc1-50b8-f4c11d59f77e" .host)" DC0_C0_H1 "a vCLS VM's host"

# HA heartbeating: unmount and the fallback are refused, nothing unmounted.
run 2 "$NFSAGENT" unmount --all-hosts --name truenas-vmware16k
assert_eq "$ERR" "$HA_LINE" "unmount of the heartbeat datastore"
assert_eq "$OUT" "" "unmount output"
assert_eq "$(calls RetrieveDasAdvancedRuntimeInfo)" 1 "HA questions (one cluster)"
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3
# One refusal, naming the remount it stopped.
assert_eq "$(errors)" "nfsagent: remounting truenas-vmware16k as NFS 3 failed: ${HA_LINE#nfsagent: }" "fallback onto the heartbeat datastore"
assert_contains "$OUT" "fiotest is on datastore truenas-vmware (host DC0_H0), poweredOn."
assert_eq "$(ds_field truenas-vmware16k .type)" NFS41 "type after the refused fallback"

# vCLS VMs: the same, naming them.
run 2 "$NFSAGENT" unmount --cluster DC0_C0 --name truenas-vmware64k
assert_eq "$ERR" "$VCLS_LINE" "unmount of the vCLS datastore"
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware64k --on-extent-bug nfs3
assert_eq "$(errors)" "nfsagent: remounting truenas-vmware64k as NFS 3 failed: ${VCLS_LINE#nfsagent: }" "fallback onto the vCLS datastore"
assert_eq "$(ds_field truenas-vmware64k '.hosts | length')" 4 "hosts after the refused fallback"
assert_eq "$(calls RemoveDatastore)" 0 "RemoveDatastore calls while refused"
assert_eq "$(calls CreateNasDatastore)" 8 "mounts (the two datastores only)"

# HA only holds the cluster's hosts: the standalone host may let go.
run 0 "$NFSAGENT" unmount --host DC0_H0 --name truenas-vmware16k
assert_eq "$OUT" "DC0_H0: unmounted truenas-vmware16k" "unmount from the standalone host"
assert_eq "$(calls RemoveDatastore)" 1 "RemoveDatastore calls"
lab_stop

# Without HA or vCLS the same unmount works; a remount as NFS 3 that fails on
# one host (its NFS 3 mounts are refused) puts every host back on NFS 4.1.
lab_start -nfs41-bug always -fail-mount DC0_C0_H1:NFS
mount41 truenas-vmware64k
run 0 "$NFSAGENT" unmount --all-hosts --name truenas-vmware64k
assert_eq "$(grep -c ': unmounted truenas-vmware64k$' <<< "$OUT")" 4 "hosts unmounted"
mount41 truenas-vmware16k
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3
assert_eq "$(errors)" "nfsagent: mounting 10.0.0.5:/mnt/tank/vmware16k as truenas-vmware16k on DC0_C0_H1 failed: PlatformConfigFault: An error occurred during host configuration." "the failed mount"
assert_contains "$OUT" "DC0_C0_H0: mounted truenas-vmware16k (NFS 3 10.0.0.5:/mnt/tank/vmware16k, read-write)"
assert_contains "$OUT" "DC0_C0_H0: unmounted truenas-vmware16k (NFS 3)"
assert_contains "$OUT" "DC0_C0_H2: mounted truenas-vmware16k again (NFS 4.1 10.0.0.5:/mnt/tank/vmware16k)"
assert_contains "$OUT" "Put truenas-vmware16k back as NFS 4.1 on 4 hosts."
assert_eq "$(ds_field truenas-vmware16k .type)" NFS41 "type after the put-back"
assert_eq "$(ds_field truenas-vmware16k '.hosts | length')" 4 "hosts after the put-back"
assert_eq "$(vm_field fiotest '.datastores | join(",")')" truenas-vmware "fiotest's datastores"
# 4 unmounts for the 64k, 4 for the remount, 1 NFS 3 mount undone.
assert_eq "$(calls RemoveDatastore)" 9 "RemoveDatastore calls"
lab_stop

# When the put-back fails too (DC0_C0_H2's second NFS 4.1 mount), each host
# not as it was is named.
lab_start -nfs41-bug always -fail-mount DC0_C0_H1:NFS,DC0_C0_H2:NFS41:2
mount41 truenas-vmware16k
run 3 "$NFSAGENT" migrate --vm fiotest --datastore truenas-vmware16k --on-extent-bug nfs3
assert_contains "$ERR" "nfsagent: warning: mounting 10.0.0.5:/mnt/tank/vmware16k as truenas-vmware16k on DC0_C0_H2 failed: PlatformConfigFault"
assert_contains "$ERR" "nfsagent: warning: DC0_C0_H2 has no mount of truenas-vmware16k now (it had NFS 4.1)"
assert_contains "$ERR" "nfsagent: warning: 1 of 4 hosts are not as they were; the other hosts have truenas-vmware16k as NFS 4.1"
assert_not_contains "$OUT" "Put truenas-vmware16k back"
assert_eq "$(ds_field truenas-vmware16k '.hosts | length')" 3 "hosts after the failed put-back"
echo "unmount safety: ok"
