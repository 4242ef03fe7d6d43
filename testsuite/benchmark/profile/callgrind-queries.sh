#!/usr/bin/env bash
#
# testsuite/benchmark/profile/callgrind-queries.sh: user-space instructions per query of rows 3-5 and 13f,
# BlueTusk and libpq, from callgrind: (I(N2) - I(N1)) / (N2 - N1), so the connection set-up cancels out.
# Usage: callgrind-queries.sh [BUILD_DIR [KIND...]]   (default build-bench and select1 extended rows bouncer;
#   needs a running cluster, BLUETUSK_TEST_PORT; bouncer (row 13f) also scripts/pgbouncer's PgBouncers,
#   BLUETUSK_PGBOUNCER_PORT, default the cluster's port + 7)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="$(cd "${1:-$root/build-bench}" && pwd)"
shift || true
if [ $# -gt 0 ]; then kinds=("$@"); else kinds=(select1 extended rows bouncer); fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
includes=()
for module in Foundation Transport Pooling Routing; do includes+=(-I"$root/$module/include"); done
g++ -O2 -std=c++17 "${includes[@]}" -I/usr/include/postgresql "$root/testsuite/benchmark/profile/QueryDriver.cpp" \
	-o "$work/QueryDriver" -L"$build/lib" -Wl,-rpath,"$build/lib" -lBlueTuskRouting -lBlueTuskPooling \
	-lBlueTuskTransport -lBlueTuskFoundation -lPocoNet -lPocoFoundation -lpq
total()
{
	valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/QueryDriver" "$1" "$2" "$3" >/dev/null 2>"$work/err"
	grep -m1 -E '^(summary|totals):' "$work/out" | awk '{print $2}'
}
for kind in "${kinds[@]}"; do
	if [ "$kind" = rows ]; then n1=5; n2=25; else n1=200; n2=1200; fi
	for side in bluetusk libpq; do
		a=$(total "$side" "$kind" "$n1")
		b=$(total "$side" "$kind" "$n2")
		echo "$kind $side instructions/query $(( (b - a) / (n2 - n1) ))"
	done
done
