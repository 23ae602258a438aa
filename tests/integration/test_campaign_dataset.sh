#!/usr/bin/env bash
# A campaign that makes its datasets (create = yes) on the lab NAS behind a
# real sshd, as plain OpenZFS and as TrueNAS: the dry run only reads; the
# run makes both with the settings asked (read back by each result), shares
# them, and removes them at the end, leaving zfs list as it was; killed
# after the create, after the first result and mid-cleanup, a resume makes
# each dataset once and removes it once; a dataset not nfsagent's is never
# destroyed, even when a campaign names it; busy for ever, the run ends
# with the dataset left, the fix named and exit 1, and --abort finishes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
lab_start
nas_start
export NFSAGENT_GUEST_PASSWORD=secret
LOG="$(dirname "$NAS_STATE")/nas-commands.log"
WRITES='^(zfs (create|destroy|set|inherit)|midclt call (pool\.dataset\.(create|delete|update)|sharing\.nfs\.(create|delete|update)))'
writes() { grep -Ec "$WRITES" "$LOG" || true; }
# creates (midclt takes its JSON on stdin: the log has no name), removals by name
made() { grep -Ec "^(zfs create|midclt call pool\.dataset\.create)" "$LOG" || true; }
removed() { grep -Ec "^(zfs destroy|midclt call pool\.dataset\.delete) $1\$" "$LOG" || true; }
zfs_list() { nas_command zfs list -Hp -o name,mountpoint; }
c="$WORK/c.ini"
{
	tiny_campaign made nas_command="ssh -F $NAS_SSH_CONFIG nas" cleanup=yes busy_wait=2
	for rs in 64K 16K; do
		printf '\n[target rs%s]\ndatastore = bench-%s\nserver = 10.0.0.5\nnfs = 3\n' "$rs" "$rs"
		printf 'create = yes\ndataset = tank/bench-%s\nrecordsize = %s\nsync = always\n' "$rs" "$rs"
		# the 64K one is shared to the hosts' NFS vmkernel addresses, as read
		[ "$rs" = 64K ] || printf 'share_to = 10.0.0.0/24\n'
	done
} > "$c"
db() { sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "$@"; }
run_id() { db "SELECT run FROM campaign_runs ORDER BY started_at DESC LIMIT 1"; }

one_backend() {
	local v=$1
	nas_model ".truenas = \"$v\""
	before=$(zfs_list)
	: > "$LOG"
	run 0 "$NFSAGENT" run "$c" --dry-run
	assert_contains "$OUT" "Target rs16K: dataset tank/bench-16K to make at /mnt/tank/bench-16K: recordsize 16384, sync always (set);"
	assert_eq "$(writes)" 0 "NAS writes of the dry run ($v): $(cat "$LOG")"
	local vmk
	vmk=$(sed -n 's/^Target rs64K: shared to the hosts. NFS vmkernel addresses: //p' <<< "$OUT")
	[ -n "$vmk" ] || fail "no vmkernel addresses said: $OUT"
	assert_eq "$(zfs_list)" "$before" "zfs list after the dry run"

	: > "$LOG"
	run 0 "$NFSAGENT" run "$c"
	assert_contains "$OUT" "Made dataset tank/bench-16K for target rs16K (recordsize 16384, sync always (set);"
	assert_contains "$OUT" "tank/bench-64K: removed"
	[ -n "$v" ] || assert_contains "$(cat "$LOG")" "zfs set sharenfs=rw=@${vmk%%,*}/32" "the share's networks"
	assert_eq "$(made) $(removed tank/bench-64K) $(removed tank/bench-16K)" "2 1 1" \
		"made and removed once each ($v)"
	# the settings as the NAS had them, read back by each result
	assert_eq "$(db "SELECT group_concat(r.target || '=' || n.recordsize || '/' || n.sync, ' ') FROM
		(SELECT * FROM results WHERE campaign = '$(run_id)' ORDER BY target) r
		JOIN nas_runs n ON n.result_id = r.id")" "rs16K=16384/always rs64K=65536/always" "settings recorded ($v)"
	assert_eq "$(zfs_list)" "$before" "zfs list after the run ($v)"
	assert_eq "$(jq -c '.shares // [] | length' "$NAS_STATE")" 0 "shares left ($v)"
}
one_backend ""
one_backend "TrueNAS-SCALE-24.04.2"
nas_model '.truenas = ""'
before=$(zfs_list)

# Killed after a step (the first: 64K made and shared, 16K not yet), then resumed: made once, removed once.
for step in "dataset:rs16K" "result:rs64K" "unmount:rs64K"; do  # after 64K's create and share, mid-run, mid-cleanup
	: > "$LOG"
	rc=0
	# (the shim is preloaded before ASan's runtime in the sanitized build)
	KILL_AFTER_STEP_NAMED="$step" LD_PRELOAD="$KILL_AFTER_COMMIT" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NFSAGENT" run "$c" \
		> "$WORK/killed.out" 2>&1 || rc=$?
	assert_eq "$rc" 137 "killed after $step"
	run 0 "$NFSAGENT" run "$c" --resume
	assert_eq "$(made) $(removed tank/bench-64K) $(removed tank/bench-16K)" "2 1 1" \
		"made and removed once each, killed after $step"
	assert_eq "$(zfs_list)" "$before" "zfs list after the kill at $step"
done

# Killed between the create and its "made" step (the dataset made, the
# journal saying "making"), then aborted: the NAS is asked, the mark decides.
rc=0
KILL_AFTER_STEP_NAMED="mounting:rs64K" LD_PRELOAD="$KILL_AFTER_COMMIT" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NFSAGENT" run "$c" \
	> "$WORK/killed.out" 2>&1 || rc=$?
assert_eq "$rc" 137 "killed after the first mount began"
db "UPDATE campaign_steps SET detail = 'making' WHERE step LIKE 'dataset:%' AND run = '$(run_id)'"
: > "$LOG"
run 0 "$NFSAGENT" run "$c" --abort
assert_eq "$(removed tank/bench-64K) $(removed tank/bench-16K)" "1 1" "removed by --abort, not journaled"
assert_eq "$(zfs_list)" "$before" "zfs list after the kill and --abort"

# NFS 3 and NFS 4.1 on one dataset the campaign makes: the two targets
# alternate on its export; the first makes it, the second follows; made
# once, removed once.  Asked differently by the two, it is refused.
{
	tiny_campaign both nas_command="ssh -F $NAS_SSH_CONFIG nas" cleanup=yes busy_wait=2
	for v in 3 4.1; do
		printf '\n[target nfs%s]\ndatastore = bench-one\nserver = 10.0.0.5\nnfs = %s\n' "$v" "$v"
		printf 'create = yes\ndataset = tank/bench-one\nrecordsize = 64K\nshare_to = 10.0.0.0/24\n'
	done
} > "$WORK/both.ini"
: > "$LOG"
run 0 "$NFSAGENT" run "$WORK/both.ini"
assert_contains "$OUT" "Target nfs4.1: dataset tank/bench-one, made for target nfs3, at /mnt/tank/bench-one"
assert_contains "$OUT" "randread-4k-qd1 #1 on nfs4.1: ok"
assert_eq "$(made) $(removed tank/bench-one)" "1 1" "one dataset for two protocols: made and removed once"
assert_eq "$(zfs_list)" "$before" "zfs list after the two protocols"
sed '0,/^recordsize = 64K/! s/^recordsize = 64K/recordsize = 16K/' "$WORK/both.ini" > "$WORK/both-differ.ini"
run 2 "$NFSAGENT" run "$WORK/both-differ.ini"
assert_contains "$ERR" "targets nfs3 and nfs4.1 make dataset tank/bench-one: only NFS 3 and NFS 4.1 on it, with the same server, nas, hosts, settings"

# A dataset not nfsagent's, named by a campaign: refused before anything,
# and never destroyed.
sed 's|^dataset = tank/bench-64K|dataset = tank/vmware|' "$c" > "$WORK/theirs.ini"
: > "$LOG"
run 2 "$NFSAGENT" run "$WORK/theirs.ini"
assert_contains "$ERR" "tank/vmware"
assert_contains "$ERR" "not nfsagent's"
assert_eq "$(writes)" 0 "NAS writes for a dataset not nfsagent's"
assert_contains "$(zfs_list)" "tank/vmware	/mnt/tank/vmware" "tank/vmware kept"

# Busy for ever after the unmount: the run ends with the dataset left and
# the fix named; --abort, once clear, removes it.
: > "$LOG"
nas_model '.faults.busy["tank/bench-16K"] = -1'
run 1 "$NFSAGENT" run "$c"
assert_contains "$ERR" "dataset tank/bench-16K was not removed"
assert_contains "$ERR" "echo /mnt/tank/bench-16K > /proc/fs/nfsd/unlock_filesystem"
assert_contains "$ERR" "then finish with: zfs destroy tank/bench-16K"
assert_contains "$ERR" "nfsagent run $c --abort tries again"
assert_contains "$(zfs_list)" "tank/bench-16K" "the busy dataset is left"
nas_model '.faults.busy = {}'
: > "$LOG"
run 0 "$NFSAGENT" run "$c" --abort
assert_eq "$(removed tank/bench-16K)" 1 "removed by --abort"
assert_eq "$(zfs_list)" "$before" "zfs list after --abort"
echo "PASS"
