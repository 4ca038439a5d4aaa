#!/bin/sh
# Screen test of the user's "!command" and the workspace snapshots, with
# the real tandem and the mock model: what a ! command created, changed,
# deleted and re-moded is recorded (as "!command") for the turn its output
# goes with, the next prompt's; the turn browser lists it; "f" rewinds it
# byte for byte and "u" redoes it.  A ! command with no prompt after it is
# rewound with the last turn.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

tui_mock_ok bangsnap
W=$TUI_WS
printf 'one\n' >"$W/a.txt"
printf 'bye\n' >"$W/gone.txt"
printf '#!/bin/sh\n' >"$W/s.sh"
chmod 644 "$W/s.sh"
mkdir "$W/old" && printf 'in\n' >"$W/old/f"
printf '\000bin\377' >"$W/blob"

# Every entry of the workspace: path, type, mode, and a hash of the content.
state() { ws_state "$W"; }
BEFORE=$(state)

tui_start_tandem 100 30
tui_type "first"
tui_keys Enter
tui_check "the first turn is answered" '^ok'

tui_type "!printf 'two\\n' >>a.txt; printf 'new\\n' >new.txt; rm gone.txt; mkdir -p d/e; printf 'x' >d/e/x; chmod 755 s.sh; rm -r old; printf 'b2' >>blob; echo RAN-IT"
tui_keys Enter
tui_check "the ! command ran" 'goes with your next prompt'
AFTER=$(state)
[ "$BEFORE" != "$AFTER" ] && [ ! -e "$W/gone.txt" ] && [ -f "$W/d/e/x" ]
tui_ok $? "it changed the workspace"
sess=$(ls -d "$TANDEM_HOME"/sessions/*/ | head -n 1)
rec() { jq -c 'select(.k == "files" and .by == "!command")' "$sess/log.jsonl"; }
[ "$(rec | wc -l)" -eq 1 ]
tui_ok $? "a files record of the ! command is in the log"
rec | jq -e '.id == "user_cmd_1" and .turn == 2' >/dev/null
tui_ok $? "with an id of its own, for the next turn (2)"
has() { rec | jq -e --arg p "$1" "[.files[] | select(.path == \$p) | $2] | length == 1" >/dev/null; }
has a.txt 'select(.before != .after)' && has new.txt 'select(.was == null)' &&
    has gone.txt 'select(.now == null)' && has s.sh 'select(.mode_before == 420 and .mode_after == 493)' &&
    has old 'select(.was == "dir" and .now == null)' && has d 'select(.now == "dir")'
tui_ok $? "it names each change"

tui_type "next"
tui_keys Enter
tui_check "the next turn is answered" '^ok' 20
tui_keys C-t
tui_check "the browser is open" '─ turns ─'
tui_check "the browser lists the ! command" 'your ! command:'
tui_absent "and no call's id" 'user_cmd_[0-9]'

tui_check "and what it changed" '~ a\.txt  changed'
tui_check "and created" '\+ new\.txt  created'
tui_check "and deleted" '- gone\.txt  deleted'
tui_keys f
tui_check "f rewinds the turn's files" 'removed new\.txt'
[ "$(state)" = "$BEFORE" ]
tui_ok $? "the workspace is back byte for byte, modes too"
if [ "$(state)" != "$BEFORE" ]; then
	echo "$BEFORE" >"$TUI_TMP/before"; state >"$TUI_TMP/now"
	diff "$TUI_TMP/before" "$TUI_TMP/now" | sed 's/^/# /'
fi
tui_keys C-t
tui_keys u
tui_check "u redoes" 'redone'
[ "$(state)" = "$AFTER" ]
tui_ok $? "the ! command's changes are back"

# No prompt after the command: the record is for a turn not yet sent, and
# a rewind of the last turn takes it too.
tui_type "!printf 'three\\n' >>a.txt; echo RAN-TWO"
tui_keys Enter
tui_check "the second ! command ran" 'RAN-TWO'
sleep 0.5
[ "$(rec | wc -l)" -eq 2 ] && rec | tail -n 1 | jq -e '.id == "user_cmd_2" and .turn == 3' >/dev/null
tui_ok $? "its record is for turn 3, which has no prompt yet"
AFTER_ONE=$(cat "$W/a.txt")
tui_keys C-t
tui_check "the browser lists the turn the ! command goes with" 'your ! commands since the last prompt'
tui_keys f
tui_check "f on it rewinds that command alone" 'restored a\.txt'
[ "$(cat "$W/a.txt")" = "$(printf 'one\ntwo')" ]
tui_ok $? "the second ! command is undone, the first stays"
tui_keys C-t
tui_keys u
tui_check "u redoes it" 'redone'
[ "$(cat "$W/a.txt")" = "$AFTER_ONE" ]
tui_ok $? "and it is back"
tui_keys C-t
tui_check "the browser is open again" '─ turns ─'
tui_keys Up
tui_keys f
tui_check "f rewinds the last turn" 'restored a\.txt'
[ "$(cat "$W/a.txt")" = one ] && [ "$(state)" = "$BEFORE" ]
tui_ok $? "both ! commands are undone"
tui_keys C-t
tui_keys u
tui_check "u redoes them" 'redone'
[ "$(cat "$W/a.txt")" = "$(printf 'one\ntwo\nthree')" ]
tui_ok $? "and both are back"

# A rewind while a ! command runs is refused: its changes would be taken for the command's.
tui_type "!sleep 3; echo SLEPT"
tui_keys Enter
sleep 0.5
tui_keys C-t
tui_check "the browser opens while it runs" '─ turns ─'
tui_keys f
tui_check "f is refused while the ! command runs" 'a ! command is running'
[ "$(cat "$W/a.txt")" = "$(printf 'one\ntwo\nthree')" ]
tui_ok $? "and nothing was rewound"
tui_keys Escape
tui_check "the ! command ends" 'SLEPT'
tui_sane 30 30 "100x30 is laid out"
tui_mock_done
