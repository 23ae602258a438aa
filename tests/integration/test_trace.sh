#!/usr/bin/env bash
# --trace writes every request and reply, 0600, with the password and the
# session key redacted.
. "$(dirname "$0")/lib.sh"
lab_start
run 0 "$NFSAGENT" ls hosts --trace "$WORK/trace.txt"
assert_eq "$(stat -c %a "$WORK/trace.txt")" 600 "trace file mode"
trace=$(cat "$WORK/trace.txt")
for m in RetrieveServiceContent Login CreateContainerView RetrievePropertiesEx Logout; do
	assert_contains "$trace" "--> $m" "trace"
	assert_contains "$trace" "<-- $m HTTP 200" "trace"
done
assert_contains "$trace" "<password>***</password>" "trace"
assert_not_contains "$trace" "<password>$NFSAGENT_PASSWORD<" "trace"
assert_contains "$trace" "<key>***" "trace"
echo "trace: ok"
