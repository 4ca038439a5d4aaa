#!/bin/sh
# Screen test of plans and questions with the real tandem against the mock:
# /plan enters plan mode; the model's exit_plan shows the plan rendered;
# n sends it back with a reason (the model sees it and revises, still in
# plan mode); a approves into accept-edits and the edit runs unasked; then
# ask_user's picker: three options and Other, answered by keys (arrows and
# typed words for the first question, digits for a multi-select second);
# last, Shift+Tab back to plan mode, and e edits the plan in $VISUAL and
# approves it: the model is told what changed.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

cat >"$TUI_TMP/editor" <<'EOS'
#!/bin/sh
sed 's/^1\. step one$/1. step one, done by the person/' "$1" > "$1.new" && mv "$1.new" "$1"
EOS
chmod +x "$TUI_TMP/editor"
VISUAL=$TUI_TMP/editor
export VISUAL

SCEN=$(tui_scenario plan <<'J'
{"check_echo":false,"responses":[
 {"match":"plan the change","tool_uses":[{"id":"toolu_p1","name":"exit_plan","input":{"plan":"# Plan one\n\n1. Change **alpha** in f.txt"}}]},
 {"match_last":"lower case is wrong","tool_uses":[{"id":"toolu_p2","name":"exit_plan","input":{"plan":"# Plan two\n\n1. Change alpha to ALPHA in f.txt"}}]},
 {"match_last":"toolu_p2","tool_uses":[{"id":"toolu_e1","name":"edit_file","input":{"path":"f.txt","old_string":"alpha","new_string":"ALPHA"}}]},
 {"match_last":"toolu_e1","text":"EDIT-DONE","stop_reason":"end_turn"},
 {"match":"ask me","tool_uses":[{"id":"toolu_q1","name":"ask_user","input":{"questions":[
   {"question":"Which color?","header":"Color","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Green","description":"calm"},{"label":"Blue","description":"cool"}]},
   {"question":"Which toppings?","header":"Toppings","multiSelect":true,"options":[{"label":"Cheese","description":"soft"},{"label":"Ham","description":"salty"},{"label":"Olives","description":"bitter"}]}]}}]},
 {"match_last":"toolu_q1","text":"ANSWERED-OK","stop_reason":"end_turn"},
 {"match":"plan once more","tool_uses":[{"id":"toolu_p3","name":"exit_plan","input":{"plan":"# Plan three\n\n1. step one\n2. step two\n"}}]},
 {"match_last":"toolu_p3","text":"PLAN3-OK","stop_reason":"end_turn"},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
printf 'alpha\n' >"$TUI_WS/f.txt"
tui_start_tandem 100 32
tui_check "tandem starts in ask mode" '│ ask'
tui_type "/plan plan the change"
tui_keys Enter
tui_check "/plan enters plan mode" '│ plan'
tui_check "the plan is shown rendered" 'Plan one'
tui_absent "its Markdown is rendered, not raw" '\*\*alpha\*\*'
tui_check "and asked about" 'Approve this plan\?'
tui_keys n
tui_type "lower case is wrong"
tui_keys Enter
tui_check "the revised plan comes" 'Plan two'
tui_ok "$(grep -c 'the plan is sent back: lower case is wrong' "$TUI_MOCK_LOG" >/dev/null; echo $?)" \
    "the model got the reason"
tui_check "still in plan mode" '│ plan'
tui_keys a
tui_check "approved into accept-edits" '│ accept-edits'
tui_check "the edit runs and the turn ends" 'EDIT-DONE'
tui_absent "the edit did not ask" 'Apply this edit'
grep -q ALPHA "$TUI_WS/f.txt"
tui_ok $? "the file was edited"

tui_type "ask me"
tui_keys Enter
tui_check "the picker shows the question" '\[Color\] Which color\?'
tui_check "its three options" '3 Blue'
tui_check "and Other" '4 Other'
tui_keys Down
tui_keys Down
tui_keys Down
tui_type "teal"
tui_check "Other takes typed words" 'Other: teal'
tui_keys Enter
tui_check "the second question" '\[Toppings\] Which toppings\?'
tui_keys 1
tui_check "a digit ticks a multi-select's option" '\[x\] Cheese'
tui_keys Down
tui_keys Down
tui_keys Space
tui_check "Space ticks the one under the cursor" '\[x\] Olives'
tui_keys Enter
tui_check "the answers went back" 'ANSWERED-OK'
last=$(tui_last_message)
tui_jq "$last" '[.content[] | select(.type == "tool_result") | .content | tostring | test("Which color\\?\" -> teal")] | any' \
    "the model got Other's words"
tui_jq "$last" '[.content[] | select(.type == "tool_result") | .content | tostring | test("Which toppings\\?\" -> Cheese, Olives")] | any' \
    "and both ticked options"
tui_jq "$last" '[.content[] | select(.type == "tool_result") | .content | tostring | test("changed this call")] | any | not' \
    "the answers are no 'changed input' note"

tui_keys BTab
tui_check "Shift+Tab from accept-edits: plan" '│ plan'
tui_type "plan once more"
tui_keys Enter
tui_check "the third plan" 'Plan three'
tui_keys e
tui_check "the edited plan is approved" 'PLAN3-OK'
tui_check "into ask mode" '│ ask'
last=$(tui_last_message)
tui_jq "$last" '[.content[] | select(.type == "tool_result") | .content | tostring | test("step one, done by the person")] | any' \
    "the model is told what changed"
tui_keys C-t
tui_check "the turn browser keeps the approved plan with its turn" 'plan approved: Plan two'
tui_check "and an edited one says so" 'plan approved: Plan three, edited'
tui_keys Escape
tui_mock_done
