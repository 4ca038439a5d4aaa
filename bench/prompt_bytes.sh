#!/bin/bash
# The first request tandem really sends, per protocol: the real binary
# (`tandem -p`) against the mock model, its request read from the mock's
# log, with every default tool on (web_search, and code with a language
# server on PATH).  Prints the total less the messages (the budget
# tests/it/firstreq.sh holds: 12,288 bytes), the system prompt's bytes and
# each tool definition's, and the first request with 40 skills; then
# bench/prompt_bytes's lines (tool_table only, MCP deferral, 40 skills).
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
# The real first request with 40 skills (each body 40 lines): it grows by
# their names and descriptions and the skill tool, never by a body.
base=$(request_bytes anthropic)
for i in $(seq -w 0 39); do
	d="$T/ws/.claude/skills/skill-$i-review"
	mkdir -p "$d"
	{
		printf -- '---\nname: skill-%s-review\n' "$i"
		printf 'description: Review a change for kind %d of problem: read the diff, ' "$((10#$i))"
		printf 'list what breaks, propose the smallest fix. Use before a commit.\n'
		printf -- '---\n'
		for k in $(seq 0 39); do
			printf 'Step %d of skill %s: look at the code again, carefully.\n' "$k" "$i"
		done
	} >"$d/SKILL.md"
done
first_request anthropic
n=$(request_bytes anthropic)
printf 'anthropic, 40 skills: first request %d bytes (+%d), skill tool %d bytes\n' \
    "$n" $((n - base)) "$(tool_bytes anthropic | awk '$1 == "skill" { print $2 }')"
if grep -q 'Step 0 of skill' "$T/anthropic.log"; then
	echo "a skill's body is in the first request"
	rc=1
fi
mock_stop
rm -rf "$T"
"$top_builddir/bench/prompt_bytes" || rc=1
exit $rc
