#!/usr/bin/env bash
# A NAS slowed 5x: every result keeps its NAS side (issue 38, part 4).  The
# lab's NAS, busy, takes 2.2 s to start answering each command; slowed 5x,
# 11 s: past the 10 s a NAS command had during a bench, which lost the
# NAS's settings (and so every run's NAS side) before the first run.  Each
# command now has 30 s, and one that gave no answer in them is asked once
# more (docs/nas-sampling.md).  The loop's readings after the first are not
# slowed (answer_delay_ms stays 0): the clocks' difference is known to a
# round trip, and every figure is fio's window's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
nas_lab -nas-slog
db="$WORK/results.db"
# (slowed once sshd is up: nas_start's own check would wait as long)
nas_model '.busy_ms = 2200 | .slowdown = 5'
# The model itself, beside the bench: a command takes 11 s or more to
# answer (a lower bound: the model's own wait; the test asserts no upper).
{
	began=$(date +%s%N)
	answer=$(nas_command uname -s)
	echo "$answer $((($(date +%s%N) - began) / 1000000))" > "$WORK/uname"
} &
uname_pid=$!

# 3 s runs with a 1 s ramp: fio's window is covered by zpool's 1 s
# intervals however late the first one comes (test_bench_nas's 2 s runs
# may see none).
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat 2 --size 4M --runtime 3 \
	--ramp 1 --db "$db" --nas-command "$NAS"
wait "$uname_pid"
read -r answer slow_ms < "$WORK/uname"
echo "the slowed NAS answered uname in $slow_ms ms"
assert_eq "$answer" Linux "uname on the slowed NAS"
assert_ge "$slow_ms" 11000 "ms the slowed NAS takes to answer a command"
assert_eq "$ERR" "" "no warning: the slow NAS was waited for"
assert_eq "$(grep -c '^randwrite-4k-qd1 #[12]:  write' <<< "$OUT")" 2 "both runs ($OUT)"
assert_eq "$(grep -c '^  NAS: pool wrote ' <<< "$OUT")" 2 "a NAS line with the pool's figures under each run ($OUT)"
assert_not_contains "$OUT" "figures incomplete"

# results --json: every result has its NAS side, complete, with the pool's
# figures over fio's window and the settings read before the first run.
run 0 "$NFSAGENT" results --db "$db" --json
assert_eq "$(jq length <<< "$OUT")" 2 "results"
assert_eq "$(jq -c '[.[] | .nas | [.dataset, .recordsize, .incomplete, .intervals > 0, .data_write_bytes > 0,
	.log_write_bytes > 0, .window_s > 2.9, .measured_s > 0]]' <<< "$OUT")" \
	'[["tank/vmware",131072,false,true,true,true,true,true],["tank/vmware",131072,false,true,true,true,true,true]]' \
	"every result's NAS side ($(jq -c '[.[] | .nas]' <<< "$OUT"))"
echo "test_nas_slow: ok"
