#!/bin/sh
# Screen test: a 6-column table wider than an 80-column pane shows every
# column (cells wrap, borders kept), also after a resize; |-|-| is a table.
. "$top_srcdir/tests/tui/lib.sh"

# All six headers on one row, between borders, and the right border there too.
heads='│ Module +│ Owner +│ Purpose +│ Status +│ Notes +│ Link +│'

tui_start 80 40 "$TUI_DATA/table.jsonl"
tui_check "the reply arrives" 'ENDOFREPLY'
tui_check "80 columns: every column's header is on one row" "$heads"
tui_check "80 columns: the top border is closed" '┌─.*┬.*┬.*┬.*┬.*┬.*─┐'
tui_check "80 columns: the last column's cells are drawn, wrapped" 'mple\.com/do +│$'
tui_check "80 columns: a long cell wraps instead of being cut" 'LASTCOL'
tui_check "80 columns: the wrapped cell's last word is there" 'providers'
tui_check "|-|-| makes a table" '│ key1 +│ val1 +│'
tui_absent "the delimiter row is not shown as text" '\|-\|-\|'
tui_tmux resize-window -t t -x 60 -y 40
tui_check "60 columns: the table is laid out again" "$heads"
tui_check "60 columns: still closed on the right" '┌─.*─┐'
tui_sane 60 40 "60x40 is laid out"
tui_tmux resize-window -t t -x 120 -y 40
tui_check "120 columns: the table takes the room" "$heads"
tui_sane 80 40 "120x40 is laid out"

# A joined emoji is one character of two columns: the borders of its row stand where the others' do.
for size in "80 24" "160 45" "220 60"; do
set -- $size
tui_start "$1" "$2" "$TUI_DATA/emoji.jsonl"
tui_check "$1x$2: the emoji table arrives" 'ENDOFREPLY'
# The cells (as tmux counts them: a wide character takes two, and a joiner
# makes one character of what it joins) from each table row's start to its
# third border, the right one (the tools pane may stand beside it).
border_cols() {
	tui_screen | grep -E '│ (who|family|plain|caf)' | python3 -c '
import sys, unicodedata
for row in sys.stdin:
    cells, joined, bars = 0, False, 0
    for c in row.rstrip("\n"):
        if joined or unicodedata.combining(c):
            joined = False
            continue
        if c == "\u200d":
            joined = True
            continue
        cells += 2 if unicodedata.east_asian_width(c) in "WF" else 1
        if c == "│":
            bars += 1
            if bars == 3:
                break
    print(cells)' | sort -u
}
[ "$(border_cols | wc -l)" -eq 1 ] && [ "$(tui_screen | grep -cE '│ (who|family|plain|caf)')" -eq 4 ]
tui_ok $? "$1x$2: the right border stands in one column on every row ($(border_cols | tr '\n' ' '))"
tui_check "$1x$2: the family's row is drawn" '│ family '
done
tui_done
