#!/usr/bin/env bash
# bench --nas-command against pools shaped as real ones are (the lab's
# -nas-shape, tests/sim/nasshapes.go): a removed vdev (indirect-0 first), a
# degraded pool resilvering (a disk missing, named by its guid, being
# replaced), mixed data vdevs; then a vdev zpool iostat prints that the
# layout lacks.  Each: the layout named as it is, the figures per class
# stored, nothing lost, the pool's health stored and warned about once; a
# shape that cannot be read costs the NAS side, with one warning naming the
# line, never a result.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
both() { "$NFSAGENT" "$@" > "$WORK/both" 2>&1 || echo "exit $?" >> "$WORK/both"; cat "$WORK/both"; }
# A lab of that shape (its nas.json where the NAS's sshd reads it), a
# write run (or two) sampled on it; what bench printed in $out.  Not in a
# $(...): the lab and sshd it starts would hold its output open.
bench_on() {
	local shape=$1 repeat=$2
	[ -z "$LAB_PID" ] || lab_stop
	lab_start -nas-slog -nas-shape "$shape"
	[ -n "${NAS_SSH_CONFIG:-}" ] || nas_start
	NAS="ssh -F $NAS_SSH_CONFIG nas"
	out=$(both bench --vm fiotest --profile randwrite-4k-qd1 --repeat "$repeat" --size 4M \
		--runtime 2 --nas-command "$NAS" --db "$db")
}
# The stored NAS rows of the results after id $1.
rows_after() {
	sqlite3 -separator '|' "$db" "SELECT pool_layout, pool_health, incomplete, why IS NULL,
		data_write_bytes > 0, log_write_bytes > 0 FROM nas_runs WHERE result_id > $1
		ORDER BY result_id"
}
last_id() { sqlite3 "$db" "SELECT coalesce(max(id), 0) FROM results"; }
# The figures per class against the lab's model (tests/sim/README.md): a 4K
# random write rewrites its 128K record on every copy of a data vdev and
# goes once to the SLOG, so data / log bytes = 32 x the data vdevs' mean
# copies (2 for mirrors; a mirror, a raidz1 of 3 and a disk: (2 + 1.5 + 1)
# / 3).  Both over the same intervals: within 20%.
data_per_log() {  # data_per_log AFTER-ID MODEL
	local got
	for got in $(sqlite3 "$db" "SELECT data_write_bytes * 1.0 / log_write_bytes FROM nas_runs
		WHERE result_id > $1"); do
		awk -v g="$got" -v m="$2" 'BEGIN { exit !(g >= 0.8 * m && g <= 1.2 * m) }' ||
			fail "data / log bytes $got, the model's $2"
	done
}
wrote='^  NAS: pool wrote [0-9.]+ [kMG]?B/s \(WORD\) \+ [0-9.]+ [kMG]?B/s \(log\) for [0-9.]+ [kMG]?B/s from the guest'
late="^  NAS: figures incomplete: no zpool iostat interval in fio's window\$"
nas_lines() { grep -cE "${wrote/WORD/$2}|$late" <<< "$1" || true; }

# indirect-0 first (zpool remove of mirror-0): no NAS side lost, the
# mirrors after it and the SLOG apart.
bench_on removed 1
assert_not_contains "$out" "exit "
assert_eq "$(grep -c '^nfsagent:' <<< "$out" || true)" 0 "no warning on a pool with a removed vdev ($out)"
assert_eq "$(nas_lines "$out" mirrors)" 1 "its NAS line ($out)"
run 0 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_contains "$OUT" "Layout:               2 mirror (1 removed) + log"
assert_contains "$OUT" "data:                 3: indirect-0 (removed), mirror-1 (mirror, 2 disks), mirror-2 (mirror, 2 disks)"
assert_eq "$(rows_after 0)" "2 mirror (1 removed) + log|ONLINE|0|1|1|1" "the removed shape's row"
data_per_log 0 64

# Degraded and resilvering: warned once for two runs, stored with each.
before=$(last_id)
bench_on degraded 2
assert_not_contains "$out" "exit "
assert_eq "$(grep '^nfsagent:' <<< "$out")" \
	"nfsagent: warning: pool tank is DEGRADED (resilver 43%): these figures are not the healthy pool's" \
	"one warning, before the runs ($out)"
assert_eq "$(head -1 <<< "$out" | cut -c1-9)" "nfsagent:" "the warning comes first"
assert_eq "$(nas_lines "$out" mirrors)" 2 "a NAS line a run ($out)"
assert_eq "$(rows_after "$before")" "2 mirror + log|DEGRADED (resilver 43%)|0|1|1|1
2 mirror + log|DEGRADED (resilver 43%)|0|1|1|1" "the degraded shape's rows"
data_per_log "$before" 64
run 0 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_contains "$OUT" "Pool:                 tank, DEGRADED (resilver 43%), "
assert_contains "$OUT" "data:                 2: mirror-0 (mirror, 2 disks, DEGRADED), mirror-1 (mirror, 2 disks)"
# The health is provenance: a query and compare's factors name it.
run 0 "$NFSAGENT" results --db "$db" --where "zfs_pool_health=DEGRADED (resilver 43%)" --json
assert_eq "$(jq -c '[.[].zfs_pool_health] | unique' <<< "$OUT")" '["DEGRADED (resilver 43%)"]' \
	"the degraded results by their health"
assert_eq "$(jq length <<< "$OUT")" 2 "two of them"
run 0 "$NFSAGENT" compare --db "$db" --a "zfs_pool_health=ONLINE" --b "zfs_pool_health=DEGRADED (resilver 43%)"
assert_contains "$(flat "$OUT")$ERR" "zfs_pool_health (ONLINE vs DEGRADED (resilver 43%))"
# Two bench processes ran the one profile: one job file, whatever their folders' names.
assert_not_contains "$OUT" "job_file"

# Mixed data vdevs: named so on the line and in the row.
before=$(last_id)
bench_on mixed 1
assert_eq "$(grep -c '^nfsagent:' <<< "$out" || true)" 0 "no warning on a mixed pool ($out)"
assert_eq "$(nas_lines "$out" 'mixed: mirror, raidz1, disk')" 1 "the mixed pool's NAS line ($out)"
assert_eq "$(rows_after "$before")" "mixed: mirror, raidz1, disk + log|ONLINE|0|1|1|1" "the mixed shape's row"
data_per_log "$before" 48

# A vdev added after the layout was read (zpool iostat prints it, the
# layout lacks it): each run's NAS side is lost, said once with its line;
# the results are recorded.
before=$(last_id)
[ -z "$LAB_PID" ] || lab_stop
lab_start -nas-slog
nas_model '.vdevs += [{name: "mirror-3", class: "data", leaves: ["sdy", "sdz"], size: 3985729650688,
	alloc: 0, leaf_size: 4000787030016, io: {read_ops: 0, write_ops: 0, read_bytes: 0, write_bytes: 0},
	unlisted: true}]'
out=$(both bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --size 4M --runtime 2 \
	--nas-command "$NAS" --db "$db")
assert_not_contains "$out" "exit "
assert_eq "$(grep '^nfsagent:' <<< "$out")" \
	"nfsagent: warning: the NAS side of this run is lost: line 9 of zpool iostat ('mirror-3') is not the vdev zpool list has there (nvme2n1)" \
	"one warning naming the line ($out)"
assert_eq "$(grep -c "^  NAS: figures incomplete: line 9 of zpool iostat ('mirror-3')" <<< "$out")" 2 \
	"each run's NAS line says why ($out)"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM results WHERE id > $before AND status = 'ok'")" 2 \
	"both results recorded"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM nas_runs WHERE result_id > $before AND incomplete = 1
	AND pool_layout = '2 mirror + log' AND data_write_bytes IS NULL")" 2 "their NAS rows: settings, no figures"

# A txgs file of a form nfsagent cannot read (a txg with a 13th figure):
# the txgs' figures alone are lost, said once with the line; the rest of
# the NAS side stands.
before=$(last_id)
nas_model '.vdevs |= map(select(.unlisted | not)) | .txgs_text = "txg      birth            state ndirty       nread        nwritten     reads    writes   otime        qtime        wtime        stime\n1840210  2614617833909    C     1342177280   0            2684354560   10       11420    1203224871   6400         6226050      1466010870   7\n"'
out=$(both bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --size 4M --runtime 2 \
	--nas-command "$NAS" --db "$db")
assert_not_contains "$out" "exit "
assert_eq "$(grep '^nfsagent:' <<< "$out")" \
	"nfsagent: warning: the pool's txgs are not shown: line 2 of the txgs is not a txg's: '1840210  2614617833909    C     1342177280   0            2684354560   10       '" \
	"one warning naming the line ($out)"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM nas_runs WHERE result_id > $before AND incomplete = 0
	AND data_write_bytes > 0 AND log_write_wait_ms > 0 AND txg_count IS NULL")" 2 \
	"their NAS rows: every figure but the txgs'"
echo "ok"
