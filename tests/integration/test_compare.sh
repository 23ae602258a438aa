#!/usr/bin/env bash
# compare and regress on a database filled directly with synthetic results
# (a lab only makes the empty database): confounded groups named, the
# verdicts with their intervals and what a comparison could have seen, groups
# that ran one after the other, a mix of hosts, the output shapes, the
# regression rule (the whole interval past the limit), exit codes, JUnit, and
# probe verdicts that change between builds.
. "$(dirname "$0")/lib.sh"
db="$WORK/results.db"
new_db "$db"
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$OUT" "[]" "results of an empty database"
assert_eq "$ERR" "nfsagent: warning: no results are recorded in $db yet"

# add_run CAMPAIGN TARGET PROTOCOL BUILD DATASTORE PROFILE WRITE_IOPS [KEY=VALUE...]:
# one ok 4K random-write result (queue depth 32: latency follows from IOPS),
# started at $when and on host $host.
when=2026-01-01T00:00:00Z host=esx01
add_run() {
	local campaign=$1 target=$2 proto=$3 build=$4 ds=$5 profile=$6 iops=$7
	shift 7
	local sql="INSERT INTO results (started_at, status, campaign, target, repetition, host,
		esxi_version, esxi_build, datastore, datastore_type, servers, export_path, vm, guest_os,
		profile, fio_version, write_iops, write_bw_bytes, write_lat_mean_us, write_p99_us)
		VALUES ('$when', 'ok', '$campaign', '$target',
		(SELECT count(*) + 1 FROM results WHERE campaign = '$campaign' AND target = '$target'
		 AND profile = '$profile'), '$host', '8.0.3',
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

# ratios_disagreeing TEXT: the table rows of TEXT (METRIC ... CHANGE) whose
# central figures' ratio B/A differs from their printed change by more than
# the figures' rounding (0.5 points), each with both; "" when none does.
ratios_disagreeing() {
	awk -F '  +' '/^(METRIC|LAYER) / { t = 1; next } /^$/ { t = 0 }
		t && $4 ~ /^[-+][0-9.]+%/ {
			a = $2; b = $3; gsub(/,/, "", a); gsub(/,/, "", b)
			split(a, x, " "); split(b, y, " "); c = $4; sub(/%.*/, "", c)
			if (x[1] > 0 && ((y[1] / x[1] - 1) * 100 - c > 0.5 || c - (y[1] / x[1] - 1) * 100 > 0.5))
				print $1 ": " x[1] " -> " y[1] " beside " c "%"
			n++ }
		END { if (!n) print "no rows read" }' <<< "$1"
}

# ---- compare: confounded groups, one run each ----
add_run conf a NFS41 1 ds1 "$rw" 33700 recordsize=64K
add_run conf b NFS 1 ds1 "$rw" 43500 recordsize=16K
run 0 "$NFSAGENT" compare --db "$db" --a campaign=conf,target=a --b campaign=conf,target=b
assert_contains "$(flat "$OUT")" "the groups differ in 2 factors: protocol (NFS41 vs NFS), recordsize (64K vs 16K); a change cannot be pinned on one of them"
assert_eq "$(grep '^write IOPS  ' <<< "$OUT")" \
	"write IOPS                       33,700           43,500           +29.1% better  too few runs to tell"
assert_contains "$(grep '^METRIC' <<< "$OUT")" "A GEOMEAN (n=1)  B GEOMEAN (n=1)"
# Latency: lower is better, so a fall is an improvement.
assert_contains "$(grep 'write avg latency' <<< "$OUT")" "-22.5% better"
assert_eq "$(grep -c 'too few runs to tell$' <<< "$OUT")" 4 "every line too few"
assert_eq "$(grep -c 'beyond noise *$\|within noise' <<< "$OUT")" 0 "noise claims on single runs"
assert_contains "$(tr '\n' ' ' <<< "$OUT")" "judged together as one question (Holm's correction, IOPS weighing most)"
assert_not_contains "$OUT" "warning:"

# ---- one factor ----
add_run one a NFS41 1 ds1 "$rw" 37400 recordsize=64K
add_run one b NFS 1 ds1 "$rw" 33700 recordsize=64K
run 0 "$NFSAGENT" compare --db "$db" --a campaign=one,target=a --b campaign=one,target=b
assert_contains "$OUT" "differs in: protocol (NFS41 vs NFS)"
assert_contains "$OUT" "-9.9% worse"

# ---- three runs each, clearly apart: beyond noise, with the interval ----
for v in 10000 10200 9900; do add_run clear a NFS 1 ds1 "$rw" "$v" slog=no; done
for v in 13000 13300 12900; do add_run clear b NFS 1 ds1 "$rw" "$v" slog=yes; done
sqlite3 "$db" "INSERT INTO results (started_at, status, error, campaign, target, repetition, profile)
	VALUES ('2026-01-01T00:00:00Z', 'failed', 'fio: boom', 'clear', 'a', 4, '$rw')"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b
assert_contains "$OUT" "differs in: slog (no vs yes)"
# Each side's runs once in the header, each line's interval in a note under it.
assert_eq "$(sed -n '/^METRIC/,/^$/p' <<< "$OUT")" \
"METRIC                           A GEOMEAN (n=3)        B GEOMEAN (n=3)         CHANGE B/A     VERDICT
write IOPS                       10,033 (9,900-10,200)  13,066 (12,900-13,300)  +30.2% better  beyond noise
  96% CI +25.4% to +35.3%
write MB/s                       41.1 MB/s (40.6-41.8)  53.5 MB/s (52.8-54.5)   +30.2% better  follows IOPS
  95% CI +25.7% to +34.9%
write avg latency                3.19 ms (3.14-3.23)    2.45 ms (2.41-2.48)     -23.2% better  follows IOPS
  95% CI -25.9% to -20.5%
write p99 latency (of each run)  9.57 ms (9.41-9.70)    7.35 ms (7.22-7.44)     -23.2% better  beyond noise
  95% CI -25.9% to -20.5%" "the table"
# The figures beside a change are the ones it is the ratio of (issue 36:
# "4,700 -> 3,762" beside -7.7%): each row's B/A against its change, to the
# figures' three digits.
assert_eq "$(ratios_disagreeing "$OUT")" "" "rows whose figures' ratio is not their change"

# ---- three runs each, noisy and overlapping: within noise, and what it could see ----
for v in 17700 12100 15000; do add_run noisy a NFS 1 ds1 "$rw" "$v"; done
for v in 16000 14000 13000; do add_run noisy b NFS 1 ds1 "$rw" "$v"; done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=noisy,target=a --b campaign=noisy,target=b \
	--runs-needed 10%
assert_eq "$(grep '^write IOPS  ' <<< "$(flat "$OUT")")" \
	"write IOPS                       14,755 (12,100-17,700)  14,280 (13,000-16,000)  -3.2% worse  within noise 96% CI -33.6% to +41.1%; could only see rises of about +64% or drops of about -39% with 3 runs a side"
assert_eq "$(ratios_disagreeing "$OUT")" "" "noisy rows whose figures' ratio is not their change"
# the check itself catches the medians this table printed before (-6.7% beside -3.2%)
assert_eq "$(ratios_disagreeing "$(sed 's/14,755 (/15,000 (/; s/14,280 (/14,000 (/' <<< "$OUT")")" \
	"write IOPS: 15000 -> 14000 beside -3.2%"
assert_contains "$OUT" "the groups differ in no recorded factor"
assert_eq "$(grep '^write IOPS:' <<< "$OUT")" "write IOPS: 45 runs a side would see a 10% rise or drop at this spread"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=noisy,target=a --b campaign=noisy,target=b \
	--min-change 5%
assert_le "$(widest "$OUT")" 120 "compare's widest line"
assert_contains "$(tr '\n' ' ' <<< "$OUT")" "With --min-change 5%, a change counts only when its interval lies wholly above +5% or wholly below -5%."
assert_contains "$(grep '^write IOPS  ' <<< "$(flat "$OUT")")" "could only see rises of about +72% or drops of about -42% with 3 runs a side"
run 2 "$NFSAGENT" compare --db "$db" --a campaign=noisy,target=a --b campaign=noisy,target=b \
	--runs-needed 0
assert_eq "$(head -n 1 <<< "$ERR")" "nfsagent: --runs-needed wants a percentage like 10%, not '0'"

# ---- a metric identical in every run: said so, never a zero-wide interval ----
for t in a b; do for i in 1 2 3; do add_run same "$t" NFS 1 ds1 "$rw" 10000; done; done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=same,target=a --b campaign=same,target=b
assert_eq "$(grep -c '^write .*  +0.0%  *the same in every run$' <<< "$OUT")" 4 "every line the same in every run"
assert_not_contains "$OUT" "CI +0.0% to +0.0%"
assert_not_contains "$OUT" "within noise"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=same,target=a --b campaign=same,target=b --markdown
assert_contains "$OUT" "| write IOPS | 10,000 (10,000-10,000, n=3) | 10,000 (10,000-10,000, n=3) | +0.0% | the same in every run |"

# ---- the footer says what was controlled: one Holm family per profile ----
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b
assert_contains "$(tr '\n' ' ' <<< "$OUT")" "Here 1 profile was judged, with 2 verdict lines."
for v in 10000 10200 9900; do add_run two a NFS 1 ds1 "$rw" "$v"; add_run two a NFS 1 ds1 seqwrite-1m "$v"; done
for v in 10100 10000 9950; do add_run two b NFS 1 ds1 "$rw" "$v"; add_run two b NFS 1 ds1 seqwrite-1m "$v"; done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=two,target=a --b campaign=two,target=b
assert_contains "$(tr '\n' ' ' <<< "$OUT")" "Here 2 profiles were judged, with 2 and 2 verdict lines: over all 2, groups alike show some change up to 2 times in 20."

# ---- a run that stalled at 0 IOPS: shown, left out of the test, and said so ----
for v in 10000 10100 9900 10050; do add_run stall a NFS 1 ds1 "$rw" "$v"; done
for v in 10000 0 9950 10080; do add_run stall b NFS 1 ds1 "$rw" "$v"; done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=stall,target=a --b campaign=stall,target=b
assert_contains "$(grep '^write IOPS  ' <<< "$OUT")" "0-10,080, n=4)"
assert_contains "$(grep '^write IOPS  ' <<< "$(flat "$OUT")")" "with 4 and 3 runs; 1 run of B at 0 left out of the test"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=stall,target=a --b campaign=stall,target=b --json
assert_eq "$(jq -r '.comparisons[0] | [.b.n, .left_out_at_zero.a, .left_out_at_zero.b] | join(" ")' <<< "$OUT")" \
	"4 0 1" "JSON: the stall counted"

# ---- groups run one after the other: warned; interleaved: not ----
when=2026-02-01T10:00:00Z; add_run seq a NFS 1 ds1 "$rw" 10000
when=2026-02-01T10:05:00Z; add_run seq a NFS 1 ds1 "$rw" 10100
when=2026-02-01T10:10:00Z; add_run seq a NFS 1 ds1 "$rw" 9900
when=2026-02-01T11:00:00Z; add_run seq b NFS 1 ds1 "$rw" 10300
when=2026-02-01T11:05:00Z; add_run seq b NFS 1 ds1 "$rw" 10400
when=2026-02-01T11:10:00Z; add_run seq b NFS 1 ds1 "$rw" 10200
run 0 "$NFSAGENT" compare --db "$db" --a campaign=seq,target=a --b campaign=seq,target=b
assert_eq "$(grep '^warning:' <<< "$(flat "$OUT")")" \
	"warning: A ran 2026-02-01T10:00:00Z to 2026-02-01T10:10:00Z, B ran 2026-02-01T11:00:00Z to 2026-02-01T11:10:00Z: every run of A came before every run of B, so a drift over time (other load, a cache warming, a pool filling) would look like this change; nfsagent run interleaves the groups' runs"
assert_le "$(widest "$OUT")" 120 "compare's widest line, with a warning"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=seq,target=b --b campaign=seq,target=a --json
assert_contains "$(jq -r .time_warning <<< "$OUT")" "every run of B came before every run of A"
sqlite3 "$db" "UPDATE results SET started_at = '2026-02-01T10:07:00Z' WHERE campaign = 'seq' AND target = 'b' AND write_iops = 10400"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=seq,target=a --b campaign=seq,target=b
assert_not_contains "$OUT" "warning:"

# ---- a mix of hosts ----
for h in esx01 esx01 esx01 esx01 esx02; do host=$h; add_run mix a NFS 1 ds1 "$rw" 10000; done
for h in esx01 esx02 esx02 esx02 esx02; do host=$h; add_run mix b NFS 1 ds1 "$rw" 10000; done
host=esx01 when=2026-01-01T00:00:00Z
run 0 "$NFSAGENT" compare --db "$db" --a campaign=mix,target=a --b campaign=mix,target=b
assert_contains "$OUT" "differs in: host (esx01 x4 + esx02 x1 vs esx01 x1 + esx02 x4)"

# ---- shapes ----
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --json
assert_eq "$(jq -r '.comparisons | length' <<< "$OUT")" 4 "JSON comparisons"
assert_eq "$(jq -r '.comparisons[0] | [.profile, .direction, .metric, .a.n, .b.n, .verdict, .judged] | join(" ")' <<< "$OUT")" \
	"$rw write iops 3 3 beyond noise true" "JSON first comparison"
assert_eq "$(jq -r '.comparisons[0].a.values | join(",")' <<< "$OUT")" "10000,10200,9900" "JSON values"
# the change is the ratio of the geometric means, which JSON gives beside the medians
assert_eq "$(jq -r '.comparisons[] | [.a.geomean, .b.geomean, .ratio, .a.median]
	| [(.[0] | round), (.[1] / .[0] - .[2] | fabs < 1e-9), .[3]] | join(" ")' <<< "$OUT")" \
	"10033 true 10000
41 true 40.96
3190 true 3200
9569 true 9600" "JSON geometric means"
assert_eq "$(jq -r '.comparisons[0] | [.estimate_pct, .interval.low_pct, .interval.high_pct, .mde_rise_pct, .mde_drop_pct] | map(. * 10 | round / 10) | join(" ")' <<< "$OUT")" \
	"30.2 25.4 35.3 5.1 4.9" "JSON estimate, interval, MDE"
assert_eq "$(jq -r '.comparisons[0] | [.interval.level, .family_lines, .left_out_at_zero.b] | join(" ")' <<< "$OUT")" "0.96 2 0" "JSON interval level, family"
assert_eq "$(jq -r '.comparisons[3].interval.level' <<< "$OUT")" 0.95 "JSON p99 interval level"
assert_eq "$(jq -r '.comparisons[0] | [(.p < 0.0001), (.p_holm >= .p), .mann_whitney_p] | join(" ")' <<< "$OUT")" \
	"true true " "JSON p; no rank test at 3 runs"
assert_contains "$(jq -r '.comparisons[0].method' <<< "$OUT")" "t test on log values, pooled variance, df=4; Holm across the profile's 2 verdict lines (IOPS weighs 4), this line at 4%"
assert_eq "$(jq -r '.comparisons[1] | [.metric, .verdict, .judged, .p_holm] | join(" ")' <<< "$OUT")" \
	"mbps follows IOPS false " "JSON MB/s: no verdict of its own"
assert_eq "$(jq -r '.comparisons[3] | [.metric, .lower_is_better, .better, .pooled_p99_us.a] | join(" ")' <<< "$OUT")" \
	"p99 true true " "JSON p99 better, no bins stored"
assert_eq "$(jq -r '.factors[0] | [.name, .a[0].value, .a[0].runs, .b[0].value] | join(" ")' <<< "$OUT")" "slog no 3 yes" "JSON factors"
assert_eq "$(jq -r '.a.results' <<< "$OUT")" 3 "failed runs do not count"
assert_eq "$(jq -r '.verdict_lines' <<< "$OUT")" 2 "JSON verdict lines"
assert_contains "$(jq -r .noise_method <<< "$OUT")" "too few runs to tell"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=mix,target=a --b campaign=mix,target=b --json
assert_eq "$(jq -r '.comparisons[0] | [.mann_whitney_p, .hodges_lehmann_pct, .depends_on_one_run] | join(" ")' <<< "$OUT")" \
	"1 0 false" "JSON rank test from 4 runs"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --csv
assert_eq "$(wc -l <<< "$OUT")" 5 "CSV lines"
assert_eq "$(head -n 1 <<< "$OUT")" '"profile","direction","metric","unit","lower_is_better","a_geomean","a_median","a_min","a_max","a_n","b_geomean","b_median","b_min","b_max","b_n","change_pct","ci_low_pct","ci_high_pct","ci_level_pct","p","p_holm","mde_rise_pct","mde_drop_pct","family_lines","left_out_a","left_out_b","verdict"'
assert_contains "$OUT" "\"$rw\",\"write\",\"iops\",\"IOPS\",\"false\",\"10032.561\",\"10000.000\",\"9900.000\",\"10200.000\",\"3\",\"13065.566\""
assert_contains "$(sed -n 2p <<< "$OUT")" '"30.23","25.37","35.28","96","3.14401e-05","3.93001e-05","5.12","4.87","2","0","0","beyond noise"'
run 0 "$NFSAGENT" compare --db "$db" --a campaign=clear,target=a --b campaign=clear,target=b --markdown
assert_contains "$OUT" "### $rw"
assert_contains "$OUT" "| Metric | A: geometric mean (min-max, n) | B: geometric mean (min-max, n) | Change B/A | Verdict |"
assert_contains "$OUT" "|---|---|---|---|---|"
assert_contains "$OUT" "| write IOPS | 10,033 (9,900-10,200, n=3) | 13,066 (12,900-13,300, n=3) | +30.2% better (96% CI +25.4% to +35.3%) | beyond noise |"
assert_eq "$(ratios_disagreeing "$(echo 'METRIC '; grep '^| write' <<< "$OUT" | sed 's/^| //; s/ |$//; s/ | /  /g')")" \
	"" "Markdown rows whose figures' ratio is not their change"

# ---- compare: nothing to compare ----
run 2 "$NFSAGENT" compare --db "$db" --a campaign=none --b campaign=clear
assert_one_line "$ERR"
assert_eq "$ERR" "nfsagent: group A (campaign=none) has no ok results: no result has campaign=none (recorded: clear, conf, mix, noisy, one, same, seq, stall, two)"
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
assert_not_contains "$OUT" "warning:"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "ok"
assert_contains "$(grep 'write p99 latency' <<< "$OUT")" "+20%"

# A 30% IOPS drop on the newest build, three runs each: exit 1.
for v in 7000 7100 6950; do add_run up a NFS41 300 ds-reg "$rw" "$v"; done
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --junit "$WORK/junit.xml"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "REGRESSION"
assert_contains "$(grep 'write IOPS' <<< "$(flat "$OUT")")" "-30.1% worse  -10%   REGRESSION 95% CI -32.1% to -27.9%"
assert_contains "$OUT" "2 regressions: the whole interval past the limit"
assert_eq "$(stat -c %a "$WORK/junit.xml")" 600 "JUnit file mode"
junit=$(cat "$WORK/junit.xml")
assert_contains "$junit" '<testsuite name="nfsagent regress" tests="2" failures="2" skipped="0">'
assert_contains "$junit" "<testcase classname=\"ds-reg (NFS41)\" name=\"$rw write iops drop\">"
assert_contains "$junit" '<failure type="regression" message="write IOPS -30.1% worse (95% CI -32.1% to -27.9%) (limit -10%): the whole interval is past the limit">'
assert_contains "$junit" 'baseline 10,033 (9,900-10,200, n=3); candidate 7,016 (6,950-7,100, n=3)</failure>'
# Names are escaped; an existing file gets mode 0600 too.
for v in 10000 10200 9900; do add_run esc a NFS 100 'r&d<"1">' "$rw" "$v"; done
for v in 7000 7100 6950; do add_run esc a NFS 300 'r&d<"1">' "$rw" "$v"; done
install -m 644 /dev/null "$WORK/esc.xml"
run 1 "$NFSAGENT" regress --db "$db" --baseline campaign=esc,esxi_build=100 \
	--candidate campaign=esc,esxi_build=300 --junit "$WORK/esc.xml"
assert_contains "$(cat "$WORK/esc.xml")" 'classname="r&amp;d&lt;&quot;1&quot;&gt; (NFS)"'
assert_eq "$(stat -c %a "$WORK/esc.xml")" 600 "existing JUnit file mode"
command -v xmllint > /dev/null || fail "xmllint not found: scripts/deps.sh installs libxml2-utils"
xmllint --noout "$WORK/junit.xml" "$WORK/esc.xml" || fail "JUnit is not XML"
# Looser limits, JSON.
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --max-drop iops=40% \
	--max-rise p99=50% --json
assert_eq "$(jq -r '[.checks[] | .verdict] | join(",")' <<< "$OUT")" "ok,ok" "JSON verdicts"
assert_eq "$(jq -r '.regressions' <<< "$OUT")" 0 "JSON regressions"
assert_eq "$(jq -r '.candidate.esxi_build' <<< "$OUT")" 300 "JSON candidate build"
# A MB/s limit replaces the IOPS default; p99's stays.
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 --max-drop mbps=10% --json
assert_eq "$(jq -r '[.checks[] | .metric] | join(",")' <<< "$OUT")" "mbps,p99" "limits checked"

# The rule at its edges: a 12% drop whose interval (-19.6% to -3.7%) reaches
# both sides of the limit cannot be told by these runs, at 10% and at 4%
# (exit 8, never a pass); at 3% the whole interval is past the limit, at 25%
# (and p99's +30%) the whole interval is within it.
# Every baseline run came before every candidate run: drift is named.
when=2026-03-01T10:00:00Z
for v in 10000 10400 9600; do add_run edge a NFS 100 ds-edge "$rw" "$v"; done
when=2026-03-02T10:00:00Z
for v in 8800 9150 8450; do add_run edge a NFS 300 ds-edge "$rw" "$v"; done
when=2026-01-01T00:00:00Z
run 8 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-edge,esxi_build=100 --candidate datastore=ds-edge,esxi_build=300
assert_eq "$(grep '^warning:' <<< "$(flat "$OUT")")" \
	"warning: the baseline ran 2026-03-01T10:00:00Z to 2026-03-01T10:00:00Z, the candidate ran 2026-03-02T10:00:00Z to 2026-03-02T10:00:00Z: every run of the baseline came before every run of the candidate, so a drift over time (other load, a cache warming, a pool filling) would look like this change; nfsagent run interleaves the groups' runs"
assert_contains "$(grep 'write IOPS' <<< "$(flat "$OUT")")" "-12.0% worse  -10%   cannot tell with these runs 95% CI -19.6% to -3.7%"
assert_contains "$(flat "$OUT")" "no regression shown, but 2 checks cannot tell with these runs (the interval reaches both sides of the limit, or too few runs): no pass; more runs a side would tell"
assert_not_contains "$OUT" "no regression:"
assert_le "$(widest "$OUT")" 120 "regress's widest line"
assert_contains "$OUT" "ds-edge (NFS 3), $rw"
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-edge,esxi_build=100 --candidate datastore=ds-edge,esxi_build=300 \
	--max-drop iops=3%
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "-3%    REGRESSION"
run 8 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-edge,esxi_build=100 --candidate datastore=ds-edge,esxi_build=300 \
	--max-drop iops=4% --json
assert_eq "$(jq -r '.checks[0] | [.verdict, .outcome, .noise, .regression] | join(",")' <<< "$OUT")" \
	"cannot tell with these runs,cannot tell,beyond noise,false" "JSON: beyond noise, not wholly past 4%"
assert_eq "$(jq -r '[.regressions, .cannot_tell] | join(" ")' <<< "$OUT")" "0 2" "JSON counts"
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-edge,esxi_build=100 --candidate datastore=ds-edge,esxi_build=300 \
	--max-drop iops=25% --max-rise p99=30% --json
assert_eq "$(jq -r '[.checks[] | .outcome] | join(",")' <<< "$OUT")" "within limits,within limits" "JSON: wholly within"

# Issue 36: an -83.5% IOPS drop of 3 noisy runs whose interval reaches back
# inside the limit is never a silent pass: a JUnit failure with its message
# by default, a skipped case with it under --undecided skip; exit 8 either way.
for v in 10000 10400 9600; do add_run noisy-reg a NFS 100 ds-noisy "$rw" "$v"; done
for v in 300 1650 9000; do add_run noisy-reg a NFS 300 ds-noisy "$rw" "$v"; done
noisy_reg=(regress --db "$db" --baseline datastore=ds-noisy,esxi_build=100 --candidate datastore=ds-noisy,esxi_build=300)
run 8 "$NFSAGENT" "${noisy_reg[@]}" --junit "$WORK/noisy.xml"
assert_le "$(widest "$OUT")" 120 "regress's widest line, cannot tell"
assert_contains "$(grep 'write IOPS' <<< "$(flat "$OUT")")" "-83.5% worse   -10%   cannot tell with these runs 95% CI -98.9% to +151.6%"
junit=$(cat "$WORK/noisy.xml")
assert_contains "$junit" '<testsuite name="nfsagent regress" tests="2" failures="2" skipped="0">'
assert_contains "$junit" '<failure type="undecided" message="write IOPS -83.5% worse (95% CI -98.9% to +151.6%) (limit -10%): cannot tell with these runs: the interval reaches both sides of the limit; more runs a side would tell">baseline 9,995 (9,600-10,400, n=3); candidate 1,645 (300-9,000, n=3)</failure>'
assert_eq "$(grep -c '<failure type="undecided"' <<< "$junit")" 2 "p99's interval reaches both sides too"
run 8 "$NFSAGENT" "${noisy_reg[@]}" --junit "$WORK/noisy.xml" --undecided skip
junit=$(cat "$WORK/noisy.xml")
assert_contains "$junit" '<testsuite name="nfsagent regress" tests="2" failures="0" skipped="2">'
assert_contains "$junit" '<skipped message="write IOPS -83.5% worse (95% CI -98.9% to +151.6%) (limit -10%): cannot tell with these runs: the interval reaches both sides of the limit; more runs a side would tell"/>'
xmllint --noout "$WORK/noisy.xml" || fail "JUnit with a skipped case is not XML"
run 2 "$NFSAGENT" "${noisy_reg[@]}" --undecided maybe
assert_contains "$ERR" "--undecided wants fail or skip, not 'maybe'"

# Too few runs: a big drop on one run each is no regression, nor a pass.
add_run few a NFS 100 ds-few "$rw" 10000
add_run few a NFS 300 ds-few "$rw" 5000
run 8 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-few,esxi_build=100 --candidate datastore=ds-few,esxi_build=300 \
	--junit "$WORK/few.xml"
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "too few runs to tell"
assert_contains "$(cat "$WORK/few.xml")" '<failure type="undecided" message="write IOPS -50.0% worse (limit -10%): too few runs to tell (fewer than 3 a side); more runs would tell">'

# A candidate run at 0 (a stall) is a regression, whatever the others did.
for v in 10000 10400 9600; do add_run stall a NFS 100 ds-stall "$rw" "$v"; done
for v in 10100 0 9900; do add_run stall a NFS 300 ds-stall "$rw" "$v"; done
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-stall,esxi_build=100 --candidate datastore=ds-stall,esxi_build=300
assert_contains "$(grep 'write IOPS' <<< "$OUT")" "REGRESSION: a candidate run measured 0"

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
assert_contains "$OUT" "1 regression: the whole interval past the limit"
assert_contains "$(cat "$WORK/probe.xml")" '<failure type="probe" message="probe verdict changed on ds-reg'
# The bug going away is reported, and is no regression.
run 0 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=200 \
	--candidate datastore=ds-reg,esxi_build=100
assert_contains "$OUT" "probe verdict changed on ds-reg: extent-size mismatch (one host's view of the file) on build 200, clean on build 100"
run 1 "$NFSAGENT" regress --db "$db" --baseline datastore=ds-reg,esxi_build=100 \
	--candidate datastore=ds-reg,esxi_build=200 --json
assert_eq "$(jq -r '.probes[0] | [.datastore, .baseline.extent_bug, .candidate.extent_bug, .regression] | join(" ")' <<< "$OUT")" \
	"ds-reg false true true" "JSON probe"

# ---- the SLOG: A's 1M and 128K writes both at the log device's one rate
# (~927 MB/s: the ceiling); B's 128K writes at 602 MB/s of it: none ----
slog_run() {  # TARGET PROFILE BLOCK_BYTES GUEST_MBPS LOG_MBPS
	add_run slog "$1" NFS 1 ds-slog "$2" 1000
	sqlite3 "$db" "UPDATE results SET write_iops = $4e6 / $3, write_bw_bytes = $4e6
		WHERE id = (SELECT max(id) FROM results);
		INSERT INTO nas_runs (result_id, dataset, incomplete, interval_s, intervals, window_s,
		log_write_bytes) VALUES ((SELECT max(id) FROM results), 'tank/vm', 0, 2, 30, 60, $5e6 * 60)"
}
for i in 1 2 3; do
	slog_run a seqwrite-1m 1048576 929 92$i
	slog_run a seqwrite-128k 131072 931 93$i
	slog_run b seqwrite-1m 1048576 929 92$i
	slog_run b seqwrite-128k 131072 610 60$i
done
run 0 "$NFSAGENT" compare --db "$db" --a campaign=slog,target=a --b campaign=slog,target=b
assert_contains "$(flat "$OUT")" "SLOG-bound: the log device wrote ~927 MB/s in each of seqwrite-1m, seqwrite-128k (A): the SLOG is the ceiling for these writes"
assert_not_contains "$OUT" "(B): the SLOG"
assert_le "$(widest "$OUT")" 120 "compare's widest line"
run 0 "$NFSAGENT" compare --db "$db" --a campaign=slog,target=a --b campaign=slog,target=b --json
assert_eq "$(jq -r '.slog_bound.b' <<< "$OUT")" null "B's SLOG is no ceiling"
assert_contains "$(jq -r '.slog_bound.a' <<< "$OUT")" "~927 MB/s in each of seqwrite-1m, seqwrite-128k (A)"
