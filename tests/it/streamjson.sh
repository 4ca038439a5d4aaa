#!/bin/bash
# Claude Code's stream-json by hand: the message shapes, the flags the SDKs
# pass, the control protocol's errors, bad input lines, the end of stdin.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
echo hello >notes.txt
# json_lines FILE: every line of FILE is a JSON object.
json_lines() { jq -e -s 'length > 0 and all(type == "object")' "$1" >/dev/null; }

# 1. -p as Claude Code's switch: "-p --verbose" takes no flag as the prompt.
mock_start "$(scenario one <<'J'
{"responses":[{"thinking":"Hm.","text":"One answer.","stop_reason":"end_turn","expect_contains":"the prompt"}]}
J
)"
"$TANDEM" -p --verbose --output-format=stream-json --include-partial-messages "the prompt" >"$T/out" 2>"$T/err"
check "-p --verbose PROMPT: exit 0" [ $? -eq 0 ]
check "stdout holds JSON lines only" json_lines "$T/out"
check "the first message is system/init" [ "$(head -n 1 "$T/out" | jq -r '.type + "/" + .subtype')" = system/init ]
check "the last is a success result with the answer" \
    [ "$(tail -n 1 "$T/out" | jq -r '.type + " " + .subtype + " " + .result')" = "result success One answer." ]
check "every message has uuid, session_id, parent_tool_use_id" \
    [ "$(jq -s 'all(has("uuid") and has("session_id") and has("parent_tool_use_id"))' "$T/out")" = true ]
check "one assistant message, thinking then text" \
    [ "$(jq -c 'select(.type=="assistant") | [.message.content[].type]' "$T/out")" = '["thinking","text"]' ]
check "partial messages: message_start first, message_stop last" \
    [ "$(jq -r 'select(.type=="stream_event") | .event.type' "$T/out" | sed -n '1p;$p' | tr '\n' ' ')" = "message_start message_stop " ]
check "partial messages: the text deltas make the answer" \
    [ "$(jq -j 'select(.type=="stream_event" and .event.delta.type=="text_delta") | .event.delta.text' "$T/out")" = "One answer." ]
check "the result has usage, modelUsage, total_cost_usd, permission_denials" \
    [ "$(tail -n 1 "$T/out" | jq -c '[(.usage|has("output_tokens")), (.modelUsage|length), (.total_cost_usd > 0), .permission_denials]')" = '[true,1,true,[]]' ]
"$TANDEM" --print "the prompt" --output-format stream-json >"$T/out2" 2>/dev/null
check "--print PROMPT works too (no partial messages without the flag)" \
    [ "$(jq -s '[.[] | select(.type=="stream_event")] | length' "$T/out2")" = 0 ]

# 2. --output-format events stays tandem's own.
mock_start "$(scenario ev <<'J'
{"responses":[{"text":"Native.","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p x --output-format events >"$T/out" 2>"$T/err"
check "events: tandem's own event stream" [ "$(tail -n 1 "$T/out" | jq -r '.type + " " + .text')" = "result Native." ]
check "events: no Claude Code shapes" not grep -q '"subtype"' "$T/out"
mock_start "$(scenario dis <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p x --output-format stream-json --disable-tools run_bash,write_file >"$T/out" 2>"$T/err"
check "init lists the tools the model has: not the disabled ones" \
    [ "$(head -n 1 "$T/out" | jq -c '.tools')" = '["Read","LS","Glob","Grep","Edit","apply_patch","BashOutput","KillShell","TodoWrite","ExitPlanMode","AskUserQuestion","WebFetch","WebSearch"]' ]

# 3. Tools as Claude Code names them; --allowedTools and --disallowedTools; tandem's own events as system subtypes.
mock_start "$(scenario tools <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_1","name":"run_bash","input":{"command":"echo hi"}},
   {"id":"toolu_2","name":"read_file","input":{"path":"notes.txt"}}],"stop_reason":"tool_use"},
 {"text":"Done.","stop_reason":"end_turn","expect_contains":"denied by rule"}
]}
J
)"
"$TANDEM" -p "go" --output-format stream-json --allowedTools='Bash(echo *)' --disallowedTools Read >"$T/out" 2>"$T/err"
check "tools: exit 0" [ $? -eq 0 ]
check "tool_use blocks named Bash and Read, Read with an absolute file_path" \
    [ "$(jq -c 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | [.name, (.input.file_path // .input.command)]' "$T/out" | tr '\n' ' ')" = "[\"Bash\",\"echo hi\"] [\"Read\",\"$T/ws/notes.txt\"] " ]
check "--allowedTools let the command run: its result is a user message" \
    [ "$(jq -r 'select(.type=="user") | .message.content[0] | select(.tool_use_id=="toolu_1") | .content' "$T/out" | head -n 1)" = "hi" ]
check "--disallowedTools refused the read: in permission_denials" \
    [ "$(tail -n 1 "$T/out" | jq -c '[.permission_denials[] | [.tool_name, .tool_use_id]]')" = '[["Read","toolu_2"]]' ]
check "the approvals are system/approval messages" \
    [ "$(jq -r 'select(.type=="system" and .subtype=="approval") | .id + ":" + .decision' "$T/out" | sort | tr '\n' ' ')" = "toolu_1:allow toolu_2:deny " ]
check "live output is system/tool_progress" grep -q '"subtype":"tool_progress"' "$T/out"
check "the mock found no problem" [ "$(mock_problems)" -eq 0 ]

# 4. --max-turns=1 (GNU form): error_max_turns.
mock_start "$(scenario turns <<'J'
{"responses":[{"tool_uses":[{"id":"toolu_l","name":"list_dir","input":{}}],"stop_reason":"tool_use"}]}
J
)"
"$TANDEM" -p "loop" --output-format=stream-json --max-turns=1 >"$T/out" 2>"$T/err"
check "--max-turns=1: exit 1" [ $? -eq 1 ]
check "--max-turns=1: result error_max_turns with errors" \
    [ "$(tail -n 1 "$T/out" | jq -c '[.subtype, .is_error, (.errors|length > 0)]')" = '["error_max_turns",true,true]' ]

# 5. Retries are system/retry messages.
mock_start "$(scenario retry <<'J'
{"responses":[{"status":529},{"text":"After a retry.","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p "x" --output-format stream-json >"$T/out" 2>"$T/err"
check "a retry is a system/retry message" [ "$(jq -r 'select(.subtype=="retry") | .attempt' "$T/out" | head -n 1)" = 1 ]
check "and the answer comes after it" [ "$(tail -n 1 "$T/out" | jq -r .result)" = "After a retry." ]

# 6. --input-format stream-json: turns, control requests, their errors, bad lines.
mock_start "$(scenario multi <<'J'
{"responses":[
 {"text":"First.","stop_reason":"end_turn","expect_contains":["first prompt","Answer in haiku."]},
 {"text":"Second.","stop_reason":"end_turn","expect_contains":"second prompt"}
]}
J
)"
{
	echo '{"type":"control_request","request_id":"r1","request":{"subtype":"initialize","systemPrompt":["Answer in haiku."]}}'
	echo 'this is not json'
	echo '{"type":"control_request","request_id":"r2","request":{"subtype":"hook_callback","callback_id":"x"}}'
	echo '{"type":"control_request","request_id":"r3","request":{"subtype":"mcp_message","server_name":"s","message":{}}}'
	echo '{"type":"control_request","request_id":"r4","request":{"subtype":"rewind_files","user_message_id":"u"}}'
	echo '{"type":"control_request","request_id":"r5","request":{"subtype":"set_permission_mode","mode":"sideways"}}'
	echo '{"type":"control_request","request_id":"r6","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}}'
	echo '{"type":"control_request","request":{"subtype":"interrupt"}}'
	echo '{"type":"control_cancel_request","request_id":"r2"}'
	echo '{"type":"control_request","request_id":"r7","request":{"subtype":"interrupt"}}'
	echo '{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"first prompt"}]},"parent_tool_use_id":null}'
	echo '{"type":"user","session_id":"","message":{"role":"user","content":"second prompt"},"parent_tool_use_id":null}'
} >"$T/in"
start=$(date +%s%N)
"$TANDEM" --output-format stream-json --verbose --input-format stream-json <"$T/in" >"$T/out" 2>"$T/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "stream-json input needs no -p: exit 0" [ $rc -eq 0 ]
check "stdout holds JSON lines only" json_lines "$T/out"
check "initialize: success with the models" \
    [ "$(jq -c 'select(.type=="control_response" and .response.request_id=="r1") | [.response.subtype, (.response.response.models|length)]' "$T/out")" = '["success",1]' ]
for r in r2:hook_callback r3:mcp_message r4:rewind_files; do
	check "${r#*:}: an error control_response" \
	    [ "$(jq -r "select(.type==\"control_response\" and .response.request_id==\"${r%%:*}\") | .response.subtype" "$T/out")" = error ]
done
check "the error names the subtype" grep -q 'does not support the control request \\"hook_callback\\"' "$T/out"
check "an unknown mode: an error that lists the modes" \
    [ "$(jq -r 'select(.response.request_id=="r5") | .response.subtype + " " + .response.error' "$T/out" | cut -c1-35)" = 'error unknown permission mode "side' ]
check "set_permission_mode acceptEdits: success, and the next init says so" \
    [ "$(jq -r 'select(.response.request_id=="r6") | .response.subtype' "$T/out") $(jq -r 'select(.subtype=="init") | .permissionMode' "$T/out" | head -n 1)" = "success acceptEdits" ]
check "interrupt while idle: success" [ "$(jq -r 'select(.response.request_id=="r7") | .response.subtype' "$T/out")" = success ]
check "two results, in order" [ "$(jq -r 'select(.type=="result") | .result' "$T/out" | tr '\n' ' ')" = "First. Second. " ]
check "the line that is not JSON: one sentence on stderr" grep -q 'stdin line 2 is not a JSON object' "$T/err"
check "the request without request_id: one sentence on stderr" grep -q 'without a request_id' "$T/err"
check "the SDK's system prompt reached the model; the mock found no problem" [ "$(mock_problems)" -eq 0 ]
check "stdin read to its end, tandem exits at once ($ms ms)" [ "$ms" -lt 5000 ]

# 7. set_model: the next request names it.
mock_start "$(scenario model <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
printf '%s\n' '{"type":"control_request","request_id":"m1","request":{"subtype":"set_model","model":"claude-other-1"}}' \
    '{"type":"user","message":{"role":"user","content":"x"}}' |
    "$TANDEM" --output-format stream-json --input-format=stream-json >"$T/out" 2>"$T/err"
check "set_model: the request uses the new model" [ "$(mock_body 1 .model)" = '"claude-other-1"' ]
check "set_model: the result's modelUsage names it" [ "$(tail -n 1 "$T/out" | jq -r '.modelUsage | keys[0]')" = claude-other-1 ]

# 8. A line over the cap is skipped with a sentence; the next one is read.
mock_start "$(scenario big <<'J'
{"responses":[{"text":"Still here.","stop_reason":"end_turn"}]}
J
)"
{
	printf '{"type":"user","message":{"role":"user","content":"'
	head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' a
	printf '"}}\n'
	echo '{"type":"user","message":{"role":"user","content":"small"}}'
} | "$TANDEM" --output-format stream-json --input-format stream-json >"$T/out" 2>"$T/err"
check "an oversized line: one sentence" grep -q 'stdin line 1 is .* bytes, more than' "$T/err"
check "the next line still runs" [ "$(tail -n 1 "$T/out" | jq -r .result)" = "Still here." ]

# 9. The end of stdin while a slow turn runs: SIGTERM (the SDK's after its grace) ends it at once.
mock_start "$(scenario slow <<'J'
{"responses":[{"text":"Too late.","first_byte_delay_ms":20000}]}
J
)"
mkfifo "$T/fifo"
"$TANDEM" --output-format stream-json --input-format stream-json <"$T/fifo" >"$T/out" 2>"$T/err" &
pid=$!
exec 7>"$T/fifo"
echo '{"type":"user","message":{"role":"user","content":"slow"}}' >&7
sleep 0.5
exec 7>&-
sleep 0.5
check "at the end of stdin the running turn goes on" kill -0 $pid
start=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "SIGTERM: tandem exits in $ms ms" [ "$ms" -lt 2000 ]
check "SIGTERM: exit status 143" [ $rc -eq 143 ]
check "SIGTERM: the interrupted result was written" [ "$(tail -n 1 "$T/out" | jq -r .subtype)" = error_during_execution ]

# 10. Usage errors.
"$TANDEM" -p --verbose >/dev/null 2>"$T/err" </dev/null
check "-p --verbose without a prompt: exit 2, the flag not taken for one" [ $? -eq 2 ]
check "-p --verbose without a prompt: the sentence says so" grep -q -- '-p needs a prompt' "$T/err"
"$TANDEM" --input-format stream-json >/dev/null 2>"$T/err" </dev/null
check "stream-json input without stream-json output: exit 2" [ $? -eq 2 ]
"$TANDEM" --output-format stream-json --input-format stream-json --permission-prompt-tool mcp__x__y </dev/null >/dev/null 2>"$T/err"
check "a permission prompt tool other than stdio: exit 2 with a sentence" grep -q 'over stdio only' "$T/err"
"$TANDEM" -p x --output-format stream-json --permission-prompt-tool=stdio >/dev/null 2>"$T/err" </dev/null
check "--permission-prompt-tool stdio without stream-json input: exit 2" [ $? -eq 2 ]
check "and the sentence says why" grep -q 'the host answers on stdin' "$T/err"
"$TANDEM" -p x --setting-sources=user,bogus >/dev/null 2>"$T/err"
check "--setting-sources with an unknown source: exit 2" grep -q 'not "bogus"' "$T/err"

# 11. --setting-sources: a source left out is not read.
mkdir -p .tandem && echo '{"permissions":{"deny":["Bash"]}}' >.tandem/settings.json
mock_start "$(scenario src <<'J'
{"responses":[{"tool_uses":[{"id":"toolu_s","name":"run_bash","input":{"command":"echo ran"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p x --output-format stream-json --permission-mode yolo --setting-sources=user >"$T/out" 2>"$T/err"
check "--setting-sources=user: the project's deny rule is not read" \
    [ "$(jq -r 'select(.type=="user") | .message.content[0].content' "$T/out" | head -n 1)" = ran ]
mock_start "$(scenario src2 <<'J'
{"responses":[{"tool_uses":[{"id":"toolu_s","name":"run_bash","input":{"command":"echo ran"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -p x --output-format stream-json --permission-mode yolo --setting-sources user,project >"$T/out" 2>"$T/err"
check "--setting-sources user,project: it is" \
    [ "$(tail -n 1 "$T/out" | jq -r '.permission_denials[0].tool_name')" = Bash ]
rm -rf .tandem

# 12. can_use_tool by hand: the request's shape, a host error, deny with interrupt, a cancel.
mock_start "$(scenario ask <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_a1","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"bye"}}],"stop_reason":"tool_use","expect_contains":"first"},
 {"text":"The host failed.","stop_reason":"end_turn","expect_contains":"could not answer the approval"},
 {"tool_uses":[{"id":"toolu_a2","name":"run_bash","input":{"command":"touch nope"}}],"stop_reason":"tool_use","expect_contains":"second"},
 {"tool_uses":[{"id":"toolu_a3","name":"run_bash","input":{"command":"touch nope2"}}],"stop_reason":"tool_use","expect_contains":"third"}
]}
J
)"
coproc TD { "$TANDEM" --output-format stream-json --input-format stream-json --permission-prompt-tool=stdio 2>"$T/err.ask"; }
# bash unsets TD_PID once the coprocess ends: keep it for the wait.
td_pid=$TD_PID
# await FILTER: read tandem's lines until one matches the jq FILTER; print it.
await() {
	local line
	while IFS= read -r -t 10 line <&"${TD[0]}"; do
		echo "$line" >>"$T/out.ask"
		if echo "$line" | jq -e "$1" >/dev/null 2>&1; then echo "$line"; return 0; fi
	done
	return 1
}
send() { echo "$1" >&"${TD[1]}"; }
send '{"type":"user","message":{"role":"user","content":"first"}}'
req=$(await 'select(.type=="control_request" and .request.subtype=="can_use_tool")')
check "can_use_tool: Edit, an absolute file_path, the tool_use_id" \
    [ "$(echo "$req" | jq -c '.request | [.tool_name, .input.file_path, .tool_use_id]')" = "[\"Edit\",\"$T/ws/notes.txt\",\"toolu_a1\"]" ]
check "can_use_tool: a reason and suggestions" \
    [ "$(echo "$req" | jq -c '.request | [(.decision_reason|length > 0), (.permission_suggestions|type)]')" = '[true,"array"]' ]
rid=$(echo "$req" | jq -r .request_id)
send "{\"type\":\"control_response\",\"response\":{\"subtype\":\"error\",\"request_id\":\"$rid\",\"error\":\"host exploded\"}}"
res=$(await 'select(.type=="result")')
check "a host's error answer denies the call; the turn goes on" [ "$(echo "$res" | jq -r .result)" = "The host failed." ]
check "the edit was not made" [ "$(cat notes.txt)" = hello ]
send '{"type":"user","message":{"role":"user","content":"second"}}'
req=$(await 'select(.type=="control_request" and .request.subtype=="can_use_tool")')
check "can_use_tool: Bash with its command" [ "$(echo "$req" | jq -c '.request | [.tool_name, .input.command]')" = '["Bash","touch nope"]' ]
rid=$(echo "$req" | jq -r .request_id)
send "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"$rid\",\"response\":{\"behavior\":\"deny\",\"message\":\"stop here\",\"interrupt\":true}}}"
res=$(await 'select(.type=="result")')
check "deny with interrupt: the turn ends interrupted" [ "$(echo "$res" | jq -r .subtype)" = error_during_execution ]
check "and the denial is listed" [ "$(echo "$res" | jq -r '.permission_denials[0].tool_name')" = Bash ]
send '{"type":"user","message":{"role":"user","content":"third"}}'
req=$(await 'select(.type=="control_request" and .request.subtype=="can_use_tool")')
rid=$(echo "$req" | jq -r .request_id)
send '{"type":"control_request","request_id":"int1","request":{"subtype":"interrupt"}}'
cancel=$(await 'select(.type=="control_cancel_request")')
check "an interrupt while the host is asked: control_cancel_request for it" [ "$(echo "$cancel" | jq -r .request_id)" = "$rid" ]
res=$(await 'select(.type=="result")')
check "and the turn ends interrupted" [ "$(echo "$res" | jq -r .subtype)" = error_during_execution ]
exec {TD[1]}>&-
wait "$td_pid"
check "at the end of stdin: exit 0" [ $? -eq 0 ]
check "nothing ran" [ ! -e nope -a ! -e nope2 ]
check "the mock found no problem" [ "$(mock_problems)" -eq 0 ]
# initialize's mcpServers (the Agent SDK's default delivery): a server that cannot be
# configured is answered mcp_servers_applied false with the reason.
{
	echo '{"type":"control_request","request_id":"m1","request":{"subtype":"initialize","mcpServers":{"bad":{"args":["x"]}}}}'
	echo '{"type":"control_request","request_id":"m2","request":{"subtype":"initialize","mcpServers":"every"}}'
} >"$T/in"
"$TANDEM" --output-format stream-json --verbose --input-format stream-json --await-initialize \
    <"$T/in" >"$T/out" 2>"$T/err"
check "--await-initialize is accepted: exit 0" [ $? -eq 0 ]
check "a server without a command: mcp_servers_applied false, with its name" \
    [ "$(jq -r 'select(.response.request_id=="m1") | .response.response | "\(.mcp_servers_applied) \(.mcp_servers_error | test("bad"))"' "$T/out")" = "false true" ]
check "mcpServers that is not an object: false, and says so" \
    grep -q 'must be an object' <(jq -r 'select(.response.request_id=="m2") | .response.response.mcp_servers_error' "$T/out")
check "the reason is on stderr too" grep -q 'were not started' "$T/err"
finish
