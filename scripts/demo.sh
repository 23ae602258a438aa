#!/usr/bin/env bash
# The whole story on the simulated lab (VMware's vCenter simulator with an
# NFS server model, real fio in the simulated guest, and the ESXi 8 / NFS 4.1
# extent-size bug switched on intermittently):
#   connect and look around, probe the NFS 4.1 export, run the NFS 3 vs NFS 4.1
#   campaign (which hits the bug and falls back to NFS 3 as configured),
#   compare the results honestly, and write the HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build > /dev/null
cmake --build build -j "$(nproc)" --target nfsagent labsim_binary > /dev/null
out=${DEMO_OUT:-$PWD/demo-output}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/dev/shm}/nfsagent-demo.XXXXXX")
lab=
OTHER_PIDS=()  # the NAS's sshd (nas_start)
trap 'kill $lab "${OTHER_PIDS[@]}" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"' EXIT

# The lab: four hosts on ESXi 8.0.3, three TrueNAS exports, the bug flaky;
# behind the exports a ZFS pool of mirrors with a SLOG.
build/labsim -dir "$work/lab" -nfs41-bug flaky:0.5,2 -nas-slog \
	-export 10.0.0.5:/mnt/tank/vmware64k \
	> "$work/ready" 2> "$work/lab.log" &
lab=$!
for _ in $(seq 1 300); do [ -s "$work/ready" ] && break; sleep 0.1; done
ready=$(head -n 1 "$work/ready")
export NFSAGENT_URL=$(jq -r .url <<< "$ready")
export NFSAGENT_USERNAME=$(jq -r .username <<< "$ready")
export NFSAGENT_PASSWORD=$(jq -r .password <<< "$ready")
export NFSAGENT_THUMBPRINT=$(jq -r .thumbprint <<< "$ready")
export NFSAGENT_GUEST_USER=root NFSAGENT_GUEST_PASSWORD=secret
export XDG_DATA_HOME="$work/data"   # a results database for this demo only
nfsagent=build/agent/nfsagent
# The NAS, reached as a real one is: ssh to a real sshd on 127.0.0.1, whose
# forced command answers zpool, zfs and the kstats from the lab's pool.
WORK=$work LAB_READY=$ready LABSIM=build/labsim
fail() { echo "demo: $*" >&2; exit 1; }
. tests/sim/nas_sshd.sh
nas_start

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
echo "Simulated lab at $NFSAGENT_URL (certificate pinned: $NFSAGENT_THUMBPRINT)"
step $nfsagent about
step $nfsagent ls hosts
step $nfsagent ls datastores
step $nfsagent ls vms

# The campaign file from examples/, with demo-sized runs (16 MiB, 2 s and a
# 1 s ramp), and the NAS sampled around each run.
sed -e 's/^size = .*/size = 16M/' -e 's/^runtime = .*/runtime = 2\nramp = 1/' \
	-e 's/^profiles = .*/profiles = randwrite-4k-qd32x4, randread-4k-qd32x4/' \
	-e 's/^probe_disks.*//' examples/nfs3-vs-nfs41.ini |
	NAS_COMMAND="ssh -F '$NAS_SSH_CONFIG' nas" awk '{ print } /^cleanup = / { print "nas_command = " ENVIRON["NAS_COMMAND"] }' \
	> "$work/nfs3-vs-nfs41.ini"
step $nfsagent run "$work/nfs3-vs-nfs41.ini" --dry-run
step $nfsagent run "$work/nfs3-vs-nfs41.ini" || true
run=$(sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "SELECT run FROM campaign_runs ORDER BY started_at DESC LIMIT 1")

step $nfsagent results --where campaign="$run"
step $nfsagent compare --a campaign="$run",target=nfs3 --b campaign="$run",target=nfs41 || true
step $nfsagent compare --a campaign="$run",protocol=NFS --b campaign="$run",protocol=NFS41 || true
step $nfsagent report --html "$out/report.html" --where campaign="$run"
cp "$XDG_DATA_HOME/nfsagent/results.db" "$out/results.db"
chmod 600 "$out/results.db"
printf '\nThe report is %s; the results database is %s.\n' "$out/report.html" "$out/results.db"
