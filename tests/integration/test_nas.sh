#!/usr/bin/env bash
# nas: the dataset behind a datastore and its pool, read from the lab's NAS
# over a real sshd (tests/sim/nas_sshd.sh); every way of not reaching it
# gives one line and its exit code, and no password is ever asked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../sim/nas_sshd.sh"
lab_start -hosts 2 -vms 2 -nas-slog -nas-special
nas_start
NAS="ssh -F $NAS_SSH_CONFIG nas"

run 0 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_eq "$OUT" "Datastore:            truenas-vmware
Export:               10.0.0.5:/mnt/tank/vmware
Dataset:              tank/vmware (mountpoint /mnt/tank/vmware)
recordsize:           131072 (128.0 KiB)
sync:                 standard
compression:          lz4
atime:                off
logbias:              latency
primarycache:         all
special_small_blocks: 0
Pool:                 tank, ONLINE, 7.7 TiB, 1.0 TiB allocated
Layout:               2 mirror + special mirror + log
data:                 2: mirror-0 (mirror, 2 disks), mirror-1 (mirror, 2 disks)
special:              1: mirror-2 (mirror, 2 disks)
log:                  1: nvme2n1 (disk, 1 disk)
cache:                none" "nas output"
assert_eq "$ERR" "" "stderr"

run 0 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware --json
assert_eq "$(jq -c '[.dataset, .mountpoint, .settings.recordsize, .settings.sync]' <<< "$OUT")" \
	'["tank/vmware","/mnt/tank/vmware",131072,"standard"]' "dataset in JSON"
assert_eq "$(jq -c '.pool | [.name, .health, .activity, .layout, .data_vdevs, .log, .special, .cache, (.vdevs | length)]' <<< "$OUT")" \
	'["tank","ONLINE","","2 mirror + special mirror + log",2,true,true,false,4]' "layout in JSON"
assert_eq "$(jq -c '[.pool.vdevs[] | [.name, .class, .disks]]' <<< "$OUT")" \
	'[["mirror-0","data",2],["mirror-1","data",2],["mirror-2","special",2],["nvme2n1","logs",1]]' \
	"vdevs in JSON"

# The sampler bench is to run around fio, over the same sshd: the lab's
# zpool iostat and kstats read whole (the lab's counters do not move yet).
out=$("$NAS_SAMPLE" "$NAS" /mnt/tank/vmware 1 3)
field() { awk -v k="$1" '$1 == k { print $2 }' <<< "$out"; }
assert_eq "$(field ready)" 1 "the first reading came over the parked sessions ($out)"
assert_eq "$(field incomplete)" 0 "sampler incomplete ($out)"
assert_ge "$(field intervals)" 2 "iostat intervals in 3 s"
assert_eq "$(field counters)" 1 "kstats before and after"
assert_eq "$(field arc_c_max)" 8589934592 "the lab ARC's c_max (-nas-arc default)"
assert_eq "$(field dataset_written)" 0 "the dataset's bytes written (static model)"
# iostat failing during the window: the window is incomplete, with why.
nas_model '.failing = ["zpool iostat"]'
out=$("$NAS_SAMPLE" "$NAS" /mnt/tank/vmware 1 2)
assert_eq "$(field incomplete)" 1 "a failed iostat"
assert_contains "$out" "why running 'zpool iostat -T u -Hpvy -l tank 1 4' on $NAS failed: zpool exited 1: cannot open 'tank': pool I/O is currently suspended"
assert_eq "$(field counters)" 1 "the kstats are kept"
nas_model '.failing = []'

# A datastore on another export: the dataset is found by its mountpoint.
run 0 "$NFSAGENT" mount --all-hosts --name ds64k --server 10.0.0.5 --path /mnt/tank/vmware64k --nfs 3
run 0 "$NFSAGENT" nas --nas-command "$NAS" --datastore ds64k --json
assert_eq "$(jq -r '.dataset, .settings.recordsize' <<< "$OUT" | tr '\n' ' ')" "tank/vmware64k 65536 " \
	"the 64K dataset"

changes() { awk '$2 ~ /_Task$|CreateNasDatastore|RemoveDatastore/' "$LAB_LOG" | wc -l; }
mounted=$(changes)

# ---- Not reached: one line, its exit code ----
run 6 "$NFSAGENT" nas --nas-command "ssh -F $NAS_SSH_CONFIG nas-badkey" --datastore truenas-vmware
assert_one_line "$ERR"
assert_eq "$ERR" "nfsagent: reaching the NAS failed: ssh -F $NAS_SSH_CONFIG nas-badkey refused the key (no password is ever asked): $(id -un)@127.0.0.1: Permission denied (publickey,password)." "key refused"
assert_eq "$OUT" "" "stdout of a refused key"
run 5 "$NFSAGENT" nas --nas-command "ssh -F $NAS_SSH_CONFIG nas-hostkey" --datastore truenas-vmware
assert_one_line "$ERR"
assert_eq "$ERR" "nfsagent: reaching the NAS failed: the host key of ssh -F $NAS_SSH_CONFIG nas-hostkey was refused: it is not the one known_hosts holds" "host key mismatch"
run 4 "$NFSAGENT" nas --nas-command "ssh -F $NAS_SSH_CONFIG nas-down" --datastore truenas-vmware
assert_one_line "$ERR"
assert_contains "$ERR" "nfsagent: reaching the NAS failed: ssh -F $NAS_SSH_CONFIG nas-down is unreachable: ssh: connect to host 127.0.0.1 port "
assert_contains "$ERR" ": Connection refused"

# No password prompt, ever: the server offers password authentication, and
# ssh would run SSH_ASKPASS for it (shown first with plain ssh, so that this
# check can fail); nfsagent's BatchMode=yes comes before the user's own -o.
cat > "$WORK/askpass" <<EOF
#!/bin/sh
echo asked >> "$WORK/asked"
echo wrong
EOF
chmod +x "$WORK/askpass"
export SSH_ASKPASS="$WORK/askpass" SSH_ASKPASS_REQUIRE=force DISPLAY=:0
ssh -F "$NAS_SSH_CONFIG" -o NumberOfPasswordPrompts=1 nas-badkey -- uname -s < /dev/null > /dev/null 2>&1 || true
[ -s "$WORK/asked" ] || fail "plain ssh did not ask for a password: the check below proves nothing"
rm -f "$WORK/asked"
run 6 "$NFSAGENT" nas --nas-command "ssh -F $NAS_SSH_CONFIG -o BatchMode=no nas-badkey" \
	--datastore truenas-vmware
[ ! -e "$WORK/asked" ] || fail "nfsagent let ssh ask for a password"
unset SSH_ASKPASS SSH_ASKPASS_REQUIRE DISPLAY

# ---- Reached, but not a NAS nfsagent can read ----
nas_model '.uname = "FreeBSD"'
run 1 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_eq "$ERR" "nfsagent: checking the NAS failed: $NAS runs FreeBSD (TrueNAS CORE): not supported yet, only Linux OpenZFS" "FreeBSD"
nas_model '.uname = "Linux" | .missing = ["zpool"]'
run 1 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_eq "$ERR" "nfsagent: running 'zpool list -Hpv tank' on $NAS failed: zpool is missing on $NAS (Linux OpenZFS is needed)" "zpool missing"
nas_model '.missing = [] | .datasets |= map(.mountpoint |= sub("^/mnt/"; "/pool/"))'
run 2 "$NFSAGENT" nas --nas-command "$NAS" --datastore truenas-vmware
assert_eq "$ERR" "nfsagent: finding the dataset behind /mnt/tank/vmware failed: no dataset of $NAS is mounted at /mnt/tank/vmware or above it" "no dataset"

# ---- Bad input, refused before anything is reached ----
run 2 "$NFSAGENT" nas --nas-command "$NAS" --datastore LocalDS_0
assert_eq "$ERR" "nfsagent: datastore LocalDS_0 is OTHER, not NFS: no NAS behind it" "not NFS"
run 2 "$NFSAGENT" nas --nas-command "$NAS" --datastore nope
assert_contains "$ERR" "nope"
before=$(calls)
run 2 "$NFSAGENT" nas --nas "-oProxyCommand=touch $WORK/pwned" --datastore truenas-vmware
assert_contains "$ERR" "--nas: '-oProxyCommand=touch $WORK/pwned' is not a host name ([user@]host)"
run 2 "$NFSAGENT" nas --nas-command "ssh 'nas" --datastore truenas-vmware
assert_contains "$ERR" "--nas-command: a quote is not closed"
run 2 "$NFSAGENT" nas --nas nas --nas-command "$NAS" --datastore truenas-vmware
assert_contains "$ERR" "give exactly one of --nas and --nas-command"
run 2 "$NFSAGENT" nas --nas-command "$NAS"
assert_contains "$ERR" "--datastore is required"
assert_eq "$(calls)" "$before" "SOAP calls of refused command lines"
[ ! -e "$WORK/pwned" ] || fail "a host name ran a command"
# nas reads only: nothing changed in vCenter after the mount.
assert_eq "$(changes)" "$mounted" "vCenter changes by nas"
echo "test_nas: ok"
