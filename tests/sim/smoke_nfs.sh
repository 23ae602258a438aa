#!/usr/bin/env bash
# Self-check of labsim's NFS model with curl: mounts, unmounts, Storage
# vMotion with and without the NFS 4.1 bug, snapshots, canary disks, slow
# relocation, HA heartbeat datastores and vCLS VMs. Usage (from the repository root):
#     tests/sim/smoke_nfs.sh [path/to/labsim]      # default build/labsim
# Needs bash, curl, grep, sed, stat. Lab directories go to $TMPDIR
# (/dev/shm if unset and present: much faster).
set -u

LABSIM=${1:-build/labsim}
. "$(dirname "$0")/smoke_lib.sh"

# The NFS model's checks read extent sizes off the browser and layoutEx and
# the short file off the export: the legacy views.  What a real host shows
# (allocation, hidden extents, the bug as one host's view) is smoke_hosts.sh's.
start() { # start FLAGS...: run a lab, log in; sets URL CA DIR LAB_PID J
	launch -nfs41-bug-view export -thin-sizes length -browser-extents show -locked-extents off "$@"
	J=$WORK/jar
	rm -f "$J"
	soap Login SessionManager SessionManager '<userName>user</userName><password>pass</password>' >/dev/null
}

soap() { # soap METHOD THIS_TYPE THIS_VALUE [ARGS_XML]
	curl -sS --cacert "$CA" -b "$J" -c "$J" -H 'Content-Type: text/xml; charset=utf-8' \
		--data-binary "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body><$1 xmlns=\"urn:vim25\"><_this type=\"$2\">$3</_this>${4:-}</$1></soapenv:Body></soapenv:Envelope>" \
		"$URL"
}
returnval() { grep -o '<returnval[^>]*>[^<]*' | head -1 | sed 's/.*>//'; }
find_path() { soap FindByInventoryPath SearchIndex SearchIndex "<inventoryPath>$1</inventoryPath>" | returnval; }
prop() { # prop TYPE ID PATH...: the RetrievePropertiesEx answer
	local t=$1 id=$2 paths=
	shift 2
	for p in "$@"; do paths="$paths<pathSet>$p</pathSet>"; done
	soap RetrievePropertiesEx PropertyCollector propertyCollector \
		"<specSet><propSet><type>$t</type>$paths</propSet><objectSet><obj type=\"$t\">$id</obj></objectSet></specSet><options/>"
}
val() { prop "$@" | sed -n 's/.*<val[^>]*>\([^<]*\)<\/val>.*/\1/p'; } # a simple property's value
task_info() { # task_info TASK: waits (up to 60 s) until it ends, prints info
	local out
	for _ in $(seq 1 600); do
		out=$(prop Task "$1" info)
		has "$out" '<state>success</state>\|<state>error</state>' && break
		sleep 0.1
	done
	echo "$out"
}
run_task() { task_info "$(soap "$@" | returnval)"; } # run_task METHOD TYPE ID ARGS
succeeded() { has "$1" '<state>success</state>'; }
mount() { # mount HOSTDSS PATH NAME TYPE [EXTRA_SPEC_XML]
	soap CreateNasDatastore HostDatastoreSystem "$1" "<spec><remoteHost>10.0.0.5</remoteHost><remotePath>$2</remotePath><localPath>$3</localPath><accessMode>readWrite</accessMode><type>$4</type>${5:-}</spec>"
}
unmount() { soap RemoveDatastore HostDatastoreSystem "$1" "<datastore type=\"Datastore\">$2</datastore>"; }
relocate() { # relocate VM DS: home and disk 2000 to DS
	soap RelocateVM_Task VirtualMachine "$1" "<spec><datastore type=\"Datastore\">$2</datastore><disk><diskId>2000</diskId><datastore type=\"Datastore\">$2</datastore></disk></spec>" | returnval
}
mkdisk() { # mkdisk "[ds] dir/x.vmdk" KB
	run_task CreateVirtualDisk_Task VirtualDiskManager virtualDiskManager "<name>$1</name><datacenter type=\"Datacenter\">$DC</datacenter><spec xsi:type=\"FileBackedVirtualDiskSpec\"><diskType>thin</diskType><adapterType>lsiLogic</adapterType><capacityKb>$2</capacityKb></spec>"
}
mkdir_ds() { soap MakeDirectory FileManager FileManager "<name>$1</name><datacenter type=\"Datacenter\">$DC</datacenter><createParentDirectories>true</createParentDirectories>" >/dev/null; }
search() { # search BROWSER "[ds] dir": FileQuery, matchPattern *, fileSize
	run_task SearchDatastore_Task HostDatastoreBrowser "$1" "<datastorePath>$2</datastorePath><searchSpec><query xsi:type=\"FileQuery\"/><details><fileType>true</fileType><fileSize>true</fileSize><modification>false</modification><fileOwner>false</fileOwner></details><matchPattern>*</matchPattern></searchSpec>"
}
size_of() { stat -c %s "$1" 2>/dev/null || echo missing; }
lookups() { # morefs of the usual suspects
	DC=$(find_path DC0)
	H0=$(find_path DC0/host/DC0_H0/DC0_H0)
	C0H0=$(find_path DC0/host/DC0_C0/DC0_C0_H0)
	DSS0=$(val HostSystem "$H0" configManager.datastoreSystem)
	DSS1=$(val HostSystem "$C0H0" configManager.datastoreSystem)
	FIO=$(find_path DC0/vm/fiotest)
	BJORN=$(find_path "DC0/vm/Bjørn test")
	TRUENAS=$(find_path DC0/datastore/truenas-vmware)
	EXPORTS=$DIR/nfs/10.0.0.5/mnt/tank
}

echo "# lab 1: -nfs41-bug always"
t0=$(date +%s%N)
start -nfs41-bug always
echo "     (ready after $((($(date +%s%N) - t0) / 1000000)) ms)"
lookups

out=$(prop HostSystem "$H0" summary.config.product.fullName config.product.build)
check "ESXi 8.0.3 build-24022510 on the hosts" bash -c 'grep -q "VMware ESXi 8.0.3 build-24022510" <<<"$0" && grep -q ">24022510<" <<<"$0"' "$out"
out=$(prop Datastore "$TRUENAS" summary host info)
check "truenas-vmware pre-mounted as NFS on all 4 hosts" bash -c '[ "$(grep -o "<DatastoreHostMount>" <<<"$0" | wc -l)" = 4 ] && grep -q "<type>NFS</type>" <<<"$0" && grep -q "<url>ds:///vmfs/volumes/[0-9a-f-]*/</url>" <<<"$0"' "$out"
check "seed VMs fiotest, db01, Bjørn test exist" bash -c '[ -n "$0" ] && [ -n "$1" ] && [ -n "$2" ]' "$FIO" "$(find_path DC0/vm/db01)" "$BJORN"
out=$(prop VirtualMachine "$FIO" guest.toolsRunningStatus layoutEx)
check "fiotest: tools running, layoutEx lists the 16 GiB flat file" bash -c 'grep -q guestToolsRunning <<<"$0" && grep -q "<name>\[truenas-vmware\] fiotest/fiotest-flat.vmdk</name><type>diskExtent</type><size>17179869184</size>" <<<"$0"' "$out"
check "fiotest-flat.vmdk is a 16 GiB sparse file" [ "$(size_of "$EXPORTS/vmware/fiotest/fiotest-flat.vmdk")" = 17179869184 ]

MULTI='<remoteHostNames>10.0.0.5</remoteHostNames><remoteHostNames>10.0.0.6</remoteHostNames>'
N41=$(mount "$DSS0" /mnt/tank/vmware16k nfs41-16k NFS41 "$MULTI" | returnval)
N41b=$(mount "$DSS1" /mnt/tank/vmware16k nfs41-16k NFS41 "$MULTI" | returnval)
out=$(prop Datastore "$N41" host summary.type info.nas)
check "NFS41 on two hosts: one datastore ($N41), two mounts, both servers" bash -c '[ "$0" = "$1" ] && [ "$(grep -o "<DatastoreHostMount>" <<<"$2" | wc -l)" = 2 ] && grep -q "NFS41" <<<"$2" && grep -q "<remoteHostNames>10.0.0.6</remoteHostNames>" <<<"$2" && grep -q "<securityType>AUTH_SYS</securityType>" <<<"$2"' "$N41" "$N41b" "$out"
out=$(mount "$DSS0" /mnt/tank/vmware16k nfs41-16k NFS41 "$MULTI")
check "same mount again on the same host: AlreadyExists" bash -c 'grep -q "xsi:type=\"AlreadyExists\"" <<<"$0"' "$out"
out=$(mount "$DSS0" /mnt/tank/vmware16k nfs41-16k NFS)
check "same name, other protocol: DuplicateName" bash -c 'grep -q "xsi:type=\"DuplicateName\"" <<<"$0" && grep -q "<object type=\"Datastore\">$1</object>" <<<"$0"' "$out" "$N41"
out=$(mount "$DSS0" /mnt/tank/nothere nfs-x NFS)
check "unknown export: PlatformConfigFault, generic faultstring, the reason in faultMessage" bash -c 'grep -q "xsi:type=\"PlatformConfigFault\"" <<<"$0" && grep -q "<faultstring>An error occurred during host configuration.</faultstring>" <<<"$0" && grep -q "<faultMessage><key>vob.vmfs.nfs.mount.error.perm.denied</key><message>NFS mount 10.0.0.5:/mnt/tank/nothere failed: The mount request was denied by the NFS server" <<<"$0"' "$out"
N3=$(mount "$DSS0" /mnt/tank/vmware64k nfs3-64k NFS | returnval)
check "NFS 3 mount of vmware64k: $N3" [ -n "$N3" ]
out=$(unmount "$DSS0" "$TRUENAS")
check "RemoveDatastore while VMs live there: ResourceInUse" bash -c 'grep -q "xsi:type=\"ResourceInUse\"" <<<"$0" && grep -q "<faultstring>The resource &#39;truenas-vmware&#39; is in use.</faultstring>" <<<"$0"' "$out"

echo "# Storage vMotion of fiotest (powered on) with the bug 'always'"
out=$(task_info "$(relocate "$FIO" "$N3")")
check "to NFS 3: success" succeeded "$out"
check "files are on the NFS 3 export, flat file 16 GiB, old folder gone" bash -c '[ "$(stat -c %s "$0/vmware64k/fiotest/fiotest-flat.vmdk")" = 17179869184 ] && [ -s "$0/vmware64k/fiotest/fiotest.vmx" ] && [ -s "$0/vmware64k/fiotest/vmware.log" ] && [ ! -e "$0/vmware/fiotest" ]' "$EXPORTS"
out=$(prop VirtualMachine "$FIO" config.files.vmPathName layoutEx datastore config.hardware.device)
check "VM points at [nfs3-64k]: vmPathName, backing, layoutEx, datastore" bash -c 'grep -q ">\[nfs3-64k\] fiotest/fiotest.vmx<" <<<"$0" && grep -q "<fileName>\[nfs3-64k\] fiotest/fiotest.vmdk</fileName><datastore type=\"Datastore\">$1</datastore>" <<<"$0" && grep -q "<name>\[nfs3-64k\] fiotest/fiotest-flat.vmdk</name><type>diskExtent</type><size>17179869184</size>" <<<"$0" && ! grep -q truenas-vmware <<<"$0" && grep -q "<ManagedObjectReference type=\"Datastore\">$1</ManagedObjectReference></val>" <<<"$0"' "$out" "$N3"
check "truenas-vmware's vm list lost fiotest, nfs3-64k's has it" bash -c '! grep -q ">$0<" <<<"$1" && grep -q ">$0<" <<<"$2"' "$FIO" "$(prop Datastore "$TRUENAS" vm)" "$(prop Datastore "$N3" vm)"

out=$(task_info "$(relocate "$FIO" "$N41")")
check "to NFS 4.1: error GenericVmConfigFault 'Failed to load one or more destination disks'" bash -c 'grep -q "<state>error</state>" <<<"$0" && grep -q "<fault [^>]*type=\"GenericVmConfigFault\"><faultMessage><key>[^<]*</key><message>Failed to load one or more destination disks</message></faultMessage><reason>Failed to load one or more destination disks</reason></fault><localizedMessage>Failed to load one or more destination disks</localizedMessage>" <<<"$0"' "$out"
log=$EXPORTS/vmware64k/fiotest/vmware.log
check "vmware.log (source) has ESXi's lines" bash -c 'grep -q "In(05) vmx - DISKLIB-VMFS  : \"/vmfs/volumes/nfs41-16k/fiotest/fiotest-flat.vmdk\" : failed to open (The file specified is not a virtual disk): Size of extent in descriptor file larger than real size." "$0" && grep -q "VmfsExtentCommonOpen: possible extent truncation (?) realSize is 0, size in descriptor 33554432." "$0" && grep -q "DISKLIB-LINK  : \"/vmfs/volumes/nfs41-16k/fiotest/fiotest.vmdk\" : failed to open" "$0" && grep -q "Failed waiting for data. Error 195887107. Not found." "$0"' "$log"
check "VM still on nfs3-64k, source intact" bash -c '[ "$0" = "[nfs3-64k] fiotest/fiotest.vmx" ] && [ "$(stat -c %s "$1/vmware64k/fiotest/fiotest-flat.vmdk")" = 17179869184 ]' "$(val VirtualMachine "$FIO" config.files.vmPathName)" "$EXPORTS"
check "target keeps the descriptor and a 0-byte flat file, nothing else" bash -c '[ "$(ls "$0/vmware16k/fiotest" | tr "\n" " ")" = "fiotest-flat.vmdk fiotest.vmdk " ] && [ "$(stat -c %s "$0/vmware16k/fiotest/fiotest-flat.vmdk")" = 0 ]' "$EXPORTS"

out=$(run_task CreateSnapshot_Task VirtualMachine "$FIO" '<name>before-svmotion</name><memory>false</memory><quiesce>false</quiesce>')
SNAP=$(sed -n 's/.*<result[^>]*type="VirtualMachineSnapshot">\([^<]*\)<.*/\1/p' <<<"$out")
out=$(prop VirtualMachine "$FIO" config.hardware.device layoutEx)
check "snapshot $SNAP: delta link fiotest-000001.vmdk with the base as parent" bash -c 'grep -q "<fileName>\[nfs3-64k\] fiotest/fiotest-000001.vmdk</fileName>.*<parent><fileName>\[nfs3-64k\] fiotest/fiotest.vmdk</fileName>" <<<"$0" && grep -q "fiotest-000001-delta.vmdk</name><type>diskExtent</type>" <<<"$0" && grep -q "parentFileNameHint=\"fiotest.vmdk\"" "$1"' "$out" "$EXPORTS/vmware64k/fiotest/fiotest-000001.vmdk"
out=$(task_info "$(relocate "$FIO" "$N41")")
check "hot, with a snapshot, to NFS 4.1: success" succeeded "$out"
check "chain moved into fiotest_1/ (fiotest/ holds the failed attempt's files): base 16 GiB, delta, vmsn" bash -c '[ "$(stat -c %s "$0/vmware16k/fiotest_1/fiotest-flat.vmdk")" = 17179869184 ] && [ -e "$0/vmware16k/fiotest_1/fiotest-000001-delta.vmdk" ] && [ -e "$0/vmware16k/fiotest_1/fiotest-Snapshot1.vmsn" ] && [ ! -e "$0/vmware64k/fiotest" ] && [ "$(ls "$0/vmware16k/fiotest" | tr "\n" " ")" = "fiotest-flat.vmdk fiotest.vmdk " ] && [ "$1" = "[nfs41-16k] fiotest_1/fiotest.vmx" ]' "$EXPORTS" "$(val VirtualMachine "$FIO" config.files.vmPathName)"
out=$(run_task RemoveSnapshot_Task VirtualMachineSnapshot "$SNAP" '<removeChildren>false</removeChildren><consolidate>true</consolidate>')
dev=$(prop VirtualMachine "$FIO" config.hardware.device layoutEx snapshot)
check "RemoveSnapshot: one link again, delta files gone" bash -c 'grep -q "<state>success</state>" <<<"$0" && ! grep -q "000001" <<<"$1" && ! grep -q "<parent>" <<<"$1" && [ ! -e "$2/vmware16k/fiotest_1/fiotest-000001.vmdk" ] && [ ! -e "$2/vmware16k/fiotest_1/fiotest-000001-delta.vmdk" ]' "$out" "$dev" "$EXPORTS"

out=$(run_task PowerOffVM_Task VirtualMachine "$BJORN")
check "power off 'Bjørn test'" succeeded "$out"
out=$(task_info "$(relocate "$BJORN" "$N41")")
check "cold migration of 'Bjørn test' to NFS 4.1: success" succeeded "$out"
check "'Bjørn test' files on the NFS 4.1 export, 2 GiB flat" bash -c '[ "$(stat -c %s "$0/vmware16k/Bjørn test/Bjørn test-flat.vmdk")" = 2147483648 ]' "$EXPORTS"
check "its vmPathName is [nfs41-16k] Bjørn test/Bjørn test.vmx" [ "$(val VirtualMachine "$BJORN" config.files.vmPathName)" = "[nfs41-16k] Bjørn test/Bjørn test.vmx" ]

echo "# canary disks, browser, files"
mkdir_ds "[nfs41-16k] canary"
out=$(mkdisk "[nfs41-16k] canary/c1.vmdk" 1048576)
check "CreateVirtualDisk on NFS 4.1: success" succeeded "$out"
out=$(search "$(val Datastore "$N41" browser)" "[nfs41-16k] canary")
check "SearchDatastore: c1-flat.vmdk fileSize 0 on the wire, descriptor listed" bash -c 'grep -q "<path>c1-flat.vmdk</path><fileSize>0</fileSize>" <<<"$0" && grep -q "<path>c1.vmdk</path><fileSize>[1-9][0-9]*</fileSize>" <<<"$0"' "$out"
check "descriptor still says 1 GiB (2097152 sectors)" grep -q 'RW 2097152 VMFS "c1-flat.vmdk"' "$EXPORTS/vmware16k/canary/c1.vmdk"
mkdir_ds "[nfs3-64k] canary"
mkdisk "[nfs3-64k] canary/c1.vmdk" 1048576 >/dev/null
check "CreateVirtualDisk on NFS 3: full 1 GiB flat file" [ "$(size_of "$EXPORTS/vmware64k/canary/c1-flat.vmdk")" = 1073741824 ]
out=$(run_task DeleteVirtualDisk_Task VirtualDiskManager virtualDiskManager "<name>[nfs41-16k] canary/c1.vmdk</name><datacenter type=\"Datacenter\">$DC</datacenter>")
check "DeleteVirtualDisk removes descriptor and flat file" bash -c 'grep -q "<state>success</state>" <<<"$0" && [ -z "$(ls "$1/vmware16k/canary")" ]' "$out" "$EXPORTS"
out=$(run_task DeleteDatastoreFile_Task FileManager FileManager "<name>[nfs41-16k] canary</name><datacenter type=\"Datacenter\">$DC</datacenter>")
check "DeleteDatastoreFile_Task on NFS" bash -c 'grep -q "<state>success</state>" <<<"$0" && [ ! -e "$1/vmware16k/canary" ]' "$out" "$EXPORTS"
BASE=${URL%/sdk}
code=$(curl -sS --cacert "$CA" -b "$J" -T "$WORK/ready.json" -o /dev/null -w '%{http_code}' "$BASE/folder/fiotest/fio.job?dcPath=DC0&dsName=nfs41-16k")
check "/folder PUT on NFS ($code) lands in the export" bash -c '[ "$0" = 200 ] && [ -s "$1/vmware16k/fiotest/fio.job" ]' "$code" "$EXPORTS"
check "/folder GET of vmware.log on NFS" bash -c 'curl -sS --cacert "$0" -b "$1" "$2/folder/fiotest_1/vmware.log?dcPath=DC0&dsName=nfs41-16k" | grep -q "Log for VMware ESX"' "$CA" "$J" "$BASE"

N3b=$(mount "$DSS0" /mnt/tank/vmware16k nfs3-16k NFS | returnval)
out=$(task_info "$(relocate "$FIO" "$N3b")")
check "relocate to the same export under another name: success, files left in place (same folder)" bash -c 'grep -q "<state>success</state>" <<<"$0" && [ "$(stat -c %s "$1/vmware16k/fiotest_1/fiotest-flat.vmdk")" = 17179869184 ] && [ -s "$1/vmware16k/fiotest_1/fiotest.vmx" ] && [ "$2" = "[nfs3-16k] fiotest_1/fiotest.vmx" ]' "$out" "$EXPORTS" "$(val VirtualMachine "$FIO" config.files.vmPathName)"

echo "# unmounting"
out=$(unmount "$DSS1" "$N41")
check "unmount NFS 4.1 from DC0_C0_H0 (no VM there): one mount left" bash -c 'grep -q "RemoveDatastoreResponse" <<<"$0" && [ "$(grep -o "<DatastoreHostMount>" <<<"$1" | wc -l)" = 1 ]' "$out" "$(prop Datastore "$N41" host)"
out=$(unmount "$DSS0" "$N41")
check "unmount NFS 4.1 from DC0_H0 with 'Bjørn test' on it: ResourceInUse" bash -c 'grep -q "xsi:type=\"ResourceInUse\"" <<<"$0"' "$out"
unmount "$DSS0" "$N3" >/dev/null
out=$(prop Datastore "$N3" name)
check "last unmount removes the datastore; the export's files stay" bash -c 'grep -q ManagedObjectNotFound <<<"$0" && [ -d "$1/vmware64k/canary" ]' "$out" "$EXPORTS"
stop

echo "# lab 2: -nfs41-bug flaky:0.3,1, 20 canary disks on NFS 4.1, twice"
flaky() {
	start -nfs41-bug flaky:0.3,1
	lookups
	mount "$DSS0" /mnt/tank/vmware16k nfs41-16k NFS41 >/dev/null
	mkdir_ds "[nfs41-16k] canary"
	for i in $(seq 1 20); do mkdisk "[nfs41-16k] canary/c$i.vmdk" 1024 >/dev/null; done
	local n=0
	for i in $(seq 1 20); do [ "$(size_of "$EXPORTS/vmware16k/canary/c$i-flat.vmdk")" = 0 ] && n=$((n + 1)); done
	stop
	echo $n
}
a=$(flaky)
b=$(flaky)
check "flaky:0.3,1: $a of 20 flat files 0 bytes (some, not all)" bash -c '[ "$0" -ge 1 ] && [ "$0" -le 19 ]' "$a"
check "same seed, same result ($a, $b)" [ "$a" = "$b" ]

echo "# lab 3: -task-seconds 6 -task-steps 3 -slow-tasks RelocateVM_Task -clock manual -svmotion-per-host 1"
# The relocations wait on the lab's clock, which moves only when this test
# advances it (POST /lab/clock): every check holds however loaded the machine.
RLOG=$WORK/relocations.log
start -task-seconds 6 -task-steps 3 -slow-tasks RelocateVM_Task -nfs41-bug always -clock manual \
	-svmotion-per-host 1 -relocations-log "$RLOG"
lookups
ms() { echo $(($(date -u -d "$1" +%s%N) / 1000000)); }                      # RFC 3339 -> unix ms
tval() { prop Task "$1" "info.$2" | sed -n 's/.*<val[^>]*>\([^<]*\)<\/val>.*/\1/p'; } # tval TASK FIELD
N3=$(mount "$DSS0" /mnt/tank/vmware64k nfs3-64k NFS | returnval)
t0=$(clock)
T=$(relocate "$FIO" "$N3")
check "RelocateVM_Task returns at once: task $T running, the clock still $t0" \
	bash -c '[ "$0" = running ] && [ "$1" = "$2" ]' "$(tval "$T" state)" "$(clock)" "$t0"
check "VM not moved while the task runs" [ "$(val VirtualMachine "$FIO" config.files.vmPathName)" = "[truenas-vmware] fiotest/fiotest.vmx" ]
PC=$(soap CreatePropertyCollector PropertyCollector propertyCollector | returnval)
soap CreateFilter PropertyCollector "$PC" "<spec><propSet><type>Task</type><pathSet>info.state</pathSet><pathSet>info.progress</pathSet></propSet><objectSet><obj type=\"Task\">$T</obj></objectSet></spec><partialUpdates>false</partialUpdates>" >/dev/null
ver=
wfu() { # sets step to the next WaitForUpdatesEx's assignments, "name=value ...", and ver
	local out
	out=$(soap WaitForUpdatesEx PropertyCollector "$PC" "<version>$ver</version><options><maxWaitSeconds>10</maxWaitSeconds></options>")
	ver=$(sed -n 's/.*<version>\([^<]*\)<\/version>.*/\1/p' <<<"$out")
	step=$(grep -o '<name>info\.[a-z]*</name><op>assign</op><val[^>]*>[^<]*' <<<"$out" | sed 's/<name>info\.\([a-z]*\)<\/name><op>assign<\/op><val[^>]*>/\1=/' | tr '\n' ' ')
}
next() { advance 2s >/dev/null && wfu && seen="$seen| $step"; } # one step on
wfu
seen="$step"
next
next
check "VM not moved before the last step" [ "$(val VirtualMachine "$FIO" config.files.vmPathName)" = "[truenas-vmware] fiotest/fiotest.vmx" ]
next
check "a step every 2 s: progress 0, 33, 66 while running, then 100 and success ($seen)" \
	[ "$seen" = "state=running progress=0 | progress=33 | progress=66 | progress=100 state=success " ]
check "relocation took 6 s by its startTime and completeTime" \
	[ $(($(ms "$(tval "$T" completeTime)") - $(ms "$(tval "$T" startTime)"))) = 6000 ]
check "VM moved at the end" [ "$(val VirtualMachine "$FIO" config.files.vmPathName)" = "[nfs3-64k] fiotest/fiotest.vmx" ]
DB01=$(find_path DC0/vm/db01)
T1=$(relocate "$BJORN" "$N3")
T2=$(relocate "$DB01" "$N3")
check "-svmotion-per-host 1: a second relocation from DC0_H0 is queued" \
	bash -c '[ "$0" = running ] && [ "$1" = queued ]' "$(tval "$T1" state)" "$(tval "$T2" state)"
t2=$(advance 6s)
check "after 6 s the first has ended, the second runs, started as the first ended ($t2)" \
	bash -c '[ "$0" = success ] && [ "$1" = running ] && [ "$2" = "$3" ] && [ "$(date -u -d "$4" +%s%N)" = "$(date -u -d "$3" +%s%N)" ]' \
	"$(tval "$T1" state)" "$(tval "$T2" state)" "$(tval "$T1" completeTime)" "$(tval "$T2" startTime)" "$t2"
advance 6s >/dev/null
check "6 s later the second has ended too, after 6 s of its own" \
	bash -c '[ "$0" = success ] && [ $(($(date -u -d "$2" +%s%N) - $(date -u -d "$1" +%s%N))) = 6000000000 ]' \
	"$(tval "$T2" state)" "$(tval "$T2" startTime)" "$(tval "$T2" completeTime)"
stop
check "relocations log on the lab clock: fiotest 0-6 s, then 'Bjørn test' 6-12 s and db01 queued at 6 s, 12-18 s" \
	bash -c '[ "$(cut -d" " -f1,2,3 "$0" | tr "\n" ,)" = "$1 start $2,$(($1 + 6000)) end $2,$(($1 + 6000)) start $3,$(($1 + 6000)) queued $4,$(($1 + 12000)) end $3,$(($1 + 12000)) start $4,$(($1 + 18000)) end $4," ]' \
	"$RLOG" "$(ms "$t0")" "$T" "$T1" "$T2"

echo "# lab 4: -ha-heartbeat nfs41-16k,nothere -vcls nfs3-64k"
start -ha-heartbeat nfs41-16k,nothere -vcls nfs3-64k
lookups
C0=$(find_path DC0/host/DC0_C0)
out=$(soap RetrieveDasAdvancedRuntimeInfo ClusterComputeResource "$C0")
check "RetrieveDasAdvancedRuntimeInfo before the mount: no heartbeat datastore" bash -c 'grep -q "<RetrieveDasAdvancedRuntimeInfoResponse" <<<"$0" && ! grep -q heartbeatDatastoreInfo <<<"$0"' "$out"
N41=$(mount "$DSS1" /mnt/tank/vmware16k nfs41-16k NFS41 | returnval)
mount "$DSS0" /mnt/tank/vmware16k nfs41-16k NFS41 >/dev/null
out=$(soap RetrieveDasAdvancedRuntimeInfo ClusterComputeResource "$C0")
check "... after it: the datastore, with the cluster's host that mounts it" grep -q "<returnval xsi:type=\"ClusterDasFdmAdvancedRuntimeInfo\"><heartbeatDatastoreInfo><datastore type=\"Datastore\">$N41</datastore><hosts type=\"HostSystem\">$C0H0</hosts></heartbeatDatastoreInfo></returnval>" <<<"$out"
out=$(unmount "$DSS1" "$N41")
check "RemoveDatastore of the heartbeat datastore on DC0_C0_H0: ResourceInUse" bash -c 'grep -q "xsi:type=\"ResourceInUse\"" <<<"$0" && grep -q "<faultstring>The resource &#39;nfs41-16k&#39; is in use.</faultstring>" <<<"$0"' "$out"
check "... on the standalone DC0_H0: unmounted" bash -c 'grep -q RemoveDatastoreResponse <<<"$0"' "$(unmount "$DSS0" "$N41")"
N3=$(mount "$DSS1" /mnt/tank/vmware64k nfs3-64k NFS | returnval)
VCLS=$(find_path DC0/vm/vCLS-9da09caa-6c95-16f9-b79a-e3b3ce9c84fa)
check "mounting the -vcls datastore on DC0_C0_H0 starts its vCLS VM there ($VCLS)" bash -c '[ -n "$0" ] && [ "$1" = "$2" ] && [ "$3" = poweredOn ]' "$VCLS" "$(val VirtualMachine "$VCLS" runtime.host)" "$C0H0" "$(val VirtualMachine "$VCLS" runtime.powerState)"
check "RemoveDatastore of it on DC0_C0_H0: ResourceInUse (a VM lives there)" bash -c 'grep -q "xsi:type=\"ResourceInUse\"" <<<"$0"' "$(unmount "$DSS1" "$N3")"
stop

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
