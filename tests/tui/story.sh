#!/bin/sh
# Screen test: the transcript tells the story, at 80x24, 160x45 and 220x60.
# Each tool's line names what it touched; an edit's hunk and a command's
# first and last lines show inline, folded, with the key (Ctrl+O) that
# expands them in place and folds them again; the status bar says when
# tandem waits for the user; the side pane follows the selected call and
# shows a finished call's result, and at 80x24 gives way once nothing waits.
. "$top_srcdir/tests/tui/lib.sh"

story() {
	cols=$1 rows=$2
	wide=$([ "$cols" -ge 140 ] && echo 1 || echo 0)
	at="${cols}x$rows:"
	tui_start "$cols" "$rows" "$TUI_DATA/story.jsonl"
	tui_check "$at the status bar says an approval waits for the user" '◆ waiting for your approval'
	tui_absent "$at and not that it is working" '● working'
	tui_keys y
	tui_check "$at answered, it works again" '● working'
	tui_absent "$at and no longer waits" 'waiting for your approval'
	tui_next
	tui_check "$at the next approval waits again" '◆ waiting for your approval'
	tui_check "$at the side pane opens for it" '─ tools ─.*[0-9] ─'
	tui_keys y
	tui_next
	tui_check "$at a command shows its first lines" '└ CC src/calc\.o'
	tui_check "$at the count between, with the key that expands it" '… 5 more lines \(Ctrl\+O to expand\)'
	tui_check "$at and its last lines" '    ALL-PASSED-LAST-LINE'
	if [ "$wide" -eq 1 ]; then
		tui_check "$at the side pane shows the finished command's result" '─ result ─.*run_bash make check'
		tui_check "$at its whole output, the folded lines too" 'ok 3 - negative'
		tui_absent "$at not the approval's hints" 'a allows: run_bash|asks: the part'
	else
		tui_gone "$at the side pane gives way once nothing waits" '─ tools ─'
		tui_absent "$at no diff pane keeps the approval's text" '─ diff ─|a allows: run_bash'
		tui_absent "$at the transcript folds the middle lines" 'ok 3 - negative'
	fi
	tui_keys Home
	tui_check "$at read_file names the path and its lines" '● read_file src/calc\.c:10-29'
	tui_check "$at glob names the pattern and the count" '● glob src/\*\.c · 3 files'
	tui_check "$at an MCP call names its server and tool" '● every:echo \(MCP\) hi there'
	tui_keys End
	tui_keys Tab
	tui_keys Up
	tui_keys Up
	tui_check "$at apply_patch names its files and how many more" '● apply_patch src/a\.c, docs/b\.md, src/c\.c and 2 more'
	tui_check "$at and shows its hunks" '\+ +return 2;'
	tui_keys Up
	tui_check "$at an applied edit shows its hunk inline, with line numbers" '13 +- +return a - b;'
	tui_check "$at and the added lines" '13 \+ +/\* The sum, checked for overflow\. \*/'
	tui_check "$at folded past eight lines, naming the key" '… [0-9]+ more lines \(Ctrl\+O to expand\)'
	tui_absent "$at the folded lines are hidden" '^ +17 \+ +return INT_MAX'
	if [ "$wide" -eq 1 ]; then
		tui_check "$at the side pane follows the selected call" '─ result ─.*src/calc\.c +\+6 −1'
	fi
	tui_keys C-o
	tui_check "$at Ctrl+O expands the selected edit in place" '^ +17 \+ +return INT_MAX'
	tui_check "$at and says how to fold it again" '\(Ctrl\+O to collapse\)'
	tui_keys C-o
	tui_gone "$at Ctrl+O again folds it" '^ +17 \+ +return INT_MAX'
	if [ "$wide" -eq 1 ]; then
		tui_keys Down
		tui_check "$at the side pane follows the selection to the patch" 'CFLAGS = -O2'
	fi
	tui_keys Escape
	tui_sane "$cols" "$rows" "$at laid out"
}

story 80 24
story 160 45
story 220 60

# A resumed session's denied call is drawn as denied, with the user's reason,
# not as failed; a command stopped with Esc is marked interrupted, not failed.
tui_start 160 45 "$TUI_DATA/denied.jsonl"
tui_check "a replayed denial shows as denied, with its reason" '└ denied: not now'
tui_check "the tools pane says denied" '⊘ run_bash rm -rf build +denied'
tui_check "a replayed failure still shows as failed" '✗ run_bash false +failed'
tui_check "a command the user interrupted is marked interrupted" '✗ run_bash sleep 100 +interrupted'
tui_absent "not failed" 'sleep 100 +failed'
tui_done
