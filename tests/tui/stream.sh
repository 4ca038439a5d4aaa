#!/bin/sh
# Screen test: a reply is shown while it streams, rendered as Markdown.
. "$top_srcdir/tests/tui/lib.sh"

tui_start 80 24 "$TUI_DATA/stream.jsonl" --pace 120
tui_check "the prompt is shown" '› explain the parser'
tui_check "the first words show while the reply streams" 'FIRSTWORDS'
tui_absent "the end has not arrived yet" 'LASTWORDS'
tui_check "a turn in progress is on the status bar" 'working'
tui_check "the heading is drawn without its hashes" '^Overview'
tui_check "the code block is framed with its language" '╭─ c ─'
tui_check "list items get bullets" '• one'
tui_check "the end arrives" 'LASTWORDS' 15
tui_check "usage reaches the status bar" '\$0\.03'
tui_gone "the turn is over" 'working'
tui_sane 80 24 "80x24 is laid out"
tui_done
