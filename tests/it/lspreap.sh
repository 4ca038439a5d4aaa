#!/bin/bash
# Nothing a language server starts outlives tandem.  A trusted project's
# server (a small script speaking enough LSP) ignores SIGTERM and SIGHUP,
# stays when its stdin closes, and leaves a grandchild in a session of its
# own (setsid) that ignores them too; then tandem ends by SIGKILL, by
# SIGHUP, or normally (with a server that answers exit, and with one that
# does not).  The same server confined by the sandbox (an untrusted
# project), and real clangd, after a SIGKILL.  Each process is known by
# its pid and its start time, so a reused pid is not taken for it.
. "$(dirname "$0")/lib.sh"
mkdir -p "$XDG_CONFIG_HOME/tandem"

# The server: records its pid and its grandchild's in $LS_PIDS.  LS_MODE=deaf
# ignores the exit notification as well.
cat >"$T/ls.sh" <<'S'
#!/bin/bash
trap '' TERM HUP INT
setsid -f bash -c 'trap "" TERM HUP INT; echo "gc $$" >>"$1"; exec sleep 300' _ "$LS_PIDS" \
    </dev/null >/dev/null 2>&1
echo "server $$" >>"$LS_PIDS"
send() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
while :; do
	len=
	while IFS= read -r h; do
		h=${h%$'\r'}
		[ -z "$h" ] && break
		case $h in Content-Length:*) len=${h#Content-Length: } ;; esac
	done
	# tandem is gone (or said nothing): stay, as a stubborn server would
	[ -z "$len" ] && exec sleep 300
	IFS= read -r -N "$len" body || exec sleep 300
	method=$(sed -n 's/.*"method":"\([^"]*\)".*/\1/p' <<<"$body")
	id=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' <<<"$body")
	echo "$method" >>"$LS_PIDS.log"
	case $method in
	initialize) send '{"jsonrpc":"2.0","id":'"$id"',"result":{"capabilities":{"textDocumentSync":1}}}' ;;
	shutdown) send '{"jsonrpc":"2.0","id":'"$id"',"result":null}' ;;
	exit) [ "${LS_MODE:-}" = deaf ] || exit 0 ;;
	esac
done
S
chmod +x "$T/ls.sh"

# wait_started FILE: until the server and its grandchild have written their
# pids and the server has been sent didOpen (10 s at most); records each
# pid with its start time in FILE.pids.
wait_started() {
	local i
	for i in $(seq 100); do
		[ "$({ wc -l <"$1"; } 2>/dev/null)" -ge 2 ] 2>/dev/null && grep -q didOpen "$1.log" 2>/dev/null && break
		sleep 0.1
	done
	pids_record "$1" "$1.pids"
	[ "$(grep -c ' [0-9]' "$1.pids")" -eq 2 ]
}

# project DIR [MODE]: a project whose own settings name the server for .ls files.
project() {
	mkdir -p "$1/.tandem"
	printf 'hello\n' >"$1/a.ls"
	jq -n --arg c "$T/ls.sh" --arg p "$1/pids" --arg m "${2:-}" \
	    '{lspServers: {ls: {command: $c, extensionToLanguage: {".ls": "ls"},
	      env: {LS_PIDS: $p, LS_MODE: $m}}}}' >"$1/.tandem/settings.json"
}

# The model reads a.ls (the server starts), then takes 20 s to answer again.
SLOW=$(scenario slow <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"a.ls"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn","delay_ms":20000,"repeat":10}
]}
J
)
# The model reads a.ls, waits for the server to be sent it, and is done.
QUICK=$(scenario quick <<'J'
{"responses":[
 {"tool_uses":[{"id":"r1","name":"read_file","input":{"path":"a.ls"}}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"b1","name":"run_bash","input":{"command":"for i in $(seq 100); do grep -q didOpen pids.log && break; sleep 0.1; done"}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn","repeat":10}
]}
J
)

# killed NAME SIG [tandem args]: in project $T/NAME, tandem ends by SIG
# while the server runs (one that does not exit when told to).
killed() {
	local name=$1 sig=$2 dir=$T/$1 tp
	shift 2
	project "$dir" deaf
	mock_start "$SLOW"
	(cd "$dir" && exec "$TANDEM" -p go --output-format events "$@" >"$T/$name.jsonl" 2>"$T/$name.err") &
	tp=$!
	check "$name: the server and its setsid grandchild run" wait_started "$dir/pids"
	kill -"$sig" $tp
	wait $tp 2>/dev/null
	check "$name: both are gone with tandem (SIG$sig)" pids_gone "$dir/pids.pids"
	pids_kill "$dir/pids.pids"
}

killed kill KILL --trust
killed hup HUP --trust

# a normal end: the server is shut down and answers exit, or does not
for mode in polite deaf; do
	dir=$T/$mode
	project "$dir" $mode
	mock_start "$QUICK"
	(cd "$dir" && timeout 60 "$TANDEM" -p go --trust --allow run_bash --output-format events >"$T/$mode.jsonl" 2>"$T/$mode.err")
	check "$mode: the run exits 0" [ $? -eq 0 ]
	check "$mode: the server ran, with its grandchild, and was sent exit" \
	    bash -c "[ \$(wc -l <'$dir/pids') -ge 2 ] && grep -q '^exit$' '$dir/pids.log'"
	pids_record "$dir/pids" "$dir/pids.pids"
	check "$mode: neither outlives tandem" pids_gone "$dir/pids.pids"
	pids_kill "$dir/pids.pids"
done

# an untrusted project's server, in the sandbox (the user's own settings
# name it: the project's wait for trust).  Its /tmp is private (so it is
# in the project) and the project read-only, so it writes no pids: it is
# found from outside by a variable of its environment, which its grandchild
# inherits.
dir=$T/confined
mkdir -p "$dir"
printf 'hello\n' >"$dir/a.ls"
cp "$T/ls.sh" "$dir/ls.sh"
tag=lspreap-$$-confined
jq -n --arg c "$dir/ls.sh" --arg t "$tag" \
    '{lspServers: {ls: {command: $c, extensionToLanguage: {".ls": "ls"}, env: {LS_PIDS: "/tmp/pids", LS_TAG: $t}}}}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
# tagged: the server's and sleep's processes whose environment holds
# LS_TAG=$tag, with their names.
tagged() {
	local p
	for p in $(pgrep -f 'ls\.sh|^sleep 300$'); do
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "LS_TAG=$tag" &&
		    echo "$p $(starttime "$p") $(cat "/proc/$p/comm" 2>/dev/null)"
	done
}
mock_start "$SLOW"
(cd "$dir" && exec "$TANDEM" -p go --sandbox workspace-write --output-format events >"$T/confined.jsonl" 2>"$T/confined.err") &
tp=$!
for i in $(seq 100); do
	tagged >"$T/tagged"
	grep -q ' sleep$' "$T/tagged" && grep -q ' ls.sh$' "$T/tagged" && break
	sleep 0.1
done
cut -d' ' -f1,2 "$T/tagged" >"$dir/pids.pids"
check "confined: the sandboxed server and its grandchild run" \
    bash -c "grep -q ' sleep\$' '$T/tagged' && grep -q ' ls.sh\$' '$T/tagged'"
kill -KILL $tp
wait $tp 2>/dev/null
check "confined: both are gone with tandem (SIGKILL)" pids_gone "$dir/pids.pids"
pids_kill "$dir/pids.pids"
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# real clangd (its main thread is named clangd.main: found by its program),
# in this test's project
dir=$T/c
mkdir -p "$dir"
printf 'int main(void) { return 0; }\n' >"$dir/main.c"
mock_start "$(sed 's/a\.ls/main.c/' "$SLOW" | scenario slowc)"
(cd "$dir" && exec "$TANDEM" -p go --trust --output-format events >"$T/clangd.jsonl" 2>"$T/clangd.err") &
tp=$!
for i in $(seq 150); do
	procs_in "$dir" clangd >"$dir/pids.pids"
	[ -s "$dir/pids.pids" ] && grep -q "clangd ready" "$T/clangd.jsonl" && break
	sleep 0.1
done
check "clangd: it runs for the project" [ -s "$dir/pids.pids" ]
kill -KILL $tp
wait $tp 2>/dev/null
check "clangd: it is gone with tandem (SIGKILL)" pids_gone "$dir/pids.pids"
pids_kill "$dir/pids.pids"
finish
