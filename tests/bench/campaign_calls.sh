#!/usr/bin/env bash
# A campaign's SOAP calls per result (issue 21's goal: 12 or fewer): a
# 2-target x 2-profile x 2-repetition campaign (by default) with 1 s runs, on the lab's
# realistic semantics, once.  Reports the calls per result, then where they
# went: by method, and by the campaign's phase (what nfsagent printed last
# before each call).  Nothing here is a pass/fail test.  PROFILES and
# REPEAT change the campaign's size: the mounts, probes and moves are paid
# once per campaign or round, the runs once per result.
# Usage: [PROFILES=a,b,...] [REPEAT=N] tests/bench/campaign_calls.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
bench_setup "${1:-build}"
bench_lab -methods-log "$work/m.log" -nfs41-bug off \
	-export 10.0.0.5:/mnt/tank/vmware,10.0.0.5:/mnt/tank/vmware64k,10.0.0.5:/mnt/tank/vmware64k-b

cat > "$work/c.ini" <<INI
[campaign]
name = calls
vm = fiotest
guest_user = root
profiles = ${PROFILES:-randread-4k-qd1, randwrite-4k-qd1}
repeat = ${REPEAT:-2}
size = 4M
runtime = 1

[target v3]
datastore = bench-v3
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3

[target v41]
datastore = bench-v41
server = 10.0.0.5
path = /mnt/tank/vmware64k-b
nfs = 4.1
INI
: > "$work/m.log"
# each line nfsagent prints, stamped with the time it came (ms), to place the calls
stdbuf -oL -eL "$nfsagent" run "$work/c.ini" --db "$work/r.db" ${TRACE:+--trace "$TRACE"} 2>&1 |
	while IFS= read -r l; do printf '%s %s\n' "$(date +%s%3N)" "$l"; done > "$work/out"
results=$(sqlite3 "$work/r.db" "SELECT count(*) FROM results WHERE status = 'ok'")
calls=$(wc -l < "$work/m.log")
echo "results: $results"
echo "SOAP calls: $calls"
[ "$results" -gt 0 ] || { echo "no ok results: see $work/out"; exit 1; }
echo "calls per result: $(awk -v c="$calls" -v r="$results" 'BEGIN { printf "%.1f", c / r }') (goal: <= 12)"
echo "by method:"
awk '{ n[$2]++ } END { for (m in n) printf "  %5d %s\n", n[m], m }' "$work/m.log" | sort -rn
echo "by phase (the line nfsagent printed last before the call):"
awk 'NR == FNR { t[NR] = $1; $1 = ""; line[NR] = substr($0, 2, 60); n = NR; next }
	{ while (i < n && t[i + 1] <= $1) i++; k = i ? line[i] : "(before any output)"; c[k]++; if (!(k in first)) { first[k] = ++order } }
	END { for (k in c) printf "%d\t%5d  %s\n", first[k], c[k], k }' "$work/out" "$work/m.log" | sort -n | cut -f2-
