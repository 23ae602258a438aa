#!/usr/bin/env bash
# Self-check of what the lab's ESXi hosts see with curl: /folder HEAD and
# Range (folder.go), the hosts' endpoints and generic service tickets
# (hostendpoint.go, tickets.go), the per-host view of the NFS 4.1 bug, thin
# sizes and the browser (hostview.go, browser.go), locked extents. Usage
# (from the repository root):
#     tests/sim/smoke_hosts.sh [path/to/labsim]      # default build/labsim
# Needs bash, curl, grep, sed, stat, dd, head, tail, cmp.
set -u

LABSIM=${1:-build/labsim}
. "$(dirname "$0")/smoke_lib.sh"

J=$WORK/jar
returnval() { grep -o '<returnval[^>]*>[^<]*' | head -1 | sed 's/.*>//'; }
call() { soap "$J" "$@"; } # call METHOD THIS_TYPE THIS_VALUE [ARGS_XML]
start() { # start FLAGS...: a lab, logged in, with the usual morefs and PREFIX
	launch "$@"
	rm -f "$J"
	call Login SessionManager SessionManager '<userName>user</userName><password>pass</password>' >/dev/null
	local a=$(((LAB_PID >> 8) & 255)) b=$((LAB_PID & 255))
	[ "$a.$b" = 0.0 ] && a=255
	PREFIX=127.$a.$b # hosts by name: DC0_C0_H0 .1, DC0_C0_H1 .2, DC0_C0_H2 .3, DC0_H0 .4
	DC=$(find_path DC0)
	FIO=$(find_path DC0/vm/fiotest)
	EXPORTS=$DIR/nfs/10.0.0.5/mnt/tank
}
find_path() { call FindByInventoryPath SearchIndex SearchIndex "<inventoryPath>$1</inventoryPath>" | returnval; }
prop() { # prop TYPE ID PATH: the RetrievePropertiesEx answer
	call RetrievePropertiesEx PropertyCollector propertyCollector \
		"<specSet><propSet><type>$1</type><pathSet>$3</pathSet></propSet><objectSet><obj type=\"$1\">$2</obj></objectSet></specSet><options/>"
}
val() { prop "$@" | sed -n 's/.*<val[^>]*>\([^<]*\)<\/val>.*/\1/p'; }
run_task() { # run_task METHOD TYPE ID ARGS: waits for the task, prints its info
	local t out
	t=$(call "$@" | returnval)
	for _ in $(seq 1 300); do
		out=$(prop Task "$t" info)
		has "$out" '<state>success</state>\|<state>error</state>' && break
		sleep 0.1
	done
	echo "$out"
}
host_of() { find_path "DC0/host/$1" ; }
mount_all() { # mount_all PATH NAME TYPE: on every host; prints the datastore
	local h ref
	for h in DC0_C0/DC0_C0_H0 DC0_C0/DC0_C0_H1 DC0_C0/DC0_C0_H2 DC0_H0/DC0_H0; do
		ref=$(call CreateNasDatastore HostDatastoreSystem "$(val HostSystem "$(host_of "$h")" configManager.datastoreSystem)" \
			"<spec><remoteHost>10.0.0.5</remoteHost><remotePath>$1</remotePath><localPath>$2</localPath><accessMode>readWrite</accessMode><type>$3</type></spec>" | returnval)
	done
	echo "$ref"
}
mkdisk() { # mkdisk "[ds] dir/x.vmdk" KB
	run_task CreateVirtualDisk_Task VirtualDiskManager virtualDiskManager "<name>$1</name><datacenter type=\"Datacenter\">$DC</datacenter><spec xsi:type=\"FileBackedVirtualDiskSpec\"><diskType>thin</diskType><adapterType>lsiLogic</adapterType><capacityKb>$2</capacityKb></spec>"
}
mkdir_ds() { call MakeDirectory FileManager FileManager "<name>$1</name><datacenter type=\"Datacenter\">$DC</datacenter><createParentDirectories>true</createParentDirectories>" >/dev/null; }
search() { # search BROWSER "[ds] dir" PATTERN: FileQuery with fileSize
	run_task SearchDatastore_Task HostDatastoreBrowser "$1" "<datastorePath>$2</datastorePath><searchSpec><query xsi:type=\"FileQuery\"/><details><fileType>true</fileType><fileSize>true</fileSize><modification>false</modification><fileOwner>false</fileOwner></details><matchPattern>$3</matchPattern></searchSpec>"
}
ticket() { # ticket METHOD URL: the answer to AcquireGenericServiceTicket
	call AcquireGenericServiceTicket SessionManager SessionManager "<spec xsi:type=\"SessionManagerHttpServiceRequestSpec\"><method>$1</method><url>$(sed 's/&/\&amp;/g' <<<"$2")</url></spec>"
}
ticket_id() { ticket "$@" | grep -o '<id>[^<]*' | sed 's/<id>//'; }
# The hosts' certificate and its pinning are checked in smoke_guest.sh.
esx_curl() { curl -sS -k "$@"; }
esx_url() { echo "https://$1/folder/$2?dcPath=ha-datacenter&dsName=$3"; } # esx_url HOST PATH DS
vc_url() { echo "$BASE/folder/$1?dcPath=DC0&dsName=$2"; }                  # vc_url PATH DS
# esx_head IP HOSTNAME PATH DS: HEAD through that host with a fresh ticket; prints "STATUS LENGTH"
esx_head() {
	local t
	t=$(ticket_id httpHead "$(esx_url "$2" "$3" "$4")")
	esx_curl -I -b "vmware_cgi_ticket=$t" -o "$WORK/h" -w '%{http_code}' "$(esx_url "$1" "$3" "$4")"
	echo " $(sed -n 's/^Content-Length: \([0-9]*\).*/\1/ip' "$WORK/h")"
}
# vc_get PATH DS [CURL_ARGS...]: GET through vCenter; prints "STATUS" and keeps headers and body
vc_get() {
	local p=$1 ds=$2
	shift 2
	curl -sS --cacert "$CA" -b "$J" -D "$WORK/h" -o "$WORK/body" -w '%{http_code}' "$@" "$(vc_url "$p" "$ds")"
}
header() { sed -n "s/^$1: \(.*\)\r$/\1/ip" "$WORK/h"; }

echo "# lab 1: defaults; /folder HEAD and Range, tickets"
start
LOG=$EXPORTS/vmware/fiotest/vmware.log
LEN=$(stat -c %s "$LOG")
code=$(curl -sS --cacert "$CA" -b "$J" -I -o "$WORK/h" -w '%{http_code}' "$(vc_url fiotest/vmware.log truenas-vmware)")
check "vCenter HEAD vmware.log: 200, Content-Length $LEN" bash -c '[ "$0" = 200 ] && [ "$1" = "$2" ]' "$code" "$(header Content-Length)" "$LEN"
check "vCenter GET bytes=10-19: 206, Content-Range bytes 10-19/$LEN, those bytes" \
	bash -c '[ "$0" = 206 ] && [ "$1" = "bytes 10-19/$2" ] && cmp -s "$3" <(dd if="$4" bs=1 skip=10 count=10 2>/dev/null)' \
	"$(vc_get fiotest/vmware.log truenas-vmware -H 'Range: bytes=10-19')" "$(header Content-Range)" "$LEN" "$WORK/body" "$LOG"
check "vCenter GET bytes=100-: 206, the rest" \
	bash -c '[ "$0" = 206 ] && [ "$1" = "bytes 100-$(($2 - 1))/$2" ] && cmp -s "$3" <(tail -c +101 "$4")' \
	"$(vc_get fiotest/vmware.log truenas-vmware -H 'Range: bytes=100-')" "$(header Content-Range)" "$LEN" "$WORK/body" "$LOG"
check "vCenter GET bytes=$LEN-: 416, Content-Range bytes */$LEN" \
	bash -c '[ "$0" = 416 ] && [ "$1" = "bytes */$2" ]' "$(vc_get fiotest/vmware.log truenas-vmware -H "Range: bytes=$LEN-")" "$(header Content-Range)" "$LEN"
check "vCenter GET bytes=-19 (suffix): ignored, 200 and the whole file" \
	bash -c '[ "$0" = 200 ] && cmp -s "$1" "$2"' "$(vc_get fiotest/vmware.log truenas-vmware -H 'Range: bytes=-19')" "$WORK/body" "$LOG"

out=$(ticket httpHead "$(esx_url DC0_C0_H1 fiotest/fiotest-flat.vmdk truenas-vmware)")
check "AcquireGenericServiceTicket: id (32 hex), hostName DC0_C0_H1, sslThumbprint $ESX_SHA1" \
	bash -c 'grep -q "<returnval><id>[0-9a-f]\{32\}</id><hostName>DC0_C0_H1</hostName><sslThumbprint>$1</sslThumbprint></returnval>" <<<"$0"' "$out" "$ESX_SHA1"
T=$(grep -o '<id>[^<]*' <<<"$out" | sed 's/<id>//')
FLAT=$(esx_url "$PREFIX.2" fiotest/fiotest-flat.vmdk truenas-vmware)
code=$(esx_curl -I -b "vmware_cgi_ticket=$T" -o "$WORK/h" -w '%{http_code}' "$FLAT")
check "HEAD on DC0_C0_H1 ($PREFIX.2:443) with it: 200, Content-Length 17179869184" bash -c '[ "$0" = 200 ] && [ "$1" = 17179869184 ]' "$code" "$(header Content-Length)"
check "the same ticket again: 401 (single use)" [ "$(esx_curl -I -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "$FLAT")" = 401 ]
check "no ticket: 401" [ "$(esx_curl -I -o /dev/null -w '%{http_code}' "$FLAT")" = 401 ]
T=$(ticket_id httpHead "$(esx_url DC0_C0_H1 fiotest/fiotest-flat.vmdk truenas-vmware)")
check "a ticket for DC0_C0_H1 used on DC0_C0_H2: 403" [ "$(esx_curl -I -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "$(esx_url "$PREFIX.3" fiotest/fiotest-flat.vmdk truenas-vmware)")" = 403 ]
check "... a GET with a HEAD ticket: 403" [ "$(esx_curl -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "$FLAT")" = 403 ]
check "... another path: 403" [ "$(esx_curl -I -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "$(esx_url "$PREFIX.2" fiotest/fiotest.vmdk truenas-vmware)")" = 403 ]
check "... and then the right request still works: 200" [ "$(esx_curl -I -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "$FLAT")" = 200 ]
out=$(ticket httpGet "https://$PREFIX.3:443/folder/fiotest/vmware.log?dcPath=ha-datacenter&dsName=truenas-vmware")
check "a url naming the management IP $PREFIX.3:443: hostName DC0_C0_H2" bash -c 'grep -q "<hostName>DC0_C0_H2</hostName>" <<<"$0"' "$out"
T=$(grep -o '<id>[^<]*' <<<"$out" | sed 's/<id>//')
code=$(esx_curl -b "vmware_cgi_ticket=$T" -H 'Range: bytes=5-9' -D "$WORK/h" -o "$WORK/body" -w '%{http_code}' "$(esx_url "$PREFIX.3" fiotest/vmware.log truenas-vmware)")
check "GET with Range on the host: 206, bytes 5-9/$LEN" bash -c '[ "$0" = 206 ] && [ "$1" = "bytes 5-9/$2" ] && [ "$(wc -c <"$3")" = 5 ]' "$code" "$(header Content-Range)" "$LEN" "$WORK/body"
T=$(ticket_id httpHead "https://DC0_H0/folder/fiotest/vmware.log?dcPath=DC0&dsName=truenas-vmware")
check "dcPath other than ha-datacenter on a host: 404" [ "$(esx_curl -I -b "vmware_cgi_ticket=$T" -o /dev/null -w '%{http_code}' "https://$PREFIX.4/folder/fiotest/vmware.log?dcPath=DC0&dsName=truenas-vmware")" = 404 ]
out=$(ticket httpHead "https://esx99.lab/folder/x?dcPath=ha-datacenter&dsName=truenas-vmware")
check "a url naming no host: InvalidArgument spec.url" bash -c 'grep -q "<InvalidArgumentFault xmlns=\"urn:vim25\" xsi:type=\"InvalidArgument\"><invalidProperty>spec.url</invalidProperty>" <<<"$0"' "$out"
out=$(soap "$WORK/nosession" AcquireGenericServiceTicket SessionManager SessionManager "<spec xsi:type=\"SessionManagerHttpServiceRequestSpec\"><method>httpHead</method><url>https://DC0_H0/folder/x</url></spec>")
check "without a session: NotAuthenticated" bash -c 'grep -q NotAuthenticated <<<"$0"' "$out"
stop

echo "# lab 2: -nfs41-bug always -nfs41-bug-view host -thin-sizes allocated -browser-extents hide -locked-extents get -vc-folder-host DC0_C0_H2"
start -nfs41-bug always -nfs41-bug-view host -thin-sizes allocated -browser-extents hide -locked-extents get -vc-folder-host DC0_C0_H2
N41=$(mount_all /mnt/tank/vmware16k nfs41-16k NFS41)
mkdir_ds "[nfs41-16k] canary"
out=$(mkdisk "[nfs41-16k] canary/c1.vmdk" 1048576)
check "CreateVirtualDisk (the lab's first): success, the export holds 1 GiB" \
	bash -c 'grep -q "<state>success</state>" <<<"$0" && [ "$(stat -c %s "$1/vmware16k/canary/c1-flat.vmdk")" = 1073741824 ]' "$out" "$EXPORTS"
check "stderr: nfs41 bug strikes ... seen short by DC0_C0_H0 (host 0 of 4 by name)" \
	grep -q 'nfs41 bug strikes: CreateVirtualDisk \[nfs41-16k\] canary/c1.vmdk seen short by DC0_C0_H0 ' "$WORK/labsim.err"
seen=$(for h in 1:DC0_C0_H0 2:DC0_C0_H1 3:DC0_C0_H2 4:DC0_H0; do esx_head "$PREFIX.${h%%:*}" "${h#*:}" canary/c1-flat.vmdk nfs41-16k; done | tr '\n' ,)
check "HEAD through each host: DC0_C0_H0 sees 0, the others 1 GiB ($seen)" [ "$seen" = "200 0,200 1073741824,200 1073741824,200 1073741824," ]
code=$(curl -sS --cacert "$CA" -b "$J" -I -o "$WORK/h" -w '%{http_code}' "$(vc_url canary/c1-flat.vmdk nfs41-16k)")
check "vCenter HEAD (-vc-folder-host DC0_C0_H2): 1 GiB" bash -c '[ "$0" = 200 ] && [ "$1" = 1073741824 ]' "$code" "$(header Content-Length)"
mkdisk "[nfs41-16k] canary/c2.vmdk" 1024 >/dev/null
seen="$(esx_head "$PREFIX.1" DC0_C0_H0 canary/c2-flat.vmdk nfs41-16k),$(esx_head "$PREFIX.2" DC0_C0_H1 canary/c2-flat.vmdk nfs41-16k)"
check "the second CreateVirtualDisk is DC0_C0_H1's: it sees 0, DC0_C0_H0 1 MiB ($seen)" [ "$seen" = "200 1048576,200 0" ]
out=$(search "$(val Datastore "$N41" browser)" "[nfs41-16k] canary" '*')
check "-browser-extents hide: descriptors listed, no -flat.vmdk" \
	bash -c 'grep -q "<path>c1.vmdk</path>" <<<"$0" && grep -q "<path>c2.vmdk</path>" <<<"$0" && ! grep -q -- "-flat.vmdk" <<<"$0"' "$out"
out=$(search "$(val Datastore "$N41" browser)" "[nfs41-16k] canary" '*-flat.vmdk')
check "... not even for the pattern *-flat.vmdk" bash -c 'grep -q "<state>success</state>" <<<"$0" && ! grep -q "<file" <<<"$0"' "$out"
dd if=/dev/urandom of="$EXPORTS/vmware/fiotest/fiotest-flat.vmdk" bs=4096 count=256 seek=1000 conv=notrunc 2>/dev/null
call RefreshStorageInfo VirtualMachine "$FIO" >/dev/null
out=$(prop VirtualMachine "$FIO" layoutEx)
check "-thin-sizes allocated: layoutEx size of fiotest-flat.vmdk = its 1 MiB allocated (length 16 GiB)" \
	bash -c 'grep -q "<name>\[truenas-vmware\] fiotest/fiotest-flat.vmdk</name><type>diskExtent</type><size>1048576</size><uniqueSize>1048576</uniqueSize>" <<<"$0"' "$out"
out=$(search "$(val HostSystem "$(host_of DC0_H0/DC0_H0)" datastoreBrowser)" "[truenas-vmware] fiotest" '*.vmdk')
check "DC0_H0's own browser: fiotest.vmdk listed, its extent not" bash -c 'grep -q "<path>fiotest.vmdk</path>" <<<"$0" && ! grep -q -- "-flat" <<<"$0"' "$out"
check "-locked-extents get: GET of running fiotest's extent: 500 Device or resource busy" \
	bash -c '[ "$0" = 500 ] && grep -q "Device or resource busy" "$1"' "$(vc_get fiotest/fiotest-flat.vmdk truenas-vmware -H 'Range: bytes=0-0')" "$WORK/body"
code=$(curl -sS --cacert "$CA" -b "$J" -I -o "$WORK/h" -w '%{http_code}' "$(vc_url fiotest/fiotest-flat.vmdk truenas-vmware)")
check "... HEAD still works: 200, 16 GiB" bash -c '[ "$0" = 200 ] && [ "$1" = 17179869184 ]' "$code" "$(header Content-Length)"
check "... its vmware.log is no extent: 200" [ "$(vc_get fiotest/vmware.log truenas-vmware)" = 200 ]
check "... a canary (no VM's): 206" [ "$(vc_get canary/c1-flat.vmdk nfs41-16k -H 'Range: bytes=0-0')" = 206 ]
stop

# The short view heals HEAL s after the disk is made by the lab's clock,
# which moves only when this test advances it (-clock manual): the checks
# of the short view hold however loaded the machine.
HEAL=12
echo "# lab 3: -nfs41-bug always -nfs41-bug-view host -nfs41-bug-heal $HEAL -clock manual -locked-extents all -suffix-ranges honour"
start -nfs41-bug always -nfs41-bug-view host -nfs41-bug-heal $HEAL -clock manual -locked-extents all -suffix-ranges honour -thin-sizes length -browser-extents show
N41=$(mount_all /mnt/tank/vmware16k nfs41-16k NFS41)
mkdir_ds "[nfs41-16k] canary"
mkdisk "[nfs41-16k] canary/c1.vmdk" 1024 >/dev/null
sizes=
for _ in $(seq 1 16); do
	curl -sS --cacert "$CA" -b "$J" -I -o "$WORK/h" "$(vc_url canary/c1-flat.vmdk nfs41-16k)"
	sizes="$sizes $(header Content-Length)"
done
check "vCenter HEAD, host drawn at random: both 0 and 1 MiB seen ($sizes)" bash -c 'grep -qw 0 <<<"$0" && grep -qw 1048576 <<<"$0"' "$sizes"
out=$(search "$(val HostSystem "$(host_of DC0_C0/DC0_C0_H0)" datastoreBrowser)" "[nfs41-16k] canary" '*-flat.vmdk')
check "DC0_C0_H0's browser: c1-flat.vmdk fileSize 0 (lengths: -thin-sizes length)" bash -c 'grep -q "<path>c1-flat.vmdk</path><fileSize>0</fileSize>" <<<"$0"' "$out"
out=$(search "$(val HostSystem "$(host_of DC0_H0/DC0_H0)" datastoreBrowser)" "[nfs41-16k] canary" '*-flat.vmdk')
check "DC0_H0's browser: 1048576 (-browser-extents show)" bash -c 'grep -q "<path>c1-flat.vmdk</path><fileSize>1048576</fileSize>" <<<"$0"' "$out"
advance "$((HEAL * 1000 - 1))ms" >/dev/null
check "1 ms before $HEAL s: DC0_C0_H0 still sees 0" [ "$(esx_head "$PREFIX.1" DC0_C0_H0 canary/c1-flat.vmdk nfs41-16k)" = "200 0" ]
advance 1ms >/dev/null
check "after $HEAL s the view healed: DC0_C0_H0 sees 1 MiB" [ "$(esx_head "$PREFIX.1" DC0_C0_H0 canary/c1-flat.vmdk nfs41-16k)" = "200 1048576" ]
out=$(run_task RelocateVM_Task VirtualMachine "$FIO" "<spec><datastore type=\"Datastore\">$N41</datastore><disk><diskId>2000</diskId><datastore type=\"Datastore\">$N41</datastore></disk></spec>")
check "hot Storage vMotion of fiotest to NFS 4.1: fails, the export holds the whole 16 GiB extent" \
	bash -c 'grep -q "<state>error</state>" <<<"$0" && [ "$(stat -c %s "$1/vmware16k/fiotest/fiotest-flat.vmdk")" = 17179869184 ]' "$out" "$EXPORTS"
check "stderr: seen short by DC0_H0 (the VM's host); vmware.log: realSize is 0" \
	bash -c 'grep -q "nfs41 bug strikes: Storage vMotion of fiotest to \[nfs41-16k\] fiotest/fiotest-flat.vmdk seen short by DC0_H0 " "$0" && grep -q "realSize is 0, size in descriptor 33554432" "$1"' "$WORK/labsim.err" "$EXPORTS/vmware/fiotest/vmware.log"
seen="$(esx_head "$PREFIX.4" DC0_H0 fiotest/fiotest-flat.vmdk nfs41-16k),$(esx_head "$PREFIX.1" DC0_C0_H0 fiotest/fiotest-flat.vmdk nfs41-16k)"
check "DC0_H0 sees the target extent 0 bytes, DC0_C0_H0 16 GiB ($seen)" [ "$seen" = "200 0,200 17179869184" ]
code=$(curl -sS --cacert "$CA" -b "$J" -I -o "$WORK/h" -w '%{http_code}' "$(vc_url fiotest/fiotest-flat.vmdk truenas-vmware)")
check "-locked-extents all: HEAD of running fiotest's extent: 500" [ "$code" = 500 ]
L=$(stat -c %s "$EXPORTS/vmware/fiotest/vmware.log")
check "-suffix-ranges honour: bytes=-19 gives 206 and the last 19 bytes" \
	bash -c '[ "$0" = 206 ] && [ "$1" = "bytes $(($2 - 19))-$(($2 - 1))/$2" ] && cmp -s "$3" <(tail -c 19 "$4")' \
	"$(vc_get fiotest/vmware.log truenas-vmware -H 'Range: bytes=-19')" "$(header Content-Range)" "$L" "$WORK/body" "$EXPORTS/vmware/fiotest/vmware.log"
stop

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
