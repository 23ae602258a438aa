#!/usr/bin/env bash
# Builds nfsagent and shows it working against the simulated lab (a vCenter
# simulator from VMware's govmomi, started on a loopback port).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build > /dev/null
cmake --build build -j "$(nproc)" > /dev/null
work=$(mktemp -d)
build/labsim -dir "$work/lab" > "$work/ready" 2> "$work/lab.log" &
lab=$!
trap 'kill $lab 2> /dev/null; wait $lab 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do [ -s "$work/ready" ] && break; sleep 0.1; done
ready=$(head -n 1 "$work/ready")
export NFSAGENT_URL=$(jq -r .url <<< "$ready")
export NFSAGENT_USERNAME=$(jq -r .username <<< "$ready")
export NFSAGENT_PASSWORD=$(jq -r .password <<< "$ready")
export NFSAGENT_THUMBPRINT=$(jq -r .thumbprint <<< "$ready")
step() { printf '\n$ %s\n' "$*"; "$@"; }
echo "Simulated lab at $NFSAGENT_URL (certificate pinned: $NFSAGENT_THUMBPRINT)"
step build/agent/nfsagent about
step build/agent/nfsagent ls hosts
step build/agent/nfsagent ls datastores
step build/agent/nfsagent ls vms
