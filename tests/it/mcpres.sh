#!/bin/bash
# MCP prompts and resources through the real binary and the real
# server-everything: /mcp__every__<prompt> as the prompt, its arguments,
# a refused prompt, @every:<uri> mentions, and their listing.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
EVERY="$top_srcdir/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
check "server-everything is installed (npm ci in tests/npm)" [ -f "$EVERY" ]
every_cfg() { printf '{"mcpServers":{"every":{"command":"node","args":["%s","stdio"]}}}' "$EVERY"; }
# body N FILTER: jq -r FILTER over the body of request N.
body() { sed -n "${1}p" "$MOCK_LOG" | jq -r ".body | $2"; }
user_text() { body 1 '[.messages[0].content[] | select(.type=="text") | .text] | join("\n----\n")'; }
DOC=demo://resource/static/document/architecture.md
DOCFILE="$(dirname "$EVERY")/docs/architecture.md"

# The listing: prompts with their arguments, resources with their mentions.
"$TANDEM" mcp list --mcp-config "$(every_cfg)" >"$T/list" 2>"$T/list.err"
check "mcp list shows the prompt with its arguments" \
    grep -q '^  prompt /mcp__every__args-prompt <city> \[state\]' "$T/list"
check "mcp list shows a resource as its mention" grep -qF "  resource @every:$DOC " "$T/list"

# A prompt without arguments: its text is the user's message.
OK=$(scenario ok <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"},{"text":"ok","stop_reason":"end_turn"}]}
J
)
mock_start "$OK"
"$TANDEM" -p "/mcp__every__simple-prompt" --mcp-config "$(every_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a prompt command runs (exit 0)" [ $? -eq 0 ]
check "the prompt's text is the user's message" \
    [ "$(user_text)" = "This is a simple prompt without arguments." ]

# Arguments: words go to the declared arguments in order; the last takes the rest.
mock_start "$OK"
"$TANDEM" -p "/mcp__every__args-prompt Springfield New Mexico" --mcp-config "$(every_cfg)" \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the arguments were passed" [ "$(user_text)" = "What's weather in Springfield, New Mexico?" ]
mock_start "$OK"
"$TANDEM" -p "/mcp__every__args-prompt Paris" --mcp-config "$(every_cfg)" \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "an optional argument may be left out" [ "$(user_text)" = "What's weather in Paris?" ]

# A missing required argument: one sentence, and no request.
mock_start "$OK"
"$TANDEM" -p "/mcp__every__args-prompt" --mcp-config "$(every_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a missing argument fails the run" [ $? -ne 0 ]
check "it is named in one sentence" grep -q 'the MCP prompt /mcp__every__args-prompt needs its argument \\"city\\" (usage: /mcp__every__args-prompt <city> \[state\]); nothing was sent' "$T/out.jsonl"
check "and nothing went to the model" [ "$(mock_requests)" -eq 0 ]
mock_start "$OK"
"$TANDEM" -p "/mcp__every__no-such-prompt x" --mcp-config "$(every_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "an unknown prompt is refused" grep -q 'the MCP server every has no prompt /mcp__every__no-such-prompt' "$T/out.jsonl"
check "and nothing went to the model either" [ "$(mock_requests)" -eq 0 ]

# A prompt with an embedded resource: its text comes along.
mock_start "$OK"
"$TANDEM" -p "/mcp__every__resource-prompt Text 1" --mcp-config "$(every_cfg)" \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "the prompt's text and its embedded resource are the message" \
    grep -q '^<resource uri="demo://resource/dynamic/text/1">' <(user_text)
check "with the prompt's own words first" \
    grep -q '^This prompt includes the Text resource with id: 1' <(user_text)

# A resource mention: the resource's text is attached.
mock_start "$OK"
"$TANDEM" -p "summarize @every:$DOC please" --mcp-config "$(every_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a mention runs (exit 0)" [ $? -eq 0 ]
check "the prompt stays as typed" [ "$(body 1 '.messages[0].content[0].text')" = "summarize @every:$DOC please" ]
check "the resource is framed as an attachment" \
    [ "$(body 1 '.messages[0].content[1].text' | head -1)" = "<attachment resource=\"every:$DOC\" kind=\"mcp\">" ]
body 1 '.messages[0].content[1].text' | sed '1d;$d' >"$T/attached"
check "its text is the resource's" cmp -s "$T/attached" "$DOCFILE"
# A resource that cannot be read: one line in the attachment, and the turn goes on.
mock_start "$OK"
"$TANDEM" -p "read @every:demo://resource/static/document/nothing.md and @every:$DOC" \
    --mcp-config "$(every_cfg)" --output-format events >"$T/out.jsonl" 2>"$T/err"
check "a failed read does not stop the turn" [ "$(mock_requests)" -eq 1 ]
check "it says so in its attachment" \
    grep -q 'The user mentioned this resource, but it could not be read: the server every answered with an error' \
    <(body 1 '.messages[0].content[1].text')
check "the other mention is attached all the same" \
    grep -qF "<attachment resource=\"every:$DOC\"" <(body 1 '.messages[0].content[2].text')
# A binary resource is named, not inlined.
mock_start "$OK"
"$TANDEM" -p "see @every:demo://resource/dynamic/blob/1" --mcp-config "$(every_cfg)" \
    --output-format events >"$T/out.jsonl" 2>"$T/err"
check "a binary resource is named, not inlined" \
    grep -q '^\[the resource demo://resource/dynamic/blob/1 (text/plain) is binary: not included\]$' \
    <(body 1 '.messages[0].content[1].text')
check "the attachment event names it" \
    [ "$(jq -r 'select(.type=="attachment") | .path + " " + .kind' "$T/out.jsonl")" = "every:demo://resource/dynamic/blob/1 mcp" ]
# A mention of no server stays text.
mock_start "$OK"
"$TANDEM" -p "mail @someone:here" --mcp-config "$(every_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a mention of no configured server stays text" \
    [ "$(body 1 '.messages[0].content | length')" -eq 1 ]
# The fault server: prompts in two pages, a read never answered, a server that dies reading.
FAULT="$top_srcdir/tests/mcp/fault.sh"
fault_cfg() { printf '{"mcpServers":{"fault":{"command":"bash","args":["%s"],"env":{"FAULT_MODE":"prompts"}}}}' "$FAULT"; }
"$TANDEM" mcp list --mcp-config "$(fault_cfg)" >"$T/list" 2>"$T/list.err"
check "mcp list shows the prompts of both pages" \
    [ "$(grep -c '^  prompt /mcp__fault__\(first\|paged\)' "$T/list")" -eq 2 ]
mock_start "$OK"
"$TANDEM" -p "/mcp__fault__paged" --mcp-config "$(fault_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a prompt of the second page runs" [ "$(user_text)" = "prompt paged" ]
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"mcp":{"timeout_ms":1000}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$OK"
start=$(date +%s)
"$TANDEM" -p "read @fault:fault://hang" --mcp-config "$(fault_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a read never answered is given up after mcp.timeout_ms" \
    grep -q 'could not be read: the server did not answer within 1 s' <(body 1 '.messages[0].content[1].text')
check "and the turn went on" [ "$(mock_requests)" -eq 1 ]
check "soon after the limit" [ $(($(date +%s) - start)) -lt 8 ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$OK"
"$TANDEM" -p "read @fault:fault://crash" --mcp-config "$(fault_cfg)" --output-format events \
    >"$T/out.jsonl" 2>"$T/err"
check "a server that dies in a read: one sentence in the attachment" \
    grep -q 'could not be read: it exited with status 3' <(body 1 '.messages[0].content[1].text')
check "and the turn went on" [ "$(mock_requests)" -eq 1 ]
finish
