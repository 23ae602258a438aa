#!/usr/bin/env bash
# Group runs in the central database (docs/central.md, docs/groups.md): a
# 4-VM group is one run on PostgreSQL as in the file (compare gives the same
# n, change and verdict on both), pushed exactly once through a repeated
# push, a kill inside a group's transaction and a server stopped mid-push;
# members whose group is not there are refused, naming it; results --json
# and --csv give one row per group with its figures and its members.
. "$(dirname "$0")/lib.sh"
: "${MID_PUSH:?MID_PUSH must name the mid_push shim}"
. "$(dirname "$0")/pg.sh"
pg_start
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

lab_start -fleet 4 -tools-running fleet-01,fleet-02,fleet-03,fleet-04
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
A="$WORK/a.db"
# (4 s: the lab's four guests' fio share this machine's cores, and at
# ctest -j8 on 2 cores one began measuring 2 s after another had: the
# members of a 2 s run had no common window, a 3 s run would keep 1 s)
quick=(--vms 'fleet-0[1-4]' --profile randread-4k-qd1 --size 4M --runtime 4 --db "$A")
run 0 "$NFSAGENT" bench "${quick[@]}" --repeat 3 --label build=a
run 0 "$NFSAGENT" bench "${quick[@]}" --repeat 2 --label build=b --json
bench_b=$OUT
lab_stop
assert_eq "$(sqlite3 "$A" "SELECT count(*) || ' ' || sum(vms) || ' ' || sum(incomplete) FROM result_groups")" \
	"5 20 0" "local groups"
pristine="$WORK/pristine.db"
sqlite3 "$A" ".backup '$pristine'"

# ---- results: one JSON row per group, its figures and its members ----
run 0 "$NFSAGENT" results --db "$A" --where build=b --json
rows=$OUT
assert_eq "$(jq length <<< "$rows")" 2 "group rows for 2 repetitions"
assert_eq "$(jq -r '[.[] | "\(.id) \(.vm) \(.vms) \(.members | length) \(.status) \(.profile)"] | unique | join(",")' <<< "$rows")" \
	"null 4 VMs 4 4 ok randread-4k-qd1" "each row a group of 4"
assert_eq "$(jq -c '[.[].group]' <<< "$rows")" "$(jq -c '[.runs[].group_id]' <<< "$bench_b")" "group ids"
# IOPS: the members' sum within the common window, as bench measured and stored it
both() { jq -n --argjson rows "$rows" --argjson bench "$bench_b" "$1"; }
assert_eq "$(both '[range(0; 2) as $i | ($rows[$i].read.iops - ([$bench.runs[$i].members[].window.read.iops] | add))
	| fabs < 1e-6] | all')" true "group IOPS is the members' sum in the window"
assert_eq "$(both '[range(0; 2) as $i | $rows[$i].read.p99_us as $p | [$bench.runs[$i].members[].window.read.p99_ms * 1000]
	| ($p >= min - 1e-6 and $p <= max + 1e-6)] | all')" true "group p99 within the members'"
stored=$(sqlite3 -json "$A" "SELECT id, uuid, read_iops, read_p99_us, read_runtime_ms, start_skew_ms, slowest_vm FROM result_groups
	WHERE id IN ($(jq -r '[.[].group] | join(",")' <<< "$rows")) ORDER BY id")
assert_eq "$(jq -n --argjson rows "$rows" --argjson g "$stored" '[range(0; 2) as $i | $rows[$i] as $r | $g[$i] |
	$r.uuid == .uuid and $r.read.iops == .read_iops and $r.read.p99_us == .read_p99_us and $r.window_ms == .read_runtime_ms
	and $r.start_skew_ms == .start_skew_ms and $r.slowest_vm == .slowest_vm] | all')" true "the group's figures as stored"
assert_eq "$(jq '[.[] | .start_skew_ms >= 0 and .slowest_share > 0 and .slowest_share <= 1 and .iops > 0] | all' <<< "$rows")" \
	true "skew and spread"
# each member: its result id, VM and its own figures, as stored
members=$(sqlite3 -json "$A" "SELECT r.id, r.vm, r.read_iops, r.read_p99_us FROM results r JOIN result_group_members m
	ON m.result_id = r.id WHERE m.group_id IN ($(jq -r '[.[].group] | join(",")' <<< "$rows")) ORDER BY r.id")
assert_eq "$(jq -c '[.[].members[] | {id, vm, read_iops: .read.iops, read_p99_us: .read.p99_us}] | sort_by(.id)' <<< "$rows")" \
	"$(jq -c '.' <<< "$members")" "members' ids, VMs and figures"
assert_eq "$(both '[$bench.runs[].members[].result] | sort')" "$(jq -c '[.[].id]' <<< "$members" | jq .)" "members are bench's"
# --members: the members as rows of their own, each with its group
run 0 "$NFSAGENT" results --db "$A" --where build=b --json --members
assert_eq "$(jq -c '[length, ([.[].group] | unique | length), ([.[].vm] | unique | length)]' <<< "$OUT")" "[8,2,4]" \
	"--members JSON"
# CSV: one row per group, its members' ids and VMs in its last cell
run 0 "$NFSAGENT" results --db "$A" --where build=b --csv
assert_eq "$(wc -l <<< "$OUT")" 3 "CSV: a header and two groups"
assert_eq "$(python3 -c 'import csv, sys; rows = list(csv.DictReader(sys.stdin));
print(",".join(r["group"] + " " + r["vms"] + " " + r["vm"] + " " + str(len(r["members"].split(";"))) for r in rows))' <<< "$OUT")" \
	"$(jq -r '[.[] | "\(.group) 4 4 VMs 4"] | join(",")' <<< "$rows")" "CSV group rows"
run 0 "$NFSAGENT" results --db "$A" --where build=b --csv --members
assert_eq "$(wc -l <<< "$OUT")" 9 "CSV --members: every member"

# the central database's groups, their member links, members linked to a result
gcounts() {
	q "$1" "SELECT (SELECT count(*) FROM results) || ' ' || (SELECT count(*) FROM result_groups) || ' '
		|| (SELECT count(*) FROM result_group_members) || ' '
		|| (SELECT count(*) FROM result_group_members m JOIN results r ON r.id = m.result_id
		    JOIN result_groups g ON g.id = m.group_id AND g.uuid = r.group_uuid)"
}
# compare's n, change and verdict per metric, as one line each
verdicts() { jq -r '.comparisons[] | "\(.direction) \(.metric) n=\(.a.n)/\(.b.n) \(.estimate_pct) \(.verdict)"'; }

# ---- a push: every result, then every group, once ----
newdb central
run 0 "$NFSAGENT" push --db "$A" --central "$(url central)"
assert_eq "$OUT" "pushed 20 results and 5 group runs to the central database"
assert_eq "$(gcounts central)" "20 5 20 20" "results, groups, members, linked members"
# the group's figures to the last bit
iops=$(python3 -c 'import sqlite3, sys; print(repr(sqlite3.connect(sys.argv[1]).execute(
	"SELECT read_iops FROM result_groups WHERE id = 1").fetchone()[0]))' "$A")
u1=$(sqlite3 "$A" "SELECT uuid FROM result_groups WHERE id = 1")
assert_eq "$(q central "SELECT read_iops = $iops::float8 AND vms = 4 AND NOT incomplete FROM result_groups
	WHERE uuid = '$u1'")" t "group 1's IOPS ($iops) to the last bit"
run 0 "$NFSAGENT" push --db "$A" --central "$(url central)"
assert_eq "$OUT" "pushed 0 results to the central database"
assert_eq "$(gcounts central)" "20 5 20 20" "after a second push"
# results reads the groups there as from the file (but for the ids)
gnorm() { jq -c 'map(del(.group, .members[].id)) | sort_by(.uuid)'; }
run 0 "$NFSAGENT" results --db "$(url central)" --where build=b --json
assert_eq "$(gnorm <<< "$OUT")" "$(gnorm <<< "$rows")" "group rows from the central database"

# ---- compare: a group is one run on both, the same n, change and verdict ----
run 0 "$NFSAGENT" compare --db "$A" --a build=a --b build=b --json
local_cmp=$OUT
assert_eq "$(jq -r '[.comparisons[] | "\(.a.n)/\(.b.n)"] | unique | join(",")' <<< "$local_cmp")" "3/2" "n in the file"
run 0 "$NFSAGENT" compare --db "$(url central)" --a build=a --b build=b --json
assert_eq "$(verdicts <<< "$OUT")" "$(verdicts <<< "$local_cmp")" "n, change and verdict on PostgreSQL"
assert_eq "$(jq -S 'del(.db)' <<< "$OUT")" "$(jq -S 'del(.db)' <<< "$local_cmp")" "compare --json on both"
echo "compare: $(verdicts <<< "$local_cmp" | tr '\n' ';')"
run 0 "$NFSAGENT" compare --db "$A" --a build=a --b build=b
local_text=$OUT
run 0 "$NFSAGENT" compare --db "$(url central)" --a build=a --b build=b
assert_eq "$OUT" "$local_text" "compare's text on both"
run_rc=0
"$NFSAGENT" regress --db "$A" --baseline build=a --max-drop iops=50% > "$WORK/regress.local" 2>&1 || run_rc=$?
rc2=0
"$NFSAGENT" regress --db "$(url central)" --baseline build=a --max-drop iops=50% > "$WORK/regress.central" 2>&1 || rc2=$?
assert_eq "$rc2 $(cat "$WORK/regress.central")" "$run_rc $(cat "$WORK/regress.local")" "regress on both"

# ---- a kill inside a group's transaction (its second member linked, not
# committed): the members are there, their group is not, and nothing
# counts them as single runs; the next push sends the groups once ----
newdb killed
cp "$pristine" "$WORK/k.db"
rc=0
LD_PRELOAD="$MID_PUSH" MID_PUSH_ON="INSERT INTO result_group_members " MID_PUSH_AT=2 MID_PUSH_DO=kill \
	"$NFSAGENT" push --db "$WORK/k.db" --central "$(url killed)" > /dev/null 2>&1 || rc=$?
assert_eq "$rc" 137 "exit status of the push killed inside a group"
assert_eq "$(gcounts killed)" "20 0 0 0" "the central database after the kill"
assert_eq "$(sqlite3 "$WORK/k.db" "SELECT (SELECT count(*) FROM central_pushes) || ' '
	|| (SELECT count(*) FROM central_group_pushes)")" "20 0" "pushes noted locally"
run 1 "$NFSAGENT" compare --db "$(url killed)" --a build=a --b build=b
assert_one_line "$ERR"
# the first side's groups, each by its UUID (the file's and the central database's)
for u in $(sqlite3 "$A" "SELECT DISTINCT g.uuid FROM result_groups g JOIN result_group_members m ON m.group_id = g.id
	JOIN result_labels l ON l.result_id = m.result_id AND l.key = 'build' AND l.value = 'a'"); do
	assert_contains "$ERR" "$u"
done
assert_contains "$ERR" "nfsagent: incomplete group runs in the central database: "
assert_contains "$ERR" "(12 members there, the groups not): push again from the runner that recorded them"
run 2 "$NFSAGENT" regress --db "$(url killed)" --baseline build=a --max-drop iops=50%
assert_contains "$ERR" "incomplete group runs in the central database"
run 0 "$NFSAGENT" push --db "$WORK/k.db" --central "$(url killed)"
assert_eq "$OUT" "pushed 0 results and 5 group runs to the central database"
assert_eq "$(gcounts killed)" "20 5 20 20" "after the push that followed the kill"
run 0 "$NFSAGENT" compare --db "$(url killed)" --a build=a --b build=b --json
assert_eq "$(verdicts <<< "$OUT")" "$(verdicts <<< "$local_cmp")" "the verdict once the groups arrived"
# one group deleted there: its members are refused, by its UUID alone
u5=$(sqlite3 "$A" "SELECT uuid FROM result_groups WHERE id = 5")
q killed "DELETE FROM result_groups WHERE uuid = '$u5'"
run 1 "$NFSAGENT" compare --db "$(url killed)" --a build=a --b build=b
assert_eq "$ERR" "nfsagent: incomplete group run in the central database: $u5 (4 members there, the group not): push again from the runner that recorded it; its members are not counted as single runs"

# ---- the server stopped inside a group's transaction: the push says what
# waits; restarted, a push sends the rest once ----
newdb stopped
cp "$pristine" "$WORK/s.db"
LD_PRELOAD="$MID_PUSH" MID_PUSH_ON="INSERT INTO result_group_members " MID_PUSH_AT=6 \
	MID_PUSH_DO="$PG_CTL -m fast -w stop > /dev/null" run 4 "$NFSAGENT" push --db "$WORK/s.db" --central "$(url stopped)"
assert_one_line "$ERR"
assert_contains "$ERR" "the central database went away"
assert_contains "$ERR" "; 4 results wait for the central database: run nfsagent push again"
pg_start
assert_eq "$(gcounts stopped)" "20 1 4 4" "the central database after the stop"
run 0 "$NFSAGENT" push --db "$WORK/s.db" --central "$(url stopped)"
assert_eq "$OUT" "pushed 0 results and 4 group runs to the central database"
assert_eq "$(gcounts stopped)" "20 5 20 20" "after the restart's push"
echo "PASS"
