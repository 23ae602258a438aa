#!/usr/bin/env bash
# What a killed run started in the guest ends before anything new runs
# there (issue 26).  The lab's guest programs live on as on a VM: the
# nfsagent that started them is gone, fio's job process runs in a session of
# its own, and Tools' TerminateProcessInGuest signals the one process it is
# given.  Every assertion reads the guest's own side: the lab's process
# table (-guest-fio-log: each fio run's start and end in a guest, and any
# two seen at once) and the processes on this machine.
. "$(dirname "$0")/lib.sh"
export NFSAGENT_GUEST_PASSWORD=secret
FIO_LOG="$WORK/fio.log"
DB="$XDG_DATA_HOME/nfsagent/results.db"

lab_start -export 10.0.0.5:/mnt/tank/vmware64k -guest-fio-log "$FIO_LOG"

# campaign NAME RUNTIME: 2 profiles of RUNTIME s on fiotest.  RUNTIME
# outlasts the resumed run's start on a loaded machine (10 s did not: a
# run that began sweeping 15 s in found the fio it should end gone).
campaign() {
	{
		tiny_campaign "$1" profiles="randread-4k-qd1, randwrite-4k-qd1" runtime="$2"
		nfs_target v3 bench-v3 /mnt/tank/vmware64k 3
	} > "$WORK/$1.ini"
}
OTHER_VM=none  # the VM of another nfsagent's bench: its fio runs are not counted
# Each job once: a loaded machine's lab can miss a running fio in one of
# its samples and log its start again.
starts() { awk -v other="$OTHER_VM" '$2 == "fio-start" && $3 != other && !seen[$4]++' "$FIO_LOG" | wc -l; }
# killed_during_fio NAME N [ARGS]: runs the campaign, SIGKILLs it once the
# guest has run N fio in all (this one's and earlier ones'), and keeps the
# job file of the fio it left running in $ORPHAN.
killed_during_fio() {
	local name=$1 n=$2 pid began=$SECONDS
	shift 2
	"$NFSAGENT" run "$WORK/$name.ini" "$@" > "$WORK/out" 2> "$WORK/err" &
	pid=$!
	# A deadline by the clock, and a line of its own when it passes (a
	# count of 600 sleeps ran out under ASan on a loaded machine).
	until [ "$(starts)" -ge "$n" ]; do
		kill -0 "$pid" 2>/dev/null || fail "the run ended before fio $n: $(cat "$WORK/out" "$WORK/err")"
		[ $((SECONDS - began)) -lt 90 ] || fail "fio $n did not start in 90 s: $(cat "$WORK/out" "$WORK/err")"
		sleep 0.05
	done
	echo "fio $n started $((SECONDS - began)) s after $name's run began"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	ORPHAN=$(awk -v other="$OTHER_VM" '$2 == "fio-start" && $3 != other { job = $4 } END { print job }' "$FIO_LOG")
	fio_left || fail "no fio of the killed run is running in the guest: the test proves nothing"
}
# ended_early RUNTIME: the killed run's fio (a job of RUNTIME s) ended in
# the guest half a second or more before it would have ended on its own
# (its start, the lab's stamp, plus RUNTIME: fio's own end also waits for
# its file's layout).
ended_early() {
	local start end
	start=$(awk -v job="$ORPHAN" '$2 == "fio-start" && $4 == job { print $1; exit }' "$FIO_LOG")
	end=$(awk -v job="$ORPHAN" '$2 == "fio-end" && $4 == job { print $1; exit }' "$FIO_LOG")
	[ -n "$end" ] || fail "the killed run's fio ($ORPHAN) never ended in the guest"
	assert_le "$end" "$((start + $1 * 1000 - 500))" "when the killed run's fio ended (ms; it started at $start)"
}

# ---- killed during fio twice, then resumed: 2 results, no fio overlapped ----
# A live nfsagent's fio in another VM, running through all of it, is not
# the campaign's: it runs on.
"$NFSAGENT" bench --vm db01 --guest-user root --profile randwrite-4k-qd1 --size 4M --runtime 45 --repeat 1 \
	--db "$WORK/other.db" > "$WORK/other.out" 2>&1 &
other=$!
OTHER_PIDS+=("$other")
for i in $(seq 1 600); do grep -q " fio-start " "$FIO_LOG" && break; sleep 0.05; done
OTHER_VM=$(awk '$2 == "fio-start" { print $3; exit }' "$FIO_LOG")
campaign orphans 30
killed_during_fio orphans 1
killed_during_fio orphans 2 --resume
assert_contains "$(cat "$WORK/out")" "fio of an earlier run (nfsagent"
run 0 "$NFSAGENT" run "$WORK/orphans.ini" --resume
ended_early 30
assert_contains "$OUT" "fio of an earlier run (nfsagent"
assert_eq "$(sqlite3 "$DB" "SELECT count(*) FROM results")" 2 "results of the campaign"
assert_eq "$(grep -c " fio-overlap " "$FIO_LOG")" 0 "fio runs seen at once in one guest ($(cat "$FIO_LOG"))"
wait "$other" || fail "the other nfsagent's bench failed: $(cat "$WORK/other.out")"
assert_eq "$(sqlite3 "$WORK/other.db" "SELECT count(*) FROM results")" 1 "the other nfsagent's results"

# ---- killed during a long fio, then aborted: ended at once, not at its end ----
# late_forker: a process of the killed run (in its folder, in fiotest's
# guest) that forks another once signalled, as fio's main forks a job
# after the guest was listed, and outlives SIGTERM: the sweep must list
# the guest again to find the one forked late.
late_forker() {
	local pid="" guest folder i
	# this machine's fio, which the lab's wrapper may not have started yet
	for i in $(seq 1 100); do
		pid=$(for p in $(pgrep -x fio); do
			case "$(readlink "/proc/$p/cwd")" in "$WORK"/*) echo "$p"; break ;; esac
		done)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || fail "the killed run's fio never started in the guest"
	guest=$(tr '\0' '\n' < "/proc/$pid/environ" | grep '^LABSIM_GUEST=')
	folder=$(dirname "$ORPHAN")
	LATE_JOB="$folder/late-job.fio"
	env "$guest" setsid bash -c 'trap "(exec -a \"fio $1\" sleep 120) &" TERM; while :; do sleep 0.1; done' \
		"$folder/late.fio" "$LATE_JOB" > /dev/null 2>&1 &
	OTHER_PIDS+=("$!")
}
campaign aborted 30
killed_during_fio aborted $(($(starts) + 1))
late_forker
run 0 "$NFSAGENT" run "$WORK/aborted.ini" --abort
pgrep -f "$LATE_JOB" > /dev/null && fail "what the killed run forked after the guest was listed still runs"
ended_early 30
fio_left && fail "a fio of the killed run still runs after --abort"
assert_contains "$OUT" "fio of an earlier run (nfsagent"
echo "guest_orphans: ok"
