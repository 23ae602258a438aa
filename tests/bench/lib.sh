# Shared by the benchmarks that run the lab, sourced from the project's
# top folder.  bench_setup BUILD [FILE...]: BUILD's nfsagent ($nfsagent),
# labsim and FILEs checked, and $work made (removed at exit, with the lab).
# bench_lab FLAGS...: a new lab in $work/lab, its calls logged where the
# flags say, and what nfsagent connects with (and the guests' password)
# exported; bench_lab_stop ends it.
bench_setup() {
	build=$1
	nfsagent=$build/agent/nfsagent
	shift
	for f in "$nfsagent" "$build/labsim" "$@"; do
		[ -x "$f" ] || { echo "missing $f: build first (scripts/test.sh)" >&2; exit 2; }
	done
	work=$(mktemp -d)
	lab=
	trap '[ -n "$lab" ] && kill $lab 2> /dev/null; rm -rf "$work"' EXIT
}

bench_lab() {
	rm -rf "$work/lab"
	"$build/labsim" -dir "$work/lab" "$@" > "$work/ready" 2> /dev/null &
	lab=$!
	for _ in $(seq 1 600); do [ -s "$work/ready" ] && break; sleep 0.1; done
	local r
	r=$(head -n 1 "$work/ready")
	export NFSAGENT_URL=$(jq -r .url <<< "$r") NFSAGENT_USERNAME=$(jq -r .username <<< "$r")
	export NFSAGENT_PASSWORD=$(jq -r .password <<< "$r") NFSAGENT_THUMBPRINT=$(jq -r .thumbprint <<< "$r")
	export NFSAGENT_GUEST_PASSWORD=secret
}

bench_lab_stop() { kill $lab; wait $lab 2> /dev/null || true; lab=; : > "$work/ready"; }
