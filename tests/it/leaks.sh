#!/bin/bash
# Keys stay out of what tandem shows, logs and sends on two more routes:
# the key apiKeyHelper prints with blanks around it (the key the request
# carries, without them, is redacted in a command's output, the events,
# the session's files and the next request), and an MCP result past the
# cap, whose whole text goes to a file in the session (redacted there too).
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
# all_of TEST...: every one of the tests (shell text) holds.
all_of() { local t; for t in "$@"; do eval "$t" || return 1; done; }
mkdir -p "$XDG_CONFIG_HOME/tandem"
HKEY="sk-helper-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '#!/bin/sh\nprintf "  %%s \\t\\n" "%s"\n' "$HKEY" >"$T/helper.sh"
chmod +x "$T/helper.sh"
echo "{\"apiKeyHelper\": \"$T/helper.sh\"}" >"$XDG_CONFIG_HOME/tandem/settings.json"
mock_start "$(scenario helper <<J
{"check_echo": false, "responses": [
 {"tool_uses":[{"id":"toolu_h","name":"run_bash","input":{"command":"'$T/helper.sh' | tr -d ' \\t' | sed s/^/key=/"}}],"stop_reason":"tool_use"},
 {"text": "ok", "stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --permission-mode yolo --output-format events >"$T/out.jsonl" 2>"$T/err"
check "apiKeyHelper: the run exits 0" [ $? -eq 0 ]
check "apiKeyHelper: the request carries the key without its blanks" \
    [ "$(sed -n 1p "$MOCK_LOG" | jq -r '.headers["x-api-key"]')" = "$HKEY" ]
check "apiKeyHelper: the command's output has it redacted" \
    grep -q 'key=\[redacted\]' <(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl")
check "apiKeyHelper: no event holds the key" not grep -q "$HKEY" "$T/out.jsonl"
check "apiKeyHelper: no session file holds it" not grep -rq "$HKEY" "$TANDEM_HOME"
check "apiKeyHelper: no request body holds it" not grep -q "$HKEY" <(jq -c .body "$MOCK_LOG")
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# An MCP result past the cap: its whole text is kept in the session, redacted.
# The server (bash, below) answers a call with 50 KB and a file's key.
KEY="sk-ant-leaks-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export ANTHROPIC_API_KEY="$KEY"
printf '%s' "$(head -c 50000 /dev/zero | tr '\0' x) $KEY end" >"$T/big.txt"
cat >"$T/bigsrv.sh" <<'S'
#!/bin/bash
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"method":"initialize"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"big\",\"version\":\"1\"}}}" ;;
	*'"method":"tools/list"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"tools\":[{\"name\":\"dump\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}]}}" ;;
	*'"method":"tools/call"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"$(cat "$BIG")\"}]}}" ;;
	esac
done
S
mock_start "$(scenario mcp <<'J'
{"check_echo": false, "responses": [
 {"tool_uses":[{"id":"toolu_m","name":"mcp__big__dump","input":{}}],"stop_reason":"tool_use"},
 {"text": "ok", "stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p go --permission-mode yolo --output-format events \
    --mcp-config "$(printf '{"mcpServers":{"big":{"command":"bash","args":["%s"],"env":{"BIG":"%s"}}}}' "$T/bigsrv.sh" "$T/big.txt")" \
    >"$T/out.jsonl" 2>"$T/err"
spill=$(jq -r 'select(.type=="tool_result") | .content' "$T/out.jsonl" | sed -n 's/.*all of it is in \(.*\) (read it.*/\1/p')
check "mcp: the result was cut and kept in a file" all_of '[ -n "$spill" ]' '[ -f "$spill" ]'
check "mcp: the file holds the whole text, the key redacted" grep -q 'x \[redacted\] end' "$spill"
check "mcp: the key is in no session file" not grep -rq "$KEY" "$TANDEM_HOME"
check "mcp: nor in an event" not grep -q "$KEY" "$T/out.jsonl"
finish
