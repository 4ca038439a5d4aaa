#!/bin/bash
# Hooks, trust and settings errors with the real tandem against the mock:
# PreToolUse hooks that block, rewrite, time out, print garbage and fail;
# a PostToolUse hook that sees the result; UserPromptSubmit context that
# reaches the request; a Claude Code hook script unchanged; an untrusted
# project's hooks not running; a malformed settings file.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
mkdir -p "$XDG_CONFIG_HOME/tandem" "$T/hooks"
USER_SETTINGS="$XDG_CONFIG_HOME/tandem/settings.json"

# user_hooks JSON: the user's settings hold these hooks (user hooks need no trust).
user_hooks() { printf '{"hooks": %s}\n' "$1" >"$USER_SETTINGS"; }

# One run_bash call of COMMAND, then a final answer.
bash_scenario() {
	scenario "$1" <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_h","name":"run_bash","input":{"command":"$2"}}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
}

run_yolo() {
	timeout 60 "$TANDEM" -p "go" --permission-mode yolo --output-format events \
	    >"$T/out.jsonl" 2>"$T/err"
}

result_of() { jq -r 'select(.type=="tool_result" and .id=="toolu_h") | .'"$1" "$T/out.jsonl"; }

cat >"$T/hooks/no-rm.sh" <<'S'
#!/bin/sh
if grep -q 'rm -rf'; then echo 'rm -rf is not allowed in this project' >&2; exit 2; fi
exit 0
S
cat >"$T/hooks/claude-code.sh" <<'S'
#!/bin/bash
# Written for Claude Code: matcher "Bash", tool_input.command read with jq.
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_name')
command=$(echo "$input" | jq -r '.tool_input.command // empty')
if [[ "$tool" == "Bash" && "$command" == *"rm -rf"* ]]; then
  echo "Blocked by policy: $command" >&2
  exit 2
fi
exit 0
S
chmod +x "$T/hooks/"*.sh

# 1. Exit 2 blocks rm -rf, even in yolo mode; the model gets stderr.
mkdir -p victim && touch victim/keep
user_hooks '{"PreToolUse":[{"matcher":"run_bash","hooks":[{"type":"command","command":"'"$T"'/hooks/no-rm.sh"}]}]}'
mock_start "$(bash_scenario block 'rm -rf victim')"
run_yolo
check "block: run succeeds" [ $? -eq 0 ]
check "block: nothing was deleted" [ -e victim/keep ]
check "block: is_error result" [ "$(result_of is_error)" = true ]
check "block: the model gets the hook's reason" grep -q 'rm -rf is not allowed in this project' <(result_of content)
check "block: approval event by hook" \
    [ "$(jq -r 'select(.type=="approval" and .id=="toolu_h") | .decision + "/" + .by' "$T/out.jsonl")" = deny/hook ]
check "block: the request carries the reason" \
    [ "$(mock_body 2 '[.messages[2].content[0].content] | tostring | contains("rm -rf is not allowed")')" = true ]

# 2. A hook that rewrites the input: the rewritten command is what runs.
user_hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo '"'"'{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"updatedInput\":{\"command\":\"echo rewritten > rw.txt\"}}}'"'"'"}]}]}'
mock_start "$(bash_scenario rewrite 'echo original > rw.txt')"
timeout 60 "$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "rewrite: run succeeds (allowed by the hook, in ask mode)" [ $? -eq 0 ]
check "rewrite: the rewritten command ran" [ "$(cat rw.txt 2>/dev/null)" = rewritten ]
check "rewrite: approval event by hook" \
    [ "$(jq -r 'select(.type=="approval" and .id=="toolu_h") | .decision + "/" + .by' "$T/out.jsonl")" = allow/hook ]

# 3. A hook that times out is killed; the call goes on, with a warning.
user_hooks '{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"sleep 37","timeout":0.5}]}]}'
mock_start "$(bash_scenario slow 'echo ran > slow.txt')"
start=$(date +%s)
run_yolo
rc=$?
check "timeout: run succeeds" [ $rc -eq 0 ]
check "timeout: not held for the hook's 37 s" [ $(( $(date +%s) - start )) -lt 15 ]
check "timeout: the call ran" [ "$(cat slow.txt 2>/dev/null)" = ran ]
check "timeout: a warning names the timeout" grep -q 'timed out' <(jq -r 'select(.type=="error") | .message' "$T/out.jsonl")
check "timeout: the hook's sleep is gone" bash -c '! pgrep -f "^sleep 37$" >/dev/null'

# 4. Garbage on stdout, and exit 1: warnings, and the call goes on.
user_hooks '{"PreToolUse":[{"hooks":[{"type":"command","command":"printf \"{not json\""},{"type":"command","command":"echo broken >&2; exit 1"}]}]}'
mock_start "$(bash_scenario garbage 'echo ran > garbage.txt')"
run_yolo
check "garbage/exit 1: run succeeds" [ $? -eq 0 ]
check "garbage/exit 1: the call ran" [ "$(cat garbage.txt 2>/dev/null)" = ran ]
check "garbage: warned about malformed JSON" grep -q 'malformed JSON' <(jq -r 'select(.type=="error") | .message' "$T/out.jsonl")
check "exit 1: warned with stderr" grep -q 'failed (exit 1): broken' <(jq -r 'select(.type=="error") | .message' "$T/out.jsonl")

# 5. A PostToolUse hook sees the result.
user_hooks '{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"cat > '"$T"'/post.json"}]}]}'
mock_start "$(bash_scenario post 'echo hello-from-the-tool')"
run_yolo
check "post: run succeeds" [ $? -eq 0 ]
check "post: the hook saw Bash" [ "$(jq -r .tool_name "$T/post.json" 2>/dev/null)" = Bash ]
check "post: the hook saw the output" grep -q hello-from-the-tool <(jq -r .tool_response.stdout "$T/post.json" 2>/dev/null)
check "post: the hook saw the input" [ "$(jq -r .tool_input.command "$T/post.json" 2>/dev/null)" = 'echo hello-from-the-tool' ]

# 6. UserPromptSubmit: additionalContext reaches the request; exit 2 blocks the prompt.
user_hooks '{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo '"'"'{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"CTX-MARKER-4711\"}}'"'"'"}]}]}'
mock_start "$(scenario ctx <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn","expect_contains":["CTX-MARKER-4711","the user prompt"]}]}
J
)"
timeout 60 "$TANDEM" -p "the user prompt" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "context: run succeeds" [ $? -eq 0 ]
check "context: the mock found it in the request" [ "$(mock_problems)" -eq 0 ]
user_hooks '{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo no secrets please >&2; exit 2"}]}]}'
mock_start "$(scenario never <<'J'
{"responses":[{"text":"should not be asked","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p "my password is hunter2" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "blocked prompt: no request was sent" [ "$(mock_requests)" -eq 0 ]
check "blocked prompt: the user sees the reason" grep -q 'no secrets please' <(cat "$T/err"; jq -r 'select(.type=="error") | .message' "$T/out.jsonl")

# 7. A hook script written for Claude Code works unchanged.
mkdir -p victim && touch victim/keep
user_hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"'"$T"'/hooks/claude-code.sh"}]}]}'
mock_start "$(bash_scenario claude 'rm -rf victim')"
run_yolo
check "Claude Code script: blocked" [ "$(result_of is_error)" = true ]
check "Claude Code script: its reason" grep -q 'Blocked by policy: rm -rf victim' <(result_of content)
check "Claude Code script: nothing deleted" [ -e victim/keep ]
mock_start "$(bash_scenario claude2 'echo fine > fine.txt')"
run_yolo
check "Claude Code script: other commands pass" [ "$(cat fine.txt 2>/dev/null)" = fine ]

# 8. An untrusted project's hooks do not run; --trust runs them.
rm -f "$USER_SETTINGS" "$T/proj-hook-ran"
mkdir -p .tandem
printf '{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"touch %s/proj-hook-ran"}]}]}}\n' "$T" \
    >.tandem/settings.json
mock_start "$(scenario plain <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn","repeat":2}]}
J
)"
timeout 60 "$TANDEM" -p "hi" >/dev/null 2>"$T/err"
check "untrusted: run succeeds" [ $? -eq 0 ]
check "untrusted: the project's hook did not run" [ ! -e "$T/proj-hook-ran" ]
check "untrusted: says how to trust" grep -q -- '--trust' "$T/err"
timeout 60 "$TANDEM" -p "hi" --trust >/dev/null 2>"$T/err"
check "--trust: the project's hook ran" [ -e "$T/proj-hook-ran" ]
rm -rf .tandem

# 9. A malformed settings file stops tandem with file:line:column.
printf '{\n  "model": "x",\n  "hooks": {]\n}\n' >"$USER_SETTINGS"
"$TANDEM" -p "hi" >/dev/null 2>"$T/err"
check "malformed settings: exit 2" [ $? -eq 2 ]
check "malformed settings: file:line:column" grep -q "$USER_SETTINGS:3:" "$T/err"
rm -f "$USER_SETTINGS"

# 10. PostToolUse "block": the model reads the reason beside the result.
user_hooks '{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo '"'"'{\"decision\":\"block\",\"reason\":\"POST-NOTE: run the linter\"}'"'"'"}]}]}'
mock_start "$(bash_scenario postblock 'echo hi')"
run_yolo
check "post block: run succeeds" [ $? -eq 0 ]
check "post block: the next request carries the reason" \
    [ "$(mock_body 2 '[.messages[2].content[0].content] | tostring | contains("POST-NOTE: run the linter")')" = true ]

# 11. Stop hooks keep the turn going with their reason, at most 3 times in a row.
user_hooks '{"Stop":[{"hooks":[{"type":"command","command":"echo '"'"'{\"decision\":\"block\",\"reason\":\"KEEP-GOING\"}'"'"'"}]}]}'
mock_start "$(scenario stop <<'J'
{"responses":[{"text":"finished","stop_reason":"end_turn","repeat":10}]}
J
)"
timeout 60 "$TANDEM" -p "go" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "stop: run succeeds" [ $? -eq 0 ]
check "stop: one request, then three more" [ "$(mock_requests)" -eq 4 ]
check "stop: the reason went to the model as a user message" \
    [ "$(mock_body 2 '.messages[-1] | [.role, (tostring | contains("KEEP-GOING"))]')" = '["user",true]' ]
check "stop: says it stopped after 3" grep -q '3 times in a row' <(jq -r 'select(.type=="error") | .message' "$T/out.jsonl")
user_hooks '{"Stop":[{"hooks":[{"type":"command","command":"jq -e .stop_hook_active >/dev/null && exit 0; echo '"'"'{\"decision\":\"block\",\"reason\":\"once more\"}'"'"'"}]}]}'
mock_start "$(scenario stop2 <<'J'
{"responses":[{"text":"finished","stop_reason":"end_turn","repeat":10}]}
J
)"
timeout 60 "$TANDEM" -p "go" >/dev/null 2>"$T/err"
check "stop: a hook that checks stop_hook_active lets it end after one more" [ "$(mock_requests)" -eq 2 ]

# 12. SessionStart context and memory files reach the system prompt; SessionEnd runs at exit.
user_hooks '{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo SESSION-CTX-99"}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"jq -r .reason > '"$T"'/ended"}]}]}'
printf 'Always answer in haiku. MEMORY-MARK-17\n' >AGENTS.md
mock_start "$(scenario start <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn","expect_contains":["SESSION-CTX-99","MEMORY-MARK-17"]}]}
J
)"
rm -f "$T/ended"
timeout 60 "$TANDEM" -p "hi" >/dev/null 2>"$T/err"
check "session start + memory: run succeeds" [ $? -eq 0 ]
check "session start + memory: both in the request" [ "$(mock_problems)" -eq 0 ]
check "session end: the hook ran at exit" [ "$(cat "$T/ended" 2>/dev/null)" = exit ]
rm -f AGENTS.md

# 13. A PreToolUse "ask" in headless mode: refused, nobody can answer.
user_hooks '{"PreToolUse":[{"hooks":[{"type":"command","command":"echo '"'"'{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"check with a human\"}'"'"'"}]}]}'
mock_start "$(bash_scenario ask 'echo ran > asked.txt')"
run_yolo
check "hook ask, headless: refused" [ "$(result_of is_error)" = true ]
check "hook ask, headless: nothing ran" [ ! -e asked.txt ]
check "hook ask, headless: says why" grep -q 'check with a human' <(result_of content)
rm -f "$USER_SETTINGS"

finish
