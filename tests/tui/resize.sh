#!/bin/sh
# Screen test: 80x24, 200x50, and resizes between them keep the layout sane.
. "$top_srcdir/tests/tui/lib.sh"

tui_start 80 24 "$TUI_DATA/approval.jsonl"
tui_check "80x24: the approval is up" 'Apply this edit to src/a\.c\?'
tui_sane 24 24 "80x24 is laid out"
tui_absent "80x24 stacks the panes" 'transcript.*tools'
tui_tmux resize-window -t t -x 200 -y 50
tui_check "200x50: transcript and tools side by side" '─ transcript ─+┬─ tools'
tui_check "200x50: the diff is beside the transcript" '│─ diff '
tui_sane 50 50 "200x50 is laid out"
tui_tmux resize-window -t t -x 60 -y 15
tui_check "60x15: stacked again" '^─ approval'
tui_sane 15 15 "60x15 is laid out"
tui_tmux resize-window -t t -x 80 -y 24
tui_sane 24 24 "back to 80x24"
tui_keys M-z
tui_check "Alt+Z zooms the transcript" '^─ transcript'
tui_absent "zoomed: no diff pane" '─ diff'
tui_keys M-z
tui_check "Alt+Z again unzooms" '─ diff'

tui_start 200 50 "$TUI_DATA/stream.jsonl"
tui_check "200x50 from the start: the reply" 'LASTWORDS'
tui_check "200x50: tools pane on the right" '┬─ tools'
tui_sane 50 50 "200x50 is laid out"
tui_done
