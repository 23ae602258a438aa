#!/usr/bin/env bash
# nfsagent run: file errors before anything is touched, --dry-run, a whole
# campaign, and interruptions (during a Storage vMotion, during a benchmark,
# between targets) followed by --resume: no result lost or doubled, the lab
# left clean.
. "$(dirname "$0")/lib.sh"
export NFSAGENT_GUEST_PASSWORD=secret
EXPORTS=10.0.0.5:/mnt/tank/vmware,10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware64k-b

campaign() {  # campaign FILE [extra [campaign] lines]
	cat > "$1" <<INI
[campaign]
name = t
vm = fiotest
guest_user = root
profiles = randread-4k-qd1, randwrite-4k-qd1
repeat = 2
size = 4M
runtime = ${RUNTIME:-1}
probe_disks = 2
probe_size = 16M
${2:-}

[target v3]
datastore = bench-v3
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3
labels = recordsize=64K

[target v41]
datastore = bench-v41
server = 10.0.0.5
path = /mnt/tank/vmware64k-b
nfs = 4.1
labels = recordsize=64K
INI
}

# ---- file errors: FILE:LINE, exit 2, nothing touched (no lab needed)
bad="$WORK/bad.ini"
check_bad() {  # check_bad EXPECTED-MESSAGE (the file is $bad)
	run 2 "$NFSAGENT" run "$bad" --url 127.0.0.1:1
	assert_one_line "$ERR"
	assert_contains "$ERR" "$1"
}
campaign "$bad" "colour = blue"
check_bad "$bad:11: unknown key 'colour' in [campaign]"
campaign "$bad" "ramp = many"
check_bad "$bad:11: ramp wants a whole number from 0 to 86400, not 'many'"
campaign "$bad"
sed -i 's/^nfs = 4.1/nfs = 4/' "$bad"
check_bad "$bad:24: bad value '4' for nfs"
campaign "$bad"
printf '\n[target v3]\ndatastore = again\n' >> "$bad"
check_bad "$bad:27: duplicate [target v3] (the first is at line 13)"
campaign "$bad"
sed -i 's/^\[campaign\]/[campain]/' "$bad"
check_bad "$bad:1: unknown section [campain]"
printf '[target a]\ndatastore = x\n' > "$bad"
check_bad "$bad:1: no [campaign] section"
campaign "$bad"
sed -i 's/^datastore = bench-v41/datastore = bench-v3/' "$bad"
check_bad "targets v3 and v41 use the same datastore"
campaign "$bad" "password = hunter2"
check_bad "no passwords in campaign files"

lab_start -export "$EXPORTS" -nfs41-bug always -task-seconds 2 -task-steps 4 \
	-slow-tasks RelocateVM_Task,CreateVirtualDisk_Task
c="$WORK/c.ini"
campaign "$c"

# ---- preflight failures and --dry-run change nothing
sed 's/^vm = fiotest/vm = fiotst/' "$c" > "$bad"
run 2 "$NFSAGENT" run "$bad"
assert_contains "$ERR" "no VM is named 'fiotst'; did you mean 'fiotest'"
run 0 "$NFSAGENT" run "$c" --dry-run
assert_contains "$OUT" "target v41: 10.0.0.5:/mnt/tank/vmware64k-b as NFS 4.1 named bench-v41"
# Only NFS 4.1 has the extent-size bug: the NFS 3 target is not probed,
# unless it asks to be.
# A target mounts on the hosts the VM can run on (fiotest's is standalone),
# unless it says hosts = all.
assert_contains "$(flat "$OUT")" "named bench-v41 on host DC0_H0; probe first"
assert_not_contains "$(flat "$OUT")" "named bench-v3 on host DC0_H0; probe first"
sed 's/^labels = recordsize=64K$/&\nprobe = yes\nhosts = all/' "$c" > "$WORK/probe3.ini"
run 0 "$NFSAGENT" run "$WORK/probe3.ini" --dry-run
assert_contains "$(flat "$OUT")" "named bench-v3 on all hosts; probe first"
assert_le "$(widest "$OUT")" 120 "the plan's widest line"
for m in CreateNasDatastore RelocateVM_Task CreateVirtualDisk_Task StartProgramInGuest; do
	assert_eq "$(calls $m)" 0 "$m calls before the real run"
done

# ---- interrupt, resume, interrupt, resume ...
results() { "$NFSAGENT" results --where campaign="$(run_id)" --json; }
run_id() { sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "SELECT run FROM campaign_runs ORDER BY started_at DESC LIMIT 1"; }
interrupt_when() {  # interrupt_when PATTERN [--resume]: start, wait for PATTERN on stdout/stderr, Ctrl-C
	"$NFSAGENT" run "$c" ${2:-} > "$WORK/run.out" 2>&1 &
	local pid=$! i
	for i in $(seq 1 600); do grep -q -- "$1" "$WORK/run.out" && break; sleep 0.1; done
	grep -q -- "$1" "$WORK/run.out" || fail "never saw '$1': $(tail -n 5 "$WORK/run.out")"
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	assert_eq "$rc" 1 "exit status after Ctrl-C at '$1'"
	assert_contains "$(cat "$WORK/run.out")" "stopped: every finished step is kept"
	if fio_left; then fail "fio still runs"; fi
}
# 1. during the first probe: the whole run stops (resumable), not just the probe
interrupt_when_called CreateVirtualDisk_Task "$NFSAGENT" run "$c"
assert_eq "$RC" 1 "exit status after Ctrl-C during the probe"
assert_contains "$ERR" "interrupted after"
assert_contains "$ERR" "stopped: every finished step is kept"
# 2. during the first Storage vMotion (it finishes, then the run stops)
interrupt_when "Relocating fiotest to bench-v3: 25%" --resume
# A second run while a stopped one waits is refused without --resume.
run 1 "$NFSAGENT" run "$c"
assert_contains "$ERR" "has an unfinished run"
# 3. during a benchmark
RUNTIME=3 interrupt_when "randread-4k-qd1 #1 on v3: ok" --resume
# 4. between targets: after target v3's last profile of repetition 1
interrupt_when "randwrite-4k-qd1 #1 on v3: ok" --resume
# v41's bug stopped its moves: the campaign's finding, exit 3 as migrate.
run 3 "$NFSAGENT" run "$c" --resume
assert_contains "$OUT" "Where the time went"
assert_not_contains "$OUT" "reading the NAS"  # no NAS: no such part
assert_contains "$OUT" "  v3   4 ok, over NFS 3"
assert_contains "$OUT" "  v41  no results: the extent-size bug stopped the move there"

rows=$(results)
# v41 hits the bug (policy fail): its benchmarks are skipped, v3 has all of its own.
assert_eq "$(jq '[.[] | select(.target == "v3")] | length' <<< "$rows")" 4 "v3 results"
assert_eq "$(jq '[.[] | {target, repetition, profile}] | unique | length' <<< "$rows")" \
	"$(jq length <<< "$rows")" "results recorded twice"
assert_eq "$(jq -r '[.[] | .labels.recordsize] | unique | join(",")' <<< "$rows")" 64K "labels"
# The lab is clean: the VM is home, the campaign's datastores are gone.
run 0 "$NFSAGENT" ls vms --json
assert_eq "$(jq -r '.[] | select(.name == "fiotest") | .datastores | join(",")' <<< "$OUT")" truenas-vmware "fiotest's home"
run 0 "$NFSAGENT" ls datastores --json
assert_eq "$(jq '[.[] | select(.name | startswith("bench-"))] | length' <<< "$OUT")" 0 "campaign datastores left"
# The probes and the failed move are findings of this run.
assert_ge "$(sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "SELECT COUNT(*) FROM findings WHERE campaign = '$(run_id)' AND extent_bug = 1")" 2 "findings"
run 1 "$NFSAGENT" run "$c" --resume
assert_contains "$ERR" "no unfinished run to resume"
lab_stop

# ---- one export under both protocols: the targets alternate, never mounted together
lab_start -export "$EXPORTS" -nfs41-bug off
alt="$WORK/alt.ini"
campaign "$alt"
sed -i 's/^name = t/name = alt/; s/^datastore = bench-v41/datastore = bench-v3/; s|/mnt/tank/vmware64k-b|/mnt/tank/vmware64k|' "$alt"
run 0 "$NFSAGENT" run "$alt"
assert_eq "$(grep -c 'Target v41: NFS 3 leaves /mnt/tank/vmware64k first.' <<< "$OUT")" 2 "switches to NFS 4.1"
assert_eq "$(grep -c 'Target v3: NFS 4.1 leaves /mnt/tank/vmware64k first.' <<< "$OUT")" 1 "switches back to NFS 3"
rows=$(results)
assert_eq "$(jq '[.[] | select(.datastore_type == "NFS41")] | length' <<< "$rows")" 4 "results over NFS 4.1"
assert_eq "$(jq '[.[] | select(.datastore_type == "NFS")] | length' <<< "$rows")" 4 "results over NFS 3"
assert_eq "$(jq -r '[.[] | .export_path] | unique | join(",")' <<< "$rows")" /mnt/tank/vmware64k "one export"
assert_contains "$OUT" "  v41  4 ok, over NFS 4.1"
# The commands to go on with, each line within 120 columns.
assert_contains "$OUT" "Compare: nfsagent compare --a campaign=$(run_id),target=v3 \\
           --b campaign=$(run_id),target=v41"
assert_contains "$OUT" "Report: nfsagent report --html report.html --where campaign=$(run_id)"
assert_le "$(widest "$OUT")" 120 "the run's widest line"
run 0 "$NFSAGENT" ls datastores --json
assert_eq "$(jq '[.[] | select(.name | startswith("bench-"))] | length' <<< "$OUT")" 0 "campaign datastores left"
lab_stop

# ---- the NFS 3 fallback: the summary says which results did not run as asked
lab_start -export "$EXPORTS" -nfs41-bug first:3  # the probe's 2 canaries, then the first move
fb="$WORK/fb.ini"
campaign "$fb"
sed -i 's/^name = t/name = fb/; s/^profiles = .*/profiles = randread-4k-qd1/' "$fb"
echo "on_extent_bug = nfs3" >> "$fb"  # the last section: [target v41]
run 0 "$NFSAGENT" run "$fb"
assert_contains "$OUT" "  v41  2 ok, over NFS 3: all fell back to NFS 3 (the extent-size bug), so this target tells nothing about NFS 4.1"
# No comparison is suggested with a target that ran nothing as asked, and
# compare says what each side really ran over, whatever its name.
assert_not_contains "$OUT" "Compare: nfsagent compare"
run 0 "$NFSAGENT" compare --a campaign="$(run_id)",target=v3 --b campaign="$(run_id)",target=v41
# What ran is named: v41 ran as NFS 3, and this is no NFS 3 vs NFS 4.1 comparison.
assert_contains "$OUT" "A: campaign=$(run_id),target=v3 (2 ok results, over NFS 3)
B: campaign=$(run_id),target=v41 (2 ok results, over NFS 3): v41 (ran as NFS 3: extent-size bug)"
assert_contains "$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' <<< "$OUT")" \
	"warning: no NFS 3 vs NFS 4.1 comparison: B's v41 (ran as NFS 3: extent-size bug); add protocol=NFS41"
run 0 "$NFSAGENT" compare --a campaign="$(run_id)",target=v3 --b campaign="$(run_id)",target=v41 --json
assert_eq "$(jq -r '[.a.ran_as_nfs3, .b.ran_as_nfs3, .b.ran_as_text] | join(",")' <<< "$OUT")" \
	"0,2,v41 (ran as NFS 3: extent-size bug)" "JSON: what ran"
# The report groups a campaign by target by default, and names what ran.
run 0 "$NFSAGENT" report --html "$WORK/fb.html" --where campaign="$(run_id)"
assert_contains "$OUT" "4 runs (0 failed) in 2 groups"
page=$(cat "$WORK/fb.html")
assert_contains "$page" "grouped by target."
assert_contains "$page" '<p class="note fellback"><span class="few">What ran:</span> v41 (ran as NFS 3: extent-size bug) in 2 of 4 results.'
assert_contains "$page" "<li><b>randread-4k-qd1</b>: v41 (ran as NFS 3: extent-size bug) against v3"
# results tells the targets apart, and says what each ran over.
run 0 "$NFSAGENT" results --where campaign="$(run_id)"
assert_le "$(widest "$OUT")" 120 "results' widest line"
assert_contains "$OUT" "(HOST, VM left out to fit 120 columns: --wide shows them)"
run 0 "$NFSAGENT" results --where campaign="$(run_id)" --wide
assert_eq "$(head -n 1 <<< "$OUT" | tr -s ' ')" "ID STARTED (UTC) TARGET PROFILE HOST BUILD DATASTORE PROTOCOL VM STATUS IOPS P99" "results' columns"
# (v41 fell back: its rows' TARGET says so, one word here for awk)
assert_eq "$(sed 's/ (ran as NFS 3)/+ran-as-NFS-3/' <<< "$OUT" | awk 'NR > 1 { print $4, $5, $10, $11 }' |
	sort | uniq -c | tr -s ' ')" \
" 2 v3 randread-4k-qd1 NFS 3
 2 v41+ran-as-NFS-3 randread-4k-qd1 NFS 3" "results' rows by target"
lab_stop
# On one export the targets alternate: the probe found the bug, so v41 takes
# its turns as NFS 3 (no NFS 4.1 mount in repetition 2, no move into the bug).
lab_start -export "$EXPORTS" -nfs41-bug first:3
sed -i 's/^name = fb/name = fb1/; s/^datastore = bench-v41/datastore = bench-v3/; s|/mnt/tank/vmware64k-b|/mnt/tank/vmware64k|' "$fb"
run 0 "$NFSAGENT" run "$fb"
assert_contains "$(flat "$OUT")" "Target v41: the NFS 4.1 extent-size bug showed in its probe; on_extent_bug = nfs3, so its rounds mount bench-v3 as NFS 3 from the start."
assert_contains "$OUT" "Repetition 2 on target v41 (as NFS 3: the extent-size bug showed on NFS 4.1):"
# The end state names the disk by its label, as ESXi does.
assert_contains "$OUT" "  Hard disk 1: on truenas-vmware: as it started"
assert_eq "$(grep -c 'Target v41: NFS 3 leaves /mnt/tank/vmware64k first.' <<< "$OUT")" 1 "switches to NFS 4.1 (for the probe only)"
assert_contains "$OUT" "  v41  2 ok, over NFS 3: all fell back to NFS 3 (the extent-size bug), so this target tells nothing about NFS 4.1"
# regress's groups name what ran too (one datastore: a key both share); 2
# runs a side cannot tell: exit 8, no pass
run 8 "$NFSAGENT" regress --baseline campaign="$(run_id)",target=v3 --candidate campaign="$(run_id)",target=v41
assert_contains "$OUT" "candidate: campaign=$(run_id),target=v41 (2 ok results): v41 (ran as NFS 3: extent-size bug)"
echo "campaign: ok"
