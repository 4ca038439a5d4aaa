#!/bin/sh
# TAP test of the mock model server (tests/mockmodel), driven with curl(1)
# on 127.0.0.1 and read with jq(1): the SSE it streams in both protocols,
# HTTP errors, the request checks, the log, the cache simulation, the
# stream modifiers and the idle exit.

: "${top_builddir:=.}"
MOCK=$top_builddir/tests/mockmodel
# MOCK_WRAPPER, e.g. "valgrind -q --error-exitcode=99", runs the mock under a tool.
WRAP=${MOCK_WRAPPER:-}

if ! command -v curl >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP curl and jq are needed"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_mock.XXXXXX") || exit 1
MOCK_PID=
cleanup() {
	if [ -n "$MOCK_PID" ]; then
		kill "$MOCK_PID" 2>/dev/null
		wait "$MOCK_PID" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# t DESCRIPTION CODE: one TAP line for the status of CODE, run here (eval).
t() {
	if eval "$2" >/dev/null 2>&1; then ok "$1"; else not_ok "$1"; return 1; fi
}
diag() { sed 's/^/# /' "$@"; }

# start_mock SCENARIO [ARGS...]: run the mock; sets MOCK_PID, PORT, BASE.
start_mock() {
	scen=$1
	shift
	rm -f "$tmp/port" "$tmp/log"
	$WRAP "$MOCK" --scenario "$scen" --log "$tmp/log" --port-file "$tmp/port" "$@" \
	    >"$tmp/stdout" 2>>"$tmp/stderr" &
	MOCK_PID=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	PORT=$(cat "$tmp/port" 2>/dev/null)
	BASE=http://127.0.0.1:$PORT
}

# stop_mock: SIGTERM it; its exit status goes to MOCK_RC.
stop_mock() {
	kill -TERM "$MOCK_PID" 2>/dev/null
	wait "$MOCK_PID"
	MOCK_RC=$?
	MOCK_PID=
}

# anth BODYFILE [CURL ARGS...]: POST to /v1/messages; the body goes to
# $tmp/out, the headers to $tmp/hdr, the status to stdout.
anth() {
	f=$1
	shift
	curl -sS -N --max-time 5 -o "$tmp/out" -D "$tmp/hdr" -w '%{http_code}' \
	    -H 'x-api-key: test-key' -H 'anthropic-version: 2023-06-01' \
	    -H 'content-type: application/json' --data-binary @"$f" "$@" "$BASE/v1/messages"
}

oai() {
	f=$1
	shift
	curl -sS -N --max-time 5 -o "$tmp/out" -D "$tmp/hdr" -w '%{http_code}' \
	    -H 'authorization: Bearer sk-test' -H 'content-type: application/json' \
	    --data-binary @"$f" "$@" "$BASE/v1/chat/completions"
}

# The data: payloads of the SSE body in $tmp/out, as one JSON array.
events() { sed -n 's/^data: //p' "$tmp/out" | grep -v '^\[DONE\]$' | jq -s .; }
# The text of an Anthropic stream in $tmp/out, its deltas joined.
text() { events | jq -r '[.[] | .delta.text // empty] | join("")'; }
# The log line of request N.
logline() { jq -c "select(.n == $1)" "$tmp/log"; }

# ---------------------------------------------------------------------
# Anthropic: a scripted turn with thinking, text and a tool call, then
# the checks on what comes back.

cat >"$tmp/anth.json" <<'END'
{"responses": [
  {"thinking": "The user wants a file read.",
   "text": "Let me read that file for you — it’s short.",
   "tool_uses": [{"id": "toolu_t1", "name": "read_file",
                  "input": {"path": "src/main.c", "limit": 20, "note": "quote \" and \\ slash"}}]},
  {"text": "Done."}
]}
END
cat >"$tmp/req1.json" <<'END'
{"model": "claude-test", "max_tokens": 1024, "stream": true,
 "system": [{"type": "text", "text": "You are a careful coding agent. Follow the rules of the house and keep answers short.",
             "cache_control": {"type": "ephemeral"}}],
 "tools": [{"name": "read_file", "description": "Read a file",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
 "messages": [{"role": "user", "content": "read src/main.c"}]}
END

start_mock "$tmp/anth.json"
t "the mock prints PORT and writes the port file" 'grep -qx "PORT $PORT" "$tmp/stdout"'

status=$(anth "$tmp/req1.json")
t "anthropic: 200 with text/event-stream" \
    '[ "$status" = 200 ] && grep -qi "^content-type: text/event-stream" "$tmp/hdr"'
seq=$(sed -n 's/^event: //p' "$tmp/out" | uniq | tr '\n' ' ')
expect="message_start ping content_block_start content_block_delta content_block_stop"
expect="$expect content_block_start content_block_delta content_block_stop"
expect="$expect content_block_start content_block_delta content_block_stop message_delta message_stop "
t "anthropic: event sequence (thinking, text, tool_use blocks)" '[ "$seq" = "$expect" ]' ||
    echo "# got: $seq"
events >"$tmp/ev.json"
t "anthropic: every event's data repeats its event name" \
    '[ "$(sed -n "s/^event: //p" "$tmp/out" | tr "\n" " ")" = "$(jq -r ".[].type" "$tmp/ev.json" | tr "\n" " ")" ]'
jq '[.[] | select(.type == "content_block_delta")] as $d | {
      thinking: ([$d[] | select(.delta.type == "thinking_delta") | .delta.thinking] | join("")),
      signature: ([$d[] | select(.delta.type == "signature_delta") | .delta.signature] | join("")),
      text: ([$d[] | select(.delta.type == "text_delta") | .delta.text] | join("")),
      ntext: ([$d[] | select(.delta.type == "text_delta")] | length),
      json: ([$d[] | select(.delta.type == "input_json_delta") | .delta.partial_json] | join("")),
      nfrag: ([$d[] | select(.delta.type == "input_json_delta")] | length),
      first: ([$d[] | select(.delta.type == "input_json_delta")][0].delta.partial_json)}' \
    "$tmp/ev.json" >"$tmp/acc.json"
t "anthropic: text arrives in several deltas and joins up" \
    'jq -e ".text == \"Let me read that file for you — it’s short.\" and .ntext > 2" "$tmp/acc.json"'
t "anthropic: thinking deltas, then a signature_delta" \
    'jq -e ".thinking == \"The user wants a file read.\" and (.signature | length) > 8" "$tmp/acc.json"'
cat >"$tmp/input.json" <<'END'
{"path": "src/main.c", "limit": 20, "note": "quote \" and \\ slash"}
END
t "anthropic: tool input in fragments (the first empty) that parse to the input" \
    'jq -e --slurpfile want "$tmp/input.json" "(.first == \"\") and .nfrag > 3 and (.json | fromjson) == \$want[0]" "$tmp/acc.json"'
t "anthropic: the tool_use block starts with id, name and an empty input" \
    'jq -e "[.[] | select(.type == \"content_block_start\" and .content_block.type == \"tool_use\")][0].content_block
        == {type: \"tool_use\", id: \"toolu_t1\", name: \"read_file\", input: {}}" "$tmp/ev.json"'
t "anthropic: message_delta has stop_reason tool_use and the usage" \
    'jq -e "[.[] | select(.type == \"message_delta\")][0] | .delta.stop_reason == \"tool_use\"
        and .usage.output_tokens > 1 and .usage.input_tokens > 0" "$tmp/ev.json"'
t "cache: the first request writes the system prefix and reads nothing" \
    'jq -e ".[0].message.usage | .cache_creation_input_tokens > 0 and .cache_read_input_tokens == 0" "$tmp/ev.json"'

# The assistant turn as a client would pass it back, and three follow-ups.
jq -n --slurpfile a "$tmp/acc.json" '$a[0] | [
    {type: "thinking", thinking: .thinking, signature: .signature},
    {type: "text", text: .text},
    {type: "tool_use", id: "toolu_t1", name: "read_file", input: (.json | fromjson)}]' >"$tmp/asst.json"
followup() {	# followup USER-CONTENT [FILTER-ON-THE-ASSISTANT-CONTENT]
	jq --argjson user "$1" --slurpfile asst "$tmp/asst.json" \
	    ".messages += [{role: \"assistant\", content: (\$asst[0] | ${2:-.})}, {role: \"user\", content: \$user}]" \
	    "$tmp/req1.json"
}
result='[{"type": "tool_result", "tool_use_id": "toolu_t1", "content": "int main(void);",
          "cache_control": {"type": "ephemeral"}}]'
followup '[{"type": "text", "text": "never mind"}]' >"$tmp/bad_pair.json"
followup "$result" 'map(select(.type != "thinking"))' >"$tmp/bad_think.json"
followup "$result" >"$tmp/req2.json"

status=$(anth "$tmp/bad_pair.json")
t "pairing: a missing tool_result gets a 400 invalid_request_error naming it" \
    '[ "$status" = 400 ] && jq -e ".type == \"error\" and .error.type == \"invalid_request_error\"
        and (.error.message | test(\"tool_result\")) and (.error.message | test(\"toolu_t1\"))" "$tmp/out"'
status=$(anth "$tmp/bad_think.json")
t "thinking: dropping the signed thinking block gets a 400" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"thinking\")" "$tmp/out"'
status=$(anth "$tmp/req2.json")
t "pairing: the proper follow-up gets the next response (rejects used none)" \
    '[ "$status" = 200 ] && [ "$(text)" = Done. ]'
events >"$tmp/ev2.json"
t "cache: the follow-up reads the cached prefix and writes the rest" \
    'jq -e "[.[] | select(.type == \"message_delta\")][0].usage | .cache_read_input_tokens > 0
        and .cache_creation_input_tokens > 0" "$tmp/ev2.json"'

status=$(curl -sS --max-time 5 -o "$tmp/out" -w '%{http_code}' -H 'content-type: application/json' \
    -d '{}' "$BASE/v1/nothing")
t "an unknown path gets a 404 JSON error" \
    '[ "$status" = 404 ] && jq -e ".error.type == \"not_found_error\"" "$tmp/out"'
status=$(curl -sS --max-time 5 -o "$tmp/out" -w '%{http_code}' -H 'content-type: application/json' \
    --data-binary @"$tmp/req1.json" "$BASE/v1/messages")
t "headers: no key and no anthropic-version is a 400 naming both" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"x-api-key\") and test(\"anthropic-version\")" "$tmp/out"'

stop_mock
t "exit status 1 after requests that failed their checks" '[ "$MOCK_RC" = 1 ]'
t "log: one JSON line per request" '[ "$(jq -s length "$tmp/log")" = 6 ]'
t "log: method, path, lowercased headers and the parsed body" \
    'logline 1 | jq -e ".method == \"POST\" and .path == \"/v1/messages\"
        and .headers[\"anthropic-version\"] == \"2023-06-01\" and .headers[\"x-api-key\"] == \"test-key\"
        and .body.model == \"claude-test\" and .response == 0 and .problems == []"'
t "log: the problems of a rejected request, and no response used" \
    'logline 2 | jq -e ".status == 400 and .response == null and (.problems | length) >= 1
        and (.problems[0] | test(\"tool_result\"))"'
t "log: the usage that was sent" \
    'logline 4 | jq -e ".response == 1 and .usage.cache_read_input_tokens > 0"'

# ---------------------------------------------------------------------
# OpenAI-compatible chat completions.

cat >"$tmp/oai.json" <<'END'
{"responses": [
  {"text": "Reading both files now.",
   "tool_uses": [{"id": "call_a", "name": "read_file", "input": {"path": "a.c"}},
                 {"id": "call_b", "name": "list_dir", "input": {}}]},
  {"text": "All good.", "usage": {"input_tokens": 100, "cache_read_input_tokens": 40, "output_tokens": 7}},
  {"text": "Again."}
]}
END
cat >"$tmp/oreq1.json" <<'END'
{"model": "qwen-test", "stream": true, "stream_options": {"include_usage": true},
 "tools": [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
           {"type": "function", "function": {"name": "list_dir", "parameters": {"type": "object"}}}],
 "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "look"}]}
END
start_mock "$tmp/oai.json"
status=$(oai "$tmp/oreq1.json")
events >"$tmp/oev.json"
t "openai: 200, the first chunk carries the role" \
    '[ "$status" = 200 ] && jq -e ".[0].choices[0].delta.role == \"assistant\"" "$tmp/oev.json"'
t "openai: content deltas join up" \
    'jq -e "[.[] | .choices[0].delta.content // empty] | join(\"\") == \"Reading both files now.\"" "$tmp/oev.json"'
t "openai: tool_calls by index, id and name only in the first fragment" \
    'jq -e "[.[] | .choices[0].delta.tool_calls // empty | .[]] as \$f |
        ([\$f[] | select(.id != null)] | map({index, id, name: .function.name})) ==
            [{index: 0, id: \"call_a\", name: \"read_file\"}, {index: 1, id: \"call_b\", name: \"list_dir\"}]
        and ([\$f[] | select(.id == null and .function.name != null)] | length) == 0
        and ([\$f[] | select(.index == 0)] | length) > 2
        and ([\$f[] | select(.index == 0) | .function.arguments] | join(\"\") | fromjson) == {path: \"a.c\"}
        and ([\$f[] | select(.index == 1) | .function.arguments] | join(\"\")) == \"\"" "$tmp/oev.json"'
t "openai: finish_reason tool_calls, a usage chunk with no choices, then [DONE]" \
    'jq -e "([.[] | .choices[0].finish_reason // empty] == [\"tool_calls\"])
        and (.[-1].choices == []) and (.[-1].usage.prompt_tokens > 0)" "$tmp/oev.json" &&
        [ "$(grep -v "^\$" "$tmp/out" | tail -n 1)" = "data: [DONE]" ]'

jq '.messages += [{role: "assistant", content: "Reading both files now.", tool_calls: [
      {id: "call_a", type: "function", function: {name: "read_file", arguments: "{\"path\":\"a.c\"}"}},
      {id: "call_b", type: "function", function: {name: "list_dir", arguments: ""}}]}]' \
    "$tmp/oreq1.json" >"$tmp/oasst.json"
jq '.messages += [{role: "tool", tool_call_id: "call_a", content: "int a;"}]' "$tmp/oasst.json" >"$tmp/obad.json"
jq '.messages += [{role: "tool", tool_call_id: "call_a", content: "int a;"},
                  {role: "tool", tool_call_id: "call_b", content: "a.c"}]' "$tmp/oasst.json" >"$tmp/oreq2.json"
jq 'del(.stream_options)' "$tmp/oreq1.json" >"$tmp/onousage.json"

status=$(oai "$tmp/obad.json")
t "openai: an unanswered tool call gets a 400 in OpenAI's error shape" \
    '[ "$status" = 400 ] && jq -e "(.error.message | test(\"call_b\")) and .error.type == \"invalid_request_error\"" "$tmp/out"'
status=$(oai "$tmp/onousage.json")
t "openai: stream_options.include_usage is required" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"include_usage\")" "$tmp/out"'
status=$(oai "$tmp/oreq2.json")
events >"$tmp/oev2.json"
t "openai: explicit usage maps to prompt_tokens (cache included) and cached_tokens" \
    '[ "$status" = 200 ] && jq -e ".[-1].usage | .prompt_tokens == 140 and .prompt_tokens_details.cached_tokens == 40
        and .completion_tokens == 7 and .total_tokens == 147" "$tmp/oev2.json"'
status=$(oai "$tmp/oreq1.json")
events >"$tmp/oev3.json"
t "cache: a second identical request reads all of its prompt from the cache" \
    'jq -e ".[-1].usage | .prompt_tokens_details.cached_tokens > 0
        and .prompt_tokens_details.cached_tokens == .prompt_tokens" "$tmp/oev3.json"'
stop_mock
t "openai: exit status 1 after the rejected requests" '[ "$MOCK_RC" = 1 ]'

# ---------------------------------------------------------------------
# HTTP errors, fixtures, matching and the stream modifiers.  Every request
# is valid, so the mock exits 0, by itself, once idle.

printf 'event: ping\ndata: {"type": "ping"}\n\nevent: message_stop\r\ndata: {"type":"message_stop"}' >"$tmp/fx.sse"
cat >"$tmp/mods.json" <<'END'
{"responses": [
  {"status": 429, "headers": {"retry-after": "1"}},
  {"fixture": "fx.sse", "chunk": 7, "headers": {"x-fixture": "yes"}},
  {"text": "This reply is cut off in the middle of the stream.", "close_after_bytes": 300},
  {"text": "An overload is coming.", "error_after_bytes": 200},
  {"text": "slow", "stall_after_bytes": 10, "stall_ms": 300},
  {"text": "A chunked body was read."},
  {"match": "SPECIAL", "text": "matched", "expect_contains": "SPECIAL"},
  {"text": "one connection", "repeat": 2}
]}
END
jq '.messages[0].content = "SPECIAL please"' "$tmp/req1.json" >"$tmp/special.json"

start_mock "$tmp/mods.json" --idle-timeout 1
status=$(anth "$tmp/special.json")
t "match: a matching request takes its response out of order" \
    '[ "$status" = 200 ] && [ "$(text)" = matched ]'
status=$(anth "$tmp/req1.json")
t "error: 429 with retry-after and a rate_limit_error body" \
    '[ "$status" = 429 ] && grep -qi "^retry-after: 1" "$tmp/hdr" &&
        jq -e ".type == \"error\" and .error.type == \"rate_limit_error\"" "$tmp/out"'
status=$(anth "$tmp/req1.json")
t "fixture: replayed byte for byte, with its headers" \
    '[ "$status" = 200 ] && cmp -s "$tmp/out" "$tmp/fx.sse" && grep -qi "^x-fixture: yes" "$tmp/hdr"'
anth "$tmp/req1.json" >/dev/null 2>&1
rc=$?
t "close_after_bytes: the connection drops mid-stream" \
    '[ "$rc" != 0 ] && [ "$(wc -c <"$tmp/out")" -eq 300 ] && ! grep -q message_stop "$tmp/out"'
status=$(anth "$tmp/req1.json")
t "error_after_bytes: an overloaded_error event after the first events" \
    '[ "$status" = 200 ] && tail -n 3 "$tmp/out" | grep -q "^event: error" &&
        grep -q overloaded_error "$tmp/out" && grep -q message_start "$tmp/out" && ! grep -q message_stop "$tmp/out"'
secs=$(anth "$tmp/req1.json" -w ' %{time_total}' | cut -d' ' -f2)
t "stall: the stream goes silent for stall_ms, then finishes" \
    'grep -q message_stop "$tmp/out" && awk "BEGIN { exit !($secs >= 0.25) }"'
status=$(anth "$tmp/req1.json" -H 'transfer-encoding: chunked')
t "a chunked request body is read" \
    '[ "$status" = 200 ] && [ "$(text)" = "A chunked body was read." ]'
conns=$(curl -sS --max-time 5 -o /dev/null -o /dev/null -w '%{num_connects} ' -H 'x-api-key: k' \
    -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' \
    --data-binary @"$tmp/req1.json" "$BASE/v1/messages" "$BASE/v1/messages")
t "keep-alive: two requests on one connection" '[ "$conns" = "1 0 " ]'
i=0
while kill -0 "$MOCK_PID" 2>/dev/null && [ $i -lt 60 ]; do
	sleep 0.05
	i=$((i + 1))
done
t "the mock exits by itself once the scenario is done and it is idle" '! kill -0 "$MOCK_PID"'
wait "$MOCK_PID"
MOCK_RC=$?
MOCK_PID=
t "exit status 0 when every request passed" '[ "$MOCK_RC" = 0 ]' || diag "$tmp/stderr"

# ---------------------------------------------------------------------
# Hostile and malformed requests: each is answered and counted, none
# stops the server.

echo '{"responses": [{"text": "still here"}]}' >"$tmp/one.json"
awk 'BEGIN { printf "{\"model\": \"m\", \"max_tokens\": 8, \"stream\": true, \"messages\": [{\"role\": \"user\", \"content\": \""
	for (i = 0; i < 40000; i++) printf "all work and no play "
	printf "\"}]}\n" }' >"$tmp/big.json"
start_mock "$tmp/one.json"
status=$(curl -sS --max-time 5 -o "$tmp/out" -w '%{http_code}' -H 'x-api-key: k' \
    -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' \
    -d '{"model": nope' "$BASE/v1/messages")
t "malformed: a body that is not JSON is a 400 saying where" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"not valid JSON .line 1, column\")" "$tmp/out"'
status=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' --request-target '*' -X OPTIONS "$BASE/")
t "malformed: a request line the mock cannot route is a 400" '[ "$status" = 400 ]'
big=$(head -c 70000 /dev/zero | tr '\0' a)
status=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' -H "x-big: $big" "$BASE/v1/messages")
t "malformed: a 70 KB header is refused with 431" '[ "$status" = 431 ]'
jq '.messages = [{role: "assistant", content: "hi"}, {role: "assistant", content: ""}] | .max_tokens = 0
    | .tools[0].input_schema.type = "array" | .system[1] = .system[0] | .system[2] = .system[0]
    | .system[3] = .system[0] | .system[4] = .system[0]' "$tmp/req1.json" >"$tmp/shape.json"
status=$(anth "$tmp/shape.json")
t "shape: roles, max_tokens, input_schema and 5 breakpoints are each named" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"first message must use the .user. role\")
        and test(\"roles must alternate\") and test(\"max_tokens\") and test(\"input_schema.type\")
        and test(\"A maximum of 4 blocks with cache_control may be provided. Found 5\")" "$tmp/out"'
status=$(anth "$tmp/big.json" -H 'expect: 100-continue')
t "a 840 KB body sent after 100-continue is read and answered" \
    '[ "$status" = 200 ] && [ "$(text)" = "still here" ]'
status=$(anth "$tmp/req1.json")
t "an exhausted scenario answers 400 and names it" \
    '[ "$status" = 400 ] && jq -e ".error.message | test(\"no response left\")" "$tmp/out"'
stop_mock
t "malformed: the mock counted them and exits 1" \
    '[ "$MOCK_RC" = 1 ] && [ "$(jq -s "map(select(.problems != [])) | length" "$tmp/log")" = 5 ]'

# ---------------------------------------------------------------------
# The idle timeout with no connection at all, and a bad scenario.

start_mock "$tmp/mods.json" --idle-timeout 0.3
sleep 0.6
t "idle timeout: exits when nobody connects" '! kill -0 "$MOCK_PID"'
wait "$MOCK_PID"
MOCK_RC=$?
MOCK_PID=
t "idle timeout: exit status 0" '[ "$MOCK_RC" = 0 ]'

echo '{"responses": [{"text": "x", "dealy_ms": 5}]}' >"$tmp/bad.json"
"$MOCK" --scenario "$tmp/bad.json" >/dev/null 2>"$tmp/err"
rc=$?
t "a scenario with an unknown key is refused, naming it" \
    '[ $rc = 2 ] && grep -q "responses\[0\]: unknown key \"dealy_ms\"" "$tmp/err"'

t "no sanitizer or valgrind report from any run" \
    '! grep -q -e "Sanitizer" -e "runtime error" -e "==[0-9]*== [A-Z]" "$tmp/stderr"' || diag "$tmp/stderr"

echo "1..$n"
[ $failed -eq 0 ]
