#!/bin/bash
# The official Agent SDK (@anthropic-ai/claude-agent-sdk, from tests/npm's
# lockfile) drives the real tandem through pathToClaudeCodeExecutable: a
# multi-turn exchange, an edit approved through canUseTool with an updated
# input (whose result tells the model what ran), a denial, an interrupt;
# and an updated input the rules refuse.
. "$(dirname "$0")/lib.sh"
SDK="$top_srcdir/tests/npm/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs"
needs_node "$SDK" "the Agent SDK"
export SDK_PATH="$SDK" TANDEM WS="$T/ws"
cd "$T/ws"
echo hello >notes.txt
echo key >secret.txt

# run_node PHASE: the node script's TAP lines, renumbered into ours.
run_node() { node_tap "$top_srcdir/tests/it/sdk.mjs" "$1"; }

mock_start "$(scenario conv <<'J'
{"responses":[
 {"text":"Hello from tandem.","stop_reason":"end_turn","expect_contains":"say hello"},
 {"text":"Editing.","tool_uses":[{"id":"toolu_e1","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"bye"}}],"stop_reason":"tool_use","expect_contains":"edit the notes"},
 {"text":"Edited.","stop_reason":"end_turn","expect_contains":"edited notes.txt"},
 {"tool_uses":[{"id":"toolu_b1","name":"run_bash","input":{"command":"touch cleaned"}}],"stop_reason":"tool_use","expect_contains":"run the cleanup"},
 {"text":"Understood.","stop_reason":"end_turn","expect_contains":"no commands today"},
 {"text":"This answer takes a long time to come.","first_byte_delay_ms":8000,"expect_contains":"a slow one"}
]}
J
)"
run_node conversation
check "the mock saw six requests" [ "$(mock_requests)" -eq 6 ]
check "the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
check "the model asked for is the one requested" [ "$(mock_body 1 .model)" = '"claude-sonnet-4-5"' ]
check "turn 2's request carries turn 1" grep -q 'Hello from tandem' <(sed -n 2p "$MOCK_LOG")
# The request after the host's updatedInput tells the model what ran instead of its edit.
edit_result() { mock_body 3 '[.messages[-1].content[] | select(.tool_use_id == "toolu_e1") | .content | if type == "array" then map(.text) | join("") else . end] | join("")'; }
check "the edit's result says the input was changed" grep -q 'The user changed this call before it ran' <(edit_result)
check "and shows the host's new_string" grep -q 'you sent \\"bye\\"; what ran: \\"bye from the host\\"' <(edit_result)

echo hello >notes.txt
mock_start "$(scenario rules <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_r1","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"bye"}}],"stop_reason":"tool_use"},
 {"text":"The rules refused it.","stop_reason":"end_turn","expect_contains":"denied by rule"}
]}
J
)"
run_node rules
check "rules: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
check "rules: notes.txt is untouched too" [ "$(cat notes.txt)" = hello ]

# The SDK's mcpServers option: tandem starts the server, reports it, and the model calls it.
export EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
check "server-everything is installed (npm ci in tests/npm)" [ -f "$EVERY" ]
mock_start "$(scenario mcp <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_m1","name":"mcp__every__echo","input":{"message":"sdk says hi"}}],"stop_reason":"tool_use"},
 {"text":"Echoed.","stop_reason":"end_turn","expect_contains":"sdk says hi"}
]}
J
)"
run_node mcp
check "mcp: the first request offered the server's echo" \
    [ "$(mock_body 1 '[.tools[].name | select(. == "mcp__every__echo")] | length')" -eq 1 ]
check "mcp: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]

# By default the SDK sends mcpServers in initialize (--await-initialize), not --mcp-config.
mock_start "$(scenario mcp <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_m1","name":"mcp__every__echo","input":{"message":"sdk says hi"}}],"stop_reason":"tool_use"},
 {"text":"Echoed.","stop_reason":"end_turn","expect_contains":"sdk says hi"}
]}
J
)"
run_node mcpinit
check "mcpinit: the first request offered the server's echo" \
    [ "$(mock_body 1 '[.tools[].name | select(. == "mcp__every__echo")] | length')" -eq 1 ]
check "mcpinit: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]

# Plan mode: a question answered and a plan approved through canUseTool.
echo hello >notes.txt
mock_start "$(scenario plan <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_t1","name":"todo_write","input":{"todos":[{"content":"Ask","status":"in_progress","activeForm":"Asking"},{"content":"Plan","status":"pending","activeForm":"Planning"}]}},
   {"id":"toolu_q1","name":"ask_user","input":{"questions":[{"question":"Which color?","header":"Color","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Green","description":"calm"},{"label":"Blue","description":"cool"}]}]}}],"stop_reason":"tool_use","expect_contains":"plan and ask"},
 {"tool_uses":[{"id":"toolu_x1","name":"exit_plan","input":{"plan":"# The plan\n\n1. Paint it green"}}],"stop_reason":"tool_use","expect_contains":"-> Green"},
 {"tool_uses":[{"id":"toolu_pe1","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"green"}}],"stop_reason":"tool_use","expect_contains":"approved the plan"},
 {"text":"PLANNED","stop_reason":"end_turn"}
]}
J
)"
run_node plan
check "plan: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
finish
