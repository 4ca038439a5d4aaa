#!/bin/sh
# Screen test: /model lists what the server's Models API offers (window,
# output limit, thinking kind, effort levels), /model NAME changes to one
# and the status bar's window follows it, /effort sets the level the next
# request carries.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

model() { # id window output adaptive enabled efforts
	printf '{"type":"model","id":"%s","display_name":"%s","created_at":"2026-01-01T00:00:00Z","max_input_tokens":%s,"max_tokens":%s,"capabilities":{"thinking":{"supported":true,"types":{"adaptive":{"supported":%s},"enabled":{"supported":%s}}},"effort":{"supported":%s,"low":{"supported":%s},"medium":{"supported":false},"high":{"supported":%s},"max":{"supported":false},"xhigh":null},"image_input":{"supported":true}}}' \
	    "$1" "$1" "$2" "$3" "$4" "$5" "$6" "$6" "$6"
}
SCEN=$(tui_scenario models <<J
{"models": [$(model wide-one 1000000 128000 true false true), $(model narrow-one 200000 64000 false true false)],
 "responses": [{"text": "ok", "stop_reason": "end_turn", "repeat": 10}]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 100 30 --model wide-one
tui_check "the screen is up" '› \? for keys'
tui_check "the status bar shows the server's window" '1\.0M|1000k|1M'
tui_type "/model"
tui_keys Enter
tui_check "/model lists the server's models" 'wide-one +1M +128K +adaptive +low,high'
tui_check "with their limits and thinking kind" 'narrow-one +200K +64K +enabled'
tui_type "/effort high"
tui_keys Enter
tui_check "/effort sets the level" 'effort: high'
tui_type "hello"
tui_keys Enter
tui_check "the answer comes" 'ok'
tui_type "/model narrow-one"
tui_keys Enter
tui_check "/model NAME changes" 'model: narrow-one'
tui_type "again"
tui_keys Enter
tui_check "the status bar's window follows the model" '200k'
sleep 0.3
check_json() {
	grep -v '"kind":"models"' "$TUI_MOCK_LOG" | jq -sc "$1"
}
[ "$(check_json '[.[] | .body.output_config.effort // null]')" = '["high",null]' ]
tui_ok $? "the first request carries the effort, the narrow model (no effort levels) none"
[ "$(check_json '[.[].problems | length] | add')" = 0 ]
tui_ok $? "every request was accepted by the mock's Models API checks"
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_mock_done
