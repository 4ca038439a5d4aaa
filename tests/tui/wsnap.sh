#!/bin/sh
# Screen test of commands in the turn browser, with the real tandem and the
# mock model: what a run_bash command created, changed and deleted is
# listed under its turn and by /diff, and the browser's "f" undoes it, "u"
# redoes it.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario cmd <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_c1","text":"DID-IT","stop_reason":"end_turn"},
 {"match":"do it","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":"echo two >>a.txt; echo new >new.txt; rm gone.txt"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
printf 'one\n' >"$TUI_WS/a.txt"
printf 'bye\n' >"$TUI_WS/gone.txt"

tui_start_tandem 100 30 --permission-mode yolo
tui_type "do it"
tui_keys Enter
tui_check "the command ran" 'DID-IT'
tui_type "/diff"
tui_keys Enter
tui_check "/diff names the command by its words" 'run_bash: echo two >>a\.txt; echo new >new\.txt; rm gone\.txt'
tui_absent "not by the call's id" 'toolu_c1'
tui_check "/diff lists what it created" '\+ new\.txt  created'
tui_check "and what it deleted" '- gone\.txt  deleted'
tui_keys C-t
tui_check "the browser is open" '─ turns ─'
tui_check "the browser lists the command's change" '~ a\.txt  changed'
tui_absent "and no longer says commands are not tracked" 'its changes are not tracked'
tui_keys f
tui_check "f rewinds the command's files" 'removed new\.txt'
[ "$(cat "$TUI_WS/a.txt")" = one ] && [ -f "$TUI_WS/gone.txt" ] && [ ! -e "$TUI_WS/new.txt" ]
tui_ok $? "the workspace is as before the command"
tui_keys C-t
tui_keys u
tui_check "u redoes" 'redone'
[ "$(cat "$TUI_WS/a.txt")" = "$(printf 'one\ntwo')" ] && [ ! -e "$TUI_WS/gone.txt" ] && [ -f "$TUI_WS/new.txt" ]
tui_ok $? "the command's changes are back"
tui_sane 30 30 "100x30 is laid out"
tui_mock_done
