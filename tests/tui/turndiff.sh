#!/bin/sh
# Screen test of a turn's diff: /diff shows the changes of a write_file
# edit and a run_bash command together as a unified diff in the diff pane
# (in a layout too narrow for a side pane, where only an approval or the
# user's asking shows it), Esc puts it away, and the turn browser's "d"
# brings it back.  A binary file is one line with its sizes, not the
# base85 of its binary patch.
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario both <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_c1","text":"DID-BOTH","stop_reason":"end_turn"},
 {"match":"toolu_w1","tool_uses":[{"id":"toolu_c1","name":"run_bash","input":{"command":"echo added-by-cmd >>a.txt; rm gone.txt; printf '\\000\\001more' >>img.bin"}}]},
 {"match":"do both","tool_uses":[{"id":"toolu_w1","name":"write_file","input":{"path":"w.txt","content":"written-by-edit\n"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
printf 'one\n' >"$TUI_WS/a.txt"
printf 'bye-line\n' >"$TUI_WS/gone.txt"
printf '\000PNG\001' >"$TUI_WS/img.bin"

tui_start_tandem 100 30 --permission-mode yolo
tui_type "do both"
tui_keys Enter
tui_check "the turn ran" 'DID-BOTH'
tui_absent "no diff pane before /diff" 'turn 1  \+'
tui_type "/diff"
tui_keys Enter
tui_check "/diff opens the diff pane on the turn" 'turn 1  \+2 .1'
tui_check "the edit's line is in it" '\+ *written-by-edit'
tui_check "the command's added line" '\+ *added-by-cmd'
tui_check "the command's deleted file" 'diff --git a/gone.txt b/gone.txt'
tui_keys Escape
tui_gone "Esc puts the pane away" 'turn 1  \+2 .1'
tui_keys C-t
tui_check "the browser is open, with d in its legend" 'd diff'
tui_keys d
tui_check "the browser's d shows the turn's diff" 'turn 1  \+2 .1'
tui_check "with the command's change" '\+ *added-by-cmd'
tui_sane 30 30 "100x30 is laid out"
# taller, the diff pane shows the rest of the turn
tui_tmux resize-window -t t -x 100 -y 60
tui_check "a binary file: one line with its sizes" 'Binary file img\.bin changed \(5 -> 11 bytes\)'
tui_absent "... not the binary patch git apply reads" 'GIT binary patch|literal [0-9]|^index '
tui_mock_done
