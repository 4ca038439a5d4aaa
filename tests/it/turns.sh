#!/bin/bash
# The turn loop on its edge cases (DESIGN.md §4 step 6, §11), headless
# against the mock: every stop reason, the turn cap, max_tokens
# continuations and cut-off tool calls, pause_turn, refusals, empty
# answers, interrupts while streaming and while a command runs, thinking
# round trips, broken tool input, a 1 MB answer, invalid UTF-8, and the
# events contract.  After each case the session log must still pair
# every tool_use with exactly one tool_result, and the mock must find the
# next request valid.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$top_srcdir" && pwd)
cd "$T/ws"
printf 'alpha\nbeta\n' >a.txt
ALL="$T/all-events.jsonl"
: >"$ALL"

# run NAME ARGS...: tandem in events; $T/NAME.jsonl, $T/NAME.err, $rc.
run() {
	local name=$1; shift
	timeout 60 "$TANDEM" "$@" --output-format events >"$T/$name.jsonl" 2>"$T/$name.err"
	rc=$?
	cat "$T/$name.jsonl" >>"$ALL"
}
# ev NAME FILTER: jq FILTER over the events of run NAME, one result a line (evr: raw).
ev() { jq -c "$2" "$T/$1.jsonl"; }
evr() { jq -r "$2" "$T/$1.jsonl"; }
# resume NAME: the flag that resumes the session of run NAME.
resume() { echo "-r $(result "$1" .session_id)"; }
# A fresh directory, so that -c finds the one session made there.
fresh_dir() { mkdir -p "$T/$1" && cd "$T/$1" && printf 'alpha\nbeta\n' >a.txt; }
gone() { ! pgrep -f "$1" >/dev/null; }
running() { pgrep -f "$1" >/dev/null; }
valid_json_lines() { jq -R -e 'fromjson | type == "object"' "$1" >/dev/null; }
utf8_ok() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null; }
result() { tail -n 1 "$T/$1.jsonl" | jq -r "$2"; }
session_log() { echo "$TANDEM_HOME/sessions/$(result "$1" .session_id)/log.jsonl"; }
# Fixture NAME: the SSE text on stdin, saved next to the scenarios.
fixture() { cat >"$T/$1"; }

# Roles alternate in the rebuilt messages, starting with user.
log_alternates() {
	jq -s -e '
	    reduce .[] as $r ([];
	      if $r.k == "msg" then . + [{role: $r.role}]
	      elif $r.k == "rewind" then .[0:$r.keep]
	      elif $r.k == "replace" then [$r.messages[] | {role}]
	      else . end)
	    | [.[].role] as $r | [range(0; $r | length) | $r[.] == (if . % 2 == 0 then "user" else "assistant" end)] | all' "$1" >/dev/null
}
# wait_for SECONDS COMMAND...: poll until the command succeeds.
wait_for() {
	local i=0 n=$(( $1 * 20 )); shift
	while ! "$@"; do
		i=$((i + 1))
		[ $i -ge $n ] && return 1
		sleep 0.05
	done
}
# The pid of the tandem run (with or without -c) whose prompt starts with $1, not of timeout(1) around it.
tandem_pid() { pgrep -f "^$TANDEM (-c )?-p $1" | head -n 1; }
has_event() { [ -s "$1" ] && jq -e -s "$2" "$1" >/dev/null 2>&1; }

# --- stop reasons: end_turn, stop_sequence --------------------------------

mock_start "$(scenario endturn <<'J'
{"responses":[{"text":"All good.","stop_reason":"end_turn"}]}
J
)"
run endturn -p "say something"
check "end_turn: exit 0" [ $rc -eq 0 ]
check "end_turn: one model call" [ "$(mock_requests)" -eq 1 ]
check "end_turn: turn_end and result say end_turn" \
    [ "$(jq -r 'select(.type=="turn_end" or .type=="result") | .stop_reason' "$T/endturn.jsonl" | tr '\n' ' ')" = "end_turn end_turn " ]
check "end_turn: result counts one model call" [ "$(result endturn .turns)" = 1 ]
check "end_turn: nothing on stderr" [ ! -s "$T/endturn.err" ]

mock_start "$(scenario stopseq <<'J'
{"responses":[{"text":"Up to the marker","stop_reason":"stop_sequence"},
 {"text":"next","stop_reason":"end_turn"}]}
J
)"
run stopseq -p "stop at the marker"
check "stop_sequence: exit 0" [ $rc -eq 0 ]
check "stop_sequence: the turn ends there (one call)" [ "$(mock_requests)" -eq 1 ]
check "stop_sequence: result says stop_sequence" [ "$(result stopseq .stop_reason)" = stop_sequence ]
check "stop_sequence: result text is the answer" [ "$(result stopseq .text)" = "Up to the marker" ]

# --- several rounds of tool_use ------------------------------------------

mock_start "$(scenario rounds <<'J'
{"responses":[
 {"text":"Looking.","tool_uses":[{"id":"toolu_r1","name":"list_dir","input":{}}]},
 {"tool_uses":[{"id":"toolu_r2","name":"read_file","input":{"path":"a.txt"}},
               {"id":"toolu_r3","name":"glob","input":{"pattern":"*.txt"}}]},
 {"tool_uses":[{"id":"toolu_r4","name":"grep","input":{"pattern":"beta"}}]},
 {"text":"Three rounds later: a.txt has beta.","stop_reason":"end_turn"}
]}
J
)"
run rounds -p "look around"
check "rounds: exit 0" [ $rc -eq 0 ]
check "rounds: four model calls" [ "$(mock_requests)" -eq 4 ]
check "rounds: the mock found every request valid" [ "$(mock_problems)" -eq 0 ]
check "rounds: four tool results, none an error" \
    [ "$(ev rounds 'select(.type=="tool_result") | .is_error' | tr '\n' ' ')" = "false false false false " ]
check "rounds: result counts four model calls" [ "$(result rounds .turns)" = 4 ]
check "rounds: the last request holds the whole loop (7 messages)" [ "$(mock_body 4 '.messages | length')" = 7 ]
check "rounds: result text is the final answer" [ "$(result rounds .text)" = "Three rounds later: a.txt has beta." ]
check "rounds: the log pairs every tool_use" log_paired "$(session_log rounds)"

# --- --max-turns ----------------------------------------------------------

mock_start "$(scenario cap <<'J'
{"responses":[
 {"tool_uses":[{"name":"run_bash","input":{"command":"sleep 0.2; echo capmark-7f3a"}}],"repeat":10}
]}
J
)"
run cap -p "loop forever cap-9q2" --max-turns 2 --permission-mode yolo
check "max-turns: exit 1" [ $rc -eq 1 ]
check "max-turns: exactly two model calls" [ "$(mock_requests)" -eq 2 ]
check "max-turns: the requests were valid" [ "$(mock_problems)" -eq 0 ]
check "max-turns: one fatal error naming the flag" \
    [ "$(ev cap 'select(.type=="error" and .fatal) | .message' | grep -c -- '--max-turns')" -eq 1 ]
check "max-turns: result is an error with stop_reason error" \
    [ "$(result cap '[.is_error, .stop_reason, .turns] | @csv')" = 'true,"error",2' ]
check "max-turns: both commands got their result" [ "$(ev cap 'select(.type=="tool_result")' | wc -l)" -eq 2 ]
check "max-turns: the log pairs every tool_use" log_paired "$(session_log cap)"
check "max-turns: no tandem and no command is left" wait_for 5 gone 'capmark-7f3a|cap-9q2'
mock_start "$T/cap.json"
timeout 60 "$TANDEM" -p "loop forever cap-9q3" --max-turns 2 --permission-mode yolo >"$T/cap.out" 2>"$T/cap.txt"
check "max-turns, text mode: exit 1" [ $? -eq 1 ]
check "max-turns, text mode: one sentence on stderr" [ "$(grep -c . "$T/cap.txt")" -eq 1 ]
check "max-turns, text mode: it names the flag" grep -q -- '--max-turns' "$T/cap.txt"

# --- max_tokens: continue (bounded), and say so ---------------------------

mock_start "$(scenario maxtok <<'J'
{"responses":[
 {"text":"The first half of a long answer, ","stop_reason":"max_tokens"},
 {"text":"and the second half.","stop_reason":"end_turn",
  "expect_contains":"cut off by the output limit"}
]}
J
)"
run maxtok -p "write a long answer"
check "max_tokens: exit 0" [ $rc -eq 0 ]
check "max_tokens: it continued once (two calls)" [ "$(mock_requests)" -eq 2 ]
check "max_tokens: the continuation request is valid" [ "$(mock_problems)" -eq 0 ]
check "max_tokens: the continuation carries the cut-off text" \
    [ "$(mock_body 2 '.messages[1].content[0].text')" = '"The first half of a long answer, "' ]
check "max_tokens: one non-fatal error says so" \
    [ "$(ev maxtok 'select(.type=="error") | [.fatal, (.message | test("max_tokens"))]')" = '[false,true]' ]
check "max_tokens: the result holds the whole answer" \
    [ "$(result maxtok .text)" = "The first half of a long answer, and the second half." ]
check "max_tokens: the turn ends with end_turn" [ "$(result maxtok .stop_reason)" = end_turn ]

mock_start "$(scenario maxtok4 <<'J'
{"responses":[{"text":"more and more","stop_reason":"max_tokens","repeat":10}]}
J
)"
run maxtok4 -p "never ends"
check "max_tokens bound: at most 3 continuations (4 calls)" [ "$(mock_requests)" -eq 4 ]
check "max_tokens bound: the requests were valid" [ "$(mock_problems)" -eq 0 ]
check "max_tokens bound: exit 0, stop_reason max_tokens" [ $rc -eq 0 ] && [ "$(result maxtok4 .stop_reason)" = max_tokens ]
check "max_tokens bound: 3 notes and a last one that it stopped" \
    [ "$(ev maxtok4 'select(.type=="error" and (.fatal | not)) | .message' | wc -l)" -eq 4 ]

# A tool_use cut off by max_tokens (no content_block_stop) is not run.
mock_start "$(scenario cuttool <<J
{"responses":[
 {"fixture":"$SRC/tests/fixtures/sse/anthropic_tool_use_truncated_max_tokens.sse"},
 {"text":"Resent properly.","stop_reason":"end_turn"}
]}
J
)"
run cuttool -p "make a tax guide"
check "cut-off tool: exit 0" [ $rc -eq 0 ]
check "cut-off tool: no tool_use event, no tool_result" [ -z "$(ev cuttool 'select(.type=="tool_use" or .type=="tool_result")')" ]
check "cut-off tool: the next request is valid" [ "$(mock_problems)" -eq 0 ] && [ "$(mock_requests)" -eq 2 ]
check "cut-off tool: it carries the text, not the broken call" \
    [ "$(mock_body 2 '[.messages[1].content[].type] | join(",")')" = '"text"' ]
check "cut-off tool: the log pairs every tool_use" log_paired "$(session_log cuttool)"

# The same with a complete-looking input: still not run.
fixture cut_run_bash.sse <<'S'
event: message_start
data: {"type":"message_start","message":{"id":"msg_cut","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_cut","name":"run_bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"touch cut-ran.txt\"}"}}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":20}}

event: message_stop
data: {"type":"message_stop"}

S
mock_start "$(scenario cutbash <<'J'
{"responses":[{"fixture":"cut_run_bash.sse"},{"text":"ok","stop_reason":"end_turn"}]}
J
)"
run cutbash -p "touch it" --permission-mode yolo
check "cut-off run_bash: not run" [ ! -e cut-ran.txt ]
check "cut-off run_bash: exit 0, next request valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "cut-off run_bash: nothing answered that was not asked" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="user") | .content[] | select(.type=="tool_result")] | length')" = 0 ]

# --- pause_turn: resend the paused message, go on -------------------------

mock_start "$(scenario pause <<'J'
{"responses":[
 {"text":"Searching the web first.","stop_reason":"pause_turn"},
 {"text":"Found it: the answer.","stop_reason":"end_turn"},
 {"text":"Sure.","stop_reason":"end_turn"}
]}
J
)"
run pause -p "search for it"
check "pause_turn: exit 0 with end_turn" [ $rc -eq 0 ] && [ "$(result pause .stop_reason)" = end_turn ]
check "pause_turn: resent (two calls)" [ "$(mock_requests)" -eq 2 ]
check "pause_turn: the resend ends with the paused assistant message" \
    [ "$(mock_body 2 '.messages[-1] | [.role, .content[0].text] | @csv')" = '"\"assistant\",\"Searching the web first.\""' ]
check "pause_turn: no error event" [ -z "$(ev pause 'select(.type=="error")')" ]
check "pause_turn: the result holds the whole answer" \
    [ "$(result pause .text)" = "Searching the web first.Found it: the answer." ]
run pause2 $(resume pause) -p "thanks"
check "pause_turn: the next prompt is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "pause_turn: roles alternate in the next request" \
    [ "$(mock_body 3 '[.messages[].role] | join(",")')" = '"user,assistant,user"' ]
check "pause_turn: the log alternates" log_alternates "$(session_log pause2)"

# --- refusal: shown, the turn ends --------------------------------------

mock_start "$(scenario refusal <<J
{"responses":[
 {"fixture":"$SRC/tests/fixtures/sse/anthropic_refusal.sse"},
 {"text":"Something else, then.","stop_reason":"end_turn"}
]}
J
)"
run refusal -p "something bad"
check "refusal: exit 0" [ $rc -eq 0 ]
check "refusal: turn_end and result say refusal" \
    [ "$(jq -r 'select(.type=="turn_end" or .type=="result") | .stop_reason' "$T/refusal.jsonl" | tr '\n' ' ')" = "refusal refusal " ]
check "refusal: shown as a non-fatal error" [ "$(ev refusal 'select(.type=="error") | .fatal')" = false ]
check "refusal: one model call" [ "$(mock_requests)" -eq 1 ]
timeout 60 "$TANDEM" $(resume refusal) -p "something else" >"$T/refusal2.out" 2>"$T/refusal2.err"
check "refusal: the next prompt is valid" [ $? -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
mock_start "$(scenario refusal_text <<'J'
{"responses":[{"text":"I can't help with that.","stop_reason":"refusal"}]}
J
)"
timeout 60 "$TANDEM" -p "something bad" >"$T/refusal3.out" 2>"$T/refusal3.err"
check "refusal, text mode: exit 0" [ $? -eq 0 ]
check "refusal, text mode: the words on stdout" [ "$(cat "$T/refusal3.out")" = "I can't help with that." ]
check "refusal, text mode: the note on stderr" grep -q declined "$T/refusal3.err"

# --- empty responses ------------------------------------------------------

mock_start "$(scenario empty <<'J'
{"responses":[
 {"text":"","stop_reason":"end_turn"},
 {"text":"Here now.","stop_reason":"end_turn"}
]}
J
)"
run empty -p "hello?"
check "empty answer: exit 0" [ $rc -eq 0 ]
check "empty answer: the result text is empty" [ "$(result empty .text)" = "" ]
check "empty answer: a non-fatal note says so" [ "$(ev empty 'select(.type=="error") | .fatal')" = false ]
run empty2 $(resume empty) -p "hello again"
check "empty answer: the next prompt is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "empty answer: no empty text block was sent" \
    [ "$(mock_body 2 '[.messages[].content[] | select(.type=="text" and .text=="")] | length')" = 0 ]
check "empty answer: the log alternates" log_alternates "$(session_log empty2)"

mock_start "$(scenario blank <<'J'
{"responses":[{"text":"\n  \n","stop_reason":"end_turn"},{"text":"Words.","stop_reason":"end_turn"}]}
J
)"
run blank -p "say nothing much"
run blank2 $(resume blank) -p "say something"
check "white-space answer: the next request is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "white-space answer: no blank text block was sent" \
    [ "$(mock_body 2 '[.messages[].content[] | select(.type=="text" and (.text | test("^\\s*$")))] | length')" = 0 ]

fixture noblocks.sse <<'S'
event: message_start
data: {"type":"message_start","message":{"id":"msg_e","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":0}}

event: message_stop
data: {"type":"message_stop"}

S
mock_start "$(scenario emptytool <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_e1","name":"read_file","input":{"path":"a.txt"}}]},
 {"fixture":"noblocks.sse"},
 {"text":"Back.","stop_reason":"end_turn"}
]}
J
)"
run emptytool -p "read and say nothing"
check "no content after a tool: exit 0" [ $rc -eq 0 ]
check "no content after a tool: result text is empty" [ "$(result emptytool .text)" = "" ]
run emptytool2 $(resume emptytool) -p "say something"
check "no content after a tool: the next prompt is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "no content after a tool: the result text is the new answer" [ "$(result emptytool2 .text)" = "Back." ]
check "no content after a tool: the log pairs and alternates" \
    log_paired "$(session_log emptytool2)" && log_alternates "$(session_log emptytool2)"

# --- interrupts -----------------------------------------------------------

# SIGINT while a long answer streams in slow chunks, after one tool call completed.
fresh_dir ws-slow
{
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_slow","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_s1","name":"read_file","input":{}}}\n\n'
	printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"a.txt\\"}"}}\n\n'
	printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n'
	for i in $(seq 1 300); do
		printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"word%d "}}\n\n' "$i"
	done
	printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n'
	printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":600}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
} >"$T/slow.sse"
mock_start "$(scenario slow <<'J'
{"responses":[{"fixture":"slow.sse","delay_ms":30},{"text":"Resumed fine.","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p "slow-stream-4k1" --output-format events >"$T/slow.jsonl" 2>"$T/slow.err" &
pid=$!
wait_for 20 has_event "$T/slow.jsonl" 'any(.[]; .type=="tool_result" and .id=="toolu_s1")'
wait_for 20 has_event "$T/slow.jsonl" 'any(.[]; .type=="text")'
kill -INT "$(tandem_pid slow-stream)"
wait $pid
rc=$?
cat "$T/slow.jsonl" >>"$ALL"
shown=$(evr slow 'select(.type=="text") | .text' | tr -d '\n')
check "SIGINT mid-stream: exit 130" [ $rc -eq 130 ]
check "SIGINT mid-stream: result says interrupted" [ "$(result slow .stop_reason)" = interrupted ]
check "SIGINT mid-stream: it stopped early (${#shown} bytes shown)" [ "${#shown}" -gt 0 ] && [ "${#shown}" -lt 2000 ]
check "SIGINT mid-stream: the completed call has its result" [ "$(evr slow 'select(.type=="tool_result") | .id')" = toolu_s1 ]
check "SIGINT mid-stream: the result holds the words shown" [ "$(result slow .text)" = "$shown" ]
check "SIGINT mid-stream: one request, none resent" [ "$(mock_requests)" -eq 1 ]
check "SIGINT mid-stream: the log pairs every tool_use" log_paired "$(session_log slow)"
check "SIGINT mid-stream: no tandem left" wait_for 5 gone slow-stream-4k1
run slow2 -c -p "go on"
check "SIGINT mid-stream: -c resumes" [ $rc -eq 0 ] && [ "$(result slow2 .text)" = "Resumed fine." ]
check "SIGINT mid-stream: the resumed request is valid" [ "$(mock_problems)" -eq 0 ]
check "SIGINT mid-stream: it carries the call, its result and the words shown" \
    [ "$(mock_body 2 '[.messages[1].content[] | .id // .text] + [.messages[2].content[0].tool_use_id] | join("|")')" = "$(jq -c -n --arg s "$shown" '["toolu_s1", $s, "toolu_s1"] | join("|")')" ]
check "SIGINT mid-stream: the log alternates" log_alternates "$(session_log slow2)"

# SIGINT while run_bash runs: the command's whole process group dies.
fresh_dir ws-sleep
mock_start "$(scenario sleep <<'J'
{"responses":[
 {"text":"Waiting.","tool_uses":[{"id":"toolu_z","name":"run_bash","input":{"command":"sleep 30.17 & sleep 30.18; wait"}}]},
 {"text":"Resumed after the interrupt.","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p "sleep-int-3c8" --permission-mode yolo --output-format events >"$T/sleep.jsonl" 2>"$T/sleep.err" &
pid=$!
wait_for 20 running 'sleep 30.18'
check "SIGINT in run_bash: the command started" running 'sleep 30.18'
started=$(date +%s)
kill -INT "$(tandem_pid sleep-int)"
wait $pid
rc=$?
took=$(( $(date +%s) - started ))
cat "$T/sleep.jsonl" >>"$ALL"
check "SIGINT in run_bash: exit 130" [ $rc -eq 130 ]
check "SIGINT in run_bash: promptly (${took} s)" [ "$took" -lt 5 ]
check "SIGINT in run_bash: no sleep of the command is left" wait_for 5 gone 'sleep 30.1[78]'
check "SIGINT in run_bash: no tandem left" wait_for 5 gone sleep-int-3c8
check "SIGINT in run_bash: the call got an error result" \
    [ "$(evr sleep 'select(.type=="tool_result") | [.id, .is_error] | @csv')" = '"toolu_z",true' ]
check "SIGINT in run_bash: one request" [ "$(mock_requests)" -eq 1 ]
check "SIGINT in run_bash: the log pairs every tool_use" log_paired "$(session_log sleep)"
run sleep2 -c -p "what happened?"
check "SIGINT in run_bash: -c resumes" [ $rc -eq 0 ] && [ "$(result sleep2 .text)" = "Resumed after the interrupt." ]
check "SIGINT in run_bash: the resumed request is valid" [ "$(mock_problems)" -eq 0 ]
check "SIGINT in run_bash: it answers the call with the interrupt" \
    grep -q interrupted <(mock_body 2 '.messages[2].content[0].content')
check "SIGINT in run_bash: nothing ran again" [ -z "$(ev sleep2 'select(.type=="tool_use" or .type=="tool_result")')" ]

# A side-effecting call that waits for its checkpoint when SIGINT comes never starts.
fresh_dir ws-wait
mock_start "$(scenario wait <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_w1","name":"read_file","input":{"path":"a.txt"}},
               {"id":"toolu_w2","name":"run_bash","input":{"command":"touch never-ran.txt"}},
               {"id":"toolu_w3","name":"list_dir","input":{"path":"no-such-dir-because-the-input-is-long-enough-to-stream-slowly-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}],
  "chunk":8,"delay_ms":25},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
timeout 60 "$TANDEM" -p "wait-int-5d1" --permission-mode yolo --output-format events >"$T/wait.jsonl" 2>"$T/wait.err" &
pid=$!
wait_for 20 has_event "$T/wait.jsonl" 'any(.[]; .type=="tool_use" and .id=="toolu_w2")'
kill -INT "$(tandem_pid wait-int)"
wait $pid
rc=$?
cat "$T/wait.jsonl" >>"$ALL"
check "SIGINT before checkpoint A: exit 130" [ $rc -eq 130 ]
check "SIGINT before checkpoint A: the waiting command never ran" [ ! -e never-ran.txt ]
check "SIGINT before checkpoint A: it has an error result" \
    [ "$(evr wait 'select(.type=="tool_result" and .id=="toolu_w2") | .is_error')" = true ]
check "SIGINT before checkpoint A: the log pairs every tool_use" log_paired "$(session_log wait)"

# SIGINT while the answer streams, before any tool, in text mode: the words so far, and a note.
fresh_dir ws-text
{
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_st","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
	for i in $(seq 1 20); do
		printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word%d "}}\n\n' "$i"
	done
	printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
	printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":60}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
} >"$T/slowtext.sse"
mock_start "$(scenario slowtext <<'J'
{"responses":[{"fixture":"slowtext.sse","delay_ms":300},{"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p "slowtext-77b" >"$T/slowtext.out" 2>"$T/slowtext.err" &
pid=$!
wait_for 20 [ -s "$MOCK_LOG" ]
sleep 2
# timeout(1) passes the signal on twice (to tandem, then to its group): one interrupt all the same.
kill -INT $pid
wait $pid
rc=$?
check "SIGINT in text mode: exit 130" [ $rc -eq 130 ]
check "SIGINT in text mode: stderr says interrupted" grep -q '^tandem: interrupted' "$T/slowtext.err"
check "SIGINT in text mode: stdout has the start of the answer" grep -q '^word1 word2 ' "$T/slowtext.out"
check "SIGINT in text mode: not the whole of it" not grep -q 'word20' "$T/slowtext.out"
run slowtext2 -c -p "continue"
check "SIGINT in text mode: -c resumes and the request is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "SIGINT in text mode: the partial answer is in the context" \
    [ "$(mock_body 2 '.messages[1].content[0].text')" = "$(jq -c -R -s 'rtrimstr("\n")' "$T/slowtext.out")" ]
cd "$T/ws"

# SIGINT while waiting to retry (529, retry-after 10 s): no request is left to go out.
fresh_dir ws-retry
mock_start "$(scenario retry <<'J'
{"responses":[{"status":529,"headers":{"retry-after":"10"}},{"text":"too late","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p "retry-int-8e0" --output-format events >"$T/retry.jsonl" 2>"$T/retry.err" &
pid=$!
wait_for 20 has_event "$T/retry.jsonl" 'any(.[]; .type=="retry")'
started=$(date +%s)
kill -INT "$(tandem_pid retry-int)"
wait $pid
rc=$?
took=$(( $(date +%s) - started ))
cat "$T/retry.jsonl" >>"$ALL"
check "SIGINT in a retry wait: exit 130, promptly (${took} s)" [ $rc -eq 130 ] && [ "$took" -lt 5 ]
check "SIGINT in a retry wait: the retry said 10 s" [ "$(ev retry 'select(.type=="retry") | .delay_ms')" = 10000 ]
sleep 0.5
check "SIGINT in a retry wait: no second request" [ "$(mock_requests)" -eq 1 ]
check "SIGINT in a retry wait: no tandem left" wait_for 5 gone retry-int-8e0

# SIGINT while the next call waits for a compaction summary: the call never goes out.
fresh_dir ws-sum
mkdir -p .tandem
echo '{"context_window": 24000}' >.tandem/settings.json
for i in $(seq 1 6); do printf 'line %d of a file with some words in it\n' $(seq 1 60) >"f$i.txt"; done
big_files
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"match":"You summarise the earlier part","text":"Summary.","first_byte_delay_ms":15000,"repeat":5},\n'
	for i in $(seq 1 6); do
		printf ' {"tool_uses":[{"name":"read_file","input":{"path":"f%d.txt"}}]},\n' "$i"
		printf ' {"text":"Read f%d.","stop_reason":"end_turn"},\n' "$i"
	done
	for i in $(seq 1 10); do
		printf ' {"tool_uses":[{"name":"read_file","input":{"path":"big%d.txt"}}]},\n' "$i"
	done
	printf ' {"text":"Read them all.","stop_reason":"end_turn","repeat":20}\n]}\n'
} >"$T/sum.json"
mock_start "$T/sum.json"
ok_all=1
for i in $(seq 1 6); do
	timeout 60 "$TANDEM" $([ "$i" -gt 1 ] && echo -c) -p "turn $i: read f$i" >/dev/null 2>&1 || ok_all=0
done
check "summary wait: the session grew" [ $ok_all -eq 1 ]
timeout 60 "$TANDEM" -c -p "sum-int-2b7: read the big files" --output-format events >"$T/sum.jsonl" 2>"$T/sum.err" &
pid=$!
wait_for 30 grep -q 'You summarise the earlier part' "$MOCK_LOG"
n=$(mock_requests)
kill -INT "$(tandem_pid sum-int-2b7)"
wait $pid
rc=$?
cat "$T/sum.jsonl" >>"$ALL"
check "summary wait: the summary was asked for" grep -q 'You summarise the earlier part' "$MOCK_LOG"
check "summary wait: exit 130" [ $rc -eq 130 ]
sleep 0.5
check "summary wait: no request after the interrupt" [ "$(mock_requests)" -eq "$n" ]
check "summary wait: the log pairs every tool_use" log_paired "$(session_log sum)"
mock_start "$(scenario after <<'J'
{"check_echo":false,"responses":[{"match":"You summarise the earlier part","text":"Summary: files were read.","repeat":5},{"text":"Back.","stop_reason":"end_turn","repeat":5}]}
J
)"
run sum2 -c -p "go on"
check "summary wait: -c resumes" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
cd "$T/ws"

# --- thinking round trip --------------------------------------------------

mock_start "$(scenario think <<'J'
{"responses":[
 {"thinking":"The user wants a.txt; read it first.","redacted_thinking":"b3BhcXVlLWJsb2I=",
  "text":"Reading.","tool_uses":[{"id":"toolu_t1","name":"read_file","input":{"path":"a.txt"}}]},
 {"thinking":"It has two lines.","tool_uses":[{"id":"toolu_t2","name":"list_dir","input":{}}]},
 {"thinking":"Enough.","text":"a.txt has alpha and beta.","stop_reason":"end_turn"},
 {"text":"Still here.","stop_reason":"end_turn"}
]}
J
)"
run think -p "what is in a.txt?"
check "thinking: exit 0" [ $rc -eq 0 ]
check "thinking: three calls, every one valid (echo checked)" [ "$(mock_requests)" -eq 3 ] && [ "$(mock_problems)" -eq 0 ]
check "thinking: thinking events were emitted" [ -n "$(ev think 'select(.type=="thinking")')" ]
check "thinking: sent back before the tool call, with its signature" \
    [ "$(mock_body 2 '.messages[1].content | [(map(.type) | index("thinking") < index("tool_use")), (.[] | select(.type=="thinking") | .thinking, (.signature | length > 0))]')" = '[true,"The user wants a.txt; read it first.",true]' ]
check "thinking: redacted_thinking sent back verbatim" \
    [ "$(mock_body 2 '[.messages[1].content[] | select(.type=="redacted_thinking") | .data] | join(",")')" = '"b3BhcXVlLWJsb2I="' ]
check "thinking: the second round's thinking comes back too" \
    [ "$(mock_body 3 '.messages[3].content[0] | [.type, .thinking]')" = '["thinking","It has two lines."]' ]
run think2 $(resume think) -p "and now?"
check "thinking: a resumed conversation sends it back unchanged" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
check "thinking: signatures survive the log" \
    [ "$(mock_body 4 '.messages[1].content[] | select(.type=="thinking") | .signature')" = "$(mock_body 2 '.messages[1].content[] | select(.type=="thinking") | .signature')" ]

# --- a tool_use whose input is not valid JSON -----------------------------

fixture badjson.sse <<'S'
event: message_start
data: {"type":"message_start","message":{"id":"msg_bad","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_bad","name":"run_bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"touch bad-ran.txt"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_good","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}

event: message_stop
data: {"type":"message_stop"}

S
mock_start "$(scenario badjson <<'J'
{"responses":[{"fixture":"badjson.sse"},{"text":"I will resend it.","stop_reason":"end_turn"}]}
J
)"
run badjson -p "touch it" --permission-mode yolo
check "bad tool JSON: exit 0" [ $rc -eq 0 ]
check "bad tool JSON: the command did not run" [ ! -e bad-ran.txt ]
check "bad tool JSON: an is_error result" [ "$(ev badjson 'select(.type=="tool_result" and .id=="toolu_bad") | .is_error')" = true ]
check "bad tool JSON: it tells the model to resend" \
    grep -q 'not valid JSON.*send the call again' <(ev badjson 'select(.type=="tool_result" and .id=="toolu_bad") | .content')
check "bad tool JSON: the sibling call still ran" [ "$(ev badjson 'select(.type=="tool_result" and .id=="toolu_good") | .is_error')" = false ]
check "bad tool JSON: the next request is valid" [ "$(mock_problems)" -eq 0 ]
check "bad tool JSON: the call is echoed with an object input" [ "$(mock_body 2 '.messages[1].content[0].input')" = '{}' ]

# --- a 1 MB answer, and invalid UTF-8 ------------------------------------

awk 'BEGIN { for (i = 0; i < 21000; i++) printf "line %06d of a long answer, streamed whole......\n", i }' >"$T/big.txt"
jq -n --rawfile t "$T/big.txt" '{responses: [{text: $t, stop_reason: "end_turn", repeat: 2}]}' >"$T/big.json"
mock_start "$T/big.json"
timeout 60 "$TANDEM" -p "a big answer" >"$T/big.out" 2>"$T/big.err"
check "1 MB answer: exit 0" [ $? -eq 0 ]
check "1 MB answer: it is 1 MB ($(stat -c %s "$T/big.txt") bytes)" [ "$(stat -c %s "$T/big.txt")" -ge 1048576 ]
check "1 MB answer: printed whole in text mode" cmp -s "$T/big.txt" "$T/big.out"
run big -p "a big answer"
check "1 MB answer: the text deltas join to it in events" \
    cmp -s "$T/big.txt" <(jq -j 'select(.type=="text") | .text' "$T/big.jsonl")

printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_u","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n' >"$T/badutf8.sse"
printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' >>"$T/badutf8.sse"
printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \xff\xfe bytes, "}}\n\n' >>"$T/badutf8.sse"
printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut \xe2\x82 sequence, overlong \xc0\xaf, surrogate \xed\xa0\x80, caf\xc3\xa9 ok"}}\n\n' >>"$T/badutf8.sse"
printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' >>"$T/badutf8.sse"
printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n' >>"$T/badutf8.sse"
mock_start "$(scenario badutf8 <<'J'
{"responses":[{"fixture":"badutf8.sse","repeat":2},{"text":"fine","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p "bytes" >"$T/badutf8.out" 2>"$T/badutf8.err"
check "invalid UTF-8: exit 0" [ $? -eq 0 ]
check "invalid UTF-8: the output is valid UTF-8" utf8_ok "$T/badutf8.out"
check "invalid UTF-8: the valid parts survive" grep -q 'bad .* bytes, cut .* sequence.*café ok' "$T/badutf8.out"
run badutf8 -p "bytes again"
run badutf8b $(resume badutf8) -p "again"
check "invalid UTF-8: events is valid" valid_json_lines "$T/badutf8.jsonl"
check "invalid UTF-8: the next request is valid" [ $rc -eq 0 ] && [ "$(mock_problems)" -eq 0 ]
mock_body 3 '.messages[1].content[0].text' >"$T/badutf8.sent"
check "invalid UTF-8: the history sent back is valid UTF-8" utf8_ok "$T/badutf8.sent"

# --- the events contract, over every run above ----------------------

check "no sanitizer report in any run" not grep -l 'Sanitizer' "$T"/*.err

check "events: every line of every run is one JSON object" valid_json_lines "$ALL"
bad_last=""
for f in "$T"/*.jsonl; do
	case $f in "$ALL") continue ;; esac
	[ -s "$f" ] || continue
	[ "$(tail -n 1 "$f" | jq -r .type)" = result ] || bad_last="$bad_last $(basename "$f")"
	[ "$(jq -r 'select(.type=="result") | .type' "$f" | wc -l)" -eq 1 ] || bad_last="$bad_last $(basename "$f")(results)"
done
check "events: result is the last line, once, of every run${bad_last:+ (not in$bad_last)}" [ -z "$bad_last" ]
types=$(jq -r .type "$ALL" | sort -u | tr '\n' ' ')
echo "# event types seen: $types"
allowed=' session turn_start text thinking tool_use tool_progress approval_request approval tool_result usage context compaction cache_break retry error turn_end result rewind compaction_done '
odd=""
for t in $types; do case $allowed in *" $t "*) ;; *) odd="$odd $t" ;; esac; done
check "events: only the event types of DESIGN.md §3${odd:+ (also:$odd)}" [ -z "$odd" ]
check "events: every event carries its turn" [ "$(jq -s 'all(.[]; (.turn | type) == "number")' "$ALL")" = true ]
check "events: a headless run replays nothing" [ -z "$(jq -c 'select(.replay)' "$ALL")" ]

finish
