#!/usr/bin/env bash
# fio writes only in nfsagent's own folder under --dir, its files go after
# every repetition (fio removes them; after a fio that died or was stopped,
# the folder is made anew) and the folder at the end: after a clean run,
# after fio died, after Ctrl-C, in a campaign too.  A failed download of fio's output is nfsagent's error,
# not a fio result.  (The guest is a folder of the lab: DIR/guests/<vm>/.)
. "$(dirname "$0")/lib.sh"
lab_start
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
guests="$WORK/lab/guests"
rows() { sqlite3 "$db" "SELECT count(*) FROM results"; }
# Every file left in the guests, but the folders the lab makes.
left() { (cd "$guests" && find . -mindepth 2 ! -path './*/tmp' ! -path './*/var' ! -path './*/var/tmp' \
	! -path './*/root' ! -path './*/home' ! -path './*/mnt' ! -path './*/dev' | sort); }
# fio's data files (not its job or output) in the guests right now.
data_files() { find "$guests" -path '*/nfsagent-fio-*' -type f 2> /dev/null | wc -l; }
# start_bench ARGS...: bench in the background, back once fio's data file exists.
start_bench() {
	"$NFSAGENT" bench --vm fiotest --db "$db" "$@" > "$WORK/out" 2> "$WORK/err" &
	BENCH=$!
	local i
	for i in $(seq 1 300); do [ "$(data_files)" -ge 1 ] && break; sleep 0.1; done
	[ "$(data_files)" -ge 1 ] || fail "fio made no data file: $(cat "$WORK/err")"
}
wait_bench() {
	RC=0
	wait "$BENCH" || RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}

# A clean run: the jobs name nfsagent's folder under --dir, nothing is left.
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --profile randwrite-4k-qd1 \
	--repeat 2 --size 4M --runtime 1 --dir /var/tmp --db "$db"
assert_eq "$(left)" "" "files left in the guest after bench"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM results WHERE job_file LIKE '%directory=/var/tmp/nfsagent-fio-%'")" 4 \
	"jobs writing in nfsagent's folder"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM results WHERE job_file LIKE '%directory=/var/tmp' || char(10) || '%'")" 0 \
	"jobs writing in --dir itself"
# A --dir that does not exist yet is made, and goes too (only nfsagent's folder).
run 0 "$NFSAGENT" bench --vm fiotest --profile randwrite-4k-qd1 --repeat 1 --size 4M --runtime 1 \
	--dir /mnt/scratch --db "$db"
assert_eq "$(left)" "./$(ls "$guests")/mnt/scratch" "files left after bench in a new --dir"
rmdir "$guests"/*/mnt/scratch

# fio dies in the guest (killed): the repetition is recorded as failed, its files go.
start_bench --profile randwrite-4k-qd1 --repeat 1 --size 4M --runtime 30
for pid in $(pgrep -x fio); do
	case "$(readlink "/proc/$pid/cwd" 2> /dev/null)" in "$WORK"/*) kill -KILL "$pid" ;; esac
done
wait_bench
assert_eq "$RC" 1 "exit status when fio died"
assert_contains "$OUT" "randwrite-4k-qd1 #1:  FAILED"
assert_eq "$(left)" "" "files left in the guest after fio died"

# Ctrl-C while fio writes: fio is stopped, then its files go.
start_bench --profile randwrite-4k-qd1 --repeat 2 --size 4M --runtime 30
kill -INT "$BENCH"
wait_bench
assert_eq "$RC" 1 "exit status after Ctrl-C"
assert_contains "$ERR" "interrupted"
# fio's workers may outlive its main process for the lab's SIGTERM-to-SIGKILL wait.
for _ in $(seq 1 50); do fio_left || break; sleep 0.1; done
if fio_left; then fail "fio still runs"; fi
assert_eq "$(left)" "" "files left in the guest after Ctrl-C"

# fio's output cannot be fetched (here: over the 64 MiB nfsagent takes): an
# error of nfsagent's, with nothing recorded, not a failed fio run.
before=$(rows)
printf '[big]\nfilename=out.json\nsize=65m\nrw=write\nbs=1m\nioengine=psync\n' > "$WORK/big.fio"
run 1 "$NFSAGENT" bench --vm fiotest --job "$WORK/big.fio" --repeat 1 --db "$db"
assert_one_line "$ERR"
assert_contains "$ERR" "is larger than 67108864 bytes"
assert_not_contains "$ERR" "token=" "the error line"
assert_contains "$ERR" "/out.json out of the guest"
assert_not_contains "$OUT" "FAILED"
assert_eq "$(rows)" "$before" "rows after a failed download"
assert_eq "$(left)" "" "files left in the guest after a failed download"

# A campaign's repetitions clean up the same way.
{
	tiny_campaign files repeat=2 dir=/root
	printf '\n[target home]\ndatastore = truenas-vmware\n'
} > "$WORK/c.ini"
run 0 "$NFSAGENT" run "$WORK/c.ini" --db "$db"
assert_contains "$OUT" "randread-4k-qd1 #2 on home: ok"
assert_eq "$(left)" "" "files left in the guest after the campaign"
echo "bench_files: ok"
