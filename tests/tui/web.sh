#!/bin/sh
# Screen test: web_fetch and web_search in the TUI, the real tandem against
# the mock and a web server on loopback: the approval names the URL and
# says that a loopback address asks every time (an "always" answer does not
# stop the next one from asking), the tools pane shows the URL and the
# query, and the turn browser lists both tools.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

node "$top_srcdir/tests/it/webserve.mjs" "$TUI_TMP/web.port" "$TUI_TMP/web.log" 2>/dev/null &
WEB_PID=$!
i=0
while [ ! -s "$TUI_TMP/web.port" ] && [ "$i" -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
WP=$(cat "$TUI_TMP/web.port")
[ -n "$WP" ]
tui_ok $? "the web test server is up"
SCEN=$(tui_scenario web <<J
{"responses": [
 {"tool_uses":[{"id":"toolu_1","name":"web_fetch","input":{"url":"http://127.0.0.1:$WP/md"}}]},
 {"text":"FETCHED-ONE","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_2","name":"web_fetch","input":{"url":"http://127.0.0.1:$WP/json"}}]},
 {"text":"FETCHED-TWO","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_3","name":"web_search","input":{"query":"tandem release notes"}}]},
 {"match":"Search the web for","web_search":{"query":"tandem release notes","results":[{"title":"T","url":"https://example.com/t"}],"answer":[{"text":"Out now.","cite":[0]}]}},
 {"text":"SEARCHED","stop_reason":"end_turn"}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 160 45
tui_check "the screen is up" '› \? for keys'
tui_type "read the page"
tui_keys Enter
tui_check "the approval names the URL" "Fetch http://127\.0\.0\.1:$WP/md\?"
tui_check "...and says loopback asks every time" '127\.0\.0\.1 is a loopback'
tui_check "...every time" 'address: tandem asks before every fetch from such an address'
tui_keys a
tui_check "approved, the tools pane shows the call with its URL" "web_fetch http://127\.0\.0\.1:$WP/md"
tui_check "the answer follows" 'FETCHED-ONE'
tui_type "another page"
tui_keys Enter
tui_check "after an always answer, loopback still asks" "Fetch http://127\.0\.0\.1:$WP/json\?"
tui_keys y
tui_check "the second fetch runs" 'FETCHED-TWO'
tui_type "search it"
tui_keys Enter
tui_check "web_search asks with its query" 'Search the web for tandem release notes\?'
tui_keys y
tui_check "the tools pane shows the query" 'web_search tandem release notes'
tui_check "the search's turn ends" 'SEARCHED'
tui_keys C-t
tui_check "the turn browser lists web_fetch" 'web_fetch'
tui_check "...and web_search" 'web_search'
tui_keys Escape
tui_keys C-c
tui_keys C-c
tui_exited "quit"
kill "$WEB_PID" 2>/dev/null
tui_done
