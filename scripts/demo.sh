#!/usr/bin/env bash
# The whole story on the simulated lab (VMware's vCenter simulator with an
# NFS server model, real fio in the simulated guest, a ZFS NAS behind a real
# sshd), in seven acts:
#   1. connect and look around: one host on ESXi 8.0 U2, a cluster on 8.0 U3;
#   2. a campaign makes two datasets on the NAS (64K and 16K recordsize);
#   3. NFS 3 against NFS 4.1 on the 8.0 U2 host, with a verdict;
#   4. the NFS 4.1 extent-size bug found on the 8.0 U3 cluster, and handled;
#   5. 64K against 16K, with what the pool wrote side by side;
#   6. a fleet of four VMs moved onto the 16K dataset in parallel;
#   7. the test dataset removed, and the HTML report written.
# Every command here is expected to succeed (set -e stops the demo if not).
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

# The lab: DC0_H0 (standalone) on ESXi 8.0 U2, cluster DC0_C0's three hosts
# on 8.0 U3, whose NFS 4.1 client has the extent-size bug (here on every
# NFS 4.1 disk they create or move); four fleet VMs, one per host; a ZFS
# pool of mirrors with a SLOG holding one dataset, tank/vmware, where the
# VMs live.  The datasets under test do not exist yet.
build/labsim -dir "$work/lab" -esxi-host DC0_H0=8.0.2:22380479 \
	-nfs41-bug always -nfs41-bug-build 24022510 -fleet 4 -nas-slog \
	-export 10.0.0.5:/mnt/tank/vmware \
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
# forced command answers zpool, zfs (create, destroy, set) and the kstats
# from the lab's pool.
WORK=$work LAB_READY=$ready LABSIM=build/labsim
fail() { echo "demo: $*" >&2; exit 1; }
. tests/sim/nas_sshd.sh
nas_start
nas="ssh -F $NAS_SSH_CONFIG nas"

# step CMD ARG...: show the command (an argument with a blank or a glob
# quoted, so that it can be pasted), then run it.
step() {
	local shown=() a
	for a; do [[ $a =~ [[:space:]*?] ]] && shown+=("'$a'") || shown+=("$a"); done
	printf '\n\033[1m$ %s\033[0m\n' "${shown[*]}"
	"$@"
}
on_nas() { printf '\n\033[1m$ ssh nas %s\033[0m\n' "$*"; nas_command "$@"; }
act() { printf '\n\033[1;34m== %s\033[0m\n' "$*"; }
db() { sqlite3 "$XDG_DATA_HOME/nfsagent/results.db" "$@"; }
last_run() { db "SELECT run FROM campaign_runs ORDER BY started_at DESC LIMIT 1"; }
echo "Simulated lab at $NFSAGENT_URL (certificate pinned: $NFSAGENT_THUMBPRINT)"

act "1. Connect and look around: two ESXi builds"
step $nfsagent about
step $nfsagent ls hosts
step $nfsagent ls datastores

act "2-3. A campaign makes a 64K and a 16K dataset, and runs NFS 3 vs NFS 4.1 on DC0_H0"
# examples/new-datasets-nfs-and-recordsize.ini with demo-sized runs (16 MiB,
# 2 s and a 1 s ramp, 2 canary disks) and the lab's NAS.
sed -e 's/^size = .*/size = 16M/' -e 's/^runtime = .*/runtime = 2\nramp = 1\nprobe_disks = 2\nprobe_size = 64M/' \
	-e "s|^nas = .*|nas_command = $nas|" \
	examples/new-datasets-nfs-and-recordsize.ini > "$work/new-datasets.ini"
step $nfsagent run "$work/new-datasets.ini" --dry-run
step $nfsagent run "$work/new-datasets.ini"
run=$(last_run)
step $nfsagent compare --a campaign="$run",target=nfs3 --b campaign="$run",target=nfs41

act "4. The same NFS 4.1 mount on the 8.0 U3 cluster: the extent-size bug, found and handled"
# fleet-02 runs on a host of cluster DC0_C0.  The target's probe writes canary
# disks through one host and reads them through the others; on_extent_bug =
# nfs3 then runs the target over NFS 3 and the summary says so (exit 0).
cat > "$work/nfs41-on-u3.ini" << EOF
[campaign]
name = nfs41-on-u3
vm = fleet-02
guest_user = root
profiles = randwrite-4k-qd32x4
repeat = 1
size = 16M
runtime = 2
ramp = 1
probe_disks = 2
probe_size = 64M
cleanup = yes

[target nfs41]
datastore = vm16k-nfs41
server = 10.0.0.5
path = /mnt/tank/vm16k
nfs = 4.1
on_extent_bug = nfs3
EOF
step $nfsagent run "$work/nfs41-on-u3.ini"

act "5. 64K against 16K recordsize on NFS 3: what the pool wrote for the guest's writes"
step $nfsagent compare --a campaign="$run",target=nfs3 --b campaign="$run",target=rs16k

act "6. The 16K dataset (kept) becomes the fleet's home: four VMs moved in parallel"
step $nfsagent mount --all-hosts --name vm16k --server 10.0.0.5 --path /mnt/tank/vm16k --nfs 3
step $nfsagent migrate --vms 'fleet-*' --datastore vm16k --parallel 4
step $nfsagent nas --nas-command "$nas" --datastore vm16k

act "7. The test dataset is gone (the campaign removed it), and the report"
on_nas zfs list -Hp -o name,mountpoint
step $nfsagent report --html "$out/report.html" --where campaign="$run"
cp "$XDG_DATA_HOME/nfsagent/results.db" "$out/results.db"
chmod 600 "$out/results.db"
printf '\nThe report is %s; the results database is %s.\n' "$out/report.html" "$out/results.db"
