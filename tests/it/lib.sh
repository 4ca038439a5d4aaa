# Shared helpers of the integration tests: TAP output, a private home, and
# the mock model server on 127.0.0.1.  Source it, then call plan-free
# `ok`/`fail` and `finish` at the end.
set -u
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
TANDEM="$top_builddir/tandem"
MOCK="$top_builddir/tests/mockmodel"
T=$(mktemp -d "${TMPDIR:-/tmp}/tandem-it.XXXXXX")
export TANDEM_HOME="$T/home" XDG_CONFIG_HOME="$T/config" HOME="$T/userhome"
export XDG_STATE_HOME="$T/state"
mkdir -p "$HOME" "$T/ws"
unset OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_BASE_URL
export ANTHROPIC_API_KEY=test-key
export TANDEM_RETRY_BASE_MS=${TANDEM_RETRY_BASE_MS:-20}
_n=0
_failed=0
MOCK_PID=""

ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
fail() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
# not COMMAND...: succeeds when the command fails (for use with check).
not() { ! "$@"; }
diag() { sed 's/^/# /' "$@"; }

finish() {
	mock_stop
	echo "1..$_n"
	if [ "$_failed" -eq 0 ]; then rm -rf "$T"; else echo "# kept $T"; fi
	[ "$_failed" -eq 0 ]
}

# mock_start SCENARIO [extra mock args]: serve SCENARIO; sets MOCK_PORT, MOCK_LOG.
mock_start() {
	local scen=$1; shift
	mock_stop
	MOCK_LOG="$T/mock.log"
	rm -f "$MOCK_LOG" "$T/mock.port"
	"$MOCK" --scenario "$scen" --port 0 --port-file "$T/mock.port" --log "$MOCK_LOG" \
	    --idle-timeout 30 "$@" >"$T/mock.out" 2>"$T/mock.err" &
	MOCK_PID=$!
	local i=0
	while [ ! -s "$T/mock.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	MOCK_PORT=$(cat "$T/mock.port" 2>/dev/null)
	export ANTHROPIC_BASE_URL="http://127.0.0.1:$MOCK_PORT"
	export OPENAI_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1"
}

mock_stop() {
	if [ -n "$MOCK_PID" ]; then
		kill "$MOCK_PID" 2>/dev/null
		wait "$MOCK_PID" 2>/dev/null
		MOCK_PID=""
	fi
}

# The number of requests the mock saw, and how many had problems.
mock_requests() { [ -f "$MOCK_LOG" ] && wc -l <"$MOCK_LOG" || echo 0; }
mock_problems() { jq -s '[.[].problems | length] | add // 0' "$MOCK_LOG"; }
# mock_body N FILTER: jq FILTER over the body of request N (1-based).
mock_body() { sed -n "${1}p" "$MOCK_LOG" | jq -c ".body | $2"; }

# scenario NAME <<EOF ... EOF: write a scenario file, print its path.
scenario() { cat >"$T/$1.json"; echo "$T/$1.json"; }

# needs_node PEER WHAT: fail the test (it never skips: CI installs them)
# unless node and PEER, a file of the npm peer WHAT below tests/npm, are there.
needs_node() {
	if ! command -v node >/dev/null || [ ! -f "$1" ]; then
		fail "node and $2 are installed (scripts/install-deps.sh runs npm ci in tests/npm)"
		finish
		exit 1
	fi
}

# node_tap SCRIPT ARGS...: run a node script (60 s at most); its TAP lines,
# renumbered into ours, and its stderr as comments.
node_tap() {
	local line script=$1
	shift
	timeout 60 node "$script" "$@" >"$T/node.out" 2>"$T/node.err"
	echo "# node exited $?"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) fail "${line#not ok * - }" ;;
		*) echo "$line" ;;
		esac
	done <"$T/node.out"
	[ -s "$T/node.err" ] && diag "$T/node.err"
}

trap 'mock_stop' EXIT

# web_start: the loopback web test server (tests/it/webserve.mjs), its
# requests logged in $WEB_LOG, its port in $WP; stopped at exit with the mock.
web_start() {
	needs_node "$top_srcdir/tests/it/webserve.mjs" "the web test server"
	WEB_LOG="$T/web.log"
	: >"$WEB_LOG"
	node "$top_srcdir/tests/it/webserve.mjs" "$T/web.port" "$WEB_LOG" 2>"$T/web.err" &
	WEB_PID=$!
	trap 'kill $WEB_PID 2>/dev/null; mock_stop' EXIT
	local i=0
	while [ ! -s "$T/web.port" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	WP=$(cat "$T/web.port")
	[ -n "$WP" ] || { fail "the web test server started"; finish; exit 1; }
}

# bash_run ID COMMAND [tandem args...]: one run_bash call through the mock,
# headless; its events in $T/ID.jsonl, its stderr in $T/ID.err.
bash_run() {
	local id=$1 cmd=$2
	shift 2
	mock_start "$(scenario "$id" <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_$id","name":"run_bash","input":$(jq -nc --arg c "$cmd" '{command:$c}')}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	"$TANDEM" -p x --output-format events "$@" >"$T/$id.jsonl" 2>"$T/$id.err"
}
# result ID: the tool result of bash_run ID.
result() { jq -r 'select(.type=="tool_result") | .content' "$T/$1.jsonl"; }

# add_case NAME COMMAND: append to $cases the scenario lines that answer the
# prompt "NAME" with a run_bash call of COMMAND, then "done" once its result
# comes back (each matched up to 10 times: a test may run a case again).
add_case() {
	local c
	c=$(jq -cn --arg n "$1" --arg id "toolu_$1" --arg cmd "$2" \
	    '{match: $id, text: "done", stop_reason: "end_turn", repeat: 10},
	     {match: $n, tool_uses: [{id: $id, name: "run_bash", input: {command: $cmd}}],
	      stop_reason: "tool_use", repeat: 10}')
	cases="$cases$c"$'\n'
}

# starttime PID: the process's start time (field 22 of its stat), or nothing.
# A pid with the same start time is the same process, not a reused pid.
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# procs_in DIR PROGRAM: "pid start-time" of each process running PROGRAM
# (the name of the file it executes) with DIR as its working directory:
# another test's process of the same program is not counted.
procs_in() {
	local p e
	for p in $(pgrep -f -- "$2"); do
		e=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
		[ "${e##*/}" = "$2" ] && [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$1" ] &&
		    echo "$p $(starttime "$p")"
	done
}

# pids_record IN OUT: for each "label pid" line of IN, "pid start-time" in OUT.
pids_record() {
	local pid
	: >"$2"
	while read -r _ pid; do
		echo "$pid $(starttime "$pid")" >>"$2"
	done <"$1"
}

# pids_alive FILE: some process of FILE ("pid start-time" lines) still runs.
pids_alive() {
	local pid st
	while read -r pid st; do
		[ -n "$st" ] && [ "$(starttime "$pid")" = "$st" ] && return 0
	done <"$1"
	return 1
}

# pids_gone FILE: none of FILE's processes runs, within 5 s; names those that do.
pids_gone() {
	local i pid st
	for i in $(seq 50); do
		pids_alive "$1" || return 0
		sleep 0.1
	done
	while read -r pid st; do
		[ "$(starttime "$pid")" = "$st" ] && echo "# still running: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline")"
	done <"$1"
	return 1
}

# pids_kill FILE: what a failed check left running.
pids_kill() {
	local pid st
	while read -r pid st; do
		[ -n "$st" ] && [ "$(starttime "$pid")" = "$st" ] && kill -9 "$pid" 2>/dev/null
	done <"$1"
	return 0
}
