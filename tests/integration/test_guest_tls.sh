#!/usr/bin/env bash
# Guest file transfers go to the VM's ESXi host, as through a real vCenter:
# the host's inventory name is mapped to its management address, and the
# host must present the certificate whose thumbprint vCenter reports.
. "$(dirname "$0")/lib.sh"
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
quick=(--vm fiotest --profile randread-4k-qd1 --size 4M --runtime 1)
host_lookups() { grep -c '<pathSet>summary.config.sslThumbprint</pathSet>' "$WORK/trace" || true; }

# URLs name DC0_H0 (no DNS name): reached at its management IP, its certificate pinned.
lab_start
run 0 "$NFSAGENT" bench "${quick[@]}" --repeat 2 --trace "$WORK/trace"
assert_contains "$OUT" "randread-4k-qd1 #2:  read"
assert_eq "$(host_lookups)" 1 "host lookups for four transfers"
lab_stop
# That bench's fio gone (its workers may outlive it on a loaded machine:
# over 5 s at ctest -j8), so that the check below sees only what the
# refused bench left.
for _ in $(seq 1 600); do fio_left || break; sleep 0.1; done

# The host presents another certificate than vCenter reports: refused.
lab_start -host-thumbprint wrong
run 5 "$NFSAGENT" bench "${quick[@]}"
assert_eq "$OUT" "" "stdout when no repetition ran"
assert_one_line "$ERR"
# DC0_H0 is the 4th host by name: 127.A.B.4, A.B = the lab's pid (tests/sim/README.md).
pid=$(jq -r .pid <<< "$LAB_READY")
a=$(((pid >> 8) & 255)) b=$((pid & 255))
[ "$a.$b" = 0.0 ] && a=255
assert_contains "$ERR" "certificate of ESXi host DC0_H0 (at 127.$a.$b.4) has thumbprint SHA1:$(jq -r .host_thumbprint_sha1 <<< "$LAB_READY"), not the one vCenter reports"
if fio_left; then fail "fio left running in the guest"; fi
lab_stop

# vCenter reports no thumbprint: the CA policy, and a line that says so.
lab_start -host-thumbprint none
run 5 "$NFSAGENT" bench "${quick[@]}"
assert_one_line "$ERR"
assert_contains "$ERR" "certificate of ESXi host DC0_H0 is not trusted"
assert_contains "$ERR" "vCenter reports no thumbprint for it: give its CA with --cacert"
assert_not_contains "$ERR" "$LAB_THUMBPRINT"
lab_stop

# Connected to the host itself, URLs name "*": no lookup, vCenter's pin.
lab_start -guest-transfer-star
run 0 "$NFSAGENT" bench "${quick[@]}" --trace "$WORK/trace"
assert_eq "$(host_lookups)" 0 "host lookups"
echo "guest_tls: ok"
