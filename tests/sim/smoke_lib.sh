# Shared by the lab's curl self-checks (smoke*.sh): a work folder, pass/fail
# counting, starting and stopping a lab, a SOAP call with curl (smoke_nfs.sh
# keeps its own, which logs in once).  Sourced after LABSIM is set.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ]; then
	export TMPDIR=/dev/shm  # the lab writes many small files: much faster in RAM
fi
WORK=$(mktemp -d)
PASS=0
FAIL=0
LAB_PID=

cleanup() {
	[ -n "$LAB_PID" ] && kill "$LAB_PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); echo "ok   - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
has() { grep -q -- "$2" <<<"$1"; } # has TEXT PATTERN

# launch FLAGS... : runs a lab, waits for its ready line; sets READY URL CA DIR THUMB
# LAB_PID BASE HOSTPORT, and ESX_PORT ESX_SHA1 (the ESXi hosts' endpoint).
launch() {
	local out=$WORK/ready.json
	: >"$out"
	"$LABSIM" "$@" >"$out" 2>"$WORK/labsim.err" &
	for _ in $(seq 1 300); do
		[ -s "$out" ] && break
		sleep 0.1
	done
	READY=$(cat "$out")
	field() { echo "$READY" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
	URL=$(field url)
	CA=$(field cacert)
	DIR=$(field dir)
	LAB_PID=$(field pid)
	THUMB=$(field thumbprint)
	ESX_PORT=$(field host_transfer_port)
	ESX_SHA1=$(field host_thumbprint_sha1)
	BASE=${URL%/sdk}
	HOSTPORT=${BASE#https://}
	[ -n "$URL" ] || { echo "lab did not start: $(cat "$WORK/labsim.err")"; exit 1; }
}

stop() {
	kill "$LAB_PID" 2>/dev/null
	wait "$LAB_PID" 2>/dev/null
	LAB_PID=
	if grep -q 'panic\|DATA RACE' "$WORK/labsim.err"; then
		bad "lab stderr shows a panic or data race:"
		cat "$WORK/labsim.err"
	fi
}

# The lab clock (-clock manual; labclock.go): clock prints its reading,
# advance DURATION moves it (e.g. 500ms) and prints the new reading once
# every step due by then has been applied.
clock() { curl -sSf --cacert "$CA" "$BASE/lab/clock"; }
advance() { curl -sSf --cacert "$CA" -X POST "$BASE/lab/clock?advance=$1"; }

# soap JAR METHOD THIS_TYPE THIS_VALUE [ARGS_XML]: prints the body, then
# "HTTP <code>" on a line of its own.
soap() {
	curl -sS --cacert "$CA" -b "$1" -c "$1" -H 'Content-Type: text/xml; charset=utf-8' \
		-H 'SOAPAction: urn:vim25/6.5' -w '\nHTTP %{http_code}\n' \
		--data-binary "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body><$2 xmlns=\"urn:vim25\"><_this type=\"$3\">$4</_this>${5:-}</$2></soapenv:Body></soapenv:Envelope>" \
		"$URL"
}
