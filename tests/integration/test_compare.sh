#!/usr/bin/env bash
# compare and regress on a database filled directly with synthetic results
# (a lab only makes the empty database): confounded groups named, the noise
# verdicts, the output shapes, regression exit codes, JUnit, and probe
# verdicts that change between builds.
. "$(dirname "$0")/lib.sh"
db="$WORK/results.db"
new_db "$db"
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$OUT" "[]" "results of an empty database"
assert_eq "$ERR" "nfsagent: warning: no results are recorded in $db yet"

# add_run CAMPAIGN TARGET PROTOCOL BUILD DATASTORE PROFILE WRITE_IOPS [KEY=VALUE...]:
# one ok 4K random-write result (queue depth 32: latency follows from IOPS).
add_run() {
	local campaign=$1 target=$2 proto=$3 build=$4 ds=$5 profile=$6 iops=$7
	shift 7
	local sql="INSERT INTO results (started_at, status, campaign, target, repetition, host,
		esxi_version, esxi_build, datastore, datastore_type, servers, export_path, vm, guest_os,
		profile, fio_version, write_iops, write_bw_bytes, write_lat_mean_us, write_p99_us)
		VALUES ('2026-01-01T00:00:00Z', 'ok', '$campaign', '$target',
		(SELECT count(*) + 1 FROM results WHERE campaign = '$campaign' AND target = '$target'
		 AND profile = '$profile'), 'esx01', '8.0.3',
		'$build', '$ds', '$proto', '10.0.0.5', '/mnt/tank/$ds', 'fiotest', 'Debian 12',
		'$profile', 'fio-3.33', $iops, $iops * 4096, 32000000.0 / $iops, 96000000.0 / $iops);"
	local l
	for l in "$@"; do
		sql+="INSERT INTO result_labels VALUES ((SELECT max(id) FROM results), '${l%%=*}', '${l#*=}');"
	done
	sqlite3 "$db" "$sql"
}

# add_probe DATASTORE BUILD EXTENT_BUG(0|1) [CASE]
add_probe() {
	sqlite3 "$db" "INSERT INTO findings (at, kind, host, esxi_version, esxi_build, datastore,
		datastore_type, servers, export_path, extent_bug, extent_case, verdict) VALUES
		('2026-01-01T00:00:00Z', 'probe', 'esx01', '8.0.3', '$2', '$1', 'NFS41', '10.0.0.5',
		'/mnt/tank/$1', $3, NULLIF('${4:-}', ''),
		'$([ "$3" = 1 ] && echo 'NFS 4.1 extent-size mismatch' || echo clean)')"
}

rw=randwrite-4k-qd32x4

# ---- compare: confounded groups, one run each ----
add_run conf a NFS41 1 ds1 "$rw" 33700 recordsize=64K
add_run conf b NFS 1 ds1 "$rw" 43500 recordsize=16K
run 0 "$NFSAGENT" compare --db "$db" --a campaign=conf,target=a --b campaign=conf,target=b
assert_contains "$OUT" "the groups differ in 2 factors: protocol (NFS41 vs NFS), recordsize (64K vs 16K); a change cannot be pinned on one of them"
assert_contains "$OUT" "too few runs to tell"
assert_not_contains "$OUT" "beyond noise |"
assert_contains "$OUT" "write IOPS"
assert_contains "$OUT" "33,700 (n=1)"
assert_contains "$OUT" "+29.1% better"
# Latency: lower is better, so a fall is an improvement.
assert_contains "$(grep 'write avg latency' <<< "$OUT")" "-22.5% better"
assert_contains "$OUT" "Mann-Whitney"
assert_eq "$(grep -c 'beyond noise  *$\|within noise  *$' <<< "$OUT")" 0 "noise claims on single runs"

# ---- one factor ----
add_run one a NFS41 1 ds1 "$rw" 37400 recordsize=64K
add_run one b NFS 1 ds1 "$rw" 33700 recordsize=64K
run 0 "$NFSAGENT" compare --db "$db" --a campaign=one,target=a --b campaign=one,target=b
assert_contains "$OUT" "differs in: protocol (NFS41 vs NFS)"
assert_contains "$OUT" "-9.9% worse"

# ---- three runs each, clearly apart: beyond noise ----
for v in 10000 10200 9900; do add_run clear a NFS 1 ds1 "$rw" "$v" slog=no; done
for v in 13000 13300 12900; do add_run clear b NFS 1 ds1 "$rw" "$v" slog=yes; done
sqlite3 "$db" "INSERT INTO results (started_at, status, error, campaign, target, repetition, profile)
	VALUES ('2026-01-01T00:00:00Z', 'failed', 'fio: boom', 'clear', 'a', 4, '$rw')"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b
assert_contains "$OUT" "differs in: slog (no vs yes)"
assert_contains "$OUT" "10,000 (9,900-10,200, n=3)"
assert_eq "$(grep -c 'beyond noise' <<< "$OUT")" 5 "IOPS, MB/s, avg, p99 beyond noise (+ the footer)"
assert_contains "$(grep 'write p99 latency' <<< "$OUT")" "-23.1% better" "p99 falls"

# ---- three runs each, noisy and overlapping: within noise ----
for v in 17700 12100 15000; do add_run noisy a NFS 1 ds1 "$rw" "$v"; done
for v in 16000 14000 13000; do add_run noisy b NFS 1 ds1 "$rw" "$v"; done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=noisy,target=a --b campaign=noisy,target=b
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "within noise"
assert_contains "$OUT" "the groups differ in no recorded factor"

# ---- shapes ----
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --json
assert_eq "$(jq -r '.comparisons | length' <<< "$OUT")" 4 "JSON comparisons"
assert_eq "$(jq -r '.comparisons[0] | [.profile, .direction, .metric, .a.n, .b.n, .noise] | join(" ")' <<< "$OUT")" \
	"$rw write iops 3 3 beyond noise" "JSON first comparison"
assert_eq "$(jq -r '.comparisons[0].a.values | join(",")' <<< "$OUT")" "10000,10200,9900" "JSON values"
assert_eq "$(jq -r '.comparisons[0].change_pct | floor' <<< "$OUT")" 30 "JSON change"
assert_eq "$(jq -r '.comparisons[0].mann_whitney_p' <<< "$OUT")" 0.1 "JSON p"
assert_eq "$(jq -r '.comparisons[3] | [.metric, .lower_is_better, .better] | join(" ")' <<< "$OUT")" \
	"p99 true true" "JSON p99 better"
assert_eq "$(jq -r '.factors[0] | [.name, .a[0], .b[0]] | join(" ")' <<< "$OUT")" "slog no yes" "JSON factors"
assert_eq "$(jq -r '.a.results' <<< "$OUT")" 3 "failed runs do not count"
assert_contains "$(jq -r .noise_method <<< "$OUT")" "too few runs to tell"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --csv
assert_eq "$(wc -l <<< "$OUT")" 5 "CSV lines"
assert_eq "$(head -n 1 <<< "$OUT")" '"profile","direction","metric","unit","lower_is_better","a_median","a_min","a_max","a_n","b_median","b_min","b_max","b_n","change_pct","noise"'
assert_contains "$OUT" "\"$rw\",\"write\",\"iops\",\"IOPS\",\"false\",\"10000.000\",\"9900.000\",\"10200.000\",\"3\""
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --markdown
assert_contains "$OUT" "### $rw"
assert_contains "$OUT" "| Metric | A | B | Change | Noise |"
assert_contains "$OUT" "|---|---|---|---|---|"
assert_contains "$OUT" "| write IOPS | 10,000 (9,900-10,200, n=3) | 13,000 (12,900-13,300, n=3) | +30.0% better | beyond noise |"

# ---- compare: nothing to compare ----
run 2 "$NFSAGENT" compare --db "$db" --a campaign=none --b campaign=clear
assert_one_line "$ERR"
assert_eq "$ERR" "nfsagent: group A (campaign=none) has no ok results: no result has campaign=none (recorded: clear, conf, noisy, one)"
run 2 "$NFSAGENT" compare --db "$db" --a recordsize=128K --b campaign=clear
assert_eq "$ERR" "nfsagent: group A (recordsize=128K) has no ok results: no result has recordsize=128K (recorded: 16K, 64K)"
# Protocol aliases: vSphere records NFS 3 as NFS and NFS 4.1 as NFS41.
run 0 "$NFSAGENT" compare --db "$db" --a campaign=one,protocol=nfsv4.1 --b campaign=one,protocol=NFSv3
assert_contains "$OUT" "differs in: protocol (NFS41 vs NFS)"
run 2 "$NFSAGENT" compare --db "$db" --a protocl=NFS41 --b campaign=clear
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: no field or label is called 'protocl': the fields are protocol, id, status, campaign,"
add_run other a NFS 1 ds1 seqwrite-1m 900
run 2 "$NFSAGENT" compare --db "$db" --a campaign=other --b campaign=clear
assert_one_line "$ERR"
assert_contains "$ERR" "nothing to compare"
run 2 "$NFSAGENT" compare --db "$db" --a campaign=clear
run 2 "$NFSAGENT" compare --db "$db" --a =x --b campaign=clear
run 2 "$NFSAGENT" compare --db "$db" --a campaign=clear --b campaign=clear --json --csv

# ---- regress ----
for v in 10000 10200 9900; do add_run up a NFS41 100 ds-reg "$rw" "$v"; done
for v in 10100 9950 10150; do add_run up a NFS41 200 ds-reg "$rw" "$v"; done
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100
assert_contains "$OUT" "candidate: esxi_build=200, the newest results not in the baseline (3 ok results)"
assert_contains "$OUT" "no regression"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "ok"
assert_contains "$(grep 'write p99 latency' <<< "$OUT")" "+20%"

# A 30% IOPS drop on the newest build, three runs each: exit 1.
for v in 7000 7100 6950; do add_run up a NFS41 300 ds-reg "$rw" "$v"; done
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --junit "$WORK/junit.xml"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "REGRESSION"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "-30.0% worse"
assert_contains "$OUT" "2 regressions beyond noise and limits"
assert_eq "$(stat -c %a "$WORK/junit.xml")" 600 "JUnit file mode"
junit=$(cat "$WORK/junit.xml")
assert_contains "$junit" '<testsuite name="nfsagent regress" tests="2" failures="2" skipped="0">'
assert_contains "$junit" "<testcase classname=\"ds-reg (NFS41)\" name=\"$rw write iops drop\">"
assert_contains "$junit" '<failure type="regression" message="write IOPS -30.0% worse (limit -10%), beyond noise">'
assert_contains "$junit" 'baseline 10,000 (9,900-10,200, n=3); candidate 7,000 (6,950-7,100, n=3)</failure>'
# Names are escaped; an existing file gets mode 0600 too.
for v in 10000 10200 9900; do add_run esc a NFS 100 'r&d<"1">' "$rw" "$v"; done
for v in 7000 7100 6950; do add_run esc a NFS 300 'r&d<"1">' "$rw" "$v"; done
install -m 644 /dev/null "$WORK/esc.xml"
run 1 "$NFSAGENT" regress --db "$db" --baseline campaign=esc,esxi_build=100 \
	--candidate campaign=esc,esxi_build=300 --junit "$WORK/esc.xml"
assert_contains "$(cat "$WORK/esc.xml")" 'classname="r&amp;d&lt;&quot;1&quot;&gt; (NFS)"'
assert_eq "$(stat -c %a "$WORK/esc.xml")" 600 "existing JUnit file mode"
if command -v xmllint > /dev/null; then
	xmllint --noout "$WORK/junit.xml" "$WORK/esc.xml" || fail "JUnit is not XML"
fi
# Looser limits, JSON.
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --max-drop iops=40% \
	--max-rise p99=50% --json
assert_eq "$(jq -r '[.checks[] | .verdict] | join(",")' <<< "$OUT")" "ok,ok" "JSON verdicts"
assert_eq "$(jq -r '.regressions' <<< "$OUT")" 0 "JSON regressions"
assert_eq "$(jq -r '.candidate.esxi_build' <<< "$OUT")" 300 "JSON candidate build"
# A MB/s limit replaces the IOPS default; p99's stays.
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --max-drop mbps=10% --json
assert_eq "$(jq -r '[.checks[] | .metric] | join(",")' <<< "$OUT")" "mbps,p99" "limits checked"

# Too few runs: a big drop on one run each is not a regression.
add_run few a NFS 100 ds-few "$rw" 10000
add_run few a NFS 300 ds-few "$rw" 5000
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-few,esxi_build=100 --candidate datastore=ds-few,esxi_build=300
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "too few runs to tell"

# Nothing to compare, bad limits.
run 2 "$NFSAGENT" regress --db "$db" --baseline esxi_build=999
assert_eq "$ERR" "nfsagent: nothing to compare: the baseline (esxi_build=999) has no ok results: no result has esxi_build=999 (recorded: 1, 100, 200, 300)"
assert_one_line "$ERR"
assert_contains "$ERR" "nothing to compare"
run 2 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --candidate campaign=other
assert_one_line "$ERR"
assert_contains "$ERR" "nothing to compare: no datastore, protocol and profile"
run 2 "$NFSAGENT" regress --db "$db" --baseline esxi_build=100 --max-drop p99=10%
assert_contains "$ERR" "--max-drop wants iops|mbps=PCT, not 'p99=10%'"
run 2 "$NFSAGENT" regress --db "$db" --baseline esxi_build=100 --max-rise p99=lots
run 2 "$NFSAGENT" regress --db "$db"
# Any error is 2, never 1: 1 means a regression.
run 2 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --junit "$WORK/no/such/dir.xml"
assert_one_line "$ERR"
assert_contains "$ERR" "cannot write $WORK/no/such/dir.xml"
run 2 "$NFSAGENT" regress --db "$WORK" --baseline esxi_build=100

# ---- probe verdicts between builds ----
add_probe ds-reg 100 0
add_probe ds-reg 200 1 host
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 \
	--candidate datastore=ds-reg,esxi_build=200 --junit "$WORK/probe.xml"
assert_contains "$OUT" "probe verdict changed on ds-reg: clean on build 100, extent-size mismatch (one host's view of the file) on build 200"
assert_contains "$OUT" "1 regression beyond noise and limits"
assert_contains "$(cat "$WORK/probe.xml")" '<failure type="probe" message="probe verdict changed on ds-reg'
# The bug going away is reported, and is no regression.
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=200 \
	--candidate datastore=ds-reg,esxi_build=100
assert_contains "$OUT" "probe verdict changed on ds-reg: extent-size mismatch (one host's view of the file) on build 200, clean on build 100"
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 \
	--candidate datastore=ds-reg,esxi_build=200 --json
assert_eq "$(jq -r '.probes[0] | [.datastore, .baseline.extent_bug, .candidate.extent_bug, .regression] | join(" ")' <<< "$OUT")" \
	"ds-reg false true true" "JSON probe"
