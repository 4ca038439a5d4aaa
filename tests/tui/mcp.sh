#!/bin/sh
# Screen test: MCP servers in the TUI: "mcp 1/2" on the status bar once the
# good one is up, /mcp with state, error and tools, an MCP call's approval
# showing its arguments, and Esc cancelling a hanging call (the server gets
# notifications/cancelled).
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
FAULT="$top_srcdir/tests/mcp/fault.sh"
[ -f "$EVERY" ]
tui_ok $? "server-everything is installed (npm ci in tests/npm)"
mkdir -p "$XDG_CONFIG_HOME/tandem"
cat >"$XDG_CONFIG_HOME/tandem/settings.json" <<J
{"mcpServers":{
  "every":{"command":"node","args":["$EVERY","stdio"]},
  "fault":{"command":"bash","args":["$FAULT"],"env":{"FAULT_MODE":"hang","FAULT_LOG":"$TUI_TMP/fault.log"}},
  "chg":{"command":"bash","args":["$FAULT"],"env":{"FAULT_MODE":"change"}},
  "broken":{"command":"/no/such/server"}},
 "permissions":{"allow":["mcp__fault","mcp__chg"]}}
J
SCEN=$(tui_scenario mcp <<'J'
{"responses": [
 {"tool_uses":[{"id":"toolu_1","name":"mcp__every__echo","input":{"message":"shown to the user"}}]},
 {"text":"echoed","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_2","name":"mcp__fault__boom","input":{}}]},
 {"tool_uses":[{"id":"toolu_3","name":"mcp__chg__boom","input":{}}]},
 {"tool_uses":[{"id":"toolu_4","name":"mcp__chg__boom","input":{}}]},
 {"text":"changed","stop_reason":"end_turn"},
 {"text":"next turn","stop_reason":"end_turn"}
]}
J
)
printf '{"mcpServers":{"proj":{"command":"bash","args":["%s"]}}}' "$FAULT" >"$TUI_WS/.mcp.json"
tui_mock_start "$SCEN"
tui_start_tandem 120 60
tui_check "the screen is up" '› \? for keys'
tui_check "the status bar counts the ready servers" 'mcp 3/4'
tui_check "an untrusted project's .mcp.json is named, with what to do" 'mcp\.json defines MCP servers; they start once'
tui_type "/mcp"
tui_keys Enter
tui_check "/mcp shows a ready server" 'every: ready, [0-9]+ tools'
tui_check "/mcp shows the failed one and why" 'cannot run /no/such/server'
tui_check "/mcp lists tools" "mcp__fault__boom  a tool of the fault server"
tui_type "echo it"
tui_keys Enter
tui_check "the MCP call waits for approval" 'mcp__every__echo.*approve\?'
tui_check "the approval shows the arguments" 'shown to the user'
tui_keys y
tui_check "approved, it runs and the answer follows" 'echoed'
tui_type "hang"
tui_keys Enter
tui_check "the hanging call runs" 'mcp__fault__boom.*running'
tui_keys Escape
tui_check "Esc ends it" 'interrupted'
i=0
while [ ! -s "$TUI_TMP/fault.log" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '"requestId"' "$TUI_TMP/fault.log" 2>/dev/null
tui_ok $? "the server got notifications/cancelled for the call"
tui_type "change"
tui_keys Enter
tui_check "a server announces a new tool list mid-turn" 'changed'
tui_type "again"
tui_keys Enter
tui_check "the next turn is answered" 'next turn'
sleep 0.3
tools_of() { sed -n "${1}p" "$TUI_MOCK_LOG" | jq -c '[.body.tools[].name | select(startswith("mcp__chg__"))]'; }
n=$(wc -l <"$TUI_MOCK_LOG")
[ "$(tools_of $((n - 1)))" = '["mcp__chg__boom"]' ]
tui_ok $? "within the turn the tools stay as they were"
[ "$(tools_of "$n")" = '["mcp__chg__boom2"]' ]
tui_ok $? "the next turn has the new list"
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_mock_done
