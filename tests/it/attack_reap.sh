#!/bin/bash
# Nothing an MCP server or a hook starts outlives tandem: a server that
# leaves a grandchild in a session of its own (setsid), which ignores
# SIGTERM and SIGHUP, and then tandem ends by SIGKILL or SIGHUP; a hook
# that does the same and ignores them too, and tandem ends by SIGKILL or
# SIGHUP while it runs, or normally after it left the grandchild behind.
# (Language servers: lspreap.sh; run_bash commands: reaper.sh.)
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

# hook [sleep]: the user's UserPromptSubmit hook, which leaves a setsid
# grandchild and, with sleep, stays.  Each writes "NAME PID START-TIME" in
# $T/hook.pids (its start time its own: the grandchild of a hook that does
# not stay is gone before tandem is).
hook() {
	local me='$$ $(sed "s/.*) //" /proc/$$/stat | cut -d" " -f20)' cmd
	cmd="setsid -f bash -c 'trap \"\" TERM HUP INT; echo \"gc $me\" >>\"\$1\"; exec sleep 300' _ '$T/hook.pids' </dev/null >/dev/null 2>&1
echo \"hook $me\" >>'$T/hook.pids'"
	[ "${1:-}" = sleep ] && cmd="$cmd
trap '' TERM HUP INT; exec sleep 300"
	mkdir -p "$XDG_CONFIG_HOME/tandem"
	jq -n --arg c "$cmd" '{hooks: {UserPromptSubmit: [{hooks: [{type: "command", command: $c, timeout: 600}]}]}}' \
	    >"$XDG_CONFIG_HOME/tandem/settings.json"
	rm -f "$T/hook.pids"
}
# hook_started: until the hook and its grandchild have written (10 s at most);
# their pids and start times in $T/hook.alive.
hook_started() {
	local i
	for i in $(seq 100); do
		[ -f "$T/hook.pids" ] && [ "$(grep -c '^[a-z]* [0-9]* [0-9]' "$T/hook.pids")" -ge 2 ] && break
		sleep 0.1
	done
	cut -d' ' -f2- "$T/hook.pids" >"$T/hook.alive"
	[ "$(grep -c '^[0-9]* [0-9]' "$T/hook.alive")" -eq 2 ]
}
for sig in KILL HUP; do
	hook sleep
	"$TANDEM" -p hi >/dev/null 2>"$T/hook$sig.err" &
	tp=$!
	check "hook, $sig: the hook and its setsid grandchild run" hook_started
	kill -$sig $tp
	wait $tp 2>/dev/null
	check "hook, $sig: both are gone with tandem" pids_gone "$T/hook.alive"
	pids_kill "$T/hook.alive"
done
hook
mock_start "$(scenario quick <<'J'
{"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
timeout 60 "$TANDEM" -p hi >/dev/null 2>"$T/hookend.err"
check "hook, normal end: the run exits 0" [ $? -eq 0 ]
check "hook, normal end: the hook left a grandchild" hook_started
check "hook, normal end: it does not outlive tandem" pids_gone "$T/hook.alive"
pids_kill "$T/hook.alive"
finish
