#!/usr/bin/env bash
# A group run's SOAP calls per VM per repetition (docs/groups.md): bench on
# VMS fleet VMs at once, randread-4k-qd1 (one fio job), 5 s, three
# repetitions, in a new lab, preparation included.  Reports the calls per
# VM per run, by method, the start skews, the group's windows, and
# nfsagent's own CPU per VM per run against one VM's bench alone in the
# same lab (its peer: below 1, a VM costs less in a group).  Nothing here
# is a pass/fail test.
# Usage: tests/bench/group_calls.sh [BUILD_DIR [VMS [PROFILE]]]
set -euo pipefail
cd "$(dirname "$0")/../.."
vms=${2:-8}
profile=${3:-randread-4k-qd1}
repeat=3
. tests/bench/lib.sh
bench_setup "${1:-build}"
bench_lab -methods-log "$work/m.log" -fleet "$vms"
export NFSAGENT_GUEST_USER=root

: > "$work/m.log"
/usr/bin/time -f "%U %S" -o "$work/cpu.group" "$nfsagent" bench --vms 'fleet-*' --profile "$profile" \
	--repeat $repeat --size 4M --runtime 5 --db "$work/r.db" --json > "$work/out.json" || true
cp "$work/m.log" "$work/m.group"  # the lone bench below adds its own
calls=$(wc -l < "$work/m.group")
/usr/bin/time -f "%U %S" -o "$work/cpu.one" "$nfsagent" bench --vm fleet-01 --profile "$profile" \
	--repeat $repeat --size 4M --runtime 5 --db "$work/r.db" > /dev/null || true
runs=$(jq '.runs | length' "$work/out.json")
echo "group runs: $runs of $vms VMs ($profile), incomplete: $(jq '[.runs[] | select(.complete | not)] | length' "$work/out.json")"
echo "SOAP calls: $calls"
echo "calls per VM per run: $(awk -v c="$calls" -v v="$vms" -v r="$runs" 'BEGIN { printf "%.2f", c / v / r }')"
# CPU ms per VM per run of a /usr/bin/time file: FILE VMS
cpu_ms() { awk -v v="$2" -v r="$repeat" '{ printf "%.0f", ($1 + $2) * 1000 / v / r }' "$1"; }
group_ms=$(cpu_ms "$work/cpu.group" "$vms") one_ms=$(cpu_ms "$work/cpu.one" 1)
echo "nfsagent CPU per VM per run: ${group_ms} ms in the group, ${one_ms} ms alone" \
	"(ratio $(awk -v g="$group_ms" -v o="$one_ms" 'BEGIN { printf "%.2f", o ? g / o : 0 }'))"
echo "start skews (ms): $(jq -c '[.runs[].start_skew_ms | floor]' "$work/out.json")"
echo "windows (ms of ms): $(jq -c '[.runs[].group.window // {} | [.ms, .of_ms]]' "$work/out.json")"
jq -r '.runs[] | "  run \(.repetition): " + ([.members[] | select(.complete | not) | "\(.vm): \(.why)"] | join("; "))' \
	"$work/out.json" | grep -v ': $' || true
echo "by method, per VM per run:"
awk '{ n[$2]++ } END { for (m in n) print n[m], m }' "$work/m.group" | sort -rn |
	awk -v v="$vms" -v r="$runs" '{ printf "  %6.2f %s\n", $1 / v / r, $2 }'
