#!/bin/bash
# Broken and hostile model servers: a trickle of one byte a second and a
# stream of nothing but pings end by the overall deadline (or the stall
# timer, which only content re-arms) with one message; invalid Unicode is
# repaired instead of failing the answer; bodies that are no event stream
# (an HTML page, a JSON error, nothing) are named; and an answer of
# 100,000 content blocks goes through.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"

run() { timeout 120 "$TANDEM" --output-format events "$@" >"$T/out.jsonl" 2>"$T/err"; }
result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed ARGS...: run, setting rc and took (ms).
timed() { local s; s=$(now_ms); run "$@"; rc=$?; took=$(($(now_ms) - s)); }

# An Anthropic stream: message_start, then the events given on stdin, then the end.
sse_msg() {
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_h","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
	cat
	printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
}
text_block() { # INDEX TEXT (JSON string contents)
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}\n\n' "$1"
	printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}}\n\n' "$1" "$2"
	printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":%d}\n\n' "$1"
}

# 1. Slowloris: one byte a second.  The deadline ends it; it is not retried.
text_block 0 "This answer trickles in one byte a second." | sse_msg >"$T/trickle.sse"
settings '{"retries": 3, "timeouts": {"deadline_ms": 2500, "stall_ms": 60000}}'
mock_start "$(scenario slowloris <<J
{"responses":[{"fixture":"$T/trickle.sse","chunk":1,"delay_ms":1000}, {"text":"never"}]}
J
)"
timed -p "x"
check "slowloris: exit 1" [ "$rc" -eq 1 ]
check "slowloris: ended by the 2.5 s deadline ($took ms)" in_range "$took" 2400 9000
check "slowloris: not retried" [ "$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/0 ]
check "slowloris: one error message" [ "$(ev error .message | wc -l)" -eq 1 ]
check "slowloris: it names the deadline" \
    grep -q 'took too long to answer: the server had not finished the response 2.5 s after the request (timeouts.deadline_ms' <(ev error .message)

# 2. Pings every 10 ms and nothing else.  Pings do not re-arm the stall timer...
{ for i in $(seq 1 1500); do printf 'event: ping\ndata: {"type":"ping"}\n\n'; done; text_block 0 "late"; } | sse_msg >"$T/pings.sse"
settings '{"retries": 0, "timeouts": {"stall_ms": 700}}'
mock_start "$(scenario pings <<J
{"responses":[{"fixture":"$T/pings.sse","delay_ms":10}]}
J
)"
timed -p "x"
check "pings: exit 1" [ "$rc" -eq 1 ]
check "pings: ended by the 700 ms stall timer ($took ms), not the 15 s of pings" in_range "$took" 600 6000
check "pings: one error message" [ "$(ev error .message | wc -l)" -eq 1 ]
check "pings: it says no content came" grep -q 'went silent in the middle of the answer: the server sent no content for 700 ms' <(ev error .message)
# ...and the deadline ends them when the stall timer is long.
settings '{"retries": 2, "timeouts": {"stall_ms": 60000, "deadline_ms": 1500}}'
mock_start "$T/pings.json"
timed -p "x"
check "pings, long stall timer: exit 1" [ "$rc" -eq 1 ]
check "pings, long stall timer: ended by the 1.5 s deadline ($took ms)" in_range "$took" 1400 6000
check "pings, long stall timer: one request, one message" [ "$(mock_requests)/$(ev error .message | wc -l)" = 1/1 ]
check "pings, long stall timer: it names the deadline" grep -q '1.5 s after the request' <(ev error .message)
# Content that keeps coming, slowly, re-arms the stall timer: the answer arrives.
for i in $(seq 0 9); do text_block "$i" "part $i. "; done | sse_msg >"$T/slow.sse"
settings '{"retries": 0, "timeouts": {"stall_ms": 700}}'
mock_start "$(scenario slow <<J
{"responses":[{"fixture":"$T/slow.sse","delay_ms":100}]}
J
)"
timed -p "x"
check "slow content: exit 0 after $took ms (longer than the stall timer)" [ "$rc/$((took > 700))" = 0/1 ]
check "slow content: the whole answer" [ "$(result .text)" = "part 0. part 1. part 2. part 3. part 4. part 5. part 6. part 7. part 8. part 9. " ]
# The same answer against a deadline shorter than it takes, and with the deadline off.
settings '{"retries": 0, "timeouts": {"deadline_ms": 1000}}'
mock_start "$T/slow.json"
run -p "x"
check "slow content, deadline 1 s: exit 1" [ $? -eq 1 ]
settings '{"retries": 0, "timeouts": {"deadline_ms": 0}}'
mock_start "$T/slow.json"
run -p "x"
check "slow content, deadline_ms 0 (off): exit 0" [ "$?/$(result .text | cut -c1-6)" = "0/part 0" ]
# By default the deadline is first_byte_ms + max_tokens x ms_per_token (here 0.5 + 1000 x 1 ms)...
settings '{"retries": 0, "max_tokens": 1000, "timeouts": {"first_byte_ms": 500, "ms_per_token": 1}}'
mock_start "$T/slow.json"
run -p "x"
check "computed deadline: 1.5 s from max_tokens" [ "$?/$(ev error .message | grep -c '1.5 s after the request')" = 1/1 ]
# ...and there is none for an OpenAI-compatible server on this machine, which may be slow.
mock_start "$(scenario local <<'J'
{"responses":[{"text":"A local model writes this answer slowly, a few bytes at a time, for seconds.","chunk":16,"delay_ms":15}]}
J
)"
timed -p "x" --provider openai
check "local OpenAI-compatible server: no computed deadline (took $took ms)" [ "$rc/$((took > 1500))" = 0/1 ]

# 3. Invalid Unicode: a lone surrogate escape and bytes that are not UTF-8.
{ text_block 0 'lone \ud800 high, \udc00 low'; printf 'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" bad \xff\xfe bytes"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n'; } |
    sse_msg >"$T/unicode.sse"
settings '{}'
mock_start "$(scenario unicode <<J
{"responses":[{"fixture":"$T/unicode.sse"}, {"text":"next", "expect_contains":"lone"}]}
J
)"
run -p "x"
check "lone surrogate: exit 0" [ $? -eq 0 ]
check "lone surrogate: one request, no retry" [ "$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/0 ]
check "lone surrogate: repaired to U+FFFD" [ "$(result .text)" = "lone � high, � low bad �� bytes" ]
run -r "$(result .session_id)" -p "again"
check "lone surrogate: the next request is valid and carries the repaired text" \
    [ "$?/$(mock_problems)/$(mock_body 2 '.messages[1].content[0].text')" = '0/0/"lone � high, � low"' ]

# 4. Bodies that are no event stream, with status 200.
settings '{"retries": 2}'
mock_start "$(scenario html <<'J'
{"responses":[{"status":200,"headers":{"content-type":"text/html; charset=utf-8"},
  "body":"<!DOCTYPE html>\n<html><head><title>Hotel WiFi \u001b]0;owned\u0007Login</title></head><body>Accept the terms</body></html>"},
 {"text":"never"}]}
J
)"
run -p "x"
check "HTML 200: exit 1" [ $? -eq 1 ]
check "HTML 200: not retried" [ "$(mock_requests)/$(ev retry .attempt | wc -l)" = 1/0 ]
msg=$(ev error .message)
check "HTML 200: one message" [ "$(echo "$msg" | wc -l)" -eq 1 ]
check "HTML 200: it names the type, the title and the first bytes" \
    grep -q 'answered with a page of type text/html; charset=utf-8 ([0-9]* bytes) instead of an event stream, titled \\"Hotel WiFi ␛\]0;owned␇Login\\", starting \\"<!DOCTYPE html> <html><head>' <<<"$msg"
check "HTML 200: it suggests a portal or proxy" grep -q 'captive portal or a proxy' <<<"$msg"
check "HTML 200: the old message is gone" not grep -q 'ended before it was complete' <<<"$msg"
mock_start "$(scenario jsonerr <<'J'
{"responses":[{"status":200,"body":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}},
 {"status":200,"body":""},
 {"text":"third time","stop_reason":"end_turn"}]}
J
)"
run -p "x"
check "JSON error and empty 200: retried, then answered" [ "$?/$(mock_requests)/$(result .text)" = "0/3/third time" ]
check "JSON error 200: the reason quotes the error" \
    grep -q 'answered with a JSON error instead of an event stream: Overloaded' <(ev retry .reason | sed -n 1p)
check "empty 200: the reason says it was empty" \
    grep -q 'answered with an empty body instead of an event stream' <(ev retry .reason | sed -n 2p)
mock_start "$(scenario badreq <<'J'
{"responses":[{"status":200,"body":{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}},
 {"text":"never"}]}
J
)"
run -p "x"
check "JSON invalid_request_error 200: not retried" [ "$?/$(mock_requests)" = 1/1 ]
check "JSON invalid_request_error 200: says so" grep -q 'max_tokens: too large' <(ev error .message)

# 5. 100,000 content blocks through the real binary (linear decoding; a generous bound).
awk 'BEGIN {
	printf "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_big\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
	for (i = 0; i < 100000; i++) {
		printf "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n", i
		printf "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\"b%d \"}}\n\n", i, i
		printf "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", i
	}
	printf "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":100000}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}' >"$T/big.sse"
settings '{}'
mock_start "$(scenario big <<J
{"responses":[{"fixture":"$T/big.sse","chunk":65536}]}
J
)"
timed -p "x"
check "100,000 blocks: exit 0 ($took ms)" [ "$rc" -eq 0 ]
check "100,000 blocks: within a generous 60 s" [ "$took" -lt 60000 ]
check "100,000 blocks: the answer has every block, in order" \
    [ "$(result .text | tr ' ' '\n' | grep -c '^b[0-9]')/$(result .text | tr ' ' '\n' | sed -n '1p;50000p;100000p' | tr '\n' ,)" = "100000/b0,b49999,b99999," ]

finish
