#!/usr/bin/env bash
# bench and results: real fio in the simulated guest, rows whose provenance
# equals what the lab holds, failures recorded as failures, guest errors as
# one line each, light polling, and a kill that loses nothing.
. "$(dirname "$0")/lib.sh"
: "${TASK_PROGRESS:?}"
lab_start
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
quick=(--size 4M --runtime 1 --db "$db")

run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --profile randwrite-4k-qd1 \
	--repeat 2 --label recordsize=16K --label slog=yes "${quick[@]}"
assert_contains "$OUT" "randread-4k-qd1 #1:  read"
assert_contains "$OUT" "randwrite-4k-qd1 #2:  write"
assert_contains "$OUT" "Median (min-max) over the repetitions that succeeded:"
assert_eq "$(grep -c '^randread-4k-qd1  *read  *2 ' <<< "$OUT")" 1 "summary row for randread"
assert_eq "$(stat -c %a "$db")" 600 "database file mode"

run 0 "$NFSAGENT" results --db "$db" --json
rows=$OUT
assert_eq "$(jq length <<< "$rows")" 4 "rows"
assert_eq "$(jq -r '[.[] | .host] | unique | join(",")' <<< "$rows")" DC0_H0 "host"
assert_eq "$(jq -r '[.[] | .esxi_build] | unique | join(",")' <<< "$rows")" 24022510 "ESXi build"
assert_eq "$(jq -r '[.[] | .esxi_version] | unique | join(",")' <<< "$rows")" 8.0.3 "ESXi version"
assert_eq "$(jq -r '[.[] | .datastore_type] | unique | join(",")' <<< "$rows")" NFS "datastore type"
assert_eq "$(jq -r '[.[] | .export_path] | unique | join(",")' <<< "$rows")" /mnt/tank/vmware "export"
assert_eq "$(jq -r '[.[] | .servers] | unique | join(",")' <<< "$rows")" 10.0.0.5 "servers"
assert_eq "$(jq -r '[.[] | .vm] | unique | join(",")' <<< "$rows")" fiotest "vm"
assert_eq "$(jq -r '[.[] | .fio_version] | unique | join(",")' <<< "$rows")" fio-3.33 "fio version"
assert_eq "$(jq -r '[.[] | .labels.recordsize] | unique | join(",")' <<< "$rows")" 16K "label"
assert_eq "$(jq -r '[.[] | select(.profile == "randread-4k-qd1") | .read.iops > 0] | unique | join(",")' <<< "$rows")" true "read IOPS"
assert_eq "$(jq -r '[.[] | select(.profile == "randread-4k-qd1") | .write] | unique | join(",")' <<< "$rows")" "" "no write direction for reads"
assert_contains "$(jq -r '.[0].disk' <<< "$rows")" "[truenas-vmware] fiotest/fiotest.vmdk"
assert_eq "$(jq -r '[.[] | .repetition] | join(",")' <<< "$rows")" "1,1,2,2" "repetitions interleaved"
assert_ge "$(jq -r '.[0].host_counters | length' <<< "$rows")" 1 "host counter samples"
run 0 "$NFSAGENT" results --db "$db" --where recordsize=16K --where protocol=NFS --json
assert_eq "$(jq length <<< "$OUT")" 4 "rows with recordsize=16K over NFS 3"
run 2 "$NFSAGENT" results --db "$db" --where protocol=NFS41 --json
assert_eq "$ERR" "nfsagent: no result has protocol=NFS41 (recorded: NFS)"
run 0 "$NFSAGENT" results --db "$db" --csv
assert_eq "$(wc -l <<< "$OUT")" 5 "CSV lines"
assert_contains "$(head -n 1 <<< "$OUT")" '"read_p99_us"'
run 0 "$NFSAGENT" results --db "$db" --full --json --where profile=randread-4k-qd1
assert_contains "$(jq -r '.[0].job_file' <<< "$OUT")" "rw=randread"

# fio failing is recorded as failed, and the next repetition still runs.
printf '[bad]\nrw=sideways\nsize=1M\n' > "$WORK/bad.fio"
run 1 "$NFSAGENT" bench --vm fiotest --job "$WORK/bad.fio" --repeat 2 "${quick[@]}"
assert_eq "$(grep -c 'FAILED' <<< "$OUT")" 2 "failed repetitions shown"
assert_contains "$ERR" "2 repetitions failed"
# --json: every run with its figures and its result's id, nothing else on stdout.
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 2 --size 4M --runtime 1 \
	--db "$WORK/json.db" --json
assert_eq "$(jq -r '[.runs[] | "\(.profile)#\(.repetition)=\(.ok)"] | join(",")' <<< "$OUT")" \
	"randread-4k-qd1#1=true,randread-4k-qd1#2=true" "runs in bench's JSON"
assert_eq "$(jq -r '[.runs[] | .read.iops > 0] | unique | join(",")' <<< "$OUT")" true "read IOPS in JSON"
assert_eq "$(jq -r '[.runs[] | .result > 0] | unique | join(",")' <<< "$OUT")" true "result ids in JSON"
assert_eq "$(jq -r '.vm + " " + .datastore + " " + (.failed | tostring)' <<< "$OUT")" "fiotest truenas-vmware 0" "bench's JSON"
run 0 "$NFSAGENT" results --db "$db" --where status=failed --json
assert_eq "$(jq length <<< "$OUT")" 2 "failed rows"
assert_ge "$(jq -r '.[0].error | length' <<< "$OUT")" 5 "error text recorded"

# Guest problems: one line and a non-zero exit each.
NFSAGENT_GUEST_PASSWORD=wrong run 1 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 "${quick[@]}"
assert_one_line "$ERR"
assert_contains "$ERR" "InvalidGuestLogin: the guest user name or password is wrong"
run 2 "$NFSAGENT" bench --vm DC0_H0_VM0 --profile randread-4k-qd1 "${quick[@]}"
assert_contains "$ERR" "VMware Tools is not running"
"$TASK_PROGRESS" db01 off > /dev/null
run 2 "$NFSAGENT" bench --vm db01 --profile randread-4k-qd1 "${quick[@]}"
assert_contains "$ERR" "not powered on"
env -u NFSAGENT_GUEST_PASSWORD "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 "${quick[@]}" \
	> /dev/null 2> "$WORK/err" && fail "bench without a guest password"
assert_contains "$(cat "$WORK/err")" "no guest password"
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq length <<< "$OUT")" 6 "rows after the refused runs"

# A 30 s run: guest polling backs off, host counters are read once.
: > "$LAB_LOG"
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 1 --size 4M --runtime 30 --db "$db"
# ... and, in a pipe, says every 10 s how long fio has run of the job's 30 s.
grep -Eq '^randread-4k-qd1 #1: fio in fiotest: 10 s, about [0-9]+ s left$' <<< "$ERR" ||
	fail "no progress line at 10 s: $ERR"
grep -Eq '^randread-4k-qd1 #1: fio in fiotest: 20 s, about [0-9]+ s left$' <<< "$ERR" ||
	fail "no progress line at 20 s: $ERR"
# vs_guest_wait looks at the job's end, 30 s, then as vs_guest_next_poll
# says (the schedule itself is unit_paths'): every max(0.25 s, half the
# time past the end), 30.25, 30.5, 30.75, 31.1, 31.7, 32.5 s and so on.
# However late the lab's fio ends (1.1-3.8 s on a CI machine busy with the
# sanitized suite, more at ctest -j8 on 2 cores), the looks are at most
# what that schedule has up to the last one, beside the fio check's and one
# to spare (the look after a second); a wait that did not back off would
# look every second, 30 times or more.
read -r polls allowed <<< "$(awk '
	$2 == "StartProgramInGuest" { pre += n; n = 0; start = $1 }
	$2 == "ListProcessesInGuest" { n++; last = $1 }
	END { late = (last - start) / 1000 - 30; k = 0
	      for (p = 0; p <= late + 0.05; p += (p / 2 > 0.25 ? p / 2 : 0.25)) k++
	      print pre + n, pre + k + 1 }' "$LAB_LOG")"
assert_le "$polls" "$allowed" "process polls during a 30 s run, against the schedule ($(grep -c StartProgramInGuest "$LAB_LOG") starts)"
assert_le "$polls" 20 "process polls during a 30 s run: backed off"
assert_le "$(calls QueryPerf)" 2 "counter queries during a 30 s run"

# Killed mid-run: earlier rows intact, no fio left in the guest.
"$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 3 --size 4M --runtime 3 --db "$db" \
	> "$WORK/out" 2> "$WORK/err" &
bench=$!
for _ in $(seq 1 200); do grep -q '#1:' "$WORK/out" && break; sleep 0.1; done
sleep 1
kill -TERM "$bench"
rc=0
wait "$bench" || rc=$?
assert_eq "$rc" 1 "exit status after SIGTERM"
assert_contains "$(cat "$WORK/err")" "interrupted"
# The stop is acknowledged at once, saying what it waits for.
assert_eq "$(grep -c '^nfsagent: stopping: stopping fio in the guest; the results recorded so far are kept$' "$WORK/err")" 1 \
	"the acknowledged stop"
sleep 1
if fio_left; then fail "fio still runs"; fi
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq length <<< "$OUT")" 8 "rows after the kill (7 before, 1 from the killed run)"
sqlite3 "$db" 'PRAGMA integrity_check' | grep -qx ok || fail "database integrity"

# The seeds' profiles: 4 jobs on one shared file, footprints, the dd of zeros.
run 0 "$NFSAGENT" profiles --json
assert_eq "$(jq '.[] | select(.name == "randread-4k-qd32x4") | .footprint_bytes' <<< "$OUT")" 8589934592 \
	"footprint of a qd32x4 profile: one 8 GiB file, not 4"
assert_eq "$(jq -r '[.[] | select(.zeros) | .name] | join(",")' <<< "$OUT")" seqwrite-4m-dd-zeros "zeros"
run 0 "$NFSAGENT" profiles
assert_contains "$OUT" "seqwrite-4m-dd-zeros rw=write bs=4M iodepth=1 numjobs=1 ioengine=psync direct=0 zero_buffers=1  footprint 8.0 GiB"
assert_contains "$OUT" "metadata-20k-files   rw=write bs=4k iodepth=1 numjobs=1 nrfiles=20000 ioengine=psync direct=0  footprint 78.1 MiB"
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd32x4 --profile seqwrite-4m-dd-zeros \
	--repeat 1 --size 4M --runtime 1 --db "$WORK/seeds.db"
# (fio may print a notice before its JSON on a loaded machine: the JSON from its first '{')
json=$(sqlite3 "$WORK/seeds.db" "SELECT fio_json FROM results WHERE profile = 'randread-4k-qd32x4'" |
	sed -n '/^{/,$p')
assert_eq "$(jq -r '."global options".filename' <<< "$json")" fio.test "the jobs' one file"
assert_eq "$(jq -r '.jobs[0]."job options".numjobs' <<< "$json")" 4 "jobs"
json=$(sqlite3 "$WORK/seeds.db" "SELECT fio_json FROM results WHERE profile = 'seqwrite-4m-dd-zeros'")
assert_eq "$(jq -r '."global options".zero_buffers' <<< "$json")" 1 "zeros"

# A guest without fio, with an old one, without libaio: one line naming the
# VM and what to install, exit 2, fio never started for a job, nothing recorded.
fio_db="$WORK/fio.db"
guest_fio() {
	local mode=$1 expected=$2
	shift 2
	lab_stop
	lab_start -guest-fio "$mode"
	run 2 "$NFSAGENT" bench --vm fiotest --repeat 2 --size 4M --runtime 1 --db "$fio_db" "$@"
	assert_eq "$ERR" "$expected" "-guest-fio $mode"
	assert_eq "$OUT" "" "stdout with -guest-fio $mode"
	assert_eq "$(calls StartProgramInGuest)" 1 "programs started with -guest-fio $mode (the check)"
	assert_eq "$(sqlite3 "$fio_db" 'SELECT count(*) FROM results')" 0 "rows with -guest-fio $mode"
}
guest_fio missing "nfsagent: preparing fiotest for benchmarks failed: fiotest has no fio: install it in the guest (apt-get install fio, dnf install fio), then run again" \
	--profile randread-4k-qd1
guest_fio old "nfsagent: preparing fiotest for benchmarks failed: fiotest has fio-2.16; nfsagent needs fio 3.0 or newer (its latencies in ns): update it in the guest (apt-get install fio, dnf install fio)" \
	--profile randread-4k-qd1
guest_fio no-libaio "nfsagent: fiotest's fio has no libaio engine (fio --enghelp): install libaio in the guest (apt-get install libaio1, dnf install libaio)" \
	--profile randread-4k-qd32x4
# psync needs no libaio
run 0 "$NFSAGENT" bench --vm fiotest --repeat 1 --size 4M --runtime 1 --db "$fio_db" --profile seqwrite-4m-dd
assert_eq "$(sqlite3 "$fio_db" "SELECT count(*) FROM results WHERE status = 'ok'")" 1 "the psync run without libaio"
# A check that outlasts its first read (fio's first answer slow): the
# report read early is not taken for the guest's fio; it is waited for.
lab_stop
lab_start -guest-fio slow
run 0 "$NFSAGENT" bench --vm fiotest --repeat 1 --size 4M --runtime 1 --db "$fio_db" --profile randread-4k-qd32x4
assert_eq "$(sqlite3 "$fio_db" "SELECT count(*) FROM results WHERE status = 'ok'")" 2 "a run after a slow check"
# Three runs: the summary's RUN-TO-RUN names the spread and the rise and
# the drop compare could see (a rise needs more than a drop of the same size).
lab_stop
lab_start
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 3 --size 4M --runtime 1 --db "$WORK/three.db"
row=$(grep '^randread-4k-qd1  *read  *3 ' <<< "$OUT")
[[ $row =~ ±[0-9.]+%,\ sees\ \+([0-9]+)%/-([0-9]+)% ]] || fail "RUN-TO-RUN of 3 runs: $row"
assert_ge "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "the rise seen against the drop seen"
# The lab's hosts have 10 Gb/s uplinks: a lab run (tens of MB/s) is not
# network-bound.
assert_not_contains "$OUT" "network-bound"
# Each result records that link (Mb/s, uplink); compare of two results
# well under it says nothing of the network.
run 0 "$NFSAGENT" results --db "$WORK/three.db" --json
assert_eq "$(jq -r '[.[] | "\(.link_speed_mbit) \(.link_nic)"] | unique | join(",")' <<< "$OUT")" "10000 vmnic0" "the link recorded"
run 0 "$NFSAGENT" compare --db "$WORK/three.db" --a id=1 --b id=2
assert_not_contains "$OUT" "network-bound"
run 0 "$NFSAGENT" compare --db "$WORK/three.db" --a id=1 --b id=2 --json
assert_eq "$(jq -c .network_bound <<< "$OUT")" "[]" "no network ceiling in JSON"
# A host whose uplinks negotiated 100 Mb/s (12.5 MB/s): the same run says
# its figure is the link's, naming the host, the link and the uplink, which
# vSphere says carries NFS (vmk0, the default route: no port is on the
# export's subnet); its JSON carries the link.
lab_stop
lab_start -link-speed DC0_H0=100
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 1 --size 4M --runtime 1 --db "$WORK/slow.db"
grep -Eq "^randread-4k-qd1 read: network-bound: [0-9]+ MB/s through DC0_H0's 100 Mb/s link \(vmnic0\)" <<< "$OUT" ||
	fail "no network-bound line on a 100 Mb/s link: $OUT"
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 1 --size 4M --runtime 1 --db "$WORK/slow.db" --json
assert_eq "$(jq -c .link <<< "$OUT")" '{"host":"DC0_H0","speed_mb":100,"pnic":"vmnic0","vmk":"vmk0"}' "the link in JSON"
assert_contains "$(jq -r '.runs[0].network_bound' <<< "$OUT")" "network-bound: "
# compare reads the recorded link: both results ran at it, so a change
# between them is the network's.
run 0 "$NFSAGENT" compare --db "$WORK/slow.db" --a id=1 --b id=2 --json
assert_eq "$(jq -c '[.network_bound[] | [.profile, .direction, .a, .b]]' <<< "$OUT")" \
	'[["randread-4k-qd1","read",true,true]]' "the network ceiling in JSON"
run 0 "$NFSAGENT" compare --db "$WORK/slow.db" --a id=1 --b id=2
text=$(tr '\n' ' ' <<< "$OUT" | sed 's/   */ /g')
grep -Eq "read: network-bound: (both sides|A) at [0-9]+ MB/s through DC0_H0's 100 Mb/s link \(vmnic0\).*: a change between them is not a storage change" <<< "$text" ||
	fail "no network-bound line in compare: $OUT"
assert_le "$(widest "$OUT")" 120 "compare's widest line"
# A vCenter that keeps no datastore samples (-perf-empty): the run is
# recorded, one warning says why its host counters are missing, and they
# are stored as NULL (not measured), never as an empty list.
lab_stop
lab_start -perf-empty
empty_db="$WORK/empty.db"
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 3 --size 4M --runtime 1 --db "$empty_db"
assert_eq "$(grep -c 'no host counters' <<< "$ERR")" 1 "host counter warnings (said once for 3 runs)"
assert_contains "$ERR" "nfsagent: warning: no host counters from DC0_H0 for truenas-vmware in the run (vCenter's statistics level?); said once"
assert_le "$(widest "$(grep 'no host counters' <<< "$ERR")")" 120 "the warning's width"
assert_ge "$(calls QueryPerf)" 3 "QueryPerf calls"
run 0 "$NFSAGENT" results --db "$empty_db" --json
assert_eq "$(jq -r '[.[] | .status] | join(",")' <<< "$OUT")" ok,ok,ok "the runs without host counters"
assert_eq "$(jq -c '[.[] | .host_counters]' <<< "$OUT")" "[null,null,null]" "their host counters"
assert_eq "$(sqlite3 "$empty_db" 'SELECT count(*) FROM results WHERE host_counters_json IS NULL')" 3 "rows with NULL host counters"
echo "bench: ok"
