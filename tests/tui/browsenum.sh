#!/bin/sh
# Screen test of the turn browser's numbers after a rewind, with the real
# tandem against the mock, at 80x24, 160x45 and 220x60: three turns, back to
# before turn 2, a new turn: the browser lists 1 and 2, not 1 and 4, and
# /diff 2 is the new turn.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario browsenum <<'J'
{"check_echo":false,"responses":[{"text":"ANSWERED","stop_reason":"end_turn","repeat":100}]}
J
)
tui_mock_start "$SCEN"
for size in "80 24" "160 45" "220 60"; do
	set -- $size
	rm -rf "$TANDEM_HOME/sessions"
	tui_start_tandem "$1" "$2"
	for p in "first turn" "second turn" "third turn"; do
		tui_type "$p"
		tui_keys Enter
		tui_check "$1x$2: $p answered" "› $p"
		tui_gone "$1x$2: $p done" 'working'
	done
	tui_type "/rewind 2 conversation"
	tui_keys Enter
	tui_check "$1x$2: rewound to before turn 2" 'rewound \(conversation\) to before turn 2'
	tui_type "new second turn"
	tui_keys Enter
	tui_check "$1x$2: the new turn answered" '› new second turn'
	tui_gone "$1x$2: and done" 'working'
	tui_keys C-t
	tui_check "$1x$2: the browser numbers the new turn 2" '^ (▸)? +2  new second turn  '
	tui_absent "$1x$2: not by the session's count (4)" '^ (▸)? +4  new second turn'
	tui_check "$1x$2: and counts two turns" '─ turns ─.* 2 of 2 ─'
	tui_keys Escape
	tui_keys C-c
	tui_keys C-c
	tui_exited "$1x$2: quit"
done
tui_done
