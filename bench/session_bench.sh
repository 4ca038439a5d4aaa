#!/bin/bash
# The CPU of one long session: one prompt, ROUNDS tool rounds (default
# 2,000) against the mock model server, each answered with one cheap tool
# call (read_file of a 1 KB file), then a text answer.  Samples tandem's
# own CPU time (its threads' in /proc/PID/task/*/schedstat, and user and
# system time from /proc/PID/stat: the mock's and the tools' children's
# are not counted) every 10 model calls from call 10 on (calls 1-9 are
# the warm-up: the fork server, the first writes of the session).
#
# A window is 10 rounds; the figure of a span of rounds is the median of
# its windows' CPU per round, so that a burst of other work on the machine
# moves a window or two, not the figure.  The early figure is the median
# of the windows of rounds 10-110 of the long session and of a short
# session of 110 rounds run right after it (the machine's load is sampled
# at both ends of the long one); the late one the median of the windows
# of its last 100 rounds.  Prints both, their ratio (the budget is 1.5;
# the exit status is 1 past it), the spread of the windows, the mean of
# each span as the bench printed it before, and tandem's peak RSS
# (VmHWM) at the last call.  Then the user and the system time per round
# apart, early (both sessions' rounds 10-110) and late, with the ratio of
# each: the user time is tandem's own work, the system time the kernel's
# (on loopback the send of a body also runs the mock's TCP receive in
# tandem's time).  The kernel splits a process's time into user and
# system by the ticks it samples (1/CLK_TCK s), so these are coarser
# than the figures above: a few tenths of a millisecond a round.
#   bench/session_bench.sh [BUILD_DIR [ROUNDS]]
# BUILD_DIR (default .) holds tandem and tests/mockmodel.  The context
# window is set large enough that no compaction runs: this measures the
# cost of a round, not of compacting.  The session's home and workspace
# go in SESSION_BENCH_TMP (default TMPDIR, or /tmp): on a disk each round
# pays for its durable writes (fsync, the file system finding room for a
# new inode), which vary with the disk's state; SESSION_BENCH_TMP=/dev/shm
# leaves them out and shows what grows with the session.
# SESSION_BENCH_SAMPLES=FILE keeps the samples (call, user ms, system ms,
# thread CPU us, VmHWM kB; a line "session 2" before the short session's).
# For profiling: SESSION_BENCH_WRAP="valgrind --tool=callgrind ..." runs
# tandem under that command, and SESSION_BENCH_HOOK=CMD runs
# "CMD CALLS PID ROUNDS" at each sample (e.g. callgrind_control -z and -d,
# or perf record -p, at chosen rounds).
set -eu
build=$(cd "${1:-.}" && pwd)
N=${2:-2000}
S=10		# rounds per window
SPAN=100	# rounds of the early and of the late span
TANDEM="$build/tandem"
MOCK="$build/tests/mockmodel"
if [ ! -x "$TANDEM" ] || [ ! -x "$MOCK" ]; then
	echo "session_bench.sh: no tandem and tests/mockmodel in $build; run 'make' there first" >&2
	exit 2
fi
if [ "$N" -lt $((2 * SPAN + 20)) ]; then
	echo "session_bench.sh: at least $((2 * SPAN + 20)) rounds" >&2
	exit 2
fi
T=$(mktemp -d "${SESSION_BENCH_TMP:-${TMPDIR:-/tmp}}/tandem-session-bench.XXXXXX")
mpid=""
trap '[ -n "$mpid" ] && kill "$mpid" 2>/dev/null; rm -rf "$T"' EXIT
unset OPENAI_API_KEY OPENAI_BASE_URL
export ANTHROPIC_API_KEY=bench
hz=$(getconf CLK_TCK)

# cpu_ms PID: the process's own user and system time so far, in ms (in
# ticks of 1/CLK_TCK s), and its threads' time on a CPU in us (schedstat,
# in ns: the precise figure the per-round costs are taken from).
cpu_ms() {
	awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%d %d ", $12 * 1000 / hz, $13 * 1000 / hz }' "/proc/$1/stat"
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%d", t / 1000 }'
}

# session DIR ROUNDS: one session of ROUNDS model calls in DIR (its own
# home, workspace and mock); its samples are appended to $T/samples.
session() {
	local d=$1 n=$2 calls=0 line pid i
	export TANDEM_HOME="$d/home" XDG_CONFIG_HOME="$d/config" HOME="$d/userhome"
	export XDG_STATE_HOME="$d/state"
	mkdir -p "$HOME" "$d/ws" "$XDG_CONFIG_HOME/tandem"
	echo '{"context_window": 100000000}' >"$XDG_CONFIG_HOME/tandem/settings.json"
	awk 'BEGIN { for (i = 1; i <= 16; i++) printf "line %02d of the file the model reads in every round\n", i }' \
	    >"$d/ws/a.txt"
	cat >"$d/scenario.json" <<J
{"check_echo": false, "responses":[
 {"text":"Reading.","tool_uses":[{"name":"read_file","input":{"path":"a.txt"}}],"repeat":$((n - 1))},
 {"text":"Bench done.","stop_reason":"end_turn"}
]}
J
	"$MOCK" --scenario "$d/scenario.json" --port-file "$d/port" --log-no-body --log /dev/null \
	    --idle-timeout 60 --quiet >/dev/null &
	mpid=$!
	i=0
	while [ ! -s "$d/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$d/port")"
	mkfifo "$d/events"
	(cd "$d/ws" && exec ${SESSION_BENCH_WRAP:-} "$TANDEM" -p "bench" --max-turns $((n + 10)) --permission-mode yolo \
	    --output-format events >"$d/events" 2>"$d/err") &
	pid=$!
	while IFS= read -r line; do
		case $line in
		*'"type":"usage"'*)
			calls=$((calls + 1))
			if { [ $calls -ge 10 ] && [ $calls -lt $((n - 1)) ] &&
			    [ $(((calls - 10) % S)) -eq 0 ]; } || [ $calls -eq $((n - 1)) ]; then
				# (the last may come after tandem is gone: then it is not taken)
				line="$calls $(cpu_ms $pid 2>/dev/null || true) $(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)"
				[ "$(echo "$line" | wc -w)" -eq 5 ] && echo "$line" >>"$T/samples"
				[ -n "${SESSION_BENCH_HOOK:-}" ] && $SESSION_BENCH_HOOK "$calls" "$pid" "$n"
			fi
			;;
		esac
	done <"$d/events"
	wait $pid || { echo "session_bench.sh: tandem failed:" >&2; cat "$d/err" >&2; exit 1; }
	kill "$mpid" 2>/dev/null || true
	wait "$mpid" 2>/dev/null || true
	mpid=""
	[ "$calls" -eq "$n" ] || { echo "session_bench.sh: $calls calls, expected $n" >&2; exit 1; }
}

load1=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s%N)
session "$T/long" "$N"
ms=$((($(date +%s%N) - start) / 1000000))
load2=$(cut -d' ' -f1-3 /proc/loadavg)
echo "session 2" >>"$T/samples"
session "$T/short" $((SPAN + 20))
[ -n "${SESSION_BENCH_SAMPLES:-}" ] && cp "$T/samples" "$SESSION_BENCH_SAMPLES"

awk -v n="$N" -v ms="$ms" -v hz="$hz" -v span="$SPAN" -v load1="$load1" -v load2="$load2" '
function sort(a, k,   i, j, x) {
	for (i = 2; i <= k; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--)
			a[j + 1] = a[j]
		a[j + 1] = x
	}
}
function median(a, k) { sort(a, k); return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
# The windows of session s that start at from or later and end at to or before, into w.
function windows(s, from, to, w,   i, k) {
	k = 0
	for (i = 1; i < m[s]; i++)
		if (c[s, i] >= from && c[s, i + 1] <= to)
			w[++k] = (t[s, i + 1] - t[s, i]) / (c[s, i + 1] - c[s, i])
	return k
}
# The mean over the span, and its user and system split (in ticks: coarse).
function mean(s, from, to,   i, j) {
	for (i = 1; i < m[s] && c[s, i] < from; i++)
		;
	for (j = i; j < m[s] && c[s, j + 1] <= to; j++)
		;
	if (j == i)
		return ""
	return sprintf("mean %.2f ms (user %.2f, system %.2f)", (t[s, j] - t[s, i]) / (c[s, j] - c[s, i]),
	    (u[s, j] - u[s, i]) / (c[s, j] - c[s, i]), (y[s, j] - y[s, i]) / (c[s, j] - c[s, i]))
}
# The user and the system time of session s from round from to round to, added
# to tot (user, system, rounds): as the kernel splits them, in ticks of 1/CLK_TCK s.
function usersys(s, from, to, tot,   i, j) {
	for (i = 1; i < m[s] && c[s, i] < from; i++)
		;
	for (j = i; j < m[s] && c[s, j + 1] <= to; j++)
		;
	tot["u"] += u[s, j] - u[s, i]; tot["y"] += y[s, j] - y[s, i]; tot["c"] += c[s, j] - c[s, i]
}
function spread(w, k) { sort(w, k); return sprintf("windows %.2f-%.2f", w[1], w[k]) }
BEGIN { s = 1 }
/^session 2/ { s = 2; next }
{
	k = ++m[s]
	c[s, k] = $1; u[s, k] = $2; y[s, k] = $3; t[s, k] = $4 / 1000
	if (s == 1 && $5 > rss)
		rss = $5
}
END {
	last = c[1, m[1]]
	printf "rounds                    %d (%d s wall; load %s at the start, %s at the end)\n",
	    n, ms / 1000, load1, load2
	ke = windows(1, 10, 10 + span, e1)
	kf = windows(2, 10, 10 + span, e2)
	for (i = 1; i <= kf; i++)
		e1[ke + i] = e2[i]
	ke += kf
	for (i = 1; i <= ke; i++)
		e3[i] = e1[i]
	early = median(e1, ke)
	printf "CPU per round, %4d-%4d  %6.2f ms median of %d windows (%s; %s, after: %s)\n", 10,
	    10 + span, early, ke, spread(e3, ke), mean(1, 10, 10 + span), mean(2, 10, 10 + span)
	for (r = 510; r + span < last - span; r += 500) {
		k = windows(1, r, r + span, w)
		for (i = 1; i <= k; i++)
			w2[i] = w[i]
		printf "CPU per round, %4d-%4d  %6.2f ms median of %d windows (%s; %s)\n", r, r + span,
		    median(w, k), k, spread(w2, k), mean(1, r, r + span)
	}
	kl = windows(1, last - span, last, l1)
	for (i = 1; i <= kl; i++)
		l2[i] = l1[i]
	late = median(l1, kl)
	printf "CPU per round, %4d-%4d  %6.2f ms median of %d windows (%s; %s)\n", last - span, last,
	    late, kl, spread(l2, kl), mean(1, last - span, last)
	printf "ratio last/first          %.2f (budget 1.5)\n", late / early
	usersys(1, 10, 10 + span, es); usersys(2, 10, 10 + span, es); usersys(1, last - span, last, ls)
	eu = es["u"] / es["c"]; ey = es["y"] / es["c"]; lu = ls["u"] / ls["c"]; ly = ls["y"] / ls["c"]
	printf "user per round            %.2f ms early, %.2f ms late, ratio %.2f (tandem'"'"'s own work)\n",
	    eu, lu, (eu > 0 ? lu / eu : 0)
	printf "system per round          %.2f ms early, %.2f ms late, ratio %.2f (the kernel: sends, forks, writes)\n",
	    ey, ly, (ey > 0 ? ly / ey : 0)
	printf "user+system per round     %.2f ms early, %.2f ms late, ratio %.2f (%d and %d rounds; ticks of %d ms)\n",
	    eu + ey, lu + ly, (eu + ey > 0 ? (lu + ly) / (eu + ey) : 0), es["c"], ls["c"], 1000 / hz
	printf "CPU of the session        %.1f s (user %.1f, system %.1f)\n",
	    (u[1, m[1]] + y[1, m[1]]) / 1000, u[1, m[1]] / 1000, y[1, m[1]] / 1000
	printf "peak RSS                  %d kB\n", rss
	exit (late > 1.5 * early)
}' "$T/samples"
