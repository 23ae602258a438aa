#!/usr/bin/env bash
# bench --nas-command: the NAS behind the datastore read once, sampled around
# each fio run over the lab's sshd, one NAS line per run; a label that
# contradicts the dataset warned about before the runs; a NAS that cannot be
# reached is one warning and the runs are recorded without it; a NAS lost
# during a run leaves that run's figures incomplete, one warning, every run
# kept.  The recordsize trap, by the results' measured recordsizes and by
# zpool history.  The lab's pool moves with the guest's fio
# (tests/sim/README.md); a 4 MiB file is all in the ARC.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
lab_start -nas-slog
nas_start
NAS="ssh -F $NAS_SSH_CONFIG nas"
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
quick=(--size 4M --runtime 2 --db "$db")

# stdout and stderr in one stream: the warning comes before the first run.
both() { "$NFSAGENT" "$@" > "$WORK/both" 2>&1 || echo "exit $?" >> "$WORK/both"; cat "$WORK/both"; }
sessions="$(dirname "$NAS_STATE")/nas-sessions.log"  # the lab NAS's parked sessions
: > "$LAB_LOG"
out=$(both bench --vm fiotest --profile randwrite-4k-qd1 --profile randread-4k-qd1 --repeat 2 \
	--label recordsize=16K --nas-command "$NAS" "${quick[@]}")
warning="nfsagent: warning: --label recordsize=16K contradicts the NAS: recordsize is 131072 (128.0 KiB) on the dataset tank/vmware (both are recorded)"
assert_eq "$(head -1 <<< "$out")" "$warning" "the contradiction, before any run ($out)"
assert_eq "$(grep -c '^nfsagent:' <<< "$out")" 1 "one warning"
assert_not_contains "$out" "exit "
# One NAS line after each run, the data vdevs and the SLOG apart; the pool
# figures are fio's window's (2 s: zpool's 1 s intervals measure part of it,
# said; on a loaded machine zpool's first interval may even end after fio:
# said too).
# After them what an admin watches beside a benchmark: the lab SLOG's
# write wait (95 us, 15 of them in the sync queue), the ZIL's commits and
# bytes, and the txgs synced in the window (the lab's: one a second).
txgs='; ([0-9]+ txgs? synced in [0-9.]+ m?s mean \([0-9.]+ m?s max\), [0-9.]+ [KMG]?i?B dirty on average|no txg synced in the window)'
wrote='^  NAS: pool wrote [0-9.]+ [kMG]?B/s \(mirrors\) \+ [0-9.]+ [kMG]?B/s \(log\) for [0-9.]+ [kMG]?B/s from the guest: [0-9.]+x \(dataset [0-9.]+x, data vdevs [0-9.]+x, log [0-9.]+x\); log write wait 0\.095 ms \(sync queue 0\.015 ms\); ZIL [0-9]+ commits/s, [0-9.]+ [kMG]?B/s to the SLOG, 0 B/s to the pool'"$txgs"'( \[pool measured [0-9.]+ s of fio.s ([2-9]|[1-9][0-9])\.[0-9] s\])?$'
assert_eq "$(grep -cE "$wrote|^  NAS: figures incomplete: no zpool iostat interval in fio's window\$" <<< "$out")" 2 \
	"NAS lines of the write runs ($out)"
[ "$(grep -cE "$wrote" <<< "$out")" -ge 1 ] || fail "no write run's pool figures ($out)"
assert_eq "$(grep -cE '^  NAS: pool read 0 B/s \(mirrors\) for [0-9.]+ [kMG]?B/s from the guest, ARC demand hits 100%'"$txgs"' \[cache-served: 4\.0 MiB fits in the ARC.s 7\.2 GiB\]( \[pool measured [0-9.]+ s of fio.s ([2-9]|[1-9][0-9])\.[0-9] s\])?$' <<< "$out")" 2 \
	"NAS lines of the read runs: all from the ARC ($out)"
assert_eq "$(grep -A1 '^randwrite-4k-qd1 #1:' <<< "$out" | tail -1 | cut -c1-7)" "  NAS: " "the line follows its run"
# The lab's fio reads a local file: every read is under the NFS floor.
assert_eq "$(grep -c '^randread-4k-qd1 #[12]:  read .*\[cache-served: 100% under 50 us\]' <<< "$out")" 2 \
	"latency-floor flag beside the reads"
assert_eq "$(grep -c 'cache-served' <<< "$out")" 4 "both flags on the reads, none on the writes"
# Stored with each result: the settings as measured (whatever the label
# said), the layout, the window's figures (NULL never stands for 0 here:
# every one was measured), complete.
assert_eq "$(sqlite3 -separator ' ' "$db" "SELECT result_id, dataset, recordsize, sync, compression,
	atime, logbias, primarycache, special_small_blocks, pool_layout, incomplete, why IS NULL,
	interval_s, intervals > 0, data_write_bytes IS NOT NULL, log_write_bytes IS NOT NULL,
	arc_hit_ratio FROM nas_runs ORDER BY result_id")" \
"1 tank/vmware 131072 standard lz4 off latency all 0 2 mirror + log 0 1 1 1 1 1 1.0
2 tank/vmware 131072 standard lz4 off latency all 0 2 mirror + log 0 1 1 1 1 1 1.0
3 tank/vmware 131072 standard lz4 off latency all 0 2 mirror + log 0 1 1 1 1 1 1.0
4 tank/vmware 131072 standard lz4 off latency all 0 2 mirror + log 0 1 1 1 1 1 1.0" "nas_runs rows"
# The dataset's counters are read every interval and cut to fio's window
# (the lab's feed trails fio by its 100 ms reports, and forgets an earlier
# run's reports before fio starts): each run moved them its own way, the
# writes (1, 3) the written bytes and the ZIL's on the SLOG, the reads
# (2, 4) the read bytes (test_campaign_nas checks the model's figures on
# longer runs).
assert_eq "$(sqlite3 -separator ' ' "$db" "SELECT result_id, dataset_written > 0, zil_slog_bytes > 0,
	dataset_read > 0 FROM nas_runs WHERE result_id <= 4 ORDER BY result_id")" \
"1 1 1 0
2 0 0 1
3 1 1 0
4 0 0 1" "each run's direction in the dataset's counters and the ZIL"
# The log's waits as the lab's SLOG has them, for the writes only (the
# reads wrote nothing to it); the txgs read before and after each run,
# those synced in fio's window counted: a write run's held its writes
# (the lab syncs 3 ms plus the dirty bytes at 2 GB/s; a read run's may
# hold its file's layout, synced a second later: no ramp here).
# (to the microsecond: the waits are means weighted by each interval's
# writes, and a truncated nanosecond shows as 0.094999)
assert_eq "$(sqlite3 -separator ' ' "$db" "SELECT result_id, round(log_write_wait_ms, 3), round(log_sync_write_wait_ms, 3),
	txg_count >= 1, txg_count <= 3,
	txg_count = 0 OR result_id % 2 = 0 OR txg_dirty_mean_bytes > 0,
	txg_count = 0 OR abs(txg_sync_mean_ms - 3 - txg_dirty_mean_bytes / 2e6) < 0.01,
	txg_sync_max_ms >= txg_sync_mean_ms OR txg_count = 0
	FROM nas_runs WHERE result_id <= 4 ORDER BY result_id")" \
"1 0.095 0.015 1 1 1 1 1
2   1 1 1 1 1
3 0.095 0.015 1 1 1 1 1
4   1 1 1 1 1" "the log's waits and the txgs in each run's window"
# Each run's two NAS sessions (iostat's, the readings') were opened parked
# and given their run: one pair a run, none opened in vain (the last run
# parks none).  Whether a pair was connected before its run began depends
# on the machine's load, so that is measured (tests/bench/nas_cost.sh: the
# NAS's share of nfsagent's time), not asserted here.
assert_eq "$(awk '$2 != "-" { print $3 }' "$sessions" | sort | uniq -c | awk '{ print $1, $2 }')" \
	"4 iostat
4 readings" "a parked pair of sessions per run ($(cat "$sessions"))"
assert_eq "$(awk '$2 == "-"' "$sessions" | wc -l)" 0 "no session parked in vain"
# (The amplification against the model: test_campaign_nas.sh, over 4 s and
# a ramp; 2 s measured by 1 s intervals is too coarse to assert it.)
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq -c '[.[] | [.id, .labels.recordsize, .nas.recordsize, .nas.dataset, .nas.incomplete]]' <<< "$OUT")" \
	'[[1,"16K",131072,"tank/vmware",false],[2,"16K",131072,"tank/vmware",false],[3,"16K",131072,"tank/vmware",false],[4,"16K",131072,"tank/vmware",false]]' \
	"the measured recordsize beside the label in results --json"

# ---- A NAS that cannot be read: one warning, every run recorded, exit 0 ----
for host in nas-down nas-badkey; do
	out=$(both bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 \
		--nas-command "ssh -F $NAS_SSH_CONFIG $host" "${quick[@]}")
	assert_not_contains "$out" "exit "
	assert_eq "$(grep -c '^nfsagent:' <<< "$out")" 1 "one warning ($host: $out)"
	assert_eq "$(grep -c '^randwrite-4k-qd1 #[12]:  write' <<< "$out")" 2 "runs recorded ($host)"
	assert_eq "$(grep -c 'NAS:' <<< "$out")" 0 "no NAS line ($host)"
	assert_eq "$(head -1 <<< "$out" | cut -c1-74)" \
		"nfsagent: warning: the results are recorded without the NAS side: reaching" "$host: first, why"
done
assert_contains "$out" "the results are recorded without the NAS side: reaching the NAS failed: ssh -F $NAS_SSH_CONFIG nas-badkey refused the key (no password is ever asked)"
# zpool missing there: the same, named.
nas_model '.missing = ["zpool"]'
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --nas-command "$NAS" "${quick[@]}"
assert_eq "$ERR" "nfsagent: warning: the results are recorded without the NAS side: running 'zpool list -Hpv tank' on $NAS failed: zpool is missing on $NAS (Linux OpenZFS is needed)" "zpool missing"
nas_model '.missing = []'
# zpool iostat failing during the runs (a suspended pool): each run's NAS
# figures are incomplete, with why; the runs are kept.
nas_model '.failing = ["zpool iostat"]'
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --nas-command "$NAS" "${quick[@]}"
assert_eq "$(grep -cE "^  NAS: figures incomplete: running 'zpool iostat -T u -Hpvy -l tank 1 [0-9]+' on $NAS failed: zpool exited 1: cannot open 'tank': pool I/O is currently suspended\$" <<< "$OUT")" 2 \
	"incomplete figures ($OUT)"
assert_eq "$ERR" "" "no warning for a sampler that failed"
nas_model '.failing = []'
assert_eq "$(sqlite3 -separator ' ' "$db" "SELECT result_id, recordsize, incomplete, data_write_bytes IS NULL,
	dataset_written IS NULL FROM nas_runs WHERE result_id > 4 ORDER BY result_id")" \
"11 131072 1 1 1
12 131072 1 1 1" "incomplete rows: iostat's figures NULL, and the kstats' (their deltas span the whole sampling, not fio's window)"
assert_contains "$(sqlite3 "$db" "SELECT why FROM nas_runs WHERE result_id = 12")" "pool I/O is currently suspended"

run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq length <<< "$OUT")" 12 "every run recorded"
assert_eq "$(jq -c '[.[] | select(.nas == null) | .id]' <<< "$OUT")" '[5,6,7,8,9,10]' \
	"runs without the NAS side: unreachable, key refused, zpool missing"
# results --csv carries every NAS figure --json does: a nas_ column each,
# in the JSON's order, a number as the JSON writes it (a real to 15
# digits: no binary noise); not measured is an empty cell, never a 0, and a
# run without a NAS side has every one empty.
# The clocks' difference that placed fio's window is stored with it.
echo "$OUT" > "$WORK/results.json"
run 0 "$NFSAGENT" results --db "$db" --csv
echo "$OUT" > "$WORK/results.csv"
assert_contains "$(head -1 <<< "$OUT")" '"labels","nas_dataset","nas_pool_layout",' "the NAS columns after the labels"
assert_contains "$(head -1 <<< "$OUT")" '"nas_window_s","nas_amplification","nas_amp_guest_to_dataset","nas_amp_dataset_to_data","nas_amp_log_share","nas_clock_shift_s","nas_clock_err_s","nas_txg_count","nas_log_write_wait_ms","nas_log_sync_write_wait_ms","nas_txg_sync_mean_ms","nas_txg_sync_max_ms","nas_txg_dirty_mean_bytes","nas_incomplete","nas_timeline"' "CSV header's figures"
check=$(python3 - "$WORK/results.csv" "$WORK/results.json" <<-'PY'
	import csv, json, math, re, sys
	rows = list(csv.DictReader(open(sys.argv[1], newline="")))
	def digits(c):  # the significant digits a real's cell was written with
	    return len(re.sub(r"^0*", "", re.sub(r"[-.]|e.*", "", c)).rstrip("0") or "0")
	def close(a, b):  # the cell's JSON against --json's, reals to 15 digits
	    if isinstance(a, dict):
	        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
	    if isinstance(a, list):
	        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
	    if isinstance(b, float):
	        return math.isclose(a, b, rel_tol=1e-14)
	    return a == b
	results = {r["id"]: r for r in json.load(open(sys.argv[2]))}
	keys = list(next(r["nas"] for r in results.values() if r["nas"]))
	names = [c for c in rows[0] if c.startswith("nas_")]
	assert names == ["nas_" + k for k in keys], (names, keys)
	for row in rows:
	    nas = results[int(row["id"])]["nas"]
	    for k in keys:
	        c, v = row["nas_" + k], None if nas is None else nas[k]
	        if v is None:
	            assert c == "", (row["id"], k, c)
	        elif isinstance(v, bool):
	            assert c == str(v).lower(), (row["id"], k, c)
	        elif isinstance(v, float):
	            assert math.isclose(float(c), v, rel_tol=1e-14) and digits(c) <= 15, (row["id"], k, c, v)
	        elif isinstance(v, int):
	            assert c == str(v), (row["id"], k, c, v)
	        elif isinstance(v, str):
	            assert c == v, (row["id"], k, c)
	        else:
	            assert close(json.loads(c), v), (row["id"], k, c)
	amp = [r for r in rows if results[int(r["id"])]["nas"] and results[int(r["id"])]["nas"]["amplification"] is not None]
	assert amp and all(math.isclose(float(r["nas_amplification"]), results[int(r["id"])]["nas"]["amplification"], rel_tol=1e-14) for r in amp)
	empty = [int(r["id"]) for r in rows if not any(r["nas_" + k] for k in keys)]
	clocked = [int(r["id"]) for r in rows if r["nas_clock_shift_s"] and 0 <= float(r["nas_clock_err_s"]) < 1]
	print(len(names), "columns; without a NAS side", empty, "; clocks known on", clocked[:4],
	      "; an amplification cell equal to its JSON:", amp[0]["nas_amplification"] != "")
	PY
) || fail "results --csv against --json"
assert_eq "$check" "60 columns; without a NAS side [5, 6, 7, 8, 9, 10] ; clocks known on [1, 2, 3, 4] ; an amplification cell equal to its JSON: True" "results --csv's NAS cells ($check)"

# ---- The settings as measured are provenance fields (zfs_), whatever a
# label said: selected by any spelling of a size, in JSON and CSV ----
run 0 "$NFSAGENT" results --db "$db" --where zfs_recordsize=128k --json
assert_eq "$(jq -c '[.[] | .id]' <<< "$OUT")" '[1,2,3,4,11,12]' "selected by the measured recordsize"
assert_eq "$(jq -c '.[0] | [.zfs_recordsize, .zfs_sync, .zfs_special_small_blocks, .zfs_pool_layout, .labels.recordsize]' <<< "$OUT")" \
	'["128K","standard","0","2 mirror + log","16K"]' "zfs_ fields beside the label"
run 0 "$NFSAGENT" results --db "$db" --where zfs_recordsize=131072 --csv
assert_contains "$(head -1 <<< "$OUT")" '"zfs_recordsize","zfs_sync","zfs_compression","zfs_atime","zfs_logbias","zfs_primarycache","zfs_special_small_blocks","zfs_pool_layout"' "CSV header"
assert_eq "$(grep -c '"128K","standard","lz4","off","latency","all","0","2 mirror + log"' <<< "$OUT")" 6 "CSV rows"
run 2 "$NFSAGENT" results --db "$db" --where zfs_recordsize=16K
assert_contains "$ERR" "no result has zfs_recordsize=16K (recorded: 128K)" "none, with what was measured"
# compare warns about the label that contradicts the measured recordsize.
run 0 "$NFSAGENT" compare --db "$db" --a recordsize=16K --b zfs_recordsize=128K,id=11
assert_contains "$OUT" "warning: label recordsize=16K contradicts the NAS in A: zfs_recordsize is 128K (2 runs)" "compare's warning ($OUT)"
assert_not_contains "$OUT" "contradicts the NAS in B" "B's run has no label"
run 0 "$NFSAGENT" compare --db "$db" --a recordsize=16K --b zfs_recordsize=128K,id=11 --json
assert_eq "$(jq -c '.label_conflicts' <<< "$OUT")" '["label recordsize=16K contradicts the NAS in A: zfs_recordsize is 128K (2 runs)"]' "in JSON"

# ---- The seeds' trap: the dataset's recordsize changed while the disk
# stayed (changed by jq, the pool's history says nothing of it: the
# results' measured recordsize is the sign); the disk may hold records of
# the old size ----
nas_model '(.datasets[] | select(.name == "tank/vmware") | .recordsize) = 16384'
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --nas-command "$NAS" "${quick[@]}"
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: warning: result 1 measured recordsize 128K on Hard disk 1 [truenas-vmware] fiotest/fiotest.vmdk (20" "the trap ($ERR)"
assert_contains "$ERR" "and tank/vmware has 16.0 KiB now: the disk may still hold records of the old size, since a recordsize applies to blocks written after it is set; for results of 16.0 KiB records, move the VM to a dataset that had it before the disk arrived"
nas_model '(.datasets[] | select(.name == "tank/vmware") | .recordsize) = 131072'

# ---- The NAS side commits with its result: a kill right after the
# result's transaction finds both recorded; and leaves nothing running on
# the NAS: the next run's parked pair ends with the end of its stdin ----
: > "$sessions"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	LD_PRELOAD="$KILL_AFTER_COMMIT" KILL_AFTER_RESULT=1 "$NFSAGENT" bench --vm fiotest \
	--profile randwrite-4k-qd1 --nas-command "$NAS" "${quick[@]}" > /dev/null 2>&1 && echo "not killed" >&2
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM results r JOIN nas_runs n ON n.result_id = r.id
	WHERE r.id = (SELECT max(id) FROM results)")" 1 "the killed run's result has its NAS side"
for i in $(seq 1 100); do
	pgrep -f -- "-nas-shell $NAS_STATE" > /dev/null || break
	sleep 0.05
done
assert_eq "$(pgrep -f -- "-nas-shell $NAS_STATE" | wc -l)" 0 "nothing of the killed bench runs on the NAS"
assert_eq "$(awk '$2 == "-" { print $3 }' "$sessions" | sort | tr '\n' ' ')" "iostat readings " \
	"the next run's pair, parked, ended unused ($(cat "$sessions"))"
# That run is at 128K again, after the 16K one on the same disk: compare says so.
run 0 "$NFSAGENT" compare --db "$db" --a recordsize=16K --b zfs_recordsize=128K,profile=randwrite-4k-qd1
# (compare wraps its warnings at 120 columns: joined again)
assert_contains "$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' <<< "$OUT")" "warning: 1 run of B measured recordsize 128K on Hard disk 1 [truenas-vmware] fiotest/fiotest.vmdk after result 13 measured 16K there: the disk may still hold 16K records, since a recordsize applies to blocks written after it is set" "compare's trap ($OUT)"
# ---- The trap by the pool's history: tank/vmware set to 16K on the NAS
# while fiotest's disk stayed there since result 1; db01's second disk,
# benched on LocalDS_0 before the change, moved onto the dataset after it:
# no warning for db01 (neither disk has a result there before the change) ----
run 0 "$NFSAGENT" bench --vm db01 --datastore LocalDS_0 --profile randwrite-4k-qd1 "${quick[@]}"
assert_eq "$(sqlite3 "$db" "SELECT disk FROM results WHERE id = (SELECT max(id) FROM results)")" \
	"Hard disk 2 [LocalDS_0] db01/db01_1.vmdk" "db01's disk on LocalDS_0"
nas_command zfs set recordsize=16K tank/vmware
assert_eq "$(nas_command env TZ=UTC zpool history -il tank | grep -c 'set tank/vmware ([0-9]*) recordsize=16384 \[on lab-nas\]$')" 1 \
	"the kernel's record of the change"
set_at=$(jq -r '.history[-1].time | todate' "$NAS_STATE")
first=$(sqlite3 "$db" "SELECT started_at FROM results WHERE id = 1")
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --nas-command "$NAS" "${quick[@]}"
assert_eq "$ERR" "nfsagent: warning: the recordsize of tank/vmware was last changed at $set_at (zpool history), after result 1 ran on Hard disk 1 [truenas-vmware] fiotest/fiotest.vmdk there ($first): the disk may still hold records of the old size, since a recordsize applies to blocks written after it is set; for results of 16.0 KiB records, move the VM to a dataset that had it before the disk arrived" \
	"the trap by zpool history"
run 0 "$NFSAGENT" migrate --vm db01 --datastore truenas-vmware
run 0 "$NFSAGENT" bench --vm db01 --profile randwrite-4k-qd1 --nas-command "$NAS" "${quick[@]}"
assert_eq "$ERR" "" "db01 moved onto tank/vmware after the change: no warning"
assert_eq "$(sqlite3 "$db" "SELECT recordsize FROM nas_runs WHERE result_id = (SELECT max(id) FROM results)")" \
	16384 "db01's run measured the new recordsize"

# ---- The NAS lost during a run (its sshd and the sessions open to it
# stopped once fio runs, as a NAS's reboot ends them): that run is kept,
# its figures incomplete (its last reading never came); the next run cannot
# reach the NAS at all: incomplete too, and one warning; both recorded.
before=$(sqlite3 "$db" "SELECT max(id) FROM results")
"$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --nas-command "$NAS" "${quick[@]}" \
	> "$WORK/lost.out" 2> "$WORK/lost.err" &
bench_pid=$!
# This bench's own fio (its folder names its pid): the fio of the bench
# killed above may still run in the guest.
for i in $(seq 1 600); do
	pgrep -f -- "-guest-fio-run .*nfsagent-$bench_pid-" > /dev/null && break
	sleep 0.05
done
pgrep -f -- "-guest-fio-run .*nfsagent-$bench_pid-" > /dev/null || fail "the bench's fio never ran"
pkill -P "${OTHER_PIDS[-1]}" || true  # its sessions, if any is open now
kill "${OTHER_PIDS[-1]}"
wait "$bench_pid" || fail "bench with the NAS lost: exit $? ($(cat "$WORK/lost.err"))"
# Neither run waited out a NAS command's 10 s for a reading that could not
# come: a wait that ran out says "no answer from ... in 10 s".
assert_not_contains "$(cat "$WORK/lost.out" "$WORK/lost.err")" "no answer from" "the bench that lost the NAS"
assert_eq "$(grep -c '^randwrite-4k-qd1 #[12]:  write' "$WORK/lost.out")" 2 "both runs recorded"
assert_eq "$(grep -cE '^  NAS: figures incomplete: running .* is unreachable: (ssh failed|Connection to 127.0.0.1 closed by remote host\.)$' "$WORK/lost.out")" 1 \
	"the run that lost the NAS: incomplete, saying why ($(cat "$WORK/lost.out"))"
assert_eq "$(grep -cE '^  NAS: figures incomplete: running .* is unreachable: ssh: connect to host 127.0.0.1 port [0-9]+: Connection refused$' "$WORK/lost.out")" 1 \
	"the run after it: incomplete, saying why ($(cat "$WORK/lost.out"))"
assert_eq "$(grep -c '^nfsagent: warning: the NAS could not be sampled: ' "$WORK/lost.err")" 1 \
	"one warning ($(cat "$WORK/lost.err"))"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM nas_runs WHERE result_id > $before AND incomplete = 1 AND why IS NOT NULL")" 2 \
	"both NAS rows incomplete, with why"

echo "test_bench_nas: ok"
