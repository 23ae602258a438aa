#!/usr/bin/env bash
# Self-check of labsim with curl: runs a few labs and checks each behaviour
# the C integration tests rely on. Usage (from the repository root):
#     tests/sim/smoke.sh [path/to/labsim]      # default build/labsim
# Needs bash, curl, grep, sed, sort; openssl is used if present.
set -u

LABSIM=${1:-build/labsim}
. "$(dirname "$0")/smoke_lib.sh"

status() { sed -n 's/^HTTP //p'; }
returnval() { grep -o '<returnval[^>]*>[^<]*' | head -1 | sed 's/.*>//'; }
login() { soap "$1" Login SessionManager SessionManager "<userName>${2:-user}</userName><password>${3:-pass}</password>"; }
has() { grep -q -- "$1"; }

viewspec() { # viewspec VIEW: PropertyFilterSpec for VM names through a container view
	echo "<specSet><propSet><type>VirtualMachine</type><pathSet>name</pathSet></propSet><objectSet><obj type=\"ContainerView\">$1</obj><skip>true</skip><selectSet xsi:type=\"TraversalSpec\"><name>view</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet></specSet>"
}
vmview() { soap "$1" CreateContainerView ViewManager ViewManager '<container type="Folder">group-d1</container><type>VirtualMachine</type><recursive>true</recursive>' | returnval; }

# Labs 1 and 2 count VMs: without the seed VMs (fiotest, db01, Bjørn test;
# see smoke_nfs.sh) there are exactly -vms of them.
echo "# lab 1: defaults, methods log"
MLOG=$WORK/methods.log
launch -methods-log "$MLOG" -seed-vms=false
J=$WORK/j1

check "curl --cacert verifies the lab certificate" \
	curl -sS --cacert "$CA" -o /dev/null "$BASE/sdk/vimServiceVersions.xml"
check "curl without --cacert refuses it" \
	bash -c "! curl -s -o /dev/null '$BASE/sdk/vimServiceVersions.xml'"
command -v openssl >/dev/null || { echo "FAIL: openssl not found (scripts/deps.sh installs it)"; exit 1; }
fp=$(openssl x509 -in "$CA" -noout -fingerprint -sha256 | sed 's/.*=//')
check "thumbprint is SHA256 of the certificate ($THUMB)" [ "SHA256:$fp" = "$THUMB" ]
check "certificate has CA:TRUE and SANs 127.0.0.1, localhost" \
	bash -c "openssl x509 -in '$CA' -noout -text | grep -q 'CA:TRUE' && openssl x509 -in '$CA' -noout -text | grep -q 'IP Address:127.0.0.1' && openssl x509 -in '$CA' -noout -text | grep -q 'DNS:localhost'"
want='<?xml version="1.0" encoding="UTF-8" ?><namespaces version="1.0"><namespace><name>urn:vim25</name><version>6.5</version><priorVersions><version>6.0</version></priorVersions></namespace></namespaces>'
check "vimServiceVersions.xml" [ "$(curl -sS --cacert "$CA" "$BASE/sdk/vimServiceVersions.xml")" = "$want" ]

out=$(login "$J" administrator secret)
check "Login with other credentials: 500 InvalidLogin" bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 500 ] && echo "$0" | grep -q "xsi:type=\"InvalidLogin\""' "$out"
out=$(login "$J" user wrong)
check "Login user/wrong: 500 InvalidLogin" bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 500 ] && echo "$0" | grep -q InvalidLogin' "$out"
check "Login user/pass: 200" [ "$(login "$J" | status)" = 200 ]

N=$WORK/nosession
out=$(soap "$N" CurrentTime ServiceInstance ServiceInstance)
check "no session: CurrentTime is 500 NotAuthenticated" bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 500 ] && echo "$0" | grep -q "xsi:type=\"NotAuthenticated\""' "$out"
out=$(soap "$N" RetrievePropertiesEx PropertyCollector propertyCollector '<specSet><propSet><type>HostSystem</type><pathSet>name</pathSet></propSet><objectSet><obj type="HostSystem">host-21</obj></objectSet></specSet><options/>')
check "no session: RetrievePropertiesEx is 200 with NotAuthenticated in missingSet" \
	bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 200 ] && echo "$0" | grep -q "<missingSet><path>name</path><fault><fault[^>]*type=\"NotAuthenticated\""' "$out"
out=$(soap "$N" Fetch ServiceInstance ServiceInstance '<prop>content</prop>')
check "no session: Fetch is 500 NotAuthenticated" bash -c 'echo "$0" | grep -q NotAuthenticated' "$out"

f="$BASE/folder/DC0_H0_VM0/vmware.log?dcPath=DC0&dsName=LocalDS_0"
check "/folder without cookie: 401" [ "$(curl -sS --cacert "$CA" -o /dev/null -w '%{http_code}' "$f")" = 401 ]
check "/folder with a bogus cookie: 401" [ "$(curl -sS --cacert "$CA" -H 'Cookie: vmware_soap_session="nope"' -o /dev/null -w '%{http_code}' "$f")" = 401 ]
check "/folder with the session cookie: 200" [ "$(curl -sS --cacert "$CA" -b "$J" -o /dev/null -w '%{http_code}' "$f")" = 200 ]

V=$(vmview "$J")
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options><maxObjects>3</maxObjects></options>")
tok=$(echo "$out" | sed -n 's/.*<token>\([^<]*\)<\/token>.*/\1/p')
check "maxObjects=3 of 4 VMs: 3 objects and a token" bash -c '[ "$(echo "$0" | grep -o "<objects>" | wc -l)" = 3 ] && [ -n "$1" ]' "$out" "$tok"
out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
check "ContinueRetrievePropertiesEx: last object, no token" bash -c '[ "$(echo "$0" | grep -o "<objects>" | wc -l)" = 1 ] && ! echo "$0" | grep -q "<token>"' "$out"
out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
check "used token: 500 InvalidArgument" bash -c 'echo "$0" | grep -q "type=\"InvalidArgument\""' "$out"
tok=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options><maxObjects>1</maxObjects></options>" | sed -n 's/.*<token>\([^<]*\)<\/token>.*/\1/p')
check "CancelRetrievePropertiesEx: 200" [ "$(soap "$J" CancelRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>" | status)" = 200 ]
out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
check "cancelled token is gone: InvalidArgument" bash -c 'echo "$0" | grep -q "type=\"InvalidArgument\""' "$out"
check "POST /lab/clock without -clock manual: 409 (the clock is the wall)" \
	[ "$(curl -sS --cacert "$CA" -X POST -o /dev/null -w '%{http_code}' "$BASE/lab/clock?advance=1s")" = 409 ]

stop
check "temporary lab directory removed at exit" [ ! -e "$DIR" ]
# Calls made to lab 1: 3 Login, CurrentTime, RetrievePropertiesEx(no session), Fetch,
# CreateContainerView, 2 RetrievePropertiesEx, 2 Continue, Cancel, Continue
# (and RetrievePropertiesEx without session above: 3 in all).
count() { grep -c " $1 $2\$" "$MLOG"; }
check "methods log: 3 Login (2 failed)" [ "$(count Login 500)/$(count Login 200)" = 2/1 ]
check "methods log: RetrievePropertiesEx x3, Continue x3, Cancel x1" \
	bash -c '[ "$(grep -c " RetrievePropertiesEx " "$0")" = 3 ] && [ "$(grep -c " ContinueRetrievePropertiesEx " "$0")" = 3 ] && [ "$(grep -c " CancelRetrievePropertiesEx 200" "$0")" = 1 ]' "$MLOG"
check "methods log lines look like '<unix-ms> <Method> <status>'" \
	bash -c '! grep -vqE "^[0-9]{13} [A-Za-z_]+ [0-9]{3}$" "$0"' "$MLOG"

echo "# lab 2: -hosts 50 -vms 2000, paging with maxObjects=100"
t0=$(date +%s%N)
launch -hosts 50 -vms 2000 -seed-vms=false
echo "     (ready after $((($(date +%s%N) - t0) / 1000000)) ms)"
J=$WORK/j2
login "$J" >/dev/null
V=$(vmview "$J")
names=$WORK/names
: >"$names"
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options><maxObjects>100</maxObjects></options>")
pages=1
tokens=
while :; do
	echo "$out" | grep -o 'xsd:string">[^<]*' | sed 's/.*>//' >>"$names"
	tok=$(echo "$out" | sed -n 's/.*<token>\([^<]*\)<\/token>.*/\1/p')
	[ -z "$tok" ] && break
	tokens="$tokens $tok"
	out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
	pages=$((pages + 1))
done
check "2000 VMs in $pages pages of <= 100 (want >= 20)" [ "$pages" -ge 20 ]
check "every VM exactly once ($(wc -l <"$names") names, $(sort -u "$names" | wc -l) distinct)" \
	bash -c '[ "$(wc -l <"$0")" = 2000 ] && [ "$(sort -u "$0" | wc -l)" = 2000 ]' "$names"
check "names DC0_H0_VM0..999 and DC0_C0_RP0_VM0..999" \
	bash -c 'grep -qx DC0_H0_VM999 "$0" && grep -qx DC0_C0_RP0_VM999 "$0" && [ "$(grep -c "^DC0_H0_VM" "$0")" = 1000 ]' "$names"
n=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options/>" | grep -o '<objects>' | wc -l)
check "without maxObjects: all 2000 in one reply" [ "$n" = 2000 ]
n=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector '<specSet><propSet><type>HostSystem</type><pathSet>name</pathSet></propSet><objectSet><obj type="Folder">group-d1</obj><skip>true</skip><selectSet xsi:type="TraversalSpec"><name>f</name><type>Folder</type><path>childEntity</path><selectSet><name>f</name></selectSet><selectSet><name>dc</name></selectSet><selectSet><name>cr</name></selectSet></selectSet><selectSet xsi:type="TraversalSpec"><name>dc</name><type>Datacenter</type><path>hostFolder</path><selectSet><name>f</name></selectSet></selectSet><selectSet xsi:type="TraversalSpec"><name>cr</name><type>ComputeResource</type><path>host</path></selectSet></objectSet></specSet><options/>' | grep -o '<objects>' | wc -l)
check "50 hosts" [ "$n" = 50 ]
stop

echo "# lab 3: -expire-after 5"
launch -expire-after 5
J=$WORK/j3
login "$J" >/dev/null                                         # call 1
V=$(vmview "$J")                                              # call 2
tok=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options><maxObjects>1</maxObjects></options>" |
	sed -n 's/.*<token>\([^<]*\)<\/token>.*/\1/p')              # call 3
check "before expiry: CurrentTime 200" [ "$(soap "$J" CurrentTime ServiceInstance ServiceInstance | status)" = 200 ] # call 4
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector '<specSet><propSet><type>HostSystem</type><pathSet>name</pathSet></propSet><objectSet><obj type="HostSystem">host-21</obj></objectSet></specSet><options/>') # call 5
check "call 5, RetrievePropertiesEx: 200 + missingSet NotAuthenticated" \
	bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 200 ] && echo "$0" | grep -q "<missingSet><path>name</path><fault><fault[^>]*type=\"NotAuthenticated\""' "$out"
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options><maxObjects>1</maxObjects></options>")
check "old container view, RetrievePropertiesEx: 200 + missingSet NotAuthenticated" \
	bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 200 ] && echo "$0" | grep -q "type=\"NotAuthenticated\""' "$out"
out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
check "old token, ContinueRetrievePropertiesEx: 500 NotAuthenticated" \
	bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 500 ] && echo "$0" | grep -q "xsi:type=\"NotAuthenticated\""' "$out"
out=$(soap "$J" CurrentTime ServiceInstance ServiceInstance)
check "CurrentTime: 500 NotAuthenticated" \
	bash -c '[ "$(echo "$0" | sed -n "s/^HTTP //p")" = 500 ] && echo "$0" | grep -q "xsi:type=\"NotAuthenticated\""' "$out"
check "Login again: 200" [ "$(login "$J" | status)" = 200 ]
out=$(soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "$(viewspec "$V")<options/>")
check "old container view in the new session: ManagedObjectNotFound" bash -c 'echo "$0" | grep -q ManagedObjectNotFound' "$out"
out=$(soap "$J" ContinueRetrievePropertiesEx PropertyCollector propertyCollector "<token>$tok</token>")
check "old token in the new session: InvalidArgument" bash -c 'echo "$0" | grep -q InvalidArgument' "$out"
check "new session works" [ "$(soap "$J" CurrentTime ServiceInstance ServiceInstance | status)" = 200 ]
stop

echo "# lab 4/5: 503 injection"
run503() {
	launch "$@"
	local j=$WORK/j4 s=""
	rm -f "$j"
	s=$(login "$j" | status)
	for _ in $(seq 1 30); do s="$s $(soap "$j" CurrentTime ServiceInstance ServiceInstance | status)"; done
	stop
	echo "$s"
}
a=$(run503 -fail-503 0.3 -seed 7 -fail-503-after 1)
b=$(run503 -fail-503 0.3 -seed 7 -fail-503-after 1)
c=$(run503 -fail-503 0.3 -seed 8 -fail-503-after 1)
echo "     seed 7: $a"
echo "     seed 8: $c"
check "-fail-503 0.3: login passes, some calls 503, some 200" bash -c '[ "${0%% *}" = 200 ] && echo "$0" | grep -q 503 && echo "${0#* }" | grep -q 200' "$a"
check "same seed, same failures; other seed, others" bash -c '[ "$0" = "$1" ] && [ "$0" != "$2" ]' "$a" "$b" "$c"
d=$(run503 -fail-burst 3 -fail-503-after 2)
echo "     burst: $(echo "$d" | cut -d' ' -f1-8)"
check "-fail-burst 3 -fail-503-after 2: calls 3,4,5 get 503" [ "$(echo "$d" | cut -d' ' -f1-7)" = "200 200 503 503 503 200 200" ]
launch -fail-burst 1
out=$(curl -sS --cacert "$CA" -i --data-binary x "$URL")
check "503 answer: status line and short body" bash -c 'echo "$0" | head -1 | grep -q "503 Service Unavailable"' "$out"
stop

echo "# lab 6: -task-seconds 2 -task-steps 4 -clock manual"
# The tasks' steps wait on the lab's clock, which moves only when this test
# advances it (POST /lab/clock): every check holds however loaded the machine.
launch -task-seconds 2 -task-steps 4 -clock manual
J=$WORK/j6
login "$J" >/dev/null
PC=$(soap "$J" CreatePropertyCollector PropertyCollector propertyCollector | returnval)
powerstate() {
	soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "<specSet><propSet><type>VirtualMachine</type><pathSet>runtime.powerState</pathSet></propSet><objectSet><obj type=\"VirtualMachine\">$1</obj></objectSet></specSet><options/>" |
		grep -o 'PowerState">[^<]*' | sed 's/.*>//'
}
taskinfo() { soap "$J" RetrievePropertiesEx PropertyCollector propertyCollector "<specSet><propSet><type>Task</type><pathSet>info</pathSet></propSet><objectSet><obj type=\"Task\">$1</obj></objectSet></specSet><options/>"; }
wfu() { # wfu [MAXWAIT]: sets step to the next WaitForUpdatesEx's assignments, "name=value ...", and ver
	local out
	out=$(soap "$J" WaitForUpdatesEx PropertyCollector "$PC" "<version>$ver</version><options><maxWaitSeconds>${1:-10}</maxWaitSeconds></options>")
	ver=$(echo "$out" | sed -n 's/.*<version>\([^<]*\)<\/version>.*/\1/p' | grep . || echo "$ver") # none: nothing new
	step=$(echo "$out" | grep -o '<name>info\.[a-z]*</name><op>assign</op><val[^>]*>[^<]*' | sed 's/<name>info\.\([a-z]*\)<\/name><op>assign<\/op><val[^>]*>/\1=/' | tr '\n' ' ')
}
VM=vm-57
t0=$(clock)
T=$(soap "$J" PowerOffVM_Task VirtualMachine "$VM" | returnval)
check "PowerOffVM_Task returns at once: task $T running, VM still poweredOn, clock still $t0" \
	bash -c 'grep -q "<state>running</state>" <<<"$0" && [ "$1" = poweredOn ] && [ "$2" = "$3" ]' "$(taskinfo "$T")" "$(powerstate $VM)" "$(clock)" "$t0"
soap "$J" CreateFilter PropertyCollector "$PC" "<spec><propSet><type>Task</type><pathSet>info.state</pathSet><pathSet>info.progress</pathSet><pathSet>info.error</pathSet><pathSet>info.result</pathSet></propSet><objectSet><obj type=\"Task\">$T</obj></objectSet></spec><partialUpdates>false</partialUpdates>" >/dev/null
ver=
wfu
check "WaitForUpdatesEx: running, progress 0 ($step)" [ "$step" = "state=running progress=0 " ]
t=$(advance 499ms)
wfu 0 # maxWaitSeconds 0: what has changed, without waiting
check "advance 499ms: the clock reads $t, no update yet ($step)" \
	bash -c '[ $(($(date -u -d "$1" +%s%N) - $(date -u -d "$0" +%s%N))) = 499000000 ] && [ -z "$2" ]' "$t0" "$t" "$step"
for p in 25:1ms 50:500ms 75:500ms; do # a step every 500 ms
	advance "${p#*:}" >/dev/null
	wfu
	check "advance ${p#*:}: WaitForUpdatesEx sees progress=${p%:*} alone ($step)" [ "$step" = "progress=${p%:*} " ]
done
check "VM still poweredOn before the last step" [ "$(powerstate $VM)" = poweredOn ]
t1=$(advance 500ms)
wfu
check "the last step: progress 100, state success ($step)" [ "$step" = "progress=100 state=success " ]
check "VM poweredOff after the task" [ "$(powerstate $VM)" = poweredOff ]
info=$(taskinfo "$T")
st=$(echo "$info" | sed -n 's/.*<startTime>\([^<]*\)<.*/\1/p')
qt=$(echo "$info" | sed -n 's/.*<queueTime>\([^<]*\)<.*/\1/p')
ct=$(echo "$info" | sed -n 's/.*<completeTime>\([^<]*\)<.*/\1/p')
check "queueTime = startTime = the clock at the call, completeTime 2000 ms later = the clock now" \
	bash -c '[ "$0" = "$3" ] && [ "$1" = "$3" ] && [ "$2" = "$4" ] && [ $(($(date -u -d "$2" +%s%N) - $(date -u -d "$1" +%s%N))) = 2000000000 ]' "$qt" "$st" "$ct" "$t0" "$t1"
T=$(soap "$J" PowerOffVM_Task VirtualMachine "$VM" | returnval)
check "PowerOff of a poweredOff VM: running until its time is up" bash -c 'grep -q "<state>running</state>" <<<"$0"' "$(taskinfo "$T")"
advance 2s >/dev/null
out=$(taskinfo "$T")
check "... then task error InvalidPowerState" \
	bash -c 'echo "$0" | grep -q "<state>error</state>" && echo "$0" | grep -q InvalidPowerState' "$out"
out=$(soap "$WORK/none6" PowerOnVM_Task VirtualMachine "$VM")
check "slow task without a session: 500 NotAuthenticated" bash -c 'echo "$0" | grep -q "xsi:type=\"NotAuthenticated\""' "$out"
check "/lab/clock?advance=-1s: 400" [ "$(curl -sS --cacert "$CA" -X POST -o /dev/null -w '%{http_code}' "$BASE/lab/clock?advance=-1s")" = 400 ]
stop

echo "# lab 7: -task-seconds 5 -slow-tasks-first 1 -clock manual"
launch -task-seconds 5 -slow-tasks-first 1 -clock manual
J=$WORK/j7
login "$J" >/dev/null
soap "$J" PowerOffVM_Task VirtualMachine vm-57 >/dev/null
soap "$J" PowerOffVM_Task VirtualMachine vm-60 >/dev/null
check "the first slow task still runs" [ "$(powerstate vm-57)" = poweredOn ]
check "the second is done at once" [ "$(powerstate vm-60)" = poweredOff ]
stop

echo "# lab 8: -task-seconds 1 -task-steps 2, on the wall (every integration test's clock)"
# Lower bounds only, which no load breaks: the task takes its second, then
# ends as it should.
launch -task-seconds 1 -task-steps 2
J=$WORK/j8
login "$J" >/dev/null
T=$(soap "$J" PowerOffVM_Task VirtualMachine vm-57 | returnval)
for _ in $(seq 1 600); do grep -q "<state>success</state>" <<< "$(taskinfo "$T")" && break; sleep 0.1; done
info=$(taskinfo "$T")
st=$(echo "$info" | sed -n 's/.*<startTime>\([^<]*\)<.*/\1/p')
ct=$(echo "$info" | sed -n 's/.*<completeTime>\([^<]*\)<.*/\1/p')
check "success, progress 100, at least 1 s after its start ($st to $ct)" \
	bash -c 'grep -q "<progress>100</progress>" <<< "$0" && [ $(($(date -u -d "$2" +%s%N) - $(date -u -d "$1" +%s%N))) -ge 1000000000 ]' "$info" "$st" "$ct"
check "VM poweredOff after the task" [ "$(powerstate vm-57)" = poweredOff ]
stop

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
