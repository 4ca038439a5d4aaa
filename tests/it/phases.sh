#!/bin/bash
# The turn's phases as TANDEM_DEBUG=phase logs them: one tool round
# through the real binary and the mock has exactly the expected
# transitions; a plain answer, a retry and a refused request have
# theirs; without the option nothing is logged, and a file that cannot be
# opened sends the log to standard error with one sentence.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
printf 'alpha\nbeta\n' >a.txt
# The first request does not wait for the model catalogue (models_wait):
# the transitions below do not depend on how fast the mock answers it.
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"models": {"wait_ms": 0}}' >"$XDG_CONFIG_HOME/tandem/settings.json"

# run NAME ARGS...: tandem in events with the phase log in $T/NAME.phases.
run() {
	local name=$1; shift
	TANDEM_DEBUG=phase TANDEM_DEBUG_FILE="$T/$name.phases" timeout 60 "$TANDEM" "$@" \
	    --output-format events >"$T/$name.jsonl" 2>"$T/$name.err"
	rc=$?
}
# same NAME <<EOF: the phase log of run NAME is exactly the text on stdin.
same() {
	if diff -u - "$T/$1.phases" >"$T/$1.diff"; then return 0; fi
	diag "$T/$1.diff"
	return 1
}

# --- one tool round -----------------------------------------------------
mock_start "$(scenario round <<'J'
{"responses":[
 {"text":"Looking.","tool_uses":[{"id":"toolu_p1","name":"read_file","input":{"path":"a.txt"}}]},
 {"text":"a.txt holds alpha and beta.","stop_reason":"end_turn"}
]}
J
)"
run round -p "what is in a.txt?"
check "round: exit 0" [ $rc -eq 0 ]
check "round: two model calls" [ "$(mock_requests)" -eq 2 ]
check "round: the transitions of one tool round" same round <<'P'
turn 1: idle -> prompt
turn 1: prompt -> streaming
turn 1: streaming -> tools
turn 1: tools -> streaming
turn 1: streaming -> tools
turn 1: tools -> idle
P
check "round: nothing on standard error" [ ! -s "$T/round.err" ]

# --- a plain answer -------------------------------------------------------
mock_start "$(scenario plain <<'J'
{"responses":[{"text":"Hello.","stop_reason":"end_turn"}]}
J
)"
run plain -p "hi"
check "plain: the transitions of an answer without tools" same plain <<'P'
turn 1: idle -> prompt
turn 1: prompt -> streaming
turn 1: streaming -> tools
turn 1: tools -> idle
P

# --- a retry --------------------------------------------------------------
mock_start "$(scenario retry <<'J'
{"responses":[{"status":529}, {"text":"Back.","stop_reason":"end_turn"}]}
J
)"
run retry -p "hi"
check "retry: exit 0 after one retry" [ "$rc/$(mock_requests)" = 0/2 ]
check "retry: the backoff is a phase of its own" same retry <<'P'
turn 1: idle -> prompt
turn 1: prompt -> streaming
turn 1: streaming -> retry_wait
turn 1: retry_wait -> streaming
turn 1: streaming -> tools
turn 1: tools -> idle
P

# --- a refused request ------------------------------------------------------
# HTTP 400 is not asked again: the turn fails straight from streaming.
mock_start "$(scenario fatal <<'J'
{"responses":[{"status":400}, {"text":"never","stop_reason":"end_turn"}]}
J
)"
run fatal -p "hi"
check "fatal: exit 1" [ $rc -eq 1 ]
check "fatal: a refused request ends the turn from streaming" same fatal <<'P'
turn 1: idle -> prompt
turn 1: prompt -> streaming
turn 1: streaming -> idle
P

# --- without the option, or with a file that cannot be opened -------------
mock_start "$(scenario quiet <<'J'
{"responses":[{"text":"Hello.","stop_reason":"end_turn"},{"text":"Hello.","stop_reason":"end_turn"}]}
J
)"
TANDEM_DEBUG_FILE="$T/quiet.phases" timeout 60 "$TANDEM" -p hi --output-format events \
    >"$T/quiet.jsonl" 2>"$T/quiet.err"
check "quiet: no TANDEM_DEBUG, no log" [ ! -e "$T/quiet.phases" ]
check "quiet: and nothing on standard error" [ ! -s "$T/quiet.err" ]
TANDEM_DEBUG=hooks,phase TANDEM_DEBUG_FILE="$T/no/such/dir/p" timeout 60 "$TANDEM" -p hi \
    --output-format events >"$T/nodir.jsonl" 2>"$T/nodir.err"
check "no dir: the run still succeeds" [ $? -eq 0 ]
check "no dir: one sentence names the file" \
    [ "$(grep -c 'TANDEM_DEBUG_FILE .*/no/such/dir/p cannot be opened' "$T/nodir.err")" = 1 ]
check "no dir: the transitions go to standard error" grep -qx 'turn 1: tools -> idle' "$T/nodir.err"

finish
