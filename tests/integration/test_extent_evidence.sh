#!/usr/bin/env bash
# The extent-size check as a real ESXi host reports sizes: thin disks report
# their allocation, the browser hides extents, the NFS 4.1 bug is one host's
# view of a file.  Evidence is the length read through the host under test.
. "$(dirname "$0")/lib.sh"

REAL=(-nfs41-bug-view host -thin-sizes allocated -browser-extents hide -locked-extents get
	-suffix-ranges ignore)
mount_as() { # NAME PATH NFS
	"$NFSAGENT" mount --all-hosts --name "$1" --server 10.0.0.5 --path "$2" --nfs "$3" > /dev/null
}
export_of() { echo "$WORK/lab/nfs/10.0.0.5$1"; }

# A healthy thin disk moved onto NFS 3: allocation (0 B: nothing written)
# is far below the declared 16 GiB and the browser lists no extent, yet it
# holds, because the host reads it whole.
lab_start "${REAL[@]}"
mount_as nfs3-64k /mnt/tank/vmware64k 3
run 0 "$NFSAGENT" migrate --vm fiotest --datastore nfs3-64k
searches=$(calls SearchDatastore_Task) tickets=$(calls AcquireGenericServiceTicket)
run 0 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "fiotest: 1 extent checked: all hold what their descriptors declare"
assert_contains "$(flat "$OUT")" "[nfs3-64k] fiotest/fiotest-flat.vmdk: descriptor 17179869184 bytes, read whole through host DC0_H0 (0 B allocated)"
assert_le "$(widest "$OUT")" 120 "verify's widest line"
run 0 "$NFSAGENT" verify --vm fiotest --json
assert_eq "$(jq -r '.extents[0] | [.state, .seen_bytes, .allocated_bytes] | join(" ")' <<< "$OUT")" \
	"holds 17179869184 0" "state, seen and allocated bytes"
assert_eq "$(( $(calls AcquireGenericServiceTicket) - tickets ))" 2 "service tickets for two verifies"
assert_eq "$(( $(calls SearchDatastore_Task) - searches ))" 0 "datastore searches by verify"
# A ticket is a bearer secret: a trace never shows one.
run 0 "$NFSAGENT" verify --vm fiotest --trace "$WORK/trace"
assert_contains "$(cat "$WORK/trace")" "<id>***</id>"
lab_stop

# The per-host bug: the export holds the canary whole, the host that made it
# reads it short.  vCenter picks the creating host (the lab: the first by
# name for the first disk), so the probe reads through every host.
lab_start "${REAL[@]}" -nfs41-bug always
mount_as nfs41-16k /mnt/tank/vmware16k 4.1
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-16k --disks 1 --size 64M --recheck 0 --db "$WORK/r.db"
assert_eq "$(sqlite3 "$WORK/r.db" 'SELECT extent_bug, extent_case FROM findings')" "1|host" "the finding's case"
assert_le "$(widest "$OUT")" 120 "probe's widest line"
assert_contains "$(flat "$OUT")" "NFS 4.1 extent-size mismatch on datastore nfs41-16k (host DC0_C0_H0, ESXi 8.0.3 build 24022510): 1 of 1 canary disks read short by host DC0_C0_H0, right on hosts DC0_C0_H1, DC0_C0_H2, DC0_H0: ESXi's NFS 4.1 view of the files, not the files"
assert_contains "$(flat "$OUT")" "canary-01-flat.vmdk: descriptor declares 67108864 bytes, host DC0_C0_H0 reads 0; right on hosts DC0_C0_H1, DC0_C0_H2, DC0_H0"
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-16k --disks 1 --size 64M --recheck 0 --json
assert_eq "$(jq -r '.checks[0] | [.state, .case, (.short_on | join(",")), (.right_on | length)] | join(" ")' <<< "$OUT")" \
	"short host DC0_C0_H1 3" "the second canary's case and hosts"
assert_eq "$(ls "$(export_of /mnt/tank/vmware16k)")" "" "files left on the export"
# Mounted on one host only: no second host can tell the host's view from
# the file's, and nfsagent does not pretend it can.
"$NFSAGENT" mount --host DC0_H0 --name one41 --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 4.1 > /dev/null
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore one41 --disks 1 --size 64M --recheck 0 --db "$WORK/u.db"
assert_contains "$(flat "$OUT")" "1 of 1 canary disks read short by host DC0_H0; no other host could read them, so whether the files themselves are short stays open"
assert_eq "$(sqlite3 "$WORK/u.db" 'SELECT extent_case FROM findings')" "unconfirmed" "the finding's case"
lab_stop

# The bug that heals (a race): short at first, whole when read again.
lab_start "${REAL[@]}" -nfs41-bug always -nfs41-bug-heal 4
mount_as nfs41-16k /mnt/tank/vmware16k 4.1
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-16k --disks 2 --size 64M --recheck 6 --db "$WORK/t.db"
assert_eq "$(sqlite3 "$WORK/t.db" 'SELECT extent_bug, extent_case FROM findings')" "1|transient" "the finding's case"
assert_contains "$(flat "$OUT")" "2 of 2 canary disks read short by hosts DC0_C0_H0, DC0_C0_H1 at first, whole 6 s later: transient"
assert_contains "$(flat "$OUT")" "read short at first by host DC0_C0_H0 (transient)"
lab_stop

# The legacy lab: the file on the export itself is short, so every host
# reads it short and nfsagent says so.
lab_start -nfs41-bug-view export -nfs41-bug always
mount_as nfs41-16k /mnt/tank/vmware16k 4.1
run 3 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-16k --disks 1 --size 64M --recheck 0 --db "$WORK/e.db"
assert_eq "$(sqlite3 "$WORK/e.db" 'SELECT extent_case FROM findings')" "export" "the finding's case"
assert_contains "$(flat "$OUT")" "1 of 1 canary disks read short by every host that could read them (DC0_C0_H0, DC0_C0_H1, DC0_C0_H2, DC0_H0): the files on the export are short"
lab_stop

# An extent no host can read (a running VM's, where HEAD is refused too):
# no verdict either way, exit 8, and nothing recorded as a finding.
lab_start "${REAL[@]}" -locked-extents all
run 8 "$NFSAGENT" verify --vm fiotest
assert_contains "$OUT" "fiotest: 1 extent checked: could not check 1: nothing short seen, but no verdict either"
assert_contains "$OUT" "UNKNOWN   [truenas-vmware] fiotest/fiotest-flat.vmdk: could not check:"
assert_contains "$(flat "$OUT")" "Device or resource busy"
assert_not_contains "$OUT" "MISMATCH"
run 8 "$NFSAGENT" verify --vm fiotest --json
assert_eq "$(jq -r '[.checked, .mismatch, .extents[0].state] | join(" ")' <<< "$OUT")" "false false unknown" "JSON"
# A move that works but cannot be verified is said to be so, and the next
# VM still moves.
mount_as nfs3-64k /mnt/tank/vmware64k 3
run 8 "$NFSAGENT" migrate --vm fiotest --vm db01 --datastore nfs3-64k
grep -qE "^fiotest +DC0_H0 .* moved, could not verify \(an extent's length could not be read\)$" <<< "$OUT" ||
	fail "fiotest's row: $OUT"
assert_eq "$(calls RelocateVM_Task)" 2 "relocations"
lab_stop

# A failed move's diagnosis reads the tail of a 5 MB vmware.log from a
# server that ignores suffix ranges: HEAD for the length, then bytes=N-.
lab_start "${REAL[@]}" -nfs41-bug always
mount_as nfs41-16k /mnt/tank/vmware16k 4.1
log="$(export_of /mnt/tank/vmware)/fiotest/vmware.log"
{ awk 'BEGIN { for (i = 0; i < 70000; i++) print "2020-01-01T00:00:00.000Z In(05) vmx - an old line of a long vmware.log" }'; cat "$log"; } > "$WORK/log"
cp "$WORK/log" "$log"
run 3 "$NFSAGENT" migrate --vm fiotest --datastore nfs41-16k
assert_contains "$OUT" "realSize is 0, size in descriptor"
assert_contains "$(flat "$OUT")" "target: [nfs41-16k] fiotest/fiotest-flat.vmdk reads as 0 bytes through host DC0_H0 but whole through DC0_C0_H0, DC0_C0_H1, DC0_C0_H2"
lab_stop

# 30% of the calls answered HTTP 503: verify and probe finish all the same
# (reads are retried, and a 503 means the method did not run).
lab_start "${REAL[@]}" -fail-503 0.3 -fail-503-after 2 -seed 3
# A mount is not repeated after a 503 (it may have run), but the command
# mounts only where missing: running it again is how it is retried.
for i in $(seq 1 10); do mount_as nfs41-16k /mnt/tank/vmware16k 4.1 2> /dev/null && break; done
for i in 1 2 3; do
	run 0 "$NFSAGENT" verify --vm fiotest
	run 0 "$NFSAGENT" probe --host DC0_H0 --datastore nfs41-16k --disks 2 --size 64M
done
assert_ge "$(awk '$3 == 503' "$LAB_LOG" | wc -l)" 10 "503 replies sent"
assert_eq "$(ls "$(export_of /mnt/tank/vmware16k)")" "" "files left on the export"
echo "extent evidence: ok"
