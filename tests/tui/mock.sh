# mock.sh: the real tandem in the screen tests, against the mock model
# server.  Source it after lib.sh.  It makes a private home (TANDEM_HOME,
# HOME, XDG_CONFIG_HOME, XDG_STATE_HOME) and a workspace ($TUI_WS, where
# tandem runs), starts tests/mockmodel on a scenario and points tandem at
# it.  Everything is removed at exit unless a check failed.

TUI_TANDEM=${TUI_TANDEM:-$top_builddir/tandem}
TUI_MOCK=${TUI_MOCK:-$top_builddir/tests/mockmodel}
TUI_MOCK_PID=""

if ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
if [ ! -x "$TUI_TANDEM" ] || [ ! -x "$TUI_MOCK" ]; then
	echo "1..0 # SKIP $TUI_TANDEM or $TUI_MOCK is not built"
	exit 0
fi

TUI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tandem-tui.XXXXXX")
TUI_WS=$TUI_TMP/ws
mkdir -p "$TUI_WS" "$TUI_TMP/userhome"
TANDEM_HOME=$TUI_TMP/home XDG_CONFIG_HOME=$TUI_TMP/config HOME=$TUI_TMP/userhome
XDG_STATE_HOME=$TUI_TMP/state ANTHROPIC_API_KEY=test-key TANDEM_RETRY_BASE_MS=20
export TANDEM_HOME XDG_CONFIG_HOME HOME XDG_STATE_HOME ANTHROPIC_API_KEY TANDEM_RETRY_BASE_MS
# Under sanitizers, what they find goes to files that tui_mock_done looks for.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$TUI_TMP/sanitizer
UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:log_path=$TUI_TMP/sanitizer
export ASAN_OPTIONS UBSAN_OPTIONS
unset OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_BASE_URL NO_COLOR VISUAL EDITOR TANDEM_THEMES

tui_mock_stop() {
	if [ -n "$TUI_MOCK_PID" ]; then
		kill "$TUI_MOCK_PID" 2>/dev/null
		wait "$TUI_MOCK_PID" 2>/dev/null
		TUI_MOCK_PID=""
	fi
}

tui_mock_cleanup() {
	tui_cleanup
	tui_mock_stop
	if [ "$TUI_FAILED" -eq 0 ]; then
		rm -rf "$TUI_TMP"
	else
		echo "# kept $TUI_TMP"
	fi
}
trap tui_mock_cleanup EXIT

# tui_scenario NAME <<EOF ... EOF: write a scenario file, print its path.
tui_scenario() {
	cat >"$TUI_TMP/$1.json"
	echo "$TUI_TMP/$1.json"
}

# tui_mock_ok NAME: serve a scenario that answers every prompt "ok" (20 times at most).
tui_mock_ok() {
	tui_mock_start "$(tui_scenario "$1" <<'J'
{"check_echo":false,"responses":[
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)"
}

# tui_mock_start SCENARIO: serve it; sets TUI_MOCK_PORT, TUI_MOCK_LOG, ANTHROPIC_BASE_URL.
tui_mock_start() {
	tui_mock_stop
	TUI_MOCK_LOG=$TUI_TMP/mock.log
	rm -f "$TUI_MOCK_LOG" "$TUI_TMP/mock.port"
	"$TUI_MOCK" --scenario "$1" --port 0 --port-file "$TUI_TMP/mock.port" --log "$TUI_MOCK_LOG" \
	    --idle-timeout 60 >"$TUI_TMP/mock.out" 2>"$TUI_TMP/mock.err" &
	TUI_MOCK_PID=$!
	i=0
	while [ ! -s "$TUI_TMP/mock.port" ] && [ "$i" -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	TUI_MOCK_PORT=$(cat "$TUI_TMP/mock.port" 2>/dev/null)
	ANTHROPIC_BASE_URL=http://127.0.0.1:$TUI_MOCK_PORT
	export ANTHROPIC_BASE_URL
}

# tui_start_tandem COLS ROWS [tandem options...]: the real tandem in $TUI_WS.
tui_start_tandem() {
	cols=$1 rows=$2
	shift 2
	TUI_ENV="TANDEM_HOME=$TANDEM_HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME HOME=$HOME \
XDG_STATE_HOME=$XDG_STATE_HOME ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=$ANTHROPIC_BASE_URL \
TANDEM_RETRY_BASE_MS=20 ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS"
	TUI_CMD="$TUI_TANDEM $*"
	# tmux starts the program in the directory its server was started from.
	tui_here=$(pwd)
	cd "$TUI_WS" || return 1
	tui_start "$cols" "$rows" ""
	cd "$tui_here" || return 1
}

# tui_last_message: the last message of the last request the mock saw, as JSON.
tui_last_message() {
	jq -c 'select(.body.messages != null) | .body.messages[-1]' "$TUI_MOCK_LOG" | tail -n 1
}

# tui_tandem ARGS...: tandem headless in $TUI_WS (stdout and stderr to $TUI_TMP/out, err).
tui_tandem() {
	(cd "$TUI_WS" && "$TUI_TANDEM" "$@" >"$TUI_TMP/out" 2>"$TUI_TMP/err")
}

# tui_mock_done: quit tandem if it still runs, check that no sanitizer
# complained about any run, and end the TAP output.
tui_mock_done() {
	st=$(ps -o stat= -p "$TUI_PID" 2>/dev/null)
	case $st in
	""|Z*) ;;
	*)
		tui_keys C-c
		tui_keys C-c
		tui_exited "tandem quits at the end" ;;
	esac
	if ls "$TUI_TMP"/sanitizer.* >/dev/null 2>&1; then
		tui_ok 1 "no sanitizer reports"
		cat "$TUI_TMP"/sanitizer.* | head -n 60 | sed 's/^/# /'
	else
		tui_ok 0 "no sanitizer reports"
	fi
	tui_done
}
