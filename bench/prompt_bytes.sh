#!/bin/bash
# The first request tandem really sends, per protocol: the real binary
# (`tandem -p`) against the mock model, its request read from the mock's
# log, with every default tool on (web_search, and code with a language
# server on PATH).  Prints the total less the messages (the budget
# tests/it/firstreq.sh holds: 12,288 bytes), the system prompt's bytes and
# each tool definition's, then bench/prompt_bytes's lines (tool_table only,
# MCP deferral, 40 skills).
#
#	bench/prompt_bytes.sh [BUILDDIR [SRCDIR]]
top_builddir=$(cd "${1:-.}" && pwd)
top_srcdir=$(cd "${2:-$(dirname "$0")/..}" && pwd)
. "$top_srcdir/tests/it/lib.sh"
. "$top_srcdir/tests/it/firstreq_lib.sh"
firstreq_setup
rc=0
for proto in anthropic openai; do
	first_request "$proto"
	if [ ! -s "$T/$proto.log" ]; then
		echo "$proto: no request logged (see $T/$proto.err)"
		rc=1
		continue
	fi
	n=$(request_bytes "$proto")
	printf '%s: first request %d bytes (~%d tokens) of 12288, system prompt %d bytes\n' \
	    "$proto" "$n" $((n / 4)) "$(system_bytes "$proto")"
	tool_bytes "$proto" | while read -r name b; do printf '  %-12s %5d\n' "$name" "$b"; done
	[ "$n" -le 12288 ] || rc=1
done
mock_stop
rm -rf "$T"
"$top_builddir/bench/prompt_bytes" || rc=1
exit $rc
