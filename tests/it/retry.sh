#!/bin/bash
# Retries and timeouts against the mock: which statuses are retried, the
# backoff schedule (TANDEM_RETRY_BASE_MS shortens it), retry-after-ms and
# retry-after honoured, x-should-retry, the number of attempts as a
# setting, connections refused or dropped, streams that stall or never
# start, partial answers not duplicated, tool calls cut off never run, and
# an interrupt during the wait.  Delays are measured by the mock (t_ms of
# each request in its log), so a retry that came too early fails.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
printf 'one\ntwo\n' >a.txt

result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
# gap N: milliseconds between request N and request N+1, as the mock saw them.
gap() { jq -s ".[$1].t_ms - .[$(($1 - 1))].t_ms" "$MOCK_LOG"; }
# in_range V LO HI
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# same_bodies: every request carried the same messages.
same_bodies() { [ "$(jq -c .body.messages "$MOCK_LOG" | sort -u | wc -l)" -eq 1 ]; }

# 1. The backoff schedule: base·2ⁿ up to 16·base, each cut by up to a quarter (jitter).
settings '{"retries": 6}'
mock_start "$(scenario backoff <<'J'
{"require_all": true, "responses":[
 {"status":529,"repeat":6},
 {"text":"finally","stop_reason":"end_turn"}
]}
J
)"
TANDEM_RETRY_BASE_MS=40 run -p "x"
check "backoff: exit 0 after six 529s" [ $? -eq 0 ]
check "backoff: the answer" [ "$(result .text)" = finally ]
check "backoff: attempts 1..6" [ "$(ev retry .attempt | tr '\n' ' ')" = "1 2 3 4 5 6 " ]
i=0
for cap in 40 80 160 320 640 640; do
	i=$((i + 1))
	d=$(ev retry .delay_ms | sed -n "${i}p")
	check "backoff: delay $i is $d ms, within [0.75, 1] x $cap" in_range "$d" $((cap * 3 / 4)) "$cap"
	g=$(gap "$i")
	check "backoff: the mock saw retry $i after $g ms (>= $d)" in_range "$g" "$d" $((d + 1000))
done
check "backoff: jitter (not every delay at its cap)" \
    [ "$(ev retry .delay_ms | tr '\n' ' ')" != "40 80 160 320 640 640 " ]
check "backoff: the reason names the status" grep -q 'HTTP 529' <(ev retry .reason | head -n 1)
# Jitter spreads out clients that fail together: two processes do not wait alike.
mock_start "$(scenario jitter <<'J'
{"responses":[{"status":529,"repeat":6}]}
J
)"
settings '{"retries": 2}'
TANDEM_RETRY_BASE_MS=400 run -p "x"
first=$(ev retry .delay_ms | tr '\n' ' ')
TANDEM_RETRY_BASE_MS=400 run -p "x"
second=$(ev retry .delay_ms | tr '\n' ' ')
check "backoff: jitter differs between processes ($first, $second)" [ "$first" != "$second" ]
settings '{"retries": 6}'
mock_start "$T/backoff.json"
TANDEM_RETRY_BASE_MS=40 run -p "x"
check "backoff: every attempt sent the same request" same_bodies
check "backoff: no problems" [ "$(mock_problems)" -eq 0 ]

# 2. Out of attempts: retries is the number of retries after the first try.
settings '{"retries": 2}'
mock_start "$(scenario exhaust <<'J'
{"responses":[{"status":529,"repeat":5}]}
J
)"
run -p "x"
check "exhausted: exit 1" [ $? -eq 1 ]
check "exhausted: 3 attempts with retries=2" [ "$(mock_requests)" -eq 3 ]
check "exhausted: says it gave up after 3 attempts" grep -q 'gave up after 3 attempts' <(ev error .message)
check "exhausted: the result is an error" [ "$(result .is_error)" = true ]
settings '{"retries": 0}'
mock_start "$T/exhaust.json"
run -p "x"
check "retries=0: one attempt only" [ "$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/0 ]
settings '{}'

# 3. Which statuses are retried.
for st in 408 409 429 500 502 503 504 529; do
	mock_start "$(scenario "s$st" <<J
{"responses":[{"status":$st}, {"text":"ok $st","stop_reason":"end_turn"}]}
J
)"
	run -p "x"
	check "HTTP $st: retried, then answered" [ "$?/$(ev retry .attempt)/$(result .text)" = "0/1/ok $st" ]
done
for st in 400 404 413 422; do
	mock_start "$(scenario "s$st" <<J
{"responses":[{"status":$st}, {"text":"never","stop_reason":"end_turn"}]}
J
)"
	run -p "x"
	check "HTTP $st: not retried, exit 1" [ "$?/$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/1/0 ]
done
mock_start "$(scenario s403 <<'J'
{"responses":[{"status":403}, {"text":"never"}]}
J
)"
run -p "x"
check "HTTP 403: not retried; says the key was refused" [ "$?/$(mock_requests)" = 1/1 ]
check "HTTP 403: names the variable" grep -q ANTHROPIC_API_KEY <(ev error .message)

# 4. retry-after-ms, retry-after (seconds, fractions too), out-of-range values ignored.
mock_start "$(scenario after <<'J'
{"responses":[
 {"status":429,"headers":{"retry-after-ms":"700"}},
 {"status":529,"headers":{"retry-after":"1"}},
 {"status":503,"headers":{"retry-after":"0.3"}},
 {"status":429,"headers":{"retry-after-ms":"250","retry-after":"30"}},
 {"status":429,"headers":{"retry-after-ms":"120000"}},
 {"status":429,"headers":{"retry-after":"3600"}},
 {"text":"patient","stop_reason":"end_turn"}
]}
J
)"
settings '{"retries": 8}'
run -p "x"
check "retry-after: exit 0" [ $? -eq 0 ]
check "retry-after: the delays 700, 1000, 300, 250 ms honoured" \
    [ "$(ev retry .delay_ms | head -n 4 | tr '\n' ' ')" = "700 1000 300 250 " ]
check "retry-after-ms 700: the mock waited $(gap 1) ms" in_range "$(gap 1)" 700 2000
check "retry-after 1: the mock waited $(gap 2) ms" in_range "$(gap 2)" 1000 2500
check "retry-after 0.3: the mock waited $(gap 3) ms" in_range "$(gap 3)" 300 1500
check "retry-after-ms wins over retry-after: $(gap 4) ms" in_range "$(gap 4)" 250 1500
check "retry-after-ms over 60 s: ignored, backoff instead" [ "$(ev retry .delay_ms | sed -n 5p)" -le 400 ]
check "retry-after over 60 s: ignored, backoff instead" [ "$(ev retry .delay_ms | sed -n 6p)" -le 800 ]
# retry-after may also be an HTTP date.
mock_start "$(scenario date <<J
{"responses":[{"status":503,"headers":{"retry-after":"$(date -u -d '+2 seconds' '+%a, %d %b %Y %H:%M:%S GMT')"}},
 {"text":"dated","stop_reason":"end_turn"}]}
J
)"
run -p "x"
check "retry-after as an HTTP date: waited $(ev retry .delay_ms) ms" in_range "$(ev retry .delay_ms)" 1000 2000
check "retry-after as an HTTP date: the mock saw it after $(gap 1) ms" in_range "$(gap 1)" 1000 3000
settings '{}'

# 5. x-should-retry overrides the status either way.
mock_start "$(scenario noretry <<'J'
{"responses":[{"status":529,"headers":{"x-should-retry":"false"}}, {"text":"never"}]}
J
)"
run -p "x"
check "x-should-retry: false on a 529: one attempt, exit 1" [ "$?/$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/1/0 ]
mock_start "$(scenario doretry <<'J'
{"responses":[{"status":400,"headers":{"x-should-retry":"true"}}, {"text":"retried","stop_reason":"end_turn"}]}
J
)"
run -p "x"
check "x-should-retry: true on a 400: retried" [ "$?/$(mock_requests)/$(result .text)" = 0/2/retried ]

# 6. Connections refused, and dropped before and during the answer.
settings '{"retries": 2}'
ANTHROPIC_BASE_URL=http://127.0.0.1:1 run -p "x"
check "refused: exit 1 after 3 attempts" [ "$?/$(ev retry .attempt | wc -l)" = 1/2 ]
check "refused: says it cannot connect" grep -q 'cannot connect' <(ev error .message)
# A server that never accepts: the connect timeout of the settings ends each attempt.
settings '{"retries": 1, "timeouts": {"connect_ms": 300}}'
mock_start "$(scenario noaccept <<'J'
{"responses":[]}
J
)" --no-accept
start=$(date +%s%N)
run -p "x"
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
check "connect timeout: exit 1 after 2 attempts" [ "$rc/$(ev retry .attempt | wc -l)" = 1/1 ]
check "connect timeout: says so" grep -q 'connecting to the model server timed out' <(ev retry .reason)
check "connect timeout: took $took ms (two 300 ms attempts)" in_range "$took" 600 5000
settings '{}'
text="The quick brown fox jumps over the lazy dog; this answer is long enough to be cut in two."
mock_start "$(scenario drop <<J
{"responses":[
 {"text":"$text","close_after_bytes":0},
 {"text":"$text","close_after_bytes":700},
 {"text":"$text"},
 {"text":"Second answer.","expect_contains":"lazy dog"}
]}
J
)"
run -p "x"
check "dropped: exit 0 after two retries" [ "$?/$(ev retry .attempt | tr '\n' ' ')" = "0/1 2 " ]
check "dropped: the reason says the connection broke" grep -q 'connection to the model server broke' <(ev retry .reason | tail -n 1)
check "dropped mid-answer: part of the text was shown before the retry" \
    [ "$(jq -r 'select(.type=="text" or .type=="retry") | .type' "$T/out.jsonl" | uniq | tr '\n' ' ')" = "retry text retry text " ]
check "dropped mid-answer: the result has the text once" [ "$(result .text)" = "$text" ]
run -r "$(result .session_id)" -p "go on"
check "dropped mid-answer: the next prompt's request has it once" \
    [ "$(mock_body 4 '[.messages[] | select(.role=="assistant") | .content[] | select(.type=="text") | .text]')" = "[\"$text\"]" ]
check "dropped: no problems" [ "$(mock_problems)" -eq 0 ]

# A whole answer whose connection drops before the end of the chunked body is not asked again.
for p in anthropic openai; do
	mock_start "$(scenario "atend_$p" <<'J'
{"responses":[{"text":"Complete answer.","close_at_end":true}, {"text":"Asked twice."}]}
J
)"
	run -p "x" --provider $p
	check "whole answer, transfer cut ($p): exit 0, no retry" [ "$?/$(ev retry .attempt | wc -l)" = 0/0 ]
	check "whole answer, transfer cut ($p): one request" [ "$(mock_requests)" -eq 1 ]
	check "whole answer, transfer cut ($p): the answer" [ "$(result .text)" = "Complete answer." ]
done

# 7. A stream that stalls mid-answer, and one that never starts: timeouts from the settings.
settings '{"timeouts": {"stall_ms": 300, "first_byte_ms": 400}}'
mock_start "$(scenario stall <<J
{"responses":[
 {"text":"$text","stall_after_bytes":600,"stall_ms":20000},
 {"text":"$text","first_byte_delay_ms":20000},
 {"text":"$text"}
]}
J
)"
start=$(date +%s%N)
run -p "x"
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
check "stall: exit 0 in $took ms (not the 20 s stall)" [ "$rc/$((took < 10000))" = 0/1 ]
check "stall: detected by the stall timeout" grep -q 'went silent' <(ev retry .reason | head -n 1)
check "stall: retried after $(gap 1) ms (>= 300)" in_range "$(gap 1)" 300 2000
check "first byte: detected by the first-byte timeout" grep -q 'did not start answering' <(ev retry .reason | sed -n 2p)
check "first byte: retried after $(gap 2) ms (>= 400)" in_range "$(gap 2)" 400 2000
check "stall: the answer once" [ "$(result .text)" = "$text" ]
settings '{}'

# 8. An error event mid-stream (Anthropic overloaded_error): retried, text not doubled.
mock_start "$(scenario midstream <<J
{"responses":[{"text":"$text","error_after_bytes":500}, {"text":"$text"}]}
J
)"
run -p "x"
check "error event: exit 0 after one retry" [ "$?/$(ev retry .attempt)" = 0/1 ]
check "error event: the reason names overloaded_error" grep -q overloaded_error <(ev retry .reason)
check "error event: the answer once" [ "$(result .text)" = "$text" ]

# 9. A failure in the middle of a tool loop: the retry resends the last complete state,
#    and tools that already ran do not run again.
mock_start "$(scenario loop <<'J'
{"responses":[
 {"text":"Counting.","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":"printf x >>count.txt"}}]},
 {"status":529},
 {"text":"Done.","close_after_bytes":300},
 {"text":"Done."}
]}
J
)"
rm -f count.txt
run -p "count" --permission-mode yolo
check "tool loop: exit 0" [ $? -eq 0 ]
check "tool loop: the command ran once" [ "$(cat count.txt)" = x ]
check "tool loop: requests 2, 3 and 4 are the same" \
    [ "$(for n in 2 3 4; do mock_body $n .messages; done | sort -u | wc -l)" -eq 1 ]
check "tool loop: they answer toolu_c1" [ "$(mock_body 4 '.messages[-1].content[0].tool_use_id')" = '"toolu_c1"' ]
check "tool loop: no problems" [ "$(mock_problems)" -eq 0 ]

# 10. Tool calls cut off mid-input are never run nor answered; whole ones before them are.
cat >"$T/cut_tool.sse" <<'S'
event: message_start
data: {"type":"message_start","message":{"id":"msg_cut","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_whole","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_cut","name":"run_bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"printf y >>cut.txt\"}"}}

S
for how in eof error; do
	rm -f cut.txt
	if [ $how = error ]; then
		printf 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n' >>"$T/cut_tool.sse"
	fi
	mock_start "$(scenario "cut_$how" <<J
{"responses":[{"fixture":"$T/cut_tool.sse"}, {"text":"ok","stop_reason":"end_turn"}]}
J
)"
	run -p "x" --permission-mode yolo
	check "cut tool call ($how): exit 0" [ $? -eq 0 ]
	check "cut tool call ($how): the whole call ran" [ "$(ev tool_result .id)" = '"toolu_whole"' ]
	check "cut tool call ($how): the cut call did not run" [ ! -e cut.txt ]
	check "cut tool call ($how): only the whole call is echoed and answered" \
	    [ "$(mock_body 2 '[.messages[1].content[].id, .messages[2].content[].tool_use_id]')" = '["toolu_whole","toolu_whole"]' ]
	check "cut tool call ($how): no problems" [ "$(mock_problems)" -eq 0 ]
done
# max_tokens with a tool input left incomplete (no content_block_stop).
mock_start "$(scenario maxtok <<J
{"responses":[{"fixture":"$top_srcdir/tests/fixtures/sse/anthropic_tool_use_truncated_max_tokens.sse"},
 {"text":"continued","stop_reason":"end_turn","expect_contains":"cut off"}]}
J
)"
run -p "x" --permission-mode yolo
check "max_tokens mid tool input: exit 0" [ $? -eq 0 ]
check "max_tokens mid tool input: the call was not run" [ -z "$(ev tool_result .id)" ]
check "max_tokens mid tool input: continued" grep -q 'continued$' <(result .text)
check "max_tokens mid tool input: no problems" [ "$(mock_problems)" -eq 0 ]

# 11. An interrupt during the wait ends the turn at once (Esc in the TUI, SIGINT here).
mock_start "$(scenario wait <<'J'
{"responses":[{"status":429,"headers":{"retry-after-ms":"30000"}}, {"text":"too late"}]}
J
)"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err" &
pid=$!
i=0
while [ -z "$(ev retry .attempt 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
start=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
check "interrupted wait: exit 130" [ $rc -eq 130 ]
check "interrupted wait: ended in $took ms" [ "$took" -lt 3000 ]
check "interrupted wait: no second request" [ "$(mock_requests)" -eq 1 ]
check "interrupted wait: the turn ended as interrupted" [ "$(result .stop_reason)" = interrupted ]

finish
