#!/usr/bin/env bash
# README's promises under chaos: a campaign on db01 (disks on two datastores)
# that mounts its target and probes it is
#   1. SIGKILLed right after each journal step in turn, then resumed;
#   2. SIGKILLed at random moments, then resumed;
#   3. failed (a wrong guest password), then resumed;
#   4. killed, then aborted (run --abort);
#   5. run under 20% HTTP 503, under changes that were done but answered 503
#      (half of the mounts, moves, power changes and program starts), and
#      under session expiry, resumed at most 3 times
# (the others: one resume, which must finish).
# After each: every result exactly once, db01's files and each disk where
# they started (as the last run read them back), its host and power, no
# campaign datastore mounted, no probe folder, no nfsagent folder in the
# guest, and PRAGMA integrity_check ok.
. "$(dirname "$0")/lib.sh"
: "${KILL_AFTER_COMMIT:?KILL_AFTER_COMMIT must name the kill_after_commit shim}"
export NFSAGENT_GUEST_PASSWORD=secret
DB="$XDG_DATA_HOME/nfsagent/results.db"
c="$WORK/c.ini"
REPEAT=2

campaign() {  # campaign NAME: writes the campaign file (on every host: more
	# mounts and unmounts to meet the faults)
	{
		tiny_campaign "$1" vm=db01 repeat=$REPEAT probe_disks=1 probe_size=16M
		nfs_target t bench-v3 /mnt/tank/vmware64k 3 hosts=all
	} > "$c"
}
q() { sqlite3 "$DB" "$1"; }
# Where everything is: db01's datastores, host and power, the campaign's
# datastores, probe folders and fio folders in the guests.
world() {
	"$NFSAGENT" ls vms --json | jq -r '.[] | select(.name == "db01") |
		"db01 on \(.datastores | sort | join(",")) host \(.host) \(.power_state)"'
	echo "campaign datastores: $("$NFSAGENT" ls datastores --json | jq '[.[] | select(.name == "bench-v3")] | length')"
	echo "probe folders: $(find "$WORK/lab" -type d -name 'nfsagent-probe-*' | wc -l)"
	echo "guest folders: $(find "$WORK/lab/guests" -name 'nfsagent-*' | wc -l)"
}
# check NAME: the promises, for campaign NAME's run.
check() {
	local run="(SELECT run FROM campaign_runs WHERE name = '$1')"
	assert_eq "$(q "SELECT state FROM campaign_runs WHERE name = '$1'")" "${2:-done}" "state of $1"
	assert_eq "$(q "SELECT count(*) FROM results WHERE campaign = $run")" "${3:-$REPEAT}" "results of $1"
	assert_eq "$(q "SELECT count(*) FROM (SELECT 1 FROM results WHERE campaign = $run GROUP BY target, repetition, profile HAVING count(*) > 1)")" 0 "results of $1 recorded twice"
	assert_eq "$(world)" "$START" "the world after $1"
	# Disk by disk, as the last run read it back from vCenter.
	local out
	out=$(cat "$WORK/out")
	assert_contains "$out" "  db01: files on truenas-vmware, host DC0_H0, poweredOn: as it started"
	assert_contains "$out" "  Hard disk 1: on truenas-vmware: as it started"
	assert_contains "$out" "  Hard disk 2: on LocalDS_0: as it started"
	assert_eq "$(q "PRAGMA integrity_check")" ok "integrity after $1"
}
# shim_run VAR=VALUE... -- ARGS: nfsagent run with the kill shim; RC, OUT, ERR.
shim_run() {
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	RC=0
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$KILL_AFTER_COMMIT" "${env[@]}" "$NFSAGENT" run "$c" "$@" \
		> "$WORK/out" 2> "$WORK/err" || RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}
resume() {  # resume NAME [TRIES]: --resume until it exits 0, at most TRIES (1) times
	local i
	for i in $(seq 1 "${2:-1}"); do
		RC=0
		"$NFSAGENT" run "$c" --resume > "$WORK/out" 2> "$WORK/err" || RC=$?
		[ "$RC" -eq 0 ] && return 0
		[ "$RC" -eq 1 ] || fail "resume of $1 exited $RC: $(cat "$WORK/err")"
	done
	fail "$1 did not finish within ${2:-1} resume(s): $(cat "$WORK/err")"
}

lab_start -export 10.0.0.5:/mnt/tank/vmware64k
START=$(world)
assert_contains "$START" "db01 on LocalDS_0,truenas-vmware host DC0_H0 poweredOn"

# 1. A kill right after each journal step in turn, until a run has no step
# left to be killed after.
k=1
while :; do
	campaign "kill$k"
	shim_run KILL_AFTER_STEP=$k --
	if [ "$RC" -eq 0 ]; then
		check "kill$k"
		break
	fi
	assert_eq "$RC" 137 "exit status of the run killed after step $k (stderr: $ERR)"
	resume "kill$k"
	check "kill$k"
	k=$((k + 1))
	[ "$k" -le 40 ] || fail "still killing after 40 steps"
done
KILL_POINTS=$((k - 1))
assert_ge "$KILL_POINTS" 12 "journal steps a run was killed after"

# 2. Kills at random moments (seeded: the same moments every time).
RANDOM=7
for i in 1 2 3; do
	campaign "random$i"
	delay=$(printf '0.%02d' $((RANDOM % 100)))
	delay=$(echo "$delay * 6 + 0.5" | bc)
	"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" &
	pid=$!
	sleep "$delay"
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" || true
	if [ -n "$(q "SELECT 1 FROM campaign_runs WHERE name = 'random$i' AND state != 'done'")" ]; then
		resume "random$i"
	fi
	check "random$i"
done

# 3. A failed run (wrong guest password), then a resume with the right one.
campaign failed
NFSAGENT_GUEST_PASSWORD=wrong run 1 "$NFSAGENT" run "$c"
assert_contains "$ERR" "InvalidGuestLogin"
resume failed
check failed

# 4. Killed after its first result, then aborted: the result stays, nothing
# more runs, everything goes back.
campaign aborted
shim_run KILL_AFTER_RESULT=1 --
assert_eq "$RC" 137 "exit status of the run to abort"
run 0 "$NFSAGENT" run "$c" --abort
assert_contains "$OUT" "Run aborted-"
assert_contains "$OUT" "aborted: everything is back where it started."
assert_contains "$OUT" "  bench-v3: not mounted (the campaign mounted it)"
check aborted aborted 1
run 1 "$NFSAGENT" run "$c" --abort
assert_eq "$ERR" "nfsagent: campaign aborted has no unfinished run to abort"
run 2 "$NFSAGENT" run "$c" --abort --resume
assert_contains "$ERR" "--dry-run, --resume and --abort exclude each other"

# 5. 20% of SOAP calls answered 503 (after login), then sessions expiring.
storm=0
for lab in "-fail-503 0.2 -fail-503-after 10 -seed 3" "-fail-503 0.2 -fail-503-after 10 -seed 4" \
	"-fail-503-late 0.5 -fail-503-after 10 -seed 5" "-expire-after 60" "-expire-after 150"; do
	lab_stop
	# shellcheck disable=SC2086
	lab_start -export 10.0.0.5:/mnt/tank/vmware64k $lab
	name="storm$(( ++storm ))"
	campaign "$name"
	RC=0
	"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" || RC=$?
	[ "$RC" -eq 0 ] || resume "$name" 3
	check "$name"
	if [[ $lab == *late* ]]; then
		# Mounts, moves, power changes and fio's start that were done but
		# answered 503: each found in place, none made twice (results once,
		# the world as at the start: check above).
		late=$(awk '$3 == 503 && $2 ~ /^(CreateNasDatastore|RemoveDatastore|RelocateVM_Task|PowerO(n|ff)VM_Task|StartProgramInGuest)$/' "$LAB_LOG" | wc -l)
		assert_ge "$late" 3 "changes done but answered 503"
		LATE=$late
	fi
done
# 6. Slow Storage vMotions (2 s each), the process SIGKILLed while one runs:
# the resume waits for it instead of starting another, so the moves are
# those of a run that was never killed.
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -task-seconds 2 -slow-tasks RelocateVM_Task
campaign slow0
run 0 "$NFSAGENT" run "$c"
check slow0
MOVES=$(calls RelocateVM_Task)
assert_ge "$MOVES" 2 "Storage vMotions of a campaign"
kill_during_move() {  # kill_during_move NAME N: starts a run, SIGKILLs it during its Nth move
	campaign "$1"
	local before pid
	before=$(calls RelocateVM_Task)
	"$NFSAGENT" run "$c" > "$WORK/out" 2> "$WORK/err" &
	pid=$!
	for _ in $(seq 1 600); do
		[ "$(calls RelocateVM_Task)" -ge $((before + $2)) ] && break
		sleep 0.1
	done
	kill -KILL "$pid"
	wait "$pid" || true
}
for n in $(seq 1 "$MOVES"); do
	before=$(calls RelocateVM_Task)
	kill_during_move "slow$n" "$n"
	resume "slow$n"
	check "slow$n"
	assert_eq "$(( $(calls RelocateVM_Task) - before ))" "$MOVES" "Storage vMotions of slow$n (killed during move $n)"
done
# A resume claims the run before its preflight waits for such a move (8 s):
# a second resume meanwhile is refused at once, a state (exit 1), having
# waited for nothing; the first finishes the campaign.  That move alone is
# slow (-slow-tasks-first 1: the later moves need no time of their own).
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -task-seconds 8 -slow-tasks RelocateVM_Task -slow-tasks-first 1
kill_during_move slow-twice 1
"$NFSAGENT" run "$c" --resume > "$WORK/first.out" 2> "$WORK/first.err" &
first=$!
for _ in $(seq 1 300); do
	[ "$(q "SELECT pid FROM campaign_runs WHERE name = 'slow-twice' AND state = 'running'")" = "$first" ] && break
	sleep 0.1
done
run 1 "$NFSAGENT" run "$c" --resume
assert_contains "$ERR" "campaign 'slow-twice' is running already (pid $first)"
assert_not_contains "$OUT" "A relocation of db01 was still running" "the second resume's output"
rc=0
wait "$first" || rc=$?
assert_eq "$rc" 0 "exit status of the first resume: $(cat "$WORK/first.err")"
cp "$WORK/first.out" "$WORK/out"
assert_contains "$(cat "$WORK/out")" "A relocation of db01 was still running: waited for it to end."
check slow-twice
# An abort right after a kill during the first move (8 s: the abort gets
# there first) waits for it, then brings everything back. A guest password
# file it cannot read is said and does not stop it: all else goes back, and
# only what the killed run may have left in the guest is said to remain,
# until an abort with the password removes it.
lab_stop
lab_start -export 10.0.0.5:/mnt/tank/vmware64k -task-seconds 8 -slow-tasks RelocateVM_Task -slow-tasks-first 1
kill_during_move slow-abort 1
sed -i "/^\[campaign\]/a guest_password_file = $WORK/no-such-file" "$c"
run 1 "$NFSAGENT" run "$c" --abort
assert_contains "$ERR" "nfsagent: warning: cannot read password file $WORK/no-such-file"
assert_contains "$OUT" "A relocation of db01 was still running: waited for it to end."
assert_contains "$OUT" "  bench-v3: not mounted (the campaign mounted it)"
assert_eq "$(tail -n 1 <<< "$ERR")" "nfsagent: not everything is back: what 1 killed benchmark left in db01 remains (set the guest password and abort again)" \
	"the abort's last line without a guest password"
sed -i "/^guest_password_file = /d" "$c"
run 0 "$NFSAGENT" run "$c" --abort
check slow-abort aborted 0
echo "chaos: ok ($KILL_POINTS journal steps killed after, 3 random kills, a failed run, an abort, 5 storms; $LATE changes done but answered 503; killed during each of $MOVES slow Storage vMotions, then resumed, once by two resumes at a time, and once aborted)"
