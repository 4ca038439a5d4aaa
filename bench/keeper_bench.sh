#!/bin/bash
# keeper_bench: what a command costs to run through the real tandem, as
# the tool's duration (from its start to its result) of N `true` commands,
# six per model reply, against the mock model server.  Run it with two
# builds to see what a change to starting a command costs:
#
#	bench/keeper_bench.sh TANDEM MOCKMODEL [N]
#
# Prints the median, the 90th percentile and the mean in ms, and the CPU
# time of the whole run (tandem, the keepers, the shells) per command.
set -u
TANDEM=$1 MOCK=$2 N=${3:-300}
T=$(mktemp -d "${TMPDIR:-/tmp}/keeper-bench.XXXXXX")
trap 'kill $MP 2>/dev/null; rm -rf "$T"' EXIT
export TANDEM_HOME="$T/home" XDG_CONFIG_HOME="$T/config" HOME="$T/home" XDG_STATE_HOME="$T/state"
export ANTHROPIC_API_KEY=test-key
mkdir -p "$T/ws" "$T/home"
{
	printf '{"check_echo":false,"responses":[\n'
	# Six calls a turn: a turn has at most 50 rounds of tools.
	for i in $(seq $(((N + 5) / 6))); do
		printf ' {"tool_uses":['
		for j in 1 2 3 4 5 6; do
			printf '%s{"id":"t%d_%d","name":"run_bash","input":{"command":"true"}}' "$([ $j -gt 1 ] && echo ,)" "$i" "$j"
		done
		printf '],"stop_reason":"tool_use"},\n'
	done
	printf ' {"text":"ok","stop_reason":"end_turn"}\n]}\n'
} >"$T/s.json"
"$MOCK" --scenario "$T/s.json" --port 0 --port-file "$T/port" --quiet --idle-timeout 60 >/dev/null &
MP=$!
for i in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")"
# The CPU of the whole run, tandem's and its children's (the keepers, the shells).
cpu0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
(cd "$T/ws" && "$TANDEM" -p "go" --permission-mode yolo --output-format events >"$T/ev.jsonl" 2>"$T/err")
cpu1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
jq -r 'select(.type == "tool_result") | .duration_ms' "$T/ev.jsonl" | sort -n >"$T/ms"
n=$(wc -l <"$T/ms")
[ "$n" -gt 0 ] || { echo "keeper_bench: no command ran" >&2; cat "$T/err" >&2; exit 1; }
awk -v n="$n" -v cpu=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" '{ a[NR] = $1; s += $1 } END {
	printf "%d commands: median %.1f ms, p90 %.1f ms, mean %.2f ms; CPU %.2f ms a command\n",
	    n, a[int((n + 1) / 2)], a[int(n * 0.9)], s / n, cpu * 1000 / hz / n }' "$T/ms"
