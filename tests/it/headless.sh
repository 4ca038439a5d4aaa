#!/bin/bash
# Headless end to end: the real tandem against the mock model server.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
mkdir -p src && echo 'int main(void) { return 0; }' >src/main.c && echo hello >notes.txt

# 1. list_dir -> tool_result -> final text, in events.
mock_start "$(scenario list <<'J'
{"responses":[
 {"text":"Let me look.","tool_uses":[{"id":"toolu_01","name":"list_dir","input":{}}],"stop_reason":"tool_use"},
 {"text":"There are two entries: src/ and notes.txt.","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "list the files" --output-format events >"$T/out.jsonl" 2>"$T/err"
rc=$?
check "events run exits 0" [ $rc -eq 0 ]
check "the last line is result" [ "$(tail -n 1 "$T/out.jsonl" | jq -r .type)" = result ]
check "result text is the final answer" [ "$(tail -n 1 "$T/out.jsonl" | jq -r .text)" = "There are two entries: src/ and notes.txt." ]
check "events in order: session, turn_start, tool_use, tool_result, turn_end" \
    [ "$(jq -r .type "$T/out.jsonl" | grep -E '^(session|turn_start|tool_use|tool_result|turn_end)$' | tr '\n' ' ')" = "session turn_start tool_use tool_result turn_end " ]
check "the tool result lists the files" grep -q 'notes.txt' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "the mock saw two requests" [ "$(mock_requests)" -eq 2 ]
check "the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
check "the second request answers toolu_01 first" \
    [ "$(mock_body 2 '.messages[2].content[0] | .type + ":" + .tool_use_id')" = '"tool_result:toolu_01"' ]
check "requests carry the tools and stream:true" [ "$(mock_body 1 '[.stream, (.tools|length > 3)]')" = '[true,true]' ]
check "the request has a cache breakpoint on the system prompt" [ "$(mock_body 1 '.system[0].cache_control.type')" = '"ephemeral"' ]
check "the API key header was sent" [ "$(sed -n 1p "$MOCK_LOG" | jq -r '.headers["x-api-key"]')" = test-key ]

# 2. text mode prints only the answer.
mock_start "$(scenario text <<'J'
{"responses":[{"text":"Just text.","stop_reason":"end_turn"}]}
J
)"
out=$("$TANDEM" -p "hi" 2>"$T/err")
check "text mode prints the final answer" [ "$out" = "Just text." ]

# 3. An unknown tool gets an is_error result and the loop goes on.
mock_start "$(scenario unknown <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_u","name":"frobnicate","input":{}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "unknown tool: run succeeds" [ $? -eq 0 ]
check "unknown tool: is_error result" [ "$(jq -r 'select(.type=="tool_result") | .is_error' "$T/out.jsonl")" = true ]
check "unknown tool: no request problems" [ "$(mock_problems)" -eq 0 ]

# 4. run_bash in headless ask mode is denied with a hint; yolo runs it.
mock_start "$(scenario bash <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_b","name":"run_bash","input":{"command":"echo ran >>runs.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "ask mode: run_bash refused" [ "$(jq -r 'select(.type=="tool_result") | .is_error' "$T/out.jsonl")" = true ]
check "ask mode: the result names the flag" grep -q -- '--allow' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "ask mode: the result says why it asks" grep -q 'run_bash needs approval (mode ask: every command asks)' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "ask mode: the flag allows exactly that command" grep -qF -- "--allow 'run_bash(echo ran >>runs.txt)'" <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "ask mode: nothing ran" [ ! -e runs.txt ]
mock_start "$T/bash.json"
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "yolo: run_bash ran once" [ "$(cat runs.txt 2>/dev/null)" = ran ]
check "yolo: exit status in the result" grep -q 'exit status 0' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
rm -f runs.txt

# 5. Errors: one clear sentence, the documented status.
mock_stop
env -u ANTHROPIC_API_KEY "$TANDEM" -p hi >/dev/null 2>"$T/err"
check "no API key: exit 2" [ $? -eq 2 ]
check "no API key: names the variable" grep -q ANTHROPIC_API_KEY "$T/err"
ANTHROPIC_BASE_URL=http://127.0.0.1:1 timeout 20 "$TANDEM" -p hi >/dev/null 2>"$T/err"
rc=$?
check "refused connection: exit 1 (no hang)" [ $rc -eq 1 ]
check "refused connection: one clear sentence" grep -q 'cannot connect' "$T/err"
mock_start "$(scenario e401 <<'J'
{"responses":[{"status":401,"body":{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}}]}
J
)"
timeout 20 "$TANDEM" -p hi >/dev/null 2>"$T/err"
check "401: exit 1" [ $? -eq 1 ]
check "401: says the key was refused" grep -q 'refused the API key' "$T/err"
mock_start "$(scenario midstream <<'J'
{"responses":[{"text":"partial answer that will break","stop_reason":"end_turn","error_after_bytes":400,"repeat":10}]}
J
)"
timeout 30 "$TANDEM" -p hi >/dev/null 2>"$T/err"
check "error event mid-stream: exit 1 after retries" [ $? -eq 1 ]
check "error event mid-stream: says so" grep -q 'mid-stream' "$T/err"
"$TANDEM" --bogus >/dev/null 2>"$T/err"
check "bad flag: exit 2" [ $? -eq 2 ]

finish
