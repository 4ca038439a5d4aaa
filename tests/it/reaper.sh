#!/bin/bash
# Nothing tandem starts outlives it.  The model starts a background shell,
# then a foreground command; each starts a grandchild that leaves the
# session and the environment (setsid -f, env -i: a double fork) and holds
# a fifo, and one more that also closes the fifo.  Then tandem is killed
# with SIGKILL, or sent SIGHUP (in -p, in stream-json, in the TUI under
# tmux).  Every process is found by what it cannot erase: the fifo it
# holds (the test's reader sees EOF only when the last holder is gone)
# and its pid with its start time.  After the SIGKILL, the resume tells
# the model the truth about the foreground command: its keeper killed it.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
F=$T/fifo

# tree LABEL: a command that records its pids in the fifo and holds it.
tree() {
	cat <<S
exec 3>'$F'
setsid -f env -i /bin/sh -c 'echo "$1-gc \$\$" >&3; exec sleep 300'
setsid -f env -i /bin/sh -c 'echo "$1-closed \$\$" >&3; exec sleep 300 3>&- </dev/null >/dev/null 2>&1'
echo "$1 \$\$" >&3
exec sleep 300
S
}
bg_cmd=$(tree bg)
fg_cmd=$(tree fg)
SCEN=$(scenario trees <<J
{"check_echo":false,"responses":[
 {"tool_uses":[{"id":"t1","name":"run_bash","input":$(jq -nc --arg c "$bg_cmd" '{command:$c,run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t2","name":"run_bash","input":$(jq -nc --arg c "$fg_cmd" '{command:$c,timeout_ms:300000}')}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)

# start_reader: a reader of the fifo; its output is every line the trees wrote.
start_reader() {
	rm -f "$F" "$T/held"
	mkfifo "$F"
	cat "$F" >"$T/held" &
	READER=$!
}

# starttime PID: the process's start time (field 22 of its stat), or nothing.
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# wait_trees: until both trees (six processes) are running; records each pid's start time.
wait_trees() {
	local i pid
	for i in $(seq 300); do
		[ "$(wc -l <"$T/held" 2>/dev/null)" -ge 6 ] && break
		sleep 0.1
	done
	: >"$T/pids"
	while read -r _ pid; do
		echo "$pid $(starttime "$pid")" >>"$T/pids"
	done <"$T/held"
	[ "$(wc -l <"$T/pids")" -eq 6 ]
}

# reader_done: the fifo's last holder is gone, within 15 s.
reader_done() {
	local i
	for i in $(seq 150); do
		kill -0 "$READER" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# none_alive: no recorded process runs (the same pid with the same start time).
none_alive() {
	local pid st left=0
	while read -r pid st; do
		[ -n "$st" ] && [ "$(starttime "$pid")" = "$st" ] && { echo "# still running: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline")"; left=1; }
	done <"$T/pids"
	return $left
}

# cleanup: what a failed run left (so that it does not write for 300 s).
cleanup() {
	local pid st
	[ -f "$T/pids" ] && while read -r pid st; do
		[ -n "$st" ] && [ "$(starttime "$pid")" = "$st" ] && kill -9 "$pid" 2>/dev/null
	done <"$T/pids"
	# and what still holds the fifo (in the sandbox, its pids are not the ones written)
	for pid in /proc/[0-9]*; do
		ls -l "$pid/fd" 2>/dev/null | grep -qF -- "$F" && kill -9 "${pid#/proc/}" 2>/dev/null
	done
	kill "$READER" 2>/dev/null
	wait "$READER" 2>/dev/null
}

# ended PID: until PID has ended (gone, or a zombie not reaped yet), 10 s at most.
ended() {
	local i
	for i in $(seq 100); do
		case $(ps -o stat= -p "$1" 2>/dev/null) in ""|Z*) return 0 ;; esac
		sleep 0.1
	done
	return 1
}

# gone_after WHAT: the checks after tandem ended.
gone_after() {
	check "$1: the fifo's last holder is gone (the reader saw EOF)" reader_done
	check "$1: no process of either tree runs, the setsid env -i grandchildren included" none_alive
	cleanup
}

# ---- -p, SIGKILL, then the resume ----
mock_start "$SCEN"
start_reader
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/k.jsonl" 2>"$T/k.err" &
tp=$!
check "-p: both trees run" wait_trees
# The background shell's keeper runs as a fresh tandem, not as a copy of its memory.
check "-p: the background shell's keeper executed tandem again" pgrep -P $tp -f -- '--tandem-internal-keeper'
kill -9 $tp
wait $tp 2>/dev/null
gone_after "-p, SIGKILL"

mock_start "$(scenario resume <<'J'
{"check_echo":false,"responses":[{"text":"ok","stop_reason":"end_turn"}]}
J
)"
"$TANDEM" -c -p "go on" --permission-mode yolo >"$T/r.out" 2>"$T/r.err"
t2=$(jq -r '.body.messages[] | .content | arrays | .[] | select(.tool_use_id? == "t2") | .content' "$MOCK_LOG" 2>/dev/null | head -n 1)
echo "# the resume said: $t2"
check "resume: the command killed with tandem is told as stopped, not as of unknown state" \
    grep -q '^stopped: tandem ended while this command was running' <<<"$t2"

# ---- -p in the sandbox, SIGKILL: the keeper is outside the sandbox's PID namespace ----
# (the pids the trees write are the namespace's: only the fifo tells here).
F=$T/ws/fifo
bg_cmd=$(tree bg)
fg_cmd=$(tree fg)
mock_start "$(scenario jailed <<J
{"check_echo":false,"responses":[
 {"tool_uses":[{"id":"t1","name":"run_bash","input":$(jq -nc --arg c "$bg_cmd" '{command:$c,run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"t2","name":"run_bash","input":$(jq -nc --arg c "$fg_cmd" '{command:$c,timeout_ms:300000}')}],"stop_reason":"tool_use"},
 {"text":"done","stop_reason":"end_turn"}
]}
J
)"
start_reader
"$TANDEM" -p "x" --permission-mode yolo --sandbox workspace-write --output-format events >"$T/j.jsonl" 2>"$T/j.err" &
tp=$!
check "sandbox: both trees run" wait_trees
kill -9 $tp
wait $tp 2>/dev/null
check "sandbox, SIGKILL: the fifo's last holder is gone (the reader saw EOF)" reader_done
: >"$T/pids"
cleanup
F=$T/fifo

# ---- -p, SIGHUP: an orderly end ----
mock_start "$SCEN"
start_reader
"$TANDEM" -p "x" --permission-mode yolo --output-format events >"$T/h.jsonl" 2>"$T/h.err" &
tp=$!
check "-p SIGHUP: both trees run" wait_trees
kill -HUP $tp
wait $tp
rc=$?
check "-p SIGHUP: tandem ends as on SIGTERM (exit 130, was $rc)" [ $rc -eq 130 ]
check "-p SIGHUP: the command's result is recorded as killed" \
    grep -q 'the command and its children were killed' <<<"$(jq -r 'select(.type=="tool_result") | .content' "$T/h.jsonl")"
id=$(sed -n 's/^tandem: resume with: tandem --resume //p' "$T/h.err")
check "-p SIGHUP: says how to resume the session ($id)" [ -n "$id" ] && [ -f "$TANDEM_HOME/sessions/$id/log.jsonl" ]
gone_after "-p, SIGHUP"

# ---- stream-json, SIGHUP ----
mock_start "$SCEN"
start_reader
"$TANDEM" -p "x" --permission-mode yolo --output-format stream-json >"$T/s.jsonl" 2>"$T/s.err" &
tp=$!
check "stream-json SIGHUP: both trees run" wait_trees
kill -HUP $tp
wait $tp
rc=$?
check "stream-json SIGHUP: tandem ends as on SIGTERM (exit 129, was $rc)" [ $rc -eq 129 ]
gone_after "stream-json, SIGHUP"

# ---- acp, SIGHUP ----
mock_start "$SCEN"
start_reader
rm -f "$T/acp.in"
mkfifo "$T/acp.in"
"$TANDEM" --permission-mode yolo acp <"$T/acp.in" >"$T/acp.out" 2>"$T/acp.err" &
tp=$!
exec 4>"$T/acp.in"
echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}' >&4
jq -nc --arg cwd "$T/ws" '{jsonrpc:"2.0",id:2,method:"session/new",params:{cwd:$cwd,mcpServers:[]}}' >&4
sid=""
for i in $(seq 100); do
	sid=$(jq -r 'select(.id == 2) | .result.sessionId // empty' "$T/acp.out" 2>/dev/null)
	[ -n "$sid" ] && break
	sleep 0.1
done
jq -nc --arg s "$sid" '{jsonrpc:"2.0",id:3,method:"session/prompt",params:{sessionId:$s,prompt:[{type:"text",text:"x"}]}}' >&4
check "acp SIGHUP: both trees run" wait_trees
kill -HUP $tp
check "acp SIGHUP: tandem ended" ended $tp
exec 4>&-
wait $tp 2>/dev/null
gone_after "acp, SIGHUP"

# ---- apiKeyHelper: a child tandem waits for, killed with it ----
mock_start "$SCEN"
start_reader
cat >"$T/helper.sh" <<S
#!/bin/sh
exec 3>'$F'
setsid -f env -i /bin/sh -c 'echo "kh-gc \$\$" >&3; exec sleep 300'
echo "kh \$\$" >&3
exec sleep 300
S
chmod +x "$T/helper.sh"
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo "{\"apiKeyHelper\": \"$T/helper.sh\"}" >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" -p "x" --permission-mode yolo >"$T/kh.out" 2>"$T/kh.err" &
tp=$!
for i in $(seq 300); do [ "$(wc -l <"$T/held" 2>/dev/null)" -ge 2 ] && break; sleep 0.1; done
: >"$T/pids"
while read -r _ pid; do echo "$pid $(starttime "$pid")" >>"$T/pids"; done <"$T/held"
check "apiKeyHelper: the helper and its grandchild run" [ "$(wc -l <"$T/pids")" -eq 2 ]
kill -9 $tp
wait $tp 2>/dev/null
gone_after "apiKeyHelper, SIGKILL"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# ---- the TUI under tmux, SIGHUP ----
if command -v tmux >/dev/null; then
	mock_start "$SCEN"
	start_reader
	SOCK=$T/tmux.sock
	tmux -S "$SOCK" -f /dev/null new-session -d -s t -x 100 -y 30 \
	    "exec env TERM=tmux-256color TANDEM_HOME=$TANDEM_HOME HOME=$HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_STATE_HOME=$XDG_STATE_HOME ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=$ANTHROPIC_BASE_URL $TANDEM --permission-mode yolo x 2>$T/tui.err" \; \
	    set-option -t t remain-on-exit on >/dev/null
	tp=$(tmux -S "$SOCK" display-message -p -t t '#{pane_pid}')
	check "TUI: both trees run" wait_trees
	kill -HUP "$tp"
	check "TUI SIGHUP: tandem ended" ended "$tp"
	check "TUI SIGHUP: it says on stderr how to resume the session" \
	    grep -q '^tandem: ended by SIGHUP; resume with: tandem --resume ' "$T/tui.err"
	gone_after "TUI, SIGHUP"
	tmux -S "$SOCK" kill-server 2>/dev/null
else
	fail "tmux is installed (scripts/install-deps.sh)"
fi

finish
