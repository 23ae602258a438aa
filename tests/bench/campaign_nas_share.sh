#!/usr/bin/env bash
# What reading the NAS costs a campaign's critical path (issue 38's goal: 2%
# of its wall time or less): a campaign of TARGETS targets (two datasets of
# one pool, by default) x 2 profiles x REPEAT repetitions with RUNTIME s
# runs, with the NAS side, beside the same campaign without it, in the same
# lab, RUNS times each, interleaved.  Reported: the NAS's share of the
# campaign's wall time as the campaign itself counts it ("reading the NAS":
# the time its benches waited for the NAS's view, read ahead of the rounds
# and checked again beside each round's first run), and the ratio of the
# wall times with and without the NAS side (the sampling's handshakes
# included).  Each Storage vMotion takes MOVE_S s (5 by default: a small
# test VM; a real one's minutes hide a NAS's reading whole).  Nothing here
# passes or fails: the goal is printed beside it.
# Usage: [REPEAT=N] [RUNTIME=S] [RUNS=N] [MOVE_S=S] tests/bench/campaign_nas_share.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
export LABSIM=$build/labsim NFSAGENT=$build/agent/nfsagent
. tests/integration/lib.sh
. tests/sim/nas_sshd.sh
lab_start -export 10.0.0.5:/mnt/tank/vmware16k,10.0.0.5:/mnt/tank/vmware64k -nas-slog \
	-task-seconds "${MOVE_S:-5}" -slow-tasks RelocateVM_Task
nas_start
export NFSAGENT_GUEST_PASSWORD=secret

campaign() {  # campaign FILE NAS_LINE
	cat > "$1" <<INI
[campaign]
name = share
vm = fiotest
guest_user = root
profiles = randwrite-4k-qd1, randread-4k-qd1
repeat = ${REPEAT:-3}
size = 4M
runtime = ${RUNTIME:-2}
$2

[target r16k]
datastore = bench-16k
server = 10.0.0.5
path = /mnt/tank/vmware16k
nfs = 3
probe = no

[target r64k]
datastore = bench-64k
server = 10.0.0.5
path = /mnt/tank/vmware64k
nfs = 3
probe = no
INI
}
campaign "$WORK/nas.ini" "nas_command = ssh -F $NAS_SSH_CONFIG nas"
campaign "$WORK/bare.ini" ""

# run NAME: the campaign's wall time and its NAS seconds, appended to $WORK/NAME
run_one() {
	local out
	out=$("$NFSAGENT" run "$WORK/$1.ini" --db "$WORK/$1-$2.db" 2> "$WORK/err") || fail "campaign $1 failed: $(cat "$WORK/err")"
	local total nas
	total=$(sed -nE 's/^Where the time went \(([0-9.]+) s\).*/\1/p' <<< "$out")
	nas=$(sed -nE 's/.*reading the NAS ([0-9.]+) s.*/\1/p' <<< "$out")
	echo "$total ${nas:-0}" >> "$WORK/times-$1"
}
for i in $(seq 1 "${RUNS:-3}"); do
	run_one nas "$i"
	run_one bare "$i"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
with=$(awk '{ print $1 }' "$WORK/times-nas" | median)
without=$(awk '{ print $1 }' "$WORK/times-bare" | median)
share=$(awk '{ print 100 * $2 / $1 }' "$WORK/times-nas" | median)
echo "campaign with the NAS side: $(tr '\n' ' ' < "$WORK/times-nas" | sed 's/ $//') (wall s, NAS s each)"
echo "campaign without it:        $(awk '{ printf "%s ", $1 }' "$WORK/times-bare")(wall s)"
printf "NAS on the critical path: %.1f%% of the campaign's wall time, median (goal: <= 2%%)\n" "$share"
printf "wall time with / without the NAS side: %.2f (%s s / %s s, medians)\n" \
	"$(awk -v a="$with" -v b="$without" 'BEGIN { print a / b }')" "$with" "$without"
