#!/bin/sh
# Screen test: an MCP server's prompt typed as a slash command and a
# resource mentioned as @server:uri in the TUI, against server-everything.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$EVERY" ]
tui_ok $? "server-everything is installed (npm ci in tests/npm)"
mkdir -p "$XDG_CONFIG_HOME/tandem"
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<J
{"mcpServers":{"every":{"command":"node","args":["$EVERY","stdio"]}}}
J
SCEN=$(tui_scenario mcpres <<'J'
{"responses": [
 {"text":"sunny in Paris","stop_reason":"end_turn"},
 {"text":"read the document","stop_reason":"end_turn"}
]}
J
)
tui_mock_start "$SCEN"
tui_start_tandem 120 40
tui_check "the screen is up" '› \? for keys'
tui_check "the server is ready" 'mcp 1/1'
tui_type "/mcp"
tui_keys Enter
tui_check "/mcp lists the server's prompts" 'prompt /mcp__every__args-prompt <city> \[state\]'
tui_type "/mcp__every__args-prompt"
tui_keys Enter
tui_check "a missing argument is named" 'needs its argument "city"'
tui_type "/mcp__every__args-prompt Paris"
tui_keys Enter
tui_check "the prompt's turn is answered" 'sunny in Paris'
msg=$(tui_last_message)
tui_jq "$msg" '.content[0].text == "What'"'"'s weather in Paris?"' "the prompt's text reached the model"
tui_type "look at @every:featu"
tui_keys Tab
sleep 1
tui_keys Tab
tui_check_input "Tab completes a resource's mention" '› look at @every:demo://resource/static/document/features\.md$'
tui_type " now"
tui_keys Enter
tui_check "the mention's turn is answered" 'read the document'
tui_check "the transcript says what was attached" '@every:demo://resource/static/document/features\.md attached \(MCP resource, [0-9.]+ KB\)'
msg=$(tui_last_message)
tui_jq "$msg" '.content[1].text | startswith("<attachment resource=\"every:demo://resource/static/document/features.md\"")' \
    "the resource was attached"
[ "$(wc -l <"$TUI_MOCK_LOG")" -eq 2 ]
tui_ok $? "the refused prompt sent nothing"
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_mock_done
