#!/usr/bin/env bash
# nas create | destroy: a test dataset and its share made and removed on the
# lab NAS behind a real sshd, as plain OpenZFS and as TrueNAS (SCALE 24.04,
# and 22.02 whose shares take "paths"): settings read back through zfs get,
# a second create adopts, destroy removes only what carries nfsagent's mark
# and retries "dataset is busy", a dry run only reads (the NAS's command
# log), and hostile names and values are refused before any NAS command.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
lab_start -hosts 2 -vms 2
nas_start
NAS="ssh -F $NAS_SSH_CONFIG nas"
LOG="$(dirname "$NAS_STATE")/nas-commands.log"
WRITES='^(zfs (create|destroy|set|inherit)|midclt call (pool\.dataset\.(create|delete|update)|sharing\.nfs\.(create|delete|update)))'
nas() { "$NFSAGENT" nas "$1" --nas-command "$NAS" "${@:2}"; }
zfs_list() { nas_command zfs list -Hp -o name,mountpoint; }
# getp PROP DATASET: the value zfs get prints
getp() { nas_command zfs get -Hp -o property,value,source "$1" "$2" | cut -f2; }
writes() { grep -Ec "$WRITES" "$LOG" || true; }

# Hostile names and values: refused with exit 2, no NAS command run at all.
: > "$LOG"
for bad in 'tank/x;touch /tmp/pwned' 'tank/$(id)' 'tank/a b' 'tank' '-rf' 'tank/../etc' "tank/x'y"; do
	run 2 nas create --dataset "$bad" --recordsize 16K
	assert_contains "$ERR" "is not a ZFS dataset name" "create $bad"
	run 2 nas destroy --dataset "$bad"
done
for opt in '--recordsize 3K' '--recordsize 4M' '--sync sometimes' '--compression lz5' \
	'--atime x;y' '--logbias fast' '--special-small-blocks 3000' '--share-to 10.0.0.0/24;x' \
	'--share-to 300.1.1.1/24' '--run-id a$b'; do
	read -r flag value <<< "$opt"
	run 2 nas create --dataset tank/ok "$flag" "$value"
done
assert_eq "$(wc -l < "$LOG")" 0 "NAS commands run for hostile input"

# backend_case TRUENAS_VERSION: the whole story on one backend ("" OpenZFS).
backend_case() {
	local v=$1 ds=tank/bench16k
	nas_model ".truenas = \"$v\""
	local before
	before=$(zfs_list)

	# The dry run reads only, and says what it would run and inherit.
	: > "$LOG"
	run 0 nas create --dataset $ds --recordsize 16K --sync always --logbias throughput \
		--share-to 10.0.0.0/24 --dry-run
	assert_contains "$OUT" "Dataset:              $ds: to make"
	assert_contains "$OUT" "recordsize:           16384 (to set)"
	assert_contains "$OUT" "compression:          lz4 (to inherit: default)"
	assert_contains "$OUT" "Would run:"
	if [ -z "$v" ]; then
		assert_contains "$OUT" "  zfs create -o recordsize=16384 -o sync=always -o logbias=throughput -o nfsagent:run=manual-"
		assert_contains "$OUT" "  zfs set sharenfs=rw=@10.0.0.0/24,no_root_squash $ds"
	else
		assert_contains "$OUT" "  midclt call pool.dataset.create '{\"name\":\"$ds\",\"recordsize\":\"16K\",\"sync\":\"ALWAYS\",\"type\":\"FILESYSTEM\",\"user_properties\":[{\"key\":\"nfsagent:run\",\"value\":\"manual-"
		assert_contains "$OUT" "  zfs set logbias=throughput $ds"
		assert_contains "$OUT" "midclt call sharing.nfs.create '{\"comment\":\"nfsagent run manual-"
	fi
	assert_ge "$(wc -l < "$LOG")" 3 "reads of the dry run"
	assert_eq "$(writes)" 0 "writes of the dry run ($(cat "$LOG"))"
	assert_eq "$(zfs_list)" "$before" "zfs list after the dry run"

	# Made, with the settings read back from the NAS.
	run 0 nas create --dataset $ds --recordsize 16K --sync always --logbias throughput \
		--share-to 10.0.0.0/24 --run-id test-run-1 --json
	assert_eq "$(jq -c '[.made, .adopted, .run, .mountpoint, .share_made]' <<< "$OUT")" \
		"[true,false,\"test-run-1\",\"/mnt/$ds\",true]" "create ($v)"
	assert_eq "$(jq -c '.settings | [.recordsize.value, .recordsize.source, .sync.value, .logbias.value, .compression.value, .compression.source]' <<< "$OUT")" \
		'["16384","local","always","throughput","lz4","default"]' "settings read back ($v)"
	assert_eq "$(getp recordsize $ds) $(getp nfsagent:run $ds) $(getp sync $ds)" "16384 test-run-1 always" "zfs get"
	if [ -z "$v" ]; then
		assert_eq "$(getp sharenfs $ds)" "rw=@10.0.0.0/24,no_root_squash" "sharenfs"
	else
		assert_eq "$(nas_command midclt call sharing.nfs.query | jq -c '[.[] | [(.path // .paths[0]), .networks, .maproot_user]]')" \
			"[[\"/mnt/$ds\",[\"10.0.0.0/24\"],\"root\"]]" "the TrueNAS share"
	fi
	# A second create adopts it and changes nothing.
	: > "$LOG"
	run 0 nas create --dataset $ds --recordsize 16K --share-to 10.0.0.0/24
	assert_contains "$OUT" "$ds: adopted (nfsagent's already: nothing made), run test-run-1"
	assert_contains "$OUT" "Share:                there already (adopted)"
	assert_eq "$(writes)" 0 "writes of the second create"

	# Another run's mark: not destroyed.
	run 2 nas destroy --dataset $ds --run-id another-run
	assert_contains "$ERR" "was made by nfsagent run test-run-1, not another-run"

	# Busy twice, then clear: removed on the third try, share first.
	nas_model ".faults.busy[\"$ds\"] = 2"
	run 0 nas destroy --dataset $ds --busy-wait 30 --json
	assert_eq "$(jq -c '[.destroyed, .share_removed, .tries, .run]' <<< "$OUT")" \
		'[true,true,3,"test-run-1"]' "busy twice ($v)"
	assert_eq "$(zfs_list)" "$before" "zfs list after create and destroy ($v)"
	assert_eq "$(jq -c '.shares // [] | length' "$NAS_STATE")" 0 "shares left ($v)"
	run 1 "$NFSAGENT" mount --all-hosts --name b16k --server 10.0.0.5 --path /mnt/$ds --nfs 3
	run 0 nas destroy --dataset $ds
	assert_eq "$OUT" "$ds: not there, nothing to destroy"

	# Busy forever: exit 1, why and the fix named, the dataset left.
	run 0 nas create --dataset tank/stuck --share-to 10.0.0.5
	nas_model '.faults.busy["tank/stuck"] = -1'
	run 1 nas destroy --dataset tank/stuck --busy-wait 2
	assert_contains "$ERR" "tank/stuck is still busy after "
	assert_contains "$ERR" "NFS 4.1 state"
	assert_contains "$ERR" "fix: restart the NAS's NFS service (nfsagent never does), or on Linux: echo /mnt/tank/stuck > /proc/fs/nfsd/unlock_filesystem"
	if [ -z "$v" ]; then
		assert_contains "$ERR" "then finish with: zfs destroy tank/stuck"
	else
		assert_contains "$ERR" "then finish with: midclt call pool.dataset.delete tank/stuck"
	fi
	assert_contains "$(zfs_list)" "tank/stuck" "the busy dataset is left"
	nas_model '.faults.busy = {}'
	run 0 nas destroy --dataset tank/stuck

	assert_eq "$(zfs_list)" "$before" "zfs list at the end ($v)"
}

# What does not depend on the backend, once: ESXi mounts a dataset made
# and shared, the refusals, a full pool, a refused share.
independent_checks() {
	local ds=tank/bench16k before
	before=$(zfs_list)
	run 0 nas create --dataset $ds --share-to 10.0.0.0/24 --run-id test-run-1
	# ESXi mounts it as an NFS export while it is shared.
	run 0 "$NFSAGENT" mount --all-hosts --name b16k --server 10.0.0.5 --path /mnt/$ds --nfs 3
	run 0 "$NFSAGENT" unmount --all-hosts --name b16k

	# Not nfsagent's: refused both ways, left as it is.
	run 2 nas destroy --dataset tank/vmware
	assert_contains "$ERR" "tank/vmware on $NAS is not nfsagent's (no nfsagent:run mark): not destroyed"
	run 2 nas create --dataset tank/vmware --recordsize 16K
	assert_contains "$ERR" "use it as an existing export"
	run 2 nas create --dataset tank/nope/x
	assert_contains "$ERR" "the parent tank/nope of tank/nope/x does not exist"
	assert_contains "$(zfs_list)" "tank/vmware	/mnt/tank/vmware" "tank/vmware kept"

	# A full pool, a share refused: exit 1 with the NAS's reason.
	nas_model '.free as $f | .free = 0 | .saved_free = $f'
	run 1 nas create --dataset tank/full
	assert_contains "$ERR" "out of space"
	nas_model '.free = .saved_free | del(.saved_free)'
	nas_model '.faults.share_refused = true'
	run 1 nas create --dataset tank/refused --share-to 10.0.0.0/24
	nas_model '.faults.share_refused = false'
	run 0 nas create --dataset tank/refused --share-to 10.0.0.0/24
	assert_contains "$OUT" "adopted"
	assert_contains "$OUT" "Share:                made"
	run 0 nas destroy --dataset tank/refused
	run 0 nas destroy --dataset $ds
	assert_eq "$(zfs_list)" "$before" "zfs list at the end"
}

backend_case ""
independent_checks
backend_case "TrueNAS-SCALE-24.04.2"
# SCALE 22.02: shares take "paths" (the model refuses "path").
nas_model '.truenas = "TrueNAS-SCALE-22.02.4"'
run 0 nas create --dataset tank/old --share-to 10.0.0.0/24 --json
assert_eq "$(nas_command midclt call sharing.nfs.query | jq -c '[.[].paths]')" '[["/mnt/tank/old"]]' "paths"
run 0 nas destroy --dataset tank/old
echo "PASS"
