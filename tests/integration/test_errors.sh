#!/usr/bin/env bash
# Bad input and bad peers: one clear line and a documented exit code each,
# never a crash or a hang past the timeout.
. "$(dirname "$0")/lib.sh"

run 2 "$NFSAGENT"
run 2 "$NFSAGENT" frobnicate
assert_contains "$ERR" "unknown command 'frobnicate'"
# help's usage error, printed by main.c as a command's end: its line once,
# then the Try line of nfsagent's own help.
run 2 "$NFSAGENT" help frobnicate
assert_eq "$ERR" "nfsagent: unknown command 'frobnicate'
Try 'nfsagent --help'."
run 2 "$NFSAGENT" ls vms --no-such-flag
assert_contains "$ERR" "unknown option '--no-such-flag'"
run 2 "$NFSAGENT" ls vms --timeout
assert_contains "$ERR" "needs a value"
run 2 "$NFSAGENT" ls vms --timeout soon
run 0 "$NFSAGENT" help ls
assert_contains "$OUT" "Usage: nfsagent ls"
run 0 "$NFSAGENT" ls --help
run 0 "$NFSAGENT" help --help
assert_contains "$OUT" "Usage: nfsagent help [COMMAND]"
run 0 "$NFSAGENT" help help
assert_contains "$OUT" "Usage: nfsagent help [COMMAND]"

# Every command's --help ends its text with examples, and each parses: a line
# copied from a help is never a usage error. Nothing listens on port 1, so
# those that connect stop there; the results database does not exist.
examples_of() {
	"$NFSAGENT" "$1" --help | awk '/^Examples:/ {on = 1; next} on && /^$/ {exit} on' |
		sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
}
mkdir "$WORK/ex"
cp -r "$(dirname "$0")/../../examples" "$WORK/ex/"
for c in $("$NFSAGENT" --help | awk '/^  [a-z]/ {print $1}'); do
	examples=$(examples_of "$c")
	[ -n "$examples" ] || fail "nfsagent $c --help shows no example"
	while read -r line; do
		case $line in "nfsagent $c"*) ;; *) fail "an example of $c is not one: $line" ;; esac
		(cd "$WORK/ex" &&
			export NFSAGENT_URL=127.0.0.1:1 NFSAGENT_USERNAME=u NFSAGENT_PASSWORD=p \
				NFSAGENT_GUEST_USER=g NFSAGENT_GUEST_PASSWORD=g &&
			eval "\"\$NFSAGENT\" ${line#nfsagent }") < /dev/null > /dev/null 2> "$WORK/ex.err" || true
		assert_not_contains "$(cat "$WORK/ex.err")" "Try 'nfsagent" "the example '$line': its error"
		assert_not_contains "$(cat "$WORK/ex.err")" "password" "the example '$line': its error"
	done <<< "$examples"
done

# Numbers out of range: the flag and its range, never a wrapped value.
run 2 "$NFSAGENT" ls vms --timeout 99999999999999999999
assert_eq "$ERR" "nfsagent: --timeout wants seconds from 1 to 86400, not '99999999999999999999'
Try 'nfsagent ls --help'."
run 2 "$NFSAGENT" ls vms --timeout 0
assert_eq "$(head -n 1 <<< "$ERR")" "nfsagent: --timeout wants seconds from 1 to 86400, not '0'"
run 2 "$NFSAGENT" ls vms --page-size 4294967297
assert_eq "$(head -n 1 <<< "$ERR")" "nfsagent: --page-size wants a number of objects from 1 to 100000, not '4294967297'"

# A password on the command line is refused; so is a missing one.
run 2 "$NFSAGENT" about --url "user:secret@127.0.0.1"
assert_contains "$ERR" "do not put the password in --url"
# ...also after a user name with an unescaped '@'.
run 2 "$NFSAGENT" about --url "https://administrator@vsphere.local:SECRET@127.0.0.1/sdk"
assert_eq "$ERR" "nfsagent: do not put the password in --url: use NFSAGENT_PASSWORD or --password-file"
# getopt would take --password for an abbreviation of --password-file and
# name the secret as a file; there is no such flag, and the secret is not
# repeated.
for flag in "--password labsim-secret" "--password=labsim-secret" "--pass labsim-secret"; do
	# shellcheck disable=SC2086
	run 2 "$NFSAGENT" about $flag
	assert_eq "$ERR" "nfsagent: there is no --password flag (a command line is visible to other users): use --password-file FILE or set NFSAGENT_PASSWORD
Try 'nfsagent about --help'."
done
run 2 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --guest-password labsim-secret
assert_eq "$(head -n 1 <<< "$ERR")" "nfsagent: there is no --guest-password flag (a command line is visible to other users): use --guest-password-file FILE or set NFSAGENT_GUEST_PASSWORD"
assert_not_contains "$ERR" "labsim-secret"

# Read-only commands never create, convert or change a database.
run 2 "$NFSAGENT" results --db "$WORK/none.db"
assert_eq "$ERR" "nfsagent: open results database failed: there is no results database at $WORK/none.db: 'nfsagent bench' and 'nfsagent run' record results there (or give --db FILE)"
for cmd in "results" "compare --a x=1 --b y=2" "report --html $WORK/r.html" "regress --baseline x=1"; do
	# shellcheck disable=SC2086
	run 2 "$NFSAGENT" $cmd --db "$WORK/none.db"
	assert_one_line "$ERR"
	[ ! -e "$WORK/none.db" ] || fail "$cmd created the database"
done
: > "$WORK/empty.db"
run 2 "$NFSAGENT" results --db "$WORK/empty.db"
assert_eq "$ERR" "nfsagent: open results database failed: $WORK/empty.db is empty: no results are recorded there ('nfsagent bench' and 'nfsagent run' record them)"
assert_eq "$(stat -c %s "$WORK/empty.db")" 0 "size of the empty file"
[ ! -e "$WORK/r.html" ] || fail "report wrote a page without a database"
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
# A user with an unescaped '@' (GOVC_URL may hold the password): the host
# follows the last '@'.
env -u NFSAGENT_URL -u NFSAGENT_USERNAME GOVC_URL="administrator@vsphere.local:x@${LAB_URL#https://}" \
	"$NFSAGENT" about > /dev/null 2> "$WORK/err" && fail "a wrong password accepted"
assert_eq "$(cat "$WORK/err")" "nfsagent: login to 127.0.0.1 as administrator@vsphere.local failed: InvalidLogin: Login failure"

# A VM is named by its name, not its moref, and nothing is recorded.
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
run 2 "$NFSAGENT" bench --vm DC0_H0_VM0 --profile randread-4k-qd1 --size 4M --runtime 1 --db "$WORK/b.db"
assert_eq "$ERR" "nfsagent: preparing DC0_H0_VM0 for benchmarks failed: VMware Tools is not running in DC0_H0_VM0 (guestToolsNotRunning)"
assert_eq "$(sqlite3 "$WORK/b.db" 'SELECT count(*) FROM results')" 0 "results recorded"
assert_eq "$(calls StartProgramInGuest)" 0 "programs started"

# --where: an unknown field names the fields, a value that matches nothing
# says so with the values recorded, protocol aliases select; all on a
# database nobody may write.
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 1 --size 4M --runtime 1 \
	--label recordsize=16K --db "$WORK/b.db"
chmod 444 "$WORK/b.db"
sum=$(md5sum < "$WORK/b.db")
run 0 "$NFSAGENT" results --db "$WORK/b.db" --where protocol=NFS3 --where recordsize=16K --json
assert_eq "$(jq length <<< "$OUT")" 1 "results of protocol=NFS3"
run 2 "$NFSAGENT" results --db "$WORK/b.db" --where protocol=NFSv4.1 --json
assert_eq "$ERR" "nfsagent: no result has protocol=NFSv4.1 (recorded: NFS)"
assert_eq "$OUT" "" "output of a selection that matched nothing"
run 2 "$NFSAGENT" results --db "$WORK/b.db" --where recordsize=64K
assert_eq "$ERR" "nfsagent: no result has recordsize=64K (recorded: 16K)"
run 2 "$NFSAGENT" results --db "$WORK/b.db" --where protcol=NFS
assert_eq "$ERR" "nfsagent: no field or label is called 'protcol': the fields are protocol, id, status, campaign, target, repetition, vcenter, vcenter_version, vcenter_build, host, esxi_version, esxi_build, datastore, datastore_type, servers, export_path, vm, guest_os, disk, profile, fio_version, started_at, finished_at, runner, uuid, link_speed_mbit, link_nic, nfs_client, site, zfs_recordsize, zfs_sync, zfs_compression, zfs_atime, zfs_logbias, zfs_primarycache, zfs_special_small_blocks, zfs_pool_layout, zfs_pool_health; the labels recorded are recordsize"
assert_eq "$(md5sum < "$WORK/b.db")" "$sum" "database after the read-only commands"
assert_eq "$(stat -c %a "$WORK/b.db")" 444 "database mode"
# Damage is reported as damage, with the check to run.
cp "$WORK/b.db" "$WORK/d.db"
chmod 600 "$WORK/d.db"
size=$(stat -c %s "$WORK/d.db")
# A fixed pattern, not random bytes: the same damage, the same answer, every run.
head -c $((size - 300)) /dev/zero | tr '\0' '\377' | dd of="$WORK/d.db" bs=1 seek=200 conv=notrunc 2> /dev/null
run 1 "$NFSAGENT" results --db "$WORK/d.db"
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: open results database failed: $WORK/d.db is damaged (SQLite: "
assert_contains "$ERR" "): check it with sqlite3 $WORK/d.db 'PRAGMA integrity_check', and restore it from a backup"

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
	python3 "$(dirname "$0")/badserver.py" "$WORK/cert.pem" "$WORK/key.pem" "$mode" > "$WORK/port" \
		2> "$WORK/requests" &
	bad=$!
	OTHER_PIDS+=("$bad")
	for i in $(seq 1 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
	export NFSAGENT_URL="127.0.0.1:$(cat "$WORK/port")"
	start=$(date +%s)
	if [ "$mode" = hang ]; then
		run 4 "$NFSAGENT" about --insecure --timeout 2
		assert_contains "$ERR" "timed out"
		# Retries share the call's --timeout: the first try spent it all.
		# (The server's thread may note the request after nfsagent gave up.)
		for i in $(seq 1 600); do [ -s "$WORK/requests" ] && break; sleep 0.1; done
		assert_eq "$(grep -c '^request$' "$WORK/requests")" 1 "requests to a server that never answers"
	elif [ "$mode" = cut ]; then
		run 4 "$NFSAGENT" about --insecure --timeout 5
	else
		run 7 "$NFSAGENT" about --insecure --timeout 5
	fi
	# A hang guard, not a timer: well under the default 60 s a call may
	# take, with room for a loaded machine.
	assert_le $(($(date +%s) - start)) 30 "seconds taken for mode $mode"
	assert_eq "$(grep -v warning <<< "$ERR" | grep -c .)" 1 "error lines for mode $mode"
	kill "$bad"
	wait "$bad" 2> /dev/null || true
	: > "$WORK/port"
done
echo "errors: ok"
