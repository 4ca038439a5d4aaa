#!/bin/bash
# Nothing an MCP server starts outlives tandem: a server that leaves a
# grandchild in a session of its own (setsid), which ignores SIGTERM and
# SIGHUP, and then tandem ends by SIGKILL or SIGHUP.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
F=$T/fifo
cat >"$T/srv.sh" <<'S'
#!/bin/bash
setsid -f bash -c 'trap "" TERM HUP INT; echo "gc $$" >"$1"; exec sleep 300' _ "$PIDF" </dev/null >/dev/null 2>&1
while IFS= read -r line; do
	id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' <<<"$line")
	case $line in
	*'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}\n' "$id";;
	*'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id";;
	*'"id"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id";;
	esac
done
S
mock_start "$(scenario slow <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn","delay_ms":20000,"repeat":10}]}
J
)"
for sig in KILL HUP; do
	rm -f "$T/gc.pid"
	PIDF=$T/gc.pid "$TANDEM" -p hi --mcp-config "$(printf '{"mcpServers":{"s":{"command":"bash","args":["%s"],"env":{"PIDF":"%s"}}}}' "$T/srv.sh" "$T/gc.pid")" \
	    >/dev/null 2>"$T/$sig.err" &
	tp=$!
	for i in $(seq 100); do [ -s "$T/gc.pid" ] && break; sleep 0.1; done
	gc=$(cut -d' ' -f2 "$T/gc.pid")
	check "$sig: the server's grandchild runs" [ -n "$gc" ] && kill -0 "$gc"
	sleep 0.5
	kill -$sig $tp
	wait $tp 2>/dev/null
	for i in $(seq 50); do kill -0 "$gc" 2>/dev/null || break; sleep 0.1; done
	check "$sig: it is gone with tandem" not kill -0 "$gc" 2>/dev/null
	kill -9 "$gc" 2>/dev/null
done
finish
