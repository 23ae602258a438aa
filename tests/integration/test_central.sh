#!/usr/bin/env bash
# The central database: results pushed to a real PostgreSQL server that
# this test starts (initdb in a temporary folder, as an unprivileged user,
# listening on a Unix socket only) land exactly once, whole: pushed again,
# from two runners at once, after a kill inside a transaction, after the
# server stopped mid-push.  Bad URLs, a password in the URL, a newer schema
# and a role without INSERT each give one line.
. "$(dirname "$0")/lib.sh"
: "${MID_PUSH:?MID_PUSH must name the mid_push shim}"

. "$(dirname "$0")/pg.sh"
pg_start
# Under AddressSanitizer the preloaded shim comes before ASan's runtime.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# the central database's counts: results, labels, NAS rows, distinct UUIDs
counts() {
	q "$1" "SELECT (SELECT count(*) FROM results) || ' ' || (SELECT count(*) FROM result_labels)
	        || ' ' || (SELECT count(*) FROM nas_runs) || ' ' || (SELECT count(DISTINCT uuid) FROM results)"
}
# results whose labels are not both there: a half-written result
torn() { q "$1" "SELECT count(*) FROM results r WHERE (SELECT count(*) FROM result_labels l WHERE l.result_id = r.id) <> 2"; }

# ---- local results: two from bench in the lab, a NAS side on the second,
# then copies of the first, each with a UUID of its own ----
lab_start
A="$WORK/a.db"
NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret run 0 "$NFSAGENT" bench --vm fiotest \
	--profile randread-4k-qd1 --repeat 2 --size 4M --runtime 1 --label recordsize=16K --label slog=yes --db "$A"
lab_stop
sqlite3 "$A" "INSERT INTO nas_runs (result_id, dataset, recordsize, special_small_blocks, incomplete,
	pool_health, amplification, txg_count, txg_sync_max_ms) VALUES (2, 'tank/vmware', 16384, 0, 0, 'ONLINE', 2.5,
	12, 840.5)"
# grow FILE N: N more copies of result 1 with its labels and latency bins
grow() {
	local cols
	cols=$(sqlite3 "$1" "SELECT group_concat(name, ', ') FROM pragma_table_info('results') WHERE name NOT IN ('id', 'uuid')")
	sqlite3 "$1" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
		INSERT INTO results ($cols, uuid) SELECT $cols, lower(hex(randomblob(4)) || '-' || hex(randomblob(2))
		|| '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-'
		|| hex(randomblob(6))) FROM results, n WHERE results.id = 1;
		INSERT INTO result_labels (result_id, key, value) SELECT r.id, l.key, l.value
		FROM results r JOIN result_labels l ON l.result_id = 1 WHERE r.id NOT IN (SELECT result_id FROM result_labels);
		INSERT INTO result_bins (result_id, direction, bin_ns, count) SELECT r.id, b.direction, b.bin_ns, b.count
		FROM results r JOIN result_bins b ON b.result_id = 1 WHERE r.id NOT IN (SELECT result_id FROM result_bins)"
}
grow "$A" 398
# copy FROM TO: another runner's file, or this one before any push
copy() { sqlite3 "$1" ".backup '$2'" && sqlite3 "$2" "DELETE FROM central_pushes"; }
copy "$A" "$WORK/pristine.db"
# a probe's finding, in A only
sqlite3 "$A" "INSERT INTO findings (at, kind, host, datastore, datastore_type, extent_bug, verdict,
	evidence_json, extent_case, runner, uuid) VALUES ('2026-10-03T09:00:00Z', 'probe', 'DC0_H0',
	'bench-v41', 'NFS41', 1, 'NFS 4.1 extent-size mismatch', '[\"e\"]', 'host', 'ci-07',
	'0b7c2f3e-1d2a-4c5b-9e8f-0123456789ab')"
assert_eq "$(sqlite3 "$A" "SELECT count(*) || ' ' || count(DISTINCT uuid) FROM results")" "400 400" "local results"
assert_eq "$(sqlite3 "$A" "SELECT count(*) FROM results WHERE runner = '$(uname -n)'")" 400 "runner recorded"

# ---- bad input: one line each, exit 2, nothing secret said ----
run 2 "$NFSAGENT" push --db "$A" --central "mysql://u:hunter2@db/x"
assert_eq "$ERR" "nfsagent: the central database's URL must start with postgresql:// or postgres:// (a libpq URI)"
for bad in "postgresql://postgres:hunter2@/x?host=$PGDIR" "postgres:///x?host=$PGDIR&password=hunter2"; do
	run 2 "$NFSAGENT" push --db "$A" --central "$bad"
	assert_one_line "$ERR"
	assert_contains "$ERR" "do not put the password in the central database's URL: use PGPASSWORD"
	assert_not_contains "$ERR" hunter2
done
NFSAGENT_CENTRAL= run 2 "$NFSAGENT" push --db "$A"
assert_contains "$ERR" "give the central database: --central URL or NFSAGENT_CENTRAL"

# ---- a push, and a push again ----
newdb central
NFSAGENT_CENTRAL=$(url central) run 0 "$NFSAGENT" push --db "$A"
assert_eq "$OUT" "pushed 400 results and 1 finding to the central database"
assert_eq "$(q central "SELECT kind || ' ' || extent_bug || ' ' || runner || ' ' || extent_case || ' '
	|| to_char(at AT TIME ZONE 'UTC', 'HH24:MI') FROM findings")" "probe true ci-07 host 09:00" "the finding pushed"
assert_eq "$(counts central)" "400 800 1 400" "results, labels, NAS rows, UUIDs after a push"
central_latest=$(q central "SELECT version FROM nfsagent_schema")
assert_ge "$central_latest" 4 "central schema version"
# fio's latency bins (the lab's fio writes json+), each result's as in the file
BINS="SELECT r.uuid || ' ' || b.direction || ' ' || b.bin_ns || ' ' || b.count
	FROM result_bins b JOIN results r ON r.id = b.result_id"
sqlite3 "$A" "$BINS" | LC_ALL=C sort > "$WORK/local.bins"
q central "$BINS" | LC_ALL=C sort > "$WORK/central.bins"
[ "$(sqlite3 "$A" "SELECT count(DISTINCT result_id) FROM result_bins")" -eq 400 ] || fail "results with bins in the file"
cmp -s "$WORK/local.bins" "$WORK/central.bins" || fail "the central bins are not the file's"
# a central database from before the bins (schema 2) gets its results'
# bins from their fio output when a push upgrades it
q central "DROP TABLE result_bins; UPDATE nfsagent_schema SET version = 2"
run 0 "$NFSAGENT" push --db "$A" --central "$(url central)"
assert_eq "$OUT" "pushed 0 results to the central database"
assert_eq "$(q central "SELECT version FROM nfsagent_schema")" "$central_latest" "central schema version upgraded"
q central "$BINS" | LC_ALL=C sort > "$WORK/central.bins"
cmp -s "$WORK/local.bins" "$WORK/central.bins" || fail "the bins the upgrade made are not the file's"
# the values as recorded: UUIDs, a statistic to the last bit, a NAS figure, the runner
sqlite3 "$A" "SELECT uuid FROM results ORDER BY uuid" > "$WORK/local.uuids"
q central "SELECT uuid FROM results ORDER BY uuid" > "$WORK/central.uuids"
cmp -s "$WORK/local.uuids" "$WORK/central.uuids" || fail "the central UUIDs are not the local ones"
# (sqlite3's printf stops at 16 digits; Python's repr of the double is exact)
iops=$(python3 -c 'import sqlite3, sys; print(repr(sqlite3.connect(sys.argv[1]).execute(
	"SELECT read_iops FROM results WHERE id = 2").fetchone()[0]))' "$A")
u2=$(sqlite3 "$A" "SELECT uuid FROM results WHERE id = 2")
assert_eq "$(q central "SELECT read_iops = $iops::float8 FROM results WHERE uuid = '$u2'")" t \
	"result 2's IOPS ($iops) to the last bit"
assert_eq "$(q central "SELECT runner FROM results WHERE uuid = '$u2'")" "$(uname -n)" "runner"
assert_eq "$(q central "SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS')
	FROM results WHERE uuid = '$u2'")" "$(sqlite3 "$A" "SELECT substr(started_at, 1, 19) FROM results WHERE id = 2")" "start"
assert_eq "$(q central "SELECT n.amplification || ' ' || n.recordsize || ' ' || n.incomplete
	|| ' ' || n.txg_count || ' ' || n.txg_sync_max_ms || ' ' || (n.log_write_wait_ms IS NULL)
	FROM nas_runs n JOIN results r ON r.id = n.result_id WHERE r.uuid = '$u2'")" "2.5 16384 false 12 840.5 true" "NAS row"
assert_eq "$(q central "SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM result_labels l
	JOIN results r ON r.id = l.result_id WHERE r.uuid = '$u2'")" "recordsize=16K,slog=yes" "labels"
# the dashboard's view: a row per result that ran, its labels as jsonb
assert_eq "$(q central "SELECT count(*) || ' ' || count(DISTINCT uuid) FROM result_figures")" "400 400" "result_figures rows"
assert_eq "$(q central "SELECT read_iops = $iops::float8 AND labels->>'recordsize' = '16K' AND zfs_recordsize = 16384
	AND nas_amplification = 2.5 AND protocol = 'NFS' AND time IS NOT NULL FROM result_figures WHERE uuid = '$u2'")" t \
	"result 2 in result_figures"
# read back as a file is read: the same rows, fields, labels and NAS sides
norm() { jq -S 'map(del(.id)) | sort_by(.uuid)'; }
run 0 "$NFSAGENT" results --db "$A" --json
norm <<< "$OUT" > "$WORK/local.json"
run 0 "$NFSAGENT" results --db "$(url central)" --json
norm <<< "$OUT" > "$WORK/central.json"
assert_eq "$(jq length "$WORK/central.json")" 400 "results read from the central database"
cmp -s "$WORK/local.json" "$WORK/central.json" ||
	fail "results --json differs: $(diff "$WORK/local.json" "$WORK/central.json" | head -n 20)"
started2=$(sqlite3 "$A" "SELECT started_at FROM results WHERE id = 2")
for where in recordsize=16K zfs_recordsize=16k protocol=NFSv3 "uuid=$u2" "runner=$(uname -n)" repetition=2 \
	"started_at=$started2"; do
	run 0 "$NFSAGENT" results --db "$A" --where "$where" --csv
	want=$(wc -l <<< "$OUT")
	run 0 "$NFSAGENT" results --db "$(url central)" --where "$where" --csv
	assert_eq "$(wc -l <<< "$OUT")" "$want" "CSV lines with $where"
done
# compare gives the same verdict on both
run 0 "$NFSAGENT" compare --db "$A" --a repetition=1 --b repetition=2 --json
local_cmp=$(jq -S 'del(.db)' <<< "$OUT")
# its p99 pooled from both groups' bins
assert_eq "$(jq '[.. | .pooled_p99_us? | select(. != null) | .a, .b | numbers] | length' <<< "$OUT")" 2 \
	"p99 pooled from the bins on both sides"
run 0 "$NFSAGENT" compare --db "$(url central)" --a repetition=1 --b repetition=2 --json
assert_eq "$(jq -S 'del(.db)' <<< "$OUT")" "$local_cmp" "compare --json on the file and on the central database"
# and report the same page, its finding included (but for the minute it was made)
run 0 "$NFSAGENT" report --db "$A" --html "$WORK/local.html"
run 0 "$NFSAGENT" report --db "$(url central)" --html "$WORK/central.html"
assert_contains "$(cat "$WORK/central.html")" "NFS 4.1 extent-size mismatch" "the central report"
diff <(grep -v ' UTC' "$WORK/local.html") <(grep -v ' UTC' "$WORK/central.html") > "$WORK/report.diff" ||
	fail "report --html differs: $(head -n 20 "$WORK/report.diff")"
# a selection that matches nothing, or names no field, is said as for a file
for where in recordsize=1M zfs_recordsize=1M protocol=NFS41 protcol=NFS "repetition=1 --where repetition=2"; do
	run 2 "$NFSAGENT" results --db "$A" --where $where
	want=$ERR
	run 2 "$NFSAGENT" results --db "$(url central)" --where $where
	assert_eq "$ERR" "$want" "the error for --where $where"
done
assert_eq "$want" "nfsagent: no result has repetition=1 and repetition=2 together, though each of them matches some"
run 0 "$NFSAGENT" push --db "$A" --central "$(url central)"
assert_eq "$OUT" "pushed 0 results to the central database"
assert_eq "$(counts central)" "400 800 1 400" "after a second push"
# a run killed between the central commit and its local note: found there, not sent again
sqlite3 "$A" "DELETE FROM central_pushes WHERE result_id > 100"
run 0 "$NFSAGENT" push --db "$A" --central "$(url central)"
assert_eq "$OUT" "pushed 0 results to the central database (300 there already)"
assert_eq "$(counts central)" "400 800 1 400" "after a push of results not noted"

# ---- two runners at once: the same 400 results in both files (one copied
# the other), and 300 of each one's own; the schema made by whichever came first ----
copy "$WORK/pristine.db" "$WORK/r1.db"
copy "$WORK/pristine.db" "$WORK/r2.db"
grow "$WORK/r1.db" 300
grow "$WORK/r2.db" 300
newdb race
"$NFSAGENT" push --db "$WORK/r1.db" --central "$(url race)" > "$WORK/r1.out" 2>&1 &
p1=$!
"$NFSAGENT" push --db "$WORK/r2.db" --central "$(url race)" > "$WORK/r2.out" 2>&1 &
p2=$!
wait "$p1" || fail "runner 1's push: $(cat "$WORK/r1.out")"
wait "$p2" || fail "runner 2's push: $(cat "$WORK/r2.out")"
assert_eq "$(counts race)" "1000 2000 1 1000" "results of two runners pushed at once"
sent=$(cat "$WORK/r1.out" "$WORK/r2.out" | sed -n 's/^pushed \([0-9]*\) results.*/\1/p' | awk '{ n += $1 } END { print n }')
assert_eq "$sent" 1000 "results sent by the two pushes together ($(cat "$WORK/r1.out" "$WORK/r2.out"))"

# ---- a kill inside a push's transaction: the 100th result had its first
# label written, not committed ----
copy "$WORK/pristine.db" "$WORK/k.db"
newdb killed
rc=0
LD_PRELOAD="$MID_PUSH" MID_PUSH_AT=199 MID_PUSH_DO=kill "$NFSAGENT" push --db "$WORK/k.db" \
	--central "$(url killed)" > /dev/null 2>&1 || rc=$?
assert_eq "$rc" 137 "exit status of the push killed mid-transaction"
assert_eq "$(counts killed)" "99 198 1 99" "the central database after the kill"
assert_eq "$(torn killed)" 0 "half-written results"
assert_eq "$(sqlite3 "$WORK/k.db" "SELECT count(*) FROM central_pushes")" 99 "pushes noted locally"
run 0 "$NFSAGENT" push --db "$WORK/k.db" --central "$(url killed)"
assert_eq "$OUT" "pushed 301 results to the central database"
assert_eq "$(counts killed)" "400 800 1 400" "after the push that followed the kill"

# ---- the server stopped mid-push: the push says what waits, and so does
# one while it is down; restarted, a push sends the rest ----
copy "$WORK/pristine.db" "$WORK/s.db"
newdb stopped
LD_PRELOAD="$MID_PUSH" MID_PUSH_AT=101 MID_PUSH_DO="$PG_CTL -m fast -w stop > /dev/null" \
	run 4 "$NFSAGENT" push --db "$WORK/s.db" --central "$(url stopped)"
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: push results failed: the central database went away: terminating connection due to administrator command"
assert_contains "$ERR" "; 350 results wait for the central database: run nfsagent push again"
run 4 "$NFSAGENT" push --db "$WORK/s.db" --central "$(url stopped)"
assert_one_line "$ERR"
assert_contains "$ERR" "350 results wait for the central database"
pg_start
assert_eq "$(counts stopped)" "50 100 1 50" "the central database after the stop"
run 0 "$NFSAGENT" push --db "$WORK/s.db" --central "$(url stopped)"
assert_eq "$OUT" "pushed 350 results to the central database"
assert_eq "$(counts stopped)" "400 800 1 400" "after the restart's push"

# ---- a newer central schema, a role without INSERT: one line each ----
q stopped "UPDATE nfsagent_schema SET version = 99"
run 2 "$NFSAGENT" push --db "$WORK/pristine.db" --central "$(url stopped)"
assert_eq "$ERR" "nfsagent: open the central database failed: the central database has schema version 99, newer than this nfsagent's $central_latest: use a newer nfsagent"
q stopped "UPDATE nfsagent_schema SET version = 3"
q postgres "CREATE ROLE reader LOGIN"
q central "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader"
copy "$WORK/pristine.db" "$WORK/reader.db"
run 6 "$NFSAGENT" push --db "$WORK/reader.db" --central "$(url central reader)"
assert_one_line "$ERR"
assert_contains "$ERR" "role reader may not record results in the central database (permission denied for table results)"
assert_contains "$ERR" "400 results wait for the central database"
newdb empty
run 6 "$NFSAGENT" push --db "$WORK/reader.db" --central "$(url empty reader)"
assert_one_line "$ERR"
assert_contains "$ERR" "the central database has no nfsagent schema yet and role reader may not create it"
# a role that may not even read the schema's version is told so, not "no schema yet"
q postgres "CREATE ROLE blind LOGIN"
run 6 "$NFSAGENT" push --db "$WORK/reader.db" --central "$(url central blind)"
assert_one_line "$ERR"
assert_contains "$ERR" "role blind may not read its schema in the central database (permission denied for table nfsagent_schema): GRANT it SELECT on nfsagent_schema"
# ---- bench and run push their results at their end; a central database
# that is down, or stops mid-push, costs one warning ----
lab_start -export 10.0.0.5:/mnt/tank/vmware64k
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
newdb live
L="$WORK/live.db"
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 2 --size 4M --runtime 1 \
	--label recordsize=16K --db "$L" --central "$(url live)"
assert_not_contains "$ERR" "wait for the central database"
assert_eq "$(counts live)" "2 2 0 2" "results bench pushed"
assert_eq "$(q live "SELECT string_agg(DISTINCT link_speed_mbit || ' ' || link_nic, ',') FROM results")" \
	"10000 vmnic0" "the host's link bench pushed"
assert_eq "$(q live "SELECT string_agg(DISTINCT nfs_client, ',') FROM results")" \
	"NFS.MaxQueueDepth=4294967295 NFS.MaxVolumes=32 SunRPC.MaxConnPerIP=4" "the NFS client bench pushed"
assert_eq "$(q live "SELECT string_agg(uuid::text, ',' ORDER BY uuid) FROM results")" \
	"$(sqlite3 "$L" "SELECT group_concat(uuid, ',') FROM (SELECT uuid FROM results ORDER BY uuid)")" "UUIDs bench pushed"
pg_stop
NFSAGENT_CENTRAL=$(url live) run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 \
	--repeat 2 --size 4M --runtime 1 --label recordsize=16K --db "$L"
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: warning: 2 results wait for the central database (open the central database failed: "
assert_contains "$ERR" "); run nfsagent push"
pg_start
assert_eq "$(counts live)" "2 2 0 2" "while the server was down"
# a campaign whose [campaign] names the central database; the server
# stops inside its second result's push
c="$WORK/c.ini"
{
	tiny_campaign central profiles="randread-4k-qd1, randwrite-4k-qd1" repeat=2 labels="slog=none" \
		central="$(url live)"
	nfs_target v3 bench-v3 /mnt/tank/vmware64k 3
} > "$c"
LD_PRELOAD="$MID_PUSH" MID_PUSH_AT=2 MID_PUSH_DO="$PG_CTL -m fast -w stop > /dev/null" \
	run 0 "$NFSAGENT" run "$c" --db "$L"
assert_eq "$(grep -c 'central database' <<< "$ERR")" 1 "lines about the central database ($ERR)"
assert_contains "$ERR" "nfsagent: warning: 5 results wait for the central database (push results failed: the central database went away: "
pg_start
assert_eq "$(counts live)" "3 3 0 3" "the central database after the stop mid-campaign"
run 0 "$NFSAGENT" push --db "$L" --central "$(url live)"
assert_eq "$OUT" "pushed 5 results to the central database"
assert_eq "$(counts live)" "8 8 0 8" "every result once after the restart"
assert_eq "$(q live "SELECT count(*) FROM results WHERE campaign LIKE 'central-%'")" 4 "the campaign's results"
# a password in the campaign file is refused before anything runs
sed -i "s|^central = .*|central = postgresql://postgres:hunter2@/live?host=$PGDIR|" "$c"
run 2 "$NFSAGENT" run "$c" --db "$L" --dry-run
assert_one_line "$ERR"
assert_contains "$ERR" "central: do not put the password in the central database's URL"
assert_not_contains "$ERR" hunter2

# ---- the site pushed; a reader of a database from before the site step
# (6), before the NFS client's step (5), and before the link step (3) ----
assert_eq "$(q live "SELECT string_agg(DISTINCT site, ',') FROM results")" guest "every result's site pushed"
q live "ALTER TABLE results DROP COLUMN site; UPDATE nfsagent_schema SET version = 6"
run 0 "$NFSAGENT" results --db "$(url live)" --json
assert_eq "$(jq -c '[length, ([.[] | .site] | unique)]' <<< "$OUT")" '[8,["guest"]]' \
	"results of a version-6 database, all of them the guests'"
q live "ALTER TABLE results DROP COLUMN nfs_client; UPDATE nfsagent_schema SET version = 5"
run 0 "$NFSAGENT" results --db "$(url live)" --json
assert_eq "$(jq -c '[length, ([.[] | .nfs_client] | unique), ([.[] | .site] | unique)]' <<< "$OUT")" \
	'[8,[null],["guest"]]' "results of a version-5 database, no NFS client"
q live "ALTER TABLE results DROP COLUMN link_speed_mbit, DROP COLUMN link_nic; UPDATE nfsagent_schema SET version = 3"
run 0 "$NFSAGENT" results --db "$(url live)" --json
assert_eq "$(jq -c '[length, ([.[] | .link_speed_mbit, .link_nic, .nfs_client] | unique)]' <<< "$OUT")" '[8,[null]]' \
	"results of a version-3 database, no link"
run 2 "$NFSAGENT" results --db "$(url live)" --where link_nic=vmnic0
assert_eq "$(q live "SELECT version FROM nfsagent_schema")" 3 "a reader does not upgrade"
echo "PASS"
