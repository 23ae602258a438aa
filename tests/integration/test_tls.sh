#!/usr/bin/env bash
# TLS policy: a pinned thumbprint that matches connects, a wrong one is
# refused naming the server's thumbprint, an unpinned self-signed
# certificate is refused, --cacert and --insecure work as chosen.
. "$(dirname "$0")/lib.sh"
lab_start

run 0 "$NFSAGENT" about --json
assert_eq "$(jq -r .thumbprint <<< "$OUT")" "$LAB_THUMBPRINT" "pinned"

# The same pin, written as bare lower-case hex without colons.
bare=$(tr -d ':' <<< "${LAB_THUMBPRINT#SHA256:}" | tr 'A-F' 'a-f')
NFSAGENT_THUMBPRINT=$bare run 0 "$NFSAGENT" about

wrong="SHA256:$(printf '00:%.0s' $(seq 1 31))00"
before=$(calls)
run 5 "$NFSAGENT" about --thumbprint "$wrong"
assert_one_line "$ERR"
assert_contains "$ERR" "$LAB_THUMBPRINT"
assert_contains "$ERR" "does not match the pinned thumbprint"
assert_eq "$(calls)" "$before" "SOAP calls made to a server whose pin failed"

unset NFSAGENT_THUMBPRINT
run 5 "$NFSAGENT" about
assert_one_line "$ERR"
assert_contains "$ERR" "not trusted"
assert_contains "$ERR" "$LAB_THUMBPRINT"

run 0 "$NFSAGENT" about --cacert "$LAB_CACERT"
NFSAGENT_CACERT=$LAB_CACERT run 0 "$NFSAGENT" ls hosts

run 0 "$NFSAGENT" about --insecure
assert_contains "$ERR" "warning: certificate verification is off"
GOVC_INSECURE=1 run 0 "$NFSAGENT" about
assert_contains "$ERR" "warning"

run 2 "$NFSAGENT" about --thumbprint "SHA1:$(printf 'AB:%.0s' $(seq 1 19))AB"
assert_contains "$ERR" "SHA-1"
echo "tls: ok"
