#!/usr/bin/env bash
# What storing fio's latency bins (result_bins, issue 24) saves compare:
# N results (default 2,000) of a json+ output in a file held at schema 13,
# which a reader sees through a view that parses each result's output as
# compare did before, against the same file upgraded to schema 14, whose
# bins compare reads as rows; the outputs must be the same.  Also the
# upgrade's time and the file's growth.  Nothing passes or fails.
# Usage: tests/bench/bins_cost.sh [BUILD_DIR] [N] [JSON]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
json=$(realpath "${3:-tests/data/fio/randwrite_3jobs.jsonplus}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tests/bench/bins_cost" make "$work/13.db" "${2:-2000}" "$json"
sqlite3 "$work/13.db" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
cp "$work/13.db" "$work/14.db"
"$build/tests/bench/bins_cost" upgrade "$work/14.db"
sqlite3 "$work/14.db" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
echo "bins: $(sqlite3 "$work/14.db" "SELECT count(*) FROM result_bins");" \
	"file $(stat -c %s "$work/13.db") -> $(stat -c %s "$work/14.db") bytes"
for v in 13 14; do
	/usr/bin/time -f "compare on schema $v: %e s wall, %U s user" "$build/agent/nfsagent" compare \
		--db "$work/$v.db" --a repetition=1 --b repetition=2 > "$work/$v.out"
done
cmp -s "$work/13.out" "$work/14.out" && echo "the same comparison" || echo "THE COMPARISONS DIFFER"
