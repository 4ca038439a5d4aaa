#!/bin/sh
# The ask rate before and after: bench/ask_rate.c built against the
# libraries of two build trees (BEFORE, and AFTER, by default the current
# directory), each run on this source tree's corpora.
#
#	bench/ask_rate.sh BEFORE_BUILDDIR [AFTER_BUILDDIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
before=${1:?usage: ask_rate.sh BEFORE_BUILDDIR [AFTER_BUILDDIR]}
after=${2:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ask_rate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for which in before after; do
	eval dir=\$$which
	dir=$(cd "$dir" && pwd)
	${CC:-cc} -O2 -I"$dir" -I"$src/agent" -I"$src/tools" -I"$src/lib" \
	    -o "$tmp/$which" "$src/bench/ask_rate.c" "$dir/libtandem_agent.a" \
	    "$dir/libtandem_tools.a" "$dir/libtandem_lib.a" -lpcre2-8 -lcjson -lcurl -lcrypto
	echo "== $which ($dir)"
	"$tmp/$which" "$src" || true
done
