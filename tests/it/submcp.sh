#!/bin/bash
# Subagents and the session's MCP tools, through the real binary against
# the mock and server-everything over stdio: a general-purpose subagent
# calls an MCP tool and its answer reaches its next request; a type whose
# tools: names one MCP tool gets that one; Explore gets the tools whose
# server marks them readOnlyHint; a user's deny rule on the MCP tool
# refuses the subagent's call; tools: and disallowedTools: naming a whole
# server (mcp__srv, mcp__srv__*) cover all its tools.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
check "server-everything is installed (npm ci in tests/npm)" [ -f "$EVERY" ]
needs_node "$EVERY" "server-everything"
cfg=$(printf '{"mcpServers":{"srv":{"command":"node","args":["%s","stdio"]}}}' "$EVERY")
mkdir -p .claude/agents
printf -- '---\nname: echoer\ndescription: echoes\ntools: Read, mcp__srv__echo\n---\nYou echo.\n' >.claude/agents/echoer.md

mock_start "$(scenario use <<'J'
{"responses":[
 {"match_last":"echo through subagents","tool_uses":[
   {"id":"toolu_G","name":"agent","input":{"description":"echo","prompt":"Echo the word.","subagent_type":"general-purpose"}},
   {"id":"toolu_E","name":"agent","input":{"description":"echoer","prompt":"Be ready to echo.","subagent_type":"echoer"}},
   {"id":"toolu_X","name":"agent","input":{"description":"explore","prompt":"Look around.","subagent_type":"Explore"}}],
  "stop_reason":"tool_use"},
 {"match_last":"Echo the word.","expect_contains":["\"name\":\"mcp__srv__echo\"","\"name\":\"mcp__srv__gzip-file-as-resource\"","\"name\":\"run_bash\""],
  "tool_uses":[{"id":"toolu_g1","name":"mcp__srv__echo","input":{"message":"ZEBRA-42"}}],"stop_reason":"tool_use"},
 {"match_last":"Echo: ZEBRA-42","text":"The server said ZEBRA-42."},
 {"match_last":"Be ready to echo.","expect_contains":["\"name\":\"mcp__srv__echo\"","\"name\":\"read_file\""],
  "expect_absent":["\"name\":\"mcp__srv__get-sum\"","\"name\":\"run_bash\"","\"name\":\"web_fetch\""],
  "text":"echoer ready"},
 {"match_last":"Look around.","expect_contains":["\"name\":\"mcp__srv__echo\"","\"name\":\"mcp__srv__get-sum\""],
  "expect_absent":["\"name\":\"mcp__srv__gzip-file-as-resource\"","\"name\":\"mcp__srv__toggle-simulated-logging\"","\"name\":\"run_bash\""],
  "text":"explorer ready"},
 {"match_last":["The server said ZEBRA-42.","echoer ready","explorer ready"],"text":"All three answered."}
],"require_all":true}
J
)"
timeout 90 "$TANDEM" -p "echo through subagents" --mcp-config "$cfg" --allow mcp__srv \
    --output-format events >"$T/use.jsonl" 2>"$T/use.err"
check "use: the run exits 0" [ $? -eq 0 ]
diag "$T/use.err"
check "use: every subagent had its MCP tools and the echo came back to the subagent" \
    [ "$(mock_requests)" -eq 6 ] && [ "$(mock_problems)" -eq 0 ]
check "use: the answer came up" [ "$(jq -r 'select(.type=="result") | .text' "$T/use.jsonl")" = "All three answered." ]

# The user's deny rule holds for a subagent's MCP call, even with the server allowed.
mock_start "$(scenario deny <<'J'
{"responses":[
 {"match_last":"echo through a rule","tool_uses":[
   {"id":"toolu_D","name":"agent","input":{"description":"echo","prompt":"Echo the word OKAPI.","subagent_type":"general-purpose"}}],
  "stop_reason":"tool_use"},
 {"match_last":"Echo the word OKAPI.","expect_contains":"\"name\":\"mcp__srv__echo\"",
  "tool_uses":[{"id":"toolu_d1","name":"mcp__srv__echo","input":{"message":"OKAPI-7"}}],"stop_reason":"tool_use"},
 {"match_last":"denied by rule mcp__srv__echo","expect_absent":"Echo: OKAPI-7","text":"The echo was refused."},
 {"match_last":"The echo was refused.","text":"Refused, as it should be."}
],"require_all":true}
J
)"
timeout 90 "$TANDEM" -p "echo through a rule" --mcp-config "$cfg" --allow mcp__srv --deny mcp__srv__echo \
    --output-format events >"$T/deny.jsonl" 2>"$T/deny.err"
check "deny: the run exits 0" [ $? -eq 0 ]
diag "$T/deny.err"
check "deny: the subagent's call was refused and it heard so" \
    [ "$(mock_requests)" -eq 4 ] && [ "$(mock_problems)" -eq 0 ]
check "deny: the server never echoed" [ "$(grep -c 'Echo: OKAPI-7' "$T/deny.jsonl")" -eq 0 ]

# A whole server in tools: and disallowedTools:, as Claude Code writes it:
# mcp__srv and mcp__srv__* cover every tool of srv, as a rule of that name.
printf -- '---\nname: server\ndescription: srv\ntools: Read, mcp__srv\n---\nYou use srv.\n' >.claude/agents/server.md
printf -- '---\nname: starred\ndescription: srv\ntools:\n  - mcp__srv__*\n---\nYou use srv.\n' >.claude/agents/starred.md
printf -- '---\nname: nosrv\ndescription: no srv\ndisallowedTools: mcp__srv\n---\nNo srv.\n' >.claude/agents/nosrv.md
mock_start "$(scenario server <<'J'
{"responses":[
 {"match_last":"the whole server","tool_uses":[
   {"id":"toolu_S","name":"agent","input":{"description":"server","prompt":"Add with srv.","subagent_type":"server"}},
   {"id":"toolu_W","name":"agent","input":{"description":"starred","prompt":"Be srv.","subagent_type":"starred"}},
   {"id":"toolu_N","name":"agent","input":{"description":"nosrv","prompt":"Be without srv.","subagent_type":"nosrv"}}],
  "stop_reason":"tool_use"},
 {"match_last":"Add with srv.","expect_contains":["\"name\":\"mcp__srv__echo\"","\"name\":\"mcp__srv__get-sum\"","\"name\":\"read_file\""],
  "expect_absent":["\"name\":\"run_bash\""],
  "tool_uses":[{"id":"toolu_s1","name":"mcp__srv__get-sum","input":{"a":40,"b":2}}],"stop_reason":"tool_use"},
 {"match_last":"42","expect_absent":"may not use","text":"srv says 42."},
 {"match_last":"Be srv.","expect_contains":["\"name\":\"mcp__srv__echo\"","\"name\":\"mcp__srv__get-sum\""],
  "expect_absent":["\"name\":\"read_file\"","\"name\":\"run_bash\""],"text":"starred ready"},
 {"match_last":"Be without srv.","expect_contains":["\"name\":\"run_bash\"","\"name\":\"read_file\""],
  "expect_absent":["\"name\":\"mcp__srv__echo\"","\"name\":\"mcp__srv__get-sum\""],"text":"nosrv ready"},
 {"match_last":["srv says 42.","starred ready","nosrv ready"],"text":"Whole servers honoured."}
],"require_all":true}
J
)"
timeout 90 "$TANDEM" -p "the whole server" --mcp-config "$cfg" --allow mcp__srv \
    --output-format events >"$T/server.jsonl" 2>"$T/server.err"
check "server: the run exits 0" [ $? -eq 0 ]
diag "$T/server.err"
check "server: mcp__srv and mcp__srv__* gave every tool of srv, disallowedTools: mcp__srv none" \
    [ "$(mock_requests)" -eq 6 ] && [ "$(mock_problems)" -eq 0 ]
check "server: the answer came up" \
    [ "$(jq -r 'select(.type=="result") | .text' "$T/server.jsonl")" = "Whole servers honoured." ]
rm -f .claude/agents/echoer.md .claude/agents/server.md .claude/agents/starred.md .claude/agents/nosrv.md
finish
