#!/usr/bin/env bash
# --trace writes every request and reply, 0600, with the password, the
# session key and the guest transfer URLs' tokens redacted; it never
# follows a symbolic link.
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

# An existing file is made 0600, not left as it was.
printf 'previous trace 1234\n' > "$WORK/old.txt"
chmod 644 "$WORK/old.txt"
run 0 "$NFSAGENT" ls hosts --trace "$WORK/old.txt"
assert_eq "$(stat -c %a "$WORK/old.txt")" 600 "mode of an existing trace file"
assert_not_contains "$(cat "$WORK/old.txt")" "previous trace 1234" "trace"

# A symbolic link is refused before anything is sent; its target is untouched.
printf 'keep me\n' > "$WORK/target.txt"
ln -s "$WORK/target.txt" "$WORK/link.txt"
before=$(calls)
run 2 "$NFSAGENT" ls hosts --trace "$WORK/link.txt"
assert_eq "$ERR" "nfsagent: trace file $WORK/link.txt is a symbolic link: give the file's own path"
assert_eq "$(cat "$WORK/target.txt")" "keep me" "the link's target"
assert_eq "$(calls)" "$before" "SOAP calls after the refusal"

# Guest file transfers: the URLs are bearer credentials for 30 minutes.
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
run 0 "$NFSAGENT" bench --vm fiotest --profile randread-4k-qd1 --repeat 1 --size 4M --runtime 1 \
	--db "$WORK/r.db" --trace "$WORK/guest.txt"
trace=$(cat "$WORK/guest.txt")
assert_contains "$trace" "<-- InitiateFileTransferToGuest HTTP 200" "trace"
assert_contains "$trace" "<-- InitiateFileTransferFromGuest HTTP 200" "trace"
assert_ge "$(grep -c 'token=\*\*\*' <<< "$trace")" 2 "redacted tokens"
assert_eq "$(grep -o 'token=[^*]' <<< "$trace" | wc -l)" 0 "tokens left in the trace"
assert_not_contains "$trace" "<password>secret<" "trace"
echo "trace: ok"
