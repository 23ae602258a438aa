#!/usr/bin/env bash
# A campaign of several VMs (vms =, docs/campaigns.md): every VM moves to the
# target and home again with the fleet op, each repetition of a profile is
# one group run with all of them, journaled with its group; a kill right
# after a group's commit and one mid-group, each then --resume, leave
# exactly one group per step; Ctrl-C then --abort brings every VM home;
# bad vms = refused before anything moves.
. "$(dirname "$0")/lib.sh"
: "${KILL_AFTER_COMMIT:?KILL_AFTER_COMMIT must name the kill_after_commit shim}"
export NFSAGENT_GUEST_PASSWORD=secret

group_campaign() {  # group_campaign FILE VMS [extra [campaign] lines]
	cat > "$1" <<INI
[campaign]
name = g
vms = $2
guest_user = root
profiles = randread-4k-qd1
repeat = 2
size = 4M
runtime = 3
${3:-}

[target v3]
datastore = bench-v3
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3
probe = no
INI
}
ini="$WORK/g.ini"

# ---- file errors: FILE:LINE, exit 2 (no lab needed)
check_bad() {  # check_bad VMS EXTRA EXPECTED
	group_campaign "$ini" "$1" "$2"
	run 2 "$NFSAGENT" run "$ini" --url 127.0.0.1:1
	assert_one_line "$ERR"
	assert_contains "$ERR" "$3"
}
check_bad "fleet-01, fleet-02, fleet-01" "" "$ini:3: vms names fleet-01 twice"
check_bad "fleet-01, , fleet-02" "" "$ini:3: vms wants VM names or globs separated by commas: one is empty"
check_bad "$(seq -s ', ' -f 'vm-%g' 1 65)" "" "$ini:3: vms names more than 64 VMs"
check_bad "fleet-01, fleet-02" "vm = fiotest" "$ini:3: give vm or vms, not both"
check_bad "fleet-01" "parallel = 0" "$ini:9: parallel wants a whole number from 1 to 32, not '0'"

lab_start -fleet 3 -tools-running fleet-01,fleet-02,fleet-03,DC0_H0_VM0
db="$WORK/results.db"
homes() {  # where the fleet VMs' files are: "fleet-01=ds ..."
	"$NFSAGENT" ls vms --json | jq -r '[.[] | select(.name | startswith("fleet-")) |
		"\(.name)=\(.datastores | join("+"))"] | sort | join(" ")'
}
at_home="fleet-01=truenas-vmware fleet-02=truenas-vmware fleet-03=truenas-vmware"
assert_eq "$(homes)" "$at_home" "the fleet at home before"

# ---- refused at preflight, before anything moves or mounts
refused() {  # refused VMS EXPECTED
	group_campaign "$ini" "$1"
	run 2 "$NFSAGENT" run "$ini" --db "$db"
	assert_one_line "$ERR"
	assert_contains "$ERR" "$2"
}
refused "fleet-01, nomatch-*" "$ini:3: vms: 'nomatch-*' matches no VM"
refused "fleet-01, fiotest" "fiotest has no VMware Tools running"
refused "fleet-0*, DC0_H0_VM0" \
	"fleet-01 is on datastore 'truenas-vmware' and DC0_H0_VM0 on 'LocalDS_0': a campaign's VMs start on one datastore"
assert_eq "$(calls RelocateVM_Task)" 0 "relocations for refused campaigns"
assert_eq "$(calls CreateNasDatastore)" 0 "mounts for refused campaigns"

# ---- a whole campaign: 3 VMs, one target, one profile, 2 repetitions
group_campaign "$ini" "fleet-01, fleet-0[23]" "parallel = 2"
run 0 "$NFSAGENT" run "$ini" --db "$db"
assert_contains "$OUT" "3 VMs, on truenas-vmware: fleet-01, fleet-02, fleet-03"
assert_le "$(widest "$OUT")" 120 "a group campaign's widest line"
assert_le "$(widest "$ERR")" 120 "a group campaign's widest warning"
# The target goes to the hosts the VMs can run on: their cluster's, not the
# standalone DC0_H0.
assert_contains "$(flat "$OUT")" "named bench-v3 on hosts DC0_C0_H0, DC0_C0_H1, DC0_C0_H2;"
assert_eq "$(calls CreateNasDatastore)" 3 "mounts of the whole campaign"
assert_contains "$OUT" "Moving 3 of 3 VMs to bench-v3 (2 at once at most):"
assert_eq "$(grep -c '^  fleet-0[123]: moved, verified' <<< "$OUT")" 6 "moves there and home, verified"
assert_eq "$(grep -c '^  randread-4k-qd1 #[12] on v3: group of 3 ok (group [0-9]*)$' <<< "$OUT")" 2 \
	"group runs said"
assert_eq "$(sqlite3 "$db" "SELECT count(*), sum(vms), sum(incomplete), group_concat(repetition)
	FROM result_groups")" "2|6|0|1,2" "groups recorded"
assert_eq "$(sqlite3 "$db" "SELECT count(DISTINCT r.vm), count(*) FROM result_group_members m
	JOIN results r ON r.id = m.result_id AND r.target = 'v3' AND r.status = 'ok'")" "3|6" \
	"every member's result, in the campaign"
# Each step names its group: journaled with it.
assert_eq "$(sqlite3 "$db" "SELECT group_concat(s.step || '=' || (s.detail = CAST(g.id AS TEXT)), ' ')
	FROM campaign_steps s JOIN result_groups g ON g.repetition = CAST(substr(s.step, 10, 1) AS INTEGER)
	WHERE s.step LIKE 'group:%'")" "group:v3:1:randread-4k-qd1=1 group:v3:2:randread-4k-qd1=1" \
	"each group step names its group"
# The summary: one row per group under its target.
assert_contains "$OUT" "v3  2 group runs (0 incomplete) of 6 ok member results, over NFS 3"
assert_eq "$(grep -cE '^    randread-4k-qd1 #[12] \(group [0-9]+\): 3 VMs, [0-9]+ IOPS, slowest fleet-0[123] at [0-9.]+ of a fair share$' <<< "$OUT")" \
	2 "the summary's group rows"
assert_contains "$OUT" "fleet-03: files on truenas-vmware, 1 datastore: as it started"
# The HTML report: one row per group run, the group's own figures.
run_g=$(sqlite3 "$db" "SELECT run FROM campaign_runs WHERE name = 'g'")
run 0 "$NFSAGENT" report --html "$WORK/g.html" --db "$db" --where "campaign=$run_g"
assert_eq "$(grep -c '^<tr class="group-run"><td>[0-9]*</td>.*<td>randread-4k-qd1</td><td>[^<]*</td><td>3</td><td>[0-9,]*</td>' "$WORK/g.html")" \
	2 "the report's group rows"
assert_eq "$(homes)" "$at_home" "every VM at home after the campaign"
assert_eq "$("$NFSAGENT" ls datastores --json | jq '[.[] | select(.name == "bench-v3")] | length')" 0 \
	"the campaign's mount gone"

# ---- killed right after the first group's commit, then --resume: a round
# of two profiles prepares its guests once and journals each group with it
group_campaign "$ini" "fleet-0*"
sed -i 's/^name = g$/name = k/; s/^profiles = .*/profiles = randread-4k-qd1, randwrite-4k-qd1/; s/^repeat = 2$/repeat = 1/' "$ini"
rc=0
# (the shim is preloaded before ASan's runtime in the sanitized build)
KILL_AFTER_STEP_NAMED=group: LD_PRELOAD="$KILL_AFTER_COMMIT" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NFSAGENT" run "$ini" --db "$db" \
	> "$WORK/killed.out" 2>&1 || rc=$?
assert_eq "$rc" 137 "killed after the first group's commit"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM campaign_steps WHERE run LIKE 'k-%' AND step LIKE 'group:%'")" \
	1 "the first group journaled"
# The resume works on the VMs the run journaled, whatever vms = matches now.
sed -i 's/^vms = .*/vms = fleet-0[12]/' "$ini"
run 0 "$NFSAGENT" run "$ini" --db "$db" --resume
assert_eq "$(grep -c 'group of 3 ok' <<< "$OUT")" 1 "the resume runs only the second group, of the 3 VMs"
assert_contains "$OUT" "randwrite-4k-qd1 #1 on v3: group of 3 ok"
sed -i 's/^vms = .*/vms = fleet-0*/' "$ini"
group_steps() {  # campaign run k's group steps and the groups they name: "steps|distinct groups|groups"
	sqlite3 "$db" "SELECT count(*), count(DISTINCT detail) FROM campaign_steps
		WHERE run LIKE '$1-%' AND step LIKE 'group:%'"
}
assert_eq "$(group_steps k)" "2|2" "one group per step after the kill"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_groups")" 4 "groups in all"
assert_eq "$(homes)" "$at_home" "every VM at home after the resume"

# A benchmark's fio runs in this test's lab (not fio --version).
fio_job_running() {
	local pid
	for pid in $(pgrep -x fio); do
		case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in
		"$WORK"/*) tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- --output-format && return 0 ;;
		esac
	done
	return 1
}
on_target="fleet-01=bench-v3 fleet-02=bench-v3 fleet-03=bench-v3"
# Mid-group: every VM on the target and a benchmark's fio running (a fio
# an earlier run left, ending, is not enough); MID_GROUPS: the groups
# recorded then, before the running one (a loaded machine's slow looks may
# catch the second group of two).
wait_mid_group() {
	local i
	for i in $(seq 1 300); do
		fio_job_running && [ "$(homes)" = "$on_target" ] &&
			MID_GROUPS=$(sqlite3 "$db" "SELECT count(*) FROM result_groups") && fio_job_running && return 0
		sleep 0.05
	done
	fail "no group ran"
}

# ---- killed mid-group (fio running in the guests), then --resume
sed -i 's/^name = k$/name = m/' "$ini"
groups_before=$(sqlite3 "$db" "SELECT count(*) FROM result_groups")
"$NFSAGENT" run "$ini" --db "$db" > "$WORK/killed.out" 2>&1 &
pid=$!
wait_mid_group
kill -KILL "$pid"
wait "$pid" || true
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_groups") " "$MID_GROUPS " \
	"nothing of the killed group recorded"
run 0 "$NFSAGENT" run "$ini" --db "$db" --resume
assert_eq "$(group_steps m)" "2|2" "one group per step after a kill mid-group"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_groups")" "$((groups_before + 2))" \
	"the resume recorded the two groups"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_group_members m JOIN result_groups g
	ON g.id = m.group_id WHERE m.result_id IS NULL")" 0 "every member recorded"
assert_eq "$(homes)" "$at_home" "every VM at home after the kill and the resume"

# ---- Ctrl-C mid-group, then --abort: every VM home, nothing more runs
sed -i 's/^name = m$/name = a/' "$ini"
"$NFSAGENT" run "$ini" --db "$db" > "$WORK/stopped.out" 2>&1 &
pid=$!
wait_mid_group
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
assert_eq "$rc" 1 "stopped by Ctrl-C"
assert_contains "$(cat "$WORK/stopped.out")" "stopped: every finished step is kept"
assert_eq "$(homes)" "$on_target" "the VMs on the target at the stop"
run 0 "$NFSAGENT" run "$ini" --db "$db" --abort
assert_contains "$OUT" "aborted: everything is back where it started."
assert_eq "$(homes)" "$at_home" "every VM at home after the abort"
assert_eq "$(group_steps a)" "0|0" "no group of the stopped run"
lab_stop
