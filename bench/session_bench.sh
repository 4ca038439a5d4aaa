#!/bin/bash
# The CPU of one long session: one prompt, ROUNDS tool rounds (default
# 2,000) against the mock model server, each answered with one cheap tool
# call (read_file of a 1 KB file), then a text answer.  Samples tandem's
# own CPU time (its threads' in /proc/PID/task/*/schedstat, and user and
# system time from /proc/PID/stat: the mock's and the tools' children's
# are not counted) at model calls 10, 110, ...,
# and prints the CPU per round over the window after round 10 and over the
# last window, their ratio (the budget is 1.5), and tandem's peak RSS
# (VmHWM) at the last call.
#   bench/session_bench.sh [BUILD_DIR [ROUNDS]]
# BUILD_DIR (default .) holds tandem and tests/mockmodel.  The context
# window is set large enough that no compaction runs: this measures the
# cost of a round, not of compacting.  The session's home and workspace
# go in SESSION_BENCH_TMP (default TMPDIR, or /tmp): on a disk each round
# pays for its durable writes (fsync, the file system finding room for a
# new inode), which vary with the disk's state; SESSION_BENCH_TMP=/dev/shm
# leaves them out and shows what grows with the session.
# SESSION_BENCH_WINDOW: the rounds of a window (default 100).
set -eu
build=$(cd "${1:-.}" && pwd)
N=${2:-2000}
W=${SESSION_BENCH_WINDOW:-100}	# rounds per window
TANDEM="$build/tandem"
MOCK="$build/tests/mockmodel"
if [ ! -x "$TANDEM" ] || [ ! -x "$MOCK" ]; then
	echo "session_bench.sh: no tandem and tests/mockmodel in $build; run 'make' there first" >&2
	exit 2
fi
T=$(mktemp -d "${SESSION_BENCH_TMP:-${TMPDIR:-/tmp}}/tandem-session-bench.XXXXXX")
mpid=""
trap '[ -n "$mpid" ] && kill "$mpid" 2>/dev/null; rm -rf "$T"' EXIT
export TANDEM_HOME="$T/home" XDG_CONFIG_HOME="$T/config" HOME="$T/userhome"
export XDG_STATE_HOME="$T/state" ANTHROPIC_API_KEY=bench
unset OPENAI_API_KEY OPENAI_BASE_URL
mkdir -p "$HOME" "$T/ws" "$XDG_CONFIG_HOME/tandem"
echo '{"context_window": 100000000}' >"$XDG_CONFIG_HOME/tandem/settings.json"
awk 'BEGIN { for (i = 1; i <= 16; i++) printf "line %02d of the file the model reads in every round\n", i }' \
    >"$T/ws/a.txt"
cat >"$T/scenario.json" <<J
{"check_echo": false, "responses":[
 {"text":"Reading.","tool_uses":[{"name":"read_file","input":{"path":"a.txt"}}],"repeat":$((N - 1))},
 {"text":"Bench done.","stop_reason":"end_turn"}
]}
J
"$MOCK" --scenario "$T/scenario.json" --port-file "$T/port" --log-no-body --log /dev/null \
    --idle-timeout 60 --quiet >/dev/null &
mpid=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")"

hz=$(getconf CLK_TCK)
# cpu_ms PID: the process's own user and system time so far, in ms (in
# ticks of 1/CLK_TCK s), and its threads' time on a CPU in us (schedstat,
# in ns: the precise figure the per-round costs are taken from).
cpu_ms() {
	awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%d %d ", $12 * 1000 / hz, $13 * 1000 / hz }' "/proc/$1/stat"
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%d", t / 1000 }'
}

cd "$T/ws"
mkfifo "$T/events"
"$TANDEM" -p "bench" --max-turns $((N + 10)) --permission-mode yolo --output-format events \
    >"$T/events" 2>"$T/err" &
pid=$!
calls=0
start=$(date +%s%N)
while IFS= read -r line; do
	case $line in
	*'"type":"usage"'*)
		calls=$((calls + 1))
		if [ $(((calls - 10) % W)) -eq 0 ] || [ $calls -eq $((N - 1)) ]; then
			# (the last may come after tandem is gone: then it is not taken)
			line="$calls $(cpu_ms $pid 2>/dev/null || true) $(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)"
			[ "$(echo "$line" | wc -w)" -eq 5 ] && echo "$line" >>"$T/samples"
		fi
		;;
	esac
done <"$T/events"
wait $pid || { echo "session_bench.sh: tandem failed:" >&2; cat "$T/err" >&2; exit 1; }
ms=$((($(date +%s%N) - start) / 1000000))
[ "$calls" -eq "$N" ] || { echo "session_bench.sh: $calls calls, expected $N" >&2; exit 1; }

awk -v n="$N" -v ms="$ms" '
{ c[NR] = $1; u[NR] = $2; s[NR] = $3; t[NR] = $4 / 1000; if ($5 > rss) rss = $5; k = NR }
function per(i, j) { return (t[j] - t[i]) / (c[j] - c[i]) }
function line(i, j) {
	printf "CPU per round, %4d-%4d  %6.2f ms (user %.2f, system %.2f)\n", c[i], c[j], per(i, j),
	    (u[j] - u[i]) / (c[j] - c[i]), (s[j] - s[i]) / (c[j] - c[i])
}
END {
	printf "rounds                    %d (%d s wall)\n", n, ms / 1000
	line(1, 2)
	for (i = 2; i < k - 1; i++)
		if (c[i] == 510 || c[i] == 1010 || c[i] == 1510)
			line(i, i + 1)
	line(k - 1, k)
	printf "ratio last/first          %.2f (budget 1.5)\n", per(k - 1, k) / per(1, 2)
	printf "CPU of the session        %.1f s (user %.1f, system %.1f)\n", (u[k] + s[k]) / 1000,
	    u[k] / 1000, s[k] / 1000
	printf "peak RSS                  %d kB\n", rss
	exit (per(k - 1, k) > 1.5 * per(1, 2))
}' "$T/samples"
