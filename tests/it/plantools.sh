#!/bin/bash
# todo_write, exit_plan and ask_user without a screen: headless, nobody can
# answer a question or approve a plan, so both are answered at once (never
# a hang); rules and hooks name them as Claude Code does (TodoWrite,
# TaskCreate, ExitPlanMode, AskUserQuestion); the todo list goes back into
# the context after a compaction took its calls away.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
mkdir -p "$XDG_CONFIG_HOME/tandem"

LIST='{"todos":[{"content":"Read the code","status":"completed","activeForm":"Reading"},{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"}]}'
QS='{"questions":[{"question":"Which color?","header":"Color","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]}]}'
mock_start "$(scenario headless <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_t1","name":"todo_write","input":$LIST},{"id":"toolu_q1","name":"ask_user","input":$QS},{"id":"toolu_x1","name":"exit_plan","input":{"plan":"# Plan"}}],"stop_reason":"tool_use"},
 {"text":"went on","stop_reason":"end_turn"}
]}
J
)"
start=$(date +%s)
timeout 30 "$TANDEM" -p "plan it" --permission-mode plan --output-format events >"$T/h.jsonl" 2>"$T/err"
check "headless: the run ends by itself, status 0" [ $? -eq 0 ]
check "headless: at once ($(($(date +%s) - start)) s)" [ $(($(date +%s) - start)) -lt 10 ]
res() { jq -r "select(.type==\"tool_result\" and .id==\"$1\") | .$2" "$T/h.jsonl"; }
check "headless: the todo list is kept" [ "$(res toolu_t1 is_error)" = false ]
check "headless: the todos event carries the list" \
    [ "$(jq -c 'select(.type=="todos") | [.todos[].status]' "$T/h.jsonl")" = '["completed","in_progress"]' ]
check "headless: ask_user is answered: no person to ask" grep -q 'no person to ask' <(res toolu_q1 content)
check "headless: exit_plan too" grep -q 'no person to ask' <(res toolu_x1 content)
check "headless: both are errors" [ "$(res toolu_q1 is_error)$(res toolu_x1 is_error)" = truetrue ]
check "headless: the model got the answers" grep -q 'no person to ask' <(sed -n 2p "$MOCK_LOG")
check "plan mode: the prompt tells the model to end with exit_plan" \
    grep -q 'plan mode: explore and plan read-only.*exit_plan' <(mock_body 1 '.messages[0].content')

# exit_plan outside plan mode: nothing to approve.
mock_start "$(scenario noplan <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_x2","name":"exit_plan","input":{"plan":"# Plan"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn","expect_contains":"not in plan mode"}
]}
J
)"
"$TANDEM" -p "plan it" --output-format events >"$T/n.jsonl" 2>"$T/err"
check "exit_plan outside plan mode says so" [ "$(mock_problems)" -eq 0 ]

# Rules name the tools as Claude Code does.
for name in TodoWrite TaskCreate TaskUpdate; do
	mock_start "$(scenario "deny$name" <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_t2","name":"todo_write","input":$LIST}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn","expect_contains":"denied by rule $name"}
]}
J
)"
	"$TANDEM" -p "todo" --deny "$name" --output-format events >"$T/d.jsonl" 2>"$T/err"
	check "--deny $name denies todo_write" [ "$(mock_problems)" -eq 0 ]
	check "--deny $name: no list kept" [ "$(jq -c 'select(.type=="todos")' "$T/d.jsonl" | wc -l)" -eq 0 ]
done

# Hooks see AskUserQuestion by its Claude Code name (and may refuse it).
cat >"$T/hook.sh" <<S
#!/bin/sh
cat >"$T/hook.in"
echo 'no questions today' >&2
exit 2
S
chmod +x "$T/hook.sh"
printf '{"hooks":{"PreToolUse":[{"matcher":"AskUserQuestion","hooks":[{"type":"command","command":"%s"}]}]}}\n' \
    "$T/hook.sh" >"$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$(scenario hook <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_q2","name":"ask_user","input":$QS}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn","expect_contains":"no questions today"}
]}
J
)"
"$TANDEM" -p "ask" --output-format events >"$T/k.jsonl" 2>"$T/err"
check "a PreToolUse hook with matcher AskUserQuestion ran" [ -s "$T/hook.in" ]
check "it saw tool_name AskUserQuestion" [ "$(jq -r .tool_name "$T/hook.in")" = AskUserQuestion ]
check "and its refusal reached the model" [ "$(mock_problems)" -eq 0 ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# After a compaction took the todo_write calls away, the list is back in the context.
mkdir -p .tandem
echo '{"context_window": 24000}' >.tandem/settings.json
big_files
rm -rf "$TANDEM_HOME"
{
	printf '{"check_echo":false,"responses":[\n'
	printf ' {"match":"You summarise the earlier part","text":"Summary: files were read.","stop_reason":"end_turn","repeat":20},\n'
	printf ' {"tool_uses":[{"name":"todo_write","input":%s}],"stop_reason":"tool_use"},\n' "$LIST"
	printf ' {"text":"Listed.","stop_reason":"end_turn"},\n'
	big_reads
	printf ' {"text":"Read them all.","stop_reason":"end_turn","repeat":20}\n]}\n'
} >"$T/grow.json"
mock_start "$T/grow.json"
"$TANDEM" -p "make the list" --output-format events >"$T/g1.jsonl" 2>"$T/err"
for i in 2 3 4; do "$TANDEM" -c -p "turn $i: small talk" --output-format events >"$T/g$i.jsonl" 2>"$T/err"; done
"$TANDEM" -c -p "read all the big files" --output-format events >"$T/g5.jsonl" 2>"$T/err"
stages=$(cat "$T"/g?.jsonl | jq -r 'select(.type=="compaction") | .stage' | sort -u | tr '\n' ' ')
check "the session was compacted past the list's call ($stages)" grep -Eq 'collapse|summary' <<<"$stages"
last=$(tail -n 1 "$MOCK_LOG" | jq -c '.body.messages')
check "the last request has no todo_write call left" [ "$(jq '[.[].content | arrays | .[] | select(.type=="tool_use" and .name=="todo_write")] | length' <<<"$last")" -eq 0 ]
check "but carries the list in a note" grep -q 'todo list before compaction.*Fix the bug' <<<"$last"
check "the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
finish
