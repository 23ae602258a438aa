#!/usr/bin/env bash
# Bad input is refused before anything is touched (issue 10): campaign files
# (lines of any length, sections and keys given twice, what is not a regular
# file), labels (a key given twice, control characters, not UTF-8), --dir and
# the INI's dir (fio's job syntax), job files (too large, a NUL byte, not a
# regular file) and a second --vm, vms = with an empty entry, a central
# URL libpq would refuse only when it connects.  Each refusal is one line (a
# usage error adds its "Try" line), exit 2, no SOAP call and no database; a
# name that matches nothing costs reads of the inventory, and makes no
# database either (issue 36).  A target's label overrides the campaign's; a
# job file is recorded as a profile of its own name and content.
. "$(dirname "$0")/lib.sh"
lab_start
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
db="$WORK/results.db"
c="$WORK/c.ini"

# refused EXPECTED_LINE cmd...: exit 2, that first line, nothing touched.
refused() {
	local before
	before=$(calls)
	refused_line "$@"
	assert_eq "$(calls)" "$before" "SOAP calls of '${*:2}'"
}

# looked_up EXPECTED_LINE cmd...: as refused, for what only the inventory
# tells (a name that matches nothing): the lab sees reads only.
looked_up() {
	: > "$LAB_LOG"
	refused_line "$@"
	assert_eq "$(not_reads)" "" "calls other than reads in '${*:2}'"
}

# refused_line EXPECTED_LINE cmd...: exit 2, that first line (a usage
# error adds its "Try" line), nothing on stdout, no database.
refused_line() {
	local expected=$1
	shift
	run 2 "$@"
	assert_eq "$(head -n 1 <<< "$ERR")" "$expected" "message of '$*'"
	if [ "$(wc -l <<< "$ERR")" -gt 1 ]; then
		assert_eq "$(sed -n 2p <<< "$ERR")" "Try 'nfsagent $2 --help'." "second line"
		assert_eq "$(wc -l <<< "$ERR")" 2 "lines"
	fi
	assert_eq "$OUT" "" "stdout of '$*'"
	[ ! -e "$db" ] || fail "'$*' made the database"
}

# A campaign file: [campaign] lines ($1), then target a ($2).
campaign() {
	{
		printf '[campaign]\nname = bad\nvm = fiotest\nprofiles = randread-4k-qd1\n%b' "$1"
		printf '\n[target a]\ndatastore = truenas-vmware\n%b' "${2:-}"
	} > "$c"
}
long=$(printf 'x%.0s' $(seq 1 300))

# ---- campaign files ----
# A 300-character comment is one line: its tail is no key, and line 6 is line 6.
campaign "; $long bogus = 1\nrepeat = 0\n"
refused "nfsagent: $c:6: repeat wants a whole number from 1 to 64, not '0'" \
	"$NFSAGENT" run --dry-run "$c" --db "$db"
# A long labels line: its own error, and the next line's, at the right line.
labels=$(for i in $(seq 1 15); do printf 'key%02d=%s, ' "$i" "${long:0:20}"; done)
campaign "labels = ${labels}key01=again\n"
refused "nfsagent: $c:5: label key01 is given twice: give each key once" "$NFSAGENT" run "$c"
campaign "labels = ${labels%, }\nrepeat = x\n"
refused "nfsagent: $c:6: repeat wants a whole number from 1 to 64, not 'x'" "$NFSAGENT" run "$c"
campaign "repeat = 2\n[target b]\ndatastore = nfs41-ds\n[campaign]\nruntime = 5\n"
refused "nfsagent: $c:8: duplicate [campaign] (the first is at line 1): give each section once" \
	"$NFSAGENT" run "$c"
campaign "repeat = 2\nruntime = 5\nrepeat = 3\n"
refused "nfsagent: $c:7: repeat is set again in [campaign] (first at line 5): give each key once" \
	"$NFSAGENT" run "$c"
campaign "" "[target b]\ndatastore = nfs41-ds\n[target a]\nprobe = no\n"
refused "nfsagent: $c:10: duplicate [target a] (the first is at line 6): give each section once" \
	"$NFSAGENT" run "$c"
refused "nfsagent: cannot read campaign file $WORK/none.ini: No such file or directory" \
	"$NFSAGENT" run "$WORK/none.ini"
refused "nfsagent: /dev/zero is a character device, not a campaign file" "$NFSAGENT" run /dev/zero
mkdir "$WORK/dir.ini"
refused "nfsagent: $WORK/dir.ini is a directory, not a campaign file" "$NFSAGENT" run "$WORK/dir.ini"
mkfifo "$WORK/fifo.ini"
refused "nfsagent: $WORK/fifo.ini is a FIFO, not a campaign file" "$NFSAGENT" run "$WORK/fifo.ini"
campaign "repeat = 2\n" "probe = no\x00\n"
refused "nfsagent: $c:9: a NUL byte: not a text campaign file" "$NFSAGENT" run "$c"
# vms =: an empty entry is a name left out; a NUL byte would end the line
# (and the group) at fleet-01.
vms() {
	printf '[campaign]\nname = bad\nvms = %b\nprofiles = randread-4k-qd1\n[target a]\ndatastore = x\n' "$1" > "$c"
}
for v in 'fleet-01,,fleet-02' 'fleet-01, ' ', fleet-01'; do
	vms "$v"
	refused "nfsagent: $c:3: vms wants VM names or globs separated by commas: one is empty" \
		"$NFSAGENT" run "$c" --db "$db"
done
vms 'fleet-01\x00, fleet-02'
refused "nfsagent: $c:3: a NUL byte: not a text campaign file" "$NFSAGENT" run "$c" --db "$db"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ';' > "$WORK/big.ini"
refused "nfsagent: $WORK/big.ini is larger than 1 MiB: too large for a campaign file" \
	"$NFSAGENT" run "$WORK/big.ini"

# ---- numbers: overflow and bounds ----
campaign "repeat = 99999999999999999999\n"
refused "nfsagent: $c:5: repeat wants a whole number from 1 to 64, not '99999999999999999999'" \
	"$NFSAGENT" run --dry-run "$c"
campaign "runtime = 9223372036854775807\n"
refused "nfsagent: $c:5: runtime wants a whole number from 1 to 86400, not '9223372036854775807'" \
	"$NFSAGENT" run "$c"
campaign "ramp = +5\n"
refused "nfsagent: $c:5: ramp wants a whole number from 0 to 86400, not '+5'" "$NFSAGENT" run "$c"
campaign "probe_disks = 4294967297\n"
refused "nfsagent: $c:5: probe_disks wants a whole number from 1 to 100, not '4294967297'" \
	"$NFSAGENT" run "$c"
nb=("$NFSAGENT" bench --vm fiotest --db "$db" --profile randread-4k-qd1)
refused "nfsagent: --runtime wants a whole number from 1 to 86400, not '9223372036854775807'" \
	"${nb[@]}" --runtime 9223372036854775807
refused "nfsagent: --ramp wants a whole number from 0 to 86400, not '-1'" "${nb[@]}" --ramp -1
refused "nfsagent: --repeat wants a whole number from 1 to 64, not '99999999999999999999'" \
	"${nb[@]}" --repeat 99999999999999999999
refused "nfsagent: --repeat wants a whole number from 1 to 64, not ' 3'" "${nb[@]}" --repeat ' 3'
refused "nfsagent: --disks is a number from 1 to 100, not '4294967297'" \
	"$NFSAGENT" probe --host esx1 --datastore truenas-vmware --disks 4294967297

# ---- sizes: what fio would read otherwise (1.5M is 1 byte to it) ----
campaign "size = 0x10M\n"
refused "nfsagent: $c:5: size wants a size as fio reads it, a whole number with K, M, G, T or P (8G, 512M), not '0x10M'" \
	"$NFSAGENT" run --dry-run "$c"
campaign "probe_size = 1e3M\n"
refused "nfsagent: $c:5: probe_size wants a size as fio reads it, a whole number with K, M, G, T or P (8G, 512M), not '1e3M'" \
	"$NFSAGENT" run "$c"
refused "nfsagent: --size wants a size like 8G, not '1.5M'" "${nb[@]}" --size 1.5M
refused "nfsagent: --size wants a size like 8G, not ' 16M'" "${nb[@]}" --size ' 16M'
refused "nfsagent: --size wants a size of 1M or more, like 1G, not '16Mx'" \
	"$NFSAGENT" probe --host esx1 --datastore truenas-vmware --size 16Mx

# ---- labels and dir in campaign files ----
campaign "labels = k=1, pool=tank, k=2\n"
refused "nfsagent: $c:5: label k is given twice: give each key once" "$NFSAGENT" run --dry-run "$c"
campaign "labels = k=a\x01b\n"
refused "nfsagent: $c:5: label k: its value has a control character or is not UTF-8 (byte 0x01)" \
	"$NFSAGENT" run "$c"
campaign "labels = k\xff=1\n"
refused "nfsagent: $c:5: a label key has a control character or is not UTF-8 (byte 0xff)" \
	"$NFSAGENT" run "$c"
# Names make run ids and journal steps: long ones would be cut and collide.
campaign "\n[target ${long:0:41}]\ndatastore = truenas-vmware\n"
refused "nfsagent: $c:6: a target's name is at most 40 characters" "$NFSAGENT" run "$c"
campaign "\n[target ${long:0:100}]\ndatastore = truenas-vmware\n"
refused "nfsagent: $c:6: a target's name is at most 40 characters" "$NFSAGENT" run "$c"
# ':' parts the journal's steps, ',' a selector's conditions.
campaign "\n[target a:b]\ndatastore = truenas-vmware\n"
refused "nfsagent: $c:6: a target's name has no ':' nor ','" "$NFSAGENT" run "$c"
printf '[campaign]\nname = %s\nvm = fiotest\nprofiles = randread-4k-qd1\n[target a]\ndatastore = x\n' \
	"${long:0:65}" > "$c"
refused "nfsagent: $c:2: name is at most 64 characters: it names the run and its journal" "$NFSAGENT" run "$c"
campaign "labels = protocol=NFS3\n"
refused "nfsagent: $c:5: label key protocol is a result field, which --where would select instead: name the label otherwise" \
	"$NFSAGENT" run "$c"
campaign "" "labels = pool\n"
refused "nfsagent: $c:8: 'pool' is not a label: give KEY=VALUE, such as recordsize=16K" \
	"$NFSAGENT" run "$c"
campaign "dir = /var/tmp:/root\n"
refused "nfsagent: $c:5: dir has ':', which fio's job files give a meaning: choose a folder without it" \
	"$NFSAGENT" run "$c"
campaign 'dir = /var/${HOME}\n'
refused "nfsagent: $c:5: dir has '\$', which fio's job files give a meaning: choose a folder without it" \
	"$NFSAGENT" run "$c"
campaign "dir = var/tmp\n"
refused "nfsagent: $c:5: dir must be an absolute path, such as /var/tmp" "$NFSAGENT" run "$c"

# ---- bench: labels, --dir, --vm, job files ----
b=("$NFSAGENT" bench --vm fiotest --db "$db")
refused "nfsagent: --label: label k is given twice: give each key once" \
	"${b[@]}" --profile randread-4k-qd1 --label k=1 --label k=2
refused "nfsagent: --label: label k: its value has a control character or is not UTF-8 (byte 0x0a)" \
	"${b[@]}" --profile randread-4k-qd1 --label $'k=1\nx'
refused "nfsagent: --label: label k: its value has a control character or is not UTF-8 (byte 0xc3)" \
	"${b[@]}" --profile randread-4k-qd1 --label $'k=\xc3('
refused "nfsagent: --dir has a control character (0x0a): remove it" \
	"${b[@]}" --profile randread-4k-qd1 --dir $'/var/tmp\nexec_prerun=touch /tmp/x'
refused "nfsagent: --dir has ';', which fio's job files give a meaning: choose a folder without it" \
	"${b[@]}" --profile randread-4k-qd1 --dir '/var/tmp;x'
refused "nfsagent: --dir must be an absolute path, such as /var/tmp" \
	"${b[@]}" --profile randread-4k-qd1 --dir var/tmp
refused "nfsagent: --vm fiotest is named twice" \
	"${b[@]}" --vm db01 --vm fiotest --profile randread-4k-qd1
refused "nfsagent: $WORK is a directory, not a job file" "${b[@]}" --job "$WORK"
refused "nfsagent: /dev/zero is a character device, not a job file" "${b[@]}" --job /dev/zero
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' > "$WORK/big.fio"
refused "nfsagent: $WORK/big.fio is larger than 1 MiB: too large for a job file" \
	"${b[@]}" --job "$WORK/big.fio"
printf '[a]\nrw=read\n\0[b]\nrw=write\n' > "$WORK/nul.fio"
refused "nfsagent: $WORK/nul.fio:3: a NUL byte: not a text job file" "${b[@]}" --job "$WORK/nul.fio"
: > "$WORK/empty.fio"
refused "nfsagent: job file $WORK/empty.fio is empty" "${b[@]}" --job "$WORK/empty.fio"

# ---- names: no control characters to vCenter, none raw to the terminal ----
printf '[campaign]\nname = bad\nvm = fio\033[31mtest\nprofiles = randread-4k-qd1\n[target a]\ndatastore = x\n' > "$c"
refused "nfsagent: $c:3: vm has a control character or is not UTF-8 (byte 0x1b): names have none" \
	"$NFSAGENT" run --dry-run "$c"
campaign "" "server = 10.0.0.5\x07\n"
refused "nfsagent: $c:8: server has a control character or is not UTF-8 (byte 0x07): names have none" \
	"$NFSAGENT" run "$c"
campaign "" "path = /mnt/tank/a\rb\n"
refused "nfsagent: $c:8: path has a control character or is not UTF-8 (byte 0x0d): names have none" \
	"$NFSAGENT" run "$c"
printf '[campaign]\nname = bad\nvm = fiotest\nprofiles = randread-4k-qd1\n[target a]\ndatastore = nfs\302\233x\n' > "$c"
refused "nfsagent: $c:6: datastore has a control character or is not UTF-8 (byte 0xc2): names have none" \
	"$NFSAGENT" run "$c"
refused "nfsagent: --vm has a control character or is not UTF-8 (byte 0x1b): names have none" \
	"$NFSAGENT" bench --vm $'fio\e[31mtest' --profile randread-4k-qd1 --db "$db"
refused "nfsagent: --name has a control character or is not UTF-8 (byte 0x0a): names have none" \
	"$NFSAGENT" mount --name $'nfs\nx' --server 10.0.0.5 --path /mnt/tank/vmware
refused "nfsagent: --name has a control character or is not UTF-8 (byte 0x7f): names have none" \
	"$NFSAGENT" unmount --name $'nfs\x7fx'
refused "nfsagent: --host has a control character or is not UTF-8 (byte 0x09): names have none" \
	"$NFSAGENT" probe --host $'esx\t1' --datastore truenas-vmware
# What is printed shows a control character, never sends it.
refused 'nfsagent: cannot read job file /tmp/x\x1b[2Jy\xc2\x9b2J: No such file or directory' \
	"${b[@]}" --job $'/tmp/x\e[2Jy\xc2\x9b2J'

# ---- the central database's URL: a value libpq refuses only when it
# connects is bad input, not "cannot reach" (exit 4) with results waiting ----
sslmode="nfsagent: the central database's URL gives sslmode a value libpq does not know: give one of \
disable, allow, prefer, require, verify-ca, verify-full"
bogus='postgresql://ci@127.0.0.1:1/r?sslmode=bogus'
refused "$sslmode" "$NFSAGENT" push --db "$db" --central "$bogus"
refused "$sslmode" "${nb[@]}" --central "$bogus"
NFSAGENT_CENTRAL=$bogus refused "$sslmode" "${nb[@]}"
campaign "repeat = 1\n"
refused "$sslmode" "$NFSAGENT" run "$c" --db "$db" --central "$bogus"
NFSAGENT_CENTRAL=$bogus refused "$sslmode" "$NFSAGENT" run "$c" --db "$db"
campaign "central = $bogus\n"
refused "nfsagent: $c:5: central: ${sslmode#nfsagent: }" "$NFSAGENT" run "$c" --db "$db"

# ---- names that match nothing: known only from the inventory, still
# before the results database is made ----
looked_up "nfsagent: --vms 'x*' matches no VM" \
	"$NFSAGENT" bench --vms 'x*' --profile randread-4k-qd1 --db "$db"
looked_up "nfsagent: no VM is named 'nosuch'" \
	"$NFSAGENT" bench --vm nosuch --profile randread-4k-qd1 --db "$db"
looked_up "nfsagent: no VM is named 'nosuch'" "${nb[@]}" --vm nosuch
printf '[campaign]\nname = bad\nvm = nosuch\nprofiles = randread-4k-qd1\n[target a]\ndatastore = x\n' > "$c"
looked_up "nfsagent: no VM is named 'nosuch'" "$NFSAGENT" run "$c" --db "$db"
looked_up "nfsagent: no VM is named 'nosuch'" "$NFSAGENT" run --dry-run "$c" --db "$db"
campaign "" "[target b]\ndatastore = nosuch\n"
looked_up "nfsagent: target b: no datastore is named 'nosuch' and the target names no export to mount" \
	"$NFSAGENT" run "$c" --db "$db"
# The default database too: the refusals above without --db made none.
[ ! -e "$XDG_DATA_HOME/nfsagent/results.db" ] || fail "a refusal made the default database"


# ---- credentials in the URL: a password may hold a '/' ----
refused "nfsagent: do not put the password in --url: use NFSAGENT_PASSWORD or --password-file" \
	"$NFSAGENT" about --url "https://root:pa/ss@127.0.0.1/sdk"
refused "nfsagent: do not put the password in --url: use NFSAGENT_PASSWORD or --password-file" \
	"$NFSAGENT" about --url "root:pa/ss@127.0.0.1"
# From GOVC_URL it is the password: the login is tried as user, on the lab.
env -u NFSAGENT_URL -u NFSAGENT_USERNAME -u NFSAGENT_PASSWORD GOVC_URL="user:pa/ss@${LAB_URL#https://}" \
	"$NFSAGENT" about > /dev/null 2> "$WORK/err" && fail "a wrong password accepted"
assert_eq "$(cat "$WORK/err")" "nfsagent: login to 127.0.0.1 as user failed: InvalidLogin: Login failure" \
	"GOVC_URL with a '/' in the password"
assert_ge "$(calls Login)" 1 "the login tried"

# ---- what is accepted ----
# Job files: each its own profile, named after the file and its content.
job='[j]\nrw=read\nbs=4k\nsize=1M\nioengine=psync\ndirectory=/var/tmp\n'
printf "$job" > "$WORK/seq.fio"
printf "${job/bs=4k/bs=8k}" > "$WORK/other.fio"
run 0 "$NFSAGENT" bench --vm fiotest --job "$WORK/seq.fio" --repeat 1 --db "$db"
run 0 "$NFSAGENT" bench --vm fiotest --job "$WORK/other.fio" --repeat 1 --db "$db"
mv "$WORK/other.fio" "$WORK/seq.fio"
run 0 "$NFSAGENT" bench --vm fiotest --job "$WORK/seq.fio" --repeat 1 --db "$db"
profiles=$(sqlite3 "$db" "SELECT profile FROM results ORDER BY id")
assert_eq "$(wc -l <<< "$profiles")" 3 "job results"
assert_eq "$(grep -c '^seq-[0-9a-f]\{12\}$' <<< "$profiles")" 2 "profiles named after seq.fio"
assert_eq "$(grep -c '^other-[0-9a-f]\{12\}$' <<< "$profiles")" 1 "profile named after other.fio"
hash() { sed -n "$1p" <<< "$profiles" | cut -d- -f2; }
assert_eq "$(hash 3)" "$(hash 2)" "the hash of the same content under two names"
[ "$(hash 1)" != "$(hash 3)" ] || fail "seq.fio's two contents have one hash: $profiles"
# A target's label overrides the campaign's; the campaign's other labels stay.
campaign "repeat = 1\nsize = 4M\nruntime = 1\nlabels = pool=tank, recordsize=64K\n" "labels = pool=other\n"
run 0 "$NFSAGENT" run "$c" --db "$db"
assert_eq "$(sqlite3 "$db" "SELECT group_concat(key || '=' || value, ',') FROM (SELECT key, value FROM result_labels
	JOIN results ON results.id = result_id WHERE campaign LIKE 'bad-%' ORDER BY key)")" "pool=other,recordsize=64K" \
	"the campaign's result's labels"
echo "bad_input: ok"
