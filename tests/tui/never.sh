#!/bin/sh
# Screen test of the real tandem: N at an approval denies the call and
# every call like it for the rest of the session.  The same command again
# is denied without asking, with a reason the model reads; a different
# command still asks; nothing denied ran.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario never <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_n3","text":"Third answered.","stop_reason":"end_turn"},
 {"match":"toolu_n2","tool_uses":[{"id":"toolu_n3","name":"run_bash","input":{"command":"touch other.txt"}}]},
 {"match":"toolu_n1","tool_uses":[{"id":"toolu_n2","name":"run_bash","input":{"command":"touch never.txt"}}]},
 {"match":"make a file","tool_uses":[{"id":"toolu_n1","name":"run_bash","input":{"command":"touch never.txt"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":5}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 100 30
tui_check "the real tandem draws its screen" '› \? for keys'
tui_type "make a file"
tui_keys Enter
tui_check "the command asks" 'run_bash touch never\.txt +approve\?'
tui_check "the approval offers never" 'Never'
tui_check "the diff pane says what N would deny" 'N denies: run_bash\(touch'
tui_keys N
tui_check "the denial shows" 'denied for the rest of the session'
tui_check "the different command asks" 'run_bash touch other\.txt +approve\?'
tui_keys n
tui_keys Enter
tui_check "the model goes on" 'Third answered\.'
[ ! -e "$TUI_WS/never.txt" ] && [ ! -e "$TUI_WS/other.txt" ]
tui_ok $? "nothing denied ran"
jq -e -s '[.[] | .body.messages[-1].content | arrays | .[]
    | select(.type == "tool_result" and .tool_use_id == "toolu_n2")]
    | length == 1 and (.[0].is_error == true) and (.[0].content | tostring | contains("rest of the session"))' \
    "$TUI_MOCK_LOG" >/dev/null
tui_ok $? "the same command again was denied without asking, and the model was told why"
tui_done
