#!/usr/bin/env bash
# A result and its journal step are one transaction: nfsagent SIGKILLed right
# after a result's commit (before it prints the result's line) and resumed
# records every result exactly once.
. "$(dirname "$0")/lib.sh"
: "${KILL_AFTER_COMMIT:?KILL_AFTER_COMMIT must name the kill_after_commit shim}"
export NFSAGENT_GUEST_PASSWORD=secret
DB="$XDG_DATA_HOME/nfsagent/results.db"

lab_start -export 10.0.0.5:/mnt/tank/vmware64k
c="$WORK/c.ini"
{
	tiny_campaign once profiles="randread-4k-qd1, randwrite-4k-qd1" repeat=2
	nfs_target v3 bench-v3 /mnt/tank/vmware64k 3
} > "$c"

# killed_run N [--resume]: the run dies by SIGKILL right after its Nth result's commit.
killed_run() {
	local rc=0
	# Under AddressSanitizer the preloaded library comes before ASan's runtime.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	LD_PRELOAD="$KILL_AFTER_COMMIT" KILL_AFTER_RESULT=$1 "$NFSAGENT" run "$c" ${2:-} \
		> "$WORK/out" 2> "$WORK/err" || rc=$?
	OUT=$(cat "$WORK/out")
	assert_eq "$rc" 137 "exit status of the run killed after result $1 (stderr: $(cat "$WORK/err"))"
}
rows() { sqlite3 "$DB" "SELECT count(*) FROM results WHERE campaign = (SELECT run FROM campaign_runs)"; }

killed_run 1
assert_eq "$(rows)" 1 "results after the first kill"
# The kill came after the commit and before the line that reports it.
assert_not_contains "$OUT" "(result" "output of the killed run"
killed_run 2 --resume  # the resumed run's 2nd result is the campaign's 3rd
assert_eq "$(rows)" 3 "results after the second kill"
assert_not_contains "$OUT" "randread-4k-qd1 #1 on v3" "the resumed run's output"
assert_contains "$OUT" "randwrite-4k-qd1 #1 on v3: ok"
run 0 "$NFSAGENT" run "$c" --resume
assert_not_contains "$OUT" "#1 on v3" "the last run's output"
assert_contains "$OUT" "randwrite-4k-qd1 #2 on v3: ok"
assert_contains "$OUT" "  v3  4 ok, over NFS 3"

# Every result exactly once, each journaled with its own row.
q() { sqlite3 "$DB" "$1"; }
assert_eq "$(rows)" 4 "results"
assert_eq "$(q "SELECT count(*) FROM (SELECT 1 FROM results GROUP BY campaign, target, repetition, profile HAVING count(*) > 1)")" 0 "results recorded twice"
assert_eq "$(q "SELECT group_concat(repetition || ':' || profile, ' ') FROM (SELECT * FROM results ORDER BY repetition, profile)")" \
	"1:randread-4k-qd1 1:randwrite-4k-qd1 2:randread-4k-qd1 2:randwrite-4k-qd1" "repetitions and profiles"
assert_eq "$(q "SELECT count(*) FROM campaign_steps s JOIN results r ON CAST(r.id AS TEXT) = s.detail AND s.step = 'result:' || r.target || ':' || r.repetition || ':' || r.profile")" 4 "journal steps naming their result"
assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"
assert_eq "$(q "SELECT state FROM campaign_runs")" done "run state"
# fio's folder went before each result was recorded, killed runs included.
assert_eq "$(find "$WORK/lab/guests" -name 'nfsagent-fio-*' | wc -l)" 0 "fio folders left in the guest"
echo "exactly_once: ok"
