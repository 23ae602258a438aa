#!/usr/bin/env bash
# about: product, version, build, API type and the certificate thumbprint,
# as the lab holds them; text and JSON agree.
. "$(dirname "$0")/lib.sh"
lab_start

run 0 "$NFSAGENT" about --json
assert_eq "$(jq -r .api_type <<< "$OUT")" "VirtualCenter" "api_type"
assert_eq "$(jq -r .name <<< "$OUT")" "VMware vCenter Server" "name"
assert_eq "$(jq -r .thumbprint <<< "$OUT")" "$LAB_THUMBPRINT" "thumbprint"
version=$(jq -r .version <<< "$OUT")
build=$(jq -r .build <<< "$OUT")
[ -n "$version" ] && [ "$version" != null ] || fail "no version"
[ -n "$build" ] && [ "$build" != null ] || fail "no build"

run 0 "$NFSAGENT" about
assert_contains "$OUT" "API type:      VirtualCenter"
assert_contains "$OUT" "Version:       $version"
assert_contains "$OUT" "Build:         $build"
assert_contains "$OUT" "Thumbprint:    $LAB_THUMBPRINT"
echo "about: ok"
