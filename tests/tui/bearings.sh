#!/bin/sh
# Screen test of the bearings with the real tandem against the mock: the
# first screen says the version, model, directory, session, mode and
# sandbox; quitting prints the command that goes on with the session.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario bearings <<'J'
{"check_echo":false,"responses":[{"text":"BEARINGS-ANSWER","stop_reason":"end_turn","repeat":20}]}
J
)
tui_mock_start "$SCEN"
# tmux clears a dead pane: a shell that outlives tandem a while keeps what
# it printed on the screen to be read; it notes tandem's exit in $gone.
wrap="$TUI_WS/../bearings-wrap.sh"
gone="$TUI_WS/../bearings-gone"
printf '#!/bin/sh\n"$@"\n: >"%s"\nsleep 30\n' "$gone" >"$wrap"
TUI_TANDEM="sh $wrap $TUI_TANDEM"
# bearings_exited DESCRIPTION: until tandem has exited (the shell lingers).
bearings_exited() {
	i=0
	while [ ! -e "$gone" ] && [ "$i" -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	tui_ok "$([ -e "$gone" ]; echo $?)" "$1"
	rm -f "$gone"
}
version=$(sed -n 's/^AC_INIT(\[tandem\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
for size in "80 24" "160 45" "220 60"; do
	set -- $size
	tui_start_tandem "$1" "$2" --sandbox workspace-write
	tui_check "$1x$2: the start line names tandem's version and the model" "tandem $version · [a-z0-9.-]*sonnet"
	tui_check "$1x$2: the mode and the sandbox" "mode ask · sandbox workspace-write"
	tui_type "hello"
	tui_keys Enter
	tui_check "$1x$2: the answer arrives" 'BEARINGS-ANSWER'
	id=$(ls -t "$TANDEM_HOME/sessions" | head -n 1)
	tui_keys C-c
	tui_keys C-c
	tui_check "$1x$2: on exit, the command that goes on with the session" \
	    "to go on with this session: tandem --resume $id"
	bearings_exited "$1x$2: quit"
done
# The directory and the session show where there is room.
tui_start_tandem 220 60
tui_check "220x60: the directory" "$(basename "$TUI_WS")"
tui_check "220x60: a new session says so until it has an id" 'session [0-9]{8}-|session \(new\)'
tui_keys C-c
tui_keys C-c
bearings_exited "220x60: quit with no turn"
tui_absent "a session with no turn is not offered to go on with" 'tandem --resume'

# The demo's workspace is gone when it ends: no session to go on with is offered.
tui_start_tandem 80 24 --demo
tui_check "the demo starts" 'Apply this edit' 30
tui_keys C-c
tui_keys C-c
bearings_exited "the demo quits"
tui_absent "the demo offers no session to go on with" 'tandem --resume'

tui_done
