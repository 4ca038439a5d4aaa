#!/bin/bash
# Claude Code's hook contract, the rest of it, with the real tandem and the
# mock: hook scripts written as Claude Code's documentation shows them (bash
# and jq, reading the event on stdin), run unchanged for PostToolUseFailure,
# PermissionRequest, PermissionDenied, PostCompact, StopFailure and
# InstructionsLoaded; the "if" condition; an http hook against a loopback
# server; a prompt hook answered by the mock model; the never-silent list.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
mkdir -p "$XDG_CONFIG_HOME/tandem" "$T/hooks"
USER_SETTINGS="$XDG_CONFIG_HOME/tandem/settings.json"
settings() { printf '%s\n' "$1" >"$USER_SETTINGS"; }
ev() { jq -r "select(.type==\"$1\") | $2" "$T/out.jsonl"; }

# A logger as Claude Code's docs write them: the event's JSON, one line each, to a file.
cat >"$T/hooks/log.sh" <<'S'
#!/bin/bash
input=$(cat)
echo "$input" | jq -c . >>"$LOG_FILE"
exit 0
S
# PostToolUseFailure: tell the model what to do about the failure.
cat >"$T/hooks/failure.sh" <<'S'
#!/bin/bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_name')
error=$(echo "$input" | jq -r '.error')
jq -n --arg ctx "FAILURE-NOTE: $tool failed ($error); check the path" \
  '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: $ctx}}'
S
# PermissionRequest: allow echo, deny anything with rm.
cat >"$T/hooks/permission.sh" <<'S'
#!/bin/bash
input=$(cat)
cmd=$(echo "$input" | jq -r '.tool_input.command // empty')
if [[ "$cmd" == echo* ]]; then
  echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'
elif [[ "$cmd" == *rm* ]]; then
  echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"PR-DENY: no rm here"}}}'
fi
exit 0
S
chmod +x "$T/hooks/"*.sh
export LOG_FILE="$T/log.jsonl"
logged() { jq -c "select(.hook_event_name==\"$1\")" "$LOG_FILE" 2>/dev/null; }

# 1. PostToolUseFailure: a failed Read; PostToolUse does not run for it.
settings '{"hooks":{
 "PostToolUseFailure":[{"matcher":"Read","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"},{"type":"command","command":"'"$T"'/hooks/failure.sh"}]}],
 "PostToolUse":[{"matcher":"Read","hooks":[{"type":"command","command":"echo post >>'"$T"'/post-ran"}]}]}}'
mock_start "$(scenario fail <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_f","name":"read_file","input":{"path":"missing.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
rm -f "$LOG_FILE"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "PostToolUseFailure: ran once" [ "$(logged PostToolUseFailure | wc -l)" -eq 1 ]
check "PostToolUseFailure: Claude Code's tool name and file_path" \
    [ "$(logged PostToolUseFailure | jq -r '.tool_name + " " + (.tool_input.file_path | endswith("/missing.txt") | tostring)')" = "Read true" ]
check "PostToolUseFailure: the error and is_interrupt" \
    [ "$(logged PostToolUseFailure | jq -r '(.error | length > 0 | tostring) + " " + (.is_interrupt | tostring)')" = "true false" ]
check "PostToolUseFailure: tool_use_id" [ "$(logged PostToolUseFailure | jq -r .tool_use_id)" = toolu_f ]
check "PostToolUse did not run for the failure" [ ! -e "$T/post-ran" ]
check "its additionalContext reaches the model" grep -q 'FAILURE-NOTE: Read failed' <(mock_body 2 '.messages[-1]')
check "no request problem" [ "$(mock_problems)" -eq 0 ]

# 2. PermissionRequest: the hook answers where a person would be asked (headless: nobody).
settings '{"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"},{"type":"command","command":"'"$T"'/hooks/permission.sh"}]}],
 "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}]}}'
mock_start "$(scenario perm <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_p1","name":"run_bash","input":{"command":"echo allowed >pr.txt"}},
               {"id":"toolu_p2","name":"run_bash","input":{"command":"rm -f pr.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
rm -f "$LOG_FILE"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "PermissionRequest: allow ran the command" [ "$(cat pr.txt 2>/dev/null)" = allowed ]
check "PermissionRequest: the approval was the hook's" [ "$(ev approval 'select(.id=="toolu_p1") | .by')" = hook ]
check "PermissionRequest: deny refused the other" [ "$(ev tool_result 'select(.id=="toolu_p2") | .is_error')" = true ]
check "PermissionRequest: the deny message reaches the model" grep -q 'PR-DENY: no rm here' <(ev tool_result 'select(.id=="toolu_p2") | .content')
check "PermissionRequest: input as Claude Code's" [ "$(logged PermissionRequest | jq -r '.tool_name + ":" + .permission_mode' | sort -u)" = "Bash:default" ]
check "PermissionRequest: PreToolUse ran once per call before it" [ "$(logged PreToolUse | jq -r .tool_use_id | sort | tr '\n' ' ')" = "toolu_p1 toolu_p2 " ]
rm -f pr.txt

# 3. PermissionDenied: a deny rule refuses a call.
settings '{"permissions":{"deny":["run_bash(rm *)"]},"hooks":{"PermissionDenied":[{"matcher":"Bash","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}]}}'
mock_start "$(scenario denied <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_d","name":"run_bash","input":{"command":"rm -rf build"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
rm -f "$LOG_FILE"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "PermissionDenied: ran" [ "$(logged PermissionDenied | jq -r '.tool_name + " " + .tool_input.command')" = "Bash rm -rf build" ]
check "PermissionDenied: a reason" grep -q 'permission rule' <(logged PermissionDenied | jq -r .reason)

# 4. PreCompact and PostCompact around a compaction.
big_files
settings '{"context_window": 24000, "hooks":{
 "PreCompact":[{"hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}],
 "PostCompact":[{"matcher":"auto","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}]}}'
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"match":"You summarise the earlier part","text":"Summary: files were read.","stop_reason":"end_turn","repeat":20},\n'
	big_reads
	printf ' {"text":"Read them all.","stop_reason":"end_turn","repeat":20}\n]}\n'
} >"$T/grow.json"
mock_start "$T/grow.json"
rm -f "$LOG_FILE"
"$TANDEM" -p "read all the big files" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "a compaction happened" [ "$(ev compaction .stage | wc -l)" -ge 1 ]
check "PostCompact: ran for it" [ "$(logged PostCompact | wc -l)" -ge 1 ]
check "PostCompact: trigger auto" [ "$(logged PostCompact | jq -r .trigger | sort -u)" = auto ]
rm -f big*.txt

# 5. StopFailure: the turn ends on an API error.
settings '{"hooks":{"StopFailure":[{"matcher":"invalid_request","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}]}}'
mock_start "$(scenario apierr <<'J'
{"responses":[{"status":400,"body":{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}}]}
J
)"
rm -f "$LOG_FILE"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the turn failed" [ "$(ev result .is_error)" = true ]
check "StopFailure: ran with the error kind" [ "$(logged StopFailure | jq -r .error)" = invalid_request ]
check "StopFailure: error_details" grep -q '400' <(logged StopFailure | jq -r .error_details)

# 6. InstructionsLoaded: the project's memory file.
echo "Project rules." >CLAUDE.md
settings '{"hooks":{"InstructionsLoaded":[{"matcher":"session_start","hooks":[{"type":"command","command":"'"$T"'/hooks/log.sh"}]}]}}'
mock_start "$(scenario mem <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
rm -f "$LOG_FILE"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "InstructionsLoaded: CLAUDE.md, Project, session_start" \
    [ "$(logged InstructionsLoaded | jq -r '(.file_path | endswith("/CLAUDE.md") | tostring) + " " + .memory_type + " " + .load_reason')" = "true Project session_start" ]
rm -f CLAUDE.md

# 7. "if": a PreToolUse hook that blocks only git commands.
settings '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","if":"Bash(git *)","command":"echo IF-BLOCK >&2; exit 2"}]}]}}'
mock_start "$(scenario ifs <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_i1","name":"run_bash","input":{"command":"git status"}},
               {"id":"toolu_i2","name":"run_bash","input":{"command":"echo fine"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "if: the git command is blocked" grep -q 'IF-BLOCK' <(ev tool_result 'select(.id=="toolu_i1") | .content')
check "if: the other runs" [ "$(ev tool_result 'select(.id=="toolu_i2") | .is_error')" = false ]

# 8. An http hook against a loopback server: the event is POSTed, the answer denies.
cat >"$T/server.mjs" <<'S'
import http from 'node:http';
import fs from 'node:fs';
const [portFile, logFile] = process.argv.slice(2);
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url,
      auth: req.headers['authorization'] || null, type: req.headers['content-type'], body: JSON.parse(body) }) + '\n');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse',
      permissionDecision: 'deny', permissionDecisionReason: 'HTTP-DENY from the policy server' } }));
  });
});
srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
setTimeout(() => process.exit(0), 60000);
S
rm -f "$T/hport" "$T/hlog"
node "$T/server.mjs" "$T/hport" "$T/hlog" &
SRV=$!
for i in $(seq 1 100); do [ -s "$T/hport" ] && break; sleep 0.05; done
HPORT=$(cat "$T/hport")
export HOOK_TOKEN=s3cret HOOK_OTHER=never-sent
settings '{"allowedHttpHookUrls":["http://127.0.0.1:*"],"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
 {"type":"http","url":"http://127.0.0.1:'"$HPORT"'/hook","headers":{"Authorization":"Bearer $HOOK_TOKEN ${HOOK_OTHER}"},"allowedEnvVars":["HOOK_TOKEN"]}]}]}}'
mock_start "$(scenario http <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_h","name":"run_bash","input":{"command":"echo via-http >h.txt"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "http: the server got one POST" [ "$(jq -r .method "$T/hlog" 2>/dev/null)" = POST ]
check "http: of the event's JSON" [ "$(jq -r '.body.hook_event_name + " " + .body.tool_name + " " + .body.tool_input.command' "$T/hlog")" = "PreToolUse Bash echo via-http >h.txt" ]
check "http: as application/json" [ "$(jq -r .type "$T/hlog")" = application/json ]
check "http: an allowed variable filled, another left out" [ "$(jq -r .auth "$T/hlog")" = "Bearer s3cret" ]
check "http: its deny refused the call" grep -q 'HTTP-DENY from the policy server' <(ev tool_result '.content')
check "http: nothing ran" [ ! -e h.txt ]
settings '{"allowedHttpHookUrls":["https://hooks.example.com/*"],"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
 {"type":"http","url":"http://127.0.0.1:'"$HPORT"'/hook"}]}]}}'
mock_start "$T/http.json"
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "http: a URL the settings do not allow is not posted to" [ "$(wc -l <"$T/hlog")" -eq 1 ]
check "http: and that is said" grep -q 'not one allowedHttpHookUrls allows' <(ev error .message)
check "http: the call then runs" [ "$(cat h.txt 2>/dev/null)" = via-http ]
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
rm -f h.txt

# 9. A prompt hook: the mock model answers the hook's own request.
settings '{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"Did the agent run the tests? Event: $ARGUMENTS"}]}]}}'
mock_start "$(scenario prompt <<'J'
{"responses":[
 {"text":"First answer.","stop_reason":"end_turn"},
 {"match":"You are a hook of a coding agent","text":"{\"ok\": false, \"reason\": \"PROMPT-NO: run the tests first\"}","stop_reason":"end_turn","expect_contains":"Did the agent run the tests? Event: {"},
 {"match":"PROMPT-NO","text":"Ran them.","stop_reason":"end_turn"},
 {"match":"You are a hook of a coding agent","text":"{\"ok\": true}","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p "x" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "prompt: the run ended" [ "$(ev result .text)" = "Ran them." ]
check "prompt: the model was asked twice as the hook" [ "$(jq -s '[.[] | select(.body.system != null) | select(.body.system | tostring | contains("You are a hook of a coding agent"))] | length' "$MOCK_LOG")" -eq 2 ]
check "prompt: its event is the Stop event" grep -q '"hook_event_name":"Stop"' <(mock_body 2 '.messages[0].content[0].text' | jq -r .)
check "prompt: its reason went on to the model" grep -q 'PROMPT-NO: run the tests first' <(mock_body 3 '.messages[-1]')
check "prompt: no request problem" [ "$(mock_problems)" -eq 0 ]

# 10. Never silent: Claude Code's events tandem has no moment for, other hook
# types and fields, each named once as a notice with its settings file (on
# stderr for -p, in tandem config), and no warning line beside it.
settings '{"hooks":{"CwdChanged":[{"hooks":[{"type":"command","command":"true"}]}],
 "SubagentStop":[{"hooks":[{"type":"command","command":"true"}]}],
 "Stop":[{"hooks":[{"type":"agent","prompt":"check"},{"type":"command","command":"true","async":true}]}]}}'
mkdir -p .claude
echo '{"hooks":{"FileChanged":[{"matcher":"*.md","hooks":[{"type":"command","command":"true"}]}]}}' \
    >.claude/settings.json
mock_start "$T/mem.json"
"$TANDEM" -p "x" >/dev/null 2>"$T/err"
"$TANDEM" config >"$T/config.out" 2>"$T/config.err"
cwd_notice="tandem: $USER_SETTINGS: hook event \"CwdChanged\" is not honoured (tandem's working directory is the project root and never changes)"
fc_notice="$PWD/.claude/settings.json: hook event \"FileChanged\" is not honoured (tandem watches no files for hooks)"
check "CwdChanged: the exact notice on stderr, once" [ "$(grep -cxF "$cwd_notice" "$T/err")" -eq 1 ]
check "SubagentStop, which tandem runs now, is not named" not grep -q 'hook event "SubagentStop"' "$T/err"
check "the agent type: a notice" [ "$(grep -c "$USER_SETTINGS: hook type \"agent\" is not honoured" "$T/err")" -eq 1 ]
check "the async field: a notice" [ "$(grep -c "$USER_SETTINGS: hook field \"async\" is not honoured" "$T/err")" -eq 1 ]
check "FileChanged in .claude/settings.json: the exact notice on stderr, once" [ "$(grep -cxF "tandem: $fc_notice" "$T/err")" -eq 1 ]
check "no warning line beside the notices" not grep -q 'never run\|not supported' "$T/err"
check "tandem config: the CwdChanged notice, once" [ "$(grep -c "$USER_SETTINGS: hook event \"CwdChanged\" is not honoured" "$T/config.out")" -eq 1 ]
check "tandem config: the FileChanged notice, once" [ "$(grep -cF "$fc_notice" "$T/config.out")" -eq 1 ]
diag "$T/err"
rm -r .claude

finish
