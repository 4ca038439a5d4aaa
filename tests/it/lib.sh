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
. "$top_srcdir/tests/ws_state.sh"

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

# run ARGS...: tandem headless, its events in $T/out.jsonl, its stderr in $T/err.
run() { timeout 60 "$TANDEM" --output-format events "$@" >"$T/out.jsonl" 2>"$T/err"; }
# ev TYPE FILTER: FILTER of each event of TYPE in $T/out.jsonl, one compact line each.
ev() { jq -c "select(.type==\"$1\") | $2" "$T/out.jsonl"; }
# settings JSON: the user's settings file holds JSON.
settings() { mkdir -p "$XDG_CONFIG_HOME/tandem"; echo "$1" >"$XDG_CONFIG_HOME/tandem/settings.json"; }

# big_files: big1.txt to big10.txt here, 250 lines each; their reads cross a
# window of 24000 tokens.
big_files() {
	local i
	for i in $(seq 1 10); do
		printf 'a big file, line %d, with a few more words to make it longer\n' $(seq 1 250) >"big$i.txt"
	done
}
# big_reads: the scenario lines of ten tool calls, each reading one big file.
big_reads() {
	local i
	for i in $(seq 1 10); do
		printf ' {"tool_uses":[{"name":"read_file","input":{"path":"big%d.txt"}}],"stop_reason":"tool_use"},\n' "$i"
	done
}

# web_fetch NAME URL [-- tandem args...]: one web_fetch call of URL through
# the mock, headless, then the end; the result's text in $T/NAME.txt, its
# is_error in $T/NAME.err1.
web_fetch() {
	local name=$1 url=$2 input
	shift 2
	[ "${1:-}" = "--" ] && shift
	input=$(jq -cn --arg u "$url" '{url: $u}')
	mock_start "$(scenario "$name" <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_w","name":"web_fetch","input":$input}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	timeout 60 "$TANDEM" -p go --output-format events "$@" >"$T/$name.jsonl" 2>"$T/$name.stderr"
	jq -r 'select(.type=="tool_result" and .id=="toolu_w") | .content' "$T/$name.jsonl" >"$T/$name.txt"
	jq -r 'select(.type=="tool_result" and .id=="toolu_w") | .is_error' "$T/$name.jsonl" >"$T/$name.err1"
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

# log_paired LOG: the messages rebuilt from session log LOG answer every tool_use with exactly one tool_result.
log_paired() {
	jq -s -e '
	    reduce .[] as $r ([];
	      if $r.k == "msg" then . + [{role: $r.role, content: $r.content}]
	      elif $r.k == "extend" then .[-1].content += $r.content
	      elif $r.k == "rewind" then .[0:$r.keep]
	      elif $r.k == "replace" then $r.messages
	      else . end)
	    | . as $m
	    | [range(0; length) | select($m[.].role == "assistant")
	       | . as $i
	       | ([$m[$i].content[] | select(.type == "tool_use") | .id]) as $uses
	       | ($m[$i + 1].content // []) as $next
	       | ([$next[] | select(.type == "tool_result") | .tool_use_id]) as $res
	       | ($uses | sort) == ($res | sort) and ($res | length) == ($res | unique | length)]
	    | all' "$1" >/dev/null
}

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
