#!/usr/bin/env bash
# Bad input and bad peers: one clear line and a documented exit code each,
# never a crash or a hang past the timeout.
. "$(dirname "$0")/lib.sh"

run 2 "$NFSAGENT"
run 2 "$NFSAGENT" frobnicate
assert_contains "$ERR" "unknown command 'frobnicate'"
run 2 "$NFSAGENT" ls vms --no-such-flag
assert_contains "$ERR" "unknown option '--no-such-flag'"
run 2 "$NFSAGENT" ls vms --timeout
assert_contains "$ERR" "needs a value"
run 2 "$NFSAGENT" ls vms --timeout soon
run 0 "$NFSAGENT" help ls
assert_contains "$OUT" "Usage: nfsagent ls"
run 0 "$NFSAGENT" ls --help

# A password on the command line is refused; so is a missing one.
run 2 "$NFSAGENT" about --url "user:secret@127.0.0.1"
assert_contains "$ERR" "do not put the password in --url"
env -u NFSAGENT_PASSWORD -u GOVC_PASSWORD NFSAGENT_URL=127.0.0.1 NFSAGENT_USERNAME=u \
	setsid -w "$NFSAGENT" about < /dev/null > "$WORK/out" 2> "$WORK/err" && fail "no password accepted"
assert_contains "$(cat "$WORK/err")" "no password"

lab_start
# Wrong credentials.
NFSAGENT_PASSWORD=wrong run 6 "$NFSAGENT" about
assert_one_line "$ERR"
assert_contains "$ERR" "login to 127.0.0.1 as user failed: InvalidLogin"
# The password may come from a file.
printf 'pass\n' > "$WORK/pw"
chmod 600 "$WORK/pw"
env -u NFSAGENT_PASSWORD "$NFSAGENT" about --password-file "$WORK/pw" > /dev/null ||
	fail "--password-file"
# GOVC_* variables are read when ours are unset (govc users need nothing new).
env -u NFSAGENT_URL -u NFSAGENT_USERNAME -u NFSAGENT_PASSWORD GOVC_URL="user:pass@${LAB_URL#https://}" \
	"$NFSAGENT" about > /dev/null || fail "GOVC_URL with credentials"
port=${LAB_URL#https://127.0.0.1:}
port=${port%%/*}
lab_stop

# Nobody listening.
run 4 "$NFSAGENT" about
assert_one_line "$ERR"
assert_contains "$ERR" "connect to 127.0.0.1 failed"

# Servers that answer with something other than SOAP (self-signed, not pinned).
unset NFSAGENT_THUMBPRINT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2> /dev/null
for mode in html notsoap truncated cut hang; do
	python3 "$(dirname "$0")/badserver.py" "$WORK/cert.pem" "$WORK/key.pem" "$mode" > "$WORK/port" &
	bad=$!
	OTHER_PIDS+=("$bad")
	for i in $(seq 1 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
	export NFSAGENT_URL="127.0.0.1:$(cat "$WORK/port")"
	start=$(date +%s)
	if [ "$mode" = hang ]; then
		run 4 "$NFSAGENT" about --insecure --timeout 2
		assert_contains "$ERR" "timed out"
	elif [ "$mode" = cut ]; then
		run 4 "$NFSAGENT" about --insecure --timeout 5
	else
		run 7 "$NFSAGENT" about --insecure --timeout 5
	fi
	assert_le $(($(date +%s) - start)) 8 "seconds taken for mode $mode"
	assert_eq "$(grep -v warning <<< "$ERR" | grep -c .)" 1 "error lines for mode $mode"
	kill "$bad"
	wait "$bad" 2> /dev/null || true
	: > "$WORK/port"
done
echo "errors: ok"
