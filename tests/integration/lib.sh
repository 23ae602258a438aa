# Shared helpers for integration tests: start the simulated lab, run
# nfsagent against it, assert on values.  Sourced by each test script.
set -euo pipefail

: "${NFSAGENT:?NFSAGENT must name the nfsagent binary}"
: "${LABSIM:?LABSIM must name the labsim binary}"
# The lab writes ~12 files per VM: a RAM-backed folder keeps start-up fast.
[ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && TMPDIR=/dev/shm
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfsagent-test.XXXXXX")
LAB_PID=
LAB_LOG="$WORK/methods.log"
export XDG_DATA_HOME="$WORK/data"  # the results database of this test, not the user's
OTHER_PIDS=()  # helper processes a test starts; stopped at exit
SEED_VMS=3     # the lab adds fiotest, db01 and "Bjørn test" to its -vms N
# The tests' python3 is the system's (scripts/deps.sh installs it; they use
# its standard library only): a pyenv shim first in PATH cost each call
# 1.8 s (0.5 s of CPU) on a loaded machine, the system's 0.1 s.
# (First in PATH, not a function: `python3 ... &` then gives the server's
# own pid, which the test stops.)
if [ -x /usr/bin/python3 ]; then
	mkdir "$WORK/bin"
	ln -s /usr/bin/python3 "$WORK/bin/python3"
	PATH="$WORK/bin:$PATH"
fi

cleanup() {
	local rc=$?
	local pid
	for pid in "${OTHER_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	if [ -n "$LAB_PID" ] && kill -0 "$LAB_PID" 2>/dev/null; then
		kill "$LAB_PID" 2>/dev/null || true
		wait "$LAB_PID" 2>/dev/null || true
	fi
	if [ "$rc" -ne 0 ] && [ -f "$WORK/lab.err" ]; then
		echo "--- lab stderr (last 20 lines)" >&2
		tail -n 20 "$WORK/lab.err" >&2
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# lab_start [labsim flags...]: starts the lab and points NFSAGENT_* at it.
lab_start() {
	mkdir -p "$WORK/lab"
	: > "$LAB_LOG"
	# The previous lab's ready line must go before the new lab starts: the
	# child truncates lab.out only when it runs, and the loop below could
	# read the old file in between.
	rm -f "$WORK/lab.out"
	"$LABSIM" -dir "$WORK/lab" -methods-log "$LAB_LOG" "$@" > "$WORK/lab.out" 2> "$WORK/lab.err" &
	LAB_PID=$!
	local i
	for i in $(seq 1 600); do
		# The ready line counts once its newline is written.
		[ -f "$WORK/lab.out" ] && [ "$(wc -l < "$WORK/lab.out")" -ge 1 ] && break
		kill -0 "$LAB_PID" 2>/dev/null || fail "labsim exited: $(tail -n 5 "$WORK/lab.err")"
		sleep 0.1
	done
	LAB_READY=$(head -n 1 "$WORK/lab.out" 2> /dev/null || true)
	[ -n "$LAB_READY" ] || fail "labsim did not get ready in 60 s"
	LAB_URL=$(jq -r .url <<< "$LAB_READY")
	LAB_THUMBPRINT=$(jq -r .thumbprint <<< "$LAB_READY")
	LAB_CACERT=$(jq -r .cacert <<< "$LAB_READY")
	export NFSAGENT_URL="$LAB_URL"
	export NFSAGENT_USERNAME=$(jq -r .username <<< "$LAB_READY")
	export NFSAGENT_PASSWORD=$(jq -r .password <<< "$LAB_READY")
	export NFSAGENT_THUMBPRINT="$LAB_THUMBPRINT"
	unset NFSAGENT_CACERT NFSAGENT_INSECURE GOVC_URL GOVC_USERNAME GOVC_PASSWORD GOVC_INSECURE
}

lab_stop() {
	kill "$LAB_PID" 2>/dev/null || true
	wait "$LAB_PID" 2>/dev/null || true
	LAB_PID=
}

# new_db FILE: an empty results database of this nfsagent's schema, made
# as users get one: by a recording command (one bench in a lab of its own,
# its rows then deleted).  The read-only commands never create one.
new_db() {
	lab_start
	NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret "$NFSAGENT" bench --vm fiotest \
		--profile randread-4k-qd1 --repeat 1 --size 4M --runtime 1 --db "$1" > /dev/null ||
		fail "new_db: bench failed"
	sqlite3 "$1" "DELETE FROM result_labels; DELETE FROM results"
	lab_stop
}

# The lab's methods that only read (sessions and views are the client's own).
READS='^(RetrieveServiceContent|Login|Logout|SessionIsActive|RetrieveProperties|RetrievePropertiesEx|ContinueRetrievePropertiesEx|CancelRetrievePropertiesEx|CreateContainerView|DestroyView|CreatePropertyCollector|DestroyPropertyCollector|CreateFilter|DestroyPropertyFilter|WaitForUpdatesEx|QueryPerfCounter|QueryPerfCounterByLevel|QueryAvailablePerfMetric|QueryPerf|SearchDatastore_Task|SearchDatastoreSubFolders_Task|ValidateCredentialsInGuest|ListProcessesInGuest|QueryOptions)$'

# The methods in the lab's log that are not reads, one a line (none: empty).
not_reads() { awk '{print $2}' "$LAB_LOG" | sort -u | grep -Ev "$READS" || true; }

# Number of SOAP calls of a method (or of all methods) in the lab's log.
calls() {
	if [ $# -eq 0 ]; then
		wc -l < "$LAB_LOG"
	else
		awk -v m="$1" '$2 == m' "$LAB_LOG" | wc -l
	fi
}

# run EXPECTED_EXIT cmd...: runs cmd, keeps stdout in $OUT and stderr in $ERR.
run() {
	local expected=$1
	shift
	local rc=0
	"$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	if [ "$rc" -ne "$expected" ]; then
		echo "stdout: $OUT" >&2
		echo "stderr: $ERR" >&2
		fail "'$*' exited $rc, expected $expected"
	fi
}

assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-values differ}: got '$1', expected '$2'"
}

# The whole string, also one of several lines (grep -F would take any one
# of its lines as a match).
assert_contains() {
	[[ $1 == *"$2"* ]] || fail "${3:-text} does not contain '$2': $1"
}

assert_not_contains() {
	if [[ $1 == *"$2"* ]]; then fail "${3:-text} contains '$2': $1"; fi
}

assert_le() {
	[ "$1" -le "$2" ] || fail "${3:-value} is $1, expected at most $2"
}

assert_ge() {
	[ "$1" -ge "$2" ] || fail "${3:-value} is $1, expected at least $2"
}

# flat TEXT: a wrapped line and the lines indented under it joined to it.
flat() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' <<< "$1"; }
# widest TEXT: the longest line's length (issue 24: output fits 120 columns).
widest() { awk '{ if (length > m) m = length } END { print m + 0 }' <<< "$1"; }

# wait_for_call METHOD: waits (up to a minute) until the lab has been
# called with METHOD.
wait_for_call() {
	local i
	for i in $(seq 1 600); do
		[ "$(calls "$1")" -ge 1 ] && break
		sleep 0.1
	done
}

# interrupt_when_called METHOD cmd...: runs cmd in the background (stdout in
# $OUT, stderr in $ERR afterwards), presses Ctrl-C once the lab has been
# called with METHOD, and keeps cmd's exit status in $RC.
interrupt_when_called() {
	local method=$1 pid
	shift
	"$@" > "$WORK/out" 2> "$WORK/err" &
	pid=$!
	wait_for_call "$method"
	kill -INT "$pid"
	RC=0
	wait "$pid" || RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}

# Whether a fio of this test's lab still runs: other tests may run fio at the
# same time (ctest -j), so look only at processes working inside $WORK.
# The lab's wrapper (labsim -guest-fio-run) is the guest's fio too: between
# its start and its fio's no process is named fio (CI saw that gap).
fio_left() {
	local pid
	for pid in $(pgrep -x fio) $(pgrep -f -- ' -guest-fio-run '); do
		case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in "$WORK"/*) return 0 ;; esac
	done
	return 1
}

# One line of output per line of stderr is the promise: count them.
assert_one_line() {
	[ "$(printf '%s\n' "$1" | grep -c .)" -eq 1 ] || fail "expected one error line, got: $1"
}

# tiny_campaign NAME [KEY=VALUE...]: the [campaign] section of a small
# campaign on fiotest (randread-4k-qd1, one 4 MiB run of 1 s per repetition);
# a KEY given replaces the default (a key may appear once in a campaign file).
tiny_campaign() {
	local name=$1 kv k
	shift
	local -A value=([vm]=fiotest [guest_user]=root [profiles]=randread-4k-qd1 [repeat]=1
		[size]=4M [runtime]=1)
	local order=(vm guest_user profiles repeat size runtime)
	for kv in "$@"; do
		k=${kv%%=*}
		[ -n "${value[$k]+set}" ] || order+=("$k")
		value[$k]=${kv#*=}
	done
	printf '[campaign]\nname = %s\n' "$name"
	for k in "${order[@]}"; do printf '%s = %s\n' "$k" "${value[$k]}"; done
}

# nfs_target NAME DATASTORE PATH NFS [KEY=VALUE...]: a target that mounts
# 10.0.0.5:PATH as DATASTORE over NFS 3 or 4.1.
nfs_target() {
	printf '\n[target %s]\ndatastore = %s\nserver = 10.0.0.5\npath = %s\nnfs = %s\n' "$1" "$2" "$3" "$4"
	shift 4
	local kv
	for kv in "$@"; do printf '%s = %s\n' "${kv%%=*}" "${kv#*=}"; done
}
