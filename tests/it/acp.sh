#!/bin/bash
# The ACP SDK's client (@agentclientprotocol/sdk, from tests/npm's lockfile)
# drives the real `tandem acp`: a streamed answer with a thought, an edit
# with its diff and a permission request, a cancel while a permission
# request is pending, set_mode, resource blocks, errors; then a second
# process loads the session and gets its history first.
. "$(dirname "$0")/lib.sh"
ACP="$top_srcdir/tests/npm/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js"
needs_node "$ACP" "the ACP SDK"
export ACP_PATH="$ACP" TANDEM WS="$T/ws"
cd "$T/ws"
echo hello >notes.txt

# run_node ARGS...: the node script's TAP lines, renumbered into ours.
run_node() { node_tap "$top_srcdir/tests/it/acp.mjs" "$@"; }

mock_start "$(scenario acp <<'J'
{"responses":[
 {"thinking":"Thinking it over.","text":"Hello from tandem over ACP.","stop_reason":"end_turn","expect_contains":"say hello"},
 {"tool_uses":[{"id":"toolu_e1","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"bye"}}],"stop_reason":"tool_use","expect_contains":"edit the notes"},
 {"text":"Edited.","stop_reason":"end_turn","expect_contains":"edited notes.txt"},
 {"tool_uses":[{"id":"toolu_b1","name":"run_bash","input":{"command":"touch cleaned"}}],"stop_reason":"tool_use","expect_contains":"run the cleanup"},
 {"tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"plan.md","content":"the plan\n"}}],"stop_reason":"tool_use","expect_contains":["write the plan","SPEC: be brief","notes.txt"]},
 {"text":"Written.","stop_reason":"end_turn"},
 {"tool_uses":[{"id":"toolu_r1","name":"run_bash","input":{"command":"echo live output"}}],"stop_reason":"tool_use","expect_contains":"run the echo"},
 {"text":"Ran.","stop_reason":"end_turn"}
]}
J
)"
run_node session
sid=$(sed -n 's/^# SESSION //p' "$T/node.out")
check "the mock saw eight requests (the cancelled turn made no second one)" [ "$(mock_requests)" -eq 8 ]
check "the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]
check "the cancelled command's result went to the model" grep -q 'cancelled' <(sed -n 5p "$MOCK_LOG")

run_node load "$sid"

# The client's MCP servers (session/new's mcpServers) are started for the session.
export EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
check "server-everything is installed (npm ci in tests/npm)" [ -f "$EVERY" ]
mock_start "$(scenario acpmcp <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_m1","name":"mcp__every__echo","input":{"message":"acp says hi"}}],"stop_reason":"tool_use","expect_contains":"echo through mcp"},
 {"text":"Echoed.","stop_reason":"end_turn","expect_contains":"acp says hi"}
]}
J
)"
run_node mcp
check "mcp: the first request offered the server's echo" \
    [ "$(mock_body 1 '[.tools[].name | select(. == "mcp__every__echo")] | length')" -eq 1 ]
check "mcp: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]

# reject_always denies the call and every call like it for the rest of the session.
mock_start "$(scenario acpnever <<'J'
{"responses":[
 {"tool_uses":[{"id":"toolu_x1","name":"run_bash","input":{"command":"touch nope"}}],"stop_reason":"tool_use","expect_contains":"touch it twice"},
 {"tool_uses":[{"id":"toolu_x2","name":"run_bash","input":{"command":"touch nope"}}],"stop_reason":"tool_use"},
 {"text":"Gave up.","stop_reason":"end_turn","expect_contains":"rest of the session"}
]}
J
)"
run_node never
check "never: the model was told the calls are rejected for the session" grep -q 'rest of the session' <(sed -n 3p "$MOCK_LOG")
check "never: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]

# The web tools over ACP (a web server on loopback; loopback fetched as in tests/it/web.sh).
node "$top_srcdir/tests/it/webserve.mjs" "$T/web.port" "$T/web.log" 2>/dev/null &
WEB_PID=$!
i=0
while [ ! -s "$T/web.port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
export WEB_URL="http://127.0.0.1:$(cat "$T/web.port")/md" TANDEM_WEB_TEST_LOOPBACK=1
mock_start "$(scenario acpweb <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_f1","name":"web_fetch","input":{"url":"$WEB_URL"}},
   {"id":"toolu_s1","name":"web_search","input":{"query":"tandem news"}}],"stop_reason":"tool_use","expect_contains":"read the web"},
 {"match":"Search the web for","web_search":{"query":"tandem news","results":[{"title":"N","url":"https://example.com/n"}]}},
 {"text":"Read.","stop_reason":"end_turn"}
]}
J
)"
run_node web
unset WEB_URL TANDEM_WEB_TEST_LOOPBACK
kill $WEB_PID 2>/dev/null
# Plan mode: the todo list as plan updates, questions and the plan through request_permission.
echo hello >notes.txt
todos() { printf '{"todos":[{"content":"Ask","status":"%s","activeForm":"Asking"},{"content":"Plan","status":"%s","activeForm":"Planning"}]}' "$1" "$2"; }
mock_start "$(scenario acpplan <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_t1","name":"todo_write","input":$(todos in_progress pending)},
   {"id":"toolu_q1","name":"ask_user","input":{"questions":[
     {"question":"Which color?","header":"Color","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Green","description":"calm"},{"label":"Blue","description":"cool"}]},
     {"question":"Which toppings?","header":"Toppings","multiSelect":true,"options":[{"label":"Cheese","description":"soft"},{"label":"Ham","description":"salty"},{"label":"Olives","description":"bitter"}]}]}}],
  "stop_reason":"tool_use","expect_contains":"plan with todos"},
 {"tool_uses":[{"id":"toolu_t2","name":"todo_write","input":$(todos completed in_progress)},{"id":"toolu_x1","name":"exit_plan","input":{"plan":"# Plan\\n\\n1. Paint it green"}}],"stop_reason":"tool_use","expect_contains":["-> Green","-> Olives (the editor lets the user pick one option only)"]},
 {"tool_uses":[{"id":"toolu_t3","name":"todo_write","input":$(todos completed completed)},{"id":"toolu_e9","name":"edit_file","input":{"path":"notes.txt","old_string":"hello","new_string":"green"}}],"stop_reason":"tool_use","expect_contains":"approved the plan"},
 {"text":"Planned over ACP.","stop_reason":"end_turn"}
]}
J
)"
run_node plan
check "plan: the mock found no problem in the requests" [ "$(mock_problems)" -eq 0 ]

# JSON-RPC framing errors, by hand.
out=$(printf '%s\n' 'not json' '[1,2]' '{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"x","prompt":[]}}' | "$TANDEM" acp 2>"$T/err")
check "a line that is not JSON: parse error -32700" [ "$(echo "$out" | sed -n 1p | jq -r .error.code)" = -32700 ]
check "a batch: invalid request -32600" [ "$(echo "$out" | sed -n 2p | jq -r .error.code)" = -32600 ]
check "a prompt before session/new: -32002 with the id" [ "$(echo "$out" | sed -n 3p | jq -c '[.id, .error.code]')" = '[7,-32002]' ]
finish
