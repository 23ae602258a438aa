#!/usr/bin/env bash
# bench on several VMs at once (docs/groups.md): real fio in every fleet
# guest, the group's sums equal its members' over their common window
# (docs/group-window.md), a member whose fio starts late shortens the
# window, a member whose fio dies mid-run or whose interval logs are broken
# or missing makes the group incomplete by name, and each bad group is
# refused with its one line before anything starts.
. "$(dirname "$0")/lib.sh"
lab_start -fleet 9 -tools-running fleet-01,fleet-02,fleet-03,fleet-05,fleet-06,fleet-07,fleet-08,fleet-09,DC0_H0_VM0 \
	-guest-fio-fail fleet-03 -guest-fio-late fleet-05 \
	-guest-fio-spoil-logs fleet-06=broken,fleet-07=missing,fleet-08=behind,fleet-09=bw-broken
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
quick=(--size 4M --runtime 2 --db "$db")

# Two VMs, both directions, two repetitions: the group's figures are its
# members' cut to the common window (from their fio interval logs).  4 s
# runs: at ctest -j8 on 2 cores one guest's fio began measuring 2 s after
# the other's, which left a 2 s run no common window.
perf_before=$(calls QueryPerf)
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randrw-4k-read50 --repeat 2 \
	--size 4M --runtime 4 --db "$db" --json
bench=$OUT
# On two hosts: one QueryPerf a run asks both, each member keeps its own host's.
assert_eq "$(($(calls QueryPerf) - perf_before))" 2 "counter queries for two runs on two hosts"
assert_eq "$(sqlite3 "$db" "SELECT count(DISTINCT host) || '/' || count(DISTINCT host_counters_json) FROM results
	WHERE id IN (SELECT result_id FROM result_group_members WHERE group_id = $(jq .runs[0].group_id <<< "$bench"))")" \
	"2/2" "each member's own host's counters"

assert_eq "$(jq -r '.vms | join(",")' <<< "$bench")" "fleet-01,fleet-02" "members"
assert_eq "$(jq '.runs | length' <<< "$bench")" 2 "group runs"
for dir in read write; do
	for m in iops mb_s; do
		assert_eq "$(jq --arg d $dir --arg m $m '[.runs[] | (.group[$d][$m] - ([.members[].window[$d][$m]] | add)) |
			fabs < 1e-6] | all' <<< "$bench")" true "group $dir $m is the members' sum"
	done
	# A merged p99 lies within the members' own.
	assert_eq "$(jq --arg d $dir '[.runs[] | .group[$d].p99_ms as $p | [.members[].window[$d].p99_ms] |
		($p >= min and $p <= max)] | all' <<< "$bench")" true "group $dir p99 within the members'"
done
assert_eq "$(jq '[.runs[] | .complete and .group.vms_measured == 2] | all' <<< "$bench")" true "complete"
# compare takes a group as one run with the group's own figures (not its
# VMs as two runs each), and one VM's runs against it differ in vms.
run 0 "$NFSAGENT" compare --db "$db" --a repetition=1 --b repetition=2 --json
assert_eq "$(jq -r '[.comparisons[] | .a.n, .b.n] | unique | join(",")' <<< "$OUT")" 1 "a group is one run"
assert_eq "$(jq -r '.comparisons[] | select(.direction == "read" and .metric == "iops") | .a.values[0] | round' <<< "$OUT")" \
	"$(jq -r '.runs[0].group.read.iops | round' <<< "$bench")" "a group's read IOPS in compare"
cp "$db" "$WORK/mixed.db"
run 0 "$NFSAGENT" bench --vm fleet-01 --profile randrw-4k-read50 --repeat 2 --size 4M --runtime 2 --db "$WORK/mixed.db"
run 0 "$NFSAGENT" compare --db "$WORK/mixed.db" --a "profile=randrw-4k-read50,vm=fleet-01" --b "profile=randrw-4k-read50" --json
assert_contains "$(jq -c '[.factors[].name]' <<< "$OUT")" '"vms"'
# The lab's 10 Gb/s uplinks hold a lab group's tens of MB/s easily.
assert_eq "$(jq -c '[.runs[].group.network_bound[]]' <<< "$bench")" "[]" "network-bound on 10 Gb/s links"
assert_eq "$(jq '[.runs[] | .start_skew_ms >= 0 and .start_skew_ms < 1000] | all' <<< "$bench")" true \
	"start skew measured, under a second"
echo "start skew (ms): $(jq -c '[.runs[].start_skew_ms]' <<< "$bench")"
assert_eq "$(jq '[.runs[] | .group.iops == ([.members[].window | .read.iops + .write.iops] | add)] | all' <<< "$bench")" \
	true "group IOPS"
# The window: inside every member's run, shorter than fio's runtime (fio
# logs no partial last interval), stored as the group's runtime; each
# member's own figures stay its whole run.
assert_eq "$(jq '[.runs[].group.window | .ms == .to_ms - .from_ms and .ms > 1000 and .ms < .of_ms] | all' <<< "$bench")" \
	true "window within the runtime"
echo "windows (ms of ms): $(jq -c '[.runs[].group.window | [.ms, .of_ms]]' <<< "$bench")"
assert_eq "$(sqlite3 "$db" "SELECT group_concat(read_runtime_ms || '/' || write_runtime_ms) FROM (SELECT * FROM result_groups ORDER BY id)")" \
	"$(jq -r '[.runs[].group.window.ms | "\(.)/\(.)"] | join(",")' <<< "$bench")" "window stored as the group's runtime"
assert_eq "$(jq '[.runs[].members[] | .read.iops != .window.read.iops] | all' <<< "$bench")" true \
	"members' own figures are their whole runs"
assert_eq "$(jq -r '[.runs[] | .group.spread.slowest_share > 0 and .group.spread.slowest_share <= 1] | all' <<< "$bench")" \
	true "the slowest VM's share of the fair share"
# Stored as one group per repetition, its figures the ones printed, its members linked.
assert_eq "$(sqlite3 "$db" "SELECT count(*), sum(vms), sum(incomplete) FROM result_groups")" "2|4|0" "groups"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_group_members m JOIN results r ON r.id = m.result_id")" \
	4 "members linked to their results"
# (printf: SQLite writes a whole REAL as 90092.0, jq as 90092)
assert_eq "$(sqlite3 "$db" "SELECT group_concat(printf('%.3f', read_iops)) FROM (SELECT * FROM result_groups ORDER BY id)")" \
	"$(jq -r '[.runs[] | .group.read.iops | . * 1000 | round | tostring | .[:-3] + "." + .[-3:]] | join(",")' <<< "$bench")" \
	"stored group IOPS"
assert_eq "$(sqlite3 "$db" "SELECT group_concat(id) FROM (SELECT id FROM result_groups ORDER BY id)")" \
	"$(jq -r '[.runs[].group_id | tostring] | join(",")' <<< "$bench")" "group ids in JSON"
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq -c '[.[] | [.status, (.members | length)]]' <<< "$OUT")" '[["ok",2],["ok",2]]' "a row per group"
run 0 "$NFSAGENT" results --db "$db" --json --members
assert_eq "$(jq '[.[] | select(.status == "ok")] | length' <<< "$OUT")" 4 "every member recorded"
assert_eq "$(jq -r '[.[] | .vm] | unique | join(",")' <<< "$OUT")" "fleet-01,fleet-02" "members' rows"
assert_eq "$(jq -r '[.[] | .group] | unique | map(tostring) | join(",")' <<< "$OUT")" \
	"$(jq -r '[.runs[].group_id | tostring] | join(",")' <<< "$bench")" "each member's group in results' JSON"
# results: a group is one row; --members lists its VMs.
run 0 "$NFSAGENT" results --db "$db" --wide
assert_eq "$(grep -c '^group [0-9]* .* 2 VMs  *ok ' <<< "$OUT")" 2 "one row per group"
assert_not_contains "$OUT" "fleet-01"
run 0 "$NFSAGENT" results --db "$db" --members --wide
assert_eq "$(grep -c ' fleet-0[12] ' <<< "$OUT")" 4 "--members lists every member"
run 0 "$NFSAGENT" results --db "$db" --csv
assert_eq "$(wc -l <<< "$OUT")" 3 "CSV: a row per group"
run 0 "$NFSAGENT" results --db "$db" --csv --members
assert_eq "$(wc -l <<< "$OUT")" 5 "CSV --members carries every member"

# fleet-03's fio dies a second into its run: the group is incomplete, naming it.
run 1 "$NFSAGENT" bench --vms 'fleet-0[1-3]' --profile randread-4k-qd1 --repeat 1 "${quick[@]}"
assert_contains "$OUT" "randread-4k-qd1 #1 fleet-03:  INCOMPLETE: fio failed:"
assert_contains "$OUT" "randread-4k-qd1 #1 group of 3 (INCOMPLETE):  read"
assert_contains "$OUT" "[2 of 3 VMs]"
assert_eq "$(grep -c '^randread-4k-qd1 #1 fleet-0[12]:  read' <<< "$OUT")" 2 "the others measured"
# Reads faster than an NFS round trip are flagged as a lone VM's are: on
# each member's line and on the group's (its merged bins), not on fio's
# failure.
assert_eq "$(grep -cE '^randread-4k-qd1 #1 (fleet-0[12]|group of 3 \(INCOMPLETE\)):  read .*  \[cache-served: [0-9]+% under 50 us\]' <<< "$OUT")" \
	3 "cache-served reads flagged on the members' and the group's lines"
assert_eq "$(grep -c 'cache-served' <<< "$OUT")" 3 "no flag on the failed member"
assert_eq "$ERR" "nfsagent: 1 group run incomplete: a VM did not run the whole job (named above)"
run 1 "$NFSAGENT" bench --vms 'fleet-0[1-3]' --profile randread-4k-qd1 --repeat 1 "${quick[@]}" --json
assert_eq "$(jq -r '.runs[0] | [.complete, (.members[] | select(.complete | not) | .vm)] | join(" ")' <<< "$OUT")" \
	"false fleet-03" "JSON names the incomplete member"
assert_contains "$(jq -r '.runs[0].members[2].why' <<< "$OUT")" "fio failed"
assert_eq "$(sqlite3 "$db" "SELECT vms, incomplete, substr(why, 1, 21) FROM result_groups WHERE incomplete")" \
	"3|1|fleet-03: fio failed:
3|1|fleet-03: fio failed:" "incomplete groups stored naming the VM"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_group_members WHERE vm = 'fleet-03' AND why LIKE 'fio failed%'")" \
	2 "the failed member's reason stored"

# fleet-05's fio starts 1.5 s late: the window opens with it, over a second shorter
# than the runtime, and the sums are still the members' over it.  The two
# share a host: its counters are asked once for both.
perf_before=$(calls QueryPerf)
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-05 --profile randread-4k-qd1 --repeat 1 --size 4M \
	--runtime 4 --db "$db" --json
late=$OUT
assert_eq "$(($(calls QueryPerf) - perf_before))" 1 "counter queries for two members on one host"
assert_eq "$(sqlite3 "$db" "SELECT count(DISTINCT host_counters_json) || '/' || count(host_counters_json) FROM results
	WHERE id IN (SELECT result_id FROM result_group_members WHERE group_id = (SELECT max(id) FROM result_groups))")" \
	"1/2" "both members' host counters, the one answer"
echo "late window (ms of ms): $(jq -c '.runs[0].group.window | [.ms, .of_ms]' <<< "$late")"
assert_eq "$(jq '.runs[0] | .complete and .group.vms_measured == 2' <<< "$late")" true "a late member is measured"
# (a loaded machine starts the late one later still: at -j8 the window was 970 ms of 4120)
assert_eq "$(jq '.runs[0].group.window | .ms > 0 and .ms < .of_ms - 1000' <<< "$late")" true \
	"the window starts with the late member"
assert_eq "$(jq '.runs[0] | (.group.read.iops - ([.members[].window.read.iops] | add)) | fabs < 1e-6' <<< "$late")" \
	true "the late group's IOPS are its members' in the window"

# Four fio jobs a VM (numjobs=4): each job's logs are cut, the VM's window
# figures are all four together, of its whole run's rate (one job of four
# alone would be a quarter of it; a loaded machine moves the rate within a
# run, hence the wide band).
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randread-4k-qd32x4 --repeat 1 --size 4M \
	--runtime 4 --db "$db" --json
assert_eq "$(jq '[.runs[0].members[] | .window.read.iops / .read.iops | . > 0.5 and . < 2] | all' <<< "$OUT")" \
	true "every job of a member in its window"
assert_eq "$(jq '.runs[0] | (.group.read.iops - ([.members[].window.read.iops] | add)) | fabs < 1e-6' <<< "$OUT")" \
	true "four jobs a VM: the group's IOPS are its members' in the window"

# In a 1 s run, fleet-05 begins measuring after fleet-01's logs end: no
# common window, the late one named, the other's window cut alone.
run 1 "$NFSAGENT" bench --vm fleet-01 --vm fleet-05 --profile randread-4k-qd1 --repeat 1 --size 4M \
	--runtime 1 --db "$db" --json
assert_contains "$(jq -r '.runs[0].members[1].why' <<< "$OUT")" "no common window: it began measuring "
# (a loaded machine stretches fleet-01's 1 s run: the late one may begin
# just before its logs end, less than an interval before: no window either)
why=$(jq -r '.runs[0].members[1].why' <<< "$OUT")
grep -Eq " s after fleet-01's fio logs end| ms before fleet-01's fio logs end, less than one 100 ms interval" <<< "$why" ||
	fail "the late member's reason: $why"
assert_eq "$(jq '.runs[0] | [.complete, .members[0].complete, .group.vms_measured]' -c <<< "$OUT")" \
	"[false,true,1]" "fleet-01 measured alone"

# fleet-08's logs end a minute before the others began (its clock behind):
# it alone is named, not each of the others in turn.
run 1 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --vm fleet-08 --profile randread-4k-qd1 --repeat 1 \
	"${quick[@]}" --json
assert_eq "$(jq -r '.runs[0].members[] | select(.complete | not) | "\(.vm): \(.why)"' <<< "$OUT")" \
	"fleet-08: no common window: its fio logs end before 2 other VMs began measuring (an earlier run's logs, or its clock behind)" \
	"the member whose logs end first named"
assert_eq "$(jq '.runs[0].group.vms_measured' <<< "$OUT")" 2 "the two others measured"

# Interval logs broken (fleet-06) or missing (fleet-07): incomplete, named.
run 1 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --vm fleet-06 --profile randread-4k-qd1 --repeat 1 \
	"${quick[@]}"
assert_contains "$OUT" "randread-4k-qd1 #1 fleet-06:  INCOMPLETE: its fio interval log gw_clat_hist.1.log could not be read: "
assert_contains "$OUT" "randread-4k-qd1 #1 group of 3 (INCOMPLETE):  read"
assert_eq "$(grep -c '^randread-4k-qd1 #1 group window [0-9.]* s of [0-9.]* s, skew [0-9]* ms; slowest fleet-0[12] .* \[2 of 3 VMs\]' <<< "$OUT")" 1 \
	"the window of the two others printed"
run 1 "$NFSAGENT" bench --vm fleet-01 --vm fleet-07 --profile randread-4k-qd1 --repeat 1 "${quick[@]}" --json
assert_eq "$(jq -r '.runs[0].members[] | select(.complete | not) | "\(.vm): \(.why)"' <<< "$OUT")" \
	"fleet-07: its fio interval log gw_clat_hist.1.log is missing" "JSON names the member without logs"
assert_eq "$(jq '.runs[0].group | .vms_measured == 1 and .window.ms > 0' <<< "$OUT")" true "the other one measured"
assert_eq "$(sqlite3 "$db" "SELECT why FROM result_groups WHERE id = $(jq .runs[0].group_id <<< "$OUT")")" \
	"fleet-07: its fio interval log gw_clat_hist.1.log is missing" "stored naming the member"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM result_group_members m JOIN results r ON r.id = m.result_id
	WHERE m.vm IN ('fleet-06', 'fleet-07') AND r.status = 'ok' AND m.why LIKE 'its fio interval log%'")" 2 \
	"their whole runs recorded, linked with the reason"
# The bandwidth log is read only for a job whose I/O sizes vary: fleet-09's
# (broken) goes unread under a 4k profile, each I/O's size being 4 KiB, and
# makes it incomplete under a job that splits its sizes.
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-09 --profile randread-4k-qd1 --repeat 1 "${quick[@]}" --json
assert_eq "$(jq '.runs[0] | .complete and .group.vms_measured == 2' <<< "$OUT")" true "bytes by the I/O size"
# exactly: bytes from a bandwidth log's rates (KiB/s, cut by shares) would not come to 4096 an I/O
assert_eq "$(jq '[.runs[0].members[].window.read | .mb_s * 1e6 / .iops - 4096 | fabs < 1e-6] | all' <<< "$OUT")" true \
	"4 KiB an I/O in the window, exactly"
printf '[split]\nrw=randread\nbssplit=4k/50:64k/50\nsize=4M\nruntime=2\ntime_based\n' > "$WORK/split.fio"
run 1 "$NFSAGENT" bench --vm fleet-01 --vm fleet-09 --job "$WORK/split.fio" --db "$db" --json
assert_eq "$(jq -r '.runs[0].members[] | select(.complete | not) | "\(.vm): \(.why)"' <<< "$OUT" | cut -d: -f1-2)" \
	"fleet-09: its fio interval log gw_bw.1.log could not be read" "split sizes: the bandwidth log read"
# The logs went with the staging folders: nothing of nfsagent's is left in a guest.
[ "$(find "$WORK/lab/guests" -maxdepth 2 -name tmp | wc -l)" -ge 5 ] || fail "no guest roots in $WORK/lab/guests"
assert_eq "$(find "$WORK/lab/guests" -name 'nfsagent-*' -o -name 'gw_*.log' | wc -l)" 0 "guests swept"

# report judges group runs as compare does: a 2-VM group of 3 repetitions
# a side is 3 runs a side, not 6.  (Runs of 2 s: a loaded machine started
# the second guest's fio over 1 s after the first's.)
for phase in a b; do
	run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randread-4k-qd1 --repeat 3 --size 4M \
		--runtime 2 --label phase=$phase --db "$WORK/phases.db"
done
run 0 "$NFSAGENT" compare --db "$WORK/phases.db" --a phase=a --b phase=b --json
assert_eq "$(jq -r '[.comparisons[] | .a.n, .b.n] | unique | join(",")' <<< "$OUT")" 3 "compare's runs a side"
run 0 "$NFSAGENT" report --html "$WORK/phases.html" --db "$WORK/phases.db" --group-by phase
assert_contains "$(cat "$WORK/phases.html")" "read IOPS: "
assert_eq "$(grep -o 'with [0-9]* runs a side' "$WORK/phases.html" | sort -u)" "with 3 runs a side" \
	"the report's verdicts' runs a side"

# Bad groups: one line each, before any guest is touched.
before=$(calls StartProgramInGuest)
refused() {
	run 2 "$NFSAGENT" bench "$@" --profile randread-4k-qd1 "${quick[@]}"
	assert_eq "$(head -n 1 <<< "$ERR")" "nfsagent: $REFUSAL" "refusal of $*"
}
REFUSAL="--vm fleet-01 is named twice" refused --vm fleet-01 --vm fleet-02 --vm fleet-01
REFUSAL="--vms 'nomatch-*' matches no VM" refused --vms 'nomatch-*'
many=()
for i in $(seq 1 65); do many+=(--vm "vm-$i"); done
REFUSAL="more than 64 VMs in one group" refused "${many[@]}"
REFUSAL="fleet-04 has no VMware Tools running (guestToolsNotRunning): a group runs fio through Tools in every VM" \
	refused --vm fleet-01 --vm fleet-04
REFUSAL="fleet-01 is on datastore 'truenas-vmware' and DC0_H0_VM0 on 'LocalDS_0': give --datastore" \
	refused --vm fleet-01 --vm DC0_H0_VM0
# A job file's own log settings would override the group's and be misread.
printf '[a]\nrw=randread\nsize=4M\nruntime=2\nlog_avg_msec=5000\n' > "$WORK/own-logs.fio"
run 2 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --job "$WORK/own-logs.fio" --db "$db"
assert_eq "$ERR" "nfsagent: the job file sets log_avg_msec: a group run writes fio's interval logs its own way; take it out of the job file" "a job's own log settings"
assert_eq "$(calls StartProgramInGuest)" "$before" "nothing started for a refused group"
lab_stop

# Uplinks of 100 Mb/s (12.5 MB/s): each host's sum of its members' window
# throughput is the link's, said per host and direction.
lab_start -fleet 2 -tools-running fleet-01,fleet-02 -link-speed DC0_H0=100,DC0_C0_H0=100,DC0_C0_H1=100,DC0_C0_H2=100
run 0 "$NFSAGENT" bench --vm fleet-01 --vm fleet-02 --profile randread-4k-qd1 --repeat 1 "${quick[@]}"
grep -Eq "^randread-4k-qd1 #1 group reads: network-bound: [0-9]+ MB/s through DC0_[A-Z0-9_]+'s 100 Mb/s link \(vmnic0\)" <<< "$OUT" ||
	fail "no network-bound line for a group on 100 Mb/s links: $OUT"
lab_stop
