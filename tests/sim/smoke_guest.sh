#!/usr/bin/env bash
# Self-check of labsim's guest operations (guest.go) and datastore
# performance counters (perf.go) with curl. Usage (from the repository root):
#     tests/sim/smoke_guest.sh [path/to/labsim]      # default build/labsim
# Needs bash, curl, grep, sed, ps, awk, openssl and fio (Debian package "fio").
set -u

LABSIM=${1:-build/labsim}
. "$(dirname "$0")/smoke_lib.sh"

status() { sed -n 's/^HTTP //p'; }
returnval() { grep -o '<returnval[^>]*>[^<]*' | head -1 | sed 's/.*>//'; }
login() { soap "$1" Login SessionManager SessionManager "<userName>user</userName><password>pass</password>"; }
xmlesc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
is() { # is OUTPUT STATUS PATTERN: HTTP status and a pattern in the body
	[ "$(echo "$1" | status)" = "$2" ] && echo "$1" | grep -q -- "$3"
}
vmref() { soap "$J" FindByInventoryPath SearchIndex SearchIndex "<inventoryPath>DC0/vm/$1</inventoryPath>" | returnval; }

FM='GuestFileManager guestOperationsFileManager'
PM='GuestProcessManager guestOperationsProcessManager'
AM='GuestAuthManager guestOperationsAuthManager'
auth() { # auth VM [PASSWORD]: the vm and auth arguments
	echo "<vm type=\"VirtualMachine\">$1</vm><auth xsi:type=\"NamePasswordAuthentication\"><interactiveSession>false</interactiveSession><username>root</username><password>${2:-secret}</password></auth>"
}
guest() { # guest VM METHOD MANAGER_TYPE MANAGER_ID [ARGS_XML]
	local vm=$1 method=$2 type=$3 value=$4
	soap "$J" "$method" "$type" "$value" "$(auth "$vm")${5:-}"
}
star() { sed "s|https://\*/|https://$HOSTPORT/|"; } # -guest-transfer-star: * -> the server it called
# The client's part for a URL naming the VM's host: host name -> its management IP.
mapped() { sed "s|^https://$HNAME:$ESX_PORT/|https://$MGMT:$ESX_PORT/|"; }
val() { sed -n 's/.*<val[^>]*>\([^<]*\)<\/val>.*/\1/p'; }
prop() { # prop TYPE MOREF PATH: RetrievePropertiesEx of one property
	soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "<specSet><propSet><type>$1</type><pathSet>$3</pathSet></propSet><objectSet><obj type=\"$1\">$2</obj></objectSet></specSet><options/>"
}
servercert() { # servercert ADDR:PORT FILE: the certificate ADDR:PORT presents, as PEM
	openssl s_client -connect "$1" </dev/null 2>/dev/null | openssl x509 -outform PEM >"$2"
}
sha1of() { openssl x509 -in "$1" -noout -fingerprint -sha1 | sed 's/.*=//'; }
waitend() { # waitend VM PID: poll ListProcessesInGuest until endTime; prints the last answer
	local out
	for _ in $(seq 1 100); do
		# shellcheck disable=SC2086
		out=$(guest "$1" ListProcessesInGuest $PM "<pids>$2</pids>")
		echo "$out" | grep -q '<endTime>' && break
		sleep 0.2
	done
	echo "$out"
}

echo "# lab 1: guest operations on fiotest, faults, QueryPerf"
GLOG=$WORK/guest.log
launch -guest-log "$GLOG"
J=$WORK/j
login "$J" >/dev/null
FIO=$(vmref fiotest)
DEF=$(vmref DC0_H0_VM0)
OFF=$(vmref DC0_H0_VM1)
echo "     fiotest=$FIO DC0_H0_VM0=$DEF DC0_H0_VM1=$OFF"
ROOT=$DIR/guests/$FIO

# the ESXi hosts' endpoint: certificate, thumbprint, management IP
HOST=$(prop VirtualMachine "$FIO" runtime.host | val)
HNAME=$(prop HostSystem "$HOST" name | val)
ADV=$(prop HostSystem "$HOST" summary.config.sslThumbprint | val)
mgmt_ip() { prop HostSystem "$1" config.virtualNicManagerInfo.netConfig | sed 's/.*<nicType>management<\/nicType>//' | grep -o '<ipAddress>[^<]*' | head -1 | sed 's/.*>//'; }
MGMT=$(mgmt_ip "$HOST")
# Each host's own management IP: 127.A.B.(index by name + 1), A.B = the lab's pid.
A=$(((LAB_PID >> 8) & 255)) B=$((LAB_PID & 255))
[ "$A.$B" = 0.0 ] && A=255
PREFIX=127.$A.$B
echo "     fiotest runs on $HOST ($HNAME), management IP $MGMT; ESXi endpoint port $ESX_PORT"
check "ready line: host_thumbprint_sha1 20 uppercase hex pairs ($ESX_SHA1), host_transfer_port 443" \
	bash -c '[[ "$0" =~ ^([0-9A-F]{2}:){19}[0-9A-F]{2}$ && "$1" = 443 ]]' "$ESX_SHA1" "$ESX_PORT"
check "$HNAME (4th by name) has management IP $PREFIX.4 ($MGMT)" [ "$MGMT" = "$PREFIX.4" ]
servercert "$MGMT:$ESX_PORT" "$WORK/esx.pem"
servercert "$HOSTPORT" "$WORK/vc.pem"
ESXFP=$(sha1of "$WORK/esx.pem")
check "endpoint certificate SHA-1 = host_thumbprint_sha1 = $HNAME's summary.config.sslThumbprint" \
	bash -c '[ -n "$0" ] && [ "$0" = "$1" ] && [ "$0" = "$2" ]' "$ESXFP" "$ESX_SHA1" "$ADV"
check "endpoint certificate is not vCenter's (vCenter still presents lab-cert.pem)" \
	bash -c '[ "$0" != "$1" ] && [ "$1" = "$2" ] && ! cmp -s "$3" "$4"' "$ESXFP" "$(sha1of "$WORK/vc.pem")" "$(sha1of "$CA")" "$WORK/esx.pem" "$CA"
V=$(soap "$J" CreateContainerView ViewManager ViewManager '<container type="Folder">group-d1</container><type>HostSystem</type><recursive>true</recursive>' | returnval)
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "<specSet><propSet><type>HostSystem</type><pathSet>summary.config.sslThumbprint</pathSet><pathSet>config.virtualNicManagerInfo.netConfig</pathSet></propSet><objectSet><obj type=\"ContainerView\">$V</obj><skip>true</skip><selectSet xsi:type=\"TraversalSpec\"><name>view</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet></specSet><options/>")
MGMT_XML='<nicType>management</nicType><multiSelectAllowed>true</multiSelectAllowed><candidateVnic><device>vmk0</device><key>management.key-vim.host.VirtualNic-vmk0</key><portgroup>Management Network</portgroup><spec><ip><dhcp>false</dhcp><ipAddress>127[.0-9]*</ipAddress><subnetMask>255.0.0.0</subnetMask></ip></spec></candidateVnic><selectedVnic>management.key-vim.host.VirtualNic-vmk0</selectedVnic></VirtualNicManagerNetConfig>'
hosts=$(echo "$out" | grep -o '<obj type="HostSystem">' | wc -l)
thumbs=$(echo "$out" | grep -o "<name>summary.config.sslThumbprint</name><val[^>]*>$ESX_SHA1</val>" | wc -l)
ips=$(echo "$out" | grep -o -- "$MGMT_XML" | grep -o '<ipAddress>[^<]*' | sed 's/.*>//' | sort | tr '\n' ' ')
check "all $hosts hosts (cluster hosts too): that sslThumbprint ($thumbs), management = one selected vmk0 at an IP of its own ($ips)" \
	bash -c '[ "$0" = 4 ] && [ "$1" = 4 ] && [ "$2" = "$3.1 $3.2 $3.3 $3.4 " ]' "$hosts" "$thumbs" "$ips" "$PREFIX"
for i in 1 2 3 4; do
	servercert "$PREFIX.$i:443" "$WORK/esx$i.pem"
	check "the endpoint listens on $PREFIX.$i:443 with that certificate" [ "$(sha1of "$WORK/esx$i.pem")" = "$ESX_SHA1" ]
done

out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector '<specSet><propSet><type>GuestOperationsManager</type><pathSet>authManager</pathSet><pathSet>fileManager</pathSet><pathSet>processManager</pathSet></propSet><objectSet><obj type="GuestOperationsManager">guestOperationsManager</obj></objectSet></specSet><options/>')
check "GuestOperationsManager has authManager, fileManager, processManager" \
	bash -c 'echo "$0" | grep -q "type=\"GuestAuthManager\">guestOperationsAuthManager<" && echo "$0" | grep -q "type=\"GuestFileManager\">guestOperationsFileManager<" && echo "$0" | grep -q "type=\"GuestProcessManager\">guestOperationsProcessManager<"' "$out"

# shellcheck disable=SC2086
out=$(soap "$J" ValidateCredentialsInGuest $AM "$(auth "$FIO" wrong)")
check "wrong guest password: 500 InvalidGuestLogin" is "$out" 500 'xsi:type="InvalidGuestLogin"'
# shellcheck disable=SC2086
out=$(guest "$DEF" ValidateCredentialsInGuest $AM)
check "DC0_H0_VM0 (Tools not running): 500 GuestOperationsUnavailable" is "$out" 500 'xsi:type="GuestOperationsUnavailable"'
T=$(soap "$J" PowerOffVM_Task VirtualMachine "$OFF" | returnval)
sleep 0.2
# shellcheck disable=SC2086
out=$(guest "$OFF" StartProgramInGuest $PM '<spec xsi:type="GuestProgramSpec"><programPath>/bin/true</programPath><arguments></arguments></spec>')
check "powered-off VM ($T): 500 InvalidPowerState poweredOn/poweredOff" \
	is "$out" 500 'xsi:type="InvalidPowerState"><requestedState>poweredOn</requestedState><existingState>poweredOff</existingState>'
# shellcheck disable=SC2086
out=$(guest "$FIO" ValidateCredentialsInGuest $AM)
check "fiotest, root/secret: ValidateCredentialsInGuest 200" is "$out" 200 ValidateCredentialsInGuestResponse

# upload the job
printf '[smoke]\nsize=4M\nruntime=1\ntime_based=1\ndirectory=/var/tmp/x\n' >"$WORK/job.fio"
SIZE=$(wc -c <"$WORK/job.fio")
# shellcheck disable=SC2086
guest "$FIO" MakeDirectoryInGuest $FM '<directoryPath>/var/tmp/x</directoryPath><createParentDirectories>true</createParentDirectories>' >/dev/null
to_guest() { # to_guest PATH SIZE OVERWRITE
	# shellcheck disable=SC2086
	guest "$FIO" InitiateFileTransferToGuest $FM "<guestFilePath>$1</guestFilePath><fileAttributes xsi:type=\"GuestPosixFileAttributes\"><permissions>420</permissions></fileAttributes><fileSize>$2</fileSize><overwrite>$3</overwrite>"
}
out=$(to_guest /tmp/job.fio "$SIZE" false)
U=$(echo "$out" | returnval | sed 's/&amp;/\&/g')
check "InitiateFileTransferToGuest: https://$HNAME:$ESX_PORT/guestFile?id=N&token=T ($U)" \
	bash -c '[[ "$0" =~ ^https://$1:$2/guestFile\?id=[0-9]+\&token=[0-9a-f]+$ ]]' "$U" "$HNAME" "$ESX_PORT"
PQ=${U#https://*/} # guestFile?id=..&token=..
code=$(curl -sS --cacert "$CA" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$WORK/job.fio" "$BASE/$PQ")
check "vCenter's listener does not serve /guestFile: 404" [ "$code" = 404 ]
code=$(curl -s --cacert "$CA" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$WORK/job.fio" "$(echo "$U" | mapped)")
check "vCenter's certificate does not verify the endpoint" [ "$code" = 000 ]
code=$(curl -sS --cacert "$WORK/esx.pem" -o /dev/null -w '%{http_code}' "https://$MGMT:$ESX_PORT/sdk/vimServiceVersions.xml")
check "the endpoint serves nothing but /guestFile: /sdk/vimServiceVersions.xml 404" [ "$code" = 404 ]
code=$(curl -sS --cacert "$WORK/esx.pem" -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Length: 3' --data-binary 'abc' "$(echo "$U" | mapped)")
check "PUT with Content-Length != fileSize: 400" [ "$code" = 400 ]
code=$(curl -sS --cacert "$WORK/esx.pem" -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/octet-stream' --data-binary @"$WORK/job.fio" "$(echo "$U" | mapped)")
check "PUT the job to $MGMT:$ESX_PORT (the pinned certificate): 200" [ "$code" = 200 ]
code=$(curl -sS --cacert "$WORK/esx.pem" -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$WORK/job.fio" "$(echo "$U" | mapped)")
check "same URL again: 404 (one-shot)" [ "$code" = 404 ]
check "job in the guest root, directory= mapped into it" grep -qx "directory=$ROOT/var/tmp/x" "$ROOT/tmp/job.fio"
out=$(to_guest /tmp/job.fio "$SIZE" false)
check "overwrite=false on an existing file: 500 FileAlreadyExists" is "$out" 500 'xsi:type="FileAlreadyExists"><file>/tmp/job.fio</file>'

# run fio
ARGS="-c 'cd /tmp &amp;&amp; exec fio --output-format=json+ --output=out.json job.fio &gt; stdout.txt 2&gt; stderr.txt'"
t0=$(date +%s%N)
# shellcheck disable=SC2086
out=$(guest "$FIO" StartProgramInGuest $PM "<spec xsi:type=\"GuestProgramSpec\"><programPath>/bin/sh</programPath><arguments>$ARGS</arguments><workingDirectory>/root</workingDirectory><envVariables>LANG=C</envVariables></spec>")
PID=$(echo "$out" | returnval)
check "StartProgramInGuest fio: pid $PID" bash -c '[[ "$0" =~ ^[0-9]+$ ]]' "$PID"
out=$(waitend "$FIO" "$PID")
echo "     fio ran $((($(date +%s%N) - t0) / 1000000)) ms"
check "ListProcessesInGuest: endTime and <exitCode>0</exitCode>" \
	bash -c 'echo "$0" | grep -q "<pid>$1</pid><owner>root</owner><cmdLine>\(&quot;\|&#34;\)/bin/sh\(&quot;\|&#34;\) -c" && echo "$0" | grep -q "<endTime>[^<]*</endTime><exitCode>0</exitCode>"' "$out" "$PID"
# shellcheck disable=SC2086
out=$(guest "$FIO" InitiateFileTransferFromGuest $FM '<guestFilePath>/tmp/out.json</guestFilePath>')
U=$(echo "$out" | sed -n 's/.*<url>\([^<]*\)<\/url>.*/\1/p' | sed 's/&amp;/\&/g')
S=$(echo "$out" | sed -n 's/.*<size>\([^<]*\)<\/size>.*/\1/p')
check "InitiateFileTransferFromGuest: GuestPosixFileAttributes, size $S, url on $HNAME:$ESX_PORT" \
	bash -c 'echo "$0" | grep -q "<attributes xsi:type=\"GuestPosixFileAttributes\"><modificationTime>" && [ "$1" -gt 0 ] && [[ "$2" == https://$3:$4/guestFile\?id=* ]]' "$out" "$S" "$U" "$HNAME" "$ESX_PORT"
curl -sS --cacert "$WORK/esx.pem" -o "$WORK/out.json" "$(echo "$U" | mapped)"
check "GET gives fio JSON ($(wc -c <"$WORK/out.json") bytes = size)" \
	bash -c 'grep -q "\"fio version\"" "$0" && [ "$(wc -c <"$0")" = "$1" ]' "$WORK/out.json" "$S"
err=$(sed -n '/"jobs"/,$p' "$WORK/out.json" | grep -m1 '"error"' | tr -dc '0-9')
check "jobs[0].error is 0" [ "$err" = 0 ]
check "fio's data file is inside the guest root" bash -c 'ls "$0"/var/tmp/x/smoke.0.0 >/dev/null' "$ROOT"
code=$(curl -sS --cacert "$WORK/esx.pem" -o /dev/null -w '%{http_code}' "$(echo "$U" | mapped)")
check "GET again: 404 (one-shot)" [ "$code" = 404 ]
# shellcheck disable=SC2086
out=$(guest "$FIO" InitiateFileTransferFromGuest $FM '<guestFilePath>/tmp/nope.json</guestFilePath>')
check "missing file: 500 FileNotFound" is "$out" 500 'xsi:type="FileNotFound"><file>/tmp/nope.json</file>'
# shellcheck disable=SC2086
out=$(guest "$FIO" InitiateFileTransferFromGuest $FM '<guestFilePath>/tmp/stderr.txt</guestFilePath>')
check "empty file: <size>0</size> sent" is "$out" 200 '<size>0</size>'

# terminate
# shellcheck disable=SC2086
out=$(guest "$FIO" StartProgramInGuest $PM "<spec xsi:type=\"GuestProgramSpec\"><programPath>/bin/sh</programPath><arguments>-c 'sleep 100 &amp; sleep 100; wait'</arguments></spec>")
SPID=$(echo "$out" | returnval)
sleeps_in_group() { ps -eo pgid=,comm= | awk -v g="$1" '$1 == g && $2 == "sleep"' | wc -l; }
for _ in $(seq 1 600); do [ "$(sleeps_in_group "$SPID")" = 2 ] && break; sleep 0.1; done  # a hang guard
check "sleep 100 (pid $SPID) runs in its own process group with its child" \
	[ "$(sleeps_in_group "$SPID")" = 2 ]
# shellcheck disable=SC2086
out=$(guest "$FIO" ListProcessesInGuest $PM "<pids>$SPID</pids>")
check "running process listed without endTime/exitCode" bash -c 'echo "$0" | grep -q "<pid>$1</pid>" && ! echo "$0" | grep -q "<endTime>"' "$out" "$SPID"
# shellcheck disable=SC2086
out=$(guest "$FIO" TerminateProcessInGuest $PM "<pid>$SPID</pid>")
check "TerminateProcessInGuest: 200" is "$out" 200 TerminateProcessInGuestResponse
out=$(waitend "$FIO" "$SPID")
check "terminated: endTime, exitCode 143 (SIGTERM)" bash -c 'echo "$0" | grep -q "<endTime>[^<]*</endTime><exitCode>143</exitCode>"' "$out"
# As with Tools, only that process was signalled: its children live on, and
# ListProcessesInGuest lists them (the whole guest, not only what it started).
check "its children live on" bash -c '[ "$(ps -eo pgid=,stat=,comm= | awk -v g="$0" "\$1 == g && \$2 !~ /Z/ && \$3 == \"sleep\"" | wc -l)" = 2 ]' "$SPID"
# shellcheck disable=SC2086
out=$(guest "$FIO" ListProcessesInGuest $PM "")
check "ListProcessesInGuest lists them" bash -c '[ "$(echo "$0" | grep -o "<name>sleep</name>" | wc -l)" -ge 2 ]' "$out"
for child in $(ps -eo pid=,pgid=,comm= | awk -v g="$SPID" '$2 == g && $3 == "sleep" { print $1 }'); do
	# shellcheck disable=SC2086
	out=$(guest "$FIO" TerminateProcessInGuest $PM "<pid>$child</pid>")
	check "TerminateProcessInGuest ends child $child" is "$out" 200 TerminateProcessInGuestResponse
done
check "its children are gone once each was ended" bash -c '! ps -eo pgid=,stat=,comm= | awk -v g="$0" "\$1 == g && \$2 !~ /Z/ && \$3 == \"sleep\" { f = 1 } END { exit !f }"' "$SPID"
# shellcheck disable=SC2086
out=$(guest "$FIO" TerminateProcessInGuest $PM "<pid>999999</pid>")
check "unknown pid: 500 GuestProcessNotFound{pid}" is "$out" 500 'xsi:type="GuestProcessNotFound"><pid>999999</pid>'
# shellcheck disable=SC2086
out=$(guest "$FIO" ListProcessesInGuest $PM "<pids>999999</pids>")
check "ListProcessesInGuest unknown pid: empty" bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 200 ] && ! echo "$0" | grep -q "<returnval>"' "$out"
# shellcheck disable=SC2086
out=$(guest "$FIO" ListProcessesInGuest $PM "")
check "ListProcessesInGuest without pids: both processes" \
	bash -c 'echo "$0" | grep -q "<pid>$1</pid>" && echo "$0" | grep -q "<pid>$2</pid>"' "$out" "$PID" "$SPID"

# directories and files
# shellcheck disable=SC2086
out=$(guest "$FIO" MakeDirectoryInGuest $FM '<directoryPath>/tmp/a/b</directoryPath><createParentDirectories>false</createParentDirectories>')
check "MakeDirectoryInGuest without parents: 500 FileNotFound /tmp/a" is "$out" 500 '<file>/tmp/a</file>'
# shellcheck disable=SC2086
out=$(guest "$FIO" MakeDirectoryInGuest $FM '<directoryPath>/tmp/a/b</directoryPath><createParentDirectories>true</createParentDirectories>')
check "MakeDirectoryInGuest with parents: 200" is "$out" 200 MakeDirectoryInGuestResponse
# shellcheck disable=SC2086
out=$(guest "$FIO" DeleteDirectoryInGuest $FM '<directoryPath>/tmp/a</directoryPath><recursive>false</recursive>')
check "DeleteDirectoryInGuest non-empty, not recursive: 500 DirectoryNotEmpty" is "$out" 500 'xsi:type="DirectoryNotEmpty"'
# shellcheck disable=SC2086
out=$(guest "$FIO" DeleteDirectoryInGuest $FM '<directoryPath>/tmp/a</directoryPath><recursive>true</recursive>')
check "DeleteDirectoryInGuest recursive: 200, gone" bash -c 'echo "$0" | grep -q DeleteDirectoryInGuestResponse && [ ! -e "$1/tmp/a" ]' "$out" "$ROOT"
# shellcheck disable=SC2086
out=$(guest "$FIO" DeleteFileInGuest $FM '<filePath>/tmp/job.fio</filePath>')
check "DeleteFileInGuest: 200" is "$out" 200 DeleteFileInGuestResponse
# shellcheck disable=SC2086
out=$(guest "$FIO" DeleteFileInGuest $FM '<filePath>/tmp/job.fio</filePath>')
check "DeleteFileInGuest again: 500 FileNotFound" is "$out" 500 'xsi:type="FileNotFound"'

# performance
DS=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "<specSet><propSet><type>VirtualMachine</type><pathSet>datastore</pathSet></propSet><objectSet><obj type=\"VirtualMachine\">$FIO</obj></objectSet></specSet><options/>" | grep -o 'type="Datastore">[^<]*' | head -1 | sed 's/.*>//')
metrics=""
for k in 178 179 180 181 182 183; do metrics="$metrics<metricId><counterId>$k</counterId><instance>*</instance></metricId>"; done
out=$(soap "$J" QueryPerf PerformanceManager PerfMgr "<querySpec><entity type=\"HostSystem\">$HOST</entity><maxSample>3</maxSample>$metrics<intervalId>20</intervalId></querySpec>")
n=$(echo "$out" | grep -o '<sampleInfo>' | wc -l)
check "QueryPerf $HOST maxSample 3: 3 samples of 20 s" bash -c '[ "$1" = 3 ] && echo "$0" | grep -q "<interval>20</interval>"' "$out" "$n"
check "a series per counter for fiotest's datastore $DS, 3 non-zero values" \
	bash -c 'for k in 178 179 180 181 182 183; do echo "$0" | grep -q "<value xsi:type=\"PerfMetricIntSeries\"><id><counterId>$k</counterId><instance>$1</instance></id><value>[1-9][0-9]*</value><value>[1-9][0-9]*</value><value>[1-9][0-9]*</value></value>" || exit 1; done' "$out" "$DS"
ts=$(echo "$out" | grep -o '<timestamp>[^<]*' | sed 's/<timestamp>//' | tr '\n' ' ')
echo "     timestamps: $ts"
check "samples newest last" bash -c 'set -- $0; [[ "$1" < "$2" && "$2" < "$3" ]]' "$ts"
out=$(soap "$J" QueryPerfCounter PerformanceManager PerfMgr '<counterId>178</counterId><counterId>183</counterId>')
check "QueryPerfCounter 178, 183: 200 with numberReadAveraged, totalWriteLatency" \
	bash -c 'echo "$0" | grep -q "<key>numberReadAveraged</key>" && echo "$0" | grep -q "<key>totalWriteLatency</key>" && [ "$(echo "$0" | sed -n "s/^HTTP //p")" = 200 ]' "$out"

n=$(grep -c . "$GLOG")
check "guest log: one line per call ($n), e.g. StartProgramInGuest $FIO pid=$PID ok" \
	bash -c 'grep -q " StartProgramInGuest $1 pid=$2 ok$" "$0" && grep -q " PUT $1 path=\"/tmp/job.fio\" 200$" "$0" && grep -q " ValidateCredentialsInGuest $1 - InvalidGuestLogin$" "$0"' "$GLOG" "$FIO" "$PID"

# shellcheck disable=SC2086
out=$(guest "$FIO" StartProgramInGuest $PM "<spec xsi:type=\"GuestProgramSpec\"><programPath>/bin/sleep</programPath><arguments>100</arguments></spec>")
LPID=$(echo "$out" | returnval)
stop
for _ in $(seq 1 30); do kill -0 "$LPID" 2>/dev/null || break; sleep 0.1; done  # a busy machine is slow to reap
check "lab shutdown kills guest processes (sleep $LPID)" bash -c '! kill -0 "$0" 2>/dev/null' "$LPID"

echo "# lab 2: -tools-running none, -guest-password other"
launch -tools-running none -guest-password other
login "$J" >/dev/null
FIO=$(vmref fiotest)
# shellcheck disable=SC2086
out=$(soap "$J" ValidateCredentialsInGuest $AM "$(auth "$FIO" other)")
check "fiotest with -tools-running none: GuestOperationsUnavailable" is "$out" 500 'xsi:type="GuestOperationsUnavailable"'
stop
launch -tools-running DC0_H0_VM0 -guest-password other
login "$J" >/dev/null
DEF=$(vmref DC0_H0_VM0)
# shellcheck disable=SC2086
out=$(soap "$J" ValidateCredentialsInGuest $AM "$(auth "$DEF" other)")
check "-tools-running DC0_H0_VM0 -guest-password other: accepted" is "$out" 200 ValidateCredentialsInGuestResponse
# shellcheck disable=SC2086
out=$(soap "$J" ValidateCredentialsInGuest $AM "$(auth "$DEF" secret)")
check "... and secret refused" is "$out" 500 InvalidGuestLogin
stop

echo "# lab 3: -host-thumbprint wrong"
launch -host-thumbprint wrong
login "$J" >/dev/null
FIO=$(vmref fiotest)
HOST=$(prop VirtualMachine "$FIO" runtime.host | val)
ADV=$(prop HostSystem "$HOST" summary.config.sslThumbprint | val)
servercert "$(mgmt_ip "$HOST"):$ESX_PORT" "$WORK/esx.pem"
check "advertised sslThumbprint is well-formed ($ADV) but not the endpoint's certificate's (= host_thumbprint_sha1)" \
	bash -c '[[ "$0" =~ ^([0-9A-F]{2}:){19}[0-9A-F]{2}$ ]] && [ "$0" != "$1" ] && [ "$1" = "$2" ]' "$ADV" "$(sha1of "$WORK/esx.pem")" "$ESX_SHA1"
stop

echo "# lab 4: -guest-transfer-star (the old form)"
launch -guest-transfer-star
login "$J" >/dev/null
FIO=$(vmref fiotest)
out=$(to_guest /tmp/star.txt 3 false)
U=$(echo "$out" | returnval | sed 's/&amp;/\&/g')
check "InitiateFileTransferToGuest: https://*/guestFile?id=N&token=T ($U)" \
	bash -c '[[ "$0" =~ ^https://\*/guestFile\?id=[0-9]+\&token=[0-9a-f]+$ ]]' "$U"
code=$(curl -sS -k -o /dev/null -w '%{http_code}' -X PUT --data-binary 'abc' "https://$(mgmt_ip "$(prop VirtualMachine "$FIO" runtime.host | val)"):$ESX_PORT/${U#https://\*/}")
check "the ESXi endpoint does not serve it: 404" [ "$code" = 404 ]
code=$(curl -sS --cacert "$CA" -o /dev/null -w '%{http_code}' -X PUT --data-binary 'abc' "$(echo "$U" | star)")
check "PUT on vCenter's listener (* -> $HOSTPORT): 200, file in the guest root" \
	bash -c '[ "$0" = 200 ] && [ "$(cat "$1")" = abc ]' "$code" "$DIR/guests/$FIO/tmp/star.txt"
stop

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
