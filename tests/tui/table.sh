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
tui_done
