#!/bin/bash
# Resume cost: build a session of N messages (default 10,000) in a private
# TANDEM_HOME, then time `tandem -r ID -p ...` up to the moment its first
# request is handed to the transport (TANDEM_CRASH_AFTER=request-sent:1
# stops it there), against the same for a new, empty session.  Also prints
# the session's size on disk per turn.
#   bench/resume_bench.sh [path/to/tandem] [messages]
set -eu
TANDEM=${1:-./tandem}
# The runs start in the bench's workspace: a relative path must not move with them.
case $TANDEM in /*) ;; *) TANDEM=$(cd "$(dirname "$TANDEM")" && pwd)/$(basename "$TANDEM") ;; esac
[ -x "$TANDEM" ] || { echo "resume_bench: no tandem at $TANDEM" >&2; exit 2; }
N=${2:-10000}
W=$(mktemp -d /tmp/tandem-resume-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
export TANDEM_HOME="$W/home" XDG_CONFIG_HOME="$W/config" HOME="$W"
export ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL=http://127.0.0.1:9
id=20261130-000000-abcdef
dir="$TANDEM_HOME/sessions/$id"
mkdir -p "$dir/checkpoints" "$W/ws"
chmod 700 "$TANDEM_HOME" "$TANDEM_HOME/sessions" "$dir"
cd "$W/ws"
root=$(pwd -P)
printf '{"version":1,"id":"%s","cwd":"%s","model":"claude-sonnet-4-5","created":%d,"updated":%d,"first_prompt":"bench","turns":%d}\n' \
    "$id" "$root" "$(date +%s)" "$(date +%s)" $((N / 4)) >"$dir/meta.json"
# Each turn: a prompt, a tool call, its result, an answer (4 messages).
awk -v n="$N" 'BEGIN {
	body = "some realistic tool output line with a few words in it\\n";
	out = ""; for (i = 0; i < 20; i++) out = out body;
	for (t = 1; 4 * (t - 1) < n; t++) {
		printf "{\"k\":\"msg\",\"role\":\"user\",\"turn\":%d,\"content\":[{\"type\":\"text\",\"text\":\"prompt number %d: please look at file %d\"}]}\n", t, t, t;
		printf "{\"k\":\"msg\",\"role\":\"assistant\",\"turn\":%d,\"content\":[{\"type\":\"text\",\"text\":\"Reading it.\"},{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"read_file\",\"input\":{\"path\":\"f%d.c\"}}]}\n", t, t, t;
		printf "{\"k\":\"msg\",\"role\":\"user\",\"turn\":%d,\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_%d\",\"content\":\"%s\"}]}\n", t, t, out;
		printf "{\"k\":\"msg\",\"role\":\"assistant\",\"turn\":%d,\"content\":[{\"type\":\"text\",\"text\":\"The file looks fine; nothing to change in turn %d.\"}]}\n", t, t;
		printf "{\"k\":\"turn\",\"turn\":%d,\"prompt\":\"prompt number %d\",\"tools\":[\"read_file\"],\"tokens\":1200,\"ms\":900,\"time\":0}\n", t, t;
	}
}' >"$dir/log.jsonl"
chmod 600 "$dir"/*.json "$dir/log.jsonl"

timeit() {
	local best=999999 i s e
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		TANDEM_CRASH_AFTER=request-sent:1 "$@" >/dev/null 2>>"$W/err" || true
		e=$(date +%s%N)
		[ $(((e - s) / 1000)) -lt $best ] && best=$(((e - s) / 1000))
	done
	echo $best
}
cp -r "$dir" "$W/pristine"
resume_us=$(timeit "$TANDEM" -r "$id" -p "one more")
rm -rf "$dir" && cp -r "$W/pristine" "$dir"
fresh_us=$(timeit "$TANDEM" -p "one more")
size=$(du -sk "$dir" | cut -f1)
printf 'messages              %d\n' "$N"
printf 'log size              %d KB (%d bytes per turn)\n' "$size" $((size * 1024 / (N / 4)))
printf 'new session to request %6.1f ms\n' "$(echo "$fresh_us / 1000" | bc -l)"
printf 'resume to request     %6.1f ms (best of 5)\n' "$(echo "$resume_us / 1000" | bc -l)"
printf 'resume cost           %6.1f ms\n' "$(echo "($resume_us - $fresh_us) / 1000" | bc -l)"
# A run that stopped before its request (not by the crash point) measured nothing: say what it said.
if [ -s "$W/err" ]; then
	echo "what tandem said (the figures above may not be a resume's):"
	sort -u "$W/err" | head -n 5
fi
