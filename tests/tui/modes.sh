#!/bin/sh
# Screen test of the permission modes with the real tandem against the
# mock: Shift+Tab goes ask, accept-edits, plan and back to ask, never to
# yolo; each change is said in the transcript; /mode yolo asks to be sure
# (any key but y keeps the mode); from yolo Shift+Tab goes back to ask; and
# a change reaches the agent (accept-edits applies an edit unasked).
. "$top_srcdir/tests/tui/lib.sh"
. "$top_srcdir/tests/tui/mock.sh"

SCEN=$(tui_scenario modes <<'J'
{"check_echo":false,"responses":[
 {"match":"toolu_m1","text":"EDIT-DONE","stop_reason":"end_turn"},
 {"match":"edit it","tool_uses":[{"id":"toolu_m1","name":"edit_file","input":{"path":"f.txt","old_string":"alpha","new_string":"ALPHA"}}]},
 {"text":"ok","stop_reason":"end_turn","repeat":20}
]}
J
)
tui_mock_start "$SCEN"
printf 'alpha\n' >"$TUI_WS/f.txt"
for size in "80 24" "160 45" "220 60"; do
	set -- $size
	tui_start_tandem "$1" "$2"
	tui_check "$1x$2: tandem starts in ask mode" '│ ask'
	tui_keys BTab
	tui_check "$1x$2: Shift+Tab: accept-edits" '│ accept-edits'
	tui_check "$1x$2: and says what it means" 'mode accept-edits: edits apply without asking'
	tui_keys BTab
	tui_check "$1x$2: then plan" '│ plan'
	tui_check "$1x$2: said too" 'mode plan: read-only'
	tui_keys BTab
	tui_check "$1x$2: then back to ask, not yolo" 'mode ask: every edit and command asks first'
	tui_absent "$1x$2: yolo is never on the way" '│ yolo|mode yolo'
	tui_type "/mode yolo"
	tui_keys Enter
	tui_check "$1x$2: /mode yolo asks to be sure" 'yolo: no call asks first\. y to switch, any other key to stay in ask'
	tui_keys n
	tui_check "$1x$2: any other key keeps the mode" 'mode stays ask'
	tui_absent "$1x$2: still not yolo" '│ yolo'
	tui_type "/mode yolo"
	tui_keys Enter
	tui_keys y
	tui_check "$1x$2: y switches to yolo" '│ yolo'
	tui_check "$1x$2: and says what it means" 'mode yolo: every call runs without asking'
	tui_keys BTab
	tui_check "$1x$2: Shift+Tab from yolo goes back to ask" '│ ask *$|│ ask │'
	tui_type "/mode"
	tui_keys Enter
	tui_check "$1x$2: /mode lists the modes, the current marked" '^ *\* ask '
	tui_keys C-c
	tui_keys C-c
	tui_exited "$1x$2: quit"
done

# The mode reaches the agent: in accept-edits an edit applies without a question.
tui_start_tandem 100 30
tui_keys BTab
tui_check "accept-edits on" '│ accept-edits'
tui_type "edit it"
tui_keys Enter
tui_check "the model's edit is done" 'EDIT-DONE'
tui_absent "nothing was asked" 'Apply this edit'
grep -q ALPHA "$TUI_WS/f.txt"
tui_ok $? "the file was edited"
tui_keys C-c
tui_keys C-c
tui_exited "quit"
tui_done
