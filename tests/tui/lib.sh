# lib.sh: helpers for the TUI screen tests (TAP), sourced by tests/tui/*.sh.
#
# Each test runs a program (the replay driver by default; set TUI_CMD to
# run something else, e.g. the real tandem against the mock server) inside
# a private tmux server at a fixed size, types with send-keys and reads
# the screen with capture-pane.

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
TUI_REPLAY=${TUI_REPLAY:-$top_builddir/tests/tui/tui_replay}
TUI_DATA=$top_srcdir/tests/tui
TUI_SOCK=${TMPDIR:-/tmp}/tandem-tui-test.$$
TUI_N=0
TUI_FAILED=0
. "$top_srcdir/tests/ws_state.sh"

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	exit 0
fi

tui_tmux() {
	tmux -S "$TUI_SOCK" "$@"
}

tui_cleanup() {
	tui_tmux kill-server >/dev/null 2>&1
	rm -f "$TUI_SOCK"
}
trap tui_cleanup EXIT

# tui_start COLS ROWS SCRIPT [replay options...]: run the replay driver on SCRIPT.
tui_start() {
	cols=$1 rows=$2 script=$3
	shift 3
	tui_cleanup
	tui_tmux -f /dev/null new-session -d -s t -x "$cols" -y "$rows" \
	    "exec env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 ${TUI_ENV:-} ${TUI_CMD:-$TUI_REPLAY --datadir $top_srcdir/themes $* $script}" \; \
	    set-option -t t remain-on-exit on >/dev/null
	TUI_PID=$(tui_tmux display-message -p -t t '#{pane_pid}')
}

tui_screen() {
	tui_tmux capture-pane -p -t t 2>/dev/null
}

# tui_poll SECONDS COMMAND [ARGS...]: until COMMAND succeeds, tried every
# 50 ms; 0, or 1 once SECONDS have passed.
tui_poll() {
	tui_poll_n=$(($1 * 20)) tui_poll_i=0
	shift
	while [ "$tui_poll_i" -lt "$tui_poll_n" ]; do
		"$@" && return 0
		sleep 0.05
		tui_poll_i=$((tui_poll_i + 1))
	done
	return 1
}

# tui_has PATTERN: the screen matches the extended regex now.
tui_has() {
	tui_screen | grep -Eq -- "$1"
}

# tui_lacks PATTERN: the screen does not match now.
tui_lacks() {
	! tui_has "$1"
}

# tui_wait PATTERN [SECONDS]: until the screen matches the extended regex.
tui_wait() {
	tui_poll "${2:-20}" tui_has "$1"
}

# The replay's next step (a {"replay":"pause"} in the script).
tui_next() {
	kill -USR1 "$TUI_PID"
}

# tui_exited DESCRIPTION: until the program has exited (gone, or a zombie tmux
# has not reaped yet).
tui_exited() {
	tui_poll 20 tui_ended
	tui_ok $? "$1"
}

tui_ended() {
	case $(ps -o stat= -p "$TUI_PID" 2>/dev/null) in
	""|Z*) return 0 ;;
	esac
	return 1
}

tui_keys() {
	tui_tmux send-keys -t t "$@"
	# A pause so the next key is not read as Alt+key after an Esc.
	sleep 0.15
}

tui_type() {
	tui_tmux send-keys -t t -l "$1"
	sleep 0.15
}

tui_ok() {
	TUI_N=$((TUI_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TUI_N - $2"
	else
		echo "not ok $TUI_N - $2"
		TUI_FAILED=$((TUI_FAILED + 1))
		tui_screen | sed 's/^/# | /'
		ps -o pid=,stat=,wchan=,args= -p "$TUI_PID" 2>/dev/null | sed 's/^/# process: /'
	fi
}

# tui_jq JSON FILTER DESCRIPTION: ok when jq -e FILTER holds for JSON.
tui_jq() {
	printf '%s' "$1" | jq -e "$2" >/dev/null
	tui_ok $? "$3"
}

# tui_check DESCRIPTION PATTERN [SECONDS]
tui_check() {
	tui_wait "$2" "${3:-20}"
	tui_ok $? "$1"
}

# tui_check_input DESCRIPTION PATTERN [SECONDS]: until the input line (just
# above the status bar; a one-line input) matches.
tui_check_input() {
	tui_poll "${3:-20}" tui_input_has "$2"
	tui_ok $? "$1"
}

tui_input_has() {
	tui_screen | tail -n 2 | head -n 1 | grep -Eq -- "$1"
}

# tui_absent DESCRIPTION PATTERN: the screen does not match now.
tui_absent() {
	tui_lacks "$2"
	tui_ok $? "$1"
}

# tui_gone DESCRIPTION PATTERN [SECONDS]: until the screen no longer matches.
tui_gone() {
	tui_poll "${3:-20}" tui_lacks "$2"
	tui_ok $? "$1"
}

# A sane screen: ROWS rows, the transcript's title on top, the status bar at
# the bottom, the input's rule and prompt just above it.
tui_sane() {
	rows=$2 desc=$3
	sleep 0.3
	out=$(tui_screen)
	n=$(printf '%s\n' "$out" | wc -l)
	first=$(printf '%s\n' "$out" | sed -n 1p)
	last=$(printf '%s\n' "$out" | sed -n "${rows}p")
	prompt=$(printf '%s\n' "$out" | sed -n "$((rows - 1))p")
	if [ "$n" -eq "$rows" ] && printf '%s' "$first" | grep -q '^─ transcript' &&
	    printf '%s' "$last" | grep -q 'ctx' && printf '%s' "$prompt" | grep -q '›'; then
		tui_ok 0 "$desc"
	else
		tui_ok 1 "$desc (rows $n; first: $first; last: $last)"
	fi
}

tui_done() {
	echo "1..$TUI_N"
	[ "$TUI_FAILED" -eq 0 ]
}
