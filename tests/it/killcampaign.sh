#!/bin/bash
# The kill campaign: sessions of several rounds, each round a write_file,
# an edit_file, an apply_patch, a command and a background shell; in one
# round of each case tandem is killed (at a named crash point, by SIGKILL
# while the command runs, or by SIGKILL after a delay), then the session is
# resumed and goes on, and every turn is rewound with its files.  Checked:
# every resume loads; no acknowledged prompt is lost (a prompt in the log
# before the kill is in the request after it); no command ran twice (each
# appends its id to a file outside the workspace); every rewind gives the
# tree back byte for byte as it was before that turn.
#
# Deterministic: a xorshift32 from a fixed seed chooses each case's round,
# kind of kill, point and count or delay.  A timed kill's checks hold
# wherever it lands.  KILL_CASES (default 14) and KILL_SEED change the run:
# `make kill-campaign` runs a longer one.
. "$(dirname "$0")/lib.sh"

CASES=${KILL_CASES:-14}
SEED=${KILL_SEED:-2463534242}
ROUNDS=3
export COUNT="$T/count" BGLOG="$T/bglog"
W="$T/ws/proj"

# The scenario: round k's prompt gets five calls, their results the answer.
{
	echo '{"check_echo":false,"responses":['
	for k in 4 3 2 1; do
		patch=$(printf -- '--- a/p%d.txt\n+++ b/p%d.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n' $k $k)
		cmd="echo r${k}_cmd >>\"\$COUNT\"; printf 'cmd $k\\n' >>c.txt; rm -f d$k.txt; mkdir -p dir$k; echo x >dir$k/f; chmod 755 s.sh; if [ \"\${HOLDROUND:-}\" = $k ]; then echo \$\$ >\"\$HOLD\"; sleep 60; fi"
		bg="echo r${k}_bg >>\"\$COUNT\"; sleep 0.3; echo r${k}_late >>\"\$BGLOG\""
		jq -cn --arg k "$k" --arg patch "$patch" --arg cmd "$cmd" --arg bg "$bg" '
		  {match: ("toolu_r" + $k + "_bg"), text: ("finished round " + $k), stop_reason: "end_turn", repeat: 100000},
		  {match: ("round " + $k), text: ("Working on it."), stop_reason: "tool_use", repeat: 100000,
		   chunk: 64, delay_ms: 2, tool_uses: [
		    {id: ("toolu_r" + $k + "_w"), name: "write_file", input: {path: ("w" + $k + ".txt"), content: ("round " + $k + "\n")}},
		    {id: ("toolu_r" + $k + "_e"), name: "edit_file", input: {path: ("e" + $k + ".txt"), old_string: "old", new_string: ("new " + $k)}},
		    {id: ("toolu_r" + $k + "_p"), name: "apply_patch", input: {patch: $patch}},
		    {id: ("toolu_r" + $k + "_c"), name: "run_bash", input: {command: $cmd}},
		    {id: ("toolu_r" + $k + "_bg"), name: "run_bash", input: {command: $bg, run_in_background: true}}]}' |
		    sed 's/$/,/'
	done
	echo '{"text":"ok","stop_reason":"end_turn","repeat":100000}]}'
} >"$T/rounds.json"
mock_start "$T/rounds.json"

# xorshift32: the next number in RND.
RND=$SEED
next() {
	RND=$(( (RND ^ (RND << 13)) & 0xffffffff ))
	RND=$(( RND ^ (RND >> 17) ))
	RND=$(( (RND ^ (RND << 5)) & 0xffffffff ))
}

# Every entry of the workspace: path, type, mode, and content.
state() { ws_state "$W"; }

fresh() {
	local k
	rm -rf "$W" "$TANDEM_HOME" "$COUNT" "$BGLOG" "$T"/state.* "$T/hold"
	mkdir -p "$W"
	cd "$W" || exit 1
	for k in 1 2 3 4; do
		printf 'old\n' >"e$k.txt"
		printf 'a\nb\n' >"p$k.txt"
		printf 'd\n' >"d$k.txt"
	done
	printf 'c\n' >c.txt
	printf '#!/bin/sh\n' >s.sh
	chmod 644 s.sh
}

POINTS=(log-append request-sent checkpoint-A tool-started tool-intent tool-done tool-recorded
    effect-write wsnap-record checkpoint-B)
kills=0 resumes=0 rewinds=0 rounds=0 notreached=0

# run K [env...]: round K, its state before kept under the turn it took.
run_round() {
	local k=$1 first=$2 out="$T/run.jsonl" turn
	shift 2
	state >"$T/before"
	if [ "$first" = 1 ]; then
		env "$@" "$TANDEM" -p "round $k" --permission-mode yolo --output-format events >"$out" 2>"$T/run.err"
	else
		env "$@" "$TANDEM" -c -p "round $k" --permission-mode yolo --output-format events >"$out" 2>"$T/run.err"
	fi
	RC=$?
	rounds=$((rounds + 1))
	turn=$(jq -r 'select(.type == "turn_start") | .turn' "$out" 2>/dev/null | head -n 1)
	# the first run that took a turn saw the tree as it was before it
	if [ -n "$turn" ] && [ ! -e "$T/state.$turn" ]; then cp "$T/before" "$T/state.$turn"; fi
}

# The timed kill: SIGKILL after ms milliseconds.
run_timed() {
	local k=$1 first=$2 ms=$3 pid turn
	state >"$T/before"
	if [ "$first" = 1 ]; then set -- -p "round $k"; else set -- -c -p "round $k"; fi
	"$TANDEM" "$@" --permission-mode yolo --output-format events >"$T/run.jsonl" 2>"$T/run.err" &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	RC=$?
	rounds=$((rounds + 1))
	turn=$(jq -r 'select(.type == "turn_start") | .turn' "$T/run.jsonl" 2>/dev/null | head -n 1)
	if [ -n "$turn" ] && [ ! -e "$T/state.$turn" ]; then cp "$T/before" "$T/state.$turn"; fi
}

# The held kill: SIGKILL while round k's command runs.
run_held() {
	local k=$1 first=$2 pid i=0 turn
	state >"$T/before"
	if [ "$first" = 1 ]; then set -- -p "round $k"; else set -- -c -p "round $k"; fi
	HOLD="$T/hold" HOLDROUND=$k "$TANDEM" "$@" --permission-mode yolo --output-format events \
	    >"$T/run.jsonl" 2>"$T/run.err" &
	pid=$!
	while [ ! -s "$T/hold" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	RC=$?
	# the command's shell is not tandem's to outlive it here (the keeper's job)
	[ -s "$T/hold" ] && kill -9 "$(cat "$T/hold")" 2>/dev/null
	rounds=$((rounds + 1))
	turn=$(jq -r 'select(.type == "turn_start") | .turn' "$T/run.jsonl" 2>/dev/null | head -n 1)
	if [ -n "$turn" ] && [ ! -e "$T/state.$turn" ]; then cp "$T/before" "$T/state.$turn"; fi
}

# The last run exited 0 and went on with the session it resumed.
resumed_ok() { [ $RC -eq 0 ] && [ "$(head -n 1 "$T/run.jsonl" | jq -r .resumed)" = true ]; }

log_of() { ls "$TANDEM_HOME"/sessions/*/log.jsonl 2>/dev/null | head -n 1; }

# Do the background shells of this case still write? Wait until they are done.
quiet() {
	local i=0
	while [ $i -lt 100 ] && pgrep -f "r[0-9]_bg >>" >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
}

case_run() {
	local c=$1 r kind point n ms k name acked=0 log t before_req ok_case=1 first=1
	next; r=$((1 + RND % ROUNDS))
	next; kind=$((RND % 4))
	fresh
	for k in $(seq 1 "$ROUNDS"); do
		if [ "$k" -ne "$r" ]; then
			run_round "$k" $first
			[ $RC -eq 0 ] || { fail "case $c: round $k exited $RC"; diag "$T/run.err"; return; }
			first=0
			continue
		fi
		case $kind in
		0|1)	next; point=${POINTS[$((RND % ${#POINTS[@]}))]}
			next; n=$((1 + RND % 5))
			name="case $c: round $k killed at $point:$n"
			run_round "$k" $first TANDEM_CRASH_AFTER="$point:$n" ;;
		2)	name="case $c: round $k killed while its command ran"
			run_held "$k" $first ;;
		3)	next; ms=$((RND % 700))
			name="case $c: round $k killed after ${ms}ms"
			run_timed "$k" $first "$ms" ;;
		esac
		if [ $RC -eq 0 ]; then
			notreached=$((notreached + 1))
			first=0
			continue
		fi
		kills=$((kills + 1))
		quiet
		log=$(log_of)
		if [ -z "$log" ]; then
			ok "$name: killed before the session existed"
			return
		fi
		first=0
		grep -q '"text":"round '"$k"'"' "$log" && acked=1
		before_req=$(mock_requests)
		# the resume: the next round, or one more
		run_round $((k + 1)) 0
		resumes=$((resumes + 1))
		check "$name: the resume loads and runs" resumed_ok
		[ $RC -eq 0 ] || { diag "$T/run.err"; ok_case=0; }
		if [ $acked -eq 1 ]; then
			check "$name: the acknowledged prompt is in the next request" \
			    grep -q "round $k" <(sed -n "$((before_req + 1))p" "$MOCK_LOG" | jq -c .body.messages)
		fi
		for k in $(seq $((k + 2)) "$ROUNDS"); do run_round "$k" 0; done
		break
	done
	[ $ok_case -eq 1 ] || return
	quiet
	check "case $c: no command ran twice" [ -z "$(sort "$COUNT" 2>/dev/null | uniq -d)" ]
	[ -z "$(sort "$COUNT" 2>/dev/null | uniq -d)" ] || diag "$COUNT"
	# every turn, newest first, with its files: the tree as before that turn
	for t in $(ls "$T"/state.* 2>/dev/null | sed 's/.*state\.//' | sort -rn); do
		"$TANDEM" -c --rewind-to "$t" --files </dev/null >/dev/null 2>"$T/rw.err"
		rc=$?
		if [ $rc -ne 0 ] && grep -q "there is no turn $t" "$T/rw.err" &&
		    ! jq -e --argjson t "$t" 'select(.k == "msg" and .turn == $t)' "$(log_of)" >/dev/null; then
			continue	# a turn that never reached the log
		fi
		rewinds=$((rewinds + 1))
		state >"$T/now"
		if [ $rc -eq 0 ] && cmp -s "$T/state.$t" "$T/now"; then
			ok "case $c: rewind to turn $t is byte for byte"
		else
			fail "case $c: rewind to turn $t is byte for byte (exit $rc)"
			diag "$T/rw.err"
			diff "$T/state.$t" "$T/now" | sed 's/^/#   /'
		fi
	done
}

for c in $(seq 1 "$CASES"); do case_run "$c"; done
echo "# seed $SEED: $CASES cases, $rounds rounds, $kills kills ($notreached points not reached), $resumes resumes, $rewinds rewinds checked"
finish
