#!/usr/bin/env bash
# report: an HTML page built from a database of known rows, rendered by
# headless Chromium: the bars hold the medians inserted, every chart is
# there, nothing is loaded from the network, hostile strings stay text, and
# the page logs no errors.  Three groups of one profile are each judged
# against the first, in the order they appear.  The screenshot is kept as
# an artifact.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "Chromium is missing ($CHROMIUM): install the Debian package 'chromium' (scripts/deps.sh does)"
db="$WORK/results.db"
sqlfile="$WORK/data.sql"
new_db "$db"

# dir IOPS LAT_US: one direction's columns (fio's 4K block: bw = IOPS * 4096);
# the percentiles are fixed multiples of the latency so medians are known.
dir() {
	if [ -z "$1" ]; then
		echo "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
	else
		echo "$1, $(($1 * 4096)), $2, $2, $(($2 * 2)), $(($2 * 4)), $(($2 * 10)), $(($2 * 20)), $(($1 * 60)), 60000"
	fi
}

# result ID TYPE PROFILE REP STATUS READ_IOPS READ_LAT WRITE_IOPS WRITE_LAT ("" = no I/O)
result() {
	local id=$1 type=$2 profile=$3 rep=$4 status=$5 ds=truenas-vmware16k error=NULL
	[ "$type" = NFS41 ] && ds=truenas-vmware16k-41
	[ "$status" = failed ] && error="'fio: <b>job failed</b>: No space left on device'"
	local rd wr
	rd=$(dir "${6:-}" "${7:-}")
	wr=$(dir "${8:-}" "${9:-}")
	[ "$status" = failed ] && rd=$(dir "") && wr=$(dir "")
	cat >> "$sqlfile" <<-EOF
	INSERT INTO results (id, started_at, finished_at, status, error, repetition, vcenter,
	  vcenter_version, vcenter_build, host, esxi_version, esxi_build, datastore, datastore_type,
	  servers, export_path, vm, guest_os, disk, profile, job_file, fio_version,
	  read_iops, read_bw_bytes, read_lat_mean_us, read_p50_us, read_p95_us, read_p99_us,
	  read_p999_us, read_max_us, read_total_ios, read_runtime_ms,
	  write_iops, write_bw_bytes, write_lat_mean_us, write_p50_us, write_p95_us, write_p99_us,
	  write_p999_us, write_max_us, write_total_ios, write_runtime_ms)
	VALUES ($id, '2026-03-0${rep}T10:00:00Z', '2026-03-0${rep}T10:01:00Z', '$status', $error, $rep,
	  'https://vc.example.com/sdk', '8.0.3', '24022509', 'esx01', '8.0.3', '24022510', '$ds',
	  '$type', '10.0.0.5', '/mnt/tank/vmware16k', 'fio&test "q"', 'Ubuntu 24.04 <LTS>',
	  '[$ds] fiotest/fiotest.vmdk', '$profile', '[job]', 'fio-3.33', $rd, $wr);
	INSERT INTO result_labels VALUES ($id, 'recordsize', '16K');
	INSERT INTO result_labels VALUES ($id, 'note', '<script>alert(1)</script>');
	EOF
}

# NFS 3 against NFS 4.1, two profiles, three runs each; one NFS 4.1 randrw
# run failed, which leaves that group two runs there: too few to tell.
W=randwrite-4k-qd32x4 M=randrw-4k-70-30
result 1 NFS $W 1 ok "" "" 17000 7200
result 2 NFS41 $W 1 ok "" "" 37400 3400
result 3 NFS $M 1 ok 21000 1400 9000 5000
result 4 NFS41 $M 1 ok 30000 900 13000 2000
result 5 NFS $W 2 ok "" "" 17700 6480
result 6 NFS41 $W 2 ok "" "" 36100 3060
result 7 NFS $M 2 ok 20500 1260 8800 4500
result 8 NFS41 $M 2 failed
result 9 NFS $W 3 ok "" "" 12100 8640
result 10 NFS41 $W 3 ok "" "" 38000 4080
result 11 NFS $M 3 ok 22000 1680 9400 6000
result 12 NFS41 $M 3 ok 31000 1100 13400 2400
cat >> "$sqlfile" <<-'EOF'
INSERT INTO findings (at, kind, host, esxi_version, esxi_build, datastore, datastore_type, servers,
  export_path, vm, extent_bug, verdict, evidence_json)
VALUES ('2026-03-01T09:00:00Z', 'probe', 'esx01', '8.0.3', '24022510', 'truenas-vmware16k-41',
  'NFS41', '10.0.0.5', '/mnt/tank/vmware16k', NULL, 1,
  'NFS 4.1 extent-size mismatch on datastore truenas-vmware16k-41 (host esx01, ESXi 8.0.3 build 24022510)',
  '["[truenas-vmware16k-41] nfsagent-probe/canary-1-flat.vmdk is 0 bytes; <descriptor> declares 1073741824 bytes"]');
INSERT INTO findings (at, kind, host, esxi_version, esxi_build, datastore, datastore_type, servers,
  export_path, vm, extent_bug, verdict, evidence_json)
VALUES ('2026-03-01T09:05:00Z', 'probe', 'esx01', '8.0.3', '24022510', 'truenas-vmware16k', 'NFS',
  '10.0.0.5', '/mnt/tank/vmware16k', NULL, 0, 'no extent-size mismatch on datastore truenas-vmware16k', '[]');
EOF
sqlite3 "$db" < "$sqlfile"
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq length <<< "$OUT")" 12 "rows inserted"

# ---- the file ----
html="$WORK/report.html"
echo stale > "$html"
chmod 644 "$html"
run 0 "$NFSAGENT" report --html "$html" --db "$db"
assert_contains "$OUT" "12 runs (1 failed) in 2 groups, 2 profiles, 2 findings"
assert_eq "$(stat -c %a "$html")" 600 "report file mode"
page=$(cat "$html")
# Nothing may be fetched: no resource attributes or CSS imports at all (the
# vCenter's URL appears as text, which is fine).
if grep -Eiq '(src|href|srcset|action|xlink:href) *=|@import|url\(|<link|<script|<iframe|<img' "$html"; then
	fail "the report refers to a resource: $(grep -Eio '.{30}(src|href|@import|url\(|<link|<script|<img).{40}' "$html" | head -3)"
fi
assert_contains "$page" "default-src 'none'"
assert_contains "$page" "https://vc.example.com/sdk"
assert_contains "$page" "&lt;script&gt;alert(1)&lt;/script&gt;"
assert_contains "$page" "fio&amp;test &quot;q&quot;"
assert_contains "$page" "&lt;b&gt;job failed&lt;/b&gt;"
# The engine's change and verdict, as compare prints them: NFS 4.1 against NFS 3.
assert_contains "$page" '<span class="ratio">+141.5% better (96% CI +67.8% to +247.8%) vs first</span><span class="ratio">beyond noise</span>'
assert_contains "$page" '<th>write p99 latency (of each run)</th>'
assert_contains "$page" '<span class="ratio">follows IOPS</span>'
assert_not_contains "$page" "ranges overlap"
assert_contains "$page" "How changes are judged: Each side shows its runs"
assert_contains "$page" "geometric mean (lowest-highest): the change is the ratio of the two geometric means. A change is &quot;beyond noise&quot; when"
assert_eq "$(ls "$WORK" | grep -c '^report.html.')" 0 "temporary files left"

# ---- the summary at the top: compare's own verdict lines for the same groups ----
run 0 "$NFSAGENT" compare --db "$db" --a protocol=NFS --b protocol=NFS41 --markdown
echo "$OUT" > "$WORK/compare.md"
python3 - "$html" "$WORK/compare.md" <<-'PY' || fail "the report's verdicts are not compare's"
	import html, re, sys
	page, md = open(sys.argv[1]).read(), open(sys.argv[2]).read()
	summary = re.search(r'<section id="summary">(.*?)</section>', page, re.S).group(1)
	report = sorted(html.unescape(t) for t in re.findall(r'<li class="verdict">(.*?)</li>', summary))
	# compare's IOPS and p99 rows, the ones judged: "metric: change; verdict"
	rows = [[c.strip() for c in l.strip('|').split(' | ')] for l in md.splitlines()
	        if l.startswith('| ') and not l.startswith(('| Metric', '| Layer'))]
	ours = sorted(f'{r[0]}: {r[3]}; {r[4]}' for r in rows
	              if re.search(r'IOPS|p99', r[0]) and not r[4].startswith('follows'))
	assert len(ours) == 6, ours  # IOPS and p99 of each direction of each profile
	assert report == ours, (report, ours)
	PY
assert_contains "$page" '<li><b>randwrite-4k-qd32x4</b>: NFS 4.1 against NFS 3'

# ---- the rendering ----
chromium() {
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --disable-quic \
		--disable-dev-shm-usage --enable-logging=stderr --v=0 \
		--user-data-dir="$(mktemp -d "$WORK/chromium.XXXXXX")" "$@"
}
# Console messages as Chromium logs them ('...:INFO:CONSOLE:1] "text", source:
# ...'; older releases wrote CONSOLE(1)).  The report has no script, so any
# message at all is a problem: an error, or a refused load.  The detector is
# tried on a page that logs one, so a change of format cannot pass silently.
console_errors() {
	grep -E ':CONSOLE[:(]|Uncaught|console\.error|Refused to' "$1" || true
}
printf '<!DOCTYPE html><title>x</title><script>console.error("canary-error")</script>\n' > "$WORK/canary.html"
chromium --dump-dom "file://$WORK/canary.html" > /dev/null 2> "$WORK/canary.err" || fail "chromium failed: $(tail -n 5 "$WORK/canary.err")"
assert_contains "$(console_errors "$WORK/canary.err")" "canary-error" "the console error detector"

start=$(date +%s%N)
chromium --dump-dom "file://$html" > "$WORK/dom.html" 2> "$WORK/chromium.err" \
	|| fail "chromium --dump-dom failed: $(tail -n 5 "$WORK/chromium.err")"
echo "chromium --dump-dom took $((($(date +%s%N) - start) / 1000000)) ms"
[ -s "$WORK/dom.html" ] || fail "chromium rendered nothing: $(tail -n 5 "$WORK/chromium.err")"
errors=$(console_errors "$WORK/chromium.err")
[ -z "$errors" ] || fail "the page logged errors: $errors"

expect=$(jq -nc --arg w "$W" --arg m "$M" '{
	bars: {
		"\($w)|NFS 3|write": 17000, "\($w)|NFS 4.1|write": 37400,
		"\($m)|NFS 3|read": 21000, "\($m)|NFS 4.1|read": 30500,
		"\($m)|NFS 3|write": 9000, "\($m)|NFS 4.1|write": 13200},
	lat: {
		"\($w)|NFS 3|write|p50": 7200, "\($w)|NFS 4.1|write|p99": 13600,
		"\($m)|NFS 3|read|p99.9": 14000, "\($m)|NFS 4.1|write|p95": 4400},
	findings: 2,
	few: [$m],
	text: ["NFS 4.1 extent-size mismatch on datastore truenas-vmware16k-41",
		"<descriptor> declares 1073741824 bytes", "no extent-size mismatch on datastore truenas-vmware16k",
		"<script>alert(1)</script>", "fio&test \"q\"", "Ubuntu 24.04 <LTS>", "8.0.3 build 24022510",
		"10.0.0.5:/mnt/tank/vmware16k", "fio-3.33", "https://vc.example.com/sdk",
		"17,000", "7.2 ms", "28.8 ms", "Failed runs"]}')
python3 "$here/report_check.py" "$WORK/dom.html" "$expect" || fail "the rendered report is not what was inserted"

shot="${TEST_ARTIFACT_DIR:-/tmp}/nfsagent-report.png"
mkdir -p "$(dirname "$shot")"
chromium --hide-scrollbars --window-size=1280,2000 --screenshot="$WORK/report.png" "file://$html" \
	> /dev/null 2> "$WORK/shot.err" || fail "chromium --screenshot failed: $(tail -n 5 "$WORK/shot.err")"
[ "$(head -c 8 "$WORK/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "no PNG screenshot"
cp "$WORK/report.png" "$shot"
cp "$html" "${shot%.png}.html"
echo "screenshot: $shot"

# ---- selections and grouping ----
run 0 "$NFSAGENT" report --html "$html" --db "$db" --where protocol=NFS41 --group-by recordsize
assert_contains "$OUT" "6 runs (1 failed) in 1 group, 2 profiles, 1 finding"
assert_eq "$(grep -o '<rect class="bar"[^>]*data-group="recordsize=16K"' "$html" | wc -l)" 3 "bars of the one group"
run 0 "$NFSAGENT" report --html "$html" --db "$db" --group-by vm --group-by nosuchkey
assert_contains "$ERR" "no selected result has 'nosuchkey' to group by"
assert_contains "$(cat "$html")" 'data-group="fio&amp;test &quot;q&quot;, no nosuchkey label"'
run 0 "$NFSAGENT" report --html "$html" --db "$db" --where protocol=VMFS
assert_eq "$ERR" "nfsagent: warning: no result has protocol=VMFS (recorded: NFS, NFS41); $html holds only the findings"
assert_contains "$(cat "$html")" "No results match this selection."
# An unknown field is an error, and no page is written.
rm "$html"
run 2 "$NFSAGENT" report --html "$html" --db "$db" --where protcol=NFS
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: no field or label is called 'protcol': the fields are protocol, id,"
[ ! -e "$html" ] || fail "report wrote a page for an unknown field"
assert_eq "$(ls "$WORK" | grep -c 'report.html')" 0 "report files left"
run 2 "$NFSAGENT" report --db "$db"
assert_contains "$ERR" "give --html FILE"
run 2 "$NFSAGENT" report --html "$html" --db "$db" --where protocol
run 1 "$NFSAGENT" report --html "$WORK/no/such/dir/r.html" --db "$db"
assert_contains "$ERR" "cannot create $WORK/no/such/dir/r.html"

# ---- the NAS side: ESXi and the pool under the fio numbers, the pool's
# timeline beside the charts.  Every run measured on the same 16K dataset
# (so the grouping stays the protocol); the write profile's runs have their
# pool figures and timeline: the pool wrote 900 MB/s (NFS) and 1.7 GB/s
# (NFS 4.1) to the mirrors, the guest's bytes again to the log. ----
nasdb="$WORK/nas.db"
cp "$db" "$nasdb"
for id in 1 2 3 4 5 6 7 8 9 10 11 12; do
	echo "INSERT INTO nas_runs (result_id, dataset, pool_layout, recordsize, incomplete)
	  VALUES ($id, 'tank/vmware16k', '11 mirror + log', 16384, 0);"
done > "$sqlfile"
for id in 1 2 5 6 9 10; do
	pool=$(( id % 2 ? 900000000 : 1700000000 ))
	echo "UPDATE nas_runs SET interval_s = 2, intervals = 30, data_write_bytes = $pool * 60,
	  log_write_bytes = (SELECT write_bw_bytes * 60 FROM results WHERE id = $id),
	  dataset_writes = 1, dataset_written = (SELECT write_bw_bytes * 60 FROM results WHERE id = $id),
	  timeline = '{\"interval_s\":2,\"data_write\":[$pool,$pool,$((pool / 2))],\"data_read\":[0,0,0],\"special_write\":[0,0,0],\"log_write\":[70000000,70000000,35000000]}'
	  WHERE result_id = $id;"
done >> "$sqlfile"
# Result 1's intervals ended 2, 4.5 and 9 s after the first began (the NAS's
# stamps, schema 8): its points are placed there, not 2 s apart.
echo "UPDATE nas_runs SET timeline = json_set(timeline, '$.end', json('[1764600002.0,1764600004.5,1764600009.0]'))
  WHERE result_id = 1;" >> "$sqlfile"
sqlite3 "$nasdb" < "$sqlfile"
run 0 "$NFSAGENT" report --html "$html" --db "$nasdb"
assert_contains "$OUT" "12 runs (1 failed) in 2 groups, 2 profiles, 2 findings"
page=$(cat "$html")
assert_eq "$(grep -c '<table class="cmp layers">' <<< "$page")" 1 "one layers table: the write profile's"
# amplification = (pool data + log) / guest: NFS runs at 17,000, 17,700 and 12,100 IOPS of 4K
# the bold figure is the geometric mean the change is the ratio of (issue 36:
# the medians, 13.9x and 12.1x, would be -13% beside -20.4%)
assert_contains "$page" '<tr data-layer="amplification"><th>write amplification</th><td class="num"><b>15.3x</b><span class="sp">median 13.9 · 13.4–19.2 · n=3</span></td>'
assert_contains "$page" '<td class="num"><b>12.2x</b><span class="sp">median 12.1 · 11.9–12.5 · n=3</span><span class="ratio">-20.4% better (95% CI'
assert_contains "$page" '<tr data-layer="pool_write_mbps"><th>pool data write MB/s</th><td class="num"><b>900</b><span class="sp">median 900 · 900–900 · n=3</span></td><td class="num"><b>1,700</b>'
assert_eq "$(grep -o '<polyline class="poolline" data-result="[0-9]*" data-class="data"' "$html" | wc -l)" 6 "a data line per run"
assert_eq "$(grep -o '<polyline class="poolline" data-result="[0-9]*" data-class="log" data-max="70"' "$html" | wc -l)" 6 "a log line per run"
assert_eq "$(grep -c '<figcaption>Pool writes over each run (zpool iostat)</figcaption>' "$html")" 1 "the timeline beside the write profile's charts"
python3 - "$html" <<-'PY' || fail "result 1's points not at its stamps"
	import re, sys
	pts = re.search(r'data-result="1" data-class="data"[^>]* points="([^"]*)"', open(sys.argv[1]).read()).group(1)
	x = [float(p.split(",")[0]) for p in pts.split()]
	# 2, 4.5, 9 s: the gaps 2.5 and 4.5 s (evenly spaced points would give 1)
	assert abs((x[1] - x[0]) / (x[2] - x[1]) - 2.5 / 4.5) < 0.01, x
	PY
# A rate of the pool has no better side: its change shown without a
# verdict; the amplification has one (more pool bytes per guest byte: worse).
assert_contains "$page" '<span class="ratio">no verdict: neither side is better by itself</span>'
assert_eq "$(grep -o '<tr data-layer="pool_write_mbps">.*</tr>' <<< "$page" | grep -c '% better\|% worse')" 0 "no better or worse on a pool rate"
# (less pool work per guest byte in the second group: better)
assert_eq "$(grep -o '<tr data-layer="amplification">.*</tr>' <<< "$page" | grep -c '% better (')" 1 "the amplification's direction"
python3 - "$html" <<-'PY' || fail "the timeline's SVG is not well-formed"
	import re, sys, xml.etree.ElementTree as ET
	for svg in re.findall(r'<svg class="chart timeline".*?</svg>', open(sys.argv[1]).read(), re.S):
	    ET.fromstring(svg)
	PY
assert_eq "$(grep -c 'Recordsize trap' "$html")" 0 "no recordsize trap: each run's stay on its datastore was one run"
assert_eq "$(grep -c 'Cache-served' "$html")" 0 "no cache-served reads"

# ---- cache-served reads, flagged as the campaign's summary flags them: the
# NFS 3 mixed runs made reads of 16M whose every demand read hit an ARC of 8G
cachedb="$WORK/cache.db"
cp "$nasdb" "$cachedb"
sqlite3 "$cachedb" "UPDATE results SET job_file = '[job]' || char(10) || 'size=16M' || char(10),
	  write_iops = NULL, write_bw_bytes = NULL, write_lat_mean_us = NULL, write_p50_us = NULL,
	  write_p95_us = NULL, write_p99_us = NULL, write_p999_us = NULL, write_max_us = NULL,
	  write_total_ios = NULL, write_runtime_ms = NULL WHERE id IN (3, 7, 11);
	UPDATE nas_runs SET dataset_writes = 0, dataset_written = 0, dataset_reads = 100, dataset_read = 0,
	  arc_demand_hits = 100, arc_demand_misses = 0, arc_size = 8589934592, zil_commits = 0,
	  zil_slog_bytes = 0, zil_normal_bytes = 0, arc_hit_ratio = 1.0 WHERE result_id IN (3, 7, 11);"
run 0 "$NFSAGENT" report --html "$html" --db "$cachedb"
page=$(cat "$html")
flag="<span class=\"few\">Cache-served reads in NFS 3, $M:</span> 3 of 3 runs [cache-served: 16.0 MiB fits in the ARC&#39;s 8.0 GiB]"
assert_contains "$(sed -n '/<section id="summary">/,/<\/section>/p' <<< "$page")" "<li class=\"note cache\" data-group=\"NFS 3\">$flag"
assert_contains "$page" "<p class=\"note cache\" data-group=\"NFS 3\">$flag"
assert_eq "$(grep -c 'Cache-served reads in NFS 4.1' <<< "$page")" 0 "NFS 4.1's reads were not cache-served"

# ---- the recordsize trap, as compare warns of it: the NFS runs alone
# stay on one disk; the first measured 128K, the 5 after it 16K, so the
# 16K group's disk may still hold 128K records.  A warning line for the
# 16K group, none for the 128K one. ----
trapdb="$WORK/trap.db"
cp "$db" "$trapdb"
{
	echo "DELETE FROM result_labels WHERE result_id IN (SELECT id FROM results WHERE datastore_type = 'NFS41');"
	echo "DELETE FROM results WHERE datastore_type = 'NFS41';"
	for id in 1 3 5 7 9 11; do
		echo "INSERT INTO nas_runs (result_id, dataset, pool_layout, recordsize, incomplete)
		  VALUES ($id, 'tank/vmware16k', '11 mirror + log', $([ "$id" = 1 ] && echo 131072 || echo 16384), 0);"
	done
} > "$sqlfile"
sqlite3 "$trapdb" < "$sqlfile"
run 0 "$NFSAGENT" report --html "$html" --db "$trapdb"
assert_contains "$OUT" "6 runs (0 failed) in 2 groups, 2 profiles"
assert_eq "$(grep -c 'Recordsize trap' "$html")" 1 "one recordsize trap line: the 16K group's"
assert_contains "$(cat "$html")" '<p class="note trap" data-group="16K"><span class="few">Recordsize trap in 16K:</span> 5 runs of the group measured recordsize 16K on [truenas-vmware16k] fiotest/fiotest.vmdk after result 1 measured 128K there: the disk may still hold 128K records, since a recordsize applies to blocks written after it is set.</p>'

# ---- three groups in one profile: the columns in the order the groups
# first appear (gold, silver, bronze), each group's medians in its own
# column, and each later group judged against the first (gold), never
# against the one before it ----
threedb="$WORK/three.db"
cp "$db" "$threedb"
echo "DELETE FROM result_labels; DELETE FROM results;" > "$sqlfile"
id=20
for rep in 1 2 3; do
	# IOPS and latency 2% apart run to run: the medians are rep 2's
	while read -r tier iops lat pool; do
		id=$((id + 1))
		result $id NFS $W $rep ok "" "" $((iops + (rep - 2) * iops / 50)) $((lat + (2 - rep) * lat / 50))
		cat >> "$sqlfile" <<-EOS
		INSERT INTO result_labels VALUES ($id, 'tier', '$tier');
		INSERT INTO nas_runs (result_id, dataset, pool_layout, recordsize, incomplete, interval_s,
		  intervals, data_write_bytes, log_write_bytes, dataset_writes, dataset_written)
		  SELECT id, 'tank/vmware16k', '11 mirror + log', 16384, 0, 2, 30, $pool * 60,
		  write_bw_bytes * 60, 1, write_bw_bytes * 60 FROM results WHERE id = $id;
		EOS
	done <<-EOT
		gold 10000 3200 900000000
		silver 20000 1600 1700000000
		bronze 5000 6400 400000000
	EOT
done
sqlite3 "$threedb" < "$sqlfile"
run 0 "$NFSAGENT" report --html "$html" --db "$threedb"
assert_contains "$OUT" "9 runs (0 failed) in 3 groups, 1 profile"
page=$(cat "$html")
sw() { printf '<th><span class="sw" style="background:%s"></span>tier=%s</th>' "$1" "$2"; }
assert_contains "$page" "<thead><tr><th>Geometric mean (median · min–max · runs)</th>$(sw '#0072B2' gold)$(sw '#E69F00' silver)$(sw '#009E73' bronze)</tr></thead>" \
	"the groups' columns in their order"
# bronze against gold, -50% (against silver it would be -75%)
assert_contains "$page" '<tr><th>write IOPS</th><td class="num"><b>9,999</b><span class="sp">median 10,000 · 9,800–10,200 · n=3</span></td><td class="num"><b>19,997</b><span class="sp">median 20,000 · 19,600–20,400 · n=3</span><span class="ratio">+100.0% better (96% CI +90.4% to +110.0%) vs first</span><span class="ratio">beyond noise</span></td><td class="num"><b>4,999</b><span class="sp">median 5,000 · 4,900–5,100 · n=3</span><span class="ratio">-50.0% worse (96% CI -52.4% to -47.5%) vs first</span><span class="ratio">beyond noise</span></td></tr>' \
	"the IOPS of the three groups"
assert_contains "$page" '<tr><th>write p99 latency (of each run)</th><td class="num"><b>12.8 ms</b><span class="sp">median 12.8 ms · 12.5 ms–13.1 ms · n=3</span></td><td class="num"><b>6.4 ms</b><span class="sp">median 6.4 ms · 6.27 ms–6.53 ms · n=3</span><span class="ratio">-50.0% better (95% CI -52.2% to -47.7%) vs first</span><span class="ratio">beyond noise</span></td><td class="num"><b>25.6 ms</b><span class="sp">median 25.6 ms · 25.1 ms–26.1 ms · n=3</span><span class="ratio">+100.0% worse (95% CI +91.1% to +109.3%) vs first</span><span class="ratio">beyond noise</span></td></tr>' \
	"the p99 of the three groups"
assert_eq "$(grep -o '<rect class="bar"[^>]*' "$html" | sed 's/.*data-group="tier=\([a-z]*\)" data-dir="write" data-value="\([0-9]*\)".*/\1 \2/' | tr '\n' ' ')" \
	"gold 10000 silver 20000 bronze 5000 " "the bars in the groups' order"
# the pool's layers: (pool data + log) / guest, 23x, 21.8x, 20.5x; bronze
# against gold -10.6% (against silver: -5.6%)
assert_contains "$page" '<tr data-layer="amplification"><th>write amplification</th><td class="num"><b>23x</b><span class="sp">median 23 · 22.5–23.4 · n=3</span></td><td class="num"><b>21.8x</b><span class="sp">median 21.8 · 21.3–22.2 · n=3</span><span class="ratio">-5.3% better (95% CI -9.3% to -1.1%) vs first</span><span class="ratio">beyond noise</span></td><td class="num"><b>20.5x</b><span class="sp">median 20.5 · 20.1–20.9 · n=3</span><span class="ratio">-10.6% better (95% CI -14.4% to -6.7%) vs first</span><span class="ratio">beyond noise</span></td></tr>' \
	"the amplification of the three groups"
assert_contains "$page" '<tr data-layer="pool_write_mbps"><th>pool data write MB/s</th><td class="num"><b>900</b><span class="sp">median 900 · 900–900 · n=3</span></td><td class="num"><b>1,700</b><span class="sp">median 1,700 · 1,700–1,700 · n=3</span><span class="ratio">+88.9% vs first</span><span class="ratio">no verdict: neither side is better by itself</span></td><td class="num"><b>400</b><span class="sp">median 400 · 400–400 · n=3</span><span class="ratio">-55.6% vs first</span>' \
	"the pool's writes of the three groups"
# ---- ceilings in the summary's caveats: every run recorded a 1 Gb/s link
# (125 MB/s); NFS 4.1's writes (153 MB/s) and its randrw reads (125 MB/s)
# reached it, NFS 3's did not.  NFS 3's 128K randrw writes ran at its 4K
# writes' log device rate (~70 MB/s): the SLOG is their ceiling. ----
ceildb="$WORK/ceilings.db"
cp "$nasdb" "$ceildb"
sqlite3 "$ceildb" "UPDATE results SET link_speed_mbit = 1000, link_nic = 'vmnic0';
	UPDATE results SET write_iops = 534, write_bw_bytes = 534 * 131072
	  WHERE profile = '$M' AND datastore_type = 'NFS' AND status = 'ok';
	UPDATE nas_runs SET interval_s = 2, intervals = 30,
	  log_write_bytes = (SELECT write_bw_bytes * 60 FROM results WHERE id = result_id)
	  WHERE result_id IN (SELECT id FROM results WHERE profile = '$M' AND datastore_type = 'NFS')"
run 0 "$NFSAGENT" report --html "$html" --db "$ceildb"
caveats=$(sed -n '/<ul class="caveats">/,/<\/ul>/p' "$html")
assert_eq "$(grep -o '<li class="note network">[^<]*' <<< "$caveats" | sed 's/<li class="note network">//')" \
"randwrite-4k-qd32x4 write: network-bound: NFS 4.1 only, at 153 MB/s through esx01&#39;s 1 Gb/s link (vmnic0), more than it carries: several links, or a cache: NFS 4.1&#39;s figure is its link&#39;s, not its storage&#39;s
randrw-4k-70-30 read: network-bound: NFS 4.1 only, at 125 MB/s through esx01&#39;s 1 Gb/s link (vmnic0): NFS 4.1&#39;s figure is its link&#39;s, not its storage&#39;s" \
	"the network's caveats"
assert_eq "$(grep -o '<li class="note slog">[^<]*' <<< "$caveats" | sed 's/<li class="note slog">//')" \
	"SLOG-bound: the log device wrote ~70 MB/s in each of randwrite-4k-qd32x4, randrw-4k-70-30 (NFS 3): the SLOG is the ceiling for these writes" \
	"the SLOG's caveat"
run 0 "$NFSAGENT" report --html "$html" --db "$nasdb"
assert_not_contains "$(cat "$html")" 'class="note network"'
assert_not_contains "$(cat "$html")" 'class="note slog"'
echo "PASS"
