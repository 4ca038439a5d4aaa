#!/bin/sh
# sub_bench.sh: what subagents cost.  The real tandem against the mock:
#  - the parent's first request, with the agent tool among the built-in
#    tools (budget: under 12 KB, DESIGN.md section 13);
#  - the resident set of tandem while the parent's first request waits,
#    then while four subagents of one response wait for their first
#    answers, read from /proc/PID/status (VmRSS); the difference over four
#    is the memory of one running subagent (budget: under 1 MB).
#
#	sh bench/sub_bench.sh [BUILD_DIR]
#
# BUILD_DIR (default: the current directory) holds the built tandem and
# tests/mockmodel.  A plain build gives the meaningful figures.  Exit
# status 1 when a budget is passed.
set -eu

build=$(cd "${1:-.}" && pwd)
if [ ! -x "$build/tandem" ] || [ ! -x "$build/tests/mockmodel" ]; then
	echo "sub_bench.sh: no tandem and tests/mockmodel in $build; run 'make' there first" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tandem-sub-bench.XXXXXX")
trap 'kill $mpid 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$T/ws" "$T/home" "$T/user"
export TANDEM_HOME="$T/home" HOME="$T/user" XDG_CONFIG_HOME="$T/config" XDG_STATE_HOME="$T/state"
export ANTHROPIC_API_KEY=test-key
unset OPENAI_API_KEY OPENAI_BASE_URL
cd "$T/ws"
for i in 1 2 3 4; do printf 'int MARK_%s;\n' "$i" >"f$i.c"; done

calls=""
subs=""
for i in 1 2 3 4; do
	calls="$calls${calls:+,}{\"id\":\"toolu_$i\",\"name\":\"agent\",\"input\":{\"description\":\"find $i\",\"prompt\":\"Find MARK_$i now.\",\"subagent_type\":\"Explore\"}}"
	subs="$subs,{\"match_last\":\"Find MARK_$i now.\",\"first_byte_delay_ms\":2500,\"text\":\"MARK_$i is in f$i.c.\"}"
done
cat >"$T/s.json" <<J
{"responses":[
 {"match_last":"find the marks","first_byte_delay_ms":2000,"tool_uses":[$calls]}$subs,
 {"match_last":"MARK_1 is in f1.c.","text":"All found."}
]}
J
"$build/tests/mockmodel" --scenario "$T/s.json" --port 0 --port-file "$T/port" --log "$T/log" \
    --idle-timeout 30 >/dev/null 2>&1 &
mpid=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")"

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
"$build/tandem" -p "find the marks" >"$T/out" 2>"$T/err" &
tpid=$!
sleep 1.2
base=$(rss $tpid)
# the parent's answer comes at 2 s; the four subagents wait until 4.5 s
sleep 2
four=$(rss $tpid)
wait $tpid || { echo "sub_bench.sh: tandem failed:" >&2; cat "$T/err" >&2; exit 1; }
first=$(sed -n 1p "$T/log" | jq .body_bytes)
running=$(jq -s '[.[] | select(.body.system | tostring | test("search subagent"))] | length' "$T/log")
per=$(( (four - base) / 4 ))
rc=0
printf '%-46s %8s\n' "what" "figure"
printf '%-46s %8d bytes (budget 12288)\n' "parent's first request, agent tool included" "$first"
printf '%-46s %8d kB\n' "RSS, the parent's request waiting" "$base"
printf '%-46s %8d kB\n' "RSS, four subagents waiting" "$four"
printf '%-46s %8d kB (budget 1024)\n' "per running subagent" "$per"
printf '%-46s %8d\n' "subagent requests served" "$running"
printf '%-46s %8s\n' "answer" "$(cat "$T/out")"
[ "$first" -lt 12288 ] || rc=1
[ "$per" -lt 1024 ] || rc=1
exit $rc
