# A PostgreSQL server of a test's own (test_central.sh, tests/bench/push_cost.sh):
# initdb in $WORK/pg, as an unprivileged user, on a Unix socket only,
# stopped at exit (fsync off unless PG_FSYNC=on: a test needs no durability).
# Sourced after lib.sh; pg_start starts it (again).
# Debian's server binaries are not on PATH; a build of them may be.
pgbin=
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && pgbin=$d; done
[ -n "$pgbin" ] || pgbin=$(dirname "$(command -v initdb || echo /nonexistent/initdb)")
[ -x "$pgbin/initdb" ] && [ -x "$pgbin/pg_ctl" ] && command -v psql > /dev/null ||
	fail "PostgreSQL's initdb, pg_ctl and psql are needed: install postgresql (scripts/deps.sh)"

# PostgreSQL refuses to run as root: its files and processes are nobody's then.
PGDIR="$WORK/pg"
mkdir "$PGDIR"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
	chmod 711 "$WORK"
	chown nobody "$PGDIR"
	as_pg=(runuser -u nobody --)
fi
PG_CTL="${as_pg[*]} $pgbin/pg_ctl -D $PGDIR/data -l $PGDIR/log"
pg_start() {
	$PG_CTL -o "-c listen_addresses='' -k $PGDIR -c fsync=${PG_FSYNC:-off}" -w start > /dev/null ||
		fail "PostgreSQL did not start: $(tail -n 5 "$PGDIR/log")"
}
pg_stop() { $PG_CTL -m fast -w stop > /dev/null 2>&1 || true; }
trap 'rc=$?; pg_stop; (exit $rc); cleanup' EXIT
"${as_pg[@]}" "$pgbin/initdb" -D "$PGDIR/data" -U postgres -A trust --no-sync > "$PGDIR/initdb.log" 2>&1 ||
	fail "initdb failed: $(tail -n 5 "$PGDIR/initdb.log")"

# url DB [ROLE]: the server's database DB; q DB SQL: one value; newdb DB.
url() { echo "postgresql://${2:-postgres}@/$1?host=$PGDIR"; }
q() { psql "$(url "$1")" -XAtq -v ON_ERROR_STOP=1 -c "$2"; }
newdb() { q postgres "CREATE DATABASE $1"; }
