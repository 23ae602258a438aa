#!/usr/bin/env bash
# A campaign's NAS-local baselines (baseline = nas, docs/campaigns.md)
# through the lab NAS over a real sshd, its fio's rates scripted in
# nas.json as test_limits.sh does: [campaign] baseline = nas runs each
# profile once per campaign (not per repetition) on the NAS of each target
# that has one (r16k), after that target's last guest runs, recorded with
# site = nas and its journal step; a target without a NAS (r64k) runs none,
# without a word.  The summary and compare hold the guest against it.
# The dry run says so and runs nothing on the NAS.  Killed right after a
# baseline's commit, then during the next baseline (its fio left running on
# the NAS), a resume ends that fio before anything else runs there and
# records each baseline exactly once.  fio missing on the NAS: one warning
# line for two targets there, and the campaign goes on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
export NFSAGENT_GUEST_PASSWORD=secret
lab_start -export 10.0.0.5:/mnt/tank/vmware16k,10.0.0.5:/mnt/tank/vmware64k -nas-slog
nas_start
NAS="ssh -F $NAS_SSH_CONFIG nas"
LOG="$(dirname "$NAS_STATE")/nas-commands.log"
RUNNING="$(dirname "$NAS_STATE")/nas-fio.running"
db="$WORK/results.db"
# The pool on its own: 4K random writes at 185,000 IOPS (five times the
# lab guest's paced 37,000), 1M sequential writes at 800 a second.
nas_model '.local_fio = {"randwrite:4k": {"iops": 185000}, "write:1M": {"iops": 800}}'

# campaign FILE NAME REPEAT RUNTIME PROFILES [both]: a campaign of
# baseline = nas on r16k (the lab NAS its own) and r64k (no NAS; both: the
# same NAS too).
campaign() {
	{
		tiny_campaign "$2" profiles="$5" repeat="$3" runtime="$4" baseline=nas
		nfs_target r16k bench-16k /mnt/tank/vmware16k 3 nas_command="$NAS"
		nfs_target r64k bench-64k /mnt/tank/vmware64k 3 ${6:+nas_command="$NAS"}
	} > "$1"
}
q() { sqlite3 "$db" "$@"; }
run_of() { q "SELECT run FROM campaign_runs WHERE name = '$1'"; }
# baselines RUN: each site=nas result's target and profile, and how many
baselines() {
	q "SELECT group_concat(k || ' x' || n, ', ') FROM (SELECT target || ':' || profile AS k, count(*) AS n
		FROM results WHERE campaign = '$1' AND site = 'nas' GROUP BY k ORDER BY k)"
}
# steps RUN: each baseline step = the site of the result its detail names, or the detail
steps() {
	q "SELECT group_concat(s.step || '=' || coalesce(r.site, s.detail), ', ') FROM (SELECT * FROM
		campaign_steps WHERE run = '$1' AND step LIKE 'baseline:%' ORDER BY step) s
		LEFT JOIN results r ON r.id = s.detail"
}

# ---- the file: the key's values and where it needs a NAS (exit 2, nothing touched)
bad="$WORK/bad.ini"
{ tiny_campaign bad; nfs_target r64k bench-64k /mnt/tank/vmware64k 3 baseline=nas; } > "$bad"
run 2 "$NFSAGENT" run "$bad"
assert_eq "$ERR" "nfsagent: $bad:10: [target r64k] baseline = nas needs nas or nas_command (here or in [campaign])"
{ tiny_campaign bad baseline=nas; nfs_target r64k bench-64k /mnt/tank/vmware64k 3; } > "$bad"
run 2 "$NFSAGENT" run "$bad"
assert_eq "$ERR" "nfsagent: $bad:9: baseline = nas, but no target has a NAS to run it on: give nas or nas_command"
{ tiny_campaign bad baseline=yes nas_command="$NAS"; nfs_target r64k bench-64k /mnt/tank/vmware64k 3; } > "$bad"
run 2 "$NFSAGENT" run "$bad"
assert_eq "$ERR" "nfsagent: $bad:9: bad value 'yes' for baseline"
{ tiny_campaign bad vm= vms=fiotest baseline=nas nas_command="$NAS"; nfs_target r64k bench-64k /mnt/tank/vmware64k 3; } > "$bad"
sed -i '/^vm = $/d' "$bad"
run 2 "$NFSAGENT" run "$bad"
assert_eq "$ERR" "nfsagent: $bad:9: baseline = nas is not done yet with vms"

# ---- the dry run: the plan says it, nothing runs on the NAS
c="$WORK/c.ini"
# (runs of 3 s: at ctest -j8 zpool iostat's 1 s intervals measured 0.2 s of
# a 1 s baseline, whose figures, incomplete, then give no ceilings)
campaign "$c" bl 2 3 randwrite-4k-qd16
: > "$LOG"
run 0 "$NFSAGENT" run "$c" --db "$db" --dry-run
assert_eq "$(grep -c 'each profile once on the NAS itself (baseline)' <<< "$(flat "$OUT")")" 1 \
	"the plan's baseline, r16k's alone ($OUT)"
assert_contains "$(flat "$OUT")" "target r16k: 10.0.0.5:/mnt/tank/vmware16k as NFS 3 named bench-16k on host DC0_H0; on the extent-size bug: fail; after its last repetition, each profile once on the NAS itself (baseline)"
assert_eq "$(cat "$LOG")" "" "NAS commands of the dry run"

# ---- the campaign: two repetitions, the baselines once, in r16k's last round
run 0 "$NFSAGENT" run "$c" --db "$db"
assert_not_contains "$ERR" "warning" "the run's warnings"
bl=$(run_of bl)
assert_eq "$(q "SELECT group_concat(target || ':' || site || ':' || repetition, ' ')
	FROM (SELECT * FROM results WHERE campaign = '$bl' ORDER BY id)")" \
	"r16k:guest:1 r64k:guest:1 r16k:guest:2 r16k:nas:1 r64k:guest:2" \
	"r16k's baseline after its last guest run, none for r64k"
assert_eq "$(steps "$bl")" "baseline:r16k:randwrite-4k-qd16=nas" "the baseline journaled with its result"
# The pool's own figures, as scripted, in the dataset behind r16k.
assert_eq "$(q "SELECT status || ' ' || write_iops || ' ' || export_path || ' ' || (vm IS NULL) FROM results
	WHERE campaign = '$bl' AND site = 'nas'")" "ok 185000.0 /mnt/tank/vmware16k 1" "the baseline's IOPS, export and no VM"
assert_contains "$(q "SELECT job_file FROM results WHERE campaign = '$bl' AND site = 'nas'")" \
	"fio --name=nfsagent-baseline --filename=/mnt/tank/vmware16k/nfsagent-baseline.data --rw=randwrite --bs=4k " \
	"the job, in r16k's dataset"
[ ! -e "$RUNNING" ] || fail "fio still runs on the NAS: $(cat "$RUNNING")"
# The run's lines and its summary: the baselines apart from the guest's
# results, each with its NAS line; the verdicts they make possible.
# (each wrapped line joined to its start: continuations are indented 6)
out=$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n      / /g' <<< "$OUT")
assert_contains "$OUT" "  randwrite-4k-qd16 #2 on r16k: ok (result 3)
  randwrite-4k-qd16 on the NAS of r16k: ok (result 4)
Repetition 2 on target r64k:"
grep -qE '^  r16k  2 ok, over NFS 3; 1 NAS-local baseline$' <<< "$OUT" || fail "r16k's count: $OUT"
grep -qE '^  r64k  2 ok, over NFS 3$' <<< "$OUT" || fail "r64k's count: $OUT"
# (a pool line, or why the NAS's figures are incomplete: a loaded machine's)
assert_eq "$(grep -cE '^    on the NAS: randwrite-4k-qd16 \(result 4\): [a-z]' <<< "$out")" 1 \
	"the baseline's NAS line ($OUT)"
# What limited r16k's 4K writes: the path, the guest (paced at 37,000
# IOPS) at a fifth of the pool's own; r64k, without a NAS, cannot tell.
line=$(grep -E "^  r16k randwrite-4k-qd16: limited by path in 2 of 2 runs: the guest reached [0-9]+% of the pool's own 758 MB/s \(185000 IOPS\) " <<< "$out") ||
	fail "r16k's 4K writes not path-bound: $OUT"
share=$(sed -E 's/.*the guest reached ([0-9]+)%.*/\1/' <<< "$line")
[ "$share" -ge 17 ] && [ "$share" -le 23 ] || fail "the guest at $share% of the pool's own, the model's 37,000 of 185,000 IOPS: 20%"
assert_contains "$out" "  r64k randwrite-4k-qd16: limited by undetermined in 2 of 2 runs: no NAS side"
# compare, as the summary gives it: the verdict of each of A's profiles.
cmp=$("$NFSAGENT" compare --db "$db" --a "campaign=$bl,target=r16k" --b "campaign=$bl,target=r64k" 2>&1) ||
	fail "compare: $cmp"
assert_contains "$cmp" "A randwrite-4k-qd16: limited by path in 2 of 2 runs: the guest reached $share% of the pool's own 758 MB/s"
assert_eq "$("$NFSAGENT" results --db "$db" --json --where "campaign=$bl" --where site=nas |
	jq -r '[.[] | "\(.target):\(.profile):\(.limited_by.layer)"] | join(" ")')" \
	"r16k:randwrite-4k-qd16:undetermined" "results --json: the baseline, the ceiling"


# ---- killed right after a baseline's commit, then while the next one's fio
# runs on the NAS: each resume goes on from the journal, the second ends
# the fio left running there, and removes its file, before anything else,
# and each baseline is recorded once.
k="$WORK/k.ini"
campaign "$k" kb 1 2 "randwrite-4k-qd16, seqwrite-1m-qd8"
sed -i '/^\[target r64k\]/,$d' "$k"
rc=0
# (the shim is preloaded before ASan's runtime in the sanitized build)
KILL_AFTER_STEP_NAMED="baseline:r16k:" LD_PRELOAD="$KILL_AFTER_COMMIT" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NFSAGENT" run "$k" --db "$db" \
	> "$WORK/killed.out" 2>&1 || rc=$?
assert_eq "$rc" 137 "killed after the first baseline's commit ($(cat "$WORK/killed.out"))"
kb=$(run_of kb)
assert_eq "$(steps "$kb")" "baseline:r16k:randwrite-4k-qd16=nas" "the first baseline, its result and step together"
first=$(q "SELECT id FROM results WHERE campaign = '$kb' AND site = 'nas'")
[ ! -e "$RUNNING" ] || fail "a fio runs on the NAS after the commit: $(cat "$RUNNING")"
"$NFSAGENT" run "$k" --db "$db" --resume > "$WORK/resumed.out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -s "$RUNNING" ] && break; sleep 0.1; done
[ -s "$RUNNING" ] || fail "the second baseline never ran on the NAS: $(cat "$WORK/resumed.out")"
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
fio_pid=$(cut -d' ' -f1 "$RUNNING")
assert_contains "$(cat "$RUNNING")" " --rw=write --bs=1M " "the NAS's fio: the second baseline's"
kill -0 "$fio_pid" 2> /dev/null || fail "the NAS's fio ended with nfsagent: nothing to test"
: > "$LOG"
run 0 "$NFSAGENT" run "$k" --db "$db" --resume
! kill -0 "$fio_pid" 2> /dev/null || fail "the killed baseline's fio still runs on the NAS"
[ ! -e "$RUNNING" ] || fail "a fio still runs on the NAS: $(cat "$RUNNING")"
assert_eq "$(head -1 "$LOG")" "pkill -f 'nfsagent-baselin[e]'" "the resume's first command on the NAS"
# then the file, in the dataset the export is (read from the NAS), before the baseline runs again
assert_eq "$(grep -E '^(rm|fio --name)' "$LOG" | cut -d' ' -f1-3)" "rm -f /mnt/tank/vmware16k/nfsagent-baseline.data
rm -f /mnt/tank/vmware16k/nfsagent-baseline.data
fio --name=nfsagent-baseline --filename=/mnt/tank/vmware16k/nfsagent-baseline.data" \
	"the killed baseline's file removed (by the resume's first act, then the baselines' own sweep), then the baseline"
assert_contains "$(flat "$OUT")" "Target r16k: ended the fio a killed baseline left running on NAS $NAS."
assert_eq "$(grep -c '^fio --name=nfsagent-baseline ' "$LOG")" 1 "baselines the last resume ran"
assert_eq "$(baselines "$kb")" "r16k:randwrite-4k-qd16 x1, r16k:seqwrite-1m-qd8 x1" "each baseline once"
assert_eq "$(steps "$kb")" "baseline:r16k:randwrite-4k-qd16=nas, baseline:r16k:seqwrite-1m-qd8=nas" \
	"each step once, with its result"
assert_eq "$(q "SELECT group_concat(id || ' ' || write_iops, ', ') FROM (SELECT * FROM results
	WHERE campaign = '$kb' AND site = 'nas' ORDER BY id)" | cut -d' ' -f1,2,4)" "$first 185000.0, 800.0" \
	"the first baseline kept, not made again; each at its scripted rate"

# ---- fio missing on the NAS of both targets: one line, the campaign goes
# on; each baseline journaled with why, so that no resume comes back for it.
m="$WORK/m.ini"
campaign "$m" fm 1 1 randwrite-4k-qd16 both
nas_model '.missing = ["fio"]'
run 0 "$NFSAGENT" run "$m" --db "$db"
nas_model '.missing = []'
missing="fio is not installed on NAS $NAS: install it there (apt-get install fio; TrueNAS SCALE ships it); no NAS-local baseline"
assert_eq "$(grep '^nfsagent: warning: ' <<< "$ERR")" "nfsagent: warning: $missing" "one line for both targets"
fm=$(run_of fm)
assert_eq "$(q "SELECT group_concat(target || ':' || site || ':' || status, ' ') FROM results WHERE campaign = '$fm'")" \
	"r16k:guest:ok r64k:guest:ok" "the guests' runs, no baseline"
assert_eq "$(steps "$fm")" "baseline:r16k:randwrite-4k-qd16=not run: $missing, baseline:r64k:randwrite-4k-qd16=not run: fio is not installed on NAS $NAS" \
	"each baseline's step, with why"
echo "test_campaign_baseline: ok"
