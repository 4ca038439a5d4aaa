#!/bin/sh
# soak_mem.sh: memory and descriptors of tandem over the soak session of
# tests/it/soak.sh (500 model calls against the mock, with random faults),
# run outside the test suite.  Prints the resident set size and the open
# descriptors of the running tandem at its start and after 100, 250 and
# 500 model calls, read from /proc/PID/status (VmRSS) and /proc/PID/fd,
# and the wall time of the session.
#
#	sh bench/soak_mem.sh [BUILD_DIR]
#
# BUILD_DIR (default: the current directory) holds the built tandem and
# tests/mockmodel.  A plain build gives the meaningful figures: under
# AddressSanitizer the allocator's quarantine dominates the RSS.
set -eu

build=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
report=$(mktemp "${TMPDIR:-/tmp}/tandem-soak-mem.XXXXXX")
trap 'rm -f "$report"' EXIT

if [ ! -x "$build/tandem" ] || [ ! -x "$build/tests/mockmodel" ]; then
	echo "soak_mem.sh: no tandem and tests/mockmodel in $build; run 'make' there first" >&2
	exit 2
fi
if ! top_builddir="$build" top_srcdir="$src" SOAK_REPORT="$report" \
    bash "$src/tests/it/soak.sh" >"$report.tap" 2>&1; then
	echo "soak_mem.sh: the soak failed:" >&2
	grep -v '^ok' "$report.tap" >&2 || true
	rm -f "$report.tap"
	exit 1
fi
rm -f "$report.tap"

# The report: "duration_ms N", a counts line, then "calls rss_kb fds ms" rows.
awk '
$1 == "duration_ms" { ms = $2; next }
$1 == "requests" { counts = $0; next }
$1 ~ /^[0-9]+$/ { rss[$1] = $2; fds[$1] = $3; at[$1] = $4 }
END {
	printf "%-22s %10s %6s %9s\n", "point", "RSS (kB)", "fds", "t (ms)"
	split("1 100 250 500", pts, " ")
	printf "%-22s %10d %6d %9d\n", "start", rss[0], fds[0], at[0]
	printf "%-22s %10d %6d %9d\n", "after 1 call", rss[1], fds[1], at[1]
	for (i = 2; i <= 4; i++)
		printf "%-22s %10d %6d %9d\n", "after " pts[i] " calls", rss[pts[i]], fds[pts[i]], at[pts[i]]
	printf "growth from 100 to 500 calls: %d kB\n", rss[500] - rss[100]
	printf "session: %d ms; %s\n", ms, counts
}' "$report"
