#!/usr/bin/env bash
# What limited a group run (docs/limits.md, "Group runs"): the group's own
# figures judged by the single run's rules, with the number behind each
# verdict.  Path-bound: two fleet VMs' 4K writes together, with the lab
# NAS's pool over the group's window, against the pool's own figure (a
# NAS-local baseline); undetermined without the NAS side, naming it;
# network-bound: one VM's host negotiates 100 Mb/s, the other's 10 Gb/s,
# and the group is held against the slow host's link with that host's
# share of the group's bytes, not the group's sum.  bench --vms's text
# and JSON, results --json's group row, compare and the report, which
# count a group as one run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
fleet=(-fleet 2 -tools-running fleet-01,fleet-02 -nas-slog)
lab_start "${fleet[@]}"
nas_start
NAS="ssh -F $NAS_SSH_CONFIG nas"
db="$WORK/results.db"
quick=(--size 4M --runtime 3 --repeat 1 --db "$db")
# The pool on its own: 370,000 4K writes a second (1.5 GB/s), ten times a
# lab guest's paced 37,000: two VMs together reach a fifth of it at most.
nas_model '.local_fio = {"randwrite:4k": {"iops": 370000}}'
run 0 "$NFSAGENT" bench --vm fleet-01 --profile randwrite-4k-qd16 --nas-command "$NAS" --nas-baseline "${quick[@]}"

# Path: the group's summed MB/s over the window against the pool's own.
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randwrite-4k-qd16 --nas-command "$NAS" "${quick[@]}"
bench=$OUT
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_group_nas WHERE why IS NULL")" 1 "the group's pool over its window"
share=$(sqlite3 "$db" "SELECT printf('%.4f', g.write_bw_bytes / n.write_bw_bytes) FROM result_groups g, results n
	WHERE n.site = 'nas' AND n.profile = g.profile ORDER BY g.id DESC LIMIT 1")
group_verdict() {  # the last group row's layer and share, as results --json says
	"$NFSAGENT" results --db "$db" --json | jq -r '[.[] | select(.group != null)][-1].limited_by | "\(.layer)|\(.share // "null")"'
}
IFS="|" read -r layer got <<< "$(group_verdict)"
assert_eq "$layer" path "two VMs' 4K writes: the path ($bench)"
python3 -c "import sys; g, e = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (abs(g - e) < 1e-3 and e < 0.5))" "$got" "$share" ||
	fail "path share $got, not the group's MB/s over the pool's own $share"
pct=$(python3 -c "print(f'{$share*100:.0f}')")
assert_contains "$bench" "What limited each run:
  randwrite-4k-qd16 #1 group of 2: limited by path: "
assert_contains "$(flat "$bench")" "randwrite-4k-qd16 #1 group of 2: limited by path: its 2 VMs together reached $pct% of the pool's own"
assert_eq "$(grep -c ' group of 2: limited by ' <<< "$bench")" 1 "one line per group run"
assert_le "$(widest "$bench")" 120 "the bench's widest line"

# Without the NAS side: undetermined, naming what is missing.
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randwrite-4k-qd16 "${quick[@]}"
assert_contains "$(flat "$OUT")" "randwrite-4k-qd16 #1 group of 2: limited by undetermined: no NAS side (bench --nas): the pool, its log and the path cannot be told apart"
assert_eq "$(group_verdict)" "undetermined|null" "results --json: no share when undetermined"

# compare and the report count each group as one run: the lone VM's and
# the first group's path, the second group's undetermined.
run 0 "$NFSAGENT" compare --db "$db" --a site=guest --b site=nas
assert_contains "$OUT" "A randwrite-4k-qd16: limited by path in 2 of 3 runs: "
"$NFSAGENT" report --db "$db" --html "$WORK/report.html" > /dev/null 2>&1 || fail "report"
# (the report's groups part the runs with a NAS side, 128K records, from the one without)
grep -q '128K randwrite-4k-qd16: limited by path in 2 of 2 runs: ' "$WORK/report.html" ||
	fail "no group-aware verdict line in the report: $(grep -o '[^>]*limited by[^<]*' "$WORK/report.html")"

# Network: fleet-01's host at 100 Mb/s (12.5 MB/s), fleet-02's at 10 Gb/s.
slow=$(sqlite3 "$db" "SELECT host FROM results WHERE vm = 'fleet-01' LIMIT 1")
fast=$(sqlite3 "$db" "SELECT host FROM results WHERE vm = 'fleet-02' LIMIT 1")
[ "$slow" != "$fast" ] || fail "fleet-01 and fleet-02 on one host ($slow): nothing to split"
lab_stop
lab_start "${fleet[@]}" -link-speed "$slow=100,$fast=10000"
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randread-4k-qd1 "${quick[@]}" --json
# the slow host's share of the group's window bytes: its VM's share of the members' whole-run bytes
expected=$(sqlite3 "$db" "SELECT printf('%.6f', g.read_bw_bytes * s.bw / a.bw / 12.5e6) FROM result_groups g,
	(SELECT m.group_id, sum(r.read_bw_bytes) bw FROM result_group_members m JOIN results r ON r.id = m.result_id
	 WHERE r.host = '$slow' GROUP BY m.group_id) s,
	(SELECT m.group_id, sum(r.read_bw_bytes) bw FROM result_group_members m JOIN results r ON r.id = m.result_id
	 GROUP BY m.group_id) a WHERE s.group_id = g.id AND a.group_id = g.id ORDER BY g.id DESC LIMIT 1")
assert_eq "$(jq -r '.runs[0].limited_by.layer' <<< "$OUT")" network "bench --vms --json: the slow host's link"
assert_contains "$(jq -r '.runs[0].limited_by.evidence' <<< "$OUT")" "from its 1 VM on $slow, "
assert_contains "$(jq -r '.runs[0].limited_by.evidence' <<< "$OUT")" "of $slow's 100 Mb/s link (vmnic0)"
IFS="|" read -r layer got <<< "$(group_verdict)"
assert_eq "$layer" network "results --json: the group row"
python3 -c "import sys; g, e = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (abs(g - e) < 1e-4 * e and e >= 0.9))" "$got" "$expected" ||
	fail "network share $got, not the slow host's bytes over its link $expected"
echo "test_group_limits: ok"
