#!/bin/bash
# The OpenAI-compatible provider against the mock: chat completions
# streamed, tool calls assembled by index, the stream shapes of Ollama,
# llama.cpp and vLLM (tests/fixtures/sse/), errors inside a 200 stream,
# keep-alives, a missing [DONE], base URLs with and without /v1, and the
# API key being optional for local servers.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
echo hello >notes.txt
FIX="$top_srcdir/tests/fixtures/sse"

# oai ARGS...: tandem in OpenAI mode, events to $T/out.jsonl, stderr to $T/err.
oai() { timeout 60 "$TANDEM" --provider openai --output-format events "$@" >"$T/out.jsonl" 2>"$T/err"; }
result() { tail -n 1 "$T/out.jsonl" | jq -r "$1"; }
# fixture NAME: a response that plays tests/fixtures/sse/NAME.
fixture() { printf '{"fixture":"%s/%s"}' "$FIX" "$1"; }

# 1. A tool round trip, base URL with /v1 (OPENAI_BASE_URL), no API key.
mock_start "$(scenario trip <<'J'
{"require_all": true, "responses":[
 {"text":"Let me look.","tool_uses":[{"id":"call_ls","name":"list_dir","input":{}},
   {"id":"call_rd","name":"read_file","input":{"path":"notes.txt"}}]},
 {"text":"notes.txt says hello.","stop_reason":"end_turn"}
]}
J
)"
oai -p "what is here"
check "round trip: exit 0" [ $? -eq 0 ]
check "round trip: the final answer" [ "$(result .text)" = "notes.txt says hello." ]
check "round trip: the session says provider openai" [ "$(ev session .provider)" = '"openai"' ]
check "round trip: two requests, no problems" [ "$(mock_requests)/$(mock_problems)" = 2/0 ]
check "round trip: posted to /v1/chat/completions" \
    [ "$(jq -r .path "$MOCK_LOG" | sort -u)" = /v1/chat/completions ]
check "round trip: no Authorization header without OPENAI_API_KEY" \
    [ "$(jq -r '.headers.authorization // "none"' "$MOCK_LOG" | sort -u)" = none ]
check "round trip: stream with include_usage" \
    [ "$(mock_body 1 '[.stream, .stream_options.include_usage]')" = '[true,true]' ]
check "round trip: the system prompt is the first message" [ "$(mock_body 1 '.messages[0].role')" = '"system"' ]
check "round trip: tools are functions with parameters" \
    [ "$(mock_body 1 '[.tools[] | select(.type != "function" or (.function.parameters | type) != "object")] | length')" = 0 ]
check "round trip: both calls echoed by id, in order" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="assistant") | .tool_calls[].id]')" = '["call_ls","call_rd"]' ]
check "round trip: the echoed arguments are JSON text" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="assistant") | .tool_calls[1].function.arguments | fromjson | .path]')" = '["notes.txt"]' ]
check "round trip: results go back as role tool messages, in order" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="tool") | .tool_call_id]')" = '["call_ls","call_rd"]' ]
check "round trip: the read result carries the file" \
    grep -q hello <(mock_body 2 '.messages[] | select(.role=="tool" and .tool_call_id=="call_rd") | .content')
check "round trip: the assistant text is echoed" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="assistant") | .content]')" = '["Let me look."]' ]
# The usage chunk: the mock logs what it sent; the agent reports it as input/cache_read/output.
want=$(sed -n 2p "$MOCK_LOG" | jq -c '.usage | [.prompt_tokens - .prompt_tokens_details.cached_tokens, .prompt_tokens_details.cached_tokens, .completion_tokens]')
got=$(ev usage '[.input_tokens, .cache_read_input_tokens, .output_tokens]' | sed -n 2p)
check "round trip: usage from the usage chunk ($got)" [ "$got" = "$want" ]
check "round trip: the second request read the cache" [ "$(ev usage .cache_read_input_tokens | sed -n 2p)" -gt 0 ]

# 2. Base URLs without /v1, with a trailing slash; OPENAI_API_KEY sent as a bearer token.
mock_start "$(scenario bases <<'J'
{"responses":[{"text":"ok","repeat":4}]}
J
)"
base="http://127.0.0.1:$MOCK_PORT"
for b in "$base" "$base/" "$base/v1/" "$base/v1"; do
	OPENAI_API_KEY=sk-test oai -p hi --base-url "$b"
	check "base URL $b: exit 0" [ $? -eq 0 ]
done
check "base URLs: every request went to /v1/chat/completions" \
    [ "$(jq -r .path "$MOCK_LOG" | sort | uniq -c | tr -s ' ')" = " 4 /v1/chat/completions" ]
check "base URLs: the key went as Authorization: Bearer" \
    [ "$(jq -r .headers.authorization "$MOCK_LOG" | sort -u)" = "Bearer sk-test" ]
check "base URLs: no problems" [ "$(mock_problems)" -eq 0 ]
# OPENAI_BASE_URL without /v1 works the same.
mock_start "$T/bases.json"
OPENAI_BASE_URL="http://127.0.0.1:$MOCK_PORT" oai -p hi
check "OPENAI_BASE_URL without /v1: exit 0" [ $? -eq 0 ]
check "OPENAI_BASE_URL without /v1: the mock got it" [ "$(mock_requests)/$(mock_problems)" = 1/0 ]

# 3. Ollama: text with role repeated in every delta; whole tool calls in one chunk each.
mock_start "$(scenario ollama <<J
{"responses":[$(fixture openai_ollama_text.sse)]}
J
)"
oai -p "your name"
check "ollama text: exit 0" [ $? -eq 0 ]
check "ollama text: the answer" [ "$(result .text)" = "My name is Neo Vim." ]
mock_start "$(scenario ollama_tools <<J
{"responses":[$(fixture openai_ollama_tool_calls_parallel.sse), {"text":"Both failed.","stop_reason":"end_turn"}]}
J
)"
oai -p "list"
check "ollama tools: exit 0" [ $? -eq 0 ]
check "ollama tools: two calls, by their ids" \
    [ "$(ev tool_use .id | tr '\n' ' ')" = '"call_wteop8bt" "call_rk2xye1l" ' ]
check "ollama tools: whole arguments parsed" \
    [ "$(ev tool_use .input.command | tr '\n' ' ')" = '"ls" "ls -l" ' ]
check "ollama tools: an unknown tool gets an error result each" \
    [ "$(ev tool_result .is_error | tr '\n' ' ')" = "true true " ]
check "ollama tools: the next request echoes both and answers both" \
    [ "$(mock_body 2 '[(.messages[] | select(.role=="assistant") | .tool_calls[] | .id + "=" + .function.arguments), (.messages[] | select(.role=="tool") | .tool_call_id)]')" = '["call_wteop8bt={\"command\":\"ls\"}","call_rk2xye1l={\"command\":\"ls -l\"}","call_wteop8bt","call_rk2xye1l"]' ]
check "ollama tools: no problems" [ "$(mock_problems)" -eq 0 ]

# 4. vLLM: the name in the first fragment without arguments, then fragments.
mock_start "$(scenario vllm <<J
{"responses":[$(fixture openai_vllm_tool_call.sse), {"text":"ok","stop_reason":"end_turn"}]}
J
)"
oai -p "run"
check "vllm: exit 0" [ $? -eq 0 ]
check "vllm: one call assembled from fragments" \
    [ "$(ev tool_use '[.id, .name, .input]')" = '["chatcmpl-tool-ca99dda515524c6abe47d1ea22813507","run_command",{"command":"ls"}]' ]
check "vllm: echoed with its arguments" \
    [ "$(mock_body 2 '.messages[] | select(.role=="assistant") | .tool_calls[0].function.arguments | fromjson')" = '{"command":"ls"}' ]
check "vllm: no problems" [ "$(mock_problems)" -eq 0 ]

# 5. llama.cpp: content null first, usage in the finish chunk (with timings), no [DONE].
{
	cat "$FIX/openai_llamacpp_first_chunk_content_null.sse"
	echo
	echo 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hello from llama."}}],"created":1754523863,"id":"chatcmpl-X6urH4f6JOotPwco2EgcgeoM6ZWup59u","model":"gpt-oss:20b","object":"chat.completion.chunk"}'
	echo
	cat "$FIX/openai_llamacpp_final_chunk_usage_timings.sse"
} >"$T/llamacpp.sse"
mock_start "$(scenario llamacpp <<J
{"responses":[{"fixture":"$T/llamacpp.sse"}]}
J
)"
oai -p "hi"
check "llama.cpp: exit 0 without [DONE]" [ $? -eq 0 ]
check "llama.cpp: the text (content null ignored)" [ "$(result .text)" = "Hello from llama." ]
check "llama.cpp: no retry" [ -z "$(ev retry .attempt)" ]
check "llama.cpp: usage from the finish chunk" [ "$(ev usage '[.input_tokens, .output_tokens]')" = "[1085,247]" ]

# 6. OpenAI's own shapes: parallel calls by index with fragments; a usage chunk with choices [].
mock_start "$(scenario openai_par <<J
{"responses":[$(fixture openai_tool_calls_parallel.sse), $(fixture openai_text_with_usage.sse)]}
J
)"
oai -p "weather"
check "parallel fragments: exit 0" [ $? -eq 0 ]
check "parallel fragments: two calls by index" \
    [ "$(ev tool_use '.input | keys | join(",")' | tr '\n' ' ')" = '"city,country,units" "exchange,ticker" ' ]
check "parallel fragments: answered in order" \
    [ "$(mock_body 2 '[.messages[] | select(.role=="tool") | .tool_call_id]')" = '["call_JMW1whyEaYG438VE1OIflxA2","call_DNYTawLBoN8fj3KN6qU9N1Ou"]' ]
check "usage chunk: counted" [ "$(ev usage '[.input_tokens, .output_tokens]' | tr '\n' ' ')" = "[149,60] [14,30] " ]
check "parallel fragments: no problems" [ "$(mock_problems)" -eq 0 ]

# 7. Keep-alive comments between chunks, [DONE] with no newline after it.
mock_start "$(scenario pings <<J
{"responses":[$(fixture derived/openai_ping_comments_done_no_trailing_newline.sse), {"text":"done","stop_reason":"end_turn"}]}
J
)"
oai -p "x"
check "keep-alives: exit 0" [ $? -eq 0 ]
check "keep-alives: the call survived the comments" [ "$(ev tool_use .input.command)" = '"ls"' ]
check "keep-alives: no retry" [ -z "$(ev retry .attempt)" ]

# 8. Errors inside a 200 stream are retried; the next attempt succeeds.
# (A context-size error is not retried as it is: see below.)
for f in openai_error_in_200_stream.sse derived/openai_midstream_error.sse; do
	mock_start "$(scenario err200 <<J
{"responses":[$(fixture "$f"), {"text":"recovered","stop_reason":"end_turn"}]}
J
)"
	oai -p "x"
	check "$f: exit 0 after a retry" [ $? -eq 0 ]
	check "$f: one retry" [ "$(ev retry .attempt)" = 1 ]
	check "$f: the retry says why" grep -q 'mid-stream' <(ev retry .reason)
	check "$f: the answer" [ "$(result .text)" = recovered ]
	check "$f: the retried request is the first one again" [ "$(mock_body 1 .messages)" = "$(mock_body 2 .messages)" ]
done
# A context-size error in the stream cannot go away by asking again: it
# compacts, and with nothing to compact it fails at once, in one sentence.
mock_start "$(scenario errctx <<J
{"responses":[$(fixture openai_llamacpp_legacy_error_field.sse), {"text":"never","stop_reason":"end_turn"}]}
J
)"
oai -p "x"
check "context-size error: exit 1" [ $? -eq 1 ]
check "context-size error: no retry" [ -z "$(ev retry .attempt)" ]
check "context-size error: one request" [ "$(mock_requests)" -eq 1 ]
check "context-size error: the server's words reach the user" grep -q 'exceeds the available context size' <(ev error .message)
mock_start "$(scenario err200x <<J
{"responses":[{"fixture":"$FIX/openai_error_in_200_stream.sse","repeat":3}]}
J
)"
settings '{"retries": 2}'
oai -p "x"
check "error in 200 stream every time: exit 1" [ $? -eq 1 ]
check "error in 200 stream every time: the server's words reach the user" grep -q 'quota exceeded' <(ev error .message)
check "error in 200 stream every time: 3 attempts with retries=2" [ "$(mock_requests)" -eq 3 ]
settings '{}'

# 9. finish_reason present but no [DONE]: done.  Neither: cut short, retried.
head -n 2 "$FIX/openai_ollama_text.sse" >"$T/cut.sse"
grep -v DONE "$FIX/openai_ollama_text.sse" >"$T/nodone.sse"
mock_start "$(scenario nodone <<J
{"responses":[{"fixture":"$T/nodone.sse"}, {"fixture":"$T/cut.sse"}, $(fixture openai_ollama_text.sse)]}
J
)"
oai -p "x"
check "no [DONE] after finish_reason: exit 0, no retry" [ "$?/$(ev retry .attempt)" = 0/ ]
check "no [DONE] after finish_reason: the answer" [ "$(result .text)" = "My name is Neo Vim." ]
# -r with the id: several sessions of this directory began in the same second.
oai -r "$(result .session_id)" -p "again"
check "neither finish_reason nor [DONE]: retried" [ "$(ev retry .reason)" = '"the answer stream ended before it was complete"' ]
check "neither: then answered once" [ "$(result .text)" = "My name is Neo Vim." ]
check "neither: the cut-off text is not in the next request" \
    [ "$(mock_body 3 '[.messages[] | select(.role=="assistant")] | length')" = 1 ]

# 10. finish_reason length: the agent asks the model to go on.
mock_start "$(scenario length <<J
{"responses":[$(fixture openai_finish_length.sse), {"text":"rest","stop_reason":"end_turn"}]}
J
)"
oai -p "x"
check "length: exit 0" [ $? -eq 0 ]
check "length: said so" grep -q max_tokens <(ev error .message)
check "length: the next request has the cut answer and a continue prompt" \
    [ "$(mock_body 2 '[.messages[-2].content, (.messages[-1].content | test("cut off"))]')" = '["{\"",true]' ]

# 11. One byte at a time, a tool call with no arguments, text and calls in one answer.
mock_start "$(scenario bytes <<'J'
{"responses":[
 {"text":"Listing — naïvely.","tool_uses":[{"id":"call_b1","name":"list_dir","input":{}}],"chunk":1},
 {"text":"Done — ünïcode intact.","stop_reason":"end_turn","chunk":1}
]}
J
)"
oai -p "x"
check "one-byte chunks: exit 0" [ $? -eq 0 ]
check "one-byte chunks: UTF-8 intact" [ "$(result .text)" = "Done — ünïcode intact." ]
check "one-byte chunks: the empty arguments came back as {}" \
    [ "$(mock_body 2 '.messages[] | select(.role=="assistant") | .tool_calls[0].function.arguments | fromjson')" = '{}' ]
check "one-byte chunks: no problems" [ "$(mock_problems)" -eq 0 ]

finish
